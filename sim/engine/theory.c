/*
 * theory.c - the closed forms of theory.h. Model, per algorithm, for cost-1
 * requests arriving as a Poisson process of rate lambda on one key, with
 * the rule N per W and burst B:
 *
 *   token_bucket  the missing tokens times W / N is the unfinished work of a
 *                 single server with service time D = W / N, and a request is
 *                 admitted iff that work is <= (B - 1) D, i.e. iff fewer
 *                 than B are "in the system": M/D/1/K with K = B;
 *   gcra          the same with D = T = W / N exactly (gcra.h) and B cut to
 *                 floor(tau_max / T) + 1 when the tolerance is capped;
 *   leaky_bucket  admitted iff the wait is <= B D: at most B waiting behind
 *                 the one in service, M/D/1/K with K = B + 1;
 *   sliding_log   every admission holds one of N slots for exactly W, so it
 *                 is the M/D/N/N loss system, whose blocking is by
 *                 insensitivity Erlang B(N, A), A = lambda W;
 *   fixed_window  X ~ Poisson(m = lambda W) arrivals per aligned window, of
 *                 which (X - N)+ are rejected (rejected ones count nothing):
 *                 E[(X - N)+] / m;
 *   sliding_counter  no closed form (false).
 *
 * M/D/1/K, rho = lambda D. Its chain at departure epochs has states
 * 0 .. K - 1; a_k = e^-rho rho^k / k! (k arrivals in one service) and
 * abar_k = sum_{l >= k} a_l. Level crossing across the cut between j - 1
 * and j (down only from j, up from every i < j) gives, with q_0 = 1,
 *     q_j a_0 = q_0 abar_j + sum_{i=1}^{j-1} q_i abar_{j-i+1}     (j >= 1),
 * a recursion of positive terms only (no cancellation, unlike the textbook
 * one), the same for every K >= j + 1 and for the infinite M/D/1 chain.
 * With pi_0 = 1 / sum_{j<K} q_j the blocking is P = 1 - 1 / (pi_0 + rho).
 * For rho < 1 that subtraction would cancel, so P is taken from the tail of
 * the infinite chain instead: T = (1 - rho) sum_{j>=K} q_j = P(Q >= K) and
 * P = (1 - rho) T / (1 - rho T). For rho >= 1, P = (pi_0 + rho - 1) /
 * (pi_0 + rho). The q_j approach C r^j, r = e^-y where y != 0 solves
 * expm1(y) / y = 1 / rho (y = ln x for the real root x != 1 of
 * x = e^{rho (x - 1)}; y = 0 at rho = 1), with the other roots' transients
 * dying geometrically: once q_j / q_{j-1} equals r to 1e-12 for a whole
 * convolution width, the rest of the sums is closed geometrically (at any
 * K, up to 10^9). The convolution is cut at width M where
 * abar_{M+1} e^{M max(y,0)} < e^-100 (the neglected terms, relative).
 *
 * Error (u = 2^-53): Poisson probabilities by Loader's saddle-point form
 * (stirlerr, bd0), relative error below 1e-13. Erlang B by the recursion
 * B(0) = 1, B(n) = A B(n-1) / (n + A B(n-1)), each step of condition
 * number <= 1: relative error <= 3 N u (4e-10 at N = 10^6). Fixed window:
 * sums of positive terms, relative error below 1e-12. M/D/1/K: the
 * positive recursion adds at most (M + 3) u of relative error per step, so
 * <= J (M + 3) u after J steps (J is a few thousand at most in the
 * documented range: the ratio converges fast), plus 1e-12 from the
 * geometric closure: below 1e-9 in all. A probability below 1e-290 may be
 * returned as 0.
 */
#include "theory.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ratelab/gcra.h"
#include "ratelab/rule.h"

#define RHO_MIN 1e-15 /* the offered load lambda W / N accepted, a fraction */
#define RHO_MAX 1e6
#define TINY 1e-290      /* probabilities below this may come out as 0 */
#define RHO_CLOSED 40.0  /* above: pi_0 <= e^-rho is below every rounding */
#define AMAX 1024        /* Poisson terms kept for rho < RHO_CLOSED */
#define STEPS_MAX 10000000L /* M/D/1/K recursion steps: never reached in range */
#define LN_SQRT_2PI 0.918938533204672741780329736406
#define LN_2PI 1.83787706640934548356065947281

/* ln n! - ((n + 1/2) ln n - n + ln sqrt(2 pi)): Stirling's error, n >= 1. */
static double stirlerr(double n)
{
	if (n <= 15.0)
		return lgamma(n + 1.0) - (n + 0.5) * log(n) + n - LN_SQRT_2PI;
	double nn = n * n;
	return (1.0 / 12 - (1.0 / 360 - (1.0 / 1260 - (1.0 / 1680 - 1.0 / 1188 / nn) / nn) / nn) / nn) / n;
}

/* x ln(x / m) + m - x, without its cancellation near x = m. */
static double bd0(double x, double m)
{
	if (fabs(x - m) < 0.1 * (x + m)) {
		double v = (x - m) / (x + m), s = (x - m) * v, ej = 2 * x * v, v2 = v * v;
		for (int j = 1; j < 1000; j++) {
			ej *= v2;
			double s1 = s + ej / (2 * j + 1);
			if (s1 == s)
				return s1;
			s = s1;
		}
		return s;
	}
	return x * log(x / m) + m - x;
}

/* ln P(X = k) for X ~ Poisson(m), m > 0, k >= 0. */
static double log_dpois(double k, double m)
{
	if (k == 0)
		return -m;
	return -stirlerr(k) - bd0(k, m) - 0.5 * (LN_2PI + log(k));
}

/* Erlang B(n, a): the forward recursion, stopped once below TINY (it only falls). */
static double erlang_b(uint64_t n, double a)
{
	double b = 1.0;

	for (uint64_t k = 1; k <= n; k++) {
		b = a * b / ((double)k + a * b);
		if (b < TINY)
			return 0.0;
	}
	return b;
}

/* E[(X - n)+] / m for X ~ Poisson(m). */
static double fixed_window_reject(uint64_t n, double m)
{
	double nd = (double)n;

	if (m < nd) {
		/* sum_{j>=1} j p_{n+j}; the ratio of terms is below 1 from the first */
		double p = exp(log_dpois(nd + 1, m)), e = 0;
		for (double j = 1;; j++) {
			double term = j * p;
			e += term;
			double q = (j + 1) / j * m / (nd + j + 1); /* next term / this one, falling */
			if (term == 0 || (q < 1 && term * q / (1 - q) <= 1e-17 * e))
				break;
			p *= m / (nd + j + 1);
		}
		return e / m < TINY ? 0.0 : e / m;
	}
	/* (m - n) P(X >= n + 1) + m p_n, P(X <= n) summed downwards from p_n */
	double pn = exp(log_dpois(nd, m)), p = pn, low = 0;
	for (double k = nd; k >= 0; k--) {
		low += p;
		double q = k / m; /* p_{k-1} / p_k, falling with k */
		if (p == 0 || q == 0 || (q < 1 && p * q / (1 - q) <= 1e-17 * low))
			break;
		p *= q;
	}
	/* low is about 1/2 at most here (n <= m): 1 - low does not cancel */
	return ((m - nd) * (1 - low) + m * pn) / m;
}

/* expm1(y) / y - 1 = sum_{k>=1} y^k / (k+1)!, to full relative precision near 0. */
static double expm1_over_minus1(double y)
{
	if (fabs(y) < 1e-3)
		return y * (1.0 / 2 + y * (1.0 / 6 + y * (1.0 / 24 + y * (1.0 / 120 + y * (1.0 / 720 + y / 5040)))));
	return expm1(y) / y - 1;
}

/*
 * The y != 0 with rho expm1(y) / y = 1, written (rho - 1) + rho g(y) = 0
 * (g as above, increasing), so that y keeps its relative precision near
 * rho = 1: the decay rate of the q_j, r = e^-y. Bisection to adjacent doubles.
 */
static double decay_root(double rho)
{
	double lo, hi;

	if (rho == 1)
		return 0;
	if (rho < 1) {
		lo = 0;
		hi = 1;
		while ((rho - 1) + rho * expm1_over_minus1(hi) < 0)
			hi *= 2;
	} else {
		hi = 0;
		lo = -1;
		while ((rho - 1) + rho * expm1_over_minus1(lo) > 0)
			lo *= 2;
	}
	for (int i = 0; i < 2200; i++) {
		double mid = lo / 2 + hi / 2;
		if (mid <= lo || mid >= hi)
			break;
		if ((rho - 1) + rho * expm1_over_minus1(mid) < 0)
			lo = mid;
		else
			hi = mid;
	}
	return lo / 2 + hi / 2;
}

/* sum_{i=1}^{n} e^{-y i}; +inf when it overflows. */
static double geo_sum(double y, double n)
{
	if (y == 0)
		return n;
	if (-y * (n + 1) > 700)
		return INFINITY;
	return exp(-y) * expm1(-y * n) / expm1(-y);
}

/*
 * Blocking of M/D/1/K (K >= 1, rho in range). Returns false only when the
 * step budget runs out, which the documented range never reaches.
 */
static bool mdk_block(double rho, uint64_t k, double *out)
{
	if (k == 1) {
		*out = rho / (1 + rho);
		return true;
	}
	if (rho >= RHO_CLOSED) { /* pi_0 <= 1 / (1 + q_1) = e^-rho: nothing left of it */
		*out = (rho - 1) / rho;
		return true;
	}
	double a0 = exp(-rho), y = decay_root(rho), r = exp(-y);
	double a[AMAX + 2], abar[AMAX + 2];
	int len = 0; /* a[0 .. len) computed */

	/* Poisson terms until negligible against the growth e^{k max(y,0)} */
	while (len < AMAX + 1) {
		double la = log_dpois(len, rho);
		a[len] = exp(la);
		len++;
		if (len - 1 > rho && la + (len - 1) * fmax(y, 0) < -100)
			break;
	}
	abar[len] = 0;
	for (int i = len - 1; i >= 0; i--)
		abar[i] = abar[i + 1] + a[i];
	abar[1] = -expm1(-rho);
	abar[0] = 1;
	int m = len - 2 > 1 ? len - 2 : 1; /* the convolution width: abar up to m + 1 */

	/* the last m + 1 values of q, a ring indexed by j mod (m + 1) */
	double *q = calloc((size_t)m + 1, sizeof(*q));
	if (!q)
		return false;
	const double c = (rho - 1) * exp(rho) + 1; /* rho < 1: q_j <= c max(window) */
	double s = 1, tail = 0;                    /* sum_{j<K} q_j, sum_{j>=K} q_j */
	double prev = 1;
	long calm = 0; /* consecutive steps with q_j / q_{j-1} = r to 1e-12 */
	bool ok = false;
	q[0] = 1;
	for (long j = 1; j < STEPS_MAX; j++) {
		double num = j <= m + 1 ? abar[j] : 0; /* q_0 abar_j */
		long lo = j - m > 1 ? j - m : 1;
		for (long i = lo; i < j; i++)
			num += q[i % (m + 1)] * abar[j - i + 1];
		double qj = num / a0, wmax = 0;
		q[j % (m + 1)] = qj;
		if ((uint64_t)j < k)
			s += qj;
		else
			tail += qj;
		calm = prev > 0 && fabs(qj - r * prev) <= 1e-12 * qj ? calm + 1 : 0;
		prev = qj;

		if (rho >= 1) {
			if ((uint64_t)j + 1 >= k || (rho > 1 && 1 / s <= 1e-17 * (rho - 1))) {
				ok = true;
				break;
			}
			if (calm > m && calm > 8) { /* q_i = q_j r^{i-j} for i < K */
				s += qj * geo_sum(y, (double)(k - 1 - (uint64_t)j));
				ok = true;
				break;
			}
			continue;
		}
		for (long i = lo; i <= j; i++)
			wmax = fmax(wmax, q[i % (m + 1)]);
		if (calm > m && calm > 8) {
			if ((uint64_t)j < k) /* sum_{i>=K} q_j r^{i-j} */
				tail = qj * exp(-y * (double)(k - (uint64_t)j)) / -expm1(-y);
			else
				tail += qj * r / -expm1(-y);
			ok = true;
			break;
		}
		/* after the forcing ends, the window's maximum falls by c per width */
		double bound = j > m + 1 ? (double)(m + 1) * wmax / (1 - c) : INFINITY;
		if (j > m + 1 && (uint64_t)j < k && bound < TINY) {
			tail = 0;
			ok = true;
			break;
		}
		if ((uint64_t)j >= k && bound <= 1e-17 * tail) {
			tail += bound; /* an upper bound on what is left, far below rounding */
			ok = true;
			break;
		}
	}
	free(q);
	if (!ok)
		return false;
	if (rho >= 1) {
		double pi0 = isinf(s) ? 0 : 1 / s;
		*out = (pi0 + rho - 1) / (pi0 + rho);
		return true;
	}
	double t = (1 - rho) * tail;
	double p = (1 - rho) * t / (1 - rho * t);
	*out = p < TINY ? 0 : p;
	return true;
}

/* One algorithm's model: its rejection probability at offered load rho
 * (lambda W / N), or false when out of range. */
struct model_args {
	uint64_t limit, burst; /* N, B (given or N) */
	int64_t window_ns;
	double lambda_per_s, rho;
};

static bool token_bucket_model(const struct model_args *a, double *v)
{
	return mdk_block(a->rho, a->burst, v);
}

static bool gcra_model(const struct model_args *a, double *v)
{
	/* T = W / N; tau = (B - 1) T capped at horizon - T (gcra.h): the
	 * burst at most floor((horizon - T) / T) + 1 = floor(horizon * N / W) */
	unsigned __int128 cap = (unsigned __int128)RL_GCRA_HORIZON_NS * a->limit / (uint64_t)a->window_ns;

	return mdk_block(a->rho, (unsigned __int128)a->burst > cap ? (uint64_t)cap : a->burst, v);
}

static bool leaky_bucket_model(const struct model_args *a, double *v)
{
	return mdk_block(a->rho, a->burst + 1, v);
}

static bool sliding_log_model(const struct model_args *a, double *v)
{
	*v = erlang_b(a->limit, a->lambda_per_s * (double)a->window_ns / 1e9);
	return true;
}

static bool fixed_window_model(const struct model_args *a, double *v)
{
	*v = fixed_window_reject(a->limit, a->lambda_per_s * (double)a->window_ns / 1e9);
	return true;
}

/* Per algorithm of ratelab: its closed form, or what the report says of it
 * when it has none. */
static const struct {
	const char *algo;
	bool (*model)(const struct model_args *a, double *v);
	const char *no_form;
} models[] = {
	{ "token_bucket", token_bucket_model, NULL },
	{ "gcra", gcra_model, NULL },
	{ "leaky_bucket", leaky_bucket_model, NULL },
	{ "sliding_log", sliding_log_model, NULL },
	{ "fixed_window", fixed_window_model, NULL },
	{ "sliding_counter", NULL, "no closed form (between fixed_window and sliding_log)" },
};

static int model_of(const char *algo)
{
	for (size_t i = 0; algo && i < sizeof(models) / sizeof(models[0]); i++)
		if (strcmp(models[i].algo, algo) == 0)
			return (int)i;
	return -1;
}

const char *sim_theory_no_form(const char *algo)
{
	int i = model_of(algo);

	return i >= 0 && models[i].no_form ? models[i].no_form : "no closed form";
}

bool sim_theory_reject(const char *algo, uint64_t limit, int64_t window_ns, uint64_t burst,
		       double lambda_per_s, double *p)
{
	int m = model_of(algo);

	if (m < 0 || !models[m].model || !p || limit < 1 || limit > SIM_THEORY_LIMIT_MAX || window_ns < 1 ||
	    window_ns > RL_WINDOW_MAX_NS || burst > SIM_THEORY_BURST_MAX || !(lambda_per_s > 0) ||
	    !isfinite(lambda_per_s))
		return false;
	struct model_args a = { limit, burst ? burst : limit, window_ns, lambda_per_s,
				lambda_per_s * ((double)window_ns / 1e9) / (double)limit };
	double v;

	if (!(a.rho >= RHO_MIN && a.rho <= RHO_MAX) || !models[m].model(&a, &v))
		return false;
	*p = v;
	return true;
}
