/*
 * test_sim_theory.c - the simulator against queueing theory on a short
 * seeded run: every scenario of sim/scenarios/theory/ (its rule, burst and
 * traffic as written) with its duration cut to a tenth (in 25 batches), at the loads 50%,
 * 100% and 150% of its sweep, through every algorithm it names; each
 * algorithm with a closed form (theory.h) must measure a rejected share
 * within SIM_THEORY_MAX_GAP standard errors (batch means over the series'
 * buckets, the first dropped as warm-up: batch_means.h) of its theory.
 * Seeded: the run is the same every time, and the seed is printed with
 * any point that fails. And batch_means.h's arithmetic by hand.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "batch_means.h"
#include "ratelab/algo.h"
#include "ratelab/status.h"
#include "sim_run.h"
#include "sim_scenario.h"
#include "theory.h"

#ifndef THEORY_SCENARIO_DIR
#error "THEORY_SCENARIO_DIR: the directory of the theory scenarios"
#endif

#define SEED 36
#define CUT 10     /* the duration is cut to 1/CUT of the scenario's */
#define BATCHES 25 /* buckets of the shorter run: 40 s each, still long against the queues' memory */

static const char *const files[] = { "burst_1.ini", "burst_3.ini", "burst_10.ini", "burst_n.ini" };
static const int64_t loads[] = { 50, 100, 150 };

/* Runs algo on sc; adds the buckets after the first to *bm. */
static void run_point(const struct sim_scenario *sc, const struct rl_algo *algo, struct sim_batch_means *bm)
{
	struct sim_traffic tr;
	struct sim_result res;
	char msg[256];
	size_t nb = (size_t)((sc->duration_ns + sc->bucket_ns - 1) / sc->bucket_ns);
	int64_t *adm = calloc(nb, sizeof(*adm)), *rej = calloc(nb, sizeof(*rej));
	struct sim_hooks h = { .series_admitted = adm, .series_rejected = rej, .nbuckets = nb };

	assert_non_null(adm);
	assert_non_null(rej);
	assert_int_equal(sim_traffic_create(&tr, sc, SEED, msg, sizeof(msg)), RL_OK);
	assert_int_equal(sim_run(&tr, algo, &h, &res), RL_OK);
	for (size_t b = 1; b < nb; b++)
		assert_true(sim_batch_add(bm, adm[b], rej[b]));
	sim_traffic_destroy(&tr);
	free(adm);
	free(rej);
}

static void test_theory_scenarios(void **state)
{
	size_t nalgo, points = 0, failed = 0;
	const struct rl_algo *const *all = rl_algo_all(&nalgo);
	static struct sim_batch_means bm;

	(void)state;
	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		struct sim_scenario base, sc;
		char path[512], msg[512];

		snprintf(path, sizeof(path), "%s/%s", THEORY_SCENARIO_DIR, files[f]);
		if (sim_scenario_load(path, &base, msg, sizeof(msg)) != RL_OK)
			fail_msg("%s", msg);
		assert_int_equal(base.ntraffic, 1);
		assert_int_equal(base.traffic[0].type, SIM_TRAFFIC_POISSON);
		assert_int_equal(base.traffic[0].client, SIM_CLIENT_NONE);
		base.duration_ns /= CUT;
		base.bucket_ns = base.duration_ns / BATCHES;
		base.traffic[0].stop_ns = base.duration_ns;
		for (size_t l = 0; l < sizeof(loads) / sizeof(loads[0]); l++) {
			sim_scenario_at_load(&base, loads[l], &sc);
			double lambda = (double)loads[l] / 100 * (double)sc.rule.limit / ((double)sc.rule.window_ns / 1e9);
			for (size_t a = 0; a < nalgo; a++) {
				double p;
				if (!(sc.algo_mask & (1u << a)) ||
				    !sim_theory_reject(all[a]->name, (uint64_t)sc.rule.limit, sc.rule.window_ns,
						       (uint64_t)sc.rule.burst, lambda, &p))
					continue;
				memset(&bm, 0, sizeof(bm));
				run_point(&sc, all[a], &bm);
				double gap = sim_batch_gap(&bm, p);
				points++;
				printf("%-10s %-13s load %3lld%%: measured %.5f se %.5f theory %.5f gap %+.2f SE\n", sc.name,
				       all[a]->name, (long long)loads[l], sim_batch_rate(&bm), sim_batch_se(&bm), p, gap);
				if (!(fabs(gap) <= SIM_THEORY_MAX_GAP)) {
					printf("FAIL (seed %d): %s %s at load %lld%%: %.2f standard errors off theory\n",
					       SEED, sc.name, all[a]->name, (long long)loads[l], gap);
					failed++;
				}
			}
		}
	}
	/* 3 x 3 bucket points per burst, and the window algorithms once */
	assert_int_equal(points, 4 * 3 * 3 + 2 * 3);
	assert_int_equal(failed, 0);
}

/* batch_means.h by hand: three batches of 100 requests with 10, 20 and 30 rejected. */
static void test_batch_means_by_hand(void **state)
{
	static struct sim_batch_means b, none, full;

	(void)state;
	assert_true(isnan(sim_batch_rate(&none)) && isnan(sim_batch_se(&none)));
	assert_true(sim_batch_add(&b, 90, 10));
	assert_true(isnan(sim_batch_se(&b))); /* one batch: no spread */
	assert_true(sim_batch_add(&b, 80, 20));
	assert_true(sim_batch_add(&b, 70, 30));
	assert_int_equal(b.requests, 300);
	assert_int_equal(b.rejected, 60);
	/* R = 0.2; SE^2 = ((10 - 20)^2 + 0 + (30 - 20)^2) / (3 * 2 * 100^2) = 1 / 300 */
	assert_true(fabs(sim_batch_rate(&b) - 0.2) < 1e-15);
	assert_true(fabs(sim_batch_se(&b) - sqrt(1.0 / 300)) < 1e-15);
	assert_true(fabs(sim_batch_gap(&b, 0.1) - 0.1 / sqrt(1.0 / 300)) < 1e-12);
	/* no rejection where theory expects 1 in 1000: the binomial floor sqrt(p (1 - p) / n) */
	memset(&b, 0, sizeof(b));
	for (int i = 0; i < 100; i++)
		assert_true(sim_batch_add(&b, 100, 0));
	assert_true(sim_batch_se(&b) == 0);
	assert_true(fabs(sim_batch_gap(&b, 1e-3) - -1e-3 / sqrt(1e-3 * 0.999 / 1e4)) < 1e-9);
	assert_true(sim_batch_gap(&b, 0) == 0);
	/* full: refused, nothing counted */
	for (int i = 0; i < SIM_BATCH_MAX; i++)
		assert_true(sim_batch_add(&full, 1, 1));
	assert_false(sim_batch_add(&full, 5, 5));
	assert_int_equal(full.requests, 2 * SIM_BATCH_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_batch_means_by_hand),
		cmocka_unit_test(test_theory_scenarios),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
