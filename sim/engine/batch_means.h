/*
 * batch_means.h - a rejection rate measured by the simulator, with its
 * standard error by batch means, and its gap to a closed form (theory.h).
 *
 * Each bucket of a run's time series (its admitted and rejected counts)
 * is one batch; the first buckets of a run, its warm-up from an empty
 * state, are left out by the caller. Batches of several runs (seeds) pool.
 * The rate is the ratio estimator R = sum rejected / sum requests, and its
 * standard error the batch-means one for a ratio:
 *     SE^2 = sum_b (rej_b - R req_b)^2 / (nb (nb - 1) mean_req^2),
 * valid when a batch is long against the system's relaxation time (the
 * theory scenarios' batches are 100 s against seconds). The gap to a
 * theory value p is (R - p) / max(SE, sqrt(p (1 - p) / requests)): the
 * binomial floor keeps a point whose rare rejections never happened in the
 * run from dividing by 0. A point is consistent with its theory when
 * |gap| <= SIM_THEORY_MAX_GAP.
 *
 * Plain struct, valid when zeroed; at most SIM_BATCH_MAX batches.
 */
#ifndef RATELAB_SIM_BATCH_MEANS_H
#define RATELAB_SIM_BATCH_MEANS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SIM_BATCH_MAX 4096
#define SIM_THEORY_MAX_GAP 5.0 /* standard errors */

struct sim_batch_means {
	size_t n;                 /* batches */
	int64_t requests, rejected;
	double req[SIM_BATCH_MAX]; /* per batch: requests */
	double rej[SIM_BATCH_MAX]; /* per batch: rejected */
};

/* Adds one batch; false (nothing added) when SIM_BATCH_MAX are held. */
bool sim_batch_add(struct sim_batch_means *b, int64_t admitted, int64_t rejected);

/* R, the rejected share of the requests (NaN without requests). */
double sim_batch_rate(const struct sim_batch_means *b);

/* The batch-means standard error of R (NaN with fewer than 2 batches). */
double sim_batch_se(const struct sim_batch_means *b);

/* (R - p) / max(SE, sqrt(p (1 - p) / requests)); 0 when both R and p are 0. */
double sim_batch_gap(const struct sim_batch_means *b, double p);

#endif
