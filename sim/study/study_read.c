/*
 * study_read.c - reads a study directory's six CSV files (as
 * sim_study_write writes them) back into a struct sim_study, for
 * `ratelab study --merge`, through the one CSV reader (csv.h, RFC 4180:
 * a quoted field may hold ',', '"' doubled and line breaks). Anything not as written is refused with
 * FILE:LINE and the reason: a merge never guesses.
 */
#include "study.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "ratelab/parse.h"

/* A file read whole by the one CSV reader (csv.h), then walked record by record: the header first. */
struct csv {
	struct sim_csv t;
	size_t next;   /* the next record: 0 the header, r + 1 row r */
	long line;     /* the line the last record began on */
	char **f;      /* its fields */
	int nf;
};

struct reader {
	struct csv c;
	char *msg;
	size_t msg_len;
};

static int bad(struct reader *rd, const char *fmt, ...)
{
	char why[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	snprintf(rd->msg, rd->msg_len, "%s:%ld: %s", rd->c.t.path ? rd->c.t.path : "", rd->c.line, why);
	return -1;
}

/* The study's files as study_write.c writes them: a header named once each,
 * no comments, an empty line a record; the fields' counts are checked here. */
static const struct sim_csv_rules study_rules = { false, false, true, true };

static int csv_open(struct reader *rd, const char *dir, const char *name)
{
	struct csv *c = &rd->c;
	char path[PATH_MAX + 32], *text = NULL;
	size_t text_len = 0;

	sim_csv_free(&c->t);
	*c = (struct csv){ 0 };
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	/* the reader's message ("FILE:LINE: problem", or "FILE: reason") caught for msg */
	FILE *err = open_memstream(&text, &text_len);
	if (!err) {
		snprintf(rd->msg, rd->msg_len, "cannot read '%s': out of memory", path);
		return -1;
	}
	int rc = sim_csv_read(&c->t, path, &study_rules, "", err);
	fclose(err);
	if (rc == SIM_CSV_OK && !c->t.present)
		snprintf(rd->msg, rd->msg_len, "cannot read '%s': %s", path, strerror(ENOENT));
	else if (rc != SIM_CSV_OK)
		snprintf(rd->msg, rd->msg_len, "%.*s", text && text_len ? (int)text_len - 1 : 0, text ? text : "");
	free(text);
	return rc == SIM_CSV_OK && c->t.present ? 0 : -1;
}

/* The next record into c->f: 1, 0 at the end. */
static int csv_next(struct reader *rd)
{
	struct csv *c = &rd->c;

	if (c->next > c->t.nrows) { /* the end: a message after it names the line past the last record */
		c->nf = 0;
		c->line = c->t.nrows ? c->t.line[c->t.nrows - 1] + 1 : 2;
		return 0;
	}
	size_t r = c->next++;
	c->f = r ? c->t.row[r - 1] : c->t.col;
	c->nf = (int)(r ? c->t.nf[r - 1] : c->t.ncols);
	c->line = r ? c->t.line[r - 1] : 1;
	return 1;
}

static int expect_header(struct reader *rd, const char *dir, const char *name, const char *header)
{
	char got[1024] = "";

	if (csv_open(rd, dir, name))
		return -1;
	if (csv_next(rd) != 1)
		return bad(rd, "no header");
	for (int i = 0; i < rd->c.nf; i++)
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s", i ? "," : "", rd->c.f[i]);
	if (strcmp(got, header) != 0)
		return bad(rd, "the header is not '%s'", header);
	return 0;
}

static int num(struct reader *rd, const char *text, const char *what, int64_t *out)
{
	if (!rl_parse_i64(text, out) || *out < 0)
		return bad(rd, "%s '%.40s' is not a non-negative integer", what, text);
	return 0;
}

static int real(struct reader *rd, const char *text, const char *what, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(text, &end);
	if (!*text || *end || errno || !(*out >= 0))
		return bad(rd, "%s '%.40s' is not a non-negative number", what, text);
	return 0;
}

/* meta.csv's rows of the import's skips and assumptions (study_write.c's write_meta_import) into st. */
static int meta_import(struct reader *rd, const char *k, const char *v, struct sim_import_stats *st)
{
	int64_t x;

	for (int r = 0; r < SIM_SKIP_COUNT; r++) {
		size_t n = strlen(sim_import_skip_name[r]);
		if (strncmp(k, "skipped_", 8) || strncmp(k + 8, sim_import_skip_name[r], n))
			continue;
		const char *rest = k + 8 + n;
		if (!*rest) {
			if (num(rd, v, k, &x))
				return -1;
			st->skip[r] = (size_t)x;
		} else if (!strncmp(rest, "_at_", 4)) {
			if (!rl_parse_i64(rest + 4, &x) || x < 1 || x > SIM_IMPORT_EXAMPLES)
				return bad(rd, "%s: the example's number is not 1 to %d", k, SIM_IMPORT_EXAMPLES);
			snprintf(st->where[r][x - 1], sizeof(st->where[r][x - 1]), "%s", v);
		}
	}
	const char *counts[] = { "requests_cost_zero", "requests_anonymous", "requests_no_offset" };
	size_t *to[] = { &st->cost_zero, &st->anon, &st->no_offset };
	for (int i = 0; i < 3; i++)
		if (!strcmp(k, counts[i])) {
			if (num(rd, v, k, &x))
				return -1;
			*to[i] = (size_t)x;
		}
	if (!strcmp(k, "tz"))
		snprintf(st->tz, sizeof(st->tz), "%s", v);
	if (!strcmp(k, "format_detected"))
		st->detected = !strcmp(v, "yes");
	return 0;
}

/* meta.csv: the fields a merge keeps or checks. */
static int read_meta(struct reader *rd, const char *dir, struct sim_study *s, char *rules, char *algos,
		     char *windows, size_t len)
{
	if (expect_header(rd, dir, "meta.csv", "name,value"))
		return -1;
	int rc;
	rules[0] = algos[0] = windows[0] = '\0';
	while ((rc = csv_next(rd)) == 1) {
		const char *k = rd->c.f[0], *v = rd->c.nf == 2 ? rd->c.f[1] : NULL;
		int64_t x = 0;
		if (!v)
			return bad(rd, "a row is not NAME,VALUE");
		bool is_int = !strcmp(k, "requests") || !strcmp(k, "keys") || !strcmp(k, "span_ns") ||
			      !strcmp(k, "resolution_ns") || !strcmp(k, "jobs") || !strcmp(k, "peak_rss_bytes") ||
			      !strcmp(k, "trace_bytes") || !strcmp(k, "lines_read") || !strcmp(k, "lines_skipped") ||
			      !strcmp(k, "requests_without_cost") || !strcmp(k, "traffic_bin_ns");
		if (is_int && num(rd, v, k, &x))
			return -1;
		if (!strcmp(k, "trace") && !(s->trace = strdup(v)))
			return bad(rd, "out of memory");
		if (!strcmp(k, "format"))
			snprintf(s->format, sizeof(s->format), "%s", v);
		s->requests = !strcmp(k, "requests") ? x : s->requests;
		s->keys = !strcmp(k, "keys") ? x : s->keys;
		s->span_ns = !strcmp(k, "span_ns") ? x : s->span_ns;
		s->resolution_ns = !strcmp(k, "resolution_ns") ? x : s->resolution_ns;
		s->jobs = !strcmp(k, "jobs") ? (unsigned)x : s->jobs;
		s->peak_rss_bytes = !strcmp(k, "peak_rss_bytes") ? x : s->peak_rss_bytes;
		s->trace_bytes = !strcmp(k, "trace_bytes") ? x : s->trace_bytes;
		s->bin_ns = !strcmp(k, "traffic_bin_ns") ? x : s->bin_ns;
		s->import.lines = !strcmp(k, "lines_read") ? (size_t)x : s->import.lines;
		s->import.skipped = !strcmp(k, "lines_skipped") ? (size_t)x : s->import.skipped;
		s->import.without_cost = !strcmp(k, "requests_without_cost") ? (size_t)x : s->import.without_cost;
		if (meta_import(rd, k, v, &s->import))
			return -1;
		if (!strncmp(k, "skipped_example_", 16) && s->import.nexamples < SIM_IMPORT_FIRST_BAD)
			snprintf(s->import.example[s->import.nexamples++], sizeof(s->import.example[0]), "%s", v);
		if (!strcmp(k, "target_keys") && !sim_study_target_parse(v, &s->target_keys))
			return bad(rd, "target_keys '%.40s' is not a share P%% (0 < P <= 100)", v);
		if (!strcmp(k, "spread"))
			s->spread = !strcmp(v, "yes");
		if (!strcmp(k, "cost"))
			s->cost = !strcmp(v, "yes");
		if (!strcmp(k, "shard"))
			snprintf(s->shard, sizeof(s->shard), "%s", v);
		if (!strcmp(k, "rules"))
			snprintf(rules, len, "%s", v);
		if (!strcmp(k, "algos"))
			snprintf(algos, len, "%s", v);
		if (!strcmp(k, "windows"))
			snprintf(windows, len, "%s", v);
		if (!strcmp(k, "elapsed_s") && real(rd, v, k, &s->elapsed_s))
			return -1;
	}
	return rc < 0 ? -1 : 0;
}

/* Splits the comma lists of meta.csv into the study's rules, names and limits.csv's windows. */
static int lists(struct reader *rd, struct sim_study *s, char *rules, char *algos, char *windows)
{
	struct sim_limits *l = &s->limits;
	size_t nw = 1;

	for (char *p = windows; *p; p++)
		nw += *p == ',';
	if (!(l->w = calloc(nw, sizeof(*l->w))))
		return bad(rd, "out of memory");
	for (char *save, *t = strtok_r(windows, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		struct sim_limits_window *lw = &l->w[l->nwindows++];
		if (strlen(t) >= SIM_LIMITS_TEXT_MAX || !rl_parse_duration(t, 0, &lw->window_ns) || lw->window_ns < 1)
			return bad(rd, "window '%.40s' is not a duration (e.g. 1m)", t);
		snprintf(lw->text, sizeof(lw->text), "%s", t);
	}
	size_t nr = 1, na = 1;

	for (char *p = rules; *p; p++)
		nr += *p == ',';
	for (char *p = algos; *p; p++)
		na += *p == ',';
	if (!*rules || !*algos)
		return bad(rd, "no rules or no algos row");
	s->rules = calloc(nr, sizeof(*s->rules));
	s->names = calloc(na, sizeof(*s->names));
	if (!s->rules || !s->names)
		return bad(rd, "out of memory");
	char why[256];
	for (char *save, *t = strtok_r(rules, ",", &save); t; t = strtok_r(NULL, ",", &save))
		if (!sim_study_rule_parse(t, &s->rules[s->nrules++], why, sizeof(why)))
			return bad(rd, "rule '%.60s': %s", t, why);
	for (char *save, *t = strtok_r(algos, ",", &save); t; t = strtok_r(NULL, ",", &save))
		snprintf(s->names[s->nnames++], sizeof(s->names[0]), "%s", t);
	return 0;
}

/* The row of the record's rule and algo fields, which must be the next in order. */
static int row_of(struct reader *rd, const struct sim_study *s, size_t want, size_t *col)
{
	size_t r = want / s->nnames, a = want % s->nnames;

	if (r >= s->nrules)
		return bad(rd, "more rows than rules x algorithms");
	if (strcmp(rd->c.f[0], s->rules[r].text) || strcmp(rd->c.f[1], s->names[a]))
		return bad(rd, "expected the row of rule '%s', algo '%s'", s->rules[r].text, s->names[a]);
	*col = want;
	return 0;
}

/* study.csv, or placement.csv's rows of s->other: one per rule and name, in that order. */
static int read_rows(struct reader *rd, const char *dir, const char *file, struct sim_study *s)
{
	static const char header[] =
		"rule,algo,requests,admitted,good_keys,good_keys_hurt,good_requests_rejected,excess_requests,"
		"excess_admitted,over_n_admissions,max_in_w_over_n,false_rejects,diverged,ns_per_check,"
		"bytes_per_key,max_in_w,keys,heap_bytes";
	size_t n = 0, col;
	int rc;

	if (!(s->rows = calloc(s->nrules * s->nnames, sizeof(*s->rows))))
		return bad(rd, "out of memory");
	if (expect_header(rd, dir, file, header))
		return -1;
	while ((rc = csv_next(rd)) == 1) {
		char **f = rd->c.f;
		if (rd->c.nf != 18)
			return bad(rd, "%d fields, expected 18", rd->c.nf);
		if (row_of(rd, s, n++, &col))
			return -1;
		struct sim_study_row *w = &s->rows[col];
		int64_t *ints[] = { &w->requests, &w->admitted, &w->good_keys, &w->good_keys_hurt,
				    &w->good_requests_rejected, &w->excess_requests, &w->excess_admitted,
				    &w->over_n_admissions };
		for (int i = 0; i < 8; i++)
			if (num(rd, f[2 + i], "a count", ints[i]))
				return -1;
		if (num(rd, f[11], "false_rejects", &w->false_rejects) || num(rd, f[12], "diverged", &w->diverged) ||
		    real(rd, f[13], "ns_per_check", &w->ns_per_check) || num(rd, f[15], "max_in_w", &w->max_in_w) ||
		    num(rd, f[16], "keys", &w->keys) || num(rd, f[17], "heap_bytes", &w->heap_bytes))
			return -1;
		const struct rl_algo *algo = rl_algo_find(s->names[col % s->nnames]);
		w->state_bytes = !*f[14] ? -1 : algo ? (int64_t)algo->state_size : 0;
	}
	if (rc < 0)
		return -1;
	return n == s->nrules * s->nnames ? 0 : bad(rd, "%zu rows, expected %zu", n, s->nrules * s->nnames);
}

static int read_refused(struct reader *rd, const char *dir, struct sim_study *s)
{
	size_t n = 0, col;
	int rc;

	if (expect_header(rd, dir, "refused.csv", "rule,algo,share_lo,share_hi,keys"))
		return -1;
	while ((rc = csv_next(rd)) == 1) {
		if (rd->c.nf != 5)
			return bad(rd, "%d fields, expected 5", rd->c.nf);
		if (row_of(rd, s, n / SIM_STUDY_BUCKETS, &col) ||
		    num(rd, rd->c.f[4], "keys", &s->rows[col].refused[n % SIM_STUDY_BUCKETS]))
			return -1;
		n++;
	}
	if (rc < 0)
		return -1;
	return n == s->nrules * s->nnames * SIM_STUDY_BUCKETS ? 0 : bad(rd, "%zu rows, expected %zu", n,
									 s->nrules * s->nnames * SIM_STUDY_BUCKETS);
}

/* clients.csv: per (rule, algo), in study.csv's order, min(SIM_STUDY_TOP, keys) keys then (other). */
static int read_clients(struct reader *rd, const char *dir, struct sim_study *s)
{
	size_t nrows = s->nrules * s->nnames, group = 0, j = 0, col;
	size_t ntop = s->keys < SIM_STUDY_TOP ? (size_t)s->keys : SIM_STUDY_TOP;
	int rc;

	if (!(s->top = calloc(ntop ? ntop : 1, sizeof(*s->top))))
		return bad(rd, "out of memory");
	s->ntop = ntop;
	for (size_t k = 0; k < ntop; k++)
		if (!(s->top[k].admitted = calloc(nrows, sizeof(int64_t))) || !(s->top[k].within = calloc(s->nrules, 1)))
			return bad(rd, "out of memory");
	if (expect_header(rd, dir, "clients.csv", "rule,algo,key,requests,admitted,within_rule"))
		return -1;
	while ((rc = csv_next(rd)) == 1) {
		char **f = rd->c.f;
		int64_t req, adm, within;
		if (rd->c.nf != 6)
			return bad(rd, "%d fields, expected 6", rd->c.nf);
		if (row_of(rd, s, group, &col) || num(rd, f[3], "requests", &req) || num(rd, f[4], "admitted", &adm) ||
		    num(rd, f[5], "within_rule", &within))
			return -1;
		if (j == ntop) { /* the group's (other) row */
			if (strcmp(f[2], "(other)"))
				return bad(rd, "expected the (other) row after %zu keys", ntop);
			group++;
			j = 0;
			continue;
		}
		struct sim_study_key *k = &s->top[j];
		if (group == 0) {
			if (!(k->name = strdup(f[2])))
				return bad(rd, "out of memory");
			k->requests = req;
		} else if (strcmp(f[2], k->name) || req != k->requests) {
			return bad(rd, "key '%.60s' is not the key %zu of the first group", f[2], j + 1);
		}
		if (within > 1)
			return bad(rd, "within_rule %lld is not 0 or 1", (long long)within);
		k->admitted[col] = adm;
		k->within[col / s->nnames] = (unsigned char)within;
		j++;
	}
	if (rc < 0)
		return -1;
	return group == nrows && j == 0 ? 0 : bad(rd, "%zu groups, expected %zu", group, nrows);
}

static int read_traffic(struct reader *rd, const char *dir, struct sim_study *s)
{
	size_t nk = s->ntop < SIM_STUDY_TRAFFIC_KEYS ? s->ntop : SIM_STUDY_TRAFFIC_KEYS, cap = 0;
	int rc;

	if (csv_open(rd, dir, "traffic.csv"))
		return -1;
	if (csv_next(rd) != 1 || rd->c.nf != (int)nk + 2 || strcmp(rd->c.f[0], "t_ns") ||
	    strcmp(rd->c.f[1], "requests"))
		return bad(rd, "the header is not t_ns,requests and the %zu heaviest keys", nk);
	for (size_t j = 0; j < nk; j++)
		if (strcmp(rd->c.f[2 + j], s->top[j].name))
			return bad(rd, "column %zu is not the key '%.60s'", j + 3, s->top[j].name);
	if (s->bin_ns < 1)
		return bad(rd, "meta.csv gives no traffic_bin_ns");
	while ((rc = csv_next(rd)) == 1) {
		int64_t t;
		if (rd->c.nf != (int)nk + 2)
			return bad(rd, "%d fields, expected %zu", rd->c.nf, nk + 2);
		if (num(rd, rd->c.f[0], "t_ns", &t))
			return -1;
		if (s->nbins == 0)
			s->bin0_ns = t;
		if (t % s->bin_ns || t != s->bin0_ns + (int64_t)s->nbins * s->bin_ns)
			return bad(rd, "t_ns %lld is not the bin due (every %lld ns from %lld, in order)", (long long)t,
				   (long long)s->bin_ns, (long long)s->bin0_ns);
		if (s->nbins == SIM_STUDY_TRAFFIC_BINS)
			return bad(rd, "more than %d bins", SIM_STUDY_TRAFFIC_BINS);
		if (s->nbins == cap) {
			cap = cap ? 2 * cap : 1024;
			int64_t *g = realloc(s->per_bin, cap * sizeof(*g));
			if (!g)
				return bad(rd, "out of memory");
			s->per_bin = g;
			for (size_t j = 0; j < nk; j++) {
				if (!(g = realloc(s->top[j].per_bin, cap * sizeof(*g))))
					return bad(rd, "out of memory");
				s->top[j].per_bin = g;
			}
		}
		if (num(rd, rd->c.f[1], "requests", &s->per_bin[s->nbins]))
			return -1;
		for (size_t j = 0; j < nk; j++)
			if (num(rd, rd->c.f[2 + j], "requests", &s->top[j].per_bin[s->nbins]))
				return -1;
		s->nbins++;
	}
	return rc < 0 ? -1 : 0;
}

/* limits.csv: each window's rows together, limits ascending, keys and requests the same on each. */
static int read_limits(struct reader *rd, const char *dir, struct sim_study *s)
{
	struct sim_limits *l = &s->limits;
	size_t cap = 0, at = 0;
	int rc;

	if (expect_header(rd, dir, "limits.csv", "window,limit,keys,keys_refused,requests,requests_refused"))
		return -1;
	while ((rc = csv_next(rd)) == 1) {
		char **f = rd->c.f;
		int64_t v[5];
		if (rd->c.nf != 6)
			return bad(rd, "%d fields, expected 6", rd->c.nf);
		static const char *const what[5] = { "limit", "keys", "keys_refused", "requests", "requests_refused" };
		for (int i = 0; i < 5; i++)
			if (num(rd, f[1 + i], what[i], &v[i]))
				return -1;
		/* the windows of meta.csv, in order, each's rows together */
		while (at < l->nwindows && strcmp(l->w[at].text, f[0]))
			at++;
		if (at == l->nwindows)
			return bad(rd, "window '%.40s' is not next in meta.csv's windows", f[0]);
		struct sim_limits_window *lw = &l->w[at];
		if (!lw->n) {
			lw->keys = v[1];
			lw->requests = v[3];
			cap = 0;
		}
		if (lw->n && v[0] <= lw->limit[lw->n - 1])
			return bad(rd, "limit %lld is not above the row before's", (long long)v[0]);
		if (v[0] < 1 || v[1] != lw->keys || v[3] != lw->requests || v[2] > v[1] || v[4] > v[3])
			return bad(rd, "limit %lld below 1, keys or requests not those of the window's first row, "
				   "or more refused than there are", (long long)v[0]);
		if (lw->n == cap) {
			cap = cap ? 2 * cap : 64;
			int64_t *a = realloc(lw->limit, cap * sizeof(*a)), *b = a ? realloc(lw->keys_refused, cap * sizeof(*b)) : NULL;
			if (a)
				lw->limit = a;
			if (b)
				lw->keys_refused = b;
			int64_t *c = b ? realloc(lw->requests_refused, cap * sizeof(*c)) : NULL;
			if (!c)
				return bad(rd, "out of memory");
			lw->requests_refused = c;
		}
		lw->limit[lw->n] = v[0];
		lw->keys_refused[lw->n] = v[2];
		lw->requests_refused[lw->n++] = v[4];
	}
	return rc < 0 ? -1 : 0;
}

/*
 * placement.csv, when there: its rules are those of its rows' first column
 * (each a rule of the study), its names those of the first rule's rows.
 */
static int read_placement(struct reader *rd, const char *dir, struct sim_study *s)
{
	char path[PATH_MAX + 32];
	snprintf(path, sizeof(path), "%s/placement.csv", dir);
	FILE *f = fopen(path, "rb");
	if (!f)
		return errno == ENOENT ? 0 : (snprintf(rd->msg, rd->msg_len, "cannot read '%s': %s", path, strerror(errno)), -1);
	fclose(f);
	struct sim_study *o = calloc(1, sizeof(*o));
	if (!o || csv_open(rd, dir, "placement.csv")) {
		free(o);
		return o ? -1 : bad(rd, "out of memory");
	}
	s->other = o;
	o->rules = calloc(s->nrules ? s->nrules : 1, sizeof(*o->rules));
	o->names = calloc(s->nnames ? s->nnames : 1, sizeof(*o->names));
	if (!o->rules || !o->names)
		return bad(rd, "out of memory");
	int rc;
	(void)csv_next(rd); /* the header, checked by read_rows */
	while ((rc = csv_next(rd)) == 1) {
		if (rd->c.nf < 2)
			return bad(rd, "%d fields, expected 18", rd->c.nf);
		const char *rule = rd->c.f[0], *algo = rd->c.f[1];
		if (!o->nrules || strcmp(o->rules[o->nrules - 1].text, rule)) {
			size_t r = 0;
			while (r < s->nrules && strcmp(s->rules[r].text, rule))
				r++;
			if (r == s->nrules || o->nrules == s->nrules)
				return bad(rd, "rule '%.60s' is not a rule of the study, or comes twice", rule);
			o->rules[o->nrules++] = s->rules[r];
		}
		if (o->nrules == 1) {
			if (o->nnames == s->nnames)
				return bad(rd, "more names than the study's");
			snprintf(o->names[o->nnames++], sizeof(o->names[0]), "%s", algo);
		}
	}
	if (rc < 0)
		return -1;
	return read_rows(rd, dir, "placement.csv", o);
}

int sim_study_read(struct sim_study *s, const char *dir, char *msg, size_t msg_len)
{
	struct reader rd = { .msg = msg, .msg_len = msg_len };
	char rules[8192], algos[8192], windows[8192];
	int rc;

	memset(s, 0, sizeof(*s));
	rc = read_meta(&rd, dir, s, rules, algos, windows, sizeof(rules));
	if (!rc)
		rc = lists(&rd, s, rules, algos, windows);
	if (!rc)
		rc = read_rows(&rd, dir, "study.csv", s);
	if (!rc)
		rc = read_refused(&rd, dir, s);
	if (!rc)
		rc = read_clients(&rd, dir, s);
	if (!rc)
		rc = read_traffic(&rd, dir, s);
	if (!rc)
		rc = read_limits(&rd, dir, s);
	if (!rc)
		rc = read_placement(&rd, dir, s);
	sim_csv_free(&rd.c.t);
	if (rc)
		sim_study_free(s);
	return rc;
}
