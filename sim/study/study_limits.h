/*
 * study_limits.h - the limit to set: for each window W, the exact sliding
 * log (rl_sliding_log: admit iff admitted units in (t - W, t] + c <= N,
 * refused requests not counted) at every limit N, run per key on the
 * study's trace (its tick placement, spread or not), as limits.csv's rows
 * window,limit,keys,keys_refused,requests,requests_refused.
 *
 * Definitions, per window W, over the keys with at least one request (of
 * the shard: sim_study_key_hash % nshards == shard), counting units:
 *   peak          of a key: the most units of its requests (all of them,
 *                 admitted or not) in any window (t - W, t];
 *   keys_refused  at N: the keys the log refuses at least once, which are
 *                 exactly those whose peak is above N (a key of peak <= N
 *                 is admitted whole; one above is refused in its peak
 *                 window), so only those are decided at N;
 *   requests_refused  at N: the units the log refuses, every key summed;
 *   percentile p  (hundredths of a percent, 1 .. 10000) of the peaks: the
 *                 smallest N with at least ceil(keys * p / 10000) keys of
 *                 peak <= N, i.e. the need-th smallest peak;
 *   suggested     the percentile --target-keys of the peaks: the smallest
 *                 N that refuses no request of that share of the keys.
 * The limits listed: every N from 1 to the largest peak when it is at most
 * SIM_LIMITS_MAX; else at most SIM_LIMITS_MAX values, the percentiles
 * p50, p90, p99, the target and the largest peak among them, the rest
 * spread geometrically over [1, largest peak]. Ascending, distinct.
 *
 * Cost: one pass per window over each key's requests for its peak, then
 * per listed N one pass over the requests of the keys whose peak is above
 * N, on o->jobs threads (keys split between them, heaviest first): it
 * grows with the requests and the limits listed, never with the span.
 */
#ifndef RATELAB_SIM_STUDY_LIMITS_H
#define RATELAB_SIM_STUDY_LIMITS_H

#include <stddef.h>
#include <stdint.h>

#include "trace.h"

#define SIM_LIMITS_MAX 200        /* limits listed per window, at most */
#define SIM_LIMITS_TEXT_MAX 32    /* a window's text as written, NUL included */
#define SIM_LIMITS_TARGET_DEFAULT 9900 /* --target-keys 99% in hundredths of a percent */

/* The percentiles quoted: p50, p90, p99 (hundredths of a percent). */
#define SIM_LIMITS_NQUOTED 3
extern const uint32_t sim_limits_quoted[SIM_LIMITS_NQUOTED];

struct sim_limits_window {
	char text[SIM_LIMITS_TEXT_MAX]; /* as written in --rules or --windows */
	int64_t window_ns;
	int64_t keys, requests;  /* keys with a request, their units: the same on every row */
	size_t n;                /* rows */
	int64_t *limit, *keys_refused, *requests_refused; /* per row, limit ascending */
	/* sim_study_limits only (not read back from limits.csv): the percentiles
	 * quoted, the target's (the suggested limit) and the largest peak; 0 without keys */
	int64_t quoted[SIM_LIMITS_NQUOTED], suggested, max_peak;
};

/* Every window's rows; valid when zeroed. */
struct sim_limits {
	size_t nwindows;
	struct sim_limits_window *w;
};

/* What to compute: windows[i] (ns) written texts[i]; distinct windows. */
struct sim_limits_opts {
	const char *const *texts;
	const int64_t *windows_ns;
	size_t nwindows;
	uint32_t target;         /* hundredths of a percent, 1 .. 10000 */
	uint32_t shard, nshards; /* 0 of 1: every key */
	unsigned jobs;           /* threads, >= 1 */
};

/*
 * Computes l (zeroed by it) from trace t, in time order. RL_OK, or
 * RL_ENOMEM / RL_EINVAL with the reason in msg.
 */
int sim_study_limits(struct sim_limits *l, const struct sim_trace *t, const struct sim_limits_opts *o, char *msg,
		     size_t msg_len);

/* The need-th smallest of the keys' peaks for percentile p of k keys: ceil(k * p / 10000), >= 1 when k >= 1. */
int64_t sim_limits_need(int64_t keys, uint32_t p);

/* Frees what l owns and zeroes it. */
void sim_limits_free(struct sim_limits *l);

#endif
