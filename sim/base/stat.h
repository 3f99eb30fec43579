/*
 * stat.h - the one median of sim/: ratelab compare's medians of
 * repetitions (bench_cmp.h) and the reports' medians, ranges and CVs
 * (report_stat.h) all take it from here, so that "the median" of a figure
 * means the same in every command's output.
 */
#ifndef RATELAB_SIM_STAT_H
#define RATELAB_SIM_STAT_H

#include <stddef.h>

/*
 * Moves the values of v[0..n) that are not NaN to its front, sorted
 * ascending (-0 and +0 equal, kept in qsort's order), and returns their
 * count; what lies after them is unspecified.
 */
size_t sim_stat_sort(double *v, size_t n);

/*
 * The median of the sorted v[0..n): the middle value for an odd n, the
 * mean of the middle two for an even n; NaN for n = 0.
 */
double sim_stat_median_sorted(const double *v, size_t n);

/*
 * The median of v[0..n) without its NaNs (sim_stat_sort, then
 * sim_stat_median_sorted): NaN when n is 0 or every value is NaN; v is
 * reordered in place.
 */
double sim_median(double *v, size_t n);

#endif
