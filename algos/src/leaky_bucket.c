/*
 * leaky_bucket.c - model: nginx limit_req without nodelay. Admitted
 * requests are served in order, one per W/N ns; request i is served at
 * s_i = max(t_i, s_{i-1} + W/N) and admitted iff its delay s_i - t_i is at
 * most B * W / N, i.e. at most B admitted requests wait behind the one in
 * service. Kept as the queue's level times W (level.h), which drains by
 * exactly N per ns: the delay is level / N; admit iff level <= B * W.
 *
 * Invariant: in any interval of length d at most B + 1 + N * d / W requests
 * are admitted, and they leave at most one per W/N ns.
 */
#include "ratelab/leaky_bucket.h"

#include "level_ops.h"

/* The answer's divisions, out of line so that the verdict-only path stays small. */
static __attribute__((noinline)) void explain(const struct rl_limiter *lim, rl_u128 queued,
					      rl_u128 level, int verdict, struct rl_decision *out)
{
	rl_u128 w = (uint64_t)lim->rule.window_ns, n = (uint64_t)lim->rule.limit;

	out->remaining = level <= lim->burst_w ? (int64_t)((lim->burst_w - level) / w) + 1 : 0;
	out->retry_after_ns = verdict ? 0 : rl_sat_ns(rl_ceil_div(level - lim->burst_w, n));
	out->reset_ns = rl_sat_ns(rl_ceil_div(level, n));
	out->delay_ns = verdict ? rl_sat_ns(rl_ceil_div(queued, n)) : 0;
}

int rl_leaky_bucket_check(const struct rl_limiter *lim, struct rl_level *st,
			  int64_t now_ns, struct rl_decision *out)
{
	if (!rl_time_ok(now_ns))
		return RL_ERANGE;

	rl_u128 now_n;
	rl_u128 level = rl_level_drain(lim, st, now_ns, &now_n);
	rl_u128 queued = level; /* the admitted request's wait, times N */
	int verdict = level <= lim->burst_w ? RL_ALLOWED : RL_REJECTED;

	level += (rl_u128)(uint64_t)lim->rule.window_ns & -(rl_u128)verdict; /* branch-free */
	rl_level_store(st, now_n, level);
	if (out)
		explain(lim, queued, level, verdict, out);
	return verdict;
}

static int check_op(const struct rl_limiter *lim, void *st, int64_t now_ns, struct rl_decision *out)
{
	return rl_leaky_bucket_check(lim, st, now_ns, out);
}

static bool idle_op(const struct rl_limiter *lim, const void *st, int64_t now_ns)
{
	return rl_level_empty(lim, st, now_ns);
}

const struct rl_algo rl_leaky_bucket_algo = {
	.name = "leaky_bucket",
	.uses_burst = true,
	.state_size = sizeof(struct rl_level),
	.check = check_op,
	.is_idle = idle_op,
	.release = NULL,
};
