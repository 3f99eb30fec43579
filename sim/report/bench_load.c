/*
 * bench_load.c - the bench report's inputs, read once (bench_report_int.h):
 * the benchmark JSON (every repetition a sample; a file of aggregates only
 * gives its medians, one sample each), the simulator's and the probe's CSV
 * files, the peers, the machine (env.txt) and the study notes.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "bench_report_int.h"
#include "ratelab/algo.h"

/* The columns summary.csv must have (others may follow). */
static const char *const summary_columns[] = {
	"scenario", "algo", "limit", "window_ns", "burst", "seed", "requests", "admitted",
	"false_allows", "false_allow_pct", "false_rejects", "false_reject_pct",
	"keys_over_admitted_pct", "max_in_window", "max_window_ratio", "long_run_rate_ratio",
	"jain_index", "state_bytes_mean", "state_bytes_max", "decisions_per_sec", "own_bound", "beyond_bound",
	"beyond_bound_pct", "client_requests", "client_served", "client_gave_up_pct", "client_wait_ms_mean",
	"client_wait_ms_max", "heavy_keys_pct", "heavy_requests_pct", "heavy_false_pct", "estimate_diff_pct", NULL
};
const char *const *br_summary_columns = summary_columns;

/* A state that keeps a log on the heap (report_algos.h: sliding_log's ring, a second cache line) is held
 * to its own, looser targets (bench_names.h). */
double br_hot_target_ns(const char *algo)
{
	return rp_algo_of(algo).owns_heap ? RL_BENCH_HOT_LOG_TARGET_NS : RL_BENCH_HOT_TARGET_NS;
}

double br_floor_target_ratio(const char *algo, size_t keys)
{
	if (keys < RL_BENCH_KEYS_TABLE)
		return RL_BENCH_KEYED_CACHED_RATIO;
	return rp_algo_of(algo).owns_heap ? RL_BENCH_FLOOR_LOG_RATIO : RL_BENCH_FLOOR_TARGET_RATIO;
}

bool br_is_peer(const char *algo)
{
	return strncmp(algo, "peer_", 5) == 0;
}

void br_error(struct br_in *in, int status, const char *fmt, ...)
{
	va_list ap;
	fputs(BR_WHO, in->err);
	va_start(ap, fmt);
	vfprintf(in->err, fmt, ap);
	va_end(ap);
	fputc('\n', in->err);
	if (!in->status)
		in->status = status;
}

const char *br_path(const char *dir, const char *name)
{
	return rp_str("%s/%s", dir, name);
}

struct sr_buf *br_file(struct br_in *in, const char *path)
{
	for (size_t i = 0; i < in->nfiles; i++)
		if (strcmp(in->file[i]->path, path) == 0)
			return &in->file[i]->b;
	struct br_file **list = realloc(in->file, (in->nfiles + 1) * sizeof(*list));
	struct br_file *f = calloc(1, sizeof(*f));
	char *p = strdup(path);
	if (list)
		in->file = list;
	if (!list || !f || !p) {
		free(f);
		free(p);
		br_error(in, SIM_CSV_FAIL, "out of memory");
		return NULL;
	}
	f->path = p;
	in->file[in->nfiles++] = f;
	return &f->b;
}

struct sr_buf *br_data(struct br_in *in, const char *name)
{
	return br_file(in, br_path(in->data_dir, name));
}

void br_csv(struct br_in *in, struct sim_csv *t, const char *path, const char *const *want)
{
	int rc = sim_csv_read(t, path, NULL, BR_WHO, in->err);
	if (rc) {
		if (!in->status)
			in->status = rc;
		return;
	}
	for (; t->present && want && *want; want++)
		if (sim_csv_col(t, *want) < 0) {
			struct sr_buf q = {0};
			sr_quote(&q, *want);
			br_error(in, SIM_CSV_BAD, "%s:1: no column %s in the header", path, q.p ? q.p : "");
			sr_buf_free(&q);
			return;
		}
}

int br_json(struct br_in *in, const char *path, struct sim_json *out)
{
	char *data;
	size_t len;
	struct sim_json_error err;
	*out = (struct sim_json){0};
	int rc = sim_read_file(path, &data, &len, BR_WHO, in->err);
	if (rc == SIM_CSV_BAD)
		return 0;
	if (rc) {
		if (!in->status)
			in->status = rc;
		return -1;
	}
	int bad = sim_json_parse(data, len, out, &err);
	free(data);
	if (bad) {
		char msg[sizeof(err.what) + 4096];
		sim_json_free(out);
		sim_json_error_text(msg, sizeof(msg), path, &err); /* json.h's words, as `ratelab compare` says them */
		br_error(in, err.line == 0 ? SIM_CSV_FAIL : SIM_CSV_BAD, "%s", msg);
		return -1;
	}
	return 1;
}

/* ---- bench.json */

static double unit_to_ns(const char *unit)
{
	if (!unit || strcmp(unit, "ns") == 0)
		return 1;
	if (strcmp(unit, "us") == 0)
		return 1e3;
	if (strcmp(unit, "ms") == 0)
		return 1e6;
	return 1e9;
}

/* One entry of the "benchmarks" array as the report takes it. */
struct sample {
	const char *name;
	double ns;
	bool median; /* an aggregate median, used only when no repetition is there */
	size_t order;
	const struct sim_json *entry;
};

static int cmp_sample(const void *a, const void *b)
{
	const struct sample *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : x->order < y->order ? -1 : x->order > y->order;
}

static int cmp_run(const void *a, const void *b)
{
	return strcmp(((const struct br_run *)a)->name, ((const struct br_run *)b)->name);
}

static void load_bench(struct br_in *in, const char *path)
{
	struct br_bench *b = &in->bench;
	b->repetitions = 1;
	b->mhz = NAN;
	if (br_json(in, path, &b->doc) <= 0)
		return;
	const struct sim_json *ctx = sim_json_get(&b->doc, "context");
	b->build_type = sim_json_str(ctx, "library_build_type");
	const struct sim_json *mhz = sim_json_get(ctx, "mhz_per_cpu");
	if (mhz && (mhz->type == SIM_JSON_NUMBER || mhz->type == SIM_JSON_STRING))
		b->mhz = atof(mhz->string);
	const struct sim_json *list = sim_json_get(&b->doc, "benchmarks");
	size_t n = sim_json_is(list, SIM_JSON_ARRAY) ? list->n : 0, k = 0;
	struct sample *s = malloc((n + 1) * sizeof(*s));
	if (!s) {
		br_error(in, SIM_CSV_FAIL, "out of memory");
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const struct sim_json *e = &list->items[i];
		const char *type = sim_json_str(e, "run_type");
		const char *agg = sim_json_str(e, "aggregate_name");
		if (!type)
			type = "iteration";
		bool median = strcmp(type, "aggregate") == 0 && agg && strcmp(agg, "median") == 0;
		if (strcmp(type, "iteration") != 0 && !median)
			continue;
		if (sim_json_true(sim_json_get(e, "error_occurred")))
			continue;
		const char *name = sim_json_str(e, "run_name");
		if (!name)
			name = sim_json_str(e, "name");
		if (!name)
			name = "";
		double reps = sim_json_num(e, "repetitions");
		if (!isnan(reps) && reps > b->repetitions)
			b->repetitions = (int)reps;
		bool real = strstr(name, "real_time") != NULL;
		double t = sim_json_num(e, real ? "real_time" : "cpu_time");
		s[k++] = (struct sample){ name, t * unit_to_ns(sim_json_str(e, "time_unit")), median, i, e };
	}
	qsort(s, k, sizeof(*s), cmp_sample);
	b->run = malloc((k + 1) * sizeof(*b->run));
	double *v = malloc((k + 1) * sizeof(*v));
	if (!b->run || !v) {
		free(s);
		free(v);
		br_error(in, SIM_CSV_FAIL, "out of memory");
		return;
	}
	for (size_t i = 0; i < k;) {
		size_t j = i, nv = 0;
		bool any_rep = false;
		while (j < k && strcmp(s[j].name, s[i].name) == 0)
			any_rep |= !s[j++].median;
		for (size_t m = i; m < j; m++)
			if (s[m].median != any_rep)
				v[nv++] = s[m].ns;
		/* the counters: the first entry of that name in the file */
		b->run[b->nruns++] = (struct br_run){ s[i].name, rp_stat_of(v, nv), s[i].entry };
		i = j;
	}
	free(v);
	free(s);
	qsort(b->run, b->nruns, sizeof(*b->run), cmp_run);
}

const struct br_run *br_run(const struct br_in *in, const char *name)
{
	struct br_run key = { .name = name };
	return in->bench.nruns ? bsearch(&key, in->bench.run, in->bench.nruns, sizeof(key), cmp_run) : NULL;
}

struct rp_stat br_stat(const struct br_in *in, const char *fmt, ...)
{
	char name[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	const struct br_run *r = br_run(in, name);
	return r ? r->ns : rp_stat_none();
}

double br_ns(const struct br_in *in, const char *fmt, ...)
{
	char name[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	const struct br_run *r = br_run(in, name);
	return r ? r->ns.median : NAN;
}

/* The fields of a benchmark entry that are not user counters. */
static bool builtin(const char *key)
{
	static const char *const names[] = { "name", "family_index", "per_family_instance_index", "run_name",
					     "run_type", "repetitions", "repetition_index", "threads", "iterations",
					     "real_time", "cpu_time", "time_unit", "aggregate_name", "aggregate_unit",
					     "error_occurred", "error_message" };
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
		if (strcmp(key, names[i]) == 0)
			return true;
	return false;
}

double br_counter(const struct br_in *in, const char *key, const char *fmt, ...)
{
	char name[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	const struct br_run *r = br_run(in, name);
	if (!r || builtin(key))
		return NAN;
	return sim_json_num(r->entry, key);
}

/* ---- peers.json */

static struct rp_stat peer_stat(const struct sim_json *p, const char *key, int *reps)
{
	struct rp_stat s = rp_stat_none();
	const struct sim_json *o = sim_json_get(p, key);
	*reps = 0;
	if (!sim_json_is(o, SIM_JSON_OBJECT))
		return s;
	s.median = sim_json_num(o, "median");
	s.min = sim_json_num(o, "min");
	s.max = sim_json_num(o, "max");
	double r = sim_json_num(o, "reps");
	*reps = r >= 0 ? (int)r : 0;
	const struct sim_json *rj = sim_json_get(o, "reps");
	s.n = isnan(s.median) ? 0 : rj ? (size_t)(rj->type == SIM_JSON_NUMBER && !br_jnone(rj) ? rj->number : 0) : 1;
	return s;
}

static const char *text_or_empty(const struct sim_json *j, const char *key)
{
	const char *s = sim_json_str(j, key);
	return s ? s : "";
}

static void load_peers(struct br_in *in, const char *path)
{
	int rc = br_json(in, path, &in->peers_doc);
	if (rc <= 0)
		return;
	const struct sim_json *ctx = sim_json_get(&in->peers_doc, "context");
	const struct sim_json *list = sim_json_get(&in->peers_doc, "peers");
	if (!sim_json_is(ctx, SIM_JSON_OBJECT) || !sim_json_is(list, SIM_JSON_ARRAY)) {
		br_error(in, SIM_CSV_BAD, "%s: no \"context\" object or no \"peers\" array", path);
		return;
	}
	in->peers_run = true;
	in->peers_date = text_or_empty(ctx, "date");
	in->peers_host = text_or_empty(ctx, "host");
	in->peer = calloc(list->n + 1, sizeof(*in->peer));
	if (!in->peer) {
		br_error(in, SIM_CSV_FAIL, "out of memory");
		return;
	}
	for (size_t i = 0; i < list->n; i++) {
		const struct sim_json *e = &list->items[i];
		struct br_peer *q = &in->peer[in->npeers++];
		if (!sim_json_str(e, "name")) {
			br_error(in, SIM_CSV_BAD, "%s: peer %zu has no \"name\"", path, i + 1);
			return;
		}
		q->name = sim_json_str(e, "name");
		q->nearest = text_or_empty(e, "nearest");
		q->version = text_or_empty(e, "version");
		q->note = text_or_empty(e, "note");
		q->hot = peer_stat(e, "hot_ns", &q->hot_reps);
		q->k1k = peer_stat(e, "keys_1k_ns", &q->k1k_reps);
		q->k1m = peer_stat(e, "keys_1m_ns", &q->k1m_reps);
		q->bytes_per_key = sim_json_num(e, "bytes_per_key");
		const struct sim_json *a = sim_json_get(e, "agreement");
		q->agreement = a && !br_jnone(a) ? a : NULL;
	}
}

const struct br_peer *br_peer_of(const struct br_in *in, const char *algo)
{
	if (!br_is_peer(algo))
		return NULL;
	const struct br_peer *found = NULL;
	for (size_t i = 0; i < in->npeers; i++)
		if (strcmp(in->peer[i].name, algo + 5) == 0)
			found = &in->peer[i]; /* the last of a name, as a map keeps it */
	return found;
}

/* ---- env.txt: KEY=VALUE lines */

static void load_env(struct br_in *in, const char *path)
{
	size_t len;
	int rc = sim_read_file(path, &in->env_data, &len, BR_WHO, in->err);
	if (rc == SIM_CSV_BAD)
		return;
	if (rc) {
		if (!in->status)
			in->status = rc;
		return;
	}
	size_t lines = 1;
	for (size_t i = 0; i < len; i++)
		lines += in->env_data[i] == '\n';
	in->env_key = malloc(lines * sizeof(char *));
	in->env_val = malloc(lines * sizeof(char *));
	if (!in->env_key || !in->env_val) {
		br_error(in, SIM_CSV_FAIL, "out of memory");
		return;
	}
	for (char *p = in->env_data; p && *p;) {
		char *nl = strchr(p, '\n'), *next = nl ? nl + 1 : NULL;
		if (nl)
			*nl = '\0';
		char *eq = strchr(p, '=');
		if (eq) {
			*eq = '\0';
			in->env_key[in->nenv] = p;
			in->env_val[in->nenv++] = eq + 1;
		}
		p = next;
	}
}

const char *br_env(const struct br_in *in, const char *key)
{
	for (size_t i = 0; i < in->nenv; i++)
		if (strcmp(in->env_key[i], key) == 0)
			return in->env_val[i];
	return "-";
}

int br_load(struct br_in *in)
{
	const char *r = in->results;
	size_t n = 0;
	const struct rl_algo *const *all = rl_algo_all(&n);

	if (!sr_path(in->series_dir, r, "sim/series") || !sr_path(in->data_dir, r, "plots/data")) {
		br_error(in, SIM_CSV_BAD, "%s: the name is too long", r);
		return in->status;
	}
	load_bench(in, br_path(r, "bench/bench.json"));
	br_csv(in, &in->summary, br_path(r, "sim/summary.csv"), summary_columns);
	br_csv(in, &in->diverged, br_path(r, "sim/diverged.csv"), NULL);
	load_peers(in, br_path(r, "bench/peers.json"));
	in->algo = malloc((n + in->summary.nrows + 1) * sizeof(*in->algo));
	if (!in->algo) {
		br_error(in, SIM_CSV_FAIL, "out of memory");
		return in->status;
	}
	for (size_t i = 0; i < n; i++)
		in->algo[in->nalgos++] = (struct br_algo){ all[i]->name, all[i]->state_size };
	/* the summary's other rows (peer_<name> from `ratelab sim --decider`) after the library's own */
	for (size_t i = 0; i < in->summary.nrows; i++) {
		const char *a = sim_csv_at(&in->summary, i, "algo");
		bool known = false;
		for (size_t k = 0; k < in->nalgos && !known; k++)
			known = strcmp(in->algo[k].name, a) == 0;
		if (!known)
			in->algo[in->nalgos++] = (struct br_algo){ a, 0 };
	}
	br_csv(in, &in->breaker, br_path(r, "sim/breaker.csv"), NULL);
	br_csv(in, &in->bytes_limit, br_path(r, "bench/bytes_vs_limit.csv"), NULL);
	br_csv(in, &in->quals, in->quals_path, NULL);
	load_env(in, br_path(r, "bench/env.txt"));
	if (!in->mode) {
		/* env.txt's mode when it states one, else a run of one repetition is a quick one */
		const char *m = br_env(in, "mode");
		in->mode = strcmp(m, "-") != 0 ? m : in->bench.repetitions > 1 ? "full" : "quick";
	}
	return in->status;
}

void br_free(struct br_in *in)
{
	sim_json_free(&in->bench.doc);
	free(in->bench.run);
	sim_csv_free(&in->summary);
	sim_csv_free(&in->breaker);
	sim_csv_free(&in->bytes_limit);
	sim_csv_free(&in->quals);
	sim_csv_free(&in->diverged);
	sim_json_free(&in->peers_doc);
	free(in->peer);
	free(in->env_key);
	free(in->env_val);
	free(in->env_data);
	for (size_t i = 0; i < in->nfiles; i++) {
		free(in->file[i]->path);
		sr_buf_free(&in->file[i]->b);
		free(in->file[i]);
	}
	free(in->file);
	free(in->algo);
	free(in->seeds.v);
	free(in->figs);
	free(in->sweep);
	free(in->scen);
	free(in->breaker_scen);
}

/* ---- required JSON members: a missing one is recorded, naming the file */

double br_jnum(struct br_in *in, const char *path, const struct sim_json *o, const char *key)
{
	const struct sim_json *v = sim_json_get(o, key);
	if (!v || v->type != SIM_JSON_NUMBER || br_jnone(v)) {
		br_error(in, SIM_CSV_BAD, "%s: no number \"%s\"", path, key);
		return NAN;
	}
	return v->number;
}

const char *br_jstr(struct br_in *in, const char *path, const struct sim_json *o, const char *key)
{
	const char *s = sim_json_str(o, key);
	if (!s) {
		br_error(in, SIM_CSV_BAD, "%s: no string \"%s\"", path, key);
		return "";
	}
	return s;
}

const struct sim_json *br_jget(struct br_in *in, const char *path, const struct sim_json *o, const char *key,
			      enum sim_json_type type)
{
	const struct sim_json *v = sim_json_get(o, key);
	if (!v || v->type != type) {
		br_error(in, SIM_CSV_BAD, "%s: no %s \"%s\"", path, type == SIM_JSON_ARRAY ? "array" : "object", key);
		return NULL;
	}
	return v;
}
