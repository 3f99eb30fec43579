/*
 * redis.h - the limiters' state in Redis, so that a fleet of servers shares
 * one quota. Part of the library only when hiredis is found at build time
 * (the ratelab_redis target, RATELAB_HAVE_REDIS defined for its users).
 *
 * Every algorithm is one Lua script (algos/redis/lua/NAME.lua, embedded at
 * build time and found by the algorithm's name; an algorithm with none is
 * refused: rl_redis_supports),
 * loaded with SCRIPT LOAD and run with EVALSHA (reloaded on NOSCRIPT), that
 * reads, decides and writes one key's state atomically: Redis runs a
 * script alone, so clients racing on a key admit exactly what one client
 * would. The scripts decide exactly as the in-process algorithms (algo.h):
 * the same verdict, remaining, retry_after_ns, reset_ns and delay_ns for
 * every rule, request cost (rl_limiter_check_n) (W up to 10^18 ns, times up to 4 * 10^18 ns). Lua
 * 5.1 numbers are doubles, exact only below 2^53, so the scripts work on
 * two tracks. The fast one computes on Lua numbers while every value it
 * keeps is below 2^51 (so that sums stay below 2^53, products are checked,
 * quotients corrected by their remainder), with times, and N * time, held
 * as pairs (value div 10^9, value mod 10^9): the rules need only the gaps
 * between now and the stored instants, exact as doubles up to 2^53 ns.
 * A rule or state beyond (a product of the rule above 2^51, a gap of a
 * month or more) takes the wide track: every integer an array of base-10^7
 * limbs (each limb product below 10^14 < 2^53), schoolbook addition,
 * subtraction and multiplication, and division by estimating the quotient
 * from the leading digits (shrunk so it never overshoots) and correcting.
 * Both write the same state; values cross the wire as decimal strings.
 * Counts (at most 10^6 units), costs (at most 10^9) and the TTL in ms
 * stay plain numbers: the Redis backend keeps these bounds of its own,
 * below the library's 10^12 (rule.h), RL_REDIS_LIMIT_MAX,
 * RL_REDIS_BURST_MAX and RL_REDIS_COST_MAX; a rule or cost beyond them is
 * RL_EINVAL.
 *
 * Keys: the state of KEY lives in the string PREFIX{KEY}, in the stored
 * form the module writes (docs/redis.md, "Stored form": a header, the rule
 * it was written under, the library's state bytes), so a key moves between
 * the scripts and the module with nothing lost; the braces keep it in one
 * Redis Cluster hash slot. A key holding another algorithm's state, or
 * another type, is an error (RL_EREDIS, rl_redis_error names it), never a
 * decision. A state that no valid rule could have written is damaged: the
 * request is decided by the rule's policy (fallback) and counted in
 * errors, rl_redis_error naming the key and algorithm. A state written
 * under another rule is converted to the request's (docs/redis.md, "A rule
 * change").
 *
 * Clock: a caller passing now_ns gets the in-process semantics bit for bit
 * (tests, replay), but servers with skewed clocks then disagree about a
 * shared key (a fast clock's request makes the key's "last seen" time run
 * ahead and everyone else is clamped to it). now_ns = RL_REDIS_NOW makes the
 * script read Redis's TIME instead: one clock for the fleet at the cost of
 * the network delay counted as part of the wait.
 *
 * TTL: every write sets the key's TTL to its reset_ns (the time back to
 * full quota, rounded up to ms) plus the connection's ttl_grace_ms, so idle
 * keys vanish by themselves; a key whose TTL would be 0 is deleted. A key
 * that vanished decides like a fresh one, which changes no verdict at later
 * times; only a request with a time before the vanished key's last seen
 * time (the clamp rule) is then decided at its own time. Replays of logical
 * time give a long grace. The breaker's keys live for the grace alone
 * (0: no expiry), its time unit being the caller's.
 *
 * Faults: a decision takes at most its rule's timeout_ms (else the
 * connection's command_timeout_ms): connecting, loading the scripts and
 * the round trip all fit in that budget. When Redis is down, slow or the
 * connection breaks, the decision is the rule's policy (fail_closed:
 * rejected, else allowed; remaining, retry_after_ns, reset_ns 0) and
 * counted in fallbacks. A key whose stored state is damaged (a value that
 * fails the state checks: "key 'K' holds a damaged ALGO state") is an
 * outage of that key: the policy decides (fallback set) and it is counted
 * in errors, its message in rl_redis_error. A broken connection is dropped; the next attempt
 * waits backoff_min_ms, doubling per failure up to backoff_max_ms (checks in
 * between fall back at once); a successful reconnection counts in
 * reconnects. SIGPIPE from a dead server is blocked and consumed around
 * every write, never delivered.
 *
 * Cluster: host:port may be any node of a Redis Cluster. The first
 * connection asks CLUSTER INFO; on a cluster node the handle reads the slot
 * map (CLUSTER SLOTS) and sends each request to its key's master (one
 * pipeline per master for a batch), following MOVED (map re-read) and ASK
 * (slot being migrated), and sends a script a master lacks as EVAL. A
 * batch's requests for one key keep their order. Times out per node at the
 * connection's command_timeout_ms (rules' timeout_ms bound only the
 * TRYAGAIN retries); a request no master answered follows its policy.
 * Every script names one key, so it decides exactly throughout a
 * migration.
 *
 * Module: when the server has ratelab.so loaded (algos/redis/module: the
 * library's own algorithms inside Redis), probed once per connection with
 * COMMAND INFO ratelab.check, every decision is one RATELAB.CHECK (the
 * breaker RATELAB.BREAKER) instead of a script: the same answers, the same
 * TTLs, the same stored form: a key written by one is continued by the
 * other (a failover to a replica without the module, a rolling upgrade).
 * rl_redis_stats tells which is in use;
 * scripts_only, or RATELAB_REDIS_SCRIPTS=1 in the environment, keeps to
 * the scripts. In a cluster every master must load the module when the
 * seed node has it.
 *
 * Policies (policy.h): rl_redis_policy_check decides one request by every
 * rule of a policy at once, all or nothing, with one command: RATELAB.CHECKP
 * where the server has the module, else the script policy_ALGO (lua/
 * policy/driver.lua: each rule decided by its algorithm's one-rule script
 * on its part of the value); both answer rl_policy_check's answer on the
 * same requests and store the same bytes (docs/redis.md, "Policies and
 * shadow mode in Redis"). The key's value holds the rules' states together
 * (a policy value, not a one-rule one: a key is either).
 *
 * Shadow mode (policy.h's, issue 44): a handle made with shadow set (its
 * one-rule checks), or a policy limiter in shadow mode
 * (rl_policy_set_shadow), is decided and its key
 * kept in Redis exactly as when enforcing, but every request Redis
 * decided is admitted: one Redis refused answers RL_ALLOWED with
 * would_reject set and the answer it would have had (retry_after_ns >= 1),
 * and is counted in the stats' would_reject. A request Redis could not
 * decide follows the rule's policy (fail_closed) as when enforcing.
 *
 * Tiers: the backend's settings of a tier live in the tier file
 * (registry.h) as extra keys, those of the table rl_redis_tier_keys, which
 * the caller passes to rl_registry_load_with:
 *
 *   redis_timeout = 50ms   the tier's budget per decision (its rule's
 *                          timeout_ms), whole ms in [1ms, 60s], bare: ms
 *                          (default: the connection's command_timeout_ms);
 *                          the tier's on_error is the rule's policy
 *
 * ratelab check shows it as redis_timeout_ms=T (the key's label; T 0: the
 * connection's own).
 *
 * Concurrency: one struct rl_redis is one connection (or one set of
 * per-node connections), for one thread at a time; threads each create
 * their own.
 */
#ifndef RATELAB_REDIS_H
#define RATELAB_REDIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ratelab/algo.h"
#include "ratelab/breaker.h"
#include "ratelab/policy.h"
#include "ratelab/registry.h"

/* The Redis backend's bounds (stored form v4, the scripts' numbers). */
#define RL_REDIS_LIMIT_MAX 1000000LL
#define RL_REDIS_BURST_MAX 1000000000LL
#define RL_REDIS_COST_MAX 1000000000LL

#ifdef __cplusplus
extern "C" {
#endif

/* As now_ns: the script reads Redis's TIME. */
#define RL_REDIS_NOW (-1)

/* A key is at most this many bytes. */
#define RL_REDIS_KEY_MAX 512

struct rl_redis_config {
	const char *host;           /* IPv4/IPv6 address or name; NULL: 127.0.0.1 */
	int port;                   /* 1..65535 */
	int64_t connect_timeout_ms; /* cap on connecting, 1..60000; 0: 200 */
	int64_t command_timeout_ms; /* a decision's budget, 1..60000; 0: 200 */
	int64_t backoff_min_ms;     /* first wait before reconnecting, 1..60000; 0: 10 */
	int64_t backoff_max_ms;     /* longest wait, backoff_min_ms..600000; 0: 1000 */
	int64_t ttl_grace_ms;       /* added to every key's TTL, 0..10^12 */
	const char *prefix;         /* key prefix, at most 64 bytes, no '{'; NULL: "rl:" */
	bool scripts_only;          /* the scripts even where the server has the module */
	bool shadow;                /* shadow mode (above) for every one-rule check of the handle */
};

struct rl_redis_rule {
	const struct rl_limiter *lim; /* an initialised limiter (rl_limiter_init) */
	bool fail_closed;             /* the policy when Redis cannot decide */
	int64_t timeout_ms;           /* this rule's budget, 1..60000 ms; 0: the connection's */
};

/* One request of a batch. */
struct rl_redis_req {
	const struct rl_redis_rule *rule;
	const char *key;
	size_t key_len;  /* 1..RL_REDIS_KEY_MAX bytes, any bytes */
	int64_t now_ns;  /* 0..RL_TIME_MAX_NS, or RL_REDIS_NOW */
	int64_t cost;    /* units, 1..RL_COST_MAX (cost.md's semantics); 0 is taken as 1 */
};

struct rl_redis_answer {
	int rc;               /* RL_ALLOWED, RL_REJECTED, or a negative status */
	bool fallback;        /* rc is the rule's policy: Redis could not decide */
	struct rl_decision d; /* as algo.h when Redis decided; zeros otherwise */
	bool would_reject;    /* shadow mode: Redis refused it, rc is RL_ALLOWED */
};

struct rl_redis_stats {
	uint64_t decided;     /* requests Redis decided */
	uint64_t fallbacks;   /* requests the policy decided */
	uint64_t errors;      /* requests Redis answered with an error */
	uint64_t reconnects;  /* connections made again after one was lost */
	uint64_t round_trips; /* pipelined exchanges with Redis */
	bool connected;
	bool module;          /* decisions by the module (RATELAB.CHECK), not the scripts */
	uint64_t would_reject; /* shadow mode: requests admitted that Redis refused */
};

struct rl_redis;

/*
 * Checks cfg and creates a handle. It connects on first use, so it
 * succeeds with Redis down. RL_OK, RL_EINVAL (msg names the field and
 * value) or RL_ENOMEM.
 */
int rl_redis_create(struct rl_redis **out, const struct rl_redis_config *cfg, char *msg,
		    size_t msg_len);
void rl_redis_destroy(struct rl_redis *r);

/*
 * RL_OK when algo has a Redis script (the one named as the algorithm),
 * else RL_EINVAL with "no Redis script for NAME" in msg (when not NULL):
 * a rule of such an algorithm is refused by every check (RL_EINVAL).
 */
int rl_redis_supports(const struct rl_algo *algo, char *msg, size_t msg_len);

/*
 * Decides one request in Redis. Returns RL_ALLOWED or RL_REJECTED (Redis's
 * verdict, or the rule's policy when Redis could not decide, which
 * rl_redis_stats counts), RL_EREDIS (Redis answered an error: see
 * rl_redis_error), RL_ERANGE (now_ns) or RL_EINVAL (the key's length or a
 * NULL argument). out (may be NULL) receives the answer.
 */
int rl_redis_check(struct rl_redis *r, const struct rl_redis_rule *rule, const char *key,
		   size_t key_len, int64_t now_ns, struct rl_decision *out);

/* rl_redis_check for a request of cost units, 1..RL_COST_MAX (else RL_EINVAL). */
int rl_redis_check_n(struct rl_redis *r, const struct rl_redis_rule *rule, const char *key,
		     size_t key_len, int64_t now_ns, int64_t cost, struct rl_decision *out);

/*
 * Settles in Redis the request admitted at admitted_ns by delta units
 * (settle.h; RATELAB.SETTLE through the module, else settle.lua): the
 * same meaning as rl_limiter_settle on the key's state, which then gets
 * the TTL a check gives it (reset plus the grace). now_ns may be
 * RL_REDIS_NOW. RL_OK (*reset_ns, when not NULL, the key's wait until
 * its quota is back after the settle), RL_EREDIS (rl_redis_error says
 * why: Redis's error, such as "ratelab: key 'K' holds no state: nothing
 * admitted to settle" for a key never admitted or expired, so a grace
 * longer than the slowest response keeps a key to settle; or no reply:
 * nothing is applied, and no policy stands in for a settle), RL_ERANGE
 * (a time out of range, admitted_ns after now_ns) or RL_EINVAL (delta 0
 * or beyond RL_COST_MAX, the key's length, a NULL argument).
 */
int rl_redis_settle(struct rl_redis *r, const struct rl_redis_rule *rule, const char *key, size_t key_len,
		    int64_t admitted_ns, int64_t delta, int64_t now_ns, int64_t *reset_ns);

/*
 * Decides n requests with one pipelined round trip, in order (the answers
 * equal n calls of rl_redis_check_n). The batch's budget is the least
 * timeout among its rules. Requests refused with NOSCRIPT (the server
 * restarted or flushed its scripts) are sent again, in their order, after
 * the scripts are reloaded: only then can a key's requests of one batch be
 * applied out of order. Returns RL_OK (each answer's rc says the rest)
 * or RL_EINVAL (a NULL argument).
 */
int rl_redis_check_batch(struct rl_redis *r, const struct rl_redis_req *reqs, size_t n,
			 struct rl_redis_answer *ans);

/* A policy in Redis (above, "Policies"). */
struct rl_redis_policy {
	const struct rl_policy_limiter *pl; /* rl_policy_limiter_init'ed; its shadow mode applies */
	bool fail_closed;                   /* the policy when Redis cannot decide */
	int64_t timeout_ms;                 /* 1..60000 ms; 0: the connection's */
};

/*
 * Decides one request of cost units (1..RL_COST_MAX) at now_ns by every
 * rule of p->pl in Redis, atomically. Returns RL_ALLOWED or RL_REJECTED
 * (Redis's verdict; in shadow mode RL_ALLOWED; or p's fail_closed when
 * Redis could not decide, counted in fallbacks, out's fields then 0),
 * RL_EREDIS (Redis answered an error, rl_redis_error; a damaged value is
 * decided by fail_closed and counted in errors, as rl_redis_check's),
 * RL_ERANGE (now_ns) or RL_EINVAL (the key's length, cost, timeout, a NULL
 * argument). out (may be NULL) receives rl_policy_check's answer, at_ns
 * included (the time Redis decided at, the key's clamped now: Redis's
 * clock's for RL_REDIS_NOW, so a settle's admitted_ns is known even then);
 * at_ns is -1 when Redis did not decide (a fallback, an error).
 */
int rl_redis_policy_check(struct rl_redis *r, const struct rl_redis_policy *p, const char *key, size_t key_len,
			  int64_t now_ns, int64_t cost, struct rl_policy_answer *out);

/* The longest breaker window and open time in Redis (the module's and the
 * scripts' bound, README's: 1..10^9 in the caller's unit). */
#define RL_REDIS_BREAKER_SPAN_MAX 1000000000LL

/* The breaker (breaker.h) of one key in Redis. */
struct rl_redis_breaker {
	int64_t limit, window, open_for; /* as rl_breaker_init; times in the caller's unit */
	bool fail_closed;                /* the policy when Redis cannot decide */
	int64_t timeout_ms;              /* 0: the connection's */
};

/*
 * Validates b as rl_breaker_init does, with window and open_for at most
 * RL_REDIS_BREAKER_SPAN_MAX: RL_OK or RL_EINVAL with a reason.
 */
int rl_redis_breaker_validate(const struct rl_redis_breaker *b, char *msg, size_t msg_len);

/*
 * With record, rl_breaker_handle on the key's breaker: returns RL_ALLOWED
 * or RL_REJECTED and the state before; without, rl_breaker_state_at (RL_OK
 * and the state). RL_EORDER / RL_ERANGE as breaker.h, RL_EREDIS as above.
 * When Redis cannot decide, handle returns the policy's verdict and
 * *before is RL_BREAKER_CLOSED (fail open) or RL_BREAKER_OPEN.
 */
int rl_redis_breaker_call(struct rl_redis *r, const struct rl_redis_breaker *b, const char *key,
			  size_t key_len, int64_t now, bool record, enum rl_breaker_state *before);

void rl_redis_stats(const struct rl_redis *r, struct rl_redis_stats *out);

/* The last error: Redis's error reply or the connection's failure. */
const char *rl_redis_error(const struct rl_redis *r);

/* rl_strerror (RL_EREDIS is in its list, status.h). */
const char *rl_redis_strerror(int status);

/*
 * The backend's tier keys (registry.h's extra keys; above, "Tiers"): sets
 * *keys to the table and returns its length. The table goes to
 * rl_registry_load_with alone, or copied into a larger one from place
 * base on (rl_redis_tier_timeout_ms).
 */
size_t rl_redis_tier_keys(const struct rl_tier_key **keys);

/*
 * Tier t's redis_timeout in ms, 1..60000, for its rl_redis_rule's
 * timeout_ms; 0 (the connection's own) when the tier gives none. base:
 * the place of rl_redis_tier_keys's first key in the table t's registry
 * was loaded with (0: that table alone).
 */
int64_t rl_redis_tier_timeout_ms(const struct rl_tier *t, size_t base);

#ifdef __cplusplus
}
#endif
#endif
