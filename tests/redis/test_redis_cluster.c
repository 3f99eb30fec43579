/*
 * test_redis_cluster.c - the cluster routing module (redis_cluster.h)
 * against a real 3-master Redis Cluster on loopback ports: key slots
 * against the spec's vectors and CLUSTER KEYSLOT, routing, MOVED after a
 * slot migration, ASK during one, the redirection bound, pipelined
 * batches, bad seeds, a stalled master; and the local-plus-global node
 * (fleet.h) through the cluster: the model's decisions, each
 * window's counts on its slot's master, one master stalled. Random keys print their seed on failure (RL_SEED
 * replays one).
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
#include "ratelab/status.h"
#include "redis_cluster.h"
#include "redis_harness.h"
#include "test_rng.h"

static struct rh H;
static bool up;

static int group_setup(void **state)
{
	(void)state;
	up = rh_available(true) && rh_start_cluster(&H, 3);
	if (!up && rh_on_path("redis-server"))
		return -1; /* the servers exist but the cluster did not come up */
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	rh_stop(&H);
	return 0;
}

#define NEED_CLUSTER()        \
	do {                  \
		if (!up)      \
			skip(); \
	} while (0)

static char seeds[128];

static struct rl__rcluster *client(int max_redirects)
{
	struct rl__rcluster_opts o = { 500, 2000, max_redirects };
	struct rl__rcluster *c = NULL;
	char err[256] = "";

	snprintf(seeds, sizeof(seeds), "127.0.0.1:%d,127.0.0.1:%d", H.nodes[1].port, H.nodes[0].port);
	int s = rl__rcluster_create(seeds, &o, &c, err, sizeof(err));
	if (s != RL_OK)
		fail_msg("create(%s): %d %s", seeds, s, err);
	return c;
}

/* A reply to a command sent straight to node i (no routing). */
static redisReply *direct(int i, const char *fmt, ...)
{
	redisContext *c = rh_connect(H.nodes[i].port);
	va_list ap;

	assert_non_null(c);
	va_start(ap, fmt);
	redisReply *r = redisvCommand(c, fmt, ap);
	va_end(ap);
	redisFree(c);
	assert_non_null(r);
	return r;
}

static void direct_ok(int i, const char *fmt, const char *a, const char *b)
{
	redisReply *r = direct(i, fmt, a, b);
	if (r->type == REDIS_REPLY_ERROR)
		fail_msg("node %d: %s -> %s", i, fmt, r->str);
	freeReplyObject(r);
}

/* The node index owning slot, as node 0 sees it now. */
static int owner(uint16_t slot)
{
	redisReply *r = direct(0, "CLUSTER SLOTS");
	int found = -1;

	for (size_t i = 0; i < r->elements; i++) {
		redisReply *e = r->element[i];
		if (e->element[0]->integer <= slot && slot <= e->element[1]->integer)
			for (int n = 0; n < H.n; n++)
				if (H.nodes[n].port == e->element[2]->element[1]->integer)
					found = n;
	}
	freeReplyObject(r);
	assert_true(found >= 0);
	return found;
}

static int cmd(struct rl__rcluster *c, redisReply **r, const char *key, const char *a0,
	       const char *a2)
{
	const char *argv[3] = { a0, key, a2 };
	size_t len[3] = { strlen(a0), strlen(key), a2 ? strlen(a2) : 0 };

	return rl__rcluster_command(c, key, strlen(key), a2 ? 3 : 2, argv, len, r);
}

static void get_is(struct rl__rcluster *c, const char *key, const char *want)
{
	redisReply *r;

	assert_int_equal(cmd(c, &r, key, "GET", NULL), RL_OK);
	if (r->type != REDIS_REPLY_STRING || strcmp(r->str, want) != 0)
		fail_msg("GET %s: type %d '%s', want '%s'", key, r->type,
			 r->type == REDIS_REPLY_ERROR ? r->str : "", want);
	freeReplyObject(r);
}

/* Moves slot from node a to node b: IMPORTING/MIGRATING, keys moved with
 * MIGRATE; finish assigns the slot to b on every node (SETSLOT NODE). */
static void migrate_begin(uint16_t slot, int a, int b)
{
	char s[8];
	snprintf(s, sizeof(s), "%u", slot);
	direct_ok(b, "CLUSTER SETSLOT %s IMPORTING %s", s, H.nodes[a].id);
	direct_ok(a, "CLUSTER SETSLOT %s MIGRATING %s", s, H.nodes[b].id);
}

static void migrate_key(int a, int b, const char *key)
{
	redisReply *r = direct(a, "MIGRATE 127.0.0.1 %d %s 0 5000", H.nodes[b].port, key);
	if (r->type == REDIS_REPLY_ERROR)
		fail_msg("MIGRATE %s: %s", key, r->str);
	freeReplyObject(r);
}

static void migrate_finish(uint16_t slot, int b)
{
	char s[8];
	snprintf(s, sizeof(s), "%u", slot);
	direct_ok(b, "CLUSTER SETSLOT %s NODE %s", s, H.nodes[b].id);
	for (int i = 0; i < H.n; i++)
		if (i != b)
			direct_ok(i, "CLUSTER SETSLOT %s NODE %s", s, H.nodes[b].id);
}

static void move_key(const char *key, int to)
{
	uint16_t slot = rl__redis_key_slot(key, strlen(key));
	int from = owner(slot);

	migrate_begin(slot, from, to);
	migrate_key(from, to, key);
	migrate_finish(slot, to);
}

static uint16_t slot_of(const char *k)
{
	return rl__redis_key_slot(k, strlen(k));
}

/* The spec's and the docs' vectors, and each hash-tag rule. */
static void test_slot_vectors(void **state)
{
	(void)state;
	assert_int_equal(rl__redis_crc16("123456789", 9), 0x31C3);
	assert_int_equal(rl__redis_crc16("", 0), 0);
	assert_int_equal(slot_of("somekey"), 11058);
	assert_int_equal(slot_of("foo{hash_tag}"), 2515);
	assert_int_equal(slot_of("bar{hash_tag}"), 2515);
	assert_int_equal(slot_of("{user1000}.following"), slot_of("user1000"));
	assert_int_equal(slot_of("{user1000}.followers"), slot_of("user1000"));
	/* empty tag: the whole key */
	assert_int_equal(slot_of("foo{}{bar}"), rl__redis_crc16("foo{}{bar}", 10) & 16383);
	/* the first '{' and the first '}' after it */
	assert_int_equal(slot_of("foo{{bar}}zap"), slot_of("{bar"));
	assert_int_equal(slot_of("foo{{bar}}zap"), rl__redis_crc16("{bar", 4) & 16383);
	assert_int_equal(slot_of("foo{bar}{zap}"), slot_of("bar"));
	/* no closing brace, or it comes first: the whole key */
	assert_int_equal(slot_of("a{b"), rl__redis_crc16("a{b", 3) & 16383);
	assert_int_equal(slot_of("a}b{"), rl__redis_crc16("a}b{", 4) & 16383);
	/* binary keys: the length, not a NUL, ends the key */
	assert_int_equal(rl__redis_key_slot("x\0{y}", 5), slot_of("y"));
}

/* 3000 random keys (braces likely, any byte) against CLUSTER KEYSLOT. */
static void test_slot_matches_server(void **state)
{
	(void)state;
	NEED_CLUSTER();
	uint64_t s0 = t_seed_from_env((uint64_t)time(NULL)), s = s0;
	redisContext *c = rh_connect(H.nodes[0].port);
	char key[24];

	assert_non_null(c);
	for (int i = 0; i < 3000; i++) {
		size_t len = t_splitmix(&s) % sizeof(key);
		for (size_t j = 0; j < len; j++) {
			uint64_t x = t_splitmix(&s) % 8;
			key[j] = x == 0 ? '{' : x == 1 ? '}' : x < 5 ? (char)('a' + x) : (char)t_splitmix(&s);
		}
		redisReply *r = redisCommand(c, "CLUSTER KEYSLOT %b", key, len);
		assert_non_null(r);
		if (r->type != REDIS_REPLY_INTEGER || r->integer != rl__redis_key_slot(key, len))
			fail_msg("seed %llu key %d: server %lld, ours %u", (unsigned long long)s0, i,
				 r->integer, rl__redis_key_slot(key, len));
		freeReplyObject(r);
	}
	redisFree(c);
}

/* Every key lands on its slot's owner, all three nodes get keys, and no
 * command needs a redirection with a fresh map. */
static void test_routing(void **state)
{
	(void)state;
	NEED_CLUSTER();
	struct rl__rcluster *c = client(-1);
	struct rl__rcluster_stats st;
	char key[32], val[32];
	int per_node[RH_MAX_NODES] = { 0 };

	for (int i = 0; i < 300; i++) {
		redisReply *r;
		snprintf(key, sizeof(key), "route:%d", i);
		snprintf(val, sizeof(val), "v%d", i);
		assert_int_equal(cmd(c, &r, key, "SET", val), RL_OK);
		assert_int_equal(r->type, REDIS_REPLY_STATUS);
		freeReplyObject(r);
	}
	for (int i = 0; i < 300; i++) {
		snprintf(key, sizeof(key), "route:%d", i);
		snprintf(val, sizeof(val), "v%d", i);
		int n = owner(slot_of(key));
		char want[32];
		snprintf(want, sizeof(want), "127.0.0.1:%d", H.nodes[n].port);
		assert_string_equal(rl__rcluster_slot_node(c, slot_of(key)), want);
		redisReply *r = direct(n, "GET %s", key);
		assert_int_equal(r->type, REDIS_REPLY_STRING);
		assert_string_equal(r->str, val);
		freeReplyObject(r);
		per_node[n]++;
	}
	for (int n = 0; n < H.n; n++)
		assert_true(per_node[n] > 0);
	rl__rcluster_get_stats(c, &st);
	assert_int_equal(st.moved, 0);
	assert_int_equal(st.ask, 0);
	assert_int_equal(st.refreshes, 1);
	assert_int_equal(st.connects, 3);
	rl__rcluster_destroy(c);
}

/* A client whose map predates a slot migration follows MOVED to the new
 * owner, re-reads the map, and needs no redirection afterwards. */
static void test_moved(void **state)
{
	(void)state;
	NEED_CLUSTER();
	struct rl__rcluster *c = client(-1);
	struct rl__rcluster_stats st;
	const char *key = "{mv}a";
	redisReply *r;
	uint16_t slot = slot_of(key);

	assert_int_equal(cmd(c, &r, key, "SET", "moved"), RL_OK);
	freeReplyObject(r);
	int from = owner(slot), to = (from + 1) % H.n;
	move_key(key, to);

	get_is(c, key, "moved");
	rl__rcluster_get_stats(c, &st);
	assert_int_equal(st.moved, 1);
	assert_int_equal(st.refreshes, 2);
	char want[32];
	snprintf(want, sizeof(want), "127.0.0.1:%d", H.nodes[to].port);
	assert_string_equal(rl__rcluster_slot_node(c, slot), want);
	get_is(c, key, "moved");
	rl__rcluster_get_stats(c, &st);
	assert_int_equal(st.moved, 1);
	rl__rcluster_destroy(c);
}

/* While a slot migrates, a key already on the target is reached by ASK
 * (with ASKING), one still on the source is served there, a new key is
 * created on the target; the map is not changed by ASK. */
static void test_ask(void **state)
{
	(void)state;
	NEED_CLUSTER();
	struct rl__rcluster *c = client(-1);
	struct rl__rcluster_stats st;
	redisReply *r;
	uint16_t slot = slot_of("{ask}1");

	assert_int_equal(cmd(c, &r, "{ask}1", "SET", "one"), RL_OK);
	freeReplyObject(r);
	assert_int_equal(cmd(c, &r, "{ask}2", "SET", "two"), RL_OK);
	freeReplyObject(r);
	int from = owner(slot), to = (from + 2) % H.n;
	const char *before = rl__rcluster_slot_node(c, slot);

	migrate_begin(slot, from, to);
	migrate_key(from, to, "{ask}2");
	get_is(c, "{ask}1", "one");
	rl__rcluster_get_stats(c, &st);
	assert_int_equal(st.ask, 0);
	get_is(c, "{ask}2", "two");
	rl__rcluster_get_stats(c, &st);
	assert_int_equal(st.ask, 1);
	assert_int_equal(cmd(c, &r, "{ask}3", "SET", "three"), RL_OK);
	assert_int_equal(r->type, REDIS_REPLY_STATUS);
	freeReplyObject(r);
	rl__rcluster_get_stats(c, &st);
	assert_int_equal(st.ask, 2);
	assert_int_equal(st.moved, 0);
	assert_string_equal(rl__rcluster_slot_node(c, slot), before);

	migrate_key(from, to, "{ask}1");
	migrate_finish(slot, to);
	r = direct(to, "GET %s", "{ask}3");
	assert_int_equal(r->type, REDIS_REPLY_STRING);
	assert_string_equal(r->str, "three");
	freeReplyObject(r);
	get_is(c, "{ask}1", "one");
	rl__rcluster_get_stats(c, &st);
	assert_int_equal(st.moved, 1);
	rl__rcluster_destroy(c);
}

/* With max_redirects 0 a MOVED is an error (no loop, no wrong answer);
 * with 1 it is followed. */
static void test_redirect_bound(void **state)
{
	(void)state;
	NEED_CLUSTER();
	struct rl__rcluster *c0 = client(0), *c1 = client(1);
	const char *key = "{bound}k";
	redisReply *r;

	assert_int_equal(cmd(c0, &r, key, "SET", "b"), RL_OK);
	freeReplyObject(r);
	move_key(key, (owner(slot_of(key)) + 1) % H.n);
	assert_int_equal(cmd(c0, &r, key, "GET", NULL), RL_RC_EREDIRECT);
	assert_null(r);
	get_is(c1, key, "b");
	rl__rcluster_destroy(c0);
	rl__rcluster_destroy(c1);
}

/* 900 INCRs over 40 keys in one batch: each key's replies count 1, 2, ...
 * in request order, across all nodes, also for keys whose slot moved
 * after the client read its map (MOVED inside a batch). */
static void test_batch(void **state)
{
	(void)state;
	NEED_CLUSTER();
	enum { N = 900, KEYS = 40 };
	struct rl__rcluster *c = client(-1);
	struct rl__rcluster_req reqs[N];
	redisReply *replies[N];
	char keys[KEYS][24];
	const char *argv[N][2];
	size_t lens[N][2];
	int kidx[N];
	long long seen[KEYS] = { 0 };
	uint64_t s0 = t_seed_from_env((uint64_t)time(NULL)), s = s0;
	struct rl__rcluster_stats st;

	for (int k = 0; k < KEYS; k++)
		snprintf(keys[k], sizeof(keys[k]), "{batch%d}n", k);
	move_key(keys[0], (owner(slot_of(keys[0])) + 1) % H.n);
	move_key(keys[1], (owner(slot_of(keys[1])) + 2) % H.n);
	for (int i = 0; i < N; i++) {
		int k = (int)(t_splitmix(&s) % KEYS);
		kidx[i] = k;
		argv[i][0] = "INCR";
		argv[i][1] = keys[k];
		lens[i][0] = 4;
		lens[i][1] = strlen(keys[k]);
		reqs[i] = (struct rl__rcluster_req){ keys[k], lens[i][1], 2, argv[i], lens[i] };
	}
	assert_int_equal(rl__rcluster_batch(c, N, reqs, replies), RL_OK);
	for (int i = 0; i < N; i++) {
		int k = kidx[i];
		assert_non_null(replies[i]);
		if (replies[i]->type != REDIS_REPLY_INTEGER || replies[i]->integer != ++seen[k])
			fail_msg("seed %llu request %d (%s): reply type %d %lld, want %lld",
				 (unsigned long long)s0, i, argv[i][1], replies[i]->type,
				 replies[i]->integer, seen[k]);
		freeReplyObject(replies[i]);
	}
	rl__rcluster_get_stats(c, &st);
	assert_true(st.moved >= 1); /* each moved key's first request */
	assert_int_equal(st.refreshes, 2); /* once for the whole batch */
	rl__rcluster_destroy(c);
}

/* A batch while a slot migrates: a key still on the source is answered
 * there in the pipeline, a key already moved and a new key are answered
 * by the target after ASK, in request order (INCR twice counts 1, 2). */
static void test_batch_ask(void **state)
{
	(void)state;
	NEED_CLUSTER();
	struct rl__rcluster *c = client(-1);
	struct rl__rcluster_stats st;
	redisReply *r;
	uint16_t slot = slot_of("{bask}");

	assert_int_equal(cmd(c, &r, "{bask}old", "SET", "o"), RL_OK);
	freeReplyObject(r);
	assert_int_equal(cmd(c, &r, "{bask}moved", "SET", "5"), RL_OK);
	freeReplyObject(r);
	int from = owner(slot), to = (from + 1) % H.n;
	migrate_begin(slot, from, to);
	migrate_key(from, to, "{bask}moved");

	const char *a0[2] = { "GET", "{bask}old" }, *a1[2] = { "INCR", "{bask}moved" },
		   *a2[3] = { "SET", "{bask}new", "n" }, *a3[2] = { "INCR", "{bask}moved" };
	size_t l0[2] = { 3, 9 }, l1[2] = { 4, 11 }, l2[3] = { 3, 9, 1 }, l3[2] = { 4, 11 };
	struct rl__rcluster_req reqs[4] = { { "{bask}old", 9, 2, a0, l0 },
					   { "{bask}moved", 11, 2, a1, l1 },
					   { "{bask}new", 9, 3, a2, l2 },
					   { "{bask}moved", 11, 2, a3, l3 } };
	redisReply *rep[4];
	assert_int_equal(rl__rcluster_batch(c, 4, reqs, rep), RL_OK);
	assert_int_equal(rep[0]->type, REDIS_REPLY_STRING);
	assert_string_equal(rep[0]->str, "o");
	assert_int_equal(rep[1]->type, REDIS_REPLY_INTEGER);
	assert_int_equal(rep[1]->integer, 6);
	assert_int_equal(rep[2]->type, REDIS_REPLY_STATUS);
	assert_int_equal(rep[3]->type, REDIS_REPLY_INTEGER);
	assert_int_equal(rep[3]->integer, 7);
	for (int i = 0; i < 4; i++)
		freeReplyObject(rep[i]);
	rl__rcluster_get_stats(c, &st);
	assert_int_equal(st.ask, 3);
	assert_int_equal(st.moved, 0);

	migrate_key(from, to, "{bask}old");
	migrate_finish(slot, to);
	r = direct(to, "GET %s", "{bask}new");
	assert_int_equal(r->type, REDIS_REPLY_STRING);
	freeReplyObject(r);
	rl__rcluster_destroy(c);
}

/* Malformed seeds are RL_EINVAL; a port nobody listens on is RL_RC_EIO
 * within the connect timeout; a plain (non-cluster) server is
 * RL_RC_EPROTO; every failure names its cause. */
static void test_bad_seeds(void **state)
{
	(void)state;
	struct rl__rcluster *c = (struct rl__rcluster *)1;
	char err[256];
	const char *bad[] = { "", "nohost", "127.0.0.1:", ":6379", "127.0.0.1:70000", "127.0.0.1:0",
			      "127.0.0.1:63x", "127.0.0.1:6379,", NULL };

	for (int i = 0; bad[i]; i++) {
		err[0] = '\0';
		assert_int_equal(rl__rcluster_create(bad[i], NULL, &c, err, sizeof(err)), RL_EINVAL);
		assert_null(c);
		assert_non_null(strstr(err, "bad seed list"));
	}
	struct rl__rcluster_opts neg = { -1, 0, -1 };
	assert_int_equal(rl__rcluster_create("127.0.0.1:1", &neg, &c, NULL, 0), RL_EINVAL);

	char dead[32];
	snprintf(dead, sizeof(dead), "127.0.0.1:%d", rh_free_port());
	struct rl__rcluster_opts o = { 200, 200, -1 };
	double t0 = rh_now_s();
	assert_int_equal(rl__rcluster_create(dead, &o, &c, err, sizeof(err)), RL_RC_EIO);
	assert_true(rh_now_s() - t0 < 2.0);
	assert_non_null(strstr(err, "no node reachable"));

	NEED_CLUSTER();
	struct rh single;
	assert_true(rh_start_single(&single));
	snprintf(dead, sizeof(dead), "127.0.0.1:%d", single.nodes[0].port);
	int s = rl__rcluster_create(dead, &o, &c, err, sizeof(err));
	rh_stop(&single);
	assert_int_equal(s, RL_RC_EPROTO);
	assert_non_null(strstr(err, "CLUSTER SLOTS"));
}

/* A node that goes away: the command fails with RL_RC_EIO within the
 * command timeout instead of hanging, and the connection is reopened
 * (reconnects counted) once the node answers again. */
static void test_node_stalled(void **state)
{
	(void)state;
	NEED_CLUSTER();
	struct rl__rcluster_opts o = { 300, 300, -1 };
	struct rl__rcluster *c = NULL;
	struct rl__rcluster_stats st;
	const char *key = "{stall}k";
	redisReply *r;

	snprintf(seeds, sizeof(seeds), "127.0.0.1:%d", H.nodes[0].port);
	assert_int_equal(rl__rcluster_create(seeds, &o, &c, NULL, 0), RL_OK);
	assert_int_equal(cmd(c, &r, key, "SET", "s"), RL_OK);
	freeReplyObject(r);
	int n = owner(slot_of(key));
	kill(H.nodes[n].pid, SIGSTOP);
	double t0 = rh_now_s();
	int s = cmd(c, &r, key, "GET", NULL);
	double took = rh_now_s() - t0;
	kill(H.nodes[n].pid, SIGCONT);
	assert_int_equal(s, RL_RC_EIO);
	assert_null(r);
	assert_true(took < 0.3 + 1.0);
	get_is(c, key, "s");
	rl__rcluster_get_stats(c, &st);
	assert_int_equal(st.reconnects, 1);
	rl__rcluster_destroy(c);
}

static struct rl_fleet_node *lg_node(const struct rl_fleet *lg, const char *prefix, int timeout_ms)
{
	struct rl_fleet_node_opts o = { .cluster = seeds,
				     .connect_timeout_ms = timeout_ms,
				     .command_timeout_ms = timeout_ms,
				     .sync_interval_ns = LGM_S,
				     .max_keys = 64,
				     .prefix = prefix };
	struct rl_fleet_node *n = NULL;

	snprintf(seeds, sizeof(seeds), "127.0.0.1:%d,127.0.0.1:%d", H.nodes[2].port, H.nodes[1].port);
	assert_int_equal(rl_fleet_node_create(lg, &o, &n), RL_OK);
	return n;
}

/* Three local-plus-global nodes syncing through the cluster decide as the
 * model does, and each key's window hash holds the model's counts on the
 * master its slot maps to. */
static void test_fleet_through_cluster(void **state)
{
	(void)state;
	NEED_CLUSTER();
	uint64_t s0 = t_seed_from_env((uint64_t)time(NULL));
	struct rl_fleet lg[LGM_NODES];
	struct rl_fleet_node *n[LGM_NODES];
	static struct lgm_store store;
	char prefix[64];

	snprintf(prefix, sizeof(prefix), "lgc%llu.%d.%.0f:", (unsigned long long)s0, (int)getpid(),
		 rh_now_s() * 1e6); /* fresh keys for every run, even of one seed */
	for (int j = 0; j < LGM_NODES; j++) {
		assert_int_equal(rl_fleet_init(&lg[j], LGM_LIMIT, LGM_W, LGM_NODES, j, NULL, 0), RL_OK);
		n[j] = lg_node(&lg[j], prefix, 1000);
	}
	int64_t t = lgm_compare(n, lg, s0, &store);
	for (int k = 0; k < LGM_KEYS; k++) {
		char key[128], tag[8];
		snprintf(key, sizeof(key), "%s{key%d}:%lld", prefix, k, (long long)(t / LGM_W));
		snprintf(tag, sizeof(tag), "key%d", k);
		int owner_node = owner(slot_of(tag));
		for (int j = 0; j < LGM_NODES; j++) {
			char field[8];
			snprintf(field, sizeof(field), "%d", j);
			redisReply *r = direct(owner_node, "HGET %s %s", key, field);
			long long v = r->type == REDIS_REPLY_STRING ? atoll(r->str) : 0;
			freeReplyObject(r);
			assert_int_equal(v, store.units[k][t / LGM_W][j]);
		}
	}
	for (int j = 0; j < LGM_NODES; j++) {
		struct rl_fleet_node_stats st;
		rl_fleet_node_get_stats(n[j], &st);
		assert_int_equal(st.sync_failures, 0);
		assert_true(st.round_trips > 0);
		rl_fleet_node_destroy(n[j]);
	}
}

/* One master stalled (SIGSTOP): a sync gives up on its keys after the
 * command timeout, the keys on the other masters still sync, the checks
 * go on; resumed, the next sync writes the stalled keys' counts. */
static void test_fleet_master_stalled(void **state)
{
	(void)state;
	NEED_CLUSTER();
	struct rl_fleet lg;
	char a[16], b[16];
	int na = -1, nb = -1;

	/* two keys on two different masters */
	for (int i = 0; na < 0 || nb < 0 || na == nb; i++) {
		snprintf(i % 2 ? b : a, 16, "st%d", i);
		if (i % 2)
			nb = owner(slot_of(b));
		else
			na = owner(slot_of(a));
	}
	assert_int_equal(rl_fleet_init(&lg, 100, 1000 * LGM_S, 2, 0, NULL, 0), RL_OK);
	struct rl_fleet_node *n = lg_node(&lg, "lgs:", 200);
	for (int i = 0; i < 5; i++) {
		assert_int_equal(rl_fleet_node_check(n, a, strlen(a), i, 1, NULL), RL_ALLOWED);
		assert_int_equal(rl_fleet_node_check(n, b, strlen(b), i, 1, NULL), RL_ALLOWED);
	}
	bool failed = true;
	assert_int_equal(rl_fleet_node_sync(n, 10, &failed), RL_OK);
	assert_false(failed);
	assert_int_equal(rl_fleet_node_check(n, a, strlen(a), 11, 1, NULL), RL_ALLOWED);
	assert_int_equal(rl_fleet_node_check(n, b, strlen(b), 11, 1, NULL), RL_ALLOWED);

	kill(H.nodes[na].pid, SIGSTOP);
	double t0 = rh_now_s();
	int s = rl_fleet_node_sync(n, 20, &failed);
	double took = rh_now_s() - t0;
	kill(H.nodes[na].pid, SIGCONT);
	assert_int_equal(s, RL_OK);
	assert_true(failed);
	assert_true(took >= 0.19 && took < 0.2 + 1.0);
	char key[32];
	snprintf(key, sizeof(key), "lgs:{%s}:0", b);
	redisReply *r = direct(nb, "HGET %s 0", key);
	assert_int_equal(r->type, REDIS_REPLY_STRING);
	assert_string_equal(r->str, "6"); /* b's sync went through */
	freeReplyObject(r);

	assert_int_equal(rl_fleet_node_sync(n, 30, &failed), RL_OK);
	assert_false(failed);
	snprintf(key, sizeof(key), "lgs:{%s}:0", a);
	r = direct(na, "HGET %s 0", key);
	assert_int_equal(r->type, REDIS_REPLY_STRING);
	assert_string_equal(r->str, "6");
	freeReplyObject(r);
	struct rl_fleet_node_stats st;
	rl_fleet_node_get_stats(n, &st);
	assert_int_equal(st.sync_failures, 1);
	assert_int_equal(st.reconnects, 1);
	rl_fleet_node_destroy(n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slot_vectors),	 cmocka_unit_test(test_slot_matches_server),
		cmocka_unit_test(test_routing),		 cmocka_unit_test(test_moved),
		cmocka_unit_test(test_ask),		 cmocka_unit_test(test_redirect_bound),
		cmocka_unit_test(test_batch),		 cmocka_unit_test(test_batch_ask),		 cmocka_unit_test(test_bad_seeds),
		cmocka_unit_test(test_node_stalled),	 cmocka_unit_test(test_fleet_through_cluster),
		cmocka_unit_test(test_fleet_master_stalled),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
