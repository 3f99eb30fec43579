/*
 * bench_theory.c - the bench report's queueing-theory section: the
 * simulator against the closed forms of sim/engine/theory.h. bench/run.sh
 * runs sim/scenarios/theory/ once per seed into RESULTS/sim/theory/seed_S/;
 * this reads each seed's summary.csv (the scenarios' rules) and series (the
 * rejected share per 100 s bucket), and per algorithm, burst and load pools
 * the seeds' buckets (the first of each run dropped: warm-up) into the
 * measured share with its batch-means standard error (batch_means.h),
 * beside its [min-max] over the seeds, the theory and the gap in standard
 * errors. A point more than SIM_THEORY_MAX_GAP standard errors off its
 * theory is an error (each such point named): a report that fails is
 * better than one that lies.
 *
 *   theory_<algo>.dat  per burst (a block each, its title first): the
 *                      theory curve, "load_pct reject_pct" from 45 to 155 %
 *                      (none for an algorithm without a closed form)
 *   theory_<algo>_points.dat  per burst: "load_pct measured_pct se_pct"
 */
#include <dirent.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "batch_means.h"
#include "bench_report_int.h"
#include "theory.h"

static const char theory_intro[] =
	"## The simulator against queueing theory\n\n"
	"For Poisson arrivals on one key, several algorithms are classical queueing systems with a known "
	"long-run rejection probability (`sim/engine/theory.h`, also `ratelab theory`): token_bucket and gcra are "
	"M/D/1/K with K = B and service time D = W/N (gcra's T = W/N exactly, a fraction of a ns kept), leaky_bucket is M/D/1/K with K = B + 1, "
	"sliding_log is the M/D/N/N loss system, Erlang B(N, λW), and fixed_window rejects E[(X − N)⁺]/E[X], "
	"X ~ Poisson(λW). sliding_counter has no closed form; it is shown against the fixed window's and the "
	"sliding log's. The scenarios (`sim/scenarios/theory/`): one key, N = "
	"%lld per %g s, loads 50..150 %% of N, bursts 1, 3, 10 and N, clients that never retry, 10,000 s per "
	"run, %zu seed(s) (`results/sim/theory/seed_S/`). Measured: the rejected share of all the seeds' "
	"requests; [min–max] over the seeds. "
	"Its standard error (SE) is by batch means: each 100 s bucket of a run's series is one batch (the "
	"first, the warm-up from an empty state, dropped), the seeds' batches pooled, SE² = Σ(rej_b − R·req_b)² / "
	"(n(n − 1)·mean req²) for the ratio R, floored at the binomial √(p(1 − p)/requests) so that a point "
	"whose rare rejections never happened is not divided by 0. Gap: (measured − theory) / SE. A point more "
	"than %g SE off its theory fails `make bench`. All %zu points with a closed form are within it "
	"(largest |gap| %s). The SE is at most %s percentage points (median %s): well under the distance "
	"between the families' curves";
static const char theory_at100[] =
	" (theory at 100 %% and B = N: token_bucket %s %%, fixed_window %s %%, sliding_log %s %%)";
static const char theory_intro_end[] =
	", though not under the distance between token_bucket's B and leaky_bucket's B + 1 where both "
	"approach 1 − 1/load.\n\n"
	"| algorithm | burst | load | measured % [min–max] | theory % | SE % | gap (SE) |\n"
	"|---|---:|---:|---|---:|---:|---:|\n";
static const char theory_chart[] =
	"\n![theory](plots/theory.png)\n\nRejection rate against offered load, one panel per algorithm: the "
	"closed form's curve per burst, the measured points with bars of ±2 SE. sliding_counter, without a "
	"closed form, is drawn against the fixed window's and the sliding log's curves; it lies between them at "
	"%zu of its %zu points.\n\n";
static const char theory_hint[] = "bench/run.sh runs sim/scenarios/theory/ into results/sim/theory/seed_S";

static const char *const between[2] = { "fixed_window", "sliding_log" }; /* sliding_counter's neighbours */

struct rule {
	long long limit, window_ns, burst;
};

/* One (algo, burst, load): the pooled batches and the per-seed shares. */
struct point {
	const char *algo;
	long long burst;
	int load;
	struct rule rule;
	struct sim_batch_means *b;
	struct rp_vec per_seed; /* rejected share of each seed's run */
	double theory;
	bool has_theory;
};

struct points {
	struct point *p;
	size_t n, cap;
};

static int cmp_point(const void *a, const void *b)
{
	const struct point *x = a, *y = b;
	int c = strcmp(x->algo, y->algo);
	if (c)
		return c;
	if (x->burst != y->burst)
		return x->burst < y->burst ? -1 : 1;
	return x->load < y->load ? -1 : x->load > y->load;
}

static struct point *point_of(struct br_in *in, struct points *ps, const char *algo, long long burst, int load)
{
	for (size_t i = 0; i < ps->n; i++)
		if (strcmp(ps->p[i].algo, algo) == 0 && ps->p[i].burst == burst && ps->p[i].load == load)
			return &ps->p[i];
	if (ps->n == ps->cap) {
		size_t cap = ps->cap ? ps->cap * 2 : 64;
		struct point *p = realloc(ps->p, cap * sizeof(*p));
		if (!p) {
			br_error(in, SIM_CSV_FAIL, "out of memory");
			return NULL;
		}
		ps->p = p;
		ps->cap = cap;
	}
	struct point *p = &ps->p[ps->n];
	*p = (struct point){ .algo = algo, .burst = burst, .load = load };
	p->b = calloc(1, sizeof(*p->b));
	if (!p->b) {
		br_error(in, SIM_CSV_FAIL, "out of memory");
		return NULL;
	}
	ps->n++;
	return p;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Adds one series file's buckets after the first; *share that run's rejected share. */
static bool add_series(struct br_in *in, const char *path, struct sim_batch_means *b, double *share)
{
	char *data;
	size_t len, n = 0;
	int64_t adm = 0, rej = 0;
	int rc = sim_read_file(path, &data, &len, BR_WHO, in->err);
	if (rc == SIM_CSV_BAD)
		br_error(in, SIM_CSV_BAD, "theory: %s: missing (%s)", path, theory_hint);
	if (rc) {
		if (!in->status)
			in->status = rc;
		return false;
	}
	for (char *line = data; line && *line;) {
		char *nl = strchr(line, '\n');
		long long t, a, r;
		if (sscanf(line, "%lld,%lld,%lld", &t, &a, &r) == 3 && n++ > 0) { /* the first: warm-up */
			if (!sim_batch_add(b, a, r)) {
				br_error(in, SIM_CSV_BAD, "theory: %s: more than SIM_BATCH_MAX buckets over the seeds", path);
				free(data);
				return false;
			}
			adm += a;
			rej += r;
		}
		line = nl ? nl + 1 : NULL;
	}
	free(data);
	if (n < 3) {
		br_error(in, SIM_CSV_BAD, "theory: %s: fewer than 3 buckets (%s)", path, theory_hint);
		return false;
	}
	*share = adm + rej ? (double)rej / (double)(adm + rej) : NAN;
	return true;
}

/* A share in %: 3 decimals, or 3 significant digits below 1 % (rare rejections). */
static const char *pct(double v)
{
	if (isnan(v))
		return "-";
	return rp_str(v > 0 && v < 0.01 ? "%#.3g" : "%.3f", 100 * v);
}

static double lambda_of(const struct rule *r, double load_pct)
{
	return load_pct / 100 * (double)r->limit / ((double)r->window_ns / 1e9);
}

static bool reject(const char *algo, const struct rule *r, long long burst, double load, double *p)
{
	return sim_theory_reject(algo, (uint64_t)r->limit, r->window_ns, (uint64_t)burst, lambda_of(r, load), p);
}

void br_theory(struct br_in *in, struct sr_buf *o)
{
	char dir[SR_PATH_MAX + 64];
	snprintf(dir, sizeof(dir), "%s/sim/theory", in->results);
	char **seeds = NULL;
	size_t nseeds = 0;
	struct points ps = {0};
	struct sim_csv *sums = NULL;
	struct rp_vec ses = {0};
	DIR *d = opendir(dir);
	if (!d) {
		br_error(in, SIM_CSV_BAD, "theory: %s: missing (%s)", dir, theory_hint);
		return;
	}
	for (struct dirent *e; (e = readdir(d));)
		if (strncmp(e->d_name, "seed_", 5) == 0) {
			char **s = realloc(seeds, (nseeds + 1) * sizeof(*s));
			char *name = s ? strdup(e->d_name) : NULL;
			if (s)
				seeds = s;
			if (!name) {
				br_error(in, SIM_CSV_FAIL, "out of memory");
				closedir(d);
				goto done;
			}
			seeds[nseeds++] = name;
		}
	closedir(d);
	if (!nseeds) {
		br_error(in, SIM_CSV_BAD, "theory: %s: no seed_S directory (%s)", dir, theory_hint);
		goto done;
	}
	qsort(seeds, nseeds, sizeof(*seeds), cmp_str);
	sums = calloc(nseeds, sizeof(*sums));
	if (!sums) {
		br_error(in, SIM_CSV_FAIL, "out of memory");
		goto done;
	}
	static const char *const want[] = { "scenario", "algo", "limit", "window_ns", "burst", NULL };
	for (size_t si = 0; si < nseeds && !in->status; si++) {
		char path[SR_PATH_MAX + 192];
		struct sim_csv *s = &sums[si];
		snprintf(path, sizeof(path), "%s/%s/summary.csv", dir, seeds[si]);
		br_csv(in, s, path, want);
		if (!in->status && !s->nrows)
			br_error(in, SIM_CSV_BAD, "theory: %s: missing or empty (%s)", path, theory_hint);
		for (size_t i = 0; i < s->nrows && !in->status; i++) {
			const char *sc = sim_csv_at(s, i, "scenario"), *algo = sim_csv_at(s, i, "algo");
			const char *u = strrchr(sc, '_');
			int load = u ? atoi(u + 1) : -1;
			if (load <= 0) {
				br_error(in, SIM_CSV_BAD, "theory: %s:%ld: scenario %s is no load sweep's NAME_LLL", path, s->line[i], sc);
				break;
			}
			struct rule r = { (long long)sim_csv_num(s, i, "limit"), (long long)sim_csv_num(s, i, "window_ns"),
					  (long long)sim_csv_num(s, i, "burst") };
			struct point *p = point_of(in, &ps, algo, r.burst, load);
			double share;
			char series[SR_PATH_MAX + 512];
			snprintf(series, sizeof(series), "%s/%s/series/%s__%s.csv", dir, seeds[si], sc, algo);
			if (!p || !add_series(in, series, p->b, &share))
				break;
			p->rule = r;
			rp_vec_push(&p->per_seed, share);
		}
	}
	if (in->status)
		goto done;
	qsort(ps.p, ps.n, sizeof(*ps.p), cmp_point);
	for (size_t i = 0; i < ps.n; i++)
		ps.p[i].has_theory = reject(ps.p[i].algo, &ps.p[i].rule, ps.p[i].burst, ps.p[i].load, &ps.p[i].theory);

	/* the gate: every point with a closed form within SIM_THEORY_MAX_GAP standard errors */
	double worst = 0;
	size_t checked = 0, off = 0;
	for (size_t i = 0; i < ps.n; i++) {
		struct point *p = &ps.p[i];
		if (!p->has_theory)
			continue;
		double g = sim_batch_gap(p->b, p->theory);
		checked++;
		worst = fmax(worst, fabs(g));
		rp_vec_push(&ses, 100 * sim_batch_se(p->b));
		if (!(fabs(g) <= SIM_THEORY_MAX_GAP)) {
			off++;
			br_error(in, SIM_CSV_FAIL,
				 "theory: FAILED: %s burst %lld at load %d%%: measured %.4f%%, theory %.4f%%, %+.2f standard "
				 "errors (limit %.0f)",
				 p->algo, p->burst, p->load, 100 * sim_batch_rate(p->b), 100 * p->theory, g, SIM_THEORY_MAX_GAP);
		}
	}
	if (off) {
		br_error(in, SIM_CSV_FAIL, "theory: %zu of %zu points off their closed form; no report written", off, checked);
		goto done;
	}

	/* chart data: per algorithm, a block per burst */
	for (size_t i = 0; i < ps.n; i++) {
		if (i > 0 && strcmp(ps.p[i - 1].algo, ps.p[i].algo) == 0)
			continue;
		const char *algo = ps.p[i].algo;
		double probe;
		bool closed = sim_theory_reject(algo, 1, 1000000000, 1, 1.0, &probe);
		struct sr_buf *pf = br_data(in, rp_str("theory_%s_points.dat", algo));
		struct sr_buf *cf = closed ? br_data(in, rp_str("theory_%s.dat", algo)) : NULL;
		if (!pf || (closed && !cf))
			goto done;
		/* B shapes only the buckets' decisions (their M/D/1/K's K): their blocks are titled by B, the others' by N */
		bool bucket = rp_algo_of(algo).uses_burst;
		for (size_t k = i; k < ps.n && strcmp(ps.p[k].algo, algo) == 0; k++) {
			const struct point *p = &ps.p[k];
			if (k > i && p->burst == ps.p[k - 1].burst)
				continue; /* one block per burst, from its first point */
			if (k > i) { /* blocks apart, none after the last */
				if (cf)
					sr_puts(cf, "\n\n");
				sr_puts(pf, "\n\n");
			}
			const char *title = bucket ? rp_str("\"B = %lld\"", p->burst) : rp_str("\"N = %lld\"", p->rule.limit);
			if (cf) {
				sr_printf(cf, "%s reject_pct\n", title);
				for (int l = 45; l <= 155; l++) {
					double q;
					if (reject(algo, &p->rule, p->burst, l, &q))
						sr_printf(cf, "%d %g\n", l, 100 * q);
				}
			}
			sr_printf(pf, "%s measured_pct se_pct\n", title);
			for (size_t m = k; m < ps.n && strcmp(ps.p[m].algo, algo) == 0 && ps.p[m].burst == p->burst; m++)
				sr_printf(pf, "%d %g %g\n", ps.p[m].load, 100 * sim_batch_rate(ps.p[m].b),
					  100 * sim_batch_se(ps.p[m].b));
		}
	}

	const struct rule *r0 = &ps.p[0].rule;
	struct rp_stat se = rp_vec_stat(&ses);
	sr_printf(o, theory_intro, r0->limit, (double)r0->window_ns / 1e9, nseeds, SIM_THEORY_MAX_GAP, checked,
		  rp_fmt(worst, 2), rp_fmt(se.max, 3), rp_fmt(se.median, 3));
	double at100[3] = { NAN, NAN, NAN };
	const char *const at100_algos[3] = { "token_bucket", "fixed_window", "sliding_log" };
	for (size_t a = 0; a < 3; a++)
		for (size_t i = 0; i < ps.n; i++)
			if (strcmp(ps.p[i].algo, at100_algos[a]) == 0 && ps.p[i].burst == r0->limit && ps.p[i].load == 100 &&
			    ps.p[i].has_theory)
				at100[a] = ps.p[i].theory;
	if (!isnan(at100[0] + at100[1] + at100[2]))
		sr_printf(o, theory_at100, pct(at100[0]), pct(at100[1]), pct(at100[2]));
	sr_puts(o, theory_intro_end);

	size_t in_between = 0, counter_points = 0;
	for (size_t a = 0; a < in->nalgos; a++)
		for (size_t i = 0; i < ps.n; i++) {
			struct point *p = &ps.p[i];
			if (strcmp(p->algo, in->algo[a].name) != 0)
				continue;
			struct rp_stat s = rp_vec_stat(&p->per_seed);
			double m = sim_batch_rate(p->b), sev = sim_batch_se(p->b);
			sr_printf(o, "| %s | %lld | %d %% | %s", p->algo, p->burst, p->load, pct(m));
			if (s.n > 1)
				sr_printf(o, " [%s–%s]", pct(s.min), pct(s.max));
			sr_puts(o, " | ");
			if (p->has_theory) {
				sr_printf(o, "%s | %s | %+.2f |\n", pct(p->theory), pct(sev), sim_batch_gap(p->b, p->theory));
				continue;
			}
			/* no closed form: the neighbours' theory at the same point */
			double lo = NAN, hi = NAN;
			reject(between[0], &p->rule, p->rule.burst, p->load, &lo);
			reject(between[1], &p->rule, p->rule.burst, p->load, &hi);
			counter_points++;
			in_between += m >= fmin(lo, hi) && m <= fmax(lo, hi);
			sr_printf(o, "no closed form (%s %s, %s %s) | %s | - |\n", between[0], pct(lo), between[1], pct(hi),
				  pct(sev));
		}
	sr_printf(o, theory_chart, in_between, counter_points);
done:
	for (size_t i = 0; i < ps.n; i++) {
		free(ps.p[i].b);
		rp_vec_free(&ps.p[i].per_seed);
	}
	free(ps.p);
	for (size_t i = 0; sums && i < nseeds; i++)
		sim_csv_free(&sums[i]);
	free(sums);
	for (size_t i = 0; i < nseeds; i++)
		free(seeds[i]);
	free(seeds);
	rp_vec_free(&ses);
}
