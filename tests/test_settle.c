/*
 * test_settle.c - costs settled after the response (settle.h): hand-worked
 * settles per algorithm, the argument checks, and every algorithm against
 * the slow models of model.h on seeded random traces of checks and
 * settles. The windows' model settle is the words of settle.h on the
 * list of admitted unit times: a charge adds units at the admission's
 * time, a refund removes them (never more than there are), within the
 * window the header names, for fixed_window and sliding_counter the
 * window's count kept in [0, N], for sliding_log the units in the window
 * at the key's last check at most 2 * N.
 * The buckets' is model.h's m_settle_bucket (tokens or queue at now, B
 * owed at most; gcra as its token bucket). After every operation the
 * state passes rl_limiter_state_check. Planted bugs (a model that
 * forgives debt, or owes without bound, or ignores settles) must
 * be caught on the same traces.
 * A failure prints the seed and the trace: RL_SEED=<seed> RL_TRACE=<i>.
 */
#include <stdarg.h>
#include <stdbool.h>
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

/* token_bucket 10/100 ns, B 4: one token per 10 ns. */
static void hand_token_bucket(void **u)
{
	(void)u;
	struct fx f;

	fx_init(&f, "token_bucket", 10, 100, 4);
	check_is(&f, 0, 3, RL_ALLOWED, 1);
	/* it cost 1: refund 2 at 5 (the level then 25 of 40): 3 tokens */
	assert_int_equal(rl_limiter_settle(&f.lim, f.st, 0, -2, 5), RL_OK);
	check_is(&f, 5, 1, RL_ALLOWED, 2);
	/* a refund beyond full stops at 4 tokens */
	assert_int_equal(rl_limiter_settle(&f.lim, f.st, 0, -50, 5), RL_OK);
	check_is(&f, 5, 4, RL_ALLOWED, 0);
	/* a charge of 6 at 5: -6 tokens; more than B owed is forgiven: -4 */
	assert_int_equal(rl_limiter_settle(&f.lim, f.st, 5, 6, 5), RL_OK);
	struct rl_decision d;
	assert_int_equal(rl_limiter_check_n(&f.lim, f.st, 5, 1, &d), RL_REJECTED);
	assert_int_equal(d.remaining, 0);
	assert_int_equal(d.retry_after_ns, 50);  /* -4 to 1 token: 5 refills */
	assert_int_equal(d.reset_ns, 80);        /* -4 to 4 */
	check_is(&f, 54, 1, RL_REJECTED, 0);
	check_is(&f, 55, 1, RL_ALLOWED, 0);
	/* admitted long ago: the refund still goes to the bucket as it is now */
	assert_int_equal(rl_limiter_settle(&f.lim, f.st, 0, -3, 55), RL_OK);
	check_is(&f, 55, 3, RL_ALLOWED, 0);
	/* a settle before the last seen time is at it: 1 back at 55 */
	assert_int_equal(rl_limiter_settle(&f.lim, f.st, 0, -1, 40), RL_OK);
	check_is(&f, 40, 1, RL_ALLOWED, 0);
	fx_free(&f);
}

/* leaky_bucket 10/100 ns, B 2: one unit served per 10 ns, 2 waiting. */
static void hand_leaky_bucket(void **u)
{
	(void)u;
	struct fx f;
	struct rl_decision d;

	fx_init(&f, "leaky_bucket", 10, 100, 2);
	check_is(&f, 0, 2, RL_ALLOWED, 1); /* level 2 units */
	assert_int_equal(rl_limiter_settle(&f.lim, f.st, 0, -1, 0), RL_OK);
	assert_int_equal(rl_limiter_check_n(&f.lim, f.st, 0, 1, &d), RL_ALLOWED);
	assert_int_equal(d.delay_ns, 10); /* behind 1 unit, not 2 */
	/* a charge of 9: 2 + 9 = 11 units, at most 2 * B + 1 = 5 */
	assert_int_equal(rl_limiter_settle(&f.lim, f.st, 0, 9, 0), RL_OK);
	assert_int_equal(rl_limiter_check_n(&f.lim, f.st, 0, 1, &d), RL_REJECTED);
	assert_int_equal(d.retry_after_ns, 30); /* 5 - 3 = 2 <= B */
	assert_int_equal(d.reset_ns, 50);
	check_is(&f, 30, 1, RL_ALLOWED, 0);
	/* a refund beyond the queue: idle */
	assert_int_equal(rl_limiter_settle(&f.lim, f.st, 30, -100, 30), RL_OK);
	assert_int_equal(rl_limiter_check_n(&f.lim, f.st, 30, 1, &d), RL_ALLOWED);
	assert_int_equal(d.delay_ns, 0);
	fx_free(&f);
}

/* gcra 10/100 ns, B 4: T 10, tau 30; debt cap 2 * (tau + T) = 80. */
static void hand_gcra(void **u)
{
	(void)u;
	struct fx f;
	struct rl_decision d;

	fx_init(&f, "gcra", 10, 100, 4);
	check_is(&f, 0, 2, RL_ALLOWED, 2); /* TAT 20 */
	assert_int_equal(rl_limiter_settle(&f.lim, f.st, 0, -5, 0), RL_OK); /* TAT not below now: 0 */
	check_is(&f, 0, 4, RL_ALLOWED, 0);                                    /* TAT 40 */
	assert_int_equal(rl_limiter_settle(&f.lim, f.st, 0, 7, 0), RL_OK);  /* 40 + 70, at most 80 */
	assert_int_equal(rl_limiter_check_n(&f.lim, f.st, 0, 1, &d), RL_REJECTED);
	assert_int_equal(d.remaining, 0);
	assert_int_equal(d.retry_after_ns, 50); /* debt - d <= tau */
	assert_int_equal(d.reset_ns, 80);
	assert_int_equal(rl_limiter_settle(&f.lim, f.st, 0, -3, 20), RL_OK); /* debt 60 - 30 */
	check_is(&f, 20, 1, RL_ALLOWED, 0);
	fx_free(&f);
}

/* The bounds: the deepest states a settle writes pass the state check (test_state_check
 * refuses one past them), and gcra's capped tolerance keeps TAT <= INT64_MAX. */
static void debt_bounds(void **u)
{
	(void)u;
	static const char *const buckets[] = { "token_bucket", "leaky_bucket", "gcra" };
	struct fx f;

	for (int i = 0; i < 3; i++) {
		/* a wide rule and the widest: B * W up to 10^27 */
		const int64_t rules[][3] = { { 10, 100, 4 }, { 1000000, 3600000000000LL, 10000000 },
					     { 1, 1000000000000000000LL, 1000000000 } };
		for (int r = 0; r < 3; r++) {
			fx_init(&f, buckets[i], rules[r][0], rules[r][1], rules[r][2]);
			for (int k = 0; k < 6; k++)
				assert_int_equal(rl_limiter_settle(&f.lim, f.st, RL_TIME_MAX_NS, RL_COST_MAX,
								   RL_TIME_MAX_NS), RL_OK);
			assert_int_equal(rl_limiter_state_check(&f.lim, f.st), RL_OK);
			struct rl_decision d;
			assert_int_equal(rl_limiter_check_n(&f.lim, f.st, RL_TIME_MAX_NS, 1, &d), RL_REJECTED);
			assert_int_equal(d.remaining, 0);
			assert_true(d.reset_ns > 0 && d.retry_after_ns > 0);
			assert_int_equal(rl_limiter_settled_reset_ns(&f.lim, f.st, RL_TIME_MAX_NS), d.reset_ns);
			for (int k = 0; k < 6; k++)
				assert_int_equal(rl_limiter_settle(&f.lim, f.st, 0, -RL_COST_MAX, RL_TIME_MAX_NS), RL_OK);
			assert_int_equal(rl_limiter_settled_reset_ns(&f.lim, f.st, RL_TIME_MAX_NS), 0);
			fx_free(&f);
		}
	}
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
	assert_memory_equal(before, f.st, f.lim.algo->state_size);
	/* a charge keeps the log at most 2 * N = 20 units: 17 more at most */
	assert_int_equal(rl_limiter_settle(&f.lim, f.st, 5, RL_COST_MAX, 6), RL_OK);
	assert_int_equal(((struct rl_sliding_log *)f.st)->log.total, 20);
	assert_int_equal(rl_limiter_state_check(&f.lim, f.st), RL_OK);
	assert_int_equal(rl_limiter_settle(&f.lim, f.st, 5, -17, 6), RL_OK);
	check_is(&f, 6, 8, RL_REJECTED, 7); /* the 3 of the request itself stay */
	assert_int_equal(rl_limiter_settle(&f.lim, f.st, 5, -RL_COST_MAX, 6), RL_OK); /* 3 at most */
	check_is(&f, 6, 10, RL_ALLOWED, 0);
	fx_free(&f);

	/* a run emptied in the middle of the log is dropped: every run keeps a unit */
	fx_init(&f, "sliding_log", 10, 100, 10);
	check_is(&f, 1, 2, RL_ALLOWED, 8);
	check_is(&f, 2, 3, RL_ALLOWED, 5);
	check_is(&f, 3, 1, RL_ALLOWED, 4);
	assert_int_equal(rl_limiter_settle(&f.lim, f.st, 2, -3, 3), RL_OK);
	assert_int_equal(((struct rl_sliding_log *)f.st)->log.len, 2);
	assert_int_equal(rl_limiter_state_check(&f.lim, f.st), RL_OK);
	check_is(&f, 101, 1, RL_ALLOWED, 8); /* the 2 at 1 left; the 1 at 3 stays */
	fx_free(&f);

	/* every algorithm with a fixed state settles */
	size_t count;
	const struct rl_algo *const *all = rl_algo_all(&count);
	for (size_t i = 0; i < count; i++)
		assert_true(rl_algo_settles(all[i]));
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
	if (m->kind == M_SLIDING_LOG) {
		/* the units in the window at the key's last check at most 2 * N */
		int64_t logged = 0;
		for (size_t i = 0; i < k->len; i++)
			logged += k->acc[i] > k->last - m->w ? k->units[i] : 0;
		if (delta > 0 && target - in > 2 * m->n - logged)
			target = in + (2 * m->n - logged > 0 ? 2 * m->n - logged : 0);
	}
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

/* A planted bug in the model's settle: the property check must see it. */
enum plant { PLANT_NONE, PLANT_NO_DEBT, PLANT_DEEP, PLANT_IGNORED };

static enum plant g_plant = PLANT_NONE;

struct prop_case {
	const char *algo_name;
	enum m_kind model;
};

/* The model's settle, with the planted bug if any. */
static void model_settle_any(const struct m_lim *m, struct m_key *k, int64_t adm, int64_t delta, int64_t t)
{
	if (g_plant == PLANT_IGNORED)
		return;
	if (m->kind == M_TOKEN_BUCKET || m->kind == M_LEAKY_BUCKET) {
		struct m_key before = *k;
		m_settle_bucket(m, k, delta, t);
		if (m->kind == M_TOKEN_BUCKET && g_plant == PLANT_NO_DEBT && k->tok_w < 0)
			k->tok_w = 0;
		if (m->kind == M_TOKEN_BUCKET && g_plant == PLANT_DEEP && delta > 0) {
			/* the charge taken whole, the debt's bound forgotten */
			m_i128 full = (m_i128)m->b * m->w, tok = full;
			if (before.tb_any) {
				tok = before.tok_w + (k->tb_at - before.tb_at) * m->n;
				tok = tok > full ? full : tok;
			}
			k->tok_w = tok - (m_i128)delta * m->w;
		}
		return;
	}
	model_settle(m, k, adm, delta, t);
}

/* One seeded trace; false (after printing it unless planted) when the implementation and the model part. */
static bool run_trace(const struct prop_case *pc, long trace)
{
	struct m_rng r = { g_seed ^ (0x9e3779b97f4a7c15ULL * (uint64_t)(trace + 1)) };
	struct fx f;
	struct m_key k = { 0 };
	int64_t n = m_rng_range(&r, 1, 12), w = m_rng_range(&r, 1, m_rng_range(&r, 0, 1) ? 20 : 1000);
	int bucket = pc->model == M_TOKEN_BUCKET || pc->model == M_LEAKY_BUCKET;
	int64_t b = bucket ? m_rng_range(&r, 1, 12) : n;
	/* gcra: its token bucket, N per W (T = W / N exactly, gcra.h) */
	struct m_lim m = { pc->model, n, w, b };
	int64_t admitted[64], costs[64];
	int nadm = 0;
	bool ok = true;

	fx_init(&f, pc->algo_name, n, w, b);
	int64_t t = m_rng_range(&r, 0, 1000);
	int nops = (int)m_rng_range(&r, 5, 80);
	for (int q = 0; q < nops && ok; q++) {
		t += m_rng_range(&r, 0, 3) ? m_rng_range(&r, 0, w / 3 + 1) : -m_rng_range(&r, 0, 2);
		t = t < 0 ? 0 : t;
		if (nadm && m_rng_range(&r, 0, 2) == 0) {
			int i = (int)m_rng_range(&r, 0, nadm - 1);
			int64_t adm = admitted[i];
			/* mostly a refund of at most what it took, or a charge; now and then beyond */
			int64_t delta = m_rng_range(&r, 0, 4) ? m_rng_range(&r, -costs[i], 2 * b)
							      : m_rng_range(&r, -3 * b, 3 * b);
			if (delta == 0)
				delta = 1;
			int64_t at = t < adm ? adm : t;
			int rc = rl_limiter_settle(&f.lim, f.st, adm, delta, at);
			if (rc != RL_OK)
				fail_msg("%s: settle(%lld, %+lld) at %lld: %d (seed 0x%llx trace %ld)", pc->algo_name,
					 (long long)adm, (long long)delta, (long long)at, rc, (unsigned long long)g_seed,
					 trace);
			if (rl_limiter_state_check(&f.lim, f.st) != RL_OK)
				fail_msg("%s: settle(%lld, %+lld) at %lld left a state the check refuses (seed 0x%llx "
					 "trace %ld)", pc->algo_name, (long long)adm, (long long)delta, (long long)at,
					 (unsigned long long)g_seed, trace);
			model_settle_any(&m, &k, adm, delta, at);
			continue;
		}
		int64_t cost = m_rng_range(&r, 0, 2) ? 1 : m_rng_range(&r, 1, b + 1);
		struct rl_decision d;
		struct m_answer a;
		int got = rl_limiter_check_n(&f.lim, f.st, t, cost, &d);
		int want = m_check_n(&m, &k, t, cost, &a);
		int64_t rem = d.remaining < 0 ? 0 : d.remaining; /* a model counts no debt */
		if (got != want || rem != a.remaining || d.retry_after_ns != a.retry_after_ns ||
		    d.reset_ns != a.reset_ns || (got == RL_ALLOWED && d.delay_ns != a.delay_ns)) {
			ok = false;
			if (g_plant != PLANT_NONE)
				break;
			print_error("MISMATCH %s N=%lld W=%lld B=%lld: seed=0x%llx trace=%ld (reproduce: RL_SEED=0x%llx "
				    "RL_TRACE=%ld)\n  op #%d at t=%lld cost %lld: impl %d rem %lld retry %lld reset %lld "
				    "delay %lld, model %d rem %lld retry %lld reset %lld delay %lld\n",
				    pc->algo_name, (long long)n, (long long)w, (long long)b, (unsigned long long)g_seed,
				    trace, (unsigned long long)g_seed, trace, q, (long long)t, (long long)cost, got,
				    (long long)d.remaining, (long long)d.retry_after_ns, (long long)d.reset_ns,
				    (long long)d.delay_ns, want, (long long)a.remaining, (long long)a.retry_after_ns,
				    (long long)a.reset_ns, (long long)a.delay_ns);
		}
		if (rl_limiter_state_check(&f.lim, f.st) != RL_OK)
			fail_msg("%s: a check left a state the check refuses (seed 0x%llx trace %ld)", pc->algo_name,
				 (unsigned long long)g_seed, trace);
		if (got == RL_ALLOWED && nadm < 64) {
			admitted[nadm] = a.t_eff;
			costs[nadm++] = cost;
		}
	}
	m_key_free(&k);
	fx_free(&f);
	return ok;
}

static void run_case(const struct prop_case *pc)
{
	for (long i = 0; i < g_traces; i++)
		if ((g_only_trace < 0 || g_only_trace == i) && !run_trace(pc, i))
			fail_msg("%s disagrees with its model (seed 0x%llx, trace %ld)", pc->algo_name,
				 (unsigned long long)g_seed, i);
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
PROP_TEST(prop_token_bucket, "token_bucket", M_TOKEN_BUCKET)
PROP_TEST(prop_leaky_bucket, "leaky_bucket", M_LEAKY_BUCKET)
PROP_TEST(prop_gcra, "gcra", M_TOKEN_BUCKET)

/* Each planted bug is caught by some trace of the same seed's run. */
static void planted_bugs(void **u)
{
	(void)u;
	static const struct {
		enum plant plant;
		struct prop_case pc;
	} plants[] = {
		{ PLANT_NO_DEBT, { "token_bucket", M_TOKEN_BUCKET } },
		{ PLANT_NO_DEBT, { "gcra", M_TOKEN_BUCKET } },
		{ PLANT_DEEP, { "token_bucket", M_TOKEN_BUCKET } },
		{ PLANT_IGNORED, { "leaky_bucket", M_LEAKY_BUCKET } },
		{ PLANT_IGNORED, { "sliding_log", M_SLIDING_LOG } },
	};

	for (size_t p = 0; p < sizeof(plants) / sizeof(plants[0]); p++) {
		long caught = -1;
		g_plant = plants[p].plant;
		for (long i = 0; i < g_traces && caught < 0; i++)
			if (!run_trace(&plants[p].pc, i))
				caught = i;
		g_plant = PLANT_NONE;
		if (caught < 0)
			fail_msg("planted bug %d in %s's model not caught in %ld traces (seed 0x%llx)", (int)plants[p].plant,
				 plants[p].pc.algo_name, g_traces, (unsigned long long)g_seed);
	}
}

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
		cmocka_unit_test(hand_sliding_counter), cmocka_unit_test(hand_token_bucket),
		cmocka_unit_test(hand_leaky_bucket),    cmocka_unit_test(hand_gcra),
		cmocka_unit_test(debt_bounds),          cmocka_unit_test(arguments),
		cmocka_unit_test(prop_fixed_window),    cmocka_unit_test(prop_sliding_log),
		cmocka_unit_test(prop_sliding_counter), cmocka_unit_test(prop_token_bucket),
		cmocka_unit_test(prop_leaky_bucket),    cmocka_unit_test(prop_gcra),
		cmocka_unit_test(planted_bugs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
