/*
 * sliding_log_ops.h - private: sliding_log's cost-1 verdict in the common
 * case (sliding_log.c), inline, for the thread-safe routes that run it
 * under their lock (verdicts.h says why): the store's (store.c) and
 * rl_limit's unnamed key's (limit.c). What it cannot finish it hands on
 * to a full check each caller names, which knows what else to keep (the
 * store's: the ring's heap change); the caller's time stays in registers
 * only as clamped, so the common case saves no register.
 */
#ifndef RATELAB_SLIDING_LOG_OPS_H
#define RATELAB_SLIDING_LOG_OPS_H

#include <limits.h>

#include "arith.h"
#include "ratelab/sliding_log.h"
#include "runlog_ops.h"

/* rl__sliding_log_fast's answer for a check it leaves to its caller: not a status (status.h). */
enum { RL_SLIDING_LOG_HAND_OVER = INT_MIN };

/* rest, the full check of the verdict, at the time as clamped (the same
 * decision as the caller's); for rest NULL, RL_SLIDING_LOG_HAND_OVER for
 * the caller to go on. */
static RL_ALWAYS_INLINE int rl__sliding_log_hand_on(const struct rl_limiter *lim, struct rl_sliding_log *st,
						   int64_t now, rl_verdict_fn *rest)
{
	return rest ? rest(lim, st, now) : RL_SLIDING_LOG_HAND_OVER;
}

/*
 * The verdict of a cost-1 request, a leaf (no call, no register saved) in
 * the common case: at most one run leaving the window (the steady state:
 * one leaves as one arrives), then the newest run extended or a run
 * appended to a ring with room; it never resizes the ring. More runs
 * leaving (after a pause), a ring to trim or one to grow hand the whole
 * check on to rest (a constant at each call: rl__sliding_log_hand_on), the
 * state's decision unchanged (only expired runs dropped): the full check
 * repeats the expiry from where this one stopped.
 */
static RL_ALWAYS_INLINE int rl__sliding_log_fast(const struct rl_limiter *lim, struct rl_sliding_log *st,
						int64_t now_ns, rl_verdict_fn *rest)
{
	if (!rl__time_ok(now_ns))
		return RL_ERANGE;

	int64_t now = rl__clamp(now_ns, st->last_ns);
	int64_t horizon = now - lim->rule.window_ns;
	struct rl_runlog *log = &st->log;

	if (rl__runlog_expire_one(log, horizon))
		return rl__sliding_log_hand_on(lim, st, now, rest); /* more runs leaving: rest expires them */
	if (rl__runlog_trim_due(log))
		return rl__sliding_log_hand_on(lim, st, now, rest);
	/* total <= N: the request's unit fits iff total < N */
	if (log->total >= (uint64_t)lim->rule.limit) {
		st->last_ns = now;
		return RL_REJECTED;
	}
	if (!rl__runlog_push_fits(log, now, 1))
		return rl__sliding_log_hand_on(lim, st, now, rest);
	st->last_ns = now;
	return RL_ALLOWED;
}

#endif
