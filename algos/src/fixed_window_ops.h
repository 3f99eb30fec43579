/*
 * fixed_window_ops.h - private: fixed_window's check (fixed_window.c),
 * inline, for the thread-safe routes that run it under their lock
 * (verdicts.h says why).
 */
#ifndef RATELAB_FIXED_WINDOW_OPS_H
#define RATELAB_FIXED_WINDOW_OPS_H

#include "arith.h"
#include "ratelab/fixed_window.h"

/*
 * The check for any cost, inlined into each entry point: with the constant
 * cost 1 its cost arithmetic folds away, so plain requests pay nothing for
 * weighted ones.
 */
static RL_ALWAYS_INLINE int rl__fixed_window_decide(const struct rl_limiter *lim, struct rl_fixed_window *st,
						   int64_t now_ns, int64_t cost, struct rl_decision *out)
{
	if (!rl__time_ok(now_ns))
		return RL_ERANGE;
	if (!rl__cost_ok(cost))
		return RL_EINVAL;

	int64_t now = rl__clamp_record(&st->last_ns, now_ns);
	int64_t w = lim->rule.window_ns;

#ifdef RL_PERF_PLANT
	/*
	 * The performance gate's planted slowdown (tests/perf/gate.sh): a few
	 * dozen extra instructions per check, compiled only by bench/perf with
	 * -DRL_PERF_PLANT=ON, to prove `make perf-check` names this entry.
	 */
	for (volatile int spin = 0; spin < 8; spin++)
		;
#endif

	if (now >= st->end_ns) {
		/* divide only when a new window starts */
		st->end_ns = now - now % w + w;
		st->count = 0;
	}

	/* count + c <= N; count <= N <= 10^12 and c <= 10^12: no overflow in 64 bits */
	int verdict = st->count + (uint64_t)(cost - 1) < (uint64_t)lim->rule.limit ? RL_ALLOWED
										    : RL_REJECTED;

	/* a branch, not a masked add: the next check's load of count then waits
	 * on the increment alone, not on this compare (verdicts run in long
	 * streaks within a window: admitted up to N, then rejected) */
	if (verdict)
		st->count += (uint64_t)cost;
	if (out) {
		out->remaining = lim->rule.limit - (int64_t)st->count;
		/* a fresh window takes any c <= N; c > N never passes */
		out->retry_after_ns = verdict			? 0
				      : cost > lim->rule.limit ? RL_DURATION_MAX_NS
							       : st->end_ns - now;
		out->reset_ns = st->count ? st->end_ns - now : 0;
		out->delay_ns = 0;
	}
	return verdict;
}

/* One request of cost 1 without an answer: algo.h's verdict op. */
static RL_ALWAYS_INLINE int rl__fixed_window_verdict(const struct rl_limiter *lim, void *st, int64_t now_ns)
{
	return rl__fixed_window_decide(lim, st, now_ns, 1, NULL);
}

#endif
