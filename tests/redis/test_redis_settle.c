/*
 * test_redis_settle.c - RATELAB.SETTLE (the module) and settle.lua (the
 * scripts) against the library (settle.h), on a real redis-server that
 * loads ratelab.so: for every algorithm, seeded random traces of checks
 * and settles (charges, refunds within and beyond what the request took,
 * admissions in and out of their window, times going back) on three
 * copies of one key: in process (rl_limiter_check_n, rl_limiter_settle,
 * rl_limiter_settled_reset_ns), through the module (RATELAB.CHECK,
 * RATELAB.SETTLE) and through the scripts (the algorithm's script and
 * settle.lua, called with EVAL). Decision by decision the three agree
 * (verdict, remaining, retry_after_ns, reset_ns, delay_ns; a settle's
 * reset_ns), and the module's and the scripts' stored bytes are equal.
 * Then the refusals, in the same words from both backends: a settle for a
 * key with no state, a delta of 0 or out of range, admitted_ns after now,
 * a damaged state; nothing written.
 * A mismatch prints the seed: RL_SEED=<seed> ./test_redis_settle
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "redis_harness.h"
#include "redis_scripts.h"

#include "ratelab/algo.h"
#include "ratelab/settle.h"
#include "../test_rng.h"

/* the Redis backend's bound on a cost and a delta (redis.h RL_REDIS_COST_MAX), below the library's */
#define REDIS_COST_MAX 1000000000LL

static struct rh g_srv;
static int g_port;
static redisContext *g_c;
static uint64_t g_seed;

static const char *script_text(const char *name)
{
	for (size_t i = 0; i < rl__redis_script_count; i++)
		if (strcmp(rl__redis_scripts[i].name, name) == 0)
			return rl__redis_scripts[i].text;
	fail_msg("no script %s", name);
	return NULL;
}

/* One command of argc string arguments; the reply (never NULL). */
static redisReply *run(int argc, const char **argv)
{
	redisReply *r = redisCommandArgv(g_c, argc, argv, NULL);

	if (!r)
		fail_msg("redis: %s (seed 0x%llx)", g_c->errstr, (unsigned long long)g_seed);
	return r;
}

/* The reply as text: an error's message, a string, or an array's elements joined by ' '. */
static void text_of(const redisReply *r, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	if (r->type == REDIS_REPLY_ARRAY) {
		for (size_t i = 0; i < r->elements && n < len; i++) {
			const redisReply *e = r->element[i];
			if (e->type == REDIS_REPLY_INTEGER)
				n += (size_t)snprintf(buf + n, len - n, "%s%lld", i ? " " : "", e->integer);
			else
				n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? " " : "", e->str ? e->str : "?");
		}
	} else if (r->type == REDIS_REPLY_INTEGER) {
		snprintf(buf, len, "%lld", r->integer);
	} else {
		snprintf(buf, len, "%s%s", r->type == REDIS_REPLY_ERROR ? "ERR " : "", r->str ? r->str : "(nil)");
	}
}

struct rule_args {
	const char *algo;
	char n[24], w[24], b[24];
};

static const char GRACE[] = "1000000000"; /* ms: no key expires during a trace */

/* RATELAB.CHECK and the script on keys m and s; the library on st. All three answers must agree. */
static int check3(const struct rl_limiter *lim, void *st, const struct rule_args *ra, int64_t t, int64_t cost,
		  const char *where)
{
	char ts[24], cs[24], want[160], got_m[512], got_s[512];
	struct rl_decision d;

	snprintf(ts, sizeof(ts), "%" PRId64, t);
	snprintf(cs, sizeof(cs), "%" PRId64, cost);
	int rc = rl_limiter_check_n(lim, st, t, cost, &d);
	assert_true(rc >= 0);
	snprintf(want, sizeof(want), "%d %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64, rc == RL_ALLOWED,
		 d.remaining > 0 ? d.remaining : 0, d.retry_after_ns, d.reset_ns, d.delay_ns);
	const char *m[] = { "RATELAB.CHECK", "m", ra->algo, ra->n, ra->w, ra->b, cs, ts, GRACE };
	redisReply *r = run(9, m);
	text_of(r, got_m, sizeof(got_m));
	freeReplyObject(r);
	const char *s[] = { "EVAL", script_text(ra->algo), "1", "s", ts, ra->n, ra->w, ra->b, GRACE, cs };
	r = run(10, s);
	text_of(r, got_s, sizeof(got_s));
	freeReplyObject(r);
	if (strcmp(want, got_m) != 0 || strcmp(want, got_s) != 0)
		fail_msg("%s %s N=%s W=%s B=%s: check cost %s at %s: library '%s', module '%s', scripts '%s' "
			 "(seed 0x%llx: RL_SEED=0x%llx)", where, ra->algo, ra->n, ra->w, ra->b, cs, ts, want, got_m,
			 got_s, (unsigned long long)g_seed, (unsigned long long)g_seed);
	return rc;
}

static void settle3(const struct rl_limiter *lim, void *st, const struct rule_args *ra, int64_t adm,
		    int64_t delta, int64_t t, const char *where)
{
	char ts[24], as[24], ds[24], want[40], got_m[512], got_s[512];

	snprintf(ts, sizeof(ts), "%" PRId64, t);
	snprintf(as, sizeof(as), "%" PRId64, adm);
	snprintf(ds, sizeof(ds), "%" PRId64, delta);
	assert_int_equal(rl_limiter_settle(lim, st, adm, delta, t), RL_OK);
	snprintf(want, sizeof(want), "%" PRId64, rl_limiter_settled_reset_ns(lim, st, t));
	const char *m[] = { "RATELAB.SETTLE", "m", ra->algo, ra->n, ra->w, ra->b, as, ds, ts, GRACE };
	redisReply *r = run(10, m);
	text_of(r, got_m, sizeof(got_m));
	freeReplyObject(r);
	const char *s[] = { "EVAL", script_text("settle"), "1", "s", ts, ra->n, ra->w, ra->b, GRACE, ra->algo, as, ds };
	r = run(12, s);
	text_of(r, got_s, sizeof(got_s));
	freeReplyObject(r);
	if (strcmp(want, got_m) != 0 || strcmp(want, got_s) != 0)
		fail_msg("%s %s N=%s W=%s B=%s: settle(%s, %s) at %s: library reset '%s', module '%s', scripts '%s' "
			 "(seed 0x%llx: RL_SEED=0x%llx)", where, ra->algo, ra->n, ra->w, ra->b, as, ds, ts, want, got_m,
			 got_s, (unsigned long long)g_seed, (unsigned long long)g_seed);
}

/* The module's and the scripts' stored values are the same bytes. */
static void same_bytes(const struct rule_args *ra, const char *where)
{
	const char *gm[] = { "GET", "m" }, *gs[] = { "GET", "s" };
	redisReply *a = run(2, gm), *b = run(2, gs);

	if (a->type != b->type || a->len != b->len || (a->len && memcmp(a->str, b->str, a->len) != 0))
		fail_msg("%s %s N=%s W=%s B=%s: the module stored %zu bytes, the scripts %zu, not the same "
			 "(seed 0x%llx)", where, ra->algo, ra->n, ra->w, ra->b, a->len, b->len,
			 (unsigned long long)g_seed);
	freeReplyObject(a);
	freeReplyObject(b);
}

static void del_keys(void)
{
	const char *del[] = { "DEL", "m", "s" };
	freeReplyObject(run(3, del));
}

/* Seeded traces for one algorithm: small rules (every boundary met often) and wide ones. */
static void traces(const char *algo_name, uint64_t *rs)
{
	const struct rl_algo *algo = rl_algo_find(algo_name);
	char where[64];

	for (int trace = 0; trace < 60; trace++) {
		bool wide = trace % 4 == 3;
		int64_t n = 1 + (int64_t)(t_splitmix(rs) % (wide ? 1000000 : 12));
		int64_t w = wide ? 1 + (int64_t)(t_splitmix(rs) % 1000000000000000000LL)
				 : 1 + (int64_t)(t_splitmix(rs) % (t_splitmix(rs) % 2 ? 20 : 1000));
		int64_t b = algo->uses_burst ? 1 + (int64_t)(t_splitmix(rs) % (wide ? 1000000000 : 12)) : n;
		struct rl_rule rule = { n, w, b };
		struct rl_limiter lim;
		char msg[160];
		struct rule_args ra = { algo_name, "", "", "" };

		assert_int_equal(rl_limiter_init(&lim, algo, &rule, msg, sizeof(msg)), RL_OK);
		snprintf(ra.n, sizeof(ra.n), "%" PRId64, n);
		snprintf(ra.w, sizeof(ra.w), "%" PRId64, w);
		snprintf(ra.b, sizeof(ra.b), "%" PRId64, algo->uses_burst ? b : 0);
		_Alignas(16) unsigned char st[RL_ALGO_MAX_STATE] = { 0 };
		int64_t t = wide ? (int64_t)(t_splitmix(rs) % 3000000000000000000ULL) : (int64_t)(t_splitmix(rs) % 1000);
		int64_t admitted[32], costs[32];
		int nadm = 0;
		int64_t cap = algo->uses_burst ? b : n;

		del_keys();
		for (int q = 0; q < 40; q++) {
			snprintf(where, sizeof(where), "trace %d op %d:", trace, q);
			int64_t step = wide ? (int64_t)(t_splitmix(rs) % (uint64_t)(w / 2 + 1)) : (int64_t)(t_splitmix(rs) % (uint64_t)(w / 3 + 2));
			t += t_splitmix(rs) % 5 ? step : -(int64_t)(t_splitmix(rs) % 3);
			t = t < 0 ? 0 : t > RL_TIME_MAX_NS ? RL_TIME_MAX_NS : t;
			if (nadm && t_splitmix(rs) % 3 == 0) {
				int i = (int)(t_splitmix(rs) % (uint64_t)nadm);
				int64_t span = 2 * (cap < 1000 ? cap : 1000) + 1;
				int64_t delta = t_splitmix(rs) % 4 ? -(1 + (int64_t)(t_splitmix(rs) % (uint64_t)costs[i]))
								   : (int64_t)(t_splitmix(rs) % (uint64_t)span) - span / 3;
				if (t_splitmix(rs) % 16 == 0)
					delta = t_splitmix(rs) % 2 ? REDIS_COST_MAX : -REDIS_COST_MAX;
				if (delta == 0)
					delta = 1;
				settle3(&lim, st, &ra, admitted[i], delta, t < admitted[i] ? admitted[i] : t, where);
			} else {
				int64_t cost = t_splitmix(rs) % 3 ? 1 : 1 + (int64_t)(t_splitmix(rs) % (uint64_t)(cap < 1000 ? cap + 1 : 1000));
				/* an admission's time: the key's last seen time after it */
				if (check3(&lim, st, &ra, t, cost, where) == RL_ALLOWED && nadm < 32) {
					admitted[nadm] = lim.algo->last_ns(st);
					costs[nadm++] = cost;
				}
			}
			same_bytes(&ra, where);
		}
		rl_limiter_release(&lim, st);
	}
}

#define ALGO_TEST(name)                                                       \
	static void test_##name(void **u)                                     \
	{                                                                     \
		(void)u;                                                      \
		uint64_t rs = g_seed ^ (uint64_t)(uintptr_t)#name[0] * 0x9e37ULL; \
		traces(#name, &rs);                                           \
	}

ALGO_TEST(token_bucket)
ALGO_TEST(gcra)
ALGO_TEST(leaky_bucket)
ALGO_TEST(fixed_window)
ALGO_TEST(sliding_log)
ALGO_TEST(sliding_counter)

/* A refusal: both backends answer the same error, containing words. */
static void refused(const char **m_argv, int m_argc, const char **s_argv, int s_argc, const char *words)
{
	char got_m[512], got_s[512];
	redisReply *r = run(m_argc, m_argv);

	text_of(r, got_m, sizeof(got_m));
	assert_int_equal(r->type, REDIS_REPLY_ERROR);
	freeReplyObject(r);
	r = run(s_argc, s_argv);
	text_of(r, got_s, sizeof(got_s));
	assert_int_equal(r->type, REDIS_REPLY_ERROR);
	freeReplyObject(r);
	if (strcmp(got_m, got_s) != 0 || !strstr(got_m, words))
		fail_msg("module '%s', scripts '%s': want the same error with '%s'", got_m, got_s, words);
}

static void refusals(void **u)
{
	(void)u;
	const char *settle = script_text("settle");

	del_keys();
	/* no state: never admitted (or expired) */
	const char *m1[] = { "RATELAB.SETTLE", "m", "gcra", "10", "100", "4", "0", "-1", "5" };
	const char *s1[] = { "EVAL", settle, "1", "m", "5", "10", "100", "4", "0", "gcra", "0", "-1" };
	refused(m1, 9, s1, 12, "ratelab: key 'm' holds no state: nothing admitted to settle");
	const char *none[] = { "EXISTS", "m" };
	redisReply *r = run(2, none);
	assert_int_equal(r->integer, 0);
	freeReplyObject(r);
	/* a delta of 0, out of range; admitted after now */
	const char *m2[] = { "RATELAB.SETTLE", "m", "gcra", "10", "100", "4", "0", "0", "5" };
	const char *s2[] = { "EVAL", settle, "1", "m", "5", "10", "100", "4", "0", "gcra", "0", "0" };
	refused(m2, 9, s2, 12, "ratelab: delta '0' settles nothing");
	const char *m3[] = { "RATELAB.SETTLE", "m", "gcra", "10", "100", "4", "0", "-1000000001", "5" };
	const char *s3[] = { "EVAL", settle, "1", "m", "5", "10", "100", "4", "0", "gcra", "0", "-1000000001" };
	refused(m3, 9, s3, 12, "ratelab: delta '-1000000001' is not an integer in [-1000000000, 1000000000]");
	/* a damaged state: a gcra TAT beyond its debt cap (2 * (tau + T) = 80 past last_ns 0) */
	const char *c1[] = { "RATELAB.CHECK", "m", "gcra", "10", "100", "4", "1", "0", GRACE };
	freeReplyObject(run(9, c1));
	const char *m4[] = { "RATELAB.SETTLE", "m", "gcra", "10", "100", "4", "6", "1", "5" };
	const char *s4[] = { "EVAL", settle, "1", "m", "5", "10", "100", "4", "0", "gcra", "6", "1" };
	refused(m4, 9, s4, 12, "ratelab: admitted_ns '6' is after now_ns '5'");
	const char *get[] = { "GET", "m" };
	r = run(2, get);
	assert_int_equal(r->type, REDIS_REPLY_STRING);
	char bad[64];
	size_t len = r->len;
	memcpy(bad, r->str, len);
	freeReplyObject(r);
	int64_t tat = 81; /* the body: tat_ns, last_ns after the 28-byte header and rule */
	memcpy(bad + 28, &tat, 8);
	memset(bad + 36, 0, 8);
	const char *set[] = { "SET", "m", bad };
	size_t lens[] = { 3, 1, len };
	freeReplyObject(redisCommandArgv(g_c, 3, set, lens));
	const char *m5[] = { "RATELAB.SETTLE", "m", "gcra", "10", "100", "4", "0", "-1", "5" };
	const char *s5[] = { "EVAL", settle, "1", "m", "5", "10", "100", "4", "0", "gcra", "0", "-1" };
	refused(m5, 9, s5, 12, "ratelab: key 'm' holds a damaged gcra state");
	r = run(2, get);
	assert_int_equal(r->len, len);
	assert_memory_equal(r->str, bad, len); /* nothing written */
	freeReplyObject(r);
	/* the deepest debt is no damage: 80 past last_ns */
	tat = 80;
	memcpy(bad + 28, &tat, 8);
	freeReplyObject(redisCommandArgv(g_c, 3, set, lens));
	r = run(9, m5);
	assert_int_equal(r->type, REDIS_REPLY_STRING);
	freeReplyObject(r);
}

static int setup(void **u)
{
	(void)u;
	if (!rh_start_single(&g_srv))
		return -1;
	g_port = g_srv.nodes[0].port;
	g_c = rh_connect(g_port);
	return g_c ? 0 : -1;
}

static int teardown(void **u)
{
	(void)u;
	if (g_c)
		redisFree(g_c);
	rh_stop(&g_srv);
	return 0;
}

int main(void)
{
	if (!rh_available(false)) {
		printf("*** SKIPPED test_redis_settle: redis-server not on PATH ***\n");
		return 77;
	}
	g_seed = t_seed_from_env(0x5e771eULL);
	printf("test_redis_settle: seed=0x%llx (override with RL_SEED)\n", (unsigned long long)g_seed);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_token_bucket), cmocka_unit_test(test_gcra),
		cmocka_unit_test(test_leaky_bucket), cmocka_unit_test(test_fixed_window),
		cmocka_unit_test(test_sliding_log), cmocka_unit_test(test_sliding_counter),
		cmocka_unit_test(refusals),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
