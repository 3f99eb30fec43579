/*
 * sim_breaker_run.c - model: the engine's decider is the breaker; state
 * changes are observed around each call (the effective state before it,
 * the state after it) plus the timed OPEN -> HALF_OPEN change, which is
 * dated at opened_at + open_for. Invariant: the recorded segments tile
 * [0, now] without overlap, so the three state times sum to the duration.
 */
#include "sim_breaker_run.h"

#include <stdio.h>

#include "ratelab/breaker.h"
#include "ratelab/rule.h"
#include "ratelab/runlog.h"

struct brun {
	struct rl_breaker b;
	enum rl_breaker_state cur; /* the effective state since `since` */
	int64_t since_ns;
	struct rl_runlog allowed;  /* allowed times in (t - window, t] */
	sim_transition_fn fn;
	void *arg;
	struct sim_breaker_result *res;
};

static void enter(struct brun *r, enum rl_breaker_state to, int64_t t)
{
	if (to == r->cur)
		return;
	r->res->state_ns[r->cur] += t - r->since_ns;
	r->cur = to;
	r->since_ns = t;
	r->res->openings += to == RL_BREAKER_OPEN;
	if (r->fn)
		r->fn(r->arg, t, to);
}

/* Dates the lazy OPEN -> HALF_OPEN change if it happened by t. */
static void catch_up(struct brun *r, int64_t t)
{
	if (r->cur == RL_BREAKER_OPEN && t - r->b.opened_at >= r->b.open_for)
		enter(r, RL_BREAKER_HALF_OPEN, r->b.opened_at + r->b.open_for);
}

static int decide(void *ctx, int64_t t, uint32_t key, int64_t cost, int64_t *retry_ns)
{
	struct brun *r = ctx;
	enum rl_breaker_state before, after;

	(void)key;
	(void)cost; /* the breaker counts requests, whatever they cost */
	catch_up(r, t);
	int v = rl_breaker_handle(&r->b, t, &before);
	if (v < 0)
		return v;
	int rc = rl_breaker_state_at(&r->b, t, &after);
	if (rc)
		return rc;
	enter(r, after, t);
	r->res->requests++;
	if (v) {
		r->res->allowed++;
		rl_runlog_expire(&r->allowed, t - r->b.window);
		if ((rc = rl_runlog_push(&r->allowed, t)))
			return rc;
		if ((int64_t)r->allowed.total > r->res->max_in_window)
			r->res->max_in_window = r->allowed.total;
	} else if (retry_ns) {
		int64_t wait = r->b.opened_at + r->b.open_for - t;
		*retry_ns = wait > 0 ? wait : 1;
	}
	return v;
}

int sim_run_breaker(struct sim_traffic *tr, sim_transition_fn on_transition, void *arg,
		       struct sim_breaker_result *res)
{
	const struct sim_scenario *sc = tr->sc;
	struct brun r = { .cur = RL_BREAKER_CLOSED, .fn = on_transition, .arg = arg, .res = res };
	char label[SIM_NAME_MAX + 16];
	int rc;

	*res = (struct sim_breaker_result){ 0 };
	/* N * keys in 128 bits: N up to 10^12 */
	__int128 all = (__int128)sc->rule.limit * (int64_t)tr->nkeys;
	int64_t limit = all > RL_BREAKER_LIMIT_MAX || all < 1 ? RL_BREAKER_LIMIT_MAX : (int64_t)all;
	if (sc->breaker_limit)
		limit = sc->breaker_limit;
	res->limit = limit;
	res->window_ns = sc->breaker_window_ns;
	if ((rc = rl_breaker_init(&r.b, limit, sc->breaker_window_ns, sc->breaker_open_ns, NULL, 0)))
		return rc;
	if (on_transition)
		on_transition(arg, 0, RL_BREAKER_CLOSED);
	struct sim_decider d = { .decide = decide, .ctx = &r, .in_order = true }; /* the breaker refuses a clock going back */
	snprintf(label, sizeof(label), "%s/breaker", sc->name);
	rc = sim_traffic_run(tr, &d, label);
	if (rc == RL_OK) {
		catch_up(&r, sc->duration_ns);
		res->state_ns[r.cur] += sc->duration_ns - r.since_ns;
	}
	rl_runlog_free(&r.allowed);
	rl_breaker_destroy(&r.b);
	return rc;
}
