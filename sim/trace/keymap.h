/*
 * keymap.h - a single-threaded map from key bytes to zero-initialised
 * per-key state of a fixed size, for the commands that replay traces.
 * Open addressing with linear probing; keys are copied into an arena and
 * hashed with rl_store_hash under a secret per-map seed (crafted keys
 * cannot collide on purpose).
 * (The concurrent, evicting store for services is rl_store.)
 */
#ifndef RATELAB_KEYMAP_H
#define RATELAB_KEYMAP_H

#include <stddef.h>
#include <stdint.h>

struct sim_keymap {
	size_t state_size;   /* bytes per state, rounded up to 16 */
	uint64_t seed;       /* of the key hash */
	size_t cap;          /* slots, a power of two */
	size_t len;          /* keys held */
	uint64_t *hashes;    /* per slot; 0 = empty */
	size_t *key_at;      /* per slot: offset of the key in arena */
	uint32_t *key_len;   /* per slot */
	unsigned char *states; /* per slot, state_size bytes */
	char *arena;
	size_t arena_len, arena_cap;
};

/*
 * The seed comes from the system's random source, or from the environment
 * variable RATELAB_HASH_SEED when it is set (a non-negative integer: the
 * same layout and instruction counts in every run, as the perf gate
 * needs; an attacker who knows it can pile keys up again). RL_OK,
 * RL_ENOMEM, RL_EINVAL (RATELAB_HASH_SEED set but no such integer) or
 * RL_EIO (no random seed from the system).
 */
#define SIM_HASH_SEED_ENV "RATELAB_HASH_SEED"
int sim_keymap_init(struct sim_keymap *m, size_t state_size);
/* The same with a given seed: a reproducible layout (tests). */
int sim_keymap_init_seed(struct sim_keymap *m, size_t state_size, uint64_t seed);
void sim_keymap_destroy(struct sim_keymap *m);

/*
 * The state of key (len bytes), inserted zeroed when absent; NULL when out
 * of memory. The pointer is valid until the next insertion.
 */
void *sim_keymap_get(struct sim_keymap *m, const char *key, size_t len);

/* Calls fn on every state. */
void sim_keymap_each(struct sim_keymap *m, void (*fn)(void *state, void *arg), void *arg);

#endif
