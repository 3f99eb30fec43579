/*
 * bench_md.c - the bench report's first sections: the machine, the
 * tradeoff table (also the README's), the qualitative table, the accuracy
 * tables per scenario, the Cloudflare-style population and the weighted
 * requests. Timed cells are "median [min-max]" over the repetitions (CV >
 * 5% marked), seed-dependent simulator cells the same over the seeds.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_report_int.h"

/* ---- the prose of these sections */

static const char machine_build[] =
	"- build: Release (-O3), C11 library, C++17 drivers; Google Benchmark library build type as it "
	"reports itself: %s (Debian's package; the timed loops are ours, compiled -O3)\n"
	"- malloc: glibc's thresholds fixed for the whole run (mmap 64 MiB, trim 1 GiB) so that no result "
	"depends on what earlier benchmarks freed; the breaker is also measured under glibc's defaults\n";
static const char machine_reading[] =
	"); the machine is shared, so figures are compared within this run only\n\n"
	"**Reading the figures.** A timed figure is the median of the repetitions with their range "
	"[min–max]; \"(CV x%)\" marks a figure whose coefficient of variation (stddev / mean over the "
	"repetitions) exceeds 5%. A simulator figure that depends on the seed is the median over the seeds "
	"with its range. A ranking or a target verdict is stated only when the ranges do not overlap; "
	"otherwise it reads \"within noise\". \"-\" is a figure that was not measured.\n\n";
static const char tradeoff_head[] =
	"% load | false rejects % | extra client wait ms | diverged from sliding log % | state B/key | all-in "
	"B/key at 1M keys | ns/op hot | ns/op at 1M keys |\n"
	"|---|---|---|---|---|---|---|---|---|---|---|---|\n";
static const char tradeoff_note[] =
	", median [min–max] over the seeds, request-weighted (sum over scenarios / sum of requests). "
	"(a) over-N admissions: admissions that left more than N admitted in (t − W, t]; max in W / N: the "
	"largest count in any window of length W over N, worst scenario; beyond own bound: admissions past "
	"the algorithm's own documented bound (its header; must be 0); long-run rate / N: admitted rate over "
	"N at the load sweep's top load. (b) false rejects: rejected while fewer than N were admitted in "
	"(t − W, t]; extra client wait: polite clients' mean wait from first send to admission minus "
	"sliding_log's in the same scenarios. (c) diverged: decided unlike an independent sliding log fed "
	"the same requests. Timed columns: median [min–max] over the repetitions, (CV x%) when above 5%; "
	"ns/op hot: one key, time passed in, verdict only; at 1M keys: `rl_store_check`, uniform keys, one "
	"thread. All-in B/key at 1M keys: the store's bytes over its keys (`rl_store_stats`: table, keys, "
	"state heap) after that run, in which each key saw a few requests";
static const char qualitative_head[] =
	"### Qualitative\n\nThe accuracy words are written from the measured columns above; the other "
	"columns are the study notes'.\n\n| algorithm | accuracy (measured) | memory per key | bursts | choose "
	"when | source |\n|---|---|---|---|---|---|\n";
static const char accuracy_head[] =
	"## Accuracy, per scenario\n\n"
	"Three different questions, kept apart. **(a) Over-admission against the rule N per W**: what the "
	"algorithm let through beyond N in a window of length W — by design for the bucket algorithms "
	"(their burst B), by construction for fixed_window (2N across an edge) — and whether it ever went "
	"beyond its *own* documented bound (a correctness check: must be 0). **(b) Harm to well-behaved "
	"clients**: false rejects (rejected while fewer than N were admitted in (t − W, t]) and the extra "
	"wait of clients that retry politely. **(c) Divergence from the exact sliding log**: an independent "
	"sliding_log fed the same requests, decided differently (it cascades once the admitted sets differ, "
	"so it is not a count of errors).\n\n";

/* The accuracy tables: title, column (plus a second one added), decimals, note; the divergence
 * table reads diverged.csv. */
struct per_scenario {
	const char *title, *col, *plus;
	int decimals;
	const char *note;
	bool diverged;
};
static const struct per_scenario accuracy_tables[] = {
	{ "(a) largest count in any window of length W, over N", "max_window_ratio", NULL, 2,
	  "max_in_window / N: 1 is exactly the rule; 2 is twice N in one window.", false },
	{ "(a) over-N admissions, % of requests", "false_allow_pct", NULL, 3,
	  "Admissions that left more than N admitted in (t − W, t] of the key's own admitted history.", false },
	{ "(a) long-run admitted rate over N", "long_run_rate_ratio", NULL, 3,
	  "admitted / (active keys × N × duration / W).", false },
	{ "(a) admissions beyond the algorithm's own bound, % of admissions", "beyond_bound_pct", NULL, 3,
	  "Own bound: `rl_limiter_max_admitted(lim, W − 1)`, stated in each algorithm's header (e.g. token "
	  "bucket B + ⌊N(W−1)/W⌋, fixed window 2N, sliding log N). Anything but 0 is a bug.", false },
	{ "(b) false rejects, % of requests", "false_reject_pct", NULL, 3,
	  "Rejected although fewer than N were admitted in (t − W, t].", false },
	{ "(b) polite clients' mean wait, ms", "client_wait_ms_mean", NULL, 1,
	  "From a request's first send to its admission, over the requests of clients that retry after "
	  "retry_after_ns and were served (scenarios with such clients only; compare with sliding_log's "
	  "column for the extra wait). leaky_bucket's queueing delay (delay_ns) is not included.", false },
	{ "(b) polite clients who gave up, % of their requests", "client_gave_up_pct", NULL, 2,
	  "Rejected on their last allowed retry.", false },
	{ "(c) divergence from the exact sliding log, % of requests", "diverged_allow_pct", "diverged_reject_pct", 3,
	  "Decided unlike the independent sliding_log: admitted where it rejected plus rejected where it "
	  "admitted (each share apart in `results/sim/diverged.csv`).", true },
	{ "Fairness: Jain's index", "jain_index", NULL, 3,
	  "The least over the sources that pick keys uniformly (keys of equal demand); \"-\" where no "
	  "source does (Zipf-keyed, replayed): nothing comparable was measured.", false },
};
static const struct per_scenario weighted_tables[] = {
	{ "(a) largest count in any window of length W, over N", "max_window_ratio", NULL, 2, "In units.", false },
	{ "(a) over-N admissions, % of requests", "false_allow_pct", NULL, 3,
	  "Admissions that left more than N units admitted in (t − W, t].", false },
	{ "(a) admissions beyond the algorithm's own bound, % of admissions", "beyond_bound_pct", NULL, 3,
	  "Must be 0.", false },
	{ "(b) false rejects, % of requests", "false_reject_pct", NULL, 3,
	  "Rejected although admitting it would have left at most N units in (t − W, t].", false },
	{ "(c) divergence from the exact sliding log, % of requests", "diverged_allow_pct", "diverged_reject_pct", 3,
	  "Decided unlike an independent sliding_log fed the same requests.", true },
};
static const char weighted_absent[] =
	"not run (no weighted scenarios: `sim/scenarios/weighted/` absent when `make bench` ran).\n\n";
static const char weighted_intro[] =
	"Each request costs units (cost distributions per scenario, `sim/scenarios/weighted/`); every "
	"figure counts units against N units per W.\n\n";
static const char population_intro[] =
	"## A Cloudflare-style population\n\n"
	"Cloudflare (2017) reported that its sliding-window counter decided 0.003%% of 400 million requests "
	"from 270,000 sources wrongly, with a 6%% average difference between its estimated and the real "
	"rate. Scenario `%s` (`sim/scenarios/population.ini`) is modelled on that setup: one rule of "
	"%s requests per %s s for every source; 30,000 sources "
	"(25,000 Poisson at a mean 10%% of the limit, 5,000 on/off at 60%% while ON, ON 10 s of 60 s on "
	"average), each group's rates heavy-tailed (Zipf(0.5) over its keys), so most sources are far under "
	"the limit and a few far above; 10 minutes; "
	"%s requests. Every request counts: the rates are "
	"over all requests of the population, the well-behaved included (ratelab's counter counts admitted "
	"requests, Cloudflare's every request; for a source under its limit the two agree).\n\n"
	"| sliding_counter on `%s` | this run | Cloudflare 2017 |\n|---|---|---|\n";
static const char population_rows[] =
	"| over-N admissions, %% of requests | %s | |\n"
	"| false rejects, %% of requests | %s | |\n"
	"| decided wrongly (both), %% of requests | %s | 0.003 |\n"
	"| diverged from an independent sliding log, %% of requests | %s | |\n"
	"| average difference, the counter's estimate vs the exact count in (t − W, t], %% | %s | 6 |\n"
	"| heavy sources (asked for more than N per W on average), %% of sources | %s | |\n"
	"| their share of the requests, %% | %s | |\n"
	"| their share of the wrong decisions, %% | %s | |\n\n";
static const char population_sources[] =
	"**Which sources carry the error.** In the load sweep (Poisson sources, all at one load, one key "
	"each), sliding_counter decides no request wrongly up to %s of the limit, then "
	"%s, %s at 100%% and %s"
	": the error belongs to sources whose rate comes near or over N, where the weighted estimate of "
	"the previous window decides near the threshold; sources far under it are never wrong. In the "
	"population the few heavy sources (above N on average) send "
	"%s%% of the requests and carry "
	"%s"
	"%% of the wrong decisions; the rest fall on sources under N on average whose bursts (on/off ON "
	"periods, Poisson clusters) run them near it for a while. The published figure is "
	"%s"
	": the share of wrong decisions is set by the share of traffic from sources near or above their "
	"limit, which this population puts at "
	"%s"
	"%% and Cloudflare's did not publish; a population with less traffic near the limit gives a "
	"smaller figure, one with more a larger. The average difference is the mean of |estimate − exact| / "
	"exact over the requests that find an admitted request in their window (prev · (W − e) / W + curr "
	"against the exact count of the key's admitted requests): it is largest for sources with few "
	"requests per window, where one request is a large share of the count — in the load sweep it "
	"falls from "
	"%s%% at %d%% load to %s%% at %d"
	"%% (N = 100 per window), while most of the population's sources send a handful per minute "
	"against N = 50.\n\n";

/* ---- sections */

static const char *const machine_keys[][2] = {
	{ "cpu", "CPU" }, { "cores", "cores" }, { "memory", "memory" }, { "kernel", "kernel" },
	{ "os", "OS" }, { "compiler", "compiler" }, { "cmake", "CMake" }, { "benchmark", "Google Benchmark" },
	{ "glibc", "glibc" }, { "gnuplot", "gnuplot" },
	{ "commit", "ratelab commit" }, { "date", "run started" }, { "make_bench", "make bench" },
	{ "lengths", "measurement lengths" }
};

void br_machine(struct br_in *in, struct sr_buf *o)
{
	sr_puts(o, "## Machine and libraries\n\n");
	for (size_t i = 0; i < sizeof(machine_keys) / sizeof(*machine_keys); i++)
		sr_printf(o, "- %s: %s\n", machine_keys[i][1], br_env(in, machine_keys[i][0]));
	sr_printf(o, machine_build, in->bench.build_type ? in->bench.build_type : "n/a");
	const struct br_seeds_cache *sd = br_seeds(in);
	int reps = in->bench.repetitions;
	sr_printf(o, "- mode: %s run, %d%s, %zu simulator seed%s (", in->mode, reps,
		  reps > 1 ? " repetitions per benchmark" : " repetition per benchmark (no spread: a quick run)", sd->n,
		  sd->n == 1 ? "" : "s");
	for (size_t i = 0; i < sd->n; i++)
		sr_printf(o, "%s%lld", i ? ", " : "", sd->v[i]);
	sr_puts(o, machine_reading);
}

/* The bytes probe's rows: each algorithm's state bytes by the limit N (the last row of a
 * limit kept), the algorithms in byte order. Which algorithms' state grows with N is read
 * from them, not known by name. */
const struct br_bytes *br_bytes_by_limit(struct br_in *in, size_t *nout)
{
	const struct sim_csv *t = &in->bytes_limit;
	struct br_bytes *out = calloc(t->nrows + 1, sizeof(*out));
	size_t n = 0;
	*nout = 0;
	if (!out) {
		br_error(in, SIM_CSV_FAIL, "out of memory");
		return NULL;
	}
	for (size_t i = 0; i < t->nrows; i++) {
		const char *a = sim_csv_at(t, i, "algo");
		double limit = sim_csv_num(t, i, "limit"), b = sim_csv_num(t, i, "state_bytes");
		bool later = false;
		for (size_t j = i + 1; j < t->nrows && !later; j++)
			later = strcmp(sim_csv_at(t, j, "algo"), a) == 0 && sim_csv_num(t, j, "limit") == limit;
		if (later)
			continue;
		size_t k = 0;
		while (k < n && strcmp(out[k].algo, a) < 0)
			k++;
		if (k == n || strcmp(out[k].algo, a) != 0) {
			memmove(out + k + 1, out + k, (n - k) * sizeof(*out));
			out[k] = (struct br_bytes){ a, NAN, NAN, NAN };
			n++;
		}
		struct br_bytes *x = &out[k];
		x->least = isnan(x->least) ? b : fmin(x->least, b);
		x->most = isnan(x->most) ? b : fmax(x->most, b);
		if (limit == 100)
			x->at100 = b;
	}
	*nout = n;
	return out;
}

void br_tradeoff(struct br_in *in, struct sr_buf *o)
{
	size_t nsweep, nscen, nbytes;
	const struct br_load *sweep = br_load_sweep(in, &nsweep);
	const struct br_seeds_cache *sd = br_seeds(in);
	const struct br_figures *figs = br_figures(in);
	sr_printf(o, "| algorithm | over-N admissions %% | max in W / N | beyond own bound %% | long-run rate / N at %d",
		  nsweep ? sweep[nsweep - 1].load : 0);
	sr_puts(o, tradeoff_head);
	for (size_t i = 0; figs && i < in->nalgos; i++) {
		const struct br_figures *f = &figs[i];
		sr_printf(o, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", f->algo,
			  rp_fmt_stat(f->over_n_pct, 3), rp_fmt_stat(f->worst_ratio, 2), rp_fmt_stat(f->beyond_bound_pct, 3),
			  rp_fmt_stat(f->rate_at_top, 3), rp_fmt_stat(f->false_reject_pct, 3),
			  rp_fmt_stat(f->extra_wait_ms, 1), rp_fmt_stat(f->diverged_pct, 3), rp_fmt(f->state_bytes, 0),
			  rp_fmt(f->allin_1m, 1), rp_fmt_stat(f->ns_hot, 2), rp_fmt_stat(f->ns_1m, 1));
	}
	const char **scen = br_scenarios(&in->summary, &nscen);
	free(scen);
	sr_printf(o, "\nSimulator columns: the %zu scenarios of `sim/scenarios/` over %zu seed%s", nscen, sd->n,
		  sd->n == 1 ? "" : "s");
	sr_puts(o, tradeoff_note);
	/* a state that grows with its admitted times is larger for a key kept at its limit */
	const struct br_bytes *by = br_bytes_by_limit(in, &nbytes);
	for (size_t i = 0; i < nbytes; i++)
		if (by[i].most > by[i].least && !isnan(by[i].at100))
			sr_printf(o, "; a %s key kept at its limit holds more, its state alone %s B after N = 100 "
				     "admissions at distinct times in one window (the report's bytes-per-key chart)",
				  by[i].algo, rp_fmt(by[i].at100, 0));
	free((void *)by);
	sr_puts(o, ". \"-\": not measured.\n");
}

/* The accuracy word, from the measured columns only, so that it cannot disagree with them. */
static void measured_words(struct sr_buf *o, const struct br_figures *f)
{
	if (!rp_measured(f->over_n_pct)) {
		sr_puts(o, "not measured");
		return;
	}
	bool over = f->over_n_pct.max > 0, rejects = f->false_reject_pct.max > 0;
	if (!over && !rejects) {
		sr_puts(o, "exact: never more than N in a window W, no false rejects");
	} else {
		if (over)
			sr_printf(o, "over N on %s%% of requests, up to %sx N in one W", rp_fmt(f->over_n_pct.median, 1),
				  rp_fmt(f->worst_ratio.max, 2));
		else
			sr_puts(o, "never over N");
		if (rejects)
			sr_printf(o, "; false rejects on %s%% of requests", rp_fmt(f->false_reject_pct.median, 1));
		else
			sr_puts(o, "; no false rejects");
	}
	if (rp_measured(f->beyond_bound_pct))
		sr_puts(o, f->beyond_bound_pct.max > 0 ? "; **beyond its own bound**" : "; within its own bound");
}

void br_qualitative(struct br_in *in, struct sr_buf *o)
{
	const struct br_figures *figs = br_figures(in);
	const struct sim_csv *q = &in->quals;
	sr_puts(o, qualitative_head);
	for (size_t i = 0; i < q->nrows; i++) {
		const struct br_figures *found = NULL;
		for (size_t k = 0; figs && k < in->nalgos; k++)
			if (strcmp(figs[k].algo, sim_csv_at(q, i, "algo")) == 0)
				found = &figs[k];
		sr_printf(o, "| %s | ", sim_csv_at(q, i, "algo"));
		if (found)
			measured_words(o, found);
		else
			sr_puts(o, "not measured");
		sr_printf(o, " | %s | %s | %s | %s |\n", sim_csv_at(q, i, "memory"), sim_csv_at(q, i, "bursts"),
			  sim_csv_at(q, i, "choose_when"), sim_csv_at(q, i, "source"));
	}
	sr_puts(o, "\n");
}

/* One table: scenarios down, algorithms across, one summary column per cell (median [range] over the seeds). */
static void per_scenario(struct br_in *in, struct sr_buf *o, const struct sim_csv *csv, const struct per_scenario *t)
{
	bool all_zero = csv->nrows > 0, any = false;
	for (size_t i = 0; i < csv->nrows; i++) {
		double x = sim_csv_num(csv, i, t->col) + (t->plus ? sim_csv_num(csv, i, t->plus) : 0);
		any = any || !isnan(x);
		all_zero = all_zero && (isnan(x) || x == 0);
	}
	if (all_zero && any) {
		sr_printf(o, "#### %s\n\n%s\n\n**0 for every algorithm, scenario and seed.**\n\n", t->title, t->note);
		return;
	}
	sr_printf(o, "#### %s\n\n%s\n\n| scenario |", t->title, t->note);
	for (size_t a = 0; a < in->nalgos; a++)
		sr_printf(o, " %s |", in->algo[a].name);
	sr_puts(o, "\n|---|");
	for (size_t a = 0; a < in->nalgos; a++)
		sr_puts(o, "---|");
	sr_puts(o, "\n");
	size_t nscen;
	const char **scen = br_scenarios(csv, &nscen);
	for (size_t s = 0; scen && s < nscen; s++) {
		sr_printf(o, "| %s |", scen[s]);
		for (size_t a = 0; a < in->nalgos; a++)
			sr_printf(o, " %s |", rp_fmt_stat(br_cell2_over_seeds(csv, scen[s], in->algo[a].name, t->col, t->plus),
							 t->decimals));
		sr_puts(o, "\n");
	}
	free(scen);
	sr_puts(o, "\n");
}

void br_accuracy(struct br_in *in, struct sr_buf *o)
{
	sr_puts(o, accuracy_head);
	for (size_t i = 0; i < sizeof(accuracy_tables) / sizeof(*accuracy_tables); i++)
		per_scenario(in, o, accuracy_tables[i].diverged ? &in->diverged : &in->summary, &accuracy_tables[i]);
}

/* sliding_counter's over-N admissions plus false rejects in scenario name, over the seeds. */
static struct rp_stat sc_total(struct br_in *in, const char *name)
{
	return br_cell2_over_seeds(&in->summary, name, "sliding_counter", "false_allow_pct", "false_reject_pct");
}

void br_population(struct br_in *in, struct sr_buf *o)
{
	const char *pop = br_population_scenario(in);
	const char *sc = "sliding_counter";
#define CELL(col) br_cell_over_seeds(in, pop, sc, col)
	struct rp_stat total = sc_total(in, pop);
	struct rp_stat div = br_cell2_over_seeds(&in->diverged, pop, sc, "diverged_allow_pct", "diverged_reject_pct");
	sr_printf(o, population_intro, pop, rp_fmt(CELL("limit").median, 0), rp_fmt(CELL("window_ns").median / 1e9, 0),
		  rp_fmt_stat(CELL("requests"), 0), pop);
	sr_printf(o, population_rows, rp_fmt_stat(CELL("false_allow_pct"), 4), rp_fmt_stat(CELL("false_reject_pct"), 4),
		  rp_fmt_stat(total, 4), rp_fmt_stat(div, 4), rp_fmt_stat(CELL("estimate_diff_pct"), 2),
		  rp_fmt_stat(CELL("heavy_keys_pct"), 2), rp_fmt_stat(CELL("heavy_requests_pct"), 2),
		  rp_fmt_stat(CELL("heavy_false_pct"), 2));

	size_t nsweep;
	const struct br_load *sweep = br_load_sweep(in, &nsweep);
	const char *zero_upto = "-", *first_err = "-", *at_100 = "-", *at_top = "-";
	for (size_t i = 0; i < nsweep; i++) {
		struct rp_stat t = sc_total(in, sweep[i].name);
		if (rp_measured(t) && t.max == 0)
			zero_upto = rp_str("%d%%", sweep[i].load);
		else if (strcmp(first_err, "-") == 0)
			first_err = rp_str("%s%% at %d%%", rp_fmt(t.median, 3), sweep[i].load);
	}
	for (size_t i = 0; i < nsweep; i++) {
		const char *v = rp_fmt(sc_total(in, sweep[i].name).median, 2);
		if (sweep[i].load == 100)
			at_100 = rp_str("%s%%", v);
		at_top = rp_str("%s%% at %d%%", v, sweep[i].load);
	}
	bool reproduced = rp_measured(total) && total.max <= 0.03;
	const char *first = nsweep ? sweep[0].name : "", *last = nsweep ? sweep[nsweep - 1].name : "";
	sr_printf(o, population_sources, zero_upto, first_err, at_100, at_top,
		  rp_fmt(CELL("heavy_requests_pct").median, 1), rp_fmt(CELL("heavy_false_pct").median, 1),
		  reproduced ? "reproduced to within a factor of 10" : "not reproduced",
		  rp_fmt(CELL("heavy_requests_pct").median, 1),
		  rp_fmt(br_cell_over_seeds(in, first, sc, "estimate_diff_pct").median, 1), nsweep ? sweep[0].load : 0,
		  rp_fmt(br_cell_over_seeds(in, last, sc, "estimate_diff_pct").median, 1),
		  nsweep ? sweep[nsweep - 1].load : 0);
#undef CELL
}

void br_weighted(struct br_in *in, struct sr_buf *o)
{
	sr_puts(o, "## Weighted requests\n\n");
	struct sim_csv w, wd;
	br_csv(in, &w, br_path(in->results, "sim/weighted/summary.csv"), br_summary_columns);
	if (!w.nrows) {
		sim_csv_free(&w);
		sr_puts(o, weighted_absent);
		return;
	}
	br_csv(in, &wd, br_path(in->results, "sim/weighted/diverged.csv"), NULL);
	sr_puts(o, weighted_intro);
	for (size_t i = 0; i < sizeof(weighted_tables) / sizeof(*weighted_tables); i++)
		if (!weighted_tables[i].diverged || wd.nrows)
			per_scenario(in, o, weighted_tables[i].diverged ? &wd : &w, &weighted_tables[i]);
	sim_csv_free(&w);
	sim_csv_free(&wd);
}
