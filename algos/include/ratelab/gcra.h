/*
 * gcra.h - the generic cell rate algorithm: the token bucket's decisions
 * kept as one theoretical arrival time (TAT). With emission interval
 * T = W / N and tolerance tau = (B - 1) * T, a request at t is admitted iff
 * TAT - t <= tau (inclusive), and then TAT = max(TAT, t) + T. A request of
 * cost c (algo.h) is c emission intervals: with TAT' = max(TAT, t) + c * T
 * it is admitted iff TAT' - t <= tau + T (inclusive), then TAT = TAT'; a
 * cost of B passes a full bucket, one above B (or with (c - 1) * T above
 * the capped tau, below) never does (retry_after_ns = RL_DURATION_MAX_NS).
 *
 * Whole ns: T is rounded up to ceil(W / N) when N does not divide W, so gcra
 * then admits at a long-run rate of 1 / ceil(W / N), below N / W by less
 * than one part in W / N (for N = 2, W = 3 ns: 1 per 2 ns instead of 2 per
 * 3 ns), never above it; when N
 * divides W its decisions equal token_bucket's. T is at least 1 ns: a rule
 * of N above W (10^12 bytes per s) admits at most one unit per ns, N / W
 * only when W / N is whole. (Exact fractions of a ns need a wider state,
 * 24 bytes, and the Redis stored form to carry it: not yet.) The TAT is an int64 ns, so
 * the tolerance is capped at RL_GCRA_HORIZON_NS - T (~5.2 * 10^18 ns, 165
 * years of burst credit), which keeps TAT <= RL_TIME_MAX_NS + tau + T <=
 * INT64_MAX. Only rules with (B - 1) * T above that (e.g. N = 1,
 * W = 10^18, B > 5) are affected: their burst is floor(tau / T) + 1
 * requests instead of B, fewer than token_bucket admits, never more, and
 * the long-run rate is unchanged.
 *
 * Bound (max_admitted): at most 1 + floor((d + tau) / T) admitted in any
 * closed interval of length d ns, i.e. B + floor(d / T) with tau uncapped.
 *
 * 16 bytes per key: the 8-byte TAT and the last seen time that the
 * backwards-clock clamp needs.
 *
 * Rule change (algo.h, rl_limiter_rerule), from T0, tau0 to T1, tau1:
 * debt0 = max(0, TAT - now) ns, debt1 = min(ceil(debt0 * T1 / T0),
 * tau1 + T1) (the product below 2^123), TAT = now + debt1, last_ns = now:
 * a settle's debt beyond a full bucket is forgiven by a rule change;
 * the emission intervals already owed carry over, at most a full new
 * bucket.
 *
 * Settle (settle.h), delta units at now (clamped to last_ns): with
 * debt = max(TAT, now) - now, debt' = min(debt + delta * T, cap) for a
 * charge, cap = min(2 * (tau + T), RL_GCRA_HORIZON_NS) (twice a full
 * bucket's debt, token_bucket's B tokens owed: later requests wait for
 * it), and debt' = max(0, debt + delta * T) for a refund (TAT never
 * below now: a full bucket at most); TAT = now + debt', last_ns = now.
 * admitted_ns is not used: the TAT keeps no request apart.
 *
 * Valid state (rl_limiter_state_check): last_ns in [0, RL_TIME_MAX_NS],
 * 0 <= TAT <= last_ns + cap (tau + T after a check, cap after a settle).
 */
#ifndef RATELAB_GCRA_H
#define RATELAB_GCRA_H

#include "ratelab/algo.h"
#include "ratelab/static_assert.h"

#ifdef __cplusplus
extern "C" {
#endif

/* TAT - now never exceeds this, ns: INT64_MAX - RL_TIME_MAX_NS. */
#define RL_GCRA_HORIZON_NS (INT64_MAX - RL_TIME_MAX_NS)

struct rl_gcra {
	int64_t tat_ns;  /* theoretical arrival time, ns; <= now means a full bucket */
	int64_t last_ns; /* last seen time, ns */
};
RL_STATIC_ASSERT(sizeof(struct rl_gcra) == 16, "rl_gcra is 16 bytes");

#ifdef __cplusplus
}
#endif
#endif
