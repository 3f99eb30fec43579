/*
 * rule_change_ref.h - the reference a store or a registry is compared
 * with after rule changes: the library itself, one state per key and the
 * index of the rule that last wrote it (algo.h, "A rule change on a live
 * key"), as replay's --rule-at loop holds them. A key's first check under
 * another rule converts its state (rl_limiter_rerule) and decides; a cost
 * the new rule can never admit changes nothing, the conversion included.
 * Include after <cmocka.h>.
 */
#ifndef RATELAB_TEST_RULE_CHANGE_REF_H
#define RATELAB_TEST_RULE_CHANGE_REF_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "ratelab/algo.h"

/* One key of the reference: its state, and 1 + the index of its writer (0: fresh). */
struct ref_key {
	_Alignas(16) unsigned char state[RL_ALGO_MAX_STATE];
	int under;
};

/* Whether a request of cost can never be admitted under lim: a fresh key refuses it. */
static inline bool ref_never_fits(const struct rl_limiter *lim, int64_t t, int64_t cost)
{
	_Alignas(16) unsigned char fresh[RL_ALGO_MAX_STATE] = { 0 };
	int rc = lim->algo->check(lim, fresh, t, cost, NULL);

	rl_limiter_release(lim, fresh);
	return rc == RL_REJECTED;
}

/* The check of key k under rules[cur] at t: the verdict (or a status), out filled. */
static inline int ref_check(const struct rl_limiter *rules, int cur, struct ref_key *k, int64_t t, int64_t cost,
			    struct rl_decision *out)
{
	const struct rl_limiter *lim = &rules[cur];
	_Alignas(16) unsigned char before[RL_ALGO_MAX_STATE];
	bool convert = k->under && !rl_limiter_same_rule(&rules[k->under - 1], lim);
	int rc = RL_OK;

	if (convert) {
		memcpy(before, k->state, lim->algo->state_size);
		rc = rl_limiter_rerule(&rules[k->under - 1], lim, k->state, t);
	}
	if (rc == RL_OK)
		rc = rl_limiter_check_n(lim, k->state, t, cost, out);
	if (convert && (rc < 0 || (rc == RL_REJECTED && ref_never_fits(lim, t, cost))))
		memcpy(k->state, before, lim->algo->state_size);
	else if (rc >= 0)
		k->under = cur + 1;
	return rc;
}

#endif
