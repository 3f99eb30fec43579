/*
 * test_policy.c - policies (policy.h): the text read by rl_rule_parse's
 * words, the state size per rule count, a hand-worked trace, and every
 * algorithm's policy of 1 to 4 rules (":units" or not) against the slow
 * models of model.h on seeded random traces: per rule, the model's own
 * check on a copy of its key; the policy admits iff every copy does and
 * then keeps the copies; the combined answer is checked literally (the
 * request of the same cost is refused at retry_after_ns - 1 and admitted at
 * retry_after_ns by every rule's model). The same traces through rl_store
 * and rl_limit_new_policy (named and unnamed keys) decide alike.
 * A failure prints the seed and the trace: RL_SEED=<seed> RL_TRACE=<i>.
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
#include "ratelab/http.h"
#include "ratelab/limit.h"
#include "ratelab/policy.h"
#include "ratelab/store.h"

#define DEFAULT_SEED 0x5017c1e5ULL
#define DEFAULT_TRACES 300
#define MAX_RULES 4

static uint64_t g_seed;
static long g_only_trace = -1;
static long g_traces = DEFAULT_TRACES;

/* ------------------------------------------------------------------ */
/* The text.                                                           */

static void parse_forms(void **u)
{
	(void)u;
	struct rl_policy p;
	char msg[512], back[256];

	assert_int_equal(rl_policy_parse("10/1s+1000/1h", &p, msg, sizeof(msg)), RL_OK);
	assert_int_equal(p.count, 2);
	assert_int_equal(p.rules[0].limit, 10);
	assert_int_equal(p.rules[0].window_ns, 1000000000LL);
	assert_int_equal(p.rules[0].burst, 10);
	assert_int_equal(p.rules[1].limit, 1000);
	assert_int_equal(p.rules[1].window_ns, 3600000000000LL);
	assert_false(p.units[0] || p.units[1]);
	assert_false(rl_policy_uses_units(&p));

	assert_int_equal(rl_policy_parse("60/1m+90000/1m:units", &p, msg, sizeof(msg)), RL_OK);
	assert_int_equal(p.count, 2);
	assert_false(p.units[0]);
	assert_true(p.units[1]);
	assert_true(rl_policy_uses_units(&p));
	assert_string_equal(rl_policy_format(&p, true, back, sizeof(back)), "60/1m+90000/1m:units");

	/* spaces around '+' (the tiers file's "policy = 10/1s + 1000/1h"), a burst and units */
	assert_int_equal(rl_policy_parse(" 10/1s + 5/100ms:b9:units ", &p, msg, sizeof(msg)), RL_OK);
	assert_int_equal(p.count, 2);
	assert_int_equal(p.rules[1].burst, 9);
	assert_true(p.units[1]);
	assert_string_equal(rl_policy_format(&p, true, back, sizeof(back)), "10/1s+5/100ms:b9:units");
	assert_string_equal(rl_policy_format(&p, false, back, sizeof(back)), "10/1s+5/100ms:units");

	/* one rule is a policy of one rule; 8 is the most */
	assert_int_equal(rl_policy_parse("7/3s", &p, msg, sizeof(msg)), RL_OK);
	assert_int_equal(p.count, 1);
	assert_int_equal(rl_policy_parse("1/1s+2/1s+3/1s+4/1s+5/1s+6/1s+7/1s+8/1s", &p, msg, sizeof(msg)), RL_OK);
	assert_int_equal(p.count, 8);
	assert_int_equal(p.rules[7].limit, 8);
}

static void expect_error(const char *text, const char *want)
{
	struct rl_policy p = { 0 };
	char msg[512];

	assert_int_equal(rl_policy_parse(text, &p, msg, sizeof(msg)), RL_EINVAL);
	if (strcmp(msg, want) != 0)
		fail_msg("policy '%s': message\n  '%s'\nexpected\n  '%s'", text, msg, want);
	assert_int_equal(p.count, 0); /* untouched */
}

static void parse_errors(void **u)
{
	(void)u;
	char rule_msg[512];
	struct rl_rule r;

	expect_error("1/1s+2/1s+3/1s+4/1s+5/1s+6/1s+7/1s+8/1s+9/1s",
		     "'1/1s+2/1s+3/1s+4/1s+5/1s+6/1s+7/1s+8/1s+9/1s' has 9 rules (at most 8)");
	expect_error("10/1s+0/1h", "'10/1s+0/1h': rule 2: '0/1h': the limit '0' is out of range [1, 1000000000000]");
	expect_error("10/1s+", "'10/1s+': rule 2 is empty (rules N/W[:bB][:units] joined by '+', e.g. "
			       "10/1s+1000/1h or 60/1m+90000/1m:units)");
	expect_error("10/1s:units:b5", "'10/1s:units:b5': the burst 'units:b5' is not bB (N/W or N/W:bB, e.g. "
				       "10/1s or 60/1m:b120)");
	expect_error("1/1s+10/1s:units:b5", "'1/1s+10/1s:units:b5': rule 2: '10/1s:units:b5': the burst "
					    "'units:b5' is not bB (N/W or N/W:bB, e.g. 10/1s or 60/1m:b120)");
	expect_error("10/1s+5/1\n", "'10/1s+5/1\\n': rule 2: '5/1\\n': the window '1\\n' is not a duration "
				    "(an integer with unit ns, us, ms, s, m or h)");
	/* a policy of one rule words its mistake as rl_rule_parse does */
	assert_int_equal(rl_rule_parse("0/1s", &r, rule_msg, sizeof(rule_msg)), RL_EINVAL);
	expect_error("0/1s", rule_msg);
}

/* Memory per key, pinned per rule count. */
static void state_sizes(void **u)
{
	(void)u;
	for (size_t k = 1; k <= RL_POLICY_MAX_RULES; k++) {
		assert_int_equal(rl_policy_state_size(&rl_gcra_algo, k), 16 + 24 * k);
		assert_int_equal(rl_policy_state_size(&rl_token_bucket_algo, k), 16 + 24 * k);
		assert_int_equal(rl_policy_state_size(&rl_leaky_bucket_algo, k), 16 + 24 * k);
		assert_int_equal(rl_policy_state_size(&rl_fixed_window_algo, k), 16 + 24 * k);
		assert_int_equal(rl_policy_state_size(&rl_sliding_counter_algo, k), 16 + 32 * k);
		assert_int_equal(rl_policy_state_size(&rl_sliding_log_algo, k), 16 + 40 * k);
	}
	assert_true(rl_policy_state_size(&rl_sliding_log_algo, RL_POLICY_MAX_RULES) <= RL_POLICY_MAX_STATE);
	assert_true(RL_POLICY_MAX_STATE <= RL_STORE_MAX_STATE);

	struct rl_policy p = { 0 };
	struct rl_policy_limiter pl;
	char msg[256];
	assert_int_equal(rl_policy_limiter_init(&pl, &rl_gcra_algo, &p, msg, sizeof(msg)), RL_EINVAL);
	assert_string_equal(msg, "a policy has 1 to 8 rules (got 0)");
	assert_int_equal(rl_policy_parse("10/1s+10/1s:b0", &p, msg, sizeof(msg)), RL_EINVAL);
}

/* ------------------------------------------------------------------ */
/* A hand-worked trace: fixed_window, 2 per 10 ns and 3 per 100 ns.    */

static void hand_fixed_window(void **u)
{
	(void)u;
	struct rl_policy p;
	struct rl_policy_limiter pl;
	struct rl_policy_answer a;
	char msg[256];
	_Alignas(16) unsigned char st[RL_POLICY_MAX_STATE] = { 0 };

	assert_int_equal(rl_policy_parse("2/10ns+3/100ns", &p, msg, sizeof(msg)), RL_OK);
	assert_int_equal(rl_policy_limiter_init(&pl, &rl_fixed_window_algo, &p, msg, sizeof(msg)), RL_OK);
	assert_int_equal(rl_policy_check(&pl, st, 0, 1, &a), RL_ALLOWED);
	assert_int_equal(a.all.remaining, 1); /* min(2 - 1, 3 - 1) */
	assert_int_equal(a.all.reset_ns, 100);
	assert_int_equal(rl_policy_check(&pl, st, 1, 1, &a), RL_ALLOWED);
	/* rule 1 refuses (retry at 10); rule 2 admits and takes nothing */
	assert_int_equal(rl_policy_check(&pl, st, 2, 1, &a), RL_REJECTED);
	assert_int_equal(a.verdict[0], RL_REJECTED);
	assert_int_equal(a.verdict[1], RL_ALLOWED);
	assert_int_equal(a.rule[0].retry_after_ns, 8);
	assert_int_equal(a.rule[1].retry_after_ns, 0);
	assert_int_equal(a.all.retry_after_ns, 8);
	assert_int_equal(rl_policy_check(&pl, st, 10, 1, &a), RL_ALLOWED); /* rule 2's third */
	assert_int_equal(a.rule[1].remaining, 0);
	/* now rule 2 refuses until 100; rule 1 would admit */
	assert_int_equal(rl_policy_check(&pl, st, 11, 1, &a), RL_REJECTED);
	assert_int_equal(a.all.retry_after_ns, 89);
	assert_int_equal(a.verdict[0], RL_ALLOWED);
	/* nothing taken at 11: rule 1 still has one left in [10, 20) */
	assert_int_equal(a.rule[0].remaining, 0); /* as if it stood alone: this one taken */
	assert_int_equal(rl_policy_check(&pl, st, 12, 1, &a), RL_REJECTED);
	assert_int_equal(a.rule[0].remaining, 0);
	assert_int_equal(rl_policy_check(&pl, st, 100, 1, &a), RL_ALLOWED);
	assert_int_equal(rl_policy_check(&pl, st, 100, 1, &a), RL_ALLOWED);
	assert_int_equal(rl_policy_check(&pl, st, 100, 1, &a), RL_REJECTED);
	assert_int_equal(a.all.retry_after_ns, 10);
	/* errors change nothing */
	assert_int_equal(rl_policy_check(&pl, st, -1, 1, &a), RL_ERANGE);
	assert_int_equal(rl_policy_check(&pl, st, 100, 0, &a), RL_EINVAL);
	assert_int_equal(rl_policy_check(&pl, st, 100, RL_COST_MAX + 1, &a), RL_EINVAL);
	rl_policy_release(&pl, st);
}

/* ":units": the cost counts on the marked rule only. */
static void hand_units(void **u)
{
	(void)u;
	struct rl_policy p;
	struct rl_policy_limiter pl;
	struct rl_policy_answer a;
	char msg[256];
	_Alignas(16) unsigned char st[RL_POLICY_MAX_STATE] = { 0 };

	/* 3 requests and 100 tokens per 1000 ns */
	assert_int_equal(rl_policy_parse("3/1000ns+100/1000ns:units", &p, msg, sizeof(msg)), RL_OK);
	assert_int_equal(rl_policy_limiter_init(&pl, &rl_sliding_log_algo, &p, msg, sizeof(msg)), RL_OK);
	assert_int_equal(rl_policy_check(&pl, st, 0, 60, &a), RL_ALLOWED);
	assert_int_equal(a.rule[0].remaining, 2);
	assert_int_equal(a.rule[1].remaining, 40);
	assert_int_equal(rl_policy_check(&pl, st, 5, 41, &a), RL_REJECTED);
	assert_int_equal(a.rule[1].retry_after_ns, 995);
	assert_int_equal(rl_policy_check(&pl, st, 6, 40, &a), RL_ALLOWED);
	assert_int_equal(rl_policy_check(&pl, st, 7, 1, &a), RL_REJECTED); /* tokens out */
	assert_int_equal(a.rule[0].remaining, 0);
	/* a cost the units rule can never take: never, and nothing taken */
	assert_int_equal(rl_policy_check(&pl, st, 1000, 101, &a), RL_REJECTED);
	assert_int_equal(a.all.retry_after_ns, RL_DURATION_MAX_NS);
	assert_int_equal(rl_policy_check(&pl, st, 1000, 100, &a), RL_REJECTED); /* 40 left until 1006 */
	assert_int_equal(a.all.retry_after_ns, 6);
	assert_int_equal(rl_policy_check(&pl, st, 1006, 100, &a), RL_ALLOWED);
	assert_true(pl.ops.heap_bytes(st) > 0);
	rl_policy_release(&pl, st);
	assert_int_equal(pl.ops.heap_bytes(st), 0);
}

/* ------------------------------------------------------------------ */
/* Against the models.                                                 */

struct prop_case {
	const char *algo_name;
	enum m_kind model;
	int n_divides_w; /* 1: every rule's W a multiple of its N; 0: any W (gcra's T = W / N exact, gcra.h) */
};

static struct m_key key_clone(const struct m_key *k)
{
	struct m_key c = *k;

	c.is_copy = 0;
	c.acc = NULL;
	c.units = NULL;
	c.cap = 0;
	if (k->len) {
		c.acc = malloc(k->len * sizeof(*c.acc));
		c.units = malloc(k->len * sizeof(*c.units));
		assert_non_null(c.acc);
		assert_non_null(c.units);
		memcpy(c.acc, k->acc, k->len * sizeof(*c.acc));
		memcpy(c.units, k->units, k->len * sizeof(*c.units));
		c.cap = k->len;
	}
	return c;
}

static int64_t pick_window(struct m_rng *r)
{
	switch (m_rng_range(r, 0, 7)) {
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
	default:
		return m_rng_range(r, 1, 1000000000000000LL);
	}
}

struct policy_model {
	size_t count;
	struct m_lim lim[MAX_RULES];
	struct m_key key[MAX_RULES];
	int units[MAX_RULES];
	int64_t last; /* the key's last seen time: every request's but a never's */
};

static void pick_policy(struct m_rng *r, const struct prop_case *pc, struct rl_policy *p, struct policy_model *m)
{
	memset(p, 0, sizeof(*p));
	memset(m, 0, sizeof(*m));
	p->count = m->count = (size_t)m_rng_range(r, 1, MAX_RULES);
	for (size_t i = 0; i < p->count; i++) {
		int64_t n = m_rng_range(r, 1, m_rng_range(r, 0, 3) ? 8 : 40), w = pick_window(r), b = n;
		if (pc->n_divides_w)
			w = (w / n < 1 ? 1 : w / n) * n;
		if ((pc->model == M_TOKEN_BUCKET || pc->model == M_LEAKY_BUCKET) && m_rng_range(r, 0, 1))
			b = m_rng_range(r, 1, 16);
		p->rules[i] = (struct rl_rule){ n, w, b };
		m->units[i] = m_rng_range(r, 0, 2) == 0;
		p->units[i] = m->units[i];
		m->lim[i] = (struct m_lim){ pc->model, n, w, b };
	}
}

static void fail_trace(const struct prop_case *pc, long trace, const struct rl_policy *p, int req, int64_t t,
		       int64_t cost, const char *what, long long got, long long want)
{
	char text[256];

	print_error("MISMATCH %s policy %s: seed=0x%llx trace=%ld (reproduce: RL_SEED=0x%llx RL_TRACE=%ld)\n"
		    "  request #%d at t=%lld cost %lld: %s: impl %lld, model %lld\n",
		    pc->algo_name, rl_policy_format(p, true, text, sizeof(text)), (unsigned long long)g_seed, trace,
		    (unsigned long long)g_seed, trace, req, (long long)t, (long long)cost, what, got, want);
	fail_msg("%s policy disagrees with its model (seed 0x%llx, trace %ld)", pc->algo_name,
		 (unsigned long long)g_seed, trace);
}

#define SAME(what, got, want)                                                                          \
	do {                                                                                           \
		if ((long long)(got) != (long long)(want))                                            \
			fail_trace(pc, trace, &p, q, t, cost, what, (long long)(got), (long long)(want)); \
	} while (0)

/* Does every rule's model admit a request of cost at t (nothing kept; t may pass M_TIME_MAX)? */
static int model_admits(struct policy_model *m, m_i128 t, int64_t cost)
{
	int all = 1;

	for (size_t i = 0; i < m->count; i++) {
		m_i128 at = m->key[i].seen && t < m->key[i].last ? m->key[i].last : t;
		all &= m_decide(&m->lim[i], &m->key[i], at, m->units[i] ? cost : 1, 0, NULL) == 1;
	}
	return all;
}

static void run_trace(const struct prop_case *pc, long trace)
{
	struct m_rng r = { g_seed ^ (0x9e3779b97f4a7c15ULL * (uint64_t)(trace + 1)) };
	const struct rl_algo *algo = rl_algo_find(pc->algo_name);
	struct rl_policy p;
	struct policy_model m;
	struct rl_policy_limiter pl;
	struct rl_store *store = NULL;
	struct rl_limit *lim;
	char msg[256], text[256];

	pick_policy(&r, pc, &p, &m);
	assert_int_equal(rl_policy_limiter_init(&pl, algo, &p, msg, sizeof(msg)), RL_OK);
	struct rl_store_config cfg = { .limiter = rl_policy_as_limiter(&pl), .max_keys = 4,
				       .when_full = RL_FULL_EVICT };
	assert_int_equal(rl_store_create(&store, &cfg), RL_OK);
	lim = rl_limit_new_policy(pc->algo_name, rl_policy_format(&p, true, text, sizeof(text)));
	if (!lim)
		fail_msg("rl_limit_new_policy(%s, %s): %s", pc->algo_name, text, rl_limit_error());
	void *st = calloc(1, rl_policy_state_size(algo, p.count));
	assert_non_null(st);
	/* the same policy in shadow mode, on a state of its own */
	struct rl_policy_limiter shadow;
	assert_int_equal(rl_policy_limiter_init(&shadow, algo, &p, msg, sizeof(msg)), RL_OK);
	rl_policy_set_shadow(&shadow, true);
	void *sst = calloc(1, rl_policy_state_size(algo, p.count));
	assert_non_null(sst);
	uint64_t refused = 0;

	int64_t t = m_rng_range(&r, 0, 3) ? m_rng_range(&r, 0, 1000000000) : M_TIME_MAX - m_rng_range(&r, 0, 1000);
	int nreq = (int)m_rng_range(&r, 5, 60);
	for (int q = 0; q < nreq; q++) {
		int64_t w = m.lim[m_rng_range(&r, 0, (int64_t)m.count - 1)].w;
		switch (m_rng_range(&r, 0, 7)) {
		case 0:
		case 1:
			break; /* the same instant */
		case 2:
			t -= m_rng_range(&r, 1, 3); /* backwards: clamped */
			break;
		case 3:
			t += w + m_rng_range(&r, -1, 1);
			break;
		default:
			t += m_rng_range(&r, 0, w / 2 + 2);
			break;
		}
		t = t < 0 ? 0 : t > M_TIME_MAX ? M_TIME_MAX : t;
		int64_t cost = m_rng_range(&r, 0, 2) ? 1 : m_rng_range(&r, 1, 45);

		/* the model: each rule decides its share on a copy at the key's
		 * clamped time; all or nothing */
		struct m_key copy[MAX_RULES];
		struct m_answer ma[MAX_RULES];
		int64_t t_eff = t < m.last ? m.last : t;
		int want = 1, never = 0;
		for (size_t i = 0; i < m.count; i++) {
			copy[i] = key_clone(&m.key[i]);
			want &= m_check_n(&m.lim[i], &copy[i], t_eff, m.units[i] ? cost : 1, &ma[i]) == 1;
			never |= ma[i].verdict == 0 && ma[i].retry_after_ns == INT64_MAX;
		}
		if (!never)
			m.last = t_eff;

		struct rl_policy_answer a;
		struct rl_decision ds, dl;
		int got = rl_policy_check(&pl, st, t, cost, &a);
		int got_store = rl_store_check_n(store, "k", 1, t, cost, &ds);
		int got_limit = rl_limit_allow_n_at(lim, t, cost, &dl);
		if (getenv("RL_VERBOSE"))
			printf("#%d t=%lld cost %lld: %d\n", q, (long long)t, (long long)cost, got);

		struct rl_policy_answer sa;
		int got_shadow = rl_policy_check(&shadow, sst, t, cost, &sa);
		refused += !want;

		SAME("verdict", got, want);
		SAME("shadow verdict", got_shadow, RL_ALLOWED);
		SAME("shadow would_reject", sa.would_reject, !want);
		SAME("shadow retry_after_ns", sa.all.retry_after_ns, a.all.retry_after_ns);
		SAME("shadow remaining", sa.all.remaining, a.all.remaining);
		SAME("shadow reset_ns", sa.all.reset_ns, a.all.reset_ns);
		SAME("shadow count", rl_policy_would_reject(&shadow), refused);
		SAME("store verdict", got_store, want);
		SAME("rl_limit verdict", got_limit, want);
		SAME("answered rules", a.count, m.count);
		int64_t rem = INT64_MAX, retry = 0, reset = 0, delay = 0;
		for (size_t i = 0; i < m.count; i++) {
			SAME("rule verdict", a.verdict[i], ma[i].verdict);
			SAME("rule remaining", a.rule[i].remaining, ma[i].remaining);
			SAME("rule retry_after_ns", a.rule[i].retry_after_ns, ma[i].retry_after_ns);
			SAME("rule reset_ns", a.rule[i].reset_ns, ma[i].reset_ns);
			if (pc->model == M_LEAKY_BUCKET && ma[i].verdict == 1)
				SAME("rule delay_ns", a.rule[i].delay_ns, ma[i].delay_ns);
			rem = ma[i].remaining < rem ? ma[i].remaining : rem;
			retry = ma[i].retry_after_ns > retry ? ma[i].retry_after_ns : retry;
			reset = ma[i].reset_ns > reset ? ma[i].reset_ns : reset;
			delay = a.rule[i].delay_ns > delay ? a.rule[i].delay_ns : delay;
		}
		SAME("remaining", a.all.remaining, rem);
		SAME("retry_after_ns", a.all.retry_after_ns, want ? 0 : retry);
		SAME("reset_ns", a.all.reset_ns, reset);
		SAME("delay_ns", a.all.delay_ns, delay);
		SAME("store retry_after_ns", ds.retry_after_ns, a.all.retry_after_ns);
		SAME("store remaining", ds.remaining, a.all.remaining);
		SAME("rl_limit reset_ns", dl.reset_ns, a.all.reset_ns);

		for (size_t i = 0; i < m.count; i++) {
			if (want) {
				m_key_free(&m.key[i]);
				m.key[i] = copy[i];
			} else {
				m_key_free(&copy[i]);
			}
		}
		/* the combined wait, literally: refused one ns before it, admitted at it */
		if (!want && retry != RL_DURATION_MAX_NS) {
			m_i128 at = ma[0].t_eff;
			SAME("admitted at retry_after_ns", model_admits(&m, at + retry, cost), 1);
			SAME("refused before retry_after_ns", model_admits(&m, at + retry - 1, cost), 0);
		}
	}
	for (size_t i = 0; i < m.count; i++)
		m_key_free(&m.key[i]);
	rl_policy_release(&pl, st);
	free(st);
	rl_policy_release(&shadow, sst);
	free(sst);
	rl_store_destroy(store);
	rl_limit_free(lim);
}

static void run_case(const struct prop_case *pc)
{
	for (long i = 0; i < g_traces; i++)
		if (g_only_trace < 0 || g_only_trace == i)
			run_trace(pc, i);
}

#define PROP_TEST(fn, algo, model, divides)                            \
	static void fn(void **unused)                                  \
	{                                                              \
		static const struct prop_case pc = { algo, model, divides }; \
		(void)unused;                                          \
		run_case(&pc);                                         \
	}

PROP_TEST(prop_token_bucket, "token_bucket", M_TOKEN_BUCKET, 0)
PROP_TEST(prop_gcra, "gcra", M_TOKEN_BUCKET, 1)
PROP_TEST(prop_gcra_fractional, "gcra", M_TOKEN_BUCKET, 0)
PROP_TEST(prop_leaky_bucket, "leaky_bucket", M_LEAKY_BUCKET, 0)
PROP_TEST(prop_fixed_window, "fixed_window", M_FIXED_WINDOW, 0)
PROP_TEST(prop_sliding_log, "sliding_log", M_SLIDING_LOG, 0)
PROP_TEST(prop_sliding_counter, "sliding_counter", M_SLIDING_COUNTER, 0)

/* rl_limit_new_policy's refusals, in the parser's words. */
static void limit_new_policy_errors(void **u)
{
	(void)u;
	assert_null(rl_limit_new_policy("gcra", "1/1s+2/1s+3/1s+4/1s+5/1s+6/1s+7/1s+8/1s+9/1s"));
	assert_string_equal(rl_limit_error(), "'1/1s+2/1s+3/1s+4/1s+5/1s+6/1s+7/1s+8/1s+9/1s' has 9 rules (at most 8)");
	assert_null(rl_limit_new_policy("nope", "1/1s"));
	assert_null(rl_limit_new_policy("gcra", NULL));

	struct rl_limit *l = rl_limit_new_policy("gcra", "2/1s+3/1h");
	assert_non_null(l);
	assert_non_null(rl_limit_policy(l));
	assert_int_equal(rl_limit_rule(l)->window_ns, 3600000000000LL); /* the longest window's rule */
	struct rl_policy_answer a;
	assert_int_equal(rl_limit_policy_at(l, 0, 1, &a), RL_ALLOWED);
	assert_int_equal(rl_limit_allow_at(l, 0, NULL), RL_ALLOWED);
	assert_int_equal(rl_limit_policy_at(l, 0, 1, &a), RL_REJECTED);
	assert_int_equal(a.rule[0].retry_after_ns, 500000000LL);
	assert_int_equal(rl_limit_policy_at(l, 1000000000LL, 1, &a), RL_ALLOWED);
	assert_int_equal(rl_limit_policy_at(l, 2000000000LL, 1, &a), RL_REJECTED); /* 3 per hour */
	assert_int_equal(a.all.retry_after_ns, 1198000000000LL);
	rl_limit_free(l);

	/* shadow mode through rl_limit: admitted, the answer as it would be, counted */
	l = rl_limit_new_policy("fixed_window", "1/1s");
	assert_int_equal(rl_limit_set_shadow(l, true), RL_OK);
	struct rl_decision d;
	assert_int_equal(rl_limit_allow_key_n_at(l, "k", 1, 0, 1, &d), RL_ALLOWED);
	assert_int_equal(d.retry_after_ns, 0);
	assert_int_equal(rl_limit_allow_key_n_at(l, "k", 1, 10, 1, &d), RL_ALLOWED);
	assert_int_equal(d.retry_after_ns, RL_S(1) - 10);
	assert_true(rl_limit_allow(l));
	assert_int_equal(rl_limit_would_reject(l), 1);
	rl_limit_free(l);

	struct rl_limit *one = rl_limit_new("gcra", 1, RL_S(1), 0);
	assert_int_equal(rl_limit_set_shadow(one, true), RL_EINVAL);
	assert_int_equal(rl_limit_would_reject(one), 0);
	assert_null(rl_limit_policy(one));
	assert_int_equal(rl_limit_policy_at(one, 0, 1, &a), RL_EINVAL);
	/* the one-rule limiter takes costs too */
	assert_int_equal(rl_limit_allow_n_at(one, 0, 2, NULL), RL_REJECTED);
	assert_int_equal(rl_limit_allow_n_at(one, 0, 1, NULL), RL_ALLOWED);
	rl_limit_free(one);
}

/* A policy in an rl_store at its cap: fail open decides a new key as fresh, fail closed refuses it. */
static void store_full(void **u)
{
	(void)u;
	struct rl_policy p;
	struct rl_policy_limiter pl;
	char msg[256];
	struct rl_decision d;

	assert_int_equal(rl_policy_parse("1/1s+5/1h", &p, msg, sizeof(msg)), RL_OK);
	assert_int_equal(rl_policy_limiter_init(&pl, &rl_sliding_log_algo, &p, msg, sizeof(msg)), RL_OK);
	for (int mode = 0; mode < 2; mode++) {
		struct rl_store *s = NULL;
		struct rl_store_config cfg = { .limiter = rl_policy_as_limiter(&pl), .max_keys = 1,
					       .when_full = mode ? RL_FULL_FAIL_CLOSED : RL_FULL_FAIL_OPEN };
		assert_int_equal(rl_store_create(&s, &cfg), RL_OK);
		assert_int_equal(rl_store_check(s, "a", 1, 0, &d), RL_ALLOWED);
		assert_int_equal(rl_store_check(s, "a", 1, 0, &d), RL_REJECTED);
		assert_int_equal(rl_store_check(s, "b", 1, 0, &d), mode ? RL_REJECTED : RL_ALLOWED);
		assert_int_equal(d.retry_after_ns, mode ? 3600000000000LL : 0); /* closed: the longest window */
		struct rl_store_stats st;
		rl_store_stats(s, &st);
		assert_int_equal(st.keys, 1);
		assert_int_equal(st.full_decided, 1);
		rl_store_destroy(s);
	}
}

/* The HTTP fields of several policies in the draft's list form. */
static void http_list(void **u)
{
	(void)u;
	struct rl_http_policy hp[2] = { { "rpm", 60, RL_S(60) }, { "tpm", 90000, RL_S(60) } };
	struct rl_decision each[2] = { { 59, 0, RL_S(1), 0 }, { 0, 1500000001, RL_S(59), 0 } };
	struct rl_decision all = { 0, 1500000001, RL_S(59), 0 };
	char buf[512];

	assert_true(rl_http_headers_list(buf, sizeof(buf), hp, each, 2, RL_REJECTED, &all, RL_HTTP_LF) > 0);
	assert_string_equal(buf, "RateLimit-Policy: \"rpm\";q=60;w=60, \"tpm\";q=90000;w=60\n"
				 "RateLimit: \"rpm\";r=59;t=1, \"tpm\";r=0;t=59\n"
				 "Retry-After: 2\n");
	assert_true(rl_http_headers_list(buf, sizeof(buf), hp, each, 2, RL_ALLOWED, &all, RL_HTTP_LEGACY) > 0);
	assert_string_equal(buf, "RateLimit-Policy: \"rpm\";q=60;w=60, \"tpm\";q=90000;w=60\r\n"
				 "RateLimit: \"rpm\";r=59;t=1, \"tpm\";r=0;t=59\r\n"
				 "X-RateLimit-Limit: 90000\r\nX-RateLimit-Remaining: 0\r\nX-RateLimit-Reset: 59\r\n");
	assert_int_equal(rl_http_headers_list(buf, 40, hp, each, 2, RL_ALLOWED, &all, 0), RL_EFULL);
	assert_string_equal(buf, "");
	assert_int_equal(rl_http_headers_list(buf, sizeof(buf), hp, each, 0, RL_ALLOWED, &all, 0), RL_EINVAL);
	hp[1].name = "t\npm";
	assert_int_equal(rl_http_headers_list(buf, sizeof(buf), hp, each, 2, RL_ALLOWED, &all, 0), RL_EINVAL);
}

int main(void)
{
	const char *s;

	g_seed = m_seed_from_env(DEFAULT_SEED);
	if ((s = getenv("RL_TRACE")) && *s)
		g_only_trace = strtol(s, NULL, 0);
	if ((s = getenv("RL_TRACES")) && *s)
		g_traces = strtol(s, NULL, 0);
	printf("test_policy: seed=0x%llx traces=%ld (override with RL_SEED, RL_TRACE, RL_TRACES)\n",
	       (unsigned long long)g_seed, g_only_trace >= 0 ? 1 : g_traces);

	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_forms),	     cmocka_unit_test(parse_errors),
		cmocka_unit_test(state_sizes),	     cmocka_unit_test(hand_fixed_window),
		cmocka_unit_test(hand_units),	     cmocka_unit_test(limit_new_policy_errors),
		cmocka_unit_test(http_list),	     cmocka_unit_test(store_full),
		cmocka_unit_test(prop_token_bucket), cmocka_unit_test(prop_gcra), cmocka_unit_test(prop_gcra_fractional),
		cmocka_unit_test(prop_leaky_bucket), cmocka_unit_test(prop_fixed_window),
		cmocka_unit_test(prop_sliding_log),  cmocka_unit_test(prop_sliding_counter),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
