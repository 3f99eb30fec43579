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
 * Exact: T = W / N is kept as a fraction, whole ns plus a remainder in
 * 1/N ns (TAT likewise: tat_ns + tat_frac / N), so gcra admits at exactly
 * N / W for every N and W, a T below 1 ns included (N = 10^12 per second:
 * T = 1/1000 ns; 10^12 per hour: T = 3.6 ns, not 4). Its decisions equal
 * token_bucket's while tau is not capped. The TAT's whole ns is an int64,
 * so the tolerance is capped at RL_GCRA_HORIZON_NS - T (~5.2 * 10^18 ns,
 * 165 years of burst credit), which keeps TAT <= RL_TIME_MAX_NS + tau + T
 * <= INT64_MAX. Only rules with (B - 1) * T above that (e.g. N = 1,
 * W = 10^18, B > 5) are affected: their burst is floor(tau / T) + 1
 * requests instead of B, fewer than token_bucket admits, never more, and
 * the long-run rate is unchanged. remaining is exact; retry_after_ns and
 * reset_ns are exact durations rounded up to whole ns.
 *
 * Widths, in 1/N ns (values kept as one 128-bit count where a product
 * needs it): tau * N <= (B - 1) * W < 2^100, the debt cap below
 * RL_GCRA_HORIZON_NS * N < 2^103, (c - 1) * W < 2^100 for a cost c.
 *
 * Bound (max_admitted): at most 1 + floor((d + tau) / T) admitted in any
 * closed interval of length d ns, i.e. B + floor(d / T) with tau uncapped.
 *
 * 24 bytes per key: the TAT's whole ns (int64) and its fraction (uint64,
 * below N <= 10^12 < 2^40), and the last seen time that the backwards-clock
 * clamp needs. When N divides W the fraction stays 0, and rl_limit's
 * unnamed key decides on the first 16 bytes with one 16-byte
 * compare-and-swap (limit.h).
 *
 * Rule change (algo.h, rl_limiter_rerule), from (N0, W0) to (N1, W1):
 * debt0 = max(0, TAT - now), in 1/N0 ns D0 = debt0 * N0; debt1 =
 * debt0 * T1 / T0, in 1/N1 ns D1 = min(ceil(D0 * W1 / W0), (tau1 + T1) * N1),
 * computed as q * W1 + ceil(r * W1 / W0) with q = D0 / W0, r = D0 % W0
 * (D0 <= the debt cap <= 2 * B0 * W0, so q <= 2 * B0 < 2^41: each product
 * below 2^120); TAT = now + D1 / N1, last_ns = now: a settle's debt beyond
 * a full bucket is forgiven by a rule change; the emission intervals
 * already owed carry over, at most a full new bucket.
 *
 * Settle (settle.h), delta units at now (clamped to last_ns), in 1/N ns:
 * with D = (max(TAT, now) - now) * N, D' = min(D + delta * W, cap) for a
 * charge, cap = min(2 * (tau + T), RL_GCRA_HORIZON_NS) * N (twice a full
 * bucket's debt, token_bucket's B tokens owed: later requests wait for
 * it), and D' = max(0, D + delta * W) for a refund (TAT never below now:
 * a full bucket at most); TAT = now + D' / N, last_ns = now. |delta| * W
 * <= 10^30 < 2^100. admitted_ns is not used: the TAT keeps no request
 * apart.
 *
 * Valid state (rl_limiter_state_check): last_ns in [0, RL_TIME_MAX_NS],
 * 0 <= tat_ns, tat_frac < N, TAT <= last_ns + the debt cap (tau + T after
 * a check, the cap after a settle).
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
	int64_t tat_ns;    /* theoretical arrival time, whole ns; TAT <= now means a full bucket */
	int64_t last_ns;   /* last seen time, ns */
	uint64_t tat_frac; /* the TAT past tat_ns, in 1/N ns: 0 <= tat_frac < N <= 10^12 */
};
RL_STATIC_ASSERT(sizeof(struct rl_gcra) == 24, "rl_gcra is 24 bytes");

#ifdef __cplusplus
}
#endif
#endif
