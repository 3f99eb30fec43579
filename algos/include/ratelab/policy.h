/*
 * policy.h - a policy: one algorithm and 1 to RL_POLICY_MAX_RULES rules,
 * decided together ("10 per second and 1,000 per hour"; "60 requests and
 * 90,000 tokens per minute").
 *
 * Text: rules "N/W[:bB][:units]" joined by '+' (spaces around a '+' are
 * ignored): "10/1s+1000/1h", "60/1m+90000/1m:units". Each rule's
 * "N/W[:bB]" is read by rl_rule_parse (rule.h), with its words. A rule
 * marked ":units" counts the request's cost c (algo.h); the others count
 * every request as 1 whatever its cost.
 *
 * Decision. A request is admitted iff every rule admits it, each rule
 * deciding its share (c or 1) on its own state exactly as that rule's
 * limiter alone would; then every rule takes its share, and when it is
 * refused no rule takes anything: all or nothing. Each rule is decided on
 * a private copy of its state (sliding_log, whose state owns a ring, on a
 * probe that takes nothing) and the copies are committed only when all
 * admit. The key has one last seen time, moved by every request, admitted
 * or refused, as a single rule's is (algo.h: an earlier time is decided as
 * if it came at that one), but not by a request some rule can never admit
 * (its retry_after_ns RL_DURATION_MAX_NS), which leaves the key exactly as
 * it was, nor by an error.
 *
 * Answers (struct rl_policy_answer). Per rule, the rule's own verdict and
 * its check's answer as if it stood alone at this instant (so when the
 * policy refuses, a rule that would have admitted answers retry_after_ns
 * 0 and a remaining that counts this request as taken by it). Combined:
 *   remaining       the least of the rules' remaining;
 *   retry_after_ns  0 when admitted; else the largest of the rules' waits,
 *                   RL_DURATION_MAX_NS when a rule never admits the share;
 *   reset_ns        the largest of the rules' reset_ns;
 *   delay_ns        the largest of the rules' delay_ns (leaky_bucket: a
 *                   request leaves when every queue has served it).
 * The combined retry_after_ns is the earliest time every rule admits the
 * request, exactly, because for every algorithm a rule that admits a
 * share at now + d (nothing else arriving) admits it at every later time:
 *   token_bucket, gcra   the tokens (the distance of TAT to now) only
 *                        grow with time, up to the burst;
 *   leaky_bucket         the queue's wait only shrinks with time;
 *   fixed_window         later times stay in the same window (same count)
 *                        or reach a later one, whose count is 0;
 *   sliding_log          the units in (t - W, t] only fall as t grows;
 *   sliding_counter      prev * (W - e) + curr * W falls as e grows, and at
 *                        a window's end it equals curr * W, which the next
 *                        window starts from (then falls to 0).
 * So each rule's set of admitting waits is [d_i, infinity), d_i its own
 * retry_after_ns, and their intersection starts at max(d_i).
 *
 * Shadow mode (rl_policy_set_shadow): every request is decided, and the
 * key's state kept, exactly as when enforcing, but rl_policy_check
 * returns RL_ALLOWED for every request; one the policy would have refused
 * has would_reject set in the answer and keeps the answer it would have
 * had (retry_after_ns >= 1: so through rl_limiter's check, which has no
 * would_reject, an RL_ALLOWED with retry_after_ns > 0 is a would-reject),
 * and is counted (rl_policy_would_reject).
 *
 * Memory per key: rl_policy_state_size(algo, k) = 16 + k * (the
 * algorithm's state_size rounded up to 8) bytes: a header (the last seen
 * time, the rule count and the algorithm) and the k states side by side:
 * 16 + 24 k for gcra, token_bucket, leaky_bucket and fixed_window,
 * 16 + 32 k for sliding_counter, 16 + 40 k for sliding_log plus its
 * rings (at most 16 + 8 * 40 = 336 bytes, within RL_STORE_MAX_STATE). A
 * zeroed state is a fresh key.
 *
 * Concurrency: an rl_policy_limiter is immutable after init; a key's
 * state is not synchronised here (rl_store and rl_limit do that, limit.h).
 * It holds pointers into itself: it must not be copied or moved after
 * init (rl_policy_as_limiter's limiter may be copied, and stays valid
 * while the policy limiter lives).
 */
#ifndef RATELAB_POLICY_H
#define RATELAB_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ratelab/algo.h"
#include "ratelab/rule.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RL_POLICY_MAX_RULES 8

/* Bytes: the largest per-key state of a policy (rl_policy_state_size). */
#define RL_POLICY_MAX_STATE (16 + RL_POLICY_MAX_RULES * RL_ALGO_MAX_STATE)

/* A policy's rules as read: plain values, valid when zeroed (no rule). */
struct rl_policy {
	size_t count;                             /* rules, 1..RL_POLICY_MAX_RULES once parsed */
	struct rl_rule rules[RL_POLICY_MAX_RULES];
	bool units[RL_POLICY_MAX_RULES];          /* the rule counts the request's cost (":units") */
};

/*
 * Reads "N/W[:bB][:units]" joined by '+'. RL_OK with *out filled, or
 * RL_EINVAL with the reason in msg, the text quoted first:
 *   'TEXT': rule 2: '0/1s': the limit '0' is out of range [1, 1000000000000]
 *   'TEXT' has 9 rules (at most 8)
 *   'TEXT': rule 3 is empty (rules N/W[:bB][:units] joined by '+', ...)
 * One rule's text alone is a policy of one rule.
 */
int rl_policy_parse(const char *text, struct rl_policy *out, char *msg, size_t msg_len);

/* True when a rule of p counts costs (":units"). */
bool rl_policy_uses_units(const struct rl_policy *p);

/*
 * The policy's text as rl_policy_parse reads it back, the rules joined by
 * '+' with the burst written when the algorithm uses it and differs from
 * N, ":units" where marked, into buf (cut short to fit len); returns buf.
 */
char *rl_policy_format(const struct rl_policy *p, bool with_burst, char *buf, size_t len);

/* Bytes of per-key state of a policy of count rules of algo (see Memory). */
size_t rl_policy_state_size(const struct rl_algo *algo, size_t count);

struct rl_policy_limiter {
	size_t count;
	struct rl_limiter rules[RL_POLICY_MAX_RULES]; /* one per rule, all of one algorithm */
	bool units[RL_POLICY_MAX_RULES];
	size_t stride;       /* bytes from one rule's state to the next: state_size rounded up to 8 */
	struct rl_algo ops;  /* the policy as one algorithm over its whole per-key state */
	struct rl_limiter one; /* ops bound to this policy: what rl_store and rl_limit hold */
	bool shadow;           /* admit every request, counting would-rejects */
	/* requests refused had it enforced (shadow mode); the one field a
	 * check writes, atomically: read it with rl_policy_would_reject */
	uint64_t would_reject;
};

/* The answer per rule and combined (see Answers). */
struct rl_policy_answer {
	struct rl_decision all;                       /* combined */
	bool would_reject;                            /* shadow mode: refused had it enforced */
	int64_t at_ns;                                /* the time decided at (clamped), ns: a settle's admitted_ns */
	size_t count;                                 /* rules answered */
	int verdict[RL_POLICY_MAX_RULES];             /* each rule's own: RL_ALLOWED or RL_REJECTED */
	struct rl_decision rule[RL_POLICY_MAX_RULES]; /* each rule's own answer */
};

/*
 * Validates every rule (rl_limiter_init) and binds them. RL_OK, or
 * RL_EINVAL with the reason in msg ("rule 2: ..."; no rules, more than
 * RL_POLICY_MAX_RULES).
 */
int rl_policy_limiter_init(struct rl_policy_limiter *pl, const struct rl_algo *algo, const struct rl_policy *p,
			   char *msg, size_t msg_len);

/*
 * Decides one request of cost units (1 <= cost <= RL_COST_MAX) at now_ns
 * on a key's state of rl_policy_state_size bytes. RL_ALLOWED, RL_REJECTED,
 * RL_ERANGE (now_ns outside [0, RL_TIME_MAX_NS]), RL_EINVAL (cost out of
 * range) or RL_ENOMEM (a sliding_log ring could not grow; nothing
 * changed). out (may be NULL) receives the answers.
 */
int rl_policy_check(const struct rl_policy_limiter *pl, void *state, int64_t now_ns, int64_t cost,
		    struct rl_policy_answer *out);

/*
 * The policy as one rl_limiter (algo.h) whose check is rl_policy_check's
 * with the combined answer: what rl_store_config.limiter takes. Its rule
 * is the policy's rule of the longest window (the store's fail-closed
 * answer waits that long). It has no verdict op, so no hot path of a
 * one-rule limiter is shared with it.
 */
const struct rl_limiter *rl_policy_as_limiter(const struct rl_policy_limiter *pl);

/*
 * Settles a request the policy admitted at admitted_ns (its answer's
 * at_ns) by delta units (settle.h) at now_ns (clamped to the key's last
 * seen time): each ":units" rule settles as its algorithm does; the
 * others counted the request as 1 and do not change. RL_OK, or
 * rl_limiter_settle's errors (RL_EINVAL for an algorithm that does not
 * settle); on an error no rule has changed, but for a sliding_log charge
 * past 2^32 - 1 units in one rule's window, refused by that rule after
 * the ":units" rules before it have taken it.
 */
int rl_policy_settle(const struct rl_policy_limiter *pl, void *state, int64_t admitted_ns, int64_t delta,
		     int64_t now_ns);

/*
 * A policy change on a live key (rl_store_set_rule's and a tiers reload's,
 * registry.h): state, written by checks under from, converted for a check
 * under to at now_ns clamped to the key's last seen time. Rules are
 * matched by position: rule i's state converts from from's rule i to to's
 * rule i exactly as rl_limiter_rerule converts a one-rule state (algo.h:
 * the quota used carried into the new rule's terms, clamped to its
 * capacity); a rule whose ":units" mark changed keeps what it counted so
 * far (units or requests) as used. The key's last seen time stays. A
 * policy of another rule count or algorithm has another state shape:
 * RL_EINVAL, nothing converted (a store or registry then starts the key
 * afresh, registry.h). RL_OK (also when from == to), RL_ERANGE (now_ns
 * outside [0, RL_TIME_MAX_NS]). As for one rule, a request whose share
 * some rule of to can never admit changes nothing, the conversion
 * included: the caller keeps the state as it was before converting.
 * rl_limiter_rerule on two policies' limiters (rl_policy_as_limiter) is
 * this.
 */
int rl_policy_rerule(const struct rl_policy_limiter *from, const struct rl_policy_limiter *to, void *state,
		     int64_t now_ns);

/* Shadow mode on or off (see Shadow mode); set it before any check. */
void rl_policy_set_shadow(struct rl_policy_limiter *pl, bool shadow);

/* How many requests shadow mode admitted that enforcing would have refused. */
uint64_t rl_policy_would_reject(const struct rl_policy_limiter *pl);

/* The policy limiter lim is (rl_policy_as_limiter's, or a copy of it), or NULL for any other limiter. */
const struct rl_policy_limiter *rl_policy_of(const struct rl_limiter *lim);

/*
 * A key's state as a store outside the process keeps it (the Redis module
 * stores each rule's state in its own bytes, state_bytes.h): the key's
 * last seen time, ns (0 in a fresh state); rule i's state inside state (i
 * < pl->count, the algorithm's state_size bytes); and the header made to
 * name pl's algorithm and rule count with last seen time last_ns (in [0,
 * RL_TIME_MAX_NS]), the rules' states left to the caller, which fills them
 * from its bytes before the first check.
 */
int64_t rl_policy_state_last_ns(const void *state);
void *rl_policy_rule_state(const struct rl_policy_limiter *pl, void *state, size_t i);
void rl_policy_state_set_head(const struct rl_policy_limiter *pl, void *state, int64_t last_ns);

/* Frees what a key's state owns (sliding_log rings); the state is then zeroed. */
void rl_policy_release(const struct rl_policy_limiter *pl, void *state);

#ifdef __cplusplus
}
#endif
#endif
