/*
 * test_algo_props.c - property tests: every algorithm, driven through
 * rl_limiter_check and its ops table with one state per key, must agree
 * with its slow reference model (model.h) on seeded random multi-key
 * traces, in the verdict and in remaining, retry_after_ns, reset_ns and
 * delay_ns.
 *
 * The traces mix bursts at one instant, gaps around W/N and W, times at and
 * next to window edges, times going backwards, out-of-range times, rules
 * with N not dividing W (which token_bucket, leaky_bucket, fixed_window and
 * the sliding algorithms must handle exactly), large windows near the top
 * of the time range, and calls without an answer (out == NULL). Two traces
 * in three carry request costs (rl_limiter_check_n, cost.md): mostly 1, and
 * random costs up to and past the largest admissible one (B or N), exactly
 * it and one past it, huge ones up to RL_COST_MAX, and invalid ones
 * (RL_EINVAL, no state change); the costs come from a stream of their own,
 * so the cost-1 traces are the same as before costs existed. The
 * verdict-only cases also call the ops table's verdict entry (algo.h).
 *
 * A failure prints the seed and the trace index. Reproduce with
 *   RL_SEED=<seed> [RL_TRACE=<index>] ./test_algo_props
 * (RL_TRACE runs that one trace, in every test; RL_TRACES=<count> changes
 * how many traces each test runs).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "ratelab/algo.h"

#define DEFAULT_SEED 0x5eed2024c0ffeeULL
#define DEFAULT_TRACES 1200
#define MAX_KEYS 4

/* How a test case picks its rule and what it compares against. */
enum rule_kind {
	RULE_ANY,       /* N, W independent: N need not divide W */
	RULE_N_DIVIDES, /* W a multiple of N (gcra must then equal token_bucket) */
	RULE_N_NOT_DIVIDES, /* gcra, T = W / N a fraction: still token_bucket's decisions */
	RULE_LARGE      /* N, B and costs up to 10^12 (RL_LIMIT_MAX), W up to 10^18 */
};

struct prop_case {
	const char *algo_name;
	enum m_kind model;
	enum rule_kind rules;
	int verdicts_only; /* every call with out == NULL: the verdict-only fast paths */
};

static uint64_t g_seed;
static long g_only_trace = -1;
static long g_traces = DEFAULT_TRACES;

static int64_t pick_window(struct m_rng *r)
{
	switch (m_rng_range(r, 0, 9)) {
	case 0:
	case 1:
		return m_rng_range(r, 1, 12);
	case 2:
	case 3:
	case 4:
		return m_rng_range(r, 1, 1000);
	case 5:
	case 6:
		return m_rng_range(r, 1, 1000000000);
	case 7:
		return m_rng_range(r, 1, 1000000000000000LL);
	case 8:
		return m_rng_range(r, 1000000000000000000LL - 1000, 1000000000000000000LL);
	default:
		return m_rng_range(r, 1, 1000000000000000000LL);
	}
}

static int64_t pick_small(struct m_rng *r)
{
	switch (m_rng_range(r, 0, 9)) {
	case 0:
		return 1;
	case 1:
	case 2:
	case 3:
	case 4:
	case 5:
	case 6:
		return m_rng_range(r, 1, 6);
	case 7:
	case 8:
		return m_rng_range(r, 7, 16);
	default:
		return m_rng_range(r, 17, 40);
	}
}

/* A count for the large rules: near 10^12, at it, or log-uniform below. */
static int64_t pick_large(struct m_rng *r)
{
	switch (m_rng_range(r, 0, 5)) {
	case 0:
		return RL_LIMIT_MAX;
	case 1:
		return RL_LIMIT_MAX - m_rng_range(r, 1, 1000);
	case 2:
		return m_rng_range(r, (int64_t)1 << 32, RL_LIMIT_MAX); /* past 32 bits */
	default: {
		int64_t top = (int64_t)1 << m_rng_range(r, 1, 39);
		return m_rng_range(r, 1, top);
	}
	}
}

/* Chooses the rule (for the implementation) and the model's rule. */
static void pick_rule(struct m_rng *r, const struct prop_case *pc, struct rl_rule *rule,
		      struct m_lim *m)
{
	int64_t n = pc->rules == RULE_LARGE ? pick_large(r) : pick_small(r), w, b;

	if (pc->rules == RULE_ANY || pc->rules == RULE_LARGE) {
		w = pick_window(r);
	} else if (pc->rules == RULE_N_DIVIDES) {
		int64_t t = pick_window(r) / n;
		w = (t < 1 ? 1 : t) * n;
	} else {
		if (n == 1)
			n = m_rng_range(r, 2, 16);
		do
			w = pick_window(r);
		while (w % n == 0);
	}
	b = m_rng_range(r, 0, 3) == 0 ? n : pc->rules == RULE_LARGE ? pick_large(r) : pick_small(r);
	if (pc->model != M_TOKEN_BUCKET && pc->model != M_LEAKY_BUCKET)
		b = n; /* unused by the window algorithms; keep the default */
	if (pc->rules != RULE_ANY && pc->rules != RULE_LARGE) {
		/* gcra: stay below its documented ~165-year cap on tau
		 * (gcra.h), where it admits less than token_bucket; the cap
		 * is pinned in test_algo_bounds */
		int64_t t = (w + n - 1) / n;
		while (b > 1 && (m_i128)(b + 1) * t > (m_i128)INT64_MAX - M_TIME_MAX)
			b--;
		while ((m_i128)(b + 1) * t > (m_i128)INT64_MAX - M_TIME_MAX) {
			w /= 2;
			w -= w % n;
			if (w < n)
				w = n;
			t = (w + n - 1) / n;
		}
	}
	if (pc->rules == RULE_LARGE && !strcmp(pc->algo_name, "gcra")) {
		/* below gcra's cap on tau (gcra.h): B * W <= horizon * N */
		while (b > 1 && (m_i128)b * w > ((m_i128)INT64_MAX - M_TIME_MAX) * n)
			b = b / 2;
		while ((m_i128)b * w > ((m_i128)INT64_MAX - M_TIME_MAX) * n)
			w = w / 2 > 0 ? w / 2 : 1;
	}
	*rule = (struct rl_rule){ n, w, b };
	*m = (struct m_lim){ pc->model, n, w, b };
}

static int64_t clamp_time(m_i128 t)
{
	return t < 0 ? 0 : t > M_TIME_MAX ? M_TIME_MAX : (int64_t)t;
}

/* The next time of the trace, from the previous one. */
static int64_t next_time(struct m_rng *r, int64_t prev, int64_t n, int64_t w)
{
	m_i128 t = prev, step = w / n;

	switch (m_rng_range(r, 0, 15)) {
	case 0:
	case 1:
	case 2:
		return prev; /* a burst at one instant */
	case 3:
		t += m_rng_range(r, 1, 3);
		break;
	case 4:
	case 5:
		t += step + m_rng_range(r, -1, 1);
		break;
	case 6:
		t += step * m_rng_range(r, 1, 4) + m_rng_range(r, -2, 2);
		break;
	case 7:
	case 8:
		t += w + m_rng_range(r, -1, 1);
		break;
	case 9:
	case 10: /* at or next to the next window edge */
		t = (t / w + 1) * w + m_rng_range(r, -1, 1);
		break;
	case 11: /* backwards */
		t -= m_rng_range(r, 0, 1) ? m_rng_range(r, 1, w) : m_rng_range(r, 1, w < 1000 ? w : 1000);
		break;
	case 12:
		t -= m_rng_range(r, 1, 3);
		break;
	case 13:
		t += m_rng_range(r, 0, w < INT64_MAX / 3 ? 3 * w : w);
		break;
	case 14:
		t += (m_i128)m_rng_range(r, 0, 2) * w + m_rng_range(r, 0, w);
		break;
	default:
		t += m_rng_range(r, 0, step + 1);
		break;
	}
	return clamp_time(t);
}

struct impl_key {
	void *state;
};

static void fail_trace(const struct prop_case *pc, long trace, const struct rl_rule *rule,
		       int req, int key, int64_t t, int64_t cost, const char *what, long long got,
		       long long want)
{
	print_error("MISMATCH %s: seed=0x%llx trace=%ld (reproduce: RL_SEED=0x%llx RL_TRACE=%ld)\n"
		    "  rule N=%lld W=%lld B=%lld; request #%d key %d at t=%lld cost %lld: %s: impl %lld, model %lld\n",
		    pc->algo_name, (unsigned long long)g_seed, trace, (unsigned long long)g_seed,
		    trace, (long long)rule->limit, (long long)rule->window_ns, (long long)rule->burst,
		    req, key, (long long)t, (long long)cost, what, got, want);
	fail_msg("%s disagrees with its model (seed 0x%llx, trace %ld)", pc->algo_name,
		 (unsigned long long)g_seed, trace);
}

/*
 * A request's cost: cap is the most one request can ever take (B for the
 * buckets, N for the windows); invalid costs now and then.
 */
static int64_t pick_cost(struct m_rng *r, int64_t cap)
{
	static const int64_t invalid[] = { 0, -1, RL_COST_MAX + 1, INT64_MIN, INT64_MAX };

	switch (m_rng_range(r, 0, 19)) {
	case 8:
	case 9:
	case 10:
	case 11:
		return m_rng_range(r, 1, cap + 1);
	case 12:
		return m_rng_range(r, 1, 2 * cap);
	case 13:
		return cap;
	case 14:
		return cap + 1;
	case 15:
		return m_rng_range(r, 2, 4);
	case 16:
		return m_rng_range(r, cap + 2, RL_COST_MAX);
	case 17:
		return RL_COST_MAX;
	case 18:
		return invalid[m_rng_range(r, 0, 4)];
	default:
		return 1;
	}
}

static void run_trace(const struct prop_case *pc, long trace)
{
	struct m_rng r = { g_seed ^ (0x9e3779b97f4a7c15ULL * (uint64_t)(trace + 1)) };
	/* costs from their own stream: r draws exactly what it drew before */
	struct m_rng rc = { g_seed ^ (0xc2b2ae3d27d4eb4fULL * (uint64_t)(trace + 1)) };
	int weighted = m_rng_range(&rc, 0, 2) != 0;
	const struct rl_algo *algo = rl_algo_find(pc->algo_name);
	struct rl_limiter lim;
	struct rl_rule rule;
	struct m_lim m;
	char msg[128];

	assert_non_null(algo);
	if (pc->verdicts_only)
		assert_non_null(algo->verdict); /* every algorithm has one */
	pick_rule(&r, pc, &rule, &m);
	assert_int_equal(rl_limiter_init(&lim, algo, &rule, msg, sizeof(msg)), RL_OK);
	int64_t cap = pc->model == M_TOKEN_BUCKET || pc->model == M_LEAKY_BUCKET ? rule.burst
										 : rule.limit;

	int nkeys = (int)m_rng_range(&r, 1, MAX_KEYS);
	int nreq = (int)m_rng_range(&r, 5, rule.limit > 16 ? 40 : 70);
	struct impl_key ik[MAX_KEYS];
	struct m_key mk[MAX_KEYS];

	memset(mk, 0, sizeof(mk));
	for (int i = 0; i < nkeys; i++) {
		ik[i].state = calloc(1, algo->state_size);
		assert_non_null(ik[i].state);
	}

	int64_t t;
	switch (m_rng_range(&r, 0, 5)) {
	case 0:
		t = 0;
		break;
	case 1: /* near the top of the time range */
		t = clamp_time((m_i128)M_TIME_MAX - m_rng_range(&r, 0, 3) * (m_i128)rule.window_ns -
			       m_rng_range(&r, 0, 3));
		break;
	default:
		t = m_rng_range(&r, 0, rule.window_ns < 1000000000 ? 1000000000 : rule.window_ns);
		break;
	}

	for (int q = 0; q < nreq; q++) {
		int key = (int)m_rng_range(&r, 0, nkeys - 1);
		int64_t at = t;
		int roll = (int)m_rng_range(&r, 0, 99);

		if (roll == 0)
			at = -m_rng_range(&r, 1, 2);
		else if (roll == 1)
			at = M_TIME_MAX + m_rng_range(&r, 1, 2);
		else if (roll == 2)
			at = m_rng_range(&r, 0, 1) ? INT64_MIN : INT64_MAX;

		struct m_answer want;
		struct rl_decision got = { -7, -7, -7, -7 };
		int with_out = m_rng_range(&r, 0, 7) != 0 && !pc->verdicts_only;
		int64_t cost = weighted ? pick_cost(&rc, cap) : 1;
		struct rl_decision *o = with_out ? &got : NULL;
		/* verdict-only traces send every other cost-1 request, a time
		 * out of range included, through the ops table's verdict entry (algo.h) */
		int via_verdict = pc->verdicts_only && !weighted && (q & 1);
		int v = via_verdict ? algo->verdict(&lim, ik[key].state, at)
			: weighted  ? rl_limiter_check_n(&lim, ik[key].state, at, cost, o)
				    : rl_limiter_check(&lim, ik[key].state, at, o);

		m_check_n(&m, &mk[key], at, cost, &want);
		if (v != want.verdict)
			fail_trace(pc, trace, &rule, q, key, at, cost, "verdict", v, want.verdict);
		if (v >= 0 && with_out) {
			if (got.remaining != want.remaining)
				fail_trace(pc, trace, &rule, q, key, at, cost, "remaining",
					   got.remaining, want.remaining);
			if (got.retry_after_ns != want.retry_after_ns)
				fail_trace(pc, trace, &rule, q, key, at, cost, "retry_after_ns",
					   got.retry_after_ns, want.retry_after_ns);
			if (got.reset_ns != want.reset_ns)
				fail_trace(pc, trace, &rule, q, key, at, cost, "reset_ns",
					   got.reset_ns, want.reset_ns);
			if (got.delay_ns != want.delay_ns)
				fail_trace(pc, trace, &rule, q, key, at, cost, "delay_ns",
					   got.delay_ns, want.delay_ns);
		}
		if (v >= 0) {
			/* is_idle must never drop a key whose quota is not all back */
			int64_t probe[2] = { want.t_eff, want.t_eff };
			int probes = 1;
			if (want.reset_ns <= M_TIME_MAX - want.t_eff)
				probe[probes++] = want.t_eff + want.reset_ns;
			for (int p = 0; p < probes; p++) {
				int idle = algo->is_idle(&lim, ik[key].state, probe[p]);
				int full = m_full_at(&m, &mk[key], probe[p]);
				if (idle && !full)
					fail_trace(pc, trace, &rule, q, key, probe[p], cost,
						   "is_idle at a time the quota is not back", idle, full);
				/* exact for all but sliding_counter, whose test is conservative */
				if (p == 1 && pc->model != M_SLIDING_COUNTER && !idle)
					fail_trace(pc, trace, &rule, q, key, probe[p], cost,
						   "is_idle at t + reset_ns", idle, 1);
			}
		}
		t = next_time(&r, t, rule.limit, rule.window_ns);
	}

	for (int i = 0; i < nkeys; i++) {
		rl_limiter_release(&lim, ik[i].state);
		free(ik[i].state);
		m_key_free(&mk[i]);
	}
}

static void run_case(const struct prop_case *pc)
{
	if (g_only_trace >= 0) {
		run_trace(pc, g_only_trace);
		return;
	}
	for (long i = 0; i < g_traces; i++)
		run_trace(pc, i);
}

#define PROP_TEST(fn, name, model, rules, verdicts_only)                              \
	static void fn(void **unused)                                                 \
	{                                                                             \
		static const struct prop_case pc = { name, model, rules, verdicts_only }; \
		(void)unused;                                                         \
		run_case(&pc);                                                        \
	}

PROP_TEST(prop_token_bucket, "token_bucket", M_TOKEN_BUCKET, RULE_ANY, 0)
PROP_TEST(prop_gcra_n_divides_w, "gcra", M_TOKEN_BUCKET, RULE_N_DIVIDES, 0)
PROP_TEST(prop_gcra_fractional_emission, "gcra", M_TOKEN_BUCKET, RULE_N_NOT_DIVIDES, 0)
PROP_TEST(prop_leaky_bucket, "leaky_bucket", M_LEAKY_BUCKET, RULE_ANY, 0)
PROP_TEST(prop_fixed_window, "fixed_window", M_FIXED_WINDOW, RULE_ANY, 0)
PROP_TEST(prop_sliding_log, "sliding_log", M_SLIDING_LOG, RULE_ANY, 0)
PROP_TEST(prop_sliding_counter, "sliding_counter", M_SLIDING_COUNTER, RULE_ANY, 0)
/* The same traces with no answer asked: the verdict-only paths, which the
 * fast checks take apart from the answered ones. */
PROP_TEST(prop_token_bucket_verdicts, "token_bucket", M_TOKEN_BUCKET, RULE_ANY, 1)
PROP_TEST(prop_gcra_verdicts, "gcra", M_TOKEN_BUCKET, RULE_N_DIVIDES, 1)
PROP_TEST(prop_leaky_bucket_verdicts, "leaky_bucket", M_LEAKY_BUCKET, RULE_ANY, 1)
PROP_TEST(prop_fixed_window_verdicts, "fixed_window", M_FIXED_WINDOW, RULE_ANY, 1)
PROP_TEST(prop_sliding_log_verdicts, "sliding_log", M_SLIDING_LOG, RULE_ANY, 1)
PROP_TEST(prop_sliding_counter_verdicts, "sliding_counter", M_SLIDING_COUNTER, RULE_ANY, 1)

/* Rules of bytes or tokens: N, B and costs up to 10^12, every algorithm. */
PROP_TEST(prop_large_token_bucket, "token_bucket", M_TOKEN_BUCKET, RULE_LARGE, 0)
PROP_TEST(prop_large_gcra, "gcra", M_TOKEN_BUCKET, RULE_LARGE, 0)
PROP_TEST(prop_large_leaky_bucket, "leaky_bucket", M_LEAKY_BUCKET, RULE_LARGE, 0)
PROP_TEST(prop_large_fixed_window, "fixed_window", M_FIXED_WINDOW, RULE_LARGE, 0)
PROP_TEST(prop_large_sliding_log, "sliding_log", M_SLIDING_LOG, RULE_LARGE, 0)
PROP_TEST(prop_large_sliding_counter, "sliding_counter", M_SLIDING_COUNTER, RULE_LARGE, 0)
PROP_TEST(prop_large_gcra_verdicts, "gcra", M_TOKEN_BUCKET, RULE_LARGE, 1)
PROP_TEST(prop_large_sliding_counter_verdicts, "sliding_counter", M_SLIDING_COUNTER, RULE_LARGE, 1)

/* The model itself, on hand-checked cases: a broken model proves nothing. */
static void model_self_check(void **unused)
{
	(void)unused;
	struct m_answer a;
	/* token bucket, 3 per 1000 ns, B = 3: three at 0, then one per 333.3 ns */
	struct m_lim tb = { M_TOKEN_BUCKET, 3, 1000, 3 };
	struct m_key k = { 0 };
	for (int i = 0; i < 3; i++) {
		assert_int_equal(m_check(&tb, &k, 0, &a), 1);
		assert_int_equal(a.remaining, 2 - i);
	}
	assert_int_equal(m_check(&tb, &k, 0, &a), 0);
	assert_int_equal(a.retry_after_ns, 334); /* 1000/3 = 333.33 rounds up */
	assert_int_equal(a.reset_ns, 1000);
	m_key_free(&k);

	/* leaky bucket, 2 per 10 ns, B = 1: two pass at 0 (delays 0 and 5) */
	struct m_lim lb = { M_LEAKY_BUCKET, 2, 10, 1 };
	assert_int_equal(m_check(&lb, &k, 0, &a), 1);
	assert_int_equal(a.delay_ns, 0);
	assert_int_equal(m_check(&lb, &k, 0, &a), 1);
	assert_int_equal(a.delay_ns, 5);
	assert_int_equal(a.reset_ns, 10);
	assert_int_equal(m_check(&lb, &k, 0, &a), 0);
	assert_int_equal(a.retry_after_ns, 5);
	m_key_free(&k);

	/* sliding counter, 2 per 10: 2 at 9; at 10, prev = 2 weighs 2 * 10 */
	struct m_lim sc = { M_SLIDING_COUNTER, 2, 10, 2 };
	assert_int_equal(m_check(&sc, &k, 9, &a), 1);
	assert_int_equal(m_check(&sc, &k, 9, &a), 1);
	assert_int_equal(m_check(&sc, &k, 10, &a), 0);
	assert_int_equal(a.retry_after_ns, 1); /* 2 * 9 < 20 at t = 11 */
	assert_int_equal(m_check(&sc, &k, 11, &a), 1);
	m_key_free(&k);

	/* sliding log: the old edge is exclusive */
	struct m_lim sl = { M_SLIDING_LOG, 1, 10, 1 };
	assert_int_equal(m_check(&sl, &k, 5, &a), 1);
	assert_int_equal(m_check(&sl, &k, 14, &a), 0);
	assert_int_equal(a.retry_after_ns, 1);
	assert_int_equal(m_check(&sl, &k, 3, &a), 0); /* clamped to 14 */
	assert_int_equal(a.t_eff, 14);
	assert_int_equal(m_check(&sl, &k, 15, &a), 1);
	m_key_free(&k);
}

int main(void)
{
	const char *s;

	g_seed = m_seed_from_env(DEFAULT_SEED);
	if ((s = getenv("RL_TRACE")) && *s)
		g_only_trace = strtol(s, NULL, 0);
	if ((s = getenv("RL_TRACES")) && *s)
		g_traces = strtol(s, NULL, 0);
	printf("test_algo_props: seed=0x%llx traces=%ld (override with RL_SEED, RL_TRACE, RL_TRACES)\n",
	       (unsigned long long)g_seed, g_only_trace >= 0 ? 1 : g_traces);

	const struct CMUnitTest tests[] = {
		cmocka_unit_test(model_self_check),
		cmocka_unit_test(prop_token_bucket),
		cmocka_unit_test(prop_gcra_n_divides_w),
		cmocka_unit_test(prop_gcra_fractional_emission),
		cmocka_unit_test(prop_leaky_bucket),
		cmocka_unit_test(prop_fixed_window),
		cmocka_unit_test(prop_sliding_log),
		cmocka_unit_test(prop_sliding_counter),
		cmocka_unit_test(prop_token_bucket_verdicts),
		cmocka_unit_test(prop_gcra_verdicts),
		cmocka_unit_test(prop_large_token_bucket),
		cmocka_unit_test(prop_large_gcra),
		cmocka_unit_test(prop_large_leaky_bucket),
		cmocka_unit_test(prop_large_fixed_window),
		cmocka_unit_test(prop_large_sliding_log),
		cmocka_unit_test(prop_large_sliding_counter),
		cmocka_unit_test(prop_large_gcra_verdicts),
		cmocka_unit_test(prop_large_sliding_counter_verdicts),
		cmocka_unit_test(prop_leaky_bucket_verdicts),
		cmocka_unit_test(prop_fixed_window_verdicts),
		cmocka_unit_test(prop_sliding_log_verdicts),
		cmocka_unit_test(prop_sliding_counter_verdicts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
