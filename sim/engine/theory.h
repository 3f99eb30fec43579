/*
 * theory.h - closed-form long-run rejection probabilities of the
 * algorithms under Poisson arrivals on one key, for the rule N per W with
 * burst B: the queueing systems several of them are (M/D/1/K, M/D/N/N,
 * Poisson windows), beside which the simulator's measurements are shown.
 */
#ifndef RATELAB_SIM_THEORY_H
#define RATELAB_SIM_THEORY_H

#include <stdbool.h>
#include <stdint.h>

/*
 * The probability that a request is rejected, in the long run, when
 * requests of cost 1 arrive as a Poisson process at lambda_per_s per
 * second on one key of algorithm algo (a name of rl_algo_names()) with the
 * rule limit per window_ns and burst (0: B = N). Returns false, *p
 * untouched, when the algorithm has no closed form (sliding_counter) or
 * the arguments are out of range: limit, window_ns and burst outside
 * rule.h's ranges, lambda_per_s not finite and positive, or the offered
 * load lambda * W / N outside [1e-15, 1e6].
 *
 * The models (theory.c): token_bucket and gcra are M/D/1/K with K = B and
 * service time D = W / N (gcra's T exactly, gcra.h); leaky_bucket is M/D/1/K
 * with K = B + 1; sliding_log is Erlang B(N, lambda W); fixed_window is
 * E[(X - N)+] / E[X], X ~ Poisson(lambda W).
 *
 * Numerical method and error: Poisson probabilities in Loader's
 * saddle-point form (relative error < 1e-13); Erlang B by the recursion
 * B(n) = A B(n-1) / (n + A B(n-1)), stable (relative error <= 3 N 2^-53);
 * the fixed window by sums of positive terms (< 1e-12); M/D/1/K by the
 * level-crossing recursion of its departure chain, positive terms only,
 * its sums closed geometrically once the terms' ratio has converged, and
 * for loads below 1 taken from the tail P(Q >= K) so that small
 * probabilities keep their relative precision (< 1e-9). Relative error
 * below 1e-9 in all over loads 1%..10000%, N <= 10^6, B <= 10^9; a
 * probability below 1e-290 may be returned as 0. Work: O(N) for Erlang B,
 * O(N + sqrt(lambda W)) terms at most for the fixed window, and for M/D/1/K
 * O(J M), J the steps until the closure (bounded whatever B) and M the
 * convolution width (tens to a few hundred terms; none for rho >= 40,
 * where pi_0 is below rounding). The burst is ignored by fixed_window and
 * sliding_log. The closed forms keep these bounds of their own, below the
 * rules' (rule.h): N <= SIM_THEORY_LIMIT_MAX, B <= SIM_THEORY_BURST_MAX;
 * a larger rule (units counted in bytes or tokens) has none here: false.
 */
#define SIM_THEORY_LIMIT_MAX 1000000ULL
#define SIM_THEORY_BURST_MAX 1000000000ULL

bool sim_theory_reject(const char *algo, uint64_t limit, int64_t window_ns, uint64_t burst,
		       double lambda_per_s, double *p);

/* What a report says of an algorithm without a closed form (sliding_counter:
 * where it lies; any other name: "no closed form"). */
const char *sim_theory_no_form(const char *algo);

#endif
