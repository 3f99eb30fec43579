/*
 * token_bucket.c - model: tokens(t) = min(B, tokens(t0) + (t - t0) * N / W);
 * admit iff tokens >= 1, then take one. Kept as the missing tokens times W
 * (level.h), which drains by exactly N per ns: admit iff
 * level + W <= B * W, then level += W.
 *
 * Invariant: in any interval of length d at most B + N * d / W requests are
 * admitted (B at its start, N * d / W refilled during it).
 */
#include "ratelab/token_bucket.h"

#include "level_ops.h"

/* The answer's divisions, out of line so that the verdict-only path stays small. */
static __attribute__((noinline)) void explain(const struct rl_limiter *lim, rl_u128 level,
					      int verdict, struct rl_decision *out)
{
	rl_u128 w = (uint64_t)lim->rule.window_ns, n = (uint64_t)lim->rule.limit;

	out->remaining = (int64_t)((lim->burst_w - level) / w);
	out->retry_after_ns = verdict ? 0 : rl_sat_ns(rl_ceil_div(level + w - lim->burst_w, n));
	out->reset_ns = rl_sat_ns(rl_ceil_div(level, n));
	out->delay_ns = 0;
}

int rl_token_bucket_check(const struct rl_limiter *lim, struct rl_level *st,
			  int64_t now_ns, struct rl_decision *out)
{
	if (!rl_time_ok(now_ns))
		return RL_ERANGE;

	rl_u128 w = (uint64_t)lim->rule.window_ns, now_n;
	rl_u128 level = rl_level_drain(lim, st, now_ns, &now_n);
	int verdict = level + w <= lim->burst_w ? RL_ALLOWED : RL_REJECTED;

	level += w & -(rl_u128)verdict; /* branch-free: verdicts alternate under load */
	rl_level_store(st, now_n, level);
	if (out)
		explain(lim, level, verdict, out);
	return verdict;
}

static int check_op(const struct rl_limiter *lim, void *st, int64_t now_ns, struct rl_decision *out)
{
	return rl_token_bucket_check(lim, st, now_ns, out);
}

static bool idle_op(const struct rl_limiter *lim, const void *st, int64_t now_ns)
{
	return rl_level_empty(lim, st, now_ns);
}

const struct rl_algo rl_token_bucket_algo = {
	.name = "token_bucket",
	.uses_burst = true,
	.state_size = sizeof(struct rl_level),
	.check = check_op,
	.is_idle = idle_op,
	.release = NULL,
};
