/*
 * import.h - the importer: access logs (nginx/Apache combined and common,
 * JSON lines, CSV) and 'T KEY [COST]' traces read into one in-memory trace
 * (trace.h), for `ratelab import` to print and `ratelab study` to decide.
 */
#ifndef RATELAB_SIM_IMPORT_H
#define RATELAB_SIM_IMPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "trace.h"

/* What was read, for a command that reports it (`ratelab study`). */
#define SIM_IMPORT_EXAMPLES 5
struct sim_import_stats {
	size_t lines, skipped;      /* lines that should hold a request (a trace's comments aside), of them bad */
	size_t requests, without_cost; /* requests read; of them those that carried no cost (counted 1) */
	size_t nexamples;           /* the first skipped lines, "FILE:LINE: reason (the line)" */
	char example[SIM_IMPORT_EXAMPLES][512];
};

struct sim_import_opts {
	const char *format;     /* NULL or "auto" (detected), combined, jsonl, csv, trace */
	const char *key;        /* combined: ip (default), user, path, ip+path */
	/* jsonl, csv: the fields (NULL: "time", "key", no cost); combined: cost_field "bytes" */
	const char *time_field, *key_field, *cost_field;
	const char *time_unit;  /* s, ms, us or ns: numeric times in jsonl, csv */
	bool absolute;          /* keep epoch ns instead of times relative to the first request */
	bool spread;            /* place one tick's requests evenly inside it */
	bool strict;            /* the first bad line is an error */
	const char *cmd;        /* the command named in messages: NULL is "import" */
	struct sim_import_stats *stats; /* NULL, or filled when sim_import returns 0 */
};

/*
 * Reads the files in order (a path, "-" for standard input, none for
 * standard input alone; .gz read through zlib)
 * into t, which the caller frees with sim_trace_free. What was detected,
 * the resolution and the bad lines are reported on err, each line
 * "ratelab CMD: ...", the last "skipped K of N lines". Returns 0, or a
 * CLI exit status with t left empty, after its message: 2 for bad input
 * (a bad option, an undetectable format, with strict the first bad line,
 * a log none of whose lines is read, a corrupt .gz), 1 when out of memory
 * or a read fails.
 */
int sim_import(const struct sim_import_opts *o, const char *const *paths, size_t npaths,
	       struct sim_trace *t, FILE *err);

#endif
