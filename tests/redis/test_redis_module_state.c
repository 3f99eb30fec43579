/*
 * test_redis_module_state.c - ratelab.so's stored form v4 (state_bytes.h)
 * on a real redis-server that loads it: rule changes decided by the module
 * exactly as the library decides them (rl_limiter_rerule, then the check),
 * decision by decision and answer by answer, on seeded random traces
 * whose rules change by factors up to 10^4; the tier downgrade;
 * structured corruptions of every fixed-size state, each either refused as
 * "key 'K' holds a damaged ALGO state" (the value untouched) or decided as
 * the library decides the same bytes, never crashing the server; a v2
 * value read under the check's rule and written back as v4, a v3 gcra
 * value (no fraction) read as v4; the module's
 * bounds at both edges; keys and names quoted once with control bytes
 * escaped; a damaged state through the backend is the rule's on_error,
 * counted in errors.
 *
 * A mismatch prints the seed. Reproduce with RL_SEED=<seed> ./test_redis_module_state
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
#include "ratelab/fixed_window.h"
#include "ratelab/sliding_counter.h"
#include "ratelab/gcra.h"
#include "ratelab/level.h"
#include "ratelab/redis.h"
#include "ratelab/sliding_counter.h"
#include "ratelab/sliding_log.h"

static struct rh g_srv;
static int g_port;
static uint64_t g_seed = 0x41f1ee7ULL;
static redisContext *g_c;

#define GRACE "86400000"

struct answer {
	bool error;
	char msg[1400];
	int verdict;
	int64_t f[4]; /* remaining, retry_after_ns, reset_ns, delay_ns */
};

static void to_answer(redisReply *rep, struct answer *a)
{
	memset(a, 0, sizeof(*a));
	assert_non_null(rep);
	if (rep->type == REDIS_REPLY_ERROR) {
		a->error = true;
		snprintf(a->msg, sizeof(a->msg), "%s", rep->str);
	} else {
		assert_int_equal(rep->type, REDIS_REPLY_ARRAY);
		assert_int_equal(rep->elements, 5);
		a->verdict = (int)rep->element[0]->integer;
		for (int i = 0; i < 4; i++)
			a->f[i] = strtoll(rep->element[i + 1]->str, NULL, 10);
	}
	freeReplyObject(rep);
}

/* RATELAB.CHECK key algo N W B cost now GRACE. */
static void check(const char *key, size_t klen, const char *algo, const struct rl_rule *r, int64_t cost, int64_t now,
		  struct answer *a)
{
	char n[24], w[24], b[24], c[24], t[24];

	snprintf(n, sizeof(n), "%lld", (long long)r->limit);
	snprintf(w, sizeof(w), "%lld", (long long)r->window_ns);
	snprintf(b, sizeof(b), "%lld", (long long)r->burst);
	snprintf(c, sizeof(c), "%lld", (long long)cost);
	snprintf(t, sizeof(t), "%lld", (long long)now);
	to_answer(redisCommand(g_c, "RATELAB.CHECK %b %s %s %s %s %s %s " GRACE, key, klen, algo, n, w, b, c, t), a);
}

static redisReply *cmd(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	redisReply *rep = redisvCommand(g_c, fmt, ap);
	va_end(ap);
	assert_non_null(rep);
	return rep;
}

static void expect_error(redisReply *rep, const char *want)
{
	if (rep->type != REDIS_REPLY_ERROR || !strstr(rep->str, want))
		fail_msg("want an error with \"%s\", got type %d: %s", want, (int)rep->type,
			 rep->type == REDIS_REPLY_ERROR || rep->type == REDIS_REPLY_STRING ? rep->str : "");
	freeReplyObject(rep);
}

static void expect_ok(redisReply *rep)
{
	if (rep->type == REDIS_REPLY_ERROR)
		fail_msg("want an answer, got the error %s", rep->str);
	freeReplyObject(rep);
}

static int64_t rnd(uint64_t *s, int64_t lo, int64_t hi)
{
	return lo + (int64_t)(t_splitmix(s) % ((uint64_t)(hi - lo) + 1));
}

static int64_t clamp64(__int128 v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : (int64_t)v;
}

static const char *const algos[] = { "token_bucket", "gcra", "leaky_bucket", "fixed_window", "sliding_log",
				     "sliding_counter" };

static struct rl_rule first_rule(uint64_t *s, const struct rl_algo *a)
{
	static const int64_t windows[] = { 1, 7, 1000, 1000000000, 3600000000000LL, 1000000000000000000LL };
	struct rl_rule r;

	r.limit = rnd(s, 1, rnd(s, 0, 1) ? 20 : 1000000);
	r.window_ns = windows[rnd(s, 0, 5)];
	r.burst = a->uses_burst ? rnd(s, 1, rnd(s, 0, 1) ? 30 : 1000000000) : r.limit;
	return r;
}

static int64_t scale(uint64_t *s, int64_t v, int64_t lo, int64_t hi)
{
	int64_t f = rnd(s, 0, 3) == 0 ? 10000 : rnd(s, 1, 10000);

	return rnd(s, 0, 1) ? clamp64((__int128)v * f, lo, hi) : clamp64(v / f, lo, hi);
}

static struct rl_rule next_rule(uint64_t *s, const struct rl_algo *a, struct rl_rule r)
{
	int what = (int)rnd(s, 1, 7);

	if (what & 1)
		r.limit = scale(s, r.limit, 1, RL_REDIS_LIMIT_MAX);
	if (what & 2)
		r.window_ns = scale(s, r.window_ns, 1, RL_WINDOW_MAX_NS);
	if (!a->uses_burst)
		r.burst = r.limit;
	else if (what & 4)
		r.burst = scale(s, r.burst, 1, RL_REDIS_BURST_MAX);
	return r;
}

static bool never_fits(const struct rl_limiter *lim, int64_t t, int64_t cost)
{
	_Alignas(16) unsigned char fresh[RL_ALGO_MAX_STATE] = { 0 };
	int rc = lim->algo->check(lim, fresh, t, cost, NULL);

	rl_limiter_release(lim, fresh);
	return rc == RL_REJECTED;
}

enum { KEYS = 3, RULES = 10, STEPS = 50, TRACES = 25 };

/* One trace of one algorithm: the module against the library, line by line. */
static void diff_trace(const char *name, int trace)
{
	const struct rl_algo *algo = rl_algo_find(name);
	uint64_t s = g_seed ^ (0x9e3779b97f4a7c15ULL * (uint64_t)(trace + 1)) ^ (uint64_t)(name[0] * 131 + name[2]);
	struct rl_rule rules[RULES];
	struct rl_limiter lims[RULES];
	int nrules = 1, cur = 0, under[KEYS];
	_Alignas(16) unsigned char st[KEYS][RL_ALGO_MAX_STATE];
	char key[KEYS][64];

	memset(st, 0, sizeof(st));
	for (int k = 0; k < KEYS; k++) {
		under[k] = -1;
		snprintf(key[k], sizeof(key[k]), "d:%s:%d:%d", name, trace, k);
	}
	rules[0] = first_rule(&s, algo);
	assert_int_equal(rl_limiter_init(&lims[0], algo, &rules[0], NULL, 0), RL_OK);
	int64_t t = rnd(&s, 0, 3) == 0 ? RL_TIME_MAX_NS - rnd(&s, 0, 1000000000) : rnd(&s, 0, 1000000000000LL);
	for (int q = 0; q < STEPS; q++) {
		if (nrules < RULES && rnd(&s, 0, 4) == 0) {
			rules[nrules] = next_rule(&s, algo, rules[cur]);
			assert_int_equal(rl_limiter_init(&lims[nrules], algo, &rules[nrules], NULL, 0), RL_OK);
			cur = nrules++;
		}
		int k = (int)rnd(&s, 0, KEYS - 1);
		int64_t w = rules[cur].window_ns;
		switch (rnd(&s, 0, 5)) {
		case 0:
		case 1:
			break; /* one instant: a state at its extreme */
		case 2:
			t = clamp64((__int128)t - rnd(&s, 1, 1000), 0, RL_TIME_MAX_NS);
			break;
		case 3:
			t = clamp64((__int128)t + rnd(&s, 0, w), 0, RL_TIME_MAX_NS);
			break;
		default:
			t = clamp64((__int128)t + rnd(&s, 0, w / 8 + 1), 0, RL_TIME_MAX_NS);
			break;
		}
		int64_t cap = algo->uses_burst ? rules[cur].burst : rules[cur].limit;
		int64_t cost = rnd(&s, 0, 5) == 0 ? rnd(&s, 1, cap + 1 > RL_REDIS_COST_MAX ? RL_REDIS_COST_MAX : cap + 1) : 1;

		_Alignas(16) unsigned char before[RL_ALGO_MAX_STATE];
		bool convert = under[k] >= 0 && !rl_limiter_same_rule(&lims[under[k]], &lims[cur]);
		memcpy(before, st[k], sizeof(before));
		if (convert)
			assert_int_equal(rl_limiter_rerule(&lims[under[k]], &lims[cur], st[k], t), RL_OK);
		struct rl_decision d;
		int v = rl_limiter_check_n(&lims[cur], st[k], t, cost, &d);
		assert_true(v >= 0);
		if (convert && v == RL_REJECTED && never_fits(&lims[cur], t, cost))
			memcpy(st[k], before, sizeof(before)); /* nothing written, the conversion included */
		else
			under[k] = cur;

		struct answer a;
		check(key[k], strlen(key[k]), name, &rules[cur], cost, t, &a);
		const int64_t want[4] = { d.remaining, d.retry_after_ns, d.reset_ns, d.delay_ns };
		bool same = !a.error && a.verdict == v;
		for (int i = 0; i < 4; i++)
			same = same && a.f[i] == want[i];
		if (!same)
			fail_msg("%s trace %d request %d (seed 0x%" PRIx64 "): rule %lld/%lld b%lld t=%lld cost=%lld: "
				 "module %s %d %lld %lld %lld %lld, library %d %lld %lld %lld %lld",
				 name, trace, q, g_seed, (long long)rules[cur].limit, (long long)rules[cur].window_ns,
				 (long long)rules[cur].burst, (long long)t, (long long)cost, a.error ? a.msg : "",
				 a.verdict, (long long)a.f[0], (long long)a.f[1], (long long)a.f[2], (long long)a.f[3], v,
				 (long long)want[0], (long long)want[1], (long long)want[2], (long long)want[3]);
	}
	for (int k = 0; k < KEYS; k++)
		rl_limiter_release(&lims[0], st[k]);
}

static void test_rule_changes(void **unused)
{
	(void)unused;
	for (size_t i = 0; i < sizeof(algos) / sizeof(algos[0]); i++)
		for (int tr = 0; tr < TRACES; tr++)
			diff_trace(algos[i], tr);
}

/* The downgrade: 6,000,000 used is refused as 4,000,000 used is, with the same answer. */
static void test_tier_downgrade(void **unused)
{
	(void)unused;
	const struct rl_rule big = { 1000000, 3600000000000LL, 10000000 }, small = { 1000000, 3600000000000LL, 1000000 };
	struct answer a, b;

	freeReplyObject(cmd("DEL wn6 wn4"));
	check("wn6", 3, "token_bucket", &big, 6000000, 0, &a);
	assert_int_equal(a.verdict, 1);
	check("wn4", 3, "token_bucket", &big, 4000000, 0, &a);
	assert_int_equal(a.verdict, 1);
	check("wn6", 3, "token_bucket", &small, 100000, 1000000000, &a);
	check("wn4", 3, "token_bucket", &small, 100000, 1000000000, &b);
	assert_false(a.error || b.error);
	assert_int_equal(a.verdict, 0);
	assert_int_equal(b.verdict, 0);
	assert_memory_equal(a.f, b.f, sizeof(a.f));
	assert_int_equal(a.f[1], 360000000000LL); /* 100,000 tokens back at 10^6 per hour */
}

/*
 * Stored form v4's body of a plain state (state_bytes.h): the library's
 * bytes (gcra's {tat_ns, last_ns, tat_frac} included), but for sliding_counter, whose u64 counters are stored as u32
 * (24 bytes, not the library's 32); and back.
 */
static size_t v4_len(const struct rl_algo *algo)
{
	return algo == &rl_sliding_counter_algo ? 24 : algo->state_size;
}

/* out of line: inlined for a smaller state, its dead branch would read past it */
__attribute__((noinline)) static void v4_from_lib(const struct rl_algo *algo, const void *state, unsigned char *body)
{
	if (algo != &rl_sliding_counter_algo) {
		memcpy(body, state, algo->state_size);
		return;
	}
	const struct rl_sliding_counter *sc = state;
	uint32_t prev = (uint32_t)sc->prev, curr = (uint32_t)sc->curr;
	memcpy(body, &sc->last_ns, 8);
	memcpy(body + 8, &sc->end_ns, 8);
	memcpy(body + 16, &prev, 4);
	memcpy(body + 20, &curr, 4);
}

static void lib_from_v4(const struct rl_algo *algo, const unsigned char *body, void *state)
{
	if (algo != &rl_sliding_counter_algo) {
		memcpy(state, body, algo->state_size);
		return;
	}
	struct rl_sliding_counter *sc = state;
	uint32_t prev, curr;
	memcpy(&sc->last_ns, body, 8);
	memcpy(&sc->end_ns, body + 8, 8);
	memcpy(&prev, body + 16, 4);
	memcpy(&curr, body + 20, 4);
	sc->prev = prev;
	sc->curr = curr;
}

/* A v4 value of the library's state (converted by v4_from_lib). */
static size_t v4_bytes(const struct rl_algo *algo, int id, const struct rl_rule *rule, const void *state,
		       unsigned char *out)
{
	out[0] = 'r';
	out[1] = 'l';
	out[2] = 4;
	out[3] = (unsigned char)id;
	memcpy(out + 4, &rule->limit, 8);
	memcpy(out + 12, &rule->window_ns, 8);
	memcpy(out + 20, &rule->burst, 8);
	v4_from_lib(algo, state, out + 28);
	return 28 + v4_len(algo);
}

static int id_of(const char *algo)
{
	uint32_t h = 2166136261u;

	for (const unsigned char *p = (const unsigned char *)algo; *p; p++)
		h = (h ^ *p) * 16777619u;
	h ^= h >> 16;
	h ^= h >> 8;
	return (int)(h & 0x7F);
}

/* Where each plain state's 64- and 32-bit fields lie, and its padding. */
struct layout {
	const char *algo;
	size_t wide[3], nwide, narrow[2], nnarrow, pad; /* pad: 0 when none */
};

static const struct layout layouts[] = {
	{ "token_bucket", { 0, 8 }, 2, { 16 }, 1, 20 },
	{ "leaky_bucket", { 0, 8 }, 2, { 16 }, 1, 20 },
	{ "gcra", { 0, 8, 16 }, 3, { 0 }, 0, 0 }, /* tat_ns, last_ns, tat_frac */
	{ "fixed_window", { 0, 8 }, 2, { 16 }, 1, 20 },
	{ "sliding_counter", { 0, 8 }, 2, { 16, 20 }, 2, 0 },
};

/*
 * Structured corruptions of every fixed-size state: each field (and the
 * stored rule's) set to values around its edges. The module refuses the
 * value as damaged exactly when the library's checks refuse it (and leaves
 * it untouched), else decides it as the library does; the server lives.
 */
static void test_corruptions(void **unused)
{
	(void)unused;
	uint64_t s = g_seed ^ 0xc0ffeeULL;
	int refused = 0, decided = 0;

	for (size_t li = 0; li < sizeof(layouts) / sizeof(layouts[0]); li++) {
		const struct layout *L = &layouts[li];
		const struct rl_algo *algo = rl_algo_find(L->algo);
		for (int round = 0; round < 40; round++) {
			struct rl_rule rule = first_rule(&s, algo), now_rule = rnd(&s, 0, 2) ? rule : next_rule(&s, algo, rule);
			struct rl_limiter lim, now_lim;
			assert_int_equal(rl_limiter_init(&lim, algo, &rule, NULL, 0), RL_OK);
			assert_int_equal(rl_limiter_init(&now_lim, algo, &now_rule, NULL, 0), RL_OK);
			_Alignas(16) unsigned char good[RL_ALGO_MAX_STATE] = { 0 };
			int64_t t = rnd(&s, 0, 1000000000000LL);
			for (int q = 0; q < 6; q++)
				assert_true(rl_limiter_check(&lim, good, t += rnd(&s, 0, rule.window_ns / 4 + 1), NULL) >= 0);
			const int64_t w = rule.window_ns, edges64[] = {
				0, 1, -1, INT64_MAX, INT64_MIN, RL_TIME_MAX_NS, RL_TIME_MAX_NS + 1, t, t + 1, t - 1, t + w,
				t + w + 1, t - w, (int64_t)t_splitmix(&s), (t / w + 1) * w, (t / w + 1) * w + 1 };
			const uint32_t edges32[] = { 0, 1, UINT32_MAX, (uint32_t)rule.limit, (uint32_t)rule.limit + 1,
						     (uint32_t)rule.burst, (uint32_t)rule.burst + 1 };
			/* each corruption: a field index (wide, narrow, rule) and a value */
			for (size_t f = 0; f < L->nwide + L->nnarrow + 4; f++) {
				size_t nv = f < L->nwide ? sizeof(edges64) / 8 : f < L->nwide + L->nnarrow ? 7 : 6;
				for (size_t vi = 0; vi < nv; vi++) {
					/* bad: the stored body (v4 layout: L's offsets) */
					_Alignas(16) unsigned char bad[RL_ALGO_MAX_STATE] = { 0 };
					struct rl_rule stored = rule;
					v4_from_lib(algo, good, bad);
					bool pad_bad = false;
					if (f < L->nwide) {
						memcpy(bad + L->wide[f], &edges64[vi], 8);
					} else if (f < L->nwide + L->nnarrow) {
						memcpy(bad + L->narrow[f - L->nwide], &edges32[vi], 4);
					} else if (f < L->nwide + L->nnarrow + 3) {
						const int64_t rv[] = { 0, -1, 1, RL_REDIS_LIMIT_MAX + 1, RL_REDIS_BURST_MAX + 1,
								       RL_WINDOW_MAX_NS + 1 };
						int64_t *field = f == L->nwide + L->nnarrow ? &stored.limit
								 : f == L->nwide + L->nnarrow + 1 ? &stored.window_ns
												   : &stored.burst;
						*field = rv[vi];
					} else if (L->pad) {
						bad[L->pad + vi % 4] = (unsigned char)(vi + 1);
						pad_bad = true;
					} else {
						continue;
					}
					unsigned char bytes[128];
					_Alignas(16) unsigned char view[RL_ALGO_MAX_STATE] = { 0 }; /* the library's view of bad */
					lib_from_v4(algo, bad, view);
					size_t len = v4_bytes(algo, id_of(L->algo), &stored, view, bytes);
					if (L->pad) /* the stored padding is 0, whatever the library's bytes hold */
						memset(bytes + 28 + L->pad, 0, 4);
					if (pad_bad)
						bytes[28 + L->pad + vi % 4] = (unsigned char)(vi + 1);
					freeReplyObject(cmd("SET c:k %b", bytes, len));

					/* the library's view of the same bytes */
					struct rl_limiter from;
					bool ok = !pad_bad && (algo->uses_burst || stored.burst == stored.limit) &&
						  stored.limit <= RL_REDIS_LIMIT_MAX && stored.burst <= RL_REDIS_BURST_MAX &&
						  rl_limiter_init(&from, algo, &stored, NULL, 0) == RL_OK &&
						  rl_limiter_state_check(&from, view) == RL_OK;
					int64_t at = t + rnd(&s, 0, 3);
					struct answer a;
					check("c:k", 3, L->algo, &now_rule, 1, at, &a);
					if (!ok) {
						char want[128];
						snprintf(want, sizeof(want), "key 'c:k' holds a damaged %s state", L->algo);
						if (!a.error || !strstr(a.msg, want))
							fail_msg("%s field %zu value %zu: want \"%s\", got %s", L->algo, f, vi,
								 want, a.error ? a.msg : "an answer");
						redisReply *rep = cmd("GET c:k");
						assert_int_equal(rep->len, len);
						assert_memory_equal(rep->str, bytes, len);
						freeReplyObject(rep);
						refused++;
						continue;
					}
					if (!rl_limiter_same_rule(&from, &now_lim))
						assert_int_equal(rl_limiter_rerule(&from, &now_lim, view, at), RL_OK);
					struct rl_decision d;
					int v = rl_limiter_check(&now_lim, view, at, &d);
					if (a.error || a.verdict != v || a.f[0] != d.remaining || a.f[1] != d.retry_after_ns ||
					    a.f[2] != d.reset_ns || a.f[3] != d.delay_ns)
						fail_msg("%s field %zu value %zu: module %s %d %lld, library %d %lld", L->algo,
							 f, vi, a.error ? a.msg : "", a.verdict, (long long)a.f[0], v,
							 (long long)d.remaining);
					decided++;
				}
			}
		}
	}
	printf("corruptions: %d refused as damaged, %d decided as the library decides them\n", refused, decided);
	assert_true(refused > 100 && decided > 100);
	redisReply *rep = cmd("PING");
	assert_string_equal(rep->str, "PONG");
	freeReplyObject(rep);
}

/* A v2 value is read under the check's rule and written back as v4. */
static void test_v2_upgrade(void **unused)
{
	(void)unused;
	const struct rl_rule rule = { 10, 1000, 10 };
	struct rl_limiter lim;
	struct rl_level st = { 5, 3000, 0 };
	unsigned char v2[4 + 24] = { 'r', 'l', 2, (unsigned char)id_of("token_bucket") };

	assert_int_equal(rl_limiter_init(&lim, &rl_token_bucket_algo, &rule, NULL, 0), RL_OK);
	memcpy(v2 + 4, &st, sizeof(st));
	memset(v2 + 4 + 20, 0, 4);
	freeReplyObject(cmd("SET v2 %b", v2, sizeof(v2)));
	struct answer a;
	check("v2", 2, "token_bucket", &rule, 1, 7, &a);
	struct rl_decision d;
	int v = rl_limiter_check(&lim, &st, 7, &d);
	assert_false(a.error);
	assert_int_equal(a.verdict, v);
	assert_int_equal(a.f[0], d.remaining);
	redisReply *rep = cmd("GET v2");
	unsigned char want[64];
	size_t len = v4_bytes(&rl_token_bucket_algo, id_of("token_bucket"), &rule, &st, want);
	memset(want + 28 + 20, 0, 4);
	assert_int_equal(rep->len, len);
	assert_memory_equal(rep->str, want, len);
	freeReplyObject(rep);
	/* a v2 value of the wrong shape is damaged */
	freeReplyObject(cmd("SET v2 %b", v2, sizeof(v2) - 1));
	expect_error(cmd("RATELAB.CHECK v2 token_bucket 10 1000 10 1 7"), "key 'v2' holds a damaged token_bucket state");
}

/*
 * A v3 gcra value ({tat_ns, last_ns}, T = ceil(W / N)) is read with the
 * fraction 0, its debt cut to v4's exact cap, damaged past v3's own cap,
 * and written back as v4 (state_bytes.h). 7 per s, B 3: T = 10^9 / 7 ns,
 * v4's cap 6 T = 857142857 1/7 ns, v3's 6 * 142857143 = 857142858 ns.
 */
static void test_v3_gcra(void **unused)
{
	(void)unused;
	const struct rl_rule rule = { 7, 1000000000, 3 };
	struct rl_limiter lim;
	unsigned char v3[4 + 24 + 16] = { 'r', 'l', 3, (unsigned char)id_of("gcra") }, want[64];

	assert_int_equal(rl_limiter_init(&lim, &rl_gcra_algo, &rule, NULL, 0), RL_OK);
	memcpy(v3 + 4, &rule.limit, 8);
	memcpy(v3 + 12, &rule.window_ns, 8);
	memcpy(v3 + 20, &rule.burst, 8);
	for (int64_t debt = 857142857; debt <= 857142859; debt++) {
		int64_t tat = 100 + debt, last = 100;
		memcpy(v3 + 28, &tat, 8);
		memcpy(v3 + 36, &last, 8);
		freeReplyObject(cmd("SET g3 %b", v3, sizeof(v3)));
		struct answer a;
		check("g3", 2, "gcra", &rule, 1, 100, &a);
		if (debt == 857142859) { /* past v3's cap */
			assert_true(a.error && strstr(a.msg, "key 'g3' holds a damaged gcra state"));
			continue;
		}
		/* the library on the state read: fraction 0, cut to 6 T */
		struct rl_gcra st = { tat, last, 0 };
		if (debt == 857142858)
			st = (struct rl_gcra){ 100 + 857142857, 100, 1 };
		assert_int_equal(rl_limiter_state_check(&lim, &st), RL_OK);
		struct rl_decision d;
		int v = rl_limiter_check(&lim, &st, 100, &d);
		assert_false(a.error);
		assert_int_equal(a.verdict, v);
		assert_int_equal(a.f[1], d.retry_after_ns);
		assert_int_equal(a.f[2], d.reset_ns);
		redisReply *rep = cmd("GET g3");
		size_t len = v4_bytes(&rl_gcra_algo, id_of("gcra"), &rule, &st, want);
		assert_int_equal(rep->len, len);
		assert_memory_equal(rep->str, want, len);
		freeReplyObject(rep);
	}
}

/* The module's bounds, the README's, at both edges. */
static void test_bounds(void **unused)
{
	(void)unused;
	expect_ok(cmd("RATELAB.CHECK b1 gcra 1 1 1 1 0 0"));
	expect_ok(cmd("RATELAB.CHECK b2 gcra 1000000 1000000000000000000 1000000000 1000000000 4000000000000000000 "
		      "1000000000000"));
	expect_error(cmd("RATELAB.CHECK b gcra 0 1000 5 1 1"), "limit '0' is not an integer in [1, 1000000]");
	expect_error(cmd("RATELAB.CHECK b gcra 1000001 1000 5 1 1"), "limit '1000001' is not an integer in [1, 1000000]");
	expect_error(cmd("RATELAB.CHECK b gcra 5 0 5 1 1"), "window_ns '0' is not an integer in [1, 1000000000000000000]");
	expect_error(cmd("RATELAB.CHECK b gcra 5 1000000000000000001 5 1 1"), "window_ns '1000000000000000001'");
	expect_error(cmd("RATELAB.CHECK b gcra 5 1000 0 1 1"), "burst '0' is not an integer in [1, 1000000000]");
	expect_error(cmd("RATELAB.CHECK b gcra 5 1000 1000000001 1 1"), "burst '1000000001'");
	expect_error(cmd("RATELAB.CHECK b gcra 5 1000 5 0 1"), "cost '0' is not an integer in [1, 1000000000]");
	expect_error(cmd("RATELAB.CHECK b gcra 5 1000 5 1000000001 1"), "cost '1000000001'");
	expect_error(cmd("RATELAB.CHECK b gcra 5 1000 5 1 -1"), "ratelab: time out of range");
	expect_error(cmd("RATELAB.CHECK b gcra 5 1000 5 1 4000000000000000001"), "ratelab: time out of range");
	expect_error(cmd("RATELAB.CHECK b gcra 5 1000 5 1 1 1000000000001"), "grace_ms '1000000000001'");
	/* the window algorithms: a burst of 0 or the limit, as the CLI refuses --burst for them */
	for (int i = 3; i < 6; i++) {
		/* a 60 s window: the key's TTL outlives the GETs below (a 1000 ns one lives about 1 ms) */
		expect_ok(cmd("RATELAB.CHECK w0%s %s 5 60000000000 0 1 1", algos[i], algos[i]));
		expect_ok(cmd("RATELAB.CHECK w5%s %s 5 60000000000 5 1 1", algos[i], algos[i]));
		expect_error(cmd("RATELAB.CHECK w %s 5 1000 6 1 1", algos[i]), "burst '6' does not apply to");
		expect_error(cmd("RATELAB.CHECK w %s 5 1000 4 1 1", algos[i]), "pass 0 or the limit (5)");
		expect_error(cmd("RATELAB.CHECK w %s 5 1000 -1 1 1", algos[i]), "burst '-1' is not an integer in [0,");
	}
	/* both burst forms write one stored rule (B = N): no rule change between them */
	redisReply *a = cmd("GET w0fixed_window"), *b = cmd("GET w5fixed_window");
	assert_int_equal(a->len, b->len);
	assert_memory_equal(a->str, b->str, a->len);
	freeReplyObject(a);
	freeReplyObject(b);
	/* the breaker: limit 1..10^6, window and open time 1..10^9 */
	expect_ok(cmd("RATELAB.BREAKER br1 1 1 1 1 0 handle"));
	expect_ok(cmd("RATELAB.BREAKER br2 1 1000000 1000000000 1000000000 0 handle"));
	expect_error(cmd("RATELAB.BREAKER br 1 1000001 5 7 0 handle"), "limit '1000001'");
	expect_error(cmd("RATELAB.BREAKER br 1 1 1000000001 7 0 handle"), "window '1000000001' is not an integer in [1, 1000000000]");
	expect_error(cmd("RATELAB.BREAKER br 1 1 0 7 0 handle"), "window '0'");
	expect_error(cmd("RATELAB.BREAKER br 1 1 5 1000000001 0 handle"), "open time '1000000001' is not an integer in [1, 1000000000]");
	expect_error(cmd("RATELAB.BREAKER br 1 1 5 0 0 handle"), "open time '0'");
}

/* Every key and name in a message: quoted once, control bytes escaped. */
static void test_quoting(void **unused)
{
	(void)unused;
	const char k[] = "a\nb\x01'c\\";
	freeReplyObject(cmd("DEL %b", k, sizeof(k) - 1));
	freeReplyObject(cmd("RPUSH %b x", k, sizeof(k) - 1));
	expect_error(cmd("RATELAB.CHECK %b gcra 5 1000 5 1 1", k, sizeof(k) - 1),
		     "WRONGTYPE ratelab: key 'a\\nb\\x01\\'c\\\\' holds a list, not ratelab state");
	freeReplyObject(cmd("DEL %b", k, sizeof(k) - 1));
	expect_ok(cmd("RATELAB.CHECK %b gcra 5 1000 5 1 1 600000", k, sizeof(k) - 1));
	expect_error(cmd("RATELAB.CHECK %b fixed_window 5 1000 5 1 1", k, sizeof(k) - 1),
		     "ratelab: key 'a\\nb\\x01\\'c\\\\' holds gcra state, not fixed_window");
	freeReplyObject(cmd("SET %b %b", k, sizeof(k) - 1, "rl\x03\x34xx", (size_t)6));
	expect_error(cmd("RATELAB.CHECK %b gcra 5 1000 5 1 1", k, sizeof(k) - 1),
		     "ratelab: key 'a\\nb\\x01\\'c\\\\' holds a damaged gcra state");
	expect_error(cmd("RATELAB.CHECK k %b 5 1000 5 1 1", "x\ty", (size_t)3), "unknown algorithm 'x\\ty' (one of:");
	expect_error(cmd("RATELAB.CHECK k gcra %b 1000 5 1 1", "\x1b[31m", (size_t)5), "limit '\\x1b[31m' is not");
	expect_error(cmd("RATELAB.CHECK k gcra 5 1000 5 1 %b", "\r", (size_t)1), "now_ns '\\r' is not an integer or *");
	expect_error(cmd("RATELAB.BREAKER k 1 1 5 7 0 %b", "op\nen", (size_t)5), "breaker action 'op\\nen' is not");
}

/* Through the backend: a damaged state is the rule's on_error, counted in errors. */
static void test_backend_outage(void **unused)
{
	(void)unused;
	const struct rl_rule rule = { 5, 1000, 5 };
	struct rl_limiter lim;
	struct rl_redis_config cfg = { .port = g_port, .prefix = "" };
	struct rl_redis *r = NULL;
	struct rl_redis_stats st;
	unsigned char bytes[64];
	struct rl_level bad = { 5, UINT64_MAX, UINT32_MAX };

	assert_int_equal(rl_limiter_init(&lim, &rl_token_bucket_algo, &rule, NULL, 0), RL_OK);
	size_t len = v4_bytes(&rl_token_bucket_algo, id_of("token_bucket"), &rule, &bad, bytes);
	memset(bytes + 28 + 20, 0, 4);
	freeReplyObject(cmd("SET {dk} %b", bytes, len));
	assert_int_equal(rl_redis_create(&r, &cfg, NULL, 0), RL_OK);
	struct rl_redis_rule open = { &lim, false, 0 }, closed = { &lim, true, 0 };
	assert_int_equal(rl_redis_check(r, &open, "dk", 2, 7, NULL), RL_ALLOWED);
	assert_int_equal(rl_redis_check(r, &closed, "dk", 2, 7, NULL), RL_REJECTED);
	assert_non_null(strstr(rl_redis_error(r), "key '{dk}' holds a damaged token_bucket state"));
	rl_redis_stats(r, &st);
	assert_int_equal(st.errors, 2);
	assert_int_equal(st.decided, 0);
	assert_int_equal(st.fallbacks, 0);
	/* never as a fresh key: the value is left for an operator to see */
	redisReply *rep = cmd("GET {dk}");
	assert_int_equal(rep->len, len);
	freeReplyObject(rep);
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
		fprintf(stderr, "test_redis_module_state: could not start redis-server with %s\n", RH_MODULE);
		return 1;
	}
	g_port = g_srv.nodes[0].port;
	g_c = rh_connect(g_port);
	if (!g_c)
		return 1;
	printf("test_redis_module_state: redis-server with ratelab.so on 127.0.0.1:%d, seed 0x%" PRIx64 "\n", g_port,
	       g_seed);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rule_changes), cmocka_unit_test(test_tier_downgrade),
		cmocka_unit_test(test_corruptions),  cmocka_unit_test(test_v2_upgrade), cmocka_unit_test(test_v3_gcra),
		cmocka_unit_test(test_bounds),       cmocka_unit_test(test_quoting),
		cmocka_unit_test(test_backend_outage),
	};
	int failed = cmocka_run_group_tests(tests, NULL, NULL);
	redisFree(g_c);
	rh_stop(&g_srv);
	return failed;
}
