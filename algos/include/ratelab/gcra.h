/*
 * gcra.h - the generic cell rate algorithm: the token bucket's decisions
 * kept as one theoretical arrival time (TAT). With emission interval
 * T = W / N and tolerance tau = (B - 1) * T, a request at t is admitted iff
 * TAT - t <= tau (inclusive), and then TAT = max(TAT, t) + T.
 *
 * Whole ns: T is rounded up to ceil(W / N) when N does not divide W, so gcra
 * then admits at a long-run rate a hair below N / W, never above it; when N
 * divides W its decisions equal token_bucket's. The TAT is an int64 ns: a
 * request that would push it past INT64_MAX (over ~165 years of debt, only
 * reachable when B * T exceeds that) is rejected, where token_bucket, which
 * has no such horizon, would admit it.
 *
 * 16 bytes per key: the 8-byte TAT and the last seen time that the
 * backwards-clock clamp needs.
 */
#ifndef RATELAB_GCRA_H
#define RATELAB_GCRA_H

#include "ratelab/algo.h"

#ifdef __cplusplus
extern "C" {
#endif

struct rl_gcra {
	int64_t tat_ns;  /* theoretical arrival time, ns; <= now means a full bucket */
	int64_t last_ns; /* last seen time, ns */
};
_Static_assert(sizeof(struct rl_gcra) == 16, "rl_gcra is 16 bytes");

int rl_gcra_check(const struct rl_limiter *lim, struct rl_gcra *st,
		  int64_t now_ns, struct rl_decision *out);

#ifdef __cplusplus
}
#endif
#endif
