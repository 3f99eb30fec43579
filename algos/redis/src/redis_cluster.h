/*
 * redis_cluster.h - private: Redis Cluster routing on hiredis 0.14, which
 * has no cluster support of its own. Used by the Redis backend
 * (algos/src/redis*.c); not installed, not part of the public API.
 *
 * Model: the cluster's 16384 hash slots each belong to one master. A key's
 * slot is CRC16-XMODEM of the key (or of its hash tag, below) mod 16384;
 * the client keeps a slot -> node map read with CLUSTER SLOTS from any
 * reachable node and sends each command to the node its key's slot maps
 * to. A node that does not own the slot answers
 *   -MOVED <slot> <host>:<port>  the slot has moved for good: the client
 *                                re-reads the whole map (CLUSTER SLOTS)
 *                                and resends to the named node;
 *   -ASK <slot> <host>:<port>    the slot is being migrated and this key
 *                                is already on the target: the client
 *                                resends this one command to the named
 *                                node preceded by ASKING, map unchanged.
 * At most max_redirects redirections are followed per command; one more
 * is RL_RC_EREDIRECT.
 *
 * Hash tags (Redis cluster spec): if the key contains '{' and a later '}'
 * with at least one byte between the first '{' and the first '}' after
 * it, only those bytes are hashed. So "{user1}.tokens" and
 * "{user1}.seen" share a slot, "foo{}{bar}" hashes the whole key and
 * "foo{{bar}}" hashes "{bar". The backend names every Redis key that
 * holds one limiter key's state "<prefix>{<key>}<suffix>" so one key's
 * state stays on one node and a script may touch all of it.
 *
 * Timeouts: connect_timeout_ms bounds each connection attempt and
 * command_timeout_ms each read or write on a connection (hiredis
 * SO_RCVTIMEO / SO_SNDTIMEO). A connection that errs or times out is
 * dropped and reopened on its node's next use (counted in reconnects);
 * a command whose request may have reached Redis is never resent (an
 * EVALSHA is not idempotent): the caller gets RL_RC_EIO and decides by
 * its policy.
 *
 * Concurrency: a struct rl__rcluster is single-threaded (one per thread,
 * as a hiredis context is).
 */
#ifndef RATELAB_REDIS_CLUSTER_H
#define RATELAB_REDIS_CLUSTER_H

#include <stddef.h>
#include <stdint.h>

#include <hiredis/hiredis.h>

#include "ratelab/status.h"

#define RL_REDIS_SLOTS 16384

/* Its failures are rl_status's RL_RC_* (status.h): RL_RC_EIO, RL_RC_EPROTO,
 * RL_RC_EREDIRECT, RL_RC_ENOSLOT. */

/* The slot of key[0..len): CRC16-XMODEM (poly 0x1021, init 0) mod 16384,
 * of the hash tag when there is one (rules above). */
uint16_t rl__redis_key_slot(const char *key, size_t len);

/* CRC16-XMODEM of buf[0..len), as Redis computes it ("123456789" -> 0x31C3). */
uint16_t rl__redis_crc16(const char *buf, size_t len);

struct rl__rcluster_opts {
	int connect_timeout_ms; /* > 0; 0 means 1000 */
	int command_timeout_ms; /* > 0; 0 means 1000 */
	int max_redirects;      /* >= 0 redirections followed per command; -1 means 5 */
};

struct rl__rcluster_stats {
	uint64_t moved;      /* MOVED replies followed */
	uint64_t ask;        /* ASK replies followed */
	uint64_t refreshes;  /* slot maps read (CLUSTER SLOTS), the first included */
	uint64_t connects;   /* connections opened, the first per node included */
	uint64_t reconnects; /* connections reopened after an error or timeout */
};

struct rl__rcluster;

/*
 * Connects to the first reachable seed of "host:port[,host:port...]" and
 * reads the slot map. Returns RL_OK and *out, or RL_EINVAL (malformed
 * seeds or options), RL_ENOMEM, RL_RC_EIO (no seed reachable),
 * RL_RC_EPROTO (not a cluster node, or a malformed CLUSTER SLOTS reply);
 * on failure writes a one-line reason into err (when not NULL).
 * opts may be NULL (all defaults).
 */
int rl__rcluster_create(const char *seeds, const struct rl__rcluster_opts *opts,
		       struct rl__rcluster **out, char *err, size_t err_len);
/* Closes every connection and frees c; NULL is a no-op. */
void rl__rcluster_destroy(struct rl__rcluster *c);

/* Re-reads the slot map from a reachable known node. RL_OK or as create. */
int rl__rcluster_refresh(struct rl__rcluster *c);

/*
 * Runs one command whose key is key[0..key_len) (its slot picks the node;
 * the key must also appear among argv, as Redis checks) and stores
 * Redis's reply in *reply (free it with freeReplyObject). A reply may be
 * an error reply (REDIS_REPLY_ERROR) other than MOVED/ASK, e.g. NOSCRIPT
 * or WRONGTYPE: that is RL_OK, the caller reads it. Returns RL_OK,
 * RL_RC_EIO, RL_RC_EREDIRECT, RL_RC_ENOSLOT or RL_ENOMEM with *reply NULL.
 */
int rl__rcluster_command(struct rl__rcluster *c, const char *key, size_t key_len, int argc,
			const char **argv, const size_t *argvlen, redisReply **reply);

/* One command of a batch, as rl__rcluster_command's arguments. */
struct rl__rcluster_req {
	const char *key;
	size_t key_len;
	int argc;
	const char **argv;
	const size_t *argvlen;
};

/*
 * Runs n commands in one round trip per node: groups them by their slot's
 * node, pipelines each group (all groups are sent before any reply is
 * read), then resends the ones answered MOVED or ASK one by one, in
 * request order, following redirections as rl__rcluster_command does.
 * Commands on one node run in request order, so two requests for one key
 * (one slot) keep their order. replies[i] receives the reply to reqs[i]
 * or NULL when that command failed. Returns RL_OK when every command got
 * a reply, else the first failure's code (the others' replies are still
 * stored and must be freed).
 */
int rl__rcluster_batch(struct rl__rcluster *c, size_t n, const struct rl__rcluster_req *reqs,
		      redisReply **replies);

/* The node a slot maps to now as "host:port" (NULL if none), for tests. */
const char *rl__rcluster_slot_node(const struct rl__rcluster *c, uint16_t slot);

void rl__rcluster_get_stats(const struct rl__rcluster *c, struct rl__rcluster_stats *out);

#endif
