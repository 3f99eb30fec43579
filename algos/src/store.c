/*
 * store.c - model: a fixed table of 2-choice buckets (store.h). A key is
 * its 64-bit hash: two bucket indexes and a 32-bit tag (0 marks a free
 * slot). Its state lives in at most one slot of its two buckets; every
 * read or write of a bucket's tags or states happens under that bucket's
 * spinlock.
 *
 * Invariants: a key's tag is in at most one of its two buckets, because a
 * new key is inserted only while both buckets are locked and found absent
 * from both; a free slot's state bytes are zero (a fresh key); keys (the
 * counter) equals the occupied slots and never exceeds max_keys, because a
 * slot is filled only after a successful reservation or in place of a
 * dropped key; heap_bytes equals the sum of the stored states' heap as
 * the allocator holds it (rl_algo.heap_bytes).
 */
#include "ratelab/store.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

#include "arith.h"
#include "compat.h"

enum {
	SLOTS = RL_STORE_BUCKET_SLOTS,
	SWEEP_WHEN_FULL = 4, /* buckets try-swept before a new key meets the cap */
	EVICT_SEARCH = 8,    /* buckets searched for a victim outside the key's two */
	SPINS_BEFORE_YIELD = 64,
};

/* A bucket's head; its SLOTS states (8-byte aligned) follow it. */
struct bucket {
	_Atomic uint32_t lock; /* 0 free, 1 held */
	uint32_t tags[SLOTS];  /* 0: free slot */
	uint32_t pad;          /* keeps the states 8-byte aligned */
};
_Static_assert(sizeof(struct bucket) == 72, "a bucket head is 72 bytes");

struct rl_store {
	const struct rl_limiter *lim;
	size_t max_keys;
	size_t nbuckets;
	size_t slot_size; /* bytes per state slot: state_size rounded up to 8 */
	size_t stride;    /* bytes per bucket: head + SLOTS slots */
	enum rl_when_full when_full;
	int64_t grace_ns;
	uint64_t seed;
	rl_store_hash_fn hash;
	bool owns_heap; /* states own heap (rl_algo.heap_bytes), counted in heap_bytes */
	unsigned char *table;
	/* Shared counters, written on insertions, drops and full decisions only. */
	_Atomic size_t keys;
	_Atomic size_t cursor; /* next bucket the sweep visits (mod nbuckets) */
	_Atomic int64_t heap_bytes;
	_Atomic uint64_t evicted_idle, evicted_full, full_decided;
};

/* Where a key lives: its two buckets and its tag. */
struct where {
	size_t i1, i2;
	uint32_t tag;
};

static uint64_t mum(uint64_t a, uint64_t b)
{
	rl_u128 r = (rl_u128)a * b;
	return (uint64_t)r ^ (uint64_t)(r >> 64);
}

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/*
 * No step multiplies two input-dependent words: a product of two such
 * words is zero for every value of one when the other cancels its
 * constant, which would erase the rest of the key (every key starting with
 * that word would collide). Short keys multiply each half by a constant
 * and fold; long keys xor each step's product into the running hash, so a
 * zero product leaves the hash as it was.
 */
uint64_t rl_store_hash(const void *key, size_t len, uint64_t seed)
{
	const unsigned char *p = key;

	if (len <= 16) {
		/* Short keys (ids, IPv4/IPv6 addresses): three multiplies, the
		 * first two independent; a and b overlap for 8 < len < 16, len
		 * tells the sizes apart. */
		uint64_t a = 0, b = 0;
		if (len >= 8) {
			memcpy(&a, p, 8);
			memcpy(&b, p + len - 8, 8);
		} else {
			for (size_t i = 0; i < len; i++)
				a |= (uint64_t)p[i] << (8 * i);
		}
		uint64_t h = mum(a ^ seed ^ 0xa0761d6478bd642fULL, 0xe7037ed1a0b428dbULL) ^
			     mum(b ^ seed ^ 0x8ebc6af09c88c6e3ULL, 0x589965cc75374cc3ULL);
		return mum(h ^ len ^ 0x1d8e4e27c47d124fULL, 0x9e3779b97f4a7c15ULL);
	}
	uint64_t h = mum(seed ^ 0xa0761d6478bd642fULL, (uint64_t)len ^ 0xe7037ed1a0b428dbULL);

	for (; len >= 8; p += 8, len -= 8) {
		uint64_t w;
		memcpy(&w, p, 8);
		h ^= mum(h ^ 0x8ebc6af09c88c6e3ULL, w ^ 0x589965cc75374cc3ULL);
	}
	uint64_t tail = 0;
	for (size_t i = 0; i < len; i++)
		tail |= (uint64_t)p[i] << (8 * i);
	h ^= mum(h ^ 0x1d8e4e27c47d124fULL, tail ^ ((uint64_t)len << 56) ^ 0xa0761d6478bd642fULL);
	return mix64(h);
}

/* Index in [0, n) from the high bits of x (Lemire's multiply-shift). */
static size_t reduce(uint64_t x, size_t n)
{
	return (size_t)(((rl_u128)x * n) >> 64);
}

static struct where locate(const struct rl_store *s, uint64_t h)
{
	uint64_t g = mix64(h ^ 0x9e3779b97f4a7c15ULL);
	struct where w = { reduce(h, s->nbuckets), reduce(g, s->nbuckets), (uint32_t)g };

	if (w.tag == 0)
		w.tag = 1;
	return w;
}

static struct bucket *bucket_at(const struct rl_store *s, size_t i)
{
	return (struct bucket *)(s->table + i * s->stride);
}

static void *state_at(const struct rl_store *s, struct bucket *b, int slot)
{
	return (unsigned char *)b + sizeof(struct bucket) + (size_t)slot * s->slot_size;
}

static void bucket_lock(struct bucket *b)
{
	unsigned spins = 0;

	while (atomic_exchange_explicit(&b->lock, 1, memory_order_acquire))
		while (atomic_load_explicit(&b->lock, memory_order_relaxed))
			if (++spins % SPINS_BEFORE_YIELD == 0)
				thrd_yield();
}

static bool bucket_trylock(struct bucket *b)
{
	return !atomic_load_explicit(&b->lock, memory_order_relaxed) &&
	       !atomic_exchange_explicit(&b->lock, 1, memory_order_acquire);
}

static void bucket_unlock(struct bucket *b)
{
	atomic_store_explicit(&b->lock, 0, memory_order_release);
}

static int find(const struct bucket *b, uint32_t tag)
{
	for (int i = 0; i < SLOTS; i++)
		if (b->tags[i] == tag)
			return i;
	return -1;
}

/* A state's heap as the allocator holds it, overhead included. */
static size_t state_heap_bytes(const struct rl_store *s, const void *st)
{
	return s->lim->algo->heap_bytes(st);
}

/* Runs the algorithm on a stored state, keeping heap_bytes exact. */
static int run(struct rl_store *s, void *st, int64_t now_ns, int64_t cost,
	       struct rl_decision *out)
{
	const struct rl_limiter *lim = s->lim;

	if (!s->owns_heap)
		return lim->algo->check(lim, st, now_ns, cost, out);
	size_t before = state_heap_bytes(s, st);
	int rc = lim->algo->check(lim, st, now_ns, cost, out);
	size_t after = state_heap_bytes(s, st);
	if (after != before)
		atomic_fetch_add_explicit(&s->heap_bytes, (int64_t)after - (int64_t)before,
					  memory_order_relaxed);
	return rc;
}

/* Frees slot's state and marks it free; the caller adjusts keys. */
static void drop(struct rl_store *s, struct bucket *b, int slot)
{
	void *st = state_at(s, b, slot);

	if (s->owns_heap)
		atomic_fetch_sub_explicit(&s->heap_bytes, (int64_t)state_heap_bytes(s, st),
					  memory_order_relaxed);
	rl_limiter_release(s->lim, st);
	memset(st, 0, s->slot_size);
	b->tags[slot] = 0;
}

/* Drops the idle keys of a locked bucket. */
static void reclaim_idle(struct rl_store *s, struct bucket *b, int64_t idle_now)
{
	size_t n = 0;

	for (int i = 0; i < SLOTS; i++)
		if (b->tags[i] && s->lim->algo->is_idle(s->lim, state_at(s, b, i), idle_now)) {
			drop(s, b, i);
			n++;
		}
	if (n) {
		atomic_fetch_sub_explicit(&s->keys, n, memory_order_relaxed);
		atomic_fetch_add_explicit(&s->evicted_idle, n, memory_order_relaxed);
	}
}

static size_t next_sweep(struct rl_store *s)
{
	return atomic_fetch_add_explicit(&s->cursor, 1, memory_order_relaxed) % s->nbuckets;
}

/* One more bucket of the incremental sweep; called holding no lock. */
static void sweep_one(struct rl_store *s, int64_t idle_now)
{
	struct bucket *b = bucket_at(s, next_sweep(s));

	bucket_lock(b);
	reclaim_idle(s, b, idle_now);
	bucket_unlock(b);
}

/* Takes one of max_keys; false at the cap. */
static bool reserve(struct rl_store *s)
{
	size_t k = atomic_load_explicit(&s->keys, memory_order_relaxed);

	while (k < s->max_keys)
		if (atomic_compare_exchange_weak_explicit(&s->keys, &k, k + 1, memory_order_relaxed,
							  memory_order_relaxed))
			return true;
	return false;
}

/* The wait until a state's full quota is back, ns: the eviction order. */
static int64_t reset_of(const struct rl_store *s, void *st, int64_t now_ns)
{
	return rl_limiter_reset_ns(s->lim, st, now_ns);
}

/* The slot of b nearest to full quota (least reset) if none before beat it. */
static bool nearest(const struct rl_store *s, struct bucket *b, int64_t now_ns, int64_t *best,
		    int *slot)
{
	bool found = false;

	for (int i = 0; i < SLOTS; i++) {
		if (!b->tags[i])
			continue;
		int64_t r = reset_of(s, state_at(s, b, i), now_ns);
		if (r <= *best) {
			*best = r;
			*slot = i;
			found = true;
		}
	}
	return found;
}

/*
 * RL_FULL_EVICT outside the key's buckets: drops the key nearest to full
 * quota in the first non-empty bucket the sweep cursor yields. The caller
 * takes its place in the key count.
 */
static bool evict_elsewhere(struct rl_store *s, int64_t now_ns)
{
	for (int k = 0; k < EVICT_SEARCH; k++) {
		struct bucket *b = bucket_at(s, next_sweep(s));
		int64_t best = INT64_MAX;
		int slot = -1;

		if (!bucket_trylock(b))
			continue;
		if (nearest(s, b, now_ns, &best, &slot)) {
			drop(s, b, slot);
			bucket_unlock(b);
			atomic_fetch_add_explicit(&s->evicted_full, 1, memory_order_relaxed);
			return true;
		}
		bucket_unlock(b);
	}
	return false;
}

/* A free slot in the emptier of the two buckets, or -1; sets *into. */
static int free_slot(struct bucket *b1, struct bucket *b2, struct bucket **into)
{
	int free1 = 0, free2 = 0, s1 = -1, s2 = -1;

	for (int i = SLOTS - 1; i >= 0; i--) {
		if (!b1->tags[i]) {
			free1++;
			s1 = i;
		}
		if (b2 != b1 && !b2->tags[i]) {
			free2++;
			s2 = i;
		}
	}
	*into = free2 > free1 ? b2 : b1;
	return free2 > free1 ? s2 : s1;
}

static int insert(struct rl_store *s, struct bucket *b, int slot, uint32_t tag, int64_t now_ns,
		  int64_t cost, struct rl_decision *out)
{
	b->tags[slot] = tag;
	int rc = run(s, state_at(s, b, slot), now_ns, cost, out);
	if (rc < 0) {
		drop(s, b, slot);
		atomic_fetch_sub_explicit(&s->keys, 1, memory_order_relaxed);
	}
	return rc;
}

/* A new key meets a full store: the when_full policy (store.h). */
static int when_full(struct rl_store *s, struct bucket *b1, struct bucket *b2, struct bucket *into,
		     int slot, uint32_t tag, int64_t now_ns, int64_t cost, struct rl_decision *out)
{
	const struct rl_limiter *lim = s->lim;

	if (s->when_full == RL_FULL_FAIL_OPEN) {
		_Alignas(16) unsigned char fresh[RL_STORE_MAX_STATE] = { 0 };
		atomic_fetch_add_explicit(&s->full_decided, 1, memory_order_relaxed);
		int rc = lim->algo->check(lim, fresh, now_ns, cost, out);
		rl_limiter_release(lim, fresh);
		return rc;
	}
	if (s->when_full == RL_FULL_FAIL_CLOSED) {
		atomic_fetch_add_explicit(&s->full_decided, 1, memory_order_relaxed);
		if (out)
			*out = (struct rl_decision){ 0, lim->rule.window_ns, lim->rule.window_ns, 0 };
		return RL_REJECTED;
	}
	/* RL_FULL_EVICT: the new key takes the victim's place in the count. */
	int64_t best = INT64_MAX;
	int v1 = -1, v2 = -1;
	nearest(s, b1, now_ns, &best, &v1);
	if (b2 != b1 && nearest(s, b2, now_ns, &best, &v2)) {
		into = b2;
		slot = v2;
	} else if (v1 >= 0) {
		into = b1;
		slot = v1;
	} else if (slot < 0 || !evict_elsewhere(s, now_ns)) {
		return RL_EFULL;
	} else {
		return insert(s, into, slot, tag, now_ns, cost, out);
	}
	drop(s, into, slot);
	atomic_fetch_add_explicit(&s->evicted_full, 1, memory_order_relaxed);
	return insert(s, into, slot, tag, now_ns, cost, out);
}

/* The check with both buckets locked; *inserted tells whether a key was added. */
static int check_locked(struct rl_store *s, struct bucket *b1, struct bucket *b2, uint32_t tag,
			int64_t now_ns, int64_t cost, struct rl_decision *out, bool *inserted)
{
	int slot;

	if ((slot = find(b1, tag)) >= 0)
		return run(s, state_at(s, b1, slot), now_ns, cost, out);
	if ((slot = find(b2, tag)) >= 0)
		return run(s, state_at(s, b2, slot), now_ns, cost, out);

	int64_t idle_now = now_ns > s->grace_ns ? now_ns - s->grace_ns : 0;
	reclaim_idle(s, b1, idle_now);
	if (b2 != b1)
		reclaim_idle(s, b2, idle_now);

	bool reserved = reserve(s);
	for (int k = 0; !reserved && k < SWEEP_WHEN_FULL; k++) {
		struct bucket *b = bucket_at(s, next_sweep(s));
		if (bucket_trylock(b)) {
			reclaim_idle(s, b, idle_now);
			bucket_unlock(b);
			reserved = reserve(s);
		}
	}

	struct bucket *into;
	slot = free_slot(b1, b2, &into);
	*inserted = reserved && slot >= 0;
	if (*inserted)
		return insert(s, into, slot, tag, now_ns, cost, out);
	if (reserved)
		atomic_fetch_sub_explicit(&s->keys, 1, memory_order_relaxed);
	return when_full(s, b1, b2, into, slot, tag, now_ns, cost, out);
}

int rl_store_check(struct rl_store *s, const void *key, size_t key_len, int64_t now_ns,
		   struct rl_decision *out)
{
	return rl_store_check_n(s, key, key_len, now_ns, 1, out);
}

int rl_store_check_n(struct rl_store *s, const void *key, size_t key_len, int64_t now_ns,
		     int64_t cost, struct rl_decision *out)
{
	if (!s || (!key && key_len) || !rl_cost_ok(cost))
		return RL_EINVAL;
	if (!rl_time_ok(now_ns))
		return RL_ERANGE;

	/* a direct call when the hash is the default, so it can be inlined */
	uint64_t h = s->hash == rl_store_hash ? rl_store_hash(key, key_len, s->seed)
					      : s->hash(key, key_len, s->seed);
	struct where w = locate(s, h);
	struct bucket *b1 = bucket_at(s, w.i1), *b2 = bucket_at(s, w.i2);
	int slot, rc;

	/* Fetch the key's first bucket whole (tags and states) at once: its
	 * misses overlap instead of following one another. */
	for (size_t off = 0; off < s->stride; off += 64)
		RL_PREFETCH_WRITE((const unsigned char *)b1 + off);

	/* The fast path: the key is in its first bucket (where most keys live). */
	bucket_lock(b1);
	if ((slot = find(b1, w.tag)) >= 0) {
		rc = run(s, state_at(s, b1, slot), now_ns, cost, out);
		bucket_unlock(b1);
		return rc;
	}
	bucket_unlock(b1);

	/* Otherwise both, in index order, so that no two checks deadlock. */
	struct bucket *lo = w.i1 <= w.i2 ? b1 : b2, *hi = w.i1 <= w.i2 ? b2 : b1;
	bool inserted = false;

	bucket_lock(lo);
	if (hi != lo)
		bucket_lock(hi);
	rc = check_locked(s, b1, b2, w.tag, now_ns, cost, out, &inserted);
	if (hi != lo)
		bucket_unlock(hi);
	bucket_unlock(lo);

	if (inserted)
		sweep_one(s, now_ns > s->grace_ns ? now_ns - s->grace_ns : 0);
	return rc;
}

int rl_store_create(struct rl_store **out, const struct rl_store_config *cfg)
{
	if (!out || !cfg || !cfg->limiter || !cfg->limiter->algo)
		return RL_EINVAL;

	const struct rl_algo *algo = cfg->limiter->algo;
	bool owns_heap = algo->heap_bytes != NULL;

	/* A state that owns memory brings all three ops for it (algo.h). */
	if (cfg->max_keys < 1 || cfg->max_keys > RL_STORE_MAX_KEYS || cfg->idle_grace_ns < 0 ||
	    algo->state_size == 0 || algo->state_size > RL_STORE_MAX_STATE ||
	    (algo->release != NULL) != owns_heap || (algo->reset_ns != NULL) != owns_heap ||
	    cfg->when_full > RL_FULL_FAIL_CLOSED)
		return RL_EINVAL;

	struct rl_store *s = calloc(1, sizeof(*s));
	if (!s)
		return RL_ENOMEM;
	/* At least max_keys * 7/6 slots: the table is at most 6/7 full at the cap. */
	size_t slots = cfg->max_keys + (cfg->max_keys + 5) / 6;

	s->lim = cfg->limiter;
	s->max_keys = cfg->max_keys;
	s->nbuckets = (slots + SLOTS - 1) / SLOTS;
	s->slot_size = (algo->state_size + 7) & ~(size_t)7;
	s->stride = sizeof(struct bucket) + SLOTS * s->slot_size;
	s->when_full = cfg->when_full;
	s->grace_ns = cfg->idle_grace_ns;
	s->seed = cfg->hash_seed;
	s->hash = cfg->hash ? cfg->hash : rl_store_hash;
	s->owns_heap = owns_heap;
	s->table = calloc(s->nbuckets, s->stride);
	if (!s->table) {
		free(s);
		return RL_ENOMEM;
	}
	*out = s;
	return RL_OK;
}

void rl_store_destroy(struct rl_store *s)
{
	if (!s)
		return;
	if (s->lim->algo->release)
		for (size_t i = 0; i < s->nbuckets; i++) {
			struct bucket *b = bucket_at(s, i);
			for (int j = 0; j < SLOTS; j++)
				if (b->tags[j])
					rl_limiter_release(s->lim, state_at(s, b, j));
		}
	free(s->table);
	free(s);
}

void rl_store_stats(const struct rl_store *s, struct rl_store_stats *out)
{
	struct rl_store *m = (struct rl_store *)s; /* atomics are read, never written */
	int64_t heap = atomic_load_explicit(&m->heap_bytes, memory_order_relaxed);

	*out = (struct rl_store_stats){
		.keys = atomic_load_explicit(&m->keys, memory_order_relaxed),
		.slots = s->nbuckets * SLOTS,
		.bytes = sizeof(*s) + s->nbuckets * s->stride + (size_t)(heap > 0 ? heap : 0),
		.evicted_idle = atomic_load_explicit(&m->evicted_idle, memory_order_relaxed),
		.evicted_full = atomic_load_explicit(&m->evicted_full, memory_order_relaxed),
		.full_decided = atomic_load_explicit(&m->full_decided, memory_order_relaxed),
	};
}

int rl_store_random_seed(uint64_t *seed)
{
	return rl_random_seed(seed) ? RL_OK : RL_EIO;
}
