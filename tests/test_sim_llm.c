/*
 * test_sim_llm.c - the LLM API scenario (sim_llm.h) on seeded workloads:
 * the requests as defined (time order, 1 <= real <= estimate, the
 * response's end, the same for one seed); the sliding_log's verdicts in
 * the ideal and the settle ways against a slow exact model (per key, every
 * admission kept; a settle adjusts its admission while it is in the
 * window at the settle's time); and the invariants: tokens_over 0 for
 * sliding_log in every way, the ideal refuses nothing it admits itself,
 * no way admits more requests or tokens than asked, an algorithm that
 * does not settle refused in the settle way. Seeds printed on a failure.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ratelab/algo.h"
#include "ratelab/settle.h"
#include "sim_llm.h"

static uint64_t seed;

#define EXPECT(what, got, want)                                                                                  \
	do {                                                                                                     \
		long long g_ = (long long)(got), w_ = (long long)(want);                                         \
		if (g_ != w_)                                                                                    \
			fail_msg("seed %llu: %s: %lld, want %lld", (unsigned long long)seed, what, g_, w_);       \
	} while (0)

static struct sim_llm_opts opts(uint64_t s)
{
	struct sim_llm_opts o = { .keys = 7, .duration_ns = 300000000000LL, .rate_pct = 150, .mu = 6.0,
				  .sigma = 1.2, .base_ns = 200000000, .ns_per_token = 20000000, .seed = s };
	char msg[256];

	assert_int_equal(rl_policy_parse("20/1m+30000/1m:units", &o.policy, msg, sizeof(msg)), RL_OK);
	return o;
}

static void requests_defined(void **unused)
{
	(void)unused;
	for (seed = 1; seed <= 5; seed++) {
		struct sim_llm_opts o = opts(seed);
		struct sim_llm_request *a, *b;
		size_t na, nb;
		assert_int_equal(sim_llm_requests(&o, &a, &na), RL_OK);
		assert_int_equal(sim_llm_requests(&o, &b, &nb), RL_OK);
		EXPECT("the same seed, the same count", nb, na);
		if (memcmp(a, b, na * sizeof(*a)))
			fail_msg("seed %llu: the same seed gave other requests", (unsigned long long)seed);
		/* 7 keys at 150% of 20 per minute for 5 minutes: about 1050 */
		if (na < 800 || na > 1300)
			fail_msg("seed %llu: %zu requests, want about 1050", (unsigned long long)seed, na);
		for (size_t i = 0; i < na; i++) {
			if (i && a[i].t_ns < a[i - 1].t_ns)
				fail_msg("seed %llu: request %zu before its predecessor", (unsigned long long)seed, i);
			if (a[i].real < 1 || a[i].real > a[i].estimate || a[i].estimate > SIM_LLM_MAX_TOKENS ||
			    a[i].key >= o.keys || a[i].t_ns < 0 || a[i].t_ns >= o.duration_ns)
				fail_msg("seed %llu: request %zu: real %u, estimate %u, key %u", (unsigned long long)seed,
					 i, a[i].real, a[i].estimate, a[i].key);
			EXPECT("the response's end", a[i].done_ns, a[i].t_ns + o.base_ns + (int64_t)a[i].real * o.ns_per_token);
		}
		free(a);
		free(b);
	}
	struct sim_llm_opts bad = opts(1);
	struct sim_llm_request *r;
	size_t n;
	bad.policy.units[1] = false;
	assert_int_equal(sim_llm_requests(&bad, &r, &n), RL_EINVAL);
}

/* The slow exact model: per key every admission (time, its units on rule 2), kept for the run. */
struct adm {
	int64_t t;
	int64_t units;
	uint32_t key;
};

/* Verdict of the exact sliding-log policy 20/1m (count) + 30000/1m:units at q, given admissions a[0..na). */
static int model_check(const struct sim_llm_opts *o, const struct adm *a, size_t na, uint32_t key, int64_t t,
		       int64_t cost)
{
	int64_t n0 = 0, n1 = 0;

	for (size_t j = 0; j < na; j++)
		if (a[j].key == key && a[j].t > t - o->policy.rules[0].window_ns) {
			n0++;
			n1 += a[j].units;
		}
	return n0 + 1 <= o->policy.rules[0].limit && n1 + cost <= o->policy.rules[1].limit;
}

static void model_run(const struct sim_llm_opts *o, const struct sim_llm_request *q, size_t n, enum sim_llm_way way,
		      unsigned char *v)
{
	struct adm *a = calloc(n + 1, sizeof(*a));
	size_t *adm_of = calloc(n + 1, sizeof(*adm_of)), na = 0;
	bool *settled = calloc(n + 1, 1);

	assert_non_null(a);
	assert_non_null(adm_of);
	assert_non_null(settled);
	for (size_t i = 0; i < n; i++) {
		/* settles due by t_i, earliest first (done, then index) */
		for (;;) {
			size_t best = n;
			for (size_t j = 0; way == SIM_LLM_SETTLE && j < i; j++)
				if (v[j] && !settled[j] && q[j].real != q[j].estimate && q[j].done_ns <= q[i].t_ns &&
				    (best == n || q[j].done_ns < q[best].done_ns))
					best = j;
			if (best == n)
				break;
			settled[best] = true;
			struct adm *e = &a[adm_of[best]];
			if (e->t > q[best].done_ns - o->policy.rules[1].window_ns) /* still in the window */
				e->units += (int64_t)q[best].real - (int64_t)q[best].estimate;
		}
		int64_t cost = way == SIM_LLM_IDEAL ? q[i].real : q[i].estimate;
		v[i] = (unsigned char)model_check(o, a, na, q[i].key, q[i].t_ns, cost);
		if (v[i]) {
			adm_of[i] = na;
			a[na++] = (struct adm){ q[i].t_ns, cost, q[i].key };
		}
	}
	free(a);
	free(adm_of);
	free(settled);
}

static void sliding_log_against_model(void **unused)
{
	(void)unused;
	const struct rl_algo *log = rl_algo_find("sliding_log");
	for (seed = 11; seed <= 14; seed++) {
		struct sim_llm_opts o = opts(seed);
		struct sim_llm_request *q;
		size_t n;
		assert_int_equal(sim_llm_requests(&o, &q, &n), RL_OK);
		unsigned char *got = malloc(n), *want = malloc(n);
		assert_non_null(got);
		assert_non_null(want);
		for (int w = 0; w < SIM_LLM_WAYS; w++) {
			struct sim_llm_row row;
			assert_int_equal(sim_llm_run(&o, log, (enum sim_llm_way)w, q, n, NULL, got, &row), RL_OK);
			model_run(&o, q, n, (enum sim_llm_way)w, want);
			for (size_t i = 0; i < n; i++)
				if (got[i] != want[i])
					fail_msg("seed %llu: %s: request %zu (t %lld key %u real %u estimate %u): %d, the model %d",
						 (unsigned long long)seed, sim_llm_way_name[w], i, (long long)q[i].t_ns,
						 q[i].key, q[i].real, q[i].estimate, got[i], want[i]);
		}
		free(got);
		free(want);
		free(q);
	}
}

static void invariants(void **unused)
{
	(void)unused;
	size_t na;
	const struct rl_algo *const *all = rl_algo_all(&na);
	for (seed = 21; seed <= 24; seed++) {
		struct sim_llm_opts o = opts(seed);
		struct sim_llm_request *q;
		size_t n;
		assert_int_equal(sim_llm_requests(&o, &q, &n), RL_OK);
		unsigned char *ideal = malloc(n);
		assert_non_null(ideal);
		for (size_t a = 0; a < na; a++) {
			struct sim_llm_row row[SIM_LLM_WAYS];
			assert_int_equal(sim_llm_run(&o, all[a], SIM_LLM_IDEAL, q, n, NULL, ideal, &row[SIM_LLM_IDEAL]), RL_OK);
			assert_int_equal(sim_llm_run(&o, all[a], SIM_LLM_ESTIMATE, q, n, ideal, NULL, &row[SIM_LLM_ESTIMATE]),
					 RL_OK);
			int rc = sim_llm_run(&o, all[a], SIM_LLM_SETTLE, q, n, ideal, NULL, &row[SIM_LLM_SETTLE]);
			EXPECT(all[a]->name, rc, rl_algo_settles(all[a]) ? RL_OK : RL_EINVAL);
			EXPECT("the ideal refuses nothing it admits", row[SIM_LLM_IDEAL].refused_ideal_admits, 0);
			for (int w = 0; w < SIM_LLM_WAYS; w++) {
				if (w == SIM_LLM_SETTLE && rc)
					continue; /* not measured: the algorithm does not settle (checked above) */
				EXPECT("requests", row[w].requests, n);
				if (row[w].admitted > row[w].requests || row[w].tokens_admitted > row[w].tokens_real ||
				    row[w].tokens_over > row[w].tokens_admitted)
					fail_msg("seed %llu: %s %s: admitted %lld of %lld, tokens %lld of %lld, over %lld",
						 (unsigned long long)seed, all[a]->name, sim_llm_way_name[w],
						 (long long)row[w].admitted, (long long)row[w].requests,
						 (long long)row[w].tokens_admitted, (long long)row[w].tokens_real,
						 (long long)row[w].tokens_over);
				if (!strcmp(all[a]->name, "sliding_log"))
					EXPECT("sliding_log's tokens over the limit", row[w].tokens_over, 0);
			}
		}
		free(ideal);
		free(q);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(requests_defined),
		cmocka_unit_test(sliding_log_against_model),
		cmocka_unit_test(invariants),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
