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

#include "redis_harness.h"
#include "conformance.h"

#include "ratelab/algo.h"
#include "ratelab/breaker.h"
#include "ratelab/redis.h"

static struct rh g_srv;

static void flushall(void)
{
	redisReply *rep = rh_cmd(g_port, "FLUSHALL%s", "");
	assert_non_null(rep);
	freeReplyObject(rep);
}

static int64_t expired_keys(void)
{
	redisReply *rep = rh_cmd(g_port, "INFO %s", "stats");
	assert_non_null(rep);
	const char *p = strstr(rep->str, "expired_keys:");
	assert_non_null(p);
	int64_t v = strtoll(p + strlen("expired_keys:"), NULL, 10);
	freeReplyObject(rep);
	return v;
}

static int64_t pttl(const char *key)
{
	redisReply *rep = rh_cmd(g_port, "PTTL %s", key);
	assert_non_null(rep);
	int64_t v = rep->integer;
	freeReplyObject(rep);
	return v;
}

/*
 * The scripts compute on Lua numbers while every value stays below 2^51
 * (times as pairs of 10^9) and on limbs beyond: rules on both sides of
 * each bound (B * W, (B + 1) * W, (B - 1) * ceil(W / N), N * W and W at
 * 2^51; W at 9007199 and 9 * 10^12, where the window's start takes one,
 * three or no 10^3 steps), traces starting just below 2^53 (crossing it),
 * at an epoch-ns time, just below the end of time and at 0, the steps up
 * to 4 W (gaps beyond 2^51 ns for the wide rules), compared with the
 * in-process algorithms as the conformance suite does.
 */
static void test_track_edges(void **state)
{
	(void)state;
	const int64_t L = (int64_t)1 << 51;
	const struct rl_rule rules[] = {
		{ 1, L / 2 - 1, 3 }, { 1, L / 2, 3 },       /* gcra: (B - 1) * T below, at 2^51 */
		{ 1, L / 4 - 1, 4 }, { 1, L / 4, 4 },       /* token_bucket: B * W */
		{ 1, L / 5 - 1, 4 }, { 1, L / 5, 4 },       /* leaky_bucket: (B + 1) * W */
		{ 4, L / 4 - 1, 1 }, { 4, L / 4, 1 },       /* sliding_counter: N * W */
		{ 3, L - 1, 1 }, { 3, L, 1 },               /* sliding_log, gcra's T: W */
		{ 5, 9007199, 5 }, { 5, 9007200, 5 },       /* a window's start: one step, three */
		{ 2, 8999999999999, 2 }, { 2, 9000000000000, 2 },
		{ 1000, 1000000000, 1000 }, { 999983, 999999999999999989LL, 999999937 },
	};
	const int64_t starts[] = { ((int64_t)1 << 53) - 3000000000000000LL, 1764700000123456789LL,
				   RL_TIME_MAX_NS - 5 * L, 0 };
	size_t count;
	const struct rl_algo *const *all = rl_algo_all(&count);
	uint64_t s = g_seed ^ 0xed6e5ull;
	long caseno = 100000;

	flushall();
	for (size_t a = 0; a < count; a++)
		for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
			conform_at(all[a], rules[i], &s, caseno++, i % 2, starts[(a + i) % 4]);
			conform_at(all[a], rules[i], &s, caseno++, i % 2 == 0, starts[(a + i + 1) % 4]);
		}
}

/* TTL = reset_ns rounded up to ms, plus the grace; 0 deletes the key. */
static void test_ttl_is_time_to_full_quota(void **state)
{
	(void)state;
	struct rl_limiter lim;
	struct rl_rule rule = { 10, 10000000000LL, 10 }; /* 10 per 10 s: one back per second */
	struct rl_redis *r = connect_to(g_port, 0);
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

	/* reset 1 ns is a TTL of 1 ms (rounded up, not 0: not deleted); on a
	 * loaded machine PTTL may find less than 1 ms left (0) or the key run
	 * out, and then Redis counts it in expired_keys (a DEL would not) */
	r = connect_to(g_port, 0);
	assert_int_equal(rl_limiter_init(&lim, &rl_fixed_window_algo, &rule, NULL, 0), RL_OK);
	int64_t expired = expired_keys();
	assert_int_equal(rl_redis_check(r, &rr, "fw", 2, 9999999999LL, &d), RL_ALLOWED);
	assert_int_equal(d.reset_ns, 1);
	ms = pttl("rl:{fw}");
	int64_t now_expired = expired_keys();
	if (!(ms == 1 || ms == 0 || (ms == -2 && now_expired == expired + 1)))
		fail_msg("rl:{fw}: PTTL %" PRId64 ", expired_keys %" PRId64 " -> %" PRId64, ms, expired,
			 now_expired);
	rl_redis_destroy(r);

	/* with a grace the TTL grows by it */
	r = connect_to(g_port, 60000);
	assert_int_equal(rl_limiter_init(&lim, &rl_sliding_log_algo, &rule, NULL, 0), RL_OK);
	assert_int_equal(rl_redis_check(r, &rr, "sl", 2, 0, &d), RL_ALLOWED);
	assert_int_equal(d.reset_ns, 10000000000LL);
	ms = pttl("rl:{sl}");
	assert_true(ms > 69000 && ms <= 70000);
	/* the log is in the key's one string, as the module stores it: no second key */
	assert_int_equal(pttl("rl:{sl}:l"), -2);
	rl_redis_destroy(r);
}

static void test_wrong_type_is_an_error(void **state)
{
	(void)state;
	struct rl_limiter lim;
	struct rl_rule rule = { 5, 1000, 5 };
	struct rl_redis *r = connect_to(g_port, 60000);
	struct rl_redis_rule rr = { &lim, false, 0 };
	struct rl_decision d;
	struct rl_redis_stats st;

	flushall();
	redisReply *rep = rh_cmd(g_port, "SET rl:{str} %s", "hello");
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
	struct rl_redis *r = connect_to(g_port, 60000);
	struct rl_redis_rule rr = { &lim, false, 0 };
	struct rl_redis_stats st;

	flushall();
	assert_int_equal(rl_limiter_init(&lim, &rl_sliding_log_algo, &rule, NULL, 0), RL_OK);
	assert_int_equal(rl_redis_check(r, &rr, "k", 1, 10, NULL), RL_ALLOWED);
	freeReplyObject(rh_cmd(g_port, "SCRIPT FLUSH%s", ""));
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
	struct rl_redis *r = connect_to(g_port, 0);
	struct rl_redis_rule rr = { &lim, false, 0 };
	struct rl_decision d;

	flushall();
	assert_int_equal(rl_limiter_init(&lim, &rl_fixed_window_algo, &rule, NULL, 0), RL_OK);
	assert_int_equal(rl_redis_check(r, &rr, "clk", 3, RL_REDIS_NOW, &d), RL_ALLOWED);
	assert_int_equal(rl_redis_check(r, &rr, "clk", 3, RL_REDIS_NOW, &d), RL_ALLOWED);
	assert_int_equal(rl_redis_check(r, &rr, "clk", 3, RL_REDIS_NOW, &d), RL_REJECTED);
	assert_true(d.retry_after_ns > 0 && d.retry_after_ns <= 3600000000000LL);
	/* the stored last-seen time (the body's first field, after the 4-byte
	 * header and the 24-byte rule, little-endian) is the server's clock, in ns */
	redisReply *rep = rh_cmd(g_port, "GET %s", "rl:{clk}");
	assert_non_null(rep);
	assert_int_equal(rep->type, REDIS_REPLY_STRING);
	assert_int_equal(rep->len, 4 + 24 + 24);
	long long last = 0;
	for (int i = 7; i >= 0; i--)
		last = last * 256 + (unsigned char)rep->str[28 + i];
	freeReplyObject(rep);
	assert_true(last > (long long)time(NULL) * 1000000000LL - 60000000000LL);
	rl_redis_destroy(r);
}

static void test_bad_arguments(void **state)
{
	(void)state;
	struct rl_limiter lim;
	struct rl_rule rule = { 2, 1000, 2 };
	struct rl_redis *r = connect_to(g_port, 0);
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
	assert_int_equal(rl_redis_check_n(r, &rr, "k", 1, 1, RL_REDIS_COST_MAX + 1, NULL), RL_EINVAL);
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
	if (!rh_available(false))
		return 0;
	if (!rh_start_single(&g_srv)) {
		fprintf(stderr, "test_redis: could not start redis-server\n");
		return 1;
	}
	g_port = g_srv.nodes[0].port;
	printf("test_redis: redis-server on 127.0.0.1:%d, seed 0x%" PRIx64 "\n", g_port, g_seed);

	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conformance),
		cmocka_unit_test(test_breaker_conformance),
		cmocka_unit_test(test_track_edges),
		cmocka_unit_test(test_ttl_is_time_to_full_quota),
		cmocka_unit_test(test_wrong_type_is_an_error),
		cmocka_unit_test(test_noscript_reloads),
		cmocka_unit_test(test_redis_time_clock),
		cmocka_unit_test(test_bad_arguments),
	};
	int failed = cmocka_run_group_tests(tests, NULL, NULL);
	rh_stop(&g_srv);
	return failed;
}
