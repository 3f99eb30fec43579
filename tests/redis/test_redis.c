/*
 * test_redis.c - the Redis backend (redis.h) against the in-process
 * algorithms and breaker, on a real redis-server the test starts: every
 * algorithm on seeded random multi-key traces (batched and single calls,
 * clock going backwards, times up to 4 * 10^18, windows up to 10^18,
 * request costs from 1 to 10^9) gives
 * the same verdict, remaining, retry_after_ns, reset_ns and delay_ns; the
 * breaker the same verdicts and states; TTLs are the time back to full
 * quota; a wrong-type key or another algorithm's key is a clear error;
 * NOSCRIPT reloads; Redis's TIME is a clock.
 *
 * A mismatch prints the seed. Reproduce with RL_SEED=<seed> ./test_redis
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "redis_server.h"

#include "ratelab/algo.h"
#include "ratelab/breaker.h"
#include "ratelab/redis.h"

static struct rl_test_redis g_srv;
static uint64_t g_seed = 0x5eed13a;

static uint64_t rnd(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, n), n >= 1. */
static int64_t below(uint64_t *s, int64_t n)
{
	return (int64_t)(rnd(s) % (uint64_t)n);
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

static void flushall(void)
{
	redisReply *rep = rl_test_redis_cmd(g_srv.port, "FLUSHALL%s", "");
	assert_non_null(rep);
	freeReplyObject(rep);
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

/* weighted: a third of the requests carry a cost > 1 (up to N + 1 or B + 1, or up to 10^9). */
static void conform(const struct rl_algo *algo, struct rl_rule rule, uint64_t *s, long caseno, bool weighted)
{
	struct rl_limiter lim;
	char msg[160];

	assert_int_equal(rl_limiter_init(&lim, algo, &rule, msg, sizeof(msg)), RL_OK);

	struct rl_redis *r = connect_to(g_srv.port, 1000000000);
	struct rl_redis_rule rr = { &lim, false, 0 };
	void *st[NKEYS];
	char keys[NKEYS][32];
	int64_t t = below(s, 3) == 0 ? RL_TIME_MAX_NS - below(s, 4 * rule.window_ns + 1) : below(s, RL_TIME_MAX_NS / 2);

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
				cost = below(s, 8) == 0 ? 1 + below(s, RL_COST_MAX) : 1 + below(s, cap + 2);
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
	for (int k = 0; k < NKEYS; k++) {
		rl_limiter_release(&lim, st[k]);
		free(st[k]);
	}
	rl_redis_destroy(r);
}

static const struct rl_rule fixed_rules[] = {
	{ 1, RL_WINDOW_MAX_NS, RL_BURST_MAX },
	{ RL_LIMIT_MAX, RL_WINDOW_MAX_NS, RL_BURST_MAX },
	{ RL_LIMIT_MAX, 1, 1 },
	{ 1, 1, 1 },
	{ 3, 7, 5 },
	{ 7, 1000000000, 7 },
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
			struct rl_rule rule = { loguni(&s, RL_LIMIT_MAX), loguni(&s, RL_WINDOW_MAX_NS),
						loguni(&s, RL_BURST_MAX) };
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
	struct rl_redis *r = connect_to(g_srv.port, 0);

	flushall();
	for (int c = 0; c < 40; c++) {
		struct rl_redis_breaker rb = { 1 + below(&s, 6), 1 + below(&s, 20), 1 + below(&s, 20), false, 0 };
		if (c % 5 == 0)
			rb.window = RL_TIME_MAX_NS - below(&s, 10), rb.open_for = 1 + below(&s, RL_TIME_MAX_NS);
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
		rl_breaker_destroy(&b);
	}
	rl_redis_destroy(r);
}

static int64_t pttl(const char *key)
{
	redisReply *rep = rl_test_redis_cmd(g_srv.port, "PTTL %s", key);
	assert_non_null(rep);
	int64_t v = rep->integer;
	freeReplyObject(rep);
	return v;
}

/* TTL = reset_ns rounded up to ms, plus the grace; 0 deletes the key. */
static void test_ttl_is_time_to_full_quota(void **state)
{
	(void)state;
	struct rl_limiter lim;
	struct rl_rule rule = { 10, 10000000000LL, 10 }; /* 10 per 10 s: one back per second */
	struct rl_redis *r = connect_to(g_srv.port, 0);
	struct rl_redis_rule rr = { &lim, false, 0 };
	struct rl_decision d;

	flushall();
	assert_int_equal(rl_limiter_init(&lim, &rl_token_bucket_algo, &rule, NULL, 0), RL_OK);
	for (int i = 0; i < 3; i++)
		assert_int_equal(rl_redis_check(r, &rr, "ttl", 3, 5, &d), RL_ALLOWED);
	assert_int_equal(d.reset_ns, 3000000000LL);
	int64_t ms = pttl("rl:{ttl}");
	assert_true(ms > 2900 && ms <= 3000);
	rl_redis_destroy(r);

	/* a fixed window with nothing admitted has reset 0: no key left */
	r = connect_to(g_srv.port, 0);
	assert_int_equal(rl_limiter_init(&lim, &rl_fixed_window_algo, &rule, NULL, 0), RL_OK);
	assert_int_equal(rl_redis_check(r, &rr, "fw", 2, 9999999999LL, &d), RL_ALLOWED);
	assert_int_equal(d.reset_ns, 1);
	assert_true(pttl("rl:{fw}") == 1);
	rl_redis_destroy(r);

	/* with a grace the TTL grows by it */
	r = connect_to(g_srv.port, 60000);
	assert_int_equal(rl_limiter_init(&lim, &rl_sliding_log_algo, &rule, NULL, 0), RL_OK);
	assert_int_equal(rl_redis_check(r, &rr, "sl", 2, 0, &d), RL_ALLOWED);
	assert_int_equal(d.reset_ns, 10000000000LL);
	ms = pttl("rl:{sl}");
	assert_true(ms > 69000 && ms <= 70000);
	ms = pttl("rl:{sl}:l");
	assert_true(ms > 69000 && ms <= 70000);
	rl_redis_destroy(r);
}

static void test_wrong_type_is_an_error(void **state)
{
	(void)state;
	struct rl_limiter lim;
	struct rl_rule rule = { 5, 1000, 5 };
	struct rl_redis *r = connect_to(g_srv.port, 60000);
	struct rl_redis_rule rr = { &lim, false, 0 };
	struct rl_decision d;
	struct rl_redis_stats st;

	flushall();
	redisReply *rep = rl_test_redis_cmd(g_srv.port, "SET rl:{str} %s", "hello");
	freeReplyObject(rep);
	assert_int_equal(rl_limiter_init(&lim, &rl_gcra_algo, &rule, NULL, 0), RL_OK);
	assert_int_equal(rl_redis_check(r, &rr, "str", 3, 0, &d), RL_EREDIS);
	assert_non_null(strstr(rl_redis_error(r), "WRONGTYPE"));

	/* a key that holds another algorithm's state */
	assert_int_equal(rl_redis_check(r, &rr, "mine", 4, 0, &d), RL_ALLOWED);
	assert_int_equal(rl_limiter_init(&lim, &rl_fixed_window_algo, &rule, NULL, 0), RL_OK);
	assert_int_equal(rl_redis_check(r, &rr, "mine", 4, 0, &d), RL_EREDIS);
	assert_non_null(strstr(rl_redis_error(r), "holds gcra state, not fixed_window"));
	rl_redis_stats(r, &st);
	assert_int_equal(st.errors, 2);
	assert_int_equal(st.decided, 1);
	assert_int_equal(st.fallbacks, 0);
	rl_redis_destroy(r);
}

static void test_noscript_reloads(void **state)
{
	(void)state;
	struct rl_limiter lim;
	struct rl_rule rule = { 2, 1000, 2 };
	struct rl_redis *r = connect_to(g_srv.port, 60000);
	struct rl_redis_rule rr = { &lim, false, 0 };
	struct rl_redis_stats st;

	flushall();
	assert_int_equal(rl_limiter_init(&lim, &rl_sliding_log_algo, &rule, NULL, 0), RL_OK);
	assert_int_equal(rl_redis_check(r, &rr, "k", 1, 10, NULL), RL_ALLOWED);
	freeReplyObject(rl_test_redis_cmd(g_srv.port, "SCRIPT FLUSH%s", ""));
	assert_int_equal(rl_redis_check(r, &rr, "k", 1, 10, NULL), RL_ALLOWED);
	assert_int_equal(rl_redis_check(r, &rr, "k", 1, 10, NULL), RL_REJECTED);
	rl_redis_stats(r, &st);
	assert_int_equal(st.decided, 3);
	assert_int_equal(st.fallbacks + st.errors, 0);
	rl_redis_destroy(r);
}

static void test_redis_time_clock(void **state)
{
	(void)state;
	struct rl_limiter lim;
	struct rl_rule rule = { 2, 3600000000000LL, 2 }; /* 2 per hour */
	struct rl_redis *r = connect_to(g_srv.port, 0);
	struct rl_redis_rule rr = { &lim, false, 0 };
	struct rl_decision d;

	flushall();
	assert_int_equal(rl_limiter_init(&lim, &rl_fixed_window_algo, &rule, NULL, 0), RL_OK);
	assert_int_equal(rl_redis_check(r, &rr, "clk", 3, RL_REDIS_NOW, &d), RL_ALLOWED);
	assert_int_equal(rl_redis_check(r, &rr, "clk", 3, RL_REDIS_NOW, &d), RL_ALLOWED);
	assert_int_equal(rl_redis_check(r, &rr, "clk", 3, RL_REDIS_NOW, &d), RL_REJECTED);
	assert_true(d.retry_after_ns > 0 && d.retry_after_ns <= 3600000000000LL);
	/* the stored last-seen time is the server's clock, in ns */
	redisReply *rep = rl_test_redis_cmd(g_srv.port, "HGET rl:{clk} %s", "last");
	assert_non_null(rep);
	assert_int_equal(rep->type, REDIS_REPLY_STRING);
	long long last = strtoll(rep->str, NULL, 10);
	freeReplyObject(rep);
	assert_true(last > (long long)time(NULL) * 1000000000LL - 60000000000LL);
	rl_redis_destroy(r);
}

static void test_bad_arguments(void **state)
{
	(void)state;
	struct rl_limiter lim;
	struct rl_rule rule = { 2, 1000, 2 };
	struct rl_redis *r = connect_to(g_srv.port, 0);
	struct rl_redis_rule rr = { &lim, false, 0 };
	struct rl_redis_config cfg = { .port = 0 };
	struct rl_redis *bad = NULL;
	char msg[160], big[RL_REDIS_KEY_MAX + 1];

	assert_int_equal(rl_limiter_init(&lim, &rl_gcra_algo, &rule, NULL, 0), RL_OK);
	assert_int_equal(rl_redis_check(r, &rr, "k", 1, -5, NULL), RL_ERANGE);
	assert_int_equal(rl_redis_check(r, &rr, "k", 1, RL_TIME_MAX_NS + 1, NULL), RL_ERANGE);
	assert_int_equal(rl_redis_check(r, &rr, "k", 0, 1, NULL), RL_EINVAL);
	memset(big, 'x', sizeof(big));
	assert_int_equal(rl_redis_check(r, &rr, big, sizeof(big), 1, NULL), RL_EINVAL);
	assert_int_equal(rl_redis_check(r, &rr, big, RL_REDIS_KEY_MAX, 1, NULL), RL_ALLOWED);
	assert_int_equal(rl_redis_check_n(r, &rr, "k", 1, 1, 0, NULL), RL_EINVAL);
	assert_int_equal(rl_redis_check_n(r, &rr, "k", 1, 1, RL_COST_MAX + 1, NULL), RL_EINVAL);
	rr.timeout_ms = 60001;
	assert_int_equal(rl_redis_check(r, &rr, "k", 1, 1, NULL), RL_EINVAL);
	rr.timeout_ms = 0;
	assert_int_equal(rl_redis_create(&bad, &cfg, msg, sizeof(msg)), RL_EINVAL);
	assert_string_equal(msg, "redis port 0 is out of range");
	cfg = (struct rl_redis_config){ .port = 1, .command_timeout_ms = 60001 };
	assert_int_equal(rl_redis_create(&bad, &cfg, msg, sizeof(msg)), RL_EINVAL);
	assert_string_equal(msg, "redis command timeout (ms) 60001 is out of range");
	cfg = (struct rl_redis_config){ .port = 1, .prefix = "a{b" };
	assert_int_equal(rl_redis_create(&bad, &cfg, msg, sizeof(msg)), RL_EINVAL);
	assert_null(bad);
	rl_redis_destroy(r);
}

int main(void)
{
	const char *env = getenv("RL_SEED");
	if (env)
		g_seed = strtoull(env, NULL, 0);
	if (!rl_test_redis_start(&g_srv))
		return 0;
	printf("test_redis: redis-server on 127.0.0.1:%d, seed 0x%" PRIx64 "\n", g_srv.port, g_seed);

	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conformance),
		cmocka_unit_test(test_breaker_conformance),
		cmocka_unit_test(test_ttl_is_time_to_full_quota),
		cmocka_unit_test(test_wrong_type_is_an_error),
		cmocka_unit_test(test_noscript_reloads),
		cmocka_unit_test(test_redis_time_clock),
		cmocka_unit_test(test_bad_arguments),
	};
	int failed = cmocka_run_group_tests(tests, NULL, NULL);
	rl_test_redis_stop(&g_srv);
	return failed;
}
