/*
 * settle.c - rl_limiter_settle (settle.h): the arguments checked once,
 * then the algorithm's own settle (settle_ops.h).
 */
#include "ratelab/settle.h"

#include "arith.h"
#include "settle_ops.h"

typedef int settle_fn(const struct rl_limiter *lim, void *state, int64_t admitted_ns, int64_t delta,
		      int64_t now_ns);

static settle_fn *settle_of(const struct rl_algo *algo)
{
	if (algo == &rl_fixed_window_algo)
		return rl__fixed_window_settle;
	if (algo == &rl_sliding_log_algo)
		return rl__sliding_log_settle;
	if (algo == &rl_sliding_counter_algo)
		return rl__sliding_counter_settle;
	return NULL;
}

bool rl_algo_settles(const struct rl_algo *algo)
{
	return settle_of(algo) != NULL;
}

int rl_limiter_settle(const struct rl_limiter *lim, void *state, int64_t admitted_ns, int64_t delta,
		      int64_t now_ns)
{
	settle_fn *settle = settle_of(lim->algo);

	if (!rl__time_ok(admitted_ns) || !rl__time_ok(now_ns) || admitted_ns > now_ns)
		return RL_ERANGE;
	if (!settle || delta == 0 || delta < -RL_COST_MAX || delta > RL_COST_MAX)
		return RL_EINVAL;
	return settle(lim, state, admitted_ns, delta, now_ns);
}
