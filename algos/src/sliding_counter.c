/*
 * sliding_counter.c - model: the sliding window's count estimated from two
 * fixed windows, the previous one weighted by its overlap with (t - W, t]:
 * admit iff prev * (W - e) + curr * W < N * W, with e = t mod W.
 *
 * Invariant: curr < N before each admission, so at most N per fixed window
 * and at most 2N in any interval of length W; if arrivals in the previous
 * window were uniform, the estimate is the exact sliding count.
 */
#include "ratelab/sliding_counter.h"

#include "arith.h"

/* Advances the state to now's window; returns e = now - window start. */
static int64_t advance(int64_t w, struct rl_sliding_counter *st, int64_t now)
{
	if (now >= st->end_ns) {
		int64_t start = now - now % w;

		st->prev = start == st->end_ns ? st->curr : 0;
		st->curr = 0;
		st->end_ns = start + w;
	}
	return now - (st->end_ns - w);
}

/*
 * The least offset e' into a window whose weighted previous count is c such
 * that c * (W - e') <= room - 1, i.e. c * (W - e') < room. (0 when c == 0.)
 */
static int64_t least_offset(int64_t w, uint32_t c, rl_u128 room)
{
	if (c == 0)
		return 0;
	rl_u128 span = (room - 1) / c; /* largest admissible W - e' */
	return span >= (rl_u128)w ? 0 : w - (int64_t)span;
}

/*
 * The answer, out of line so that the verdict-only path stays small: used
 * is the weighted count after the decision, e the offset into the window.
 */
static __attribute__((noinline)) void explain(const struct rl_limiter *lim,
					      const struct rl_sliding_counter *st, int64_t now,
					      int64_t e, rl_u128 used, int verdict,
					      struct rl_decision *out)
{
	int64_t w = lim->rule.window_ns;
	int64_t to_end = st->end_ns - now;

	out->remaining = used < lim->quota_nw ? (int64_t)rl_ceil_div(lim->quota_nw - used, (rl_u128)w) : 0;
	out->delay_ns = 0;
	out->retry_after_ns = 0;
	if (!verdict) {
		/* Within this window, as prev's weight fades, if curr leaves room... */
		int64_t at = w;
		if ((int64_t)st->curr < lim->rule.limit)
			at = least_offset(w, st->prev, (rl_u128)(lim->rule.limit - st->curr) * (uint64_t)w);
		/* ...else early in the next, where curr becomes the weighted count. */
		out->retry_after_ns = at < w ? at - e : to_end + least_offset(w, st->curr, lim->quota_nw);
	}
	/* Full quota is back once the weighted count is below one request (W). */
	if (used < (rl_u128)w)
		out->reset_ns = 0;
	else if (st->curr == 0)
		out->reset_ns = least_offset(w, st->prev, (rl_u128)w) - e;
	else
		out->reset_ns = to_end + least_offset(w, st->curr, (rl_u128)w);
}

int rl_sliding_counter_check(const struct rl_limiter *lim, struct rl_sliding_counter *st,
			     int64_t now_ns, struct rl_decision *out)
{
	if (!rl_time_ok(now_ns))
		return RL_ERANGE;

	int64_t now = rl_clamp(now_ns, st->last_ns);
	int64_t w = lim->rule.window_ns;
	int64_t e = advance(w, st, now);
	rl_u128 used = (rl_u128)st->prev * (uint64_t)(w - e) + (rl_u128)st->curr * (uint64_t)w;
	int verdict = used < lim->quota_nw ? RL_ALLOWED : RL_REJECTED;

	st->last_ns = now;
	if (verdict) {
		st->curr++;
		used += (rl_u128)w;
	}
	if (out)
		explain(lim, st, now, e, used, verdict, out);
	return verdict;
}

static int check_op(const struct rl_limiter *lim, void *st, int64_t now_ns, struct rl_decision *out)
{
	return rl_sliding_counter_check(lim, st, now_ns, out);
}

static bool idle_op(const struct rl_limiter *lim, const void *state, int64_t now_ns)
{
	const struct rl_sliding_counter *st = state;
	int64_t now = rl_clamp(now_ns, st->last_ns);

	if (now < st->end_ns)
		return st->prev == 0 && st->curr == 0;
	return st->curr == 0 || now >= st->end_ns + lim->rule.window_ns;
}

/* prev * (W - e) >= 0, so curr stays <= N: at most N in each aligned window the interval meets. */
static int64_t bound_op(const struct rl_limiter *lim, int64_t span_ns)
{
	return rl_sat_count((rl_u128)lim->rule.limit * rl_windows_met(span_ns, lim->rule.window_ns));
}

const struct rl_algo rl_sliding_counter_algo = {
	.name = "sliding_counter",
	.state_size = sizeof(struct rl_sliding_counter),
	.check = check_op,
	.is_idle = idle_op,
	.release = NULL,
	.max_admitted = bound_op,
};
