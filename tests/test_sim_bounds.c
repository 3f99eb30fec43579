/*
 * test_sim_bounds.c - the simulator against the algorithms' closed-form
 * bounds: token_bucket and gcra never admit more than B + N*d/W in a closed
 * interval of length d; on the boundary attack fixed_window admits exactly
 * 2N in one window of length W and sliding_log never more than N; the
 * adversary finds at least the known worst cases (2N for fixed_window,
 * B + N in a closed window of length W for token_bucket); and a run is a
 * pure function of the scenario and the seed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ratelab/algo.h"
#include "sim_run.h"

#define MAX_KEYS 8

/* Admitted times per key, in the order decided (non-decreasing). */
struct admitted {
	int64_t *t[MAX_KEYS];
	size_t n[MAX_KEYS], cap[MAX_KEYS];
	uint64_t digest; /* of every (t, key, verdict) */
};

static void record(void *arg, int64_t t, uint32_t key, int verdict)
{
	struct admitted *a = arg;

	a->digest = (a->digest ^ (uint64_t)t ^ ((uint64_t)key << 48) ^ (uint64_t)verdict) * 0x100000001b3ull;
	if (!verdict)
		return;
	assert_true(key < MAX_KEYS);
	if (a->n[key] == a->cap[key]) {
		a->cap[key] = a->cap[key] ? 2 * a->cap[key] : 256;
		a->t[key] = realloc(a->t[key], a->cap[key] * sizeof(int64_t));
		assert_non_null(a->t[key]);
	}
	a->t[key][a->n[key]++] = t;
}

static void admitted_free(struct admitted *a)
{
	for (int k = 0; k < MAX_KEYS; k++)
		free(a->t[k]);
	memset(a, 0, sizeof(*a));
}

/* Most admitted times of one key inside a closed interval [s, s + d]: two pointers. */
static int64_t max_in_closed(const struct admitted *a, int64_t d)
{
	int64_t best = 0;

	for (int k = 0; k < MAX_KEYS; k++)
		for (size_t i = 0, j = 0; j < a->n[k]; j++) {
			while (a->t[k][j] - a->t[k][i] > d)
				i++;
			if ((int64_t)(j - i + 1) > best)
				best = (int64_t)(j - i + 1);
		}
	return best;
}

static void load(const char *ini, struct sim_scenario *sc)
{
	char path[] = "/tmp/test_sim_XXXXXX";
	char msg[600];
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, ini, strlen(ini)), (ssize_t)strlen(ini));
	close(fd);
	int rc = sim_scenario_load(path, sc, msg, sizeof(msg));
	if (rc)
		fprintf(stderr, "%s\n", msg);
	unlink(path);
	assert_int_equal(rc, 0);
}

static void run(const struct sim_scenario *sc, const char *algo, uint64_t seed, struct admitted *a,
		struct sim_result *res)
{
	struct sim_traffic tr;
	char msg[600];
	struct sim_hooks h = { .on_decision = record, .arg = a };

	memset(a, 0, sizeof(*a));
	assert_int_equal(sim_traffic_create(&tr, sc, seed, msg, sizeof(msg)), 0);
	assert_int_equal(sim_run(&tr, rl_algo_find(algo), &h, res), 0);
	sim_traffic_destroy(&tr);
}

static const char bursty[] =
	"[scenario]\nlimit = 10\nwindow = 1s\nburst = 4\nduration = 40s\n"
	"[traffic bursts]\ntype = onoff\nload = 400\nkeys = 3\non = 500ms\noff = 1s\n"
	"[traffic steady]\ntype = poisson\nload = 150\nkeys = 2\n";

static void buckets_respect_b_plus_nd_over_w(void **unused)
{
	(void)unused;
	const char *algos[] = { "token_bucket", "gcra" };
	const int64_t ds[] = { 0, 1, 99999999, 100000000, 250000000, 500000000, 1000000000, 3000000000 };
	struct sim_scenario sc;
	struct admitted a;
	struct sim_result res;

	load(bursty, &sc);
	for (int i = 0; i < 2; i++) {
		run(&sc, algos[i], 7, &a, &res);
		assert_true(res.admitted > 500);
		for (size_t j = 0; j < sizeof(ds) / sizeof(ds[0]); j++) {
			int64_t bound = sc.rule.burst + sc.rule.limit * ds[j] / sc.rule.window_ns;
			int64_t got = max_in_closed(&a, ds[j]);
			assert_true(got <= bound);
		}
		admitted_free(&a);
	}
}

static const char boundary[] =
	"[scenario]\nlimit = 50\nwindow = 1s\nduration = 10s\n"
	"[traffic attack]\ntype = boundary\nkeys = 2\ngap = 1ns\nevery = 2\n";

static void boundary_attack_fixed_window_2n_sliding_log_n(void **unused)
{
	(void)unused;
	struct sim_scenario sc;
	struct admitted a;
	struct sim_result res;

	load(boundary, &sc);
	run(&sc, "fixed_window", 1, &a, &res);
	assert_int_equal(res.max_in_window, 2 * sc.rule.limit);
	assert_int_equal(max_in_closed(&a, sc.rule.window_ns - 1), 2 * sc.rule.limit);
	assert_int_equal(res.false_rejects, 0);
	assert_true(res.false_allows > 0);
	admitted_free(&a);

	run(&sc, "sliding_log", 1, &a, &res);
	assert_int_equal(res.max_in_window, sc.rule.limit);
	assert_int_equal(max_in_closed(&a, sc.rule.window_ns - 1), sc.rule.limit);
	assert_int_equal(res.false_allows + res.false_rejects, 0);
	admitted_free(&a);
}

static const char adversary[] =
	"[scenario]\nlimit = 20\nwindow = 1s\nburst = 30\nduration = 20s\n"
	"[traffic greedy]\ntype = adversary\nrounds = 6\n";

static void adversary_finds_known_worst_cases(void **unused)
{
	(void)unused;
	struct sim_scenario sc;
	struct admitted a;
	struct sim_result res;
	int64_t n, b, w;

	load(adversary, &sc);
	n = sc.rule.limit, b = sc.rule.burst, w = sc.rule.window_ns;

	run(&sc, "fixed_window", 3, &a, &res);
	printf("# adversary: fixed_window %lld in a window of W (2N = %lld)\n", (long long)res.max_in_window,
	       (long long)(2 * n));
	assert_true(res.max_in_window >= 2 * n);
	admitted_free(&a);

	run(&sc, "token_bucket", 3, &a, &res);
	int64_t closed = max_in_closed(&a, w);
	printf("# adversary: token_bucket %lld in [t, t + W] (B + N = %lld), %lld in (t - W, t]\n",
	       (long long)closed, (long long)(b + n), (long long)res.max_in_window);
	assert_true(closed >= b + n);
	assert_int_equal(closed, b + n); /* and never more: the bound is tight */
	assert_true(res.max_in_window >= b + n - 1);
	admitted_free(&a);

	run(&sc, "sliding_log", 3, &a, &res);
	assert_int_equal(res.max_in_window, n);
	admitted_free(&a);
}

static const char mixed[] =
	"[scenario]\nlimit = 10\nwindow = 1s\nduration = 30s\n"
	"[traffic a]\ntype = poisson\nload = 120\nkeys = 3\nclient = polite\n"
	"[traffic b]\ntype = diurnal\nload = 150\nkeys = 2\nperiod = 10s\nclient = abusive\n"
	"[traffic c]\ntype = constant\nload = 90\nkeys = 2\nzipf = 1.2\n";

static void same_seed_same_run(void **unused)
{
	(void)unused;
	struct sim_scenario sc;
	struct admitted a1, a2;
	struct sim_result r1, r2;

	load(mixed, &sc);
	run(&sc, "sliding_counter", 11, &a1, &r1);
	run(&sc, "sliding_counter", 11, &a2, &r2);
	assert_true(r1.requests > 1000);
	assert_int_equal(a1.digest, a2.digest);
	r1.cpu_s = r2.cpu_s = 0;
	assert_memory_equal(&r1, &r2, sizeof(r1));
	admitted_free(&a2);
	run(&sc, "sliding_counter", 12, &a2, &r2);
	assert_true(a1.digest != a2.digest);
	admitted_free(&a1);
	admitted_free(&a2);
}

static void bad_scenario_names_file_and_line(void **unused)
{
	(void)unused;
	char path[] = "/tmp/test_sim_XXXXXX";
	const char ini[] = "[scenario]\nlimit = 10\nwindow = 1 s\n";
	char msg[600], want[64];
	struct sim_scenario sc;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, ini, strlen(ini)), (ssize_t)strlen(ini));
	close(fd);
	assert_int_equal(sim_scenario_load(path, &sc, msg, sizeof(msg)), RL_EINVAL);
	snprintf(want, sizeof(want), "%s:3: window", path);
	assert_non_null(strstr(msg, want));
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(buckets_respect_b_plus_nd_over_w),
		cmocka_unit_test(boundary_attack_fixed_window_2n_sliding_log_n),
		cmocka_unit_test(adversary_finds_known_worst_cases),
		cmocka_unit_test(same_seed_same_run),
		cmocka_unit_test(bad_scenario_names_file_and_line),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
