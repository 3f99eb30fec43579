/*
 * fleet_node.c - model: an rl_fleet_node (fleet_node.h) is a
 * chained hash table of keys, each with its rl_fleet_state, and one hiredis
 * connection to the store (or a Redis Cluster router, redis_cluster.h). A sync pipelines HSET (this node's units in
 * the window) + PEXPIRE + HVALS (every node's, summed into G) for every
 * key whose window is current and drops the others' states.
 *
 * Invariants: keys (the counter) equals the entries in the table and
 * never exceeds max_keys; ctx is NULL or a connection with no unread
 * replies between calls (one that errs or times out is freed at once; the
 * router keeps the same rule per node);
 * each sync's take is matched by exactly one apply or failed per key, so
 * no admitted unit is pushed twice or lost while its window lasts.
 */
#include "ratelab/fleet.h"
#include "ratelab/fleet_node.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include <hiredis/hiredis.h>

#include "arith.h"
#include "redis_cluster.h"

enum { DEFAULT_TIMEOUT_MS = 200, NUM_MAX = 24 };

struct entry {
	struct entry *next;
	uint64_t hash;
	struct rl_fleet_state st;
	size_t len;
	char key[]; /* len bytes, not NUL-terminated */
};

struct rl_fleet_node {
	struct rl_fleet lg;
	struct rl_fleet_node_opts opts;
	char *host, *prefix, *seeds;
	char field[24]; /* the node's index, decimal: its field in each window's hash */
	redisContext *ctx;       /* one server (opts.cluster NULL) */
	struct rl__rcluster *cluster; /* or a cluster's router, made at the first sync */
	bool opened, cluster_opened;
	int64_t next_sync_ns; /* the first check syncs */
	bool synced_once;
	struct entry **table;
	size_t nbuckets; /* a power of two >= max_keys */
	struct rl_fleet_node_stats stats;
};

/* FNV-1a: keys come from the caller's own traffic; a node's table is
 * private, so adversarial collisions only slow that node. */
static uint64_t hash_key(const char *key, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)key[i]) * 0x100000001b3ULL;
	return h;
}

static char *dup_str(const char *s)
{
	size_t len = strlen(s) + 1;
	char *d = malloc(len);

	if (d)
		memcpy(d, s, len);
	return d;
}

int rl_fleet_node_create(const struct rl_fleet *lg, const struct rl_fleet_node_opts *opts,
		      struct rl_fleet_node **out)
{
	*out = NULL;
	if (!lg || !opts || (!opts->cluster && (!opts->host || opts->port <= 0 || opts->port > 65535)) ||
	    opts->connect_timeout_ms < 0 || opts->command_timeout_ms < 0 ||
	    opts->sync_interval_ns < 1 || opts->max_keys < 1 || opts->max_keys > (SIZE_MAX >> 4))
		return RL_EINVAL;

	struct rl_fleet_node *n = calloc(1, sizeof(*n));
	if (!n)
		return RL_ENOMEM;
	n->lg = *lg;
	n->opts = *opts;
	if (n->opts.connect_timeout_ms == 0)
		n->opts.connect_timeout_ms = DEFAULT_TIMEOUT_MS;
	if (n->opts.command_timeout_ms == 0)
		n->opts.command_timeout_ms = DEFAULT_TIMEOUT_MS;
	n->nbuckets = 1;
	while (n->nbuckets < opts->max_keys)
		n->nbuckets <<= 1;
	n->host = dup_str(opts->host ? opts->host : "");
	n->seeds = opts->cluster ? dup_str(opts->cluster) : NULL;
	n->prefix = dup_str(opts->prefix ? opts->prefix : "rl:lg:");
	snprintf(n->field, sizeof(n->field), "%lld", (long long)lg->index);
	n->table = calloc(n->nbuckets, sizeof(*n->table));
	if (!n->host || !n->prefix || !n->table || (opts->cluster && !n->seeds)) {
		rl_fleet_node_destroy(n);
		return RL_ENOMEM;
	}
	n->opts.host = n->host;
	n->opts.prefix = n->prefix;
	n->opts.cluster = n->seeds;
	*out = n;
	return RL_OK;
}

void rl_fleet_node_destroy(struct rl_fleet_node *n)
{
	if (!n)
		return;
	for (size_t b = 0; n->table && b < n->nbuckets; b++)
		for (struct entry *e = n->table[b], *next; e; e = next) {
			next = e->next;
			free(e);
		}
	if (n->ctx)
		redisFree(n->ctx);
	rl__rcluster_destroy(n->cluster);
	free(n->table);
	free(n->seeds);
	free(n->host);
	free(n->prefix);
	free(n);
}

static struct timeval ms_tv(int ms)
{
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };
	return tv;
}

static redisContext *conn(struct rl_fleet_node *n)
{
	if (n->ctx)
		return n->ctx;
	redisContext *c = redisConnectWithTimeout(n->host, n->opts.port, ms_tv(n->opts.connect_timeout_ms));
	if (!c)
		return NULL;
	if (c->err || redisSetTimeout(c, ms_tv(n->opts.command_timeout_ms)) != REDIS_OK) {
		redisFree(c);
		return NULL;
	}
	if (n->opened)
		n->stats.reconnects++;
	n->opened = true;
	n->ctx = c;
	return c;
}

static void drop_conn(struct rl_fleet_node *n)
{
	if (n->ctx) {
		redisFree(n->ctx);
		n->ctx = NULL;
	}
}

/* One key's sync in flight: its three commands, HSET, PEXPIRE, HVALS. */
struct taken {
	struct entry *e;
	int64_t window, mine;
	char *key; /* <prefix>{<key>}:<window>, klen bytes, owned */
	size_t klen;
	char units[NUM_MAX], ttl[NUM_MAX];
	const char *argv[3][4];
	size_t len[3][4];
};

enum { CMDS = 3 };
static const int cmd_argc[CMDS] = { 4, 3, 2 };

/* Drops the states of ended windows; collects the others' pending units. */
static size_t take_all(struct rl_fleet_node *n, int64_t now, struct taken *t)
{
	size_t m = 0;

	for (size_t b = 0; b < n->nbuckets; b++)
		for (struct entry **pe = &n->table[b]; *pe;) {
			struct entry *e = *pe;

			if (rl_fleet_sync_take(&n->lg, &e->st, now, &t[m].window, &t[m].mine)) {
				t[m].key = NULL;
				t[m++].e = e;
				pe = &e->next;
			} else {
				*pe = e->next;
				free(e);
				n->stats.keys--;
			}
		}
	return m;
}

/* G from an HVALS reply: every value a non-negative whole number of
 * units, the sum within int64_t; anything else is a failed sync. */
static bool sum_vals(const redisReply *r, int64_t *total)
{
	int64_t sum = 0;

	if (!r || r->type != REDIS_REPLY_ARRAY)
		return false; /* e.g. WRONGTYPE */
	for (size_t i = 0; i < r->elements; i++) {
		const redisReply *v = r->element[i];
		char *end;

		if (v->type != REDIS_REPLY_STRING || v->len == 0 || v->len > 19)
			return false;
		long long x = strtoll(v->str, &end, 10);
		if (end != v->str + v->len || x < 0 || sum > INT64_MAX - x)
			return false;
		sum += x;
	}
	*total = sum;
	return true;
}

/* Fills t's key and its three commands' arguments. */
static int build(struct rl_fleet_node *n, struct taken *t, int64_t ttl_ms)
{
	char wbuf[NUM_MAX];
	size_t plen = strlen(n->prefix);
	int wl = snprintf(wbuf, sizeof(wbuf), "%lld", (long long)t->window);
	int ul = snprintf(t->units, sizeof(t->units), "%lld", (long long)t->mine);
	int tl = snprintf(t->ttl, sizeof(t->ttl), "%lld", (long long)ttl_ms);

	t->klen = plen + t->e->len + 3 + (size_t)wl;
	t->key = malloc(t->klen);
	if (!t->key)
		return RL_ENOMEM;
	memcpy(t->key, n->prefix, plen);
	t->key[plen] = '{';
	memcpy(t->key + plen + 1, t->e->key, t->e->len);
	memcpy(t->key + plen + 1 + t->e->len, "}:", 2);
	memcpy(t->key + plen + 3 + t->e->len, wbuf, (size_t)wl);

	const char *hset[4] = { "HSET", t->key, n->field, t->units };
	size_t hset_len[4] = { 4, t->klen, strlen(n->field), (size_t)ul };
	const char *exp[3] = { "PEXPIRE", t->key, t->ttl };
	size_t exp_len[3] = { 7, t->klen, (size_t)tl };
	const char *vals[2] = { "HVALS", t->key };
	size_t vals_len[2] = { 5, t->klen };

	memcpy(t->argv[0], hset, sizeof(hset));
	memcpy(t->len[0], hset_len, sizeof(hset_len));
	memcpy(t->argv[1], exp, sizeof(exp));
	memcpy(t->len[1], exp_len, sizeof(exp_len));
	memcpy(t->argv[2], vals, sizeof(vals));
	memcpy(t->len[2], vals_len, sizeof(vals_len));
	return RL_OK;
}

/* Over the one connection: every command pipelined, then every reply
 * read into r[0 .. CMDS m). False when the connection failed (the rest
 * of r stays NULL; the connection is dropped, its stream out of step). */
static bool exchange_single(struct rl_fleet_node *n, struct taken *t, size_t m, redisReply **r)
{
	redisContext *c = conn(n);

	if (!c)
		return false;
	for (size_t i = 0; i < m; i++)
		for (int j = 0; j < CMDS; j++)
			if (redisAppendCommandArgv(c, cmd_argc[j], t[i].argv[j], t[i].len[j]) != REDIS_OK) {
				drop_conn(n);
				return false;
			}
	n->stats.round_trips++;
	for (size_t i = 0; i < CMDS * m; i++)
		if (redisGetReply(c, (void **)&r[i]) != REDIS_OK) {
			r[i] = NULL;
			drop_conn(n);
			return false;
		}
	return true;
}

/* Through the cluster router: one pipelined batch per master. */
static bool exchange_cluster(struct rl_fleet_node *n, struct taken *t, size_t m, redisReply **r)
{
	if (!n->cluster) {
		struct rl__rcluster_opts o = { n->opts.connect_timeout_ms, n->opts.command_timeout_ms, -1 };
		if (rl__rcluster_create(n->opts.cluster, &o, &n->cluster, NULL, 0) != RL_OK)
			return false;
		if (n->cluster_opened)
			n->stats.reconnects++;
		n->cluster_opened = true;
	}
	struct rl__rcluster_req *reqs = malloc(CMDS * m * sizeof(*reqs));
	if (!reqs)
		return false;
	for (size_t i = 0; i < m; i++)
		for (int j = 0; j < CMDS; j++)
			reqs[CMDS * i + (size_t)j] = (struct rl__rcluster_req){ t[i].key, t[i].klen, cmd_argc[j],
									     t[i].argv[j], t[i].len[j] };
	struct rl__rcluster_stats before, after;
	rl__rcluster_get_stats(n->cluster, &before);
	int s = rl__rcluster_batch(n->cluster, CMDS * m, reqs, r);
	rl__rcluster_get_stats(n->cluster, &after);
	n->stats.round_trips++;
	n->stats.reconnects += after.reconnects - before.reconnects;
	free(reqs);
	return s == RL_OK;
}

int rl_fleet_node_sync(struct rl_fleet_node *n, int64_t now_ns, bool *failed)
{
	if (failed)
		*failed = false;
	if (!rl__time_ok(now_ns))
		return RL_EINVAL;
	n->stats.syncs++;
	n->synced_once = true;
	n->next_sync_ns = now_ns > RL_TIME_MAX_NS - n->opts.sync_interval_ns
				  ? RL_TIME_MAX_NS
				  : now_ns + n->opts.sync_interval_ns;

	size_t cap = n->stats.keys ? (size_t)n->stats.keys : 1;
	struct taken *t = malloc(cap * sizeof(*t));
	redisReply **r = calloc(CMDS * cap, sizeof(*r));
	if (!t || !r) {
		free(t);
		free(r);
		return RL_ENOMEM;
	}
	size_t m = take_all(n, now_ns, t);
	/* Two windows: an ended window's key lingers at most one more W. */
	int64_t ttl_ms = n->lg.window_ns / 500000 + 1;
	bool ok = true, any_failed = false;

	for (size_t i = 0; i < m && ok; i++)
		ok = build(n, &t[i], ttl_ms) == RL_OK;
	if (m && ok)
		ok = n->opts.cluster ? exchange_cluster(n, t, m, r) : exchange_single(n, t, m, r);
	for (size_t i = 0; i < m; i++) {
		redisReply **ri = &r[CMDS * i];
		int64_t total;

		/* Each key stands alone: its HSET and HVALS answered, or it failed. */
		if (ri[0] && ri[0]->type == REDIS_REPLY_INTEGER && sum_vals(ri[2], &total)) {
			rl_fleet_sync_apply(&n->lg, &t[i].e->st, t[i].window, t[i].mine, total);
		} else {
			rl_fleet_sync_failed(&t[i].e->st, t[i].window, t[i].mine);
			any_failed = true;
		}
		for (int j = 0; j < CMDS; j++)
			if (ri[j])
				freeReplyObject(ri[j]);
		free(t[i].key);
	}
	if (any_failed) {
		n->stats.sync_failures++;
		if (failed)
			*failed = true;
	}
	free(r);
	free(t);
	return RL_OK;
}

static struct entry *find_or_add(struct rl_fleet_node *n, const char *key, size_t len, int *status)
{
	uint64_t h = hash_key(key, len);
	struct entry **head = &n->table[h & (n->nbuckets - 1)];

	for (struct entry *e = *head; e; e = e->next)
		if (e->hash == h && e->len == len && memcmp(e->key, key, len) == 0)
			return e;
	if (n->stats.keys >= n->opts.max_keys) {
		*status = RL_EFULL;
		return NULL;
	}
	struct entry *e = calloc(1, sizeof(*e) + len);
	if (!e) {
		*status = RL_ENOMEM;
		return NULL;
	}
	e->hash = h;
	e->len = len;
	memcpy(e->key, key, len);
	e->next = *head;
	*head = e;
	n->stats.keys++;
	return e;
}

int rl_fleet_node_check(struct rl_fleet_node *n, const char *key, size_t key_len, int64_t now_ns,
		     int64_t cost, struct rl_decision *out)
{
	int status = RL_OK;

	if (!rl__time_ok(now_ns))
		return RL_ERANGE;
	if (!n->synced_once || now_ns >= n->next_sync_ns) {
		status = rl_fleet_node_sync(n, now_ns, NULL);
		if (status != RL_OK)
			return status;
	}
	struct entry *e = find_or_add(n, key, key_len, &status);
	if (!e)
		return status;
	status = rl_fleet_check(&n->lg, &e->st, now_ns, cost, out);
	if (status >= 0)
		n->stats.checks++;
	return status;
}

void rl_fleet_node_get_stats(const struct rl_fleet_node *n, struct rl_fleet_node_stats *out)
{
	*out = n->stats;
}
