/*
 * module.c - ratelab.so, the Redis module: the library's own algorithms
 * deciding inside Redis, so that a decision is the in-process one by
 * construction (the scripts of algos/lua compute the same in Lua).
 *
 *   RATELAB.CHECK key algo limit window_ns burst cost now_ns [grace_ms]
 *     one request of cost units at now_ns (an integer in
 *     [0, RL_TIME_MAX_NS], or * for the server's clock, CLOCK_REALTIME
 *     in ns, read once per call); replies as the scripts do:
 *     [verdict (integer 1 or 0), remaining, retry_after_ns, reset_ns,
 *     delay_ns (decimal bulk strings)].
 *   RATELAB.SETTLE key algo limit window_ns burst admitted_ns delta now_ns [grace_ms]
 *     settles the request admitted at admitted_ns by delta units (the
 *     check's arguments, cost replaced by admitted_ns and delta: settle.h,
 *     rl_limiter_settle); replies with the key's reset_ns after it (a
 *     decimal bulk string). A key with no state is an error naming it.
 *   RATELAB.CHECKP key algo cost now_ns grace_ms k N1 W1 B1 U1 ... Nk Wk Bk Uk
 *     one request of cost units decided by a policy (policy.h) of k rules
 *     (1..RL_POLICY_MAX_RULES) of algo, all or nothing: rule i is limit
 *     Ni, window_ns Wi, burst Bi (as CHECK's), and counts the cost when
 *     Ui is 1, the request as 1 when Ui is 0 (":units"). Replies the
 *     combined answer as CHECK does, then each rule's own, five values
 *     each: [verdict, remaining, retry_after_ns, reset_ns, delay_ns] x
 *     (1 + k) (rl_policy_check's answer). The key's value is
 *     policy_bytes.h's; one rule's stored rule unlike the call's is
 *     converted as CHECK converts it; a value of another algorithm or
 *     rule count is an error naming it, nothing written.
 *   RATELAB.BREAKER key now limit window open_for grace_ms handle|state
 *     the breaker (breaker.h), the breaker script's arguments in its
 *     order; replies [rc, state before]: rc 1 admitted, 0 rejected or
 *     (state) done, -4 (RL_EORDER) a time before the key's last.
 *
 * State: the key's value is a plain string, state_bytes.h's stored form
 * v4 (the rule it was last written under, then the state); an absent key
 * is a fresh one. A state written under another rule is converted to the
 * check's (rl_limiter_rerule) before deciding; one whose fields no valid
 * check could have left (rl_limiter_state_check) is the error "key 'K'
 * holds a damaged ALGO state". A key holding anything else is an error
 * that names it, and nothing is written. TTL, as the scripts set it: after a
 * check, the time back to full quota (reset_ns) rounded up to ms, plus
 * grace_ms (default 0, at most 10^12); a TTL of 0 deletes the key. A cost
 * that can never be admitted changes nothing (not even the TTL). The
 * breaker's key lives for grace_ms after each call (0: no expiry).
 *
 * Replication: every write is propagated as its effect, SET key bytes
 * PXAT expiry (or SET key bytes without expiry, or DEL key): replicas and
 * the AOF hold the same bytes and expiry as the master, whatever their
 * clock and whether or not they load the module.
 *
 * Concurrency: Redis runs commands one at a time on its main thread; the
 * limiter cache below is used from that thread only.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ratelab/algo.h"
#include "ratelab/breaker.h"
#include "ratelab/parse.h"
#include "ratelab/settle.h"
#include "ratelab/policy.h"
#include "ratelab/status.h"
#include "policy_bytes.h"
#include "rm_api.h"
#include "state_bytes.h"

#define RLM_EXPORT __attribute__((visibility("default")))

enum { MSG_MAX = 1200, CACHE_SLOTS = 16 };
#define GRACE_MAX_MS 1000000000000LL
/* The breaker's window and open time, the README's range: 1..10^9 (redis.h's RL_REDIS_BREAKER_SPAN_MAX). */
#define BREAKER_SPAN_MAX 1000000000LL
#define NS_PER_MS 1000000LL

/*
 * Limiters already derived from their rule (rl_limiter_init divides in 128
 * bits): a direct-mapped cache by rule, so that a hot rule is derived
 * once. A slot holds the last limiter whose rule hashed there.
 */
static struct rl_limiter cache[CACHE_SLOTS];

static const struct rl_limiter *limiter_for(const struct rl_algo *algo, const struct rl_rule *rule,
					    char *msg, size_t msg_len)
{
	uint64_t h = (uint64_t)rule->limit * 0x9e3779b97f4a7c15ull ^ (uint64_t)rule->window_ns * 0xc2b2ae3d27d4eb4full ^
		     (uint64_t)rule->burst * 0x165667b19e3779f9ull ^ (uint64_t)(uintptr_t)algo;
	struct rl_limiter *slot = &cache[(h ^ h >> 29) % CACHE_SLOTS];

	if (slot->algo == algo && slot->rule.limit == rule->limit && slot->rule.window_ns == rule->window_ns &&
	    slot->rule.burst == rule->burst)
		return slot;
	struct rl_limiter lim;
	if (rl_limiter_init(&lim, algo, rule, msg, msg_len) != RL_OK)
		return NULL;
	*slot = lim;
	return slot;
}

/* Replies with the error fmt makes: "ratelab: ..." as the scripts' errors, or "WRONGTYPE ratelab: ...". */
__attribute__((format(printf, 2, 3))) static int fail(RedisModuleCtx *ctx, const char *fmt, ...)
{
	char msg[MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return RedisModule_ReplyWithError(ctx, msg);
}

/* len bytes of p quoted for an error reply by the library's one quoter (rl_quote_bytes, parse.h), as every
 * ratelab message quotes a value: at most RL_QUOTE_MAX bytes. buf holds QUOTE_SIZE bytes; returns buf. */
enum { QUOTE_SIZE = RL_QUOTE_SIZE };

static const char *quote(char *buf, const char *p, size_t len)
{
	rl_quote_bytes(buf, QUOTE_SIZE, p, len, RL_QUOTE_MAX);
	return buf;
}

/* A Redis string argument, quoted. */
static const char *quote_arg(char *buf, RedisModuleString *s)
{
	size_t len;
	const char *p = RedisModule_StringPtrLen(s, &len);

	return quote(buf, p, len);
}

/* The argument as an integer in [lo, hi], else an error reply naming it. */
static bool arg_int(RedisModuleCtx *ctx, RedisModuleString *s, const char *what, long long lo, long long hi,
		    long long *v)
{
	char q[QUOTE_SIZE];

	if (RedisModule_StringToLongLong(s, v) == REDISMODULE_OK && *v >= lo && *v <= hi)
		return true;
	fail(ctx, "ratelab: %s %s is not an integer in [%lld, %lld]", what, quote_arg(q, s), lo, hi);
	return false;
}

/* now_ns: an integer in [0, RL_TIME_MAX_NS], or * for the server's clock. */
static bool arg_now(RedisModuleCtx *ctx, RedisModuleString *s, int64_t *now)
{
	size_t len;
	const char *p = RedisModule_StringPtrLen(s, &len);
	long long v;

	if (len == 1 && p[0] == '*') {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		*now = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
		return true;
	}
	if (RedisModule_StringToLongLong(s, &v) != REDISMODULE_OK) {
		char q[QUOTE_SIZE];
		fail(ctx, "ratelab: now_ns %s is not an integer or *", quote(q, p, len));
		return false;
	}
	if (v < 0 || v > RL_TIME_MAX_NS) {
		fail(ctx, "ratelab: time out of range");
		return false;
	}
	*now = v;
	return true;
}

static const char *type_name(int type)
{
	switch (type) {
	case REDISMODULE_KEYTYPE_LIST:
		return "a list";
	case REDISMODULE_KEYTYPE_HASH:
		return "a hash";
	case REDISMODULE_KEYTYPE_SET:
		return "a set";
	case REDISMODULE_KEYTYPE_ZSET:
		return "a sorted set";
	case REDISMODULE_KEYTYPE_STREAM:
		return "a stream";
	default:
		return "a value of a module type";
	}
}

/* The key's value as stored: its body after the header, and its version. */
struct stored_value {
	const unsigned char *body; /* NULL for an absent key */
	size_t len;
	int version;
};

/*
 * The key's stored value for state id want: true and *v (v->body NULL for
 * an absent key); or false after an error reply naming what the key holds
 * instead: another type, a string that is not ratelab state, another
 * algorithm's state.
 */
static bool stored(RedisModuleCtx *ctx, RedisModuleKey *key, RedisModuleString *name, int want,
		   struct stored_value *v)
{
	size_t vlen = 0;
	int type = RedisModule_KeyType(key);
	char q[QUOTE_SIZE];

	*v = (struct stored_value){ NULL, 0, RLM_VERSION };
	if (type == REDISMODULE_KEYTYPE_EMPTY)
		return true;
	if (type != REDISMODULE_KEYTYPE_STRING) {
		fail(ctx, "WRONGTYPE ratelab: key %s holds %s, not ratelab state", quote_arg(q, name), type_name(type));
		return false;
	}
	const unsigned char *p = (const unsigned char *)RedisModule_StringDMA(key, &vlen, REDISMODULE_READ);
	int id = rlm_header_id(p, vlen, &v->version);
	if (id < 0) {
		fail(ctx, "WRONGTYPE ratelab: key %s holds a string of %zu bytes that is not ratelab state",
		     quote_arg(q, name), vlen);
		return false;
	}
	if (id != want) {
		const char *held = rlm_id_name(id);
		fail(ctx, "ratelab: key %s holds %s%s state, not %s", quote_arg(q, name), held ? held : "unknown",
		     held ? "" : " (a newer ratelab's?)", rlm_id_name(want));
		return false;
	}
	v->body = p + RLM_HEADER;
	v->len = vlen - RLM_HEADER;
	return true;
}

/* The error of a state that fails its checks (state_bytes.h): the key and the algorithm named. */
static void damaged(RedisModuleCtx *ctx, RedisModuleString *name, int id)
{
	char q[QUOTE_SIZE];

	fail(ctx, "ratelab: key %s holds a damaged %s state", quote_arg(q, name), rlm_id_name(id));
}

/*
 * Makes the key's value the header for id and len body bytes, expiring at
 * at_ms (Unix ms; 0: never); returns the body to fill, or NULL. The caller
 * fills it, then calls replicate_set.
 */
static unsigned char *store(RedisModuleKey *key, int id, size_t len, long long at_ms)
{
	size_t got;

	/* a shorter value first emptied: the new one never keeps old bytes */
	if (RedisModule_StringTruncate(key, 0) != REDISMODULE_OK ||
	    RedisModule_StringTruncate(key, RLM_HEADER + len) != REDISMODULE_OK)
		return NULL;
	unsigned char *v = (unsigned char *)RedisModule_StringDMA(key, &got, REDISMODULE_WRITE);
	if (!v || got != RLM_HEADER + len)
		return NULL;
	rlm_header_put(v, id);
	if (at_ms)
		RedisModule_SetAbsExpire(key, at_ms);
	else
		RedisModule_SetExpire(key, REDISMODULE_NO_EXPIRE);
	return v + RLM_HEADER;
}

/* The write's effect, for replicas and the AOF: SET key value [PXAT at_ms]. */
static void replicate_set(RedisModuleCtx *ctx, RedisModuleString *name, const unsigned char *body, size_t len,
			  long long at_ms)
{
	const char *v = (const char *)body - RLM_HEADER;

	if (at_ms)
		RedisModule_Replicate(ctx, "SET", "sbcl", name, v, RLM_HEADER + len, "PXAT", at_ms);
	else
		RedisModule_Replicate(ctx, "SET", "sb", name, v, RLM_HEADER + len);
}

/* v >= 0 in decimal, ending at end; returns where the digits start. */
static char *decimal(uint64_t v, char *end)
{
	do
		*--end = (char)('0' + v % 10);
	while (v /= 10);
	return end;
}

/* The five fields of one answer (the scripts' reply: the verdict as an
 * integer, the answer's four fields, never negative, as decimal strings),
 * no array of their own. */
static void reply_fields(RedisModuleCtx *ctx, int verdict, const struct rl_decision *d)
{
	const int64_t v[4] = { d->remaining, d->retry_after_ns, d->reset_ns, d->delay_ns };
	char buf[24];

	RedisModule_ReplyWithLongLong(ctx, verdict == RL_ALLOWED);
	for (int i = 0; i < 4; i++) {
		char *p = decimal((uint64_t)(v[i] > 0 ? v[i] : 0), buf + sizeof(buf));
		RedisModule_ReplyWithStringBuffer(ctx, p, (size_t)(buf + sizeof(buf) - p));
	}
}

/* CHECK's reply: the five fields as one array. */
static int reply_decision(RedisModuleCtx *ctx, int rc, const struct rl_decision *d)
{
	RedisModule_ReplyWithArray(ctx, 5);
	reply_fields(ctx, rc, d);
	return REDISMODULE_OK;
}

/* Writes state back as v4 under lim's rule with the scripts' TTL (or
 * deletes the key) and replicates that. */
static bool write_back(RedisModuleCtx *ctx, RedisModuleKey *key, RedisModuleString *name, const struct rl_limiter *lim,
		       int id, const void *state, int64_t reset_ns, long long grace_ms)
{
	const struct rl_algo *algo = lim->algo;
	long long ttl = reset_ns / NS_PER_MS + (reset_ns % NS_PER_MS != 0) + grace_ms;

	if (ttl <= 0) {
		if (RedisModule_KeyType(key) != REDISMODULE_KEYTYPE_EMPTY) {
			RedisModule_DeleteKey(key);
			RedisModule_Replicate(ctx, "DEL", "s", name);
		}
		return true;
	}
	size_t len = RLM_RULE + rlm_state_len(algo, state);
	long long at = RedisModule_Milliseconds() + ttl;
	unsigned char *body = store(key, id, len, at);
	if (!body)
		return false;
	rlm_rule_put(&lim->rule, body);
	rlm_state_put(algo, state, body + RLM_RULE);
	replicate_set(ctx, name, body, len, at);
	return true;
}

/*
 * Whether cost can never be admitted under lim (algo.h: such a request
 * changes no state, so the scripts write nothing): a fresh key, whose
 * full quota is there, rejects it. Asked only of a rejection whose retry
 * saturated, which a cost beyond reach always gives.
 */
static bool never(const struct rl_limiter *lim, int64_t now, int64_t cost)
{
	_Alignas(16) unsigned char fresh[RL_ALGO_MAX_STATE] = { 0 };
	int rc = lim->algo->check(lim, fresh, now, cost, NULL);

	rl_limiter_release(lim, fresh);
	return rc == RL_REJECTED;
}

/*
 * The state stored in v, read under lim's rule (into state, zeroed by the
 * caller) and converted to it (algo.h's rule change) at now: 0, -1 for a
 * damaged value (its shape, its stored rule, a field beyond what that rule
 * writes), -2 out of memory. A v2 value is read as written under lim's
 * rule.
 */
static int load_state(const struct stored_value *v, const struct rl_limiter *lim, int64_t now, void *state)
{
	const unsigned char *body = v->body;
	size_t len = v->len;
	struct rl_limiter from = *lim;

	if (v->version >= RLM_VERSION_V3) {
		struct rl_rule rule;
		if (len < RLM_RULE)
			return -1;
		rlm_rule_get(body, &rule);
		/* a window algorithm's rule holds B = N (struct rl_rule) */
		if ((!lim->algo->uses_burst && rule.burst != rule.limit) || rule.limit > RLM_LIMIT_MAX ||
		    rule.burst > RLM_BURST_MAX ||
		    (memcmp(&rule, &lim->rule, sizeof(rule)) != 0 &&
		     rl_limiter_init(&from, lim->algo, &rule, NULL, 0) != RL_OK))
			return -1;
		body += RLM_RULE;
		len -= RLM_RULE;
	}
	int got = rlm_state_get(lim->algo, &from.rule, v->version, body, len, state);
	if (got)
		return got;
	if (rl_limiter_state_check(&from, state) != RL_OK ||
	    (!rl_limiter_same_rule(&from, lim) && rl_limiter_rerule(&from, lim, state, now) != RL_OK)) {
		rl_limiter_release(lim, state);
		memset(state, 0, lim->algo->state_size);
		return -1;
	}
	return 0;
}

/* The algorithm named by arg, with a stored form in the module: its id; false after the error reply. */
static bool arg_algo(RedisModuleCtx *ctx, RedisModuleString *arg, const struct rl_algo **algo, int *id)
{
	char q[QUOTE_SIZE], name[32];
	size_t alen;
	const char *aname = RedisModule_StringPtrLen(arg, &alen);

	*algo = NULL;
	if (alen < sizeof(name) && !memchr(aname, '\0', alen)) {
		memcpy(name, aname, alen);
		name[alen] = '\0';
		*algo = rl_algo_find(name);
	}
	if (!*algo)
		return fail(ctx, "ratelab: unknown algorithm %s (one of: %s)", quote(q, aname, alen), rl_algo_names()),
		       false;
	if ((*id = rlm_id_of(*algo)) < 0)
		return fail(ctx, "ratelab: algorithm '%s' has no stored form in the module (its state owns memory)",
			    (*algo)->name),
		       false;
	return true;
}

/*
 * The one reader of a rule's N W B in the commands' arguments (a[0..2]):
 * limit 1..RLM_LIMIT_MAX, window_ns 1..RL_WINDOW_MAX_NS, burst
 * 1..RLM_BURST_MAX (0 or the limit for a window algorithm, which then
 * holds B = N as struct rl_rule does: the CLI refuses --burst for them).
 * what prefixes each argument's name in a message ("" for CHECK and
 * SETTLE, "rule I: " for CHECKP). False after the error reply.
 */
static bool arg_nwb(RedisModuleCtx *ctx, RedisModuleString **a, const struct rl_algo *algo, const char *what,
		    struct rl_rule *rule)
{
	long long n, w, b;
	char name[48], q[QUOTE_SIZE];

	snprintf(name, sizeof(name), "%slimit", what);
	if (!arg_int(ctx, a[0], name, 1, RLM_LIMIT_MAX, &n))
		return false;
	snprintf(name, sizeof(name), "%swindow_ns", what);
	if (!arg_int(ctx, a[1], name, 1, RL_WINDOW_MAX_NS, &w))
		return false;
	snprintf(name, sizeof(name), "%sburst", what);
	if (!arg_int(ctx, a[2], name, algo->uses_burst ? 1 : 0, RLM_BURST_MAX, &b))
		return false;
	if (!algo->uses_burst && b != 0 && b != n)
		return fail(ctx, "ratelab: %sburst %s does not apply to %s: pass 0 or the limit (%lld)", what,
			    quote_arg(q, a[2]), algo->name, n),
		       false;
	*rule = (struct rl_rule){ n, w, algo->uses_burst ? b : n };
	return true;
}

/* The cached limiter of algo and rule; false after the error reply (rl_limiter_init's words). */
static bool arg_limiter(RedisModuleCtx *ctx, const struct rl_algo *algo, const struct rl_rule *rule,
			struct rl_limiter *lim)
{
	char msg[MSG_MAX - 32];
	const struct rl_limiter *cached = limiter_for(algo, rule, msg, sizeof(msg));

	if (!cached)
		return fail(ctx, "ratelab: %s", msg), false;
	*lim = *cached;
	return true;
}

/* RATELAB.CHECK key algo limit window_ns burst cost now_ns [grace_ms] */
static int cmd_check(RedisModuleCtx *ctx, RedisModuleString **argv, int argc)
{
	long long cost, grace = 0;
	int64_t now;
	struct rl_rule rule;
	struct rl_limiter lim;

	if (argc != 8 && argc != 9)
		return RedisModule_WrongArity(ctx);
	const struct rl_algo *algo;
	int id;
	if (!arg_algo(ctx, argv[2], &algo, &id) || !arg_nwb(ctx, argv + 3, algo, "", &rule))
		return REDISMODULE_OK;
	if (!arg_int(ctx, argv[6], "cost", 1, RLM_COST_MAX, &cost) || !arg_now(ctx, argv[7], &now) ||
	    (argc == 9 && !arg_int(ctx, argv[8], "grace_ms", 0, GRACE_MAX_MS, &grace)) ||
	    !arg_limiter(ctx, algo, &rule, &lim))
		return REDISMODULE_OK;

	RedisModuleKey *key = RedisModule_OpenKey(ctx, argv[1], REDISMODULE_READ | REDISMODULE_WRITE);
	struct stored_value v;
	_Alignas(16) unsigned char state[RL_ALGO_MAX_STATE] = { 0 };

	if (!stored(ctx, key, argv[1], id, &v))
		goto out;
	if (v.body) {
		int got = load_state(&v, &lim, now, state);
		if (got == -2) {
			fail(ctx, "ratelab: out of memory");
			goto out;
		}
		if (got) {
			damaged(ctx, argv[1], id);
			goto out;
		}
	}
	struct rl_decision d = { 0 };
	int verdict = algo->check(&lim, state, now, cost, &d);
	if (verdict < 0)
		fail(ctx, "ratelab: %s", rl_strerror(verdict));
	else if (verdict == RL_REJECTED && d.retry_after_ns == RL_DURATION_MAX_NS && never(&lim, now, cost))
		reply_decision(ctx, verdict, &d); /* nothing changed, nothing written */
	else if (!write_back(ctx, key, argv[1], &lim, id, state, d.reset_ns, grace))
		fail(ctx, "ratelab: cannot write the key's state");
	else
		reply_decision(ctx, verdict, &d);
	rl_limiter_release(&lim, state);
out:
	RedisModule_CloseKey(key);
	return REDISMODULE_OK;
}

/*
 * RATELAB.SETTLE key algo limit window_ns burst admitted_ns delta now_ns [grace_ms]
 * settles the request admitted at admitted_ns by delta units (settle.h);
 * replies with the key's reset_ns after it (a decimal string) and sets
 * the TTL a check would (that wait plus grace_ms; 0 deletes the key). A
 * key with no state (never admitted, or expired) is an error naming it.
 */
static int cmd_settle(RedisModuleCtx *ctx, RedisModuleString **argv, int argc)
{
	long long admitted, delta, grace = 0;
	int64_t now;
	int id;
	const struct rl_algo *algo;
	struct rl_rule rule;
	struct rl_limiter lim;
	char q[QUOTE_SIZE], q2[QUOTE_SIZE];

	if (argc != 9 && argc != 10)
		return RedisModule_WrongArity(ctx);
	if (!arg_algo(ctx, argv[2], &algo, &id) || !arg_nwb(ctx, argv + 3, algo, "", &rule) ||
	    !arg_limiter(ctx, algo, &rule, &lim) ||
	    !arg_int(ctx, argv[6], "admitted_ns", 0, RL_TIME_MAX_NS, &admitted) ||
	    !arg_int(ctx, argv[7], "delta", -RLM_COST_MAX, RLM_COST_MAX, &delta) || !arg_now(ctx, argv[8], &now) ||
	    (argc == 10 && !arg_int(ctx, argv[9], "grace_ms", 0, GRACE_MAX_MS, &grace)))
		return REDISMODULE_OK;
	if (delta == 0)
		return fail(ctx, "ratelab: delta '0' settles nothing: pass a non-zero integer in [%lld, %lld]",
			    -RLM_COST_MAX, RLM_COST_MAX);
	if (admitted > now)
		return fail(ctx, "ratelab: admitted_ns %s is after now_ns %s", quote_arg(q, argv[6]),
			    quote_arg(q2, argv[8]));

	RedisModuleKey *key = RedisModule_OpenKey(ctx, argv[1], REDISMODULE_READ | REDISMODULE_WRITE);
	struct stored_value v;
	_Alignas(16) unsigned char state[RL_ALGO_MAX_STATE] = { 0 };

	if (!stored(ctx, key, argv[1], id, &v))
		goto out;
	if (!v.body) {
		fail(ctx, "ratelab: key %s holds no state: nothing admitted to settle", quote_arg(q, argv[1]));
		goto out;
	}
	int got = load_state(&v, &lim, now, state);
	if (got) {
		if (got == -2)
			fail(ctx, "ratelab: out of memory");
		else
			damaged(ctx, argv[1], id);
		goto out;
	}
	int rc = rl_limiter_settle(&lim, state, admitted, delta, now);
	int64_t reset = rc == RL_OK ? rl_limiter_settled_reset_ns(&lim, state, now) : rc;
	char buf[24];
	if (rc != RL_OK || reset < 0) {
		fail(ctx, "ratelab: %s", rl_strerror(rc != RL_OK ? rc : (int)reset));
	} else if (!write_back(ctx, key, argv[1], &lim, id, state, reset, grace)) {
		fail(ctx, "ratelab: cannot write the key's state");
	} else {
		char *p = decimal((uint64_t)reset, buf + sizeof(buf));
		RedisModule_ReplyWithStringBuffer(ctx, p, (size_t)(buf + sizeof(buf) - p));
	}
	rl_limiter_release(&lim, state);
out:
	RedisModule_CloseKey(key);
	return REDISMODULE_OK;
}

/*
 * CHECKP's rules from argv[7..]: k rules of algo, each N W B U, checked as
 * CHECK checks one ("rule I: limit 'X' is not an integer in [1, 1000000]").
 * False after the error reply.
 */
static bool policy_args(RedisModuleCtx *ctx, RedisModuleString **argv, const struct rl_algo *algo, long long k,
			struct rl_policy *p)
{
	char what[48];

	*p = (struct rl_policy){ .count = (size_t)k };
	for (long long i = 0; i < k; i++) {
		RedisModuleString **a = argv + 7 + 4 * i;
		long long u;
		snprintf(what, sizeof(what), "rule %lld: ", i + 1);
		if (!arg_nwb(ctx, a, algo, what, &p->rules[i]))
			return false;
		snprintf(what, sizeof(what), "rule %lld: units", i + 1);
		if (!arg_int(ctx, a[3], what, 0, 1, &u))
			return false;
		p->units[i] = u == 1;
	}
	return true;
}

/*
 * The policy value v (RLM_POLICY_ID's body) into state, pl's policy state
 * zeroed by the caller: each rule's part read and converted as CHECK's
 * load_state reads a value. 0; -1 damaged; -2 out of memory; 1 and 2
 * after the error reply naming another algorithm or rule count.
 */
static int load_policy(RedisModuleCtx *ctx, RedisModuleString *name, const struct stored_value *v,
		       const struct rl_policy_limiter *pl, int id, int64_t now, void *state)
{
	struct rlm_policy_value pv;
	char q[QUOTE_SIZE];

	if (v->version < RLM_VERSION_V3 || rlm_policy_split(v->body, v->len, &pv) != 0)
		return -1;
	if (pv.algo_id != id) {
		const char *held = rlm_id_name(pv.algo_id);
		fail(ctx, "ratelab: key %s holds %s%s policy state, not %s", quote_arg(q, name), held ? held : "unknown",
		     held ? "" : " (a newer ratelab's?)", pl->rules[0].algo->name);
		return 1;
	}
	rl_policy_state_set_head(pl, state, pv.last_ns); /* first: rl_policy_release walks the rules it names */
	if (pv.count != pl->count) {
		fail(ctx, "ratelab: key %s holds a policy of %zu rules, not %zu", quote_arg(q, name), pv.count,
		     pl->count);
		return 2;
	}
	/* a changed rule converts at the time the policy decides at: the key's clamped time */
	int64_t at = now > pv.last_ns ? now : pv.last_ns;
	for (size_t i = 0; i < pl->count; i++) {
		const struct stored_value part = { pv.part[i], pv.part_len[i], v->version };
		int got = load_state(&part, &pl->rules[i], at, rl_policy_rule_state(pl, state, i));
		if (got) {
			rl_policy_release(pl, state);
			return got;
		}
	}
	return 0;
}

/* Writes a policy state back (policy_bytes.h) with CHECK's TTL, or deletes the key; replicates that. */
static bool write_policy(RedisModuleCtx *ctx, RedisModuleKey *key, RedisModuleString *name,
			 const struct rl_policy_limiter *pl, int id, void *state, int64_t reset_ns, long long grace_ms)
{
	long long ttl = reset_ns / NS_PER_MS + (reset_ns % NS_PER_MS != 0) + grace_ms;

	if (ttl <= 0) {
		if (RedisModule_KeyType(key) != REDISMODULE_KEYTYPE_EMPTY) {
			RedisModule_DeleteKey(key);
			RedisModule_Replicate(ctx, "DEL", "s", name);
		}
		return true;
	}
	size_t len = rlm_policy_len(pl, state);
	long long at = RedisModule_Milliseconds() + ttl;
	unsigned char *body = store(key, RLM_POLICY_ID, len, at);
	if (!body)
		return false;
	rlm_policy_put(pl, state, id, body);
	replicate_set(ctx, name, body, len, at);
	return true;
}

/* RATELAB.CHECKP key algo cost now_ns grace_ms k N1 W1 B1 U1 ... Nk Wk Bk Uk: the answer's
 * 1 + k groups of five (CHECK's reply each), then at_ns (docs/redis.md) */
static int cmd_checkp(RedisModuleCtx *ctx, RedisModuleString **argv, int argc)
{
	long long cost, grace, k;
	int64_t now;
	char msg[MSG_MAX - 32], q[QUOTE_SIZE];

	if (argc < 7)
		return RedisModule_WrongArity(ctx);
	const struct rl_algo *algo;
	int id;
	if (!arg_algo(ctx, argv[2], &algo, &id))
		return REDISMODULE_OK;
	if (!arg_int(ctx, argv[3], "cost", 1, RLM_COST_MAX, &cost) || !arg_now(ctx, argv[4], &now) ||
	    !arg_int(ctx, argv[5], "grace_ms", 0, GRACE_MAX_MS, &grace))
		return REDISMODULE_OK;
	/* the library's words for a rule count out of range (rl_policy_limiter_init) */
	if (RedisModule_StringToLongLong(argv[6], &k) != REDISMODULE_OK)
		return fail(ctx, "ratelab: rule count %s is not an integer in [1, %d]", quote_arg(q, argv[6]),
			    RL_POLICY_MAX_RULES);
	if (k < 1 || k > RL_POLICY_MAX_RULES)
		return fail(ctx, "ratelab: a policy has 1 to %d rules (got %lld)", RL_POLICY_MAX_RULES, k);
	if (argc != 7 + 4 * k)
		return fail(ctx, "ratelab: a policy of %lld rules takes %lld values after the rule count (N W B U "
			    "per rule), got %d", k, 4 * k, argc - 7);
	struct rl_policy p;
	if (!policy_args(ctx, argv, algo, k, &p))
		return REDISMODULE_OK;
	struct rl_policy_limiter pl;
	if (rl_policy_limiter_init(&pl, algo, &p, msg, sizeof(msg)) != RL_OK)
		return fail(ctx, "ratelab: %s", msg);

	RedisModuleKey *key = RedisModule_OpenKey(ctx, argv[1], REDISMODULE_READ | REDISMODULE_WRITE);
	struct stored_value v;
	_Alignas(16) unsigned char state[RL_POLICY_MAX_STATE] = { 0 };

	if (!stored(ctx, key, argv[1], RLM_POLICY_ID, &v))
		goto out;
	if (v.body) {
		int got = load_policy(ctx, argv[1], &v, &pl, id, now, state);
		if (got == -2)
			fail(ctx, "ratelab: out of memory");
		else if (got < 0)
			damaged(ctx, argv[1], id);
		if (got)
			goto out;
	}
	struct rl_policy_answer a;
	int verdict = rl_policy_check(&pl, state, now, cost, &a);
	if (verdict < 0) {
		fail(ctx, "ratelab: %s", rl_strerror(verdict));
	} else if (verdict == RL_REJECTED && a.all.retry_after_ns == RL_DURATION_MAX_NS) {
		/* a rule never admits the share: the key is as it was (policy.h), nothing written */
	} else if (!write_policy(ctx, key, argv[1], &pl, id, state, a.all.reset_ns, grace)) {
		fail(ctx, "ratelab: cannot write the key's state");
		verdict = -1;
	}
	if (verdict >= 0) {
		/* the groups, then at_ns: the time decided at (the clamped now, a settle's admitted_ns) */
		char buf[24], *at = decimal((uint64_t)a.at_ns, buf + sizeof(buf));
		RedisModule_ReplyWithArray(ctx, 5 * (long)(a.count + 1) + 1);
		reply_fields(ctx, verdict, &a.all);
		for (size_t i = 0; i < a.count; i++)
			reply_fields(ctx, a.verdict[i], &a.rule[i]);
		RedisModule_ReplyWithStringBuffer(ctx, at, (size_t)(buf + sizeof(buf) - at));
	}
	rl_policy_release(&pl, state);
out:
	RedisModule_CloseKey(key);
	return REDISMODULE_OK;
}

/* RATELAB.BREAKER key now limit window open_for grace_ms handle|state */
static int cmd_breaker(RedisModuleCtx *ctx, RedisModuleString **argv, int argc)
{
	long long limit, window, open_for, grace;
	int64_t now;
	char msg[MSG_MAX - 32];

	if (argc != 8)
		return RedisModule_WrongArity(ctx);
	size_t alen;
	const char *action = RedisModule_StringPtrLen(argv[7], &alen);
	bool handle = alen == 6 && memcmp(action, "handle", 6) == 0;
	if (!handle && !(alen == 5 && memcmp(action, "state", 5) == 0)) {
		char q[QUOTE_SIZE];
		return fail(ctx, "ratelab: breaker action %s is not handle or state", quote(q, action, alen));
	}
	if (!arg_now(ctx, argv[2], &now) || !arg_int(ctx, argv[3], "limit", 1, RL_BREAKER_LIMIT_MAX, &limit) ||
	    !arg_int(ctx, argv[4], "window", 1, BREAKER_SPAN_MAX, &window) ||
	    !arg_int(ctx, argv[5], "open time", 1, BREAKER_SPAN_MAX, &open_for) ||
	    !arg_int(ctx, argv[6], "grace_ms", 0, GRACE_MAX_MS, &grace))
		return REDISMODULE_OK;
	struct rl_breaker br;
	if (rl_breaker_init(&br, limit, window, open_for, msg, sizeof(msg)) != RL_OK)
		return fail(ctx, "ratelab: %s", msg);

	RedisModuleKey *key = RedisModule_OpenKey(ctx, argv[1], REDISMODULE_READ | REDISMODULE_WRITE);
	struct stored_value v;

	if (!stored(ctx, key, argv[1], RLM_BREAKER_ID, &v))
		goto out;
	if (v.body) {
		int got = rlm_breaker_get(&br, v.body, v.len);
		if (got == -2) {
			fail(ctx, "ratelab: out of memory");
			goto out;
		}
		if (got) {
			damaged(ctx, argv[1], RLM_BREAKER_ID);
			goto out;
		}
	}
	enum rl_breaker_state stored_state = br.state, before = br.state;
	int rc = handle ? rl_breaker_handle(&br, now, &before) : rl_breaker_state_at(&br, now, &before);
	if (rc == RL_EORDER) {
		RedisModule_ReplyWithArray(ctx, 2);
		RedisModule_ReplyWithLongLong(ctx, RL_EORDER);
		RedisModule_ReplyWithLongLong(ctx, stored_state);
	} else if (rc < 0) {
		fail(ctx, "ratelab: %s", rl_strerror(rc));
	} else {
		long long at = grace ? RedisModule_Milliseconds() + grace : 0;
		size_t blen = rlm_breaker_len(&br);
		unsigned char *out = store(key, RLM_BREAKER_ID, blen, at);
		if (!out) {
			fail(ctx, "ratelab: cannot write the key's state");
		} else {
			rlm_breaker_put(&br, out);
			replicate_set(ctx, argv[1], out, blen, at);
			RedisModule_ReplyWithArray(ctx, 2);
			RedisModule_ReplyWithLongLong(ctx, rc);
			RedisModule_ReplyWithLongLong(ctx, before);
		}
	}
out:
	rl_breaker_destroy(&br);
	RedisModule_CloseKey(key);
	return REDISMODULE_OK;
}

RLM_EXPORT int RedisModule_OnLoad(RedisModuleCtx *ctx, RedisModuleString **argv, int argc)
{
	if (rm_api_init(ctx, "ratelab", 1) != REDISMODULE_OK)
		return REDISMODULE_ERR;
	if (argc > 0) {
		size_t len;
		const char *a = RedisModule_StringPtrLen(argv[0], &len);
		RedisModule_Log(ctx, "warning", "ratelab: MODULE LOAD takes no arguments, got '%.*s'",
				(int)(len < 64 ? len : 64), a);
		return REDISMODULE_ERR;
	}
	char msg[128];
	if (rlm_ids_init(msg, sizeof(msg)) != 0) {
		RedisModule_Log(ctx, "warning", "ratelab: %s", msg);
		return REDISMODULE_ERR;
	}
	/* one key, the first argument: Redis Cluster routes by it */
	if (RedisModule_CreateCommand(ctx, "ratelab.check", cmd_check, "write deny-oom", 1, 1, 1) != REDISMODULE_OK ||
	    RedisModule_CreateCommand(ctx, "ratelab.breaker", cmd_breaker, "write deny-oom", 1, 1, 1) != REDISMODULE_OK ||
	    RedisModule_CreateCommand(ctx, "ratelab.settle", cmd_settle, "write deny-oom", 1, 1, 1) != REDISMODULE_OK ||
	    RedisModule_CreateCommand(ctx, "ratelab.checkp", cmd_checkp, "write deny-oom", 1, 1, 1) != REDISMODULE_OK)
		return REDISMODULE_ERR;
	return REDISMODULE_OK;
}
