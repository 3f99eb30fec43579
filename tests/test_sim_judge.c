/*
 * test_sim_judge.c - the one judge of a run log (sim/engine/sim_judge.h),
 * which the simulator and the study share: on seeded random multi-key
 * traces (times not going back per key, costs 1..5, verdicts at random)
 * against a plain list of every admitted (time, units) per key, counted
 * over (t - W, t] at each request; and its boundaries: N units exact and
 * N + 1 not, a run at t - W + 1 counted and at t - W expired, a window of
 * exactly UINT32_MAX units recorded and one unit more RL_EFULL with the log
 * unchanged. A failing seed is printed; RL_SEED=<it> replays it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "sim_judge.h"
#include "test_rng.h"

#define KEYS 4
#define STEPS 4000

struct admitted {
	int64_t t, units;
};

/* The model: every admission kept; the window's count summed from scratch. */
static int64_t model_count(const struct admitted *a, size_t n, int64_t t, int64_t window_ns)
{
	int64_t sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += a[i].t > t - window_ns && a[i].t <= t ? a[i].units : 0;
	return sum;
}

static void test_against_model(void **state)
{
	(void)state;
	uint64_t seed0 = t_seed_from_env(0x5eed);
	for (uint64_t round = 0; round < 20; round++) {
		uint64_t seed = seed0 + round, s = seed;
		int64_t window_ns = 1 + (int64_t)(t_splitmix(&s) % 1000), limit = 1 + (int64_t)(t_splitmix(&s) % 20);
		struct rl_runlog log[KEYS] = { 0 };
		struct admitted *adm[KEYS];
		size_t nadm[KEYS] = { 0 };
		int64_t now[KEYS] = { 0 }, peak = 0, model_peak = 0;
		for (int k = 0; k < KEYS; k++)
			assert_non_null(adm[k] = calloc(STEPS, sizeof(*adm[k])));
		for (int i = 0; i < STEPS; i++) {
			int k = (int)(t_splitmix(&s) % KEYS);
			now[k] += (int64_t)(t_splitmix(&s) % 4 == 0 ? 0 : t_splitmix(&s) % (uint64_t)(window_ns / 2 + 2));
			int64_t t = now[k], c = 1 + (int64_t)(t_splitmix(&s) % 5);
			int v = (int)(t_splitmix(&s) % 2);
			int64_t before = model_count(adm[k], nadm[k], t, window_ns);
			bool exact = sim_judge_exact(&log[k], window_ns, limit, t, c);
			if ((int64_t)log[k].total != before || exact != (before + c <= limit))
				fail_msg("seed %llu, step %d, key %d, t %lld: the log holds %llu, the model %lld (exact %d)",
					 (unsigned long long)seed, i, k, (long long)t, (unsigned long long)log[k].total, (long long)before, exact);
			if (v) {
				assert_int_equal(sim_judge_admit(&log[k], t, c), RL_OK);
				adm[k][nadm[k]++] = (struct admitted){ t, c };
				if ((int64_t)log[k].total > peak)
					peak = log[k].total;
				int64_t after = model_count(adm[k], nadm[k], t, window_ns);
				if (after > model_peak)
					model_peak = after;
			}
		}
		if (peak != model_peak)
			fail_msg("seed %llu: the largest window %lld, the model's %lld", (unsigned long long)seed,
				 (long long)peak, (long long)model_peak);
		for (int k = 0; k < KEYS; k++) {
			rl_runlog_free(&log[k]);
			free(adm[k]);
		}
	}
}

static void test_boundaries(void **state)
{
	(void)state;
	struct rl_runlog log = { 0 };
	/* N exactly is exact, one unit past it is not */
	assert_true(sim_judge_exact(&log, 10, 3, 0, 3));
	assert_false(sim_judge_exact(&log, 10, 3, 0, 4));
	/* the window is (t - W, t]: a run at t - W + 1 counts, one at t - W no more */
	assert_int_equal(sim_judge_admit(&log, 0, 2), RL_OK);
	assert_false(sim_judge_exact(&log, 10, 2, 9, 1));
	assert_int_equal(log.total, 2);
	assert_true(sim_judge_exact(&log, 10, 2, 10, 1));
	assert_int_equal(log.total, 0);
	/* a window of exactly INT64_MAX units is recorded; one unit more is RL_EFULL, the log unchanged */
	assert_int_equal(sim_judge_admit(&log, 20, INT64_MAX - 1), RL_OK);
	assert_true(sim_judge_exact(&log, 10, INT64_MAX, 21, 1));
	assert_int_equal(sim_judge_admit(&log, 21, 1), RL_OK);
	assert_int_equal(log.total, INT64_MAX);
	assert_int_equal(log.len, 2);
	assert_int_equal(sim_judge_admit(&log, 22, 1), RL_EFULL);
	assert_int_equal(log.total, INT64_MAX);
	assert_int_equal(log.len, 2);
	rl_runlog_free(&log);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_against_model),
		cmocka_unit_test(test_boundaries),
	};
	return cmocka_run_group_tests_name("sim_judge", tests, NULL, NULL);
}
