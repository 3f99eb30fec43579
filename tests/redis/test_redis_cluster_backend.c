/*
 * test_redis_cluster_backend.c - the Redis backend (redis.h) through a
 * 3-master Redis Cluster (tests/redis_harness.h), given one node's address
 * only: the conformance suite of test_redis (conformance.h: the same seeded
 * traces, every algorithm and the breaker, field by field against the
 * in-process ones), keys spread over the masters, and a slot migration in
 * the middle of a trace (MIGRATING/IMPORTING, keys moved one by one: ASK;
 * then the slot handed over: MOVED) with every decision still exact and no
 * fallback.
 *
 * A mismatch prints the seed. Reproduce with RL_SEED=<seed> ./test_redis_cluster_backend
 */
#define _POSIX_C_SOURCE 200809L

#include "conformance.h"
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
		struct mig m = { .t = below(&s, 1000000) };
		struct rl_rule rule = { 3 + below(&s, 5), 1000000 + below(&s, 1000000), 2 + below(&s, 5) };
		char tag[24], name[64];
		assert_int_equal(rl_limiter_init(&m.lim, all[a], &rule, NULL, 0), RL_OK);
		m.rr = (struct rl_redis_rule){ &m.lim, false, 0 };
		snprintf(tag, sizeof(tag), "m%zu", a);
		for (int k = 0; k < MKEYS; k++) {
			m.st[k] = calloc(1, all[a]->state_size);
			assert_non_null(m.st[k]);
			snprintf(m.keys[k], sizeof(m.keys[k]), "%s}k%d", tag, k);
		}
		redisReply *rep = node_cmd(g_port, "CLUSTER KEYSLOT %s", tag);
		int slot = (int)rep->integer;
		freeReplyObject(rep);
		int src = owner_of(slot), dst = (src + 1) % H.n;
		struct rl_redis *r = connect_to(g_port, 1000000000);

		/* k0 and k1 exist on src; k2 is first used during the migration */
		run(r, &m, &s, 40, 2, "before");
		freeReplyObject(node_cmd(H.nodes[dst].port, "CLUSTER SETSLOT %d IMPORTING %s", slot, H.nodes[src].id));
		freeReplyObject(node_cmd(H.nodes[src].port, "CLUSTER SETSLOT %d MIGRATING %s", slot, H.nodes[dst].id));
		run(r, &m, &s, 30, 3, "migrating, nothing moved"); /* k2: ASK, made on dst */
		rep = node_cmd(H.nodes[dst].port, "CLUSTER COUNTKEYSINSLOT %d", slot);
		assert_int_equal(rep->integer, 1); /* k2, made there through ASK */
		freeReplyObject(rep);
		snprintf(name, sizeof(name), "rl:{%s}", m.keys[0]);
		migrate_key(src, dst, name);
		run(r, &m, &s, 30, 3, "migrating, k0 moved"); /* k0, k2: ASK */
		snprintf(name, sizeof(name), "rl:{%s}", m.keys[1]);
		migrate_key(src, dst, name);
		/* the new owner first, then the old, then the others (CLUSTER SETSLOT's order) */
		freeReplyObject(node_cmd(H.nodes[dst].port, "CLUSTER SETSLOT %d NODE %s", slot, H.nodes[dst].id));
		freeReplyObject(node_cmd(H.nodes[src].port, "CLUSTER SETSLOT %d NODE %s", slot, H.nodes[dst].id));
		for (int i = 0; i < H.n; i++)
			if (i != src && i != dst)
				freeReplyObject(node_cmd(H.nodes[i].port, "CLUSTER SETSLOT %d NODE %s", slot,
							 H.nodes[dst].id));
		run(r, &m, &s, 40, 3, "handed over"); /* MOVED, then dst directly */

		rep = node_cmd(H.nodes[dst].port, "CLUSTER COUNTKEYSINSLOT %d", slot);
		assert_true(rep->integer >= 2); /* the keys are on dst now (those not expired) */
		freeReplyObject(rep);
		struct rl_redis_stats st;
		rl_redis_stats(r, &st);
		assert_int_equal(st.fallbacks, 0);
		assert_int_equal(st.errors, 0);
		rl_redis_destroy(r);
		for (int k = 0; k < MKEYS; k++) {
			rl_limiter_release(&m.lim, m.st[k]);
			free(m.st[k]);
		}
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
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
