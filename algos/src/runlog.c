/*
 * runlog.c - model: a FIFO of (time, count) runs in a power-of-two ring.
 * Invariant: runs are in non-decreasing time order, counts are >= 1, total
 * is their sum; right after rl_runlog_trim, cap / 4 < len <= cap whenever
 * cap > RUNLOG_MIN_CAP, so memory stays within 4x of what the live runs need.
 */
#include "ratelab/runlog.h"

#include <stdlib.h>

#include "ratelab/status.h"
#include "runlog_ops.h"

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

/* The ring's fields in locals through the loop: a run's count, stored
 * through a uint64_t, could otherwise alias total and force reloads. */
void rl_runlog_expire(struct rl_runlog *log, int64_t horizon)
{
	const struct rl_run *runs = log->runs;
	uint32_t head = log->head, len = log->len, mask = log->cap - 1;
	uint64_t total = log->total;

	while (len && runs[head].at <= horizon) {
		total -= runs[head].count;
		head = (head + 1) & mask;
		len--;
	}
	log->head = head;
	log->len = len;
	log->total = total;
}

void rl_runlog_trim(struct rl_runlog *log)
{
	if (!rl__runlog_trim_due(log))
		return;
	if (log->len == 0) {
		rl_runlog_free(log);
		return;
	}
	/* Down to twice what is live, in one step; best effort: on ENOMEM
	 * the larger ring stays valid. */
	uint32_t cap = RUNLOG_MIN_CAP;
	while (cap < 2 * log->len)
		cap *= 2;
	(void)resize(log, cap);
}

void rl_runlog_clear(struct rl_runlog *log)
{
	log->head = log->len = 0;
	log->total = 0;
}

int rl_runlog_push_n(struct rl_runlog *log, int64_t at, uint64_t units)
{
	if (rl__runlog_push_fits(log, at, units))
		return RL_OK;

	int rc = resize(log, log->cap ? log->cap * 2 : RUNLOG_MIN_CAP);

	if (rc)
		return rc;
	(void)rl__runlog_push_fits(log, at, units); /* a new run into the grown ring */
	return RL_OK;
}

size_t rl_runlog_heap_bytes(const struct rl_runlog *log)
{
	return log->runs ? rl__malloc_held(log->runs, (size_t)log->cap * sizeof(*log->runs)) : 0;
}

void rl_runlog_free(struct rl_runlog *log)
{
	free(log->runs);
	*log = (struct rl_runlog){ 0 };
}
