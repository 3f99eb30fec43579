/*
 * redis_local_global.c - model: an rl_lg_node (local_global.h) is a
 * chained hash table of keys, each with its rl_lg_state, and one hiredis
 * connection to the store. A sync pipelines HSET (this node's units in
 * the window) + PEXPIRE + HVALS (every node's, summed into G) for every
 * key whose window is current and drops the others' states.
 *
 * Invariants: keys (the counter) equals the entries in the table and
 * never exceeds max_keys; ctx is NULL or a connection with no unread
 * replies between calls (one that errs or times out is freed at once);
 * each sync's take is matched by exactly one apply or failed per key, so
 * no admitted unit is pushed twice or lost while its window lasts.
 */
#include "ratelab/local_global.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include <hiredis/hiredis.h>

enum { DEFAULT_TIMEOUT_MS = 200, NUM_MAX = 24 };

struct entry {
	struct entry *next;
	uint64_t hash;
	struct rl_lg_state st;
	size_t len;
	char key[]; /* len bytes, not NUL-terminated */
};

struct rl_lg_node {
	struct rl_lg lg;
	struct rl_lg_node_opts opts;
	char *host, *prefix;
	char field[24]; /* the node's index, decimal: its field in each window's hash */
	redisContext *ctx;
	bool opened;
	int64_t next_sync_ns; /* the first check syncs */
	bool synced_once;
	struct entry **table;
	size_t nbuckets; /* a power of two >= max_keys */
	struct rl_lg_node_stats stats;
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

int rl_lg_node_create(const struct rl_lg *lg, const struct rl_lg_node_opts *opts,
		      struct rl_lg_node **out)
{
	*out = NULL;
	if (!lg || !opts || !opts->host || opts->port <= 0 || opts->port > 65535 ||
	    opts->connect_timeout_ms < 0 || opts->command_timeout_ms < 0 ||
	    opts->sync_interval_ns < 1 || opts->max_keys < 1 || opts->max_keys > (SIZE_MAX >> 4))
		return RL_EINVAL;

	struct rl_lg_node *n = calloc(1, sizeof(*n));
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
	n->host = dup_str(opts->host);
	n->prefix = dup_str(opts->prefix ? opts->prefix : "rl:lg:");
	snprintf(n->field, sizeof(n->field), "%lld", (long long)lg->index);
	n->table = calloc(n->nbuckets, sizeof(*n->table));
	if (!n->host || !n->prefix || !n->table) {
		rl_lg_node_destroy(n);
		return RL_ENOMEM;
	}
	n->opts.host = n->host;
	n->opts.prefix = n->prefix;
	*out = n;
	return RL_OK;
}

void rl_lg_node_destroy(struct rl_lg_node *n)
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
	free(n->table);
	free(n->host);
	free(n->prefix);
	free(n);
}

static struct timeval ms_tv(int ms)
{
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };
	return tv;
}

static redisContext *conn(struct rl_lg_node *n)
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

static void drop_conn(struct rl_lg_node *n)
{
	if (n->ctx) {
		redisFree(n->ctx);
		n->ctx = NULL;
	}
}

/* One key's sync in flight. */
struct taken {
	struct entry *e;
	int64_t window, mine;
};

/* Drops the states of ended windows; collects the others' pending units. */
static size_t take_all(struct rl_lg_node *n, int64_t now, struct taken *t)
{
	size_t m = 0;

	for (size_t b = 0; b < n->nbuckets; b++)
		for (struct entry **pe = &n->table[b]; *pe;) {
			struct entry *e = *pe;

			if (rl_lg_sync_take(&n->lg, &e->st, now, &t[m].window, &t[m].mine)) {
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

static int append(redisContext *c, struct rl_lg_node *n, const struct taken *t, int64_t ttl_ms)
{
	char wbuf[NUM_MAX], ubuf[NUM_MAX], tbuf[NUM_MAX];
	size_t plen = strlen(n->prefix);
	int wl = snprintf(wbuf, sizeof(wbuf), "%lld", (long long)t->window);
	int ul = snprintf(ubuf, sizeof(ubuf), "%lld", (long long)t->mine);
	int tl = snprintf(tbuf, sizeof(tbuf), "%lld", (long long)ttl_ms);
	size_t klen = plen + t->e->len + 3 + (size_t)wl;
	char *key = malloc(klen);

	if (!key)
		return RL_ENOMEM;
	/* <prefix>{<key>}:<window> */
	memcpy(key, n->prefix, plen);
	key[plen] = '{';
	memcpy(key + plen + 1, t->e->key, t->e->len);
	memcpy(key + plen + 1 + t->e->len, "}:", 2);
	memcpy(key + plen + 3 + t->e->len, wbuf, (size_t)wl);

	const char *hset[4] = { "HSET", key, n->field, ubuf };
	size_t hset_len[4] = { 4, klen, strlen(n->field), (size_t)ul };
	const char *exp[3] = { "PEXPIRE", key, tbuf };
	size_t exp_len[3] = { 7, klen, (size_t)tl };
	const char *vals[2] = { "HVALS", key };
	size_t vals_len[2] = { 5, klen };
	int s = redisAppendCommandArgv(c, 4, hset, hset_len) == REDIS_OK &&
			redisAppendCommandArgv(c, 3, exp, exp_len) == REDIS_OK &&
			redisAppendCommandArgv(c, 2, vals, vals_len) == REDIS_OK
		? RL_OK
		: RL_ENOMEM;
	free(key);
	return s;
}

int rl_lg_node_sync(struct rl_lg_node *n, int64_t now_ns, bool *failed)
{
	if (failed)
		*failed = false;
	if (now_ns < 0 || now_ns > RL_TIME_MAX_NS)
		return RL_EINVAL;
	n->stats.syncs++;
	n->synced_once = true;
	n->next_sync_ns = now_ns > RL_TIME_MAX_NS - n->opts.sync_interval_ns
				  ? RL_TIME_MAX_NS
				  : now_ns + n->opts.sync_interval_ns;

	struct taken *t = malloc((n->stats.keys ? n->stats.keys : 1) * sizeof(*t));
	if (!t)
		return RL_ENOMEM;
	size_t m = take_all(n, now_ns, t), got = 0;
	/* Two windows: an ended window's key lingers at most one more W. */
	int64_t ttl_ms = n->lg.window_ns / 500000 + 1;
	redisContext *c = m ? conn(n) : NULL;
	bool ok = m == 0 || c != NULL, key_failed = false;

	for (size_t i = 0; ok && i < m; i++)
		if (append(c, n, &t[i], ttl_ms) != RL_OK)
			ok = false;
	if (m && ok)
		n->stats.round_trips++;
	for (; ok && got < m; got++) {
		redisReply *r[3] = { NULL, NULL, NULL };

		for (int i = 0; i < 3 && ok; i++)
			if (redisGetReply(c, (void **)&r[i]) != REDIS_OK)
				ok = false;
		int64_t total;
		if (ok && sum_vals(r[2], &total))
			rl_lg_sync_apply(&n->lg, &t[got].e->st, t[got].window, t[got].mine, total);
		else if (ok) {
			rl_lg_sync_failed(&t[got].e->st, t[got].window, t[got].mine);
			key_failed = true;
		}
		for (int i = 0; i < 3; i++)
			if (r[i])
				freeReplyObject(r[i]);
		if (!ok)
			break;
	}
	if (!ok) {
		drop_conn(n); /* its reply stream is out of step */
		for (size_t i = got; i < m; i++)
			rl_lg_sync_failed(&t[i].e->st, t[i].window, t[i].mine);
	}
	if (!ok || key_failed) {
		n->stats.sync_failures++;
		if (failed)
			*failed = true;
	}
	free(t);
	return RL_OK;
}

static struct entry *find_or_add(struct rl_lg_node *n, const char *key, size_t len, int *status)
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

int rl_lg_node_check(struct rl_lg_node *n, const char *key, size_t key_len, int64_t now_ns,
		     int64_t cost, struct rl_decision *out)
{
	int status = RL_OK;

	if (now_ns < 0 || now_ns > RL_TIME_MAX_NS)
		return RL_ERANGE;
	if (!n->synced_once || now_ns >= n->next_sync_ns) {
		status = rl_lg_node_sync(n, now_ns, NULL);
		if (status != RL_OK)
			return status;
	}
	struct entry *e = find_or_add(n, key, key_len, &status);
	if (!e)
		return status;
	status = rl_lg_check(&n->lg, &e->st, now_ns, cost, out);
	if (status >= 0)
		n->stats.checks++;
	return status;
}

void rl_lg_node_get_stats(const struct rl_lg_node *n, struct rl_lg_node_stats *out)
{
	*out = n->stats;
}
