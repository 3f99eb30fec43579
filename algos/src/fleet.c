/*
 * fleet.c - model: fleet.h. One key's state at one node:
 * the window it counts for, G at the last sync, units admitted since,
 * and the share left.
 *
 * Invariants: for the window epoch - 1, 0 <= share <= part_j(N),
 * pending >= 0, and pushed + pending (plus what a sync has taken and not
 * yet applied or failed) is exactly the units this node admitted in it;
 * a check changes nothing but last_ns unless it admits; an admission
 * moves exactly c units from share to pending.
 */
#include "ratelab/fleet.h"

#include <stdio.h>

#include "arith.h"

/* Node j's part of x units: the k parts sum to x (fleet.h). */
static int64_t part(const struct rl_fleet *lg, int64_t x)
{
	return x / lg->nodes + (lg->index < x % lg->nodes);
}

int rl_fleet_init(struct rl_fleet *lg, int64_t limit, int64_t window_ns, int64_t nodes, int64_t index,
	       char *msg, size_t msg_len)
{
	struct rl_rule rule = rl_rule_make(limit, window_ns);
	int s = rl_rule_validate(&rule, msg, msg_len);

	if (s != RL_OK)
		return s;
	if (nodes < 1 || nodes > RL_FLEET_NODES_MAX || nodes > limit) {
		if (msg && msg_len)
			snprintf(msg, msg_len, "nodes %lld out of range [1, min(%d, limit %lld)]",
				 (long long)nodes, RL_FLEET_NODES_MAX, (long long)limit);
		return RL_EINVAL;
	}
	if (index < 0 || index >= nodes) {
		if (msg && msg_len)
			snprintf(msg, msg_len, "node index %lld out of range [0, %lld)", (long long)index,
				 (long long)nodes);
		return RL_EINVAL;
	}
	lg->limit = limit;
	lg->window_ns = window_ns;
	lg->nodes = nodes;
	lg->index = index;
	lg->fresh_share = part(lg, limit);
	return RL_OK;
}

/* The state's window at now (clamped), starting a fresh one if needed. */
static int64_t enter(const struct rl_fleet *lg, struct rl_fleet_state *st, int64_t now)
{
	int64_t w = now / lg->window_ns;

	if (st->epoch != w + 1) {
		st->epoch = w + 1;
		st->global = 0;
		st->pushed = 0;
		st->pending = 0;
		st->share = lg->fresh_share;
	}
	return w;
}

int rl_fleet_check(const struct rl_fleet *lg, struct rl_fleet_state *st, int64_t now_ns, int64_t cost,
		struct rl_decision *out)
{
	if (cost < 1 || cost > RL_COST_MAX)
		return RL_EINVAL;
	if (!rl__time_ok(now_ns))
		return RL_ERANGE;

	int64_t now = rl__clamp(now_ns, st->last_ns);
	int64_t w = enter(lg, st, now);
	int verdict = cost <= st->share ? RL_ALLOWED : RL_REJECTED;

	st->last_ns = now;
	if (verdict) {
		st->share -= cost;
		st->pending += cost;
	}
	if (out) {
		int64_t end = (w + 1) * lg->window_ns - now; /* <= W: no overflow */

		out->remaining = st->share;
		out->retry_after_ns = verdict ? 0 : cost > lg->fresh_share ? RL_DURATION_MAX_NS : end;
		out->reset_ns = end;
		out->delay_ns = 0;
	}
	return verdict;
}

bool rl_fleet_sync_take(const struct rl_fleet *lg, struct rl_fleet_state *st, int64_t now_ns,
		     int64_t *window, int64_t *mine)
{
	int64_t now = rl__clamp(now_ns, st->last_ns);

	if (st->epoch == 0 || st->epoch != now / lg->window_ns + 1)
		return false;
	*window = st->epoch - 1;
	*mine = st->pushed + st->pending;
	st->pending = 0;
	return true;
}

void rl_fleet_sync_apply(const struct rl_fleet *lg, struct rl_fleet_state *st, int64_t window,
		      int64_t mine, int64_t total)
{
	if (st->epoch != window + 1)
		return; /* the window ended while the answer travelled */
	int64_t left = lg->limit - total - st->pending;

	st->pushed = mine;
	st->global = total;
	st->share = left > 0 ? part(lg, left) : 0;
}

void rl_fleet_sync_failed(struct rl_fleet_state *st, int64_t window, int64_t mine)
{
	if (st->epoch == window + 1)
		st->pending += mine - st->pushed;
}
