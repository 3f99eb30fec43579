/*
 * redis_policy.c - a policy's decision in Redis (redis.h, "Policies"):
 * one RATELAB.CHECKP (the module) or one policy_ALGO script (the scripts)
 * per request, its reply read into rl_policy_check's answer, shadow mode
 * applied on this side (Redis decides as enforcing).
 *
 *   RATELAB.CHECKP PREFIX{key} algo cost now_ns|* grace_ms k
 *                  N1 W1 B1 U1 ... Nk Wk Bk Uk
 *   EVALSHA sha 1 PREFIX{key} now_ns|'' k 0 0 grace_ms cost N1 W1 B1 U1 ...
 *
 * The reply: the combined answer and each rule's, five values each, then
 * at_ns (the time decided at: Redis's clock's when now is '*' or '').
 *
 * Invariant: every call ends with exactly one of Redis's verdict
 * (decided), the fallback (fallbacks) or an error (errors), as redis.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arith.h"
#include "redis_call.h"
#include "redis_resp.h"

/* the longer head of the two commands: EVALSHA sha 1 key now k 0 0 grace cost */
enum { FIXED_ARGS = 10, NUM_LEN = 24, KEY_BUF = 64 + RL_REDIS_KEY_MAX + 4 };

struct checkp {
	struct rl_redis *r;
	const struct rl_policy_limiter *pl;
	const char *key;
	size_t key_len;
	int64_t now_ns, cost;
	char keybuf[KEY_BUF];
	char num[4 + 4 * RL_POLICY_MAX_RULES][NUM_LEN];
};
_Static_assert(FIXED_ARGS + 4 * RL_POLICY_MAX_RULES <= RL__REDIS_CALL_ARGS, "a policy's command fits");

/* One more argument, a decimal of v in c's next number buffer. */
static void put_num(struct checkp *c, int *slot, int *argc, const char **argv, size_t *len, int64_t v)
{
	len[*argc] = rl__redis_decimal(c->num[*slot], v);
	argv[(*argc)++] = c->num[(*slot)++];
}

static void put_str(int *argc, const char **argv, size_t *len, const char *s)
{
	len[*argc] = strlen(s);
	argv[(*argc)++] = s;
}

/*
 * The module's RATELAB.CHECKP PREFIX{key} algo cost now grace k rules, or
 * the script's EVALSHA sha 1 PREFIX{key} now k 0 0 grace cost rules
 * (lua/policy/driver.lua); now '*' or '' for Redis's clock.
 */
static void build(void *arg, bool module, const char *sha, int *argc, const char **argv, size_t *len, int *key)
{
	struct checkp *c = arg;
	const struct rl_policy_limiter *pl = c->pl;
	const char *prefix = rl__redis_prefix(c->r);
	size_t p = strlen(prefix);
	int slot = 0;

	memcpy(c->keybuf, prefix, p);
	c->keybuf[p] = '{';
	memcpy(c->keybuf + p + 1, c->key, c->key_len);
	c->keybuf[p + 1 + c->key_len] = '}';
	*argc = 0;
	if (module) {
		put_str(argc, argv, len, "RATELAB.CHECKP");
		*key = *argc;
		argv[*argc] = c->keybuf, len[(*argc)++] = p + 2 + c->key_len;
		put_str(argc, argv, len, pl->rules[0].algo->name);
		put_num(c, &slot, argc, argv, len, c->cost);
	} else {
		put_str(argc, argv, len, "EVALSHA");
		argv[*argc] = sha, len[(*argc)++] = 40;
		put_str(argc, argv, len, "1");
		*key = *argc;
		argv[*argc] = c->keybuf, len[(*argc)++] = p + 2 + c->key_len;
	}
	if (c->now_ns == RL_REDIS_NOW)
		put_str(argc, argv, len, module ? "*" : "");
	else
		put_num(c, &slot, argc, argv, len, c->now_ns);
	if (module) {
		put_num(c, &slot, argc, argv, len, rl__redis_grace_ms(c->r));
		put_num(c, &slot, argc, argv, len, (int64_t)pl->count);
	} else {
		put_num(c, &slot, argc, argv, len, (int64_t)pl->count);
		put_str(argc, argv, len, "0");
		put_str(argc, argv, len, "0");
		put_num(c, &slot, argc, argv, len, rl__redis_grace_ms(c->r));
		put_num(c, &slot, argc, argv, len, c->cost);
	}
	for (size_t i = 0; i < pl->count; i++) {
		const struct rl_rule *rule = &pl->rules[i].rule;
		put_num(c, &slot, argc, argv, len, rule->limit);
		put_num(c, &slot, argc, argv, len, rule->window_ns);
		/* a window algorithm has no burst: B = N, as the stored form keeps it */
		put_num(c, &slot, argc, argv, len, pl->rules[i].algo->uses_burst ? rule->burst : rule->limit);
		put_num(c, &slot, argc, argv, len, pl->units[i]);
	}
}

static int64_t field(const redisReply *e)
{
	if (e->type == REDIS_REPLY_INTEGER)
		return e->integer;
	if (e->type == REDIS_REPLY_STRING)
		return strtoll(e->str, NULL, 10);
	return 0;
}

/* Five values of the reply from at: a verdict and its answer. */
static int take(const redisReply *rep, size_t at, struct rl_decision *d)
{
	d->remaining = field(rep->element[at + 1]);
	d->retry_after_ns = field(rep->element[at + 2]);
	d->reset_ns = field(rep->element[at + 3]);
	d->delay_ns = field(rep->element[at + 4]);
	return field(rep->element[at]) ? RL_ALLOWED : RL_REJECTED;
}

/* "ratelab: key 'K' holds a damaged ALG state": an outage of that key (redis.c's damaged()). */
static bool damaged(const redisReply *rep)
{
	static const char head[] = "ratelab: key '", tail[] = " state";
	size_t tl = sizeof(tail) - 1;

	return rep->type == REDIS_REPLY_ERROR && strncmp(rep->str, head, sizeof(head) - 1) == 0 &&
	       strstr(rep->str, "' holds a damaged ") && rep->len >= tl && strcmp(rep->str + rep->len - tl, tail) == 0;
}

int rl_redis_policy_check(struct rl_redis *r, const struct rl_redis_policy *p, const char *key, size_t key_len,
			  int64_t now_ns, int64_t cost, struct rl_policy_answer *out)
{
	struct rl_policy_answer local;
	struct rl_policy_answer *a = out ? out : &local;

	if (!r || !p || !p->pl || !key || key_len == 0 || key_len > RL_REDIS_KEY_MAX || p->pl->count == 0 ||
	    p->pl->count > RL_POLICY_MAX_RULES || p->timeout_ms < 0 || p->timeout_ms > 60000 || cost < 1 ||
	    cost > RL_REDIS_COST_MAX)
		return RL_EINVAL;
	for (size_t i = 0; i < p->pl->count; i++) /* the backend's own bounds (redis.h), below the library's */
		if (p->pl->rules[i].rule.limit > RL_REDIS_LIMIT_MAX || p->pl->rules[i].rule.burst > RL_REDIS_BURST_MAX)
			return RL_EINVAL;
	if (now_ns != RL_REDIS_NOW && !rl__time_ok(now_ns))
		return RL_ERANGE;

	const struct rl_policy_limiter *pl = p->pl;
	struct rl_redis_stats *st = rl__redis_counters(r);
	struct checkp c = { .r = r, .pl = pl, .key = key, .key_len = key_len, .now_ns = now_ns, .cost = cost };
	redisReply *rep;
	int fallback = p->fail_closed ? RL_REJECTED : RL_ALLOWED;
	char script[48];

	memset(a, 0, sizeof(*a));
	a->count = pl->count;
	a->at_ns = -1;
	snprintf(script, sizeof(script), "policy_%s", pl->rules[0].algo->name);
	int sent = rl__redis_call(r, p->timeout_ms ? p->timeout_ms : rl__redis_timeout_ms(r), script, build, &c, &rep);
	if (sent == RL__REDIS_DOWN) {
		st->fallbacks++;
		return pl->shadow ? RL_ALLOWED : fallback;
	}
	if (sent == RL__REDIS_NO_SCRIPT) {
		rl__redis_set_error(r, "redis: no Redis script for a policy of %s", pl->rules[0].algo->name);
		st->errors++;
		return RL_EREDIS;
	}
	int rc;
	if (rep->type == REDIS_REPLY_ARRAY && rep->elements == 5 * (pl->count + 1) + 1) {
		rc = take(rep, 0, &a->all);
		for (size_t i = 0; i < pl->count; i++)
			a->verdict[i] = take(rep, 5 * (i + 1), &a->rule[i]);
		a->at_ns = field(rep->element[5 * (pl->count + 1)]);
		st->decided++;
		if (pl->shadow && rc == RL_REJECTED) {
			rc = RL_ALLOWED;
			a->would_reject = true;
			st->would_reject++;
		}
	} else {
		rl__redis_set_error(r, "redis: %s",
				    rep->type == REDIS_REPLY_ERROR ? rep->str : "unexpected reply to RATELAB.CHECKP");
		st->errors++;
		rc = damaged(rep) ? (pl->shadow ? RL_ALLOWED : fallback) : RL_EREDIS;
	}
	freeReplyObject(rep);
	return rc;
}
