/*
 * naive_log.h - a test-only seventh algorithm: the exact sliding window
 * kept the plainest way, one sorted heap array of admitted times. It
 * decides and answers exactly as sliding_log (a request at t is admitted
 * iff fewer than N admitted times x satisfy t - W < x <= t), and its state
 * owns memory, so it exercises every op of struct rl_algo. It is built
 * into test programs only, listed through algo_list.h's RL_ALGO_LIST_EXTRA.
 */
#ifndef RATELAB_TEST_NAIVE_LOG_H
#define RATELAB_TEST_NAIVE_LOG_H

#include "ratelab/algo.h"

struct rl_naive_log {
	int64_t *times;  /* admitted times in the window, oldest first, ns */
	uint32_t len;    /* times in use */
	uint32_t cap;    /* times allocated */
	int64_t last_ns; /* last seen time, ns */
};
_Static_assert(sizeof(struct rl_naive_log) == 24, "rl_naive_log is 24 bytes");

extern const struct rl_algo rl_naive_log_algo;

#endif
