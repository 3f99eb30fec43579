/*
 * arith.h - private helpers for exact integer time arithmetic.
 */
#ifndef RATELAB_ARITH_H
#define RATELAB_ARITH_H

#include <stdint.h>
#include <string.h>

#include "compat.h"
#include "ratelab/algo.h"

/*
 * The 128-bit value of a struct rl_wide, and back. On a little-endian
 * target the words are the value's own bytes: one 16-byte load, which
 * GCC allocates better than the shift and or (measured: leaky_bucket's
 * check kept a spill otherwise).
 */
static inline rl__u128 rl__wide_get(struct rl_wide w)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	rl__u128 v;
	memcpy(&v, &w, sizeof(v));
	return v;
#else
	return ((rl__u128)w.hi << 64) | w.lo;
#endif
}

static inline struct rl_wide rl__wide_make(rl__u128 v)
{
	struct rl_wide w = { (uint64_t)v, (uint64_t)(v >> 64) };
	return w;
}

static inline rl__u128 rl__ceil_div(rl__u128 a, rl__u128 b)
{
	return a / b + (a % b != 0);
}

/* A non-negative 128-bit duration as int64, saturated at RL_DURATION_MAX_NS. */
static inline int64_t rl__sat_ns(rl__u128 v)
{
	return v > (rl__u128)RL_DURATION_MAX_NS ? RL_DURATION_MAX_NS : (int64_t)v;
}

/* A non-negative 128-bit count as int64, saturated at INT64_MAX. */
static inline int64_t rl__sat_count(rl__u128 v)
{
	return v > (rl__u128)INT64_MAX ? INT64_MAX : (int64_t)v;
}

/*
 * How many windows [kW, (k+1)W) a closed interval of span_ns >= 0 can
 * meet: ceil(span / W) + 1 (it meets one more than it covers when it starts
 * at a window's last ns).
 */
static inline rl__u128 rl__windows_met(int64_t span_ns, int64_t window_ns)
{
	return rl__ceil_div((rl__u128)span_ns, (rl__u128)window_ns) + 1;
}

static inline int rl__time_ok(int64_t now_ns)
{
	return (uint64_t)now_ns <= (uint64_t)RL_TIME_MAX_NS;
}

static inline int rl__cost_ok(int64_t cost)
{
	return (uint64_t)cost - 1 < (uint64_t)RL_COST_MAX;
}

/* The backwards-clock rule: a time before the key's last seen one counts as it. */
static inline int64_t rl__clamp(int64_t now_ns, int64_t last_ns)
{
	return now_ns < last_ns ? last_ns : now_ns;
}

/*
 * rl__clamp for a check that records the time on every path: returns the
 * clamped time and records now_ns as the key's last seen time unless the
 * clock went back. The stored value is now_ns itself, behind a branch that
 * is predicted (clocks seldom step back), not the clamped time: so the
 * next check of the key does not wait on this one's load of last_ns, which
 * stays off the loop-carried chain through the key's state.
 */
static inline int64_t rl__clamp_record(int64_t *last_ns, int64_t now_ns)
{
	int64_t last = *last_ns;

	if (now_ns < last)
		return last;
	*last_ns = now_ns;
	return now_ns;
}

#endif
