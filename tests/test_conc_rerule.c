/*
 * test_conc_rerule.c - rule changes on an rl_store while threads check
 * its keys (store.h, Rule change): every check is decided whole under one
 * rule, the one in force before or after a change it overlaps, and its
 * key's state is converted as the library converts it.
 *
 * Workers check disjoint keys (each key's checks come from one thread, in
 * its order) while a changer thread cycles the store through a few rules;
 * the changer bumps an epoch to odd before rl_store_set_rule and to even
 * after, and each worker reads it before and after every check. A check
 * that saw one even epoch on both sides was decided under that epoch's
 * rule; one that overlapped a change, under a rule of the epochs it saw.
 * The replay afterwards runs the library (rule_change_ref.h) over each
 * key's checks, keeping every (state, writer) the candidate rules give
 * that answer exactly as recorded: a check no candidate explains fails
 * the test. The algorithms with plain-bytes states (sliding_log's ring
 * cannot be copied into candidates); ThreadSanitizer runs it (label
 * concurrency). The same for a policy's store (two rules), its changes to
 * other policies of its shape (policy.h, rl_policy_rerule): the replay
 * converts a key's state rule by rule as the library does. Seeded:
 * RL_SEED overrides the seed, which failures print.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include <cmocka.h>

#include "ratelab/policy.h"
#include "ratelab/store.h"
#include "rule_change_ref.h"
#include "test_rng.h"

#define WORKERS 3
#define KEYS_PER 6
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define CHECKS 3000 /* sanitizers slow each check ~10x */
#else
#define CHECKS 20000
#endif
#define NRULES 4
#define MAX_CHANGES 100000
#define MAX_CAND 16

static uint64_t g_seed;

struct record {
	int key;
	int64_t t, cost;
	uint64_t e1, e2; /* the epoch before and after */
	int verdict;
	bool answered;
	struct rl_decision d;
};

struct run {
	struct rl_store *s;
	struct rl_limiter rules[NRULES];
	struct rl_policy_limiter pols[NRULES]; /* a policy store's rules (rules[i] their limiters) */
	bool policy;
	int seq[MAX_CHANGES + 1]; /* the rule of epoch 2j: seq[j] */
	_Atomic uint64_t epoch;
	_Atomic int running;
	pthread_barrier_t start;
};

struct worker {
	struct run *run;
	int id;
	uint64_t rng;
	struct record rec[CHECKS];
};

static void *work(void *arg)
{
	struct worker *w = arg;
	struct run *run = w->run;
	int64_t t = 1000;

	pthread_barrier_wait(&run->start);
	for (int i = 0; i < CHECKS; i++) {
		struct record *r = &w->rec[i];
		uint64_t x = t_splitmix(&w->rng);
		r->key = w->id * KEYS_PER + (int)(x % KEYS_PER);
		t += (int64_t)((x >> 8) % 4) == 0 ? 0 : (int64_t)((x >> 16) % 300000);
		r->t = t;
		r->cost = (x >> 40) % 8 == 0 ? 2 : 1;
		r->answered = (x >> 44) % 4 != 0;
		r->e1 = atomic_load(&run->epoch);
		r->verdict = r->answered ? rl_store_check_n(run->s, &r->key, sizeof(r->key), t, r->cost, &r->d)
					 : rl_store_check_n(run->s, &r->key, sizeof(r->key), t, r->cost, NULL);
		r->e2 = atomic_load(&run->epoch);
		if (i % 1024 == 1023) /* the changer's turn on a machine with fewer cores than threads */
			sched_yield();
	}
	atomic_fetch_sub(&run->running, 1);
	return NULL;
}

static void *change(void *arg)
{
	struct run *run = arg;
	uint64_t rng = g_seed ^ 0xc4a6e;
	int j = 0;

	pthread_barrier_wait(&run->start);
	while (atomic_load(&run->running) > 0 && j < MAX_CHANGES) {
		int next = (run->seq[j] + 1 + (int)(t_splitmix(&rng) % (NRULES - 1))) % NRULES;
		run->seq[j + 1] = next;
		atomic_fetch_add(&run->epoch, 1); /* odd: a change under way */
		assert_int_equal(rl_store_set_rule(run->s, &run->rules[next]), RL_OK);
		atomic_fetch_add(&run->epoch, 1);
		j++;
		if (j % 16 == 0)
			sched_yield();
	}
	return NULL;
}

struct cand {
	struct ref_key k;
	/* a policy's key: its state and 1 + the policy that wrote it */
	_Alignas(16) unsigned char pstate[RL_POLICY_MAX_STATE];
};

/* The library's check of a policy key under pols[cur]: converted rule by rule from its writer, then decided. */
static int ref_policy_check(const struct run *run, int cur, struct cand *x, int64_t t, int64_t cost,
			    struct rl_decision *out)
{
	const struct rl_policy_limiter *to = &run->pols[cur];
	_Alignas(16) unsigned char before[RL_POLICY_MAX_STATE];
	bool convert = x->k.under && x->k.under - 1 != cur;
	struct rl_policy_answer a;

	if (convert) {
		const struct rl_policy_limiter *from = &run->pols[x->k.under - 1];
		int64_t last = rl_policy_state_last_ns(x->pstate), at = t > last ? t : last;
		memcpy(before, x->pstate, to->ops.state_size);
		for (size_t i = 0; i < to->count; i++)
			rl_limiter_rerule(&from->rules[i], &to->rules[i], rl_policy_rule_state(to, x->pstate, i), at);
	}
	int rc = rl_policy_check(to, x->pstate, t, cost, &a);
	if (convert && rc >= 0 && a.all.retry_after_ns == RL_DURATION_MAX_NS)
		memcpy(x->pstate, before, to->ops.state_size);
	else if (rc >= 0)
		x->k.under = cur + 1;
	*out = a.all;
	return rc;
}

static bool same_decision(const struct rl_decision *a, const struct rl_decision *b)
{
	return a->remaining == b->remaining && a->retry_after_ns == b->retry_after_ns && a->reset_ns == b->reset_ns &&
	       a->delay_ns == b->delay_ns;
}

/* Replays one key's records against the candidates; false with the failing record's index. */
static bool replay_key(const struct run *run, const struct worker *w, int key, int *bad)
{
	static struct cand cands[MAX_CAND], next[MAX_CAND];
	int n = 1, m;

	memset(&cands[0], 0, sizeof(cands[0]));
	for (int i = 0; i < CHECKS; i++) {
		const struct record *r = &w->rec[i];
		if (r->key != key)
			continue;
		uint64_t lo = r->e1 / 2, hi = (r->e2 + 1) / 2; /* epochs 2lo .. 2hi: the rules in force meanwhile */
		m = 0;
		for (int c = 0; c < n; c++)
			for (uint64_t j = lo; j <= hi; j++) {
				struct cand x = cands[c];
				struct rl_decision d = { 0 };
				int v = run->policy ? ref_policy_check(run, run->seq[j], &x, r->t, r->cost, &d)
						    : ref_check(run->rules, run->seq[j], &x.k, r->t, r->cost, &d);
				if (v != r->verdict || (r->answered && !same_decision(&d, &r->d)))
					continue;
				bool dup = false;
				for (int q = 0; q < m && !dup; q++)
					dup = next[q].k.under == x.k.under &&
					      memcmp(next[q].k.state, x.k.state, sizeof(x.k.state)) == 0 &&
					      memcmp(next[q].pstate, x.pstate, sizeof(x.pstate)) == 0;
				if (!dup && m < MAX_CAND)
					next[m++] = x;
			}
		if (m == 0) {
			*bad = i;
			return false;
		}
		memcpy(cands, next, (size_t)m * sizeof(cands[0]));
		n = m;
	}
	return true;
}

/* With policy, rule i is the policy of rules[i] and rules[(i + 1) % NRULES] (the second counting costs). */
static void run_algo(const char *name, const struct rl_rule *rules, bool policy)
{
	static struct worker ws[WORKERS];
	static struct run run;
	const struct rl_algo *a = rl_algo_find(name);
	pthread_t th[WORKERS + 1];

	memset(&run, 0, sizeof(run));
	run.policy = policy;
	for (int i = 0; i < NRULES; i++) {
		struct rl_rule r = rules[i];
		if (!a->uses_burst)
			r.burst = r.limit;
		assert_int_equal(rl_limiter_init(&run.rules[i], a, &r, NULL, 0), RL_OK);
	}
	for (int i = 0; policy && i < NRULES; i++) {
		struct rl_policy p = { .count = 2 };
		p.rules[0] = run.rules[i].rule;
		p.rules[1] = run.rules[(i + 1) % NRULES].rule;
		p.rules[1].limit *= 3;
		p.rules[1].burst = a->uses_burst ? p.rules[1].burst * 3 : p.rules[1].limit;
		p.units[1] = true;
		assert_int_equal(rl_policy_limiter_init(&run.pols[i], a, &p, NULL, 0), RL_OK);
		run.rules[i] = *rl_policy_as_limiter(&run.pols[i]);
	}
	struct rl_store_config cfg = { .limiter = &run.rules[0], .max_keys = 200000, .hash_seed = g_seed };
	assert_int_equal(rl_store_create(&run.s, &cfg), RL_OK);
	atomic_store(&run.running, WORKERS);
	pthread_barrier_init(&run.start, NULL, WORKERS + 1);
	for (int i = 0; i < WORKERS; i++) {
		ws[i].run = &run;
		ws[i].id = i;
		ws[i].rng = g_seed ^ (0x9e3779b97f4a7c15ULL * (uint64_t)(i + 1)) ^ (uint64_t)strlen(name);
		assert_int_equal(pthread_create(&th[i], NULL, work, &ws[i]), 0);
	}
	assert_int_equal(pthread_create(&th[WORKERS], NULL, change, &run), 0);
	for (int i = 0; i <= WORKERS; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&run.start);

	uint64_t changes = atomic_load(&run.epoch) / 2;
	int overlapped = 0;
	for (int i = 0; i < WORKERS; i++)
		for (int c = 0; c < CHECKS; c++)
			overlapped += ws[i].rec[c].e1 != ws[i].rec[c].e2;
	for (int i = 0; i < WORKERS; i++)
		for (int k = 0; k < KEYS_PER; k++) {
			int bad;
			if (!replay_key(&run, &ws[i], i * KEYS_PER + k, &bad))
				fail_msg("%s: check %d of worker %d (key %d, t=%lld, epochs %llu..%llu) matches no rule "
					 "in force (seed 0x%llx; RL_SEED to replay)",
					 name, bad, i, i * KEYS_PER + k, (long long)ws[i].rec[bad].t,
					 (unsigned long long)ws[i].rec[bad].e1, (unsigned long long)ws[i].rec[bad].e2,
					 (unsigned long long)g_seed);
		}
	printf("%s%s: %llu rule changes, %d of %d checks overlapped one\n", policy ? "policy of " : "", name,
	       (unsigned long long)changes, overlapped, WORKERS * CHECKS);
	assert_true(changes > 0);
	rl_store_destroy(run.s);
}

static void test_concurrent_rule_changes(void **unused)
{
	(void)unused;
	static const struct rl_rule rules[NRULES] = {
		{ 5, 1000000, 8 }, { 2, 1000000, 3 }, { 50, 10000000, 60 }, { 1, 100000, 1 }
	};
	static const char *const algos[] = { "token_bucket", "gcra", "leaky_bucket", "fixed_window",
					     "sliding_counter" };

	for (size_t i = 0; i < sizeof(algos) / sizeof(algos[0]); i++)
		run_algo(algos[i], rules, false);
}

/* A policy store's changes to other policies of its shape (rl_policy_rerule), while threads check. */
static void test_concurrent_policy_changes(void **unused)
{
	(void)unused;
	static const struct rl_rule rules[NRULES] = {
		{ 5, 1000000, 8 }, { 2, 1000000, 3 }, { 50, 10000000, 60 }, { 1, 100000, 1 }
	};
	static const char *const algos[] = { "token_bucket", "gcra", "fixed_window", "sliding_counter" };

	for (size_t i = 0; i < sizeof(algos) / sizeof(algos[0]); i++)
		run_algo(algos[i], rules, true);
}

int main(void)
{
	g_seed = t_seed_from_env(0xc0cc41ULL);
	printf("test_conc_rerule: seed 0x%llx (RL_SEED to replay)\n", (unsigned long long)g_seed);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_concurrent_rule_changes),
		cmocka_unit_test(test_concurrent_policy_changes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
