/*
 * settle.c - rl_limiter_settle (settle.h): the arguments checked once,
 * then the algorithm's own settle (settle_ops.h).
 */
#include "ratelab/settle.h"

#include <string.h>

#include "arith.h"
#include "level_ops.h"
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
	if (algo == &rl_token_bucket_algo)
		return rl__token_bucket_settle;
	if (algo == &rl_leaky_bucket_algo)
		return rl__leaky_bucket_settle;
	if (algo == &rl_gcra_algo)
		return rl__gcra_settle;
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


int64_t rl_limiter_settled_reset_ns(const struct rl_limiter *lim, const void *state, int64_t now_ns)
{
	const struct rl_algo *algo = lim->algo;

	if (!rl__time_ok(now_ns))
		return RL_ERANGE;
	if (!settle_of(algo))
		return RL_EINVAL;
	if (algo == &rl_token_bucket_algo || algo == &rl_leaky_bucket_algo)
		return rl__level_reset_ns(lim, state, now_ns);
	if (algo == &rl_gcra_algo)
		return rl__gcra_reset_ns(state, now_ns);
	if (algo->reset_ns) /* sliding_log: its own, exact */
		return algo->reset_ns(lim, state, now_ns);
	/*
	 * fixed_window, sliding_counter: plain bytes, and a reset that reads
	 * the window and the counts, never N. A check that never fits changes
	 * nothing: cost 2 under a rule of 1 per the same W, on a copy (N + 1
	 * is no cost when N = RL_COST_MAX).
	 */
	_Alignas(16) unsigned char copy[RL_ALGO_MAX_STATE];
	struct rl_decision d;
	struct rl_limiter one;
	const struct rl_rule r1 = { 1, lim->rule.window_ns, 1 };

	if (rl_limiter_init(&one, algo, &r1, NULL, 0) != RL_OK)
		return RL_EINVAL;
	memcpy(copy, state, algo->state_size);
	int rc = algo->check(&one, copy, now_ns, 2, &d);
	return rc < 0 ? rc : d.reset_ns;
}
