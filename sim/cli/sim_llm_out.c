/*
 * sim_llm_out.c - `ratelab sim --llm P`: the LLM API scenario (sim_llm.h)
 * under the policy P for every algorithm, written as DIR/llm.csv, one row
 * per (algorithm, way):
 *   policy,algo,way,requests,admitted,refused_ideal_admits,tokens_real,
 *   tokens_admitted,tokens_over
 * way estimate, ideal or settle; an algorithm that does not settle
 * (settle.h) has its settle row with the measures empty. The workload:
 * 50 keys for 10 minutes at 120% of P's first rule, real tokens
 * log-normal (mu 7, sigma 1: median about 1100, mean about 1800), the
 * estimate the least max_tokens of 512..8192 at or above them, responses
 * ending 300 ms + 10 ms per token after the decision; --seed S (default 1).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "out_file.h"
#include "ratelab/settle.h"
#include "sim_llm.h"
#include "sim_llm_out.h"

int cli_sim_llm(const char *dir, const char *policy, uint64_t seed, bool quiet)
{
	struct sim_llm_opts o = { .keys = 50, .duration_ns = 600000000000LL, .rate_pct = 120, .mu = 7.0,
				  .sigma = 1.0, .base_ns = 300000000, .ns_per_token = 10000000, .seed = seed };
	char msg[512], path[4096];
	struct sim_llm_request *req = NULL;
	size_t n = 0, na;
	const struct rl_algo *const *all = rl_algo_all(&na);

	if (rl_policy_parse(policy, &o.policy, msg, sizeof(msg)) != RL_OK)
		return cli_usage_error("sim", "--llm: %s", msg);
	if (!rl_policy_uses_units(&o.policy))
		return cli_usage_error("sim", "--llm %s has no ':units' rule: the scenario's tokens need one "
				       "(e.g. 60/1m+90000/1m:units)", cli_quote(policy));
	for (size_t a = 0; a < na; a++) {
		struct rl_policy_limiter pl;
		if (rl_policy_limiter_init(&pl, all[a], &o.policy, msg, sizeof(msg)) != RL_OK)
			return cli_usage_error("sim", "--llm: %s: %s", all[a]->name, msg);
	}
	int rc = sim_llm_requests(&o, &req, &n);
	if (rc) {
		fprintf(stderr, "ratelab sim: --llm: %s\n", rc == RL_ENOMEM ? "out of memory" :
			"more than 50M requests in 10 minutes: a longer window in the first rule");
		return rc == RL_ENOMEM ? CLI_EXIT_FAIL : CLI_EXIT_USAGE;
	}
	snprintf(path, sizeof(path), "%s/llm.csv", dir);
	FILE *f = fopen(path, "w");
	unsigned char *ideal = malloc(n ? n : 1);
	if (!f || !ideal) {
		if (f)
			fputs("ratelab sim: out of memory\n", stderr);
		else
			fprintf(stderr, "ratelab sim: cannot write %s: %s\n", cli_quote(path), strerror(errno));
		if (f)
			fclose(f);
		free(ideal);
		free(req);
		return CLI_EXIT_FAIL;
	}
	fputs("policy,algo,way,requests,admitted,refused_ideal_admits,tokens_real,tokens_admitted,tokens_over\n", f);
	static const enum sim_llm_way order[SIM_LLM_WAYS] = { SIM_LLM_ESTIMATE, SIM_LLM_IDEAL, SIM_LLM_SETTLE };
	for (size_t a = 0; a < na && rc == RL_OK; a++) {
		struct sim_llm_row row[SIM_LLM_WAYS];
		/* the ideal first: the others count the requests it admits */
		rc = sim_llm_run(&o, all[a], SIM_LLM_IDEAL, req, n, NULL, ideal, &row[SIM_LLM_IDEAL]);
		if (rc == RL_OK)
			rc = sim_llm_run(&o, all[a], SIM_LLM_ESTIMATE, req, n, ideal, NULL, &row[SIM_LLM_ESTIMATE]);
		bool settles = rl_algo_settles(all[a]);
		if (rc == RL_OK && settles)
			rc = sim_llm_run(&o, all[a], SIM_LLM_SETTLE, req, n, ideal, NULL, &row[SIM_LLM_SETTLE]);
		for (int w = 0; rc == RL_OK && w < SIM_LLM_WAYS; w++) {
			const struct sim_llm_row *r = &row[order[w]];
			fprintf(f, "%s,%s,%s", policy, all[a]->name, sim_llm_way_name[order[w]]);
			if (order[w] == SIM_LLM_SETTLE && !settles)
				fputs(",,,,,,\n", f); /* does not settle: not measured */
			else
				fprintf(f, ",%lld,%lld,%lld,%lld,%lld,%lld\n", (long long)r->requests,
					(long long)r->admitted, (long long)r->refused_ideal_admits,
					(long long)r->tokens_real, (long long)r->tokens_admitted, (long long)r->tokens_over);
		}
		if (!quiet && rc == RL_OK)
			fprintf(stderr, "ratelab sim: llm %s %s: %zu requests\n", policy, all[a]->name, n);
	}
	free(ideal);
	free(req);
	if (rc) {
		fclose(f);
		fprintf(stderr, "ratelab sim: --llm: %s\n", rl_strerror(rc));
		return CLI_EXIT_FAIL;
	}
	return sim_out_close(f, path, "sim", stderr) ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}
