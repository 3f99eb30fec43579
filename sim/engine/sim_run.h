/*
 * sim_run.h - one algorithm over one scenario, measured against the exact
 * sliding-window rule (sliding_log's: at most N admitted with times in
 * (t - W, t]), applied to the same request sequence.
 *
 * Everything counts units: a request of cost k (sim_scenario.h's cost) is
 * k units, and the rule is N units per W (at k = 1, requests).
 * Definitions (all per request the algorithm under test decided, retries
 * included), with c = how many units the algorithm itself admitted for
 * this key with times in (t - W, t] before this one:
 *   false allow   the algorithm admits although c + k > N: the admission
 *                 leaves the key over the exact limit;
 *   false reject  the algorithm rejects although c + k <= N: the exact
 *                 limiter, with the same history, would have admitted it.
 *   This judges each decision on the algorithm's own history, so one early
 *   difference does not make every later decision count as an error.
 *   Also reported, as diverged_*: the verdicts of an
 *   independent sliding_log fed the same requests and keeping its own
 *   state (an admitted-set comparison, which cascades under saturation);
 *   max_in_window the most units one key had admitted in a window of
 *                 length W, i.e. with times in (t - W, t]: exact, from a
 *                 sliding two-pointer (a run log) over each key's admitted
 *                 times; a key is over-admitted when this exceeds N;
 *   beyond_bound  admissions that left more in (t - W, t] than the
 *                 algorithm's own documented bound allows
 *                 (rl_limiter_max_admitted(lim, W - 1), own_bound): a
 *                 correctness check, 0 unless the algorithm is broken;
 *   heavy keys    keys that requested more units than their quota over
 *                 the run (N * duration / W, retries included): how many,
 *                 their requests and their false allows + rejects, which says
 *                 which sources carry the error;
 *   estimate diff the sliding-window counter's estimate of the key's
 *                 admitted units in (t - W, t] before each request,
 *                 prev * (W - e) / W + curr over the algorithm's own
 *                 admissions (Cloudflare's 2017 rate approximation), against
 *                 the exact count: the mean of |estimate - exact| / exact
 *                 over the requests that find exact > 0 (estimate_diff_sum,
 *                 estimate_n); the approximation's error on this traffic;
 *   clients       what the polite (closed-loop) clients experienced
 *                 (struct sim_clients): served, gave up, the wait from
 *                 first send to admission;
 *   long-run rate admitted units / (active keys * N * duration / W);
 *   Jain's index  the least, over the sources that pick keys uniformly,
 *                 of (sum x)^2 / (k sum x^2), x = admitted / requested
 *                 units,
 *                 over the source's k active keys (equal demand by
 *                 construction; keys of different sources may differ in
 *                 load, so they are never mixed); 1 for a source with
 *                 k < 2; NaN (not measured) when no source picks keys
 *                 uniformly;
 *   state bytes   per active key: the algorithm's state_size, plus for
 *                 states that own memory the most heap they held
 *                 (rl_algo.heap_bytes: allocator chunks, headers included).
 * With the scenario's compare off, only requests, admitted, the long-run
 * rate, Jain's index and state bytes are measured.
 *
 * A policy (sim_scenario.h's policy =): each algorithm decides through
 * its policy limiter (policy.h), the reference is the sliding-log policy
 * of the same rules, and the judge is the exact policy: a request of cost
 * k is within the policy iff every rule's exact sliding log admits it on
 * the algorithm's own history, i.e. for each rule i, c_i + s_i <= N_i,
 * with c_i the shares the algorithm admitted for this key in
 * (t - W_i, t] and s_i = k on a ':units' rule, else 1. So
 *   false allow   (the excess) an admission with some rule's
 *                 c_i + s_i > N_i: it leaves the key over that rule;
 *   false reject  a refusal with c_i + s_i <= N_i for every rule: the
 *                 exact policy would have admitted it.
 * The first rule is the judged rule of the one-rule figures:
 * max_in_window and the estimate count its shares, own_bound is its
 * bound; load, quotas and heavy keys are of it.
 *
 * Shadow mode (mode = shadow): the algorithm decides and keeps its state
 * as when enforcing but admits every request, so the figures measure what
 * passed (every request admitted; false allows are the would-be excess);
 * would_reject counts the requests enforcing would have refused
 * (rl_policy_would_reject), -1 when not in shadow mode.
 *
 * Settles (a replayed trace's settle lines, sim_traffic.h): the
 * algorithm's and the reference's states settle the requests each took
 * (settle.h; a plain rule decided as a policy of that one ':units' rule,
 * which decides exactly as it). The judge's histories settle too: an
 * admitted request counts COST from its decision and ACTUAL from DONE_T
 * while it is in a ':units' rule's window (sim_judge_settle: sliding_log's
 * settle without its 2N cap), so "exact" is the exact policy with the
 * costs settled; requests, admitted and the units columns count COST.
 * With shadow mode or settles own_bound and beyond_bound are not measured
 * (bound_measured false): every request passes, or a charge or a refund
 * moves what the bound counts. An external decider cannot decide a
 * policy, shadow mode or settles (RL_EINVAL): its protocol carries one
 * rule and no settle (sim_decider.h).
 */
#ifndef RATELAB_SIM_RUN_H
#define RATELAB_SIM_RUN_H

#include <stdint.h>

#include "ratelab/algo.h"
#include "sim_traffic.h"

struct sim_result {
	int64_t requests, admitted;          /* requests (false_* count requests too) */
	int64_t units, admitted_units;       /* their costs, units (= requests at cost 1) */
	int64_t false_allows, false_rejects;
	int64_t diverged_allows, diverged_rejects; /* vs the independent sliding_log */
	int64_t active_keys, keys_over;
	int64_t max_in_window;
	int64_t own_bound;    /* the algorithm's bound in a window of length W */
	int64_t beyond_bound; /* admissions past own_bound: must be 0 */
	bool bound_measured;  /* own_bound and beyond_bound were measured */
	int64_t would_reject; /* shadow mode: requests enforcing would have refused; -1: enforcing */
	struct sim_clients clients;
	int64_t heavy_keys, heavy_requests, heavy_false;
	double estimate_diff_sum; /* sum of |estimate - exact| / exact */
	int64_t estimate_n;
	double long_run_rate_ratio;
	double jain_index;    /* NaN: no uniformly keyed source */
	double state_bytes_mean;
	int64_t state_bytes_max;
	double cpu_s;  /* CPU seconds of the run's thread (timing, not deterministic) */
};

/* Optional observers of a run; any field may be NULL / 0. */
struct sim_hooks {
	void (*on_decision)(void *arg, int64_t t_ns, uint32_t key, int verdict);
	void *arg;
	int64_t *series_admitted; /* per time bucket of the scenario, nbuckets long */
	int64_t *series_rejected;
	size_t nbuckets;
};

/* RL_OK, or an rl_status (RL_ENOMEM; RL_EINVAL: a policy rule algo refuses) from the algorithm or the engine. */
int sim_run(struct sim_traffic *tr, const struct rl_algo *algo, const struct sim_hooks *hooks,
	       struct sim_result *res);

/*
 * The same run and measurements with the decisions made by ext (e.g. a
 * child process through the decider protocol, sim_decider.h); name labels
 * progress lines. State bytes are not measured (0): the decider's memory
 * is its own. An error of ext is returned as it came.
 */
int sim_run_external(struct sim_traffic *tr, const struct sim_decider *ext, const char *name,
		     const struct sim_hooks *hooks, struct sim_result *res);

#endif
