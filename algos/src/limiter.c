/*
 * limiter.c - the algorithm registry, rule validation and the constants a
 * limiter derives once from its rule.
 */
#include <stdio.h>
#include <string.h>

#include "arith.h"
#include "ratelab/algo.h"
#include "ratelab/gcra.h"

static const struct rl_algo *const all_algos[] = {
	&rl_token_bucket_algo, &rl_gcra_algo,        &rl_leaky_bucket_algo,
	&rl_fixed_window_algo, &rl_sliding_log_algo, &rl_sliding_counter_algo,
};

const struct rl_algo *const *rl_algo_all(size_t *count)
{
	*count = sizeof(all_algos) / sizeof(all_algos[0]);
	return all_algos;
}

const struct rl_algo *rl_algo_find(const char *name)
{
	for (size_t i = 0; i < sizeof(all_algos) / sizeof(all_algos[0]); i++)
		if (strcmp(all_algos[i]->name, name) == 0)
			return all_algos[i];
	return NULL;
}

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
	rl_u128 n = (rl_u128)rule->limit, w = (rl_u128)rule->window_ns, b = (rl_u128)rule->burst;
	int64_t t = (int64_t)rl_ceil_div(w, n);
	rl_u128 tolerance = (b - 1) * (rl_u128)t, horizon = (rl_u128)(RL_GCRA_HORIZON_NS - t);

	*lim = (struct rl_limiter){
		.algo = algo,
		.rule = *rule,
		.burst_w = b * w,
		.quota_nw = n * w,
		.tolerance_ns = tolerance < horizon ? tolerance : horizon,
		.emission_ns = t,
	};
	return RL_OK;
}

const char *rl_strerror(int status)
{
	switch (status) {
	case RL_OK:
		return "ok";
	case RL_EINVAL:
		return "invalid argument";
	case RL_ENOMEM:
		return "out of memory";
	case RL_ERANGE:
		return "time out of range";
	case RL_EORDER:
		return "time went backwards";
	case RL_EFULL:
		return "table full";
	case RL_ENOTFOUND:
		return "not found";
	}
	return "unknown status";
}
