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
 * the arguments are out of range.
 */
bool sim_theory_reject(const char *algo, uint64_t limit, int64_t window_ns, uint64_t burst,
		       double lambda_per_s, double *p);

#endif
