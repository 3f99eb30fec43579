/*
 * test_fleet_node.c - the local-plus-global node (fleet.h)
 * against a real redis-server on a free loopback port: the counts it
 * pushes, the TTL, the same decisions as the in-process model with the
 * store modelled in memory (fleet_model.h, as the simulator runs it), and
 * the faults:
 * Redis killed (SIGKILL) and restarted, Redis stalled (SIGSTOP), a key of
 * the wrong type. Random traces print their seed (RL_SEED replays one).
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* fork, kill, mkdtemp (redis_harness.h) */
#endif
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "fleet_model.h"
#include "ratelab/fleet.h"
#include "ratelab/fleet_node.h"
#include "redis_harness.h"

#define MS 1000000LL

static struct rh H;
static bool up;

static int group_setup(void **state)
{
	(void)state;
	up = rh_available(false) && rh_start_single(&H);
	return !up && rh_on_path("redis-server") ? -1 : 0;
}

static int group_teardown(void **state)
{
	(void)state;
	rh_stop(&H);
	return 0;
}

#define NEED_REDIS()          \
	do {                  \
		if (!up)      \
			skip(); \
	} while (0)

static struct rl_fleet make_lg(int64_t n, int64_t w, int64_t k, int64_t j)
{
	struct rl_fleet lg;
	assert_int_equal(rl_fleet_init(&lg, n, w, k, j, NULL, 0), RL_OK);
	return lg;
}

static struct rl_fleet_node *node(const struct rl_fleet *lg, const char *prefix, int64_t s_ns,
			       int timeout_ms)
{
	struct rl_fleet_node_opts o = { .host = "127.0.0.1",
				     .port = H.nodes[0].port,
				     .connect_timeout_ms = timeout_ms,
				     .command_timeout_ms = timeout_ms,
				     .sync_interval_ns = s_ns,
				     .max_keys = 64,
				     .prefix = prefix };
	struct rl_fleet_node *n = NULL;

	assert_int_equal(rl_fleet_node_create(lg, &o, &n), RL_OK);
	return n;
}

static long long redis_int(const char *fmt, const char *key)
{
	redisContext *c = rh_connect(H.nodes[0].port);
	assert_non_null(c);
	redisReply *r = redisCommand(c, fmt, key);
	assert_non_null(r);
	long long v = r->type == REDIS_REPLY_INTEGER ? r->integer
		      : r->type == REDIS_REPLY_STRING ? atoll(r->str)
						      : -1;
	freeReplyObject(r);
	redisFree(c);
	return v;
}

/* A hash field as a number; -1 when absent. */
static long long redis_hget(const char *key, const char *field)
{
	redisContext *c = rh_connect(H.nodes[0].port);
	assert_non_null(c);
	redisReply *r = redisCommand(c, "HGET %s %s", key, field);
	assert_non_null(r);
	long long v = r->type == REDIS_REPLY_STRING ? atoll(r->str) : -1;
	freeReplyObject(r);
	redisFree(c);
	return v;
}

/* The sum of a window's hash, as a node computes G; -1 when absent. */
static long long redis_total(const char *key)
{
	redisContext *c = rh_connect(H.nodes[0].port);
	assert_non_null(c);
	redisReply *r = redisCommand(c, "HVALS %s", key);
	assert_non_null(r);
	long long v = r->type == REDIS_REPLY_ARRAY && r->elements ? 0 : -1;
	for (size_t i = 0; r->type == REDIS_REPLY_ARRAY && i < r->elements; i++)
		v += atoll(r->element[i]->str);
	freeReplyObject(r);
	redisFree(c);
	return v;
}

static int check(struct rl_fleet_node *n, const char *key, int64_t t, int64_t cost)
{
	int v = rl_fleet_node_check(n, key, strlen(key), t, cost, NULL);
	assert_true(v == RL_ALLOWED || v == RL_REJECTED);
	return v;
}

static void test_bad_opts(void **state)
{
	(void)state;
	struct rl_fleet lg = make_lg(10, 1000 * MS, 2, 0);
	struct rl_fleet_node *n = (struct rl_fleet_node *)1;
	struct rl_fleet_node_opts ok = { .host = "127.0.0.1", .port = 6379, .sync_interval_ns = MS,
				      .max_keys = 8 },
			       o;

	o = ok;
	o.port = 0;
	assert_int_equal(rl_fleet_node_create(&lg, &o, &n), RL_EINVAL);
	assert_null(n);
	o = ok;
	o.sync_interval_ns = 0;
	assert_int_equal(rl_fleet_node_create(&lg, &o, &n), RL_EINVAL);
	o = ok;
	o.max_keys = 0;
	assert_int_equal(rl_fleet_node_create(&lg, &o, &n), RL_EINVAL);
	o = ok;
	o.host = NULL;
	assert_int_equal(rl_fleet_node_create(&lg, &o, &n), RL_EINVAL);
	o = ok;
	o.command_timeout_ms = -1;
	assert_int_equal(rl_fleet_node_create(&lg, &o, &n), RL_EINVAL);
	/* Redis need not be up to create a node; max_keys bounds the states. */
	o = ok;
	o.max_keys = 2;
	o.port = rh_free_port();
	assert_int_equal(rl_fleet_node_create(&lg, &o, &n), RL_OK);
	assert_int_equal(check(n, "a", 0, 1), RL_ALLOWED);
	assert_int_equal(check(n, "b", 0, 1), RL_ALLOWED);
	assert_int_equal(rl_fleet_node_check(n, "c", 1, 0, 1, NULL), RL_EFULL);
	assert_int_equal(rl_fleet_node_check(n, "a", 1, -1, 1, NULL), RL_ERANGE);
	assert_int_equal(rl_fleet_node_check(n, "a", 1, RL_TIME_MAX_NS + 1, 1, NULL), RL_ERANGE);
	assert_int_equal(rl_fleet_node_sync(n, -1, NULL), RL_EINVAL); /* fleet.h: a bad time */
	assert_int_equal(rl_fleet_node_sync(n, RL_TIME_MAX_NS + 1, NULL), RL_EINVAL);
	assert_int_equal(rl_fleet_node_check(n, "a", 1, 0, 0, NULL), RL_EINVAL);
	rl_fleet_node_destroy(n);
}

/* Three nodes' admitted units all reach Redis, each key's window has a
 * TTL of two windows, a sync is one round trip, and each node's next
 * share follows from the total it read. */
static void test_counts_pushed(void **state)
{
	(void)state;
	NEED_REDIS();
	struct rl_fleet lg[3];
	struct rl_fleet_node *n[3];
	int admitted[3] = { 0 };
	struct rl_fleet_node_stats st;

	for (int i = 0; i < 3; i++) {
		lg[i] = make_lg(300, 1000 * MS, 3, i);
		n[i] = node(&lg[i], "cp:", 10 * MS, 500);
	}
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 40 + 20 * i; j++)
			admitted[i] += check(n[i], "k", 1 * MS + j, 1);
	assert_int_equal(admitted[0], 40);
	assert_int_equal(admitted[1], 60);
	assert_int_equal(admitted[2], 80);
	for (int i = 0; i < 3; i++) {
		bool failed = true;
		assert_int_equal(rl_fleet_node_sync(n[i], 20 * MS, &failed), RL_OK);
		assert_false(failed);
	}
	assert_int_equal(redis_total("cp:{k}:0"), 180);
	long long ttl = redis_int("PTTL %s", "cp:{k}:0");
	assert_true(ttl > 1000 && ttl <= 2001);
	/* node 0 read G = 40, node 1 100, node 2 180: part_j(300 - G) */
	int64_t want[3] = { 87, 67, 40 };
	for (int i = 0; i < 3; i++) {
		struct rl_decision d;
		assert_int_equal(rl_fleet_node_check(n[i], "k", 1, 21 * MS, 1, &d), RL_ALLOWED);
		assert_int_equal(d.remaining, want[i] - 1);
		rl_fleet_node_get_stats(n[i], &st);
		assert_int_equal(st.round_trips, 1);
		assert_int_equal(st.sync_failures, 0);
		assert_int_equal(st.keys, 1);
		rl_fleet_node_destroy(n[i]);
	}
}

/* Random routing, keys, costs and times over many windows: every verdict
 * and remaining through Redis equals the model's, and Redis ends holding
 * the model store's counts. */
static void test_same_as_model(void **state)
{
	(void)state;
	NEED_REDIS();
	const char *env = getenv("RL_SEED");
	uint64_t s0 = env && *env ? strtoull(env, NULL, 0) : (uint64_t)time(NULL);
	struct rl_fleet lg[LGM_NODES];
	struct rl_fleet_node *n[LGM_NODES];
	static struct lgm_store store;
	char prefix[64];

	snprintf(prefix, sizeof(prefix), "m%llu.%d.%.0f:", (unsigned long long)s0, (int)getpid(),
		 rh_now_s() * 1e6); /* fresh keys for every run, even of one seed */
	for (int i = 0; i < LGM_NODES; i++) {
		lg[i] = make_lg(LGM_LIMIT, LGM_W, LGM_NODES, i);
		n[i] = node(&lg[i], prefix, LGM_S, 1000);
	}
	int64_t t = lgm_compare(n, lg, s0, &store);
	for (int k = 0; k < LGM_KEYS; k++) {
		char key[128];
		snprintf(key, sizeof(key), "%s{key%d}:%lld", prefix, k, (long long)(t / LGM_W));
		for (int j = 0; j < LGM_NODES; j++) {
			char field[8];
			snprintf(field, sizeof(field), "%d", j);
			long long v = redis_hget(key, field);
			assert_int_equal(v < 0 ? 0 : v, store.units[k][t / LGM_W][j]);
		}
	}
	for (int i = 0; i < LGM_NODES; i++)
		rl_fleet_node_destroy(n[i]);
}

/* Redis killed: every sync fails fast (counted), every check still
 * decides from the shares; restarted (empty): the next sync reconnects
 * and writes the node's whole count of the window again. */
static void test_redis_killed(void **state)
{
	(void)state;
	NEED_REDIS();
	struct rl_fleet lg = make_lg(100, 1000 * MS, 2, 0);
	struct rl_fleet_node *n = node(&lg, "kl:", 10 * MS, 200);
	struct rl_fleet_node_stats st;
	int admitted = 0;

	for (int j = 0; j < 10; j++)
		admitted += check(n, "k", j, 1); /* share 50 */
	assert_int_equal(admitted, 10);
	assert_int_equal(check(n, "k", 10 * MS, 1), RL_ALLOWED); /* sync: G = 10 -> share 45 */
	assert_int_equal(redis_total("kl:{k}:0"), 10);
	rh_kill(&H, 0);
	int after = 1;
	for (int j = 0; j < 60; j++) {
		double t0 = rh_now_s();
		after += check(n, "k", 20 * MS + j * 10 * MS, 1); /* a failed sync at each */
		assert_true(rh_now_s() - t0 < 0.2 + 0.5);
	}
	assert_int_equal(after, 45); /* the share read before the outage, no more */
	rl_fleet_node_get_stats(n, &st);
	assert_int_equal(st.sync_failures, 60);
	assert_int_equal(st.checks, 71);
	assert_true(rh_restart(&H, 0));
	bool failed = true;
	assert_int_equal(rl_fleet_node_sync(n, 700 * MS, &failed), RL_OK);
	assert_false(failed);
	/* The restarted Redis was empty: the node's value is all its units of
	 * the window, 10 acknowledged before the outage and 45 kept since. */
	assert_int_equal(redis_total("kl:{k}:0"), 55);
	rl_fleet_node_get_stats(n, &st);
	assert_int_equal(st.reconnects, 1);
	assert_int_equal(st.sync_failures, 60);
	rl_fleet_node_destroy(n);
}

/* Redis stalled: the sync gives up after the command timeout (not
 * sooner, not much later), the check still decides; resumed: the next
 * sync writes the node's count, once, though the timed-out write may
 * also have been applied when Redis resumed (a value, not an increment). */
static void test_redis_stalled(void **state)
{
	(void)state;
	NEED_REDIS();
	struct rl_fleet lg = make_lg(100, 1000 * MS, 2, 0);
	struct rl_fleet_node *n = node(&lg, "st:", 10 * MS, 150);
	struct rl_fleet_node_stats st;

	for (int j = 0; j < 5; j++)
		check(n, "k", j, 1);
	check(n, "k", 10 * MS, 1); /* sync, 5 pushed */
	kill(H.nodes[0].pid, SIGSTOP);
	double t0 = rh_now_s();
	int v = check(n, "k", 20 * MS, 1);
	double took = rh_now_s() - t0;
	kill(H.nodes[0].pid, SIGCONT);
	assert_int_equal(v, RL_ALLOWED);
	assert_true(took >= 0.14 && took < 0.15 + 0.5);
	rl_fleet_node_get_stats(n, &st);
	assert_int_equal(st.sync_failures, 1);
	bool failed = true;
	assert_int_equal(rl_fleet_node_sync(n, 30 * MS, &failed), RL_OK);
	assert_false(failed);
	assert_int_equal(redis_total("st:{k}:0"), 7);
	rl_fleet_node_get_stats(n, &st);
	assert_int_equal(st.reconnects, 1);
	rl_fleet_node_destroy(n);
}

/* A window key of the wrong type: that key's sync fails (counted), its
 * units stay pending, the decisions go on, the other keys sync. */
static void test_wrong_type(void **state)
{
	(void)state;
	NEED_REDIS();
	struct rl_fleet lg = make_lg(100, 1000 * MS, 2, 0);
	struct rl_fleet_node *n = node(&lg, "wt:", 10 * MS, 500);
	struct rl_fleet_node_stats st;
	bool failed = false;

	assert_int_equal(redis_int("LPUSH %s x", "wt:{bad}:0"), 1);
	for (int j = 0; j < 4; j++) {
		check(n, "bad", j, 1);
		check(n, "good", j, 1);
	}
	assert_int_equal(rl_fleet_node_sync(n, 10 * MS, &failed), RL_OK);
	assert_true(failed);
	assert_int_equal(redis_total("wt:{good}:0"), 4);
	assert_int_equal(check(n, "bad", 11 * MS, 1), RL_ALLOWED);
	redis_int("DEL %s", "wt:{bad}:0");
	assert_int_equal(rl_fleet_node_sync(n, 20 * MS, &failed), RL_OK);
	assert_false(failed);
	assert_int_equal(redis_total("wt:{bad}:0"), 5);
	rl_fleet_node_get_stats(n, &st);
	assert_int_equal(st.sync_failures, 1);
	rl_fleet_node_destroy(n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_opts),     cmocka_unit_test(test_counts_pushed),
		cmocka_unit_test(test_same_as_model), cmocka_unit_test(test_redis_killed),
		cmocka_unit_test(test_redis_stalled), cmocka_unit_test(test_wrong_type),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
