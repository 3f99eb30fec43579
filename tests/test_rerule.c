/*
 * test_rerule.c - a rule change on a live key (algo.h, rl_limiter_rerule):
 * every algorithm against its slow model (model.h's m_rerule, written
 * from the headers' words) on seeded random traces whose rule changes
 * (limits, windows and bursts up and down by factors up to 10^4) reach
 * keys lazily, at their next request, decision by decision and answer by
 * answer; the converted state always passes rl_limiter_state_check; the
 * conversion is monotone and never above the new burst; and the issue's
 * tier downgrade, pinned.
 *
 * A failure prints the seed and the trace. Reproduce with
 *   RL_SEED=<seed> [RL_TRACE=<index>] ./test_rerule
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model.h"
#include "ratelab/algo.h"
#include "ratelab/fixed_window.h"
#include "ratelab/gcra.h"
#include "ratelab/sliding_counter.h"
#include "ratelab/token_bucket.h"

#define DEFAULT_SEED 0x5eed41ULL
#define TRACES 120
#define KEYS 3
#define RULES 12

static uint64_t g_seed;
static long g_only_trace = -1;

struct algo_case {
	const char *name;
	enum m_kind kind;
	bool gcra; /* modelled as its token bucket (N per W, burst B: T = W / N exactly, gcra.h) */
};

static const struct algo_case cases[] = {
	{ "token_bucket", M_TOKEN_BUCKET, false }, { "gcra", M_TOKEN_BUCKET, true },
	{ "leaky_bucket", M_LEAKY_BUCKET, false }, { "fixed_window", M_FIXED_WINDOW, false },
	{ "sliding_log", M_SLIDING_LOG, false },   { "sliding_counter", M_SLIDING_COUNTER, false },
};

static bool is_window(enum m_kind k)
{
	return k == M_FIXED_WINDOW || k == M_SLIDING_LOG || k == M_SLIDING_COUNTER;
}

static int64_t clamp64(m_i128 v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : (int64_t)v;
}

/* v times or divided by a factor up to 10^4 (10^4 exactly now and then), within [lo, hi]. */
static int64_t scale(struct m_rng *r, int64_t v, int64_t lo, int64_t hi)
{
	int64_t f = m_rng_range(r, 0, 4) == 0 ? 10000 : m_rng_range(r, 1, m_rng_range(r, 0, 1) ? 10 : 10000);

	return m_rng_range(r, 0, 1) ? clamp64((m_i128)v * f, lo, hi) : clamp64(v / f, lo, hi);
}

/* The longest window a case takes: gcra keeps (B + 1) * T below its tolerance cap (gcra.h). */
static int64_t window_max(const struct algo_case *c)
{
	return c->gcra ? 100000000000000LL : 1000000000000000000LL;
}

/* Limits up to RL_LIMIT_MAX (10^12); bursts up to RL_BURST_MAX, but gcra's
 * (B * W within its tolerance cap at W <= 10^14: B <= 10^4). */
static int64_t limit_max(const struct algo_case *c)
{
	(void)c;
	return RL_LIMIT_MAX;
}

static int64_t burst_max(const struct algo_case *c)
{
	return is_window(c->kind) ? 0 : c->gcra ? 10000 : RL_BURST_MAX;
}

static struct rl_rule first_rule(struct m_rng *r, const struct algo_case *c)
{
	static const int64_t windows[] = { 1, 3, 10, 997, 1000000, 1000000000, 3600000000000LL, 1000000000000000LL };
	struct rl_rule rule;

	rule.limit = m_rng_range(r, 1, is_window(c->kind) ? 12 : 50);
	rule.window_ns = clamp64(windows[m_rng_range(r, 0, 7)] + m_rng_range(r, 0, 3), 1, window_max(c));
	rule.burst = is_window(c->kind) ? rule.limit : m_rng_range(r, 1, 40);
	return rule;
}

/* The next rule: one, two or all three of N, W, B changed. */
static struct rl_rule next_rule(struct m_rng *r, const struct algo_case *c, struct rl_rule rule)
{
	int what = (int)m_rng_range(r, 1, 7);

	if (what & 1)
		rule.limit = scale(r, rule.limit, 1, limit_max(c));
	if (what & 2)
		rule.window_ns = scale(r, rule.window_ns, 1, window_max(c));
	if (is_window(c->kind))
		rule.burst = rule.limit;
	else if (what & 4)
		rule.burst = scale(r, rule.burst, 1, burst_max(c));
	return rule;
}

static struct m_lim model_of(const struct algo_case *c, const struct rl_rule *rule)
{
	return (struct m_lim){ c->kind, rule->limit, rule->window_ns, rule->burst };
}

static int64_t next_time(struct m_rng *r, int64_t t, int64_t w)
{
	m_i128 n = t;

	switch (m_rng_range(r, 0, 9)) {
	case 0:
	case 1:
	case 2:
		break; /* a burst at one instant: a state at its extreme */
	case 3:
		n += m_rng_range(r, 1, 3);
		break;
	case 4:
		n -= m_rng_range(r, 1, w < 1000 ? w : 1000); /* backwards: clamped */
		break;
	case 5:
		n = (n / w + 1) * w + m_rng_range(r, -1, 1); /* next to a window edge */
		break;
	case 6:
		n += m_rng_range(r, 0, w);
		break;
	default:
		n += m_rng_range(r, 0, w / 8 + 1);
		break;
	}
	return clamp64(n, 0, M_TIME_MAX);
}

static int64_t pick_cost(struct m_rng *r, const struct m_lim *m)
{
	int64_t cap = m_cost_cap(m);

	switch (m_rng_range(r, 0, 9)) {
	case 0:
		return cap;
	case 1:
		return cap + 1; /* never admitted: the state is left as it was */
	case 2:
		return m_rng_range(r, 1, cap);
	default:
		return 1;
	}
}

static void fail_at(const struct algo_case *c, long trace, int q, const char *what, int64_t got, int64_t want,
		    const struct rl_rule *from, const struct rl_rule *to, int64_t t, int64_t cost)
{
	print_error("MISMATCH %s: seed=0x%llx trace=%ld request %d %s: got %lld, model %lld; rule %lld/%lld b%lld "
		    "(was %lld/%lld b%lld) t=%lld cost=%lld (reproduce: RL_SEED=0x%llx RL_TRACE=%ld)\n",
		    c->name, (unsigned long long)g_seed, trace, q, what, (long long)got, (long long)want,
		    (long long)to->limit, (long long)to->window_ns, (long long)to->burst, (long long)from->limit,
		    (long long)from->window_ns, (long long)from->burst, (long long)t, (long long)cost,
		    (unsigned long long)g_seed, trace);
	fail_msg("%s disagrees with its model after a rule change (seed 0x%llx, trace %ld)", c->name,
		 (unsigned long long)g_seed, trace);
}

static void run_trace(const struct algo_case *c, long trace)
{
	struct m_rng r = { g_seed ^ (0x9e3779b97f4a7c15ULL * (uint64_t)(trace + 1)) ^ (uint64_t)c->kind << 56 ^
			   (uint64_t)c->gcra << 48 };
	const struct rl_algo *algo = rl_algo_find(c->name);
	struct rl_rule rules[RULES];
	struct rl_limiter lims[RULES];
	struct m_lim ml[RULES];
	int nrules = 1, cur = 0;
	char msg[128];
	_Alignas(16) unsigned char states[KEYS][RL_ALGO_MAX_STATE];
	int under[KEYS]; /* the rule that last wrote each key's state, -1: fresh */
	struct m_key mk[KEYS];

	assert_non_null(algo);
	memset(states, 0, sizeof(states));
	memset(mk, 0, sizeof(mk));
	for (int k = 0; k < KEYS; k++)
		under[k] = -1;
	rules[0] = first_rule(&r, c);
	assert_int_equal(rl_limiter_init(&lims[0], algo, &rules[0], msg, sizeof(msg)), RL_OK);
	ml[0] = model_of(c, &rules[0]);

	int64_t t = m_rng_range(&r, 0, 3) == 0 ? M_TIME_MAX - m_rng_range(&r, 0, 2) * rules[0].window_ns
					       : m_rng_range(&r, 0, 1000000000);
	t = clamp64(t, 0, M_TIME_MAX);
	for (int q = 0; q < 60; q++) {
		if (nrules < RULES && m_rng_range(&r, 0, 5) == 0) {
			rules[nrules] = next_rule(&r, c, rules[cur]);
			assert_int_equal(rl_limiter_init(&lims[nrules], algo, &rules[nrules], msg, sizeof(msg)), RL_OK);
			ml[nrules] = model_of(c, &rules[nrules]);
			cur = nrules++;
		}
		int k = (int)m_rng_range(&r, 0, KEYS - 1);
		t = next_time(&r, t, rules[cur].window_ns);
		int64_t cost = pick_cost(&r, &ml[cur]);
		const struct rl_rule *from = under[k] >= 0 ? &rules[under[k]] : &rules[cur];

		/* a rule change: another rule, not merely a later index (next_rule may repeat one) */
		if (under[k] >= 0 && memcmp(&rules[under[k]], &rules[cur], sizeof(rules[cur])) != 0) {
			assert_int_equal(rl_limiter_rerule(&lims[under[k]], &lims[cur], states[k], t), RL_OK);
			m_rerule(&ml[under[k]], &ml[cur], &mk[k], t);
			if (rl_limiter_state_check(&lims[cur], states[k]) != RL_OK)
				fail_at(c, trace, q, "converted state rejected by state_check", 0, 1, from, &rules[cur], t,
					cost);
		}
		struct rl_decision got;
		struct m_answer want;
		int v = rl_limiter_check_n(&lims[cur], states[k], t, cost, &got);

		m_check_n(&ml[cur], &mk[k], t, cost, &want);
		if (v != want.verdict)
			fail_at(c, trace, q, "verdict", v, want.verdict, from, &rules[cur], t, cost);
		/* the model's answers are brute force: asked where the capacity is small */
		if (m_max_capacity(&ml[cur]) <= 40) {
			if (got.remaining != want.remaining)
				fail_at(c, trace, q, "remaining", got.remaining, want.remaining, from, &rules[cur], t, cost);
			if (got.retry_after_ns != want.retry_after_ns)
				fail_at(c, trace, q, "retry_after_ns", got.retry_after_ns, want.retry_after_ns, from,
					&rules[cur], t, cost);
			if (got.reset_ns != want.reset_ns)
				fail_at(c, trace, q, "reset_ns", got.reset_ns, want.reset_ns, from, &rules[cur], t, cost);
			if (got.delay_ns != want.delay_ns)
				fail_at(c, trace, q, "delay_ns", got.delay_ns, want.delay_ns, from, &rules[cur], t, cost);
		}
		if (rl_limiter_state_check(&lims[cur], states[k]) != RL_OK)
			fail_at(c, trace, q, "state rejected by state_check", 0, 1, from, &rules[cur], t, cost);
		under[k] = cur;
	}
	for (int k = 0; k < KEYS; k++) {
		rl_limiter_release(&lims[0], states[k]);
		m_key_free(&mk[k]);
	}
}

static void test_differential(void **unused)
{
	(void)unused;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (g_only_trace >= 0) {
			run_trace(&cases[i], g_only_trace);
			continue;
		}
		for (long tr = 0; tr < TRACES; tr++)
			run_trace(&cases[i], tr);
	}
}

/* How many cost-1 requests the state admits at t under lim (one check on
 * it; then it is released). */
static int64_t capacity(const struct rl_limiter *lim, void *state, int64_t t)
{
	struct rl_decision d;
	int v = lim->algo->check(lim, state, t, 1, &d);

	assert_true(v >= 0);
	rl_limiter_release(lim, state);
	return v ? d.remaining + 1 : d.remaining;
}

/*
 * The tier downgrade: token_bucket, 10^6 per hour, burst 10^7
 * lowered to 10^6. A client who used 6,000,000 and one who used 4,000,000
 * have both used at least the new burst: both are refused, and neither
 * gets anything back before the other.
 */
static void test_tier_downgrade(void **unused)
{
	(void)unused;
	const struct rl_rule big = { 1000000, 3600000000000LL, 10000000 }, small = { 1000000, 3600000000000LL, 1000000 };
	struct rl_limiter a, b;
	char msg[128];

	assert_int_equal(rl_limiter_init(&a, &rl_token_bucket_algo, &big, msg, sizeof(msg)), RL_OK);
	assert_int_equal(rl_limiter_init(&b, &rl_token_bucket_algo, &small, msg, sizeof(msg)), RL_OK);
	const int64_t used[2] = { 6000000, 4000000 };
	struct rl_decision d[2];
	for (int i = 0; i < 2; i++) {
		struct rl_level st = { 0 };
		assert_int_equal(rl_limiter_check_n(&a, &st, 0, used[i], NULL), RL_ALLOWED);
		assert_int_equal(rl_limiter_rerule(&a, &b, &st, 1000000000), RL_OK);
		assert_int_equal(rl_limiter_state_check(&b, &st), RL_OK);
		assert_int_equal(rl_limiter_check_n(&b, &st, 1000000000, 100000, &d[i]), RL_REJECTED);
	}
	assert_int_equal(d[0].remaining, 0);
	assert_int_equal(d[1].remaining, 0);
	assert_int_equal(d[0].retry_after_ns, d[1].retry_after_ns);
	/* 100,000 tokens come back at 10^6 per hour: 360 s */
	assert_int_equal(d[0].retry_after_ns, 360000000000LL);
}

/*
 * Monotone and never above the new burst: of two keys under the same
 * change, the one that used more never has more capacity after it, and
 * no key has more than a fresh key under the new rule.
 */
static void test_monotone(void **unused)
{
	(void)unused;
	struct m_rng r = { g_seed ^ 0x4d6f6e6f746f6e65ULL };
	char msg[128];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct algo_case *c = &cases[i];
		const struct rl_algo *algo = rl_algo_find(c->name);
		for (int round = 0; round < 300; round++) {
			struct rl_rule r0 = first_rule(&r, c), r1 = next_rule(&r, c, r0);
			struct rl_limiter l0, l1;
			assert_int_equal(rl_limiter_init(&l0, algo, &r0, msg, sizeof(msg)), RL_OK);
			assert_int_equal(rl_limiter_init(&l1, algo, &r1, msg, sizeof(msg)), RL_OK);
			_Alignas(16) unsigned char less[RL_ALGO_MAX_STATE] = { 0 }, more[RL_ALGO_MAX_STATE] = { 0 },
						   fresh[RL_ALGO_MAX_STATE] = { 0 };
			int64_t t = m_rng_range(&r, 0, 1000000000);
			int n = (int)m_rng_range(&r, 0, 30);
			for (int q = 0; q < n; q++) {
				t = next_time(&r, t, r0.window_ns);
				assert_true(rl_limiter_check(&l0, less, t, NULL) >= 0);
				assert_true(rl_limiter_check(&l0, more, t, NULL) >= 0);
			}
			/* more: the same history plus requests at its last instant */
			int extra = (int)m_rng_range(&r, 1, 5);
			for (int q = 0; q < extra; q++)
				assert_true(rl_limiter_check(&l0, more, t, NULL) >= 0);
			int64_t at = clamp64((m_i128)t + m_rng_range(&r, 0, r0.window_ns), 0, M_TIME_MAX);
			assert_int_equal(rl_limiter_rerule(&l0, &l1, less, at), RL_OK);
			assert_int_equal(rl_limiter_rerule(&l0, &l1, more, at), RL_OK);
			int64_t cl = capacity(&l1, less, at), cm = capacity(&l1, more, at), cf = capacity(&l1, fresh, at);
			if (cm > cl || cl > cf) {
				print_error("%s: seed=0x%llx round %d: capacities more=%lld less=%lld fresh=%lld\n",
					    c->name, (unsigned long long)g_seed, round, (long long)cm, (long long)cl,
					    (long long)cf);
				fail();
			}
		}
	}
}

/* Equal rules: nothing to do. Other algorithms, bad times: refused, the state unchanged. */
static void test_refusals(void **unused)
{
	(void)unused;
	const struct rl_rule rule = { 5, 1000, 5 };
	struct rl_limiter tb, tb2, fw;
	char msg[128];
	struct rl_level st = { 0 };

	assert_int_equal(rl_limiter_init(&tb, &rl_token_bucket_algo, &rule, msg, sizeof(msg)), RL_OK);
	assert_int_equal(rl_limiter_init(&tb2, &rl_token_bucket_algo, &rule, msg, sizeof(msg)), RL_OK);
	assert_int_equal(rl_limiter_init(&fw, &rl_fixed_window_algo, &rule, msg, sizeof(msg)), RL_OK);
	assert_int_equal(rl_limiter_check(&tb, &st, 7, NULL), RL_ALLOWED);
	struct rl_level before = st;
	assert_int_equal(rl_limiter_rerule(&tb, &tb2, &st, 500), RL_OK);
	assert_memory_equal(&st, &before, sizeof(st));
	assert_int_equal(rl_limiter_rerule(&tb, &fw, &st, 500), RL_EINVAL);
	assert_int_equal(rl_limiter_rerule(&tb, &tb2, &st, -1), RL_ERANGE);
	assert_int_equal(rl_limiter_rerule(&tb, &tb2, &st, 4000000000000000001LL), RL_ERANGE);
	assert_memory_equal(&st, &before, sizeof(st));
}

/* The boundaries each header states, at both edges. */
static void test_edges(void **unused)
{
	(void)unused;
	char msg[128];
	struct rl_limiter a, b;

	/* fixed_window: count clamps to N1; the W1 window holding now */
	{
		const struct rl_rule r0 = { 10, 100, 10 }, r1 = { 4, 30, 4 };
		struct rl_fixed_window st = { 0 };
		assert_int_equal(rl_limiter_init(&a, &rl_fixed_window_algo, &r0, msg, sizeof(msg)), RL_OK);
		assert_int_equal(rl_limiter_init(&b, &rl_fixed_window_algo, &r1, msg, sizeof(msg)), RL_OK);
		assert_int_equal(rl_limiter_check_n(&a, &st, 105, 7, NULL), RL_ALLOWED);
		assert_int_equal(rl_limiter_rerule(&a, &b, &st, 170), RL_OK);
		assert_int_equal(st.count, 4);
		assert_int_equal(st.end_ns, 180);
		assert_int_equal(rl_limiter_check(&b, &st, 179, NULL), RL_REJECTED);
		assert_int_equal(rl_limiter_check(&b, &st, 180, NULL), RL_ALLOWED);
		/* the window ended (now >= end): nothing carries */
		struct rl_fixed_window old = { 0 };
		assert_int_equal(rl_limiter_check_n(&a, &old, 105, 10, NULL), RL_ALLOWED);
		assert_int_equal(rl_limiter_rerule(&a, &b, &old, 200), RL_OK);
		assert_int_equal(rl_limiter_check_n(&b, &old, 200, 4, NULL), RL_ALLOWED);
	}
	/* sliding_counter, another window: curr + ceil(prev * (end - now) / W0) */
	{
		const struct rl_rule r0 = { 10, 100, 10 }, r1 = { 10, 1000, 10 };
		struct rl_sliding_counter st = { 0 };
		assert_int_equal(rl_limiter_init(&a, &rl_sliding_counter_algo, &r0, msg, sizeof(msg)), RL_OK);
		assert_int_equal(rl_limiter_init(&b, &rl_sliding_counter_algo, &r1, msg, sizeof(msg)), RL_OK);
		assert_int_equal(rl_limiter_check_n(&a, &st, 50, 9, NULL), RL_ALLOWED);
		assert_int_equal(rl_limiter_check_n(&a, &st, 110, 1, NULL), RL_ALLOWED);
		/* at 131: prev 9 weighs ceil(9 * 69 / 100) = 7, plus curr 1 */
		assert_int_equal(rl_limiter_rerule(&a, &b, &st, 131), RL_OK);
		assert_int_equal(st.curr, 8);
		assert_int_equal(st.prev, 0);
		assert_int_equal(st.end_ns, 1000);
	}
	/* gcra: debt scales with T, capped at tau1 + T1 */
	{
		const struct rl_rule r0 = { 10, 1000, 10 }, r1 = { 10, 3000, 2 };
		struct rl_gcra st = { 0 };
		assert_int_equal(rl_limiter_init(&a, &rl_gcra_algo, &r0, msg, sizeof(msg)), RL_OK);
		assert_int_equal(rl_limiter_init(&b, &rl_gcra_algo, &r1, msg, sizeof(msg)), RL_OK);
		assert_int_equal(rl_limiter_check_n(&a, &st, 0, 1, NULL), RL_ALLOWED); /* debt 100 */
		assert_int_equal(rl_limiter_rerule(&a, &b, &st, 1), RL_OK);
		assert_int_equal(st.tat_ns, 1 + 99 * 3); /* ceil(99 * 300 / 100) */
		struct rl_gcra full = { 0 };
		assert_int_equal(rl_limiter_check_n(&a, &full, 0, 10, NULL), RL_ALLOWED); /* debt 1000 */
		assert_int_equal(rl_limiter_rerule(&a, &b, &full, 0), RL_OK);
		assert_int_equal(full.tat_ns, 600); /* tau1 + T1 = 300 + 300 */
	}
	/* leaky_bucket: the queue clamps to B1 * W1 */
	{
		const struct rl_rule r0 = { 1, 10, 5 }, r1 = { 1, 10, 2 };
		struct rl_level st = { 0 };
		assert_int_equal(rl_limiter_init(&a, &rl_leaky_bucket_algo, &r0, msg, sizeof(msg)), RL_OK);
		assert_int_equal(rl_limiter_init(&b, &rl_leaky_bucket_algo, &r1, msg, sizeof(msg)), RL_OK);
		for (int i = 0; i < 6; i++)
			assert_int_equal(rl_limiter_check(&a, &st, 0, NULL), RL_ALLOWED);
		assert_int_equal(rl_limiter_rerule(&a, &b, &st, 0), RL_OK);
		assert_int_equal(st.level_lo, 20);
	}
	/* the widest level: B = 10^9, W = 10^18, down to B = 1: no word dropped */
	{
		const struct rl_rule r0 = { 1, 1000000000000000000LL, 1000000000 }, r1 = { 1, 999999999999999999LL, 999999999 };
		struct rl_level st = { 0 };
		assert_int_equal(rl_limiter_init(&a, &rl_token_bucket_algo, &r0, msg, sizeof(msg)), RL_OK);
		assert_int_equal(rl_limiter_init(&b, &rl_token_bucket_algo, &r1, msg, sizeof(msg)), RL_OK);
		assert_int_equal(rl_limiter_check_n(&a, &st, 0, 1000000000, NULL), RL_ALLOWED);
		assert_int_equal(rl_limiter_rerule(&a, &b, &st, 0), RL_OK);
		/* 10^27 * (10^18 - 1) / 10^18 = 10^27 - 10^9, above B1 * W1 = (10^9 - 1)(10^18 - 1) */
		unsigned __int128 want = (unsigned __int128)999999999 * 999999999999999999ULL;
		unsigned __int128 got = ((unsigned __int128)st.level_hi << 64) | st.level_lo;
		assert_true(got == want);
	}
	/* wider: B = N = 10^12, W = 10^18 (a level near 2^100), down to B = 10^12 - 1 */
	{
		const struct rl_rule r0 = { RL_LIMIT_MAX, RL_WINDOW_MAX_NS, RL_BURST_MAX },
				     r1 = { RL_LIMIT_MAX, RL_WINDOW_MAX_NS - 1, RL_BURST_MAX - 1 };
		struct rl_level st = { 0 };
		assert_int_equal(rl_limiter_init(&a, &rl_token_bucket_algo, &r0, msg, sizeof(msg)), RL_OK);
		assert_int_equal(rl_limiter_init(&b, &rl_token_bucket_algo, &r1, msg, sizeof(msg)), RL_OK);
		assert_int_equal(rl_limiter_check_n(&a, &st, 0, RL_COST_MAX, NULL), RL_ALLOWED);
		unsigned __int128 full = (unsigned __int128)RL_BURST_MAX * (uint64_t)RL_WINDOW_MAX_NS;
		assert_true((((unsigned __int128)st.level_hi << 64) | st.level_lo) == full);
		assert_int_equal(rl_limiter_rerule(&a, &b, &st, 0), RL_OK);
		/* 10^30 * (10^18 - 1) / 10^18 = 10^30 - 10^12, above B1 * W1 */
		unsigned __int128 want = (unsigned __int128)(RL_BURST_MAX - 1) * (uint64_t)(RL_WINDOW_MAX_NS - 1);
		assert_true((((unsigned __int128)st.level_hi << 64) | st.level_lo) == want);
		assert_int_equal(rl_limiter_state_check(&b, &st), RL_OK);
	}
	/* gcra from 10^12 per s (T = 1/1000 ns) to 3 per 1000 ns (T = 333 1/3):
	 * the debt scales by T1 / T0, exactly */
	{
		const struct rl_rule r0 = { RL_LIMIT_MAX, 1000000000, RL_BURST_MAX }, r1 = { 3, 1000, 2000000 };
		struct rl_gcra st = { 0 };
		assert_int_equal(rl_limiter_init(&a, &rl_gcra_algo, &r0, msg, sizeof(msg)), RL_OK);
		assert_int_equal(rl_limiter_init(&b, &rl_gcra_algo, &r1, msg, sizeof(msg)), RL_OK);
		assert_int_equal(rl_limiter_check_n(&a, &st, 0, 1001, NULL), RL_ALLOWED); /* debt 1.001 ns */
		assert_int_equal(st.tat_ns, 1);
		assert_int_equal(st.tat_frac, 1000000000); /* 0.001 ns in 1/10^12 ns */
		assert_int_equal(rl_limiter_rerule(&a, &b, &st, 0), RL_OK);
		/* 1001 units of 1/3 * 1000 ns: 333666 2/3 ns, 2 in 1/3 ns */
		assert_int_equal(st.tat_ns, 333666);
		assert_int_equal(st.tat_frac, 2);
		assert_int_equal(rl_limiter_state_check(&b, &st), RL_OK);
	}
	/* gcra 7 per 10 ns to 3 per 10 ns: D0 = 10 (one unit, in 1/7 ns), D1 = ceil(10 * 10 / 10) = 10 in 1/3 ns */
	{
		const struct rl_rule r0 = { 7, 10, 7 }, r1 = { 3, 10, 3 };
		struct rl_gcra st = { 0 };
		assert_int_equal(rl_limiter_init(&a, &rl_gcra_algo, &r0, msg, sizeof(msg)), RL_OK);
		assert_int_equal(rl_limiter_init(&b, &rl_gcra_algo, &r1, msg, sizeof(msg)), RL_OK);
		assert_int_equal(rl_limiter_check_n(&a, &st, 0, 1, NULL), RL_ALLOWED); /* TAT 1 3/7 */
		assert_int_equal(st.tat_ns, 1);
		assert_int_equal(st.tat_frac, 3);
		assert_int_equal(rl_limiter_rerule(&a, &b, &st, 0), RL_OK); /* one T1: 3 1/3 ns */
		assert_int_equal(st.tat_ns, 3);
		assert_int_equal(st.tat_frac, 1);
	}
}

int main(void)
{
	const char *only = getenv("RL_TRACE");

	g_seed = m_seed_from_env(DEFAULT_SEED);
	if (only && *only)
		g_only_trace = strtol(only, NULL, 0);
	printf("test_rerule: seed=0x%llx (override with RL_SEED, RL_TRACE)\n", (unsigned long long)g_seed);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_differential), cmocka_unit_test(test_tier_downgrade),
		cmocka_unit_test(test_monotone),     cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_edges),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
