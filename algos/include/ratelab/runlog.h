/*
 * runlog.h - a FIFO of (time, count) runs: the admitted requests (or cost
 * units) of a sliding window, one run per distinct time. It holds
 * O(min(admitted, distinct times)) memory in a ring that doubles when full
 * and, when its owner trims it, shrinks when a quarter full, so a million
 * admissions at one instant take one 16-byte run. Owners with many logs
 * (one per key) trim after expiring; a single hot log (the breaker) does
 * not, so it never reallocates in a steady state.
 *
 * A zeroed rl_runlog is empty and valid; rl_runlog_free releases it.
 * Single-threaded: callers serialise.
 */
#ifndef RATELAB_RUNLOG_H
#define RATELAB_RUNLOG_H

#include <stddef.h>
#include <stdint.h>

#include "ratelab/static_assert.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Counts are 64 bits: a sliding_log run may hold up to RL_LIMIT_MAX (10^12)
 * units, past a 32-bit count. */
struct rl_run {
	int64_t at;     /* time of the run, in the owner's unit */
	uint64_t count; /* admissions (units) at that time */
};
RL_STATIC_ASSERT(sizeof(struct rl_run) == 16, "rl_run is 16 bytes");

struct rl_runlog {
	struct rl_run *runs; /* ring of cap runs; cap is 0 or a power of two */
	uint64_t total;      /* sum of the runs' counts, units */
	uint32_t head;       /* index of the oldest run */
	uint32_t len;        /* runs in use */
	uint32_t cap;        /* runs allocated */
};
RL_STATIC_ASSERT(sizeof(struct rl_runlog) == 32, "rl_runlog is 32 bytes");

/* Drops every run with at <= horizon (the oldest first); keeps the ring. */
void rl_runlog_expire(struct rl_runlog *log, int64_t horizon);

/* Frees the ring when empty; when at most a quarter full, shrinks it to
 * the least power of two >= max(4, 2 * len). */
void rl_runlog_trim(struct rl_runlog *log);

/* Drops every run; keeps the ring for reuse. */
void rl_runlog_clear(struct rl_runlog *log);

/*
 * Adds units admissions (units >= 1, total + units < 2^64; its owners keep
 * it below 2^63) at time at (>= the newest run's). RL_OK or RL_ENOMEM.
 */
int rl_runlog_push_n(struct rl_runlog *log, int64_t at, uint64_t units);

/* Adds one admission at time at (>= the newest run's). RL_OK or RL_ENOMEM. */
static inline int rl_runlog_push(struct rl_runlog *log, int64_t at)
{
	return rl_runlog_push_n(log, at, 1);
}

/* Empties the log, keeping nothing allocated. */
void rl_runlog_free(struct rl_runlog *log);

/*
 * Bytes the ring takes from the allocator, 0 with no ring: on glibc its
 * chunk (malloc_usable_size plus the one-word chunk header), elsewhere
 * cap * sizeof(struct rl_run), a lower bound.
 */
size_t rl_runlog_heap_bytes(const struct rl_runlog *log);

static inline const struct rl_run *rl_runlog_oldest(const struct rl_runlog *log)
{
	return &log->runs[log->head];
}

static inline const struct rl_run *rl_runlog_newest(const struct rl_runlog *log)
{
	return &log->runs[(log->head + log->len - 1) & (log->cap - 1)];
}

#ifdef __cplusplus
}
#endif
#endif
