/*
 * settle.h - costs settled after the response: a request admitted with an
 * estimated cost c is settled, once its real cost a is known, by
 * delta = a - c units: delta > 0 charges more (which may leave the key in
 * debt: later requests wait), delta < 0 refunds (never more than that
 * request took: the caller passes delta >= -c; never above the quota).
 *
 * rl_limiter_settle(lim, state, admitted_ns, delta, now_ns) settles the
 * request admitted at admitted_ns on the key's state, at now_ns (clamped
 * to the key's last seen time, as a check's time is; the last seen time
 * does not move: a settle is not a request). Each algorithm that settles
 * states its meaning in its header:
 *   fixed_window     only within the admission's window (count += delta,
 *                    at least 0, at most N: a window full is as full as
 *                    it gets, its requests refused until it ends);
 *   sliding_log      the run at admitted_ns, while it is in the window
 *                    (count += delta, at least 0); nothing once it has
 *                    left; a charge may put the window above N (debt:
 *                    remaining answers 0 until it is paid);
 *   sliding_counter  the counter of the admission's window while it is
 *                    the current or the previous one (at least 0, at most
 *                    N, as the counters are kept); nothing before.
 * token_bucket, gcra and leaky_bucket do not settle yet: RL_EINVAL.
 *
 * Returns RL_OK (also when nothing was left to settle), RL_ERANGE
 * (admitted_ns or now_ns outside [0, RL_TIME_MAX_NS], or admitted_ns
 * after now_ns) or RL_EINVAL (delta 0 or outside [-RL_COST_MAX,
 * RL_COST_MAX], an algorithm that does not settle, or a sliding_log
 * charge that would put a window above RL_SLIDING_LOG_UNITS_MAX, 2^52
 * units); on an error the
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

/* True when algo settles (the list above). */
bool rl_algo_settles(const struct rl_algo *algo);

#ifdef __cplusplus
}
#endif
#endif
