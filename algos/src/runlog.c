/*
 * runlog.c - model: a FIFO of (time, count) runs in a power-of-two ring.
 * Invariant: runs are in non-decreasing time order, counts are >= 1, total
 * is their sum; right after rl_runlog_trim, cap / 4 < len <= cap whenever
 * cap > RUNLOG_MIN_CAP, so memory stays within 4x of what the live runs need.
 */
#include "ratelab/runlog.h"

#include <stdlib.h>

#include "compat.h"
#include "ratelab/status.h"

#define RUNLOG_MIN_CAP 4u

/* Moves the runs, oldest first, into a new ring of new_cap runs. */
static int resize(struct rl_runlog *log, uint32_t new_cap)
{
	struct rl_run *runs = malloc((size_t)new_cap * sizeof(*runs));

	if (!runs)
		return RL_ENOMEM;
	for (uint32_t i = 0; i < log->len; i++)
		runs[i] = log->runs[(log->head + i) & (log->cap - 1)];
	free(log->runs);
	log->runs = runs;
	log->head = 0;
	log->cap = new_cap;
	return RL_OK;
}

void rl_runlog_expire(struct rl_runlog *log, int64_t horizon)
{
	while (log->len && log->runs[log->head].at <= horizon) {
		log->total -= log->runs[log->head].count;
		log->head = (log->head + 1) & (log->cap - 1);
		log->len--;
	}
}

void rl_runlog_trim(struct rl_runlog *log)
{
	if (log->len == 0) {
		rl_runlog_free(log);
		return;
	}
	if (log->cap <= RUNLOG_MIN_CAP || log->len > log->cap / 4)
		return;
	/* Down to twice what is live, in one step; best effort: on ENOMEM
	 * the larger ring stays valid. */
	uint32_t cap = RUNLOG_MIN_CAP;
	while (cap < 2 * log->len)
		cap *= 2;
	(void)resize(log, cap);
}

void rl_runlog_clear(struct rl_runlog *log)
{
	log->head = log->len = log->total = 0;
}

int rl_runlog_push_n(struct rl_runlog *log, int64_t at, uint32_t units)
{
	if (log->len && rl_runlog_newest(log)->at == at) {
		log->runs[(log->head + log->len - 1) & (log->cap - 1)].count += units;
		log->total += units;
		return RL_OK;
	}
	if (log->len == log->cap) {
		uint32_t cap = log->cap ? log->cap * 2 : RUNLOG_MIN_CAP;
		int rc = resize(log, cap);
		if (rc)
			return rc;
	}
	log->runs[(log->head + log->len) & (log->cap - 1)] = (struct rl_run){ at, units };
	log->len++;
	log->total += units;
	return RL_OK;
}

size_t rl_runlog_heap_bytes(const struct rl_runlog *log)
{
	return log->runs ? rl_malloc_held(log->runs, (size_t)log->cap * sizeof(*log->runs)) : 0;
}

void rl_runlog_free(struct rl_runlog *log)
{
	free(log->runs);
	*log = (struct rl_runlog){ 0 };
}
