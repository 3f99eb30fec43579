/*
 * study_report_int.h - the study report's parts, private to
 * study_report*.c: a growable text buffer, the CSV reader, the escapes,
 * the study directory as loaded and checked, the charts, and the two
 * writers. Every function that can fail prints its one message on err and
 * returns an exit status (SR_OK, SR_FAIL, SR_BAD).
 */
#ifndef RATELAB_SIM_STUDY_REPORT_INT_H
#define RATELAB_SIM_STUDY_REPORT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "compat.h"
#include "report_text.h"

/* The exit statuses of study_report.h: success, machine failure, bad input. */
enum { SR_OK = 0, SR_FAIL = 1, SR_BAD = 2 };

/* The prefix of every message. */
#define SR_WHO "ratelab study: "

/* Paths: the study directory's name is at most SR_DIR_MAX bytes (checked
 * first), so it joins with any name of the report's within SR_PATH_MAX. */
#define SR_DIR_MAX (SR_PATH_MAX - 128)
/* Writes b to PATH.part, then renames it to path: SR_OK, or SR_FAIL after a message. */
int sr_buf_write(const struct sr_buf *b, const char *path, FILE *err);

/* ---- CSV (RFC 4180: ',' separated, '"' quoted with "" inside, quoted
 * fields may hold CR and LF; records end with LF or CRLF; a final record
 * may lack its line ending). The first record is the header. */
struct sr_csv {
	char *path;     /* as named in messages: DIR/NAME */
	char *data;     /* the file's bytes, split in place into the cells */
	size_t ncols;
	char **col;     /* header names (the first cells of flat) */
	size_t nrows;
	char ***cell;   /* cell[row][col], NUL-terminated (rows of flat) */
	char **flat;    /* the header's cells, then every row's, row-major */
	long *line;     /* the line each row starts on, from 1 (the header) */
};
/* Reads dir/name: SR_BAD for a missing or malformed file (FILE:LINE), SR_FAIL for I/O. */
int sr_csv_read(struct sr_csv *t, const char *dir, const char *name, FILE *err);
void sr_csv_free(struct sr_csv *t);
/* The index of the column called name, or -1 after "FILE:1: no column 'name'". */
int sr_csv_col(const struct sr_csv *t, const char *name, FILE *err);
/* Prints "FILE:LINE: message" for row (SIZE_MAX: the header); returns SR_BAD. */
int sr_csv_bad(const struct sr_csv *t, size_t row, FILE *err, const char *fmt, ...) RL_PRINTF(4, 5);
/* "FILE:LINE: NAME 'VALUE' is not WHAT" for the cell; returns SR_BAD. */
int sr_csv_bad_value(const struct sr_csv *t, size_t row, int col, const char *name, const char *what,
		     FILE *err);
/* A cell as an unsigned decimal integer: SR_OK, or SR_BAD naming column and value. */
int sr_csv_u64(const struct sr_csv *t, size_t row, int col, uint64_t *out, FILE *err);
/* A cell as a finite non-negative decimal number; an empty cell is allowed when
 * empty_ok (*present false). */
int sr_csv_num(const struct sr_csv *t, size_t row, int col, bool empty_ok, double *out,
	       bool *present, FILE *err);

/* ---- the study directory, loaded and cross-checked */
struct sr_row {          /* one row of study.csv */
	size_t csv_row;
	const char *rule, *algo;
	uint64_t requests, admitted, good_keys, good_keys_hurt, good_requests_rejected,
		excess_requests, excess_admitted;
	uint64_t false_rejects; /* refused where its own admitted history had room (0 when not a column) */
	const char *ns_per_check, *bytes_per_key; /* as written; may be empty (a decider's memory) */
};

struct sr_rule {
	const char *text;   /* as the user wrote it */
	uint64_t limit;     /* N */
	int64_t window_ns;  /* W */
	uint64_t burst;     /* B, 0 when not given (B = N) */
	size_t *rows;       /* indices into sr_study.row, in study.csv order */
	size_t nrows;
};

struct sr_client {       /* one row of clients.csv */
	const char *rule, *algo, *key;
	uint64_t requests, admitted, within; /* within: 0/1, or a count for (other) */
	bool other;          /* the row of the keys past the top ones */
};

struct sr_refused {      /* one row of refused.csv */
	const char *rule, *algo, *lo, *hi;
	uint64_t keys;
};

/* One window of limits.csv: its rows, limits ascending. */
struct sr_window {
	const char *text;
	int64_t window_ns;
	uint64_t keys, requests;
	size_t n;
	uint64_t *limit, *keys_refused, *requests_refused;
};

struct sr_study {
	const char *dir;
	struct sr_csv study, clients, traffic, refused, meta, limits, placement;
	struct sr_row *row;
	size_t nrows;
	struct sr_rule *rule;
	size_t nrules;
	struct sr_client *client;
	size_t nclients;
	struct sr_refused *ref;
	size_t nref;
	/* traffic.csv: nbin bins of bin_ns from t0_ns (trace time), column 0 all requests, 1.. the heaviest keys */
	size_t nbin, ntcols;
	uint64_t bin_ns, t0_ns;
	const char **tcol;   /* "requests", then the keys */
	uint64_t *tval;      /* tval[bin * ntcols + c] */
	/* meta.csv */
	const char *trace, *format;
	uint64_t requests, keys, span_ns, resolution_ns;
	bool spread, cost;
	uint32_t target;     /* target_keys, hundredths of a percent (99% when not recorded) */
	bool merged;         /* shard "all (K shards merged)": limits.csv lists only what every shard knew */
	/* placement.csv: rules decided again with the other tick placement (none: nalt 0) */
	struct sr_row *alt;
	size_t nalt;
	/* limits.csv; has_limits false for a study written without it */
	bool has_limits;
	struct sr_window *win;
	size_t nwin;
};
int sr_load(struct sr_study *s, const char *dir, FILE *err);

/*
 * How the traffic reads (study_report_traffic.c). The rate's unit is the
 * largest of second, minute and hour in which the busiest bin's rate is at
 * least 1 (else per hour). A log's times are dates: UTC, or the offset
 * meta.csv's tz row gives (+HH:MM); a trace's too when it starts after
 * 2000-01-01, else they count from 0.
 */
struct sr_traffic {
	const char *unit;     /* "s", "min" or "h": rates per unit */
	const char *per;      /* the unit in words: "second", "minute", "hour" */
	double per_unit;      /* a bin's count times this is its rate per unit */
	bool dates;           /* times are dates (epoch ns), not a count from 0 */
	int64_t tz_s;         /* dates: the offset from UTC shown, s */
	char tz[16];          /* "UTC" or "UTC+02:00" */
	char bin[32];         /* the bin, "10 min" */
};
void sr_traffic_get(const struct sr_study *s, struct sr_traffic *t);
/* Bin i's start into buf: "2026-10-10 13:05:00" (dates, the tz's) or "1 h 5 min" from 0. */
void sr_traffic_when(const struct sr_study *s, const struct sr_traffic *t, size_t i, char *buf, size_t cap);
void sr_study_free(struct sr_study *s);
/* The value of meta.csv's row name, or NULL. */
const char *sr_meta(const struct sr_study *s, const char *name);
/* The rule called text, or NULL. */
const struct sr_rule *sr_rule_find(const struct sr_study *s, const char *text);

/* ---- the answer, from limits.csv: the smallest limit listed at which at least
 * ceil(keys * p / 10000) keys are refused nothing (p in hundredths of a percent);
 * *exact false when the limit below it is not listed (a merge keeps fewer), so
 * the value is an upper bound; row its index. False when the window has no key. */
bool sr_percentile(const struct sr_study *s, const struct sr_window *w, uint32_t p, uint64_t *limit, size_t *row,
		   bool *exact);

/* ---- the recommendation: from the measured table only */
struct sr_verdict {
	size_t *clean;    /* rows (indices into sr_study.row) that hurt no within-rule key,
			     in the table's order */
	size_t nclean;
	size_t *ranked;   /* every row of the rule by within-rule keys hurt, then false_rejects,
			     then excess admitted, ascending; table order among equals */
	size_t nranked;
	size_t nbest;     /* ranked[0 .. nbest) tie for the first place */
	size_t *fewest;   /* when nclean == 0: the rows tying for the fewest keys hurt */
	size_t nfewest;
};
/* false when out of memory */
bool sr_verdict(const struct sr_study *s, const struct sr_rule *r, struct sr_verdict *v);
void sr_verdict_free(struct sr_verdict *v);

/* ---- theory: the mean rate per key, requests per second over span_ns + resolution_ns;
 * false when there are no keys or that time is 0 */
bool sr_mean_rate(const struct sr_study *s, double *per_s);

/* ---- charts */
enum sr_chart_kind { SR_CHART_HURT, SR_CHART_TRAFFIC, SR_CHART_REFUSED, SR_CHART_LIMITS };
struct sr_chart {
	enum sr_chart_kind kind;
	size_t rule;        /* index into sr_study.rule (HURT, REFUSED), sr_study.win (LIMITS) */
	char file[64];      /* relative to dir: plots/NAME.png */
	char *title;
};
struct sr_charts {
	bool have_gnuplot;  /* false: gnuplot not on PATH, no charts */
	struct sr_chart *c;
	size_t n;
};
/* Draws every chart into dir/plots/ (emptied of earlier PNGs first). */
int sr_charts_draw(const struct sr_study *s, struct sr_charts *ch, FILE *err);
void sr_charts_free(struct sr_charts *ch);
/* The chart of kind (and rule) or NULL. */
const struct sr_chart *sr_chart_find(const struct sr_charts *ch, enum sr_chart_kind kind,
				     size_t rule);

/* ---- the report as a document: blocks of plain text (the data's bytes
 * unescaped), which each writer renders and escapes in its own syntax.
 * Consecutive items form one list. Building never fails; oom is checked
 * by the writers. */
enum sr_block_kind { SR_H, SR_P, SR_LI, SR_TABLE, SR_IMG };
struct sr_block {
	enum sr_block_kind kind;
	int level;          /* SR_H: 1 .. 3 */
	char *text;         /* SR_H, SR_P, SR_LI; SR_IMG: its title */
	char *file;         /* SR_IMG: relative to the study directory */
	size_t ncols, ncells;
	char **cell;        /* SR_TABLE: the header's cells, then the rows', row-major */
	char *align;        /* SR_TABLE: per column 'l' or 'r' */
};
struct sr_doc {
	struct sr_block *b;
	size_t n;
	bool oom;
};
void sr_h(struct sr_doc *d, int level, const char *fmt, ...) RL_PRINTF(3, 4);
void sr_p(struct sr_doc *d, const char *fmt, ...) RL_PRINTF(2, 3);
void sr_li(struct sr_doc *d, const char *fmt, ...) RL_PRINTF(2, 3);
void sr_img(struct sr_doc *d, const char *file, const char *title);
/* A table of strlen(align) columns; its header cells then its rows' follow by sr_cell. */
void sr_table(struct sr_doc *d, const char *align);
void sr_cell(struct sr_doc *d, const char *fmt, ...) RL_PRINTF(2, 3);
void sr_doc_free(struct sr_doc *d);

/* The report's content. */
void sr_build(const struct sr_study *s, const struct sr_charts *ch, struct sr_doc *d);
/* Its parts: the answer (the limit to set) and what was assumed; the trace facts and
 * measurements; the theory and the recommendation. */
void sr_build_answer(const struct sr_study *s, const struct sr_charts *ch, struct sr_doc *d);
void sr_build_read(const struct sr_study *s, struct sr_doc *d); /* study_report_read.c */
void sr_build_measured(const struct sr_study *s, const struct sr_charts *ch, struct sr_doc *d);
void sr_build_judged(const struct sr_study *s, struct sr_doc *d);

/* ---- the writer: dir/REPORT.md, then dir/report.html made from it (the charts read
 * from dir/plots/); nothing of report.html is written when a chart cannot be read */
int sr_write(const struct sr_doc *d, const char *dir, FILE *err);

#endif
