/*
 * sim_fleet.h - the local-plus-global mode (ratelab/fleet.h) in
 * simulated time: k nodes decide from local shares and sync with a
 * modelled store every S; the fleet's decisions are judged against one
 * exact central limiter. No Redis: a sync is one instantaneous exchange
 * with the store at the sync's instant (the same take/apply calls the
 * Redis node makes; test_fleet_node checks that both decide
 * alike).
 *
 * Model. K keys, each with a quota of N requests per window W. Requests
 * (cost 1) arrive as one Poisson stream of rate K * load * N / W, each
 * for a key drawn uniformly. Routing: random (each request to a node
 * drawn uniformly) or sticky (key i always to node i mod k). Node j's
 * clock reads true time + offset_j, offset_j uniform in [-skew, +skew]
 * (integer ns); it decides and names windows on its own clock. Node j
 * syncs every S from a phase uniform in [0, S): it writes its units of
 * each key's current window and reads the window's total; keys whose
 * window ended are dropped. While the store is down (in [outage_from,
 * outage_to) from the run's start) a sync fails: nothing is written or read and
 * the node decides from its shares (fleet.h).
 *
 * Reference: one exact central fixed window of N per W on true time.
 * Per key and true window [wW, (w+1)W) with `offered` requests of which
 * the fleet admitted `admitted`, the central limiter admits
 * min(offered, N); over-admission is max(0, admitted - N) (requests
 * beyond the quota) and false rejects are max(0, min(offered, N) -
 * admitted) (requests the central limiter would have taken and the fleet
 * did not). Summed over keys and windows; a window counts whole whatever
 * the order of the fleet's verdicts in it, as a fixed window's quota does.
 * Round trips: a sync that wrote at least one key is one round trip (one
 * pipelined batch); a central limiter in Redis pays one per request.
 *
 * Determinism: one seed gives the same arrivals, routes, offsets and
 * phases for every (k, S, routing, skew, outage) of one traffic setting
 * (separate sim_rng streams), so rows of a sweep differ by the mode only.
 */
#ifndef RATELAB_SIM_FLEET_H
#define RATELAB_SIM_FLEET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum sim_fleet_routing { SIM_FLEET_RANDOM, SIM_FLEET_STICKY };

#define SIM_FLEET_NODES_MAX 1024
#define SIM_FLEET_KEYS_MAX 100000

struct sim_fleet_config {
	int64_t limit;       /* N per key per window, 1..RL_LIMIT_MAX */
	int64_t window_ns;   /* W */
	int nodes;           /* k, 1..min(SIM_FLEET_NODES_MAX, N) */
	int64_t sync_ns;     /* S >= 1 */
	enum sim_fleet_routing routing;
	int64_t skew_ns;     /* >= 0, < W */
	int64_t outage_from_ns, outage_to_ns; /* store down in [from, to) from the start; from == to: never */
	int keys;            /* K, 1..SIM_FLEET_KEYS_MAX */
	int64_t load_pct;    /* offered per key, % of N per W, 1..10000 */
	int64_t duration_ns; /* simulated time, >= W, <= 10^6 W and 10 days */
	uint64_t seed;
};

struct sim_fleet_result {
	uint64_t requests, admitted, central_admitted;
	uint64_t over_admitted, false_rejects; /* requests; see the reference above */
	uint64_t round_trips;   /* successful syncs that wrote at least one key */
	uint64_t sync_failures; /* syncs during the outage with a key to write */
};

/* The defaults of `ratelab fleet`: N 100 per W 1 s, k 4, S 10 ms,
 * random routing, no skew, no outage, K 20 keys, load 125 %, 60 s, seed 1. */
struct sim_fleet_config sim_fleet_defaults(void);

/* True when every field is in its range above (and the run's work is
 * bounded: at most 5*10^8 expected requests and 10^9 syncs); else false
 * with a one-line reason naming the field and its value in msg. */
bool sim_fleet_valid(const struct sim_fleet_config *c, char *msg, size_t msg_len);

/* RL_OK, RL_EINVAL (not sim_fleet_valid; the reason in msg) or
 * RL_ENOMEM. */
int sim_fleet_run(const struct sim_fleet_config *c, struct sim_fleet_result *r, char *msg,
		  size_t msg_len);

#endif
