/*
 * test_redis_policy.c - policies (policy.h) in Redis through the module's
 * RATELAB.CHECKP and the scripts (redis.h, "Policies"), on a real
 * redis-server that loads ratelab.so (built with RH_MODULE,
 * redis_harness.h):
 *
 *   - decision by decision equal to the library's rl_policy_check: seeded
 *     traces on a few keys (times that go back as well as forward, costs
 *     1..6), policies of 1..8 rules with and without ":units", for each
 *     of the six algorithms: the verdict, the combined answer and every
 *     rule's own;
 *   - shadow mode: every request admitted, the would-rejects those the
 *     library's shadow mode counts, the keys' values as when enforcing;
 *   - a rule changed on a live key: the module and the scripts answer
 *     alike and store the same bytes;
 *   - the value's bytes: the policy header, then each rule's part exactly
 *     as a one-rule value's body;
 *   - a cost some rule can never admit writes nothing;
 *   - bad input refused with the module's words, nothing written: 9
 *     rules, a bad rule, a burst for a window algorithm, units not 0 or
 *     1, a short argument list; a policy key read by CHECK, a one-rule key
 *     by CHECKP, another algorithm or rule count, a damaged value;
 *   - the scripts (policy_ALGO, lua/policy/driver.lua) the same: each
 *     request of the traces goes to the module or the scripts at random, so
 *     keys move between them; their errors are the module's words.
 *
 * A mismatch prints the seed. Reproduce with RL_SEED=<seed> ./test_redis_policy
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "redis_harness.h"
#include "test_rng.h"

#include "ratelab/algo.h"
#include "ratelab/policy.h"
#include "ratelab/redis.h"

static struct rh g_srv;
static int g_port;
static uint64_t g_seed = 0x5eed44;
static uint64_t g_refused, g_admitted; /* the differential's verdicts in process: both must occur */

static const char *const ALGOS[] = { "token_bucket", "leaky_bucket", "gcra", "fixed_window", "sliding_log",
				     "sliding_counter" };
enum { NALGOS = 6, KEYS = 3, STEPS = 160 };

static redisReply *cmd(const char *fmt, ...)
{
	redisContext *c = rh_connect(g_port);
	va_list ap;

	assert_non_null(c);
	va_start(ap, fmt);
	redisReply *rep = redisvCommand(c, fmt, ap);
	va_end(ap);
	redisFree(c);
	assert_non_null(rep);
	return rep;
}

static void flushall(void)
{
	freeReplyObject(cmd("FLUSHALL"));
}

static struct rl_redis *handle(const char *prefix, bool scripts_only)
{
	struct rl_redis_config cfg = { .port = g_port, .command_timeout_ms = 5000, .connect_timeout_ms = 5000,
				       .ttl_grace_ms = 86400000, .prefix = prefix, .scripts_only = scripts_only };
	struct rl_redis *r;
	char msg[256];

	assert_int_equal(rl_redis_create(&r, &cfg, msg, sizeof(msg)), RL_OK);
	return r;
}

/* A random policy of k rules of algo: limits 1..8, windows 1..400 ms, bursts 1..10 where they apply. */
static void random_policy(uint64_t *s, const struct rl_algo *algo, size_t k, bool units, struct rl_policy *p)
{
	*p = (struct rl_policy){ .count = k };
	for (size_t i = 0; i < k; i++) {
		int64_t n = 1 + (int64_t)(t_splitmix(s) % 8);
		int64_t w = (1 + (int64_t)(t_splitmix(s) % 400)) * 1000000;
		int64_t b = algo->uses_burst ? 1 + (int64_t)(t_splitmix(s) % 10) : n;
		p->rules[i] = (struct rl_rule){ n, w, b };
		p->units[i] = units && t_splitmix(s) % 2;
	}
}

static void same_decision(const struct rl_decision *got, const struct rl_decision *want, const char *what,
			  const char *ctx)
{
	if (got->remaining != want->remaining || got->retry_after_ns != want->retry_after_ns ||
	    got->reset_ns != want->reset_ns || got->delay_ns != want->delay_ns)
		fail_msg("%s: %s: redis remaining=%" PRId64 " retry=%" PRId64 " reset=%" PRId64 " delay=%" PRId64
			 ", in process %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 " (seed 0x%" PRIx64 ")",
			 ctx, what, got->remaining, got->retry_after_ns, got->reset_ns, got->delay_ns, want->remaining,
			 want->retry_after_ns, want->reset_ns, want->delay_ns, g_seed);
}

/*
 * One seeded trace of STEPS requests over KEYS keys through r and in
 * process, compared decision by decision; shadow sets both in shadow
 * mode. Returns the in-process would-reject count.
 */
static uint64_t trace(struct rl_redis *const via[2], uint64_t *s, const struct rl_algo *algo, const struct rl_policy *p,
		      bool shadow, const char *label)
{
	struct rl_policy_limiter pl;
	char msg[256], ctx[400];
	_Alignas(16) static unsigned char state[KEYS][RL_POLICY_MAX_STATE];
	int64_t t = 1000000000;

	if (rl_policy_limiter_init(&pl, algo, p, msg, sizeof(msg)) != RL_OK)
		fail_msg("%s: %s", label, msg);
	rl_policy_set_shadow(&pl, shadow);
	memset(state, 0, sizeof(state));
	struct rl_redis_policy rp = { &pl, false, 0 };
	for (int i = 0; i < STEPS; i++) {
		uint64_t roll = t_splitmix(s);
		/* mostly forward by 0..60 ms, sometimes back (the clamp) */
		t += roll % 8 == 0 ? -(int64_t)(roll >> 8) % 50000000 : (int64_t)((roll >> 8) % 60000000);
		if (t < 0)
			t = 0;
		int key = (int)(t_splitmix(s) % KEYS);
		int64_t cost = 1 + (int64_t)(t_splitmix(s) % 6);
		char name[16];
		snprintf(name, sizeof(name), "k%d", key);
		struct rl_policy_answer want, got;
		/* the module or the scripts, at random: a key moves between them */
		int side = via[1] && t_splitmix(s) % 2;
		struct rl_redis *r = via[side];
		int wrc = rl_policy_check(&pl, state[key], t, cost, &want);
		*(want.would_reject || wrc == RL_REJECTED ? &g_refused : &g_admitted) += 1;
		int grc = rl_redis_policy_check(r, &rp, name, strlen(name), t, cost, &got);
		snprintf(ctx, sizeof(ctx), "%s: %s, %zu rules, request %d key %s t=%" PRId64 " cost %" PRId64 " (%s)",
			 label, algo->name, p->count, i, name, t, cost, side ? "scripts" : "module");
		if (grc != wrc || got.would_reject != want.would_reject || got.count != want.count)
			fail_msg("%s: redis rc=%d would_reject=%d, in process rc=%d would_reject=%d (%s; seed 0x%" PRIx64
				 ")", ctx, grc, got.would_reject, wrc, want.would_reject,
				 grc == RL_EREDIS ? rl_redis_error(r) : "", g_seed);
		same_decision(&got.all, &want.all, "combined", ctx);
		/* at_ns: the time decided at (a settle's admitted_ns), the library's clamp */
		if (got.at_ns != want.at_ns)
			fail_msg("%s: redis at_ns %" PRId64 ", in process %" PRId64 " (seed 0x%" PRIx64 ")", ctx, got.at_ns,
				 want.at_ns, g_seed);
		for (size_t j = 0; j < p->count; j++) {
			char what[32];
			snprintf(what, sizeof(what), "rule %zu", j + 1);
			if (got.verdict[j] != want.verdict[j])
				fail_msg("%s: %s: redis verdict %d, in process %d (seed 0x%" PRIx64 ")", ctx, what,
					 got.verdict[j], want.verdict[j], g_seed);
			same_decision(&got.rule[j], &want.rule[j], what, ctx);
		}
	}
	for (int k = 0; k < KEYS; k++)
		rl_policy_release(&pl, state[k]);
	return rl_policy_would_reject(&pl);
}

/* Every algorithm, 1..8 rules, with and without :units: Redis = in process. */
static void test_differential(void **unused)
{
	(void)unused;
	uint64_t s = g_seed;

	flushall();
	for (int a = 0; a < NALGOS; a++) {
		const struct rl_algo *algo = rl_algo_find(ALGOS[a]);
		assert_non_null(algo);
		for (size_t k = 1; k <= RL_POLICY_MAX_RULES; k++) {
			for (int units = 0; units < 2; units++) {
				char prefix[64];
				struct rl_policy p;
				snprintf(prefix, sizeof(prefix), "d:%s:%zu:%d:", algo->name, k, units);
				random_policy(&s, algo, k, units, &p);
				struct rl_redis *via[2] = { handle(prefix, false), handle(prefix, true) };
				trace(via, &s, algo, &p, false, "enforcing");
				struct rl_redis_stats st, ss;
				rl_redis_stats(via[0], &st);
				rl_redis_stats(via[1], &ss);
				assert_true(st.module);
				assert_false(ss.module);
				assert_int_equal(st.fallbacks + st.errors + st.would_reject, 0);
				assert_int_equal(ss.fallbacks + ss.errors + ss.would_reject, 0);
				assert_true(st.decided > 0 && ss.decided > 0);
				rl_redis_destroy(via[0]);
				rl_redis_destroy(via[1]);
			}
		}
	}
	if (g_refused < 1000 || g_admitted < 1000)
		fail_msg("the traces admitted %" PRIu64 " and refused %" PRIu64 " (seed 0x%" PRIx64 ")", g_admitted,
			 g_refused, g_seed);
}

/* Shadow mode: admitted, would-rejects counted as in process, the same keys as enforcing. */
static void test_shadow(void **unused)
{
	(void)unused;
	uint64_t s = g_seed ^ 0x5a;

	flushall();
	for (int a = 0; a < NALGOS; a++) {
		const struct rl_algo *algo = rl_algo_find(ALGOS[a]);
		struct rl_policy p;
		random_policy(&s, algo, 3, true, &p);
		/* rule 1: 6 units a second, so that the trace's costs overrun it */
		p.rules[0] = (struct rl_rule){ 6, 1000000000, 6 };
		p.units[0] = true;
		uint64_t s1 = s, s2 = s;
		struct rl_redis *r[2] = { handle("shadow:", false), handle("shadow:", true) };
		struct rl_redis *e[2] = { handle("enforce:", false), handle("enforce:", true) };
		uint64_t want = trace(r, &s1, algo, &p, true, "shadow");
		trace(e, &s2, algo, &p, false, "enforcing beside shadow");
		struct rl_redis_stats st, ss;
		rl_redis_stats(r[0], &st);
		rl_redis_stats(r[1], &ss);
		if (st.would_reject + ss.would_reject != want || want == 0)
			fail_msg("%s: would_reject %" PRIu64 ", in process %" PRIu64 " (seed 0x%" PRIx64 ")", algo->name,
				 st.would_reject + ss.would_reject, want, g_seed);
		for (int k = 0; k < KEYS; k++) {
			redisReply *x = cmd("GET shadow:{k%d}", k), *y = cmd("GET enforce:{k%d}", k);
			assert_int_equal(x->type, y->type);
			if (x->type == REDIS_REPLY_STRING)
				assert_memory_equal(x->str, y->str, x->len), assert_int_equal(x->len, y->len);
			freeReplyObject(x);
			freeReplyObject(y);
		}
		for (int i = 0; i < 2; i++)
			rl_redis_destroy(r[i]), rl_redis_destroy(e[i]);
		flushall();
	}
}

/* The value: header, policy head, each rule's part as a one-rule value's body. */
static void test_bytes(void **unused)
{
	(void)unused;
	flushall();
	redisReply *rep = cmd("RATELAB.CHECKP p gcra 2 5000 0 2 5 1000000000 5 0 100 60000000000 100 1");
	assert_int_equal(rep->type, REDIS_REPLY_ARRAY);
	assert_int_equal(rep->elements, 16); /* 3 groups of five, then at_ns */
	assert_int_equal(rep->element[15]->type, REDIS_REPLY_STRING);
	assert_string_equal(rep->element[15]->str, "5000");
	freeReplyObject(rep);
	/* a time before the key's last seen one: at_ns is the clamped time */
	freeReplyObject(cmd("RATELAB.CHECKP p2 gcra 2 5000 0 2 5 1000000000 5 0 100 60000000000 100 1"));
	rep = cmd("RATELAB.CHECKP p2 gcra 1 4000 0 2 5 1000000000 5 0 100 60000000000 100 1");
	assert_int_equal(rep->elements, 16);
	assert_string_equal(rep->element[15]->str, "5000");
	freeReplyObject(rep);
	redisReply *one = NULL;
	rep = cmd("GET p");
	assert_int_equal(rep->type, REDIS_REPLY_STRING);
	const unsigned char *v = (const unsigned char *)rep->str;
	assert_int_equal(rep->len, 4 + 12 + 2 * (4 + 24 + 24));
	assert_true(v[0] == 'r' && v[1] == 'l' && v[2] == 4 && v[3] == 0x81);
	assert_int_equal(v[5], 2);    /* rules */
	assert_int_equal(v[6], 0x2);  /* rule 2 counts units */
	int64_t last;
	uint32_t part;
	memcpy(&last, v + 8, 8);
	assert_int_equal(last, 5000);
	memcpy(&part, v + 16, 4);
	assert_int_equal(part, 24 + 24);
	/* rule 1's part is what CHECK stores for its rule and share (1) */
	freeReplyObject(cmd("RATELAB.CHECK one gcra 5 1000000000 5 1 5000"));
	one = cmd("GET one");
	assert_int_equal(one->len, 4 + 24 + 24);
	assert_memory_equal(v + 20, one->str + 4, 24 + 24);
	/* rule 2's: CHECK of cost 2 */
	freeReplyObject(one);
	freeReplyObject(cmd("RATELAB.CHECK two gcra 100 60000000000 100 2 5000"));
	one = cmd("GET two");
	assert_memory_equal(v + 20 + 4 + 48, one->str + 4, 24 + 24);
	freeReplyObject(one);
	freeReplyObject(rep);
}

static void expect_error(redisReply *rep, const char *want)
{
	if (rep->type != REDIS_REPLY_ERROR || !strstr(rep->str, want))
		fail_msg("want an error with \"%s\", got type %d: %s", want, rep->type,
			 rep->type == REDIS_REPLY_ERROR || rep->type == REDIS_REPLY_STRING ? rep->str : "");
	freeReplyObject(rep);
}

static long long exists(const char *key)
{
	redisReply *rep = cmd("EXISTS %s", key);
	long long v = rep->integer;
	freeReplyObject(rep);
	return v;
}

/* Bad arguments: the module's words, nothing written. */
static void test_bad_input(void **unused)
{
	(void)unused;
	flushall();
	expect_error(cmd("RATELAB.CHECKP b gcra 1 0 0 9 1 1000 1 0 1 1000 1 0 1 1000 1 0 1 1000 1 0 1 1000 1 0 1 "
			 "1000 1 0 1 1000 1 0 1 1000 1 0 1 1000 1 0"),
		     "ratelab: a policy has 1 to 8 rules (got 9)");
	expect_error(cmd("RATELAB.CHECKP b gcra 1 0 0 0"), "ratelab: a policy has 1 to 8 rules (got 0)");
	expect_error(cmd("RATELAB.CHECKP b gcra 1 0 0 x 1 1000 1 0"), "ratelab: rule count 'x' is not an integer");
	expect_error(cmd("RATELAB.CHECKP b gcra 1 0 0 2 1 1000 1 0 0 1000 1 0"),
		     "ratelab: rule 2: limit '0' is not an integer in [1, 1000000]");
	expect_error(cmd("RATELAB.CHECKP b gcra 1 0 0 2 1 1000 1 0 5 0 5 0"),
		     "ratelab: rule 2: window_ns '0' is not an integer in");
	expect_error(cmd("RATELAB.CHECKP b gcra 1 0 0 1 1 1000 1 2"), "ratelab: rule 1: units '2' is not an integer in [0, 1]");
	expect_error(cmd("RATELAB.CHECKP b fixed_window 1 0 0 1 5 1000 3 0"),
		     "ratelab: rule 1: burst '3' does not apply to fixed_window: pass 0 or the limit (5)");
	expect_error(cmd("RATELAB.CHECKP b gcra 1 0 0 2 1 1000 1 0"),
		     "ratelab: a policy of 2 rules takes 8 values after the rule count (N W B U per rule), got 4");
	expect_error(cmd("RATELAB.CHECKP b gcra 0 0 0 1 1 1000 1 0"), "ratelab: cost '0' is not an integer");
	expect_error(cmd("RATELAB.CHECKP b nope 1 0 0 1 1 1000 1 0"), "ratelab: unknown algorithm 'nope'");
	assert_int_equal(exists("b"), 0);
}

/* Keys holding something else: errors naming them, untouched. */
static void test_foreign(void **unused)
{
	(void)unused;
	flushall();
	freeReplyObject(cmd("RATELAB.CHECKP pol gcra 1 1000 0 2 5 1000000000 5 0 9 1000000000 9 1"));
	freeReplyObject(cmd("RATELAB.CHECK single gcra 5 1000000000 5 1 1000"));
	redisReply *before = cmd("GET pol");
	expect_error(cmd("RATELAB.CHECK pol gcra 5 1000000000 5 1 2000"), "ratelab: key 'pol' holds policy state, not gcra");
	expect_error(cmd("RATELAB.CHECKP single gcra 1 2000 0 1 5 1000000000 5 0"),
		     "ratelab: key 'single' holds gcra state, not policy");
	expect_error(cmd("RATELAB.CHECKP pol token_bucket 1 2000 0 2 5 1000000000 5 0 9 1000000000 9 1"),
		     "ratelab: key 'pol' holds gcra policy state, not token_bucket");
	expect_error(cmd("RATELAB.CHECKP pol gcra 1 2000 0 1 5 1000000000 5 0"),
		     "ratelab: key 'pol' holds a policy of 2 rules, not 1");
	freeReplyObject(cmd("HSET h f v"));
	expect_error(cmd("RATELAB.CHECKP h gcra 1 2000 0 1 5 1000000000 5 0"), "WRONGTYPE ratelab: key 'h' holds a hash");
	redisReply *after = cmd("GET pol");
	assert_int_equal(before->len, after->len);
	assert_memory_equal(before->str, after->str, before->len);
	/* damaged: a byte cut off, a last_ns out of range, a rule's part cut */
	char bytes[512];
	size_t len = before->len;
	memcpy(bytes, before->str, len);
	freeReplyObject(before);
	freeReplyObject(after);
	const char *want = "ratelab: key 'pol' holds a damaged gcra state";
	redisContext *c = rh_connect(g_port);
	for (int shape = 0; shape < 4; shape++) {
		char bad[512];
		size_t n = len;
		memcpy(bad, bytes, len);
		if (shape == 0)
			n--;                     /* the last part short */
		else if (shape == 1)
			bad[8 + 7] = (char)0x80; /* last_ns negative */
		else if (shape == 2)
			bad[6] = 0x4;           /* a units bit past the rules */
		else
			memset(bad + 20 + 24, 0xff, 8); /* rule 1's TAT beyond its rule */
		freeReplyObject(redisCommand(c, "SET pol %b", bad, n));
		expect_error(cmd("RATELAB.CHECKP pol gcra 1 2000 0 2 5 1000000000 5 0 9 1000000000 9 1"), want);
		redisReply *kept = cmd("GET pol");
		assert_int_equal(kept->len, n);
		assert_memory_equal(kept->str, bad, n);
		freeReplyObject(kept);
	}
	redisFree(c);
}

/* A cost some rule can never admit changes nothing; the others write. */
static void test_never(void **unused)
{
	(void)unused;
	flushall();
	redisReply *rep = cmd("RATELAB.CHECKP n gcra 7 1000 0 2 5 1000000000 5 1 9 1000000000 9 0");
	assert_int_equal(rep->element[0]->integer, 0);
	assert_string_equal(rep->element[2]->str, "9223372036854775807");
	freeReplyObject(rep);
	assert_int_equal(exists("n"), 0);
	/* the backend through the module, a key a policy once wrote: the same */
	freeReplyObject(cmd("RATELAB.CHECKP n gcra 1 1000 0 2 5 1000000000 5 1 9 1000000000 9 0"));
	redisReply *before = cmd("GET n");
	freeReplyObject(cmd("RATELAB.CHECKP n gcra 7 900000000 0 2 5 1000000000 5 1 9 1000000000 9 0"));
	redisReply *after = cmd("GET n");
	assert_int_equal(before->len, after->len);
	assert_memory_equal(before->str, after->str, before->len);
	freeReplyObject(before);
	freeReplyObject(after);
}

/*
 * A rule changed on a live key (library.md's rule change, per rule): the
 * module and the scripts answer alike and store the same bytes, request
 * by request, over seeded traces whose policy changes every 40 requests.
 */
static void test_rule_change(void **unused)
{
	(void)unused;
	uint64_t s = g_seed ^ 0xc4a;
	char msg[256];

	flushall();
	for (int a = 0; a < NALGOS; a++) {
		const struct rl_algo *algo = rl_algo_find(ALGOS[a]);
		struct rl_redis *m = handle("m:", false), *sc = handle("s:", true);
		struct rl_policy p;
		struct rl_policy_limiter pl;
		int64_t t = 5000000000;
		random_policy(&s, algo, 3, true, &p);
		for (int i = 0; i < 240; i++) {
			if (i % 40 == 0) {
				/* one rule's N, W or B scaled up or down */
				size_t r = t_splitmix(&s) % p.count;
				struct rl_rule *rule = &p.rules[r];
				int what = (int)(t_splitmix(&s) % 3);
				if (what == 0)
					rule->limit = rule->limit > 1 && t_splitmix(&s) % 2 ? rule->limit / 2 : rule->limit * 3;
				else if (what == 1)
					rule->window_ns = t_splitmix(&s) % 2 ? rule->window_ns / 2 + 1 : rule->window_ns * 4;
				else if (algo->uses_burst)
					rule->burst = 1 + (int64_t)(t_splitmix(&s) % 12);
				if (!algo->uses_burst)
					rule->burst = rule->limit;
				if (rl_policy_limiter_init(&pl, algo, &p, msg, sizeof(msg)) != RL_OK)
					fail_msg("%s: %s", algo->name, msg);
			}
			t += (int64_t)(t_splitmix(&s) % 80000000) - 8000000;
			char name[8];
			snprintf(name, sizeof(name), "k%d", (int)(t_splitmix(&s) % 2));
			int64_t cost = 1 + (int64_t)(t_splitmix(&s) % 4);
			struct rl_redis_policy rp = { &pl, false, 0 };
			struct rl_policy_answer x, y;
			int xr = rl_redis_policy_check(m, &rp, name, strlen(name), t, cost, &x);
			int yr = rl_redis_policy_check(sc, &rp, name, strlen(name), t, cost, &y);
			char ctx[200];
			snprintf(ctx, sizeof(ctx), "rule change: %s request %d t=%" PRId64 " (%s / %s)", algo->name, i, t,
				 xr == RL_EREDIS ? rl_redis_error(m) : "", yr == RL_EREDIS ? rl_redis_error(sc) : "");
			if (xr != yr)
				fail_msg("%s: module rc=%d, scripts rc=%d (seed 0x%" PRIx64 ")", ctx, xr, yr, g_seed);
			same_decision(&y.all, &x.all, "combined", ctx);
			if (x.at_ns != y.at_ns)
				fail_msg("%s: module at_ns %" PRId64 ", scripts %" PRId64 " (seed 0x%" PRIx64 ")", ctx, x.at_ns,
					 y.at_ns, g_seed);
			for (size_t j = 0; j < p.count; j++)
				same_decision(&y.rule[j], &x.rule[j], "a rule", ctx);
			redisReply *vm = cmd("GET m:{%s}", name), *vs = cmd("GET s:{%s}", name);
			if (vm->type != vs->type || vm->len != vs->len || (vm->len && memcmp(vm->str, vs->str, vm->len)))
				fail_msg("%s: the module's value (%zu bytes) is not the scripts' (%zu bytes) (seed 0x%" PRIx64 ")",
					 ctx, vm->len, vs->len, g_seed);
			freeReplyObject(vm);
			freeReplyObject(vs);
		}
		rl_redis_destroy(m);
		rl_redis_destroy(sc);
	}
}

/*
 * A version 3 policy value (gcra's parts {tat_ns, last_ns}, 16 bytes, no
 * fraction) is read by the module and the scripts alike, each part as a v3
 * body (state_bytes.h), and written back as the v4 value the same checks
 * leave on the v4 original: 10/1s (T whole) + 7/1s (T = 10^9 / 7 ns, a
 * fraction after each check); the original's fractions set to 0 (a TAT
 * earlier by less than 1 ns: a valid state) and dropped in the v3 copy.
 */
static void test_v3_value(void **unused)
{
	(void)unused;
	const char *rules = "gcra 1 %lld 86400000 2 10 1000000000 4 0 7 1000000000 3 0";
	char cmdfmt[128];

	flushall();
	snprintf(cmdfmt, sizeof(cmdfmt), "RATELAB.CHECKP v4 %s", rules);
	freeReplyObject(cmd(cmdfmt, 0LL));
	freeReplyObject(cmd(cmdfmt, 0LL));
	freeReplyObject(cmd(cmdfmt, 1LL));
	redisReply *v = cmd("GET v4");
	assert_int_equal(v->type, REDIS_REPLY_STRING);
	assert_int_equal(v->len, 16 + 2 * (4 + 24 + 24));
	/* the v3 copy: version 3, each part's tat_frac dropped (set to 0 in the original) */
	unsigned char v3[128], v4[128];
	size_t n = 16, at = 16, n4 = v->len;
	memcpy(v4, v->str, n4);
	memcpy(v3, v->str, 16);
	v3[2] = 3;
	for (int i = 0; i < 2; i++) {
		uint32_t len, len3 = 24 + 16;
		memcpy(&len, v4 + at, 4);
		assert_int_equal(len, 24 + 24);
		memset(v4 + at + 4 + 24 + 16, 0, 8);
		memcpy(v3 + n, &len3, 4);
		memcpy(v3 + n + 4, v4 + at + 4, len3);
		n += 4 + len3;
		at += 4 + len;
	}
	freeReplyObject(v);
	freeReplyObject(cmd("SET v4 %b", v4, n4));
	freeReplyObject(cmd("SET m:{k} %b", v3, n));
	freeReplyObject(cmd("SET s:{k} %b", v3, n));
	struct rl_redis *m = handle("m:", false), *sc = handle("s:", true);
	struct rl_policy p;
	struct rl_policy_limiter pl;
	char msg[256];
	assert_int_equal(rl_policy_parse("10/1s:b4+7/1s:b3", &p, msg, sizeof(msg)), RL_OK);
	assert_int_equal(rl_policy_limiter_init(&pl, rl_algo_find("gcra"), &p, msg, sizeof(msg)), RL_OK);
	struct rl_redis_policy rp = { &pl, false, 0 };
	struct rl_policy_answer x, y;
	int64_t t = 1;
	for (int i = 0; i < 6; i++, t += 100000000) {
		snprintf(cmdfmt, sizeof(cmdfmt), "RATELAB.CHECKP v4 %s", rules);
		freeReplyObject(cmd(cmdfmt, (long long)t));
		int xr = rl_redis_policy_check(m, &rp, "k", 1, t, 1, &x);
		int yr = rl_redis_policy_check(sc, &rp, "k", 1, t, 1, &y);
		assert_int_equal(xr, yr);
		same_decision(&y.all, &x.all, "v3 value, combined", "module / scripts");
		redisReply *vm = cmd("GET m:{k}"), *vs = cmd("GET s:{k}"), *vo = cmd("GET v4");
		assert_int_equal(vm->len, vo->len);
		assert_memory_equal(vm->str, vo->str, vm->len); /* v4, the original's bytes */
		assert_int_equal(vs->len, vo->len);
		assert_memory_equal(vs->str, vo->str, vs->len);
		freeReplyObject(vm);
		freeReplyObject(vs);
		freeReplyObject(vo);
	}
	rl_redis_destroy(m);
	rl_redis_destroy(sc);
}

/* The backend's own checks: time, cost, key. */
static void test_backend_checks(void **unused)
{
	(void)unused;
	struct rl_redis *r = handle("checks:", false);
	struct rl_policy p;
	struct rl_policy_limiter pl;
	char msg[256];
	assert_int_equal(rl_policy_parse("5/1s+100/1m", &p, msg, sizeof(msg)), RL_OK);
	assert_int_equal(rl_policy_limiter_init(&pl, rl_algo_find("gcra"), &p, msg, sizeof(msg)), RL_OK);
	struct rl_redis_policy rp = { &pl, false, 0 };
	assert_int_equal(rl_redis_policy_check(r, &rp, "k", 1, -5, 1, NULL), RL_ERANGE);
	assert_int_equal(rl_redis_policy_check(r, &rp, "k", 1, RL_TIME_MAX_NS + 1, 1, NULL), RL_ERANGE);
	assert_int_equal(rl_redis_policy_check(r, &rp, "k", 1, 1000, 0, NULL), RL_EINVAL);
	assert_int_equal(rl_redis_policy_check(r, &rp, "k", 1, 1000, RL_REDIS_COST_MAX + 1, NULL), RL_EINVAL);
	assert_int_equal(rl_redis_policy_check(r, &rp, "", 0, 1000, 1, NULL), RL_EINVAL);
	assert_int_equal(rl_redis_policy_check(r, &rp, "k", 1, RL_REDIS_NOW, 1, NULL), RL_ALLOWED);
	rl_redis_destroy(r);
}

/* The scripts answer the module's words for the value's errors, nothing written. */
static void test_scripts_errors(void **unused)
{
	(void)unused;
	flushall();
	struct rl_redis *r = handle("", true), *m = handle("", false);
	struct rl_policy p;
	struct rl_policy_limiter pl, other;
	char msg[256];
	assert_int_equal(rl_policy_parse("5/1s+100/1m:units", &p, msg, sizeof(msg)), RL_OK);
	assert_int_equal(rl_policy_limiter_init(&pl, rl_algo_find("gcra"), &p, msg, sizeof(msg)), RL_OK);
	assert_int_equal(rl_policy_limiter_init(&other, rl_algo_find("token_bucket"), &p, msg, sizeof(msg)), RL_OK);
	struct rl_redis_policy rp = { &pl, false, 0 }, ro = { &other, false, 0 };
	assert_int_equal(rl_redis_policy_check(r, &rp, "pol", 3, 1000, 1, NULL), RL_ALLOWED);
	freeReplyObject(cmd("RATELAB.CHECK {single} gcra 5 1000000000 5 1 1000"));
	freeReplyObject(cmd("HSET {h} f v"));
	struct {
		struct rl_redis_policy *p;
		const char *key, *want;
	} cases[] = {
		{ &ro, "pol", "ratelab: key '{pol}' holds gcra policy state, not token_bucket" },
		{ &rp, "single", "ratelab: key '{single}' holds gcra state, not policy" },
		{ &rp, "h", "WRONGTYPE ratelab: key '{h}' holds a hash, not ratelab state" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (int side = 0; side < 2; side++) {
			struct rl_redis *via = side ? r : m;
			assert_int_equal(rl_redis_policy_check(via, cases[i].p, cases[i].key, strlen(cases[i].key), 2000, 1, NULL),
					 RL_EREDIS);
			if (!strstr(rl_redis_error(via), cases[i].want))
				fail_msg("%s: %s, want %s", side ? "scripts" : "module", rl_redis_error(via), cases[i].want);
		}
	}
	/* a one-rule check on a policy key: both sides name it */
	struct rl_limiter lim;
	assert_int_equal(rl_limiter_init(&lim, rl_algo_find("gcra"), &p.rules[0], msg, sizeof(msg)), RL_OK);
	struct rl_redis_rule rr = { &lim, false, 0 };
	for (int side = 0; side < 2; side++) {
		struct rl_redis *via = side ? r : m;
		assert_int_equal(rl_redis_check(via, &rr, "pol", 3, 2000, NULL), RL_EREDIS);
		if (!strstr(rl_redis_error(via), "ratelab: key '{pol}' holds policy state, not gcra"))
			fail_msg("%s: %s", side ? "scripts" : "module", rl_redis_error(via));
	}
	/* damaged: both sides the same words, decided by fail_closed (an outage of that key) */
	redisReply *v = cmd("GET {pol}");
	char bad[512];
	memcpy(bad, v->str, v->len);
	bad[7] = 1; /* the zero byte of the policy head */
	redisContext *c = rh_connect(g_port);
	freeReplyObject(redisCommand(c, "SET {pol} %b", bad, v->len));
	redisFree(c);
	for (int side = 0; side < 2; side++) {
		struct rl_redis *via = side ? r : m;
		rp.fail_closed = true;
		assert_int_equal(rl_redis_policy_check(via, &rp, "pol", 3, 2000, 1, NULL), RL_REJECTED);
		assert_non_null(strstr(rl_redis_error(via), "ratelab: key '{pol}' holds a damaged gcra state"));
	}
	redisReply *after = cmd("GET {pol}");
	assert_memory_equal(after->str, bad, v->len);
	freeReplyObject(after);
	freeReplyObject(v);
	rl_redis_destroy(r);
	rl_redis_destroy(m);
}

int main(void)
{
	g_seed = t_seed_from_env(g_seed);
	if (!rh_available(false))
		return 0;
	if (!rh_start_single(&g_srv)) {
		fprintf(stderr, "test_redis_policy: could not start redis-server with %s\n", RH_MODULE);
		return 1;
	}
	g_port = g_srv.nodes[0].port;
	printf("test_redis_policy: redis-server with ratelab.so on 127.0.0.1:%d, seed 0x%" PRIx64 "\n", g_port,
	       g_seed);

	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_differential), cmocka_unit_test(test_shadow),
		cmocka_unit_test(test_bytes),        cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_foreign),      cmocka_unit_test(test_never),
		cmocka_unit_test(test_rule_change), cmocka_unit_test(test_v3_value),  cmocka_unit_test(test_backend_checks),
		cmocka_unit_test(test_scripts_errors),
	};
	int failed = cmocka_run_group_tests(tests, NULL, NULL);
	rh_stop(&g_srv);
	return failed;
}
