/*
 * test_redis_module.c - ratelab.so, the Redis module, on real redis-server
 * processes that load it (built with RH_MODULE, redis_harness.h): the
 * backend uses it and the conformance suite (conformance.h) passes through
 * it; its replies have the scripts' shape; the key's TTL is the scripts'
 * and a never-admissible cost writes nothing; a key holding anything else
 * is an error naming it, the key untouched; a replica holds byte-identical
 * values and expiries after a trace; after BGREWRITEAOF and a restart
 * from the AOF the decisions go on as in process; MODULE LOAD with
 * arguments is refused with a message in the server's log.
 *
 * A mismatch prints the seed. Reproduce with RL_SEED=<seed> ./test_redis_module
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

/* A command on a fresh connection to port, printf-style; never NULL. */
static redisReply *cmd(int port, const char *fmt, ...)
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

static long long cmd_int(int port, const char *fmt, const char *arg)
{
	redisReply *rep = cmd(port, fmt, arg);
	if (rep->type != REDIS_REPLY_INTEGER)
		fail_msg("%s on port %d: %s", fmt, port, rep->type == REDIS_REPLY_ERROR ? rep->str : "not an integer");
	long long v = rep->integer;
	freeReplyObject(rep);
	return v;
}

/* An error reply containing want. */
static void expect_error(redisReply *rep, const char *want)
{
	if (rep->type != REDIS_REPLY_ERROR || !strstr(rep->str, want))
		fail_msg("want an error with \"%s\", got type %d: %s", want, rep->type,
			 rep->type == REDIS_REPLY_ERROR || rep->type == REDIS_REPLY_STRING ? rep->str : "");
	freeReplyObject(rep);
}

/* A key's value and expiry (PEXPIRETIME: Unix ms, -1 none, -2 absent). */
struct snap {
	long long at;
	size_t len;
	char bytes[512];
};

static void snapshot(int port, const char *key, struct snap *out)
{
	redisReply *v = cmd(port, "GET %s", key);

	memset(out, 0, sizeof(*out));
	out->at = cmd_int(port, "PEXPIRETIME %s", key);
	if (v->type == REDIS_REPLY_STRING) {
		assert_true(v->len <= sizeof(out->bytes));
		out->len = v->len;
		memcpy(out->bytes, v->str, v->len);
	}
	freeReplyObject(v);
}

static bool same(const struct snap *a, const struct snap *b)
{
	return a->at == b->at && a->len == b->len && memcmp(a->bytes, b->bytes, a->len) == 0;
}

/* RATELAB.CHECK answers as the scripts do: an integer and four decimal strings. */
static void test_reply_shape(void **state)
{
	(void)state;
	flushall();
	redisReply *rep = cmd(g_port, "RATELAB.CHECK shape gcra 5 1000000000 5 1 1000");
	assert_int_equal(rep->type, REDIS_REPLY_ARRAY);
	assert_int_equal(rep->elements, 5);
	assert_int_equal(rep->element[0]->type, REDIS_REPLY_INTEGER);
	assert_int_equal(rep->element[0]->integer, 1);
	const char *want[] = { "4", "0", "200000000", "0" };
	for (int i = 0; i < 4; i++) {
		assert_int_equal(rep->element[i + 1]->type, REDIS_REPLY_STRING);
		assert_string_equal(rep->element[i + 1]->str, want[i]);
	}
	freeReplyObject(rep);

	/* '*': the server's clock, in ns (a fresh key there: full quota) */
	rep = cmd(g_port, "RATELAB.CHECK shape gcra 5 1000000000 5 5 *");
	assert_int_equal(rep->element[0]->integer, 1);
	assert_string_equal(rep->element[1]->str, "0");
	freeReplyObject(rep);
	rep = cmd(g_port, "GET shape");
	int64_t last;
	assert_int_equal(rep->len, 4 + 24 + 24); /* header, rule, struct rl_gcra */
	memcpy(&last, rep->str + 4 + 24 + 8, 8); /* rl_gcra's last_ns */
	freeReplyObject(rep);
	int64_t wall = (int64_t)time(NULL) * 1000000000;
	assert_true(last > wall - 60000000000LL && last < wall + 60000000000LL);

	/* the breaker: [rc, state before] */
	rep = cmd(g_port, "RATELAB.BREAKER br 10 1 5 7 0 handle");
	assert_int_equal(rep->type, REDIS_REPLY_ARRAY);
	assert_int_equal(rep->elements, 2);
	assert_int_equal(rep->element[0]->integer, 1);
	assert_int_equal(rep->element[1]->integer, RL_BREAKER_CLOSED);
	freeReplyObject(rep);
	rep = cmd(g_port, "RATELAB.BREAKER br 11 1 5 7 0 handle"); /* opens */
	assert_int_equal(rep->element[0]->integer, 0);
	freeReplyObject(rep);
	rep = cmd(g_port, "RATELAB.BREAKER br 12 1 5 7 0 state");
	assert_int_equal(rep->element[0]->integer, 0);
	assert_int_equal(rep->element[1]->integer, RL_BREAKER_OPEN);
	freeReplyObject(rep);
	rep = cmd(g_port, "RATELAB.BREAKER br 3 1 5 7 0 state");
	assert_int_equal(rep->element[0]->integer, RL_EORDER);
	freeReplyObject(rep);
	assert_int_equal(cmd_int(g_port, "PTTL %s", "br"), -1); /* grace 0: no expiry */
}

/* TTL: reset rounded up to ms plus the grace; 0 deletes; a cost beyond reach writes nothing. */
static void test_ttl(void **state)
{
	(void)state;
	flushall();
	/* token_bucket 10 per 10 s: 3 taken, 3 s back to full */
	for (int i = 0; i < 3; i++)
		freeReplyObject(cmd(g_port, "RATELAB.CHECK tb token_bucket 10 10000000000 10 1 5"));
	long long ms = cmd_int(g_port, "PTTL %s", "tb");
	assert_true(ms > 2900 && ms <= 3000);
	freeReplyObject(cmd(g_port, "RATELAB.CHECK tb token_bucket 10 10000000000 10 1 5 60000"));
	ms = cmd_int(g_port, "PTTL %s", "tb");
	assert_true(ms > 63900 && ms <= 64000);

	/* a cost above the burst: rejected, retry never, nothing written */
	struct snap before, after;
	snapshot(g_port, "tb", &before);
	redisReply *rep = cmd(g_port, "RATELAB.CHECK tb token_bucket 10 10000000000 10 11 9000000000");
	assert_int_equal(rep->element[0]->integer, 0);
	assert_string_equal(rep->element[2]->str, "9223372036854775807");
	freeReplyObject(rep);
	snapshot(g_port, "tb", &after);
	assert_true(before.len == 4 + 24 + 24 && same(&before, &after));
	freeReplyObject(cmd(g_port, "RATELAB.CHECK fresh sliding_log 3 1000 3 4 5"));
	assert_int_equal(cmd_int(g_port, "EXISTS %s", "fresh"), 0);

	/* reset 1 ns: a TTL of 1 ms, rounded up (the key may be gone by now) */
	rep = cmd(g_port, "RATELAB.CHECK fw fixed_window 10 10000000000 10 1 9999999999");
	assert_string_equal(rep->element[3]->str, "1");
	freeReplyObject(rep);
	ms = cmd_int(g_port, "PTTL %s", "fw");
	assert_true(ms == 1 || ms == 0 || ms == -2);
}

/* Anything else in the key is an error naming it; the key is left as it was. */
static void test_foreign_keys(void **state)
{
	(void)state;
	flushall();
	freeReplyObject(cmd(g_port, "SET str hello"));
	freeReplyObject(cmd(g_port, "HSET hash a 1"));
	freeReplyObject(cmd(g_port, "RPUSH list a"));
	/* a grace of 10 minutes: the keys stay while the test runs */
	freeReplyObject(cmd(g_port, "RATELAB.CHECK g gcra 5 1000 5 1 7 600000"));
	freeReplyObject(cmd(g_port, "RATELAB.CHECK log sliding_log 5 1000 5 1 7 600000"));
	expect_error(cmd(g_port, "RATELAB.CHECK str gcra 5 1000 5 1 7"),
		     "WRONGTYPE ratelab: key 'str' holds a string of 5 bytes that is not ratelab state");
	expect_error(cmd(g_port, "RATELAB.CHECK hash gcra 5 1000 5 1 7"), "key 'hash' holds a hash");
	expect_error(cmd(g_port, "RATELAB.CHECK list gcra 5 1000 5 1 7"), "key 'list' holds a list");
	expect_error(cmd(g_port, "RATELAB.BREAKER list 1 1 5 7 0 handle"), "key 'list' holds a list");
	expect_error(cmd(g_port, "RATELAB.CHECK g fixed_window 5 1000 5 1 7"),
		     "ratelab: key 'g' holds gcra state, not fixed_window");
	expect_error(cmd(g_port, "RATELAB.BREAKER g 1 1 5 7 0 handle"), "key 'g' holds gcra state, not breaker");

	/* ratelab's header with a body of the wrong length, or runs out of order: damaged */
	redisReply *rep = cmd(g_port, "GET g");
	char bad[64];
	memcpy(bad, rep->str, rep->len);
	freeReplyObject(rep);
	freeReplyObject(cmd(g_port, "SET g %b", bad, (size_t)4 + 15));
	expect_error(cmd(g_port, "RATELAB.CHECK g gcra 5 1000 5 1 7"), "ratelab: key 'g' holds a damaged gcra state");
	rep = cmd(g_port, "GET log");
	assert_int_equal(rep->len, 4 + 24 + 8 + 12); /* header, rule, last_ns, one run */
	memcpy(bad, rep->str, rep->len);
	memcpy(bad + 4 + 24 + 8 + 12, bad + 4 + 24 + 8, 12); /* the same run twice: times must increase */
	freeReplyObject(rep);
	freeReplyObject(cmd(g_port, "SET log %b", bad, (size_t)4 + 24 + 8 + 24));
	expect_error(cmd(g_port, "RATELAB.CHECK log sliding_log 5 1000 5 1 7"),
		     "ratelab: key 'log' holds a damaged sliding_log state");
	rep = cmd(g_port, "STRLEN log");
	assert_int_equal(rep->integer, 4 + 24 + 8 + 24); /* untouched */
	freeReplyObject(rep);

	/* the backend reports it as RL_EREDIS with the message */
	struct rl_limiter lim;
	struct rl_rule rule = { 5, 1000, 5 };
	struct rl_redis_config cfg = { .port = g_port, .prefix = "" };
	struct rl_redis *r = NULL;
	assert_int_equal(rl_redis_create(&r, &cfg, NULL, 0), RL_OK);
	struct rl_redis_rule rr = { &lim, false, 0 };
	freeReplyObject(cmd(g_port, "SET {str} hello"));
	assert_int_equal(rl_limiter_init(&lim, &rl_gcra_algo, &rule, NULL, 0), RL_OK);
	assert_int_equal(rl_redis_check(r, &rr, "str", 3, 0, NULL), RL_EREDIS);
	assert_non_null(strstr(rl_redis_error(r), "WRONGTYPE"));
	rl_redis_destroy(r);
}

/*
 * A stored state names its algorithm by an id derived from the name, not by
 * the algorithm's place in the ops list (which a fork's added algorithm would
 * shift): the header's bytes for each algorithm, the ids computed apart from
 * the module (FNV-1a 32 of the name, h ^= h >> 16, h ^= h >> 8, low 7 bits).
 */
static void test_stored_ids(void **state)
{
	static const struct {
		const char *algo;
		unsigned char id;
	} want[] = { { "token_bucket", 5 },  { "gcra", 52 },	     { "leaky_bucket", 61 },
		     { "fixed_window", 88 }, { "sliding_log", 114 }, { "sliding_counter", 123 } };
	(void)state;
	flushall();
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		freeReplyObject(cmd(g_port, "RATELAB.CHECK k%s %s 5 1000000000 5 1 7 600000", want[i].algo, want[i].algo));
		redisReply *rep = cmd(g_port, "GET k%s", want[i].algo);
		assert_int_equal(rep->type, REDIS_REPLY_STRING);
		assert_true(rep->len >= 4);
		assert_memory_equal(rep->str, "rl\x04", 3);
		assert_int_equal((unsigned char)rep->str[3], want[i].id);
		freeReplyObject(rep);
	}
	freeReplyObject(cmd(g_port, "RATELAB.BREAKER kbr 1 1 5 7 0 handle"));
	redisReply *rep = cmd(g_port, "GET kbr");
	assert_true(rep->len >= 4 && (unsigned char)rep->str[3] == 0x80);
	freeReplyObject(rep);
	/* another version's header is not ratelab state */
	rep = cmd(g_port, "GET kgcra");
	char old[64];
	memcpy(old, rep->str, rep->len);
	size_t len = rep->len;
	freeReplyObject(rep);
	old[2] = 1;
	freeReplyObject(cmd(g_port, "SET kgcra %b", old, len));
	expect_error(cmd(g_port, "RATELAB.CHECK kgcra gcra 5 1000000000 5 1 7"), "that is not ratelab state");
}

static void test_bad_arguments(void **state)
{
	(void)state;
	expect_error(cmd(g_port, "RATELAB.CHECK k gcra 5 1000 5 1"), "wrong number of arguments");
	expect_error(cmd(g_port, "RATELAB.CHECK k nope 5 1000 5 1 1"), "unknown algorithm 'nope' (one of: token_bucket");
	expect_error(cmd(g_port, "RATELAB.CHECK k gcra 0 1000 5 1 1"), "limit '0' is not an integer in [1, 1000000]");
	expect_error(cmd(g_port, "RATELAB.CHECK k gcra 5 1000000000000000001 5 1 1"), "window_ns '1000000000000000001'");
	expect_error(cmd(g_port, "RATELAB.CHECK k gcra 5 1000 0 1 1"), "burst '0'");
	expect_error(cmd(g_port, "RATELAB.CHECK k gcra 5 1000 5 1000000001 1"), "cost '1000000001'");
	expect_error(cmd(g_port, "RATELAB.CHECK k gcra 5 1000 5 1 4000000000000000001"), "ratelab: time out of range");
	expect_error(cmd(g_port, "RATELAB.CHECK k gcra 5 1000 5 1 -1"), "ratelab: time out of range");
	expect_error(cmd(g_port, "RATELAB.CHECK k gcra 5 1000 5 1 soon"), "now_ns 'soon' is not an integer or *");
	expect_error(cmd(g_port, "RATELAB.CHECK k gcra 5 1000 5 1 1 -1"), "grace_ms '-1'");
	expect_error(cmd(g_port, "RATELAB.BREAKER k 1 0 5 7 0 handle"), "limit '0'");
	expect_error(cmd(g_port, "RATELAB.BREAKER k 1 1 5 7 0 open"), "breaker action 'open' is not handle or state");
	assert_int_equal(cmd_int(g_port, "EXISTS %s", "k"), 0);
}

/* MODULE LOAD with an argument: refused, the reason in the server's log. */
static void test_module_load_arguments(void **state)
{
	(void)state;
	struct rh h;
	char log[128], line[512];
	bool found = false;

	assert_true(rh_init(&h));
	h.extra[0] = "--enable-module-command";
	h.extra[1] = "yes";
	assert_true(rh_start_node(&h, false));
	int port = h.nodes[0].port;
	expect_error(cmd(port, "MODULE LOAD %s", RH_MODULE), "");  /* loaded already: the name is taken */
	redisReply *rep = cmd(port, "MODULE UNLOAD ratelab");
	assert_int_equal(rep->type, REDIS_REPLY_STATUS);
	freeReplyObject(rep);
	expect_error(cmd(port, "MODULE LOAD %s %s", RH_MODULE, "grace=5"), "Error loading the extension");
	snprintf(log, sizeof(log), "%s/log", h.dir);
	FILE *f = fopen(log, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		found |= strstr(line, "ratelab: MODULE LOAD takes no arguments, got 'grace=5'") != NULL;
	fclose(f);
	assert_true(found);
	rep = cmd(port, "MODULE LOAD %s", RH_MODULE);
	assert_int_equal(rep->type, REDIS_REPLY_STATUS);
	freeReplyObject(rep);
	rep = cmd(port, "RATELAB.CHECK k gcra 1 1000 1 1 1");
	assert_int_equal(rep->type, REDIS_REPLY_ARRAY);
	freeReplyObject(rep);
	rh_stop(&h);
}

/* A trace over every algorithm and the breaker, through the backend at port. */
struct trace {
	struct rl_limiter lim[6];
	void *st[6][2];
	struct rl_breaker br;
	int64_t t;
	uint64_t s;
};

static void trace_init(struct trace *tr, uint64_t seed)
{
	size_t count;
	const struct rl_algo *const *all = rl_algo_all(&count);

	memset(tr, 0, sizeof(*tr));
	tr->s = seed;
	tr->t = 1000000;
	assert_true(count <= 6);
	for (size_t a = 0; a < count; a++) {
		struct rl_rule rule = { 3 + below(&tr->s, 5), 1000000 + below(&tr->s, 1000000), 2 + below(&tr->s, 5) };
		assert_int_equal(rl_limiter_init(&tr->lim[a], all[a], &rule, NULL, 0), RL_OK);
		for (int k = 0; k < 2; k++) {
			tr->st[a][k] = calloc(1, all[a]->state_size);
			assert_non_null(tr->st[a][k]);
		}
	}
	assert_int_equal(rl_breaker_init(&tr->br, 3, 50000, 100000, NULL, 0), RL_OK);
}

static void trace_free(struct trace *tr)
{
	size_t count;
	rl_algo_all(&count);
	for (size_t a = 0; a < count; a++)
		for (int k = 0; k < 2; k++) {
			rl_limiter_release(&tr->lim[a], tr->st[a][k]);
			free(tr->st[a][k]);
		}
	rl_breaker_destroy(&tr->br);
}

/* n more requests of the trace at port, each compared with the in-process answer. */
static void trace_run(struct trace *tr, int port, int n, const char *phase)
{
	size_t count;
	rl_algo_all(&count);
	struct rl_redis *r = connect_to(port, 1000000000);
	struct rl_redis_breaker rb = { 3, 50000, 100000, false, 0 };

	for (int i = 0; i < n; i++) {
		size_t a = (size_t)below(&tr->s, (int64_t)count + 1);
		int k = (int)below(&tr->s, 2);
		tr->t += below(&tr->s, 600000);
		if (a == count) {
			enum rl_breaker_state want, got;
			int wrc = rl_breaker_handle(&tr->br, tr->t, &want);
			int grc = rl_redis_breaker_call(r, &rb, "brk", 3, tr->t, true, &got);
			if (wrc != grc || want != got)
				fail_msg("%s: breaker request %d t=%" PRId64 ": redis %d/%d, in process %d/%d (%s)", phase, i,
					 tr->t, grc, got, wrc, want, rl_redis_error(r));
			continue;
		}
		struct rl_redis_rule rr = { &tr->lim[a], false, 0 };
		char key[32];
		snprintf(key, sizeof(key), "%s%d", tr->lim[a].algo->name, k);
		struct rl_decision want = { 0 }, got = { 0 };
		int64_t cost = 1 + below(&tr->s, 3);
		int wrc = rl_limiter_check_n(&tr->lim[a], tr->st[a][k], tr->t, cost, &want);
		int grc = rl_redis_check_n(r, &rr, key, strlen(key), tr->t, cost, &got);
		if (wrc != grc || memcmp(&want, &got, sizeof(want)) != 0)
			fail_msg("%s: %s request %d t=%" PRId64 ": redis rc=%d remaining=%" PRId64 " reset=%" PRId64
				 ", in process rc=%d remaining=%" PRId64 " reset=%" PRId64 " (%s)",
				 phase, key, i, tr->t, grc, got.remaining, got.reset_ns, wrc, want.remaining, want.reset_ns,
				 rl_redis_error(r));
	}
	expect_mode(r);
	rl_redis_destroy(r);
}

static bool info_has(int port, const char *section, const char *want)
{
	redisReply *rep = cmd(port, "INFO %s", section);
	bool ok = rep->type == REDIS_REPLY_STRING && strstr(rep->str, want);
	freeReplyObject(rep);
	return ok;
}

/* After a trace on the master, the replica holds the same bytes and expiries. */
static void test_replica_same_bytes(void **state)
{
	(void)state;
	struct rh h;
	char master[16];
	struct snap a, b;
	struct trace tr;

	assert_true(rh_init(&h));
	h.extra[0] = "--repl-diskless-sync-delay";
	h.extra[1] = "0";
	assert_true(rh_start_node(&h, false));
	snprintf(master, sizeof(master), "%d", h.nodes[0].port);
	h.extra[2] = "--replicaof";
	h.extra[3] = "127.0.0.1";
	h.extra[4] = master;
	assert_true(rh_start_node(&h, false));
	int mport = h.nodes[0].port, rport = h.nodes[1].port;
	double deadline = rh_now_s() + 20;
	while (!info_has(rport, "replication", "master_link_status:up") && rh_now_s() < deadline)
		rh_sleep_ms(20);
	assert_true(info_has(rport, "replication", "master_link_status:up"));

	trace_init(&tr, g_seed ^ 0x4e91ull);
	trace_run(&tr, mport, 400, "replicated");
	/* the server's clock too: the replica gets the resolved time */
	redisReply *rep = cmd(mport, "RATELAB.CHECK {clock} fixed_window 5 60000000000 5 1 *");
	assert_int_equal(rep->type, REDIS_REPLY_ARRAY);
	freeReplyObject(rep);
	/* WAIT counts replicas that acknowledged this connection's last write,
	 * and the stream is in order: one write here and the trace is there */
	redisContext *c = rh_connect(mport);
	assert_non_null(c);
	freeReplyObject(redisCommand(c, "SET {sync} 1"));
	rep = redisCommand(c, "WAIT 1 5000");
	assert_int_equal(rep->integer, 1);
	freeReplyObject(rep);
	redisFree(c);

	rep = cmd(mport, "KEYS *");
	assert_int_equal(rep->type, REDIS_REPLY_ARRAY);
	assert_true(rep->elements >= 10);
	for (size_t i = 0; i < rep->elements; i++) {
		if (strcmp(rep->element[i]->str, "{sync}") == 0)
			continue;
		snapshot(mport, rep->element[i]->str, &a);
		snapshot(rport, rep->element[i]->str, &b);
		if (!same(&a, &b) || a.len < 4 || a.at <= 0)
			fail_msg("key %s: master %zu bytes expiring at %lld, replica %zu bytes at %lld (%s)",
				 rep->element[i]->str, a.len, a.at, b.len, b.at,
				 a.len != b.len ? "lengths differ" : a.at != b.at ? "expiries differ" : "the bytes differ");
	}
	freeReplyObject(rep);
	assert_int_equal(cmd_int(mport, "DBSIZE%s", ""), cmd_int(rport, "DBSIZE%s", ""));
	trace_free(&tr);
	rh_stop(&h);
}

/* A trace, BGREWRITEAOF, more of it, a kill and a restart from the AOF, the rest: as in process. */
static void test_aof_rewrite_restart(void **state)
{
	(void)state;
	struct rh h;
	struct trace tr;

	assert_true(rh_init(&h));
	h.extra[0] = "--appendonly";
	h.extra[1] = "yes";
	h.extra[2] = "--appendfsync";
	h.extra[3] = "always";
	assert_true(rh_start_node(&h, false));
	int port = h.nodes[0].port;
	trace_init(&tr, g_seed ^ 0xa0full);
	trace_run(&tr, port, 300, "before the rewrite");
	redisReply *rep = cmd(port, "BGREWRITEAOF%s", "");
	assert_int_not_equal(rep->type, REDIS_REPLY_ERROR);
	freeReplyObject(rep);
	double deadline = rh_now_s() + 20;
	while (rh_now_s() < deadline && !(info_has(port, "persistence", "aof_rewrite_in_progress:0") &&
					  info_has(port, "persistence", "aof_rewrite_scheduled:0") &&
					  info_has(port, "persistence", "aof_last_bgrewrite_status:ok")))
		rh_sleep_ms(20);
	assert_true(info_has(port, "persistence", "aof_rewrite_in_progress:0"));
	trace_run(&tr, port, 200, "after the rewrite");
	long long keys = cmd_int(port, "DBSIZE%s", "");
	rh_kill(&h, 0);
	assert_true(rh_restart(&h, 0));
	deadline = rh_now_s() + 20;
	while (rh_now_s() < deadline && !info_has(port, "persistence", "\nloading:0\r"))
		rh_sleep_ms(10); /* LOADING: the AOF is being read */
	assert_int_equal(cmd_int(port, "DBSIZE%s", ""), keys);
	trace_run(&tr, port, 300, "after the restart");
	trace_free(&tr);
	rh_stop(&h);
}

int main(void)
{
	const char *env = getenv("RL_SEED");
	if (env)
		g_seed = strtoull(env, NULL, 0);
	if (!rh_available(false))
		return 0;
	if (!rh_start_single(&g_srv)) {
		fprintf(stderr, "test_redis_module: could not start redis-server with %s\n", RH_MODULE);
		return 1;
	}
	g_port = g_srv.nodes[0].port;
	printf("test_redis_module: redis-server with ratelab.so on 127.0.0.1:%d, seed 0x%" PRIx64 "\n", g_port,
	       g_seed);

	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conformance),
		cmocka_unit_test(test_breaker_conformance),
		cmocka_unit_test(test_reply_shape),
		cmocka_unit_test(test_ttl),
		cmocka_unit_test(test_foreign_keys),
		cmocka_unit_test(test_stored_ids),
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_module_load_arguments),
		cmocka_unit_test(test_replica_same_bytes),
		cmocka_unit_test(test_aof_rewrite_restart),
	};
	int failed = cmocka_run_group_tests(tests, NULL, NULL);
	rh_stop(&g_srv);
	return failed;
}
