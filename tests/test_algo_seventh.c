/*
 * test_algo_seventh.c - a seventh algorithm (tests/algo7/naive_log.c, an
 * exact sliding window over a plain array) listed through algo_list.h's
 * RL_ALGO_LIST_EXTRA runs through the store and the simulator with no code
 * outside algos/ knowing it; it must decide and answer exactly as
 * sliding_log. (Replay: tests/cli/algo7_replay.sh, on a ratelab built the
 * same way.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "algo7/naive_log.h"
#include "ratelab/sliding_log.h"
#include "ratelab/store.h"
#include "sim_run.h"

#define SEC 1000000000LL

static struct rl_limiter limiter(const struct rl_algo *algo, int64_t n, int64_t w)
{
	struct rl_rule rule = rl_rule_make(n, w);
	struct rl_limiter lim;
	char msg[160];

	if (rl_limiter_init(&lim, algo, &rule, msg, sizeof(msg)))
		fail_msg("%s", msg);
	return lim;
}

static struct rl_store *store_for(const struct rl_limiter *lim, size_t max_keys)
{
	struct rl_store_config cfg = { .limiter = lim, .max_keys = max_keys, .when_full = RL_FULL_EVICT };
	struct rl_store *s = NULL;

	assert_int_equal(rl_store_create(&s, &cfg), RL_OK);
	return s;
}

/* One line in the list: found by name, named in the list, last of seven. */
static void listed(void **unused)
{
	size_t n;
	const struct rl_algo *const *all = rl_algo_all(&n);
	const char *names = rl_algo_names();

	(void)unused;
	assert_int_equal(n, 7);
	assert_ptr_equal(all[6], &rl_naive_log_algo);
	assert_ptr_equal(rl_algo_find("naive_log"), &rl_naive_log_algo);
	assert_string_equal(names + strlen(names) - strlen(", naive_log"), ", naive_log");
	assert_non_null(strstr(names, "token_bucket, gcra"));
}

/* The store: every answer equal to sliding_log's, on a seeded random trace of 50 keys. */
static void store_matches_sliding_log(void **unused)
{
	struct rl_limiter seven = limiter(&rl_naive_log_algo, 7, 2 * SEC);
	struct rl_limiter ref = limiter(&rl_sliding_log_algo, 7, 2 * SEC);
	struct rl_store *s7 = store_for(&seven, 1000), *sr = store_for(&ref, 1000);
	struct rl_store_stats empty, held;
	uint64_t seed = 20261201, x = seed;
	int64_t t = 0;

	(void)unused;
	rl_store_stats(s7, &empty);
	for (int i = 0; i < 200000; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		char key[16];
		snprintf(key, sizeof(key), "k%u", (unsigned)(x >> 58) % 50);
		t += (int64_t)((x >> 20) % (SEC / 20));
		int64_t at = t - (int64_t)((x >> 40) % 3) * (SEC / 10); /* some times go backwards */
		at = at < 0 ? 0 : at;
		struct rl_decision got, want;
		int rg = rl_store_check(s7, key, strlen(key), at, &got);
		int rw = rl_store_check(sr, key, strlen(key), at, &want);
		if (rg != rw || memcmp(&got, &want, sizeof(got)) != 0)
			fail_msg("seed %llu request %d key %s at %lld: naive_log %d (rem %lld retry %lld reset %lld) "
				 "vs sliding_log %d (rem %lld retry %lld reset %lld)",
				 (unsigned long long)seed, i, key, (long long)at, rg, (long long)got.remaining,
				 (long long)got.retry_after_ns, (long long)got.reset_ns, rw, (long long)want.remaining,
				 (long long)want.retry_after_ns, (long long)want.reset_ns);
	}
	rl_store_stats(s7, &held);
	assert_true(held.keys > 0);
	/* the keys' arrays are counted: at least one 4-entry array per stored key */
	assert_true(held.bytes >= empty.bytes + held.keys * 4 * sizeof(int64_t));
	rl_store_destroy(s7);
	rl_store_destroy(sr);
}

/* At the cap the store evicts the key whose quota is back soonest (its reset_ns). */
static void store_evicts_by_reset(void **unused)
{
	struct rl_limiter lim = limiter(&rl_naive_log_algo, 1, 10 * SEC);
	struct rl_store *s = store_for(&lim, 2);
	struct rl_store_stats st;

	(void)unused;
	assert_int_equal(rl_store_check(s, "a", 1, 0, NULL), RL_ALLOWED);
	assert_int_equal(rl_store_check(s, "b", 1, 5 * SEC, NULL), RL_ALLOWED);
	assert_int_equal(rl_store_check(s, "c", 1, 6 * SEC, NULL), RL_ALLOWED); /* evicts a: back at 10 s */
	rl_store_stats(s, &st);
	assert_int_equal(st.evicted_full, 1);
	assert_int_equal(rl_store_check(s, "b", 1, 6 * SEC, NULL), RL_REJECTED); /* b was kept */
	rl_store_destroy(s);
}

/* An algorithm setting some but not all of release, heap_bytes, reset_ns is refused. */
static void store_refuses_partial_ops(void **unused)
{
	struct rl_algo partial = rl_naive_log_algo;
	struct rl_limiter lim = limiter(&partial, 1, SEC);
	struct rl_store_config cfg = { .limiter = &lim, .max_keys = 10 };
	struct rl_store *s = NULL;

	(void)unused;
	partial.reset_ns = NULL;
	assert_int_equal(rl_store_create(&s, &cfg), RL_EINVAL);
	partial = rl_naive_log_algo;
	partial.heap_bytes = NULL;
	assert_int_equal(rl_store_create(&s, &cfg), RL_EINVAL);
	assert_null(s);
}

static void load(const char *ini, struct sim_scenario *sc)
{
	char dir[] = "/tmp/test_algo_seventh_XXXXXX", path[64], msg[700];

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/seventh.ini", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	assert_true(fputs(ini, f) >= 0);
	fclose(f);
	int rc = sim_scenario_load(path, sc, msg, sizeof(msg));
	unlink(path);
	rmdir(dir);
	if (rc)
		fail_msg("%s", msg);
}

/* The simulator: algos = naive_log is accepted and measures exactly as sliding_log. */
static void simulator_matches_sliding_log(void **unused)
{
	struct sim_scenario sc;
	struct sim_result r7, rl;
	struct sim_traffic tr;
	char msg[700];

	(void)unused;
	load("[scenario]\nlimit = 10\nwindow = 1s\nduration = 20s\nalgos = naive_log, sliding_log\n"
	     "[traffic p]\ntype = poisson\nkeys = 20\nload = 150\n"
	     "[traffic b]\ntype = onoff\nkeys = 3\non = 300ms\noff = 700ms\nclient = abusive\n", &sc);
	assert_int_equal(sc.algo_mask, (1u << 6) | (1u << 4));
	assert_int_equal(sim_traffic_create(&tr, &sc, sc.seed, msg, sizeof(msg)), RL_OK);
	assert_int_equal(sim_run(&tr, &rl_naive_log_algo, NULL, &r7), RL_OK);
	sim_traffic_destroy(&tr);
	assert_int_equal(sim_traffic_create(&tr, &sc, sc.seed, msg, sizeof(msg)), RL_OK);
	assert_int_equal(sim_run(&tr, &rl_sliding_log_algo, NULL, &rl), RL_OK);
	sim_traffic_destroy(&tr);
	assert_true(r7.requests > 1000);
	assert_true(r7.admitted < r7.requests);
	assert_int_equal(r7.requests, rl.requests);
	assert_int_equal(r7.admitted, rl.admitted);
	assert_int_equal(r7.false_allows, 0);
	assert_int_equal(r7.false_rejects, 0);
	assert_int_equal(r7.diverged_allows + r7.diverged_rejects, 0);
	assert_int_equal(r7.max_in_window, 10);
	/* its heap is measured: beyond the 24-byte state */
	assert_true(r7.state_bytes_max > (int64_t)sizeof(struct rl_naive_log));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(listed),
		cmocka_unit_test(store_matches_sliding_log),
		cmocka_unit_test(store_evicts_by_reset),
		cmocka_unit_test(store_refuses_partial_ops),
		cmocka_unit_test(simulator_matches_sliding_log),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
