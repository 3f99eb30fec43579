/*
 * algo.h - one strategy interface for every rate-limiting algorithm.
 *
 * An rl_algo is an ops table (name, per-key state size, check, idle test,
 * release). An rl_limiter binds an algorithm to a validated rule and holds
 * the constants derived from it once, so that a check only multiplies,
 * adds and compares. Per-key state lives wherever the caller keeps it (a
 * struct, a hash map, rl_store): a zeroed state of algo->state_size bytes is
 * a fresh key.
 *
 * Decision contract, the same for every algorithm:
 *   - Only admitted requests count against the quota.
 *   - A time earlier than the key's last seen time is clamped to it: the
 *     request is decided, and its answer computed, as if it came at that
 *     last seen time.
 *   - check() returns RL_ALLOWED (1), RL_REJECTED (0) or a negative
 *     rl_status (RL_ERANGE for now_ns outside [0, RL_TIME_MAX_NS], RL_ENOMEM
 *     when sliding_log cannot grow; no decision is affected by an error).
 *   - When out is not NULL it receives the answer:
 *       remaining      whole requests the key could still make at this
 *                      instant, after this one;
 *       retry_after_ns 0 when allowed; when rejected, the smallest wait d
 *                      such that a request at now + d is allowed if nothing
 *                      else arrives (and one at now + d - 1 is not);
 *       reset_ns       the wait until the key's full quota is back (until
 *                      remaining would be at its maximum again);
 *       delay_ns       leaky_bucket only: how long an admitted request waits
 *                      in the queue before it is served; 0 elsewhere.
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

/* GCC and Clang's 128-bit integer: the one extension the public API uses. */
__extension__ typedef unsigned __int128 rl_u128;

struct rl_decision {
	int64_t remaining;      /* requests */
	int64_t retry_after_ns; /* ns */
	int64_t reset_ns;       /* ns */
	int64_t delay_ns;       /* ns; leaky_bucket only */
};

struct rl_limiter;

struct rl_algo {
	const char *name;
	size_t state_size; /* bytes of per-key state; zeroed = fresh key */
	bool uses_burst;   /* the rule's burst B shapes its decisions (the buckets) */
	int (*check)(const struct rl_limiter *lim, void *state, int64_t now_ns,
		     struct rl_decision *out);
	/*
	 * True when the state decides every future request exactly as a fresh
	 * key's would (its full quota is back at now_ns), so dropping it is
	 * invisible to the verdicts.
	 */
	bool (*is_idle)(const struct rl_limiter *lim, const void *state, int64_t now_ns);
	void (*release)(void *state); /* frees what the state owns; NULL if nothing */
};

struct rl_limiter {
	const struct rl_algo *algo;
	struct rl_rule rule;
	/* Derived once by rl_limiter_init. */
	rl_u128 burst_w;      /* B * W: the bucket's depth in 1/W-request units */
	rl_u128 quota_nw;     /* N * W, request-ns */
	rl_u128 tolerance_ns; /* gcra: tau = min((B - 1) * T, RL_GCRA_HORIZON_NS - T), ns */
	int64_t emission_ns;  /* gcra: T = ceil(W / N), ns between admissions at the long-run rate */
};

extern const struct rl_algo rl_token_bucket_algo;
extern const struct rl_algo rl_gcra_algo;
extern const struct rl_algo rl_leaky_bucket_algo;
extern const struct rl_algo rl_fixed_window_algo;
extern const struct rl_algo rl_sliding_log_algo;
extern const struct rl_algo rl_sliding_counter_algo;

/* Every algorithm, in a stable order; *count receives how many. */
const struct rl_algo *const *rl_algo_all(size_t *count);

/* The algorithm called name (e.g. "gcra"), or NULL. */
const struct rl_algo *rl_algo_find(const char *name);

/*
 * Validates the rule (rl_rule_validate) and derives the limiter's constants.
 * Returns RL_OK or RL_EINVAL with a reason in msg.
 */
int rl_limiter_init(struct rl_limiter *lim, const struct rl_algo *algo,
		    const struct rl_rule *rule, char *msg, size_t msg_len);

static inline int rl_limiter_check(const struct rl_limiter *lim, void *state,
				   int64_t now_ns, struct rl_decision *out)
{
	return lim->algo->check(lim, state, now_ns, out);
}

static inline void rl_limiter_release(const struct rl_limiter *lim, void *state)
{
	if (lim->algo->release)
		lim->algo->release(state);
}

#ifdef __cplusplus
}
#endif
#endif
