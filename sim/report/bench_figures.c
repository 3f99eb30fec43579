/*
 * bench_figures.c - the numbers the bench report derives from its inputs.
 *
 * Simulator aggregation: per algorithm and seed, over every scenario of the
 * default set, over-N % = 100 * sum(false_allows) / sum(requests) (likewise
 * false rejects, beyond-bound admissions, divergence), i.e. request-weighted;
 * worst burst = max(max_window_ratio); then the median and range over the
 * seeds.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench_report_int.h"

static const size_t br_store_keys[] = RL_BENCH_STORE_KEYS;

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;
	return x < y ? -1 : x > y;
}

const struct br_seeds_cache *br_seeds(struct br_in *in)
{
	if (in->have_seeds)
		return &in->seeds;
	in->have_seeds = true;
	const struct sim_csv *s = &in->summary;
	in->seeds.v = malloc((s->nrows + 1) * sizeof(long long));
	if (!in->seeds.v) {
		br_error(in, SIM_CSV_FAIL, "out of memory");
		return &in->seeds;
	}
	for (size_t i = 0; i < s->nrows; i++) {
		const char *t = sim_csv_at(s, i, "seed");
		char *end;
		long long v = strtoll(t, &end, 10);
		if (!*t || *end) {
			br_error(in, SIM_CSV_BAD, "%s:%ld: seed '%s' is not an integer", s->path, s->line[i], t);
			continue;
		}
		bool seen = false;
		for (size_t k = 0; k < in->seeds.n && !seen; k++)
			seen = in->seeds.v[k] == v;
		if (!seen)
			in->seeds.v[in->seeds.n++] = v;
	}
	qsort(in->seeds.v, in->seeds.n, sizeof(long long), cmp_ll);
	return &in->seeds;
}

const char **br_scenarios(const struct sim_csv *t, size_t *n)
{
	const char **out = malloc((t->nrows + 1) * sizeof(*out));
	*n = 0;
	if (!out)
		return NULL;
	for (size_t i = 0; i < t->nrows; i++) {
		const char *s = sim_csv_at(t, i, "scenario");
		bool seen = false;
		for (size_t k = 0; k < *n && !seen; k++)
			seen = strcmp(out[k], s) == 0;
		if (!seen)
			out[(*n)++] = s;
	}
	return out;
}

static const char **summary_scenarios(struct br_in *in, size_t *n)
{
	if (!in->have_scen) {
		in->have_scen = true;
		in->scen = br_scenarios(&in->summary, &in->nscen);
		if (!in->scen)
			br_error(in, SIM_CSV_FAIL, "out of memory");
	}
	*n = in->nscen;
	return in->scen;
}

/* Per-seed accumulators, the seeds as the summary writes them. */
struct acc {
	const char *seed;
	double a, b;
	bool set;
};

static struct acc *acc_of(struct acc *v, size_t *n, const char *seed)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp(v[i].seed, seed) == 0)
			return &v[i];
	v[*n] = (struct acc){ seed, 0, 0, false };
	return &v[(*n)++];
}

struct rp_stat br_over_seeds(const struct br_in *in, const char *algo, const char *num, const char *den,
			     double scale, br_keep keep)
{
	const struct sim_csv *s = &in->summary;
	struct acc *acc = malloc((s->nrows + 1) * sizeof(*acc));
	double *v = malloc((s->nrows + 1) * sizeof(*v));
	size_t n = 0;
	struct rp_stat out = rp_stat_none();
	if (!acc || !v)
		goto done;
	for (size_t i = 0; i < s->nrows; i++) {
		if (strcmp(sim_csv_at(s, i, "algo"), algo) != 0 || (keep && !keep(sim_csv_at(s, i, "scenario"))))
			continue;
		double x = sim_csv_num(s, i, num), d = den ? sim_csv_num(s, i, den) : 1;
		if (isnan(x) || isnan(d))
			continue;
		struct acc *a = acc_of(acc, &n, sim_csv_at(s, i, "seed"));
		a->a += x;
		a->b += d;
	}
	for (size_t i = 0; i < n; i++)
		v[i] = acc[i].b > 0 ? scale * acc[i].a / acc[i].b : NAN;
	out = rp_stat_of(v, n);
done:
	free(acc);
	free(v);
	return out;
}

struct rp_stat br_max_over_seeds(const struct br_in *in, const char *algo, const char *col, br_keep keep)
{
	const struct sim_csv *s = &in->summary;
	struct acc *acc = malloc((s->nrows + 1) * sizeof(*acc));
	double *v = malloc((s->nrows + 1) * sizeof(*v));
	size_t n = 0;
	struct rp_stat out = rp_stat_none();
	if (!acc || !v)
		goto done;
	for (size_t i = 0; i < s->nrows; i++) {
		double x = sim_csv_num(s, i, col);
		if (strcmp(sim_csv_at(s, i, "algo"), algo) != 0 || (keep && !keep(sim_csv_at(s, i, "scenario"))) ||
		    isnan(x))
			continue;
		struct acc *a = acc_of(acc, &n, sim_csv_at(s, i, "seed"));
		if (!a->set || x > a->a)
			a->a = x;
		a->set = true;
	}
	for (size_t i = 0; i < n; i++)
		v[i] = acc[i].a;
	out = rp_stat_of(v, n);
done:
	free(acc);
	free(v);
	return out;
}

struct rp_stat br_cell2_over_seeds(const struct sim_csv *t, const char *scenario, const char *algo, const char *a,
				   const char *b)
{
	struct rp_vec v = {0};
	for (size_t i = 0; i < t->nrows; i++)
		if (strcmp(sim_csv_at(t, i, "scenario"), scenario) == 0 && strcmp(sim_csv_at(t, i, "algo"), algo) == 0)
			rp_vec_push(&v, sim_csv_num(t, i, a) + (b ? sim_csv_num(t, i, b) : 0));
	struct rp_stat s = rp_vec_stat(&v);
	rp_vec_free(&v);
	return s;
}

struct rp_stat br_cell_over_seeds(const struct br_in *in, const char *scenario, const char *algo, const char *col)
{
	return br_cell2_over_seeds(&in->summary, scenario, algo, col, NULL);
}

struct rp_stat br_extra_wait_over_seeds(const struct br_in *in, const char *algo)
{
	/* per seed: served-weighted mean wait, for algo and for the simulator's exact reference */
	const char *ref = rp_algo_exact();
	const struct sim_csv *s = &in->summary;
	struct acc *acc[2] = { malloc((s->nrows + 1) * sizeof(struct acc)), malloc((s->nrows + 1) * sizeof(struct acc)) };
	double *v = malloc((s->nrows + 1) * sizeof(*v));
	size_t n[2] = { 0, 0 }, nv = 0;
	struct rp_stat out = rp_stat_none();
	if (!acc[0] || !acc[1] || !v)
		goto done;
	for (size_t i = 0; i < s->nrows; i++) {
		const char *a = sim_csv_at(s, i, "algo");
		int which = strcmp(a, algo) == 0 ? 0 : strcmp(a, ref) == 0 ? 1 : -1;
		double w = sim_csv_num(s, i, "client_wait_ms_mean"), k = sim_csv_num(s, i, "client_served");
		if (which < 0 || isnan(w) || isnan(k))
			continue;
		const char *seed = sim_csv_at(s, i, "seed");
		struct acc *x = acc_of(acc[which], &n[which], seed);
		x->a += w * k;
		x->b += k;
		if (strcmp(a, algo) == 0 && strcmp(algo, ref) == 0) {
			x = acc_of(acc[1], &n[1], seed);
			x->a += w * k;
			x->b += k;
		}
	}
	for (size_t i = 0; i < n[0]; i++) {
		struct acc *r = NULL;
		for (size_t k = 0; k < n[1] && !r; k++)
			if (strcmp(acc[1][k].seed, acc[0][i].seed) == 0)
				r = &acc[1][k];
		if (acc[0][i].b > 0 && r && r->b > 0)
			v[nv++] = acc[0][i].a / acc[0][i].b - r->a / r->b;
	}
	out = rp_stat_of(v, nv);
done:
	free(acc[0]);
	free(acc[1]);
	free(v);
	return out;
}

const struct br_figures *br_figures(struct br_in *in)
{
	if (in->have_figs)
		return in->figs;
	in->have_figs = true;
	size_t nsweep;
	const struct br_load *sweep = br_load_sweep(in, &nsweep);
	const char *top = nsweep ? sweep[nsweep - 1].name : NULL;
	const struct sim_csv *d = &in->diverged;
	in->figs = calloc(in->nalgos + 1, sizeof(*in->figs));
	struct acc *acc = malloc((d->nrows + 1) * sizeof(*acc));
	double *v = malloc((d->nrows + 1) * sizeof(*v));
	if (!in->figs || !acc || !v) {
		free(acc);
		free(v);
		br_error(in, SIM_CSV_FAIL, "out of memory");
		return in->figs;
	}
	for (size_t i = 0; i < in->nalgos; i++) {
		const struct br_algo *a = &in->algo[i];
		struct br_figures *f = &in->figs[i];
		f->algo = a->name;
		f->peer = br_is_peer(a->name);
		f->state_bytes = a->state_size ? (double)a->state_size : NAN;
		f->over_n_pct = br_over_seeds(in, a->name, "false_allows", "requests", 100, NULL);
		f->false_reject_pct = br_over_seeds(in, a->name, "false_rejects", "requests", 100, NULL);
		f->beyond_bound_pct = br_over_seeds(in, a->name, "beyond_bound", "admitted", 100, NULL);
		f->worst_ratio = br_max_over_seeds(in, a->name, "max_window_ratio", NULL);
		f->extra_wait_ms = br_extra_wait_over_seeds(in, a->name);
		f->rate_at_top = top ? br_cell_over_seeds(in, top, a->name, "long_run_rate_ratio") : rp_stat_none();
		/* the divergence file has its own rows: per seed over the default set */
		size_t n = 0;
		for (size_t r = 0; r < d->nrows; r++)
			if (strcmp(sim_csv_at(d, r, "algo"), a->name) == 0) {
				struct acc *x = acc_of(acc, &n, sim_csv_at(d, r, "seed"));
				x->a += sim_csv_num(d, r, "diverged_allows") + sim_csv_num(d, r, "diverged_rejects");
				x->b += sim_csv_num(d, r, "requests");
			}
		for (size_t k = 0; k < n; k++)
			v[k] = acc[k].b > 0 ? 100 * acc[k].a / acc[k].b : NAN;
		f->diverged_pct = rp_stat_of(v, n);
		f->allin_1m = f->malloc_1m = NAN;
		f->ns_hot = f->ns_1m = rp_stat_none();
		if (f->peer) {
			const struct br_peer *p = br_peer_of(in, a->name);
			if (p) {
				f->ns_hot = p->hot;
				f->ns_1m = p->k1m;
				f->allin_1m = p->bytes_per_key;
			}
		} else {
			const char *keyed = rp_str(RL_BENCH_STORE("uniform"), a->name, RL_BENCH_KEYS_TABLE);
			f->allin_1m = br_counter(in, "store_bytes_per_key", "%s", keyed);
			f->malloc_1m = br_counter(in, "malloc_bytes_per_key", "%s", keyed);
			f->ns_hot = br_stat(in, RL_BENCH_HOT("direct", "verdict"), a->name);
			f->ns_1m = br_stat(in, "%s", keyed);
		}
	}
	free(acc);
	free(v);
	return in->figs;
}

const char *br_population_scenario(struct br_in *in)
{
	size_t n;
	const char **s = summary_scenarios(in, &n);
	for (size_t i = 0; i < n; i++)
		if (strcmp(s[i], "population") == 0)
			return s[i];
	return "";
}

const char *br_boundary_scenario(struct br_in *in)
{
	size_t n;
	const char **s = summary_scenarios(in, &n);
	for (size_t i = 0; i < n; i++)
		if (strstr(s[i], "boundary"))
			return s[i];
	return "";
}

/* NAME_LLL: *prefix_len the length of NAME (at least 1), *load LLL. */
static bool swept(const char *s, size_t *prefix_len, int *load)
{
	size_t n = strlen(s);
	if (n < 5 || s[n - 4] != '_')
		return false;
	for (size_t i = n - 3; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	*prefix_len = n - 4;
	*load = atoi(s + n - 3);
	return true;
}

static int cmp_load(const void *a, const void *b)
{
	const struct br_load *x = a, *y = b;
	return x->load != y->load ? (x->load < y->load ? -1 : 1) : strcmp(x->name, y->name);
}

const struct br_load *br_load_sweep(struct br_in *in, size_t *nout)
{
	if (in->have_sweep) {
		*nout = in->nsweep;
		return in->sweep;
	}
	in->have_sweep = true;
	size_t n, plen, blen = 0, bcount = 0;
	int load;
	const char **s = summary_scenarios(in, &n);
	const char *best = NULL;
	bool best_poisson = false;
	/* The longest sweep (the finest view of the load), Poisson on a tie (the
	 * published sliding_counter figure is on Poisson traffic); among equals,
	 * the first prefix in byte order. */
	for (size_t i = 0; i < n; i++) {
		if (!swept(s[i], &plen, &load))
			continue;
		size_t count = 0;
		bool first = true;
		for (size_t k = 0; k < n; k++) {
			size_t pl;
			int l;
			if (swept(s[k], &pl, &l) && pl == plen && memcmp(s[k], s[i], plen) == 0) {
				count++;
				first &= k >= i;
			}
		}
		if (!first)
			continue; /* each prefix once */
		char prefix[SR_PATH_MAX];
		snprintf(prefix, sizeof(prefix), "%.*s", (int)plen, s[i]);
		bool poisson = strstr(prefix, "poisson") != NULL;
		int order = best ? strncmp(s[i], best, plen < blen ? plen : blen) : 0;
		if (best && order == 0)
			order = plen < blen ? -1 : plen > blen;
		bool better = !best || count > bcount || (count == bcount && poisson && !best_poisson) ||
			      (count == bcount && poisson == best_poisson && order < 0);
		if (better) {
			best = s[i];
			blen = plen;
			bcount = count;
			best_poisson = poisson;
		}
	}
	in->sweep = malloc((bcount + 1) * sizeof(*in->sweep));
	if (!in->sweep) {
		br_error(in, SIM_CSV_FAIL, "out of memory");
		*nout = 0;
		return NULL;
	}
	for (size_t k = 0; best && k < n; k++)
		if (swept(s[k], &plen, &load) && plen == blen && memcmp(s[k], best, plen) == 0)
			in->sweep[in->nsweep++] = (struct br_load){ load, s[k] };
	qsort(in->sweep, in->nsweep, sizeof(*in->sweep), cmp_load);
	*nout = in->nsweep;
	return in->sweep;
}

static bool exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

const char *br_breaker_scenario(struct br_in *in)
{
	if (in->have_breaker_scen)
		return in->breaker_scen ? in->breaker_scen : "";
	in->have_breaker_scen = true;
	/* The bursty (on/off) run that opened the breaker most; else any run that opened it most. */
	const char *best = "";
	double best_openings = -1;
	bool best_bursty = false;
	for (size_t i = 0; i < in->breaker.nrows; i++) {
		const char *n = sim_csv_at(&in->breaker, i, "scenario");
		char path[SR_PATH_MAX + 64];
		snprintf(path, sizeof(path), "%s/breaker_%s.csv", in->series_dir, n);
		if (!exists(path))
			continue;
		bool bursty = strstr(n, "onoff") || strstr(n, "burst");
		double openings = sim_csv_num(&in->breaker, i, "openings");
		if ((bursty && !best_bursty) || (bursty == best_bursty && openings > best_openings)) {
			best = n;
			best_openings = openings;
			best_bursty = bursty;
		}
	}
	in->breaker_scen = strdup(best);
	return in->breaker_scen ? in->breaker_scen : "";
}

const size_t *br_key_counts(struct br_in *in, size_t *n)
{
	if (!in->have_keys) {
		in->have_keys = true;
		for (size_t k = 0; k < sizeof(br_store_keys) / sizeof(*br_store_keys); k++)
			for (size_t i = 0; i < in->nalgos; i++)
				if (br_run(in, rp_str(RL_BENCH_STORE("uniform"), in->algo[i].name, br_store_keys[k]))) {
					in->keys[in->nkeys++] = br_store_keys[k];
					break;
				}
	}
	*n = in->nkeys;
	return in->keys;
}

static void need(struct br_in *in, bool ok, size_t *missing, const char *what)
{
	if (!ok) {
		br_error(in, SIM_CSV_BAD, "missing: %s", what);
		(*missing)++;
	}
}

void br_require(struct br_in *in)
{
	const char *r = in->results;
	size_t missing = 0, nsweep;
	need(in, in->bench.nruns > 0, &missing, rp_str("%s/bench/bench.json (the benchmarks)", r));
	need(in, in->summary.nrows > 0, &missing, rp_str("%s/sim/summary.csv (the simulator)", r));
	need(in, in->diverged.nrows > 0, &missing, rp_str("%s/sim/diverged.csv (the simulator)", r));
	need(in, in->breaker.nrows > 0, &missing, rp_str("%s/sim/breaker.csv (the simulator)", r));
	need(in, in->bytes_limit.nrows > 0, &missing,
	     rp_str("%s/bench/bytes_vs_limit.csv (the bytes-per-limit probe)", r));
	need(in, in->quals.nrows > 0, &missing, rp_str("the qualitative notes (%s)", in->quals_path));
	need(in, in->nenv > 0, &missing, rp_str("%s/bench/env.txt (the machine)", r));
	if (in->summary.nrows) {
		need(in, *br_boundary_scenario(in), &missing, "a boundary scenario in the simulator's summary");
		br_load_sweep(in, &nsweep);
		need(in, nsweep >= 3, &missing, "a load sweep (NAME_050 ... , 3 loads or more) in the simulator's summary");
		need(in, *br_population_scenario(in), &missing,
		     "the population scenario (sim/scenarios/population.ini) in the summary");
		need(in, *br_breaker_scenario(in), &missing, "a breaker run with its series/breaker_<scenario>.csv");
	}
	if (in->bench.nruns)
		for (size_t i = 0; i < in->nalgos; i++) {
			const char *a = in->algo[i].name;
			if (br_is_peer(a))
				continue;
			const char *runs[3] = { rp_str(RL_BENCH_HOT("direct", "verdict"), a), rp_str(RL_BENCH_STORE("uniform"), a, RL_BENCH_KEYS_TABLE),
						rp_str(RL_BENCH_FLOOR("dependent"), a, RL_BENCH_KEYS_TABLE) };
			for (size_t k = 0; k < 3; k++)
				need(in, rp_measured(br_stat(in, "%s", runs[k])), &missing, rp_str("benchmark %s", runs[k]));
		}
	if (missing)
		br_error(in, SIM_CSV_BAD, "%zu input(s) missing; run make bench (or the step that writes them)", missing);
}

struct rp_stat br_ratio(struct rp_stat a, struct rp_stat b)
{
	struct rp_stat r = rp_stat_none();
	if (!rp_measured(a) || !rp_measured(b))
		return r;
	r.n = a.n < b.n ? a.n : b.n;
	r.median = a.median / b.median;
	r.min = a.min / b.max;
	r.max = a.max / b.min;
	return r;
}

struct rp_stat br_sum(struct rp_stat a, struct rp_stat b)
{
	struct rp_stat r = rp_stat_none();
	if (!rp_measured(a) || !rp_measured(b))
		return r;
	r.n = a.n < b.n ? a.n : b.n;
	r.median = a.median + b.median;
	r.min = a.min + b.min;
	r.max = a.max + b.max;
	return r;
}

const char *br_keys_label(size_t n)
{
	if (n >= 1000000 && n % 1000000 == 0)
		return rp_str("%zuM", n / 1000000);
	if (n >= 1000 && n % 1000 == 0)
		return rp_str("%zuK", n / 1000);
	return rp_str("%zu", n);
}

const char *br_verdict(struct rp_stat s, double limit)
{
	if (!rp_measured(s))
		return "not measured";
	if (s.n < 2)
		return s.median <= limit ? "met (one repetition, no range)" : "**missed** (one repetition, no range)";
	if (s.max <= limit)
		return "met";
	if (s.min > limit)
		return "**missed**";
	return "within noise";
}

const char *br_verdict_at_least(struct rp_stat s, double limit)
{
	if (!rp_measured(s))
		return "not measured";
	if (s.n < 2)
		return s.median >= limit ? "met (one repetition, no range)" : "**missed** (one repetition, no range)";
	if (s.min >= limit)
		return "met";
	if (s.max < limit)
		return "**missed**";
	return "within noise";
}
