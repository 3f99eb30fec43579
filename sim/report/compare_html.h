/*
 * compare_html.h - the page of `ratelab compare` (bench_cmp.h): one
 * self-contained HTML file (inline style, no script, no network): the
 * table of benchmarks in both runs with each verdict coloured, the
 * geometric-mean row, and the benchmarks of one run only.
 */
#ifndef RATELAB_SIM_COMPARE_HTML_H
#define RATELAB_SIM_COMPARE_HTML_H

#include <stdio.h>

#include "bench_cmp.h"

/* The marker the page begins with: a file that begins otherwise was not written by compare. */
#define SIM_COMPARE_HTML_MARK "<!DOCTYPE html>\n<!-- ratelab compare -->\n"

/*
 * Writes the page of c to f; old_name and new_name are the runs' files,
 * alpha and threshold_pct the verdict's rule. Returns 0, or -1 when a
 * write failed (ferror(f)).
 */
int sim_compare_html(FILE *f, const struct sim_bench_cmp *c, const char *old_name, const char *new_name,
		     double alpha, double threshold_pct);

#endif
