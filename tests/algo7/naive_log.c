/*
 * naive_log.c - model: the exact sliding window over a sorted array of
 * every admitted time (one entry per admission). A request at t is admitted
 * iff the entries x with t - W < x <= t plus its cost (one entry per
 * admitted unit) come to at most N.
 *
 * Invariant: times holds exactly the admitted times still inside the
 * window at last_ns, oldest first; an empty array holds no memory.
 */
#include "naive_log.h"

#include <stdlib.h>
#include <string.h>

#include "arith.h"
#include "compat.h"

/* Drops the times at or before horizon; frees the array once empty. */
static void expire(struct rl_naive_log *st, int64_t horizon)
{
	uint32_t gone = 0;

	while (gone < st->len && st->times[gone] <= horizon)
		gone++;
	if (gone) /* times may be NULL when nothing is held: memmove's pointers must not be */
		memmove(st->times, st->times + gone, (size_t)(st->len - gone) * sizeof(st->times[0]));
	st->len -= gone;
	if (!st->len) {
		free(st->times);
		st->times = NULL;
		st->cap = 0;
	}
}

static int check_op(const struct rl_limiter *lim, void *state, int64_t now_ns, int64_t cost,
		    struct rl_decision *out)
{
	struct rl_naive_log *st = state;

	if (!rl__time_ok(now_ns))
		return RL_ERANGE;
	if (cost < 1 || cost > RL_COST_MAX)
		return RL_EINVAL;
	int64_t now = rl__clamp(now_ns, st->last_ns), w = lim->rule.window_ns, n = lim->rule.limit;

	expire(st, now - w);
	int verdict = (int64_t)st->len + cost <= n ? RL_ALLOWED : RL_REJECTED;
	if (verdict) {
		if (st->len + (uint64_t)cost > st->cap) {
			uint32_t cap = st->cap ? st->cap : 4;
			while (cap < st->len + (uint64_t)cost)
				cap *= 2;
			int64_t *times = realloc(st->times, cap * sizeof(times[0]));
			if (!times)
				return RL_ENOMEM;
			st->times = times;
			st->cap = cap;
		}
		for (int64_t i = 0; i < cost; i++)
			st->times[st->len++] = now;
	}
	st->last_ns = now;
	if (out) {
		out->remaining = n - (int64_t)st->len;
		/* Rejected: wait until the oldest len + cost - N admitted units leave. */
		out->retry_after_ns = verdict ? 0
				      : cost > n ? RL_DURATION_MAX_NS
						 : st->times[(int64_t)st->len + cost - n - 1] + w - now;
		out->reset_ns = st->len ? st->times[st->len - 1] + w - now : 0;
		out->delay_ns = 0;
	}
	return verdict;
}

static bool idle_op(const struct rl_limiter *lim, const void *state, int64_t now_ns)
{
	const struct rl_naive_log *st = state;
	int64_t now = rl__clamp(now_ns, st->last_ns);

	return !st->len || st->times[st->len - 1] <= now - lim->rule.window_ns;
}

static void release_op(void *state)
{
	struct rl_naive_log *st = state;

	free(st->times);
	*st = (struct rl_naive_log){ 0 };
}

static size_t heap_op(const void *state)
{
	const struct rl_naive_log *st = state;

	return st->times ? rl__malloc_held(st->times, (size_t)st->cap * sizeof(st->times[0])) : 0;
}

static int64_t reset_op(const struct rl_limiter *lim, const void *state, int64_t now_ns)
{
	const struct rl_naive_log *st = state;
	int64_t now = rl__clamp(now_ns, st->last_ns);
	int64_t left = st->len ? st->times[st->len - 1] + lim->rule.window_ns - now : 0;

	return left > 0 ? left : 0;
}

/* The exact window's bound: N units in each of the floor(span / W) + 1 pieces of length W. */
static int64_t bound_op(const struct rl_limiter *lim, int64_t span_ns)
{
	return rl__sat_count((rl__u128)lim->rule.limit * ((rl__u128)span_ns / (rl__u128)lim->rule.window_ns + 1));
}

const struct rl_algo rl_naive_log_algo = {
	.name = "naive_log",
	.state_size = sizeof(struct rl_naive_log),
	.check = check_op,
	.is_idle = idle_op,
	.release = release_op,
	.heap_bytes = heap_op,
	.reset_ns = reset_op,
	.max_admitted = bound_op,
};
