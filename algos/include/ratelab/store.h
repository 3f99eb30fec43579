/*
 * store.h - the concurrent per-key store: key bytes -> per-key state of one
 * limiter, for every algorithm, with idle-key eviction and a hard cap.
 *
 * (Contract draft: the signatures below are fixed; the implementation and
 * the full concurrency contract are documented in store.c and here as they
 * land.)
 */
#ifndef RATELAB_STORE_H
#define RATELAB_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "ratelab/algo.h"

#ifdef __cplusplus
extern "C" {
#endif

struct rl_store;

/* What a check does for a new key when the store holds max_keys keys. */
enum rl_when_full {
	RL_FULL_EVICT,       /* reclaim the key nearest to full quota, then admit the new key */
	RL_FULL_FAIL_OPEN,   /* decide as a fresh key would, without storing it */
	RL_FULL_FAIL_CLOSED, /* reject, without storing it */
};

struct rl_store_config {
	const struct rl_limiter *limiter; /* must outlive the store */
	size_t max_keys;                  /* hard cap on stored keys, >= 1 */
	enum rl_when_full when_full;
};

struct rl_store_stats {
	size_t keys;            /* keys stored now */
	size_t slots;           /* table slots allocated */
	size_t bytes;           /* every byte the store holds: table, key bytes, state heap */
	uint64_t evicted_idle;  /* keys dropped because they were back at full quota */
	uint64_t evicted_full;  /* keys dropped to make room at the cap */
	uint64_t full_decided;  /* checks decided by the when_full policy */
};

int rl_store_create(struct rl_store **out, const struct rl_store_config *cfg);
void rl_store_destroy(struct rl_store *s);

/*
 * Decides one request of key (key_len bytes) at now_ns, as
 * rl_limiter_check does on the key's state. Thread-safe.
 */
int rl_store_check(struct rl_store *s, const void *key, size_t key_len, int64_t now_ns,
		   struct rl_decision *out);

void rl_store_stats(const struct rl_store *s, struct rl_store_stats *out);

#ifdef __cplusplus
}
#endif
#endif
