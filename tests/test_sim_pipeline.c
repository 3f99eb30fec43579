/*
 * test_sim_pipeline.c - a pipelined decider (sim_traffic.h: send now,
 * answer later, up to a window of requests unanswered) gives the lockstep
 * run exactly, on seeded random scenarios of every source type and client
 * kind (polite, abusive, none, the adversary's probes), retry gaps of 1 ns
 * (ties with the next events), weighted costs and replayed traces whose
 * times go back.
 *
 * The model decider is a hash chain over every request it is handed, of
 * every key, in order: each verdict and retry-after depends on the whole
 * input sequence so far, so any request sent out of the lockstep order,
 * of this key or another, changes what follows. Lockstep (decide) and
 * pipelined (send/answer) runs must hand it the same sequence and
 * measure the same run: every field of sim_result but the CPU time, the
 * series and each decision in order. A failure prints its seed; RL_SEED
 * replays it.
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

#include "sim_run.h"
#include "test_rng.h"

#define SCENARIOS 250 /* random scenarios per run of the test */

/* The model decider: one chain, answers queued in input order when pipelined. */
struct chain {
	uint64_t h;         /* hash of every request handed so far, in order */
	int64_t handed;     /* requests handed */
	int64_t window_ns;  /* the scenario's W: retry-afters range over it */
	struct answer { int v; int64_t retry; } *q; /* pipelined: answers not yet taken */
	size_t qcap, qhead, qtail;
	size_t inflight_max; /* the most requests unanswered at once */
};

static uint64_t mix(uint64_t h, uint64_t x)
{
	uint64_t s = h ^ x;
	return t_splitmix(&s);
}

/* Hands the chain one request: its verdict and retry-after, from everything handed before. */
static struct answer hand(struct chain *c, int64_t t, uint32_t key, int64_t cost)
{
	c->h = mix(mix(mix(c->h, (uint64_t)t), key), (uint64_t)cost);
	c->handed++;
	struct answer a = { .v = (c->h >> 7) % 3 != 0 };
	switch ((c->h >> 20) % 4) { /* 1 ns: a retry that ties with events of the next ns */
	case 0: a.retry = 1; break;
	case 1: a.retry = 1 + (int64_t)((c->h >> 32) % (uint64_t)c->window_ns); break;
	case 2: a.retry = c->window_ns; break;
	default: a.retry = 1 + (int64_t)((c->h >> 32) % 1000); break;
	}
	return a;
}

static int chain_decide(void *ctx, int64_t t, uint32_t key, int64_t cost, int64_t *retry)
{
	struct answer a = hand(ctx, t, key, cost);

	if (retry)
		*retry = a.v ? 0 : a.retry;
	return a.v;
}

static int chain_send(void *ctx, int64_t t, uint32_t key, int64_t cost)
{
	struct chain *c = ctx;

	if (c->qtail - c->qhead == c->qcap) {
		size_t n = c->qtail - c->qhead, cap = c->qcap ? 2 * c->qcap : 16;
		struct answer *q = malloc(cap * sizeof(*q));
		assert_non_null(q);
		for (size_t i = 0; i < n; i++)
			q[i] = c->q[(c->qhead + i) % c->qcap];
		free(c->q);
		c->q = q;
		c->qcap = cap;
		c->qhead = 0;
		c->qtail = n;
	}
	c->q[c->qtail++ % c->qcap] = hand(c, t, key, cost);
	if (c->qtail - c->qhead > c->inflight_max)
		c->inflight_max = c->qtail - c->qhead;
	return RL_OK;
}

static int chain_answer(void *ctx, int64_t t, uint32_t key, int64_t cost, int64_t *retry)
{
	struct chain *c = ctx;

	(void)t;
	(void)key;
	(void)cost;
	assert_true(c->qtail > c->qhead);
	struct answer a = c->q[c->qhead++ % c->qcap];
	if (retry)
		*retry = a.v ? 0 : a.retry;
	return a.v;
}

/* What a run measured, to compare: the decisions in order hashed, the series, the result. */
struct seen {
	uint64_t decisions;
	int64_t *adm, *rej;
	size_t nb;
	struct sim_result res;
	uint64_t handed_hash;
	int64_t handed;
	size_t inflight_max;
};

static void on_decision(void *arg, int64_t t, uint32_t key, int verdict)
{
	uint64_t *h = arg;
	*h = mix(mix(mix(*h, (uint64_t)t), key), (uint64_t)verdict);
}

/* One run of sc through the chain: lockstep with window 0, else pipelined with that window. */
static void run(const struct sim_scenario *sc, uint32_t window, struct seen *s)
{
	struct sim_traffic tr;
	char msg[700];
	struct chain c = { .window_ns = sc->rule.window_ns };
	struct sim_decider d = { .decide = chain_decide, .ctx = &c };

	if (window) {
		d.send = chain_send;
		d.answer = chain_answer;
		d.window = window;
	}
	*s = (struct seen){ .nb = (size_t)((sc->duration_ns + sc->bucket_ns - 1) / sc->bucket_ns) };
	s->adm = calloc(s->nb, sizeof(int64_t));
	s->rej = calloc(s->nb, sizeof(int64_t));
	assert_non_null(s->adm);
	assert_non_null(s->rej);
	struct sim_hooks hooks = { .on_decision = on_decision, .arg = &s->decisions, .series_admitted = s->adm,
				   .series_rejected = s->rej, .nbuckets = s->nb };
	if (sim_traffic_create(&tr, sc, sc->seed, msg, sizeof(msg)) != RL_OK)
		fail_msg("%s", msg);
	assert_int_equal(sim_run_external(&tr, &d, "chain", &hooks, &s->res), RL_OK);
	sim_traffic_destroy(&tr);
	assert_int_equal(c.qtail, c.qhead); /* every answer taken */
	s->handed_hash = c.h;
	s->handed = c.handed;
	s->inflight_max = c.inflight_max;
	free(c.q);
}

#define SAME_I(f) \
	if (a->res.f != b->res.f) \
		fail_msg("%s, window %u: %s %lld, lockstep %lld", who, window, #f, \
			 (long long)b->res.f, (long long)a->res.f)
#define SAME_D(f) \
	if (memcmp(&a->res.f, &b->res.f, sizeof(double)) != 0) \
		fail_msg("%s, window %u: %s %.17g, lockstep %.17g", who, window, #f, \
			 b->res.f, a->res.f)

/* b (pipelined, window) measured what a (lockstep) did; who names the scenario in a failure. */
static void same(const char *who, uint32_t window, const struct seen *a, const struct seen *b)
{
	if (a->handed != b->handed || a->handed_hash != b->handed_hash)
		fail_msg("%s, window %u: the decider was handed another sequence (%lld requests, "
			 "lockstep %lld)", who, window, (long long)b->handed, (long long)a->handed);
	if (a->decisions != b->decisions)
		fail_msg("%s, window %u: the decisions differ", who, window);
	if (memcmp(a->adm, b->adm, a->nb * sizeof(int64_t)) || memcmp(a->rej, b->rej, a->nb * sizeof(int64_t)))
		fail_msg("%s, window %u: the series differ", who, window);
	SAME_I(requests);
	SAME_I(admitted);
	SAME_I(units);
	SAME_I(admitted_units);
	SAME_I(false_allows);
	SAME_I(false_rejects);
	SAME_I(diverged_allows);
	SAME_I(diverged_rejects);
	SAME_I(active_keys);
	SAME_I(keys_over);
	SAME_I(max_in_window);
	SAME_I(own_bound);
	SAME_I(beyond_bound);
	SAME_I(clients.requests);
	SAME_I(clients.served);
	SAME_I(clients.gave_up);
	SAME_I(clients.wait_ns_sum);
	SAME_I(clients.wait_ns_max);
	SAME_I(heavy_keys);
	SAME_I(heavy_requests);
	SAME_I(heavy_false);
	SAME_I(estimate_n);
	SAME_I(state_bytes_max);
	SAME_D(estimate_diff_sum);
	SAME_D(long_run_rate_ratio);
	SAME_D(jain_index);
	SAME_D(state_bytes_mean);
}

static void free_seen(struct seen *s)
{
	free(s->adm);
	free(s->rej);
}

/* A random trace: times that mostly rise, some repeated, some going back; a COST on some lines. */
static void write_trace(uint64_t *r, const char *path, int64_t duration_ns)
{
	FILE *f = fopen(path, "w");
	int64_t t = (int64_t)(t_splitmix(r) % 1000);
	size_t n = 20 + t_splitmix(r) % 200;

	assert_non_null(f);
	for (size_t i = 0; i < n; i++) {
		uint64_t u = t_splitmix(r);
		if (u % 8 == 0 && t > 1000)
			t -= (int64_t)(u >> 8) % 1000; /* back in time */
		else if (u % 8 != 1) /* else the same ns again */
			t += (int64_t)((u >> 8) % (uint64_t)(duration_ns / (int64_t)n + 1));
		fprintf(f, "%lld k%llu", (long long)t, (unsigned long long)(u >> 40) % 5);
		if ((u >> 50) % 3 == 0)
			fprintf(f, " %llu", 1 + (unsigned long long)(u >> 52) % 3);
		fputc('\n', f);
	}
	assert_int_equal(fclose(f), 0);
}

/* A random scenario in dir, as an INI file; loaded into sc. */
static void make_scenario(uint64_t seed, const char *who, const char *dir, struct sim_scenario *sc)
{
	uint64_t r = seed;
	char path[256], trace[256], msg[700];
	int64_t limit = 1 + (int64_t)(t_splitmix(&r) % 8);
	const int64_t windows_ms[] = { 10, 50, 100, 1000 };
	int64_t w_ms = windows_ms[t_splitmix(&r) % 4], dur_ms = w_ms * (3 + (int64_t)(t_splitmix(&r) % 10));
	size_t nsrc = 1 + t_splitmix(&r) % 4;

	snprintf(path, sizeof(path), "%s/s.ini", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "[scenario]\nname = pipe\nlimit = %lld\nwindow = %lldms\nduration = %lldms\nburst = %lld\n"
		"seed = %llu\ncompare = %s\n", (long long)limit, (long long)w_ms, (long long)dur_ms,
		(long long)(limit + (int64_t)(t_splitmix(&r) % 3)), (unsigned long long)(seed % 1000 + 1),
		t_splitmix(&r) % 4 ? "on" : "off");
	for (size_t i = 0; i < nsrc; i++) {
		static const char *const types[] = { "constant", "poisson", "onoff", "boundary", "adversary", "replay" };
		size_t type = t_splitmix(&r) % 6;
		fprintf(f, "[traffic s%zu]\ntype = %s\n", i, types[type]);
		if (type <= 2)
			fprintf(f, "keys = %llu\nload = %llu\n", 1 + (unsigned long long)(t_splitmix(&r) % 5),
				50 + (unsigned long long)(t_splitmix(&r) % 250));
		if (type == 2)
			fprintf(f, "on = %lldms\noff = %lldms\n", (long long)w_ms, (long long)w_ms);
		if (type == 3)
			fprintf(f, "keys = %llu\ncount = %llu\ngap = %s\nevery = %llu\n",
				1 + (unsigned long long)(t_splitmix(&r) % 3), 1 + (unsigned long long)(t_splitmix(&r) % (uint64_t)(limit + 1)),
				t_splitmix(&r) % 2 ? "1ns" : "2ns", 1 + (unsigned long long)(t_splitmix(&r) % 2));
		if (type == 4)
			fprintf(f, "rounds = %llu\n", 1 + (unsigned long long)(t_splitmix(&r) % 3));
		if (type == 5) {
			snprintf(trace, sizeof(trace), "%s/t%zu.trace", dir, i);
			write_trace(&r, trace, dur_ms * 1000000);
			fprintf(f, "file = t%zu.trace\n", i);
		}
		if (type != 4) {
			static const char *const clients[] = { "none", "polite", "abusive" };
			size_t client = t_splitmix(&r) % 3;
			fprintf(f, "client = %s\n", clients[client]);
			if (client)
				fprintf(f, "max_retries = %llu\n", (unsigned long long)(t_splitmix(&r) % 5));
			if (client == 2) {
				static const char *const gaps[] = { "1ns", "2ns", "1ms", "7ms" };
				fprintf(f, "retry_gap = %s\n", gaps[t_splitmix(&r) % 4]);
			}
		}
		switch (t_splitmix(&r) % 3) {
		case 0: fputs("cost = uniform 1 3\n", f); break;
		case 1: fputs("cost = constant 2\n", f); break;
		default: break;
		}
	}
	assert_int_equal(fclose(f), 0);
	if (sim_scenario_load(path, sc, msg, sizeof(msg)) != RL_OK)
		fail_msg("%s: %s", who, msg);
}

static void pipelined_runs_are_the_lockstep_run(void **unused)
{
	(void)unused;
	uint64_t base = t_seed_from_env(43), r = base;
	const uint32_t windows[] = { 2, 3, 16, 4096 };
	size_t ahead = 0;

	printf("# seed %llu (RL_SEED replays it)\n", (unsigned long long)base);
	for (int i = 0; i < SCENARIOS; i++) {
		uint64_t seed = t_splitmix(&r);
		char dir[] = "/tmp/test_sim_pipeline_XXXXXX";
		struct sim_scenario sc;
		struct seen lock, pipe;

		char who[96];
		snprintf(who, sizeof(who), "RL_SEED=%llu, scenario %d", (unsigned long long)base, i);
		assert_non_null(mkdtemp(dir));
		make_scenario(seed, who, dir, &sc);
		run(&sc, 0, &lock);
		for (size_t k = 0; k < sizeof(windows) / sizeof(windows[0]); k++) {
			run(&sc, windows[k], &pipe);
			same(who, windows[k], &lock, &pipe);
			if (pipe.inflight_max > windows[k])
				fail_msg("%s: %zu requests unanswered, window %u", who, pipe.inflight_max, windows[k]);
			ahead += pipe.inflight_max > 1;
			free_seen(&pipe);
		}
		free_seen(&lock);
		char path[300];
		for (size_t k = 0; k < SIM_MAX_TRAFFIC; k++) { /* the traces make_scenario wrote, if any */
			snprintf(path, sizeof(path), "%s/t%zu.trace", dir, k);
			unlink(path);
		}
		snprintf(path, sizeof(path), "%s/s.ini", dir);
		assert_int_equal(unlink(path), 0);
		assert_int_equal(rmdir(dir), 0);
	}
	printf("# %d scenarios, 4 windows each; %zu of those runs had requests in flight\n", SCENARIOS, ahead);
	assert_true(ahead > 0);
}

/* Loads ini text as a scenario. */
static void load_text(const char *ini, struct sim_scenario *sc)
{
	char dir[] = "/tmp/test_sim_pipeline_XXXXXX", path[128], msg[700];

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/s.ini", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(ini, f);
	assert_int_equal(fclose(f), 0);
	if (sim_scenario_load(path, sc, msg, sizeof(msg)) != RL_OK)
		fail_msg("%s", msg);
	unlink(path);
	rmdir(dir);
}

/* Open-loop traffic (client = none) fills the window: no answer can change what comes next. */
static void open_loop_fills_the_window(void **unused)
{
	(void)unused;
	struct sim_scenario sc;
	struct seen s;

	load_text("[scenario]\nlimit = 10\nwindow = 1s\nduration = 10s\n[traffic a]\ntype = poisson\nkeys = 20\n", &sc);
	run(&sc, 64, &s);
	assert_int_equal(s.inflight_max, 64);
	free_seen(&s);
}

/*
 * A polite client's request, unanswered, holds back every later event of
 * any key: its retry may come 1 ns later. Only events of the same ns
 * queued before it (none here: Poisson times) and requests on their last
 * retry (no consequence) let the next go out.
 */
static void polite_clients_hold_the_next_event(void **unused)
{
	(void)unused;
	struct sim_scenario sc;
	struct seen s;

	load_text("[scenario]\nlimit = 10\nwindow = 1s\nduration = 10s\n[traffic a]\ntype = poisson\nkeys = 20\n"
		  "client = polite\n", &sc);
	run(&sc, 64, &s);
	assert_true(s.inflight_max < 64);
	free_seen(&s);
	/* after its last retry a request has no consequence: with max_retries = 0 none has */
	load_text("[scenario]\nlimit = 10\nwindow = 1s\nduration = 10s\n[traffic a]\ntype = poisson\nkeys = 20\n"
		  "client = polite\nmax_retries = 0\n", &sc);
	run(&sc, 64, &s);
	assert_int_equal(s.inflight_max, 64);
	free_seen(&s);
}

/*
 * Ties: the boundary attack sends each key's count requests at one ns.
 * Open loop, the whole run goes out at once; with abusive clients
 * retrying 1 ns later, the events of one ns still go out together (each
 * was queued before the ones pending reserved their retries' places).
 */
static void boundary_ties_go_out_together(void **unused)
{
	(void)unused;
	struct sim_scenario sc;
	struct seen s;

	load_text("[scenario]\nlimit = 3\nwindow = 1s\nduration = 10s\n[traffic a]\ntype = boundary\nkeys = 5\n"
		  "count = 3\n", &sc);
	run(&sc, 4096, &s);
	assert_true(s.handed > 15);
	assert_int_equal(s.inflight_max, s.handed);
	free_seen(&s);
	load_text("[scenario]\nlimit = 3\nwindow = 1s\nduration = 10s\n[traffic a]\ntype = boundary\nkeys = 5\n"
		  "count = 3\nclient = abusive\nretry_gap = 1ns\nmax_retries = 2\n", &sc);
	run(&sc, 4096, &s);
	assert_true(s.inflight_max >= 15);
	assert_true(s.inflight_max < (size_t)s.handed);
	free_seen(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pipelined_runs_are_the_lockstep_run),
		cmocka_unit_test(open_loop_fills_the_window),
		cmocka_unit_test(polite_clients_hold_the_next_event),
		cmocka_unit_test(boundary_ties_go_out_together),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
