/*
 * sliding_log.h - the exact sliding window: a request of cost c (algo.h) at
 * t is admitted iff the units admitted at times x with t - W < x <= t (the
 * window is open at its old end, closed at t), plus c, are at most N
 * (inclusive: the request taking the window's last unit passes; a cost
 * above N never does, retry_after_ns = RL_DURATION_MAX_NS). Admits at most
 * N units in any interval of length W; it is the reference the simulator
 * measures the others against. Bound (max_admitted): N * (floor(d / W) + 1)
 * units in any closed interval of length d ns: N in a window (t - W, t]. Memory grows with the distinct admitted
 * times in the window (runlog.h: one (time, units) run each); the state
 * owns heap memory, freed by the algorithm's release op.
 *
 * Rule change (algo.h, rl_limiter_rerule), from (N0, W0) to (N1, W1): the
 * runs are absolute times and stay; those at or before now - min(W0, W1)
 * are dropped (they have left a window), so when W1 > W0 the admissions
 * older than W0 were already dropped and are not counted. Nothing is
 * clamped: a check under N1 admits iff the units in (now - W1, now] plus c
 * are at most N1, remaining = max(0, N1 - units); a lowered N leaves the
 * log holding more than N1 units until they leave the window.
 *
 * Valid state (rl_limiter_state_check): last_ns in [0, RL_TIME_MAX_NS];
 * runs strictly increasing inside (last_ns - W, last_ns], each of at least
 * 1 unit; their sum at most 2 * RL_LIMIT_MAX (not 2 * N: the lowered N
 * above; 2: a settle's debt, settle.h).
 *
 * Settle (settle.h): the run at admitted_ns while it is in the window
 * (admitted_ns > now - W), else nothing; a charge adds to it, the log's
 * sum (the units in (last_ns - W, last_ns], the window at the key's last
 * check: the runs settles add to are in it) kept at most 2 * N (debt:
 * remaining answers 0 until it is paid);
 * a refund takes at most the run's units, and an emptied run is dropped.
 *
 * Widths: a run is 16 bytes (time int64, units uint64: one run may hold
 * all of N <= 10^12 units, past 32 bits); the state is 40 bytes per key
 * plus 16 bytes per run on the heap (a ring of a power of two runs, at
 * least 4, at most 4 times the runs in the window after a trim).
 */
#ifndef RATELAB_SLIDING_LOG_H
#define RATELAB_SLIDING_LOG_H

#include "ratelab/algo.h"
#include "ratelab/runlog.h"
#include "ratelab/static_assert.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most units a log holds, 2^52 (4503 times RL_LIMIT_MAX): a charge
 * that would pass it is refused (settle.h); below it every sum of a log's
 * units and a cost is exact in int64, and in the double of a Lua script. */
#define RL_SLIDING_LOG_UNITS_MAX ((uint64_t)1 << 52)

struct rl_sliding_log {
	int64_t last_ns;      /* last seen time, ns */
	struct rl_runlog log; /* admitted (time ns, units) runs */
};
RL_STATIC_ASSERT(sizeof(struct rl_sliding_log) == 40, "rl_sliding_log is 40 bytes");

/* Heap bytes the state asked for beyond sizeof(struct rl_sliding_log): its
 * ring's cap * sizeof(struct rl_run). What the allocator holds for them,
 * overhead included, is rl_runlog_heap_bytes(&st->log). */
size_t rl_sliding_log_heap_bytes(const struct rl_sliding_log *st);

/*
 * Settle (settle.h): a request admitted at a, settled by delta at t,
 * changes the run at a while a is in the window (t - W < a): a charge
 * adds delta units at a (the window may go above N: debt, remaining
 * answers 0, and requests wait until enough runs leave); a refund takes back up to the run's units. Once a has left the
 * window, or when no unit is left at a, nothing.
 */

#ifdef __cplusplus
}
#endif
#endif
