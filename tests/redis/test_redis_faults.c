/*
 * test_redis_faults.c - the backend when Redis fails, against a real
 * redis-server the test starts, kills (SIGKILL), restarts on the same port
 * and stalls (SIGSTOP): every decision while Redis cannot answer is the
 * rule's policy (fail_open: allowed, fail_closed: rejected), made within
 * the rule's timeout plus a margin for a loaded machine; the counters
 * (decided, fallbacks, reconnects) match what happened; once Redis is back
 * the backend reconnects within the backoff and decides exactly again.
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "redis_harness.h"

#include "ratelab/algo.h"
#include "ratelab/redis.h"

/* The margin allows for a shared, loaded test machine (2 cores, load 10+). */
enum { TIMEOUT_MS = 150, MARGIN_MS = 850, BACKOFF_MAX_MS = 100, HEALTHY_MS = 10000 };

static struct rh g_srv;
static int g_port; /* the server's, or a port nobody listens on */

/* A fresh server for one test (its own port and directory). */
static void start_server(void)
{
	assert_true(rh_start_single(&g_srv));
	g_port = g_srv.nodes[0].port;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct fixture {
	struct rl_limiter lim;
	struct rl_redis_rule open_rule, closed_rule;
	struct rl_redis_rule healthy; /* fail closed, a long budget: a fallback shows as a rejection */
	struct rl_redis *r;
};

static void setup(struct fixture *f)
{
	struct rl_rule rule = { 1000, 1000000000, 1000 };
	struct rl_redis_config cfg = { .port = g_port, .command_timeout_ms = TIMEOUT_MS,
				       .connect_timeout_ms = TIMEOUT_MS, .backoff_min_ms = 5,
				       .backoff_max_ms = BACKOFF_MAX_MS, .ttl_grace_ms = 600000 };

	assert_int_equal(rl_limiter_init(&f->lim, &rl_fixed_window_algo, &rule, NULL, 0), RL_OK);
	f->open_rule = (struct rl_redis_rule){ &f->lim, false, 0 };
	f->closed_rule = (struct rl_redis_rule){ &f->lim, true, TIMEOUT_MS };
	f->healthy = (struct rl_redis_rule){ &f->lim, true, HEALTHY_MS };
	assert_int_equal(rl_redis_create(&f->r, &cfg, NULL, 0), RL_OK);
}

/* n decisions that Redis must make; they are all admitted. */
static void decided(struct fixture *f, int n, int64_t t)
{
	for (int i = 0; i < n; i++) {
		struct rl_decision d;
		int rc = rl_redis_check(f->r, &f->healthy, "k", 1, t, &d);
		assert_int_equal(rc, RL_ALLOWED);
	}
}

/*
 * n decisions while Redis cannot answer: each by its rule's policy, each
 * within the timeout and the margin. Returns how many.
 */
static int by_policy(struct fixture *f, int n, int64_t t)
{
	for (int i = 0; i < n; i++) {
		const struct rl_redis_rule *rule = i % 2 ? &f->closed_rule : &f->open_rule;
		int64_t t0 = now_ms();
		struct rl_redis_req q = { rule, "k", 1, t, 1 };
		struct rl_redis_answer a;
		assert_int_equal(rl_redis_check_batch(f->r, &q, 1, &a), RL_OK);
		int64_t took = now_ms() - t0;
		if (took > TIMEOUT_MS + MARGIN_MS)
			fail_msg("decision %d took %" PRId64 " ms, budget %d ms + %d ms margin", i, took,
				 TIMEOUT_MS, MARGIN_MS);
		assert_true(a.fallback);
		assert_int_equal(a.rc, rule->fail_closed ? RL_REJECTED : RL_ALLOWED);
	}
	return n;
}

/* Decides until Redis answers again (at most ~10 s); returns the fallbacks made meanwhile. */
static int until_recovered(struct fixture *f, int64_t t)
{
	int fallbacks = 0;
	for (int i = 0; i < 1000; i++) {
		struct rl_redis_req q = { &f->healthy, "k", 1, t, 1 };
		struct rl_redis_answer a;
		assert_int_equal(rl_redis_check_batch(f->r, &q, 1, &a), RL_OK);
		if (!a.fallback) {
			assert_int_equal(a.rc, RL_ALLOWED); /* the healthy rule fails closed */
			return fallbacks;
		}
		fallbacks++;
		rh_sleep_ms(10);
	}
	fail_msg("no recovery within 10 s: %s", rl_redis_error(f->r));
	return fallbacks;
}

static void test_sigkill_and_restart(void **state)
{
	(void)state;
	struct fixture f;
	struct rl_redis_stats st;

	start_server();
	setup(&f);
	decided(&f, 20, 5);
	rh_kill(&g_srv, 0);
	int fell = by_policy(&f, 40, 6);
	/* a batch falls back whole, and the errors name the server */
	struct rl_redis_req qs[8];
	struct rl_redis_answer as[8];
	for (int i = 0; i < 8; i++)
		qs[i] = (struct rl_redis_req){ &f.closed_rule, "k", 1, 7, 1 };
	assert_int_equal(rl_redis_check_batch(f.r, qs, 8, as), RL_OK);
	for (int i = 0; i < 8; i++)
		assert_true(as[i].fallback && as[i].rc == RL_REJECTED);
	fell += 8;
	assert_non_null(strstr(rl_redis_error(f.r), "redis 127.0.0.1:"));
	rl_redis_stats(f.r, &st);
	assert_int_equal(st.decided, 20);
	assert_int_equal(st.fallbacks, fell);
	assert_int_equal(st.reconnects, 0);
	assert_false(st.connected);

	assert_true(rh_restart(&g_srv, 0));
	fell += until_recovered(&f, 8);
	/* the restarted server lost the state: a fresh window, 999 left after the one above */
	struct rl_decision d;
	assert_int_equal(rl_redis_check(f.r, &f.open_rule, "k", 1, 8, &d), RL_ALLOWED);
	assert_int_equal(d.remaining, 998);
	rl_redis_stats(f.r, &st);
	assert_int_equal(st.decided, 22);
	assert_int_equal(st.fallbacks, fell);
	assert_int_equal(st.reconnects, 1);
	assert_int_equal(st.errors, 0);
	assert_true(st.connected);
	rl_redis_destroy(f.r);
	rh_stop(&g_srv);
}

static void test_sigstop_stall(void **state)
{
	(void)state;
	struct fixture f;
	struct rl_redis_stats st;

	start_server();
	setup(&f);
	decided(&f, 10, 5);
	kill(g_srv.nodes[0].pid, SIGSTOP);
	int fell = by_policy(&f, 12, 6);
	assert_non_null(strstr(rl_redis_error(f.r), "127.0.0.1"));
	kill(g_srv.nodes[0].pid, SIGCONT);
	fell += until_recovered(&f, 7);
	rl_redis_stats(f.r, &st);
	assert_int_equal(st.decided, 11);
	assert_int_equal(st.fallbacks, fell);
	assert_int_equal(st.reconnects, 1);
	rl_redis_destroy(f.r);
	rh_stop(&g_srv);
}

/* No server at all: every decision falls back, the first within the connect budget. */
static void test_never_up(void **state)
{
	(void)state;
	struct fixture f;
	struct rl_redis_stats st;

	g_port = rh_free_port();
	setup(&f);
	int fell = by_policy(&f, 20, 1);
	rl_redis_stats(f.r, &st);
	assert_int_equal(st.fallbacks, fell);
	assert_int_equal(st.decided + st.reconnects + st.errors, 0);
	assert_non_null(strstr(rl_redis_error(f.r), "Connection refused"));
	rl_redis_destroy(f.r);
}

int main(void)
{
	if (!rh_available(false))
		return 0;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sigkill_and_restart),
		cmocka_unit_test(test_sigstop_stall),
		cmocka_unit_test(test_never_up),
	};
	int failed = cmocka_run_group_tests(tests, NULL, NULL);
	rh_stop(&g_srv);
	return failed;
}
