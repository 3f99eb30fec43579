/*
 * algo.c - what algo.h and rule.h declare beside the algorithms: rule
 * validation, a limiter's binding of an algorithm to a rule (the
 * algorithm's init op derives its constants), and the operations every
 * algorithm gets from its ops table. (The list of algorithms is
 * algo_list.c; each algorithm is its own file.)
 */
#include <stdio.h>
#include <string.h>

#include "arith.h"
#include "ratelab/policy.h"
#include "ratelab/algo.h"

static int out_of_range(char *msg, size_t msg_len, const char *field, int64_t value,
			long long max)
{
	if (msg)
		snprintf(msg, msg_len, "%s %lld is out of range [1, %lld]", field, (long long)value, max);
	return RL_EINVAL;
}

int rl_rule_validate(const struct rl_rule *rule, char *msg, size_t msg_len)
{
	if (rule->limit < 1 || rule->limit > RL_LIMIT_MAX)
		return out_of_range(msg, msg_len, "limit", rule->limit, RL_LIMIT_MAX);
	if (rule->window_ns < 1 || rule->window_ns > RL_WINDOW_MAX_NS)
		return out_of_range(msg, msg_len, "window (ns)", rule->window_ns, RL_WINDOW_MAX_NS);
	if (rule->burst < 1 || rule->burst > RL_BURST_MAX)
		return out_of_range(msg, msg_len, "burst", rule->burst, RL_BURST_MAX);
	return RL_OK;
}

int rl_limiter_init(struct rl_limiter *lim, const struct rl_algo *algo,
		    const struct rl_rule *rule, char *msg, size_t msg_len)
{
	int rc = rl_rule_validate(rule, msg, msg_len);

	if (rc)
		return rc;
	if (!algo) {
		if (msg)
			snprintf(msg, msg_len, "no algorithm given");
		return RL_EINVAL;
	}
	if (algo->priv_size > RL_LIMITER_PRIV_MAX) {
		if (msg)
			snprintf(msg, msg_len, "%s derives %zu bytes, more than %d", algo->name,
				 algo->priv_size, RL_LIMITER_PRIV_MAX);
		return RL_EINVAL;
	}
	*lim = (struct rl_limiter){ .algo = algo, .rule = *rule };
	return algo->init ? algo->init(lim, msg, msg_len) : RL_OK;
}

int64_t rl_limiter_reset_ns(const struct rl_limiter *lim, const void *state, int64_t now_ns)
{
	const struct rl_algo *algo = lim->algo;

	if (!rl__time_ok(now_ns))
		return RL_ERANGE;
	if (algo->reset_ns)
		return algo->reset_ns(lim, state, now_ns);
	/* A plain-bytes state (algo.h): a check on a private copy tells. */
	_Alignas(16) unsigned char copy[RL_ALGO_MAX_STATE];
	struct rl_decision d;

	if (algo->state_size > sizeof(copy))
		return RL_EINVAL;
	memcpy(copy, state, algo->state_size);
	int rc = algo->check(lim, copy, now_ns, 1, &d);
	return rc < 0 ? rc : d.reset_ns;
}

int rl_limiter_rerule(const struct rl_limiter *from, const struct rl_limiter *to, void *state, int64_t now_ns)
{
	const struct rl_algo *algo = to->algo;

	const struct rl_policy_limiter *pf = rl_policy_of(from), *pt = rl_policy_of(to);

	/* policies: each its own ops (policy.h), one meaning for two of one shape */
	if (pf || pt)
		return pf && pt ? rl_policy_rerule(pf, pt, state, now_ns) : RL_EINVAL;
	if (!rl__time_ok(now_ns))
		return RL_ERANGE;
	if (from->algo != algo || !algo->rerule || !algo->last_ns)
		return RL_EINVAL;
	if (rl_limiter_same_rule(from, to))
		return RL_OK;
	algo->rerule(from, to, state, rl__clamp(now_ns, algo->last_ns(state)));
	return RL_OK;
}

int rl_limiter_state_check(const struct rl_limiter *lim, const void *state)
{
	return !lim->algo->state_ok || lim->algo->state_ok(lim, state) ? RL_OK : RL_EINVAL;
}
