/*
 * report_stat.h - the statistics both reports state (a figure measured
 * several times: its median, min-max range and coefficient of variation)
 * and the number formats of their tables. Shared by the bench report
 * (bench_*.c) and the study report.
 */
#ifndef RATELAB_SIM_REPORT_STAT_H
#define RATELAB_SIM_REPORT_STAT_H

#include <stdbool.h>
#include <stddef.h>

#include "compat.h"

/* The median, range and CV (stddev / mean, the sample stddev) of n samples;
 * min = max = median and cv NaN when n < 2; everything NaN and n 0 when
 * nothing was measured. Valid when set by rp_stat_none(). */
struct rp_stat {
	double median, min, max, cv;
	size_t n;
};

/* Nothing measured. */
struct rp_stat rp_stat_none(void);
/* Of v[0..n) (NaN samples dropped); v is sorted in place. The median is
 * sim/base/stat.h's, the one of every command (a lone median: sim_median). */
struct rp_stat rp_stat_of(double *v, size_t n);
static inline bool rp_measured(struct rp_stat s) { return s.n > 0; }
/* The CV is above 5%. */
static inline bool rp_noisy(struct rp_stat s) { return s.cv > 0.05; }
/* Neither range is strictly below the other. */
static inline bool rp_overlaps(struct rp_stat a, struct rp_stat b) { return !(a.max < b.min || b.max < a.min); }

/*
 * Formats. Each returns one of RP_FMT_BUFS static buffers, reused in turn,
 * so that up to that many can be used in one printf.
 */
#define RP_FMT_BUFS 32
#define RP_FMT_LEN 2048 /* bytes, the NUL included */
/* "%.*f", or "-" for NaN (not measured). */
const char *rp_fmt(double v, int decimals);
/* "median [min–max]" (the range only when its ends differ at that
 * precision), " (CV x%)" when the CV exceeds 5%; "-" when not measured. */
const char *rp_fmt_stat(struct rp_stat s, int decimals);
/* "%.6g", "NaN" for NaN: a number for gnuplot, which reads NaN as a missing point. */
const char *rp_gnum(double v);
/* printf into one of the static buffers (cut at RP_FMT_LEN - 1 bytes). */
const char *rp_str(const char *fmt, ...) RL_PRINTF(1, 2);

/* A growable array of doubles: appends never fail, oom is set instead. */
struct rp_vec {
	double *v;
	size_t n, cap;
	bool oom;
};
void rp_vec_push(struct rp_vec *a, double x);
void rp_vec_free(struct rp_vec *a);
/* rp_stat_of the vector's values (sorted in place). */
struct rp_stat rp_vec_stat(struct rp_vec *a);

#endif
