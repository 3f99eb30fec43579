/*
 * stat.c - the median (stat.h).
 */
#include <math.h>
#include <stdlib.h>

#include "stat.h"

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

size_t sim_stat_sort(double *v, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!isnan(v[i]))
			v[k++] = v[i];
	if (k > 1)
		qsort(v, k, sizeof(*v), by_value);
	return k;
}

double sim_stat_median_sorted(const double *v, size_t n)
{
	if (n == 0)
		return NAN;
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double sim_median(double *v, size_t n)
{
	return sim_stat_median_sorted(v, sim_stat_sort(v, n));
}
