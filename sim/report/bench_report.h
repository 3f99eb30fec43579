/*
 * bench_report.h - the report of a `make bench` run (`ratelab report`):
 * from RESULTS_DIR (bench/bench.json and the other JSON files of bench/, bench/env.txt,
 * bench/bytes_vs_limit.csv, sim/summary.csv, sim/diverged.csv,
 * sim/breaker.csv, sim/fleet.csv, sim/theory/, sim/weighted/,
 * baseline/history.csv) and the study notes' qualitative columns, writes
 * OUT_DIR/REPORT.md, OUT_DIR/report.html (self-contained: the PNG charts of
 * RESULTS_DIR/plots embedded as data: URIs), the chart data into
 * RESULTS_DIR/plots/data, and the README's tradeoff table (the text between
 * <!-- tradeoff:begin --> and <!-- tradeoff:end -->, nothing else).
 *
 * Statistics: a timed figure is the median of its repetitions with their
 * min-max range and coefficient of variation (CV, stddev / mean); a figure
 * whose CV exceeds 5% is marked. A simulator figure that depends on the seed
 * is the median over the seeds run, with its min-max range. A ranking or a
 * target verdict is stated only where the ranges do not overlap.
 *
 * Every file is built in memory first and written only when every input
 * was read and checked: beside its name (NAME.part, which must not exist),
 * then renamed over it.
 */
#ifndef RATELAB_SIM_BENCH_REPORT_H
#define RATELAB_SIM_BENCH_REPORT_H

#include <stdio.h>

struct bench_report_opts {
	const char *results;     /* RESULTS_DIR */
	const char *out;         /* where REPORT.md and report.html go; NULL: results */
	const char *qualitative; /* the study notes' CSV (algo,accuracy,memory,bursts,choose_when,source) */
	const char *readme;      /* the README whose tradeoff table is rewritten; NULL: none */
	const char *mode;        /* "full" or "quick"; NULL: env.txt's mode=, else by the repetitions */
};

/*
 * Writes the report. Returns 0, or the `ratelab` exit status after its
 * messages on err ("ratelab report: ..."): 2 for bad or missing input
 * (named, with FILE:LINE where it has one), 1 for a failure of the machine
 * (I/O, memory).
 */
int bench_report(const struct bench_report_opts *o, FILE *err);

#endif
