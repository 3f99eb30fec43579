/*
 * test_redis_cluster_backend.c - the Redis backend (redis.h) through a
 * 3-master Redis Cluster (tests/redis_harness.h), given one node's address
 * only: the conformance suite of test_redis (conformance.h: the same seeded
 * traces, every algorithm and the breaker, field by field against the
 * in-process ones), keys spread over the masters, and a slot migration in
 * the middle of a trace (MIGRATING/IMPORTING, keys moved one by one: ASK;
 * then the slot handed over: MOVED) with every decision still exact and no
 * fallback. The same migration under policies (rl_redis_policy_check:
 * RATELAB.CHECKP or the policy_ALGO script, routed by its one key) and
 * under one-rule checks with settles (rl_redis_settle: RATELAB.SETTLE or
 * settle.lua), decision by decision and settle by settle against the
 * library (rl_policy_check with at_ns; rl_limiter_settle and the reset
 * after it).
 *
 * A mismatch prints the seed. Reproduce with RL_SEED=<seed> ./test_redis_cluster_backend
 */
#define _POSIX_C_SOURCE 200809L

#include "conformance.h"
#include "ratelab/policy.h"
#include "ratelab/settle.h"
#include "redis_harness.h"

static struct rh H;
static bool up;

static redisReply *node_cmd(int port, const char *fmt, ...)
{
	redisContext *c = rh_connect(port);
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
	for (int i = 0; i < H.n; i++)
		freeReplyObject(node_cmd(H.nodes[i].port, "FLUSHALL"));
}

static int group_setup(void **state)
{
	(void)state;
	up = rh_available(true) && rh_start_cluster(&H, 3);
	if (!up && rh_on_path("redis-server"))
		return -1; /* the servers exist but the cluster did not come up */
	if (!up)
		printf("*** SKIPPED test_redis_cluster_backend: redis-server or redis-cli not on PATH (make deps) ***\n");
	g_port = H.nodes[1].port; /* any node: the backend finds the others */
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	rh_stop(&H);
	return 0;
}

static void cluster_conformance(void **state)
{
	if (!up)
		skip();
	test_conformance(state);
	/* the traces' keys landed on every master: the backend routed by slot */
	for (int i = 0; i < H.n; i++) {
		redisReply *rep = node_cmd(H.nodes[i].port, "DBSIZE");
		assert_true(rep->integer > 0);
		freeReplyObject(rep);
	}
}

static void cluster_breaker_conformance(void **state)
{
	if (!up)
		skip();
	test_breaker_conformance(state);
}

/* Node index of the slot's owner (CLUSTER SLOTS from any node). */
static int owner_of(int slot)
{
	redisReply *rep = node_cmd(H.nodes[0].port, "CLUSTER SLOTS");
	int port = -1;

	assert_int_equal(rep->type, REDIS_REPLY_ARRAY);
	for (size_t i = 0; i < rep->elements; i++) {
		redisReply *e = rep->element[i];
		if (slot >= e->element[0]->integer && slot <= e->element[1]->integer)
			port = (int)e->element[2]->element[1]->integer;
	}
	freeReplyObject(rep);
	for (int i = 0; i < H.n; i++)
		if (H.nodes[i].port == port)
			return i;
	fail_msg("slot %d has no owner", slot);
	return -1;
}

/* Moves the Redis key name from node src to node dst (MIGRATE ... KEYS). */
static void migrate_key(int src, int dst, const char *name)
{
	redisReply *rep = node_cmd(H.nodes[src].port, "MIGRATE 127.0.0.1 %d %s 0 5000 KEYS %s",
				   H.nodes[dst].port, "", name);
	assert_int_not_equal(rep->type, REDIS_REPLY_ERROR);
	freeReplyObject(rep);
}

#define MKEYS 3

struct mig {
	struct rl_limiter lim;
	struct rl_redis_rule rr;
	void *st[MKEYS];
	char keys[MKEYS][32];
	int64_t t;
};

/* n requests, batched and single, compared with the in-process algorithm. */
static void run(struct rl_redis *r, struct mig *m, uint64_t *s, int n, int nkeys, const char *phase)
{
	for (int done = 0; done < n;) {
		struct rl_redis_req reqs[8];
		struct rl_redis_answer ans[8];
		struct rl_decision want[8];
		int wrc[8], b = 1 + (int)below(s, 8);
		if (b > n - done)
			b = n - done;
		for (int i = 0; i < b; i++) {
			int k = (int)below(s, nkeys);
			m->t += below(s, m->lim.rule.window_ns / m->lim.rule.limit + 2);
			reqs[i] = (struct rl_redis_req){ &m->rr, m->keys[k], strlen(m->keys[k]), m->t, 1 };
			memset(&want[i], 0, sizeof(want[i]));
			wrc[i] = rl_limiter_check_n(&m->lim, m->st[k], m->t, 1, &want[i]);
		}
		assert_int_equal(rl_redis_check_batch(r, reqs, (size_t)b, ans), RL_OK);
		for (int i = 0; i < b; i++) {
			const struct rl_decision *g = &ans[i].d, *w = &want[i];
			if (ans[i].rc != wrc[i] || g->remaining != w->remaining ||
			    g->retry_after_ns != w->retry_after_ns || g->reset_ns != w->reset_ns ||
			    g->delay_ns != w->delay_ns || ans[i].fallback) {
				print_error("MISMATCH %s (%s) key %s t=%" PRId64 ": redis rc=%d remaining=%" PRId64
					    " fallback=%d %s; in-process rc=%d remaining=%" PRId64 " (RL_SEED=0x%" PRIx64 ")\n",
					    m->lim.algo->name, phase, reqs[i].key, reqs[i].now_ns, ans[i].rc, g->remaining,
					    ans[i].fallback, rl_redis_error(r), wrc[i], w->remaining, g_seed);
				fail();
			}
		}
		done += b;
	}
}

/*
 * One slot (the tag's) migrated from its owner to the next master in the
 * middle of phase's requests, as test_slot_migration does: keys k0, k1
 * before; k2 first used while migrating (ASK); k0 moved, then k1, then
 * the slot handed over (MOVED). phase(ctx, n, nkeys, name) runs n
 * requests over the first nkeys keys.
 */
static void migrating(const char *tag, void (*phase)(void *ctx, int n, int nkeys, const char *name), void *ctx,
		      void (*key_name)(void *ctx, int k, char *buf, size_t len))
{
	char name[128];
	redisReply *rep = node_cmd(g_port, "CLUSTER KEYSLOT %s", tag);
	int slot = (int)rep->integer;
	freeReplyObject(rep);
	int src = owner_of(slot), dst = (src + 1) % H.n;

	phase(ctx, 40, 2, "before");
	freeReplyObject(node_cmd(H.nodes[dst].port, "CLUSTER SETSLOT %d IMPORTING %s", slot, H.nodes[src].id));
	freeReplyObject(node_cmd(H.nodes[src].port, "CLUSTER SETSLOT %d MIGRATING %s", slot, H.nodes[dst].id));
	phase(ctx, 30, 3, "migrating, nothing moved"); /* k2: ASK, made on dst */
	rep = node_cmd(H.nodes[dst].port, "CLUSTER COUNTKEYSINSLOT %d", slot);
	assert_int_equal(rep->integer, 1);
	freeReplyObject(rep);
	key_name(ctx, 0, name, sizeof(name));
	migrate_key(src, dst, name);
	phase(ctx, 30, 3, "migrating, k0 moved");
	key_name(ctx, 1, name, sizeof(name));
	migrate_key(src, dst, name);
	freeReplyObject(node_cmd(H.nodes[dst].port, "CLUSTER SETSLOT %d NODE %s", slot, H.nodes[dst].id));
	freeReplyObject(node_cmd(H.nodes[src].port, "CLUSTER SETSLOT %d NODE %s", slot, H.nodes[dst].id));
	for (int i = 0; i < H.n; i++)
		if (i != src && i != dst)
			freeReplyObject(node_cmd(H.nodes[i].port, "CLUSTER SETSLOT %d NODE %s", slot, H.nodes[dst].id));
	phase(ctx, 40, 3, "handed over"); /* MOVED, then dst directly */
	rep = node_cmd(H.nodes[dst].port, "CLUSTER COUNTKEYSINSLOT %d", slot);
	assert_true(rep->integer >= 2); /* the keys live on dst now */
	freeReplyObject(rep);
}

/* One rule's keys through a migration: the library's (m), the connection, the rng, the settles made. */
struct rmig {
	struct mig m;
	struct rl_redis *r;
	uint64_t *s;
	int settles;
};

/* m's limiter of algo and rule, its keys "TAG}kI" (their states fresh), and a connection. */
static void rmig_init(struct rmig *x, const struct rl_algo *algo, const struct rl_rule *rule, const char *tag)
{
	struct mig *m = &x->m;

	assert_int_equal(rl_limiter_init(&m->lim, algo, rule, NULL, 0), RL_OK);
	m->rr = (struct rl_redis_rule){ &m->lim, false, 0 };
	for (int k = 0; k < MKEYS; k++) {
		m->st[k] = calloc(1, algo->state_size);
		assert_non_null(m->st[k]);
		snprintf(m->keys[k], sizeof(m->keys[k]), "%s}k%d", tag, k);
	}
	x->r = connect_to(g_port, 1000000000);
}

/* No fallback, no error; the connection and the states freed. */
static void rmig_end(struct rmig *x)
{
	struct rl_redis_stats st;

	rl_redis_stats(x->r, &st);
	assert_int_equal(st.fallbacks, 0);
	assert_int_equal(st.errors, 0);
	rl_redis_destroy(x->r);
	for (int k = 0; k < MKEYS; k++) {
		rl_limiter_release(&x->m.lim, x->m.st[k]);
		free(x->m.st[k]);
	}
}

static void run_phase(void *ctx, int n, int nkeys, const char *phase)
{
	struct rmig *x = ctx;

	run(x->r, &x->m, x->s, n, nkeys, phase);
}

static void rkey_name(void *ctx, int k, char *buf, size_t len)
{
	snprintf(buf, len, "rl:{%s}", ((struct rmig *)ctx)->m.keys[k]);
}

/*
 * Every algorithm but sliding_log through the scripts (its script names two
 * keys, the hash and the list, and Redis answers TRYAGAIN while they sit on
 * different nodes or one is absent, until the migration ends; through the
 * module it is one key too): one slot per algorithm (the
 * keys "mA}kI" all hash the tag "mA"), migrated from its owner to the next
 * master key by key in the middle of the trace.
 */
static void test_slot_migration(void **state)
{
	(void)state;
	if (!up)
		skip();
	size_t count;
	const struct rl_algo *const *all = rl_algo_all(&count);
	uint64_t s = g_seed ^ 0x3146ull;

	flushall();
	for (size_t a = 0; a < count; a++) {
		if (all[a] == &rl_sliding_log_algo && !RH_WANT_MODULE)
			continue; /* the module keeps it in one key: it migrates like the others */
		struct rmig x = { .m = { .t = below(&s, 1000000) }, .s = &s };
		struct rl_rule rule = { 3 + below(&s, 5), 1000000 + below(&s, 1000000), 2 + below(&s, 5) };
		char tag[24];
		snprintf(tag, sizeof(tag), "m%zu", a);
		rmig_init(&x, all[a], &rule, tag);
		migrating(tag, run_phase, &x, rkey_name);
		rmig_end(&x);
	}
}

/* A policy's keys through the cluster (rl_redis_policy_check) and the library's (rl_policy_check). */
struct pmig {
	struct rl_redis *r;
	struct rl_policy_limiter pl;
	struct rl_redis_policy rp;
	_Alignas(16) unsigned char st[MKEYS][RL_POLICY_MAX_STATE];
	char keys[MKEYS][32];
	int64_t t;
	uint64_t *s;
};

static void pkey_name(void *ctx, int k, char *buf, size_t len)
{
	snprintf(buf, len, "rl:{%s}", ((struct pmig *)ctx)->keys[k]);
}

static void same_field(const char *what, int64_t got, int64_t want, const struct pmig *m, int k, const char *phase)
{
	if (got != want) {
		print_error("MISMATCH policy of %s (%s) key %s t=%" PRId64 ": %s: redis %" PRId64 ", library %" PRId64
			    " (%s; RL_SEED=0x%" PRIx64 ")\n", m->pl.rules[0].algo->name, phase, m->keys[k], m->t, what,
			    got, want, rl_redis_error(m->r), g_seed);
		fail();
	}
}

static void policy_phase(void *ctx, int n, int nkeys, const char *phase)
{
	struct pmig *m = ctx;

	for (int i = 0; i < n; i++) {
		int k = (int)below(m->s, nkeys);
		int64_t cost = 1 + below(m->s, 4);
		m->t += below(m->s, m->pl.rules[0].rule.window_ns / m->pl.rules[0].rule.limit + 2);
		struct rl_policy_answer got, want;
		int wrc = rl_policy_check(&m->pl, m->st[k], m->t, cost, &want);
		int grc = rl_redis_policy_check(m->r, &m->rp, m->keys[k], strlen(m->keys[k]), m->t, cost, &got);
		same_field("verdict", grc, wrc, m, k, phase);
		same_field("at_ns", got.at_ns, want.at_ns, m, k, phase);
		for (size_t j = 0; j <= m->pl.count; j++) {
			const struct rl_decision *g = j ? &got.rule[j - 1] : &got.all, *w = j ? &want.rule[j - 1] : &want.all;
			same_field(j ? "a rule's remaining" : "remaining", g->remaining, w->remaining, m, k, phase);
			same_field("retry_after_ns", g->retry_after_ns, w->retry_after_ns, m, k, phase);
			same_field("reset_ns", g->reset_ns, w->reset_ns, m, k, phase);
			same_field("delay_ns", g->delay_ns, w->delay_ns, m, k, phase);
			if (j)
				same_field("a rule's verdict", got.verdict[j - 1], want.verdict[j - 1], m, k, phase);
		}
	}
}

/* Policies of two rules (the second counting costs) through a slot migration. */
static void test_policy_slot_migration(void **state)
{
	(void)state;
	if (!up)
		skip();
	size_t count;
	const struct rl_algo *const *all = rl_algo_all(&count);
	uint64_t s = g_seed ^ 0x44c1ull;

	flushall();
	for (size_t a = 0; a < count; a++) {
		if (all[a] == &rl_sliding_log_algo && !RH_WANT_MODULE)
			continue; /* as test_slot_migration */
		static struct pmig m;
		memset(&m, 0, sizeof(m));
		struct rl_policy p = { .count = 2 };
		p.rules[0] = (struct rl_rule){ 3 + below(&s, 5), 1000000 + below(&s, 1000000), 0 };
		p.rules[0].burst = all[a]->uses_burst ? 2 + below(&s, 5) : p.rules[0].limit;
		p.rules[1] = (struct rl_rule){ 20 + below(&s, 20), 20000000 + below(&s, 1000000), 0 };
		p.rules[1].burst = all[a]->uses_burst ? 10 + below(&s, 20) : p.rules[1].limit;
		p.units[1] = true;
		char msg[200], tag[24];
		if (rl_policy_limiter_init(&m.pl, all[a], &p, msg, sizeof(msg)) != RL_OK)
			fail_msg("%s: %s", all[a]->name, msg);
		m.r = connect_to(g_port, 1000000000);
		m.rp = (struct rl_redis_policy){ &m.pl, false, 0 };
		m.t = below(&s, 1000000);
		m.s = &s;
		snprintf(tag, sizeof(tag), "p%zu", a);
		for (int k = 0; k < MKEYS; k++)
			snprintf(m.keys[k], sizeof(m.keys[k]), "%s}k%d", tag, k);
		migrating(tag, policy_phase, &m, pkey_name);
		struct rl_redis_stats st;
		rl_redis_stats(m.r, &st);
		assert_int_equal(st.fallbacks, 0);
		assert_int_equal(st.errors, 0);
		rl_redis_destroy(m.r);
		for (int k = 0; k < MKEYS; k++)
			rl_policy_release(&m.pl, m.st[k]);
	}
}

/* One rule's keys with settles through the cluster (rl_redis_check_n, rl_redis_settle) and the library's. */
static void settle_phase(void *ctx, int n, int nkeys, const char *phase)
{
	struct rmig *x = ctx;
	struct mig *m = &x->m;

	for (int i = 0; i < n; i++) {
		int k = (int)below(x->s, nkeys);
		int64_t cost = 1 + below(x->s, 3);
		m->t += below(x->s, m->lim.rule.window_ns / m->lim.rule.limit + 2);
		struct rl_decision got, want;
		int wrc = rl_limiter_check_n(&m->lim, m->st[k], m->t, cost, &want);
		int grc = rl_redis_check_n(x->r, &m->rr, m->keys[k], strlen(m->keys[k]), m->t, cost, &got);
		if (grc != wrc || got.remaining != want.remaining || got.retry_after_ns != want.retry_after_ns ||
		    got.reset_ns != want.reset_ns || got.delay_ns != want.delay_ns)
			fail_msg("MISMATCH %s (%s) key %s t=%" PRId64 " cost %" PRId64 ": redis rc=%d remaining=%" PRId64
				 " (%s), library rc=%d remaining=%" PRId64 " (RL_SEED=0x%" PRIx64 ")", m->lim.algo->name, phase,
				 m->keys[k], m->t, cost, grc, got.remaining, rl_redis_error(x->r), wrc, want.remaining, g_seed);
		if (wrc != RL_ALLOWED || below(x->s, 2))
			continue;
		/* settled now or a little later: more (a debt) or a refund of what it took, never 0 */
		int64_t admitted = m->lim.algo->last_ns(m->st[k]), delta = below(x->s, cost + 3) - (cost - 1);
		if (delta <= 0)
			delta--;
		m->t += below(x->s, 3);
		int64_t reset = -1;
		int want_rc = rl_limiter_settle(&m->lim, m->st[k], admitted, delta, m->t);
		int got_rc = rl_redis_settle(x->r, &m->rr, m->keys[k], strlen(m->keys[k]), admitted, delta, m->t, &reset);
		int64_t want_reset = want_rc == RL_OK ? rl_limiter_settled_reset_ns(&m->lim, m->st[k], m->t) : -1;
		if (got_rc != want_rc || (want_rc == RL_OK && reset != want_reset))
			fail_msg("MISMATCH %s (%s) settle of key %s admitted %" PRId64 " by %" PRId64 " at %" PRId64
				 ": redis rc=%d reset %" PRId64 " (%s), library rc=%d reset %" PRId64 " (RL_SEED=0x%" PRIx64 ")",
				 m->lim.algo->name, phase, m->keys[k], admitted, delta, m->t, got_rc, reset,
				 rl_redis_error(x->r), want_rc, want_reset, g_seed);
		x->settles++;
	}
}

/* Every algorithm that settles, one rule, settles among the checks, through a slot migration. */
static void test_settle_slot_migration(void **state)
{
	(void)state;
	if (!up)
		skip();
	size_t count;
	const struct rl_algo *const *all = rl_algo_all(&count);
	uint64_t s = g_seed ^ 0x5e771eull;

	flushall();
	for (size_t a = 0; a < count; a++) {
		if (!rl_algo_settles(all[a]) || (all[a] == &rl_sliding_log_algo && !RH_WANT_MODULE))
			continue;
		struct rmig x = { .m = { .t = below(&s, 1000000) }, .s = &s };
		struct rl_rule rule = { 4 + below(&s, 5), 1000000 + below(&s, 1000000), 0 };
		rule.burst = all[a]->uses_burst ? 3 + below(&s, 5) : rule.limit;
		char tag[24];
		snprintf(tag, sizeof(tag), "s%zu", a);
		rmig_init(&x, all[a], &rule, tag);
		migrating(tag, settle_phase, &x, rkey_name);
		assert_true(x.settles > 0);
		rmig_end(&x);
	}
}

int main(void)
{
	const char *env = getenv("RL_SEED");
	if (env)
		g_seed = strtoull(env, NULL, 0);
	printf("test_redis_cluster_backend: seed 0x%" PRIx64 "\n", g_seed);

	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cluster_conformance),
		cmocka_unit_test(cluster_breaker_conformance),
		cmocka_unit_test(test_slot_migration),
		cmocka_unit_test(test_policy_slot_migration),
		cmocka_unit_test(test_settle_slot_migration),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
