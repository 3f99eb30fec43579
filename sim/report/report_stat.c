/*
 * report_stat.c - ranges and CVs around the one median (sim/base/stat.h),
 * report_stat.h, and the tables' number formats.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_stat.h"
#include "stat.h"

struct rp_stat rp_stat_none(void)
{
	return (struct rp_stat){ NAN, NAN, NAN, NAN, 0 };
}

struct rp_stat rp_stat_of(double *v, size_t n)
{
	struct rp_stat s = rp_stat_none();
	n = sim_stat_sort(v, n);
	s.n = n;
	if (n == 0)
		return s;
	s.median = sim_stat_median_sorted(v, n);
	s.min = v[0];
	s.max = v[n - 1];
	if (n >= 2) {
		double mean = 0, var = 0;
		for (size_t i = 0; i < n; i++)
			mean += v[i];
		mean /= (double)n;
		for (size_t i = 0; i < n; i++)
			var += (v[i] - mean) * (v[i] - mean);
		var /= (double)(n - 1);
		s.cv = mean > 0 ? sqrt(var) / mean : NAN;
	}
	return s;
}

static char *next_buf(void)
{
	static char bufs[RP_FMT_BUFS][RP_FMT_LEN];
	static unsigned next;
	return bufs[next++ % RP_FMT_BUFS];
}

const char *rp_str(const char *fmt, ...)
{
	char *b = next_buf();
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(b, RP_FMT_LEN, fmt, ap);
	va_end(ap);
	return b;
}

const char *rp_fmt(double v, int decimals)
{
	return isnan(v) ? "-" : rp_str("%.*f", decimals, v);
}

const char *rp_fmt_stat(struct rp_stat s, int decimals)
{
	if (!rp_measured(s))
		return "-";
	char med[64], lo[64], hi[64], cv[64] = "";
	snprintf(med, sizeof(med), "%.*f", decimals, s.median);
	snprintf(lo, sizeof(lo), "%.*f", decimals, s.min);
	snprintf(hi, sizeof(hi), "%.*f", decimals, s.max);
	if (rp_noisy(s))
		snprintf(cv, sizeof(cv), " (CV %.0f%%)", 100 * s.cv);
	if (strcmp(lo, hi) != 0)
		return rp_str("%s [%s\xe2\x80\x93%s]%s", med, lo, hi, cv);
	return rp_str("%s%s", med, cv);
}

const char *rp_gnum(double v)
{
	return isnan(v) ? "NaN" : rp_str("%.6g", v);
}

void rp_vec_push(struct rp_vec *a, double x)
{
	if (a->oom)
		return;
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 16;
		double *v = realloc(a->v, cap * sizeof(*v));
		if (!v) {
			a->oom = true;
			return;
		}
		a->v = v;
		a->cap = cap;
	}
	a->v[a->n++] = x;
}

void rp_vec_free(struct rp_vec *a)
{
	free(a->v);
	*a = (struct rp_vec){0};
}

struct rp_stat rp_vec_stat(struct rp_vec *a)
{
	return rp_stat_of(a->v, a->n);
}
