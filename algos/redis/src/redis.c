/*
 * redis.c - model: a hiredis connection that is either up (scripts loaded,
 * their SHA1s known) or down until a deadline (backoff). A batch of
 * requests is one pipeline of EVALSHA commands; every blocking step
 * (connect, SCRIPT LOAD, the exchange) gets the time left of the batch's
 * budget as its socket timeout, so no call waits longer than the budget
 * plus the scheduling slack.
 *
 * Invariant: every request of a batch ends with exactly one of: Redis's
 * verdict (decided), the policy's (fallbacks), an error (errors); the
 * counters add up to the requests seen.
 *
 * Cluster: the first connection asks CLUSTER INFO; a cluster node hands the
 * connection over to a slot router (redis_cluster.h) seeded with that node,
 * which sends each EVALSHA to its key's master (the hash tag {key} keeps
 * one key's state in one slot), follows MOVED and ASK and reconnects per
 * node by itself. A master that lacks a script (NOSCRIPT: the scripts were
 * loaded on the first node only) gets the request again as EVAL with the
 * script's text, which also caches it there.
 */
#define _POSIX_C_SOURCE 200809L /* sigset_t, pthread_sigmask, sigtimedwait, clock_gettime */

#include "ratelab/redis.h"

#include <errno.h>
#include <stdarg.h>
#include <hiredis/hiredis.h>
#include <limits.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arith.h"
#include "redis_argv.h"
#include "redis_call.h"
#include "redis_cluster.h"
#include "redis_scripts.h"

enum { PREFIX_MAX = 64, HOST_MAX = 255, ERR_MAX = 640 };
_Static_assert(sizeof(((struct rl__redis_cmd *)0)->keys[0]) >= PREFIX_MAX + RL_REDIS_KEY_MAX + 4,
	       "a command's key buffers hold PREFIX{KEY}:l");

struct rl_redis {
	char host[HOST_MAX + 1];
	char prefix[PREFIX_MAX + 1];
	int port;
	int64_t connect_ms, command_ms, backoff_min_ms, backoff_max_ms, grace_ms;
	redisContext *c;                   /* NULL while down, or once rc is made */
	struct rl__rcluster *rc;            /* a cluster's slot router, kept until destroy */
	char sha[RL__REDIS_SCRIPTS_MAX][41]; /* rl__redis_scripts[i]'s SHA1 */
	int breaker_script;                /* the breaker's index there */
	int64_t retry_at_ms;               /* monotonic ms before which we do not reconnect */
	int64_t backoff_ms;                /* the next wait after a failure */
	bool lost;                         /* a connection failed since the last success */
	bool scripts_only;                 /* never the module (config, RATELAB_REDIS_SCRIPTS=1) */
	bool module;                       /* this connection's server has ratelab.so */
	bool shadow;                       /* one-rule checks in shadow mode (redis.h) */
	struct rl_redis_stats st;
	char err[ERR_MAX];
};

static int script_named(const char *name);

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static struct timeval tv_ms(int64_t ms)
{
	return (struct timeval){ .tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000 };
}

static int bad(char *msg, size_t msg_len, const char *what, long long v)
{
	if (msg)
		snprintf(msg, msg_len, "redis %s %lld is out of range", what, v);
	return RL_EINVAL;
}

static int64_t or_default(int64_t v, int64_t def)
{
	return v ? v : def;
}

int rl_redis_create(struct rl_redis **out, const struct rl_redis_config *cfg, char *msg,
		    size_t msg_len)
{
	const char *host = cfg->host ? cfg->host : "127.0.0.1";
	const char *prefix = cfg->prefix ? cfg->prefix : "rl:";
	int64_t conn = or_default(cfg->connect_timeout_ms, 200);
	int64_t cmd = or_default(cfg->command_timeout_ms, 200);
	int64_t bmin = or_default(cfg->backoff_min_ms, 10);
	int64_t bmax = or_default(cfg->backoff_max_ms, 1000);

	*out = NULL;
	if (!*host || strlen(host) > HOST_MAX) {
		if (msg)
			snprintf(msg, msg_len, "redis host '%s' is empty or longer than %d bytes", host, HOST_MAX);
		return RL_EINVAL;
	}
	if (strlen(prefix) > PREFIX_MAX || strchr(prefix, '{')) {
		if (msg)
			snprintf(msg, msg_len, "redis key prefix '%s' is longer than %d bytes or holds '{'",
				 prefix, PREFIX_MAX);
		return RL_EINVAL;
	}
	if (cfg->port < 1 || cfg->port > 65535)
		return bad(msg, msg_len, "port", cfg->port);
	if (conn < 1 || conn > 60000)
		return bad(msg, msg_len, "connect timeout (ms)", conn);
	if (cmd < 1 || cmd > 60000)
		return bad(msg, msg_len, "command timeout (ms)", cmd);
	if (bmin < 1 || bmin > 60000)
		return bad(msg, msg_len, "minimum backoff (ms)", bmin);
	if (bmax < bmin || bmax > 600000)
		return bad(msg, msg_len, "maximum backoff (ms)", bmax);
	if (cfg->ttl_grace_ms < 0 || cfg->ttl_grace_ms > 1000000000000LL)
		return bad(msg, msg_len, "TTL grace (ms)", cfg->ttl_grace_ms);

	struct rl_redis *r = calloc(1, sizeof(*r));
	if (!r) {
		if (msg)
			snprintf(msg, msg_len, "out of memory");
		return RL_ENOMEM;
	}
	snprintf(r->host, sizeof(r->host), "%s", host);
	snprintf(r->prefix, sizeof(r->prefix), "%s", prefix);
	r->port = cfg->port;
	r->connect_ms = conn;
	r->command_ms = cmd;
	r->backoff_min_ms = r->backoff_ms = bmin;
	r->backoff_max_ms = bmax;
	r->grace_ms = cfg->ttl_grace_ms;
	r->breaker_script = script_named("breaker");
	if (r->breaker_script < 0) {
		free(r);
		if (msg)
			snprintf(msg, msg_len, "no Redis script for the breaker");
		return RL_EINVAL;
	}
	const char *env = getenv("RATELAB_REDIS_SCRIPTS");
	r->scripts_only = cfg->scripts_only || (env && strcmp(env, "1") == 0);
	r->shadow = cfg->shadow;
	*out = r;
	return RL_OK;
}

void rl_redis_destroy(struct rl_redis *r)
{
	if (!r)
		return;
	if (r->c)
		redisFree(r->c);
	rl__rcluster_destroy(r->rc);
	free(r);
}

void rl_redis_stats(const struct rl_redis *r, struct rl_redis_stats *out)
{
	*out = r->st;
	out->connected = r->c != NULL || r->rc != NULL;
	out->module = r->module;
	if (r->rc) {
		struct rl__rcluster_stats cs;
		rl__rcluster_get_stats(r->rc, &cs);
		out->reconnects += cs.reconnects;
	}
}

const char *rl_redis_error(const struct rl_redis *r)
{
	return r->err;
}

const char *rl_redis_strerror(int status)
{
	return rl_strerror(status);
}

/*
 * SIGPIPE: hiredis writes with write(2); a server that died raises SIGPIPE
 * in the writing thread. It is blocked around our calls and a pending one
 * we caused is consumed before the mask is restored.
 */
static void pipe_block(sigset_t *old)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &s, old);
}

static void pipe_restore(const sigset_t *old)
{
	sigset_t s, pending;
	const struct timespec zero = { 0, 0 };

	sigemptyset(&s);
	sigaddset(&s, SIGPIPE);
	if (!sigismember(old, SIGPIPE) && sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE))
		while (sigtimedwait(&s, NULL, &zero) < 0 && errno == EINTR)
			;
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

/* Drops the connection after a failure and schedules the next attempt. */
static void drop(struct rl_redis *r, const char *why)
{
	char reason[ERR_MAX - HOST_MAX - 32];

	snprintf(reason, sizeof(reason), "%s", why); /* why may be r->err */
	snprintf(r->err, sizeof(r->err), "redis %s:%d: %s", r->host, r->port, reason);
	if (r->c)
		redisFree(r->c);
	r->c = NULL;
	r->lost = true;
	r->retry_at_ms = mono_ms() + r->backoff_ms;
	r->backoff_ms = r->backoff_ms * 2 > r->backoff_max_ms ? r->backoff_max_ms : r->backoff_ms * 2;
}

/* Sets the socket timeout to what is left before deadline; false if nothing is. */
static bool budget(struct rl_redis *r, int64_t deadline)
{
	int64_t left = deadline - mono_ms();

	if (left <= 0) {
		drop(r, "timed out");
		return false;
	}
	if (redisSetTimeout(r->c, tv_ms(left)) != REDIS_OK) {
		drop(r, "cannot set the socket timeout");
		return false;
	}
	return true;
}

/* Loads every script (one pipeline) and keeps their SHA1s. */
static bool load_scripts(struct rl_redis *r, int64_t deadline)
{
	if (!budget(r, deadline))
		return false;
	for (size_t i = 0; i < rl__redis_script_count; i++)
		redisAppendCommand(r->c, "SCRIPT LOAD %s", rl__redis_scripts[i].text);
	for (size_t i = 0; i < rl__redis_script_count; i++) {
		redisReply *rep = NULL;
		if (redisGetReply(r->c, (void **)&rep) != REDIS_OK) {
			drop(r, r->c->errstr[0] ? r->c->errstr : "connection lost");
			return false;
		}
		bool ok = rep->type == REDIS_REPLY_STRING && rep->len == 40;
		if (ok)
			memcpy(r->sha[i], rep->str, 41);
		else
			snprintf(r->err, sizeof(r->err), "redis SCRIPT LOAD: %s",
				 rep->type == REDIS_REPLY_ERROR ? rep->str : "unexpected reply");
		freeReplyObject(rep);
		if (!ok) {
			drop(r, r->err);
			return false;
		}
	}
	r->st.round_trips++;
	return true;
}

/*
 * Whether the server has the module (COMMAND INFO knows ratelab.check):
 * sets r->module, false when the connection failed.
 */
static bool probe_module(struct rl_redis *r, int64_t deadline)
{
	r->module = false;
	if (r->scripts_only)
		return true;
	if (!budget(r, deadline))
		return false;
	redisReply *rep = redisCommand(r->c, "COMMAND INFO ratelab.check");
	if (!rep) {
		drop(r, r->c->errstr[0] ? r->c->errstr : "connection lost");
		return false;
	}
	r->module = rep->type == REDIS_REPLY_ARRAY && rep->elements == 1 &&
		    rep->element[0]->type == REDIS_REPLY_ARRAY;
	freeReplyObject(rep);
	r->st.round_trips++;
	return true;
}

/*
 * On a cluster node (CLUSTER INFO answers, where a plain server answers an
 * error), replaces the connection by a slot router seeded with this node.
 */
static bool to_cluster(struct rl_redis *r, int64_t deadline)
{
	if (!budget(r, deadline))
		return false;
	redisReply *rep = redisCommand(r->c, "CLUSTER INFO");
	if (!rep) {
		drop(r, r->c->errstr[0] ? r->c->errstr : "connection lost");
		return false;
	}
	bool cluster = rep->type == REDIS_REPLY_STRING;
	freeReplyObject(rep);
	r->st.round_trips++;
	if (!cluster)
		return true;

	char seed[HOST_MAX + 16], why[ERR_MAX - HOST_MAX - 32];
	struct rl__rcluster_opts o = { (int)r->connect_ms, (int)r->command_ms, -1 };
	snprintf(seed, sizeof(seed), "%s:%d", r->host, r->port);
	if (rl__rcluster_create(seed, &o, &r->rc, why, sizeof(why)) != RL_OK) {
		r->rc = NULL;
		drop(r, why);
		return false;
	}
	redisFree(r->c);
	r->c = NULL;
	return true;
}

/* Connects (unless up, or backing off) within the deadline. */
/* Whether host names an address (getaddrinfo, as hiredis resolves it). */
static bool resolves(const char *host)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res = NULL;
	int rc = getaddrinfo(host, NULL, &hints, &res);

	if (res)
		freeaddrinfo(res);
	return rc == 0;
}

static bool ensure(struct rl_redis *r, int64_t deadline)
{
	if (r->c || r->rc)
		return true;
	int64_t now = mono_ms();
	if (now < r->retry_at_ms)
		return false;
	int64_t left = deadline - now;
	if (left <= 0)
		return false;
	r->c = redisConnectWithTimeout(r->host, r->port, tv_ms(left < r->connect_ms ? left : r->connect_ms));
	if (!r->c || r->c->err) {
		char why[ERR_MAX - HOST_MAX - 32];
		/* hiredis reports a name that does not resolve as REDIS_ERR_OTHER with
		 * getaddrinfo's words only: name the host */
		if (r->c && r->c->err == REDIS_ERR_OTHER && !resolves(r->host))
			snprintf(why, sizeof(why), "host '%.200s' does not resolve (%.60s)", r->host, r->c->errstr);
		else
			snprintf(why, sizeof(why), "%.300s", r->c ? r->c->errstr : "cannot allocate a connection");
		drop(r, why);
		return false;
	}
	if (!probe_module(r, deadline) || (!r->module && !load_scripts(r, deadline)) || !to_cluster(r, deadline))
		return false;
	if (r->lost)
		r->st.reconnects++;
	r->lost = false;
	r->backoff_ms = r->backoff_min_ms;
	return true;
}

/* The index of the script called name in rl__redis_scripts, or -1. */
static int script_named(const char *name)
{
	for (size_t i = 0; i < rl__redis_script_count; i++)
		if (strcmp(rl__redis_scripts[i].name, name) == 0)
			return (int)i;
	return -1;
}

/* The script of algorithm a (the one named as it), or -1: found by name
 * once per thread and algorithm in turn, then by the last one's pointer. */
static int script_of(const struct rl_algo *a)
{
	static _Thread_local const struct rl_algo *seen;
	static _Thread_local int seen_script;

	if (a != seen) {
		seen_script = script_named(a->name);
		seen = a;
	}
	return seen_script;
}

int rl_redis_supports(const struct rl_algo *algo, char *msg, size_t msg_len)
{
	if (!algo)
		return RL_EINVAL;
	if (script_of(algo) < 0) {
		if (msg)
			snprintf(msg, msg_len, "no Redis script for %s", algo->name);
		return RL_EINVAL;
	}
	return RL_OK;
}

/*
 * What both commands carry, into c's buffers: keys[0] = PREFIX{key}, and
 * num[0..4] = now (clock: the text meaning Redis's clock, for
 * RL_REDIS_NOW), p1, p2, p3 and the TTL grace, their lengths in nlen.
 */
static void put_key_and_numbers(const struct rl_redis *r, struct rl__redis_cmd *c, const char *key,
				size_t key_len, const char *clock, int64_t now, int64_t p1, int64_t p2, int64_t p3,
				size_t nlen[5])
{
	size_t p = strlen(r->prefix);

	memcpy(c->keys[0], r->prefix, p);
	c->keys[0][p] = '{';
	memcpy(c->keys[0] + p + 1, key, key_len);
	c->keys[0][p + 1 + key_len] = '}';
	if (now == RL_REDIS_NOW)
		nlen[0] = strlen(clock), memcpy(c->num[0], clock, nlen[0] + 1);
	else
		nlen[0] = rl__redis_decimal(c->num[0], now);
	nlen[1] = rl__redis_decimal(c->num[1], p1);
	nlen[2] = rl__redis_decimal(c->num[2], p2);
	nlen[3] = rl__redis_decimal(c->num[3], p3);
	nlen[4] = rl__redis_decimal(c->num[4], r->grace_ms);
}

/*
 * EVALSHA sha nkeys PREFIX{key} [PREFIX{key}:l] now p1 p2 p3 grace last
 * ('' for now: Redis's TIME; last is the script's ARGV[6]). Only a script
 * naming KEYS[2] gets the second key (none does since every state is one
 * string): a script naming one key is one key to Redis Cluster, which
 * during a slot migration serves it on whichever node holds it, where two
 * keys of which one is absent get TRYAGAIN until the migration ends.
 */
static void build(const struct rl_redis *r, struct rl__redis_cmd *c, const char *sha, int nkeys,
		  const char *key, size_t key_len, int64_t now, int64_t p1, int64_t p2, int64_t p3,
		  const char *last)
{
	size_t p = strlen(r->prefix);
	int a = 0;

	size_t nlen[5];

	put_key_and_numbers(r, c, key, key_len, "", now, p1, p2, p3, nlen);
	memcpy(c->keys[1], c->keys[0], p + 2 + key_len);
	memcpy(c->keys[1] + p + 2 + key_len, ":l", 2);
	c->argv[a] = "EVALSHA", c->len[a++] = 7;
	c->argv[a] = sha, c->len[a++] = 40;
	c->argv[a] = nkeys == 2 ? "2" : "1", c->len[a++] = 1;
	c->argv[a] = c->keys[0], c->len[a++] = p + 2 + key_len;
	if (nkeys == 2)
		c->argv[a] = c->keys[1], c->len[a++] = p + 4 + key_len;
	for (int i = 0; i < 5; i++)
		c->argv[a] = c->num[i], c->len[a++] = nlen[i];
	c->argv[a] = last, c->len[a++] = strlen(last);
	c->argc = a;
	c->key = 3;
}

/*
 * The module's command: RATELAB.CHECK PREFIX{key} algo N W B cost now
 * grace or RATELAB.BREAKER PREFIX{key} now limit window open_for grace
 * action (now '*': Redis's clock), in c's buffers.
 */
static void build_module(const struct rl_redis *r, struct rl__redis_cmd *c, bool breaker, const char *key,
			 size_t key_len, int64_t now, int64_t p1, int64_t p2, int64_t p3, const char *last)
{
	size_t p = strlen(r->prefix);
	int a = 0;

	size_t nlen[5];

	put_key_and_numbers(r, c, key, key_len, "*", now, p1, p2, p3, nlen);
	c->argv[a] = breaker ? "RATELAB.BREAKER" : "RATELAB.CHECK", c->len[a] = strlen(c->argv[a]), a++;
	c->argv[a] = c->keys[0], c->len[a++] = p + 2 + key_len;
	if (breaker)
		c->argv[a] = c->num[0], c->len[a] = nlen[0], a++;
	else
		c->argv[a] = last, c->len[a] = strlen(last), a++; /* the algorithm */
	for (int i = 1; i < 4; i++)
		c->argv[a] = c->num[i], c->len[a] = nlen[i], a++;
	if (breaker) {
		c->argv[a] = c->num[4], c->len[a] = nlen[4], a++;
		c->argv[a] = last, c->len[a] = strlen(last), a++; /* the action */
	} else {
		c->argv[a] = c->num[5], c->len[a] = strlen(c->num[5]), a++; /* the cost */
		c->argv[a] = c->num[0], c->len[a] = nlen[0], a++;
		c->argv[a] = c->num[4], c->len[a] = nlen[4], a++;
	}
	c->argc = a;
	c->key = 1;
}

static int64_t parse_i64(const redisReply *e)
{
	if (e->type == REDIS_REPLY_INTEGER)
		return e->integer;
	if (e->type == REDIS_REPLY_STRING)
		return strtoll(e->str, NULL, 10);
	return 0;
}

static bool noscript(const redisReply *rep)
{
	return rep->type == REDIS_REPLY_ERROR && strncmp(rep->str, "NOSCRIPT", 8) == 0;
}

/*
 * A key whose stored state is damaged ("ratelab: key 'K' holds a damaged
 * ALG state", from the scripts and the module alike): an outage of that
 * key, not of the request's arguments.
 */
static bool damaged(const redisReply *rep)
{
	static const char head[] = "ratelab: key '", tail[] = " state";
	size_t tl = sizeof(tail) - 1;

	return rep->type == REDIS_REPLY_ERROR && strncmp(rep->str, head, sizeof(head) - 1) == 0 &&
	       strstr(rep->str, "' holds a damaged ") && rep->len >= tl && strcmp(rep->str + rep->len - tl, tail) == 0;
}

/*
 * Reads an algorithm script's reply to q into ans; false when it was
 * NOSCRIPT. A damaged state is decided by q's policy (fallback) and
 * counted in errors, its message kept for rl_redis_error.
 */
static bool take(struct rl_redis *r, const redisReply *rep, const struct rl_redis_req *q,
		 struct rl_redis_answer *ans)
{
	if (noscript(rep))
		return false;
	memset(&ans->d, 0, sizeof(ans->d));
	ans->fallback = false;
	ans->would_reject = false;
	if (rep->type == REDIS_REPLY_ARRAY && rep->elements == 5) {
		ans->rc = parse_i64(rep->element[0]) ? RL_ALLOWED : RL_REJECTED;
		ans->d.remaining = parse_i64(rep->element[1]);
		ans->d.retry_after_ns = parse_i64(rep->element[2]);
		ans->d.reset_ns = parse_i64(rep->element[3]);
		ans->d.delay_ns = parse_i64(rep->element[4]);
		if (r->shadow && ans->rc == RL_REJECTED) {
			/* shadow mode: decided and kept as enforcing, admitted */
			ans->rc = RL_ALLOWED;
			ans->would_reject = true;
			r->st.would_reject++;
		}
		r->st.decided++;
		return true;
	}
	snprintf(r->err, sizeof(r->err), "redis: %s",
		 rep->type == REDIS_REPLY_ERROR ? rep->str : "unexpected reply to a ratelab script");
	ans->rc = RL_EREDIS;
	if (damaged(rep)) {
		ans->rc = q->rule->fail_closed ? RL_REJECTED : RL_ALLOWED;
		ans->fallback = true;
	}
	r->st.errors++;
	return true;
}

static void fall_back(struct rl_redis *r, const struct rl_redis_req *q, struct rl_redis_answer *ans)
{
	memset(ans, 0, sizeof(*ans));
	ans->rc = q->rule->fail_closed ? RL_REJECTED : RL_ALLOWED;
	ans->fallback = true;
	r->st.fallbacks++;
}

static int check_req(const struct rl_redis_req *q)
{
	if (!q->rule || !q->rule->lim || !q->key || q->key_len == 0 || q->key_len > RL_REDIS_KEY_MAX ||
	    script_of(q->rule->lim->algo) < 0 || q->rule->timeout_ms < 0 || q->rule->timeout_ms > 60000 ||
	    q->rule->lim->rule.limit > RL_REDIS_LIMIT_MAX || q->rule->lim->rule.burst > RL_REDIS_BURST_MAX)
		return RL_EINVAL;
	if (q->now_ns != RL_REDIS_NOW && !rl__time_ok(q->now_ns))
		return RL_ERANGE;
	if (q->cost < 0 || q->cost > RL_REDIS_COST_MAX)
		return RL_EINVAL;
	return RL_OK;
}

/*
 * One pipelined exchange for the requests idx[0..m) (those still pending);
 * those answered NOSCRIPT are left in idx for another round (returned
 * count). On a broken connection every pending request falls back.
 */
void rl__redis_request_argv(const struct rl_redis *r, const struct rl_redis_req *q, struct rl__redis_cmd *c)
{
	const struct rl_rule *rule = &q->rule->lim->rule;
	/* a window algorithm has no burst: B = N, as the stored form keeps
	 * its rule (whatever burst the limiter was made with) */
	int64_t burst = q->rule->lim->algo->uses_burst ? rule->burst : rule->limit;

	rl__redis_decimal(c->num[5], q->cost ? q->cost : 1);
	if (r->module) {
		build_module(r, c, false, q->key, q->key_len, q->now_ns, rule->limit, rule->window_ns, burst,
			     q->rule->lim->algo->name);
		return;
	}
	int script = script_of(q->rule->lim->algo);

	build(r, c, r->sha[script], rl__redis_scripts[script].keys,
	      q->key, q->key_len, q->now_ns, rule->limit, rule->window_ns, burst, c->num[5]);
}

/* Through the cluster router: c as EVAL with the script's text (for a node that lacks it). */
static int cluster_eval(struct rl_redis *r, struct rl__redis_cmd *c, int script, redisReply **rep)
{
	c->argv[0] = "EVAL";
	c->len[0] = 4;
	c->argv[1] = rl__redis_scripts[script].text;
	c->len[1] = strlen(rl__redis_scripts[script].text);
	return rl__rcluster_command(r->rc, c->argv[c->key], c->len[c->key], c->argc, c->argv, c->len, rep);
}

static bool tryagain(const redisReply *rep)
{
	return rep->type == REDIS_REPLY_ERROR && strncmp(rep->str, "TRYAGAIN", 8) == 0;
}

/*
 * Through the cluster router: one call (c's EVALSHA) to its key's node,
 * sent again as EVAL on NOSCRIPT, and again every millisecond while the
 * node answers TRYAGAIN (a slot migration under way, some of a script's
 * keys moved) until the deadline. RL_OK and *rep, or the router's failure
 * or the deadline (*rep NULL).
 */
static int cluster_call(struct rl_redis *r, struct rl__redis_cmd *c, int script, int64_t deadline,
			redisReply **rep)
{
	for (;;) {
		int rc = rl__rcluster_command(r->rc, c->argv[c->key], c->len[c->key], c->argc, c->argv, c->len, rep);
		r->st.round_trips++;
		if (rc != RL_OK)
			return rc;
		if (noscript(*rep)) {
			freeReplyObject(*rep);
			*rep = NULL;
			r->st.round_trips++;
			return cluster_eval(r, c, script, rep);
		}
		if (!tryagain(*rep))
			return RL_OK;
		freeReplyObject(*rep);
		*rep = NULL;
		if (mono_ms() >= deadline)
			return RL_RC_EIO;
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	}
}

/*
 * The requests idx[0..m) through the cluster router: one pipelined round
 * trip per node (rl__rcluster_batch), then the NOSCRIPT ones again, one by
 * one in request order, as EVAL. A request the router could not carry
 * (node down, timeout, too many redirections) falls back.
 */
static size_t exchange_cluster(struct rl_redis *r, const struct rl_redis_req *reqs, const size_t *idx,
			       size_t m, struct rl_redis_answer *ans, struct rl__redis_cmd *cmds, int64_t deadline)
{
	struct rl__rcluster_req *cr = malloc(m * sizeof(*cr));
	redisReply **reps = calloc(m, sizeof(*reps));

	if (!cr || !reps) {
		for (size_t i = 0; i < m; i++)
			fall_back(r, &reqs[idx[i]], &ans[idx[i]]);
		free(cr);
		free(reps);
		return 0;
	}
	for (size_t i = 0; i < m; i++) {
		rl__redis_request_argv(r, &reqs[idx[i]], &cmds[i]);
		cr[i] = (struct rl__rcluster_req){ cmds[i].argv[cmds[i].key], cmds[i].len[cmds[i].key], cmds[i].argc, cmds[i].argv, cmds[i].len };
	}
	rl__rcluster_batch(r->rc, m, cr, reps);
	r->st.round_trips++;
	for (size_t i = 0; i < m; i++) {
		const struct rl_redis_req *q = &reqs[idx[i]];
		if (reps[i] && (noscript(reps[i]) || tryagain(reps[i]))) {
			freeReplyObject(reps[i]);
			reps[i] = NULL;
			cluster_call(r, &cmds[i], script_of(q->rule->lim->algo), deadline, &reps[i]);
		}
		if (!reps[i]) {
			snprintf(r->err, sizeof(r->err), "redis cluster via %s:%d: no reply", r->host, r->port);
			fall_back(r, q, &ans[idx[i]]);
			continue;
		}
		take(r, reps[i], q, &ans[idx[i]]);
		freeReplyObject(reps[i]);
	}
	free(cr);
	free(reps);
	return 0;
}

static size_t exchange(struct rl_redis *r, const struct rl_redis_req *reqs, size_t *idx, size_t m,
		       struct rl_redis_answer *ans, int64_t deadline, struct rl__redis_cmd *cmds)
{
	size_t again = 0, i = 0;

	if (!ensure(r, deadline))
		goto fail;
	if (r->rc)
		return exchange_cluster(r, reqs, idx, m, ans, cmds, deadline);
	if (!budget(r, deadline))
		goto fail;
	for (i = 0; i < m; i++) {
		rl__redis_request_argv(r, &reqs[idx[i]], &cmds[i]);
		if (rl__redis_append(r->c, cmds[i].argc, cmds[i].argv, cmds[i].len) != REDIS_OK) {
			drop(r, "cannot queue a command");
			i = 0;
			goto fail;
		}
	}
	r->st.round_trips++;
	for (i = 0; i < m; i++) {
		redisReply *rep = NULL;
		if (redisGetReply(r->c, (void **)&rep) != REDIS_OK) {
			drop(r, r->c->errstr[0] ? r->c->errstr : "connection lost");
			goto fail;
		}
		if (!take(r, rep, &reqs[idx[i]], &ans[idx[i]]))
			idx[again++] = idx[i];
		freeReplyObject(rep);
	}
	return again;
fail:
	/* answered ones keep their answers; the rest, and the NOSCRIPT ones, fall back */
	for (size_t k = 0; k < again; k++)
		fall_back(r, &reqs[idx[k]], &ans[idx[k]]);
	for (; i < m; i++)
		fall_back(r, &reqs[idx[i]], &ans[idx[i]]);
	return 0;
}

int rl_redis_check_batch(struct rl_redis *r, const struct rl_redis_req *reqs, size_t n,
			 struct rl_redis_answer *ans)
{
	if (!r || (n && (!reqs || !ans)))
		return RL_EINVAL;
	if (n == 0)
		return RL_OK;

	size_t *idx = malloc(n * sizeof(*idx));
	struct rl__redis_cmd *cmds = malloc(n * sizeof(*cmds));
	if (!idx || !cmds) {
		free(idx);
		free(cmds);
		return RL_ENOMEM;
	}
	int64_t timeout = INT64_MAX;
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		int rc = check_req(&reqs[i]);
		if (rc) {
			memset(&ans[i], 0, sizeof(ans[i]));
			ans[i].rc = rc;
			continue;
		}
		int64_t t = or_default(reqs[i].rule->timeout_ms, r->command_ms);
		timeout = t < timeout ? t : timeout;
		idx[m++] = i;
	}
	int64_t deadline = m ? mono_ms() + timeout : 0; /* timeout <= 60000 when m > 0 */
	sigset_t old;

	pipe_block(&old);
	/* a second round only after NOSCRIPT (SCRIPT FLUSH, a restarted server): reload first */
	for (int round = 0; m && round < 2; round++) {
		m = exchange(r, reqs, idx, m, ans, deadline, cmds);
		if (m && !(r->c && load_scripts(r, deadline)))
			break;
	}
	for (size_t k = 0; k < m; k++) {
		if (!r->c)
			fall_back(r, &reqs[idx[k]], &ans[idx[k]]);
		else {
			snprintf(r->err, sizeof(r->err), "redis: NOSCRIPT after reloading the scripts");
			memset(&ans[idx[k]], 0, sizeof(ans[idx[k]]));
			ans[idx[k]].rc = RL_EREDIS;
			r->st.errors++;
		}
	}
	pipe_restore(&old);
	free(idx);
	free(cmds);
	return RL_OK;
}

int rl_redis_check(struct rl_redis *r, const struct rl_redis_rule *rule, const char *key,
		   size_t key_len, int64_t now_ns, struct rl_decision *out)
{
	return rl_redis_check_n(r, rule, key, key_len, now_ns, 1, out);
}

int rl_redis_check_n(struct rl_redis *r, const struct rl_redis_rule *rule, const char *key,
		     size_t key_len, int64_t now_ns, int64_t cost, struct rl_decision *out)
{
	if (cost < 1 || cost > RL_REDIS_COST_MAX)
		return RL_EINVAL;

	struct rl_redis_req q = { rule, key, key_len, now_ns, cost };
	struct rl_redis_answer a;
	int rc = rl_redis_check_batch(r, &q, 1, &a);

	if (rc)
		return rc;
	if (out)
		*out = a.d;
	return a.rc;
}

int rl_redis_breaker_validate(const struct rl_redis_breaker *b, char *msg, size_t msg_len)
{
	struct rl_breaker probe;
	int rc = rl_breaker_init(&probe, b->limit, b->window, b->open_for, msg, msg_len);

	if (rc)
		return rc;
	rl_breaker_destroy(&probe);
	if (b->window > RL_REDIS_BREAKER_SPAN_MAX)
		return bad(msg, msg_len, "breaker window", b->window);
	if (b->open_for > RL_REDIS_BREAKER_SPAN_MAX)
		return bad(msg, msg_len, "breaker open time", b->open_for);
	if (b->timeout_ms < 0 || b->timeout_ms > 60000)
		return bad(msg, msg_len, "breaker timeout (ms)", b->timeout_ms);
	return RL_OK;
}

int rl_redis_breaker_call(struct rl_redis *r, const struct rl_redis_breaker *b, const char *key,
			  size_t key_len, int64_t now, bool record, enum rl_breaker_state *before)
{
	if (!r || !b || !key || !before || key_len == 0 || key_len > RL_REDIS_KEY_MAX ||
	    rl_redis_breaker_validate(b, NULL, 0))
		return RL_EINVAL;
	if (!rl__time_ok(now))
		return RL_ERANGE;

	struct rl__redis_cmd *c = malloc(sizeof(*c));
	if (!c)
		return RL_ENOMEM;
	int64_t deadline = mono_ms() + or_default(b->timeout_ms, r->command_ms);
	int rc = RL_EREDIS;
	sigset_t old;

	pipe_block(&old);
	for (int round = 0; round < 2; round++) {
		if (!ensure(r, deadline) || (!r->rc && !budget(r, deadline)))
			break;
		/* ARGV[6]: what to do */
		if (r->module)
			build_module(r, c, true, key, key_len, now, b->limit, b->window, b->open_for,
				     record ? "handle" : "state");
		else
			build(r, c, r->sha[r->breaker_script], rl__redis_scripts[r->breaker_script].keys, key, key_len,
			      now, b->limit, b->window, b->open_for, record ? "handle" : "state");
		redisReply *rep = NULL;
		if (r->rc) {
			if (cluster_call(r, c, r->breaker_script, deadline, &rep) != RL_OK) {
				snprintf(r->err, sizeof(r->err), "redis cluster via %s:%d: no reply", r->host,
					 r->port);
				break;
			}
		} else {
			r->st.round_trips++;
			if (rl__redis_append(r->c, c->argc, c->argv, c->len) != REDIS_OK ||
			    redisGetReply(r->c, (void **)&rep) != REDIS_OK) {
				drop(r, r->c->errstr[0] ? r->c->errstr : "connection lost");
				break;
			}
		}
		if (rep->type == REDIS_REPLY_ERROR && strncmp(rep->str, "NOSCRIPT", 8) == 0) {
			freeReplyObject(rep);
			if (!load_scripts(r, deadline))
				break;
			continue;
		}
		if (rep->type == REDIS_REPLY_ARRAY && rep->elements == 2) {
			int64_t v = parse_i64(rep->element[0]);
			*before = (enum rl_breaker_state)parse_i64(rep->element[1]);
			rc = v < 0 ? (int)v : record ? (int)v : RL_OK;
			r->st.decided++;
		} else {
			snprintf(r->err, sizeof(r->err), "redis: %s",
				 rep->type == REDIS_REPLY_ERROR ? rep->str : "unexpected reply to the breaker script");
			r->st.errors++;
		}
		freeReplyObject(rep);
		pipe_restore(&old);
		free(c);
		return rc;
	}
	pipe_restore(&old);
	free(c);
	r->st.fallbacks++;
	*before = b->fail_closed ? RL_BREAKER_OPEN : RL_BREAKER_CLOSED;
	return record ? (b->fail_closed ? RL_REJECTED : RL_ALLOWED) : RL_OK;
}

/* A settle's command (rl__redis_call's build_fn): its arguments and c's buffers. */
struct settle_cmd {
	const struct rl_redis *r;
	struct rl__redis_cmd c;
	struct rl_rule rule;
	const char *algo, *key;
	size_t key_len;
	int64_t admitted_ns, delta, now;
};

/*
 * RATELAB.SETTLE PREFIX{key} algo N W B admitted_ns delta now grace, or
 * EVALSHA settle.lua 1 PREFIX{key} now N W B grace algo admitted_ns delta,
 * in the command's buffers (now '*' or '': Redis's clock).
 */
static void build_settle(void *arg, bool module, const char *sha, int *argc, const char **argv, size_t *len,
			 int *key)
{
	struct settle_cmd *s = arg;
	struct rl__redis_cmd *c = &s->c;
	/* delta with its sign: rl__redis_decimal writes v >= 0 */
	c->num[6][0] = '-';
	size_t p = strlen(s->r->prefix), nlen[5], alen = rl__redis_decimal(c->num[5], s->admitted_ns),
	       dlen = s->delta < 0 ? 1 + rl__redis_decimal(c->num[6] + 1, -s->delta)
				   : rl__redis_decimal(c->num[6], s->delta);
	int a = 0;

	put_key_and_numbers(s->r, c, s->key, s->key_len, module ? "*" : "", s->now, s->rule.limit, s->rule.window_ns,
			    s->rule.burst, nlen);
	if (module) {
		argv[a] = "RATELAB.SETTLE", len[a++] = 14;
		*key = a;
		argv[a] = c->keys[0], len[a++] = p + 2 + s->key_len;
		argv[a] = s->algo, len[a++] = strlen(s->algo);
		for (int i = 1; i < 4; i++)
			argv[a] = c->num[i], len[a++] = nlen[i];
		argv[a] = c->num[5], len[a++] = alen;
		argv[a] = c->num[6], len[a++] = dlen;
		argv[a] = c->num[0], len[a++] = nlen[0];
		argv[a] = c->num[4], len[a++] = nlen[4];
	} else {
		argv[a] = "EVALSHA", len[a++] = 7;
		argv[a] = sha, len[a++] = 40;
		argv[a] = "1", len[a++] = 1;
		*key = a;
		argv[a] = c->keys[0], len[a++] = p + 2 + s->key_len;
		for (int i = 0; i < 5; i++)
			argv[a] = c->num[i], len[a++] = nlen[i];
		argv[a] = s->algo, len[a++] = strlen(s->algo);
		argv[a] = c->num[5], len[a++] = alen;
		argv[a] = c->num[6], len[a++] = dlen;
	}
	*argc = a;
}

int rl_redis_settle(struct rl_redis *r, const struct rl_redis_rule *rule, const char *key, size_t key_len,
		    int64_t admitted_ns, int64_t delta, int64_t now_ns, int64_t *reset_ns)
{
	if (!r || !rule || !rule->lim || !key || key_len == 0 || key_len > RL_REDIS_KEY_MAX ||
	    rl_redis_supports(rule->lim->algo, NULL, 0) != RL_OK || delta == 0 || delta < -RL_REDIS_COST_MAX ||
	    delta > RL_REDIS_COST_MAX)
		return RL_EINVAL;
	if (!rl__time_ok(admitted_ns) || (now_ns != RL_REDIS_NOW && (!rl__time_ok(now_ns) || admitted_ns > now_ns)))
		return RL_ERANGE;

	/* the module's stored rule: a window algorithm's burst is N (its scripts take 0 or N alike) */
	struct settle_cmd *s = malloc(sizeof(*s));
	if (!s)
		return RL_ENOMEM;
	*s = (struct settle_cmd){ .r = r, .rule = rule->lim->rule, .algo = rule->lim->algo->name, .key = key,
				  .key_len = key_len, .admitted_ns = admitted_ns, .delta = delta, .now = now_ns };
	redisReply *rep;
	r->err[0] = '\0';
	int sent = rl__redis_call(r, or_default(rule->timeout_ms, r->command_ms), "settle", build_settle, s, &rep);
	free(s);
	if (sent == RL__REDIS_NO_SCRIPT)
		return RL_EINVAL;
	if (sent == RL__REDIS_DOWN) {
		if (!r->err[0])
			snprintf(r->err, sizeof(r->err), "redis %s:%d: no reply: the settle is not applied", r->host,
				 r->port);
		r->st.errors++;
		return RL_EREDIS;
	}
	int rc = RL_EREDIS;
	if (rep->type == REDIS_REPLY_STRING) {
		if (reset_ns)
			*reset_ns = strtoll(rep->str, NULL, 10);
		rc = RL_OK;
	} else {
		snprintf(r->err, sizeof(r->err), "redis: %s",
			 rep->type == REDIS_REPLY_ERROR ? rep->str : "unexpected reply to the settle");
		r->st.errors++;
	}
	freeReplyObject(rep);
	return rc;
}

/* What redis_call.h gives redis_policy.c. */
const char *rl__redis_prefix(const struct rl_redis *r)
{
	return r->prefix;
}

int64_t rl__redis_grace_ms(const struct rl_redis *r)
{
	return r->grace_ms;
}

int64_t rl__redis_timeout_ms(const struct rl_redis *r)
{
	return r->command_ms;
}

struct rl_redis_stats *rl__redis_counters(struct rl_redis *r)
{
	return &r->st;
}

void rl__redis_set_error(struct rl_redis *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->err, sizeof(r->err), fmt, ap);
	va_end(ap);
}

int rl__redis_call(struct rl_redis *r, int64_t timeout_ms, const char *script, rl__redis_build_fn *make, void *arg,
		   redisReply **rep)
{
	int64_t deadline = mono_ms() + timeout_ms;
	int out = RL__REDIS_DOWN, s = script_named(script);
	const char *argv[RL__REDIS_CALL_ARGS];
	size_t len[RL__REDIS_CALL_ARGS];
	int argc, key;
	sigset_t old;

	*rep = NULL;
	pipe_block(&old);
	for (int round = 0; round < 2; round++) {
		if (!ensure(r, deadline) || (!r->rc && !budget(r, deadline)))
			break;
		if (!r->module && s < 0) {
			out = RL__REDIS_NO_SCRIPT;
			break;
		}
		make(arg, r->module, r->module ? "" : r->sha[s], &argc, argv, len, &key);
		r->st.round_trips++;
		if (r->rc) {
			int rc = rl__rcluster_command(r->rc, argv[key], len[key], argc, argv, len, rep);
			if (rc == RL_OK && !r->module && noscript(*rep)) {
				/* a node without the script: EVAL with its text, which caches it there */
				freeReplyObject(*rep);
				*rep = NULL;
				argv[0] = "EVAL", len[0] = 4;
				argv[1] = rl__redis_scripts[s].text, len[1] = strlen(argv[1]);
				r->st.round_trips++;
				rc = rl__rcluster_command(r->rc, argv[key], len[key], argc, argv, len, rep);
			}
			if (rc != RL_OK) {
				snprintf(r->err, sizeof(r->err), "redis cluster via %s:%d: no reply", r->host, r->port);
				*rep = NULL;
				break;
			}
		} else if (rl__redis_append(r->c, argc, argv, len) != REDIS_OK ||
			   redisGetReply(r->c, (void **)rep) != REDIS_OK) {
			*rep = NULL;
			drop(r, r->c->errstr[0] ? r->c->errstr : "connection lost");
			break;
		}
		if (!r->module && noscript(*rep)) {
			freeReplyObject(*rep);
			*rep = NULL;
			if (!load_scripts(r, deadline))
				break;
			continue;
		}
		out = RL__REDIS_ANSWERED;
		break;
	}
	pipe_restore(&old);
	return out;
}
