/*
 * test_lua_form.c - the Lua scripts' stored form (docs/redis.md, "Stored
 * form"), on a real redis-server the test starts:
 *
 *   - rule changes: every algorithm on seeded random multi-key traces whose
 *     rule changes mid-trace (limit, window and burst up and down by
 *     factors up to 10^4, or to their extremes; times up to 4 * 10^18),
 *     decision by decision against the library in process: its state
 *     carried to the new rule by rl_limiter_rerule, then rl_limiter_check_n
 *     (one meaning, the library's: docs/library.md, docs/redis.md "A rule
 *     change"); a window algorithm's rule stored with B = N;
 *   - damaged states: hand-packed values that no valid rule could have
 *     written (the cases: a count of -7, a curr of -100, a log
 *     over N, a TAT that is no time; and every other field's bound) are
 *     the error naming the key and algorithm, decided by the rule's
 *     policy, counted in errors, and left as they are; another type at the
 *     key is ratelab's error naming it;
 *   - the byte form: a version 2 value (the module's before the rule was
 *     stored) packed here from the library's state is continued as if
 *     written under the calling rule (gcra's without its fraction), and
 *     written back as version 4; the
 *     scripts' bytes are the library's state after the same checks, under
 *     the rule the module stores (a window algorithm's burst is N: the
 *     scripts called directly with a burst of 0 or N store N, with the
 *     module's bytes; another burst is the module's error, in its words).
 *
 * Built with LF_MODULE (the path of ratelab.so) the server loads the
 * module, and a key written by one backend is continued by the other,
 * against the library (the breaker against the in-process breaker):
 * module then scripts always, and both ways (with rule changes) when the
 * module stores version 3 (RLM_VERSION, its state_bytes.h); a
 * disagreement fails.
 *
 * A mismatch prints the seed. Reproduce with RL_SEED=<seed> ./test_lua_form
 */
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
#include "ratelab/breaker.h"
#include "ratelab/fixed_window.h"
#include "ratelab/gcra.h"
#include "ratelab/level.h"
#include "ratelab/redis.h"
#include "ratelab/sliding_counter.h"
#include "ratelab/sliding_log.h"
#include "../test_rng.h"

#ifdef LF_MODULE
#include "state_bytes.h"
#endif

static struct rh g_srv;
static int g_port;
static uint64_t g_seed = 0x1f04a3;

enum { NK = 3, TRACE = 240, GRACE_MS = 600000 };

static int64_t below(uint64_t *s, int64_t n)
{
	return (int64_t)(t_splitmix(s) % (uint64_t)n);
}

static int64_t loguni(uint64_t *s, int64_t max)
{
	int bits = 1 + (int)below(s, 63);
	int64_t cap = bits >= 63 ? max : (int64_t)1 << bits;
	return 1 + below(s, cap < max ? cap : max);
}

static int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

static redisReply *cmd(const char *fmt, ...)
{
	redisContext *c = rh_connect(g_port);
	va_list ap;

	assert_non_null(c);
	va_start(ap, fmt);
	redisReply *r = redisvCommand(c, fmt, ap);
	va_end(ap);
	redisFree(c);
	assert_non_null(r);
	return r;
}

static void flushall(void)
{
	freeReplyObject(cmd("FLUSHALL"));
}

static struct rl_redis *backend(bool scripts_only)
{
	struct rl_redis_config cfg = { .port = g_port, .ttl_grace_ms = GRACE_MS, .command_timeout_ms = 5000,
				       .connect_timeout_ms = 2000, .scripts_only = scripts_only };
	struct rl_redis *r = NULL;
	char msg[160];

	assert_int_equal(rl_redis_create(&r, &cfg, msg, sizeof(msg)), RL_OK);
	return r;
}

/* ---- the reference: the library itself, rl_limiter_rerule then rl_limiter_check_n */

/* The rule a backend stores for lim: a window algorithm has no burst and
 * its stored rule holds B = N (struct rl_rule), whatever burst lim was
 * made with (the backend sends N). */
static struct rl_rule stored_rule(const struct rl_limiter *lim)
{
	struct rl_rule r = lim->rule;

	if (!lim->algo->uses_burst)
		r.burst = r.limit;
	return r;
}

/* A deep copy of a key's state into to (sliding_log: its runs pushed
 * again into a ring of its own). */
static void copy_state(const struct rl_algo *algo, void *to, const void *from)
{
	memset(to, 0, RL_ALGO_MAX_STATE);
	if (algo != &rl_sliding_log_algo) {
		memcpy(to, from, algo->state_size);
		return;
	}
	const struct rl_sliding_log *f = from;
	struct rl_sliding_log *t = to;
	t->last_ns = f->last_ns;
	for (uint32_t i = 0; i < f->log.len; i++) {
		const struct rl_run *run = &f->log.runs[(f->log.head + i) & (f->log.cap - 1)];
		assert_int_equal(rl_runlog_push_n(&t->log, run->at, run->count), RL_OK);
	}
}

/* One key of the reference: the library's state and the rule that last wrote it. */
struct mkey {
	bool written;
	struct rl_rule rule;
	_Alignas(16) unsigned char st[RL_ALGO_MAX_STATE];
};

/* Whether cost can never be admitted under lim: a fresh key rejects it. */
static bool never(const struct rl_limiter *lim, int64_t now, int64_t cost)
{
	_Alignas(16) unsigned char fresh[RL_ALGO_MAX_STATE] = { 0 };
	int rc = rl_limiter_check_n(lim, fresh, now, cost, NULL);

	rl_limiter_release(lim, fresh);
	return rc == RL_REJECTED;
}

/*
 * The decision the backends owe (algo.h, "A rule change on a live key"):
 * on a copy of the key's state, valid under the rule that wrote it,
 * rl_limiter_rerule to lim's stored rule (a state it accepts), then
 * rl_limiter_check_n. A request that can never be admitted writes
 * nothing, the conversion included: the copy is dropped, the key keeps its
 * state and rule. remaining is at least 0 on the wire (a sliding_log
 * converted to a lower N may hold more than N).
 */
static int library_check(struct mkey *k, const struct rl_limiter *lim, int64_t now, int64_t cost, struct rl_decision *d)
{
	const struct rl_algo *algo = lim->algo;
	const struct rl_rule r1 = stored_rule(lim);
	struct rl_limiter to, from;
	_Alignas(16) unsigned char work[RL_ALGO_MAX_STATE];

	assert_int_equal(rl_limiter_init(&to, algo, &r1, NULL, 0), RL_OK);
	copy_state(algo, work, k->st);
	if (k->written) {
		assert_int_equal(rl_limiter_init(&from, algo, &k->rule, NULL, 0), RL_OK);
		assert_int_equal(rl_limiter_state_check(&from, work), RL_OK);
		assert_int_equal(rl_limiter_rerule(&from, &to, work, now), RL_OK);
		assert_int_equal(rl_limiter_state_check(&to, work), RL_OK);
	}
	memset(d, 0, sizeof(*d));
	int rc = rl_limiter_check_n(&to, work, now, cost, d);
	if (d->remaining < 0)
		d->remaining = 0;
	if (rc == RL_REJECTED && d->retry_after_ns == RL_DURATION_MAX_NS && never(&to, now, cost)) {
		rl_limiter_release(&to, work);
	} else {
		rl_limiter_release(&to, k->st);
		memcpy(k->st, work, sizeof(work));
		k->written = true;
		k->rule = r1;
	}
	return rc;
}

/* A rule near r: each of N, W and B scaled by up to 10^4 either way, or
 * set to an extreme, within the valid ranges; at least one changes. */
static struct rl_rule change(uint64_t *s, struct rl_rule r)
{
	int64_t *f[3] = { &r.limit, &r.window_ns, &r.burst };
	const int64_t max[3] = { RL_REDIS_LIMIT_MAX, RL_WINDOW_MAX_NS, RL_REDIS_BURST_MAX };
	struct rl_rule was = r;

	while (memcmp(&was, &r, sizeof(r)) == 0) {
		for (int i = 0; i < 3; i++) {
			if (below(s, 2))
				continue;
			int64_t v = *f[i], k = 1;
			for (int e = (int)below(s, 5); e > 0; e--)
				k *= 10;
			k = k > 1 ? k / 2 + below(s, k / 2 + 1) : 1 + below(s, 3);
			switch (below(s, 6)) {
			case 0:
				v = below(s, 2) ? 1 : max[i];
				break;
			case 1:
			case 2:
				v = v / k;
				break;
			default:
				v = v > max[i] / k ? max[i] : v * k;
				break;
			}
			*f[i] = v < 1 ? 1 : v > max[i] ? max[i] : v;
		}
	}
	return r;
}

static int64_t next_time(uint64_t *s, int64_t t, const struct rl_rule *r)
{
	int64_t w = r->window_ns, step;

	switch (below(s, 7)) {
	case 0:
		step = 0;
		break;
	case 1:
		step = below(s, w / r->limit + 2);
		break;
	case 2:
		step = below(s, w + 2);
		break;
	case 3:
		step = w < RL_TIME_MAX_NS / 16 ? below(s, 3 * w + 1) : below(s, RL_TIME_MAX_NS / 16);
		break;
	case 4:
		step = -below(s, w + 1); /* backwards: clamped to the key's last seen time */
		break;
	default:
		step = below(s, w / r->limit + 1) / 4;
		break;
	}
	t += step;
	return t < 0 ? 0 : t > RL_TIME_MAX_NS ? RL_TIME_MAX_NS : t;
}

static struct rl_rule random_rule(uint64_t *s)
{
	struct rl_rule r = { loguni(s, RL_REDIS_LIMIT_MAX), loguni(s, RL_WINDOW_MAX_NS), loguni(s, RL_REDIS_BURST_MAX) };

	if (below(s, 2))
		r.limit = 1 + below(s, 10), r.burst = 1 + below(s, 10);
	if (below(s, 4) == 0)
		r.window_ns = 1000000 * (1 + below(s, 5000));
	return r;
}

/*
 * One trace of algo on NK keys with rule changes, each request sent to
 * one of the backends (picked at random among the nb given), compared
 * with the library (library_check).
 */
static void trace(const struct rl_algo *algo, uint64_t *s, long caseno, struct rl_redis **rs, int nb)
{
	struct rl_rule rule = random_rule(s);
	struct rl_limiter lim;
	struct mkey *mk = calloc(NK, sizeof(*mk));
	char keys[NK][40];
	int64_t t = below(s, 3) == 0 ? RL_TIME_MAX_NS - below(s, RL_TIME_MAX_NS / 1000) : below(s, RL_TIME_MAX_NS / 2);

	assert_non_null(mk);
	for (int k = 0; k < NK; k++)
		snprintf(keys[k], sizeof(keys[k]), "rc%ld:%d", caseno, k);
	assert_int_equal(rl_limiter_init(&lim, algo, &rule, NULL, 0), RL_OK);
	for (int i = 0; i < TRACE; i++) {
		struct rl_rule before = rule;
		if (below(s, 6) == 0) {
			rule = change(s, rule);
			assert_int_equal(rl_limiter_init(&lim, algo, &rule, NULL, 0), RL_OK);
		}
		t = next_time(s, t, &rule);
		int k = (int)below(s, NK), b = (int)below(s, nb);
		int64_t cost = 1;
		if (below(s, 4) == 0) {
			int64_t cap = rule.limit > rule.burst ? rule.limit : rule.burst;
			cost = below(s, 10) == 0 ? 1 + below(s, RL_REDIS_COST_MAX) : 1 + below(s, min64(cap, RL_REDIS_COST_MAX - 1) + 1);
		}
		struct rl_redis_rule rr = { &lim, true, 0 };
		struct rl_decision want, got = { 0 };
		struct rl_rule wrote = mk[k].rule;
		bool was_written = mk[k].written;
		int wrc = library_check(&mk[k], &lim, t, cost, &want);
		int grc = rl_redis_check_n(rs[b], &rr, keys[k], strlen(keys[k]), t, cost, &got);
		if (grc != wrc || got.remaining != want.remaining || got.retry_after_ns != want.retry_after_ns ||
		    got.reset_ns != want.reset_ns || got.delay_ns != want.delay_ns) {
			print_error("MISMATCH %s case %ld request %d key %s backend %d t=%" PRId64 " cost=%" PRId64
				    " rule N=%" PRId64 " W=%" PRId64 " B=%" PRId64 " (before this request N=%" PRId64
				    " W=%" PRId64 " B=%" PRId64 "; the key last written %s N=%" PRId64 " W=%" PRId64
				    " B=%" PRId64 ") (seed 0x%" PRIx64 ", reproduce: RL_SEED=0x%" PRIx64 ")\n"
				    "  redis: rc=%d remaining=%" PRId64 " retry=%" PRId64 " reset=%" PRId64
				    " delay=%" PRId64 " %s\n"
				    "  library: rc=%d remaining=%" PRId64 " retry=%" PRId64 " reset=%" PRId64
				    " delay=%" PRId64 "\n",
				    algo->name, caseno, i, keys[k], b, t, cost, rule.limit, rule.window_ns, rule.burst,
				    before.limit, before.window_ns, before.burst, was_written ? "under" : "never, zero",
				    wrote.limit, wrote.window_ns, wrote.burst, g_seed, g_seed, grc, got.remaining,
				    got.retry_after_ns, got.reset_ns, got.delay_ns, rl_redis_error(rs[b]), wrc,
				    want.remaining, want.retry_after_ns, want.reset_ns, want.delay_ns);
			fail();
		}
	}
	for (int k = 0; k < NK; k++)
		if (mk[k].written)
			rl_limiter_release(&lim, mk[k].st);
	free(mk);
}

static void test_rule_changes(void **state)
{
	(void)state;
	size_t count;
	const struct rl_algo *const *all = rl_algo_all(&count);
	struct rl_redis *r = backend(true);
	uint64_t s = g_seed;
	long caseno = 0;

	flushall();
	for (size_t a = 0; a < count; a++)
		for (int c = 0; c < 24; c++)
			trace(all[a], &s, caseno++, &r, 1);
	struct rl_redis_stats st;
	rl_redis_stats(r, &st);
	assert_false(st.module);
	assert_int_equal(st.errors + st.fallbacks, 0);
	rl_redis_destroy(r);
}

/* ---- hand-packed values */

/* FNV-1a of the name folded to 7 bits: the module's rlm_id_of. */
static int id_of(const char *name)
{
	uint32_t h = 2166136261u;

	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = (h ^ *p) * 16777619u;
	h ^= h >> 16;
	h ^= h >> 8;
	return (int)(h & 0x7F);
}

struct bytes {
	unsigned char b[512];
	size_t n;
};

static void put(struct bytes *v, uint64_t x, int len)
{
	for (int i = 0; i < len; i++)
		v->b[v->n++] = (unsigned char)(x >> (8 * i));
}

/* The header (version ver) and, for versions 3 and 4, the rule. */
static struct bytes value(int ver, const char *alg, const struct rl_rule *r)
{
	struct bytes v = { .n = 0 };

	v.b[v.n++] = 'r';
	v.b[v.n++] = 'l';
	v.b[v.n++] = (unsigned char)ver;
	v.b[v.n++] = (unsigned char)(strcmp(alg, "breaker") == 0 ? 0x80 : id_of(alg));
	if (ver >= 3 && r) {
		put(&v, (uint64_t)r->limit, 8);
		put(&v, (uint64_t)r->window_ns, 8);
		put(&v, (uint64_t)r->burst, 8);
	}
	return v;
}

static void set_key(const char *key, const struct bytes *v)
{
	redisReply *r = cmd("SET %s %b", key, (const char *)v->b, v->n);
	assert_int_equal(r->type, REDIS_REPLY_STATUS);
	freeReplyObject(r);
}

static struct bytes get_key(const char *key)
{
	struct bytes v = { .n = 0 };
	redisReply *r = cmd("GET %s", key);

	assert_int_equal(r->type, REDIS_REPLY_STRING);
	assert_true(r->len <= sizeof(v.b));
	memcpy(v.b, r->str, r->len);
	v.n = r->len;
	freeReplyObject(r);
	return v;
}

/*
 * key (under "rl:{KEY}") holding v, checked by algo under rule: the error
 * naming it (its text must be want), decided by the policy (fail_closed:
 * rejected), counted in errors, and the value left as it was.
 */
static void expect_damaged(struct rl_redis *r, const char *alg, const struct rl_rule *rule, const char *key,
			   const struct bytes *v, const char *want)
{
	const struct rl_algo *algo = rl_algo_find(alg);
	struct rl_limiter lim;
	char full[80], msg[200];
	struct rl_redis_stats a, b;

	assert_non_null(algo);
	assert_int_equal(rl_limiter_init(&lim, algo, rule, NULL, 0), RL_OK);
	snprintf(full, sizeof(full), "rl:{%s}", key);
	set_key(full, v);
	rl_redis_stats(r, &a);
	for (int closed = 0; closed < 2; closed++) {
		struct rl_redis_rule rr = { &lim, closed, 0 };
		struct rl_decision d = { 1, 2, 3, 4 };
		int rc = rl_redis_check_n(r, &rr, key, strlen(key), 1000, 1, &d);
		snprintf(msg, sizeof(msg), "redis: %s", want);
		if (rc != (closed ? RL_REJECTED : RL_ALLOWED) || strcmp(rl_redis_error(r), msg) != 0 || d.remaining ||
		    d.retry_after_ns || d.reset_ns)
			fail_msg("%s key %s: rc %d, error '%s', want the policy's verdict and '%s'", alg, full, rc,
				 rl_redis_error(r), msg);
	}
	rl_redis_stats(r, &b);
	assert_int_equal(b.errors, a.errors + 2);
	assert_int_equal(b.fallbacks, a.fallbacks);
	assert_int_equal(b.decided, a.decided);
	struct bytes now = get_key(full);
	assert_int_equal(now.n, v->n);
	assert_memory_equal(now.b, v->b, v->n);
}

static void damaged(struct rl_redis *r, const char *alg, const struct rl_rule *rule, const char *key,
		    const struct bytes *v)
{
	char want[160];

	snprintf(want, sizeof(want), "ratelab: key 'rl:{%s}' holds a damaged %s state", key, alg);
	expect_damaged(r, alg, rule, key, v, want);
}

static void test_damaged_states(void **state)
{
	(void)state;
	struct rl_redis *r = backend(true);
	const struct rl_rule rule = { 5, 1000000000, 5 };
	struct bytes v;

	flushall();
	/* the issue's: fixed_window count -7, sliding_counter curr -100, a log over N, a TAT that is no time */
	v = value(3, "fixed_window", &rule);
	put(&v, 100, 8), put(&v, 1000000000, 8), put(&v, (uint32_t)-7, 4), put(&v, 0, 4);
	damaged(r, "fixed_window", &rule, "fw", &v);
	v = value(3, "sliding_counter", &rule);
	put(&v, 100, 8), put(&v, 1000000000, 8), put(&v, 0, 4), put(&v, (uint32_t)-100, 4);
	damaged(r, "sliding_counter", &rule, "sc", &v);
	v = value(3, "sliding_log", &rule);
	put(&v, 100, 8), put(&v, 50, 8), put(&v, (uint32_t)-3, 4);
	damaged(r, "sliding_log", &rule, "sl", &v);
	v = value(3, "gcra", &rule);
	put(&v, (uint64_t)-1, 8), put(&v, 100, 8); /* a TAT before 0 */
	damaged(r, "gcra", &rule, "g", &v);

	/* each other bound */
	v = value(3, "gcra", &rule); /* TAT - last above a settle's debt cap 2 * (tau + T) = 10 * 200000000 */
	put(&v, 100 + 2000000001, 8), put(&v, 100, 8);
	damaged(r, "gcra", &rule, "g2", &v);
	v = value(3, "gcra", &rule); /* at the cap exactly: fine, decided */
	put(&v, 100 + 2000000000, 8), put(&v, 100, 8);
	set_key("rl:{g3}", &v);
	/* version 4: gcra's tat_frac (in 1/N ns) below N; the cap exact in 1/N ns */
	const struct rl_rule seven = { 7, 1000000000, 3 }; /* T = 10^9 / 7 ns; cap 2 * B * T = 6 * 10^9 / 7 */
	v = value(4, "gcra", &seven);
	put(&v, 100, 8), put(&v, 100, 8), put(&v, 7, 8);
	damaged(r, "gcra", &seven, "g6", &v);
	v = value(4, "gcra", &seven); /* 857142857 1/7 ns: one 1/7 ns past the cap */
	put(&v, 100 + 857142857, 8), put(&v, 100, 8), put(&v, 2, 8);
	damaged(r, "gcra", &seven, "g7", &v);
	v = value(4, "gcra", &seven); /* at the cap: fine */
	put(&v, 100 + 857142857, 8), put(&v, 100, 8), put(&v, 1, 8);
	set_key("rl:{g8}", &v);
	v = value(4, "gcra", &seven); /* a v3 body (16 bytes) in a v4 value */
	put(&v, 100, 8), put(&v, 100, 8);
	damaged(r, "gcra", &seven, "g9", &v);
	v = value(3, "gcra", &seven); /* v3: past v3's cap 2 * B * ceil(W / N) = 857142858 ns */
	put(&v, 100 + 857142859, 8), put(&v, 100, 8);
	damaged(r, "gcra", &seven, "g10", &v);
	v = value(3, "gcra", &seven); /* v3 at its cap: read with the debt cut to v4's, 6 * 10^9 / 7 ns */
	put(&v, 100 + 857142858, 8), put(&v, 100, 8);
	set_key("rl:{g11}", &v);
	v = value(3, "token_bucket", &rule); /* level above 2 * B * W: more than B tokens owed */
	put(&v, 100, 8), put(&v, 10000000001, 8), put(&v, 0, 4), put(&v, 0, 4);
	damaged(r, "token_bucket", &rule, "tb", &v);
	v = value(3, "token_bucket", &rule); /* at 2 * B * W exactly (a settle's debt cap): fine, decided */
	put(&v, 100, 8), put(&v, 10000000000, 8), put(&v, 0, 4), put(&v, 0, 4);
	set_key("rl:{tb4}", &v);
	v = value(3, "leaky_bucket", &rule); /* level above (2 * B + 1) * W: more than a settle's debt cap */
	put(&v, 100, 8), put(&v, 11000000001, 8), put(&v, 0, 4), put(&v, 0, 4);
	damaged(r, "leaky_bucket", &rule, "lb2", &v);
	v = value(3, "leaky_bucket", &rule); /* at (2 * B + 1) * W exactly: fine, decided */
	put(&v, 100, 8), put(&v, 11000000000, 8), put(&v, 0, 4), put(&v, 0, 4);
	set_key("rl:{lb3}", &v);
	v = value(3, "leaky_bucket", &rule); /* level_hi beyond any level */
	put(&v, 100, 8), put(&v, 0, 8), put(&v, 1u << 31, 4), put(&v, 0, 4);
	damaged(r, "leaky_bucket", &rule, "lb", &v);
	v = value(3, "token_bucket", &rule); /* a time after RL_TIME_MAX_NS */
	put(&v, (uint64_t)RL_TIME_MAX_NS + 1, 8), put(&v, 0, 8), put(&v, 0, 4), put(&v, 0, 4);
	damaged(r, "token_bucket", &rule, "tb2", &v);
	v = value(3, "token_bucket", &rule); /* a body of the wrong length */
	put(&v, 100, 8), put(&v, 0, 8), put(&v, 0, 4);
	damaged(r, "token_bucket", &rule, "tb3", &v);
	v = value(3, "fixed_window", &rule); /* an end not a multiple of W */
	put(&v, 100, 8), put(&v, 1000000001, 8), put(&v, 1, 4), put(&v, 0, 4);
	damaged(r, "fixed_window", &rule, "fw2", &v);
	v = value(3, "fixed_window", &rule); /* an end at last: not after it */
	put(&v, 1000000000, 8), put(&v, 1000000000, 8), put(&v, 1, 4), put(&v, 0, 4);
	damaged(r, "fixed_window", &rule, "fw3", &v);
	v = value(3, "sliding_counter", &rule); /* an end more than W after last */
	put(&v, 100, 8), put(&v, 2000000000, 8), put(&v, 1, 4), put(&v, 1, 4);
	damaged(r, "sliding_counter", &rule, "sc2", &v);
	v = value(3, "sliding_log", &rule); /* runs out of order */
	put(&v, 100, 8), put(&v, 60, 8), put(&v, 1, 4), put(&v, 50, 8), put(&v, 1, 4);
	damaged(r, "sliding_log", &rule, "sl2", &v);
	v = value(3, "sliding_log", &rule); /* a run of no units */
	put(&v, 100, 8), put(&v, 50, 8), put(&v, 0, 4);
	damaged(r, "sliding_log", &rule, "sl3", &v);
	v = value(3, "sliding_log", &rule); /* a run after last */
	put(&v, 100, 8), put(&v, 101, 8), put(&v, 1, 4);
	damaged(r, "sliding_log", &rule, "sl4", &v);
	v = value(3, "sliding_log", &rule); /* a run out of the window (last - W or before) */
	put(&v, 2000000000, 8), put(&v, 1000000000, 8), put(&v, 1, 4);
	damaged(r, "sliding_log", &rule, "sl5", &v);
	v = value(3, "sliding_log", &rule); /* a partial run */
	put(&v, 100, 8), put(&v, 50, 8), put(&v, 1, 2);
	damaged(r, "sliding_log", &rule, "sl6", &v);
	/* a stored rule no valid rule is: limit 0, a window above 10^18 */
	const struct rl_rule zero = { 0, 1000, 5 }, wide = { 5, RL_WINDOW_MAX_NS + 1, 5 };
	v = value(3, "gcra", &zero);
	put(&v, 0, 8), put(&v, 100, 8);
	damaged(r, "gcra", &rule, "g4", &v);
	v = value(3, "gcra", &wide);
	put(&v, 0, 8), put(&v, 100, 8);
	damaged(r, "gcra", &rule, "g5", &v);
	/* a state damaged under the rule it was written under, read under another */
	const struct rl_rule other = { 7, 2000000000, 7 };
	v = value(3, "fixed_window", &other);
	put(&v, 100, 8), put(&v, 2000000000, 8), put(&v, 8, 4), put(&v, 0, 4);
	damaged(r, "fixed_window", &rule, "fw4", &v);
	/* a window algorithm's stored rule with a burst other than N: no backend writes it */
	const struct rl_rule burst = { 7, 2000000000, 3 };
	v = value(3, "fixed_window", &burst);
	put(&v, 100, 8), put(&v, 2000000000, 8), put(&v, 1, 4), put(&v, 0, 4);
	damaged(r, "fixed_window", &rule, "fw5", &v);
	v = value(3, "sliding_log", &burst);
	put(&v, 100, 8), put(&v, 50, 8), put(&v, 1, 4);
	damaged(r, "sliding_log", &rule, "sl7", &v);
	v = value(3, "sliding_counter", &burst);
	put(&v, 100, 8), put(&v, 2000000000, 8), put(&v, 0, 4), put(&v, 1, 4);
	damaged(r, "sliding_counter", &rule, "sc3", &v);
	/* the key quoted with its control bytes escaped */
	v = value(3, "fixed_window", &rule);
	put(&v, 100, 8), put(&v, 1000000000, 8), put(&v, 9, 4), put(&v, 0, 4);
	expect_damaged(r, "fixed_window", &rule, "a\nb\x01\\", &v,
		       "ratelab: key 'rl:{a\\nb\\x01\\\\}' holds a damaged fixed_window state");

	/* the breaker: opened after last, an unknown state; its damaged state is an error */
	struct rl_redis_breaker rb = { 3, 10, 10, false, 0 };
	enum rl_breaker_state bs;
	v = value(3, "breaker", NULL);
	put(&v, 100, 8), put(&v, 101, 8), put(&v, 1, 4);
	set_key("rl:{br}", &v);
	assert_int_equal(rl_redis_breaker_call(r, &rb, "br", 2, 200, true, &bs), RL_EREDIS);
	assert_string_equal(rl_redis_error(r), "redis: ratelab: key 'rl:{br}' holds a damaged breaker state");
	v = value(3, "breaker", NULL);
	put(&v, 100, 8), put(&v, 50, 8), put(&v, 3, 4);
	set_key("rl:{br}", &v);
	assert_int_equal(rl_redis_breaker_call(r, &rb, "br", 2, 200, true, &bs), RL_EREDIS);
	assert_string_equal(rl_redis_error(r), "redis: ratelab: key 'rl:{br}' holds a damaged breaker state");

	/* the bounds themselves (a settle's debt caps) are valid states: decided,
	 * the debt beyond a full bucket's waited out: 1.2 s = (10 - 4) * 0.2 s */
	struct rl_limiter lim;
	struct rl_redis_rule rr = { &lim, false, 0 };
	struct rl_decision d;
	assert_int_equal(rl_limiter_init(&lim, &rl_gcra_algo, &rule, NULL, 0), RL_OK);
	assert_int_equal(rl_redis_check(r, &rr, "g3", 2, 100, &d), RL_REJECTED);
	assert_int_equal(d.retry_after_ns, 1200000000);
	/* 7 per s, B 3, at v4's cap (6 T) and at v3's cut to it: 4 T = 571428571 3/7 ns to wait, rounded up */
	assert_int_equal(rl_limiter_init(&lim, &rl_gcra_algo, &seven, NULL, 0), RL_OK);
	assert_int_equal(rl_redis_check(r, &rr, "g8", 2, 100, &d), RL_REJECTED);
	assert_int_equal(d.retry_after_ns, 571428572);
	assert_int_equal(d.reset_ns, 857142858);
	assert_int_equal(rl_redis_check(r, &rr, "g11", 3, 100, &d), RL_REJECTED);
	assert_int_equal(d.retry_after_ns, 571428572);
	assert_int_equal(d.reset_ns, 857142858);
	struct bytes cut = get_key("rl:{g11}"), at_cap = get_key("rl:{g8}");
	assert_int_equal(cut.n, 4 + 24 + 24); /* written back as v4 */
	assert_int_equal(cut.b[2], 4);
	assert_memory_equal(cut.b + 4, at_cap.b + 4, cut.n - 4);
	/* B tokens owed: the next token in 6 * W / N */
	assert_int_equal(rl_limiter_init(&lim, &rl_token_bucket_algo, &rule, NULL, 0), RL_OK);
	assert_int_equal(rl_redis_check(r, &rr, "tb4", 3, 100, &d), RL_REJECTED);
	assert_int_equal(d.retry_after_ns, 1200000000);
	/* a queue B longer than full: the next slot in 6 * W / N */
	assert_int_equal(rl_limiter_init(&lim, &rl_leaky_bucket_algo, &rule, NULL, 0), RL_OK);
	assert_int_equal(rl_redis_check(r, &rr, "lb3", 3, 100, &d), RL_REJECTED);
	assert_int_equal(d.retry_after_ns, 1200000000);
	rl_redis_destroy(r);
}

/* Another type, another algorithm's state, another string: ratelab's errors naming the key. */
static void test_foreign_values(void **state)
{
	(void)state;
	struct rl_redis *r = backend(true);
	const struct rl_rule rule = { 5, 1000, 5 };
	struct rl_limiter lim;
	struct rl_redis_rule rr = { &lim, false, 0 };
	struct rl_redis_stats st;
	const char *types[] = { "a hash", "a list", "a set", "a sorted set", "a stream" };
	char want[160];

	flushall();
	assert_int_equal(rl_limiter_init(&lim, &rl_sliding_log_algo, &rule, NULL, 0), RL_OK);
	for (int i = 0; i < 5; i++) {
		freeReplyObject(cmd("DEL rl:{t}"));
		freeReplyObject(i == 0 ? cmd("HSET rl:{t} a 1")
			       : i == 1 ? cmd("RPUSH rl:{t} a")
			       : i == 2 ? cmd("SADD rl:{t} a")
			       : i == 3 ? cmd("ZADD rl:{t} 1 a")
					: cmd("XADD rl:{t} * a 1"));
		assert_int_equal(rl_redis_check(r, &rr, "t", 1, 5, NULL), RL_EREDIS);
		snprintf(want, sizeof(want), "redis: WRONGTYPE ratelab: key 'rl:{t}' holds %s, not ratelab state",
			 types[i]);
		assert_string_equal(rl_redis_error(r), want);
	}
	freeReplyObject(cmd("SET rl:{t} hello"));
	assert_int_equal(rl_redis_check(r, &rr, "t", 1, 5, NULL), RL_EREDIS);
	assert_string_equal(rl_redis_error(r),
			    "redis: WRONGTYPE ratelab: key 'rl:{t}' holds a string of 5 bytes that is not ratelab state");
	struct bytes v = value(3, "gcra", &rule);
	put(&v, 0, 8), put(&v, 0, 8);
	set_key("rl:{t}", &v);
	assert_int_equal(rl_redis_check(r, &rr, "t", 1, 5, NULL), RL_EREDIS);
	assert_string_equal(rl_redis_error(r), "redis: ratelab: key 'rl:{t}' holds gcra state, not sliding_log");
	v = value(5, "sliding_log", &rule); /* a newer version: not ours to read */
	set_key("rl:{t}", &v);
	assert_int_equal(rl_redis_check(r, &rr, "t", 1, 5, NULL), RL_EREDIS);
	assert_string_equal(rl_redis_error(r),
			    "redis: WRONGTYPE ratelab: key 'rl:{t}' holds a string of 28 bytes that is not ratelab state");
	rl_redis_stats(r, &st);
	assert_int_equal(st.errors, 8);
	assert_int_equal(st.fallbacks + st.decided, 0);
	rl_redis_destroy(r);
}

/* The text of the script called name. */
static const char *script_text(const char *name)
{
	for (size_t i = 0; i < rl__redis_script_count; i++)
		if (strcmp(rl__redis_scripts[i].name, name) == 0)
			return rl__redis_scripts[i].text;
	fail_msg("no script %s", name);
	return NULL;
}

/*
 * A window algorithm has no burst: its script, called with 0 or N, stores
 * the rule with B = N (as the module does, byte for byte); another burst
 * is the module's error, in its words, and writes nothing.
 */
static void window_burst(void)
{
	const char *algs[] = { "fixed_window", "sliding_counter", "sliding_log" };

	for (int i = 0; i < 3; i++) {
		const char *text = script_text(algs[i]);
		char want[160];
		redisReply *r = cmd("EVAL %s 1 wb:7 1000 5 1000000000 7 600000 1", text);
		snprintf(want, sizeof(want), "ratelab: burst '7' does not apply to %s: pass 0 or the limit (5)", algs[i]);
		assert_int_equal(r->type, REDIS_REPLY_ERROR);
		assert_string_equal(r->str, want);
		freeReplyObject(r);
		r = cmd("EXISTS wb:7");
		assert_int_equal(r->integer, 0);
		freeReplyObject(r);
		struct bytes got[2];
		for (int b = 0; b < 2; b++) {
			freeReplyObject(cmd("DEL wb:%d", b));
			r = cmd("EVAL %s 1 wb:%d 1000 5 1000000000 %d 600000 1", text, b, b ? 5 : 0);
			assert_int_equal(r->type, REDIS_REPLY_ARRAY);
			assert_int_equal(r->element[0]->integer, 1);
			freeReplyObject(r);
			char key[8];
			snprintf(key, sizeof(key), "wb:%d", b);
			got[b] = get_key(key);
		}
		const struct rl_rule sr = { 5, 1000000000, 5 };
		struct bytes head = value(4, algs[i], &sr);
		assert_true(got[0].n > head.n);
		assert_memory_equal(got[0].b, head.b, head.n);
		assert_int_equal(got[0].n, got[1].n);
		assert_memory_equal(got[0].b, got[1].b, got[0].n);
#ifdef LF_MODULE
		r = cmd("RATELAB.CHECK wb:7 %s 5 1000000000 7 1 1000 600000", algs[i]);
		assert_int_equal(r->type, REDIS_REPLY_ERROR);
		assert_string_equal(r->str, want);
		freeReplyObject(r);
		freeReplyObject(cmd("DEL wb:m"));
		freeReplyObject(cmd("RATELAB.CHECK wb:m %s 5 1000000000 0 1 1000 600000", algs[i]));
		struct bytes m = get_key("wb:m");
		assert_int_equal(m.n, got[0].n);
		assert_memory_equal(m.b, got[0].b, m.n);
#endif
	}
}

/*
 * The bytes: after the same checks the scripts' value is the header, the
 * rule and the library's state (fixed-size states: the struct itself,
 * zero padding; sliding_log: last, then its runs oldest first); a version
 * 2 value packed from the library's state is continued as written under
 * the calling rule and written back as version 4.
 */
static void test_bytes_are_the_library_state(void **state)
{
	(void)state;
	size_t count;
	const struct rl_algo *const *all = rl_algo_all(&count);
	struct rl_redis *r = backend(true);
	uint64_t s = g_seed ^ 0xb17e5ull;

	flushall();
	for (size_t a = 0; a < count; a++) {
		const struct rl_algo *algo = all[a];
		for (int c = 0; c < 8; c++) {
			struct rl_rule rule = random_rule(&s);
			struct rl_limiter lim;
			struct rl_redis_rule rr = { &lim, false, 0 };
			_Alignas(16) unsigned char st[RL_ALGO_MAX_STATE] = { 0 };
			char key[40], full[48];
			int64_t t = below(&s, RL_TIME_MAX_NS / 2);
			snprintf(key, sizeof(key), "b%zu:%d", a, c);
			snprintf(full, sizeof(full), "rl:{%s}", key);
			assert_int_equal(rl_limiter_init(&lim, algo, &rule, NULL, 0), RL_OK);
			for (int i = 0; i < 20; i++) {
				struct rl_decision want, got;
				t = next_time(&s, t, &rule);
				/* cost 1: written every time (a cost never admitted writes nothing) */
				int64_t cost = 1;
				if (i == 10) { /* the library's state, as the module wrote it before the rule was stored */
					struct bytes v = get_key(full);
					v.b[2] = 2;
					memmove(v.b + 4, v.b + 28, v.n - 28);
					v.n -= 24;
					if (algo == &rl_gcra_algo) {
						/* v2's gcra body: {tat_ns, last_ns}, read with the fraction 0 */
						v.n -= 8;
						((struct rl_gcra *)(void *)st)->tat_frac = 0;
					}
					set_key(full, &v);
				}
				int wrc = rl_limiter_check_n(&lim, st, t, cost, &want);
				int grc = rl_redis_check_n(r, &rr, key, strlen(key), t, cost, &got);
				assert_int_equal(grc, wrc);
				if (want.remaining < 0)
					want.remaining = 0;
				assert_memory_equal(&got, &want, sizeof(got));
				const struct rl_rule sr = stored_rule(&lim);
				struct bytes v = get_key(full), e = value(4, algo->name, &sr);
				if (algo == &rl_sliding_log_algo) {
					const struct rl_sliding_log *sl = (const void *)st;
					put(&e, (uint64_t)sl->last_ns, 8);
					for (uint32_t k = 0; k < sl->log.len; k++) {
						const struct rl_run *run = &sl->log.runs[(sl->log.head + k) & (sl->log.cap - 1)];
						put(&e, (uint64_t)run->at, 8), put(&e, run->count, 4);
					}
				} else if (algo == &rl_sliding_counter_algo) {
					/* stored form v3: the u64 counters as u32 (state_bytes.h) */
					const struct rl_sliding_counter *sc = (const void *)st;
					put(&e, (uint64_t)sc->last_ns, 8), put(&e, (uint64_t)sc->end_ns, 8);
					put(&e, sc->prev, 4), put(&e, sc->curr, 4);
				} else {
					memcpy(e.b + e.n, st, algo->state_size);
					e.n += algo->state_size;
				}
				if (v.n != e.n || memcmp(v.b, e.b, v.n) != 0)
					fail_msg("%s %s after request %d: the stored bytes are not the library's state "
						 "(seed 0x%" PRIx64 ")", algo->name, full, i, g_seed);
			}
			rl_limiter_release(&lim, st);
		}
	}
	window_burst();
	rl_redis_destroy(r);
}

#ifdef LF_MODULE
/*
 * A key written by one backend and continued by the other, against the
 * library: module then scripts (its version 2 values read under the
 * calling rule) always; every request to either, rule changes included,
 * when the module stores version 3.
 */
static void test_module_and_scripts(void **state)
{
	(void)state;
	size_t count;
	const struct rl_algo *const *all = rl_algo_all(&count);
	struct rl_redis *rs[2] = { backend(false), backend(true) };
	uint64_t s = g_seed ^ 0x3c0dull;
	struct rl_redis_stats st;

	flushall();
	for (size_t a = 0; a < count; a++) {
		const struct rl_algo *algo = all[a];
		for (int c = 0; c < 6; c++) {
			struct rl_rule rule = random_rule(&s);
			struct rl_limiter lim;
			struct rl_redis_rule rr = { &lim, false, 0 };
			_Alignas(16) unsigned char lib[RL_ALGO_MAX_STATE] = { 0 };
			char key[40];
			int64_t t = below(&s, RL_TIME_MAX_NS / 2);
			snprintf(key, sizeof(key), "m%zu:%d", a, c);
			assert_int_equal(rl_limiter_init(&lim, algo, &rule, NULL, 0), RL_OK);
			for (int i = 0; i < 60; i++) {
				struct rl_decision want, got;
				int b = i < 30 ? 0 : 1; /* the module, then the scripts */
				t = next_time(&s, t, &rule);
				int64_t cost = 1 + below(&s, 3);
				int wrc = rl_limiter_check_n(&lim, lib, t, cost, &want);
				int grc = rl_redis_check_n(rs[b], &rr, key, strlen(key), t, cost, &got);
				if (want.remaining < 0)
					want.remaining = 0;
				if (grc != wrc || memcmp(&got, &want, sizeof(got)) != 0)
					fail_msg("%s key %s request %d (%s): rc %d/%d remaining %" PRId64 "/%" PRId64
						 " retry %" PRId64 "/%" PRId64 " reset %" PRId64 "/%" PRId64 " %s (seed 0x%" PRIx64 ")",
						 algo->name, key, i, b ? "scripts" : "module", grc, wrc, got.remaining,
						 want.remaining, got.retry_after_ns, want.retry_after_ns, got.reset_ns,
						 want.reset_ns, rl_redis_error(rs[b]), g_seed);
			}
			rl_limiter_release(&lim, lib);
		}
	}
	/* the breaker: the module, then the scripts (both ways once the module stores version 3) */
	for (int c = 0; c < 20; c++) {
		struct rl_redis_breaker rb = { 1 + below(&s, 5), 1 + below(&s, 20), 1 + below(&s, 20), false, 0 };
		struct rl_breaker br;
		char key[32];
		int64_t t = below(&s, 1000);
		snprintf(key, sizeof(key), "mb%d", c);
		assert_int_equal(rl_breaker_init(&br, rb.limit, rb.window, rb.open_for, NULL, 0), RL_OK);
		for (int i = 0; i < 80; i++) {
			int b = RLM_VERSION >= 3 ? (int)below(&s, 2) : i < 40 ? 0 : 1;
			bool record = below(&s, 4) != 0;
			enum rl_breaker_state want = RL_BREAKER_CLOSED, got = RL_BREAKER_CLOSED;
			t += below(&s, 6);
			int wrc = record ? rl_breaker_handle(&br, t, &want) : rl_breaker_state_at(&br, t, &want);
			int grc = rl_redis_breaker_call(rs[b], &rb, key, strlen(key), t, record, &got);
			if (grc != wrc || want != got)
				fail_msg("breaker %s call %d (%s) t=%" PRId64 ": rc %d/%d state %d/%d %s (seed 0x%" PRIx64 ")",
					 key, i, b ? "scripts" : "module", t, grc, wrc, got, want, rl_redis_error(rs[b]),
					 g_seed);
		}
		rl_breaker_destroy(&br);
	}
	rl_redis_stats(rs[0], &st);
	assert_true(st.module);
	if (RLM_VERSION >= 3) {
		uint64_t s2 = g_seed ^ 0x3c0eull;
		long caseno = 5000;
		for (size_t a = 0; a < count; a++)
			for (int c = 0; c < 12; c++)
				trace(all[a], &s2, caseno++, rs, 2);
	} else {
		printf("test_lua_form: ratelab.so stores version %d: the scripts' version 3 keys are not continued "
		       "by the module until it stores version 3\n",
		       (int)RLM_VERSION);
	}
	rl_redis_destroy(rs[0]);
	rl_redis_destroy(rs[1]);
}
#endif

int main(void)
{
	g_seed = t_seed_from_env(g_seed);
	if (!rh_available(false))
		return 0;
	if (!rh_init(&g_srv))
		return 1;
#ifdef LF_MODULE
	if (LF_PRELOAD[0]) { /* an instrumented module needs its runtime in the server */
		setenv("LD_PRELOAD", LF_PRELOAD, 1);
		setenv("ASAN_OPTIONS", "detect_leaks=0", 1);
	}
	g_srv.extra[0] = "--loadmodule";
	g_srv.extra[1] = LF_MODULE;
#endif
	if (!rh_start_node(&g_srv, false)) {
		fprintf(stderr, "test_lua_form: could not start redis-server\n");
		rh_stop(&g_srv);
		return 1;
	}
	g_port = g_srv.nodes[0].port;
	printf("test_lua_form: redis-server on 127.0.0.1:%d, seed 0x%" PRIx64 "\n", g_port, g_seed);

	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rule_changes),
		cmocka_unit_test(test_damaged_states),
		cmocka_unit_test(test_foreign_values),
		cmocka_unit_test(test_bytes_are_the_library_state),
#ifdef LF_MODULE
		cmocka_unit_test(test_module_and_scripts),
#endif
	};
	int failed = cmocka_run_group_tests(tests, NULL, NULL);
	rh_stop(&g_srv);
	return failed;
}
