/*
 * algo.h - one strategy interface for every rate-limiting algorithm.
 *
 * An rl_algo is an ops table: everything a caller needs to hold any
 * algorithm without knowing which one it holds (name, per-key state size,
 * the constants it derives from a rule, check, an optional cost-1 verdict
 * for hot paths, idle test, the wait until a state's quota is back, the
 * heap a state owns and its release, whether answers carry a delay). The
 * algorithms are listed once, in ratelab/algo_list.h: a new algorithm is
 * its own file and header plus one line there. An rl_limiter binds an
 * algorithm to a validated rule and holds, in an area private to the
 * algorithm (its init op fills priv_size bytes of it), the constants
 * derived from the rule once, so that a check only multiplies, adds and
 * compares. Per-key state lives wherever the caller keeps it (a
 * struct, a hash map, rl_store): a zeroed state of algo->state_size bytes is
 * a fresh key, and a state may be moved with memcpy (it holds no pointer
 * into itself; rl_store moves keys between their two buckets).
 *
 * Weighted requests: every check takes a cost c, 1 <= c <= RL_COST_MAX
 * (rule.h), and everything below counts in cost units ("units"): the rule
 * is N units per W, the burst B units, and a request of cost c is admitted
 * or rejected whole. At c = 1 every decision and answer is the plain
 * request's. Per algorithm (the headers state each rule and boundary):
 *   token_bucket     admit iff tokens >= c, then take c;
 *   gcra             TAT' = max(TAT, t) + c * T; admit iff TAT' - t <= tau + T;
 *   leaky_bucket     c service slots of W/N each; admit iff the wait of the
 *                    last unit is <= B * W / N (and c <= B, below);
 *   fixed_window     admit iff units in t's window + c <= N;
 *   sliding_log      admit iff units admitted in (t - W, t] + c <= N;
 *   sliding_counter  admit iff prev * (W - e) + (curr + c - 1) * W < N * W.
 * A cost that can never be admitted (c > B for token_bucket, gcra and
 * leaky_bucket, or beyond gcra's capped tolerance, gcra.h; c > N for
 * fixed_window, sliding_log and sliding_counter) is rejected with the usual
 * remaining and reset_ns and retry_after_ns = RL_DURATION_MAX_NS (never);
 * the key's state is left unchanged (not even its last seen time moves). A
 * cost outside [1, RL_COST_MAX] is RL_EINVAL and changes no state.
 *
 * Decision contract, the same for every algorithm:
 *   - Only admitted requests count against the quota.
 *   - A time earlier than the key's last seen time is clamped to it: the
 *     request is decided, and its answer computed, as if it came at that
 *     last seen time.
 *   - check() returns RL_ALLOWED (1), RL_REJECTED (0) or a negative
 *     rl_status (RL_ERANGE for now_ns outside [0, RL_TIME_MAX_NS], RL_EINVAL
 *     for a cost outside [1, RL_COST_MAX], RL_ENOMEM when sliding_log cannot
 *     grow; no decision is affected by an error).
 *   - When out is not NULL it receives the answer:
 *       remaining      whole units the key could still take at this
 *                      instant, after this request (as cost-1 requests);
 *       retry_after_ns 0 when allowed; when rejected, the smallest wait d
 *                      such that a request of the same cost at now + d is
 *                      allowed if nothing else arrives (and one at
 *                      now + d - 1 is not); RL_DURATION_MAX_NS when none is;
 *       reset_ns       the wait until the key's full quota is back (until
 *                      remaining would be at its maximum again);
 *       delay_ns       for an algorithm with answers_delay (leaky_bucket):
 *                      how long an admitted request waits in the queue
 *                      before it is served; 0 elsewhere.
 *     Durations saturate at RL_DURATION_MAX_NS. Passing NULL skips the
 *     divisions these answers need: the verdict alone is cheaper.
 *
 * Concurrency: an rl_limiter is immutable after init and may be shared by
 * any number of threads; a key's state is not synchronised here (rl_store
 * does that).
 */
#ifndef RATELAB_ALGO_H
#define RATELAB_ALGO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ratelab/rule.h"
#include "ratelab/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * An unsigned 128-bit value as two words: the public structs stay plain
 * C11, and the library combines the words where it multiplies.
 */
struct rl_wide {
	uint64_t lo, hi;
};

struct rl_decision {
	int64_t remaining;      /* units (requests of cost 1) */
	int64_t retry_after_ns; /* ns */
	int64_t reset_ns;       /* ns */
	int64_t delay_ns;       /* ns; leaky_bucket only */
};

struct rl_limiter;

/* Bytes: the largest per-key state an algorithm may have. */
#define RL_ALGO_MAX_STATE 64

/* Bytes: the most an algorithm may derive from its rule (rl_algo.priv_size). */
#define RL_LIMITER_PRIV_MAX 64

/* A cost-1 verdict: the type of struct rl_algo's verdict op. */
typedef int rl_verdict_fn(const struct rl_limiter *lim, void *state, int64_t now_ns);

struct rl_algo {
	const char *name;
	size_t state_size; /* bytes of per-key state, <= RL_ALGO_MAX_STATE; zeroed = fresh key */
	size_t priv_size;  /* bytes of lim->priv that init fills, <= RL_LIMITER_PRIV_MAX */
	/*
	 * Optional (NULL: nothing to derive): fills lim->priv from lim->rule,
	 * which rl_limiter_init has validated, with the constants the checks
	 * use. RL_OK, or RL_EINVAL with a one-line reason in msg (when not NULL).
	 */
	int (*init)(struct rl_limiter *lim, char *msg, size_t msg_len);
	/* Decides one request of cost units (1 <= cost <= RL_COST_MAX) at now_ns. */
	int (*check)(const struct rl_limiter *lim, void *state, int64_t now_ns, int64_t cost,
		     struct rl_decision *out);
	/*
	 * Optional (NULL: callers use check): check(lim, state, now_ns, 1, NULL)
	 * without the cost and answer arguments, for a caller's hot path
	 * (rl_store's and rl_limit's verdicts): the same result and the same state
	 * change for every now_ns, RL_ERANGE for a time outside
	 * [0, RL_TIME_MAX_NS] included, so that such a caller need not test
	 * the time first.
	 */
	rl_verdict_fn *verdict;
	/*
	 * True when the state decides every future request exactly as a fresh
	 * key's would (its full quota is back at now_ns), so dropping it is
	 * invisible to the verdicts.
	 */
	bool (*is_idle)(const struct rl_limiter *lim, const void *state, int64_t now_ns);
	/*
	 * A state that owns memory (a heap ring, a list) sets all three of
	 * release, heap_bytes and reset_ns; a state that is plain bytes sets
	 * none of them (it may be copied, and a check on a copy tells its
	 * reset).
	 */
	void (*release)(void *state); /* frees what the state owns; NULL if nothing */
	/* Heap bytes the state holds, as the allocator holds them (its chunk
	 * header included). */
	size_t (*heap_bytes)(const void *state);
	/* The wait from now_ns until the state's full quota is back, as it
	 * stands (no request at now_ns), ns; the state is left as it is. */
	int64_t (*reset_ns)(const struct rl_limiter *lim, const void *state, int64_t now_ns);
	/*
	 * Optional, for a state that owns memory (NULL: callers measure
	 * heap_bytes before and after check): check, same result and same
	 * state change, that also adds to *heap_delta how much heap_bytes
	 * changed, measuring it only when the check reallocates. A keyed store
	 * keeps its heap total with it, without two heap_bytes calls around
	 * every check.
	 */
	int (*check_heap)(const struct rl_limiter *lim, void *state, int64_t now_ns, int64_t cost,
			  struct rl_decision *out, int64_t *heap_delta);
	bool answers_delay; /* answers carry delay_ns (a queueing algorithm) */
	/*
	 * The algorithm's own documented bound (stated in its header): the most
	 * requests one key can have admitted at times inside any closed interval
	 * [a, a + span_ns], span_ns >= 0, saturated at INT64_MAX. A window of
	 * length W, (t - W, t] in integer ns, is span_ns = W - 1. An admission
	 * that exceeds it is a bug, never a tradeoff (the simulator counts them).
	 */
	int64_t (*max_admitted)(const struct rl_limiter *lim, int64_t span_ns);
	bool uses_burst; /* the rule's burst B shapes its decisions (the buckets) */
	/*
	 * Optional (NULL: the algorithm states no meaning for a rule change,
	 * and rl_limiter_rerule refuses it): converts a state written under
	 * from's rule into to's terms at now (now >= the state's last seen
	 * time, in [0, RL_TIME_MAX_NS]; the rules differ; the same
	 * algorithm), as the algorithm's header states. Allocates nothing.
	 */
	void (*rerule)(const struct rl_limiter *from, const struct rl_limiter *to, void *state, int64_t now);
	/*
	 * Optional (NULL: every state passes): true when every field of the
	 * state lies where some sequence of checks under lim's rule could
	 * have put it (the header states the ranges), so that deciding on it
	 * is defined; a damaged or foreign state is false.
	 */
	bool (*state_ok)(const struct rl_limiter *lim, const void *state);
	/* The state's last seen time, ns (the rule change's clamp). */
	int64_t (*last_ns)(const void *state);
};

struct rl_limiter {
	const struct rl_algo *algo;
	struct rl_rule rule;
	/* The algorithm's own constants, derived once by its init op; opaque
	 * outside the algorithm. A union, so that it is 8-byte aligned. */
	union {
		unsigned char bytes[RL_LIMITER_PRIV_MAX];
		uint64_t align;
	} priv;
};

/* rl_<name>_algo for each algorithm of ratelab/algo_list.h. */
#define RL_ALGO(name) extern const struct rl_algo rl_##name##_algo;
#include "ratelab/algo_list.h"
#undef RL_ALGO

/* Every algorithm, in a stable order; *count receives how many. */
const struct rl_algo *const *rl_algo_all(size_t *count);

/* The algorithm called name (e.g. "gcra"), or NULL. */
const struct rl_algo *rl_algo_find(const char *name);

/* Every algorithm's name in rl_algo_all's order, joined by ", " (for
 * messages and usage texts). */
const char *rl_algo_names(void);

/* The names of the algorithms a rule's burst shapes (rl_algo.uses_burst),
 * in rl_algo_all's order, joined by ", " into buf (cut short to fit
 * len bytes, NUL included); returns buf. */
char *rl_algo_burst_names(char *buf, size_t len);

/*
 * Validates the rule (rl_rule_validate) and derives the limiter's constants.
 * Returns RL_OK or RL_EINVAL with a reason in msg.
 */
int rl_limiter_init(struct rl_limiter *lim, const struct rl_algo *algo,
		    const struct rl_rule *rule, char *msg, size_t msg_len);

/* One request of cost 1. */
static inline int rl_limiter_check(const struct rl_limiter *lim, void *state,
				   int64_t now_ns, struct rl_decision *out)
{
	return lim->algo->check(lim, state, now_ns, 1, out);
}

/* One request of cost units; RL_EINVAL for a cost outside [1, RL_COST_MAX]. */
static inline int rl_limiter_check_n(const struct rl_limiter *lim, void *state,
				     int64_t now_ns, int64_t cost, struct rl_decision *out)
{
	return lim->algo->check(lim, state, now_ns, cost, out);
}

/* lim's algorithm's bound on admissions in any closed interval of span_ns (see struct rl_algo). */
static inline int64_t rl_limiter_max_admitted(const struct rl_limiter *lim, int64_t span_ns)
{
	return lim->algo->max_admitted(lim, span_ns);
}

static inline void rl_limiter_release(const struct rl_limiter *lim, void *state)
{
	if (lim->algo->release)
		lim->algo->release(state);
}

/* Heap bytes a key's state holds (rl_algo.heap_bytes), 0 when it owns none. */
static inline size_t rl_limiter_heap_bytes(const struct rl_limiter *lim, const void *state)
{
	return lim->algo->heap_bytes ? lim->algo->heap_bytes(state) : 0;
}

/*
 * A rule change on a live key. A state keeps the rule that last wrote it;
 * the first check under another rule of the same algorithm (limit, window
 * or burst changed) first converts it, at that check's time clamped as
 * every check clamps it (now = max(now_ns, the state's last seen time)),
 * then decides under the new rule. The conversion carries the quota used
 * so far into the new rule's terms, clamped to the new rule's capacity:
 * monotone (of two keys under the same change, the one that had used more
 * never gets more), never above the new burst, exact (integers, 128 bits
 * where a product needs them). Each algorithm's header states its own
 * conversion; a state rl_limiter_state_check accepts under from converts
 * into one it accepts under to (sliding_log's sum aside: its header).
 *
 * A request whose cost the new rule can never admit changes nothing, the
 * conversion included (as the Redis module writes nothing for it): a
 * caller keeps the state as it was before converting it.
 *
 * rl_limiter_rerule converts state (written under from, and passing
 * rl_limiter_state_check under from) for a check under to at now_ns. RL_OK (also when the rules are equal: nothing to do),
 * RL_ERANGE for now_ns outside [0, RL_TIME_MAX_NS], RL_EINVAL when the
 * limiters' algorithms differ or it has no rerule op. The state is
 * unchanged on an error.
 */
int rl_limiter_rerule(const struct rl_limiter *from, const struct rl_limiter *to, void *state, int64_t now_ns);

/*
 * RL_OK when state could have been written by checks (and rule changes)
 * ending under lim's rule -- every field in the range its header states
 * -- else RL_EINVAL: a damaged or foreign state, on which no check may be
 * made (a zeroed state, a fresh key, always passes). Costs O(1), or
 * O(runs) for sliding_log.
 */
int rl_limiter_state_check(const struct rl_limiter *lim, const void *state);

/* True when a and b enforce the same rule with the same algorithm. */
static inline bool rl_limiter_same_rule(const struct rl_limiter *a, const struct rl_limiter *b)
{
	return a->algo == b->algo && a->rule.limit == b->rule.limit && a->rule.window_ns == b->rule.window_ns &&
	       a->rule.burst == b->rule.burst;
}

/*
 * The wait until the key's full quota is back, ns, leaving state unchanged
 * (rl_store's eviction order): rl_algo.reset_ns, or for a plain-bytes state
 * the reset_ns a check at now_ns answers on a copy. RL_ERANGE for now_ns
 * outside [0, RL_TIME_MAX_NS].
 */
int64_t rl_limiter_reset_ns(const struct rl_limiter *lim, const void *state, int64_t now_ns);

#ifdef __cplusplus
}
#endif
#endif
