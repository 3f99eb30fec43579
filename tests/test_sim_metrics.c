/*
 * test_sim_metrics.c - the simulator's accuracy metrics on hand-built
 * traces whose answers are worked out here: over-admission against N per
 * W (max_in_window) apart from the algorithm's own bound (beyond_bound,
 * which a correct algorithm never passes and a lying bound is caught by),
 * the polite clients' wait, the sliding-counter estimate against the exact
 * count, and "not measured" (Jain's index NaN) where no
 * source picks keys uniformly.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ratelab/algo.h"
#include "sim_run.h"

#define SEC 1000000000LL

struct files {
	char dir[32], ini[64], trace[64];
};

/* Writes trace and a replay scenario of N per 1 s, burst B, with the extra traffic lines. */
static void write_replay(struct files *f, int64_t n, int64_t b, const char *extra, const char *trace)
{
	snprintf(f->dir, sizeof(f->dir), "/tmp/test_simm_XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->ini, sizeof(f->ini), "%s/s.ini", f->dir);
	snprintf(f->trace, sizeof(f->trace), "%s/t.trace", f->dir);
	FILE *t = fopen(f->trace, "w"), *s = fopen(f->ini, "w");
	assert_non_null(t);
	assert_non_null(s);
	fputs(trace, t);
	fprintf(s, "[scenario]\nname = hand\nlimit = %lld\nwindow = 1s\nburst = %lld\nduration = 10s\n"
		   "[traffic trace]\ntype = replay\nfile = t.trace\n%s", (long long)n, (long long)b, extra);
	fclose(t);
	fclose(s);
}

static void remove_files(struct files *f)
{
	unlink(f->trace);
	unlink(f->ini);
	rmdir(f->dir);
}

static void run(const struct files *f, const struct rl_algo *algo, struct sim_result *res)
{
	struct sim_scenario sc;
	struct sim_traffic tr;
	char msg[600];
	int rc = sim_scenario_load(f->ini, &sc, msg, sizeof(msg));

	if (rc)
		fprintf(stderr, "%s\n", msg);
	assert_int_equal(rc, RL_OK);
	assert_int_equal(sim_traffic_create(&tr, &sc, 1, msg, sizeof(msg)), RL_OK);
	assert_int_equal(sim_run(&tr, algo, NULL, res), RL_OK);
	sim_traffic_destroy(&tr);
}

/* A trace line per request: count requests of key a at t ns. */
static void add(char *buf, size_t len, int64_t t, int count)
{
	for (int i = 0; i < count; i++)
		snprintf(buf + strlen(buf), len - strlen(buf), "%lld a\n", (long long)t);
}

/* B = N = 10 at t = 0 is the configured burst: N in the window, nothing over N, nothing past the bound. */
static void token_bucket_burst_of_b_is_within_its_bound(void **u)
{
	char trace[4096] = "";
	struct files f;
	struct sim_result r;

	(void)u;
	add(trace, sizeof(trace), 0, 10);
	write_replay(&f, 10, 10, "", trace);
	run(&f, &rl_token_bucket_algo, &r);
	assert_int_equal(r.admitted, 10);
	assert_int_equal(r.max_in_window, 10);
	assert_int_equal(r.false_allows, 0);
	assert_int_equal(r.own_bound, 19); /* B + floor(N (W - 1) / W) */
	assert_int_equal(r.beyond_bound, 0);
	assert_true(isnan(r.jain_index)); /* a replayed key: not measured */
	remove_files(&f);

	/* and 10 more at W/2: 5 refilled tokens pass, 15 in one window of W, 1.5x N, still in its bound */
	add(trace, sizeof(trace), SEC / 2, 10);
	write_replay(&f, 10, 10, "", trace);
	run(&f, &rl_token_bucket_algo, &r);
	assert_int_equal(r.admitted, 15);
	assert_int_equal(r.max_in_window, 15);
	assert_int_equal(r.false_allows, 5);
	assert_int_equal(r.false_rejects, 0);
	assert_int_equal(r.beyond_bound, 0);
	remove_files(&f);
}

/* fixed_window's promise is N per aligned window, 2N across an edge: the pair is 2x N, within its bound. */
static const int64_t pair_n = 50;

static void boundary_pair(struct files *f)
{
	static char trace[8192];

	trace[0] = '\0';
	add(trace, sizeof(trace), SEC - 1, (int)pair_n);
	add(trace, sizeof(trace), SEC, (int)pair_n);
	write_replay(f, pair_n, pair_n, "", trace);
}

static void fixed_window_2n_pair_is_within_its_bound(void **u)
{
	struct files f;
	struct sim_result r;

	(void)u;
	boundary_pair(&f);
	run(&f, &rl_fixed_window_algo, &r);
	assert_int_equal(r.admitted, 2 * pair_n);
	assert_int_equal(r.max_in_window, 2 * pair_n); /* 2x over N */
	assert_int_equal(r.false_allows, pair_n);
	assert_int_equal(r.own_bound, 2 * pair_n);
	assert_int_equal(r.beyond_bound, 0);
	run(&f, &rl_sliding_log_algo, &r);
	assert_int_equal(r.max_in_window, pair_n);
	assert_int_equal(r.own_bound, pair_n);
	assert_int_equal(r.beyond_bound + r.false_allows + r.false_rejects, 0);
	remove_files(&f);
}

/* fixed_window's decisions under a bound of N (sliding_log's): the second side is all past it. */
static int64_t bound_n(const struct rl_limiter *lim, int64_t span_ns)
{
	(void)span_ns;
	return lim->rule.limit;
}

static void beyond_bound_catches_a_broken_promise(void **u)
{
	struct rl_algo liar = rl_fixed_window_algo;
	struct files f;
	struct sim_result r;

	(void)u;
	liar.max_admitted = bound_n;
	boundary_pair(&f);
	run(&f, &liar, &r);
	assert_int_equal(r.own_bound, pair_n);
	assert_int_equal(r.beyond_bound, pair_n);
	remove_files(&f);
}

/* N = 1 per 1 s, two sends at 0: the second waits exactly retry_after = 1 s, or gives up. */
static void polite_clients_wait(void **u)
{
	struct files f;
	struct sim_result r;

	(void)u;
	write_replay(&f, 1, 1, "client = polite\nmax_retries = 2\n", "0 a\n0 a\n");
	run(&f, &rl_sliding_log_algo, &r);
	assert_int_equal(r.clients.requests, 2);
	assert_int_equal(r.clients.served, 2);
	assert_int_equal(r.clients.gave_up, 0);
	assert_int_equal(r.clients.wait_ns_sum, SEC);
	assert_int_equal(r.clients.wait_ns_max, SEC);
	remove_files(&f);

	write_replay(&f, 1, 1, "client = polite\nmax_retries = 0\n", "0 a\n0 a\n");
	run(&f, &rl_sliding_log_algo, &r);
	assert_int_equal(r.clients.requests, 2);
	assert_int_equal(r.clients.served, 1);
	assert_int_equal(r.clients.gave_up, 1);
	assert_int_equal(r.clients.wait_ns_sum, 0);
	remove_files(&f);

	write_replay(&f, 1, 1, "", "0 a\n0 a\n"); /* no polite client: nothing tallied */
	run(&f, &rl_sliding_log_algo, &r);
	assert_int_equal(r.clients.requests, 0);
	remove_files(&f);
}

/* 4 admitted at 0.5 s, one request at 1.25 s: the counter estimates 4 * 0.75 = 3 of the exact 4. */
static void sliding_counter_estimate_against_exact(void **u)
{
	char trace[256] = "";
	struct files f;
	struct sim_result r;

	(void)u;
	add(trace, sizeof(trace), SEC / 2, 4);
	add(trace, sizeof(trace), SEC + SEC / 4, 1);
	write_replay(&f, 10, 10, "", trace);
	run(&f, &rl_sliding_log_algo, &r);
	assert_int_equal(r.admitted, 5);
	assert_int_equal(r.estimate_n, 4); /* the first request finds an empty window */
	assert_true(fabs(r.estimate_diff_sum - 0.25) < 1e-12);
	remove_files(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(token_bucket_burst_of_b_is_within_its_bound),
		cmocka_unit_test(fixed_window_2n_pair_is_within_its_bound),
		cmocka_unit_test(beyond_bound_catches_a_broken_promise),
		cmocka_unit_test(polite_clients_wait),
		cmocka_unit_test(sliding_counter_estimate_against_exact),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
