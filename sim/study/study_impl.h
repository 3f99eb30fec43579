/*
 * study_impl.h - what the study's passes share (study.c runs them,
 * study_pass.c judges the verdicts); private to the study.
 */
#ifndef RATELAB_SIM_STUDY_IMPL_H
#define RATELAB_SIM_STUDY_IMPL_H

#include "study.h"

/* Read-only once the reference passes are done. */
struct study_shared {
	const struct sim_trace *t;
	unsigned char *in;       /* per key: 1 in this shard */
	int64_t *units;          /* per key: units requested (0 outside the shard) */
	size_t nin;              /* requests of the shard's keys */
	uint64_t **excess;       /* per rule: bit i set when the exact sliding log refuses request i */
	unsigned char **within;  /* per rule, per key: 1 within the rule */
	int64_t *good_keys;      /* per rule */
	int64_t *excess_units;   /* per rule */
	size_t timing_n;         /* requests in the ns_per_check loop */
};

/* One (rule, algorithm or decider) pass: fills row and the top keys' column col. */
struct study_pass {
	const struct study_shared *sh;
	size_t rule;
	struct sim_study_row *row;
	const uint32_t *top_ids;
	size_t ntop;
	struct sim_study_key *top;
	size_t col;
};

/* RL_OK or a negative rl_status. */
int sim_study_algo_pass(struct study_pass *p, const struct rl_algo *algo, const struct sim_study_rule *rule);

/* RL_OK, or RL_EINVAL / RL_ENOMEM with a message naming the decider in msg. */
int sim_study_decider_pass(struct study_pass *p, const struct sim_study_decider *d,
			   const struct sim_study_rule *rule, char *msg, size_t msg_len);

#endif
