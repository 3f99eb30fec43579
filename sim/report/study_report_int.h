/*
 * study_report_int.h - the study report's parts, private to
 * study_report*.c: the report's view of the one study model (study.h:
 * indices, no copy of the files), the charts, the document and its two
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
#include "study.h"

/* The exit statuses of study_report.h: success, machine failure, bad input. */
enum { SR_OK = 0, SR_FAIL = 1, SR_BAD = 2 };

/* The prefix of every message. */
#define SR_WHO "ratelab study: "

/* Paths: the study directory's name is at most SR_DIR_MAX bytes (checked
 * first), so it joins with any name of the report's within SR_PATH_MAX. */
#define SR_DIR_MAX (SR_PATH_MAX - 128)
/* Writes b to PATH.part, then renames it to path: SR_OK, or SR_FAIL after a message. */
int sr_buf_write(const struct sr_buf *b, const char *path, FILE *err);

/* ---- the study: read by the one reader (study.h, sim_study_read) into the one model, and
 * the report's indices into it */
struct sr_rows {          /* a rule's measured rows: indices into a sim_study's rows, names' order */
	size_t *at;
	size_t n;
};
struct sr_view {
	const char *dir;
	struct sim_study st;      /* the study directory, read and checked */
	struct sr_rows *rule;     /* per st.rules[i] */
	struct sr_rows *alt;      /* per st.other->rules[i] (placement.csv); NULL without it */
	uint32_t target;          /* st.target_keys, or 99% when not recorded */
	bool merged;              /* shard "all (K shards merged)": limits.csv lists only what every shard knew */
};
/* Reads dir: SR_OK, or SR_BAD / SR_FAIL after the reader's message on err. */
int sr_view_load(struct sr_view *v, const char *dir, FILE *err);
void sr_view_free(struct sr_view *v);
/* Row i's name (algorithm or decider) in study s. */
static inline const char *sr_algo(const struct sim_study *s, size_t i)
{
	return s->names[i % s->nnames];
}
/* The burst a rule's text gives (N/W:bB), 0 when it gives none (B = N). */
uint64_t sr_burst(const struct sim_study_rule *r);
/* The value of meta.csv's row name, or NULL. */
const char *sr_meta(const struct sr_view *v, const char *name);
/* The index of the rule called text, or SIZE_MAX. */
size_t sr_rule_find(const struct sr_view *v, const char *text);
/* traffic.csv's columns: 0 every request, k >= 1 the k-th heavy key. */
static inline size_t sr_tcols(const struct sr_view *v)
{
	return v->st.ntraffic + 1;
}
static inline const char *sr_tcol(const struct sr_view *v, size_t k)
{
	return k ? v->st.top[v->st.traffic[k - 1]].name : "requests";
}
static inline uint64_t sr_tval(const struct sr_view *v, size_t bin, size_t k)
{
	return (uint64_t)(k ? v->st.top[v->st.traffic[k - 1]].per_bin[bin] : v->st.per_bin[bin]);
}

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
void sr_traffic_get(const struct sr_view *s, struct sr_traffic *t);
/* Bin i's start into buf: "2026-10-10 13:05:00" (dates, the tz's) or "1 h 5 min" from 0. */
void sr_traffic_when(const struct sr_view *s, const struct sr_traffic *t, size_t i, char *buf, size_t cap);

/* ---- the answer, from limits.csv: the smallest limit listed at which at least
 * ceil(keys * p / 10000) keys are refused nothing (p in hundredths of a percent);
 * *exact false when the limit below it is not listed (a merge keeps fewer), so
 * the value is an upper bound; row its index. False when the window has no key. */
bool sr_percentile(const struct sr_view *s, const struct sim_limits_window *w, uint32_t p, uint64_t *limit,
		   size_t *row, bool *exact);

/* ---- the recommendation: from the measured table only */
struct sr_verdict {
	size_t *clean;    /* rows (indices into the study's rows) that hurt no within-rule key,
			     in the table's order */
	size_t nclean;
	size_t *ranked;   /* every row of the rule by within-rule keys hurt, then false_rejects,
			     then excess admitted, ascending; table order among equals */
	size_t nranked;
	size_t nbest;     /* ranked[0 .. nbest) tie for the first place */
	size_t *fewest;   /* when nclean == 0: the rows tying for the fewest keys hurt */
	size_t nfewest;
};
/* The verdict on rows r of study s; false when out of memory. */
bool sr_verdict(const struct sim_study *s, const struct sr_rows *r, struct sr_verdict *v);
void sr_verdict_free(struct sr_verdict *v);

/* ---- theory: the mean rate per key, requests per second over span_ns + resolution_ns;
 * false when there are no keys or that time is 0 */
bool sr_mean_rate(const struct sr_view *s, double *per_s);

/* ---- charts */
enum sr_chart_kind { SR_CHART_HURT, SR_CHART_TRAFFIC, SR_CHART_REFUSED, SR_CHART_LIMITS };
struct sr_chart {
	enum sr_chart_kind kind;
	size_t rule;        /* index into the rules (HURT, REFUSED), the windows (LIMITS) */
	char file[64];      /* relative to dir: plots/NAME.png */
	char *title;
};
struct sr_charts {
	bool have_gnuplot;  /* false: gnuplot not on PATH, no charts */
	struct sr_chart *c;
	size_t n;
};
/* Draws every chart into dir/plots/ (emptied of earlier PNGs first). */
int sr_charts_draw(const struct sr_view *s, struct sr_charts *ch, FILE *err);
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
void sr_build(const struct sr_view *s, const struct sr_charts *ch, struct sr_doc *d);
/* Its parts: the answer (the limit to set) and what was assumed; the trace facts and
 * measurements; the theory and the recommendation. */
void sr_build_answer(const struct sr_view *s, const struct sr_charts *ch, struct sr_doc *d);
void sr_build_read(const struct sr_view *s, struct sr_doc *d); /* study_report_read.c */
void sr_build_measured(const struct sr_view *s, const struct sr_charts *ch, struct sr_doc *d);
void sr_build_judged(const struct sr_view *s, struct sr_doc *d);

/* ---- the writer: dir/REPORT.md, then dir/report.html made from it (the charts read
 * from dir/plots/); nothing of report.html is written when a chart cannot be read */
int sr_write(const struct sr_doc *d, const char *dir, FILE *err);

#endif
