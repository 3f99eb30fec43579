/*
 * policy_ops.h - private: what a policy (policy.c) needs of an algorithm
 * whose state owns memory and so cannot be decided on a byte copy.
 */
#ifndef RATELAB_POLICY_OPS_H
#define RATELAB_POLICY_OPS_H

#include "ratelab/algo.h"
#include "ratelab/sliding_log.h"

/*
 * sliding_log's check at now_ns for cost units, its result and answer,
 * the state unchanged. RL_ALLOWED, RL_REJECTED, RL_ERANGE or RL_EINVAL,
 * as the check.
 */
int rl__sliding_log_probe(const struct rl_limiter *lim, const struct rl_sliding_log *st, int64_t now_ns,
			  int64_t cost, struct rl_decision *out);

/*
 * Drops the runs that have left the window at now_ns: for a caller whose
 * key's last seen time has reached now_ns (no decision changes).
 */
void rl__sliding_log_expire(const struct rl_limiter *lim, struct rl_sliding_log *st, int64_t now_ns);

/* Undoes the last admitted check of cost units (its run is the newest). */
void rl__sliding_log_unpush(struct rl_sliding_log *st, int64_t cost);

#endif
