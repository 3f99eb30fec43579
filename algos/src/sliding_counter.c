/*
 * sliding_counter.c - model: the sliding window's count estimated from two
 * fixed windows, the previous one weighted by its overlap with (t - W, t]:
 * a request of cost c is admitted iff
 * prev * (W - e) + (curr + c - 1) * W < N * W, with e = t mod W and prev,
 * curr in units; then curr += c.
 *
 * Invariant: curr + c <= N for each admission, so at most N units per
 * fixed window and at most 2N in any interval of length W; if arrivals in
 * the previous window were uniform, the estimate is the exact sliding count.
 */
#include "ratelab/sliding_counter.h"

#include "fixed_state.h"
#include "sliding_counter_ops.h"

/*
 * The least offset e' into a window whose weighted previous count is c such
 * that c * (W - e') <= room - 1, i.e. c * (W - e') < room. (0 when c == 0.)
 */
static int64_t least_offset(int64_t w, uint64_t c, rl__u128 room)
{
	if (c == 0)
		return 0;
	rl__u128 span = (room - 1) / c; /* largest admissible W - e' */
	return span >= (rl__u128)w ? 0 : w - (int64_t)span;
}

/*
 * The answer, out of line so that the verdict-only path stays small; e is
 * the offset into the window, st the state after the decision.
 */
static RL_NOINLINE void explain(const struct rl_limiter *lim,
					      const struct rl_sliding_counter *st, int64_t now,
					      int64_t e, int64_t cost, int verdict,
					      struct rl_decision *out)
{
	int64_t w = lim->rule.window_ns, n = lim->rule.limit;
	int64_t to_end = st->end_ns - now;
	/* the weighted count after the decision */
	rl__u128 used = (rl__u128)st->prev * (uint64_t)(w - e) + (rl__u128)st->curr * (uint64_t)w;

	out->remaining = used < rl__wide_get(rl__sliding_counter_priv(lim)->quota_nw) ? (int64_t)rl__ceil_div(rl__wide_get(rl__sliding_counter_priv(lim)->quota_nw) - used, (rl__u128)w) : 0;
	out->delay_ns = 0;
	out->retry_after_ns = 0;
	if (!verdict && cost > n) {
		out->retry_after_ns = RL_DURATION_MAX_NS; /* (c - 1) * W >= N * W always */
	} else if (!verdict) {
		/* Within this window, as prev's weight fades, if curr leaves room
		 * for c: prev * (W - e') < (N - curr - c + 1) * W... */
		int64_t at = w;
		if ((int64_t)st->curr + cost <= n)
			at = least_offset(w, st->prev,
					  (rl__u128)(uint64_t)(n - (int64_t)st->curr - cost + 1) * (uint64_t)w);
		/* ...else early in the next, where curr becomes the weighted count. */
		out->retry_after_ns =
			at < w ? at - e
			       : to_end + least_offset(w, st->curr, (rl__u128)(n - cost + 1) * (uint64_t)w);
	}
	/* Full quota is back once the weighted count is below one unit (W). */
	if (used < (rl__u128)w)
		out->reset_ns = 0;
	else if (st->curr == 0)
		out->reset_ns = least_offset(w, st->prev, (rl__u128)w) - e;
	else
		out->reset_ns = to_end + least_offset(w, st->curr, (rl__u128)w);
}

/*
 * The check for any cost, inlined into each entry point: with the constant
 * cost 1 its cost arithmetic folds away, so plain requests pay nothing for
 * weighted ones.
 */
static RL_ALWAYS_INLINE int
decide(const struct rl_limiter *lim, struct rl_sliding_counter *st, int64_t now_ns, int64_t cost,
       struct rl_decision *out)
{
	if (!rl__time_ok(now_ns))
		return RL_ERANGE;
	if (!rl__cost_ok(cost))
		return RL_EINVAL;

	int64_t now = rl__clamp_record(&st->last_ns, now_ns);
	int64_t w = lim->rule.window_ns;
	int64_t e = rl__sliding_counter_advance(w, st, now);
	rl__u128 used = (rl__u128)st->prev * (uint64_t)(w - e) + (rl__u128)st->curr * (uint64_t)w;
	/* the request's units after its first: up to 10^30 */
	rl__u128 last = (rl__u128)(uint64_t)(cost - 1) * (uint64_t)w;
	int verdict = used + last < rl__wide_get(rl__sliding_counter_priv(lim)->quota_nw) ? RL_ALLOWED : RL_REJECTED;

	/* curr + c <= N when admitted; no branch: over many keys the verdicts
	 * follow no pattern a predictor could learn */
	st->curr += (uint64_t)cost & -(uint64_t)verdict;
	if (out)
		explain(lim, st, now, e, cost, verdict, out);
	return verdict;
}

/* A cost-1 verdict of a rule with N * W >= 2^64: the full check, out of line. */
static RL_NOINLINE int wide_verdict(const struct rl_limiter *lim, struct rl_sliding_counter *st, int64_t now_ns)
{
	return decide(lim, st, now_ns, 1, NULL);
}

/* The cost-1 verdict: sliding_counter_ops.h's when N * W < 2^64, else the full check. */
static RL_ALWAYS_INLINE int verdict_only(const struct rl_limiter *lim, struct rl_sliding_counter *st,
					 int64_t now_ns)
{
	return rl__sliding_counter_priv(lim)->quota_nw.hi ? wide_verdict(lim, st, now_ns)
							   : rl__sliding_counter_verdict_narrow(lim, st, now_ns);
}

/* c > N: never admitted (algo.h). */
static inline bool never_fits(const struct rl_limiter *lim, int64_t cost)
{
	return cost > lim->rule.limit;
}

RL__FIXED_STATE_OPS(struct rl_sliding_counter, decide, never_fits, verdict_only, RL_NOINLINE)

static int init_op(struct rl_limiter *lim, char *msg, size_t msg_len)
{
	struct rl__sliding_counter_priv *p = (struct rl__sliding_counter_priv *)(void *)lim->priv.bytes;

	(void)msg;
	(void)msg_len;
	p->quota_nw = rl__wide_make((rl__u128)lim->rule.limit * (rl__u128)lim->rule.window_ns);
	return RL_OK;
}

static bool idle_op(const struct rl_limiter *lim, const void *state, int64_t now_ns)
{
	const struct rl_sliding_counter *st = state;
	int64_t now = rl__clamp(now_ns, st->last_ns);

	if (now < st->end_ns)
		return st->prev == 0 && st->curr == 0;
	return st->curr == 0 || now >= st->end_ns + lim->rule.window_ns;
}

/* prev * (W - e) >= 0, so curr stays <= N: at most N in each aligned window the interval meets. */
static int64_t bound_op(const struct rl_limiter *lim, int64_t span_ns)
{
	return rl__sat_count((rl__u128)lim->rule.limit * rl__windows_met(span_ns, lim->rule.window_ns));
}

/*
 * Same window: advanced to now's window as a check advances it, prev and
 * curr clamped to N1. Another window: the check's own estimate of the
 * units in the sliding window at now, curr + ceil(prev * (end - now) / W0)
 * (prev * W0 < 2^100), clamped to N1, becomes the count of the W1 window
 * holding now, with nothing before it (sliding_counter.h).
 */
static void rerule_op(const struct rl_limiter *from, const struct rl_limiter *to, void *state, int64_t now)
{
	struct rl_sliding_counter *st = state;
	int64_t w0 = from->rule.window_ns, w1 = to->rule.window_ns;
	uint64_t n1 = (uint64_t)to->rule.limit;

	(void)rl__sliding_counter_advance(w0, st, now);
	if (w1 == w0) {
		st->prev = st->prev > n1 ? n1 : st->prev;
		st->curr = st->curr > n1 ? n1 : st->curr;
	} else {
		rl__u128 u = st->curr + rl__ceil_div((rl__u128)st->prev * (uint64_t)(st->end_ns - now), (uint64_t)w0);
		st->curr = (uint64_t)(u > n1 ? n1 : u);
		st->prev = 0;
		st->end_ns = now - now % w1 + w1;
	}
	st->last_ns = now;
}

/* Zeroed (a fresh key), or last_ns a time, end_ns a multiple of W in
 * (last_ns, last_ns + W], prev and curr <= N (sliding_counter.h). */
static bool state_ok_op(const struct rl_limiter *lim, const void *state)
{
	const struct rl_sliding_counter *st = state;
	int64_t w = lim->rule.window_ns;

	if (st->last_ns == 0 && st->end_ns == 0 && st->prev == 0 && st->curr == 0)
		return true;
	return rl__time_ok(st->last_ns) && st->end_ns > st->last_ns && st->end_ns - st->last_ns <= w &&
	       st->end_ns % w == 0 && st->prev <= (uint64_t)lim->rule.limit && st->curr <= (uint64_t)lim->rule.limit;
}

static int64_t last_ns_op(const void *state)
{
	return ((const struct rl_sliding_counter *)state)->last_ns;
}

const struct rl_algo rl_sliding_counter_algo = {
	.name = "sliding_counter",
	.state_size = sizeof(struct rl_sliding_counter),
	.priv_size = sizeof(struct rl__sliding_counter_priv),
	.init = init_op,
	.check = check_op,
	.verdict = verdict_op,
	.is_idle = idle_op,
	.release = NULL,
	.max_admitted = bound_op,
	.rerule = rerule_op,
	.state_ok = state_ok_op,
	.last_ns = last_ns_op,
};

#include "settle_ops.h"

/*
 * settle.h: the admission's window's counter while it is the current or
 * the previous one at now, kept in [0, N]. The state is not advanced (a
 * later check may come at a time before now): its curr is the counter of
 * [end - W, end), which is still current or previous at now < end + W;
 * its prev that of [end - 2W, end - W), previous while now < end.
 */
int rl__sliding_counter_settle(const struct rl_limiter *lim, void *state, int64_t admitted_ns, int64_t delta,
			       int64_t now_ns)
{
	struct rl_sliding_counter *st = state;
	int64_t now = rl__clamp(now_ns, st->last_ns), w = lim->rule.window_ns, end = st->end_ns;
	uint64_t *counter;

	if (admitted_ns >= end - w && admitted_ns < end && now - end < w)
		counter = &st->curr;
	else if (admitted_ns >= end - 2 * w && admitted_ns < end - w && now < end)
		counter = &st->prev;
	else
		return RL_OK; /* its window has gone (or nothing was admitted) */
	int64_t v = (int64_t)*counter + delta;
	*counter = (uint64_t)(v < 0 ? 0 : v > lim->rule.limit ? lim->rule.limit : v);
	return RL_OK;
}
