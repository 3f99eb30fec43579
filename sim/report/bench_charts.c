/*
 * bench_charts.c - the bench report's charts: the sentence under each
 * chart (from the figures it draws) and the data files the gnuplot scripts
 * (plots/NAME.gp) read, in RESULTS/plots/data:
 *   vars.gp        gnuplot variables: the algorithms, the scenarios chosen,
 *                  the rule of the boundary scenario, the time-series folder
 *   tradeoff.dat   one line per algorithm: name, ns/op hot (median, min,
 *                  max over the repetitions), over-N admissions % and false
 *                  rejects % (median, min, max over the seeds), bytes per
 *                  key (all-in at 1M keys, else the state's size)
 *   tradeoff_labels.dat  per panel of the tradeoff chart a block, one line
 *                  per point: name, the point (x, y), where its label starts
 *                  (lx, ly: left end, middle) and where its leader line ends;
 *                  placed apart (place_labels); vars.gp: the panels' ranges
 *   load_sweep.dat per algorithm the sweep measured a block (its name heads
 *                  it; vars.gp lists them as sweep_algos): offered load %,
 *                  over-N % and false reject % (median, min, max over seeds)
 *   keys.dat       keys, ns/op per algorithm (uniform, median; a peer's own
 *                  keyed map at 1K and 1M keys only), median memory floor
 *                  (dependent, independent) over the algorithms' stores
 *   sc_error.dat   offered load %, sliding_counter false allow/reject/total %
 *                  (medians over the seeds); vars.gp: the population's total
 *   breaker.dat    t (s), state (0 CLOSED, 1 HALF_OPEN, 2 OPEN)
 *   offered.dat    t (s), requests per second offered in each time bucket
 *   peers.dat      ratelab's algorithms, then the timed peers: name, ns hot,
 *                  ns at 1M keys, bytes per key
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_report_int.h"
#include "stat.h"

/* ---- the prose under the charts; each %s a figure of this run */
static const char tradeoff_text[] =
	"## Charts\n\n"
	"![tradeoff](plots/tradeoff.png)\n\nEach algorithm's point is labelled with its name: left, over-N "
	"admissions (% of requests, (a)); right, false rejects (% of requests, (b)); both against hot-key "
	"ns/op, with the range over the repetitions (x) and over the seeds (y). ";
static const char tradeoff_end[] = "sliding_log, the exact rule, sits at zero on both.\n\n";
static const char boundary_text[] =
	"![boundary](plots/boundary.png)\n\nAdmitted per time bucket under the window-boundary attack (scenario `"
	"%s`, seed %lld), one panel per algorithm: the most "
	"admitted in any window of length W is %sx N, by %s.\n\n";
static const char sweep_text[] =
	"![load sweep](plots/load_sweep.png)\n\nOver-N admissions and false rejects (%% of requests) against "
	"offered load for every algorithm (sweep `%s` ...; median over %zu seeds, bars min–max). At %d%% load: ";
static const char keys_text[] =
	"![keys](plots/keys.png)\n\nns/op of the store against the number of keys (uniform order, log x; "
	"medians, the ranges are in the keyed table) with the memory floors, and each peer's own keyed map "
	"at the 1K and 1M keys its driver measures (points): at 1M keys the store costs "
	"%sx to %sx the dependent-load floor (medians).\n\n";
static const char bytes_text[] =
	"![bytes per key](plots/bytes_limit.png)\n\nBytes of state per key after N admissions at distinct "
	"times in one window, against the limit N (log-log): "
	"%s grows linearly to %s MiB at N = 10^6 while every other algorithm stays at "
	"%s to %s B whatever N (lines of equal size coincide).\n\n";
static const char breaker_text[] =
	"![breaker](plots/breaker.png)\n\nThe breaker's state over time (bottom) under the traffic offered to it "
	"(top: requests per second in each time bucket, with the breaker's limit), scenario `%s"
	"`, seed %lld: it opened %s times.\n\n";
static const char sc_error_text[] =
	"![sliding_counter error](plots/sc_error.png)\n\nsliding_counter on one key per source at each offered "
	"load (the sweep): over-N admissions plus false rejects peak at %s%% of requests (at "
	"%d%% load; each decision judged on the algorithm's own admitted history). The population "
	"line is the same metric on the Cloudflare-style population, the dashed line Cloudflare's published "
	"0.003%% — a population of sources mostly far under their limit, all requests counted (see the "
	"population section for why the figures differ).\n\n";

/* a ranking only when the ranges do not overlap */
const char *br_rank_pair(const char *a, struct rp_stat sa, const char *b, struct rp_stat sb, int d)
{
	if (!rp_measured(sa) || !rp_measured(sb))
		return "not measured";
	if (sa.n < 2 || sb.n < 2)
		return rp_str("%s (%s) and %s (%s): one repetition, no ranking", a, rp_fmt_stat(sa, d), b,
			      rp_fmt_stat(sb, d));
	if (rp_overlaps(sa, sb))
		return rp_str("%s (%s) and %s (%s) are within noise", a, rp_fmt_stat(sa, d), b, rp_fmt_stat(sb, d));
	return rp_str("%s (%s) is below %s (%s), the ranges apart", a, rp_fmt_stat(sa, d), b, rp_fmt_stat(sb, d));
}

void br_charts(struct br_in *in, struct sr_buf *o)
{
	const struct br_figures *figs = br_figures(in);
	const struct br_seeds_cache *sd = br_seeds(in);
	long long seed0 = sd->n ? sd->v[0] : 0;
	if (!figs)
		return;
	sr_puts(o, tradeoff_text);
	/* the two cheapest hot checks (a stable order among equal medians) */
	const struct br_figures *c[2] = { NULL, NULL };
	for (size_t i = 0; i < in->nalgos; i++) {
		const struct br_figures *f = &figs[i];
		if (!rp_measured(f->ns_hot))
			continue;
		if (!c[0] || f->ns_hot.median < c[0]->ns_hot.median) {
			c[1] = c[0];
			c[0] = f;
		} else if (!c[1] || f->ns_hot.median < c[1]->ns_hot.median) {
			c[1] = f;
		}
	}
	if (c[1])
		sr_printf(o, "Cheapest checks: %s. ", br_rank_pair(c[0]->algo, c[0]->ns_hot, c[1]->algo, c[1]->ns_hot, 2));
	sr_puts(o, tradeoff_end);

	const char *bnd = br_boundary_scenario(in);
	double max_ratio = NAN;
	const char *max_algo = "";
	for (size_t i = 0; i < in->summary.nrows; i++)
		if (strcmp(sim_csv_at(&in->summary, i, "scenario"), bnd) == 0 &&
		    !(sim_csv_num(&in->summary, i, "max_window_ratio") <= max_ratio)) {
			max_ratio = sim_csv_num(&in->summary, i, "max_window_ratio");
			max_algo = sim_csv_at(&in->summary, i, "algo");
		}
	sr_printf(o, boundary_text, bnd, seed0, rp_fmt(max_ratio, 2), max_algo);

	size_t nsweep;
	const struct br_load *sweep = br_load_sweep(in, &nsweep);
	sr_printf(o, sweep_text, nsweep ? sweep[0].name : "", sd->n, nsweep ? sweep[nsweep - 1].load : 0);
	for (size_t i = 0; nsweep && i < in->nalgos; i++)
		sr_printf(o, "%s%s %s / %s", i ? ", " : "", figs[i].algo,
			  rp_fmt_stat(br_cell_over_seeds(in, sweep[nsweep - 1].name, figs[i].algo, "false_allow_pct"), 2),
			  rp_fmt_stat(br_cell_over_seeds(in, sweep[nsweep - 1].name, figs[i].algo, "false_reject_pct"), 2));
	sr_puts(o, ".\n\n");

	double lo = NAN, hi = NAN;
	for (size_t i = 0; i < in->nalgos; i++) {
		const struct br_figures *f = &figs[i];
		if (rp_measured(f->ns_1m) && !f->peer) {
			double r = f->ns_1m.median / br_ns(in, RL_BENCH_FLOOR("dependent"), f->algo, RL_BENCH_KEYS_TABLE);
			lo = isnan(lo) ? r : fmin(lo, r);
			hi = isnan(hi) ? r : fmax(hi, r);
		}
	}
	sr_printf(o, keys_text, rp_fmt(lo, 2), rp_fmt(hi, 2));

	size_t nbytes;
	const struct br_bytes *by = br_bytes_by_limit(in, &nbytes);
	double sl_max = NAN, fixed_lo = NAN, fixed_hi = NAN;
	struct sr_buf growing = {0};
	for (size_t i = 0; i < nbytes; i++) {
		if (by[i].most > by[i].least) {
			sr_printf(&growing, "%s%s", growing.len ? " and " : "", by[i].algo);
			sl_max = isnan(sl_max) ? by[i].most : fmax(sl_max, by[i].most);
		} else {
			fixed_lo = isnan(fixed_lo) ? by[i].least : fmin(fixed_lo, by[i].least);
			fixed_hi = isnan(fixed_hi) ? by[i].most : fmax(fixed_hi, by[i].most);
		}
	}
	sr_printf(o, bytes_text, growing.p ? growing.p : "", rp_fmt(sl_max / 1048576.0, 1), rp_fmt(fixed_lo, 0),
		  rp_fmt(fixed_hi, 0));
	o->oom |= growing.oom;
	sr_buf_free(&growing);
	free((void *)by);

	const char *bs = br_breaker_scenario(in), *openings = "-";
	for (size_t i = 0; i < in->breaker.nrows; i++)
		if (strcmp(sim_csv_at(&in->breaker, i, "scenario"), bs) == 0) {
			openings = sim_csv_at(&in->breaker, i, "openings");
			break;
		}
	sr_printf(o, breaker_text, bs, seed0, openings);

	struct rp_stat peak = rp_stat_none();
	int peak_load = 0;
	for (size_t i = 0; i < nsweep; i++) {
		struct rp_stat s = br_cell2_over_seeds(&in->summary, sweep[i].name, "sliding_counter", "false_allow_pct",
						       "false_reject_pct");
		if (!(s.median <= peak.median)) {
			peak = s;
			peak_load = sweep[i].load;
		}
	}
	sr_printf(o, sc_error_text, rp_fmt_stat(peak, 3), peak_load);
}

/* The tradeoff chart's geometry, shared with plots/tradeoff.gp through
 * vars.gp: each panel's plot area in screen fractions of a W x H image (px). */
#define TRADE_W 1500.0
#define TRADE_H 700.0
static const double trade_left[2] = { 0.06, 0.47 }, trade_right[2] = { 0.40, 0.81 };
#define TRADE_BOTTOM 0.12
#define TRADE_TOP 0.84
/* Text of the chart's font (DejaVu Sans 12 at pngcairo's 96 dpi), px: a
 * generous width per character, so that a label never runs into its neighbour. */
#define CHAR_W 8.6
#define LABEL_H 18.0
#define MARKER 9.0
#define GAP 8.0
#define MAX_STEPS 24

/* 1, 2, 2.5, 5 times a power of ten: the least at or above v (v > 0). */
static double nice_ceil(double v)
{
	static const double m[] = { 1.0, 2.0, 2.5, 5.0, 10.0 };
	double p = pow(10, floor(log10(v)));
	for (size_t i = 0; i < sizeof(m) / sizeof(*m); i++)
		if (m[i] * p >= v)
			return m[i] * p;
	return 10 * p;
}

struct box {
	double x0, y0, x1, y1;
};

static bool hits(const struct box *a, const struct box *b)
{
	return a->x0 < b->x1 && b->x0 < a->x1 && a->y0 < b->y1 && b->y0 < a->y1;
}

/* One label per point, placed apart: px, py the n points in px of a w x h
 * plot area (y up); each label (chars[i] characters) goes right or left of
 * its point, level with it or stepped up or down, at the first place inside
 * the area that covers no other label and no point. Sets lx, ly per point:
 * the label's left end and middle, px. taken holds 2n boxes, order n. */
static void place_labels(size_t n, const double *px, const double *py, const size_t *chars, double w, double h,
			 double *lx, double *ly, struct box *taken, size_t *order)
{
	size_t nt = 0;
	for (size_t i = 0; i < n; i++)
		taken[nt++] = (struct box){ px[i] - MARKER, py[i] - MARKER, px[i] + MARKER, py[i] + MARKER };
	/* neighbours first along x (a stable insertion sort), so that a cluster's labels fan out in order */
	for (size_t i = 0; i < n; i++) {
		size_t k = i;
		while (k > 0 && px[order[k - 1]] > px[i]) {
			order[k] = order[k - 1];
			k--;
		}
		order[k] = i;
	}
	for (size_t oi = 0; oi < n; oi++) {
		size_t i = order[oi];
		double lw = CHAR_W * (double)chars[i] + 4;
		bool placed = false, have_first = false;
		struct box first = { 0, 0, 0, 0 };
		for (int step = 0; step <= MAX_STEPS && !placed; step++)
			for (int sign = 1; sign >= -1 && !placed; sign -= 2) {
				if (step == 0 && sign < 0)
					continue;
				double y = py[i] + sign * step * (LABEL_H + 2);
				for (int side = 1; side >= -1; side -= 2) {
					double x0 = side > 0 ? px[i] + MARKER + GAP : px[i] - MARKER - GAP - lw;
					struct box b = { x0, y - LABEL_H / 2, x0 + lw, y + LABEL_H / 2 };
					if (b.x0 < 0 || b.x1 > w || b.y0 < 0 || b.y1 > h)
						continue;
					if (!have_first) {
						first = b;
						have_first = true;
					}
					bool free_ = true;
					for (size_t t = 0; t < nt; t++)
						free_ = free_ && !hits(&b, &taken[t]);
					if (free_) {
						first = b;
						placed = true;
						break;
					}
				}
			}
		if (!have_first) /* wider than the area: at the point, left end inside */
			first = (struct box){ fmax(0.0, fmin(px[i] + MARKER + GAP, w - lw)), py[i] - LABEL_H / 2, 0,
					      py[i] + LABEL_H / 2 };
		first.x1 = first.x0 + lw;
		taken[nt++] = first;
		lx[i] = first.x0;
		ly[i] = (first.y0 + first.y1) / 2;
	}
}

/* tradeoff_labels.dat: per panel of the tradeoff chart a block, one line per
 * point: name, the point (x, y), where its label starts (lx, ly: left end,
 * middle) and where its leader line ends; the panels' ranges into xy. */
static void trade_labels(struct br_in *in, const struct br_figures *figs, struct sr_buf *tl, double *xmax, double ytop[2])
{
	size_t n = 0;
	const struct br_figures **pts = malloc((in->nalgos + 1) * sizeof(*pts));
	double *px = malloc((in->nalgos + 1) * 5 * sizeof(double)), *py = px + in->nalgos + 1,
	       *lx = py + in->nalgos + 1, *ly = lx + in->nalgos + 1;
	size_t *chars = malloc((in->nalgos + 1) * 2 * sizeof(size_t)), *order = chars + in->nalgos + 1;
	struct box *taken = malloc((2 * in->nalgos + 2) * sizeof(*taken));
	if (!pts || !px || !chars || !taken) {
		br_error(in, SIM_CSV_FAIL, "out of memory");
		goto done;
	}
	/* the ranges: x from 1 ns to the decade above the slowest, y from 0 */
	double ns_top = 10;
	ytop[0] = ytop[1] = 0;
	for (size_t i = 0; i < in->nalgos; i++) {
		const struct br_figures *f = &figs[i];
		if (rp_measured(f->ns_hot) && rp_measured(f->over_n_pct) && rp_measured(f->false_reject_pct)) {
			pts[n++] = f;
			ns_top = fmax(ns_top, f->ns_hot.max);
			ytop[0] = fmax(ytop[0], f->over_n_pct.max);
			ytop[1] = fmax(ytop[1], f->false_reject_pct.max);
		}
	}
	double xdec = ceil(log10(ns_top * 1.2));
	for (int p = 0; p < 2; p++)
		ytop[p] = nice_ceil(fmax(ytop[p] * 1.15, 1.0));
	*xmax = pow(10, xdec);
	sr_puts(tl, "algo x y lx ly leader_x leader_y\n");
	for (int p = 0; p < 2; p++) {
		double w = (trade_right[p] - trade_left[p]) * TRADE_W, h = (TRADE_TOP - TRADE_BOTTOM) * TRADE_H;
		for (size_t i = 0; i < n; i++) {
			double y = (p == 0 ? pts[i]->over_n_pct : pts[i]->false_reject_pct).median;
			px[i] = log10(pts[i]->ns_hot.median) / xdec * w;
			py[i] = y / ytop[p] * h;
			chars[i] = strlen(pts[i]->algo);
		}
		place_labels(n, px, py, chars, w, h, lx, ly, taken, order);
		for (size_t i = 0; i < n; i++) {
			/* the leader line ends at the label's end nearer the point */
			double near = lx[i] > px[i] ? lx[i] - 2 : lx[i] + CHAR_W * (double)chars[i] + 6;
			sr_printf(tl, "%s %s %s", pts[i]->algo, rp_gnum(pow(10, px[i] / w * xdec)), rp_gnum(py[i] / h * ytop[p]));
			sr_printf(tl, " %s %s", rp_gnum(pow(10, lx[i] / w * xdec)), rp_gnum(ly[i] / h * ytop[p]));
			sr_printf(tl, " %s %s\n", rp_gnum(pow(10, near / w * xdec)), rp_gnum(ly[i] / h * ytop[p]));
		}
		sr_puts(tl, "\n\n");
	}
done:
	free(pts);
	free(px);
	free(chars);
	free(taken);
}

static int state_code(const char *s)
{
	if (strcmp(s, "CLOSED") == 0 || strcmp(s, "0") == 0)
		return 0;
	if (strcmp(s, "HALF_OPEN") == 0 || strcmp(s, "1") == 0)
		return 1;
	return 2;
}

void br_chart_data(struct br_in *in)
{
	const struct br_figures *figs = br_figures(in);
	struct sr_buf *t = br_data(in, "tradeoff.dat"), *ls = br_data(in, "load_sweep.dat"),
		      *k = br_data(in, "keys.dat"), *sc = br_data(in, "sc_error.dat"), *b = br_data(in, "breaker.dat"),
		      *of = br_data(in, "offered.dat"), *v = br_data(in, "vars.gp");
	if (!figs || !t || !ls || !k || !sc || !b || !of || !v)
		return;
	struct sr_buf placed = {0}, swept = {0}; /* the algorithms in tradeoff.dat and load_sweep.dat */
	sr_puts(t, "algo ns ns_min ns_max over over_min over_max rej rej_min rej_max bytes\n");
	for (size_t i = 0; i < in->nalgos; i++) {
		const struct br_figures *f = &figs[i];
		if (!rp_measured(f->ns_hot) || !rp_measured(f->over_n_pct) || !rp_measured(f->false_reject_pct))
			continue; /* no timing or no simulation: no point to place (gnuplot warns on an empty series) */
		sr_printf(&placed, "%s%s", placed.len ? " " : "", f->algo);
		double bytes = isnan(f->allin_1m) ? f->state_bytes : f->allin_1m;
		sr_printf(t, "%s %s %s %s %s %s %s %s %s %s %s\n", f->algo, rp_gnum(f->ns_hot.median),
			  rp_gnum(f->ns_hot.min), rp_gnum(f->ns_hot.max), rp_gnum(f->over_n_pct.median),
			  rp_gnum(f->over_n_pct.min), rp_gnum(f->over_n_pct.max), rp_gnum(f->false_reject_pct.median),
			  rp_gnum(f->false_reject_pct.min), rp_gnum(f->false_reject_pct.max), rp_gnum(bytes));
	}

	double xmax = NAN, ytop[2] = { NAN, NAN };
	struct sr_buf *tl = br_data(in, "tradeoff_labels.dat");
	if (!tl)
		return;
	trade_labels(in, figs, tl, &xmax, ytop);

	/* One block per algorithm the sweep measured (a quick run runs a peer on one scenario only). */
	size_t nsweep;
	const struct br_load *sweep = br_load_sweep(in, &nsweep);
	for (size_t i = 0; i < in->nalgos; i++) {
		struct sr_buf block = {0};
		bool any = false;
		for (size_t s = 0; s < nsweep; s++) {
			struct rp_stat ov = br_cell_over_seeds(in, sweep[s].name, figs[i].algo, "false_allow_pct");
			struct rp_stat r = br_cell_over_seeds(in, sweep[s].name, figs[i].algo, "false_reject_pct");
			any = any || rp_measured(ov) || rp_measured(r);
			sr_printf(&block, "%d %s %s %s %s %s %s\n", sweep[s].load, rp_gnum(ov.median), rp_gnum(ov.min),
				  rp_gnum(ov.max), rp_gnum(r.median), rp_gnum(r.min), rp_gnum(r.max));
		}
		if (any) {
			sr_printf(&swept, "%s%s", swept.len ? " " : "", figs[i].algo);
			sr_printf(ls, "\"%s\" over over_min over_max rej rej_min rej_max\n%s\n\n", figs[i].algo,
				  block.p ? block.p : "");
		}
		ls->oom |= block.oom;
		sr_buf_free(&block);
	}

	size_t nk;
	const size_t *keys = br_key_counts(in, &nk);
	double *dep = malloc((in->nalgos + 1) * sizeof(double)), *indep = malloc((in->nalgos + 1) * sizeof(double));
	if (!dep || !indep) {
		br_error(in, SIM_CSV_FAIL, "out of memory");
		goto done;
	}
	sr_puts(k, "keys");
	for (size_t i = 0; i < in->nalgos; i++)
		sr_printf(k, " %s", in->algo[i].name);
	sr_puts(k, " floor_dependent floor_independent\n");
	for (size_t kk = 0; kk < nk; kk++) {
		size_t n = keys[kk];
		sr_printf(k, "%zu", n);
		for (size_t i = 0; i < in->nalgos; i++) {
			const char *a = in->algo[i].name;
			const struct br_peer *p = br_peer_of(in, a);
			double ns = !p ? br_ns(in, RL_BENCH_STORE("uniform"), a, n)
				    : n == 1000 ? p->k1k.median : n == 1000000 ? p->k1m.median : NAN;
			sr_printf(k, " %s", rp_gnum(ns));
			dep[i] = br_ns(in, RL_BENCH_FLOOR("dependent"), a, n);
			indep[i] = br_ns(in, RL_BENCH_FLOOR("independent"), a, n);
		}
		sr_printf(k, " %s", rp_gnum(sim_median(dep, in->nalgos)));
		sr_printf(k, " %s\n", rp_gnum(sim_median(indep, in->nalgos)));
	}

	double sweep_limit = NAN;
	sr_puts(sc, "load_pct false_allow_pct false_reject_pct total_pct\n");
	for (size_t s = 0; s < nsweep; s++) {
		struct rp_stat fa = br_cell_over_seeds(in, sweep[s].name, "sliding_counter", "false_allow_pct");
		struct rp_stat fr = br_cell_over_seeds(in, sweep[s].name, "sliding_counter", "false_reject_pct");
		sweep_limit = br_cell_over_seeds(in, sweep[s].name, "sliding_counter", "limit").median;
		sr_printf(sc, "%d %s %s %s\n", sweep[s].load, rp_gnum(fa.median), rp_gnum(fr.median),
			  rp_gnum(fa.median + fr.median));
	}
	const char *pop = br_population_scenario(in);
	double pop_total = br_cell_over_seeds(in, pop, "sliding_counter", "false_allow_pct").median +
			   br_cell_over_seeds(in, pop, "sliding_counter", "false_reject_pct").median;

	sr_puts(b, "t_s state\n");
	const char *bs = br_breaker_scenario(in);
	struct sim_csv series, offered;
	br_csv(in, &series, rp_str("%s/breaker_%s.csv", in->series_dir, bs), NULL);
	for (size_t i = 0; i < series.nrows; i++)
		sr_printf(b, "%s %d\n", rp_gnum(sim_csv_num(&series, i, "t_ns") / 1e9),
			  state_code(sim_csv_at(&series, i, "state")));
	sim_csv_free(&series);
	/* What was offered to the breaker: the same scenario's requests per bucket (admitted + rejected)
	 * under sliding_log, the same arrivals the breaker saw for sources that do not retry. */
	sr_puts(of, "t_s per_s\n");
	br_csv(in, &offered, rp_str("%s/%s__sliding_log.csv", in->series_dir, bs), NULL);
	if (offered.nrows < 2) {
		br_error(in, SIM_CSV_BAD, "missing: %s/%s__sliding_log.csv (the breaker chart's offered traffic)",
			 in->series_dir, bs);
	} else {
		double bucket_s = (sim_csv_num(&offered, 1, "t_ns") - sim_csv_num(&offered, 0, "t_ns")) / 1e9;
		for (size_t i = 0; i < offered.nrows; i++)
			sr_printf(of, "%s %s\n", rp_gnum(sim_csv_num(&offered, i, "t_ns") / 1e9),
				  rp_gnum((sim_csv_num(&offered, i, "admitted") + sim_csv_num(&offered, i, "rejected")) /
					  bucket_s));
	}
	sim_csv_free(&offered);
	double breaker_limit = NAN, breaker_window_s = NAN;
	for (size_t i = 0; i < in->breaker.nrows; i++)
		if (strcmp(sim_csv_at(&in->breaker, i, "scenario"), bs) == 0 && sim_csv_col(&in->breaker, "limit") >= 0) {
			breaker_limit = sim_csv_num(&in->breaker, i, "limit");
			breaker_window_s = sim_csv_num(&in->breaker, i, "window_ns") / 1e9;
		}

	const char *bnd = br_boundary_scenario(in);
	double limit = NAN, window_ns = NAN, bucket_ns = NAN;
	for (size_t i = 0; i < in->summary.nrows; i++)
		if (strcmp(sim_csv_at(&in->summary, i, "scenario"), bnd) == 0) {
			struct sim_csv s;
			limit = sim_csv_num(&in->summary, i, "limit");
			window_ns = sim_csv_num(&in->summary, i, "window_ns");
			br_csv(in, &s, rp_str("%s/%s__%s.csv", in->series_dir, bnd, sim_csv_at(&in->summary, i, "algo")), NULL);
			if (s.nrows >= 2)
				bucket_ns = sim_csv_num(&s, 1, "t_ns") - sim_csv_num(&s, 0, "t_ns");
			sim_csv_free(&s);
			break;
		}
	sr_puts(v, "algos = \"");
	for (size_t i = 0; i < in->nalgos; i++)
		sr_printf(v, "%s%s", i ? " " : "", in->algo[i].name);
	sr_printf(v, "\"\nseries = \"%s\"\n", in->series_dir);
	sr_printf(v, "boundary = \"%s\"\n", bnd);
	sr_printf(v, "boundary_limit = %s\n", rp_gnum(limit));
	sr_printf(v, "boundary_window_s = %s\n", rp_gnum(window_ns / 1e9));
	sr_printf(v, "boundary_bucket_s = %s\n", rp_gnum(bucket_ns / 1e9));
	sr_printf(v, "breaker_scenario = \"%s\"\n", bs);
	sr_printf(v, "bytes_limit = \"%s\"\n", in->bytes_limit.path);
	sr_printf(v, "sweep = \"%s\"\n", nsweep ? sweep[0].name : "");
	sr_printf(v, "sweep_last = \"%s\"\n", nsweep ? sweep[nsweep - 1].name : "");
	sr_printf(v, "sweep_limit = %s\n", rp_gnum(sweep_limit));
	sr_printf(v, "population_total = %s\n", rp_gnum(pop_total));
	sr_printf(v, "breaker_rate = %s\n", rp_gnum(breaker_limit / breaker_window_s));
	sr_printf(v, "seeds = %zu\n", br_seeds(in)->n);
	sr_printf(v, "tradeoff_algos = \"%s\"\n", placed.p ? placed.p : "");
	sr_printf(v, "sweep_algos = \"%s\"\n", swept.p ? swept.p : "");
	sr_printf(v, "tradeoff_xmax = %s\n", rp_gnum(xmax));
	sr_printf(v, "tradeoff_ymax_over = %s\n", rp_gnum(ytop[0]));
	sr_printf(v, "tradeoff_ymax_rej = %s\n", rp_gnum(ytop[1]));
	sr_printf(v, "tradeoff_w = %g\ntradeoff_h = %g\n", TRADE_W, TRADE_H);
	sr_printf(v, "tradeoff_left = \"%g %g\"\n", trade_left[0], trade_left[1]);
	sr_printf(v, "tradeoff_right = \"%g %g\"\n", trade_right[0], trade_right[1]);
	sr_printf(v, "tradeoff_bottom = %g\ntradeoff_top = %g\n", TRADE_BOTTOM, TRADE_TOP);
	br_peer_chart_data(in);
done:
	v->oom |= placed.oom || swept.oom;
	sr_buf_free(&placed);
	sr_buf_free(&swept);
	free(dep);
	free(indep);
}
