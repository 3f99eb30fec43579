/*
 * test_policy_reload.c - policy and shadow tiers carried across a tiers
 * reload (registry.h, Reload; policy.h, rl_policy_rerule), against a slow
 * model: the library's policy limiter per version of the file and, per
 * key, its state and the version that last wrote it. A key's first check
 * under another version converts its state rule by rule, by position
 * (rl_limiter_rerule on each rule's own state, at the check's time
 * clamped to the key's last seen time), then rl_policy_check decides; a
 * share some rule can never admit changes nothing, the conversion
 * included. A reload to another rule count or algorithm starts every key
 * afresh; a mode change (enforce <-> shadow) keeps the keys and their
 * states (shadow decides as enforcing). Seeded traces of the six
 * algorithms, 1 to 4 rules changing by factors up to 100 (":units" marks
 * too), reloads of the same file, mode flips, other counts, decision by
 * decision: verdict, combined answer, would_reject, and each tier's
 * would-reject count since its load. Many reloads, so that older policies
 * a store still reads are kept and the others freed (ASan).
 *
 * A failure prints the seed; reproduce with RL_SEED=<seed> ./test_policy_reload
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

#include "ratelab/policy.h"
#include "ratelab/registry.h"
#include "test_rng.h"
#include "tiers_file.h"

#define KEYS 12
#define VERSIONS 30 /* versions of the file per trace */
#define STEPS 1200
#define TRACES 4

static uint64_t g_seed;

static const char *const algos[] = { "token_bucket", "gcra",         "leaky_bucket",
				     "fixed_window", "sliding_log", "sliding_counter" };

/* One version of the tiers file: its tier's algorithm, policy and mode. */
struct version {
	const struct rl_algo *algo;
	struct rl_policy p;
	bool shadow;
	struct rl_policy_limiter pl; /* the model's */
};

/* A key of the model: its policy state and 1 + the version that wrote it (0: fresh). */
struct mkey {
	_Alignas(16) unsigned char state[RL_POLICY_MAX_STATE];
	int under;
};

static int64_t rng_range(uint64_t *r, int64_t lo, int64_t hi)
{
	return lo + (int64_t)(t_splitmix(r) % (uint64_t)(hi - lo + 1));
}

static int64_t scaled(uint64_t *r, int64_t v, int64_t lo, int64_t hi)
{
	int64_t f = rng_range(r, 1, 100);
	__int128 x = rng_range(r, 0, 1) ? (__int128)v * f : v / f;

	return x < lo ? lo : x > hi ? hi : (int64_t)x;
}

static struct rl_rule a_rule(uint64_t *r, const struct rl_algo *a)
{
	static const int64_t windows[] = { 10, 997, 1000000, 1000000000, 60000000000LL };
	struct rl_rule rule = { rng_range(r, 1, 20), windows[rng_range(r, 0, 4)] + rng_range(r, 0, 3), 0 };

	rule.burst = a->uses_burst ? rng_range(r, 1, 30) : rule.limit;
	return rule;
}

static void fresh_policy(uint64_t *r, struct version *v, size_t count)
{
	v->p = (struct rl_policy){ .count = count };
	for (size_t i = 0; i < count; i++) {
		v->p.rules[i] = a_rule(r, v->algo);
		v->p.units[i] = rng_range(r, 0, 2) == 0;
	}
}

/* The next version from prev: the same file, a mode flip, changed rules, another count or algorithm. */
static void next_version(uint64_t *r, const struct version *prev, struct version *v)
{
	*v = (struct version){ .algo = prev->algo, .p = prev->p, .shadow = prev->shadow };
	switch (rng_range(r, 0, 9)) {
	case 0: /* the same file again */
		break;
	case 1:
	case 2: /* enforce <-> shadow */
		v->shadow = !v->shadow;
		break;
	case 3: /* another rule count: the keys start afresh */
		fresh_policy(r, v, (size_t)rng_range(r, 1, 4));
		break;
	case 4: /* another algorithm of the same count: afresh too */
		v->algo = rl_algo_find(algos[rng_range(r, 0, 5)]);
		fresh_policy(r, v, v->p.count);
		break;
	default: /* the same shape, some rules changed (a mode flip at times) */
		for (size_t i = 0; i < v->p.count; i++) {
			if (rng_range(r, 0, 2) == 0)
				continue;
			struct rl_rule *rule = &v->p.rules[i];
			rule->limit = scaled(r, rule->limit, 1, 100000);
			if (rng_range(r, 0, 1))
				rule->window_ns = scaled(r, rule->window_ns, 1, 100000000000000LL);
			rule->burst = v->algo->uses_burst ? scaled(r, rule->burst, 1, 100000) : rule->limit;
			if (rng_range(r, 0, 4) == 0)
				v->p.units[i] = !v->p.units[i];
		}
		v->shadow = rng_range(r, 0, 4) == 0 ? !v->shadow : v->shadow;
	}
	char msg[256];
	if (rl_policy_limiter_init(&v->pl, v->algo, &v->p, msg, sizeof(msg)) != RL_OK)
		fail_msg("a version's policy: %s (seed 0x%llx)", msg, (unsigned long long)g_seed);
	rl_policy_set_shadow(&v->pl, v->shadow);
}

static void write_version(const struct version *v)
{
	char text[1024], rules[900];

	rl_policy_format(&v->p, true, rules, sizeof(rules));
	snprintf(text, sizeof(text), "[tier t]\nalgorithm = %s\npolicy = %s\nmode = %s\nmax_keys = 64\n"
		 "[defaults]\ntier = t\n", v->algo->name, rules, v->shadow ? "shadow" : "enforce");
	tiers_write(text);
}

/* Whether the store keeps its keys from version a to b (registry.h): the same state shape. */
static bool same_shape(const struct version *a, const struct version *b)
{
	return a->algo == b->algo && a->p.count == b->p.count;
}

/* The model's check of k under vs[cur] at t: the verdict, the answer in a. */
static int model_check(struct version *vs, int cur, struct mkey *k, int64_t t, int64_t cost,
		       struct rl_policy_answer *a)
{
	const struct rl_policy_limiter *to = &vs[cur].pl;
	_Alignas(16) unsigned char before[RL_POLICY_MAX_STATE];
	bool convert = k->under && k->under - 1 != cur;

	if (convert) {
		const struct rl_policy_limiter *from = &vs[k->under - 1].pl;
		int64_t last = rl_policy_state_last_ns(k->state), at = t > last ? t : last;
		memcpy(before, k->state, to->ops.state_size);
		for (size_t i = 0; i < to->count; i++)
			assert_int_equal(rl_limiter_rerule(&from->rules[i], &to->rules[i],
							   rl_policy_rule_state(to, k->state, i), at), RL_OK);
	}
	int rc = rl_policy_check(to, k->state, t, cost, a);
	if (convert && rc >= 0 && a->all.retry_after_ns == RL_DURATION_MAX_NS)
		memcpy(k->state, before, to->ops.state_size); /* never admitted: nothing changes */
	else if (rc >= 0)
		k->under = cur + 1;
	return rc;
}

static void mismatch(const char *algo, int trace, int step, const char *what, int64_t got, int64_t want)
{
	fail_msg("MISMATCH %s trace %d step %d: %s: registry %lld, model %lld (seed 0x%llx; RL_SEED=0x%llx to "
		 "replay)", algo, trace, step, what, (long long)got, (long long)want, (unsigned long long)g_seed,
		 (unsigned long long)g_seed);
}

/* The largest share some rule admits, and one past it now and then. */
static int64_t pick_cost(uint64_t *r, const struct version *v)
{
	int64_t cap = INT64_MAX;

	for (size_t i = 0; i < v->p.count; i++) {
		int64_t c = v->algo->uses_burst ? v->p.rules[i].burst : v->p.rules[i].limit;
		if (v->p.units[i] && c < cap)
			cap = c;
	}
	if (cap == INT64_MAX)
		return rng_range(r, 1, 5);
	switch (rng_range(r, 0, 9)) {
	case 0:
		return cap + 1;
	case 1:
		return cap;
	default:
		return rng_range(r, 1, cap);
	}
}

static void run_trace(const char *name, int trace)
{
	uint64_t r = g_seed ^ (0x9e3779b97f4a7c15ULL * (uint64_t)(trace + 1)) ^ (uint64_t)(unsigned char)name[0] << 56 ^
		     (uint64_t)strlen(name) << 48;
	struct version *vs = calloc(VERSIONS, sizeof(*vs));
	struct mkey keys[KEYS];
	struct rl_registry *reg;
	char err[512];
	int cur = 0, nver = 1;
	uint64_t would = 0;

	assert_non_null(vs);
	memset(keys, 0, sizeof(keys));
	vs[0].algo = rl_algo_find(name);
	fresh_policy(&r, &vs[0], (size_t)rng_range(&r, 1, 4));
	vs[0].shadow = rng_range(&r, 0, 1);
	assert_int_equal(rl_policy_limiter_init(&vs[0].pl, vs[0].algo, &vs[0].p, err, sizeof(err)), RL_OK);
	rl_policy_set_shadow(&vs[0].pl, vs[0].shadow);
	write_version(&vs[0]);
	if (rl_registry_load(&reg, g_path, err, sizeof(err)) != RL_OK)
		fail_msg("load: %s (seed 0x%llx)", err, (unsigned long long)g_seed);
	int64_t t = rng_range(&r, 0, 1000000000);
	for (int step = 0; step < STEPS; step++) {
		if (rng_range(&r, 0, STEPS / VERSIONS) == 0 && nver < VERSIONS) {
			const struct rl_tier *tier = rl_registry_default(reg);
			if (rl_tier_would_reject(tier) != would)
				mismatch(name, trace, step, "the tier's would-reject count", (int64_t)rl_tier_would_reject(tier),
					 (int64_t)would);
			next_version(&r, &vs[cur], &vs[nver]);
			write_version(&vs[nver]);
			if (rl_registry_reload(reg, g_path, NULL, 0, err, sizeof(err)) != RL_OK)
				fail_msg("reload: %s (seed 0x%llx)", err, (unsigned long long)g_seed);
			if (!same_shape(&vs[cur], &vs[nver]))
				for (int k = 0; k < KEYS; k++) { /* a new store: every key afresh */
					rl_policy_release(&vs[keys[k].under ? keys[k].under - 1 : cur].pl, keys[k].state);
					keys[k].under = 0;
				}
			cur = nver++;
			would = 0;
			continue;
		}
		int k = (int)rng_range(&r, 0, KEYS - 1);
		char id[16];
		int idlen = snprintf(id, sizeof(id), "client-%d", k);
		int64_t w = vs[cur].p.rules[0].window_ns;
		switch (rng_range(&r, 0, 5)) {
		case 0:
			break; /* one instant */
		case 1:
			t += rng_range(&r, 0, 4 * w);
			break;
		default:
			t += rng_range(&r, 0, w / 4 + 1);
		}
		int64_t cost = pick_cost(&r, &vs[cur]);
		struct rl_answer ans;
		struct rl_policy_answer want;
		int got = rl_registry_check_n(reg, id, (size_t)idlen, t, cost, &ans);
		int rc = model_check(vs, cur, &keys[k], t, cost, &want);
		would += want.would_reject;
		if (got != rc)
			mismatch(name, trace, step, "verdict", got, rc);
		if (ans.would_reject != want.would_reject)
			mismatch(name, trace, step, "would_reject", ans.would_reject, want.would_reject);
		if (ans.d.remaining != want.all.remaining)
			mismatch(name, trace, step, "remaining", ans.d.remaining, want.all.remaining);
		if (ans.d.retry_after_ns != want.all.retry_after_ns)
			mismatch(name, trace, step, "retry_after_ns", ans.d.retry_after_ns, want.all.retry_after_ns);
		if (ans.d.reset_ns != want.all.reset_ns)
			mismatch(name, trace, step, "reset_ns", ans.d.reset_ns, want.all.reset_ns);
		if (ans.d.delay_ns != want.all.delay_ns)
			mismatch(name, trace, step, "delay_ns", ans.d.delay_ns, want.all.delay_ns);
	}
	for (int k = 0; k < KEYS; k++)
		rl_policy_release(&vs[keys[k].under ? keys[k].under - 1 : cur].pl, keys[k].state);
	rl_registry_destroy(reg);
	free(vs);
}

static void test_differential(void **unused)
{
	(void)unused;
	for (size_t i = 0; i < sizeof(algos) / sizeof(algos[0]); i++)
		for (int tr = 0; tr < TRACES; tr++)
			run_trace(algos[i], tr);
}

/*
 * The meaning by hand: a policy's rule raised carries what was used; a
 * mode flip keeps the count; another rule count starts afresh; a one-rule
 * tier (limit/window) turned to shadow is a policy of one rule, another
 * state shape: afresh (registry.h).
 */
static void test_meaning(void **unused)
{
	(void)unused;
	struct rl_registry *reg;
	struct rl_answer a;
	char err[256];

	tiers_write("[tier p]\nalgorithm = fixed_window\npolicy = 2/1h + 100/1h\n"
		   "[tier one]\nalgorithm = fixed_window\nlimit = 1\nwindow = 1h\n"
		   "[clients]\none = olga\n[defaults]\ntier = p\n");
	assert_int_equal(rl_registry_load(&reg, g_path, err, sizeof(err)), RL_OK);
	assert_int_equal(rl_registry_check(reg, "ann", 3, 10, &a), RL_ALLOWED);
	assert_int_equal(rl_registry_check(reg, "ann", 3, 10, &a), RL_ALLOWED);
	assert_int_equal(rl_registry_check(reg, "ann", 3, 10, &a), RL_REJECTED);
	assert_int_equal(rl_registry_check(reg, "olga", 4, 10, &a), RL_ALLOWED);
	/* 2/1h -> 3/1h: two used, one more */
	tiers_write("[tier p]\nalgorithm = fixed_window\npolicy = 3/1h + 100/1h\n"
		   "[tier one]\nalgorithm = fixed_window\nlimit = 1\nwindow = 1h\nmode = shadow\n"
		   "[clients]\none = olga\n[defaults]\ntier = p\n");
	assert_int_equal(rl_registry_reload(reg, g_path, NULL, 0, err, sizeof(err)), RL_OK);
	assert_int_equal(rl_registry_check(reg, "ann", 3, 20, &a), RL_ALLOWED);
	assert_int_equal(a.d.remaining, 0);
	assert_int_equal(rl_registry_check(reg, "ann", 3, 20, &a), RL_REJECTED);
	/* olga's tier became a policy of one rule: afresh, her one request admitted without a would-reject */
	assert_int_equal(rl_registry_check(reg, "olga", 4, 20, &a), RL_ALLOWED);
	assert_false(a.would_reject);
	assert_int_equal(rl_registry_check(reg, "olga", 4, 20, &a), RL_ALLOWED);
	assert_true(a.would_reject);
	/* shadow: the same rules, the count kept; ann admitted as a would-reject */
	tiers_write("[tier p]\nalgorithm = fixed_window\npolicy = 3/1h + 100/1h\nmode = shadow\n"
		   "[tier one]\nalgorithm = fixed_window\nlimit = 1\nwindow = 1h\nmode = shadow\n"
		   "[clients]\none = olga\n[defaults]\ntier = p\n");
	assert_int_equal(rl_registry_reload(reg, g_path, NULL, 0, err, sizeof(err)), RL_OK);
	assert_int_equal(rl_tier_would_reject(rl_registry_default(reg)), 0);
	assert_int_equal(rl_registry_check(reg, "ann", 3, 30, &a), RL_ALLOWED);
	assert_true(a.would_reject);
	assert_int_equal(rl_tier_would_reject(rl_registry_default(reg)), 1);
	/* olga's one-rule shadow tier, unchanged: kept, still over */
	assert_int_equal(rl_registry_check(reg, "olga", 4, 30, &a), RL_ALLOWED);
	assert_true(a.would_reject);
	/* back to enforce: still refused */
	tiers_write("[tier p]\nalgorithm = fixed_window\npolicy = 3/1h + 100/1h\n[defaults]\ntier = p\n");
	assert_int_equal(rl_registry_reload(reg, g_path, NULL, 0, err, sizeof(err)), RL_OK);
	assert_int_equal(rl_registry_check(reg, "ann", 3, 40, &a), RL_REJECTED);
	/* three rules: another shape, afresh */
	tiers_write("[tier p]\nalgorithm = fixed_window\npolicy = 3/1h + 100/1h + 9/1m\n[defaults]\ntier = p\n");
	assert_int_equal(rl_registry_reload(reg, g_path, NULL, 0, err, sizeof(err)), RL_OK);
	assert_int_equal(rl_registry_check(reg, "ann", 3, 50, &a), RL_ALLOWED);
	assert_int_equal(a.d.remaining, 2);
	rl_registry_destroy(reg);
}

int main(void)
{
	g_seed = t_seed_from_env(0x44feedULL);
	printf("test_policy_reload: seed 0x%llx (RL_SEED to replay)\n", (unsigned long long)g_seed);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_meaning),
		cmocka_unit_test(test_differential),
	};
	return cmocka_run_group_tests(tests, tiers_setup, tiers_teardown);
}
