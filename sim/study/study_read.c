/*
 * study_read.c - the one reader of a study directory (study.h,
 * sim_study_read): meta.csv, study.csv, clients.csv, refused.csv,
 * traffic.csv, and limits.csv and placement.csv when there, through the
 * one CSV reader (csv.h, strictly: a header named once each, every record
 * the header's length), into struct sim_study (study_read_rows.c,
 * _keys.c, _limits.c). Columns are found by name; every number is checked
 * and the files against each other. Anything else is refused with
 * "DIR/FILE:LINE: reason": the words `ratelab study`'s report and
 * `--merge` both print. Here: the cells as numbers, and meta.csv.
 */
#include "study_read_impl.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ratelab/parse.h"


/* "PATH:LINE: why" for row (SIZE_MAX: the header): SIM_CSV_BAD. */
int study_rd_bad(struct study_rd *rd, size_t row, const char *fmt, ...)
{
	char why[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	snprintf(rd->msg, rd->msg_len, "%s:%ld: %s", rd->t.path, row == SIZE_MAX ? 1L : rd->t.line[row], why);
	return SIM_CSV_BAD;
}

int study_rd_oom(struct study_rd *rd)
{
	snprintf(rd->msg, rd->msg_len, "out of memory");
	return SIM_CSV_FAIL;
}

/* "NAME 'VALUE' is not WHAT" for a cell: SIM_CSV_BAD. */
int study_rd_bad_value(struct study_rd *rd, size_t row, const char *name, const char *value, const char *what)
{
	char q[RL_QUOTE_SIZE];
	return study_rd_bad(rd, row, "%s %s is not %s", name, rl_quote(q, value), what);
}

/* Reads dir/name into rd->t; a missing file is SIM_CSV_BAD ("cannot open") unless optional (*there false). */
int study_rd_open(struct study_rd *rd, const char *name, bool optional, bool *there)
{
	char path[4200], *text = NULL;
	size_t text_len = 0;
	static const struct sim_csv_rules strict = { false, false, true, false };

	sim_csv_free(&rd->t);
	snprintf(path, sizeof(path), "%s/%s", rd->dir, name);
	FILE *err = open_memstream(&text, &text_len);
	if (!err)
		return study_rd_oom(rd);
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
int study_rd_col(struct study_rd *rd, const char *name, int *col)
{
	if ((*col = sim_csv_col(&rd->t, name)) >= 0)
		return 0;
	snprintf(rd->msg, rd->msg_len, "%s:1: no column '%s' in the header", rd->t.path, name);
	return SIM_CSV_BAD;
}

/* A cell as a count: decimal digits, at most 2^63 - 1. */
int study_rd_count(struct study_rd *rd, size_t row, int col, int64_t *out)
{
	const char *v = rd->t.row[row][col];
	uint64_t n = 0;

	if (!*v)
		return study_rd_bad_value(rd, row, rd->t.col[col], v, "an integer");
	for (const char *p = v; *p; p++) {
		if (*p < '0' || *p > '9' || n > ((uint64_t)INT64_MAX - (uint64_t)(*p - '0')) / 10)
			return study_rd_bad_value(rd, row, rd->t.col[col], v, "an integer (digits only, at most 2^63 - 1)");
		n = n * 10 + (uint64_t)(*p - '0');
	}
	*out = (int64_t)n;
	return 0;
}

/* A cell as a finite non-negative decimal (digits, a fraction, an exponent; no sign, hex, inf or nan). */
int study_rd_decimal(struct study_rd *rd, size_t row, int col, bool empty_ok, double *out)
{
	const char *s = rd->t.row[row][col], *p = s;
	size_t digits = 0;

	*out = 0;
	if (!*s)
		return empty_ok ? 0 : study_rd_bad_value(rd, row, rd->t.col[col], s, "a number");
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
		return study_rd_bad_value(rd, row, rd->t.col[col], s, "a non-negative decimal number");
	*out = v;
	return 0;
}

/* a > b for two figures of one row: the message names both. */
int study_rd_not_more(struct study_rd *rd, size_t row, const char *a, int64_t av, const char *b, int64_t bv)
{
	return av <= bv ? 0 : study_rd_bad(rd, row, "%s %lld is more than %s %lld", a, (long long)av, b, (long long)bv);
}
/* The index of text in s's rules (or names), or SIZE_MAX. */
size_t study_rd_rule_of(const struct sim_study *s, const char *text)
{
	for (size_t i = 0; i < s->nrules; i++)
		if (strcmp(s->rules[i].text, text) == 0)
			return i;
	return SIZE_MAX;
}

size_t study_rd_name_of(const struct sim_study *s, const char *name)
{
	for (size_t i = 0; i < s->nnames; i++)
		if (strcmp(s->names[i], name) == 0)
			return i;
	return SIZE_MAX;
}

/* The row of (rule, algo) in s, or SIZE_MAX when study.csv has none. */
size_t study_rd_row_of(const struct sim_study *s, const char *rule, const char *algo)
{
	size_t r = study_rd_rule_of(s, rule), a = study_rd_name_of(s, algo);
	if (r == SIZE_MAX || a == SIZE_MAX || s->rows[r * s->nnames + a].absent)
		return SIZE_MAX;
	return r * s->nnames + a;
}

int study_rd_unknown_pair(struct study_rd *rd, size_t row, const char *rule, const char *algo)
{
	char q1[RL_QUOTE_SIZE], q2[RL_QUOTE_SIZE];
	return study_rd_bad(rd, row, "rule %s and algo %s are not a row of study.csv", rl_quote(q1, rule),
		   rl_quote(q2, algo));
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

static int meta_count(struct study_rd *rd, const struct sim_study *s, const char *name, int64_t *out)
{
	size_t i = SIZE_MAX;
	const char *v = meta_of(s, name, &i);
	uint64_t n = 0;

	if (!v)
		return 0;
	for (const char *p = v; *p; p++) {
		if (*p < '0' || *p > '9' || n > ((uint64_t)INT64_MAX - (uint64_t)(*p - '0')) / 10)
			return study_rd_bad_value(rd, i, name, v, "an integer");
		n = n * 10 + (uint64_t)(*p - '0');
	}
	if (!*v)
		return study_rd_bad_value(rd, i, name, v, "an integer");
	*out = (int64_t)n;
	return 0;
}

static int meta_yes_no(struct study_rd *rd, const struct sim_study *s, const char *name, bool *out)
{
	size_t i = SIZE_MAX;
	const char *v = meta_of(s, name, &i);

	if (!v)
		return 0;
	if (strcmp(v, "yes") != 0 && strcmp(v, "no") != 0)
		return study_rd_bad_value(rd, i, name, v, "yes or no");
	*out = v[0] == 'y';
	return 0;
}

/* meta.csv's rows of the import's skips and assumptions (study_write.c's write_meta_import) into st. */
static int meta_import(struct study_rd *rd, size_t row, const char *k, const char *v, struct sim_import_stats *st)
{
	int64_t x;

	for (int r = 0; r < SIM_SKIP_COUNT; r++) {
		size_t n = strlen(sim_import_skip_name[r]);
		if (strncmp(k, "skipped_", 8) || strncmp(k + 8, sim_import_skip_name[r], n))
			continue;
		const char *rest = k + 8 + n;
		if (!*rest) {
			if (!rl_parse_i64(v, &x) || x < 0)
				return study_rd_bad_value(rd, row, k, v, "an integer");
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
				return study_rd_bad_value(rd, row, k, v, "an integer");
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
static int meta_windows(struct study_rd *rd, struct sim_study *s)
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
		return study_rd_oom(rd);
	}
	for (char *w = strtok_r(list, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		struct sim_limits_window *lw = &s->limits.w[s->limits.nwindows];
		if (s->limits.nwindows == most || strlen(w) >= SIM_LIMITS_TEXT_MAX ||
		    !rl_parse_duration(w, 0, &lw->window_ns) || lw->window_ns < 1) {
			free(list);
			return study_rd_bad_value(rd, at, "windows", v, "a list of durations (e.g. 1m,1h)");
		}
		snprintf(lw->text, sizeof(lw->text), "%s", w);
		s->limits.nwindows++;
	}
	free(list);
	return 0;
}

int study_rd_meta(struct study_rd *rd, struct sim_study *s)
{
	int rc = study_rd_open(rd, "meta.csv", false, NULL);
	struct sim_csv *t = &rd->t;

	if (rc)
		return rc;
	if (t->ncols != 2 || strcmp(t->col[0], "name") != 0 || strcmp(t->col[1], "value") != 0)
		return study_rd_bad(rd, SIZE_MAX, "the header must be name,value");
	if (!(s->meta = calloc(t->nrows + 1, sizeof(*s->meta))))
		return study_rd_oom(rd);
	for (size_t i = 0; i < t->nrows; i++) {
		size_t j;
		if (meta_of(s, t->row[i][0], &j))
			return study_rd_bad(rd, i, "%s given twice (first on line %ld)", t->row[i][0], t->line[j]);
		struct sim_study_meta *m = &s->meta[s->nmeta++];
		if (!(m->name = strdup(t->row[i][0])) || !(m->value = strdup(t->row[i][1])))
			return study_rd_oom(rd);
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
		return study_rd_bad_value(rd, at, "traffic_bin_ns", v, "a whole number of seconds in ns");
	s->bin_ns = bin;
	s->jobs = (unsigned)jobs;
	if (!(s->trace = strdup(meta_of(s, "trace", NULL))))
		return study_rd_oom(rd);
	v = meta_of(s, "format", &at);
	if (strlen(v) >= sizeof(s->format))
		return study_rd_bad_value(rd, at, "format", v, "a log format's name");
	snprintf(s->format, sizeof(s->format), "%s", v);
	if ((v = meta_of(s, "target_keys", &at)) && !sim_study_target_parse(v, &s->target_keys))
		return study_rd_bad_value(rd, at, "target_keys", v, "a share P% (0 < P <= 100)");
	if ((v = meta_of(s, "shard", NULL)))
		snprintf(s->shard, sizeof(s->shard), "%s", v);
	if ((v = meta_of(s, "elapsed_s", &at))) {
		char *end;
		errno = 0;
		s->elapsed_s = strtod(v, &end);
		if (!*v || *end || errno || !(s->elapsed_s >= 0))
			return study_rd_bad_value(rd, at, "elapsed_s", v, "a non-negative number");
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

int sim_study_read(struct sim_study *s, const char *dir, char *msg, size_t msg_len)
{
	struct study_rd rd = { .dir = dir, .msg = msg, .msg_len = msg_len };
	size_t cap = 0;
	int rc;

	memset(s, 0, sizeof(*s));
	if (!(rc = study_rd_meta(&rd, s)) && !(rc = study_rd_study(&rd, s)) && !(rc = study_rd_clients(&rd, s, &cap)) &&
	    !(rc = study_rd_refused(&rd, s)) && !(rc = study_rd_traffic(&rd, s, &cap)) && !(rc = study_rd_limits(&rd, s)))
		rc = study_rd_placement(&rd, s);
	sim_csv_free(&rd.t);
	if (rc)
		sim_study_free(s);
	return rc;
}
