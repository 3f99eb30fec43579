/*
 * sim_math.c - model: argument reduction by exact operations (frexp,
 * ldexp, symmetry of sin in quarter turns), then a short series on a small
 * interval: atanh series for ln, Taylor for exp and sin. Invariant: only
 * + - * / on doubles and exact scalings, evaluated in a fixed order.
 */
#include "sim_math.h"

#include <math.h>

#define LN2 0.6931471805599453094
#define LN2_HI 6.93147180369123816490e-01 /* ln 2, high 32 bits */
#define LN2_LO 1.90821492927058770002e-10 /* ln 2 - LN2_HI */
#define SQRT_HALF 0.7071067811865475244
#define TWO_PI 6.2831853071795864769

double sim_ln(double x)
{
	int e;
	double m = frexp(x, &e); /* x = m * 2^e, 0.5 <= m < 1 */

	if (m < SQRT_HALF) {
		m *= 2;
		e--;
	}
	/* ln m = 2 atanh(s), s = (m - 1) / (m + 1), |s| < 0.172 */
	double s = (m - 1) / (m + 1), z = s * s, sum = 0;

	for (int k = 19; k >= 1; k -= 2)
		sum = sum * z + 1.0 / k;
	return (double)e * LN2 + 2 * s * sum;
}

double sim_exp(double x)
{
	/* x = k ln2 + r, |r| <= ln2 / 2 */
	double kf = x / LN2;
	int k = (int)(kf < 0 ? kf - 0.5 : kf + 0.5);
	/* Cody-Waite: k * LN2_HI is exact, so r carries no error from ln 2's rounding */
	double r = (x - (double)k * LN2_HI) - (double)k * LN2_LO, term = 1, sum = 1;

	for (int i = 1; i <= 16; i++) {
		term = term * r / i;
		sum += term;
	}
	return ldexp(sum, k);
}

double sim_sin_turns(double turns)
{
	double sign = 1;

	if (turns >= 0.5) {
		turns -= 0.5;
		sign = -1;
	}
	if (turns > 0.25)
		turns = 0.5 - turns;
	double x = turns * TWO_PI, z = x * x, term = x, sum = x;

	for (int i = 1; i <= 9; i++) {
		term = -term * z / ((2 * i) * (2 * i + 1));
		sum += term;
	}
	return sign * sum;
}
