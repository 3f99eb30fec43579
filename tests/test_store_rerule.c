/*
 * test_store_rerule.c - a rule change on the live keys of an rl_store
 * (store.h, Rule change) and of a reloaded registry (registry.h, Reload),
 * against the library (rule_change_ref.h: each key's state and the rule
 * that last wrote it, converted by rl_limiter_rerule at its next check) on
 * seeded random traces of every algorithm, whose rules change (limits,
 * windows and bursts up and down by factors up to 10^4, back to earlier
 * rules too) between checks of many keys: decision by decision and answer
 * by answer, through the hot routes (cost 1, no answer asked) and the
 * general one, one-thread and thread-safe stores; settles of the keys on
 * the way (rl_store_settle) for the algorithms that settle. Also the
 * store's bounds: RL_STORE_MAX_RULES rules with keys, the refusals, a
 * settle of a key never admitted.
 *
 * A failure prints the seed; reproduce with RL_SEED=<seed> ./test_store_rerule
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

#include "limiter_fixture.h"
#include "ratelab/policy.h"
#include "ratelab/registry.h"
#include "ratelab/settle.h"
#include "ratelab/store.h"
#include "rule_change_ref.h"
#include "test_rng.h"
#include "tiers_file.h"

#define KEYS 40
#define RULES 40 /* rules per trace, below RL_STORE_MAX_RULES */
#define STEPS 1500
#define TRACES 12

static uint64_t g_seed;

static const char *const algos[] = { "token_bucket", "gcra",         "leaky_bucket",
				     "fixed_window", "sliding_log", "sliding_counter" };

static int64_t rng_range(uint64_t *r, int64_t lo, int64_t hi)
{
	return lo + (int64_t)(t_splitmix(r) % (uint64_t)(hi - lo + 1));
}

static int64_t clamp64(__int128 v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : (int64_t)v;
}

/* v times or divided by a factor up to 10^4 (10^4 exactly now and then), within [lo, hi]. */
static int64_t scale(uint64_t *r, int64_t v, int64_t lo, int64_t hi)
{
	int64_t f = rng_range(r, 0, 4) == 0 ? 10000 : rng_range(r, 1, rng_range(r, 0, 1) ? 10 : 10000);

	return rng_range(r, 0, 1) ? clamp64((__int128)v * f, lo, hi) : clamp64(v / f, lo, hi);
}

static struct rl_rule first_rule(uint64_t *r, const struct rl_algo *a)
{
	static const int64_t windows[] = { 10, 997, 1000000, 1000000000, 3600000000000LL };
	struct rl_rule rule;

	rule.limit = rng_range(r, 1, 30);
	rule.window_ns = windows[rng_range(r, 0, 4)] + rng_range(r, 0, 3);
	rule.burst = a->uses_burst ? rng_range(r, 1, 40) : rule.limit;
	return rule;
}

/* One, two or all three of N, W, B changed (a window algorithm's B is its N). */
static struct rl_rule next_rule(uint64_t *r, const struct rl_algo *a, struct rl_rule rule)
{
	int what = (int)rng_range(r, 1, 7);

	if (what & 1)
		rule.limit = scale(r, rule.limit, 1, 100000);
	if (what & 2)
		rule.window_ns = scale(r, rule.window_ns, 1, 100000000000000LL);
	if (!a->uses_burst)
		rule.burst = rule.limit;
	else if (what & 4)
		rule.burst = scale(r, rule.burst, 1, 100000);
	return rule;
}

/* The largest cost the rule can admit (algo.h): B for the buckets, N for the windows. */
static int64_t cost_cap(const struct rl_limiter *lim)
{
	return lim->algo->uses_burst ? lim->rule.burst : lim->rule.limit;
}

static int64_t pick_cost(uint64_t *r, const struct rl_limiter *lim)
{
	switch (rng_range(r, 0, 11)) {
	case 0:
		return cost_cap(lim);
	case 1:
		return cost_cap(lim) + 1; /* never admitted: nothing changes, the conversion included */
	case 2:
		return rng_range(r, 1, cost_cap(lim));
	default:
		return 1;
	}
}

static int64_t next_time(uint64_t *r, int64_t t, int64_t w)
{
	switch (rng_range(r, 0, 7)) {
	case 0:
	case 1:
		return t; /* one instant: a state at its extreme */
	case 2:
		return t + rng_range(r, 1, 3);
	case 3:
		return t + rng_range(r, 0, w);
	case 4:
		return t + rng_range(r, 0, 4 * w);
	default:
		return t + rng_range(r, 0, w / 8 + 1);
	}
}

static void mismatch(const char *algo, int trace, int step, const char *what, int64_t got, int64_t want)
{
	print_error("MISMATCH %s: seed=0x%llx trace=%d step %d %s: got %lld, library %lld "
		    "(reproduce: RL_SEED=0x%llx)\n",
		    algo, (unsigned long long)g_seed, trace, step, what, (long long)got, (long long)want,
		    (unsigned long long)g_seed);
	fail_msg("%s: the store disagrees with the library after a rule change (seed 0x%llx)", algo,
		 (unsigned long long)g_seed);
}

static void same_answer(const char *algo, int trace, int step, const struct rl_decision *got,
			const struct rl_decision *want)
{
	if (got->remaining != want->remaining)
		mismatch(algo, trace, step, "remaining", got->remaining, want->remaining);
	if (got->retry_after_ns != want->retry_after_ns)
		mismatch(algo, trace, step, "retry_after_ns", got->retry_after_ns, want->retry_after_ns);
	if (got->reset_ns != want->reset_ns)
		mismatch(algo, trace, step, "reset_ns", got->reset_ns, want->reset_ns);
	if (got->delay_ns != want->delay_ns)
		mismatch(algo, trace, step, "delay_ns", got->delay_ns, want->delay_ns);
}

/* Keys of 8 bytes (the hot routes') or, one in four, of 24 (the general one). */
static size_t key_bytes(int k, unsigned char *buf)
{
	size_t len = k % 4 == 3 ? 24 : 8;

	memset(buf, 'k', len);
	memcpy(buf, &k, sizeof(k));
	return len;
}

/* The library's settle of key k, mirrored: the rule that last wrote its state. */
static int ref_settle(const struct rl_limiter *rules, struct ref_key *k, int64_t at, int64_t delta, int64_t now)
{
	return rl_limiter_settle(&rules[k->under - 1], k->state, at, delta, now);
}

static void run_trace(const char *name, int trace, bool one_thread)
{
	uint64_t r = g_seed ^ (0x9e3779b97f4a7c15ULL * (uint64_t)(trace + 1)) ^ (uint64_t)(unsigned char)name[0] << 56 ^
		     (uint64_t)strlen(name) << 48 ^ (uint64_t)one_thread << 40;
	const struct rl_algo *a = rl_algo_find(name);
	struct rl_limiter rules[RULES];
	struct ref_key keys[KEYS];
	int64_t admitted[KEYS]; /* the last time each key was admitted, -1: none */
	int nrules = 1, cur = 0;
	struct rl_store *s;
	bool settles = rl_algo_settles(a);

	assert_non_null(a);
	memset(keys, 0, sizeof(keys));
	for (int k = 0; k < KEYS; k++)
		admitted[k] = -1;
	struct rl_rule rule = first_rule(&r, a);
	assert_int_equal(rl_limiter_init(&rules[0], a, &rule, NULL, 0), RL_OK);
	struct rl_store_config cfg = { .limiter = &rules[0], .max_keys = 4 * KEYS, .when_full = RL_FULL_FAIL_OPEN,
				       .hash_seed = r, .one_thread = one_thread };
	assert_int_equal(rl_store_create(&s, &cfg), RL_OK);

	int64_t t = rng_range(&r, 0, 1000000000);
	for (int step = 0; step < STEPS; step++) {
		int64_t dice = rng_range(&r, 0, 59);
		if (dice == 0) { /* a rule change: a new rule, or back to an earlier one */
			int to = cur;
			if (nrules < RULES && rng_range(&r, 0, 3)) {
				rule = next_rule(&r, a, rules[cur].rule);
				assert_int_equal(rl_limiter_init(&rules[nrules], a, &rule, NULL, 0), RL_OK);
				to = nrules++;
			} else {
				to = (int)rng_range(&r, 0, nrules - 1);
			}
			assert_int_equal(rl_store_set_rule(s, &rules[to]), RL_OK);
			assert_true(rl_limiter_same_rule(rl_store_limiter(s), &rules[to]));
			cur = to;
			continue;
		}
		unsigned char kb[24];
		int k = (int)rng_range(&r, 0, KEYS - 1);
		size_t len = key_bytes(k, kb);
		t = next_time(&r, t, rules[cur].rule.window_ns);
		if (dice == 1 && settles) {
			/* a settle of the key's last admission, or of a key never admitted */
			int64_t delta = rng_range(&r, 0, 1) ? rng_range(&r, 1, 5) : -rng_range(&r, 1, 2);
			int64_t at = admitted[k] >= 0 ? admitted[k] : t;
			int got = rl_store_settle(s, kb, len, at, delta, t);
			if (!keys[k].under) {
				if (got != RL_ENOTFOUND)
					mismatch(name, trace, step, "settle of a key never checked", got, RL_ENOTFOUND);
				continue;
			}
			if (got == RL_ENOTFOUND) {
				/* a key the store dropped idle (store.h): as good as new, and a settle never
				 * creates state (a bucket's charge on it is forgiven); the model forgets it too */
				rl_limiter_release(&rules[keys[k].under - 1], keys[k].state);
				memset(keys[k].state, 0, sizeof(keys[k].state));
				keys[k].under = 0;
				admitted[k] = -1;
				continue;
			}
			int want = ref_settle(rules, &keys[k], at, delta, t);
			if (got != want)
				mismatch(name, trace, step, "settle", got, want);
			continue;
		}
		int64_t cost = pick_cost(&r, &rules[cur]);
		bool hot = cost == 1 && rng_range(&r, 0, 1);
		struct rl_decision got = { 0 }, want = { 0 };
		int v = hot ? rl_store_check(s, kb, len, t, NULL) : rl_store_check_n(s, kb, len, t, cost, &got);
		int w = ref_check(rules, cur, &keys[k], t, cost, &want);
		if (v != w)
			mismatch(name, trace, step, "verdict", v, w);
		if (!hot)
			same_answer(name, trace, step, &got, &want);
		if (w == RL_ALLOWED)
			admitted[k] = t;
	}
	struct rl_store_stats st;
	rl_store_stats(s, &st);
	assert_int_equal(st.full_decided, 0); /* the cap never decided: the comparison was of rule changes alone */
	for (int k = 0; k < KEYS; k++)
		rl_limiter_release(&rules[0], keys[k].state);
	rl_store_destroy(s);
}

static void test_store_differential(void **unused)
{
	(void)unused;
	for (size_t i = 0; i < sizeof(algos) / sizeof(algos[0]); i++)
		for (int tr = 0; tr < TRACES; tr++)
			run_trace(algos[i], tr, tr % 2 == 1);
}

/* The tier downgrade through a store: 6,000,000 used is refused as 4,000,000 used is. */
static void test_store_downgrade(void **unused)
{
	(void)unused;
	const struct rl_algo *a = rl_algo_find("token_bucket");
	struct rl_limiter big = make(a, 1000000, 3600000000000LL, 10000000);
	struct rl_limiter small = make(a, 1000000, 3600000000000LL, 1000000);
	struct rl_store_config cfg = { .limiter = &big, .max_keys = 16 };
	struct rl_store *s;
	struct rl_decision d;

	assert_int_equal(rl_store_create(&s, &cfg), RL_OK);
	assert_int_equal(rl_store_check_n(s, "six", 3, 0, 6000000, &d), RL_ALLOWED);
	assert_int_equal(rl_store_check_n(s, "four", 4, 0, 4000000, &d), RL_ALLOWED);
	assert_int_equal(rl_store_set_rule(s, &small), RL_OK);
	assert_int_equal(rl_store_check_n(s, "six", 3, 1000000000, 100000, &d), RL_REJECTED);
	assert_int_equal(rl_store_check_n(s, "four", 4, 1000000000, 100000, &d), RL_REJECTED);
	rl_store_destroy(s);
}

/* RL_STORE_MAX_RULES rules each with a key not checked since: one more is RL_EFULL; checks free them. */
static void test_store_rule_bounds(void **unused)
{
	(void)unused;
	const struct rl_algo *a = rl_algo_find("gcra");
	struct rl_limiter lims[RL_STORE_MAX_RULES + 1];
	struct rl_store *s;

	for (int i = 0; i <= RL_STORE_MAX_RULES; i++)
		lims[i] = make(a, 1 + i, 1000000000, 1 + i);
	struct rl_store_config cfg = { .limiter = &lims[0], .max_keys = 1000 };
	assert_int_equal(rl_store_create(&s, &cfg), RL_OK);
	struct rl_store_stats before, after;
	rl_store_stats(s, &before);
	for (int i = 0; i < RL_STORE_MAX_RULES; i++) {
		assert_int_equal(rl_store_check(s, &i, sizeof(i), 5, NULL), RL_ALLOWED); /* key i under rule i */
		if (i + 1 < RL_STORE_MAX_RULES)
			assert_int_equal(rl_store_set_rule(s, &lims[i + 1]), RL_OK);
	}
	/* the first change allocated the rules and the side table (8 bytes per slot), counted */
	rl_store_stats(s, &after);
	assert_int_equal(after.bytes - before.bytes,
			 RL_STORE_MAX_RULES * sizeof(struct rl_limiter) + 8 * after.slots);
	/* rules 0..63 each wrote a key (63 older, one current): a 65th rule has no index */
	assert_int_equal(rl_store_set_rule(s, &lims[RL_STORE_MAX_RULES]), RL_EFULL);
	assert_true(rl_limiter_same_rule(rl_store_limiter(s), &lims[RL_STORE_MAX_RULES - 1]));
	/* key 0 checked: rule 0 writes no key any more, its index is free */
	int zero = 0;
	assert_int_equal(rl_store_check(s, &zero, sizeof(zero), 6, NULL), RL_ALLOWED);
	assert_int_equal(rl_store_set_rule(s, &lims[RL_STORE_MAX_RULES]), RL_OK);
	/* the same rule again: nothing to do */
	assert_int_equal(rl_store_set_rule(s, &lims[RL_STORE_MAX_RULES]), RL_OK);

	/* another algorithm, NULLs: refused, nothing changed */
	struct rl_limiter tb = make(rl_algo_find("token_bucket"), 5, 1000, 5);
	assert_int_equal(rl_store_set_rule(s, &tb), RL_EINVAL);
	assert_int_equal(rl_store_set_rule(s, NULL), RL_EINVAL);
	assert_int_equal(rl_store_set_rule(NULL, &lims[0]), RL_EINVAL);
	assert_true(rl_limiter_same_rule(rl_store_limiter(s), &lims[RL_STORE_MAX_RULES]));
	struct rl_store_stats st;
	rl_store_stats(s, &st);
	assert_int_equal(st.keys, RL_STORE_MAX_RULES);
	rl_store_destroy(s);
}

/* A policy's store: a rule change only to a policy of its shape; its settles are rl_policy_settle's; its would-rejects counted. */
static void test_store_policy(void **unused)
{
	(void)unused;
	struct rl_policy p;
	struct rl_policy_limiter pl, other;
	char msg[256];
	const struct rl_algo *a = rl_algo_find("fixed_window");

	assert_int_equal(rl_policy_parse("2/1s+100/1h:units", &p, msg, sizeof(msg)), RL_OK);
	assert_int_equal(rl_policy_limiter_init(&pl, a, &p, msg, sizeof(msg)), RL_OK);
	assert_int_equal(rl_policy_limiter_init(&other, a, &p, msg, sizeof(msg)), RL_OK);
	rl_policy_set_shadow(&pl, true);
	assert_ptr_equal(rl_policy_of(rl_policy_as_limiter(&pl)), &pl);
	assert_null(rl_policy_of(NULL));

	struct rl_store_config cfg = { .limiter = rl_policy_as_limiter(&pl), .max_keys = 16 };
	struct rl_store *s;
	assert_int_equal(rl_store_create(&s, &cfg), RL_OK);
	/* a policy's rule change is to another policy of its algorithm and rule count
	 * (rl_policy_rerule; test_policy_reload runs them); its own: nothing to do */
	struct rl_policy p3;
	struct rl_policy_limiter three, gcra_pl;
	struct rl_limiter plain;
	struct rl_rule one = { 2, 1000000000, 2 };
	assert_int_equal(rl_policy_parse("2/1s+100/1h+5/1m", &p3, msg, sizeof(msg)), RL_OK);
	assert_int_equal(rl_policy_limiter_init(&three, a, &p3, msg, sizeof(msg)), RL_OK);
	assert_int_equal(rl_policy_limiter_init(&gcra_pl, rl_algo_find("gcra"), &p, msg, sizeof(msg)), RL_OK);
	assert_int_equal(rl_limiter_init(&plain, a, &one, msg, sizeof(msg)), RL_OK);
	assert_int_equal(rl_store_set_rule(s, rl_policy_as_limiter(&three)), RL_EINVAL);
	assert_int_equal(rl_store_set_rule(s, rl_policy_as_limiter(&gcra_pl)), RL_EINVAL);
	assert_int_equal(rl_store_set_rule(s, &plain), RL_EINVAL);
	assert_int_equal(rl_store_set_rule(s, rl_policy_as_limiter(&pl)), RL_OK);
	assert_true(rl_store_reads_policy(s, &pl));
	assert_false(rl_store_reads_policy(s, &other));

	/* shadow: 5 requests, all admitted, 3 would have been refused */
	struct rl_decision d;
	for (int i = 0; i < 5; i++)
		assert_int_equal(rl_store_check_n(s, "a", 1, 10, 1, &d), RL_ALLOWED);
	struct rl_store_stats st;
	rl_store_stats(s, &st);
	assert_int_equal(st.would_reject, 3);

	/* a settle on the store equals rl_policy_settle on a copy of the key's history */
	_Alignas(16) unsigned char ref[RL_POLICY_MAX_STATE] = { 0 };
	for (int i = 0; i < 5; i++)
		rl_policy_check(&pl, ref, 10, 1, NULL);
	assert_int_equal(rl_store_settle(s, "a", 1, 10, 40, 20), RL_OK);
	assert_int_equal(rl_policy_settle(&pl, ref, 10, 40, 20), RL_OK);
	struct rl_policy_answer pa;
	rl_policy_check(&pl, ref, 30, 60, &pa);
	assert_int_equal(rl_store_check_n(s, "a", 1, 30, 60, &d), RL_ALLOWED);
	assert_int_equal(d.remaining, pa.all.remaining);
	assert_int_equal(d.retry_after_ns, pa.all.retry_after_ns);
	rl_store_destroy(s);
}

/* A settle never creates state: a key never checked, or dropped, is RL_ENOTFOUND; bad arguments first. */
static void test_store_settle_unknown(void **unused)
{
	(void)unused;
	struct rl_limiter lim = make(rl_algo_find("sliding_log"), 3, 1000, 3);
	struct rl_store_config cfg = { .limiter = &lim, .max_keys = 1, .when_full = RL_FULL_EVICT };
	struct rl_store *s;
	struct rl_store_stats st;

	assert_int_equal(rl_store_create(&s, &cfg), RL_OK);
	assert_int_equal(rl_store_settle(s, "x", 1, 0, 1, 0), RL_ENOTFOUND);
	rl_store_stats(s, &st);
	assert_int_equal(st.keys, 0);
	assert_int_equal(rl_store_check(s, "x", 1, 100, NULL), RL_ALLOWED);
	assert_int_equal(rl_store_settle(s, "x", 1, 100, 2, 150), RL_OK);
	/* the charge counts: 1 + 2 units of 3 in the window */
	assert_int_equal(rl_store_check(s, "x", 1, 160, NULL), RL_REJECTED);
	/* y evicts x at the cap of one key: x is unknown again */
	assert_int_equal(rl_store_check(s, "y", 1, 170, NULL), RL_ALLOWED);
	assert_int_equal(rl_store_settle(s, "x", 1, 100, -1, 180), RL_ENOTFOUND);
	/* the arguments before the lookup */
	assert_int_equal(rl_store_settle(s, "y", 1, 200, 1, 100), RL_ERANGE);
	assert_int_equal(rl_store_settle(s, "y", 1, -1, 1, 100), RL_ERANGE);
	assert_int_equal(rl_store_settle(s, "q", 1, 100, 0, 100), RL_EINVAL);
	assert_int_equal(rl_store_settle(s, "q", 1, 100, RL_COST_MAX + 1, 100), RL_EINVAL);
	assert_int_equal(rl_store_settle(s, NULL, 1, 100, 1, 100), RL_EINVAL);
	assert_int_equal(rl_store_settle(NULL, "y", 1, 100, 1, 100), RL_EINVAL);
	rl_store_destroy(s);

	/* an algorithm that does not settle: its own refusal, the key known */
	struct rl_limiter g = make(rl_algo_find("gcra"), 3, 1000, 3);
	cfg.limiter = &g;
	assert_int_equal(rl_store_create(&s, &cfg), RL_OK);
	assert_int_equal(rl_store_check(s, "x", 1, 100, NULL), RL_ALLOWED);
	assert_int_equal(rl_store_settle(s, "x", 1, 100, 1, 100),
			 rl_algo_settles(g.algo) ? RL_OK : RL_EINVAL);
	rl_store_destroy(s);
}

/* ---- the registry: a reloaded tiers file ---- */


static void tiers_text(char *buf, size_t len, const char *algo, const struct rl_rule *rule, size_t max_keys)
{
	const struct rl_algo *a = rl_algo_find(algo);
	int n = snprintf(buf, len, "[tier t]\nalgorithm = %s\nlimit = %lld\nwindow = %lldns\n", algo,
			 (long long)rule->limit, (long long)rule->window_ns);

	if (a->uses_burst)
		n += snprintf(buf + n, len - (size_t)n, "burst = %lld\n", (long long)rule->burst);
	snprintf(buf + n, len - (size_t)n, "max_keys = %zu\n[defaults]\ntier = t\n", max_keys);
}

/* A registry whose tiers file is rewritten with a changed rule and reloaded, against the library. */
static void run_registry_trace(const char *name, int trace)
{
	uint64_t r = g_seed ^ (0x51ed270b27ULL * (uint64_t)(trace + 7)) ^ (uint64_t)strlen(name) << 52;
	const struct rl_algo *a = rl_algo_find(name);
	struct rl_limiter rules[RULES];
	struct ref_key keys[KEYS];
	int nrules = 1, cur = 0;
	char text[512], err[256];
	struct rl_registry *reg;

	memset(keys, 0, sizeof(keys));
	struct rl_rule rule = first_rule(&r, a);
	assert_int_equal(rl_limiter_init(&rules[0], a, &rule, NULL, 0), RL_OK);
	tiers_text(text, sizeof(text), name, &rule, 1000);
	tiers_write(text);
	assert_int_equal(rl_registry_load(&reg, g_path, err, sizeof(err)), RL_OK);
	int64_t t = rng_range(&r, 0, 1000000000);
	for (int step = 0; step < STEPS / 3; step++) {
		if (rng_range(&r, 0, 29) == 0 && nrules < RULES) {
			rule = next_rule(&r, a, rules[cur].rule);
			assert_int_equal(rl_limiter_init(&rules[nrules], a, &rule, NULL, 0), RL_OK);
			cur = nrules++;
			tiers_text(text, sizeof(text), name, &rule, 1000);
			tiers_write(text);
			if (rl_registry_reload(reg, g_path, NULL, 0, err, sizeof(err)) != RL_OK)
				fail_msg("reload: %s", err);
			continue;
		}
		int k = (int)rng_range(&r, 0, KEYS - 1);
		char id[16];
		int idlen = snprintf(id, sizeof(id), "client-%d", k);
		t = next_time(&r, t, rules[cur].rule.window_ns);
		int64_t cost = pick_cost(&r, &rules[cur]);
		struct rl_answer ans;
		struct rl_decision want;
		int v = rl_registry_check_n(reg, id, (size_t)idlen, t, cost, &ans);
		int w = ref_check(rules, cur, &keys[k], t, cost, &want);
		if (v != w)
			mismatch(name, trace, step, "registry verdict", v, w);
		same_answer(name, trace, step, &ans.d, &want);
		assert_false(ans.would_reject);
	}
	for (int k = 0; k < KEYS; k++)
		rl_limiter_release(&rules[0], keys[k].state);
	rl_registry_destroy(reg);
}

static void test_registry_reload_differential(void **unused)
{
	(void)unused;
	for (size_t i = 0; i < sizeof(algos) / sizeof(algos[0]); i++)
		for (int tr = 0; tr < TRACES / 2; tr++)
			run_registry_trace(algos[i], tr);
}

/* What a reload keeps: a tier of the same name, algorithm and store keeps its keys; others start afresh. */
static void test_registry_reload_keeps(void **unused)
{
	(void)unused;
	struct rl_registry *reg;
	struct rl_answer ans;
	char err[256];

	tiers_write("[tier a]\nalgorithm = fixed_window\nlimit = 2\nwindow = 1h\n"
		    "[tier b]\nalgorithm = fixed_window\nlimit = 2\nwindow = 1h\n"
		    "[clients]\nb = bob\n[defaults]\ntier = a\n");
	assert_int_equal(rl_registry_load(&reg, g_path, err, sizeof(err)), RL_OK);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(rl_registry_check(reg, "ann", 3, 10, &ans), RL_ALLOWED);
		assert_int_equal(rl_registry_check(reg, "bob", 3, 10, &ans), RL_ALLOWED);
	}
	/* a: limit 3, its keys kept (one more); b: another algorithm, afresh (two more) */
	tiers_write("[tier a]\nalgorithm = fixed_window\nlimit = 3\nwindow = 1h\n"
		    "[tier b]\nalgorithm = sliding_log\nlimit = 2\nwindow = 1h\n"
		    "[clients]\nb = bob\n[defaults]\ntier = a\n");
	assert_int_equal(rl_registry_reload(reg, g_path, NULL, 0, err, sizeof(err)), RL_OK);
	assert_int_equal(rl_registry_check(reg, "ann", 3, 20, &ans), RL_ALLOWED);
	assert_int_equal(rl_registry_check(reg, "ann", 3, 20, &ans), RL_REJECTED);
	assert_int_equal(rl_registry_check(reg, "bob", 3, 20, &ans), RL_ALLOWED);
	assert_int_equal(rl_registry_check(reg, "bob", 3, 20, &ans), RL_ALLOWED);
	assert_int_equal(rl_registry_check(reg, "bob", 3, 20, &ans), RL_REJECTED);
	assert_string_equal(ans.tier->name, "b");

	/* a bad file: refused with its words, the registry exactly as it was */
	tiers_write("[tier a]\nalgorithm = fixed_window\nlimit = 0\nwindow = 1h\n[defaults]\ntier = a\n");
	assert_int_equal(rl_registry_reload(reg, g_path, NULL, 0, err, sizeof(err)), RL_EINVAL);
	assert_non_null(strstr(err, ":3: limit '0' is not an integer in [1, "));
	assert_int_equal(rl_registry_tier_count(reg), 2);
	assert_int_equal(rl_registry_check(reg, "ann", 3, 20, &ans), RL_REJECTED);
	assert_int_equal(rl_registry_reload(NULL, g_path, NULL, 0, err, sizeof(err)), RL_EINVAL);
	rl_registry_destroy(reg);
}

int main(void)
{
	g_seed = t_seed_from_env(0x41feedULL);
	printf("test_store_rerule: seed 0x%llx (RL_SEED to replay)\n", (unsigned long long)g_seed);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_store_differential),
		cmocka_unit_test(test_store_downgrade),
		cmocka_unit_test(test_store_rule_bounds),
		cmocka_unit_test(test_store_policy),
		cmocka_unit_test(test_store_settle_unknown),
		cmocka_unit_test(test_registry_reload_differential),
		cmocka_unit_test(test_registry_reload_keeps),
	};
	return cmocka_run_group_tests(tests, tiers_setup, tiers_teardown);
}
