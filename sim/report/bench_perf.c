/*
 * bench_perf.c - the bench report's performance-tracking section: the
 * gate's exact per-operation figures (RESULTS/bench/perf.json, written by
 * bench/perf/run.sh in `make bench`) beside the benchmarks' ns/op, and the
 * chart data of estimated cycles per entry across the commits of
 * RESULTS/baseline/history.csv (plots/history.gp): history.dat, one row
 * per commit (first-seen order), one column of estimated cycles per entry
 * measured now ("NaN" where absent), and history_vars.gp (its column count).
 * A missing perf.json is an error: make bench always writes it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_report_int.h"

static const char perf_intro[] =
	"## Performance tracking: exact counts per operation\n\n"
	"Each entry runs a fixed, seeded workload in its own process under callgrind (%s, `%s`; the simulated "
	"caches are fixed, not read from the host) and is divided by its operations; set-up and a warm-up are "
	"not counted (the two `ratelab` entries are the difference between a long and a short run, divided by "
	"the difference in work, so a figure near 0 can come out slightly below it). The same binary gives the "
	"same figures to the instruction on every run (`make perf-check` gates on them, README \"Performance "
	"tracking\"). *Estimated cycles* = L1 hits + 5 x LL hits + 35 x RAM hits, over instruction fetches and "
	"data accesses (the model of iai-callgrind); *mispredicts* = conditional + indirect branch "
	"mispredictions of callgrind's simple predictor. Measured at %s with %s; ns/op is the same run's Google "
	"Benchmark median (\"-\": no benchmark of that work).\n\n"
	"| entry | what | instructions | est. cycles | L1d misses | LL misses | mispredicts | ns/op | cycles/op "
	"at %s MHz | measured / estimated cycles |\n"
	"|---|---|---|---|---|---|---|---|---|---|\n";
static const char perf_relate[] =
	"How they relate on this machine: the measured cycles per operation (ns/op x clock) are %s times the "
	"estimate at the median over the %zu entries with a benchmark, from %s (%s) to %s (%s). The estimate "
	"charges at least a cycle for every instruction fetch and data access; below 1, the core overlaps "
	"several of them per cycle (the hot checks, which also carry the driver's loop: see harness/empty); "
	"towards and above 1, time goes where the model is blind: the latency of the misses a deep "
	"out-of-order core cannot hide, atomics and locks, mispredictions, or the virtual machine's memory. "
	"The counts say *whether* a change added work or misses; ns/op says what the work costs here.\n\n";
static const char perf_no_relate[] =
	"How they relate on this machine: no entry has a benchmark run in results/bench/bench.json.\n\n";
static const char perf_thresholds[] =
	"The gate's thresholds in force (`bench/perf/thresholds.csv`; growth over the base that fails an entry, "
	"the last matching line winning; \"-\": shown, never gating):\n\n"
	"| entries | figure | threshold | reason |\n|---|---|---|---|\n";
static const char perf_chart[] =
	"![estimated cycles per entry across commits](plots/history.png)\n\n"
	"Estimated cycles per operation per entry at each baseline refresh (results/baseline/history.csv, "
	"one row per entry per `make perf-baseline`), log scale.\n\n";

struct entry {
	const char *name, *what, *bench;
	double ir, est, d1, ll, bmiss;
};

struct ratio {
	double v;
	const char *name;
};

static int cmp_ratio(const void *a, const void *b)
{
	const struct ratio *x = a, *y = b;
	return x->v != y->v ? (x->v < y->v ? -1 : 1) : strcmp(x->name, y->name);
}

static const char *cell(double v, int d)
{
	return isnan(v) ? "-" : rp_fmt(v, d);
}

static void write_history(struct br_in *in, const struct entry *now, size_t n)
{
	char path[SR_PATH_MAX + 64];
	snprintf(path, sizeof(path), "%s/baseline/history.csv", in->results);
	static const char *const want[] = { "commit", "date", "entry", "ir", "est_cycles", NULL };
	struct sim_csv h;
	br_csv(in, &h, path, want);
	if (!h.present) {
		br_error(in, SIM_CSV_BAD, "cannot read %s (the perf history): no such file", path);
		sim_csv_free(&h);
		return;
	}
	for (size_t i = 0; i < 5 && i < h.ncols; i++)
		if (strcmp(h.col[i], want[i]) != 0) {
			br_error(in, SIM_CSV_BAD, "%s:1: unexpected header (commit,date,entry,ir,est_cycles first)", path);
			sim_csv_free(&h);
			return;
		}
	struct sr_buf *out = br_data(in, "history.dat"), *vars = br_data(in, "history_vars.gp");
	if (!out || !vars) {
		sim_csv_free(&h);
		return;
	}
	sr_puts(out, "commit");
	for (size_t e = 0; e < n; e++)
		sr_printf(out, " %s", now[e].name);
	sr_puts(out, "\n");
	for (size_t i = 0; i < h.nrows; i++) {
		if (h.nf[i] < 5) {
			br_error(in, SIM_CSV_BAD, "%s:%ld: a short row (%zu fields)", path, h.line[i], h.nf[i]);
			break;
		}
		bool first = true;
		for (size_t k = 0; k < i && first; k++)
			first = strcmp(h.row[k][0], h.row[i][0]) != 0;
		if (!first)
			continue; /* each commit once, where it first appears */
		sr_puts(out, h.row[i][0]);
		for (size_t e = 0; e < n; e++) {
			const char *est = "NaN"; /* the last row of (commit, entry) */
			for (size_t k = 0; k < h.nrows; k++)
				if (h.nf[k] >= 5 && strcmp(h.row[k][0], h.row[i][0]) == 0 && strcmp(h.row[k][2], now[e].name) == 0)
					est = h.row[k][4];
			sr_printf(out, " %s", est);
		}
		sr_puts(out, "\n");
	}
	sr_printf(vars, "history_cols = %zu\n", n + 1);
	sim_csv_free(&h);
}

void br_perf(struct br_in *in, struct sr_buf *o)
{
	char path[SR_PATH_MAX + 64];
	snprintf(path, sizeof(path), "%s/bench/perf.json", in->results);
	struct sim_json j;
	int rc = br_json(in, path, &j);
	if (rc == 0)
		br_error(in, SIM_CSV_BAD, "missing %s (bench/perf/run.sh, a step of make bench, writes it)", path);
	if (rc <= 0)
		return;
	const struct sim_json *list = br_jget(in, path, &j, "entries", SIM_JSON_ARRAY);
	size_t n = list ? list->n : 0;
	struct entry *e = calloc(n + 1, sizeof(*e));
	struct ratio *r = calloc(n + 1, sizeof(*r));
	size_t nr = 0;
	if (!e || !r) {
		br_error(in, SIM_CSV_FAIL, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < n; i++) {
		const struct sim_json *x = &list->items[i];
		const struct sim_json *bench = sim_json_get(x, "bench");
		e[i] = (struct entry){ br_jstr(in, path, x, "name"), br_jstr(in, path, x, "what"),
				       br_jnone(bench) ? "" : br_jstr(in, path, x, "bench"),
				       br_jnum(in, path, x, "ir"), br_jnum(in, path, x, "est_cycles"),
				       br_jnum(in, path, x, "d1_miss"), br_jnum(in, path, x, "ll_miss"),
				       br_jnum(in, path, x, "bmiss") };
	}
	if (list && n == 0)
		br_error(in, SIM_CSV_BAD, "%s: no entries", path);
	if (in->status)
		goto done;
	write_history(in, e, n);

	double mhz = in->bench.mhz;
	const char *valgrind = sim_json_str(&j, "valgrind"), *opts = sim_json_str(&j, "callgrind_options");
	const char *commit = sim_json_str(&j, "commit"), *compiler = sim_json_str(&j, "compiler");
	sr_printf(o, perf_intro, valgrind ? valgrind : "valgrind", opts ? opts : "", commit ? commit : "?",
		  compiler ? compiler : "?", isnan(mhz) ? "-" : rp_fmt(mhz, 0));
	for (size_t i = 0; i < n; i++) {
		double ns = *e[i].bench ? br_ns(in, "%s", e[i].bench) : NAN;
		double cycles = ns * mhz / 1000.0, ratio = cycles / e[i].est;
		sr_printf(o, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", e[i].name, e[i].what,
			  rp_fmt(e[i].ir, 1), rp_fmt(e[i].est, 1), rp_fmt(e[i].d1, 3), rp_fmt(e[i].ll, 3),
			  rp_fmt(e[i].bmiss, 3), cell(ns, 2), cell(cycles, 1), cell(ratio, 2));
		if (!isnan(ratio))
			r[nr++] = (struct ratio){ ratio, e[i].name };
	}
	sr_puts(o, "\n");
	if (nr) {
		qsort(r, nr, sizeof(*r), cmp_ratio);
		sr_printf(o, perf_relate, rp_fmt(r[nr / 2].v, 2), nr, rp_fmt(r[0].v, 2), r[0].name, rp_fmt(r[nr - 1].v, 2),
			  r[nr - 1].name);
	} else {
		sr_puts(o, perf_no_relate);
	}
	/* the thresholds in force when the figures were taken (perf.py measure writes them) */
	const struct sim_json *th = sim_json_get(&j, "thresholds");
	if (th) {
		sr_puts(o, perf_thresholds);
		for (size_t i = 0; th->type == SIM_JSON_ARRAY && i < th->n; i++) {
			const struct sim_json *t = &th->items[i], *v = sim_json_get(t, "threshold");
			const char *entry = br_jstr(in, path, t, "entry"), *figure = br_jstr(in, path, t, "figure");
			const char *limit = br_jnone(v) ? "-"
					    : rp_str("+%s%%", rp_fmt(br_jnum(in, path, t, "threshold"), 1));
			sr_printf(o, "| `%s` | %s | %s | %s |\n", entry, figure, limit, br_jstr(in, path, t, "reason"));
		}
		sr_puts(o, "\n");
	}
	sr_puts(o, perf_chart);
done:
	free(e);
	free(r);
	sim_json_free(&j);
}
