/*
 * rule.h - a rate-limit rule: at most N requests per window of W ns, with a
 * burst (bucket capacity) B for the bucket algorithms.
 *
 * Ranges, checked by rl_rule_validate() when a rule is made, never later:
 *   1 <= limit     <= RL_LIMIT_MAX   (10^12)
 *   1 <= window_ns <= RL_WINDOW_MAX_NS (10^18 ns, about 31.7 years)
 *   1 <= burst     <= RL_BURST_MAX   (10^12)
 * and request times satisfy 0 <= now_ns <= RL_TIME_MAX_NS (4 * 10^18 ns).
 * A request may carry a cost c, 1 <= c <= RL_COST_MAX (10^12): it counts as
 * c units against the rule, which then reads N units per W, burst B units
 * (algo.h); a plain request costs 1. A cost outside that range is refused
 * with RL_EINVAL by each check. 10^12 leaves room for rules of bytes or
 * tokens (a terabyte per window); the breaker keeps its own, lower bounds
 * (breaker.h).
 * Within these ranges no arithmetic in ratelab overflows: products such as
 * limit * window_ns, burst * window_ns or cost * window_ns are below
 * 10^30 < 2^100 and are formed in 128 bits; every count a state keeps
 * (units, at most 10^12 < 2^40) is 64 bits wide.
 */
#ifndef RATELAB_RULE_H
#define RATELAB_RULE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RL_LIMIT_MAX 1000000000000LL
#define RL_WINDOW_MAX_NS 1000000000000000000LL
#define RL_BURST_MAX 1000000000000LL
#define RL_TIME_MAX_NS 4000000000000000000LL
#define RL_COST_MAX 1000000000000LL

/* Durations reported in decisions saturate here (about 292 years). */
#define RL_DURATION_MAX_NS INT64_MAX

struct rl_rule {
	int64_t limit;     /* N: requests admitted per window */
	int64_t window_ns; /* W: window length, ns */
	int64_t burst;     /* B: bucket capacity, requests (token_bucket, gcra, leaky_bucket) */
};

/* A rule of N per W with the default burst B = N. */
static inline struct rl_rule rl_rule_make(int64_t limit, int64_t window_ns)
{
	struct rl_rule r = { limit, window_ns, limit };
	return r;
}

/*
 * Returns RL_OK, or RL_EINVAL and writes a one-line reason naming the field
 * and its value into msg (when msg is not NULL).
 */
int rl_rule_validate(const struct rl_rule *rule, char *msg, size_t msg_len);

/*
 * The one reader of a rule's text, "N/W" or "N/W:bB" (N and B integers, W
 * a duration with its unit, parse.h), for every command, tier and report:
 * the burst is N when not given. RL_OK with *out valid (rl_rule_validate),
 * or RL_EINVAL with the reason in msg, the text quoted first:
 *   'TEXT' is not a rule (N/W or N/W:bB, e.g. 10/1s or 60/1m:b120)
 *   'TEXT': the limit '0' is out of range [1, 1000000000000]
 *   'TEXT': the window '60' has no unit (...)
 *   'TEXT': the burst '5' is not bB (N/W or N/W:bB, e.g. ...)
 * A caller puts what it read the rule from in front ("--rules: ").
 */
int rl_rule_parse(const char *text, struct rl_rule *out, char *msg, size_t msg_len);

#ifdef __cplusplus
}
#endif
#endif
