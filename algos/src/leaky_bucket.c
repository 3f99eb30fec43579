/*
 * leaky_bucket.c - model: nginx limit_req without nodelay, a request of
 * cost c taking c service slots of W/N ns each. Admitted requests are
 * served in order; request i starts service at s_i = max(t_i, e_{i-1}),
 * where e_{i-1} = s_{i-1} + c_{i-1} * W / N ends the previous admitted
 * one's, and is admitted iff its last unit's wait
 * s_i + (c_i - 1) * W / N - t_i is at most B * W / N and c_i <= B. Kept as
 * the queue's level times W (level.h), which drains by exactly N per ns:
 * the delay s_i - t_i is level / N; admit iff
 * level + (c - 1) * W <= B * W, then level += c * W.
 *
 * Invariant: in any interval of length d at most B + 1 + N * d / W units
 * are admitted, and they leave at most one per W/N ns.
 */
#include "ratelab/leaky_bucket.h"

#include "fixed_state.h"
#include "leaky_bucket_ops.h"

/* The answer's divisions, out of line so that the verdict-only path stays small. */
static RL_NOINLINE void explain(const struct rl_limiter *lim, rl__u128 queued,
					      int64_t cost, int verdict, struct rl_decision *out)
{
	rl__u128 w = (uint64_t)lim->rule.window_ns, n = (uint64_t)lim->rule.limit;
	rl__u128 last = (rl__u128)(uint64_t)(cost - 1) * w; /* the last unit's place in the request */
	rl__u128 level = verdict ? queued + last + w : queued; /* after the decision */

	out->remaining = level <= rl__wide_get(rl__level_priv(lim)->burst_w) ? (int64_t)((rl__wide_get(rl__level_priv(lim)->burst_w) - level) / w) + 1 : 0;
	if (verdict)
		out->retry_after_ns = 0;
	else if (cost > lim->rule.burst)
		out->retry_after_ns = RL_DURATION_MAX_NS;
	else /* the smallest d with level - d * N + (c - 1) * W <= B * W */
		out->retry_after_ns = rl__sat_ns(rl__ceil_div(level + last - rl__wide_get(rl__level_priv(lim)->burst_w), n));
	out->reset_ns = rl__sat_ns(rl__ceil_div(level, n));
	out->delay_ns = verdict ? rl__sat_ns(rl__ceil_div(queued, n)) : 0;
}

/*
 * The check for any cost, inlined into each entry point: with the constant
 * cost 1 its cost arithmetic folds away, so plain requests pay nothing for
 * weighted ones.
 */
static RL_ALWAYS_INLINE int
decide(const struct rl_limiter *lim, struct rl_level *st, int64_t now_ns, int64_t cost,
       struct rl_decision *out)
{
	if (!rl__time_ok(now_ns))
		return RL_ERANGE;
	if (!rl__cost_ok(cost))
		return RL_EINVAL;

	/* level + (c - 1) * W <= B * W (level_ops.h) */
	struct rl__level_step step = rl__leaky_bucket_step(lim, st, now_ns, cost);
	/* queued: the wait before the request's first unit, times N */
	rl__u128 queued = step.before;
	int verdict = (int)(step.admitted & 1);

	if (out)
		explain(lim, queued, cost, verdict, out);
	return verdict;
}

/* c > B: never admitted (algo.h). */
static inline bool never_fits(const struct rl_limiter *lim, int64_t cost)
{
	return cost > lim->rule.burst;
}

RL__FIXED_STATE_OPS(struct rl_level, decide, never_fits, rl__leaky_bucket_verdict, RL_NOINLINE)

static bool idle_op(const struct rl_limiter *lim, const void *st, int64_t now_ns)
{
	return rl__level_empty(lim, st, now_ns);
}

/*
 * The kth admission in [t1, tk] is served no earlier than t1 + (k - 1) * W / N
 * and waits at most B * W / N: (k - 1) * W / N <= span + B * W / N, so at
 * most B + 1 + floor(N * span / W).
 */
static int64_t bound_op(const struct rl_limiter *lim, int64_t span_ns)
{
	return rl__sat_count((rl__u128)lim->rule.burst + 1 +
			    (rl__u128)lim->rule.limit * (rl__u128)span_ns / (rl__u128)lim->rule.window_ns);
}

/* B waiting and the one in service, and B more owed: (2 * B + 1) * W (leaky_bucket.h). */
static bool state_ok_op(const struct rl_limiter *lim, const void *state)
{
	return rl__level_state_ok(lim, state, (uint64_t)lim->rule.window_ns);
}

const struct rl_algo rl_leaky_bucket_algo = {
	.name = "leaky_bucket",
	.state_size = sizeof(struct rl_level),
	.priv_size = sizeof(struct rl__level_priv),
	.init = rl__level_init,
	.check = check_op,
	.verdict = verdict_op,
	.is_idle = idle_op,
	.release = NULL,
	.max_admitted = bound_op,
	.answers_delay = true,
	.uses_burst = true,
	.rerule = rl__level_rerule,
	.state_ok = state_ok_op,
	.last_ns = rl__level_last_ns,
};

#include "settle_ops.h"

/* settle.h: the queue at now plus delta units, in [0, 2 * B + 1]. */
int rl__leaky_bucket_settle(const struct rl_limiter *lim, void *state, int64_t admitted_ns, int64_t delta,
			    int64_t now_ns)
{
	(void)admitted_ns; /* the queue keeps no request apart */
	return rl__level_settle(lim, state, delta, now_ns, (uint64_t)lim->rule.window_ns);
}
