/*
 * test_theory.c - sim_theory_reject (theory.h) against independent values:
 * published Erlang B table entries and the Erlang B formula summed
 * directly; M/D/1/K blocking from the departure chain's full transition
 * matrix solved by Gaussian elimination in long double (a second method:
 * no recursion, no tail, no closure); the fixed window's E[(X - N)+] / E[X]
 * summed term by term; and the properties every closed form must have
 * (monotone in load and in N or B, the mappings between algorithms, the
 * limits for a huge B, no overflow at N = 10^6 and 10000% load).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "theory.h"

#define SEC 1000000000LL

/* The rejection probability of algo at load (a fraction of N per W); fails the test if none. */
static double reject(const char *algo, uint64_t n, int64_t w_ns, uint64_t b, double load)
{
	double p = -1, lambda = load * (double)n / ((double)w_ns / 1e9);

	if (!sim_theory_reject(algo, n, w_ns, b, lambda, &p))
		fail_msg("%s N=%llu W=%lld B=%llu load=%g: no value", algo, (unsigned long long)n,
			 (long long)w_ns, (unsigned long long)b, load);
	assert_true(p >= 0 && p <= 1);
	return p;
}

static void assert_rel(double got, long double want, double tol, const char *what)
{
	double err = fabs((double)(((long double)got - want) / want));

	if (!(err <= tol))
		fail_msg("%s: got %.17g, want %.17Lg (relative error %.3g > %.3g)", what, got, want, err, tol);
}

/* Erlang B(n, a) = (a^n / n!) / sum_{k<=n} a^k / k!, summed directly. */
static long double erlang_direct(int n, long double a)
{
	long double term = 1, sum = 1;

	for (int k = 1; k <= n; k++) {
		term *= a / k;
		sum += term;
	}
	return term / sum;
}

static void test_erlang_b_tables(void **state)
{
	(void)state;
	/* Erlang B(10, 5 Erlang) = 0.0183846 (every Erlang B table) */
	assert_rel(reject("sliding_log", 10, SEC, 0, 0.5), 0.0183845703366481331L, 1e-12, "B(10, 5)");
	/* small cases by hand: B(1, 1) = 1/2, B(2, 1) = 1/5, B(5, 2) = 4/109 */
	assert_rel(reject("sliding_log", 1, SEC, 0, 1.0), 0.5L, 1e-15, "B(1, 1)");
	assert_rel(reject("sliding_log", 2, SEC, 0, 0.5), 0.2L, 1e-15, "B(2, 1)");
	assert_rel(reject("sliding_log", 5, SEC, 0, 0.4), 4.0L / 109, 1e-14, "B(5, 2)");
	/* the 1% grade-of-service column: N = 10, 20, 50, 100 at 4.46, 12.03, 37.90, 84.06 Erlang */
	static const struct { int n; double a; } gos[] = { { 10, 4.46 }, { 20, 12.03 }, { 50, 37.90 }, { 100, 84.06 } };
	for (size_t i = 0; i < sizeof(gos) / sizeof(gos[0]); i++) {
		double p = reject("sliding_log", (uint64_t)gos[i].n, SEC, 0, gos[i].a / gos[i].n);
		assert_rel(p, 0.01L, 2e-3, "1% grade of service");
		assert_rel(p, erlang_direct(gos[i].n, gos[i].a), 1e-12, "B by direct sum");
	}
	/* a window of 2 s: A = lambda W */
	assert_rel(reject("sliding_log", 10, 2 * SEC, 0, 0.5), 0.0183845703366481331L, 1e-12, "B(10, 5), W = 2 s");
}

/*
 * M/D/1/K blocking by the second method: the departure chain's K x K
 * matrix (from 0 and from 1 the same row: a_{j}, a_{j-i+1}; the last
 * column takes the rest) solved for pi by Gaussian elimination with partial
 * pivoting, then P = 1 - 1 / (pi_0 + rho).
 */
static long double mdk_direct(int k, long double rho)
{
	enum { KMAX = 16 };
	long double a[KMAX + 1], m[KMAX][KMAX + 1], pi[KMAX];

	assert_true(k >= 1 && k <= KMAX);
	a[0] = expl(-rho);
	for (int i = 1; i <= k; i++)
		a[i] = a[i - 1] * rho / i;
	/* rows: the balance equations pi (P - I) = 0 for states 0 .. k-2, then sum pi = 1 */
	for (int j = 0; j < k; j++) {
		for (int i = 0; i < k; i++) {
			int base = i ? i : 1;
			long double pij = 0;
			if (j < k - 1) {
				pij = j - base + 1 >= 0 ? a[j - base + 1] : 0;
			} else {
				pij = 1;
				for (int l = 0; l < k - 1; l++)
					pij -= l - base + 1 >= 0 ? a[l - base + 1] : 0;
			}
			m[j][i] = pij - (i == j ? 1 : 0);
		}
		m[j][k] = 0;
	}
	for (int i = 0; i < k; i++)
		m[k - 1][i] = 1;
	m[k - 1][k] = 1;
	for (int c = 0; c < k; c++) {
		int p = c;
		for (int r = c + 1; r < k; r++)
			if (fabsl(m[r][c]) > fabsl(m[p][c]))
				p = r;
		for (int i = 0; i <= k; i++) {
			long double t = m[c][i];
			m[c][i] = m[p][i];
			m[p][i] = t;
		}
		for (int r = 0; r < k; r++) {
			if (r == c)
				continue;
			long double f = m[r][c] / m[c][c];
			for (int i = c; i <= k; i++)
				m[r][i] -= f * m[c][i];
		}
	}
	for (int i = 0; i < k; i++)
		pi[i] = m[i][k] / m[i][i];
	return 1 - 1 / (pi[0] + rho);
}

static void test_mdk_second_method(void **state)
{
	static const double loads[] = { 0.05, 0.3, 0.5, 0.8, 0.95, 1.0, 1.05, 1.2, 1.5, 3.0, 10.0 };
	char what[96];

	(void)state;
	for (int k = 1; k <= 12; k++)
		for (size_t i = 0; i < sizeof(loads) / sizeof(loads[0]); i++) {
			long double want = mdk_direct(k, loads[i]);
			/* the second method's 1 - 1 / x keeps ~1e-19 / want of relative precision */
			if (want < 1e-8L)
				continue;
			snprintf(what, sizeof(what), "token_bucket K=%d load=%g", k, loads[i]);
			assert_rel(reject("token_bucket", 10, SEC, (uint64_t)k, loads[i]), want, 1e-9, what);
			snprintf(what, sizeof(what), "leaky_bucket B=%d load=%g", k - 1, loads[i]);
			if (k > 1)
				assert_rel(reject("leaky_bucket", 10, SEC, (uint64_t)k - 1, loads[i]), want, 1e-9, what);
			snprintf(what, sizeof(what), "gcra K=%d load=%g", k, loads[i]);
			assert_rel(reject("gcra", 10, SEC, (uint64_t)k, loads[i]), want, 1e-9, what);
		}
	/* K = 1: blocked iff busy, rho / (1 + rho) */
	assert_rel(reject("token_bucket", 10, SEC, 1, 0.25), 0.2L, 1e-15, "M/D/1/1");
	/* values far below 1e-12, where 1 - 1 / x cannot be used, against mpmath (50 digits) */
	assert_rel(reject("token_bucket", 10, SEC, 10, 0.5), 4.057159845955983399938e-6L, 1e-12, "K=10 load 0.5");
	/* large K (the geometric closure at work), against the textbook recursion
	 * q_{j+1} = (q_j - a_j - sum_{i=1}^{j} q_i a_{j-i+1}) / a_0 run by mpmath at 400
	 * digits, where its cancellation is harmless */
	assert_rel(reject("token_bucket", 10, SEC, 200, 0.99), 1.865302925732860321447e-4L, 1e-9, "K=200 0.99");
	assert_rel(reject("token_bucket", 10, SEC, 500, 1.0), 1.000333444481493831277e-3L, 1e-9, "K=500 1.0");
	assert_rel(reject("token_bucket", 10, SEC, 300, 1.01), 9.926172282023168255384e-3L, 1e-9, "K=300 1.01");
	assert_rel(reject("token_bucket", 10, SEC, 100, 0.9), 1.15804721142894861946e-10L, 1e-9, "K=100 0.9");
	assert_rel(reject("token_bucket", 10, SEC, 40, 0.5), 1.731354814783863200352e-22L, 1e-9, "K=40 0.5");
	assert_rel(reject("token_bucket", 10, SEC, 12, 0.3), 4.9233908909600256181e-11L, 1e-12, "K=12 load 0.3");
	assert_rel(reject("token_bucket", 10, SEC, 30, 0.999), 0.01627539026132423646L, 1e-9, "K=30 load 0.999");
}

/* E[(X - n)+] / m, X ~ Poisson(m), summed term by term from p_0 = e^-m (m <= 700). */
static long double fixed_direct(int n, long double m)
{
	long double p = expl(-m), e = 0;

	for (int k = 0; k < n + 2000; k++) {
		if (k > n)
			e += (k - n) * p;
		p *= m / (k + 1);
	}
	return e / m;
}

static void test_fixed_window_sum(void **state)
{
	static const int ns[] = { 1, 2, 10, 100 };
	static const double loads[] = { 0.01, 0.5, 0.9, 1.0, 1.1, 1.5, 3.0 };
	char what[80];

	(void)state;
	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
		for (size_t j = 0; j < sizeof(loads) / sizeof(loads[0]); j++) {
			long double want = fixed_direct(ns[i], (long double)ns[i] * loads[j]);
			if (want < 1e-250L)
				continue;
			snprintf(what, sizeof(what), "fixed_window N=%d load=%g", ns[i], loads[j]);
			assert_rel(reject("fixed_window", (uint64_t)ns[i], SEC, 0, loads[j]), want, 1e-11, what);
		}
	/* mpmath, 40 digits: N = 10 at 10 per window */
	assert_rel(reject("fixed_window", 10, SEC, 0, 1.0), 0.12511003572113329898L, 1e-13, "N=10 m=10");
}

static void test_monotone(void **state)
{
	static const char *const algos[] = { "token_bucket", "gcra", "leaky_bucket", "fixed_window", "sliding_log" };

	(void)state;
	for (size_t a = 0; a < sizeof(algos) / sizeof(algos[0]); a++) {
		double last = 0;
		/* in load, 1% .. 10000% */
		for (double load = 0.01; load <= 100; load *= 1.25) {
			double p = reject(algos[a], 20, SEC, 5, load);
			if (p < last)
				fail_msg("%s: %.17g at load %g below %.17g", algos[a], p, load, last);
			last = p;
		}
		/* in N (burst N) at a fixed load: more slots, fewer rejections */
		last = 1;
		for (uint64_t n = 1; n <= 200; n = n * 3 / 2 + 1) {
			double p = reject(algos[a], n, SEC, 0, 0.9);
			if (p > last)
				fail_msg("%s: %.17g at N=%llu above %.17g", algos[a], p, (unsigned long long)n, last);
			last = p;
		}
	}
	/* in B for the buckets, and towards the M/D/1 limits: 0 below the limit, 1 - 1/rho above */
	double last = 1;
	for (uint64_t b = 1; b <= 1000000000; b *= 10) {
		double p = reject("token_bucket", 10, SEC, b, 1.0);
		assert_true(p <= last);
		last = p;
	}
	assert_true(reject("token_bucket", 10, SEC, 1000000000, 0.99) == 0);
	assert_rel(reject("token_bucket", 10, SEC, 1000000000, 1.25), 0.2L, 1e-12, "B=1e9 load 1.25");
	assert_rel(reject("leaky_bucket", 10, SEC, 1000000, 2.0), 0.5L, 1e-12, "B=1e6 load 2");
}

static void test_mappings(void **state)
{
	(void)state;
	/* burst 0 is B = N */
	assert_true(reject("token_bucket", 7, SEC, 0, 0.9) == reject("token_bucket", 7, SEC, 7, 0.9));
	/* leaky_bucket with B is token_bucket with B + 1 */
	assert_true(reject("leaky_bucket", 10, SEC, 4, 1.1) == reject("token_bucket", 10, SEC, 5, 1.1));
	/* gcra is token_bucket, N dividing W or not (T = W / N exactly, gcra.h) */
	assert_true(reject("gcra", 10, SEC, 4, 0.9) == reject("token_bucket", 10, SEC, 4, 0.9));
	assert_true(reject("gcra", 3, 10, 2, 0.9) == reject("token_bucket", 3, 10, 2, 0.9));
	assert_true(reject("gcra", 7, SEC, 7, 1.1) == reject("token_bucket", 7, SEC, 7, 1.1));
	/* the window algorithms ignore the burst */
	assert_true(reject("fixed_window", 10, SEC, 3, 0.9) == reject("fixed_window", 10, SEC, 0, 0.9));
	assert_true(reject("sliding_log", 10, SEC, 3, 0.9) == reject("sliding_log", 10, SEC, 0, 0.9));
	/* per W: only lambda W matters */
	assert_rel(reject("sliding_log", 10, 60 * SEC, 0, 0.9), reject("sliding_log", 10, SEC, 0, 0.9), 1e-14, "W");
}

static void test_extremes(void **state)
{
	static const char *const algos[] = { "token_bucket", "gcra", "leaky_bucket", "fixed_window", "sliding_log" };

	(void)state;
	for (size_t a = 0; a < sizeof(algos) / sizeof(algos[0]); a++) {
		/* at 10000% nearly all is rejected: 1 - 1/100 in the long run, within the burst's share */
		double hi = reject(algos[a], 1000000, SEC, 0, 100.0);
		assert_true(hi > 0.98 && hi < 1);
		assert_true(reject(algos[a], 1000000, SEC, 0, 0.01) < 1e-200);
		assert_true(reject(algos[a], 1, 1, 1000000000, 100.0) > 0.98);
	}
	/* Erlang B(N, N) ~ sqrt(2 / (pi N)) for large N */
	assert_rel(reject("sliding_log", 1000000, SEC, 0, 1.0), sqrtl(2.0L / (3.14159265358979323846L * 1e6L)),
		   1e-3, "B(1e6, 1e6)");
	/* far below the limit, the leading terms: M/D/1/2 rho^2 / 2 (two in one service time,
	 * the second lost), Erlang B(2, A) ~ A^2 / 2, the fixed window's E[(X - 1)+] / m ~ m / 2 */
	assert_rel(reject("token_bucket", 10, SEC, 2, 1e-12), 5e-25L, 1e-9, "M/D/1/2 at 1e-12");
	assert_rel(reject("sliding_log", 2, SEC, 0, 1e-12), 2e-24L, 1e-9, "B(2, 2e-12)");
	assert_rel(reject("fixed_window", 1, SEC, 0, 1e-15), 5e-16L, 1e-9, "fixed N=1 at 1e-15");
	/* fixed window far beyond the limit: 1 - N / m */
	assert_rel(reject("fixed_window", 1000000, SEC, 0, 100.0), 0.99L, 1e-12, "fixed 10000%");
}

static void test_refused(void **state)
{
	double p = 0.5;

	(void)state;
	assert_false(sim_theory_reject("sliding_counter", 10, SEC, 0, 10, &p));
	assert_false(sim_theory_reject("no_such", 10, SEC, 0, 10, &p));
	assert_false(sim_theory_reject(NULL, 10, SEC, 0, 10, &p));
	assert_false(sim_theory_reject("token_bucket", 10, SEC, 0, 10, NULL));
	assert_false(sim_theory_reject("token_bucket", 0, SEC, 0, 10, &p));
	assert_false(sim_theory_reject("token_bucket", 1000001, SEC, 0, 10, &p));
	assert_false(sim_theory_reject("token_bucket", 10, 0, 0, 10, &p));
	assert_false(sim_theory_reject("token_bucket", 10, SEC, 1000000001, 10, &p));
	assert_false(sim_theory_reject("token_bucket", 10, SEC, 0, 0, &p));
	assert_false(sim_theory_reject("token_bucket", 10, SEC, 0, -1, &p));
	assert_false(sim_theory_reject("token_bucket", 10, SEC, 0, NAN, &p));
	assert_false(sim_theory_reject("token_bucket", 10, SEC, 0, INFINITY, &p));
	/* loads outside [1e-15, 1e6] of N per W */
	assert_false(sim_theory_reject("sliding_log", 10, SEC, 0, 10 * 1e-16, &p));
	assert_false(sim_theory_reject("fixed_window", 10, SEC, 0, 10 * 2e6, &p));
	assert_true(sim_theory_reject("fixed_window", 10, SEC, 0, 10 * 1e6, &p));
	p = 0.5;
	assert_true(p == 0.5); /* untouched */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_erlang_b_tables),  cmocka_unit_test(test_mdk_second_method),
		cmocka_unit_test(test_fixed_window_sum), cmocka_unit_test(test_monotone),
		cmocka_unit_test(test_mappings),         cmocka_unit_test(test_extremes),
		cmocka_unit_test(test_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
