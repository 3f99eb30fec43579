/*
 * naive_log.c - model: the exact sliding window over a sorted array of
 * every admitted time (one entry per admission). A request at t is admitted
 * iff fewer than N entries x satisfy t - W < x <= t.
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
	memmove(st->times, st->times + gone, (size_t)(st->len - gone) * sizeof(st->times[0]));
	st->len -= gone;
	if (!st->len) {
		free(st->times);
		st->times = NULL;
		st->cap = 0;
	}
}

static int check_op(const struct rl_limiter *lim, void *state, int64_t now_ns, struct rl_decision *out)
{
	struct rl_naive_log *st = state;

	if (!rl_time_ok(now_ns))
		return RL_ERANGE;
	int64_t now = rl_clamp(now_ns, st->last_ns), w = lim->rule.window_ns;

	expire(st, now - w);
	int verdict = st->len < (uint64_t)lim->rule.limit ? RL_ALLOWED : RL_REJECTED;
	if (verdict) {
		if (st->len == st->cap) {
			uint32_t cap = st->cap ? st->cap * 2 : 4;
			int64_t *times = realloc(st->times, cap * sizeof(times[0]));
			if (!times)
				return RL_ENOMEM;
			st->times = times;
			st->cap = cap;
		}
		st->times[st->len++] = now;
	}
	st->last_ns = now;
	if (out) {
		out->remaining = lim->rule.limit - st->len;
		out->retry_after_ns = verdict ? 0 : st->times[0] + w - now;
		out->reset_ns = st->len ? st->times[st->len - 1] + w - now : 0;
		out->delay_ns = 0;
	}
	return verdict;
}

static bool idle_op(const struct rl_limiter *lim, const void *state, int64_t now_ns)
{
	const struct rl_naive_log *st = state;
	int64_t now = rl_clamp(now_ns, st->last_ns);

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

	return st->times ? rl_malloc_held(st->times, (size_t)st->cap * sizeof(st->times[0])) : 0;
}

static int64_t reset_op(const struct rl_limiter *lim, const void *state, int64_t now_ns)
{
	const struct rl_naive_log *st = state;
	int64_t now = rl_clamp(now_ns, st->last_ns);
	int64_t left = st->len ? st->times[st->len - 1] + lim->rule.window_ns - now : 0;

	return left > 0 ? left : 0;
}

const struct rl_algo rl_naive_log_algo = {
	.name = "naive_log",
	.state_size = sizeof(struct rl_naive_log),
	.check = check_op,
	.is_idle = idle_op,
	.release = release_op,
	.heap_bytes = heap_op,
	.reset_ns = reset_op,
};
