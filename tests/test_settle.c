/*
 * test_settle.c - costs settled after the response (settle.h): hand-worked
 * settles per algorithm, the argument checks, and fixed_window,
 * sliding_log and sliding_counter against the slow models of model.h on
 * seeded random traces of checks and settles. The model's settle is the
 * words of settle.h on its list of admitted unit times: a charge adds
 * units at the admission's time, a refund removes them (never more than
 * there are), within the window the header names, and for fixed_window
 * and sliding_counter the window's count kept in [0, N].
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

#include "limiter_fixture.h"
#include "model.h"
#include "ratelab/settle.h"
#include "ratelab/sliding_log.h"

#define DEFAULT_SEED 0x5e771eULL
#define DEFAULT_TRACES 400

static uint64_t g_seed;
static long g_only_trace = -1;
static long g_traces = DEFAULT_TRACES;

static void check_is(struct fx *f, int64_t t, int64_t c, int verdict, int64_t remaining)
{
	struct rl_decision d;

	assert_int_equal(rl_limiter_check_n(&f->lim, f->st, t, c, &d), verdict);
	assert_int_equal(d.remaining, remaining);
}

static void hand_fixed_window(void **u)
{
	(void)u;
	struct fx f;

	fx_init(&f, "fixed_window", 10, 100, 10);
	check_is(&f, 0, 8, RL_ALLOWED, 2);
	assert_int_equal(rl_limiter_settle(&f.lim, f.st, 0, -5, 10), RL_OK); /* it took 3 */
	check_is(&f, 20, 1, RL_ALLOWED, 6);
	assert_int_equal(rl_limiter_settle(&f.lim, f.st, 0, 50, 30), RL_OK); /* full: no more */
	check_is(&f, 40, 1, RL_REJECTED, 0);
	/* a settle after the window: nothing */
	assert_int_equal(rl_limiter_settle(&f.lim, f.st, 0, -10, 100), RL_OK);
	check_is(&f, 99, 1, RL_REJECTED, 0);
	check_is(&f, 100, 10, RL_ALLOWED, 0);
	fx_free(&f);
}

static void hand_sliding_log(void **u)
{
	(void)u;
	struct fx f;

	fx_init(&f, "sliding_log", 10, 100, 10);
	check_is(&f, 0, 4, RL_ALLOWED, 6);
	check_is(&f, 10, 4, RL_ALLOWED, 2);
	/* the request at 10 cost 9: 5 more, the window owes 3 */
	assert_int_equal(rl_limiter_settle(&f.lim, f.st, 10, 5, 20), RL_OK);
	check_is(&f, 20, 1, RL_REJECTED, 0); /* in debt by 3: nothing remains */
	/* the 4 at 0 leave at 100: 9 left, one fits */
	check_is(&f, 100, 1, RL_ALLOWED, 0);
	/* refund the one at 100 entirely, and more than it took: 1 only */
	assert_int_equal(rl_limiter_settle(&f.lim, f.st, 100, -7, 100), RL_OK);
	check_is(&f, 100, 1, RL_ALLOWED, 0);
	/* the request at 0 has left the window: nothing */
	assert_int_equal(rl_limiter_settle(&f.lim, f.st, 0, -4, 100), RL_OK);
	check_is(&f, 100, 1, RL_REJECTED, 0);
	/* no run at 50: nothing */
	assert_int_equal(rl_limiter_settle(&f.lim, f.st, 50, -4, 100), RL_OK);
	check_is(&f, 100, 1, RL_REJECTED, 0);
	fx_free(&f);
}

static void hand_sliding_counter(void **u)
{
	(void)u;
	struct fx f;

	fx_init(&f, "sliding_counter", 10, 100, 10);
	check_is(&f, 50, 10, RL_ALLOWED, 0);
	/* refund 6 while the window is the previous one (at 150: prev 4, half weight) */
	assert_int_equal(rl_limiter_settle(&f.lim, f.st, 50, -6, 150), RL_OK);
	check_is(&f, 150, 8, RL_ALLOWED, 0); /* 4 * 50 + 7 * 100 < 1000 */
	/* two windows on: nothing */
	assert_int_equal(rl_limiter_settle(&f.lim, f.st, 50, 9, 250), RL_OK);
	check_is(&f, 300, 10, RL_ALLOWED, 0);
	fx_free(&f);
}

static void arguments(void **u)
{
	(void)u;
	struct fx f;
	unsigned char before[64];

	fx_init(&f, "sliding_log", 10, 100, 10);
	check_is(&f, 5, 3, RL_ALLOWED, 7);
	memcpy(before, f.st, f.lim.algo->state_size);
	assert_int_equal(rl_limiter_settle(&f.lim, f.st, 5, 0, 6), RL_EINVAL);
	assert_int_equal(rl_limiter_settle(&f.lim, f.st, 5, RL_COST_MAX + 1, 6), RL_EINVAL);
	assert_int_equal(rl_limiter_settle(&f.lim, f.st, 5, -RL_COST_MAX - 1, 6), RL_EINVAL);
	assert_int_equal(rl_limiter_settle(&f.lim, f.st, -1, 1, 6), RL_ERANGE);
	assert_int_equal(rl_limiter_settle(&f.lim, f.st, 5, 1, RL_TIME_MAX_NS + 1), RL_ERANGE);
	assert_int_equal(rl_limiter_settle(&f.lim, f.st, 7, 1, 6), RL_ERANGE);
	/* charges up to RL_SLIDING_LOG_UNITS_MAX (2^52) units in all, 3 held: 4503 of 10^12 */
	int charged = 0;
	while (rl_limiter_settle(&f.lim, f.st, 5, RL_COST_MAX, 6) == RL_OK)
		charged++;
	assert_int_equal(charged, (int)((RL_SLIDING_LOG_UNITS_MAX - 3) / RL_COST_MAX));
	assert_int_equal(rl_limiter_settle(&f.lim, f.st, 5, (int64_t)(RL_SLIDING_LOG_UNITS_MAX - 3) % RL_COST_MAX, 6),
			 RL_OK); /* exactly at the most */
	assert_int_equal(rl_limiter_settle(&f.lim, f.st, 5, 1, 6), RL_EINVAL); /* one past it */
	assert_int_equal(rl_limiter_state_check(&f.lim, f.st), RL_OK);
	assert_int_equal(rl_limiter_settle(&f.lim, f.st, 5, -(int64_t)(RL_SLIDING_LOG_UNITS_MAX - 3) % RL_COST_MAX, 6),
			 RL_OK);
	for (int i = 0; i < charged; i++)
		assert_int_equal(rl_limiter_settle(&f.lim, f.st, 5, -RL_COST_MAX, 6), RL_OK);
	check_is(&f, 6, 8, RL_REJECTED, 7); /* the 3 of the request itself stay */
	assert_int_equal(rl_limiter_settle(&f.lim, f.st, 5, -RL_COST_MAX, 6), RL_OK); /* 3 at most */
	check_is(&f, 6, 10, RL_ALLOWED, 0);
	(void)before;
	fx_free(&f);

	static const char *const none[] = { "token_bucket", "gcra", "leaky_bucket" };
	for (int i = 0; i < 3; i++) {
		fx_init(&f, none[i], 10, 100, 10);
		assert_false(rl_algo_settles(f.lim.algo));
		check_is(&f, 0, 1, RL_ALLOWED, none[i][0] == 'l' ? 10 : 9);
		memcpy(before, f.st, f.lim.algo->state_size);
		assert_int_equal(rl_limiter_settle(&f.lim, f.st, 0, -1, 1), RL_EINVAL);
		assert_memory_equal(before, f.st, f.lim.algo->state_size);
		fx_free(&f);
	}
}

/* ------------------------------------------------------------------ */
/* Against the models.                                                 */

/* settle.h's words on the model's list of admitted unit times. */
static void model_settle(const struct m_lim *m, struct m_key *k, int64_t adm, int64_t delta, int64_t t)
{
	m_i128 now = k->seen && t < k->last ? k->last : t;
	m_i128 lo, hi; /* the window whose units change: [lo, hi) */
	int capped = m->kind != M_SLIDING_LOG;

	if (m->kind == M_SLIDING_LOG) {
		if (adm <= now - m->w)
			return;
		lo = adm;
		hi = adm + 1;
	} else {
		m_i128 wa = m_floor_div(adm, m->w), wn = m_floor_div(now, m->w);
		if (wa != wn && !(m->kind == M_SLIDING_COUNTER && wa == wn - 1))
			return;
		lo = wa * m->w;
		hi = lo + m->w;
	}
	int64_t at_adm = 0, in = 0;
	for (size_t i = 0; i < k->len; i++) {
		at_adm += (k->acc[i] == adm) * k->units[i];
		in += (k->acc[i] >= lo && k->acc[i] < hi) * k->units[i];
	}
	if (m->kind == M_SLIDING_LOG && at_adm == 0)
		return; /* nothing admitted then */
	int64_t target = in + delta;
	if (target < 0)
		target = 0;
	if (capped && target > m->n)
		target = m->n;
	if (in < target) {
		m_push_n(k, adm, target - in);
		in = target;
	}
	for (size_t i = k->len; i-- > 0 && in > target;) {
		if (k->acc[i] >= lo && k->acc[i] < hi) {
			int64_t take = k->units[i] < in - target ? k->units[i] : in - target;
			k->units[i] -= take;
			in -= take;
			if (k->units[i] == 0) {
				k->acc[i] = k->acc[--k->len];
				k->units[i] = k->units[k->len];
			}
		}
	}
}

struct prop_case {
	const char *algo_name;
	enum m_kind model;
};

static void run_trace(const struct prop_case *pc, long trace)
{
	struct m_rng r = { g_seed ^ (0x9e3779b97f4a7c15ULL * (uint64_t)(trace + 1)) };
	struct fx f;
	struct m_key k = { 0 };
	int64_t n = m_rng_range(&r, 1, 12), w = m_rng_range(&r, 1, m_rng_range(&r, 0, 1) ? 20 : 1000);
	struct m_lim m = { pc->model, n, w, n };
	int64_t admitted[64];
	int nadm = 0;

	fx_init(&f, pc->algo_name, n, w, n);
	int64_t t = m_rng_range(&r, 0, 1000);
	int nops = (int)m_rng_range(&r, 5, 80);
	for (int q = 0; q < nops; q++) {
		t += m_rng_range(&r, 0, 3) ? m_rng_range(&r, 0, w / 3 + 1) : -m_rng_range(&r, 0, 2);
		t = t < 0 ? 0 : t;
		if (nadm && m_rng_range(&r, 0, 2) == 0) {
			int64_t adm = admitted[m_rng_range(&r, 0, nadm - 1)];
			int64_t delta = m_rng_range(&r, -2 * n, 2 * n);
			if (delta == 0)
				delta = 1;
			int64_t at = t < adm ? adm : t;
			int rc = rl_limiter_settle(&f.lim, f.st, adm, delta, at);
			if (rc != RL_OK)
				fail_msg("%s: settle(%lld, %+lld) at %lld: %d (seed 0x%llx trace %ld)", pc->algo_name,
					 (long long)adm, (long long)delta, (long long)at, rc, (unsigned long long)g_seed,
					 trace);
			model_settle(&m, &k, adm, delta, at);
			continue;
		}
		int64_t cost = m_rng_range(&r, 0, 2) ? 1 : m_rng_range(&r, 1, n + 1);
		struct rl_decision d;
		struct m_answer a;
		int got = rl_limiter_check_n(&f.lim, f.st, t, cost, &d);
		int want = m_check_n(&m, &k, t, cost, &a);
		int64_t rem = d.remaining < 0 ? 0 : d.remaining; /* a model counts no debt */
		if (got != want || rem != a.remaining || d.retry_after_ns != a.retry_after_ns ||
		    d.reset_ns != a.reset_ns) {
			print_error("MISMATCH %s N=%lld W=%lld: seed=0x%llx trace=%ld (reproduce: RL_SEED=0x%llx "
				    "RL_TRACE=%ld)\n  op #%d at t=%lld cost %lld: impl %d rem %lld retry %lld reset %lld, "
				    "model %d rem %lld retry %lld reset %lld\n",
				    pc->algo_name, (long long)n, (long long)w, (unsigned long long)g_seed, trace,
				    (unsigned long long)g_seed, trace, q, (long long)t, (long long)cost, got,
				    (long long)d.remaining, (long long)d.retry_after_ns, (long long)d.reset_ns, want,
				    (long long)a.remaining, (long long)a.retry_after_ns, (long long)a.reset_ns);
			fail_msg("%s disagrees with its model (seed 0x%llx, trace %ld)", pc->algo_name,
				 (unsigned long long)g_seed, trace);
		}
		if (got == RL_ALLOWED && nadm < 64)
			admitted[nadm++] = a.t_eff;
	}
	m_key_free(&k);
	fx_free(&f);
}

static void run_case(const struct prop_case *pc)
{
	for (long i = 0; i < g_traces; i++)
		if (g_only_trace < 0 || g_only_trace == i)
			run_trace(pc, i);
}

#define PROP_TEST(fn, algo, model)                                      \
	static void fn(void **unused)                                   \
	{                                                               \
		static const struct prop_case pc = { algo, model };     \
		(void)unused;                                           \
		run_case(&pc);                                          \
	}

PROP_TEST(prop_fixed_window, "fixed_window", M_FIXED_WINDOW)
PROP_TEST(prop_sliding_log, "sliding_log", M_SLIDING_LOG)
PROP_TEST(prop_sliding_counter, "sliding_counter", M_SLIDING_COUNTER)

int main(void)
{
	const char *s;

	g_seed = m_seed_from_env(DEFAULT_SEED);
	if ((s = getenv("RL_TRACE")) && *s)
		g_only_trace = strtol(s, NULL, 0);
	if ((s = getenv("RL_TRACES")) && *s)
		g_traces = strtol(s, NULL, 0);
	printf("test_settle: seed=0x%llx traces=%ld (override with RL_SEED, RL_TRACE, RL_TRACES)\n",
	       (unsigned long long)g_seed, g_only_trace >= 0 ? 1 : g_traces);

	const struct CMUnitTest tests[] = {
		cmocka_unit_test(hand_fixed_window), cmocka_unit_test(hand_sliding_log),
		cmocka_unit_test(hand_sliding_counter), cmocka_unit_test(arguments),
		cmocka_unit_test(prop_fixed_window), cmocka_unit_test(prop_sliding_log),
		cmocka_unit_test(prop_sliding_counter),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
