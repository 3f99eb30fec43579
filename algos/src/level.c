/*
 * level.c - the constants a level derives from its rule, and the 128-bit
 * check of a struct rl_level (level_ops.h) for the limiters whose deepest
 * level, (B + 1) * W, reaches 2^63: the same result as the inline 64-bit
 * one, at a few more operations and a call.
 */
#include "level_ops.h"

int rl__level_init(struct rl_limiter *lim, char *msg, size_t msg_len)
{
	struct rl__level_priv *p = (struct rl__level_priv *)(void *)lim->priv.bytes;
	rl__u128 n = (rl__u128)lim->rule.limit, w = (rl__u128)lim->rule.window_ns, b = (rl__u128)lim->rule.burst;
	/* narrow: the deepest check, (B + 1) * W; drain: the deepest settle (level_ops.h) */
	rl__u128 deepest = (b + 1) * w, drain = rl__ceil_div((2 * b + 1) * w, n), no_drain = (rl__u128)RL_TIME_MAX_NS + 1;

	(void)msg;
	(void)msg_len;
	*p = (struct rl__level_priv){
		.burst_w = rl__wide_make(b * w),
		.drain_ns = (int64_t)(drain < no_drain ? drain : no_drain),
		/* level_ops.h: a level in debt and the drained amount, at most (2 * B + 1) * W + N, fit 64 bits */
		.narrow = deepest < (rl__u128)1 << 63 && (2 * b + 1) * w + n < (rl__u128)1 << 64,
	};
	return RL_OK;
}

/*
 * The 128-bit check. No sum wraps: a level is at most (2 * B + 1) * W < 2^101
 * (a settle's debt, settle.h), the drained amount below (RL_TIME_MAX_NS + 1) * N
 * < 2^102 and x, take at most RL_COST_MAX * W < 2^100.
 */
struct rl__level_step rl__level_check_wide(const struct rl_limiter *lim, struct rl_level *st, int64_t now_ns,
					 rl__u128 x, rl__u128 take, uint64_t ok)
{
	int64_t now = rl__clamp(now_ns, st->last_ns);
	rl__u128 drained = (rl__u128)rl__level_idle_ns(lim, now, st->last_ns) * (uint64_t)lim->rule.limit;
	rl__u128 level = rl__level_load(st);
	struct rl__level_step step = { 0, level > drained ? level - drained : 0 };

	step.admitted = -(uint64_t)(step.before + x <= rl__wide_get(rl__level_priv(lim)->burst_w)) & ok;
	rl__u128 after = step.admitted ? step.before + take : step.before;
	st->last_ns = now;
	st->level_lo = (uint64_t)after;
	st->level_hi = (uint64_t)(after >> 64);
	return step;
}

/* The level at now (>= last_ns) under lim's rule, drained as a check drains it. */
static rl__u128 level_at(const struct rl_limiter *lim, const struct rl_level *st, int64_t now)
{
	rl__u128 drained = (rl__u128)rl__level_idle_ns(lim, now, st->last_ns) * (uint64_t)lim->rule.limit;
	rl__u128 level = rl__level_load(st);

	return level > drained ? level - drained : 0;
}

/*
 * L1 = min(ceil(L0 * W1 / W0), B1 * W1) as q * W1 + ceil(r * W1 / W0),
 * q = L0 / W0 and r = L0 % W0 (level.h): L0 <= (B0 + 1) * W0 gives
 * q <= B0 + 1 < 2^40, so q * W1 < 2^100 and r * W1 < 2^120: no product
 * wraps, no word is dropped.
 */
void rl__level_rerule(const struct rl_limiter *from, const struct rl_limiter *to, void *state, int64_t now)
{
	struct rl_level *st = state;
	rl__u128 l0 = level_at(from, st, now), l1;
	rl__u128 w0 = (uint64_t)from->rule.window_ns, w1 = (uint64_t)to->rule.window_ns;
	rl__u128 cap = rl__wide_get(rl__level_priv(to)->burst_w);

	if (w0 == w1)
		l1 = l0;
	else
		l1 = l0 / w0 * w1 + rl__ceil_div(l0 % w0 * w1, w0);
	if (l1 > cap)
		l1 = cap;
	st->last_ns = now;
	st->level_lo = (uint64_t)l1;
	st->level_hi = (uint64_t)(l1 >> 64);
}

bool rl__level_state_ok(const struct rl_limiter *lim, const void *state, uint64_t extra_w)
{
	const struct rl_level *st = state;

	return rl__time_ok(st->last_ns) && rl__level_load(st) <= rl__level_debt_cap(lim, extra_w);
}

/*
 * The level at now plus delta * W, in [0, 2 * B * W + extra_w]: |delta| * W
 * <= 10^27 < 2^90 and the level below 2^91, so the sum is exact in 128
 * bits. The level is kept as of its last seen time, so that moves to now.
 */
int rl__level_settle(const struct rl_limiter *lim, void *state, int64_t delta, int64_t now_ns, uint64_t extra_w)
{
	struct rl_level *st = state;
	int64_t now = rl__clamp(now_ns, st->last_ns);
	rl__u128 level = level_at(lim, st, now), cap = rl__level_debt_cap(lim, extra_w);
	rl__u128 units = (rl__u128)(delta < 0 ? -(uint64_t)delta : (uint64_t)delta) * (uint64_t)lim->rule.window_ns;

	if (delta > 0)
		level = level + units < cap ? level + units : cap;
	else
		level = level > units ? level - units : 0;
	st->last_ns = now;
	st->level_lo = (uint64_t)level;
	st->level_hi = (uint32_t)(level >> 64);
	return RL_OK;
}

int64_t rl__level_reset_ns(const struct rl_limiter *lim, const void *state, int64_t now_ns)
{
	const struct rl_level *st = state;

	return rl__sat_ns(rl__ceil_div(level_at(lim, st, rl__clamp(now_ns, st->last_ns)), (uint64_t)lim->rule.limit));
}

int64_t rl__level_last_ns(const void *state)
{
	return ((const struct rl_level *)state)->last_ns;
}
