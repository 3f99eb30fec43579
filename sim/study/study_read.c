/*
 * study_read.c - the one reader of a study directory (study.h,
 * sim_study_read): meta.csv, study.csv, clients.csv, refused.csv,
 * traffic.csv, and limits.csv and placement.csv when there, through the
 * one CSV reader (csv.h, strictly: a header named once each, every record
 * the header's length), into struct sim_study. Columns are found by name;
 * every number is checked and the files against each other. Anything else
 * is refused with "DIR/FILE:LINE: reason": the words `ratelab study`'s
 * report and `--merge` both print.
 */
#include "study.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "ratelab/parse.h"

struct rd {
	const char *dir;
	struct sim_csv t; /* the file being read */
	char *msg;
	size_t msg_len;
};

/* "PATH:LINE: why" for row (SIZE_MAX: the header): SIM_CSV_BAD. */
static int bad(struct rd *rd, size_t row, const char *fmt, ...)
{
	char why[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	snprintf(rd->msg, rd->msg_len, "%s:%ld: %s", rd->t.path, row == SIZE_MAX ? 1L : rd->t.line[row], why);
	return SIM_CSV_BAD;
}

static int oom(struct rd *rd)
{
	snprintf(rd->msg, rd->msg_len, "out of memory");
	return SIM_CSV_FAIL;
}

/* A value in a message: 'TEXT', its control bytes escaped, at most 60 bytes of it. */
static const char *quote(char *buf, size_t cap, const char *v)
{
	size_t n = 0, len = strlen(v);

	buf[n++] = '\'';
	for (size_t i = 0; v[i] && n + 8 < cap; i++) {
		unsigned char c = (unsigned char)v[i];
		if (i == 60) {
			n += (size_t)snprintf(buf + n, cap - n, "...(%zu bytes)", len);
			break;
		}
		if (c == '\n' || c == '\t' || c == '\r')
			n += (size_t)snprintf(buf + n, cap - n, "\\%c", c == '\n' ? 'n' : c == '\t' ? 't' : 'r');
		else if (c < 0x20 || c == 0x7f)
			n += (size_t)snprintf(buf + n, cap - n, "\\x%02x", c);
		else
			buf[n++] = (char)c;
	}
	buf[n++] = '\'';
	buf[n] = '\0';
	return buf;
}

/* "NAME 'VALUE' is not WHAT" for a cell: SIM_CSV_BAD. */
static int bad_value(struct rd *rd, size_t row, const char *name, const char *value, const char *what)
{
	char q[320];
	return bad(rd, row, "%s %s is not %s", name, quote(q, sizeof(q), value), what);
}

/* Reads dir/name into rd->t; a missing file is SIM_CSV_BAD ("cannot open") unless optional (*there false). */
static int open_csv(struct rd *rd, const char *name, bool optional, bool *there)
{
	char path[4200], *text = NULL;
	size_t text_len = 0;
	static const struct sim_csv_rules strict = { false, false, true, false };

	sim_csv_free(&rd->t);
	snprintf(path, sizeof(path), "%s/%s", rd->dir, name);
	FILE *err = open_memstream(&text, &text_len);
	if (!err)
		return oom(rd);
	int rc = sim_csv_read(&rd->t, path, &strict, "", err);
	int e = errno;
	fclose(err);
	if (rc != SIM_CSV_OK) /* the reader's "PATH:LINE: problem" or "PATH: reason", one line */
		snprintf(rd->msg, rd->msg_len, "%.*s", text && text_len ? (int)text_len - 1 : 0, text ? text : "");
	free(text);
	if (rc == SIM_CSV_OK && !rd->t.present && !optional) {
		snprintf(rd->msg, rd->msg_len, "cannot open '%s': %s%s", path, strerror(e ? e : ENOENT),
			 " (not a study directory, or a study that did not finish)");
		return SIM_CSV_BAD;
	}
	if (there)
		*there = rd->t.present;
	return rc;
}

/* The column called name: its index, or -1 after "FILE:1: no column". */
static int need_col(struct rd *rd, const char *name, int *col)
{
	if ((*col = sim_csv_col(&rd->t, name)) >= 0)
		return 0;
	snprintf(rd->msg, rd->msg_len, "%s:1: no column '%s' in the header", rd->t.path, name);
	return SIM_CSV_BAD;
}

/* A cell as a count: decimal digits, at most 2^63 - 1. */
static int count(struct rd *rd, size_t row, int col, int64_t *out)
{
	const char *v = rd->t.row[row][col];
	uint64_t n = 0;

	if (!*v)
		return bad_value(rd, row, rd->t.col[col], v, "an integer");
	for (const char *p = v; *p; p++) {
		if (*p < '0' || *p > '9' || n > ((uint64_t)INT64_MAX - (uint64_t)(*p - '0')) / 10)
			return bad_value(rd, row, rd->t.col[col], v, "an integer (digits only, at most 2^63 - 1)");
		n = n * 10 + (uint64_t)(*p - '0');
	}
	*out = (int64_t)n;
	return 0;
}

/* A cell as a finite non-negative decimal (digits, a fraction, an exponent; no sign, hex, inf or nan). */
static int decimal(struct rd *rd, size_t row, int col, bool empty_ok, double *out)
{
	const char *s = rd->t.row[row][col], *p = s;
	size_t digits = 0;

	*out = 0;
	if (!*s)
		return empty_ok ? 0 : bad_value(rd, row, rd->t.col[col], s, "a number");
	while (*p >= '0' && *p <= '9')
		p++, digits++;
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++)
			digits++;
	if (digits && (*p == 'e' || *p == 'E')) {
		p++;
		p += *p == '+' || *p == '-';
		if (!(*p >= '0' && *p <= '9'))
			digits = 0;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	double v = digits && !*p ? strtod(s, NULL) : -1;
	if (v < 0 || v > 1.7e308)
		return bad_value(rd, row, rd->t.col[col], s, "a non-negative decimal number");
	*out = v;
	return 0;
}

/* a > b for two figures of one row: the message names both. */
static int not_more(struct rd *rd, size_t row, const char *a, int64_t av, const char *b, int64_t bv)
{
	return av <= bv ? 0 : bad(rd, row, "%s %lld is more than %s %lld", a, (long long)av, b, (long long)bv);
}

/* ---- meta.csv */

static const char *meta_of(const struct sim_study *s, const char *name, size_t *at)
{
	for (size_t i = 0; i < s->nmeta; i++)
		if (strcmp(s->meta[i].name, name) == 0) {
			if (at)
				*at = i;
			return s->meta[i].value;
		}
	return NULL;
}

static int meta_count(struct rd *rd, const struct sim_study *s, const char *name, int64_t *out)
{
	size_t i = SIZE_MAX;
	const char *v = meta_of(s, name, &i);
	uint64_t n = 0;

	if (!v)
		return 0;
	for (const char *p = v; *p; p++) {
		if (*p < '0' || *p > '9' || n > ((uint64_t)INT64_MAX - (uint64_t)(*p - '0')) / 10)
			return bad_value(rd, i, name, v, "an integer");
		n = n * 10 + (uint64_t)(*p - '0');
	}
	if (!*v)
		return bad_value(rd, i, name, v, "an integer");
	*out = (int64_t)n;
	return 0;
}

static int meta_yes_no(struct rd *rd, const struct sim_study *s, const char *name, bool *out)
{
	size_t i = SIZE_MAX;
	const char *v = meta_of(s, name, &i);

	if (!v)
		return 0;
	if (strcmp(v, "yes") != 0 && strcmp(v, "no") != 0)
		return bad_value(rd, i, name, v, "yes or no");
	*out = v[0] == 'y';
	return 0;
}

/* meta.csv's rows of the import's skips and assumptions (study_write.c's write_meta_import) into st. */
static int meta_import(struct rd *rd, size_t row, const char *k, const char *v, struct sim_import_stats *st)
{
	int64_t x;

	for (int r = 0; r < SIM_SKIP_COUNT; r++) {
		size_t n = strlen(sim_import_skip_name[r]);
		if (strncmp(k, "skipped_", 8) || strncmp(k + 8, sim_import_skip_name[r], n))
			continue;
		const char *rest = k + 8 + n;
		if (!*rest) {
			if (!rl_parse_i64(v, &x) || x < 0)
				return bad_value(rd, row, k, v, "an integer");
			st->skip[r] = (size_t)x;
		} else if (!strncmp(rest, "_at_", 4) && rl_parse_i64(rest + 4, &x) && x >= 1 &&
			   x <= SIM_IMPORT_EXAMPLES) {
			snprintf(st->where[r][x - 1], sizeof(st->where[r][x - 1]), "%s", v);
		}
	}
	const char *counts[] = { "requests_cost_zero", "requests_anonymous", "requests_no_offset" };
	size_t *to[] = { &st->cost_zero, &st->anon, &st->no_offset };
	for (int i = 0; i < 3; i++)
		if (!strcmp(k, counts[i])) {
			if (!rl_parse_i64(v, &x) || x < 0)
				return bad_value(rd, row, k, v, "an integer");
			*to[i] = (size_t)x;
		}
	if (!strcmp(k, "tz"))
		snprintf(st->tz, sizeof(st->tz), "%s", v);
	if (!strcmp(k, "format_detected"))
		st->detected = !strcmp(v, "yes");
	if (!strncmp(k, "skipped_example_", 16) && st->nexamples < SIM_IMPORT_FIRST_BAD)
		snprintf(st->example[st->nexamples++], sizeof(st->example[0]), "%s", v);
	return 0;
}

/* The windows of meta.csv's windows row, when there (a shard may have no row of a window). */
static int meta_windows(struct rd *rd, struct sim_study *s)
{
	size_t at = SIZE_MAX, most = 1;
	const char *v = meta_of(s, "windows", &at);
	char *list, *save;

	if (!v)
		return 0;
	for (const char *p = v; *p; p++)
		most += *p == ',';
	if (!(list = strdup(v)) || !(s->limits.w = calloc(most, sizeof(*s->limits.w)))) {
		free(list);
		return oom(rd);
	}
	for (char *w = strtok_r(list, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		struct sim_limits_window *lw = &s->limits.w[s->limits.nwindows];
		if (s->limits.nwindows == most || strlen(w) >= SIM_LIMITS_TEXT_MAX ||
		    !rl_parse_duration(w, 0, &lw->window_ns) || lw->window_ns < 1) {
			free(list);
			return bad_value(rd, at, "windows", v, "a list of durations (e.g. 1m,1h)");
		}
		snprintf(lw->text, sizeof(lw->text), "%s", w);
		s->limits.nwindows++;
	}
	free(list);
	return 0;
}

static int read_meta(struct rd *rd, struct sim_study *s)
{
	int rc = open_csv(rd, "meta.csv", false, NULL);
	struct sim_csv *t = &rd->t;

	if (rc)
		return rc;
	if (t->ncols != 2 || strcmp(t->col[0], "name") != 0 || strcmp(t->col[1], "value") != 0)
		return bad(rd, SIZE_MAX, "the header must be name,value");
	if (!(s->meta = calloc(t->nrows + 1, sizeof(*s->meta))))
		return oom(rd);
	for (size_t i = 0; i < t->nrows; i++) {
		size_t j;
		if (meta_of(s, t->row[i][0], &j))
			return bad(rd, i, "%s given twice (first on line %ld)", t->row[i][0], t->line[j]);
		struct sim_study_meta *m = &s->meta[s->nmeta++];
		if (!(m->name = strdup(t->row[i][0])) || !(m->value = strdup(t->row[i][1])))
			return oom(rd);
	}
	static const char *const need[] = { "trace", "format", "requests", "keys", "span_ns", "resolution_ns",
					    "spread", "cost", "traffic_bin_ns" };
	for (size_t k = 0; k < sizeof(need) / sizeof(need[0]); k++)
		if (!meta_of(s, need[k], NULL)) {
			snprintf(rd->msg, rd->msg_len, "%s:%ld: no row named %s", t->path,
				 t->nrows ? t->line[t->nrows - 1] : 1, need[k]);
			return SIM_CSV_BAD;
		}
	int64_t jobs = 0, bin = 0;
	if ((rc = meta_count(rd, s, "requests", &s->requests)) || (rc = meta_count(rd, s, "keys", &s->keys)) ||
	    (rc = meta_count(rd, s, "span_ns", &s->span_ns)) ||
	    (rc = meta_count(rd, s, "resolution_ns", &s->resolution_ns)) ||
	    (rc = meta_yes_no(rd, s, "spread", &s->spread)) || (rc = meta_yes_no(rd, s, "cost", &s->cost)) ||
	    (rc = meta_count(rd, s, "traffic_bin_ns", &bin)) || (rc = meta_count(rd, s, "jobs", &jobs)) ||
	    (rc = meta_count(rd, s, "peak_rss_bytes", &s->peak_rss_bytes)) ||
	    (rc = meta_count(rd, s, "trace_bytes", &s->trace_bytes)))
		return rc;
	size_t at = SIZE_MAX;
	const char *v = meta_of(s, "traffic_bin_ns", &at);
	/* a whole number of seconds: the bins of sim_study_traffic_bin */
	if (bin == 0 || bin % 1000000000 != 0)
		return bad_value(rd, at, "traffic_bin_ns", v, "a whole number of seconds in ns");
	s->bin_ns = bin;
	s->jobs = (unsigned)jobs;
	if (!(s->trace = strdup(meta_of(s, "trace", NULL))))
		return oom(rd);
	v = meta_of(s, "format", &at);
	if (strlen(v) >= sizeof(s->format))
		return bad_value(rd, at, "format", v, "a log format's name");
	snprintf(s->format, sizeof(s->format), "%s", v);
	if ((v = meta_of(s, "target_keys", &at)) && !sim_study_target_parse(v, &s->target_keys))
		return bad_value(rd, at, "target_keys", v, "a share P% (0 < P <= 100)");
	if ((v = meta_of(s, "shard", NULL)))
		snprintf(s->shard, sizeof(s->shard), "%s", v);
	if ((v = meta_of(s, "elapsed_s", &at))) {
		char *end;
		errno = 0;
		s->elapsed_s = strtod(v, &end);
		if (!*v || *end || errno || !(s->elapsed_s >= 0))
			return bad_value(rd, at, "elapsed_s", v, "a non-negative number");
	}
	int64_t x = 0;
	if ((rc = meta_count(rd, s, "lines_read", &x)))
		return rc;
	s->import.lines = (size_t)x;
	x = 0;
	if ((rc = meta_count(rd, s, "lines_skipped", &x)))
		return rc;
	s->import.skipped = (size_t)x;
	x = 0;
	if ((rc = meta_count(rd, s, "requests_without_cost", &x)))
		return rc;
	s->import.without_cost = (size_t)x;
	for (size_t i = 0; i < s->nmeta; i++)
		if ((rc = meta_import(rd, i, s->meta[i].name, s->meta[i].value, &s->import)))
			return rc;
	return meta_windows(rd, s);
}

/* ---- study.csv and placement.csv */

const char *const sim_study_col_name[SIM_STUDY_NCOLS] = {
	"rule", "algo", "requests", "admitted", "good_keys", "good_keys_hurt", "good_requests_rejected",
	"excess_requests", "excess_admitted", "over_n_admissions", "max_in_w_over_n", "false_rejects", "diverged",
	"ns_per_check", "bytes_per_key", "max_in_w", "keys", "heap_bytes",
};

/* The index of text in s's rules (or names), or SIZE_MAX. */
static size_t rule_of(const struct sim_study *s, const char *text)
{
	for (size_t i = 0; i < s->nrules; i++)
		if (strcmp(s->rules[i].text, text) == 0)
			return i;
	return SIZE_MAX;
}

static size_t name_of(const struct sim_study *s, const char *name)
{
	for (size_t i = 0; i < s->nnames; i++)
		if (strcmp(s->names[i], name) == 0)
			return i;
	return SIZE_MAX;
}

/* The row of (rule, algo) in s, or SIZE_MAX when study.csv has none. */
static size_t row_of(const struct sim_study *s, const char *rule, const char *algo)
{
	size_t r = rule_of(s, rule), a = name_of(s, algo);
	if (r == SIZE_MAX || a == SIZE_MAX || s->rows[r * s->nnames + a].absent)
		return SIZE_MAX;
	return r * s->nnames + a;
}

static int unknown_pair(struct rd *rd, size_t row, const char *rule, const char *algo)
{
	char q1[320], q2[320];
	return bad(rd, row, "rule %s and algo %s are not a row of study.csv", quote(q1, sizeof(q1), rule),
		   quote(q2, sizeof(q2), algo));
}

/* One row's figures from the record row, by the columns col[] (-1: absent, 0). */
static int row_figures(struct rd *rd, size_t i, const int *col, struct sim_study_row *w)
{
	int64_t *f[SIM_STUDY_NCOLS] = { NULL };
	int rc;

	f[SIM_COL_REQUESTS] = &w->requests;
	f[SIM_COL_ADMITTED] = &w->admitted;
	f[SIM_COL_GOOD_KEYS] = &w->good_keys;
	f[SIM_COL_GOOD_KEYS_HURT] = &w->good_keys_hurt;
	f[SIM_COL_GOOD_REQUESTS_REJECTED] = &w->good_requests_rejected;
	f[SIM_COL_EXCESS_REQUESTS] = &w->excess_requests;
	f[SIM_COL_EXCESS_ADMITTED] = &w->excess_admitted;
	f[SIM_COL_OVER_N] = &w->over_n_admissions;
	f[SIM_COL_FALSE_REJECTS] = &w->false_rejects;
	f[SIM_COL_DIVERGED] = &w->diverged;
	f[SIM_COL_MAX_IN_W] = &w->max_in_w;
	f[SIM_COL_KEYS] = &w->keys;
	f[SIM_COL_HEAP_BYTES] = &w->heap_bytes;
	for (int c = 0; c < SIM_STUDY_NCOLS; c++)
		if (f[c] && col[c] >= 0 && (rc = count(rd, i, col[c], f[c])))
			return rc;
	static const int texts[SIM_STUDY_NTEXT] = { SIM_COL_MAX_IN_W_OVER_N, SIM_COL_NS_PER_CHECK,
						    SIM_COL_BYTES_PER_KEY };
	for (int k = 0; k < SIM_STUDY_NTEXT; k++) {
		double d;
		if (col[texts[k]] < 0)
			continue;
		const char *v = rd->t.row[i][col[texts[k]]];
		if ((rc = decimal(rd, i, col[texts[k]], true, &d)))
			return rc;
		if (strlen(v) >= SIM_STUDY_TEXT_MAX)
			return bad_value(rd, i, rd->t.col[col[texts[k]]], v, "a figure of a study (too long)");
		snprintf(w->text[k], sizeof(w->text[k]), "%s", v);
		if (k == SIM_TEXT_NS)
			w->ns_per_check = d;
		if (k == SIM_TEXT_BYTES)
			w->state_bytes = *v ? 0 : -1; /* a decider's memory is not measured */
	}
	return 0;
}

/* The columns of the file being read into col[], and their set into *mask. */
static void find_cols(struct rd *rd, int *col, uint32_t *mask)
{
	*mask = 0;
	for (int c = 0; c < SIM_STUDY_NCOLS; c++)
		if ((col[c] = sim_csv_col(&rd->t, sim_study_col_name[c])) >= 0)
			*mask |= 1u << c;
}

/*
 * A measured row's state_bytes, from its bytes_per_key as written (the
 * state's size plus heap_bytes / keys, one decimal: study_write.c): the
 * whole number nearest bytes_per_key - heap_bytes / keys, exact while the
 * written figure is within 0.05 of it. A policy's state is its rules',
 * so no algorithm's state_size would do. A decider's (empty: -1) stays.
 */
static void state_sizes(struct sim_study *s)
{
	for (size_t i = 0; i < s->nrules * s->nnames; i++) {
		struct sim_study_row *w = &s->rows[i];
		if (w->absent || w->state_bytes < 0)
			continue;
		double per_key = strtod(w->text[SIM_TEXT_BYTES], NULL);
		double heap = w->keys ? (double)w->heap_bytes / (double)w->keys : 0;
		w->state_bytes = (int64_t)llround(per_key - heap > 0 ? per_key - heap : 0);
	}
}

static int read_study(struct rd *rd, struct sim_study *s)
{
	int rc = open_csv(rd, "study.csv", false, NULL), col[SIM_STUDY_NCOLS];
	struct sim_csv *t = &rd->t;
	enum { NHEAD = SIM_COL_EXCESS_ADMITTED + 1 };

	if (rc)
		return rc;
	for (int i = 0; i < NHEAD; i++)
		if ((size_t)i >= t->ncols || strcmp(t->col[i], sim_study_col_name[i]) != 0)
			return bad(rd, SIZE_MAX,
				   "the header must begin rule,algo,requests,admitted,good_keys,good_keys_hurt,"
				   "good_requests_rejected,excess_requests,excess_admitted (column %d is not %s)",
				   i + 1, sim_study_col_name[i]);
	if ((rc = need_col(rd, "ns_per_check", &col[0])) || (rc = need_col(rd, "bytes_per_key", &col[0])))
		return rc;
	find_cols(rd, col, &s->columns);
	if (t->nrows == 0)
		return bad(rd, SIZE_MAX, "no rows: the study measured nothing");
	s->rules = calloc(t->nrows, sizeof(*s->rules));
	s->names = calloc(t->nrows, sizeof(*s->names));
	struct sim_study_row *w = calloc(t->nrows, sizeof(*w));
	size_t *ri = calloc(t->nrows, sizeof(*ri)), *ai = calloc(t->nrows, sizeof(*ai));
	if (!s->rules || !s->names || !w || !ri || !ai) {
		free(w), free(ri), free(ai);
		return oom(rd);
	}
	for (size_t i = 0; i < t->nrows && !rc; i++) {
		const char *rule = t->row[i][0], *algo = t->row[i][1];
		if ((rc = row_figures(rd, i, col, &w[i])))
			break;
		if (!*algo) {
			rc = bad(rd, i, "algo is empty");
			break;
		}
		if (strlen(algo) >= SIM_STUDY_NAME_MAX) {
			rc = bad_value(rd, i, "algo", algo, "a name of an algorithm or decider (too long)");
			break;
		}
		if ((rc = not_more(rd, i, "admitted", w[i].admitted, "requests", w[i].requests)) ||
		    (rc = not_more(rd, i, "good_keys_hurt", w[i].good_keys_hurt, "good_keys", w[i].good_keys)) ||
		    (rc = not_more(rd, i, "good_requests_rejected", w[i].good_requests_rejected, "requests",
				   w[i].requests - w[i].admitted)) ||
		    (rc = not_more(rd, i, "excess_requests", w[i].excess_requests, "requests", w[i].requests)) ||
		    (rc = not_more(rd, i, "excess_admitted", w[i].excess_admitted, "excess_requests",
				   w[i].excess_requests)))
			break;
		ri[i] = rule_of(s, rule);
		ai[i] = name_of(s, algo);
		for (size_t j = 0; j < i && ri[i] != SIZE_MAX && ai[i] != SIZE_MAX; j++)
			if (ri[j] == ri[i] && ai[j] == ai[i]) {
				rc = bad(rd, i, "rule and algo given twice (first on line %ld)", t->line[j]);
				break;
			}
		if (rc)
			break;
		if (ri[i] == SIZE_MAX) {
			char why[1024];
			if (strlen(rule) >= SIM_STUDY_RULE_MAX ||
			    !sim_study_rule_parse(rule, &s->rules[s->nrules], why, sizeof(why))) {
				rc = strlen(rule) >= SIM_STUDY_RULE_MAX ? bad(rd, i, "rule is longer than %d bytes",
									    SIM_STUDY_RULE_MAX - 1)
								      : bad(rd, i, "rule %s", why);
				break;
			}
			ri[i] = s->nrules++;
		}
		if (ai[i] == SIZE_MAX) {
			snprintf(s->names[s->nnames], sizeof(s->names[0]), "%s", algo);
			ai[i] = s->nnames++;
		}
	}
	if (!rc && !(s->rows = calloc(s->nrules * s->nnames, sizeof(*s->rows))))
		rc = oom(rd);
	if (!rc) {
		for (size_t k = 0; k < s->nrules * s->nnames; k++)
			s->rows[k].absent = true;
		for (size_t i = 0; i < t->nrows; i++)
			s->rows[ri[i] * s->nnames + ai[i]] = w[i];
		state_sizes(s);
	}
	free(w), free(ri), free(ai);
	return rc;
}

/*
 * placement.csv, when there, into s->other: rows of the study's rules and
 * names, by column name (the figures the recommendation compares at least).
 */
static int read_placement(struct rd *rd, struct sim_study *s)
{
	bool there;
	int rc = open_csv(rd, "placement.csv", true, &there), col[SIM_STUDY_NCOLS];

	if (rc || !there)
		return rc;
	static const int need[] = { SIM_COL_RULE, SIM_COL_ALGO, SIM_COL_GOOD_KEYS, SIM_COL_GOOD_KEYS_HURT,
				    SIM_COL_FALSE_REJECTS, SIM_COL_EXCESS_REQUESTS, SIM_COL_EXCESS_ADMITTED,
				    SIM_COL_REQUESTS, SIM_COL_ADMITTED };
	for (size_t k = 0; k < sizeof(need) / sizeof(need[0]); k++)
		if ((rc = need_col(rd, sim_study_col_name[need[k]], &col[0])))
			return rc;
	struct sim_study *o = calloc(1, sizeof(*o));
	if (!o)
		return oom(rd);
	s->other = o;
	find_cols(rd, col, &o->columns);
	o->rules = calloc(s->nrules, sizeof(*o->rules));
	o->names = calloc(s->nnames, sizeof(*o->names));
	o->rows = calloc(s->nrules * s->nnames, sizeof(*o->rows));
	if (!o->rules || !o->names || !o->rows)
		return oom(rd);
	/* o's rules: the study's that placement.csv names, in its order; its names the study's it names
	 * (built-in algorithms: a decider is not decided again), in the study's order */
	unsigned char *named = calloc(s->nnames + 1, 1);
	if (!named)
		return oom(rd);
	for (size_t i = 0; i < rd->t.nrows; i++) {
		const char *rule = rd->t.row[i][col[SIM_COL_RULE]], *algo = rd->t.row[i][col[SIM_COL_ALGO]];
		if (row_of(s, rule, algo) == SIZE_MAX) {
			free(named);
			return unknown_pair(rd, i, rule, algo);
		}
		if (rule_of(o, rule) == SIZE_MAX)
			o->rules[o->nrules++] = s->rules[rule_of(s, rule)];
		named[name_of(s, algo)] = 1;
	}
	for (size_t a = 0; a < s->nnames; a++)
		if (named[a])
			memcpy(o->names[o->nnames++], s->names[a], sizeof(o->names[0]));
	free(named);
	for (size_t k = 0; k < o->nrules * o->nnames; k++)
		o->rows[k].absent = true;
	for (size_t i = 0; i < rd->t.nrows; i++) {
		size_t at = rule_of(o, rd->t.row[i][col[SIM_COL_RULE]]) * o->nnames +
			    name_of(o, rd->t.row[i][col[SIM_COL_ALGO]]);
		if (!o->rows[at].absent)
			return bad(rd, i, "rule and algo given twice");
		if ((rc = row_figures(rd, i, col, &o->rows[at])))
			return rc;
		o->rows[at].absent = false;
	}
	state_sizes(o);
	return 0;
}

/* ---- clients.csv */

/* The key called name in s->top, added (listed nowhere) when new: its index, or SIZE_MAX out of memory. */
static size_t key_of(struct sim_study *s, const char *name, size_t *cap)
{
	size_t nrows = s->nrules * s->nnames;

	for (size_t j = 0; j < s->ntop; j++)
		if (strcmp(s->top[j].name, name) == 0)
			return j;
	if (s->ntop == *cap) {
		size_t c = *cap ? 2 * *cap : 64;
		struct sim_study_key *g = realloc(s->top, c * sizeof(*g));
		if (!g)
			return SIZE_MAX;
		s->top = g;
		*cap = c;
	}
	struct sim_study_key *k = &s->top[s->ntop];
	*k = (struct sim_study_key){ 0 };
	k->name = strdup(name);
	k->admitted = calloc(nrows ? nrows : 1, sizeof(*k->admitted));
	k->listed = calloc(nrows ? nrows : 1, 1);
	k->within = calloc(s->nrules ? s->nrules : 1, 1);
	s->ntop++; /* freed whole by sim_study_free, even when incomplete */
	return k->name && k->admitted && k->listed && k->within ? s->ntop - 1 : SIZE_MAX;
}

static int read_clients(struct rd *rd, struct sim_study *s, size_t *cap)
{
	int rc = open_csv(rd, "clients.csv", false, NULL), c[6];
	static const char *const names[] = { "rule", "algo", "key", "requests", "admitted", "within_rule" };
	struct sim_csv *t = &rd->t;

	if (rc)
		return rc;
	for (int k = 0; k < 6; k++)
		if ((rc = need_col(rd, names[k], &c[k])))
			return rc;
	for (size_t i = 0; i < t->nrows; i++) {
		char **v = t->row[i];
		int64_t req, adm, within;
		/* the (other) row closes its (rule, algo) group: a key of that name elsewhere is a key */
		bool other = strcmp(v[c[2]], "(other)") == 0 &&
			     (i + 1 == t->nrows || strcmp(v[c[0]], t->row[i + 1][c[0]]) != 0 ||
			      strcmp(v[c[1]], t->row[i + 1][c[1]]) != 0);
		if ((rc = count(rd, i, c[3], &req)) || (rc = count(rd, i, c[4], &adm)))
			return rc;
		const char *wv = v[c[5]];
		if (other) {
			if ((rc = count(rd, i, c[5], &within)))
				return rc;
		} else if (strcmp(wv, "1") == 0 || strcmp(wv, "yes") == 0) {
			within = 1;
		} else if (strcmp(wv, "0") == 0 || strcmp(wv, "no") == 0) {
			within = 0;
		} else {
			return bad_value(rd, i, "within_rule", wv, "1, 0, yes or no (a key's row)");
		}
		if ((rc = not_more(rd, i, "admitted", adm, "requests", req)))
			return rc;
		size_t row = row_of(s, v[c[0]], v[c[1]]);
		if (row == SIZE_MAX)
			return unknown_pair(rd, i, v[c[0]], v[c[1]]);
		struct sim_study_row *w = &s->rows[row];
		if (other) {
			w->has_other = true;
			w->other_requests = req;
			w->other_admitted = adm;
			w->other_within = within;
			continue;
		}
		size_t j = key_of(s, v[c[2]], cap);
		if (j == SIZE_MAX)
			return oom(rd);
		struct sim_study_key *k = &s->top[j];
		bool first = true;
		for (size_t r = 0; r < s->nrules * s->nnames && first; r++)
			first = !k->listed[r];
		char q[320];
		if (k->listed[row])
			return bad(rd, i, "key %s given twice for rule and algo", quote(q, sizeof(q), k->name));
		if (!first && k->requests != req)
			return bad(rd, i, "key %s: requests %lld, where another row of it gives %lld",
				   quote(q, sizeof(q), k->name), (long long)req, (long long)k->requests);
		k->requests = req;
		k->listed[row] = 1;
		k->admitted[row] = adm;
		k->within[row / s->nnames] = (unsigned char)within;
	}
	return 0;
}

/* ---- refused.csv */

const char *const sim_study_bucket_lo[SIM_STUDY_BUCKETS] = { "0", "0", "0.01", "0.1", "0.5" };
const char *const sim_study_bucket_hi[SIM_STUDY_BUCKETS] = { "0", "0.01", "0.1", "0.5", "1" };

static int read_refused(struct rd *rd, struct sim_study *s)
{
	int rc = open_csv(rd, "refused.csv", false, NULL), c[5];
	static const char *const names[] = { "rule", "algo", "share_lo", "share_hi", "keys" };
	struct sim_csv *t = &rd->t;

	if (rc)
		return rc;
	for (int k = 0; k < 5; k++)
		if ((rc = need_col(rd, names[k], &c[k])))
			return rc;
	for (size_t i = 0; i < t->nrows; i++) {
		char **v = t->row[i];
		double lo, hi;
		int64_t keys;
		if ((rc = decimal(rd, i, c[2], false, &lo)) || (rc = decimal(rd, i, c[3], false, &hi)) ||
		    (rc = count(rd, i, c[4], &keys)))
			return rc;
		if (lo > hi || hi > 1)
			return bad(rd, i, "share_lo %s and share_hi %s are not a bucket of [0, 1]", v[c[2]], v[c[3]]);
		size_t row = row_of(s, v[c[0]], v[c[1]]);
		if (row == SIZE_MAX)
			return unknown_pair(rd, i, v[c[0]], v[c[1]]);
		int b = 0;
		while (b < SIM_STUDY_BUCKETS &&
		       (strcmp(v[c[2]], sim_study_bucket_lo[b]) || strcmp(v[c[3]], sim_study_bucket_hi[b])))
			b++;
		if (b == SIM_STUDY_BUCKETS)
			return bad(rd, i, "share_lo %s and share_hi %s are not a bucket of a study (0,0 0,0.01 "
				   "0.01,0.1 0.1,0.5 0.5,1)", v[c[2]], v[c[3]]);
		struct sim_study_row *w = &s->rows[row];
		if (w->refused_listed & (1u << b))
			return bad(rd, i, "the bucket %s, %s given twice for rule and algo", v[c[2]], v[c[3]]);
		w->refused_listed |= (uint8_t)(1u << b);
		w->refused[b] = keys;
	}
	return 0;
}

/* ---- traffic.csv */

static int read_traffic(struct rd *rd, struct sim_study *s, size_t *cap)
{
	int rc = open_csv(rd, "traffic.csv", false, NULL);
	struct sim_csv *t = &rd->t;

	if (rc)
		return rc;
	if (t->ncols < 2 || strcmp(t->col[0], "t_ns") != 0 || strcmp(t->col[1], "requests") != 0)
		return bad(rd, SIZE_MAX, "the header must begin t_ns,requests (then one column per heavy key)");
	if (t->nrows > SIM_STUDY_TRAFFIC_BINS)
		return bad(rd, SIM_STUDY_TRAFFIC_BINS, "more than %d bins", SIM_STUDY_TRAFFIC_BINS);
	s->ntraffic = t->ncols - 2;
	size_t nb = t->nrows ? t->nrows : 1;
	if (!(s->traffic = calloc(s->ntraffic + 1, sizeof(*s->traffic))) || !(s->per_bin = calloc(nb, sizeof(int64_t))))
		return oom(rd);
	for (size_t k = 0; k < s->ntraffic; k++) {
		size_t j = key_of(s, t->col[2 + k], cap);
		if (j == SIZE_MAX || !(s->top[j].per_bin = calloc(nb, sizeof(int64_t))))
			return oom(rd);
		s->traffic[k] = j;
	}
	for (size_t i = 0; i < t->nrows; i++) {
		int64_t at;
		if ((rc = count(rd, i, 0, &at)))
			return rc;
		if (i == 0)
			s->bin0_ns = at;
		if (at % s->bin_ns != 0 || at != s->bin0_ns + (int64_t)i * s->bin_ns)
			return bad(rd, i, "t_ns %lld where %lld was due (every traffic_bin_ns from the first, in order)",
				   (long long)at, (long long)(s->bin0_ns + (int64_t)i * s->bin_ns));
		if ((rc = count(rd, i, 1, &s->per_bin[i])))
			return rc;
		for (size_t k = 0; k < s->ntraffic; k++)
			if ((rc = count(rd, i, (int)k + 2, &s->top[s->traffic[k]].per_bin[i])))
				return rc;
		s->nbins++;
	}
	return 0;
}

/* ---- limits.csv */

static int grow(int64_t **a, size_t n)
{
	int64_t *g = realloc(*a, n * sizeof(*g));
	if (!g)
		return -1;
	*a = g;
	return 0;
}

static int read_limits(struct rd *rd, struct sim_study *s)
{
	bool there;
	int rc = open_csv(rd, "limits.csv", true, &there), c[6];
	static const char *const names[] = { "window", "limit", "keys", "keys_refused", "requests",
					     "requests_refused" };
	struct sim_csv *t = &rd->t;
	struct sim_limits *l = &s->limits;

	if (rc || !there)
		return rc; /* none: a study written before limits.csv, the report says so */
	s->has_limits = true;
	for (int k = 0; k < 6; k++)
		if ((rc = need_col(rd, names[k], &c[k])))
			return rc;
	/* meta.csv's windows first (read_meta), in order: a shard may have no row of one */
	struct sim_limits_window *g = realloc(l->w, (l->nwindows + t->nrows + 1) * sizeof(*g));
	if (!g)
		return oom(rd);
	memset(g + l->nwindows, 0, (t->nrows + 1) * sizeof(*g));
	l->w = g;
	size_t last = SIZE_MAX, cap = 0;
	for (size_t i = 0; i < t->nrows; i++) {
		const char *text = t->row[i][c[0]];
		int64_t v[5];
		for (int k = 0; k < 5; k++)
			if ((rc = count(rd, i, c[1 + k], &v[k])))
				return rc;
		size_t at = 0;
		while (at < l->nwindows && strcmp(l->w[at].text, text) != 0)
			at++;
		if (at != last && at < l->nwindows && l->w[at].n)
			return bad(rd, i, "window %s again after other windows' rows", text);
		if (at == l->nwindows) {
			struct sim_limits_window *lw = &l->w[l->nwindows];
			if (strlen(text) >= SIM_LIMITS_TEXT_MAX || !rl_parse_duration(text, 0, &lw->window_ns) ||
			    lw->window_ns < 1)
				return bad_value(rd, i, "window", text, "a duration (e.g. 1m)");
			snprintf(lw->text, sizeof(lw->text), "%s", text);
			l->nwindows++;
		}
		struct sim_limits_window *w = &l->w[at];
		if (at != last) {
			last = at;
			cap = 0;
			w->keys = v[1];
			w->requests = v[3];
		}
		if (v[0] < 1 || (w->n && v[0] <= w->limit[w->n - 1]))
			return bad(rd, i, "limit %lld is not above the row before's (and at least 1)", (long long)v[0]);
		if (v[1] != w->keys || v[3] != w->requests)
			return bad(rd, i, "keys or requests differ from the window's first row");
		if ((rc = not_more(rd, i, "keys_refused", v[2], "keys", v[1])) ||
		    (rc = not_more(rd, i, "requests_refused", v[4], "requests", v[3])))
			return rc;
		if (w->n == cap) {
			cap = cap ? 2 * cap : 64;
			if (grow(&w->limit, cap) || grow(&w->keys_refused, cap) || grow(&w->requests_refused, cap))
				return oom(rd);
		}
		w->limit[w->n] = v[0];
		w->keys_refused[w->n] = v[2];
		w->requests_refused[w->n++] = v[4];
	}
	return 0;
}

int sim_study_read(struct sim_study *s, const char *dir, char *msg, size_t msg_len)
{
	struct rd rd = { .dir = dir, .msg = msg, .msg_len = msg_len };
	size_t cap = 0;
	int rc;

	memset(s, 0, sizeof(*s));
	if (!(rc = read_meta(&rd, s)) && !(rc = read_study(&rd, s)) && !(rc = read_clients(&rd, s, &cap)) &&
	    !(rc = read_refused(&rd, s)) && !(rc = read_traffic(&rd, s, &cap)) && !(rc = read_limits(&rd, s)))
		rc = read_placement(&rd, s);
	sim_csv_free(&rd.t);
	if (rc)
		sim_study_free(s);
	return rc;
}

int sim_study_whole(const struct sim_study *s, const char *dir, char *msg, size_t msg_len)
{
	size_t nrows = s->nrules * s->nnames, ntop = s->keys < SIM_STUDY_TOP ? (size_t)s->keys : SIM_STUDY_TOP;
	size_t nk = ntop < SIM_STUDY_TRAFFIC_KEYS ? ntop : SIM_STUDY_TRAFFIC_KEYS;
	const struct sim_study *o = s->other;

	if (s->columns != SIM_STUDY_ALL_COLS || (o && o->columns != SIM_STUDY_ALL_COLS)) {
		snprintf(msg, msg_len, "'%s/%s' lacks some of a study's columns", dir,
			 s->columns != SIM_STUDY_ALL_COLS ? "study.csv" : "placement.csv");
		return -1;
	}
	if (!s->has_limits) {
		snprintf(msg, msg_len, "'%s' has no limits.csv", dir);
		return -1;
	}
	for (size_t i = 0; i < nrows; i++) {
		const struct sim_study_row *w = &s->rows[i];
		const char *rule = s->rules[i / s->nnames].text, *algo = s->names[i % s->nnames];
		if (w->absent || !w->has_other || w->refused_listed != (1u << SIM_STUDY_BUCKETS) - 1) {
			snprintf(msg, msg_len, "'%s': rule '%s', algo '%s' lacks its %s", dir, rule, algo,
				 w->absent ? "study.csv row" : !w->has_other ? "(other) row in clients.csv"
										 : "refused.csv rows");
			return -1;
		}
		for (size_t j = 0; j < s->ntop; j++)
			if (!s->top[j].listed[i]) {
				snprintf(msg, msg_len, "'%s/clients.csv': key '%.60s' is not listed for rule '%s', algo '%s'",
					 dir, s->top[j].name, rule, algo);
				return -1;
			}
	}
	for (size_t i = 0; o && i < o->nrules * o->nnames; i++)
		if (o->rows[i].absent) {
			snprintf(msg, msg_len, "'%s/placement.csv': rule '%s', algo '%s' has no row", dir,
				 o->rules[i / o->nnames].text, o->names[i % o->nnames]);
			return -1;
		}
	if (s->ntop != ntop || s->ntraffic != nk) {
		snprintf(msg, msg_len, "'%s': clients.csv lists %zu keys and traffic.csv %zu, a study %zu and %zu", dir,
			 s->ntop, s->ntraffic, ntop, nk);
		return -1;
	}
	for (size_t k = 0; k < nk; k++)
		if (s->traffic[k] != k) {
			snprintf(msg, msg_len, "'%s/traffic.csv': column %zu is not the key '%.60s'", dir, k + 3,
				 s->top[k].name);
			return -1;
		}
	return 0;
}
