/*
 * mwu.h - the two-sided Mann-Whitney U test (Wilcoxon rank-sum) of two
 * samples, as scipy.stats.mannwhitneyu(x, y, alternative='two-sided')
 * computes it:
 *   U1 = R1 - n1 (n1 + 1) / 2 (R1: the rank sum of x, midranks for ties),
 *   U = max(U1, n1 n2 - U1);
 *   without ties and with n1, n2 <= SIM_MWU_EXACT_MAX, the exact p-value
 *   2 P(U' >= U) over the n1 n2 / 2-symmetric null distribution of U'
 *   (every arrangement of the ranks equally likely: scipy's method='exact');
 *   else the normal approximation with tie correction and continuity
 *   correction (scipy's method='asymptotic'):
 *   z = (U - n1 n2 / 2 - 0.5) / sqrt(n1 n2 / 12 ((n + 1) - sum(t^3 - t) / (n (n - 1)))),
 *   p = 2 (1 - Phi(z)), t each tie group's size, n = n1 + n2.
 * The p-value is clipped to [0, 1]; all values tied gives 1. With 5 against
 * 5 the smallest exact p-value is 2 / 252.
 */
#ifndef RATELAB_SIM_MWU_H
#define RATELAB_SIM_MWU_H

#include <stddef.h>

#define SIM_MWU_EXACT_MAX 50

/*
 * The test of x[0..n1) against y[0..n2) (n1, n2 >= 1, no NaN): 0 with *p
 * (and, when u1 is not NULL, U1 in *u1), or -1 out of memory.
 */
int sim_mwu_test(const double *x, size_t n1, const double *y, size_t n2, double *p, double *u1);

#endif
