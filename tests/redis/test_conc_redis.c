/*
 * test_conc_redis.c - exact under concurrency: THREADS threads, each with
 * its own connection, released together by a barrier, hammer one key at
 * one instant (pipelined batches and single calls mixed); for every
 * algorithm the admitted total equals what one client deciding the same
 * requests in order admits (B, B + 1 for leaky_bucket, N for the windows):
 * no overshoot, no lost update. Against a real redis-server the test
 * starts.
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "redis_harness.h"

#include "ratelab/algo.h"
#include "ratelab/redis.h"

enum { THREADS = 8, PER_THREAD = 300, BATCH = 10 };

static struct rh g_srv;

struct shared {
	pthread_barrier_t go;
	struct rl_redis_rule rule;
	const char *key;
	int64_t now_ns;
};

struct worker {
	struct shared *sh;
	long admitted, other; /* other: fallbacks or errors, which must stay 0 */
};

static void *run(void *arg)
{
	struct worker *wk = arg;
	struct rl_redis_config cfg = { .port = g_srv.nodes[0].port, .command_timeout_ms = 10000,
				       .connect_timeout_ms = 5000, .ttl_grace_ms = 600000 };
	struct rl_redis *r = NULL;
	struct rl_redis_req q[BATCH];
	struct rl_redis_answer a[BATCH];

	if (rl_redis_create(&r, &cfg, NULL, 0)) {
		wk->other = PER_THREAD;
		pthread_barrier_wait(&wk->sh->go);
		return NULL;
	}
	for (int i = 0; i < BATCH; i++)
		q[i] = (struct rl_redis_req){ &wk->sh->rule, wk->sh->key, strlen(wk->sh->key), wk->sh->now_ns, 1 };
	pthread_barrier_wait(&wk->sh->go);
	for (int done = 0; done < PER_THREAD;) {
		int m = (done / BATCH) % 2 ? BATCH : 1;
		if (rl_redis_check_batch(r, q, (size_t)m, a) != RL_OK) {
			wk->other += m;
			done += m;
			continue;
		}
		for (int i = 0; i < m; i++) {
			if (a[i].fallback || a[i].rc < 0)
				wk->other++;
			else
				wk->admitted += a[i].rc;
		}
		done += m;
	}
	struct rl_redis_stats st;
	rl_redis_stats(r, &st);
	if (st.module != RH_WANT_MODULE)
		wk->other++; /* the module (or the scripts) where the server has the other */
	rl_redis_destroy(r);
	return NULL;
}

static void burst(const struct rl_algo *algo, struct rl_rule rule, int64_t now)
{
	struct shared sh = { .key = algo->name, .now_ns = now };
	struct rl_limiter lim;
	pthread_t th[THREADS];
	struct worker wk[THREADS];
	long admitted = 0, other = 0, want = 0;

	assert_int_equal(rl_limiter_init(&lim, algo, &rule, NULL, 0), RL_OK);
	sh.rule = (struct rl_redis_rule){ &lim, false, 0 };
	assert_int_equal(pthread_barrier_init(&sh.go, NULL, THREADS), 0);
	for (int i = 0; i < THREADS; i++) {
		wk[i] = (struct worker){ &sh, 0, 0 };
		assert_int_equal(pthread_create(&th[i], NULL, run, &wk[i]), 0);
	}
	for (int i = 0; i < THREADS; i++) {
		pthread_join(th[i], NULL);
		admitted += wk[i].admitted;
		other += wk[i].other;
	}
	pthread_barrier_destroy(&sh.go);

	void *st = calloc(1, algo->state_size);
	assert_non_null(st);
	for (int i = 0; i < THREADS * PER_THREAD; i++)
		want += rl_limiter_check(&lim, st, now, NULL);
	rl_limiter_release(&lim, st);
	free(st);
	if (admitted != want || other)
		fail_msg("%s: %ld admitted by %d racing clients, one client admits %ld (%ld not decided by Redis)",
			 algo->name, admitted, THREADS, want, other);
}

static void test_hot_key_exact(void **state)
{
	(void)state;
	size_t count;
	const struct rl_algo *const *all = rl_algo_all(&count);
	struct rl_rule rule = { 500, 1000000000, 700 };

	for (size_t a = 0; a < count; a++)
		burst(all[a], rule, 123456789);
}

int main(void)
{
	if (!rh_available(false))
		return 0;
	if (!rh_start_single(&g_srv)) {
		fprintf(stderr, "test_conc_redis: could not start redis-server\n");
		return 1;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hot_key_exact),
	};
	int failed = cmocka_run_group_tests(tests, NULL, NULL);
	rh_stop(&g_srv);
	return failed;
}
