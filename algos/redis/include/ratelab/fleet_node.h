/*
 * fleet_node.h - a fleet node (fleet.h) that syncs its counts through
 * Redis, or a Redis Cluster: part of the Redis backend's library
 * (libratelab_redis), built and installed only when hiredis is found.
 *
 * Concurrency: an rl_fleet_node is single-threaded (one node per thread or
 * process).
 */
#ifndef RATELAB_FLEET_NODE_H
#define RATELAB_FLEET_NODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ratelab/fleet.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A node backed by Redis.
 * Keeps a state per key (at most max_keys; states of ended windows are
 * dropped at each sync) and syncs every key at once: one pipelined round
 * trip of "HSET <prefix>{<key>}:<window> <j> <mine>" (j: the node's
 * index, decimal), "PEXPIRE ... <2W in ms>" and "HVALS ..." per key (G
 * is the sum of the values; the hash tag keeps a key's windows on one
 * cluster node; the TTL lets ended windows vanish: Redis counts it in
 * real time, so a caller replaying logical time faster than real time
 * needs 2W of real time to cover a window's life).
 * rl_fleet_node_check syncs first when now_ns has reached the next sync
 * time (the previous sync's time + sync_interval_ns), then decides from
 * the local state: only every S-th instant pays a round trip.
 * Failures (Redis down, slow beyond command_timeout_ms, an error reply)
 * never fail a check: they are counted (sync_failures, once per sync
 * with any key failed) and the node decides by its shares; each key's
 * sync stands alone (others on a live master still apply); the
 * connection is reopened at the next sync (reconnects), so the sync
 * interval is the retry backoff.
 */
struct rl_fleet_node_opts {
	const char *host;         /* Redis server, e.g. "127.0.0.1" (unused with cluster) */
	int port;
	int connect_timeout_ms;   /* 0 means 200 */
	int command_timeout_ms;   /* 0 means 200 */
	int64_t sync_interval_ns; /* S >= 1 ns */
	size_t max_keys;          /* >= 1; a new key beyond it is RL_EFULL */
	const char *prefix;       /* Redis key prefix; NULL means "rl:lg:" */
	const char *cluster;      /* Redis Cluster seeds "host:port[,host:port...]":
				     each key's commands go to its slot's master,
				     one pipelined batch per master; NULL: one server */
};

struct rl_fleet_node_stats {
	uint64_t checks;        /* decisions made */
	uint64_t syncs;         /* syncs attempted (each at most one round trip) */
	uint64_t round_trips;   /* syncs that sent their batch (through a cluster:
				   one per master, in parallel, counted once) */
	uint64_t sync_failures; /* syncs that failed, fully or for some keys */
	uint64_t reconnects;    /* connections opened after the first */
	uint64_t keys;          /* states held now */
};

struct rl_fleet_node;

/* RL_OK, RL_EINVAL (opts out of range) or RL_ENOMEM. Does not need Redis
 * to be up: the first sync connects. */
int rl_fleet_node_create(const struct rl_fleet *lg, const struct rl_fleet_node_opts *opts,
		      struct rl_fleet_node **out);
void rl_fleet_node_destroy(struct rl_fleet_node *n);

/* As rl_fleet_check for key[0..key_len), syncing first when due; RL_EFULL
 * for a new key when max_keys states are held, RL_ENOMEM. */
int rl_fleet_node_check(struct rl_fleet_node *n, const char *key, size_t key_len, int64_t now_ns,
		     int64_t cost, struct rl_decision *out);

/* Syncs every key now (and sets the next sync to now + S). RL_OK, or
 * RL_EINVAL for a bad time; a Redis failure is RL_OK with sync_failures
 * counted (see above) and reported through *failed (may be NULL). */
int rl_fleet_node_sync(struct rl_fleet_node *n, int64_t now_ns, bool *failed);

void rl_fleet_node_get_stats(const struct rl_fleet_node *n, struct rl_fleet_node_stats *out);

#ifdef __cplusplus
}
#endif
#endif
