/*
 * registry_impl.h - the registry's representation, shared by its loader
 * (registry_load.c) and its runtime (registry.c). Private.
 */
#ifndef RATELAB_REGISTRY_IMPL_H
#define RATELAB_REGISTRY_IMPL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <threads.h>

#include "ratelab/registry.h"

struct client {
	char *id;
	size_t len;
	char tier_name[RL_TIER_NAME_MAX + 1];
	size_t tier; /* index, resolved after the parse */
	long line;
};

struct rl_registry {
	struct rl_tier *tiers;
	size_t ntiers;
	struct client *clients; /* sorted by (id bytes, length) */
	size_t nclients;
	size_t default_tier;
	_Atomic(struct rl_store *) *stores; /* per tier; NULL until its first check */
	uint64_t seed;                      /* key hash seed of every store, from getrandom */
	mtx_t create_lock;                  /* serialises store creation */
	bool lock_ok;                       /* create_lock was initialised */
};

/* Orders clients by (id bytes, length): the sort and the lookup. */
int rl_registry_client_cmp(const void *a, const void *b);

#endif
