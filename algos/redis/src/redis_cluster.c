/*
 * redis_cluster.c - model: a slot -> node map (redis_cluster.h) over a
 * table of nodes, each with at most one lazily opened hiredis connection.
 *
 * Invariants: every slot_node entry is -1 or the index of a node in
 * nodes[0..nnodes); nodes are only appended, never removed, so an index
 * stays valid for c's lifetime; a node's ctx is NULL or a connection with
 * no error and no unread replies between calls (a failed or timed-out
 * connection is freed at once, as its reply stream is out of step).
 */
#include "redis_cluster.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "ratelab/status.h"
#include "redis_resp.h"

enum {
	HOST_MAX = 256,
	DEFAULT_TIMEOUT_MS = 1000,
	DEFAULT_REDIRECTS = 5,
};

struct node {
	char host[HOST_MAX];
	int port;
	char addr[HOST_MAX + 8]; /* "host:port" */
	redisContext *ctx;       /* NULL: not connected */
	bool opened;             /* a connection was opened before */
};

struct rl__rcluster {
	struct rl__rcluster_opts opts;
	struct node *nodes;
	int nnodes, cap;
	int16_t slot_node[RL_REDIS_SLOTS]; /* node index or -1 */
	struct rl__rcluster_stats stats;
};

/* The CRC16 of Redis's crc16.c: XMODEM, polynomial 0x1021, initial 0, no
 * reflection, computed bitwise (a slot is hashed once per command). */
uint16_t rl__redis_crc16(const char *buf, size_t len)
{
	uint16_t crc = 0;

	for (size_t i = 0; i < len; i++) {
		crc ^= (uint16_t)((unsigned char)buf[i] << 8);
		for (int b = 0; b < 8; b++)
			crc = (crc & 0x8000) ? (uint16_t)((crc << 1) ^ 0x1021) : (uint16_t)(crc << 1);
	}
	return crc;
}

uint16_t rl__redis_key_slot(const char *key, size_t len)
{
	const char *open = memchr(key, '{', len);

	if (open) {
		size_t from = (size_t)(open - key) + 1;
		const char *close = memchr(key + from, '}', len - from);

		if (close && close > key + from)
			return rl__redis_crc16(key + from, (size_t)(close - (key + from))) & (RL_REDIS_SLOTS - 1);
	}
	return rl__redis_crc16(key, len) & (RL_REDIS_SLOTS - 1);
}

static void set_err(char *err, size_t err_len, const char *fmt, ...)
{
	va_list ap;

	if (!err || !err_len)
		return;
	va_start(ap, fmt);
	vsnprintf(err, err_len, fmt, ap);
	va_end(ap);
}

static struct timeval ms_tv(int ms)
{
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };
	return tv;
}

/* The index of host:port, appended when new; -1 on ENOMEM or bad input. */
static int node_index(struct rl__rcluster *c, const char *host, size_t host_len, int port)
{
	if (host_len == 0 || host_len >= HOST_MAX || port <= 0 || port > 65535)
		return -1;
	for (int i = 0; i < c->nnodes; i++)
		if (c->nodes[i].port == port && strlen(c->nodes[i].host) == host_len &&
		    memcmp(c->nodes[i].host, host, host_len) == 0)
			return i;
	if (c->nnodes == INT16_MAX)
		return -1;
	if (c->nnodes == c->cap) {
		int cap = c->cap ? 2 * c->cap : 8;
		struct node *n = realloc(c->nodes, (size_t)cap * sizeof(*n));

		if (!n)
			return -1;
		c->nodes = n;
		c->cap = cap;
	}
	struct node *nd = &c->nodes[c->nnodes];
	memset(nd, 0, sizeof(*nd));
	memcpy(nd->host, host, host_len);
	nd->port = port;
	snprintf(nd->addr, sizeof(nd->addr), "%s:%d", nd->host, port);
	return c->nnodes++;
}

static void node_drop(struct node *nd)
{
	if (nd->ctx) {
		redisFree(nd->ctx);
		nd->ctx = NULL;
	}
}

/* The node's open connection, opened now if needed; NULL if unreachable. */
static redisContext *node_conn(struct rl__rcluster *c, int idx)
{
	struct node *nd = &c->nodes[idx];

	if (nd->ctx)
		return nd->ctx;
	redisContext *ctx = redisConnectWithTimeout(nd->host, nd->port, ms_tv(c->opts.connect_timeout_ms));
	if (!ctx)
		return NULL;
	if (ctx->err || redisSetTimeout(ctx, ms_tv(c->opts.command_timeout_ms)) != REDIS_OK) {
		redisFree(ctx);
		return NULL;
	}
	c->stats.connects++;
	if (nd->opened)
		c->stats.reconnects++;
	nd->opened = true;
	nd->ctx = ctx;
	return ctx;
}

/* Reads a CLUSTER SLOTS reply into map; the endpoint "" or "?" is the
 * queried node's host (a node announcing no address). */
static int parse_slots(struct rl__rcluster *c, const redisReply *r, const char *self_host,
		       int16_t *map)
{
	if (r->type != REDIS_REPLY_ARRAY)
		return RL_RC_EPROTO;
	for (size_t i = 0; i < r->elements; i++) {
		const redisReply *e = r->element[i];

		if (e->type != REDIS_REPLY_ARRAY || e->elements < 3 ||
		    e->element[0]->type != REDIS_REPLY_INTEGER ||
		    e->element[1]->type != REDIS_REPLY_INTEGER ||
		    e->element[2]->type != REDIS_REPLY_ARRAY || e->element[2]->elements < 2)
			return RL_RC_EPROTO;
		long long lo = e->element[0]->integer, hi = e->element[1]->integer;
		const redisReply *h = e->element[2]->element[0], *p = e->element[2]->element[1];

		if (lo < 0 || hi >= RL_REDIS_SLOTS || lo > hi || h->type != REDIS_REPLY_STRING ||
		    p->type != REDIS_REPLY_INTEGER)
			return RL_RC_EPROTO;
		const char *host = h->str;
		size_t host_len = h->len;

		if (host_len == 0 || (host_len == 1 && host[0] == '?')) {
			host = self_host;
			host_len = strlen(self_host);
		}
		int idx = node_index(c, host, host_len, (int)p->integer);
		if (idx < 0)
			return RL_RC_EPROTO;
		for (long long s = lo; s <= hi; s++)
			map[s] = (int16_t)idx;
	}
	return RL_OK;
}

int rl__rcluster_refresh(struct rl__rcluster *c)
{
	int16_t map[RL_REDIS_SLOTS];
	int status = RL_RC_EIO;

	/* nodes may grow while parsing: walk by index, read nnodes each turn. */
	for (int i = 0; i < c->nnodes; i++) {
		redisContext *ctx = node_conn(c, i);
		if (!ctx)
			continue;
		redisReply *r = redisCommand(ctx, "CLUSTER SLOTS");
		if (!r) {
			node_drop(&c->nodes[i]);
			continue;
		}
		for (int s = 0; s < RL_REDIS_SLOTS; s++)
			map[s] = -1;
		char self_host[HOST_MAX];
		memcpy(self_host, c->nodes[i].host, sizeof(self_host));
		status = r->type == REDIS_REPLY_ERROR ? RL_RC_EPROTO : parse_slots(c, r, self_host, map);
		freeReplyObject(r);
		if (status == RL_OK) {
			memcpy(c->slot_node, map, sizeof(map));
			c->stats.refreshes++;
			return RL_OK;
		}
	}
	return status;
}

static int parse_seeds(struct rl__rcluster *c, const char *seeds)
{
	const char *p = seeds;

	while (*p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		const char *colon = NULL;

		for (size_t i = 0; i < len; i++)
			if (p[i] == ':')
				colon = p + i;
		if (!colon || colon == p)
			return RL_EINVAL;
		char *num_end;
		errno = 0;
		long port = strtol(colon + 1, &num_end, 10);
		if (errno || num_end != p + len || colon + 1 == num_end || port <= 0 || port > 65535)
			return RL_EINVAL;
		if (node_index(c, p, (size_t)(colon - p), (int)port) < 0)
			return RL_EINVAL;
		if (!end)
			return RL_OK;
		p = end + 1;
	}
	return RL_EINVAL;
}

int rl__rcluster_create(const char *seeds, const struct rl__rcluster_opts *opts,
		       struct rl__rcluster **out, char *err, size_t err_len)
{
	struct rl__rcluster_opts o = { 0, 0, -1 };
	int status;

	*out = NULL;
	if (opts)
		o = *opts;
	if (o.connect_timeout_ms < 0 || o.command_timeout_ms < 0 || o.max_redirects < -1) {
		set_err(err, err_len, "redis cluster: negative timeout or redirect bound");
		return RL_EINVAL;
	}
	if (o.connect_timeout_ms == 0)
		o.connect_timeout_ms = DEFAULT_TIMEOUT_MS;
	if (o.command_timeout_ms == 0)
		o.command_timeout_ms = DEFAULT_TIMEOUT_MS;
	if (o.max_redirects == -1)
		o.max_redirects = DEFAULT_REDIRECTS;

	struct rl__rcluster *c = calloc(1, sizeof(*c));
	if (!c) {
		set_err(err, err_len, "redis cluster: out of memory");
		return RL_ENOMEM;
	}
	c->opts = o;
	for (int s = 0; s < RL_REDIS_SLOTS; s++)
		c->slot_node[s] = -1;
	if (!seeds || parse_seeds(c, seeds) != RL_OK) {
		set_err(err, err_len, "redis cluster: bad seed list '%s' (want host:port[,host:port...])",
			seeds ? seeds : "(null)");
		rl__rcluster_destroy(c);
		return RL_EINVAL;
	}
	status = rl__rcluster_refresh(c);
	if (status != RL_OK) {
		set_err(err, err_len, "redis cluster: %s from seeds '%s'",
			status == RL_RC_EIO ? "no node reachable" : "no slot map (CLUSTER SLOTS failed)",
			seeds);
		rl__rcluster_destroy(c);
		return status;
	}
	*out = c;
	return RL_OK;
}

void rl__rcluster_destroy(struct rl__rcluster *c)
{
	if (!c)
		return;
	for (int i = 0; i < c->nnodes; i++)
		node_drop(&c->nodes[i]);
	free(c->nodes);
	free(c);
}

enum redirect { REDIR_NONE, REDIR_MOVED, REDIR_ASK };

/* Classifies an error reply "MOVED|ASK <slot> <host>:<port>" and finds
 * (or adds) its node; REDIR_NONE for every other reply. */
static enum redirect redirect_of(struct rl__rcluster *c, const redisReply *r, int *slot, int *node)
{
	enum redirect kind;
	const char *p;

	if (r->type != REDIS_REPLY_ERROR)
		return REDIR_NONE;
	if (r->len > 6 && memcmp(r->str, "MOVED ", 6) == 0) {
		kind = REDIR_MOVED;
		p = r->str + 6;
	} else if (r->len > 4 && memcmp(r->str, "ASK ", 4) == 0) {
		kind = REDIR_ASK;
		p = r->str + 4;
	} else {
		return REDIR_NONE;
	}
	char *end;
	long s = strtol(p, &end, 10);
	if (end == p || *end != ' ' || s < 0 || s >= RL_REDIS_SLOTS)
		return REDIR_NONE;
	const char *host = end + 1, *colon = strrchr(host, ':');
	if (!colon || colon == host)
		return REDIR_NONE;
	long port = strtol(colon + 1, &end, 10);
	if (end == colon + 1 || *end != '\0')
		return REDIR_NONE;
	int idx = node_index(c, host, (size_t)(colon - host), (int)port);
	if (idx < 0)
		return REDIR_NONE;
	*slot = (int)s;
	*node = idx;
	return kind;
}

/* Sends one command to node idx (after ASKING when asking) and follows
 * redirections; hops counts the ones already followed. */
static int route(struct rl__rcluster *c, int idx, bool asking, int hops, int argc, const char **argv,
		 const size_t *argvlen, redisReply **reply)
{
	*reply = NULL;
	for (;;) {
		redisContext *ctx = node_conn(c, idx);
		redisReply *r = NULL;

		if (!ctx)
			return RL_RC_EIO;
		if ((asking && redisAppendCommand(ctx, "ASKING") != REDIS_OK) ||
		    redisAppendCommandArgv(ctx, argc, argv, argvlen) != REDIS_OK) {
			node_drop(&c->nodes[idx]); /* a half-queued pipeline is out of step */
			return RL_ENOMEM;
		}
		if (asking) {
			if (redisGetReply(ctx, (void **)&r) != REDIS_OK) {
				node_drop(&c->nodes[idx]);
				return RL_RC_EIO;
			}
			freeReplyObject(r);
		}
		if (redisGetReply(ctx, (void **)&r) != REDIS_OK) {
			node_drop(&c->nodes[idx]);
			return RL_RC_EIO;
		}
		int slot, target;
		enum redirect kind = redirect_of(c, r, &slot, &target);
		if (kind == REDIR_NONE) {
			*reply = r;
			return RL_OK;
		}
		freeReplyObject(r);
		if (hops++ >= c->opts.max_redirects)
			return RL_RC_EREDIRECT;
		if (kind == REDIR_MOVED) {
			c->stats.moved++;
			rl__rcluster_refresh(c); /* best effort: the MOVED target wins below */
			c->slot_node[slot] = (int16_t)target;
		} else {
			c->stats.ask++;
		}
		idx = target;
		asking = kind == REDIR_ASK;
	}
}

/* The node owning slot, re-reading the map once when none is known. */
static int slot_owner(struct rl__rcluster *c, uint16_t slot)
{
	if (c->slot_node[slot] < 0)
		rl__rcluster_refresh(c);
	return c->slot_node[slot];
}

int rl__rcluster_command(struct rl__rcluster *c, const char *key, size_t key_len, int argc,
			const char **argv, const size_t *argvlen, redisReply **reply)
{
	int idx = slot_owner(c, rl__redis_key_slot(key, key_len));

	*reply = NULL;
	if (idx < 0)
		return RL_RC_ENOSLOT;
	return route(c, idx, false, 0, argc, argv, argvlen, reply);
}

static void keep_first(int *status, int s)
{
	if (*status == RL_OK)
		*status = s;
}

int rl__rcluster_batch(struct rl__rcluster *c, size_t n, const struct rl__rcluster_req *reqs,
		      redisReply **replies)
{
	int status = RL_OK;
	int *node_of = malloc((n ? n : 1) * sizeof(*node_of));

	if (!node_of)
		return RL_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		replies[i] = NULL;
		node_of[i] = slot_owner(c, rl__redis_key_slot(reqs[i].key, reqs[i].key_len));
		if (node_of[i] < 0)
			keep_first(&status, RL_RC_ENOSLOT);
	}
	/* Queue each node's commands in request order, then send every queue
	 * before reading any reply, so the nodes work in parallel. */
	int nnodes = c->nnodes;
	bool *live = calloc((size_t)nnodes + 1, sizeof(*live));
	if (!live) {
		free(node_of);
		return RL_ENOMEM;
	}
	for (int nd = 0; nd < nnodes; nd++) {
		redisContext *ctx = NULL;

		for (size_t i = 0; i < n; i++) {
			if (node_of[i] != nd)
				continue;
			if (!ctx && !live[nd]) {
				ctx = node_conn(c, nd);
				if (!ctx)
					break;
				live[nd] = true;
			}
			if (rl__redis_append(ctx, reqs[i].argc, reqs[i].argv, reqs[i].argvlen) != REDIS_OK) {
				node_drop(&c->nodes[nd]);
				live[nd] = false;
				keep_first(&status, RL_ENOMEM);
				break;
			}
		}
	}
	for (int nd = 0; nd < nnodes; nd++) {
		int done = 0;

		while (live[nd] && !done)
			if (redisBufferWrite(c->nodes[nd].ctx, &done) != REDIS_OK) {
				node_drop(&c->nodes[nd]);
				live[nd] = false;
			}
	}
	for (int nd = 0; nd < nnodes; nd++)
		for (size_t i = 0; i < n && live[nd]; i++) {
			if (node_of[i] != nd)
				continue;
			if (redisGetReply(c->nodes[nd].ctx, (void **)&replies[i]) != REDIS_OK) {
				replies[i] = NULL;
				node_drop(&c->nodes[nd]);
				live[nd] = false;
			}
		}
	/* Redirected commands again, one by one in request order; the first
	 * MOVED re-reads the map once for the whole batch. */
	bool refreshed = false;
	for (size_t i = 0; i < n; i++) {
		int slot, target;

		if (node_of[i] < 0)
			continue;
		if (!replies[i]) {
			keep_first(&status, RL_RC_EIO);
			continue;
		}
		enum redirect kind = redirect_of(c, replies[i], &slot, &target);
		if (kind == REDIR_NONE)
			continue;
		freeReplyObject(replies[i]);
		replies[i] = NULL;
		if (c->opts.max_redirects == 0) {
			keep_first(&status, RL_RC_EREDIRECT);
			continue;
		}
		if (kind == REDIR_MOVED) {
			c->stats.moved++;
			if (!refreshed)
				rl__rcluster_refresh(c);
			refreshed = true;
			c->slot_node[slot] = (int16_t)target;
		} else {
			c->stats.ask++;
		}
		int s = route(c, target, kind == REDIR_ASK, 1, reqs[i].argc, reqs[i].argv,
			      reqs[i].argvlen, &replies[i]);
		if (s != RL_OK)
			keep_first(&status, s);
	}
	free(live);
	free(node_of);
	return status;
}

const char *rl__rcluster_slot_node(const struct rl__rcluster *c, uint16_t slot)
{
	if (slot >= RL_REDIS_SLOTS || c->slot_node[slot] < 0)
		return NULL;
	return c->nodes[c->slot_node[slot]].addr;
}

void rl__rcluster_get_stats(const struct rl__rcluster *c, struct rl__rcluster_stats *out)
{
	*out = c->stats;
}
