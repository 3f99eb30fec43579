/*
 * fixed_state.h - private: the ops-table entry points of an algorithm
 * whose per-key state is plain bytes (token_bucket, gcra, leaky_bucket,
 * fixed_window, sliding_counter), written once and generated in the
 * algorithm's own file from three of its parts:
 *   decide(lim, st, now_ns, cost, out)  its check for any cost, inline, with
 *                                       the cost and answer arithmetic that
 *                                       folds away for cost 1 and out NULL;
 *   never_fits(lim, cost)               true when a cost can never be
 *                                       admitted (algo.h): decided on a copy,
 *                                       so the key's state is left unchanged;
 *   verdict(lim, st, now_ns)            its cost-1 verdict without an answer.
 *
 * RL__FIXED_STATE_OPS(type, decide, never_fits, verdict, answered_inline)
 * defines check_op and verdict_op for the algorithm's struct rl_algo. A
 * cost other than 1 goes out of line (weighted), so that the cost-1 path
 * stays as small as before costs existed; so does cost 1 with an answer
 * (answered), so that the plain verdict stays a leaf saving no registers
 * for a call it does not make, unless answered_inline is RL_ALWAYS_INLINE
 * (an algorithm whose answer costs little more than its verdict).
 */
#ifndef RATELAB_FIXED_STATE_H
#define RATELAB_FIXED_STATE_H

#include "arith.h"

#define RL__FIXED_STATE_OPS(type, decide, never_fits, verdict, answered_inline)                              \
	static RL_NOINLINE int weighted(const struct rl_limiter *lim, type *st, int64_t now_ns, int64_t cost,  \
					struct rl_decision *out)                                               \
	{                                                                                                      \
		if (never_fits(lim, cost)) {                                                                   \
			type copy = *st;                                                                       \
			return decide(lim, &copy, now_ns, cost, out);                                          \
		}                                                                                              \
		return decide(lim, st, now_ns, cost, out);                                                     \
	}                                                                                                      \
                                                                                                               \
	static answered_inline int answered(const struct rl_limiter *lim, type *st, int64_t now_ns,           \
					    struct rl_decision *out)                                           \
	{                                                                                                      \
		return decide(lim, st, now_ns, 1, out);                                                        \
	}                                                                                                      \
                                                                                                               \
	static int check_op(const struct rl_limiter *lim, void *st, int64_t now_ns, int64_t cost,             \
			    struct rl_decision *out)                                                           \
	{                                                                                                      \
		if (cost != 1)                                                                                 \
			return weighted(lim, st, now_ns, cost, out);                                           \
		return out ? answered(lim, st, now_ns, out) : verdict(lim, st, now_ns);                       \
	}                                                                                                      \
                                                                                                               \
	/* check for cost 1 without an answer: algo.h's verdict op */                                         \
	static int verdict_op(const struct rl_limiter *lim, void *st, int64_t now_ns)                          \
	{                                                                                                      \
		return verdict(lim, st, now_ns);                                                               \
	}

#endif
