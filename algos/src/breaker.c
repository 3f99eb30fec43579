/*
 * breaker.c - model: the rate-limit circuit breaker of breaker.h, a
 * sliding-window log of admitted requests (as runs) plus an open timer.
 *
 * Invariant: while CLOSED the log holds exactly the admitted times in
 * (now - window, now], at most limit of them; OPEN and HALF_OPEN hold none
 * (their ring stays allocated, at most the largest window's runs).
 */
#include "ratelab/breaker.h"

#include <stdbool.h>
#include <stdio.h>

#include "arith.h"
#include "runlog_ops.h"

int rl_breaker_init(struct rl_breaker *b, int64_t limit, int64_t window, int64_t open_for,
		    char *msg, size_t msg_len)
{
	const char *bad = NULL;
	int64_t value = 0;

	if (limit < 1 || limit > RL_BREAKER_LIMIT_MAX)
		bad = "limit", value = limit;
	else if (window < 1 || window > RL_TIME_MAX_NS)
		bad = "window", value = window;
	else if (open_for < 1 || open_for > RL_TIME_MAX_NS)
		bad = "open time", value = open_for;
	if (bad) {
		if (msg)
			snprintf(msg, msg_len, "breaker %s %lld is out of range", bad, (long long)value);
		return RL_EINVAL;
	}
	*b = (struct rl_breaker){ .limit = limit, .window = window, .open_for = open_for };
	return RL_OK;
}

void rl_breaker_destroy(struct rl_breaker *b)
{
	rl_runlog_free(&b->admitted);
}

/* RL_ERANGE or RL_EORDER for a time the breaker refuses, else RL_OK. */
static int time_ok(const struct rl_breaker *b, int64_t now)
{
	if (!rl__time_ok(now))
		return RL_ERANGE;
	return now < b->last ? RL_EORDER : RL_OK;
}

/* Records an accepted now and moves OPEN to HALF_OPEN once open_for has passed. */
static void advance(struct rl_breaker *b, int64_t now)
{
	b->last = now;
	if (b->state == RL_BREAKER_OPEN && now - b->opened_at >= b->open_for)
		b->state = RL_BREAKER_HALF_OPEN;
}

int rl_breaker_state_at(struct rl_breaker *b, int64_t now, enum rl_breaker_state *state)
{
	int rc = time_ok(b, now);

	if (rc == RL_OK) {
		advance(b, now);
		*state = b->state;
	}
	return rc;
}

/*
 * The slow paths below are out of line and reached by tail calls, so that
 * the CLOSED breaker's common request (one run leaves, one arrives, the
 * ring has room) saves no register for them.
 */

/* A request to a breaker stored OPEN or HALF_OPEN, its time accepted. */
static RL_NOINLINE int handle_not_closed(struct rl_breaker *b, int64_t now,
					 enum rl_breaker_state *before)
{
	advance(b, now);
	*before = b->state;
	if (b->state == RL_BREAKER_OPEN)
		return RL_REJECTED;
	/* the probe: a new window holding only it (the log is empty) */
	int rc = rl_runlog_push(&b->admitted, now);
	if (rc)
		return rc;
	b->state = RL_BREAKER_CLOSED;
	return RL_ALLOWED;
}

/* The rest of a CLOSED request: more runs to expire (expire_more), a ring
 * to grow, or the limit reached. */
static RL_NOINLINE int closed_rest(struct rl_breaker *b, int64_t now, bool expire_more)
{
	if (expire_more)
		rl_runlog_expire(&b->admitted, now - b->window);
	if (b->admitted.total < (uint64_t)b->limit) {
		int rc = rl_runlog_push(&b->admitted, now);
		return rc ? rc : RL_ALLOWED;
	}
	b->state = RL_BREAKER_OPEN;
	b->opened_at = now;
	/* keep the ring: the next closed period reuses it without reallocating */
	rl_runlog_clear(&b->admitted);
	return RL_REJECTED;
}

int rl_breaker_handle(struct rl_breaker *b, int64_t now, enum rl_breaker_state *before)
{
	int rc = time_ok(b, now);

	if (rc)
		return rc;
	if (b->state != RL_BREAKER_CLOSED)
		return handle_not_closed(b, now, before);
	advance(b, now);
	*before = RL_BREAKER_CLOSED;
	if (rl__runlog_expire_one(&b->admitted, now - b->window))
		return closed_rest(b, now, true);
	if (b->admitted.total < (uint64_t)b->limit && rl__runlog_push_fits(&b->admitted, now, 1))
		return RL_ALLOWED;
	return closed_rest(b, now, false);
}

const char *rl_breaker_state_name(enum rl_breaker_state s)
{
	switch (s) {
	case RL_BREAKER_CLOSED:
		return "CLOSED";
	case RL_BREAKER_OPEN:
		return "OPEN";
	case RL_BREAKER_HALF_OPEN:
		return "HALF_OPEN";
	}
	return "?";
}
