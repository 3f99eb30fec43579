/*
 * level_ops.h - private: one check of a struct rl_level (token_bucket,
 * leaky_bucket): the level at now, the request's fit, the level after.
 *
 * The level at now is the stored one less what drained since the last
 * seen time: max(0, level - min(now - last_ns, D) * N), D being the
 * longest any level takes to drain (struct rl__level_priv), so that the
 * product never exceeds the level's width by more than N. A request
 * admits iff level + x <= B * W, x being the part of its take that must
 * fit (all of it for token_bucket, all but the last unit for
 * leaky_bucket); then level += take. The time is recorded either way.
 *
 * Two widths, one result. When (B + 1) * W < 2^63
 * and (2 * B + 1) * W + N < 2^64 (rl__level_priv.narrow: every rule
 * of burst up to 10^9 with W up to 9 s, and longer windows with smaller
 * bursts) every value fits 64 bits, and the check
 * is a dozen one-word operations inline. Otherwise it runs in 128 bits,
 * out of line (level.c). A narrow limiter's levels keep level_hi at 0.
 *
 * A settle (settle.h) may leave a level in debt, up to the debt cap
 * 2 * B * W + extra_w (a bucket owed once more; extra_w as in
 * rl__level_state_ok): every level is at most (2 * B + 1) * W, which
 * drains in D ns, and a narrow one stays below 2^64 with the drained
 * amount (at most (2 * B + 1) * W + N): narrow also asks that of the rule
 * (level.c), which only rules with W < N and (B + 1) * W near 2^63 miss.
 */
#ifndef RATELAB_LEVEL_OPS_H
#define RATELAB_LEVEL_OPS_H

#include "arith.h"
#include "ratelab/level.h"

/* The constants a level's algorithm derives from its rule (its rl_algo
 * init op: rl__level_init), in the limiter's private area. */
struct rl__level_priv {
	struct rl_wide burst_w; /* B * W: the bucket's depth in 1/W-request units */
	/* ceil((2 * B + 1) * W / N), the longest a level (one in debt too)
	 * takes to drain, capped at RL_TIME_MAX_NS + 1, ns */
	int64_t drain_ns;
	bool narrow; /* (B + 1) * W < 2^63 and (2 * B + 1) * W + N < 2^64: a level fits 64 bits */
};

static inline const struct rl__level_priv *rl__level_priv(const struct rl_limiter *lim)
{
	return (const struct rl__level_priv *)(const void *)lim->priv.bytes;
}

/* The init op of an algorithm kept as a level (token_bucket, leaky_bucket). */
int rl__level_init(struct rl_limiter *lim, char *msg, size_t msg_len);

/* A rule change (algo.h's rerule op) of a level: level.h states it. */
void rl__level_rerule(const struct rl_limiter *from, const struct rl_limiter *to, void *state, int64_t now);

/* The level's ranges (algo.h's state_ok op): last_ns a time, the level at
 * most the debt cap 2 * B * W + extra_w (token_bucket 0: an empty bucket
 * and B tokens owed; leaky_bucket W: the unit in service too), the
 * deepest a settle leaves (settle.h). */
bool rl__level_state_ok(const struct rl_limiter *lim, const void *state, uint64_t extra_w);

/* The deepest level a settle leaves: 2 * B * W + extra_w, in 1/W request. */
static inline rl__u128 rl__level_debt_cap(const struct rl_limiter *lim, uint64_t extra_w)
{
	return 2 * rl__wide_get(rl__level_priv(lim)->burst_w) + extra_w;
}

/* A settle of delta units at now_ns (settle.h, token_bucket.h,
 * leaky_bucket.h): the level at now plus delta * W, in [0, the debt cap];
 * last_ns = now. extra_w as in rl__level_state_ok. */
int rl__level_settle(const struct rl_limiter *lim, void *state, int64_t delta, int64_t now_ns, uint64_t extra_w);

/* The wait until the level drains to 0 at now_ns, ns: ceil(level / N). */
int64_t rl__level_reset_ns(const struct rl_limiter *lim, const void *state, int64_t now_ns);

/* The level's last seen time (algo.h's last_ns op). */
int64_t rl__level_last_ns(const void *state);

/* What one check did: admitted is all ones or zero; before is the level
 * at now before the request, in 1/W request. */
struct rl__level_step {
	uint64_t admitted;
	rl__u128 before;
};

static inline rl__u128 rl__level_load(const struct rl_level *st)
{
	return ((rl__u128)st->level_hi << 64) | st->level_lo;
}

/* ns since the last seen time, at most D: the level drained is it times N. */
static inline uint64_t rl__level_idle_ns(const struct rl_limiter *lim, int64_t now, int64_t last_ns)
{
	uint64_t d = (uint64_t)(now - last_ns);

	uint64_t most = (uint64_t)rl__level_priv(lim)->drain_ns;

	return d < most ? d : most;
}

/* The check of a wide limiter, in 128 bits, out of line (level.c). */
struct rl__level_step rl__level_check_wide(const struct rl_limiter *lim, struct rl_level *st, int64_t now_ns,
					 rl__u128 x, rl__u128 take, uint64_t ok);

/*
 * The check: ok is all ones when the request may be admitted at all (its
 * cost at most B), else zero; x and take are then at most (B + 1) * W.
 * The narrow path stores level + (take & admitted) without a branch: over
 * many keys the verdicts follow no pattern a predictor could learn. Its
 * values: level <= (B + 1) * W < 2^63, the drained amount below
 * (B + 1) * W + N, B * W - x + 1 computed from the limiter alone (it
 * wraps only when ok is zero, which clears the verdict).
 */
static RL_ALWAYS_INLINE struct rl__level_step
rl__level_check(const struct rl_limiter *lim, struct rl_level *st, int64_t now_ns, rl__u128 x, rl__u128 take,
	       uint64_t ok)
{
	if (!rl__level_priv(lim)->narrow)
		return rl__level_check_wide(lim, st, now_ns, x, take, ok);

	int64_t now = rl__clamp(now_ns, st->last_ns);
	uint64_t drained = rl__level_idle_ns(lim, now, st->last_ns) * (uint64_t)lim->rule.limit;
	uint64_t level = st->level_lo;
	uint64_t before = level > drained ? level - drained : 0;
	/* before + x <= B * W as before < B * W - x + 1: the borrow is the mask */
	uint64_t room = rl__opaque_u64((uint64_t)rl__wide_get(rl__level_priv(lim)->burst_w) - (uint64_t)x + 1);
	uint64_t admitted = -(uint64_t)(before < room) & ok;

	st->last_ns = now;
	st->level_lo = before + ((uint64_t)take & admitted);
	return (struct rl__level_step){ admitted, before };
}

/* True when the level has drained to 0 by now: the key is as good as new. */
static inline bool rl__level_empty(const struct rl_limiter *lim, const struct rl_level *st,
				  int64_t now_ns)
{
	int64_t now = rl__clamp(now_ns, st->last_ns);

	return rl__level_load(st) <=
	       (rl__u128)rl__level_idle_ns(lim, now, st->last_ns) * (uint64_t)lim->rule.limit;
}

#endif
