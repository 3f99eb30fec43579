/*
 * settle.h - costs settled after the response: a request admitted with an
 * estimated cost c is settled, once its real cost a is known, by
 * delta = a - c units: delta > 0 charges more (which may leave the key in
 * debt: later requests wait), delta < 0 refunds (never more than that
 * request took: the caller passes delta >= -c; never above the quota).
 *
 * rl_limiter_settle(lim, state, admitted_ns, delta, now_ns) settles the
 * request admitted at admitted_ns on the key's state, at now_ns (clamped
 * to the key's last seen time, as a check's time is). The windows' last
 * seen time does not move (a settle is not a request); a bucket's state
 * is kept as of its last seen time, so a bucket's settle moves it to now,
 * as a check does. Each algorithm states its meaning in its header:
 *   fixed_window     only within the admission's window (count += delta,
 *                    at least 0, at most N: a window full is as full as
 *                    it gets, its requests refused until it ends);
 *   sliding_log      the run at admitted_ns, while it is in the window
 *                    (count += delta, at least 0); nothing once it has
 *                    left; a charge may put the window above N, at most
 *                    2 * N (debt: remaining answers 0 until it is paid);
 *   sliding_counter  the counter of the admission's window while it is
 *                    the current or the previous one (at least 0, at most
 *                    N, as the counters are kept); nothing before;
 *   token_bucket     the tokens at now less delta, at least -B (debt: B
 *                    tokens owed at most, later requests wait for them to
 *                    refill), at most B (a refund never fills the bucket
 *                    beyond full);
 *   leaky_bucket     the queue at now plus delta units, at least 0, at
 *                    most 2 * B + 1 units (B more than a check leaves:
 *                    later requests wait as behind a longer queue);
 *   gcra             the debt max(TAT, now) - now plus delta * T, at least
 *                    0 (TAT not below now), at most
 *                    min(2 * (tau + T), RL_GCRA_HORIZON_NS) (twice a
 *                    full bucket's, as token_bucket's).
 * A bucket keeps no request apart: admitted_ns is checked and not used,
 * and the settle applies to the bucket as it is at now, whenever the
 * request was admitted and whatever came since (as Envoy's and Kong's
 * token buckets apply a refund). The caller passes delta >= -c for a
 * request admitted at cost c: the library cannot tell a refund beyond it.
 * The states settles leave are exactly the ones rl_limiter_state_check
 * accepts beyond the checks': a level up to the debt cap, a TAT up to
 * last_ns + the debt cap, a log's sum up to 2 * RL_LIMIT_MAX.
 *
 * Returns RL_OK (also when nothing was left to settle), RL_ERANGE
 * (admitted_ns or now_ns outside [0, RL_TIME_MAX_NS], or admitted_ns
 * after now_ns) or RL_EINVAL (delta 0 or outside [-RL_COST_MAX,
 * RL_COST_MAX], an algorithm that does not settle); on an error the
 * state is unchanged.
 */
#ifndef RATELAB_SETTLE_H
#define RATELAB_SETTLE_H

#include <stdbool.h>
#include <stdint.h>

#include "ratelab/algo.h"

#ifdef __cplusplus
extern "C" {
#endif

int rl_limiter_settle(const struct rl_limiter *lim, void *state, int64_t admitted_ns, int64_t delta,
		      int64_t now_ns);

/* True when algo settles (the list above: every algorithm with a fixed
 * per-key state). */
bool rl_algo_settles(const struct rl_algo *algo);

/*
 * The wait until the key's full quota is back at now_ns (clamped to its
 * last seen time), ns, leaving state unchanged: the reset_ns a check that
 * can never be admitted would answer there (algo.h). The Redis backends
 * give a settled key this TTL (plus grace), as a check's answer gives it.
 * RL_ERANGE for now_ns outside [0, RL_TIME_MAX_NS], RL_EINVAL for an
 * algorithm that does not settle.
 */
int64_t rl_limiter_settled_reset_ns(const struct rl_limiter *lim, const void *state, int64_t now_ns);

#ifdef __cplusplus
}
#endif
#endif
