/*
 * limit.h - the embeddable limiter: one call to make it, one to ask.
 *
 *     struct rl_limit *l = rl_limit_new("token_bucket", 10, RL_S(1), 20);
 *     if (rl_limit_allow(l)) serve(); else refuse();
 *
 * An rl_limit owns one limiter (rl_limiter, algo.h) with the rule "limit
 * requests per window_ns, burst B", the state of one unnamed key, and, made
 * on the first keyed call, an rl_store (store.h) of up to RL_LIMIT_KEYS
 * named keys. Every decision is the algorithm's exact one (algo.h's
 * decision contract); nothing here approximates.
 *
 * Arguments of rl_limit_new:
 *   algo       an algorithm name (ratelab/algo_list.h; rl_algo_names());
 *   limit      N, 1 <= N <= RL_LIMIT_MAX (10^12) requests (or units) per window;
 *   window_ns  W, 1 <= W <= RL_WINDOW_MAX_NS, in ns (RL_S(1), RL_M(5), ...);
 *   burst      B for the algorithms with a bucket (rl_algo.uses_burst;
 *              rl_algo_burst_names()), 1 <= B <= RL_BURST_MAX (10^12), or 0 for
 *              B = N; the others have no burst and take only 0.
 * A bad argument makes rl_limit_new return NULL with errno EINVAL and
 * rl_limit_error() naming the argument and its value ("limit 0 is out of
 * range [1, 1000000000000]"); a failed allocation returns NULL with errno ENOMEM.
 *
 * Time. rl_limit_allow and rl_limit_allow_key read rl_now_ns(), the
 * system's monotonic clock (CLOCK_MONOTONIC: never steps back, not the
 * wall clock). The *_at forms take the caller's own time in ns, 0 <= now_ns
 * <= RL_TIME_MAX_NS; as everywhere in ratelab, a time earlier than the
 * key's last one is decided as if it came at that last time.
 *
 * Concurrency: every call but rl_limit_free may be made from any number of
 * threads at once. The unnamed key's checks are serialised by one
 * spinlock (one locked exchange to take it, a store to drop it; a waiter
 * spins, yielding the CPU now and then), except for gcra with N dividing
 * W (a whole-ns emission interval) on a machine with a 16-byte
 * compare-and-swap (x86-64's cmpxchg16b), where they take no lock: what
 * changes of the state (TAT and last seen time; the TAT's fraction stays
 * 0) is one 16-byte word, each check decides on a copy and publishes it
 * with one compare-and-swap, deciding again if another check came first
 * (lock-free: some check always completes). The other states, and gcra's
 * with a fraction, keep the lock. A named key's checks are serialised by
 * its rl_store bucket lock. Each check runs the
 * algorithm on the one state exactly as a single thread would, so k
 * threads sharing a limiter admit in total exactly what one thread making
 * the same requests in the order the locks were taken would.
 * rl_limit_free must not race with any other call on the same limiter.
 *
 * Keyed use. The store holds at most RL_LIMIT_KEYS keys; at the cap it
 * evicts the key nearest to its full quota (RL_FULL_EVICT). A key is a
 * fingerprint (store.h: two keys share a state with probability about
 * 7.5e-9 per new key), seeded from getrandom() per limiter. Keys idle for
 * longer than RL_LIMIT_IDLE_GRACE_NS past their full quota are dropped, so
 * callers of rl_limit_allow_key_at should not pass a time that lags the
 * latest one by more than that grace.
 */
#ifndef RATELAB_LIMIT_H
#define RATELAB_LIMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ratelab/algo.h"
#include "ratelab/policy.h"
#include "ratelab/rule.h"
#include "ratelab/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Durations in ns, as int64_t: RL_MS(250), RL_S(1), RL_M(5), RL_H(1). */
#define RL_NS(n) ((int64_t)(n))
#define RL_US(n) ((int64_t)(n) * 1000LL)
#define RL_MS(n) ((int64_t)(n) * 1000000LL)
#define RL_S(n) ((int64_t)(n) * 1000000000LL)
#define RL_M(n) ((int64_t)(n) * 60000000000LL)
#define RL_H(n) ((int64_t)(n) * 3600000000000LL)

/* Named keys one limiter keeps before it evicts (its store's max_keys). */
#define RL_LIMIT_KEYS ((size_t)1 << 20)
/* How long past its full quota a named key is kept, ns (the store's idle grace). */
#define RL_LIMIT_IDLE_GRACE_NS RL_S(1)

struct rl_limit;

/* A new limiter, or NULL (errno EINVAL or ENOMEM; rl_limit_error() says why). */
struct rl_limit *rl_limit_new(const char *algo, int64_t limit, int64_t window_ns, int64_t burst);

/*
 * Why the calling thread's last rl_limit_new failed, one line; "" when it
 * has not failed. The string stays valid until that thread's next call.
 */
const char *rl_limit_error(void);

/*
 * One request of the unnamed key now (rl_now_ns()): true iff admitted.
 * NULL l is false. An error (RL_ENOMEM when a sliding_log ring cannot grow)
 * is false too: the limiter fails closed.
 */
bool rl_limit_allow(struct rl_limit *l);

/*
 * One request of the unnamed key at now_ns. Returns RL_ALLOWED (1),
 * RL_REJECTED (0) or a negative rl_status: RL_EINVAL (NULL l), RL_ERANGE
 * (now_ns outside [0, RL_TIME_MAX_NS]), RL_ENOMEM. out (may be NULL)
 * receives remaining, retry_after_ns, reset_ns and delay_ns (algo.h).
 */
int rl_limit_allow_at(struct rl_limit *l, int64_t now_ns, struct rl_decision *out);

/*
 * One request of the key of len bytes now: true iff admitted. Each key has
 * its own quota. Errors are false (fail closed): NULL l, NULL key with
 * len > 0, no memory for the store, RL_EFULL (store.h).
 */
bool rl_limit_allow_key(struct rl_limit *l, const void *key, size_t len);

/*
 * One request of the key at now_ns, as rl_limit_allow_at: RL_ALLOWED,
 * RL_REJECTED or a negative rl_status (RL_EINVAL, RL_ERANGE, RL_ENOMEM,
 * RL_EFULL).
 */
int rl_limit_allow_key_at(struct rl_limit *l, const void *key, size_t len, int64_t now_ns,
			  struct rl_decision *out);

/*
 * A limiter of a policy (policy.h): one algorithm and the rules of the
 * text policy ("10/1s+1000/1h", "60/1m+90000/1m:units"), decided all or
 * nothing. Every call above takes it, with the same contract and the same
 * concurrency (its unnamed key under the spinlock, never lock-free; its
 * named keys in an rl_store, each key's state rl_policy_state_size bytes);
 * their answers are the policy's combined one. NULL on a bad argument
 * (errno EINVAL, rl_limit_error() in rl_policy_parse's words) or ENOMEM.
 */
struct rl_limit *rl_limit_new_policy(const char *algo, const char *policy);

/* The limiter's policy, or NULL for a limiter of one rule (rl_limit_new). */
const struct rl_policy_limiter *rl_limit_policy(const struct rl_limit *l);

/*
 * One request of cost units (1 <= cost <= RL_COST_MAX) of the unnamed
 * key, or of a named key: as rl_limit_allow_at and rl_limit_allow_key_at,
 * RL_EINVAL also for a cost out of range. A policy's ":units" rules count
 * the cost, its others 1.
 */
int rl_limit_allow_n_at(struct rl_limit *l, int64_t now_ns, int64_t cost, struct rl_decision *out);
int rl_limit_allow_key_n_at(struct rl_limit *l, const void *key, size_t len, int64_t now_ns, int64_t cost,
			    struct rl_decision *out);

/*
 * A policy limiter's unnamed key with the answer per rule
 * (rl_policy_check). RL_EINVAL for NULL l or a limiter of one rule.
 */
int rl_limit_policy_at(struct rl_limit *l, int64_t now_ns, int64_t cost, struct rl_policy_answer *out);

/*
 * Shadow mode for a policy limiter (policy.h): every request is decided
 * and its key's state kept as when enforcing, but every call answers
 * RL_ALLOWED; one that would have been refused keeps its answer
 * (retry_after_ns > 0) and is counted (rl_limit_would_reject). Set it
 * before the first check. RL_OK, or RL_EINVAL for NULL l or a limiter of
 * one rule (make that a policy of one rule: rl_limit_new_policy(algo,
 * "10/1s")).
 */
int rl_limit_set_shadow(struct rl_limit *l, bool shadow);

/* Requests shadow mode admitted that enforcing would have refused; 0 for NULL or one rule. */
uint64_t rl_limit_would_reject(const struct rl_limit *l);

/*
 * The rule the limiter enforces (with the burst filled in), for headers
 * and logs; for a policy, its rule of the longest window.
 */
const struct rl_rule *rl_limit_rule(const struct rl_limit *l);

/* Releases the limiter, its keys and their memory. NULL is a no-op. */
void rl_limit_free(struct rl_limit *l);

/* The monotonic clock, ns (CLOCK_MONOTONIC). */
int64_t rl_now_ns(void);

#ifdef __cplusplus
}
#endif

#endif
