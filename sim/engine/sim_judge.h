/*
 * sim_judge.h - the one judge of a run log, shared by the simulator
 * (sim_run.c) and the study (study_pass.c): per key, a struct rl_runlog
 * holds exactly the units the decider admitted in (t - W, t] at the key's
 * latest request t (the runs' times in ns, their counts in units). A
 * verdict on c units at t is judged against that history alone, the
 * algorithm's own: exact when the exact sliding-window rule N per W would
 * have given it, i.e. total + c <= N; the log's total after an admission is
 * the count of the window ending there, so the largest such total is the
 * largest count of any window of length W. Times must not go back per key
 * (the callers clamp them); a window holds at most INT64_MAX units.
 */
#ifndef RATELAB_SIM_JUDGE_H
#define RATELAB_SIM_JUDGE_H

#include <stdbool.h>
#include <stdint.h>

#include "compat.h"
#include "ratelab/runlog.h"
#include "ratelab/status.h"
#include "runlog_ops.h"

/* Expires the runs at or before t - window_ns; true when c units more would
 * leave at most limit in (t - W, t]. log->total is then the admitted units
 * in the window before this request. */
static RL_ALWAYS_INLINE bool sim_judge_exact(struct rl_runlog *log, int64_t window_ns, int64_t limit, int64_t t,
					     int64_t c)
{
	if (rl__runlog_expire_one(log, t - window_ns))
		rl_runlog_expire(log, t - window_ns);
	return (int64_t)log->total + c <= limit;
}

/* Records c admitted units at t (after sim_judge_exact at t): RL_OK, RL_EFULL
 * when the window would pass INT64_MAX units (the log unchanged), or RL_ENOMEM. */
static RL_ALWAYS_INLINE int sim_judge_admit(struct rl_runlog *log, int64_t t, int64_t c)
{
	if (log->total + (uint64_t)c > (uint64_t)INT64_MAX)
		return RL_EFULL;
	if (rl__runlog_push_fits(log, t, (uint64_t)c))
		return RL_OK;
	return rl_runlog_push_n(log, t, (uint64_t)c);
}

/*
 * Settles delta units of the admission judged at `at` (sim_judge_admit's
 * t) at now: its run takes them while it is in the window (at > now -
 * window_ns), nothing once it has left, as sliding_log's settle does
 * (settle.h) but without its 2N cap: the exact policy with settled costs.
 * A run never goes below 0 (a refund never passes what its request took).
 * RL_OK, or RL_EFULL when the window would pass INT64_MAX units (the log
 * unchanged). No run at `at` (not judged there) changes nothing.
 */
static inline int sim_judge_settle(struct rl_runlog *log, int64_t window_ns, int64_t now, int64_t at, int64_t delta)
{
	uint32_t lo = 0, hi = log->len;

	if (at <= now - window_ns)
		return RL_OK;
	while (lo < hi) { /* the first run at or after `at`: the runs' times only grow */
		uint32_t mid = lo + (hi - lo) / 2;
		if (log->runs[(log->head + mid) & (log->cap - 1)].at < at)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == log->len || log->runs[(log->head + lo) & (log->cap - 1)].at != at)
		return RL_OK;
	struct rl_run *run = &log->runs[(log->head + lo) & (log->cap - 1)];
	if (delta < 0 && (uint64_t)-delta > run->count)
		delta = -(int64_t)run->count;
	if (delta > 0 && log->total + (uint64_t)delta > (uint64_t)INT64_MAX)
		return RL_EFULL;
	run->count += (uint64_t)delta; /* modulo 2^64: a negative delta subtracts */
	log->total += (uint64_t)delta;
	return RL_OK;
}

#endif
