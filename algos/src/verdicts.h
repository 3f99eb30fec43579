/*
 * verdicts.h - private: the built-in fixed-size algorithms whose cost-1
 * verdict (algo.h's verdict op) a thread-safe caller runs inline in its
 * locked section: the store's bucket route (store.c) and rl_limit's
 * unnamed key (limit.c). Every load and call after a lock's exchange
 * waits for that exchange, so a call through the verdict op's pointer
 * costs more there than anywhere else: with one key, the store's hash,
 * lock, tag match and a gcra state in one loop took 6.9 ns with the
 * verdict inline, 7.5 with a direct call and 8.1 with an indirect one (the
 * bare lock 6.3).
 */
#ifndef RATELAB_VERDICTS_H
#define RATELAB_VERDICTS_H

#include "fixed_window_ops.h"
#include "gcra_ops.h"
#include "level_ops.h"
#include "sliding_counter_ops.h"
#include "sliding_log_ops.h"

/* sliding_counter's verdict: inline for N * W < 2^64, else its verdict op's full check. */
static RL_ALWAYS_INLINE int rl_sliding_counter_verdict(const struct rl_limiter *lim, void *st, int64_t now_ns)
{
	return lim->quota_nw.hi ? lim->algo->verdict(lim, st, now_ns)
				: rl_sliding_counter_verdict_narrow(lim, st, now_ns);
}

/*
 * The list, one X(name, verdict) each; rl_<name>_algo is the algorithm.
 * sliding_log is not in it: its state owns heap, so each route pairs its
 * rl_sliding_log_fast with a fallback of its own (the store's counts the
 * ring's heap change).
 */
#define RL_INLINE_VERDICTS(X)                        \
	X(gcra, rl_gcra_verdict)                     \
	X(token_bucket, rl_token_bucket_verdict)     \
	X(leaky_bucket, rl_leaky_bucket_verdict)     \
	X(fixed_window, rl_fixed_window_verdict)     \
	X(sliding_counter, rl_sliding_counter_verdict)

#endif
