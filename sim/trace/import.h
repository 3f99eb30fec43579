/*
 * import.h - the importer: access logs (nginx/Apache combined and common,
 * Apache vhost_combined, AWS load balancers, Caddy, HAProxy, JSON lines,
 * CSV) and 'T KEY [COST]' traces read into one in-memory trace (trace.h),
 * for `ratelab import` to print and `ratelab study` to decide.
 */
#ifndef RATELAB_SIM_IMPORT_H
#define RATELAB_SIM_IMPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "trace.h"

/* Why a line was skipped. */
enum sim_import_skip {
	SIM_SKIP_SHAPE,   /* not a line of the format */
	SIM_SKIP_TIME,    /* its time is missing or not read */
	SIM_SKIP_KEY,     /* its key is missing or empty */
	SIM_SKIP_COST,    /* its cost is missing or not an integer in [0, RL_COST_MAX] */
	SIM_SKIP_LONG,    /* longer than 16 MiB */
	SIM_SKIP_NUL,     /* holds a NUL byte */
	SIM_SKIP_COUNT
};

/* The reasons' names: shape, time, key, cost, too_long, nul. */
extern const char *const sim_import_skip_name[SIM_SKIP_COUNT];
/* The reasons in words, as stderr's summary and the study report say them:
 * "skipped 3 lines for WORDS". */
extern const char *const sim_import_skip_words[SIM_SKIP_COUNT];

#define SIM_IMPORT_EXAMPLES 3  /* the first bad lines of a reason whose place is kept */
#define SIM_IMPORT_WHERE 128   /* "FILE:LINE", cut to fit */
#define SIM_IMPORT_FIRST_BAD 5 /* the first bad lines kept whole, whatever their reason */

/*
 * What the import met, for the study's report: filled when asked
 * (sim_import_opts.stats), also when the import fails.
 */
struct sim_import_stats {
	size_t lines;                     /* lines (CSV: records) that should hold a request */
	size_t skipped;                   /* of them, bad */
	size_t skip[SIM_SKIP_COUNT];      /* the bad ones by reason */
	char where[SIM_SKIP_COUNT][SIM_IMPORT_EXAMPLES][SIM_IMPORT_WHERE]; /* the first of each: FILE:LINE */
	size_t no_offset;                 /* requests whose time had no UTC offset: read at tz */
	char tz[8];                       /* that offset, "+HH:MM" (--tz, "+00:00" by default) */
	size_t anon;                      /* --key user: requests without a user, keyed by their address */
	size_t cost_zero;                 /* requests of cost 0: admitted with no state change, not in the trace */
	char format[16];                  /* the format read */
	bool detected;                    /* it was detected, not given */
	int64_t resolution_ns;            /* the times' resolution */
	size_t requests;                  /* requests read (in the trace) */
	size_t without_cost;              /* of them those that carried no cost (counted 1) */
	size_t nexamples;                 /* the first bad lines, "FILE:LINE: reason (the line)" */
	char example[SIM_IMPORT_FIRST_BAD][512];
	bool out_of_memory;               /* the import failed for want of memory (exit status 1) */
};

struct sim_import_opts {
	const char *format;     /* NULL or "auto" (detected), combined, vhost_combined, alb, haproxy,
				 * caddy, jsonl, csv, trace */
	const char *key;        /* combined, vhost_combined: ip (default), user, path, ip+path;
				 * alb, haproxy: ip, path, ip+path */
	/* jsonl, caddy, csv: the fields (NULL: "time", "key", no cost; caddy: "ts",
	 * "request.remote_ip"), a dotted name a nested member; combined, vhost_combined,
	 * alb, haproxy: cost_field "bytes" (the response's size) */
	const char *time_field, *key_field, *cost_field;
	/* jsonl, caddy, csv: settles (trace.h): the request's real cost (an integer in [0, RL_COST_MAX])
	 * and its response time, which give 'T KEY COST ACTUAL DONE_T' with DONE_T = T + the time;
	 * both or neither, and with cost_field (the estimate). The time: a decimal with a fraction
	 * ("0.250", as nginx's $request_time) of duration_unit: s (default), ms, us or ns, kept
	 * to the ns (finer digits dropped); a trace's settle lines are read as they are. */
	const char *actual_field, *duration_field, *duration_unit;
	const char *time_unit;  /* s, ms, us or ns: numeric times in jsonl, csv (caddy: s) */
	const char *time_format; /* jsonl, caddy, csv: a strptime-style format of the time field */
	const char *tz;         /* +HH:MM: the offset of times written without one (default UTC) */
	struct sim_import_stats *stats; /* NULL, or filled (also when the import fails) */
	bool absolute;          /* keep epoch ns instead of times relative to the first request */
	bool spread;            /* place one tick's requests evenly inside it */
	bool strict;            /* the first bad line is an error (else skipped and counted) */
	const char *cmd;        /* the command named in messages: NULL is "import" */
	/*
	 * The loader's policy for the simulator's sources (trace_load.h); all false for import
	 * and the study. file_order: the requests as read, not sorted by time (the limiters see
	 * a time earlier than the line before as it is). as_written: a trace file as its lines
	 * say: times absolute (origin_ns + T), t->origin_ns the header's origin at the first
	 * request, t->cost[i] 0 for a line without COST (the reader's default applies), an input
	 * without a request no error (t->n 0).
	 */
	bool file_order, as_written;
	FILE *in;               /* NULL, or an open file read instead of opening paths[0] (its name); not closed */
	char *msg;              /* NULL, or quiet: nothing on err, the failure's message here, without */
	size_t msg_len;         /* "ratelab CMD: " (msg_len bytes, NUL-terminated) */
};

/*
 * Reads the files in order (a path, "-" for standard input, none for
 * standard input alone; .gz read through zlib)
 * into t, which the caller frees with sim_trace_free. What was detected,
 * the resolution, the bad lines (the first 5, then the count of each
 * reason with its first places), the times read without an offset and
 * the requests without a user are reported on err, each line
 * "ratelab CMD: ...", the last "skipped K of N lines". Returns 0, or a
 * CLI exit status with t left empty, after its message: 2 for bad input
 * (a bad option, a file named twice, an undetectable format, with strict
 * the first bad line, an input with no request, a corrupt .gz), 1 when
 * out of memory or a read fails.
 */
int sim_import(const struct sim_import_opts *o, const char *const *paths, size_t npaths,
	       struct sim_trace *t, FILE *err);

#endif
