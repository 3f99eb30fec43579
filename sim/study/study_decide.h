/*
 * study_decide.h - how a study pass decides a key's requests under one
 * item of --rules: a plain rule on a trace without settles through the
 * rule's limiter (the study's fast path, unchanged), anything else through
 * a policy limiter (policy.h: a plain rule is then a policy of one ":units"
 * rule, decided exactly as the rule alone), with the trace's settles
 * (trace.h) applied as `ratelab replay` applies them: before deciding a
 * request at T, every settle due at or before T (DONE_T <= T) is applied,
 * earliest first, those of one time in trace order; each settles the
 * request admitted at its decision's time (the answer's at_ns) by
 * ACTUAL - COST units (none when equal) at DONE_T. So at one time a settle
 * comes before the decision. Settles due after the last request change
 * nothing judged and are dropped. Private to the study.
 */
#ifndef RATELAB_SIM_STUDY_DECIDE_H
#define RATELAB_SIM_STUDY_DECIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ratelab/algo.h"
#include "ratelab/policy.h"
#include "study.h"

/* A settle waiting for its time. */
struct study_pending {
	int64_t done_ns;
	uint64_t seq;  /* the request's index: settles of one time in trace order */
	int64_t at_ns; /* the admission's time */
	int64_t delta; /* units, ACTUAL - COST, never 0 */
	uint32_t key;
};

struct study_decide {
	struct rl_limiter lim;          /* what decides: the rule's, or the policy's as one limiter */
	struct rl_policy_limiter *pl;   /* NULL: the fast path (a plain rule, no settles) */
	const struct sim_trace *t;
	bool settles;                   /* the trace has settle lines */
	struct study_pending *heap;     /* min-heap on (done_ns, seq) */
	size_t len, cap;
	/* called after each settle applied (NULL: none), so that the pass's
	 * judge settles its own log of what the algorithm admitted as the
	 * simulator's does (sim_judge_settle); its error ends the pass */
	int (*on_settle)(void *arg, const struct study_pending *p);
	void *on_settle_arg;
};

/*
 * Binds algo to the item r for trace t. RL_OK, RL_EINVAL (a rule the
 * algorithm refuses; a trace with settles and an algorithm that does not
 * settle, settle.h) or RL_ENOMEM.
 */
int study_decide_init(struct study_decide *d, const struct rl_algo *algo, const struct sim_study_rule *r,
		      const struct sim_trace *t);

/* Bytes of one key's state. */
size_t study_decide_state_size(const struct study_decide *d);

/*
 * Applies the settles due at or before request i's time, decides request
 * i on its key's state (states: study_decide_state_size bytes per key id)
 * and queues its settle when admitted. RL_ALLOWED, RL_REJECTED or a
 * negative rl_status (a settle's error, RL_ENOMEM).
 */
int study_decide_one(struct study_decide *d, unsigned char *states, size_t i);

/* Releases what the key's state owns and zeroes it. */
void study_decide_release(const struct study_decide *d, void *state);

/* Frees the queue and the policy limiter. */
void study_decide_free(struct study_decide *d);

#endif
