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

struct sr_study {
	const char *dir;
	struct sr_csv study, clients, traffic, refused, meta;
	struct sr_row *row;
	size_t nrows;
	struct sr_rule *rule;
	size_t nrules;
	struct sr_client *client;
	size_t nclients;
	struct sr_refused *ref;
	size_t nref;
	/* traffic.csv: nsec seconds, column 0 all requests, 1.. the heaviest keys */
	size_t nsec, ntcols;
	const char **tcol;   /* "requests", then the keys */
	uint64_t *tval;      /* tval[sec * ntcols + c] */
	/* meta.csv */
	const char *trace, *format;
	uint64_t requests, keys, span_ns, resolution_ns;
	bool spread, cost;
};
int sr_load(struct sr_study *s, const char *dir, FILE *err);
void sr_study_free(struct sr_study *s);
/* The value of meta.csv's row name, or NULL. */
const char *sr_meta(const struct sr_study *s, const char *name);
/* The rule called text, or NULL. */
const struct sr_rule *sr_rule_find(const struct sr_study *s, const char *text);

/* ---- the recommendation: from the measured table only */
struct sr_verdict {
	size_t *clean;    /* rows (indices into sr_study.row) that hurt no within-rule key,
			     by excess admitted ascending, table order among equals */
	size_t nclean;
	size_t nbest;     /* clean[0 .. nbest) tie for the least excess admitted */
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
enum sr_chart_kind { SR_CHART_HURT, SR_CHART_TRAFFIC, SR_CHART_REFUSED };
struct sr_chart {
	enum sr_chart_kind kind;
	size_t rule;        /* index into sr_study.rule (HURT, REFUSED) */
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
/* Its parts: the trace facts and measurements; the theory and the recommendation. */
void sr_build_measured(const struct sr_study *s, const struct sr_charts *ch, struct sr_doc *d);
void sr_build_judged(const struct sr_study *s, struct sr_doc *d);

/* ---- writers: dir/REPORT.md, dir/report.html (the charts read from dir/plots/) */
int sr_write_md(const struct sr_doc *d, const char *dir, FILE *err);
int sr_write_html(const struct sr_doc *d, const char *dir, FILE *err);

#endif
