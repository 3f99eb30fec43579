/*
 * bench_cmp.c - Google Benchmark's JSON read into runs, and two runs
 * compared (bench_cmp.h). Entries are grouped by run_name by sorting, and
 * the runs matched by a sorted index: n log n in the entries.
 */
#include "bench_cmp.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "lines.h"
#include "mwu.h"
#include "stat.h"

static int say(char *msg, size_t msg_len, int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, msg_len, fmt, ap);
	va_end(ap);
	return status;
}

/* The whole of path into *text (NUL-terminated, *len bytes). */
static int slurp(const char *path, char **text, size_t *len, char *msg, size_t msg_len)
{
	char q[SIM_QUOTE_SIZE];
	FILE *f = fopen(path, "rb");
	size_t cap = 1 << 16, n = 0;
	char *buf = NULL;

	if (!f)
		return say(msg, msg_len, SIM_BENCH_BAD, "cannot open %s: %s", sim_quote(q, path), strerror(errno));
	for (;;) {
		if (!buf || n == cap) {
			char *b = realloc(buf, buf ? cap *= 2 : cap);
			if (!b) {
				free(buf);
				fclose(f);
				return say(msg, msg_len, SIM_BENCH_IO, "reading %s: out of memory", sim_quote(q, path));
			}
			buf = b;
		}
		size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		int e = errno;
		free(buf);
		fclose(f);
		return say(msg, msg_len, SIM_BENCH_IO, "reading %s: %s", sim_quote(q, path), strerror(e));
	}
	fclose(f);
	if (n == cap) {
		char *b = realloc(buf, cap + 1);
		if (!b) {
			free(buf);
			return say(msg, msg_len, SIM_BENCH_IO, "reading %s: out of memory", sim_quote(q, path));
		}
		buf = b;
	}
	buf[n] = '\0';
	*text = buf;
	*len = n;
	return SIM_BENCH_OK;
}

struct entry {
	const char *name;
	double ns;
	size_t seq;
};

static int by_name_seq(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : (x->seq > y->seq) - (x->seq < y->seq);
}

struct group {
	size_t first, seq; /* first entry (sorted), first seq (file order) */
	size_t n;
};

static int by_seq(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Entry i's real_time in ns, or -1 with msg. */
static int entry_ns(const struct sim_json *e, size_t i, const char *name, double *ns, char *msg, size_t msg_len,
		    const char *qpath)
{
	static const struct {
		const char *unit;
		double ns;
	} units[] = { { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 } };
	char q[SIM_QUOTE_SIZE], q2[SIM_QUOTE_SIZE];
	const struct sim_json *t = sim_json_get(e, "real_time"), *u = sim_json_get(e, "time_unit");

	if (!t || t->type != SIM_JSON_NUMBER || !(t->number > 0) || !isfinite(t->number))
		return say(msg, msg_len, SIM_BENCH_BAD,
			   "%s is not Google Benchmark's JSON: benchmark %s (entry %zu) has no positive real_time",
			   qpath, sim_quote(q, name), i + 1);
	if (!u || u->type != SIM_JSON_STRING)
		return say(msg, msg_len, SIM_BENCH_BAD,
			   "%s is not Google Benchmark's JSON: benchmark %s (entry %zu) has no time_unit", qpath,
			   sim_quote(q, name), i + 1);
	for (size_t k = 0; k < sizeof(units) / sizeof(units[0]); k++)
		if (strcmp(u->string, units[k].unit) == 0) {
			*ns = t->number * units[k].ns;
			return SIM_BENCH_OK;
		}
	return say(msg, msg_len, SIM_BENCH_BAD,
		   "%s: benchmark %s (entry %zu): time_unit %s is not ns, us, ms or s", qpath, sim_quote(q, name),
		   i + 1, sim_quote(q2, u->string));
}

/* The iterations of doc's benchmarks array into entries (names pointing into doc). */
static int entries_of(const struct sim_json *doc, struct entry *ent, size_t *n_ent, char *msg, size_t msg_len,
		      const char *qpath)
{
	char q[SIM_QUOTE_SIZE], q2[SIM_QUOTE_SIZE];
	const struct sim_json *list = sim_json_get(doc, "benchmarks");
	int status;

	*n_ent = 0;
	for (size_t i = 0; i < list->n; i++) {
		const struct sim_json *e = &list->items[i], *name = sim_json_get(e, "run_name"),
				      *type = sim_json_get(e, "run_type"), *err = sim_json_get(e, "error_occurred");

		if (e->type != SIM_JSON_OBJECT)
			return say(msg, msg_len, SIM_BENCH_BAD,
				   "%s is not Google Benchmark's JSON: entry %zu of \"benchmarks\" is not an object",
				   qpath, i + 1);
		if (!name || name->type != SIM_JSON_STRING || !name->string[0])
			return say(msg, msg_len, SIM_BENCH_BAD,
				   "%s is not Google Benchmark's JSON: entry %zu of \"benchmarks\" has no run_name",
				   qpath, i + 1);
		if (!type || type->type != SIM_JSON_STRING ||
		    (strcmp(type->string, "iteration") != 0 && strcmp(type->string, "aggregate") != 0))
			return say(msg, msg_len, SIM_BENCH_BAD,
				   "%s is not Google Benchmark's JSON: benchmark %s (entry %zu) has no run_type "
				   "\"iteration\" or \"aggregate\"",
				   qpath, sim_quote(q, name->string), i + 1);
		if (err && err->type == SIM_JSON_BOOL && err->boolean) {
			const struct sim_json *m = sim_json_get(e, "error_message");
			return say(msg, msg_len, SIM_BENCH_BAD, "%s: benchmark %s (entry %zu) reported an error: %s",
				   qpath, sim_quote(q, name->string), i + 1,
				   m && m->type == SIM_JSON_STRING ? sim_quote(q2, m->string) : "(no message)");
		}
		if (strcmp(type->string, "iteration") != 0)
			continue;
		if ((status = entry_ns(e, i, name->string, &ent[*n_ent].ns, msg, msg_len, qpath)))
			return status;
		ent[*n_ent].name = name->string;
		ent[*n_ent].seq = i;
		(*n_ent)++;
	}
	return SIM_BENCH_OK;
}

/* The sorted entries, grouped by name, into run (in file order). */
static int group(struct entry *ent, size_t n_ent, struct sim_bench_run *run)
{
	struct group *g = malloc((n_ent ? n_ent : 1) * sizeof(*g));
	size_t ng = 0;

	if (!g)
		return SIM_BENCH_IO;
	qsort(ent, n_ent, sizeof(*ent), by_name_seq);
	for (size_t i = 0, j; i < n_ent; i = j) {
		for (j = i + 1; j < n_ent && strcmp(ent[j].name, ent[i].name) == 0; j++)
			;
		g[ng++] = (struct group){ i, ent[i].seq, j - i };
	}
	qsort(g, ng, sizeof(*g), by_seq);
	if (!(run->b = calloc(ng ? ng : 1, sizeof(*run->b)))) {
		free(g);
		return SIM_BENCH_IO;
	}
	for (size_t k = 0; k < ng; k++) {
		struct sim_bench *b = &run->b[k];
		run->n++;
		if (!(b->name = strdup(ent[g[k].first].name)) || !(b->ns = malloc(g[k].n * sizeof(double)))) {
			free(g);
			return SIM_BENCH_IO;
		}
		for (size_t i = 0; i < g[k].n; i++)
			b->ns[i] = ent[g[k].first + i].ns;
		b->n = g[k].n;
	}
	free(g);
	return SIM_BENCH_OK;
}

int sim_bench_load(const char *path, struct sim_bench_run *run, char *msg, size_t msg_len)
{
	char qpath[SIM_QUOTE_SIZE];
	struct sim_json doc;
	struct sim_json_error jerr;
	struct entry *ent = NULL;
	size_t len = 0, n_ent = 0;
	char *text = NULL;
	int status;

	memset(run, 0, sizeof(*run));
	sim_quote(qpath, path);
	if ((status = slurp(path, &text, &len, msg, msg_len)))
		return status;
	if (sim_json_parse(text, len, &doc, &jerr)) {
		/* json.h's words, as `ratelab report` says them */
		sim_json_error_text(msg, msg_len, path, &jerr);
		status = jerr.line == 0 ? SIM_BENCH_IO : SIM_BENCH_BAD;
		goto out;
	}
	const struct sim_json *list = sim_json_get(&doc, "benchmarks");
	if (!list || list->type != SIM_JSON_ARRAY) {
		status = say(msg, msg_len, SIM_BENCH_BAD,
			     "%s is not Google Benchmark's JSON: no \"benchmarks\" array (write it with "
			     "--benchmark_out=FILE --benchmark_out_format=json)",
			     qpath);
		goto out;
	}
	if (!(ent = malloc((list->n ? list->n : 1) * sizeof(*ent)))) {
		status = say(msg, msg_len, SIM_BENCH_IO, "reading %s: out of memory", qpath);
		goto out;
	}
	if ((status = entries_of(&doc, ent, &n_ent, msg, msg_len, qpath)))
		goto out;
	if (n_ent == 0) {
		status = say(msg, msg_len, SIM_BENCH_BAD,
			     "%s holds no benchmark repetitions (entries of run_type \"iteration\"; with "
			     "--benchmark_report_aggregates_only=true it holds only their aggregates)",
			     qpath);
		goto out;
	}
	if ((status = group(ent, n_ent, run)))
		say(msg, msg_len, status, "reading %s: out of memory", qpath);
out:
	free(ent);
	sim_json_free(&doc);
	free(text);
	return status;
}

void sim_bench_run_free(struct sim_bench_run *run)
{
	for (size_t i = 0; run->b && i < run->n; i++) {
		free(run->b[i].name);
		free(run->b[i].ns);
	}
	free(run->b);
	memset(run, 0, sizeof(*run));
}

double sim_bench_pct2(double pct)
{
	return fabs(pct) < 0.005 ? 0 : pct;
}

const char *sim_verdict_name(enum sim_verdict v)
{
	return v == SIM_VERDICT_FASTER ? "faster" : v == SIM_VERDICT_SLOWER ? "slower" : "~";
}

static int by_bench_name(const void *a, const void *b)
{
	return strcmp((*(const struct sim_bench *const *)a)->name, (*(const struct sim_bench *const *)b)->name);
}

/* run's benchmarks by name, for bsearch. */
static const struct sim_bench **index_of(const struct sim_bench_run *run)
{
	const struct sim_bench **ix = malloc((run->n ? run->n : 1) * sizeof(*ix));

	if (ix) {
		for (size_t i = 0; i < run->n; i++)
			ix[i] = &run->b[i];
		qsort(ix, run->n, sizeof(*ix), by_bench_name);
	}
	return ix;
}

static const struct sim_bench *find(const struct sim_bench **ix, size_t n, const struct sim_bench *b)
{
	const struct sim_bench **hit = bsearch(&b, ix, n, sizeof(*ix), by_bench_name);
	return hit ? *hit : NULL;
}

/* The row of o against w: 0 or SIM_BENCH_IO (out of memory). */
static int row(const struct sim_bench *o, const struct sim_bench *w, double alpha, double threshold_pct,
	       struct sim_bench_row *r)
{
	double *v = malloc((o->n + w->n) * sizeof(double));

	if (!v)
		return SIM_BENCH_IO;
	r->name = o->name;
	if (sim_mwu_test(o->ns, o->n, w->ns, w->n, &r->p_value, NULL)) {
		free(v);
		return SIM_BENCH_IO;
	}
	memcpy(v, o->ns, o->n * sizeof(double));
	memcpy(v + o->n, w->ns, w->n * sizeof(double));
	/* sim_bench_load admits only positive finite times: no NaN is dropped */
	r->old_median_ns = sim_median(v, o->n);
	r->new_median_ns = sim_median(v + o->n, w->n);
	free(v);
	r->change_pct = (r->new_median_ns - r->old_median_ns) / r->old_median_ns * 100;
	r->verdict = SIM_VERDICT_SAME;
	if (r->p_value <= alpha && fabs(r->change_pct) >= threshold_pct)
		r->verdict = r->change_pct < 0 ? SIM_VERDICT_FASTER : SIM_VERDICT_SLOWER;
	return SIM_BENCH_OK;
}

/* The names of run's benchmarks that ix (the other run's index) lacks, into *names. */
static int only_in(const struct sim_bench_run *run, const struct sim_bench **ix, size_t n_ix, const char ***names,
		   size_t *n)
{
	if (!(*names = malloc((run->n ? run->n : 1) * sizeof(**names))))
		return SIM_BENCH_IO;
	for (size_t i = 0; i < run->n; i++)
		if (!find(ix, n_ix, &run->b[i]))
			(*names)[(*n)++] = run->b[i].name;
	return SIM_BENCH_OK;
}

int sim_bench_compare(const struct sim_bench_run *old_run, const struct sim_bench_run *new_run, double alpha,
		      double threshold_pct, const char *old_what, const char *new_what, struct sim_bench_cmp *out,
		      char *msg, size_t msg_len)
{
	char q[SIM_QUOTE_SIZE];
	const struct sim_bench **ix_old = index_of(old_run), **ix_new = index_of(new_run);
	double log_old = 0, log_new = 0;
	int status = SIM_BENCH_IO;

	memset(out, 0, sizeof(*out));
	if (!ix_old || !ix_new || !(out->rows = malloc((old_run->n ? old_run->n : 1) * sizeof(*out->rows))))
		goto out;
	for (size_t i = 0; i < old_run->n; i++) {
		const struct sim_bench *o = &old_run->b[i], *w = find(ix_new, new_run->n, o);
		if (!w)
			continue;
		if (o->n < 2 || w->n < 2) {
			status = say(msg, msg_len, SIM_BENCH_BAD,
				     "benchmark %s has %zu repetition%s in %s: the U test needs at least 2 in "
				     "each run (run with --benchmark_repetitions=5)",
				     sim_quote(q, o->name), o->n < 2 ? o->n : w->n, (o->n < 2 ? o->n : w->n) == 1 ? "" : "s",
				     o->n < 2 ? old_what : new_what);
			goto out;
		}
		struct sim_bench_row *r = &out->rows[out->n];
		if (row(o, w, alpha, threshold_pct, r))
			goto out;
		out->n++;
		out->slower += r->verdict == SIM_VERDICT_SLOWER;
		out->faster += r->verdict == SIM_VERDICT_FASTER;
		log_old += log(r->old_median_ns);
		log_new += log(r->new_median_ns);
	}
	if (only_in(old_run, ix_new, new_run->n, &out->only_old, &out->n_only_old) ||
	    only_in(new_run, ix_old, old_run->n, &out->only_new, &out->n_only_new))
		goto out;
	if (out->n == 0) {
		status = say(msg, msg_len, SIM_BENCH_BAD, "no benchmark is in both %s (%zu benchmarks) and %s (%zu)",
			     old_what, old_run->n, new_what, new_run->n);
		goto out;
	}
	out->geo_old_ns = exp(log_old / (double)out->n);
	out->geo_new_ns = exp(log_new / (double)out->n);
	out->geo_change_pct = (exp((log_new - log_old) / (double)out->n) - 1) * 100;
	status = SIM_BENCH_OK;
out:
	if (status == SIM_BENCH_IO)
		say(msg, msg_len, status, "out of memory");
	free(ix_old);
	free(ix_new);
	return status;
}

void sim_bench_cmp_free(struct sim_bench_cmp *c)
{
	free(c->rows);
	free(c->only_old);
	free(c->only_new);
	memset(c, 0, sizeof(*c));
}
