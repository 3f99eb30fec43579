/*
 * sim_llm.h - the LLM API scenario: a policy such as "60/1m+90000/1m:units"
 * (requests and tokens per minute per key) facing requests whose real
 * token count is known only when the response ends, decided three ways
 * for one algorithm on the same seeded requests:
 *   SIM_LLM_ESTIMATE  charged the estimate (the request's max_tokens) at
 *                     the decision, never corrected;
 *   SIM_LLM_IDEAL     charged the real tokens at the decision (impossible:
 *                     unknown then; the yardstick);
 *   SIM_LLM_SETTLE    charged the estimate, then settled by real -
 *                     estimate when the response ends (settle.h; the
 *                     events in time order, a settle before a decision
 *                     at the same ns, as replay orders them).
 *
 * Workload (sim_llm_requests): Poisson arrivals over all keys at keys *
 * rate_pct% of the first rule's N per W, each to a key drawn uniformly;
 * real tokens log-normal, round(exp(mu + sigma Z)) clamped to
 * [1, SIM_LLM_MAX_TOKENS]; the estimate the least of 512, 1024, 2048,
 * 4096, 8192 at or above it (a client's max_tokens: estimate >= real);
 * the response ends base_ns + real * ns_per_token after the decision.
 * All from one seeded stream (sim_rng): the same requests for every
 * algorithm and way.
 *
 * Measures (struct sim_llm_row), per request of the run:
 *   tokens_over   admitted real tokens above the policy's first ":units"
 *                 rule: at each admission, of this request's real tokens,
 *                 those by which the key's admitted real tokens in
 *                 (t - W, t] (this one included) exceed N; 0 when no
 *                 window ever holds more than N real tokens;
 *   refused_ideal_admits  requests this way refused that the ideal way
 *                 (same algorithm) admitted; 0 for the ideal itself.
 * Invariants (tests/test_sim_llm.c): for sliding_log tokens_over is 0 in
 * all three ways (the ideal is exact on real tokens; the estimate and the
 * settle charge at least the real tokens at every instant, since
 * estimate >= real and a refund only brings a charge down to the real
 * count); the ideal's refused_ideal_admits is 0.
 *
 * An algorithm that does not settle (rl_algo_settles) has no settle row:
 * sim_llm_run returns RL_EINVAL for it, with nothing measured.
 */
#ifndef RATELAB_SIM_LLM_H
#define RATELAB_SIM_LLM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ratelab/algo.h"
#include "ratelab/policy.h"

#define SIM_LLM_MAX_TOKENS 8192

enum sim_llm_way { SIM_LLM_ESTIMATE, SIM_LLM_IDEAL, SIM_LLM_SETTLE, SIM_LLM_WAYS };

extern const char *const sim_llm_way_name[SIM_LLM_WAYS]; /* estimate, ideal, settle */

struct sim_llm_opts {
	struct rl_policy policy;  /* at least one ":units" rule */
	uint32_t keys;            /* >= 1 */
	int64_t duration_ns;      /* arrivals in [0, duration) */
	int64_t rate_pct;         /* offered requests per key, percent of the first rule's N per W */
	double mu, sigma;         /* log-normal real tokens: exp(mu + sigma Z) */
	int64_t base_ns;          /* a response's fixed time, ns */
	int64_t ns_per_token;     /* and per real token, ns */
	uint64_t seed;
};

struct sim_llm_request {
	int64_t t_ns, done_ns;
	uint32_t key;
	uint32_t real, estimate; /* tokens: 1 <= real <= estimate <= SIM_LLM_MAX_TOKENS */
};

struct sim_llm_row {
	int64_t requests, admitted;
	int64_t tokens_real;       /* real tokens of every request */
	int64_t tokens_admitted;   /* real tokens of the admitted */
	int64_t tokens_over;
	int64_t refused_ideal_admits;
};

/* The run's requests in time order (*out malloc'd, *n of them). RL_OK, RL_EINVAL (bad opts) or RL_ENOMEM. */
int sim_llm_requests(const struct sim_llm_opts *o, struct sim_llm_request **out, size_t *n);

/*
 * Decides req[0..n) with algo under o->policy the way way; ideal (NULL, or
 * the ideal way's verdicts of this algorithm, one byte per request)
 * counts refused_ideal_admits; verdicts (NULL, or n bytes) receives this
 * run's. RL_OK, RL_EINVAL (a policy the algorithm refuses, or SETTLE for an
 * algorithm that does not settle) or RL_ENOMEM.
 */
int sim_llm_run(const struct sim_llm_opts *o, const struct rl_algo *algo, enum sim_llm_way way,
		const struct sim_llm_request *req, size_t n, const unsigned char *ideal, unsigned char *verdicts,
		struct sim_llm_row *row);

#endif
