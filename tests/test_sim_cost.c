/*
 * test_sim_cost.c - the simulator with weighted requests: hand-built traces
 * with costs whose every answer is known (the exact reference and every
 * metric in units: false allows and rejects judged on units in
 * (t - W, t], the largest count of units in a window, admitted units); the
 * cost distributions (constant, uniform, truncated Pareto) against their
 * definitions, drawn from their own stream so that arrivals do not change;
 * trace COST columns; and the scenario errors for bad costs.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ratelab/algo.h"
#include "sim_run.h"

/* Writes text to a fresh temporary file; path is its mkstemp template, then its name. */
static void write_tmp(char *path, const char *text)
{
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static int load_text(const char *ini, struct sim_scenario *sc, char *msg, size_t msg_len)
{
	char path[] = "/tmp/test_sim_cost_XXXXXX";

	write_tmp(path, ini);
	int rc = sim_scenario_load(path, sc, msg, msg_len);
	unlink(path);
	return rc;
}

static void load(const char *ini, struct sim_scenario *sc)
{
	char msg[700];
	int rc = load_text(ini, sc, msg, sizeof(msg));

	if (rc)
		fprintf(stderr, "%s\n", msg);
	assert_int_equal(rc, RL_OK);
}

/* ------------------------------------------------------------------ */
/* A hand-built trace, N = 10 units per W = 100 ns.                    */

static const char trace[] = "0 a 6\n"     /* everyone admits: 6 of 10 */
			    "50 a 4\n"    /* 10 of 10: exactly the limit */
			    "99 a 1\n"    /* 11 in (-1, 99]: only over-admitting algorithms pass it */
			    "100 a 10\n"  /* a new fixed window; (0, 100] holds 4 at 50 */
			    "150 a 1\n"   /* (50, 150]: 50's units have left */
			    "151 a 11\n"; /* more than N: never admitted */

struct want {
	const char *algo;
	int64_t admitted, admitted_units, false_allows, false_rejects, max_in_window;
};

static void hand_built_trace_in_units(void **unused)
{
	(void)unused;
	char tpath[] = "/tmp/test_sim_cost_trace_XXXXXX";
	char ini[512];
	struct sim_scenario sc;

	write_tmp(tpath, trace);
	snprintf(ini, sizeof(ini),
		 "[scenario]\nname = units\nlimit = 10\nwindow = 100ns\nduration = 1us\n"
		 "[traffic t]\ntype = replay\nfile = %s\n",
		 tpath);
	load(ini, &sc);

	/*
	 * fixed_window: 6, 4, reject (window full), 10 (new window: 4 + 10 = 14
	 * units in (0, 100], a false allow), reject 1 (full), reject 11.
	 * sliding_log: 6, 4, reject, reject 10 (4 + 10 > 10), admit 1 (window
	 * (50, 150] empty), reject 11.
	 * token_bucket (B = 10, one token per 10 ns): 6 (4 left), 4 (9 left at
	 * 50), 1 (9.9 left at 99: 11 units in (-1, 99], a false allow), reject
	 * 10 (9 tokens), 1 (full again at 150), reject 11 (never).
	 */
	static const struct want wants[] = {
		{ "fixed_window", 3, 20, 1, 0, 14 },
		{ "sliding_log", 3, 11, 0, 0, 10 },
		{ "token_bucket", 4, 12, 1, 0, 11 },
	};
	for (size_t i = 0; i < sizeof(wants) / sizeof(wants[0]); i++) {
		struct sim_traffic tr;
		struct sim_result r;
		char msg[600];
		assert_int_equal(sim_traffic_create(&tr, &sc, 1, msg, sizeof(msg)), RL_OK);
		assert_int_equal(sim_run(&tr, rl_algo_find(wants[i].algo), NULL, &r), RL_OK);
		sim_traffic_destroy(&tr);
		if (r.admitted != wants[i].admitted || r.admitted_units != wants[i].admitted_units ||
		    r.false_allows != wants[i].false_allows || r.false_rejects != wants[i].false_rejects ||
		    r.max_in_window != wants[i].max_in_window)
			fail_msg("%s: admitted %lld (%lld units), false allows %lld, false rejects %lld, "
				 "max in window %lld; want %lld (%lld), %lld, %lld, %lld",
				 wants[i].algo, (long long)r.admitted, (long long)r.admitted_units,
				 (long long)r.false_allows, (long long)r.false_rejects,
				 (long long)r.max_in_window, (long long)wants[i].admitted,
				 (long long)wants[i].admitted_units, (long long)wants[i].false_allows,
				 (long long)wants[i].false_rejects, (long long)wants[i].max_in_window);
		assert_int_equal(r.requests, 6);
		assert_int_equal(r.units, 33);
		/* the independent sliding_log agrees with the exact one on its own history */
		if (strcmp(wants[i].algo, "sliding_log") == 0)
			assert_int_equal(r.diverged_allows + r.diverged_rejects, 0);
	}
	unlink(tpath);
}

/* ------------------------------------------------------------------ */
/* The cost distributions, seen through a decider that records them.   */

#define MAX_SEEN 200000

struct seen {
	int64_t n;
	int64_t cost[MAX_SEEN];
	int64_t t[MAX_SEEN];
	uint32_t key[MAX_SEEN];
};

static int record(void *ctx, int64_t t, uint32_t key, int64_t cost, int64_t *retry_ns)
{
	struct seen *s = ctx;

	(void)retry_ns;
	assert_true(s->n < MAX_SEEN);
	s->cost[s->n] = cost;
	s->t[s->n] = t;
	s->key[s->n++] = key;
	return RL_ALLOWED;
}

static void run_seen(const char *cost_line, struct seen *s)
{
	char ini[512];
	struct sim_scenario sc;
	struct sim_traffic tr;
	char msg[600];

	snprintf(ini, sizeof(ini),
		 "[scenario]\nname = dist\nlimit = 1000\nwindow = 1s\nduration = 100s\n"
		 "[traffic p]\ntype = poisson\nkeys = 1\n%s\n",
		 cost_line);
	load(ini, &sc);
	s->n = 0;
	struct sim_decider d = { .decide = record, .ctx = s };
	assert_int_equal(sim_traffic_create(&tr, &sc, 7, msg, sizeof(msg)), RL_OK);
	assert_int_equal(sim_traffic_run(&tr, &d, "dist"), RL_OK);
	sim_traffic_destroy(&tr);
	assert_true(s->n > 90000); /* 1000 per second for 100 s */
}

static void cost_distributions(void **unused)
{
	(void)unused;
	static struct seen ones, cons, uni, par;

	run_seen("", &ones);
	run_seen("cost = constant 7", &cons);
	run_seen("cost = uniform 3 7", &uni);
	run_seen("cost = pareto 1.5 10 10000", &par);

	/* the costs come from their own stream: the same arrivals every time */
	assert_int_equal(cons.n, ones.n);
	assert_int_equal(uni.n, ones.n);
	assert_int_equal(par.n, ones.n);
	assert_memory_equal(cons.t, ones.t, (size_t)ones.n * sizeof(int64_t));
	assert_memory_equal(uni.t, ones.t, (size_t)ones.n * sizeof(int64_t));
	assert_memory_equal(par.key, ones.key, (size_t)ones.n * sizeof(uint32_t));

	int64_t hist[8] = { 0 }, sum = 0;
	for (int64_t i = 0; i < ones.n; i++) {
		assert_int_equal(ones.cost[i], 1); /* no cost line: 1 */
		assert_int_equal(cons.cost[i], 7);
		assert_true(uni.cost[i] >= 3 && uni.cost[i] <= 7);
		hist[uni.cost[i]]++;
		sum += uni.cost[i];
	}
	/* uniform: each of 5 values about n / 5 (4 sigma), mean 5 */
	for (int v = 3; v <= 7; v++) {
		double e = (double)ones.n / 5, d = (double)hist[v] - e;
		assert_true(d * d < 16 * e);
	}
	double mean = (double)sum / (double)ones.n;
	printf("# seed 7: %lld requests; uniform 3..7 mean %.4f (5)\n", (long long)ones.n, mean);
	assert_true(mean > 4.98 && mean < 5.02);

	/* truncated Pareto, shape 1.5 on [10, 10000]: P(X >= x) =
	 * ((10/x)^1.5 - (10/10000)^1.5) / (1 - (10/10000)^1.5):
	 * 0.03159 at x = 100, 0.000969 at x = 1000; median 10 * 2^(2/3) = 15.87 */
	int64_t ge100 = 0, ge1000 = 0, below16 = 0, at_max = 0;
	for (int64_t i = 0; i < par.n; i++) {
		assert_true(par.cost[i] >= 10 && par.cost[i] <= 10000);
		ge100 += par.cost[i] >= 100;
		ge1000 += par.cost[i] >= 1000;
		below16 += par.cost[i] < 16;
		at_max += par.cost[i] == 10000;
	}
	double n = (double)par.n;
	printf("# pareto: P(>=100) %.5f (0.03159), P(>=1000) %.6f (0.000969), P(<16) %.4f (0.5059)\n",
	       (double)ge100 / n, (double)ge1000 / n, (double)below16 / n);
	assert_true(ge100 / n > 0.0290 && ge100 / n < 0.0342);
	assert_true(ge1000 / n > 0.0006 && ge1000 / n < 0.0014);
	/* floor: cost < 16 iff x < 16, P = 1 - ((10/16)^1.5 - 0.001^1.5) / (1 - 0.001^1.5) */
	assert_true(below16 / n > 0.498 && below16 / n < 0.514);
	assert_true(at_max < 10); /* the truncation has no atom at MAX */
}

/* ------------------------------------------------------------------ */
/* Errors: bad costs in a scenario or a trace name the file and line.  */

static void bad_costs_refused(void **unused)
{
	(void)unused;
	static const char *const bad[] = {
		"cost = constant 0",	     "cost = constant 1000000001", "cost = constant -3",
		"cost = constant 1.5",	     "cost = uniform 5 3",	   "cost = uniform 1",
		"cost = uniform 1 2 3",	     "cost = pareto 0 1 10",	   "cost = pareto 11 1 10",
		"cost = pareto 1.2 10 5",    "cost = pareto x 1 10",	   "cost = gamma 2",
		"cost =",		     "cost = constant",
	};
	struct sim_scenario sc;
	char msg[700], ini[512];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(ini, sizeof(ini),
			 "[scenario]\nname = bad\nlimit = 10\nwindow = 1s\nduration = 10s\n"
			 "[traffic p]\ntype = poisson\n%s\n",
			 bad[i]);
		msg[0] = 0;
		assert_int_equal(load_text(ini, &sc, msg, sizeof(msg)), RL_EINVAL);
		if (!strstr(msg, ":8: ") || !strstr(msg, "cost"))
			fail_msg("'%s': message '%s' lacks ':8:' or 'cost'", bad[i], msg);
	}

	/* a trace line's bad COST: its file and line, the line quoted (trace_line.h) */
	char tpath[] = "/tmp/test_sim_cost_trace_XXXXXX";
	write_tmp(tpath, "0 a 2\n5 b 0\n");
	snprintf(ini, sizeof(ini),
		 "[scenario]\nname = bad\nlimit = 10\nwindow = 1s\nduration = 10s\n"
		 "[traffic t]\ntype = replay\nfile = %s\n",
		 tpath);
	load(ini, &sc);
	struct sim_traffic tr;
	assert_int_equal(sim_traffic_create(&tr, &sc, 1, msg, sizeof(msg)), RL_EINVAL);
	char want[128];
	snprintf(want, sizeof(want), "%s:2: '5 b 0': cost '0' is not an integer in [1, 1000000000000]", tpath);
	if (!strstr(msg, want))
		fail_msg("trace error '%s' lacks '%s'", msg, want);
	unlink(tpath);
	/* a cost a held trace cannot carry (32 bits a request, trace.h): refused, never cut */
	char tpath2[] = "/tmp/test_sim_cost_trace_XXXXXX";
	write_tmp(tpath2, "0 a 4294967295\n5 b 4294967296\n");
	snprintf(ini, sizeof(ini),
		 "[scenario]\nname = bad\nlimit = 10\nwindow = 1s\nduration = 10s\n"
		 "[traffic t]\ntype = replay\nfile = %s\n",
		 tpath2);
	load(ini, &sc);
	assert_int_equal(sim_traffic_create(&tr, &sc, 1, msg, sizeof(msg)), RL_EINVAL);
	snprintf(want, sizeof(want), "%s:2: '5 b 4294967296': cost '4294967296' is above 4294967295", tpath2);
	if (!strstr(msg, want))
		fail_msg("trace error '%s' lacks '%s'", msg, want);
	unlink(tpath2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(hand_built_trace_in_units),
		cmocka_unit_test(cost_distributions),
		cmocka_unit_test(bad_costs_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
