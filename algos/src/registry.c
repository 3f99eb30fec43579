/*
 * registry.c - model: a loaded registry (registry_load.c) resolves a
 * client by binary search over the sorted ids, else, for a client that is
 * an IPv4 or IPv6 address, by the longest CIDR range of [clients] that
 * holds it, else the default tier, and decides in the tier's store.
 *
 * Stores are created lazily, on the first check of their tier, so that
 * loading (and `ratelab check`) validates a max_keys of up to
 * RL_STORE_MAX_KEYS without allocating its table (store.h: about 24 to 43
 * bytes per key, more with heap-owning states). Creation is serialised by
 * the registry's mutex and published with a release store; checks read
 * the pointer with an acquire load, so the lock is taken only until a
 * tier's store exists (or while its allocation keeps failing, which
 * on_error then decides).
 *
 * Invariant: after a successful load every client maps to a defined tier,
 * every limited tier has a valid limiter, its store slot is NULL or its
 * own store, and nothing else changes until destroy.
 */
#define _POSIX_C_SOURCE 200809L

#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arith.h"
#include "registry_impl.h"

int rl__registry_client_cmp(const void *a, const void *b)
{
	const struct client *x = a, *y = b;
	int c = memcmp(x->id, y->id, x->len < y->len ? x->len : y->len);

	return c ? c : (x->len > y->len) - (x->len < y->len);
}

int rl__registry_address(const char *text, size_t len, unsigned char addr[16])
{
	char buf[INET6_ADDRSTRLEN];

	if (len == 0 || len >= sizeof(buf) || memchr(text, '\0', len))
		return 0;
	memcpy(buf, text, len);
	buf[len] = '\0';
	if (inet_pton(AF_INET, buf, addr) == 1)
		return 4;
	return inet_pton(AF_INET6, buf, addr) == 1 ? 6 : 0;
}

bool rl__registry_prefix_match(const unsigned char *a, const unsigned char *b, int bits)
{
	int whole = bits / 8, rest = bits % 8;

	if (memcmp(a, b, (size_t)whole) != 0)
		return false;
	return !rest || ((a[whole] ^ b[whole]) & (unsigned char)(0xff << (8 - rest))) == 0;
}

/*
 * The tier of the longest range holding client, an address in any textual
 * form (inet_pton's), or NULL. An IPv4-mapped IPv6 address
 * (::ffff:a.b.c.d, as a dual-stack server reports an IPv4 client) is also
 * its IPv4 address: IPv4 ranges hold it, an IPv4 /b counting as the IPv6
 * /(96 + b) it is, so the longest of both families wins.
 */
static const struct rl_tier *range_tier(const struct rl_registry *r, const char *client, size_t len)
{
	static const unsigned char mapped_prefix[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	unsigned char addr[16];
	int family = rl__registry_address(client, len, addr);
	bool mapped = family == 6 && memcmp(addr, mapped_prefix, sizeof(mapped_prefix)) == 0;
	const unsigned char *v4 = mapped ? addr + 12 : addr;
	const struct range *best = NULL;
	int best_bits = -1;

	for (size_t i = 0; family && i < r->nranges; i++) { /* longest prefix first */
		const struct range *g = &r->ranges[i];
		int bits;
		if (g->family == 6 && family == 6 && rl__registry_prefix_match(g->addr, addr, g->bits))
			bits = g->bits;
		else if (g->family == 4 && (family == 4 || mapped) && rl__registry_prefix_match(g->addr, v4, g->bits))
			bits = g->bits + 96;
		else
			continue;
		if (bits > best_bits || (bits == best_bits && g->host && !best->host)) {
			best = g;
			best_bits = bits;
		}
		if (!mapped) /* one family: the first range holding it is the longest */
			break;
	}
	return best ? &r->tiers[best->tier] : NULL;
}

/* The tier's store, created on first use; NULL when it cannot be allocated. */
static struct rl_store *store_of(struct rl_registry *r, const struct rl_tier *t)
{
	_Atomic(struct rl_store *) *slot = &r->stores[t - r->tiers];
	struct rl_store *s = atomic_load_explicit(slot, memory_order_acquire);

	if (s)
		return s;
	mtx_lock(&r->create_lock);
	s = atomic_load_explicit(slot, memory_order_relaxed);
	if (!s) {
		struct rl_store_config cfg = { .limiter = &t->limiter, .max_keys = t->max_keys,
					       .when_full = t->when_full, .hash_seed = r->seed };
		if (rl_store_create(&s, &cfg) == RL_OK)
			atomic_store_explicit(slot, s, memory_order_release);
		else
			s = NULL;
	}
	mtx_unlock(&r->create_lock);
	return s;
}

void rl_registry_destroy(struct rl_registry *r)
{
	if (!r)
		return;
	for (size_t i = 0; r->stores && i < r->ntiers; i++)
		rl_store_destroy(atomic_load_explicit(&r->stores[i], memory_order_relaxed));
	for (size_t i = 0; r->retired && i < r->ntiers; i++) {
		for (size_t j = 0; j < r->retired[i].n; j++)
			free(r->retired[i].pl[j]);
		free(r->retired[i].pl);
	}
	free(r->retired);
	if (r->lock_ok)
		mtx_destroy(&r->create_lock);
	free(r->stores);
	for (size_t i = 0; i < r->nclients; i++)
		free(r->clients[i].id);
	for (size_t i = 0; i < r->ntiers; i++)
		free((void *)(uintptr_t)r->tiers[i].policy);
	free(r->tiers);
	free(r->clients);
	free(r->ranges);
	free(r);
}

bool rl_tier_ext(const struct rl_tier *t, size_t i, int64_t *v)
{
	bool given = i < RL_TIER_EXT_MAX && (t->ext_given & (UINT32_C(1) << i));

	if (v)
		*v = given ? t->ext[i] : 0;
	return given;
}

size_t rl_registry_tier_count(const struct rl_registry *r)
{
	return r->ntiers;
}

const struct rl_tier *rl_registry_tier_at(const struct rl_registry *r, size_t i)
{
	return i < r->ntiers ? &r->tiers[i] : NULL;
}

const struct rl_tier *rl_registry_default(const struct rl_registry *r)
{
	return &r->tiers[r->default_tier];
}

size_t rl_registry_client_count(const struct rl_registry *r)
{
	return r->nclients;
}

const char *rl_registry_client_at(const struct rl_registry *r, size_t i, const struct rl_tier **tier)
{
	if (i >= r->nclients)
		return NULL;
	if (tier)
		*tier = &r->tiers[r->clients[i].tier];
	return r->clients[i].id;
}

const struct rl_tier *rl_registry_resolve(const struct rl_registry *r, const char *client, size_t len)
{
	/* no client bytes: the empty id (memcmp must not see a NULL, even for 0 bytes) */
	struct client key = { .id = (char *)(client && len ? client : ""), .len = client ? len : 0 };
	const struct client *c =
		r->nclients ? bsearch(&key, r->clients, r->nclients, sizeof(key), rl__registry_client_cmp) : NULL;
	const struct rl_tier *t;

	if (c && !c->range)
		return &r->tiers[c->tier];
	if (r->nranges && (t = range_tier(r, key.id, key.len)))
		return t;
	return &r->tiers[r->default_tier];
}

int rl_registry_check(struct rl_registry *r, const char *client, size_t len, int64_t now_ns,
		      struct rl_answer *ans)
{
	return rl_registry_check_n(r, client, len, now_ns, 1, ans);
}

int rl_registry_check_n(struct rl_registry *r, const char *client, size_t len, int64_t now_ns,
			int64_t cost, struct rl_answer *ans)
{
	if (!r || !ans || (!client && len) || !rl__cost_ok(cost))
		return RL_EINVAL;

	const struct rl_tier *t = rl_registry_resolve(r, client, len);

	/* an error leaves no verdict that reads as allowed */
	*ans = (struct rl_answer){ .verdict = RL_REJECTED, .tier = t };
	if (!rl__time_ok(now_ns))
		return RL_ERANGE;
	if (t->unlimited)
		return ans->verdict = RL_ALLOWED;
	struct rl_store *s = store_of(r, t);
	int rc = s ? rl_store_check_n(s, client, len, now_ns, cost, &ans->d) : RL_ENOMEM;
	if (rc == RL_ERANGE || rc == RL_EINVAL)
		return rc;
	if (rc < 0) {
		/* the store could not decide: the tier's on_error does */
		ans->store_error = rc;
		rc = t->fail_closed ? RL_REJECTED : RL_ALLOWED;
		int64_t w = t->limiter.rule.window_ns;
		ans->d = (struct rl_decision){ 0, rc ? 0 : w, rc ? 0 : w, 0 };
	}
	/* shadow mode: allowed, with the wait enforcing would have given (zeroed above otherwise) */
	if (t->shadow)
		ans->would_reject = rc == RL_ALLOWED && ans->d.retry_after_ns > 0;
	ans->verdict = rc;
	return rc;
}

uint64_t rl_tier_would_reject(const struct rl_tier *t)
{
	return t && t->policy ? rl_policy_would_reject(t->policy) : 0;
}

/* Whether the store of old may carry its keys into tier t (registry.h, Reload): one state shape. */
static bool keeps_store(const struct rl_tier *old, const struct rl_tier *t)
{
	if (old->unlimited || t->unlimited || strcmp(old->name, t->name) != 0 || old->max_keys != t->max_keys ||
	    old->when_full != t->when_full || !old->policy != !t->policy)
		return false;
	if (!t->policy)
		return old->limiter.algo == t->limiter.algo;
	return old->policy->rules[0].algo == t->policy->rules[0].algo && old->policy->count == t->policy->count;
}

/* Policies of the same rules, marks and order: a reload keeps the old policy limiter itself. */
static bool same_policy(const struct rl_policy_limiter *a, const struct rl_policy_limiter *b)
{
	for (size_t i = 0; i < a->count; i++)
		if (!rl_limiter_same_rule(&a->rules[i], &b->rules[i]) || a->units[i] != b->units[i])
			return false;
	return a->count == b->count;
}

/* Frees the older policies of tier i that its store s no longer reads. */
static void prune(struct rl_registry *n, size_t i, struct rl_store *s)
{
	struct retired *rt = &n->retired[i];
	size_t kept = 0;

	for (size_t j = 0; j < rt->n; j++) {
		if (rl_store_reads_policy(s, rt->pl[j]))
			rt->pl[kept++] = rt->pl[j];
		else
			free(rt->pl[j]);
	}
	rt->n = kept;
}

int rl_registry_reload(struct rl_registry *r, const char *path, const struct rl_tier_key *keys, size_t nkeys,
		       char *err, size_t err_len)
{
	struct rl_registry *n;
	int rc;

	if (!r)
		return RL_EINVAL;
	if ((rc = rl_registry_load_with(&n, path, keys, nkeys, err, err_len)) != RL_OK)
		return rc;
	/* from[i]: the old tier whose store new tier i keeps, or SIZE_MAX; same[i]: its policy limiter too */
	size_t nt = n->ntiers ? n->ntiers : 1;
	size_t *from = malloc(nt * sizeof(*from));
	bool *same = calloc(nt, sizeof(*same)), ok = from && same && (n->retired = calloc(nt, sizeof(*n->retired)));
	for (size_t i = 0; ok && i < n->ntiers; i++) {
		from[i] = SIZE_MAX;
		for (size_t j = 0; j < r->ntiers && from[i] == SIZE_MAX; j++)
			if (keeps_store(&r->tiers[j], &n->tiers[i]) &&
			    atomic_load_explicit(&r->stores[j], memory_order_relaxed))
				from[i] = j;
		if (from[i] == SIZE_MAX || !n->tiers[i].policy)
			continue;
		same[i] = same_policy(r->tiers[from[i]].policy, n->tiers[i].policy);
		/* room for the tier's older policies and its old one: nothing below can fail for want of it */
		size_t older = r->retired ? r->retired[from[i]].n : 0;
		ok = (n->retired[i].pl = malloc((older + 1) * sizeof(*n->retired[i].pl))) != NULL;
	}
	if (!ok) {
		free(from);
		free(same);
		rl_registry_destroy(n);
		if (err_len)
			snprintf(err, err_len, "%s: out of memory", path);
		return RL_ENOMEM;
	}
	/* the new rules into the kept stores; on a failure the ones set go back */
	size_t i = 0;
	for (; i < n->ntiers; i++) {
		if (from[i] == SIZE_MAX || same[i])
			continue;
		struct rl_store *s = atomic_load_explicit(&r->stores[from[i]], memory_order_relaxed);
		if ((rc = rl_store_set_rule(s, &n->tiers[i].limiter)) != RL_OK)
			break;
	}
	if (rc != RL_OK) {
		if (err_len)
			snprintf(err, err_len, "%s: tier '%s' keeps its keys but its store cannot take the new rule: %s",
				 path, n->tiers[i].name, rl_strerror(rc));
		while (i-- > 0)
			if (from[i] != SIZE_MAX && !same[i]) /* its old rule has its index in the store: no failure */
				rl_store_set_rule(atomic_load_explicit(&r->stores[from[i]], memory_order_relaxed),
						  &r->tiers[from[i]].limiter);
		free(from);
		free(same);
		rl_registry_destroy(n);
		return rc;
	}
	for (i = 0; i < n->ntiers; i++) {
		if (from[i] == SIZE_MAX)
			continue;
		struct rl_tier *old = &r->tiers[from[i]], *t = &n->tiers[i];
		struct rl_store *s = atomic_load_explicit(&r->stores[from[i]], memory_order_relaxed);
		atomic_store_explicit(&n->stores[i], s, memory_order_relaxed);
		atomic_store_explicit(&r->stores[from[i]], NULL, memory_order_relaxed);
		if (!t->policy)
			continue;
		/* the tier's older policies move with its store (room made above) */
		struct retired *was = r->retired ? &r->retired[from[i]] : NULL, *now = &n->retired[i];
		for (size_t j = 0; was && j < was->n; j++)
			now->pl[now->n++] = was->pl[j];
		if (was)
			was->n = 0;
		struct rl_policy_limiter *keep = (struct rl_policy_limiter *)(uintptr_t)old->policy;
		if (same[i]) {
			/* the same rules: the store's own policy limiter, in the new mode, counting afresh */
			rl_policy_set_shadow(keep, t->shadow);
			keep->would_reject = 0;
			free((void *)(uintptr_t)t->policy);
			t->policy = keep;
			t->limiter = *rl_policy_as_limiter(keep);
		} else {
			now->pl[now->n++] = keep; /* the store may read it for keys written under it */
		}
		old->policy = NULL; /* the new tier's now, or retired */
		prune(n, i, s);
	}
	free(from);
	free(same);
	/* r takes n's tiers and clients (its mutex and seed stay); n takes r's and goes */
	struct rl_registry was = { .tiers = r->tiers, .ntiers = r->ntiers, .clients = r->clients,
				   .nclients = r->nclients, .ranges = r->ranges, .nranges = r->nranges,
				   .default_tier = r->default_tier, .stores = r->stores, .retired = r->retired };
	r->tiers = n->tiers;
	r->ntiers = n->ntiers;
	r->clients = n->clients;
	r->nclients = n->nclients;
	r->ranges = n->ranges;
	r->nranges = n->nranges;
	r->default_tier = n->default_tier;
	r->stores = n->stores;
	r->retired = n->retired;
	n->tiers = was.tiers;
	n->ntiers = was.ntiers;
	n->clients = was.clients;
	n->nclients = was.nclients;
	n->ranges = was.ranges;
	n->nranges = was.nranges;
	n->default_tier = was.default_tier;
	n->stores = was.stores;
	n->retired = was.retired;
	rl_registry_destroy(n);
	return RL_OK;
}
