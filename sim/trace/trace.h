/*
 * trace.h - a recorded trace held once in memory: the requests of an
 * access log or of a 'T KEY [COST]' file, in decision order, their keys
 * interned. 16 bytes per request (time, key id, cost), 12 more when it
 * carries settles (real cost, completion time), plus each distinct key
 * once; read-only once built, so any number of threads may share one.
 *
 * Built by the one loader (sim_import, import.h) from one or more logs or
 * traces, for `ratelab import` (which prints it) and `ratelab study`
 * (sorted, bad lines counted), and through sim_trace_load (trace_load.h)
 * for the simulator's replay sources (file order, the first bad line an
 * error). `ratelab replay` streams its input line by line (it answers each
 * line as it comes, as a decider must) through the same line reader and
 * header (trace_line.h, sim_trace_header below).
 */
#ifndef RATELAB_SIM_TRACE_H
#define RATELAB_SIM_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ratelab/rule.h"

struct sim_trace {
	size_t n;           /* requests */
	int64_t *t_ns;      /* arrival time, ns: relative to origin_ns unless absolute */
	uint32_t *key;      /* key id, 0 .. nkeys - 1 */
	uint32_t *cost;     /* units, >= 1 (trace_load.h: 0, a line without COST) */
	/* settle lines 'T KEY COST ACTUAL DONE_T' (trace_line.h); both NULL when the source had none,
	 * else every request has them (ACTUAL = COST and DONE_T = T: nothing to settle) */
	uint32_t *actual;   /* the request's real cost, units, in [0, RL_COST_MAX] */
	int64_t *done_ns;   /* when it is settled, ns, as t_ns is and not before it */
	size_t nkeys;
	char **key_name;    /* key id -> its bytes, NUL-terminated (no NUL inside) */
	int64_t origin_ns;  /* epoch ns of time 0 (0 when the source had no epoch) */
	int64_t resolution_ns; /* the source's time resolution (1 for a trace in ns) */
	bool absolute;      /* t_ns are epoch ns (origin_ns is then 0, but for a trace
			     * file loaded whole: its header's origin_ns, trace_load.h) */
	bool spread;        /* one tick's requests were spread evenly inside it */
	bool has_cost;      /* some request carried a cost other than 1 */
	bool cost_read;     /* costs were read (a cost field, or a trace's COST on some line) */
	char format[16];    /* what was read: combined, jsonl, csv or trace */
};

/* Frees what the trace owns and zeroes it; a zeroed trace is valid and empty. */
void sim_trace_free(struct sim_trace *t);

/*
 * A trace file's own line, as `ratelab import` writes it first:
 * "# ratelab trace: resolution_ns=R spread=yes|no origin_ns=O". Every
 * reader of a trace applies it from that line on: a time T of the file is
 * origin_ns + T (epoch ns; O is 0 for absolute times), the resolution
 * and the tick placement are carried. A word it does not know, or a value
 * out of range (R in [1, 10^9], O in [0, RL_TIME_MAX_NS], digits only), is
 * left out, as the comment it also is.
 */
struct sim_trace_header {
	int64_t resolution_ns; /* 0: not given */
	int64_t origin_ns;     /* 0: not given */
	bool spread;
};

/* Whether line (no line ending, blanks before '#' allowed) is that line; *h filled when it is. */
bool sim_trace_header_parse(const char *line, struct sim_trace_header *h);

/* A line reader's on_comment (lines.h) for readers that stream: arg is a
 * struct sim_trace_header, replaced by each header line met. */
void sim_trace_header_take(void *arg, const char *line);

/* *t_ns += h's origin_ns; false (t_ns unchanged) when the sum would pass
 * RL_TIME_MAX_NS, a bad line in the words of SIM_TRACE_PAST_ORIGIN. */
static inline bool sim_trace_header_apply(const struct sim_trace_header *h, int64_t *t_ns)
{
	if (*t_ns > RL_TIME_MAX_NS - h->origin_ns)
		return false;
	*t_ns += h->origin_ns;
	return true;
}
/*
 * One request's cost (and real cost) in a held trace: 32 bits a request
 * (the 16 bytes above); a rule counts to RL_LIMIT_MAX (10^12) units over
 * many requests. A line above it is a bad line (reason cost), never cut.
 */
#define SIM_TRACE_COST_MAX 4294967295LL

#define SIM_TRACE_PAST_ORIGIN "its time past the trace's origin_ns is past 4*10^18 ns"

#endif
