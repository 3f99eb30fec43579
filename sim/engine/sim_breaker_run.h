/*
 * sim_breaker_run.h - the rate-limit circuit breaker (breaker.h, times in
 * ns) in front of one protected service, driven by a scenario's traffic:
 * every request of every key goes through the one breaker, which counts
 * requests whatever their cost.
 *
 * A rejected polite client or adversary waits until the breaker would
 * half-open (opened_at + open_for - now), the breaker's Retry-After.
 * Time in each state covers [0, duration) exactly: OPEN turns HALF_OPEN at
 * opened_at + open_for whether or not a request comes then.
 */
#ifndef RATELAB_SIM_BREAKER_RUN_H
#define RATELAB_SIM_BREAKER_RUN_H

#include <stdint.h>

#include "ratelab/breaker.h"
#include "sim_traffic.h"

struct sim_breaker_result {
	int64_t requests, allowed;
	int64_t openings;
	int64_t state_ns[3];   /* time in CLOSED, OPEN, HALF_OPEN, ns; indexed by rl_breaker_state */
	int64_t max_in_window; /* most allowed in any (t - window, t] */
	int64_t limit, window_ns; /* the breaker's rule as run */
};

/* Called at each change of the effective state, and once at 0 with CLOSED. */
typedef void (*sim_transition_fn)(void *arg, int64_t t_ns, enum rl_breaker_state to);

/* RL_OK or an rl_status. */
int sim_run_breaker(struct sim_traffic *tr, sim_transition_fn on_transition, void *arg,
		       struct sim_breaker_result *res);

#endif
