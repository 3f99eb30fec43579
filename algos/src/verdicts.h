/*
 * verdicts.h - private: the one list of built-in algorithms whose cost-1
 * verdict (algo.h's verdict op) a thread-safe caller runs inline in its
 * locked section, and the one route picker over it, used by the store's
 * bucket route (store.c) and rl_limit's unnamed key (limit.c). Every load
 * and call after a lock's exchange waits for that exchange, so a call
 * through the verdict op's pointer costs more there than anywhere else;
 * the perf gate's thread-safe entries measure it. This header is the one
 * place outside an algorithm's own files that names algorithms by
 * identity: everything else asks the ops table.
 */
#ifndef RATELAB_VERDICTS_H
#define RATELAB_VERDICTS_H

#include "fixed_window_ops.h"
#include "gcra_ops.h"
#include "leaky_bucket_ops.h"
#include "sliding_counter_ops.h"
#include "sliding_log_ops.h"
#include "token_bucket_ops.h"

/*
 * The list, one X(name) each: rl_<name>_algo is the algorithm and
 * rl__<name>_inline(lim, state, now_ns, slow) its verdict inline, slow
 * being the caller's verdict op for the state (the store's counts the
 * heap a state owns) for what the inline part leaves to it.
 */
#define RL_INLINE_VERDICTS(X) \
	X(gcra)               \
	X(token_bucket)       \
	X(leaky_bucket)       \
	X(fixed_window)       \
	X(sliding_counter)    \
	X(sliding_log)

/* An inlined verdict's type (a macro's argument, always inlined). */
typedef int rl__inline_verdict_fn(const struct rl_limiter *lim, void *state, int64_t now_ns, rl_verdict_fn *slow);

/* A verdict through the caller's verdict op: the generic route's. */
static RL_ALWAYS_INLINE int rl__by_op_inline(const struct rl_limiter *lim, void *st, int64_t now_ns,
					     rl_verdict_fn *slow)
{
	return slow(lim, st, now_ns);
}

#define RL__FIXED_STATE_INLINE(name, verdict)                                                               \
	static RL_ALWAYS_INLINE int rl__##name##_inline(const struct rl_limiter *lim, void *st, int64_t now_ns, \
							rl_verdict_fn *slow)                                    \
	{                                                                                                       \
		(void)slow;                                                                                     \
		return verdict(lim, st, now_ns);                                                                \
	}
RL__FIXED_STATE_INLINE(gcra, rl__gcra_verdict)
RL__FIXED_STATE_INLINE(token_bucket, rl__token_bucket_verdict)
RL__FIXED_STATE_INLINE(leaky_bucket, rl__leaky_bucket_verdict)
RL__FIXED_STATE_INLINE(fixed_window, rl__fixed_window_verdict)
RL__FIXED_STATE_INLINE(sliding_counter, rl__sliding_counter_verdict)
#undef RL__FIXED_STATE_INLINE

/* sliding_log's: its common case inline, which leaves the ring's size
 * alone; the rest through slow. */
static RL_ALWAYS_INLINE int rl__sliding_log_inline(const struct rl_limiter *lim, void *st, int64_t now_ns,
						   rl_verdict_fn *slow)
{
	return rl__sliding_log_fast(lim, st, now_ns, slow);
}

/* The routes' indices, in the list's order. */
enum {
#define RL__ROUTE_INDEX(name) RL__ROUTE_##name,
	RL_INLINE_VERDICTS(RL__ROUTE_INDEX)
#undef RL__ROUTE_INDEX
	RL__ROUTES
};

/* The route picker: algo's index in the list (a caller's table of routes
 * built with RL_INLINE_VERDICTS), or -1 for the generic route. */
static inline int rl__inline_route(const struct rl_algo *algo)
{
#define RL__ROUTE_PICK(name)           \
	if (algo == &rl_##name##_algo) \
		return RL__ROUTE_##name;
	RL_INLINE_VERDICTS(RL__ROUTE_PICK)
#undef RL__ROUTE_PICK
	return -1;
}

/* True when rl_limit's unnamed key may be a gcra state decided by one
 * 16-byte compare-and-swap (gcra_cas.h), without the lock. */
static inline bool rl__lock_free_route(const struct rl_algo *algo)
{
	return algo == &rl_gcra_algo;
}

#endif
