/*
 * bench_cmp.h - two runs of Google Benchmark compared (ratelab compare):
 * each run read from its --benchmark_out JSON file, each benchmark's
 * repetitions' wall times compared by their medians (stat.h) and the two-sided
 * Mann-Whitney U test (mwu.h).
 */
#ifndef RATELAB_SIM_BENCH_CMP_H
#define RATELAB_SIM_BENCH_CMP_H

#include <stddef.h>

/* A benchmark of a run: Google Benchmark's run_name and each repetition's real_time, in ns. */
struct sim_bench {
	char *name;
	double *ns;
	size_t n;
};

/* A run's benchmarks, in the order of their first entry in the file. */
struct sim_bench_run {
	struct sim_bench *b;
	size_t n;
};

enum { SIM_BENCH_OK = 0, SIM_BENCH_BAD = -1, SIM_BENCH_IO = -2 };

/*
 * Reads path, Google Benchmark's JSON (an object with a "benchmarks"
 * array; the bare NaN and inf it writes are read), into *run: the entries
 * of "run_type" "iteration" (each repetition of a benchmark), their
 * "real_time" converted to ns by "time_unit" (ns, us, ms or s); the
 * aggregates (mean, median, ...) are skipped. SIM_BENCH_OK; SIM_BENCH_BAD
 * when path cannot be opened or is not such a file (no entry of a
 * benchmark run, an entry without run_name, run_type, a positive finite
 * real_time or a known time_unit, or one that reported an error); or
 * SIM_BENCH_IO on a read error or out of memory; a failure's msg begins
 * with the quoted path, but for a text that is not JSON: json.h's
 * "PATH:LINE: why" (sim_json_error_text), as `ratelab report` says it.
 * *run is to be freed with sim_bench_run_free, also after a failure.
 */
int sim_bench_load(const char *path, struct sim_bench_run *run, char *msg, size_t msg_len);
void sim_bench_run_free(struct sim_bench_run *run);

/* pct as printed with 2 decimals: 0 when it would print as -0.00 or +0.00 (the sign of a rounding). */
double sim_bench_pct2(double pct);

enum sim_verdict { SIM_VERDICT_SAME, SIM_VERDICT_FASTER, SIM_VERDICT_SLOWER };

/* "~", "faster" or "slower". */
const char *sim_verdict_name(enum sim_verdict v);

/*
 * A benchmark of both runs: the medians (ns), the change of the median in
 * percent of the old one, the U test's p-value and the verdict: faster or
 * slower when p <= alpha and |change| >= threshold (percent), else ~.
 */
struct sim_bench_row {
	const char *name; /* the old run's */
	double old_median_ns, new_median_ns, change_pct, p_value;
	enum sim_verdict verdict;
};

/*
 * The comparison: a row per benchmark of both runs, in the old run's
 * order; the geometric means of both columns of medians and its change in
 * percent (the geometric mean of the ratios); the benchmarks of one run
 * only, by name (each run's, in its order).
 */
struct sim_bench_cmp {
	struct sim_bench_row *rows;
	size_t n;
	double geo_old_ns, geo_new_ns, geo_change_pct;
	const char **only_old, **only_new;
	size_t n_only_old, n_only_new;
	size_t slower, faster;
};

/*
 * Compares old_run with new_run (0 < alpha < 1, threshold_pct >= 0): SIM_BENCH_OK;
 * SIM_BENCH_BAD with msg when no benchmark is in both runs or one in both
 * has fewer than 2 repetitions in either (the U test needs 2 of each;
 * old_what and new_what name the runs in msg); SIM_BENCH_IO out of memory.
 * out refers to the runs' names: free it (sim_bench_cmp_free) before
 * them; also after a failure.
 */
int sim_bench_compare(const struct sim_bench_run *old_run, const struct sim_bench_run *new_run, double alpha,
		      double threshold_pct, const char *old_what, const char *new_what, struct sim_bench_cmp *out,
		      char *msg, size_t msg_len);
void sim_bench_cmp_free(struct sim_bench_cmp *c);

#endif
