/*
 * trace.h - a recorded trace held once in memory: the requests of an
 * access log or of a 'T KEY [COST]' file, in decision order, their keys
 * interned. 16 bytes per request (time, key id, cost), 12 more when it
 * carries settles (real cost, completion time), plus each distinct key once; read-only once built, so any number of threads may share one.
 *
 * Built by the importer (import.h) from one or more logs, read by
 * `ratelab import` (which prints it), `ratelab study` and the simulator's
 * replay sources.
 */
#ifndef RATELAB_SIM_TRACE_H
#define RATELAB_SIM_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sim_trace {
	size_t n;           /* requests */
	int64_t *t_ns;      /* arrival time, ns: relative to origin_ns unless absolute */
	uint32_t *key;      /* key id, 0 .. nkeys - 1 */
	uint32_t *cost;     /* units, >= 1 */
	/* settle lines 'T KEY COST ACTUAL DONE_T' (trace_line.h); both NULL when the source had none,
	 * else every request has them (ACTUAL = COST and DONE_T = T: nothing to settle) */
	uint32_t *actual;   /* the request's real cost, units, in [0, RL_COST_MAX] */
	int64_t *done_ns;   /* when it is settled, ns, as t_ns is and not before it */
	size_t nkeys;
	char **key_name;    /* key id -> its bytes, NUL-terminated (no NUL inside) */
	int64_t origin_ns;  /* epoch ns of time 0 (0 when the source had no epoch) */
	int64_t resolution_ns; /* the source's time resolution (1 for a trace in ns) */
	bool absolute;      /* t_ns are epoch ns (origin_ns is then 0) */
	bool spread;        /* one tick's requests were spread evenly inside it */
	bool has_cost;      /* some request carried a cost other than 1 */
	bool cost_read;     /* costs were read (a cost field, or a trace's COST on some line) */
	char format[16];    /* what was read: combined, jsonl, csv or trace */
};

/* Frees what the trace owns and zeroes it; a zeroed trace is valid and empty. */
void sim_trace_free(struct sim_trace *t);

#endif
