/*
 * conformance.h - the Redis backend's conformance suite, shared by
 * test_redis.c (one redis-server) and test_redis_cluster_backend.c (a
 * 3-master Redis Cluster): seeded random multi-key traces through every
 * algorithm (batched and single calls, clock going backwards, times up to
 * 4 * 10^18, windows up to 10^18, costs 1..10^9) compared field by field
 * with the in-process algorithms, and the breaker with the in-process
 * breaker. The includer sets g_port (the server, or any cluster node) and
 * defines flushall() (every node emptied). A mismatch prints the seed.
 */
#ifndef RATELAB_TEST_REDIS_CONFORMANCE_H
#define RATELAB_TEST_REDIS_CONFORMANCE_H

#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ratelab/algo.h"
#include "ratelab/breaker.h"
#include "ratelab/redis.h"
#include "redis_harness.h"
#include "../test_rng.h"

static int g_port;
static void flushall(void);

static uint64_t g_seed = 0x5eed13a;

/* Uniform in [0, n), n >= 1. */
static int64_t below(uint64_t *s, int64_t n)
{
	return (int64_t)(t_splitmix(s) % (uint64_t)n);
}

/* Log-uniform in [1, max]. */
static int64_t loguni(uint64_t *s, int64_t max)
{
	int bits = 1 + (int)below(s, 63);
	int64_t cap = bits >= 63 ? max : (int64_t)1 << bits;
	if (cap > max)
		cap = max;
	return 1 + below(s, cap);
}

static struct rl_redis *connect_to(int port, int64_t grace_ms)
{
	struct rl_redis_config cfg = { .port = port, .ttl_grace_ms = grace_ms, .command_timeout_ms = 5000,
				       .connect_timeout_ms = 2000 };
	struct rl_redis *r = NULL;
	char msg[160];

	assert_int_equal(rl_redis_create(&r, &cfg, msg, sizeof(msg)), RL_OK);
	return r;
}

/* The backend decided with the module exactly when the servers load it. */
static void expect_mode(const struct rl_redis *r)
{
	struct rl_redis_stats st;

	rl_redis_stats(r, &st);
	if (st.module != RH_WANT_MODULE)
		fail_msg("the backend used the %s, the servers %s ratelab.so", st.module ? "module" : "scripts",
			 RH_WANT_MODULE ? "load" : "do not load");
}

#define NKEYS 3
#define TRACE 160

static int64_t next_time(uint64_t *s, int64_t t, int64_t w, int64_t n)
{
	int64_t step;

	switch (below(s, 8)) {
	case 0:
		step = 0;
		break;
	case 1:
		step = 1;
		break;
	case 2:
		step = below(s, w / n + 2);
		break;
	case 3:
		step = below(s, w + 2);
		break;
	case 4:
		step = w / 2 < RL_TIME_MAX_NS / 8 ? below(s, 4 * w + 1) : below(s, RL_TIME_MAX_NS / 8);
		break;
	case 5:
		step = -below(s, w + 1); /* backwards: clamped to the key's last seen time */
		break;
	default:
		step = below(s, w / n + 1) / 4;
		break;
	}
	t += step;
	return t < 0 ? 0 : t > RL_TIME_MAX_NS ? RL_TIME_MAX_NS : t;
}

/*
 * weighted: a third of the requests carry a cost > 1 (up to N + 1 or B + 1,
 * or up to 10^9). The trace starts at t0, or (t0 < 0) near the end of time
 * or anywhere in its first half.
 */
static void conform_at(const struct rl_algo *algo, struct rl_rule rule, uint64_t *s, long caseno, bool weighted,
		       int64_t t0)
{
	struct rl_limiter lim;
	char msg[160];

	assert_int_equal(rl_limiter_init(&lim, algo, &rule, msg, sizeof(msg)), RL_OK);

	struct rl_redis *r = connect_to(g_port, 1000000000);
	struct rl_redis_rule rr = { &lim, false, 0 };
	void *st[NKEYS];
	char keys[NKEYS][32];
	int64_t t = t0 >= 0 ? t0
		    : below(s, 3) == 0 ? RL_TIME_MAX_NS - below(s, 4 * rule.window_ns + 1)
				       : below(s, RL_TIME_MAX_NS / 2);

	if (t < 0)
		t = 0;
	for (int k = 0; k < NKEYS; k++) {
		st[k] = calloc(1, algo->state_size);
		assert_non_null(st[k]);
		snprintf(keys[k], sizeof(keys[k]), "c%ld:%d", caseno, k);
	}
	struct rl_redis_req reqs[16];
	struct rl_redis_answer ans[16];
	int keyof[16];
	struct rl_decision want[16];
	int wrc[16];
	for (int done = 0; done < TRACE;) {
		int m = 1 + (int)below(s, 16);
		if (m > TRACE - done)
			m = TRACE - done;
		for (int i = 0; i < m; i++) {
			t = next_time(s, t, rule.window_ns, rule.limit);
			keyof[i] = (int)below(s, NKEYS);
			int64_t cost = 1;
			if (weighted && below(s, 3) == 0) {
				int64_t cap = rule.limit > rule.burst ? rule.limit : rule.burst;
				cost = below(s, 8) == 0 ? 1 + below(s, RL_REDIS_COST_MAX) : 1 + below(s, cap + 2);
			}
			reqs[i] = (struct rl_redis_req){ &rr, keys[keyof[i]], strlen(keys[keyof[i]]), t, cost };
			memset(&want[i], 0, sizeof(want[i]));
			wrc[i] = rl_limiter_check_n(&lim, st[keyof[i]], t, cost, &want[i]);
		}
		if (m == 1) {
			memset(&ans[0], 0, sizeof(ans[0]));
			ans[0].rc = rl_redis_check_n(r, &rr, reqs[0].key, reqs[0].key_len, reqs[0].now_ns,
						     reqs[0].cost, &ans[0].d);
		} else {
			assert_int_equal(rl_redis_check_batch(r, reqs, (size_t)m, ans), RL_OK);
		}
		for (int i = 0; i < m; i++) {
			const struct rl_decision *g = &ans[i].d, *w = &want[i];
			if (ans[i].rc != wrc[i] || g->remaining != w->remaining ||
			    g->retry_after_ns != w->retry_after_ns || g->reset_ns != w->reset_ns ||
			    g->delay_ns != w->delay_ns || ans[i].fallback) {
				print_error("MISMATCH %s N=%" PRId64 " W=%" PRId64 " B=%" PRId64
					    " request %d key %s t=%" PRId64 " cost=%" PRId64 " (seed 0x%" PRIx64 ", reproduce: RL_SEED=0x%" PRIx64 ")\n"
					    "  redis:      rc=%d remaining=%" PRId64 " retry=%" PRId64 " reset=%" PRId64 " delay=%" PRId64 " fallback=%d %s\n"
					    "  in-process: rc=%d remaining=%" PRId64 " retry=%" PRId64 " reset=%" PRId64 " delay=%" PRId64 "\n",
					    algo->name, rule.limit, rule.window_ns, rule.burst, done + i,
					    reqs[i].key, reqs[i].now_ns, reqs[i].cost, g_seed, g_seed, ans[i].rc, g->remaining,
					    g->retry_after_ns, g->reset_ns, g->delay_ns, ans[i].fallback,
					    rl_redis_error(r), wrc[i], w->remaining, w->retry_after_ns, w->reset_ns,
					    w->delay_ns);
				fail();
			}
		}
		done += m;
	}
	expect_mode(r);
	for (int k = 0; k < NKEYS; k++) {
		rl_limiter_release(&lim, st[k]);
		free(st[k]);
	}
	rl_redis_destroy(r);
}

static void conform(const struct rl_algo *algo, struct rl_rule rule, uint64_t *s, long caseno, bool weighted)
{
	conform_at(algo, rule, s, caseno, weighted, -1);
}

static const struct rl_rule fixed_rules[] = {
	{ 1, RL_WINDOW_MAX_NS, RL_REDIS_BURST_MAX },
	{ RL_REDIS_LIMIT_MAX, RL_WINDOW_MAX_NS, RL_REDIS_BURST_MAX },
	{ RL_REDIS_LIMIT_MAX, 1, 1 },
	{ 1, 1, 1 },
	{ 3, 7, 5 },
	{ 7, 1000000000, 7 },
	{ 3, 10000000000LL, 2 },      /* gcra: T = 3.33 s exactly (gcra.h), N not dividing W */
	{ 999999, 3600000000000LL, 1000 },
	{ 2, 3, 1 },
	{ 1, RL_WINDOW_MAX_NS, 6 },
	{ 999983, 999999999999999989LL, 999999937 },
};

static void test_conformance(void **state)
{
	(void)state;
	size_t count;
	const struct rl_algo *const *all = rl_algo_all(&count);
	uint64_t s = g_seed;
	long caseno = 0;

	flushall();
	for (size_t a = 0; a < count; a++) {
		for (size_t i = 0; i < sizeof(fixed_rules) / sizeof(fixed_rules[0]); i++) {
			conform(all[a], fixed_rules[i], &s, caseno++, false);
			conform(all[a], fixed_rules[i], &s, caseno++, true);
		}
		for (int i = 0; i < 12; i++) {
			struct rl_rule rule = { loguni(&s, RL_REDIS_LIMIT_MAX), loguni(&s, RL_WINDOW_MAX_NS),
						loguni(&s, RL_REDIS_BURST_MAX) };
			if (below(&s, 2))
				rule.limit = 1 + below(&s, 8), rule.burst = 1 + below(&s, 8);
			conform(all[a], rule, &s, caseno++, i % 2);
		}
	}
}

/* The breaker, random limits, windows and open times, non-decreasing times (and some that go back). */
static void test_breaker_conformance(void **state)
{
	(void)state;
	uint64_t s = g_seed ^ 0xb4eaull;
	struct rl_redis *r = connect_to(g_port, 0);

	flushall();
	for (int c = 0; c < 40; c++) {
		struct rl_redis_breaker rb = { 1 + below(&s, 6), 1 + below(&s, 20), 1 + below(&s, 20), false, 0 };
		/* the window and open time at the top of their range, 10^9 (redis.h) */
		if (c % 5 == 0)
			rb.window = RL_REDIS_BREAKER_SPAN_MAX - below(&s, 10), rb.open_for = 1 + below(&s, RL_REDIS_BREAKER_SPAN_MAX);
		struct rl_breaker b;
		char key[32];
		snprintf(key, sizeof(key), "b%d", c);
		assert_int_equal(rl_breaker_init(&b, rb.limit, rb.window, rb.open_for, NULL, 0), RL_OK);
		int64_t t = c % 7 == 0 ? RL_TIME_MAX_NS - 200 : below(&s, 1000);
		for (int i = 0; i < 120; i++) {
			int64_t step = below(&s, 10) == 0 ? -1 : below(&s, 4) == 0 ? 0 : below(&s, 6);
			t += step;
			if (t > RL_TIME_MAX_NS)
				t = RL_TIME_MAX_NS;
			bool record = below(&s, 4) != 0;
			enum rl_breaker_state want = RL_BREAKER_CLOSED, got = RL_BREAKER_CLOSED;
			int wrc = record ? rl_breaker_handle(&b, t, &want) : rl_breaker_state_at(&b, t, &want);
			int grc = rl_redis_breaker_call(r, &rb, key, strlen(key), t, record, &got);
			if (wrc != grc || (wrc >= 0 && want != got)) {
				print_error("BREAKER MISMATCH case %d call %d t=%" PRId64 " record=%d limit=%" PRId64
					    " window=%" PRId64 " open=%" PRId64 ": redis rc=%d state=%d, in-process rc=%d state=%d (%s; RL_SEED=0x%" PRIx64 ")\n",
					    c, i, t, record, rb.limit, rb.window, rb.open_for, grc, got, wrc, want,
					    rl_redis_error(r), g_seed);
				fail();
			}
		}
		struct rl_redis_breaker wide = rb; /* one past the range: refused before Redis is asked */
		wide.window = RL_REDIS_BREAKER_SPAN_MAX + 1;
		assert_int_equal(rl_redis_breaker_validate(&wide, NULL, 0), RL_EINVAL);
		wide = rb;
		wide.open_for = RL_REDIS_BREAKER_SPAN_MAX + 1;
		assert_int_equal(rl_redis_breaker_validate(&wide, NULL, 0), RL_EINVAL);
		for (int k = 0; k < 2; k++) { /* out of range, as in process */
			enum rl_breaker_state got = RL_BREAKER_CLOSED;
			int64_t bad = k ? RL_TIME_MAX_NS + 1 : -1;
			assert_int_equal(rl_redis_breaker_call(r, &rb, key, strlen(key), bad, k, &got), RL_ERANGE);
		}
		rl_breaker_destroy(&b);
	}
	expect_mode(r);
	rl_redis_destroy(r);
}

#endif
