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
	bool range;  /* a CIDR range (ranges holds it), never matched as a literal id */
	bool host;   /* an address: ranges also holds it as a /32 or /128 (its other textual forms) */
};

/* A CIDR range of [clients]: an address family's first bits bits of addr. */
struct range {
	unsigned char addr[16]; /* network byte order; IPv4 in the first 4 bytes */
	int family;             /* 4 or 6 */
	int bits;               /* the prefix length: 0..32 or 0..128 */
	size_t tier;            /* index, resolved after the parse */
	long line;
	bool host;              /* an address id's /32 or /128 (client.host) */
	size_t client;          /* its client's index while loading (before the clients are sorted) */
};

struct rl_registry {
	struct rl_tier *tiers;
	size_t ntiers;
	struct client *clients; /* sorted by (id bytes, length) */
	size_t nclients;
	struct range *ranges; /* the clients that are CIDR ranges, longest prefix first */
	size_t nranges;
	size_t default_tier;
	_Atomic(struct rl_store *) *stores; /* per tier; NULL until its first check */
	/* per tier, NULL until a reload keeps a policy tier's store: the older
	 * policy limiters of the tier its store may still read (store.h,
	 * rl_store_reads_policy), freed once it does not, or with it */
	struct retired {
		struct rl_policy_limiter **pl;
		size_t n;
	} *retired;
	uint64_t seed;                      /* key hash seed of every store, from getrandom */
	mtx_t create_lock;                  /* serialises store creation */
	bool lock_ok;                       /* create_lock was initialised */
};

/* Orders clients by (id bytes, length): the sort and the lookup. */
int rl__registry_client_cmp(const void *a, const void *b);

/* text[0..len) as an IPv4 (family 4) or IPv6 (6) address into addr: its
 * family, or 0 when it is no address. */
int rl__registry_address(const char *text, size_t len, unsigned char addr[16]);

/* True when the first bits bits of a and b agree. */
bool rl__registry_prefix_match(const unsigned char *a, const unsigned char *b, int bits);

#endif
