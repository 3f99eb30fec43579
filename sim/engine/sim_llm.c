/*
 * sim_llm.c - model: see sim_llm.h. A run walks the requests in time
 * order with one queue of pending settles, a binary min-heap on (done_ns,
 * request index): before the decision at t every settle due at or before
 * t is applied, earliest first. The real tokens admitted per key are kept
 * in a run log over the first ":units" rule's window (rl_runlog), which
 * gives tokens_over exactly.
 */
#include "sim_llm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ratelab/runlog.h"
#include "ratelab/settle.h"
#include "sim_rng.h"

const char *const sim_llm_way_name[SIM_LLM_WAYS] = { "estimate", "ideal", "settle" };

static const uint32_t estimates[] = { 512, 1024, 2048, 4096, 8192 };

/* A standard normal by Box-Muller (workload generation only: no decision uses it). */
static double normal(struct sim_rng *r)
{
	double u = 1.0 - sim_rng_unit(r), v = sim_rng_unit(r);

	return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

int sim_llm_requests(const struct sim_llm_opts *o, struct sim_llm_request **out, size_t *n)
{
	const struct rl_rule *r0 = &o->policy.rules[0];
	struct sim_rng rng;

	*out = NULL;
	*n = 0;
	if (!o->policy.count || !rl_policy_uses_units(&o->policy) || !o->keys || o->duration_ns <= 0 ||
	    o->rate_pct <= 0 || o->base_ns < 0 || o->ns_per_token < 0 || !(o->sigma >= 0))
		return RL_EINVAL;
	/* mean gap over all keys: W / (keys * N * rate%) */
	double gap_ns = (double)r0->window_ns * 100.0 / ((double)o->keys * (double)r0->limit * (double)o->rate_pct);
	double expect = (double)o->duration_ns / gap_ns;
	if (expect > 5e7)
		return RL_EINVAL; /* bounded work: at most about 50M requests */
	size_t cap = (size_t)(expect * 1.2) + 64;
	struct sim_llm_request *req = malloc(cap * sizeof(*req));
	if (!req)
		return RL_ENOMEM;
	sim_rng_seed(&rng, o->seed, 0x11a);
	for (int64_t t = sim_rng_exp_ns(&rng, gap_ns); t < o->duration_ns; t += sim_rng_exp_ns(&rng, gap_ns)) {
		if (*n == cap) {
			struct sim_llm_request *g = realloc(req, 2 * cap * sizeof(*g));
			if (!g) {
				free(req);
				return RL_ENOMEM;
			}
			req = g;
			cap *= 2;
		}
		double x = exp(o->mu + o->sigma * normal(&rng));
		uint32_t real = x >= SIM_LLM_MAX_TOKENS ? SIM_LLM_MAX_TOKENS : x < 1.5 ? 1 : (uint32_t)llround(x);
		uint32_t est = estimates[0];
		for (size_t i = 0; est < real; i++)
			est = estimates[i + 1];
		struct sim_llm_request *q = &req[(*n)++];
		q->t_ns = t;
		q->key = (uint32_t)sim_rng_below(&rng, o->keys);
		q->real = real;
		q->estimate = est;
		q->done_ns = t + o->base_ns + (int64_t)real * o->ns_per_token;
	}
	*out = req;
	return RL_OK;
}

struct pending {
	int64_t done_ns;
	size_t i;
	int64_t at_ns;
};

static bool before(const struct pending *a, const struct pending *b)
{
	return a->done_ns < b->done_ns || (a->done_ns == b->done_ns && a->i < b->i);
}

static void heap_push(struct pending *h, size_t *len, struct pending p)
{
	size_t i = (*len)++;
	for (; i > 0 && before(&p, &h[(i - 1) / 2]); i = (i - 1) / 2)
		h[i] = h[(i - 1) / 2];
	h[i] = p;
}

static struct pending heap_pop(struct pending *h, size_t *len)
{
	struct pending top = h[0], last = h[--*len];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= *len)
			break;
		if (c + 1 < *len && before(&h[c + 1], &h[c]))
			c++;
		if (!before(&h[c], &last))
			break;
		h[i] = h[c];
		i = c;
	}
	if (*len)
		h[i] = last;
	return top;
}

int sim_llm_run(const struct sim_llm_opts *o, const struct rl_algo *algo, enum sim_llm_way way,
		const struct sim_llm_request *req, size_t n, const unsigned char *ideal, unsigned char *verdicts,
		struct sim_llm_row *row)
{
	struct rl_policy_limiter *pl = malloc(sizeof(*pl)); /* points into itself: never moved */
	size_t u = 0;

	memset(row, 0, sizeof(*row));
	if (!pl)
		return RL_ENOMEM;
	if ((way == SIM_LLM_SETTLE && !rl_algo_settles(algo)) ||
	    rl_policy_limiter_init(pl, algo, &o->policy, NULL, 0) != RL_OK) {
		free(pl);
		return RL_EINVAL;
	}
	while (!o->policy.units[u])
		u++;
	int64_t lim_u = o->policy.rules[u].limit, win_u = o->policy.rules[u].window_ns;
	size_t ss = pl->ops.state_size, len = 0;
	unsigned char *states = calloc(o->keys, ss);
	struct rl_runlog *logs = calloc(o->keys, sizeof(*logs));
	struct pending *heap = way == SIM_LLM_SETTLE ? malloc((n ? n : 1) * sizeof(*heap)) : NULL;
	int rc = states && logs && (way != SIM_LLM_SETTLE || heap) ? RL_OK : RL_ENOMEM;

	for (size_t i = 0; rc == RL_OK && i < n; i++) {
		const struct sim_llm_request *q = &req[i];
		while (len && heap[0].done_ns <= q->t_ns && rc == RL_OK) {
			struct pending p = heap_pop(heap, &len);
			const struct sim_llm_request *s = &req[p.i];
			rc = rl_policy_settle(pl, states + (size_t)s->key * ss, p.at_ns,
					      (int64_t)s->real - (int64_t)s->estimate, p.done_ns);
		}
		if (rc)
			break;
		struct rl_policy_answer a;
		int64_t cost = way == SIM_LLM_IDEAL ? q->real : q->estimate;
		int v = rl_policy_check(pl, states + (size_t)q->key * ss, q->t_ns, cost, &a);
		if (v < 0) {
			rc = v;
			break;
		}
		row->requests++;
		row->tokens_real += q->real;
		if (verdicts)
			verdicts[i] = (unsigned char)v;
		if (!v) {
			row->refused_ideal_admits += ideal && ideal[i];
			continue;
		}
		row->admitted++;
		row->tokens_admitted += q->real;
		struct rl_runlog *log = &logs[q->key];
		rl_runlog_expire(log, q->t_ns - win_u);
		if ((rc = rl_runlog_push_n(log, q->t_ns, q->real)) != RL_OK)
			break;
		int64_t above = (int64_t)log->total - lim_u;
		row->tokens_over += above <= 0 ? 0 : above < q->real ? above : q->real;
		if (way == SIM_LLM_SETTLE && q->real != q->estimate)
			heap_push(heap, &len, (struct pending){ q->done_ns, i, a.at_ns });
	}
	for (uint32_t k = 0; states && k < o->keys; k++)
		rl_policy_release(pl, states + (size_t)k * ss);
	for (uint32_t k = 0; logs && k < o->keys; k++)
		rl_runlog_free(&logs[k]);
	free(states);
	free(logs);
	free(heap);
	free(pl);
	return rc;
}
