/*
 * test_sim_replay.c - the simulator's replay source against the obvious
 * model, `ratelab replay`'s loop: each line of the trace, in file order,
 * checked with its own time and cost on its key's state (times that go
 * back included, which the algorithm clamps per key). On seeded random
 * traces, every algorithm's verdicts through the engine equal the model's,
 * one by one; the duration defaults to the span, so the last line is
 * decided; a given duration leaves the lines past it out, counted.
 * A failure prints its seed (RL_SEED=<seed> replays it).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "ratelab/algo.h"
#include "sim_run.h"
#include "sim_scenario.h"
#include "sim_traffic.h"
#include "test_rng.h"

#define MAX_LINES 400
#define NKEYS 4

struct trace {
	size_t n;
	int64_t t[MAX_LINES], cost[MAX_LINES];
	int key[MAX_LINES];
};

struct verdicts {
	size_t n;
	int v[MAX_LINES + 1];
};

static void record(void *arg, int64_t t, uint32_t key, int verdict)
{
	struct verdicts *vs = arg;

	(void)t;
	(void)key;
	if (vs->n <= MAX_LINES)
		vs->v[vs->n++] = verdict;
}

/* Times mostly forward, now and then back by up to 3 windows; costs 1..3, some lines without. */
static void make_trace(uint64_t *rng, struct trace *tr, int64_t w)
{
	int64_t t = 0;

	tr->n = 50 + t_splitmix(rng) % (MAX_LINES - 50);
	for (size_t i = 0; i < tr->n; i++) {
		uint64_t r = t_splitmix(rng);
		if (r % 7 == 0)
			t -= (int64_t)(t_splitmix(rng) % (uint64_t)(3 * w));
		else
			t += (int64_t)(t_splitmix(rng) % (uint64_t)(w / 2));
		tr->t[i] = t < 0 ? 0 : t;
		tr->key[i] = (int)((r >> 8) % NKEYS);
		tr->cost[i] = (r >> 16) % 3 ? 1 : 1 + (int64_t)((r >> 20) % 3);
	}
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void write_trace(const char *path, const struct trace *tr)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	for (size_t i = 0; i < tr->n; i++)
		if (tr->cost[i] == 1 && i % 2)
			fprintf(f, "%lld k%d\n", (long long)tr->t[i], tr->key[i]);
		else
			fprintf(f, "%lld k%d %lld\n", (long long)tr->t[i], tr->key[i], (long long)tr->cost[i]);
	assert_int_equal(fclose(f), 0);
}

/* The model: replay's loop, one state per key, each line's own time. */
static void model(const struct rl_algo *algo, const struct rl_rule *rule, const struct trace *tr, size_t n,
		  struct verdicts *out)
{
	struct rl_limiter lim;
	static unsigned char st[NKEYS][RL_ALGO_MAX_STATE];

	memset(st, 0, sizeof(st));
	assert_int_equal(rl_limiter_init(&lim, algo, rule, NULL, 0), RL_OK);
	out->n = 0;
	for (size_t i = 0; i < n; i++) {
		int v = rl_limiter_check_n(&lim, st[tr->key[i]], tr->t[i], tr->cost[i], NULL);
		assert_true(v >= 0);
		out->v[out->n++] = v;
	}
	for (int k = 0; k < NKEYS; k++)
		rl_limiter_release(&lim, st[k]);
}

static int64_t largest(const struct trace *tr)
{
	int64_t m = 0;

	for (size_t i = 0; i < tr->n; i++)
		m = tr->t[i] > m ? tr->t[i] : m;
	return m;
}

static void engine_equals_model(void **u)
{
	(void)u;
	uint64_t seed = t_seed_from_env(20261202), rng = seed;
	char dir[] = "/tmp/test_sim_replay_XXXXXX", ini[64], trace_path[64], text[512];
	size_t nalgos;
	const struct rl_algo *const *all = rl_algo_all(&nalgos);

	assert_non_null(mkdtemp(dir));
	snprintf(ini, sizeof(ini), "%s/s.ini", dir);
	snprintf(trace_path, sizeof(trace_path), "%s/t.txt", dir);
	for (int round = 0; round < 30; round++) {
		struct trace tr;
		struct sim_scenario sc;
		char msg[600];
		int64_t w = 1000000;

		make_trace(&rng, &tr, w);
		write_trace(trace_path, &tr);
		/* no duration: the span, so every line is decided */
		snprintf(text, sizeof(text),
			 "[scenario]\nlimit = %d\nwindow = 1ms\nburst = %d\n[traffic t]\ntype = replay\nfile = t.txt\n",
			 2 + round % 4, 1 + round % 5);
		write_file(ini, text);
		if (sim_scenario_load(ini, &sc, msg, sizeof(msg)))
			fail_msg("seed %llu: %s", (unsigned long long)seed, msg);
		assert_int_equal(sc.duration_ns, largest(&tr) + 1);
		for (size_t a = 0; a < nalgos; a++) {
			struct sim_traffic traffic;
			struct verdicts got = { 0 }, want;
			struct sim_hooks h = { .on_decision = record, .arg = &got };
			struct sim_result res;

			assert_int_equal(sim_traffic_create(&traffic, &sc, 1, msg, sizeof(msg)), RL_OK);
			assert_int_equal(sim_source_left_out(&traffic.src[0]), 0);
			assert_int_equal(sim_run(&traffic, all[a], &h, &res), RL_OK);
			sim_traffic_destroy(&traffic);
			model(all[a], &sc.rule, &tr, tr.n, &want);
			if (got.n != want.n)
				fail_msg("seed %llu round %d %s: %zu decisions, want %zu", (unsigned long long)seed,
					 round, all[a]->name, got.n, want.n);
			for (size_t i = 0; i < want.n; i++)
				if (got.v[i] != want.v[i])
					fail_msg("seed %llu round %d %s: line %zu (t=%lld key k%d): %d, want %d",
						 (unsigned long long)seed, round, all[a]->name, i + 1,
						 (long long)tr.t[i], tr.key[i], got.v[i], want.v[i]);
			assert_int_equal(res.requests, (int64_t)tr.n);
		}
	}
	unlink(ini);
	unlink(trace_path);
	rmdir(dir);
}

/* duration given: the lines from the first whose running largest time reaches it are left out. */
static void duration_cuts_and_counts(void **u)
{
	(void)u;
	char dir[] = "/tmp/test_sim_replay_XXXXXX", ini[64], path[64];
	struct sim_scenario sc;
	struct sim_traffic traffic;
	struct sim_result res;
	char msg[600];

	assert_non_null(mkdtemp(dir));
	snprintf(ini, sizeof(ini), "%s/s.ini", dir);
	snprintf(path, sizeof(path), "%s/t.txt", dir);
	/* q: 0 5 9 9 10 10 -> with duration 10 ns the last two are left out */
	write_file(path, "0 a\n5 a\n9 b\n2 a\n10 a\n3 b\n");
	write_file(ini, "[scenario]\nlimit = 5\nwindow = 10ns\nduration = 10ns\n[traffic t]\ntype = replay\nfile = t.txt\n");
	assert_int_equal(sim_scenario_load(ini, &sc, msg, sizeof(msg)), RL_OK);
	assert_int_equal(sim_traffic_create(&traffic, &sc, 1, msg, sizeof(msg)), RL_OK);
	assert_int_equal(sim_source_left_out(&traffic.src[0]), 2);
	assert_int_equal(sim_run(&traffic, rl_algo_find("sliding_log"), NULL, &res), RL_OK);
	assert_int_equal(res.requests, 4);
	sim_traffic_destroy(&traffic);

	/* one ns more and nothing is left out: the span */
	write_file(ini, "[scenario]\nlimit = 5\nwindow = 10ns\n[traffic t]\ntype = replay\nfile = t.txt\n");
	assert_int_equal(sim_scenario_load(ini, &sc, msg, sizeof(msg)), RL_OK);
	assert_int_equal(sc.duration_ns, 11);
	assert_int_equal(sim_traffic_create(&traffic, &sc, 1, msg, sizeof(msg)), RL_OK);
	assert_int_equal(sim_source_left_out(&traffic.src[0]), 0);
	sim_traffic_destroy(&traffic);

	/* start: the lines before it are left out too */
	write_file(ini, "[scenario]\nlimit = 5\nwindow = 10ns\nduration = 10ns\n"
			"[traffic t]\ntype = replay\nfile = t.txt\nstart = 6ns\n");
	assert_int_equal(sim_scenario_load(ini, &sc, msg, sizeof(msg)), RL_OK);
	assert_int_equal(sim_traffic_create(&traffic, &sc, 1, msg, sizeof(msg)), RL_OK);
	assert_int_equal(traffic.src[0].trace_first, 2);
	assert_int_equal(sim_source_left_out(&traffic.src[0]), 4);
	sim_traffic_destroy(&traffic);

	/* epoch times: nothing to replay is an error naming ratelab import */
	write_file(path, "1764633600000000000 a\n1764633600000000001 b\n");
	write_file(ini, "[scenario]\nlimit = 5\nwindow = 1s\nduration = 10m\n[traffic t]\ntype = replay\nfile = t.txt\n");
	assert_int_equal(sim_scenario_load(ini, &sc, msg, sizeof(msg)), RL_OK);
	assert_int_equal(sim_traffic_create(&traffic, &sc, 1, msg, sizeof(msg)), RL_EINVAL);
	if (!strstr(msg, "s.ini:6: [traffic t]: the trace") || !strstr(msg, "starts at 1764633600000000000 ns") ||
	    !strstr(msg, "ratelab import"))
		fail_msg("epoch trace: '%s'", msg);

	unlink(ini);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(engine_equals_model),
		cmocka_unit_test(duration_cuts_and_counts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
