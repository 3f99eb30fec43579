/*
 * runlog_ops.h - private: the common cases of runlog.c's trim and push,
 * inline for a hot owner (sliding_log's check), which then calls runlog.c
 * only to change the ring (a trim or a growth). Same contracts as the
 * functions of runlog.h they stand for; runlog.c is built on them.
 */
#ifndef RATELAB_RUNLOG_OPS_H
#define RATELAB_RUNLOG_OPS_H

#include <stdbool.h>

#include "compat.h"
#include "ratelab/runlog.h"

/* The least ring, runs: rl_runlog_trim shrinks no further. */
#define RUNLOG_MIN_CAP 4u

/* Whether rl_runlog_trim would change the log: a ring holding no run, or
 * one at most a quarter full above the least ring. */
static inline bool rl__runlog_trim_due(const struct rl_runlog *log)
{
	if (log->len == 0)
		return log->runs != NULL;
	return log->cap > RUNLOG_MIN_CAP && log->len <= log->cap / 4;
}

/*
 * The common step of rl_runlog_expire, inline for a hot owner: drops the
 * oldest run if it has left (at <= horizon). True when the next one has
 * left too (after a pause): the owner then finishes with rl_runlog_expire,
 * which goes on from where this stopped. In the steady state of a log at
 * its limit one run leaves as one arrives, and this is all there is.
 */
static RL_ALWAYS_INLINE bool rl__runlog_expire_one(struct rl_runlog *log, int64_t horizon)
{
	uint32_t head = log->head;

	if (!log->len || log->runs[head].at > horizon)
		return false;
	log->total -= log->runs[head].count;
	log->head = head = (head + 1) & (log->cap - 1);
	return --log->len && log->runs[head].at <= horizon;
}

/*
 * rl_runlog_push_n where the ring has room: adds to the newest run or
 * appends one and returns true; false, the log unchanged, when a run must
 * be appended to a full ring (or to none).
 */
static RL_ALWAYS_INLINE bool rl__runlog_push_fits(struct rl_runlog *log, int64_t at, uint64_t units)
{
	struct rl_run *runs = log->runs;
	uint32_t len = log->len, mask = log->cap - 1, tail = log->head + len;

	if (len && runs[(tail - 1) & mask].at == at)
		runs[(tail - 1) & mask].count += units;
	else if (len < log->cap)
		runs[tail & mask] = (struct rl_run){ at, units }, log->len = len + 1;
	else
		return false;
	log->total += units;
	return true;
}

#endif
