/*
 * batch_means.c - model: batch_means.h. The squares are summed around R
 * after R is known (two passes over the stored batches), never as
 * sum x^2 - n mean^2, which would cancel at these counts.
 */
#include "batch_means.h"

#include <math.h>

bool sim_batch_add(struct sim_batch_means *b, int64_t admitted, int64_t rejected)
{
	if (b->n == SIM_BATCH_MAX)
		return false;
	b->req[b->n] = (double)(admitted + rejected);
	b->rej[b->n] = (double)rejected;
	b->n++;
	b->requests += admitted + rejected;
	b->rejected += rejected;
	return true;
}

double sim_batch_rate(const struct sim_batch_means *b)
{
	return b->requests > 0 ? (double)b->rejected / (double)b->requests : NAN;
}

double sim_batch_se(const struct sim_batch_means *b)
{
	if (b->n < 2 || b->requests <= 0)
		return NAN;
	double r = sim_batch_rate(b), mean_req = (double)b->requests / (double)b->n, ss = 0;

	for (size_t i = 0; i < b->n; i++) {
		double d = b->rej[i] - r * b->req[i];
		ss += d * d;
	}
	return sqrt(ss / ((double)b->n * (double)(b->n - 1))) / mean_req;
}

double sim_batch_gap(const struct sim_batch_means *b, double p)
{
	double r = sim_batch_rate(b), se = sim_batch_se(b);
	double floor = b->requests > 0 ? sqrt(p * (1 - p) / (double)b->requests) : NAN;

	if (r == 0 && p == 0)
		return 0;
	se = isnan(se) || se < floor ? floor : se;
	return (r - p) / se;
}
