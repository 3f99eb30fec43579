/*
 * store.c - model: a fixed table of 2-choice buckets (store.h). A key is
 * its 64-bit hash: its first bucket and a 32-bit tag (0 marks a free
 * slot), from which its second bucket follows. Its state lives in at most
 * one slot of its two buckets, the first when that had room; every read
 * or write of a bucket's tags or states happens under that bucket's
 * spinlock (not taken in a one-thread store, whose caller serialises every
 * call).
 *
 * A key whose state an older rule wrote (rl_store_set_rule) keeps its
 * slot, but its tag moves to the side table (s->older, with the index of
 * that rule) and its bucket's older bit marks the slot: no tag search finds
 * it, so only the locked search of a key missing from both buckets' tags
 * (check_locked, where a new key goes) looks there, and converts it.
 *
 * Invariants: a key's tag is in at most one of its two buckets (among the
 * tags, or as an older key), because a
 * new key is inserted only while both buckets are locked and found absent
 * from both, and a key moves from one of its buckets to the other only
 * while both are locked (an older key never moves); every older key's rule
 * is in s->rules and is not s->lim's (set_rule brings the keys of the rule
 * it installs back among the tags); a free slot (tag 0, older bit clear)
 * has zero state bytes (a fresh key); keys (the
 * counter) equals the occupied slots and never exceeds max_keys, because a
 * slot is filled only after a successful reservation or in place of a
 * dropped key; heap_bytes plus heap_route equals the sum of the stored
 * states' heap as the allocator holds it (rl_algo.heap_bytes).
 */
#include "ratelab/store.h"

#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "arith.h"
#include "compat.h"
#include "ratelab/policy.h"
#include "ratelab/settle.h"
#include "spin.h"
#include "verdicts.h"

enum {
	SLOTS = RL_STORE_BUCKET_SLOTS,
	SWEEP_WHEN_FULL = 4, /* buckets try-swept before a new key meets the cap */
	EVICT_SEARCH = 8,    /* buckets searched for a victim outside the key's two */
	ABSENT = INT_MIN, /* check_in: not a status (status.h) */
};

/* Tables larger than this (bytes) have a check's bucket prefetched whole:
 * below it the table stays in the core's caches and the prefetches are
 * only instructions. */
#define PREFETCH_ABOVE_BYTES ((size_t)256 << 10)

/* A bucket's head; its SLOTS states (8-byte aligned) follow it. */
struct bucket {
	rl__spin lock;          /* spin.h */
	uint32_t tags[SLOTS];  /* 0: free slot, or (bit i of older) a key of an older rule */
	uint32_t older;        /* bit i: slot i holds a key an older rule wrote, its tag in
				* the store's side table (rule changes); keeps the states 8-byte aligned */
};
_Static_assert(sizeof(struct bucket) == 72, "a bucket head is 72 bytes");

/*
 * A key whose state an older rule wrote (rl_store_set_rule): its tag, out
 * of the bucket's tags so that no fast path finds it, and the index in
 * the store's rules of the rule that wrote it. One per slot.
 */
struct older_key {
	uint32_t tag;
	uint32_t rule;
};
_Static_assert(sizeof(struct older_key) == 8, "the side table holds 8 bytes per slot (store.h)");

/* The seed as the short-key hash reads it: xored with each word's constant. */
struct short_seed {
	uint64_t a, b;
};

/* A cost-1 verdict's route (check_cached_verdict, its AVX2 copy, locked_verdict's copies). */
typedef int cached_verdict_fn(struct rl_store *s, const void *key, size_t key_len, int64_t now_ns);

struct rl_store {
	/* cfg.limiter's copy, first: the verdict's lim is the store's own address */
	struct rl_limiter lim;
	size_t max_keys;
	size_t nbuckets;
	size_t slot_size; /* bytes per state slot: state_size rounded up to 8 */
	size_t stride;    /* bytes per bucket: head + SLOTS slots */
	enum rl_when_full when_full;
	int64_t grace_ns;
	uint64_t seed;
	struct short_seed short_seed; /* seed, as the fast paths' hash_short reads it */
	rl_store_hash_fn hash;
	/* lim->algo->check, one load away from the fast path */
	int (*check)(const struct rl_limiter *lim, void *state, int64_t now_ns, int64_t cost,
		     struct rl_decision *out);
	/* lim->algo->verdict; for a state that owns heap, when the algorithm
	 * has a check_heap, heap_verdict (one-thread store) or
	 * shared_heap_verdict (thread-safe), else NULL */
	rl_verdict_fn *verdict;
	/* a cost-1 verdict's route when the store qualifies (check()), else NULL */
	cached_verdict_fn *cached_verdict;
	bool one_thread; /* cfg.one_thread: no bucket locks */
	bool fast;       /* the default hash: check's fast path */
	bool owns_heap; /* states own heap (rl_algo.heap_bytes), counted in heap_bytes */
	bool prefetch;  /* the table is above PREFETCH_ABOVE_BYTES */
	unsigned char *table;
	/* Shared counters, written on insertions, drops and full decisions only. */
	_Atomic size_t keys;
	_Atomic size_t cursor; /* next bucket the sweep visits (mod nbuckets) */
	_Atomic int64_t heap_bytes;
	int64_t heap_route; /* heap_verdict's share of heap_bytes: a one-thread store's, so plain */
	_Atomic uint64_t evicted_idle, evicted_full, full_decided;
	/* Rule changes (rl_store_set_rule), all NULL / 0 until the first;
	 * written only with every bucket locked, read under a bucket's lock. */
	struct rl_limiter *rules;   /* RL_STORE_MAX_RULES: rule i wrote the older keys of index i */
	uint32_t rule_now;          /* lim's index in rules */
	struct older_key *older;    /* per slot (bucket * SLOTS + slot) */
	_Atomic size_t rule_bytes;  /* rules' and older's, for the stats (read without the locks) */
	/* the limiter's policy (the current one after a policy change), or
	 * NULL; written with every bucket locked, read by the stats */
	_Atomic(const struct rl_policy_limiter *) policy;
};

/* Where a key lives: its two buckets and its tag. */
struct where {
	size_t i1, i2;
	uint32_t tag;
};

static uint64_t mum(uint64_t a, uint64_t b)
{
	rl__u128 r = (rl__u128)a * b;
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

static uint64_t load64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static uint64_t load32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* The seed as hash_short reads it. */
static struct short_seed short_seed(uint64_t seed)
{
	return (struct short_seed){ seed ^ 0xa0761d6478bd642fULL, seed ^ 0x8ebc6af09c88c6e3ULL };
}

/*
 * Keys of up to 16 bytes (ids, IPv4/IPv6 addresses), read as two words a
 * and b that may overlap (len tells the sizes apart): up to 8 bytes, two
 * dependent multiplies; 9 to 16 bytes, three, the first two independent.
 * Inlined into the store's check, which keeps its seed as k (short_seed).
 */
static RL_ALWAYS_INLINE uint64_t hash_short(const unsigned char *p, size_t len, const struct short_seed *k)
{
	uint64_t a = 0, b = 0;

	if (len >= 8) {
		a = load64(p);
		b = load64(p + len - 8);
	} else if (len >= 4) {
		a = load32(p) | load32(p + len - 4) << 32;
	} else if (len > 0) {
		a = (uint64_t)p[0] | (uint64_t)p[len / 2] << 8 | (uint64_t)p[len - 1] << 16;
	}
	uint64_t h = mum(a ^ k->a, 0xe7037ed1a0b428dbULL);
	if (len > 8)
		h ^= mum(b ^ k->b, 0x589965cc75374cc3ULL);
	return mum(h ^ len ^ 0x1d8e4e27c47d124fULL, 0x9e3779b97f4a7c15ULL);
}

/* Longer keys: a product per 8 bytes xored into the running hash. */
static RL_NOINLINE uint64_t hash_long(const unsigned char *p, size_t len, uint64_t seed)
{
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
	struct short_seed k = short_seed(seed);

	return len <= 16 ? hash_short(key, len, &k) : hash_long(key, len, seed);
}

/* Index in [0, n) from the high bits of x (Lemire's multiply-shift). */
static size_t reduce(uint64_t x, size_t n)
{
	return (size_t)(((rl__u128)x * n) >> 64);
}

/*
 * The first bucket from the high bits of h, the tag from its low 32 bits:
 * one multiply on the way to the first bucket. The second is
 * alt_index(first, tag).
 */
static uint32_t tag_of(uint64_t h)
{
	return (uint32_t)h | ((uint32_t)h == 0); /* 0 marks a free slot */
}

/*
 * The other bucket of a key stored in bucket i under tag: (g - i) mod
 * nbuckets, g drawn from the tag alone. It is its own inverse, so a stored
 * key's other bucket follows from where it is and its tag, which lets a
 * key move between its two buckets without its hash; and g, uniform and
 * independent of the first bucket (the hash's high bits), spreads the keys
 * that share a first bucket over the whole table.
 */
static size_t alt_index(const struct rl_store *s, size_t i, uint32_t tag)
{
	size_t g = reduce((uint64_t)tag * 0x9e3779b97f4a7c15ULL, s->nbuckets);

	return g >= i ? g - i : g + s->nbuckets - i;
}

static struct where locate(const struct rl_store *s, uint64_t h)
{
	size_t i1 = reduce(h, s->nbuckets);
	uint32_t tag = tag_of(h);

	return (struct where){ i1, alt_index(s, i1, tag), tag };
}

static struct bucket *bucket_at(const struct rl_store *s, size_t i)
{
	return (struct bucket *)(s->table + i * s->stride);
}

static void *state_at(const struct rl_store *s, struct bucket *b, int slot)
{
	return (unsigned char *)b + sizeof(struct bucket) + (size_t)slot * s->slot_size;
}

/* The side table's entry of slot of b (s->older is allocated). */
static struct older_key *older_at(const struct rl_store *s, const struct bucket *b, int slot)
{
	size_t i = (size_t)((const unsigned char *)b - s->table) / s->stride;

	return &s->older[i * SLOTS + (size_t)slot];
}

/* The rule that wrote slot's state: an older one's, else the store's own. */
static const struct rl_limiter *writer(const struct rl_store *s, const struct bucket *b, int slot)
{
	return b->older & (1u << slot) ? &s->rules[older_at(s, b, slot)->rule] : &s->lim;
}

/* The slots holding a key, current or older. */
static unsigned occupied(const struct bucket *b)
{
	unsigned m = b->older;

	for (int i = 0; i < SLOTS; i++)
		m |= (unsigned)(b->tags[i] != 0) << i;
	return m;
}

/* The bucket locks (spin.h); a one-thread store (cfg.one_thread) takes none. */
static void bucket_lock(const struct rl_store *s, struct bucket *b)
{
	if (!s->one_thread)
		rl__spin_lock(&b->lock);
}

static bool bucket_trylock(const struct rl_store *s, struct bucket *b)
{
	return s->one_thread || rl__spin_trylock(&b->lock);
}

static void bucket_unlock(const struct rl_store *s, struct bucket *b)
{
	if (!s->one_thread)
		rl__spin_unlock(&b->lock);
}

_Static_assert(SLOTS == 16, "find compares the 16 tags at once");

/* The slots holding tag, bit i for slot i (one SIMD compare of the 16 tags, compat.h). */
static unsigned match(const struct bucket *b, uint32_t tag)
{
	return rl__match_u32x16(b->tags, tag);
}

/* The slot holding tag, or -1. */
static int find(const struct bucket *b, uint32_t tag)
{
	unsigned m = match(b, tag);

	return m ? rl__lowest_bit(m) : -1;
}

/* A state's heap as the allocator holds it, overhead included. */
static size_t state_heap_bytes(const struct rl_store *s, const void *st)
{
	return s->lim.algo->heap_bytes(st);
}

/* Runs the algorithm on a state that owns heap, keeping heap_bytes exact:
 * through its check_heap when it has one, else measuring around check. */
static RL_NOINLINE int run_heap(struct rl_store *s, void *st, int64_t now_ns, int64_t cost,
				struct rl_decision *out)
{
	int64_t delta = 0;
	int rc;

	if (s->lim.algo->check_heap) {
		rc = s->lim.algo->check_heap(&s->lim, st, now_ns, cost, out, &delta);
	} else {
		size_t before = state_heap_bytes(s, st);
		rc = s->check(&s->lim, st, now_ns, cost, out);
		delta = (int64_t)state_heap_bytes(s, st) - (int64_t)before;
	}
	if (delta)
		atomic_fetch_add_explicit(&s->heap_bytes, delta, memory_order_relaxed);
	return rc;
}

/*
 * The cost-1 verdict of a state that owns heap, s->verdict of a one-thread
 * store when the algorithm has a check_heap: check_heap adding its
 * change straight to heap_route, a tail call. lim is the store's first
 * member, so it is the store's address.
 */
static int heap_verdict(const struct rl_limiter *lim, void *st, int64_t now_ns)
{
	struct rl_store *s = (struct rl_store *)lim;

	return s->lim.algo->check_heap(lim, st, now_ns, 1, NULL, &s->heap_route);
}

/*
 * heap_verdict for a thread-safe store: check_heap's change added to the
 * shared heap_bytes, as run_heap does (heap_route is a one-thread store's
 * counter). Most checks change no heap, so most take no second atomic.
 */
static int shared_heap_verdict(const struct rl_limiter *lim, void *st, int64_t now_ns)
{
	struct rl_store *s = (struct rl_store *)lim;
	int64_t delta = 0;
	int rc = s->lim.algo->check_heap(lim, st, now_ns, 1, NULL, &delta);

	if (delta)
		atomic_fetch_add_explicit(&s->heap_bytes, delta, memory_order_relaxed);
	return rc;
}

/* Runs the algorithm on a stored state. */
static int run(struct rl_store *s, void *st, int64_t now_ns, int64_t cost, struct rl_decision *out)
{
	return s->owns_heap ? run_heap(s, st, now_ns, cost, out) : s->check(&s->lim, st, now_ns, cost, out);
}

/* Frees slot's state and marks it free; the caller adjusts keys. */
static void drop(struct rl_store *s, struct bucket *b, int slot)
{
	void *st = state_at(s, b, slot);

	if (s->owns_heap)
		atomic_fetch_sub_explicit(&s->heap_bytes, (int64_t)state_heap_bytes(s, st),
					  memory_order_relaxed);
	rl_limiter_release(&s->lim, st);
	memset(st, 0, s->slot_size);
	b->tags[slot] = 0;
	if (b->older & (1u << slot)) {
		b->older &= ~(1u << slot);
		*older_at(s, b, slot) = (struct older_key){ 0, 0 };
	}
}

/* Drops the idle keys of a locked bucket. */
static void reclaim_idle(struct rl_store *s, struct bucket *b, int64_t idle_now)
{
	size_t n = 0;

	/* an older key idle under the rule that wrote it converts to an idle
	 * state under any other (algo.h: no quota used carries none over) */
	for (unsigned m = occupied(b); m; m &= m - 1) {
		int i = rl__lowest_bit(m);
		if (s->lim.algo->is_idle(writer(s, b, i), state_at(s, b, i), idle_now)) {
			drop(s, b, i);
			n++;
		}
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

	bucket_lock(s, b);
	reclaim_idle(s, b, idle_now);
	bucket_unlock(s, b);
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

/* The wait until slot's full quota is back under the rule that wrote it, ns: the eviction order. */
static int64_t reset_of(const struct rl_store *s, struct bucket *b, int slot, int64_t now_ns)
{
	return rl_limiter_reset_ns(writer(s, b, slot), state_at(s, b, slot), now_ns);
}

/* The slot of b nearest to full quota (least reset) if none before beat it. */
static bool nearest(const struct rl_store *s, struct bucket *b, int64_t now_ns, int64_t *best,
		    int *slot)
{
	bool found = false;

	for (unsigned m = occupied(b); m; m &= m - 1) {
		int i = rl__lowest_bit(m);
		int64_t r = reset_of(s, b, i, now_ns);
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

		if (!bucket_trylock(s, b))
			continue;
		if (nearest(s, b, now_ns, &best, &slot)) {
			drop(s, b, slot);
			bucket_unlock(s, b);
			atomic_fetch_add_explicit(&s->evicted_full, 1, memory_order_relaxed);
			return true;
		}
		bucket_unlock(s, b);
	}
	return false;
}

/* Moves the key in slot of from, tag and state, to a free slot of its
 * other bucket to (both locked): that slot, or -1 when to is full. The
 * slot it leaves is free. */
static RL_ALWAYS_INLINE int move_key(const struct rl_store *s, struct bucket *from, int slot,
				     struct bucket *to)
{
	unsigned f = match(to, 0) & ~to->older;

	if (!f)
		return -1;
	int free = rl__lowest_bit(f);
	memcpy(state_at(s, to, free), state_at(s, from, slot), s->slot_size);
	to->tags[free] = from->tags[slot];
	memset(state_at(s, from, slot), 0, s->slot_size);
	from->tags[slot] = 0;
	return free;
}

/*
 * Both of a new key's buckets (w, locked) full: moves one of their keys to
 * its other bucket when that one, try-locked, has a free slot. The slot it
 * left, or -1; sets *into to its bucket.
 */
static int make_room(struct rl_store *s, struct where w, struct bucket **into)
{
	size_t idx[2] = { w.i1, w.i2 };

	for (int k = 0; k < (w.i1 == w.i2 ? 1 : 2); k++) {
		struct bucket *b = bucket_at(s, idx[k]);
		for (int slot = 0; slot < SLOTS; slot++) {
			if (b->older & (1u << slot)) /* its tag is in the side table: it stays */
				continue;
			size_t z = alt_index(s, idx[k], b->tags[slot]);
			if (z == w.i1 || z == w.i2)
				continue;
			struct bucket *bz = bucket_at(s, z);
			if (!bucket_trylock(s, bz))
				continue;
			int moved = move_key(s, b, slot, bz);
			bucket_unlock(s, bz);
			if (moved >= 0) {
				*into = b;
				return slot;
			}
		}
	}
	return -1;
}

/*
 * A free slot for a new key: the first bucket's when it has one, so that
 * nearly every key is found by the fast paths' one probe (first fit: at
 * 6/7 occupancy about 5 % of keys land in their second bucket, where the
 * emptier of the two would put a third), then the second's, then one made by
 * moving a key (make_room: first fit alone leaves both buckets full for
 * about 1 % of insertions below the cap; only when may_move, as a key
 * that will not be stored needs no room). -1 when none; sets *into.
 */
static int free_slot(struct rl_store *s, struct where w, bool may_move, struct bucket **into)
{
	struct bucket *b1 = bucket_at(s, w.i1), *b2 = bucket_at(s, w.i2);
	unsigned f1 = match(b1, 0) & ~b1->older, f2 = match(b2, 0) & ~b2->older;

	*into = f1 ? b1 : b2;
	if (f1 | f2)
		return rl__lowest_bit(f1 ? f1 : f2);
	return may_move ? make_room(s, w, into) : -1;
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

/* RL_FULL_FAIL_OPEN for a state wider than an algorithm's (a policy's, policy.h): a fresh one on the heap. */
static RL_NOINLINE int fail_open_wide(struct rl_store *s, int64_t now_ns, int64_t cost, struct rl_decision *out)
{
	const struct rl_limiter *lim = &s->lim;
	void *fresh = calloc(1, lim->algo->state_size);

	if (!fresh)
		return RL_ENOMEM;
	atomic_fetch_add_explicit(&s->full_decided, 1, memory_order_relaxed);
	int rc = lim->algo->check(lim, fresh, now_ns, cost, out);
	rl_limiter_release(lim, fresh);
	free(fresh);
	return rc;
}

/* A new key meets a full store: the when_full policy (store.h). */
static int when_full(struct rl_store *s, struct bucket *b1, struct bucket *b2, struct bucket *into,
		     int slot, uint32_t tag, int64_t now_ns, int64_t cost, struct rl_decision *out)
{
	const struct rl_limiter *lim = &s->lim;

	if (s->when_full == RL_FULL_FAIL_OPEN) {
		if (lim->algo->state_size > RL_ALGO_MAX_STATE)
			return fail_open_wide(s, now_ns, cost, out);
		_Alignas(16) unsigned char fresh[RL_ALGO_MAX_STATE] = { 0 };
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

/* Whether a request of cost can never be admitted under the store's rule: a fresh key refuses it. */
static bool never_fits(struct rl_store *s, int64_t now_ns, int64_t cost)
{
	_Alignas(16) unsigned char fresh[RL_STORE_MAX_STATE] = { 0 };
	int rc = s->lim.algo->check(&s->lim, fresh, now_ns, cost, NULL);

	rl_limiter_release(&s->lim, fresh);
	return rc == RL_REJECTED;
}

/*
 * The check of an older key in slot of b (locked): its state converted
 * from the rule that wrote it to the store's (rl_limiter_rerule, at the
 * check's time), decided, and back among the bucket's tags. A cost the
 * store's rule can never admit changes nothing, the conversion included
 * (algo.h), nor does an error: the key stays older, its bytes as they
 * were (a conversion allocates nothing, so the bytes are the state).
 */
static RL_NOINLINE int convert_run(struct rl_store *s, struct bucket *b, int slot, int64_t now_ns, int64_t cost,
				   struct rl_decision *out)
{
	struct older_key *o = older_at(s, b, slot);
	void *st = state_at(s, b, slot);
	size_t n = s->lim.algo->state_size;
	_Alignas(16) unsigned char before[RL_STORE_MAX_STATE];
	struct rl_decision d = { 0 };
	bool policy = rl_policy_of(&s->lim) != NULL;
	int rc;

	memcpy(before, st, n);
	if ((rc = rl_limiter_rerule(&s->rules[o->rule], &s->lim, st, now_ns)) == RL_OK)
		rc = run(s, st, now_ns, cost, policy || out ? &d : NULL);
	if (out && rc >= 0)
		*out = d;
	/* a policy answers a never-fitting share with the saturated wait, in
	 * shadow mode too (policy.h); one rule: a fresh key refuses the cost */
	if (rc < 0 || (policy ? d.retry_after_ns == RL_DURATION_MAX_NS
			      : rc == RL_REJECTED && never_fits(s, now_ns, cost))) {
		memcpy(st, before, n);
		return rc;
	}
	b->tags[slot] = o->tag;
	b->older &= ~(1u << slot);
	*o = (struct older_key){ 0, 0 };
	return rc;
}

/* The slot of b holding tag as an older key, or -1. */
static int find_older(const struct rl_store *s, const struct bucket *b, uint32_t tag)
{
	for (unsigned m = b->older; m; m &= m - 1)
		if (older_at(s, b, rl__lowest_bit(m))->tag == tag)
			return rl__lowest_bit(m);
	return -1;
}

/* An older key's check in b1 or b2 (both locked), or ABSENT. */
static RL_NOINLINE int check_older(struct rl_store *s, struct bucket *b1, struct bucket *b2, uint32_t tag,
				   int64_t now_ns, int64_t cost, struct rl_decision *out)
{
	int slot;

	if ((slot = find_older(s, b1, tag)) >= 0)
		return convert_run(s, b1, slot, now_ns, cost, out);
	if (b2 != b1 && (slot = find_older(s, b2, tag)) >= 0)
		return convert_run(s, b2, slot, now_ns, cost, out);
	return ABSENT;
}

/* The check with both buckets locked; *inserted tells whether a key was added. */
static int check_locked(struct rl_store *s, struct where w, int64_t now_ns, int64_t cost,
			struct rl_decision *out, bool *inserted)
{
	struct bucket *b1 = bucket_at(s, w.i1), *b2 = bucket_at(s, w.i2);
	uint32_t tag = w.tag;
	int slot;

	if ((slot = find(b1, tag)) >= 0)
		return run(s, state_at(s, b1, slot), now_ns, cost, out);
	if ((slot = find(b2, tag)) >= 0)
		return run(s, state_at(s, b2, slot), now_ns, cost, out);
	int rc;
	if ((b1->older | b2->older) && (rc = check_older(s, b1, b2, tag, now_ns, cost, out)) != ABSENT)
		return rc;

	int64_t idle_now = now_ns > s->grace_ns ? now_ns - s->grace_ns : 0;
	reclaim_idle(s, b1, idle_now);
	if (b2 != b1)
		reclaim_idle(s, b2, idle_now);

	bool reserved = reserve(s);
	for (int k = 0; !reserved && k < SWEEP_WHEN_FULL; k++) {
		struct bucket *b = bucket_at(s, next_sweep(s));
		if (bucket_trylock(s, b)) {
			reclaim_idle(s, b, idle_now);
			bucket_unlock(s, b);
			reserved = reserve(s);
		}
	}

	struct bucket *into;
	slot = free_slot(s, w, reserved, &into);
	*inserted = reserved && slot >= 0;
	if (*inserted)
		return insert(s, into, slot, tag, now_ns, cost, out);
	if (reserved)
		atomic_fetch_sub_explicit(&s->keys, 1, memory_order_relaxed);
	return when_full(s, b1, b2, into, slot, tag, now_ns, cost, out);
}

/* The check on slot of a locked bucket b, then the unlock; out of line, so
 * that its callers keep nothing live across the algorithm's call. */
static RL_NOINLINE int run_unlock(struct rl_store *s, struct bucket *b, int slot, int64_t now_ns,
				  int64_t cost, struct rl_decision *out)
{
	int rc = run(s, state_at(s, b, slot), now_ns, cost, out);

	bucket_unlock(s, b);
	return rc;
}

/*
 * A stored key's check in bucket b, or ABSENT when the tag is not there
 * (the bucket then left as found). Under b's lock alone: b holds the key's
 * one state (a key is inserted or moved only with both its buckets
 * locked, so it cannot appear in the other one meanwhile).
 */
static int check_in(struct rl_store *s, struct bucket *b, uint32_t tag, int64_t now_ns,
		    int64_t cost, struct rl_decision *out)
{
	int slot;

	bucket_lock(s, b);
	if ((slot = find(b, tag)) < 0) {
		bucket_unlock(s, b);
		return ABSENT;
	}
	return run_unlock(s, b, slot, now_ns, cost, out);
}

/*
 * Any check: the key's first bucket, then (check_locked) both. The fast
 * path below handles the common case and comes here for the rest.
 */
static RL_NOINLINE int check_any(struct rl_store *s, uint64_t h, int64_t now_ns, int64_t cost,
				 struct rl_decision *out)
{
	struct where w = locate(s, h);
	struct bucket *b1 = bucket_at(s, w.i1), *b2 = bucket_at(s, w.i2);
	int rc;

	if (s->prefetch)
		for (size_t off = 0; off < s->stride; off += 64)
			RL_PREFETCH_WRITE((const unsigned char *)b1 + off);
	if ((rc = check_in(s, b1, w.tag, now_ns, cost, out)) != ABSENT)
		return rc;

	/* Both buckets, in index order, so that no two checks deadlock. */
	struct bucket *lo = w.i1 <= w.i2 ? b1 : b2, *hi = w.i1 <= w.i2 ? b2 : b1;
	bool inserted = false;

	bucket_lock(s, lo);
	if (hi != lo)
		bucket_lock(s, hi);
	rc = check_locked(s, w, now_ns, cost, out, &inserted);
	if (hi != lo)
		bucket_unlock(s, hi);
	bucket_unlock(s, lo);

	if (inserted)
		sweep_one(s, now_ns > s->grace_ns ? now_ns - s->grace_ns : 0);
	return rc;
}

/*
 * The fast path's sequel, out of line: the key's second bucket, then
 * check_any. A key found there moves to its first bucket when that has
 * room again (its keys went idle, or it was full when this key came), so
 * that keys return to where the fast path's one probe finds them; the
 * first bucket is only try-locked, as the second is held.
 */
static RL_NOINLINE int check_second(struct rl_store *s, uint64_t h, int64_t now_ns, int64_t cost,
				    struct rl_decision *out)
{
	struct where w = locate(s, h);
	struct bucket *b1 = bucket_at(s, w.i1), *b2 = bucket_at(s, w.i2);
	int slot;

	bucket_lock(s, b2);
	if ((slot = find(b2, w.tag)) < 0) {
		bucket_unlock(s, b2);
		return check_any(s, h, now_ns, cost, out);
	}
	if (b1 != b2 && bucket_trylock(s, b1)) {
		int moved = move_key(s, b2, slot, b1);
		if (moved >= 0) {
			bucket_unlock(s, b2);
			return run_unlock(s, b1, moved, now_ns, cost, out);
		}
		bucket_unlock(s, b1);
	}
	return run_unlock(s, b2, slot, now_ns, cost, out);
}

/* check_any for a key hashed by cfg.hash or longer than 16 bytes. */
static RL_NOINLINE int check_key(struct rl_store *s, const void *key, size_t key_len,
				 int64_t now_ns, struct rl_decision *out, int64_t cost)
{
	return check_any(s, s->hash(key, key_len, s->seed), now_ns, cost, out);
}

/*
 * The fast paths below take a key of at most 16 bytes under the default
 * hash that is stored in its first bucket, as nearly every key is
 * (free_slot, check_second); anything else goes to check_second, then
 * check_any. Each is its own function, so that it saves no registers for
 * the others.
 */

/* The first bucket and the tag of hash h, as locate's, without the second's multiply. */
static struct bucket *first_bucket(const struct rl_store *s, uint64_t h, uint32_t *tag)
{
	*tag = tag_of(h);
	return bucket_at(s, reduce(h, s->nbuckets));
}

/*
 * A cost-1 verdict (out = NULL) on a one-thread store small enough to stay
 * in the core's caches, through s->verdict: three arguments fewer kept
 * live, the algorithm's cost and answer dispatch skipped (for a state that
 * owns heap, heap_verdict's check_heap), and the time tested
 * once: by the verdict, or here before a miss goes on. Two copies
 * (check_cached_verdict and its AVX2 one) differ only in how they match
 * tags; each has its own sequel for a key not in its first bucket.
 */
typedef int cached_second_fn(struct rl_store *s, uint64_t h, int64_t now_ns);

/* The key's state's verdict, or the time test and check_second: mask is
 * the key's tag matched in bucket b, 0 for none. */
static RL_ALWAYS_INLINE int verdict_in(struct rl_store *s, struct bucket *b, unsigned mask, uint64_t h,
				       int64_t now_ns)
{
	if (mask)
		return s->verdict(&s->lim, state_at(s, b, rl__lowest_bit(mask)), now_ns);
	return rl__time_ok(now_ns) ? check_second(s, h, now_ns, 1, NULL) : RL_ERANGE;
}

/*
 * The first bucket's match m of the key's tag; when none, the sequel
 * searches the second bucket (about 5 % of keys live there at 6/7
 * occupancy: free_slot). m2 is that search, free1 the first bucket's free
 * slots. A key found in its second bucket while its first has no free slot
 * stays where it is, exactly as check_second would leave it after failing
 * to move it, so its verdict runs here, without check_second's locking
 * protocol, move attempt and full check; a key that can move, and a miss,
 * go on to check_second.
 */
static RL_ALWAYS_INLINE int verdict_or_second(struct rl_store *s, struct bucket *b1, unsigned m,
					      uint64_t h, int64_t now_ns, cached_second_fn *second)
{
	return m ? verdict_in(s, b1, m, h, now_ns) : second(s, h, now_ns);
}

static RL_ALWAYS_INLINE int second_verdict(struct rl_store *s, struct bucket *b2, unsigned m2, unsigned free1,
					   uint64_t h, int64_t now_ns)
{
	return verdict_in(s, b2, free1 ? 0 : m2, h, now_ns);
}

static RL_NOINLINE int cached_second(struct rl_store *s, uint64_t h, int64_t now_ns)
{
	struct where w = locate(s, h);
	struct bucket *b1 = bucket_at(s, w.i1), *b2 = bucket_at(s, w.i2);

	return second_verdict(s, b2, match(b2, w.tag), match(b1, 0), h, now_ns);
}

static RL_NOINLINE int check_cached_verdict(struct rl_store *s, const void *key, size_t key_len,
					    int64_t now_ns)
{
	uint64_t h = hash_short(key, key_len, &s->short_seed);
	uint32_t tag;
	struct bucket *b1 = first_bucket(s, h, &tag);

	return verdict_or_second(s, b1, match(b1, tag), h, now_ns, cached_second);
}

#ifdef RL_HAVE_AVX2_PATH
static RL_NOINLINE RL_TARGET_AVX2 int cached_second_avx2(struct rl_store *s, uint64_t h, int64_t now_ns)
{
	struct where w = locate(s, h);
	struct bucket *b1 = bucket_at(s, w.i1), *b2 = bucket_at(s, w.i2);

	return second_verdict(s, b2, rl__match_u32x16_avx2(b2->tags, w.tag), rl__match_u32x16_avx2(b1->tags, 0), h,
			      now_ns);
}

static RL_NOINLINE RL_TARGET_AVX2 int check_cached_verdict_avx2(struct rl_store *s, const void *key,
								size_t key_len, int64_t now_ns)
{
	uint64_t h = hash_short(key, key_len, &s->short_seed);
	uint32_t tag;
	struct bucket *b1 = first_bucket(s, h, &tag);

	return verdict_or_second(s, b1, rl__match_u32x16_avx2(b1->tags, tag), h, now_ns, cached_second_avx2);
}
#endif

/* check_first once b1, locked, is searched: the key's state, or check_second. */
static RL_ALWAYS_INLINE int first_locked(struct rl_store *s, struct bucket *b1, uint32_t tag,
					 uint64_t h, int64_t now_ns, int64_t cost,
					 struct rl_decision *out)
{
	int slot = find(b1, tag);

	if (slot >= 0)
		return run_unlock(s, b1, slot, now_ns, cost, out);
	bucket_unlock(s, b1);
	return check_second(s, h, now_ns, cost, out);
}

/* check_first when another thread holds the first bucket's lock. */
static RL_NOINLINE int first_contended(struct rl_store *s, uint64_t h, int64_t now_ns,
				       int64_t cost, struct rl_decision *out)
{
	uint32_t tag;
	struct bucket *b1 = first_bucket(s, h, &tag);

	rl__spin_wait(&b1->lock);
	return first_locked(s, b1, tag, h, now_ns, cost, out);
}

/*
 * The same cost-1 verdict on a thread-safe store: the first bucket's lock
 * taken, its tags matched, the verdict run and the lock dropped, in one
 * frame. A held lock and a key not in its first bucket go on as
 * check_first would (first_contended, check_second), the time tested
 * first. Against check_first it skips run_unlock's frame and the
 * algorithm's cost and answer dispatch (for a state that owns heap, also
 * run_heap's frame), the same savings as the one-thread route's; the
 * locked exchange it cannot skip. A built-in algorithm's verdict runs
 * inline, in a copy of the route of its own, not through s->verdict
 * (verdicts.h says why).
 */
static RL_ALWAYS_INLINE int locked_verdict(struct rl_store *s, const void *key, size_t key_len, int64_t now_ns,
					   rl__inline_verdict_fn *verdict)
{
	uint64_t h = hash_short(key, key_len, &s->short_seed);
	uint32_t tag;
	struct bucket *b1 = first_bucket(s, h, &tag);
	unsigned m;
	int rc;

	if (!rl__spin_take(&b1->lock))
		return rl__time_ok(now_ns) ? first_contended(s, h, now_ns, 1, NULL) : RL_ERANGE;
	if (!(m = match(b1, tag))) {
		rl__spin_unlock(&b1->lock);
		return rl__time_ok(now_ns) ? check_second(s, h, now_ns, 1, NULL) : RL_ERANGE;
	}
	rc = verdict(&s->lim, state_at(s, b1, rl__lowest_bit(m)), now_ns, s->verdict);
	rl__spin_unlock(&b1->lock);
	return rc;
}

static RL_NOINLINE int locked_generic(struct rl_store *s, const void *key, size_t key_len, int64_t now_ns)
{
	return locked_verdict(s, key, key_len, now_ns, rl__by_op_inline);
}

/* Each listed algorithm's copy of the route (verdicts.h), its verdict
 * inline; for a state that owns heap, s->verdict (shared_heap_verdict)
 * takes what the inline part leaves. */
#define LOCKED_ROUTE(name)                                                                        \
	static RL_NOINLINE int locked_##name(struct rl_store *s, const void *key, size_t key_len, \
					     int64_t now_ns)                                       \
	{                                                                                         \
		return locked_verdict(s, key, key_len, now_ns, rl__##name##_inline);              \
	}
RL_INLINE_VERDICTS(LOCKED_ROUTE)
#undef LOCKED_ROUTE

static cached_verdict_fn *const locked_routes[RL__ROUTES] = {
#define LOCKED_ENTRY(name) locked_##name,
	RL_INLINE_VERDICTS(LOCKED_ENTRY)
#undef LOCKED_ENTRY
};

/* The thread-safe route: the algorithm's own copy when it has one, else the generic one. */
static cached_verdict_fn *locked_verdict_route(const struct rl_algo *algo)
{
	int i = rl__inline_route(algo);

	return i < 0 ? locked_generic : locked_routes[i];
}

/* The cost-1 verdict's route for a store so configured, else NULL: a store
 * larger than the caches keeps check_first, which prefetches. */
static cached_verdict_fn *cached_verdict_route(const struct rl_store *s)
{
	if (!s->fast || s->prefetch || !s->verdict)
		return NULL;
	if (!s->one_thread)
		return locked_verdict_route(s->lim.algo);
#ifdef RL_HAVE_AVX2_PATH
	if (rl__has_avx2())
		return check_cached_verdict_avx2;
#endif
	return check_cached_verdict;
}

/*
 * Any other check: the key's first bucket (fetched whole when the table is
 * larger than the caches), then check_second. Every call it makes is its
 * last act (run_unlock unlocks), so it keeps nothing live across one.
 */
static RL_NOINLINE int check_first(struct rl_store *s, const void *key, size_t key_len,
				   int64_t now_ns, struct rl_decision *out, int64_t cost)
{
	uint64_t h = hash_short(key, key_len, &s->short_seed);
	uint32_t tag;
	struct bucket *b1 = first_bucket(s, h, &tag);
	int slot;

	/* the first bucket whole and the second's tags: the few keys that
	 * live in their second bucket then miss once, not twice in turn */
	if (s->prefetch) {
		for (size_t off = 0; off < s->stride; off += 64)
			RL_PREFETCH_WRITE((const unsigned char *)b1 + off);
		RL_PREFETCH_WRITE(bucket_at(s, locate(s, h).i2));
	}
	if (s->one_thread) {
		if ((slot = find(b1, tag)) >= 0)
			return run(s, state_at(s, b1, slot), now_ns, cost, out);
		return check_second(s, h, now_ns, cost, out);
	}
	if (!rl__spin_take(&b1->lock))
		return first_contended(s, h, now_ns, cost, out);
	return first_locked(s, b1, tag, h, now_ns, cost, out);
}

static RL_ALWAYS_INLINE int check(struct rl_store *s, const void *key, size_t key_len,
				  int64_t now_ns, int64_t cost, struct rl_decision *out)
{
	if (!s || (!key && key_len) || !rl__cost_ok(cost))
		return RL_EINVAL;
	/* the route tests the time where it needs it: the verdict does (algo.h) */
	if (s->cached_verdict && key_len <= 16 && cost == 1 && !out)
		return s->cached_verdict(s, key, key_len, now_ns);
	if (!rl__time_ok(now_ns))
		return RL_ERANGE;
	if (!s->fast || key_len > 16)
		return check_key(s, key, key_len, now_ns, out, cost);
	return check_first(s, key, key_len, now_ns, out, cost);
}

int rl_store_check(struct rl_store *s, const void *key, size_t key_len, int64_t now_ns,
		   struct rl_decision *out)
{
	return check(s, key, key_len, now_ns, 1, out);
}

int rl_store_check_n(struct rl_store *s, const void *key, size_t key_len, int64_t now_ns,
		     int64_t cost, struct rl_decision *out)
{
	return check(s, key, key_len, now_ns, cost, out);
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

	s->lim = *cfg->limiter;
	s->max_keys = cfg->max_keys;
	s->nbuckets = (slots + SLOTS - 1) / SLOTS;
	s->slot_size = (algo->state_size + 7) & ~(size_t)7;
	s->stride = sizeof(struct bucket) + SLOTS * s->slot_size;
	s->when_full = cfg->when_full;
	s->grace_ns = cfg->idle_grace_ns;
	s->seed = cfg->hash_seed;
	s->short_seed = short_seed(s->seed);
	s->hash = cfg->hash ? cfg->hash : rl_store_hash;
	s->check = algo->check;
	s->one_thread = cfg->one_thread;
	s->verdict = algo->verdict;
	if (owns_heap)
		s->verdict = !algo->check_heap ? NULL : cfg->one_thread ? heap_verdict : shared_heap_verdict;
	s->owns_heap = owns_heap;
	s->fast = !cfg->hash;
	s->prefetch = s->nbuckets > PREFETCH_ABOVE_BYTES / s->stride;
	s->cached_verdict = cached_verdict_route(s);
	atomic_init(&s->policy, rl_policy_of(cfg->limiter));
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
	if (s->lim.algo->release)
		for (size_t i = 0; i < s->nbuckets; i++) {
			struct bucket *b = bucket_at(s, i);
			for (unsigned m = occupied(b); m; m &= m - 1)
				rl_limiter_release(&s->lim, state_at(s, b, rl__lowest_bit(m)));
		}
	free(s->rules);
	free(s->older);
	free(s->table);
	free(s);
}

void rl_store_stats(const struct rl_store *s, struct rl_store_stats *out)
{
	struct rl_store *m = (struct rl_store *)s; /* atomics are read, never written */
	int64_t heap = atomic_load_explicit(&m->heap_bytes, memory_order_relaxed) + s->heap_route;

	size_t rules = atomic_load_explicit(&m->rule_bytes, memory_order_relaxed);

	const struct rl_policy_limiter *policy = atomic_load_explicit(&s->policy, memory_order_relaxed);
	*out = (struct rl_store_stats){
		.keys = atomic_load_explicit(&m->keys, memory_order_relaxed),
		.slots = s->nbuckets * SLOTS,
		.bytes = sizeof(*s) + s->nbuckets * s->stride + rules + (size_t)(heap > 0 ? heap : 0),
		.evicted_idle = atomic_load_explicit(&m->evicted_idle, memory_order_relaxed),
		.evicted_full = atomic_load_explicit(&m->evicted_full, memory_order_relaxed),
		.full_decided = atomic_load_explicit(&m->full_decided, memory_order_relaxed),
		.would_reject = policy ? rl_policy_would_reject(policy) : 0,
	};
}

int rl_store_random_seed(uint64_t *seed)
{
	return rl__random_seed(seed) ? RL_OK : RL_EIO;
}

/* Every bucket locked, in index order (as check_any takes two), or unlocked. */
static void lock_all(struct rl_store *s, bool lock)
{
	for (size_t i = 0; i < s->nbuckets; i++)
		if (lock)
			bucket_lock(s, bucket_at(s, i));
		else
			bucket_unlock(s, bucket_at(s, i));
}

/* The index in s->rules for lim's rule (every bucket locked): its own when
 * it has one, else one that no older key uses; -1 when all are in use. */
static int rule_index(struct rl_store *s, const struct rl_limiter *lim)
{
	bool used[RL_STORE_MAX_RULES] = { false };

	for (int i = 0; i < RL_STORE_MAX_RULES; i++)
		if (s->rules[i].algo && rl_limiter_same_rule(&s->rules[i], lim))
			return i;
	used[s->rule_now] = true;
	for (size_t i = 0; i < s->nbuckets; i++) {
		struct bucket *b = bucket_at(s, i);
		for (unsigned m = b->older; m; m &= m - 1)
			used[older_at(s, b, rl__lowest_bit(m))->rule] = true;
	}
	for (int i = 0; i < RL_STORE_MAX_RULES; i++)
		if (!used[i])
			return i;
	return -1;
}

int rl_store_set_rule(struct rl_store *s, const struct rl_limiter *lim)
{
	if (!s || !lim)
		return RL_EINVAL;
	/* a policy's limiter: its own ops (policy.h), of the store's policy's algorithm and rule count */
	const struct rl_policy_limiter *pn = rl_policy_of(lim), *po = rl_policy_of(&s->lim);
	if (pn || po) {
		if (!pn || !po || pn->count != po->count || pn->rules[0].algo != po->rules[0].algo)
			return RL_EINVAL;
		if (pn == po)
			return RL_OK;
	} else if (lim->algo != s->lim.algo) {
		return RL_EINVAL;
	} else if (rl_limiter_same_rule(&s->lim, lim)) {
		return RL_OK;
	}
	if (!lim->algo->rerule || !lim->algo->last_ns)
		return RL_EINVAL;

	int rc = RL_OK;
	lock_all(s, true);
	if (!s->rules) {
		s->rules = calloc(RL_STORE_MAX_RULES, sizeof(*s->rules));
		s->older = calloc(s->nbuckets * SLOTS, sizeof(*s->older));
		if (!s->rules || !s->older) {
			free(s->rules);
			free(s->older);
			s->rules = NULL;
			s->older = NULL;
			rc = RL_ENOMEM;
			goto done;
		}
		s->rules[0] = s->lim;
		atomic_store_explicit(&s->rule_bytes,
				      RL_STORE_MAX_RULES * sizeof(*s->rules) + s->nbuckets * SLOTS * sizeof(*s->older),
				      memory_order_relaxed);
	}
	int g = rule_index(s, lim);
	if (g < 0) {
		rc = RL_EFULL;
		goto done;
	}
	uint32_t was = s->rule_now;
	for (size_t i = 0; i < s->nbuckets; i++) {
		struct bucket *b = bucket_at(s, i);
		for (int j = 0; j < SLOTS; j++) {
			struct older_key *o = older_at(s, b, j);
			if (b->tags[j]) { /* written under the rule now replaced */
				*o = (struct older_key){ b->tags[j], was };
				b->tags[j] = 0;
				b->older |= 1u << j;
			} else if ((b->older & (1u << j)) && o->rule == (uint32_t)g) { /* written under lim's rule */
				b->tags[j] = o->tag;
				b->older &= ~(1u << j);
				*o = (struct older_key){ 0, 0 };
			}
		}
	}
	s->rules[g] = *lim;
	/* the rule and its constants; a one-rule algorithm (read outside the
	 * locks) stays; a policy's ops, which name it, are read under them */
	if (pn) {
		s->lim = *lim;
		atomic_store_explicit(&s->policy, pn, memory_order_relaxed);
	} else {
		s->lim.rule = lim->rule;
		s->lim.priv = lim->priv;
	}
	s->rule_now = (uint32_t)g;
done:
	lock_all(s, false);
	return rc;
}

bool rl_store_reads_policy(struct rl_store *s, const struct rl_policy_limiter *pl)
{
	/* by the ops' address alone: a freed policy's entries in rules are never read */
	const struct rl_algo *ops = rl_policy_as_limiter(pl)->algo;
	bool reads;

	lock_all(s, true);
	reads = s->lim.algo == ops;
	for (size_t i = 0; !reads && s->rules && i < s->nbuckets; i++) {
		struct bucket *b = bucket_at(s, i);
		for (unsigned m = b->older; m && !reads; m &= m - 1)
			reads = s->rules[older_at(s, b, rl__lowest_bit(m))->rule].algo == ops;
	}
	lock_all(s, false);
	return reads;
}

const struct rl_limiter *rl_store_limiter(const struct rl_store *s)
{
	return &s->lim;
}

/* The settle of slot's state in b (locked), under the rule that wrote it, its heap counted. */
static int settle_in(struct rl_store *s, struct bucket *b, int slot, int64_t admitted_ns, int64_t delta,
		     int64_t now_ns)
{
	void *st = state_at(s, b, slot);
	size_t before = s->owns_heap ? state_heap_bytes(s, st) : 0;
	const struct rl_limiter *w = writer(s, b, slot);
	const struct rl_policy_limiter *pl = rl_policy_of(w); /* the policy that wrote the key */
	int rc = pl ? rl_policy_settle(pl, st, admitted_ns, delta, now_ns)
		    : rl_limiter_settle(w, st, admitted_ns, delta, now_ns);

	if (s->owns_heap)
		atomic_fetch_add_explicit(&s->heap_bytes, (int64_t)state_heap_bytes(s, st) - (int64_t)before,
					  memory_order_relaxed);
	return rc;
}

int rl_store_settle(struct rl_store *s, const void *key, size_t key_len, int64_t admitted_ns, int64_t delta,
		    int64_t now_ns)
{
	if (!s || (!key && key_len))
		return RL_EINVAL;
	if (!rl__time_ok(admitted_ns) || !rl__time_ok(now_ns) || admitted_ns > now_ns)
		return RL_ERANGE;
	if (delta == 0 || delta < -RL_COST_MAX || delta > RL_COST_MAX)
		return RL_EINVAL;

	struct where w = locate(s, s->hash(key, key_len, s->seed));
	struct bucket *b1 = bucket_at(s, w.i1), *b2 = bucket_at(s, w.i2);
	struct bucket *lo = w.i1 <= w.i2 ? b1 : b2, *hi = w.i1 <= w.i2 ? b2 : b1;
	struct bucket *b = NULL;
	int slot = -1, rc = RL_ENOTFOUND;

	bucket_lock(s, lo);
	if (hi != lo)
		bucket_lock(s, hi);
	if ((slot = find(b1, w.tag)) >= 0)
		b = b1;
	else if ((slot = find(b2, w.tag)) >= 0)
		b = b2;
	else if ((slot = find_older(s, b1, w.tag)) >= 0)
		b = b1;
	else if (b2 != b1 && (slot = find_older(s, b2, w.tag)) >= 0)
		b = b2;
	if (b)
		rc = settle_in(s, b, slot, admitted_ns, delta, now_ns);
	if (hi != lo)
		bucket_unlock(s, hi);
	bucket_unlock(s, lo);
	return rc;
}
