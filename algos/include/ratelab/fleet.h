/*
 * fleet.h - a fleet, local plus global: k nodes share one quota of N units
 * per window of W ns; each node decides from a local share at once and
 * syncs its counts with a shared store (Redis) every S ns, so a fleet
 * pays about one round trip per node per S instead of one per request.
 * Approximate by design; the simulator (`ratelab fleet`) measures what
 * it costs against one exact central limiter.
 *
 * Model, per key and node. The nodes are numbered j = 0 .. k-1, and
 * part_j(x) = floor(x / k) + (j < x mod k) is node j's part of x units:
 * the k parts of x sum to exactly x. Windows are fixed, [wW, (w+1)W) on
 * the node's clock; the store holds, per window w and node j, m_j(w):
 * the units node j admitted in w as of its last sync, and
 * G(w) = sum over j of m_j(w). A node keeps, for its key's current window:
 *   global   G(w) as the store answered at this node's last sync;
 *   pushed   its own m_j(w) the store acknowledged;
 *   pending  units it admitted since, not yet acknowledged;
 *   share    units it may still admit before its next sync.
 * - First request of a window: global = pushed = pending = 0,
 *   share = part_j(N) (a node knows nothing of the others yet).
 * - A request of cost c is admitted iff c <= share; then share -= c and
 *   pending += c. Nothing else: no store access on the decision path.
 * - A sync writes m_j(w) = pushed + pending (a value, not an increment:
 *   a sync that timed out but reached the store, or is sent twice,
 *   counts once) and reads back G: then pushed = m_j(w), global = G and
 *   share = part_j(max(0, N - G - p)), where p is what was admitted
 *   between taking pending and the answer (0 when the sync is one
 *   blocking round trip). With every node in the window synced at one G
 *   the shares sum to exactly N - G: nodes in step never over-admit, and
 *   when all are busy they can use the whole quota. A lone busy node
 *   (sticky routing) gets only its part of what is left at each sync:
 *   after m syncs it has reached about N (1 - ((k - 1) / k)^m), so it
 *   pays false rejects unless S is small against W.
 * - A window that ends drops its unpushed pending (the next window starts
 *   afresh; only nodes whose clocks lag could have used it).
 * - Store unreachable: a node keeps deciding from its shares (a new
 *   window starts at part_j(N) again), so a fleet admits at most N per
 *   window in sum from shares that start fresh, but cannot lend one
 *   node's unused part to another; pending units of the current window
 *   are kept and written when the store answers again.
 * Over-admission comes from nodes out of step: a node's share is computed
 * from G, which misses what others admitted since their last push; a
 * node that enters a window after others synced in it starts from
 * part_j(N) unaware of G; clock skew shifts a node's windows. All but
 * the skew shrink with S.
 *
 * Answers (struct rl_decision): remaining = share after this request;
 * retry_after_ns = 0 when admitted, else the wait to the window's end
 * (a new share for sure; a sync may come sooner), or RL_DURATION_MAX_NS
 * when c > part_j(N), which no share of this node can ever hold;
 * reset_ns = the wait to the window's end; delay_ns = 0.
 * Time: a now_ns before the key's last seen time is clamped to it, as in
 * algo.h. Costs: 1 <= c <= RL_COST_MAX, else RL_EINVAL, state unchanged.
 *
 * The node that syncs through Redis is ratelab/fleet_node.h (the Redis
 * backend's library).
 *
 * Concurrency: rl_fleet is immutable after init; a state is
 * single-threaded (one node per thread or process).
 */
#ifndef RATELAB_FLEET_H
#define RATELAB_FLEET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ratelab/algo.h"
#include "ratelab/static_assert.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RL_FLEET_NODES_MAX 4096

/* The shared rule, N units per window W over k nodes, as node j sees it. */
struct rl_fleet {
	int64_t limit;       /* N: units per window, all nodes together */
	int64_t window_ns;   /* W, ns */
	int64_t nodes;       /* k */
	int64_t index;       /* j, this node's number in [0, k) */
	int64_t fresh_share; /* part_j(N): a window's first share, units */
};

/* One key's state at one node; zeroed is a fresh key. */
struct rl_fleet_state {
	int64_t epoch;   /* window index + 1 the counts belong to; 0: none yet */
	int64_t last_ns; /* last seen time, ns (the backwards-clock clamp) */
	int64_t global;  /* units, G of the window at the last sync */
	int64_t pushed;  /* units, this node's m_j acknowledged by the store */
	int64_t pending; /* units admitted here, not yet acknowledged */
	int64_t share;   /* units admissible here until the next sync */
};
RL_STATIC_ASSERT(sizeof(struct rl_fleet_state) == 48, "an rl_fleet_state is 48 bytes");

/* For node index of nodes: RL_OK, or RL_EINVAL (rule out of
 * rl_rule_validate's ranges, nodes outside [1, min(RL_FLEET_NODES_MAX,
 * limit)], index outside [0, nodes)) with a one-line reason in msg (when
 * not NULL). Each node of a fleet has its own index. */
int rl_fleet_init(struct rl_fleet *lg, int64_t limit, int64_t window_ns, int64_t nodes, int64_t index,
	       char *msg, size_t msg_len);

/* Decides one request of cost units at now_ns (the model above):
 * RL_ALLOWED, RL_REJECTED, RL_EINVAL (cost) or RL_ERANGE (time). */
int rl_fleet_check(const struct rl_fleet *lg, struct rl_fleet_state *st, int64_t now_ns, int64_t cost,
		struct rl_decision *out);

/*
 * A sync in two halves, so that the round trip may be pipelined over
 * many keys. rl_fleet_sync_take: when the key's window is still the current
 * one at now_ns, stores the window index in *window and this node's
 * units in it, pushed + pending, in *mine (pending = 0) and returns true:
 * the caller sets the store's m_j(*window) = *mine, reads G(*window) and
 * passes both to rl_fleet_sync_apply, or, if the store failed, *mine to
 * rl_fleet_sync_failed (its unacknowledged units become pending again).
 * Returns false when the window is over (nothing to write; the state may
 * be dropped).
 */
bool rl_fleet_sync_take(const struct rl_fleet *lg, struct rl_fleet_state *st, int64_t now_ns,
		     int64_t *window, int64_t *mine);
void rl_fleet_sync_apply(const struct rl_fleet *lg, struct rl_fleet_state *st, int64_t window,
		      int64_t mine, int64_t total);
void rl_fleet_sync_failed(struct rl_fleet_state *st, int64_t window, int64_t mine);

#ifdef __cplusplus
}
#endif
#endif
