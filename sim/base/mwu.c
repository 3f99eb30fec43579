/*
 * mwu.c - the Mann-Whitney U test (mwu.h). U is kept doubled (2 U1 =
 * 2 R1 - n1 (n1 + 1), midranks doubled are integers), so ranks are exact.
 * The exact null distribution counts, for n1 values among n1 + n2, the
 * arrangements with each U by the recurrence
 *   f(i, j, u) = f(i - 1, j, u - j) + f(i, j - 1, u),  f(0, j, 0) = f(i, 0, 0) = 1,
 * sums of positive terms only (no cancellation), in doubles (exact up to
 * 2^53; C(100, 50) is about 1e29, kept to 16 digits).
 */
#include "mwu.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct tagged {
	double v;
	bool in_x;
};

static int by_value(const void *a, const void *b)
{
	double x = ((const struct tagged *)a)->v, y = ((const struct tagged *)b)->v;
	return (x > y) - (x < y);
}

/* P(U' >= u) for U' the statistic of n1 against n2 under the null (u an integer). */
static int exact_sf(size_t n1, size_t n2, long long u, double *p)
{
	size_t umax = n1 * n2, w = umax + 1;
	double *prev = calloc((n2 + 1) * w, sizeof(double)), *cur = calloc((n2 + 1) * w, sizeof(double));

	if (!prev || !cur) {
		free(prev);
		free(cur);
		return -1;
	}
	/* i = 0: one arrangement, U' = 0, for every j */
	for (size_t j = 0; j <= n2; j++)
		prev[j * w] = 1;
	for (size_t i = 1; i <= n1; i++) {
		memset(cur, 0, (n2 + 1) * w * sizeof(double));
		cur[0] = 1;
		for (size_t j = 1; j <= n2; j++)
			for (size_t k = 0; k <= i * j; k++)
				cur[j * w + k] = (k >= j ? prev[j * w + k - j] : 0) + cur[(j - 1) * w + k];
		double *t = prev;
		prev = cur;
		cur = t;
	}
	double tail = 0, total = 0;
	for (size_t k = 0; k <= umax; k++) {
		total += prev[n2 * w + k];
		if ((long long)k >= u)
			tail += prev[n2 * w + k];
	}
	*p = tail / total;
	free(prev);
	free(cur);
	return 0;
}

int sim_mwu_test(const double *x, size_t n1, const double *y, size_t n2, double *p, double *u1)
{
	size_t n = n1 + n2;
	struct tagged *all = malloc(n * sizeof(*all));
	long long r1x2 = 0; /* x's rank sum, doubled */
	double tie_term = 0;
	bool ties = false;

	if (!all)
		return -1;
	for (size_t i = 0; i < n; i++)
		all[i] = (struct tagged){ i < n1 ? x[i] : y[i - n1], i < n1 };
	qsort(all, n, sizeof(*all), by_value);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && all[j].v == all[i].v; j++)
			;
		/* ranks i + 1 .. j share the midrank (i + 1 + j) / 2 */
		for (size_t k = i; k < j; k++)
			if (all[k].in_x)
				r1x2 += (long long)(i + 1 + j);
		double t = (double)(j - i);
		tie_term += t * t * t - t;
		ties = ties || j - i > 1;
	}
	free(all);
	long long u1x2 = r1x2 - (long long)(n1 * (n1 + 1)), ux2 = (long long)(2 * n1 * n2) - u1x2;
	if (u1x2 > ux2)
		ux2 = u1x2;
	if (u1)
		*u1 = (double)u1x2 / 2;
	double prob;
	if (!ties && n1 <= SIM_MWU_EXACT_MAX && n2 <= SIM_MWU_EXACT_MAX) {
		/* without ties U is an integer */
		if (exact_sf(n1, n2, ux2 / 2, &prob))
			return -1;
	} else {
		double nn = (double)n, m1 = (double)n1, m2 = (double)n2;
		double s = sqrt(m1 * m2 / 12 * ((nn + 1) - tie_term / (nn * (nn - 1))));
		double num = (double)ux2 / 2 - m1 * m2 / 2 - 0.5;
		prob = s > 0 ? 0.5 * erfc(num / s / sqrt(2.0)) : 1;
	}
	prob *= 2;
	*p = prob > 1 ? 1 : prob < 0 ? 0 : prob;
	return 0;
}
