/*
 * test_sim_policy.c - the simulator's policies, shadow mode and settle
 * lines (issue 44): the scenario's refusals on their lines; the judge of a
 * policy against a slow model (per key and rule, the plain list of
 * admitted (time, units), settled at DONE_T while in the window) on seeded
 * settle traces; and a seeded settle trace through the simulator decided
 * request by request as `ratelab replay` decides it, for every algorithm,
 * one rule, a policy and shadow mode. Seeds are printed on failure
 * (RL_SEED=<seed> replays one).
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
#include "test_rng.h"

#ifndef RATELAB_BIN
#error "RATELAB_BIN: the ratelab program's path"
#endif

#define NREQ 1500
#define NKEYS 4

/* A scratch directory, its scenario and trace paths. */
struct scratch {
	char dir[64], ini[128], trace[128];
};

static void scratch_make(struct scratch *s)
{
	snprintf(s->dir, sizeof(s->dir), "/tmp/test_sim_policy_XXXXXX");
	assert_non_null(mkdtemp(s->dir));
	snprintf(s->ini, sizeof(s->ini), "%s/s.ini", s->dir);
	snprintf(s->trace, sizeof(s->trace), "%s/t.txt", s->dir);
}

static void scratch_free(struct scratch *s)
{
	unlink(s->ini);
	unlink(s->trace);
	rmdir(s->dir);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_true(fputs(text, f) >= 0);
	assert_int_equal(fclose(f), 0);
}

/* Expects the scenario text refused with "PATH:LINE: ...want...". */
static void refused(const char *ini, int line, const char *want)
{
	struct scratch s;
	struct sim_scenario sc;
	char msg[1200], prefix[160];

	scratch_make(&s);
	write_file(s.ini, ini);
	int rc = sim_scenario_load(s.ini, &sc, msg, sizeof(msg));
	snprintf(prefix, sizeof(prefix), "%s:%d: ", s.ini, line);
	scratch_free(&s);
	assert_int_equal(rc, RL_EINVAL);
	if (strncmp(msg, prefix, strlen(prefix)) != 0 || !strstr(msg, want))
		fail_msg("message '%s', expected '%s' ... '%s'", msg, prefix, want);
}

/* The tiers file's words for each mistake, on the line that makes it. */
static void policy_refusals(void **unused)
{
	(void)unused;
	refused("[scenario]\nlimit = 10\npolicy = 10/1s+100/1m\nduration = 1m\n[traffic a]\ntype = poisson\n", 3,
		"'policy' with 'limit' in [scenario]: policy = RULES replaces limit, window and burst");
	refused("[scenario]\npolicy = 10/1s+100/1m\nduration = 1m\nburst = 5\n[traffic a]\ntype = poisson\n", 4,
		"'burst' with 'policy' in [scenario]: policy = RULES replaces limit, window and burst");
	refused("[scenario]\nduration = 1m\npolicy = 1/1s+2/1s+3/1s+4/1s+5/1s+6/1s+7/1s+8/1s+9/1s\n"
		"[traffic a]\ntype = poisson\n", 3, "policy: '1/1s+2/1s+3/1s+4/1s+5/1s+6/1s+7/1s+8/1s+9/1s' has 9 rules (at most 8)");
	refused("[scenario]\npolicy = 10/1s+0/1m\nduration = 1m\n[traffic a]\ntype = poisson\n", 2,
		"policy: '10/1s+0/1m': rule 2: '0/1m': the limit '0' is out of range");
	refused("[scenario]\npolicy = 10/1s+1000/1m:units\nduration = 1m\n[traffic a]\ntype = poisson\nload = 50\n", 5,
		"[traffic a]: no cost, and rule 2 of policy counts units (':units')");
	refused("[scenario]\nlimit = 10\nwindow = 1s\nmode = loud\nduration = 1m\n[traffic a]\ntype = poisson\n", 4,
		"mode 'loud' is not enforce or shadow");
	refused("[scenario]\nduration = 1m\n[traffic a]\ntype = poisson\n", 2,
		"[scenario] needs limit, window and duration (or policy = RULES for limit and window)");
}

/* A policy, its first rule the scenario's; mode = shadow on a plain rule is a policy of it counting costs. */
static void policy_loaded(void **unused)
{
	(void)unused;
	struct scratch s;
	struct sim_scenario sc;
	struct rl_policy p;
	char msg[1200];

	scratch_make(&s);
	write_file(s.ini, "[scenario]\npolicy = 10/1s:b20 + 1000/1m:units\nduration = 1m\n"
		   "[traffic a]\ntype = poisson\ncost = uniform 1 5\n");
	assert_int_equal(sim_scenario_load(s.ini, &sc, msg, sizeof(msg)), RL_OK);
	assert_true(sim_scenario_policy(&sc, &p));
	assert_int_equal(p.count, 2);
	assert_int_equal(sc.rule.limit, 10);
	assert_int_equal(sc.rule.burst, 20);
	assert_int_equal(sc.bucket_ns, 100000000); /* W / 10 of the first rule */
	assert_false(p.units[0]);
	assert_true(p.units[1]);
	write_file(s.ini, "[scenario]\nlimit = 7\nwindow = 1s\nmode = shadow\nduration = 1m\n[traffic a]\ntype = poisson\n");
	assert_int_equal(sim_scenario_load(s.ini, &sc, msg, sizeof(msg)), RL_OK);
	assert_true(sc.shadow);
	assert_true(sim_scenario_policy(&sc, &p));
	assert_int_equal(p.count, 1);
	assert_int_equal(p.rules[0].limit, 7);
	assert_true(p.units[0]);
	write_file(s.ini, "[scenario]\nlimit = 7\nwindow = 1s\nmode = enforce\nduration = 1m\n[traffic a]\ntype = poisson\n");
	assert_int_equal(sim_scenario_load(s.ini, &sc, msg, sizeof(msg)), RL_OK);
	assert_false(sim_scenario_policy(&sc, NULL));
	scratch_free(&s);
}

/* One line of a seeded trace: times on a 1 ms grid so that decisions and settles meet at one ns. */
struct line {
	int64_t t, done;
	uint32_t key;
	int64_t cost, actual; /* actual == cost: a plain 'T KEY COST' line */
};

static void make_trace(uint64_t seed, struct line *l, size_t n, const char *path)
{
	uint64_t s = seed;
	int64_t t = 0;
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	for (size_t i = 0; i < n; i++) {
		t += (int64_t)(t_splitmix(&s) % 4) * 1000000; /* 0..3 ms: ties */
		l[i].t = t;
		l[i].key = (uint32_t)(t_splitmix(&s) % NKEYS);
		l[i].cost = 1 + (int64_t)(t_splitmix(&s) % 6);
		bool settles = t_splitmix(&s) % 5 < 3;
		l[i].actual = settles ? (int64_t)(t_splitmix(&s) % 13) : l[i].cost;
		l[i].done = settles ? t + (int64_t)(t_splitmix(&s) % 25) * 1000000 : t;
		if (settles)
			fprintf(f, "%lld k%u %lld %lld %lld\n", (long long)t, l[i].key, (long long)l[i].cost,
				(long long)l[i].actual, (long long)l[i].done);
		else
			fprintf(f, "%lld k%u %lld\n", (long long)t, l[i].key, (long long)l[i].cost);
	}
	assert_int_equal(fclose(f), 0);
}

/* The decisions of a run, in order. */
struct seen {
	int v[NREQ];
	size_t n;
};

static void on_decision(void *arg, int64_t t, uint32_t key, int v)
{
	struct seen *s = arg;

	(void)t;
	(void)key;
	if (s->n < NREQ)
		s->v[s->n] = v;
	s->n++;
}

/* Runs the scenario at s->ini with algo, its decisions into seen and the result into res. */
static void run_sim(const struct scratch *s, const struct rl_algo *algo, struct seen *seen, struct sim_result *res)
{
	struct sim_scenario sc;
	struct sim_traffic tr;
	char msg[1200];

	if (sim_scenario_load(s->ini, &sc, msg, sizeof(msg)) != RL_OK)
		fail_msg("%s", msg);
	if (sim_traffic_create(&tr, &sc, sc.seed, msg, sizeof(msg)) != RL_OK)
		fail_msg("%s", msg);
	struct sim_hooks h = { .on_decision = on_decision, .arg = seen };
	seen->n = 0;
	assert_int_equal(sim_run(&tr, algo, &h, res), RL_OK);
	sim_traffic_destroy(&tr);
	assert_int_equal(seen->n, NREQ);
}

/* An admission of the slow model: its time and line. */
struct adm {
	int64_t t;
	size_t line;
};

struct slow_rule {
	int64_t limit, window;
	bool units;
};

/*
 * The judge recomputed: each request (in line order, after the settles due
 * at or before it) is within the
 * policy iff for every rule the units of the key's admissions in (t - W,
 * t] plus its share are within N; an admitted request that settles takes
 * ACTUAL - COST at DONE_T on the ':units' rules while its time is in
 * their window then. Counts false allows and rejects, max_in_window (rule
 * 1) and the keys ever admitted over.
 */
static void slow_judge(const struct line *l, const int *v, size_t n, const struct slow_rule *rules, size_t nrules,
		       int64_t *fa, int64_t *fr, int64_t *max_in_w, int64_t *keys_over)
{
	struct adm *adm = calloc(n, sizeof(*adm));
	size_t nadm = 0;
	bool *settled = calloc(n, sizeof(*settled)), over[NKEYS] = { 0 };

	assert_non_null(adm);
	assert_non_null(settled);
	*fa = *fr = *max_in_w = *keys_over = 0;
	for (size_t i = 0; i < n; i++) {
		/* the settles due at or before t: an entry counts ACTUAL from then (below) */
		for (size_t a = 0; a < nadm; a++)
			settled[adm[a].line] = settled[adm[a].line] || l[adm[a].line].done <= l[i].t;
		bool exact = true;
		int64_t first = 0;
		for (size_t r = 0; r < nrules; r++) {
			int64_t sum = 0, share = rules[r].units ? l[i].cost : 1;
			for (size_t a = 0; a < nadm; a++) {
				size_t j = adm[a].line;
				if (l[j].key != l[i].key || adm[a].t <= l[i].t - rules[r].window)
					continue;
				int64_t units = l[j].cost;
				/* settled while in this rule's window: ACTUAL from then on */
				if (rules[r].units && settled[j] && adm[a].t > l[j].done - rules[r].window)
					units = l[j].actual;
				sum += rules[r].units ? units : 1;
			}
			exact = exact && sum + share <= rules[r].limit;
			if (r == 0)
				first = sum + (v[i] ? share : 0);
		}
		if (v[i]) {
			adm[nadm++] = (struct adm){ l[i].t, i };
			if (first > *max_in_w)
				*max_in_w = first;
			if (!exact && !over[l[i].key]) {
				over[l[i].key] = true;
				++*keys_over;
			}
		}
		*fa += v[i] && !exact;
		*fr += !v[i] && exact;
	}
	free(adm);
	free(settled);
}

/* The judge of a policy with settles against the slow model, for every algorithm, on seeded traces. */
static void judge_against_slow_model(void **unused)
{
	(void)unused;
	size_t nalgos;
	const struct rl_algo *const *all = rl_algo_all(&nalgos);
	uint64_t seed0 = t_seed_from_env(44);
	static struct line l[NREQ];
	static struct seen seen;
	/* the second rule counts units; then the first (the judged rule's own log settles) */
	const struct slow_rule rules[2][2] = { { { 5, 20000000, false }, { 40, 50000000, true } },
					       { { 30, 20000000, true }, { 8, 50000000, false } } };
	const char *const text[2] = { "5/20ms + 40/50ms:units", "30/20ms:units + 8/50ms" };
	struct scratch s;
	char ini[256];

	scratch_make(&s);
	for (uint64_t k = 0; k < 6; k++) {
		uint64_t seed = seed0 + k / 2;
		make_trace(seed, l, NREQ, s.trace);
		snprintf(ini, sizeof(ini), "[scenario]\npolicy = %s\n[traffic r]\ntype = replay\nfile = t.txt\n",
			 text[k % 2]);
		write_file(s.ini, ini);
		for (size_t a = 0; a < nalgos; a++) {
			struct sim_result res;
			int64_t fa, fr, mw, ko;
			run_sim(&s, all[a], &seen, &res);
			slow_judge(l, seen.v, NREQ, rules[k % 2], 2, &fa, &fr, &mw, &ko);
			if (res.false_allows != fa || res.false_rejects != fr || res.max_in_window != mw ||
			    res.keys_over != ko)
				fail_msg("seed %llu (RL_SEED=%llu) policy %s, %s: false allows %lld / %lld, false rejects %lld / %lld, "
					 "max_in_window %lld / %lld, keys over %lld / %lld (simulator / slow model)",
					 (unsigned long long)seed, (unsigned long long)seed, text[k % 2], all[a]->name,
					 (long long)res.false_allows, (long long)fa, (long long)res.false_rejects,
					 (long long)fr, (long long)res.max_in_window, (long long)mw,
					 (long long)res.keys_over, (long long)ko);
			if (strcmp(all[a]->name, "sliding_log") == 0 && (fa || fr))
				fail_msg("seed %llu: the sliding-log policy is the exact policy, yet %lld false allows and "
					 "%lld false rejects", (unsigned long long)seed, (long long)fa, (long long)fr);
			assert_false(res.bound_measured); /* settles void the bound */
			assert_int_equal(res.would_reject, -1);
		}
	}
	scratch_free(&s);
}

/* `ratelab replay ARGS < trace`: its verdicts into v (NREQ), and the would_reject it says (or -1). */
static void run_replay(const char *trace, const char *args, int *v, int64_t *would_reject)
{
	char cmd[1024], line[256], err[256];

	snprintf(err, sizeof(err), "%s.err", trace);
	snprintf(cmd, sizeof(cmd), "'%s' replay %s < '%s' 2> '%s'", RATELAB_BIN, args, trace, err);
	FILE *p = popen(cmd, "r");
	size_t n = 0;

	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		if (n < NREQ)
			v[n] = line[0] == '1';
		n++;
	}
	int st = pclose(p);
	if (st != 0 || n != NREQ)
		fail_msg("%s: exit status %d, %zu lines", cmd, st, n);
	FILE *e = fopen(err, "r");
	*would_reject = -1;
	assert_non_null(e);
	while (fgets(line, sizeof(line), e)) {
		long long w;
		if (sscanf(line, "ratelab replay: shadow: would_reject=%lld", &w) == 1)
			*would_reject = w;
	}
	fclose(e);
	unlink(err);
}

/*
 * A seeded settle trace through the simulator is decided request by
 * request as `ratelab replay` decides it: every algorithm, one rule, a
 * policy, and shadow mode (all admitted, the same would_reject).
 */
static void sim_decides_as_replay(void **unused)
{
	(void)unused;
	size_t nalgos;
	const struct rl_algo *const *all = rl_algo_all(&nalgos);
	uint64_t seed = t_seed_from_env(4400);
	static struct line l[NREQ];
	static struct seen seen;
	static int want[NREQ];
	struct scratch s;
	char ini[512], args[256];

	scratch_make(&s);
	make_trace(seed, l, NREQ, s.trace);
	for (size_t a = 0; a < nalgos; a++) {
		const char *name = all[a]->name;
		bool bucket = all[a]->uses_burst;
		for (int form = 0; form < 3; form++) {
			struct sim_result res;
			int64_t wr;
			if (form == 0) { /* one rule */
				snprintf(ini, sizeof(ini), "[scenario]\nlimit = 12\nwindow = 20ms\n%salgos = %s\n"
					 "[traffic r]\ntype = replay\nfile = t.txt\n", bucket ? "burst = 18\n" : "", name);
				snprintf(args, sizeof(args), "--algo %s --limit 12 --window 20ms%s", name,
					 bucket ? " --burst 18" : "");
			} else { /* a policy, then the same in shadow mode */
				const char *p = bucket ? "4/10ms:b6+30/40ms:units" : "4/10ms+30/40ms:units";
				snprintf(ini, sizeof(ini), "[scenario]\npolicy = %s\n%salgos = %s\n[traffic r]\n"
					 "type = replay\nfile = t.txt\n", p, form == 2 ? "mode = shadow\n" : "", name);
				snprintf(args, sizeof(args), "--algo %s --policy '%s'%s", name, p,
					 form == 2 ? " --shadow" : "");
			}
			write_file(s.ini, ini);
			run_sim(&s, all[a], &seen, &res);
			run_replay(s.trace, args, want, &wr);
			for (size_t i = 0; i < NREQ; i++)
				if (seen.v[i] != want[i])
					fail_msg("seed %llu (RL_SEED=%llu): replay %s: request %zu (line '%lld k%u %lld'): "
						 "simulator %d, replay %d", (unsigned long long)seed,
						 (unsigned long long)seed, args, i + 1, (long long)l[i].t, l[i].key,
						 (long long)l[i].cost, seen.v[i], want[i]);
			if (res.would_reject != wr)
				fail_msg("seed %llu: replay %s: would_reject %lld, replay's %lld", (unsigned long long)seed,
					 args, (long long)res.would_reject, (long long)wr);
		}
	}
	scratch_free(&s);
}

/* A settle line on a source whose client retries is refused: a retry has no DONE_T of its own. */
static void settle_with_retrying_client_refused(void **unused)
{
	(void)unused;
	struct scratch s;
	struct sim_scenario sc;
	struct sim_traffic tr;
	char msg[1200];

	scratch_make(&s);
	write_file(s.trace, "0 a 1\n5 a 2 1 9\n");
	write_file(s.ini, "[scenario]\nlimit = 1\nwindow = 1s\n[traffic r]\ntype = replay\nfile = t.txt\n"
		   "client = polite\n");
	assert_int_equal(sim_scenario_load(s.ini, &sc, msg, sizeof(msg)), RL_OK);
	assert_int_equal(sim_traffic_create(&tr, &sc, 1, msg, sizeof(msg)), RL_EINVAL);
	assert_non_null(strstr(msg, ":5: [traffic r]: the trace"));
	assert_non_null(strstr(msg, "has settle lines 'T KEY COST ACTUAL DONE_T', and client = polite retries"));
	/* a ':units' policy and a line without COST on a source without cost = */
	write_file(s.trace, "0 a 1\n5 a\n");
	write_file(s.ini, "[scenario]\npolicy = 1/1s+5/1s:units\n[traffic r]\ntype = replay\nfile = t.txt\n");
	assert_int_equal(sim_scenario_load(s.ini, &sc, msg, sizeof(msg)), RL_OK);
	assert_int_equal(sim_traffic_create(&tr, &sc, 1, msg, sizeof(msg)), RL_EINVAL);
	assert_non_null(strstr(msg, "request 2 (in file order) has no COST, and rule 2 of policy counts units"));
	/* a bad settle line: the words every command uses */
	write_file(s.trace, "0 a 1\n5 a 2 1 4\n");
	write_file(s.ini, "[scenario]\nlimit = 1\nwindow = 1s\nduration = 1s\n[traffic r]\ntype = replay\nfile = t.txt\n");
	assert_int_equal(sim_scenario_load(s.ini, &sc, msg, sizeof(msg)), RL_OK);
	assert_int_equal(sim_traffic_create(&tr, &sc, 1, msg, sizeof(msg)), RL_EINVAL);
	assert_non_null(strstr(msg, "t.txt:2: '5 a 2 1 4': "));
	scratch_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(policy_refusals),
		cmocka_unit_test(policy_loaded),
		cmocka_unit_test(judge_against_slow_model),
		cmocka_unit_test(sim_decides_as_replay),
		cmocka_unit_test(settle_with_retrying_client_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
