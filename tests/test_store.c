/*
 * test_store.c - rl_store on one thread: decisions equal the limiter's
 * (every key length the hash reads differently, random costs), forced
 * fingerprint collisions, the three when_full policies, keys moved between
 * their two buckets (their states kept; a store filled to its cap with no
 * key refused), idle eviction under a churn of one-shot keys (10^7 in the
 * plain build), and the memory the store reports. Every test runs twice: on a thread-safe store and on a
 * one-thread store (rl_store_config.one_thread), whose decisions and
 * counters must be the same; test_one_thread_twin also runs both side by
 * side on one random trace.
 */
#include <malloc.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ratelab/sliding_log.h"
#include "limiter_fixture.h"
#include "ratelab/store.h"
#include "test_rng.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define CHURN_KEYS 1000000u /* sanitizers run ~10x slower */
#else
#define CHURN_KEYS 10000000u
#endif

#define SEC 1000000000LL

/* The mode of every store the tests create: set by the group being run. */
static bool one_thread;

static struct rl_store *store_for(const struct rl_limiter *lim, size_t max_keys,
				  enum rl_when_full wf)
{
	struct rl_store_config cfg = { .limiter = lim, .max_keys = max_keys, .when_full = wf,
				       .one_thread = one_thread };
	struct rl_store *s = NULL;

	assert_int_equal(rl_store_create(&s, &cfg), RL_OK);
	return s;
}

static int check_str(struct rl_store *s, const char *key, int64_t t, struct rl_decision *d)
{
	return rl_store_check(s, key, strlen(key), t, d);
}

/*
 * The store's answers (answer) or verdicts (out = NULL, the routes that
 * inline the built-in verdicts) equal rl_limiter_check's on a private
 * state, over 3000 requests of three keys step_ns apart, times running
 * back and forth over several windows.
 */
static void match_limiter(const struct rl_limiter *lim, int64_t step_ns, bool answer, const char *what)
{
	struct rl_store *s = store_for(lim, 1000, RL_FULL_EVICT);
	_Alignas(16) unsigned char st[3][RL_STORE_MAX_STATE] = { { 0 } };
	const char *keys[3] = { "alice", "bob", "" };
	uint64_t x = 12345;

	for (int i = 0; i < 3000; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		int k = (int)(x >> 60) % 3;
		int64_t t = (i - (int64_t)((x >> 20) % 3) * 7) * step_ns;
		struct rl_decision got = { 0 }, want = { 0 };
		int rg = check_str(s, keys[k], t < 0 ? 0 : t, answer ? &got : NULL);
		int rw = rl_limiter_check(lim, st[k], t < 0 ? 0 : t, answer ? &want : NULL);
		if (rg != rw || memcmp(&got, &want, sizeof(got)) != 0)
			fail_msg("%s, %s: request %d key '%s': store %d (rem %lld) vs limiter %d (rem %lld)",
				 lim->algo->name, what, i, keys[k], rg, (long long)got.remaining, rw,
				 (long long)want.remaining);
	}
	for (int k = 0; k < 3; k++)
		rl_limiter_release(lim, st[k]);
	rl_store_destroy(s);
}

/* Every algorithm: the store's answers equal rl_limiter_check's. */
static void test_matches_limiter(void **unused)
{
	size_t n;
	const struct rl_algo *const *all = rl_algo_all(&n);

	(void)unused;
	for (size_t a = 0; a < n; a++) {
		struct rl_limiter lim = make(all[a], 5, 10 * SEC, 7);
		match_limiter(&lim, SEC / 7, true, "answers");
	}
}

/*
 * Every algorithm: the store's verdicts equal rl_limiter_check's, for a
 * narrow rule and for one whose N * W and (B + 1) * W pass 2^64 (the wide
 * arithmetic: N * W is 2^64 + 448384, which wraps to a small number in 64
 * bits).
 */
static void test_verdicts_match_limiter(void **unused)
{
	size_t n;
	const struct rl_algo *const *all = rl_algo_all(&n);

	(void)unused;
	for (size_t a = 0; a < n; a++) {
		struct rl_limiter narrow = make(all[a], 5, 10 * SEC, 7);
		struct rl_limiter wide = make(all[a], 1000000, 18446744073710, 1000000000);
		match_limiter(&narrow, SEC / 7, false, "verdicts, narrow rule");
		match_limiter(&wide, 18446744073710 / 700, false, "verdicts, wide rule");
	}
}

static void test_bad_arguments(void **unused)
{
	struct rl_limiter lim = make(&rl_gcra_algo, 1, SEC, 1);
	struct rl_store_config cfg = { .limiter = &lim, .max_keys = 0 };
	struct rl_store *s = NULL;

	(void)unused;
	assert_int_equal(rl_store_create(&s, &cfg), RL_EINVAL);
	cfg.max_keys = RL_STORE_MAX_KEYS + 1;
	assert_int_equal(rl_store_create(&s, &cfg), RL_EINVAL);
	cfg.max_keys = 1;
	cfg.idle_grace_ns = -1;
	assert_int_equal(rl_store_create(&s, &cfg), RL_EINVAL);
	cfg.idle_grace_ns = 0;
	cfg.limiter = NULL;
	assert_int_equal(rl_store_create(&s, &cfg), RL_EINVAL);
	assert_null(s);

	s = store_for(&lim, 1, RL_FULL_EVICT);
	assert_int_equal(rl_store_check(s, NULL, 3, 0, NULL), RL_EINVAL);
	assert_int_equal(rl_store_check(NULL, "a", 1, 0, NULL), RL_EINVAL);
	assert_int_equal(check_str(s, "a", -1, NULL), RL_ERANGE);
	assert_int_equal(check_str(s, "a", RL_TIME_MAX_NS + 1, NULL), RL_ERANGE);

	struct rl_store_stats st;
	rl_store_stats(s, &st);
	assert_int_equal(st.keys, 0); /* a refused time stores nothing */
	rl_store_destroy(s);
	rl_store_destroy(NULL);
}

/*
 * Every algorithm: a time out of range is refused with RL_ERANGE, whether
 * the key is stored or not and with or without an answer, and changes
 * nothing: no key stored, the stored key's next verdicts those of a state
 * that never saw the refused calls. (A one-thread store's verdict path
 * leaves the time to the algorithm's verdict, algo.h.)
 */
static void test_bad_time_changes_nothing(void **unused)
{
	size_t n;
	const struct rl_algo *const *all = rl_algo_all(&n);
	const int64_t bad[] = { -1, RL_TIME_MAX_NS + 1, INT64_MIN, INT64_MAX };

	(void)unused;
	for (size_t a = 0; a < n; a++) {
		struct rl_limiter lim = make(all[a], 3, SEC, 3);
		struct rl_store *s = store_for(&lim, 16, RL_FULL_EVICT);
		_Alignas(16) unsigned char twin[RL_STORE_MAX_STATE] = { 0 };
		struct rl_decision d;

		for (int64_t t = 0; t < 2 * SEC; t += SEC / 5) {
			assert_int_equal(check_str(s, "a", t, NULL), rl_limiter_check(&lim, twin, t, NULL));
			for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
				if (check_str(s, "a", bad[i], NULL) != RL_ERANGE ||
				    check_str(s, "a", bad[i], &d) != RL_ERANGE ||
				    check_str(s, "b", bad[i], NULL) != RL_ERANGE ||
				    check_str(s, "b", bad[i], &d) != RL_ERANGE)
					fail_msg("%s: time %lld at %lld not refused", all[a]->name,
						 (long long)bad[i], (long long)t);
			}
		}

		struct rl_store_stats st;
		rl_store_stats(s, &st);
		assert_int_equal(st.keys, 1);
		rl_limiter_release(&lim, twin);
		rl_store_destroy(s);
	}
}

/* The store keeps its own copy of cfg.limiter: the caller's may change or go. */
static void test_limiter_copied(void **unused)
{
	struct rl_limiter lim = make(&rl_gcra_algo, 2, SEC, 2), kept = lim;
	struct rl_store *s = store_for(&lim, 4, RL_FULL_EVICT);
	_Alignas(16) unsigned char twin[RL_STORE_MAX_STATE] = { 0 };
	struct rl_decision got, want;

	(void)unused;
	memset(&lim, 0xa5, sizeof lim);
	for (int64_t t = 0; t < 3 * SEC; t += SEC / 4) {
		assert_int_equal(check_str(s, "k", t, NULL), rl_limiter_check(&kept, twin, t, NULL));
		assert_int_equal(check_str(s, "k", t, &got), rl_limiter_check(&kept, twin, t, &want));
		assert_memory_equal(&got, &want, sizeof got);
	}
	rl_store_destroy(s);
}

static uint64_t same_hash(const void *key, size_t len, uint64_t seed)
{
	(void)key;
	(void)len;
	(void)seed;
	return 42;
}

/* store.h: keys with the same fingerprint share one state (one quota). */
static void test_forced_collision(void **unused)
{
	struct rl_limiter lim = make(&rl_fixed_window_algo, 2, 3600 * SEC, 2);
	struct rl_store_config cfg = { .limiter = &lim, .max_keys = 10, .hash = same_hash,
				       .one_thread = one_thread };
	struct rl_store *s = NULL;
	struct rl_store_stats st;

	(void)unused;
	assert_int_equal(rl_store_create(&s, &cfg), RL_OK);
	assert_int_equal(check_str(s, "alice", 1, NULL), RL_ALLOWED);
	assert_int_equal(check_str(s, "mallory", 2, NULL), RL_ALLOWED);
	assert_int_equal(check_str(s, "alice", 3, NULL), RL_REJECTED);
	assert_int_equal(check_str(s, "mallory", 4, NULL), RL_REJECTED);
	rl_store_stats(s, &st);
	assert_int_equal(st.keys, 1);
	rl_store_destroy(s);

	/* The default hash tells them apart. */
	s = store_for(&lim, 10, RL_FULL_EVICT);
	assert_int_equal(check_str(s, "alice", 1, NULL), RL_ALLOWED);
	assert_int_equal(check_str(s, "alice", 1, NULL), RL_ALLOWED);
	assert_int_equal(check_str(s, "mallory", 2, NULL), RL_ALLOWED);
	rl_store_stats(s, &st);
	assert_int_equal(st.keys, 2);
	rl_store_destroy(s);
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/*
 * Structured keys: a 16-byte key whose one half is a word that cancels a
 * hash constant (the first four once zeroed a product and so collided for
 * every value of the other half), or a long key with such a word in the
 * middle (which once erased the words before it). Seed 0: every key of a
 * family hashes apart, and a store of limit 1 admits each once.
 */
static void test_structured_keys_hash(void **unused)
{
	static const uint64_t words[] = { 0xa0761d6478bd642fULL, 0xe7037ed1a0b428dbULL, 0x8ebc6af09c88c6e3ULL,
					  0x589965cc75374cc3ULL, 0x1d8e4e27c47d124fULL };
	enum { N = 1000 };
	static uint64_t h[3 * N];
	unsigned char key[24];

	(void)unused;
	for (size_t w = 0; w < sizeof(words) / sizeof(words[0]); w++) {
		for (uint64_t i = 0; i < N; i++) {
			memcpy(key, &words[w], 8); /* W || i */
			memcpy(key + 8, &i, 8);
			h[i] = rl_store_hash(key, 16, 0);
			memcpy(key, &i, 8); /* i || W */
			memcpy(key + 8, &words[w], 8);
			h[N + i] = rl_store_hash(key, 16, 0);
			memset(key + 16, 0, 8); /* i || W || 0, the long path */
			h[2 * N + i] = rl_store_hash(key, 24, 0);
		}
		qsort(h, 3 * N, sizeof(h[0]), u64_cmp);
		for (size_t i = 1; i < 3 * N; i++)
			if (h[i] == h[i - 1])
				fail_msg("word %#llx: two keys hash to %#llx", (unsigned long long)words[w],
					 (unsigned long long)h[i]);
	}

	struct rl_limiter lim = make(&rl_gcra_algo, 1, 3600 * SEC, 1);
	struct rl_store *s = store_for(&lim, 2 * N, RL_FULL_FAIL_CLOSED);
	for (uint64_t i = 0; i < N; i++) {
		memcpy(key, &words[0], 8);
		memcpy(key + 8, &i, 8);
		assert_int_equal(rl_store_check(s, key, 16, 0, NULL), RL_ALLOWED);
	}
	struct rl_store_stats st;
	rl_store_stats(s, &st);
	assert_int_equal(st.keys, N);
	rl_store_destroy(s);
}

/* The key is its hash: an 8-byte value read as is (the test picks buckets). */
static uint64_t identity_hash(const void *key, size_t len, uint64_t seed)
{
	uint64_t h = 0;

	(void)seed;
	memcpy(&h, key, len < 8 ? len : 8);
	return h;
}

/* store.c's locate() for a table of n buckets: the buckets of hash h (the
 * first from its high bits, the second (g - first) mod n, g drawn from the
 * 32-bit tag). */
static void buckets_of(uint64_t h, int n, int *i1, int *i2)
{
	uint32_t tag = (uint32_t)h | ((uint32_t)h == 0);
	int g = (int)(((unsigned __int128)((uint64_t)tag * 0x9e3779b97f4a7c15ULL) * (unsigned)n) >> 64);

	*i1 = (int)(((unsigned __int128)h * (unsigned)n) >> 64);
	*i2 = g >= *i1 ? g - *i1 : g + n - *i1;
}

/* The next hash after *h (a counter) whose buckets in a table of n are b1 and b2. */
static uint64_t hash_to(uint64_t *h, int n, int b1, int b2)
{
	/* the least hash whose first bucket is b1, plus the counter */
	uint64_t base = (uint64_t)((((unsigned __int128)b1 << 64) + (unsigned)n - 1) / (unsigned)n);
	int i1, i2;

	do
		buckets_of(base + ++*h, n, &i1, &i2);
	while (i1 != b1 || i2 != b2);
	return base + *h;
}

/* The next key from *next (a counter) whose buckets in a table of n are b1
 * and b2 under the default hash and seed (the fast paths' hash). */
static uint64_t key_to(uint64_t *next, uint64_t seed, int n, int b1, int b2)
{
	uint64_t k;
	int i1, i2;

	do {
		k = (*next)++;
		buckets_of(rl_store_hash(&k, sizeof k, seed), n, &i1, &i2);
	} while (i1 != b1 || i2 != b2);
	return k;
}

/* The next hash after *h whose two buckets are both bucket b of a 2-bucket table. */
static uint64_t hash_in(uint64_t *h, int b)
{
	return hash_to(h, 2, b, b);
}

/*
 * RL_FULL_EVICT when the new key's two buckets hold no key: the victim is
 * searched outside them (at the sweep cursor). max_keys 16 makes a table of
 * 2 buckets; 16 keys fill bucket 0, a key of bucket 1 evicts the one of
 * them nearest to full quota and is stored in its own bucket.
 */
static void test_evict_elsewhere(void **unused)
{
	struct rl_limiter lim = make(&rl_fixed_window_algo, 2, 3600 * SEC, 2);
	struct rl_store_config cfg = { .limiter = &lim, .max_keys = 16, .when_full = RL_FULL_EVICT,
				       .one_thread = one_thread,
				       .hash = identity_hash };
	struct rl_store *s = NULL;
	struct rl_store_stats st;
	uint64_t h0 = 0, h1 = 0, keys[16], k;

	(void)unused;
	assert_int_equal(rl_store_create(&s, &cfg), RL_OK);
	rl_store_stats(s, &st);
	assert_int_equal(st.slots, 32);
	for (int i = 0; i < 16; i++) {
		keys[i] = hash_in(&h0, 0);
		/* keys[0] once, the others twice: keys[0] is nearest to full quota */
		for (int n = 0; n < (i ? 2 : 1); n++)
			assert_int_equal(rl_store_check(s, &keys[i], 8, 0, NULL), RL_ALLOWED);
	}
	k = hash_in(&h1, 1);
	assert_int_equal(rl_store_check(s, &k, 8, 0, NULL), RL_ALLOWED);
	assert_int_equal(rl_store_check(s, &k, 8, 0, NULL), RL_ALLOWED);
	assert_int_equal(rl_store_check(s, &k, 8, 0, NULL), RL_REJECTED); /* its state was stored */
	rl_store_stats(s, &st);
	assert_int_equal(st.keys, 16);
	assert_int_equal(st.evicted_full, 1);
	assert_int_equal(st.full_decided, 0);
	/* the victim was keys[0], nearest to full quota: keys[1] kept its state */
	assert_int_equal(rl_store_check(s, &keys[1], 8, 0, NULL), RL_REJECTED);
	rl_store_destroy(s);
}

/*
 * A new key whose two buckets are full moves one of their keys to that
 * key's other bucket, below the cap, instead of evicting; a key found in
 * its second bucket moves to its first once that has room. Each moved key
 * keeps its state (sliding_log: a heap ring, which the sanitizers' build
 * would see freed twice or lost). max_keys 40 makes a table of 3 buckets.
 */
static void test_moves_keep_state(void **unused)
{
	struct rl_limiter lim = make(&rl_sliding_log_algo, 2, SEC, 2);
	struct rl_store_config cfg = { .limiter = &lim, .max_keys = 40, .when_full = RL_FULL_EVICT,
				       .one_thread = one_thread, .hash = identity_hash };
	struct rl_store *s = NULL;
	struct rl_store_stats st;
	uint64_t c = 0, v, n, k, m;

	(void)unused;
	assert_int_equal(rl_store_create(&s, &cfg), RL_OK);
	rl_store_stats(s, &st);
	assert_int_equal(st.slots, 48);
	for (int i = 0; i < 16; i++) { /* bucket 0 full of keys that cannot leave it */
		uint64_t a = hash_to(&c, 3, 0, 0);
		assert_int_equal(rl_store_check(s, &a, 8, 0, NULL), RL_ALLOWED);
	}
	for (int i = 0; i < 15; i++) {
		uint64_t b = hash_to(&c, 3, 1, 1);
		assert_int_equal(rl_store_check(s, &b, 8, 0, NULL), RL_ALLOWED);
	}
	v = hash_to(&c, 3, 1, 2); /* the 16th of bucket 1, the only one that can move */
	assert_int_equal(rl_store_check(s, &v, 8, 0, NULL), RL_ALLOWED);
	assert_int_equal(rl_store_check(s, &v, 8, 1, NULL), RL_ALLOWED);

	n = hash_to(&c, 3, 0, 1); /* both buckets full: v goes to bucket 2 */
	assert_int_equal(rl_store_check(s, &n, 8, 2, NULL), RL_ALLOWED);
	rl_store_stats(s, &st);
	assert_int_equal(st.keys, 33);
	assert_int_equal(st.evicted_full, 0);
	assert_int_equal(st.full_decided, 0);
	assert_int_equal(rl_store_check(s, &v, 8, 3, NULL), RL_REJECTED); /* two in its window */
	assert_int_equal(rl_store_check(s, &n, 8, 3, NULL), RL_ALLOWED);
	assert_int_equal(rl_store_check(s, &n, 8, 4, NULL), RL_REJECTED);

	k = hash_to(&c, 3, 0, 2); /* bucket 0 full: k goes to bucket 2 */
	assert_int_equal(rl_store_check(s, &k, 8, SEC / 2, NULL), RL_ALLOWED);
	assert_int_equal(rl_store_check(s, &k, 8, SEC * 18 / 10, NULL), RL_ALLOWED);
	m = hash_to(&c, 3, 0, 0); /* at 2 s the keys of bucket 0 are idle: m drops them */
	assert_int_equal(rl_store_check(s, &m, 8, 2 * SEC, NULL), RL_ALLOWED);
	/* k, in use, now moves to bucket 0 and still holds its request of 1.8 s */
	assert_int_equal(rl_store_check(s, &k, 8, SEC * 21 / 10, NULL), RL_ALLOWED);
	assert_int_equal(rl_store_check(s, &k, 8, SEC * 22 / 10, NULL), RL_REJECTED);
	assert_int_equal(rl_store_check(s, &k, 8, SEC * 29 / 10, NULL), RL_ALLOWED);
	rl_store_stats(s, &st);
	assert_int_equal(st.evicted_full, 0);
	rl_store_destroy(s);
}

/*
 * Keys stored in their second bucket, under the default hash (the fast
 * paths', and on a one-thread store the verdict route's): verdicts alone,
 * each key's own state found there while its first bucket is full, a bad
 * time refused there, and the state kept when the key moves to its first
 * bucket once that has room. (Where a key lives is not observable through
 * the API: a full bucket's keys are moved on demand, make_room.) gcra at 2
 * per second, burst 2: T = tau = 0.5 s. max_keys 40 makes a table of 3
 * buckets.
 */
static void test_second_bucket_verdicts(void **unused)
{
	struct rl_limiter lim = make(&rl_gcra_algo, 2, SEC, 2);
	struct rl_store_config cfg = { .limiter = &lim, .max_keys = 40, .when_full = RL_FULL_EVICT,
				       .one_thread = one_thread, .hash_seed = 0x5eed };
	struct rl_store *s = NULL;
	struct rl_store_stats st;
	uint64_t next = 0, k, j, m;

	(void)unused;
	assert_int_equal(rl_store_create(&s, &cfg), RL_OK);
	for (int i = 0; i < 16; i++) { /* bucket 0 full of keys that cannot leave it */
		uint64_t a = key_to(&next, cfg.hash_seed, 3, 0, 0);
		assert_int_equal(rl_store_check(s, &a, 8, 0, NULL), RL_ALLOWED);
	}
	k = key_to(&next, cfg.hash_seed, 3, 0, 2); /* both stored in bucket 2 */
	j = key_to(&next, cfg.hash_seed, 3, 0, 2);
	assert_int_equal(rl_store_check(s, &k, 8, 0, NULL), RL_ALLOWED);
	assert_int_equal(rl_store_check(s, &j, 8, 0, NULL), RL_ALLOWED);
	assert_int_equal(rl_store_check(s, &k, 8, -1, NULL), RL_ERANGE);
	assert_int_equal(rl_store_check(s, &k, 8, 0, NULL), RL_ALLOWED);
	assert_int_equal(rl_store_check(s, &k, 8, 0, NULL), RL_REJECTED); /* TAT 1 s */
	assert_int_equal(rl_store_check(s, &j, 8, 0, NULL), RL_ALLOWED);  /* its own TAT: 0.5 s */
	assert_int_equal(rl_store_check(s, &j, 8, 0, NULL), RL_REJECTED);
	assert_int_equal(rl_store_check(s, &k, 8, SEC / 2, NULL), RL_ALLOWED); /* TAT 1.5 s */
	assert_int_equal(rl_store_check(s, &k, 8, SEC / 2, NULL), RL_REJECTED);
	assert_int_equal(rl_store_check(s, &k, 8, SEC * 18 / 10, NULL), RL_ALLOWED); /* TAT 2.3 s */
	assert_int_equal(rl_store_check(s, &k, 8, SEC * 18 / 10, NULL), RL_ALLOWED); /* TAT 2.8 s */
	rl_store_stats(s, &st);
	assert_int_equal(st.keys, 18);
	assert_int_equal(st.evicted_full, 0);

	m = key_to(&next, cfg.hash_seed, 3, 0, 0); /* at 2 s bucket 0's keys are idle: m drops them */
	assert_int_equal(rl_store_check(s, &m, 8, 2 * SEC, NULL), RL_ALLOWED);
	/* k moves to bucket 0 and keeps its TAT: 0.7 s of debt, 0.5 s tolerated */
	assert_int_equal(rl_store_check(s, &k, 8, SEC * 21 / 10, NULL), RL_REJECTED);
	assert_int_equal(rl_store_check(s, &k, 8, SEC * 23 / 10, NULL), RL_ALLOWED); /* TAT 3.3 s */
	assert_int_equal(rl_store_check(s, &k, 8, SEC * 23 / 10, NULL), RL_REJECTED);
	rl_store_stats(s, &st);
	assert_int_equal(st.keys, 3);
	rl_store_destroy(s);
}

/*
 * Filling a store to its cap stores every key (no policy decision below
 * it, when first fit alone leaves both buckets of about 1 % of new keys
 * full), and every key keeps its own state. Several sizes and seeds.
 */
static void test_fill_to_cap(void **unused)
{
	static const size_t caps[] = { 1000, 4096, 30000 };
	struct rl_limiter lim = make(&rl_gcra_algo, 2, 3600 * SEC, 2);

	(void)unused;
	for (size_t ci = 0; ci < sizeof(caps) / sizeof(caps[0]); ci++)
		for (uint64_t seed = 1; seed <= 3; seed++) {
			struct rl_store_config cfg = { .limiter = &lim, .max_keys = caps[ci],
						       .when_full = RL_FULL_FAIL_CLOSED,
						       .one_thread = one_thread, .hash_seed = seed };
			struct rl_store *s = NULL;
			struct rl_store_stats st;

			assert_int_equal(rl_store_create(&s, &cfg), RL_OK);
			for (uint64_t key = 0; key < caps[ci]; key++)
				assert_int_equal(rl_store_check(s, &key, 8, 0, NULL), RL_ALLOWED);
			rl_store_stats(s, &st);
			if (st.full_decided || st.keys != caps[ci])
				fail_msg("cap %zu, seed %llu: %zu keys stored, %llu decided full",
					 caps[ci], (unsigned long long)seed, (size_t)st.keys,
					 (unsigned long long)st.full_decided);
			for (uint64_t key = 0; key < caps[ci]; key++) {
				assert_int_equal(rl_store_check(s, &key, 8, 1, NULL), RL_ALLOWED);
				assert_int_equal(rl_store_check(s, &key, 8, 2, NULL), RL_REJECTED);
			}
			rl_store_destroy(s);
		}
}

/* Four keys fill a store of max_keys 4; a fifth meets each policy. */
static struct rl_store *full_store(const struct rl_limiter *lim, enum rl_when_full wf)
{
	struct rl_store *s = store_for(lim, 4, wf);
	char key[8];

	for (int i = 0; i < 4; i++) {
		snprintf(key, sizeof(key), "k%d", i);
		assert_int_equal(check_str(s, key, i * SEC, NULL), RL_ALLOWED);
	}
	return s;
}

static void test_full_policies(void **unused)
{
	struct rl_limiter lim = make(&rl_gcra_algo, 1, 3600 * SEC, 1);
	struct rl_store_stats st;
	struct rl_decision d;

	(void)unused;
	struct rl_store *s = full_store(&lim, RL_FULL_FAIL_CLOSED);
	assert_int_equal(check_str(s, "new", 10 * SEC, &d), RL_REJECTED);
	assert_int_equal(d.remaining, 0);
	assert_int_equal(d.retry_after_ns, 3600 * SEC);
	assert_int_equal(check_str(s, "k0", 10 * SEC, NULL), RL_REJECTED); /* still stored */
	rl_store_stats(s, &st);
	assert_int_equal(st.keys, 4);
	assert_int_equal(st.full_decided, 1);
	rl_store_destroy(s);

	s = full_store(&lim, RL_FULL_FAIL_OPEN);
	assert_int_equal(check_str(s, "new", 10 * SEC, &d), RL_ALLOWED);
	assert_int_equal(check_str(s, "new", 10 * SEC, &d), RL_ALLOWED); /* not stored: fresh again */
	rl_store_stats(s, &st);
	assert_int_equal(st.keys, 4);
	assert_int_equal(st.full_decided, 2);
	rl_store_destroy(s);

	/* EVICT drops k0, the key whose quota comes back first. */
	s = full_store(&lim, RL_FULL_EVICT);
	assert_int_equal(check_str(s, "new", 10 * SEC, &d), RL_ALLOWED);
	assert_int_equal(check_str(s, "new", 11 * SEC, &d), RL_REJECTED);
	assert_int_equal(check_str(s, "k1", 12 * SEC, NULL), RL_REJECTED);
	assert_int_equal(check_str(s, "k3", 12 * SEC, NULL), RL_REJECTED);
	rl_store_stats(s, &st);
	assert_int_equal(st.keys, 4);
	assert_int_equal(st.evicted_full, 1);
	assert_int_equal(st.full_decided, 0);
	assert_int_equal(check_str(s, "k0", 13 * SEC, NULL), RL_ALLOWED); /* forgotten, k1 goes */
	assert_int_equal(check_str(s, "k1", 14 * SEC, NULL), RL_ALLOWED);
	rl_store_destroy(s);

	/* Idle keys are reclaimed before any policy applies. */
	s = full_store(&lim, RL_FULL_FAIL_CLOSED);
	assert_int_equal(check_str(s, "new", 3601 * SEC, NULL), RL_ALLOWED);
	rl_store_stats(s, &st);
	assert_int_equal(st.full_decided, 0);
	assert_true(st.evicted_idle >= 2);
	rl_store_destroy(s);
}

/*
 * A sliding log's ring is counted as the allocator holds it: usable bytes
 * plus the chunk header, not the 64 bytes its 4 runs asked for.
 */
static void test_stats_count_allocator_bytes(void **unused)
{
	struct rl_limiter lim = make(&rl_sliding_log_algo, 1000, SEC, 1000);
	struct rl_store *s = store_for(&lim, 100, RL_FULL_EVICT);
	struct rl_store_stats empty, one;

	(void)unused;
	rl_store_stats(s, &empty);
	for (int64_t t = 0; t < 3; t++) /* 3 runs: a ring of 4 */
		assert_int_equal(check_str(s, "k", t, NULL), RL_ALLOWED);
	rl_store_stats(s, &one);
	void *ring = malloc(4 * sizeof(struct rl_run));
	assert_non_null(ring);
	size_t chunk = malloc_usable_size(ring) + sizeof(size_t);
	free(ring);
	assert_int_equal(one.bytes - empty.bytes, chunk);
	assert_true(chunk > 4 * sizeof(struct rl_run));
	rl_store_destroy(s);
}

/* Stats count the table and the sliding logs' heap, and return to the table alone. */
static void test_stats_bytes(void **unused)
{
	struct rl_limiter lim = make(&rl_sliding_log_algo, 1000, SEC, 1000);
	struct rl_store *s = store_for(&lim, 100, RL_FULL_EVICT);
	struct rl_store_stats empty, busy, later;

	(void)unused;
	rl_store_stats(s, &empty);
	assert_int_equal(empty.keys, 0);
	assert_true(empty.slots >= 100 + 100 / 6);
	for (int64_t t = 0; t < 500; t++)
		assert_int_equal(check_str(s, "k", t, NULL), RL_ALLOWED); /* 500 runs */
	rl_store_stats(s, &busy);
	assert_true(busy.bytes >= empty.bytes + 500 * sizeof(struct rl_run));
	/* A minute later the key is idle; a new key's insertion sweeps it away. */
	for (int i = 0; i < 200; i++) {
		char key[16];
		snprintf(key, sizeof(key), "other%d", i);
		assert_int_equal(check_str(s, key, 60 * SEC, NULL), RL_ALLOWED);
	}
	rl_store_stats(s, &later);
	assert_true(later.keys <= 100);
	assert_true(later.evicted_idle >= 1);
	assert_true(later.bytes < busy.bytes);
	rl_store_destroy(s);
}

/*
 * sliding_log as it is, but its release op also adds up the heap each
 * state held (as the allocator holds it): destroying a store then tells
 * what its keys held, state by state.
 */
static size_t released_heap;
static struct rl_algo counted_log;

static void counted_release(void *state)
{
	released_heap += rl_sliding_log_algo.heap_bytes(state);
	rl_sliding_log_algo.release(state);
}

/*
 * The store's heap total is exact whichever path a check takes: verdicts
 * (the cost-1 verdict route of either store) and answers, while rings grow
 * (100 runs a key) and then shrink (every run expired a second later): it
 * equals what the states held when the store is destroyed.
 */
static void test_heap_total_exact(void **unused)
{
	counted_log = rl_sliding_log_algo;
	counted_log.release = counted_release;
	struct rl_limiter lim = make(&counted_log, 1000, SEC, 1000);
	struct rl_store *s = store_for(&lim, 64, RL_FULL_EVICT);
	struct rl_store_stats empty, grown, shrunk;
	struct rl_decision d;

	(void)unused;
	rl_store_stats(s, &empty);
	for (int64_t t = 0; t < 4000; t++) {
		char key[16];
		snprintf(key, sizeof(key), "k%d", (int)(t % 40));
		assert_int_equal(check_str(s, key, t, t % 3 ? NULL : &d), RL_ALLOWED);
	}
	rl_store_stats(s, &grown);
	assert_true(grown.bytes - empty.bytes >= 40 * 100 * sizeof(struct rl_run));
	for (int64_t t = 2 * SEC; t < 2 * SEC + 80; t++) {
		char key[16];
		snprintf(key, sizeof(key), "k%d", (int)(t % 40));
		assert_int_equal(check_str(s, key, t, t % 2 ? NULL : &d), RL_ALLOWED);
	}
	rl_store_stats(s, &shrunk);
	assert_true(shrunk.bytes < grown.bytes);
	released_heap = 0;
	rl_store_destroy(s);
	assert_int_equal(shrunk.bytes - empty.bytes, released_heap);
}

/* store.h's memory goal: bytes per key at a cap of 10^7 keys. */
static void test_bytes_per_key(void **unused)
{
	size_t n;
	const struct rl_algo *const *all = rl_algo_all(&n);

	(void)unused;
	for (size_t a = 0; a < n; a++) {
		if (all[a]->release)
			continue; /* sliding_log: heap grows with use */
		struct rl_limiter lim = make(all[a], 10, SEC, 10);
		struct rl_store *s = store_for(&lim, 10000000, RL_FULL_EVICT);
		struct rl_store_stats st;

		rl_store_stats(s, &st);
		double per_key = (double)st.bytes / 1e7;
		print_message("%-16s %5.2f bytes/key at a cap of 10^7 keys\n", all[a]->name, per_key);
		assert_true(per_key <= (double)all[a]->state_size + 16.0);
		rl_store_destroy(s);
	}
}

/*
 * A rotating IPv6 client: CHURN_KEYS one-shot keys, one every 100 ns,
 * and a steady key every 7th request. The store's memory stays fixed under
 * its cap, and every steady decision equals a private replay.
 */
static void test_churn_steady_key(void **unused)
{
	struct rl_limiter lim = make(&rl_gcra_algo, 10, 1000000, 10); /* 10 per ms */
	struct rl_store *s = store_for(&lim, 1 << 16, RL_FULL_EVICT);
	_Alignas(16) unsigned char steady[RL_STORE_MAX_STATE] = { 0 };
	struct rl_store_stats first, st;
	unsigned char ip[16] = { 0x20, 0x01, 0x0d, 0xb8 };
	uint64_t allowed = 0;

	(void)unused;
	rl_store_stats(s, &first);
	for (uint32_t i = 0; i < CHURN_KEYS; i++) {
		int64_t t = (int64_t)i * 100;

		memcpy(ip + 12, &i, 4);
		assert_int_equal(rl_store_check(s, ip, sizeof(ip), t, NULL), RL_ALLOWED);
		if (i % 7 == 0) {
			struct rl_decision got, want;
			int rg = rl_store_check(s, "steady", 6, t, &got);
			int rw = rl_limiter_check(&lim, steady, t, &want);
			if (rg != rw || memcmp(&got, &want, sizeof(got)) != 0)
				fail_msg("steady key at request %u: store %d vs replay %d", i, rg, rw);
			allowed += (uint64_t)rg;
		}
		if ((i & 0xfffff) == 0) {
			rl_store_stats(s, &st);
			assert_true(st.keys <= 1 << 16);
			assert_int_equal(st.bytes, first.bytes);
		}
	}
	rl_store_stats(s, &st);
	print_message("churn: %u keys, %llu evicted idle, %llu evicted full, %zu stored, %zu bytes\n",
		      CHURN_KEYS, (unsigned long long)st.evicted_idle,
		      (unsigned long long)st.evicted_full, st.keys, st.bytes);
	assert_int_equal(st.bytes, first.bytes);
	assert_int_equal(st.evicted_full, 0);
	assert_true(st.evicted_idle + st.keys == CHURN_KEYS + 1);
	/* About 10 per ms over CHURN_KEYS * 100 ns: the steady key kept being limited. */
	assert_true(allowed >= (uint64_t)CHURN_KEYS / 1000);
	assert_true(allowed <= (uint64_t)CHURN_KEYS / 1000 + 10);
	rl_store_destroy(s);
}

/*
 * A key of len bytes, distinct from the others by its index, written from
 * its first byte on (even indexes) or from its last byte back (odd): a
 * hash that skipped either end of a key would merge keys. The rest is one byte repeated, the same
 * for every key.
 */
static void indexed_key(unsigned char *key, size_t len, uint32_t index)
{
	memset(key, 0x5a, len);
	for (size_t j = 0; j < len && j < 4; j++)
		key[index & 1 ? len - 1 - j : j] = (unsigned char)(index >> (8 * j));
}

/*
 * Keys of every length from 0 to 24 bytes (the hash reads 1-3, 4-7, 8,
 * 9-16 and longer keys each its own way), random costs and some requests
 * without an answer: each key's decisions and answers equal
 * rl_limiter_check_n's on a private state.
 */
static void test_key_lengths(void **unused)
{
	enum { KEYS = 200, REQUESTS = 20000, MAXLEN = 24 };
	uint64_t seed = t_seed_from_env(0x1e9), rng = seed;
	size_t n;
	const struct rl_algo *const *all = rl_algo_all(&n);

	(void)unused;
	for (size_t a = 0; a < n; a++) {
		struct rl_limiter lim = make(all[a], 20, SEC, 25);
		/* times step back up to 30 ms: idle keys are dropped only a
		 * grace of 1 s behind, so no drop is visible (store.h) */
		struct rl_store_config cfg = { .limiter = &lim, .max_keys = 4 * KEYS,
					       .when_full = RL_FULL_FAIL_CLOSED, .idle_grace_ns = SEC,
					       .one_thread = one_thread };
		struct rl_store *s = NULL;
		static _Alignas(16) unsigned char st[KEYS][RL_STORE_MAX_STATE];
		unsigned char keys[KEYS][MAXLEN];
		size_t lens[KEYS];

		assert_int_equal(rl_store_create(&s, &cfg), RL_OK);
		memset(st, 0, sizeof st);
		/* one key of length 0 (there is only one), the others 1 to 24 bytes */
		for (uint32_t k = 0; k < KEYS; k++) {
			lens[k] = k == 0 ? 0 : 1 + (k / 2) % MAXLEN;
			indexed_key(keys[k], lens[k], k);
		}
		for (int i = 0; i < REQUESTS; i++) {
			uint64_t x = t_splitmix(&rng);
			uint32_t k = (uint32_t)(x % KEYS);
			int64_t t = (int64_t)i * (SEC / 400) - (int64_t)((x >> 32) % 4) * (SEC / 100);
			int64_t cost = (x >> 40) % 8 == 0 ? 1 + (int64_t)((x >> 44) % 30) : 1;
			struct rl_decision got, want;

			/* one cost-1 request in four without an answer: the store's
			 * verdict paths (the algorithm's verdict op, algo.h) */
			int answer = cost != 1 || (x >> 48) % 4 != 0;

			t = t < 0 ? 0 : t;
			int rg = answer ? rl_store_check_n(s, keys[k], lens[k], t, cost, &got)
					: rl_store_check(s, keys[k], lens[k], t, NULL);
			int rw = rl_limiter_check_n(&lim, st[k], t, cost, &want);
			if (rg != rw || (rg >= 0 && answer && memcmp(&got, &want, sizeof(got)) != 0))
				fail_msg("%s (%s store): seed %#llx request %d key %u (%zu bytes) cost %lld: "
					 "store %d vs limiter %d",
					 all[a]->name, one_thread ? "one-thread" : "thread-safe",
					 (unsigned long long)seed, i, k, lens[k], (long long)cost, rg, rw);
		}
		for (int k = 0; k < KEYS; k++)
			rl_limiter_release(&lim, st[k]);
		rl_store_destroy(s);
	}
}

/*
 * A thread-safe store and a one-thread store side by side on one random
 * trace that keeps both at their cap (idle and full evictions, each
 * when_full policy, keys of 8 and 20 bytes): the same result, answer and
 * counters after every request (bytes too, for states without heap).
 */
static void test_one_thread_twin(void **unused)
{
	enum { KEYS = 300, REQUESTS = 30000 };
	uint64_t seed = t_seed_from_env(0x7a1), rng = seed;
	size_t n;
	const struct rl_algo *const *all = rl_algo_all(&n);

	(void)unused;
	for (size_t a = 0; a < n; a++)
		for (int wf = RL_FULL_EVICT; wf <= RL_FULL_FAIL_CLOSED; wf++) {
			struct rl_limiter lim = make(all[a], 3, SEC / 10, 4);
			struct rl_store_config cfg = { .limiter = &lim, .max_keys = 40,
						       .when_full = (enum rl_when_full)wf };
			struct rl_store *shared = NULL, *owned = NULL;

			assert_int_equal(rl_store_create(&shared, &cfg), RL_OK);
			cfg.one_thread = true;
			assert_int_equal(rl_store_create(&owned, &cfg), RL_OK);
			for (int i = 0; i < REQUESTS; i++) {
				uint64_t x = t_splitmix(&rng);
				unsigned char key[20] = { 0 };
				uint32_t k = (uint32_t)(x % KEYS);
				size_t len = (x >> 32) & 1 ? 20 : 8;
				int64_t t = (int64_t)i * (SEC / 1000);
				struct rl_decision d1, d2;
				struct rl_store_stats s1, s2;

				memcpy(key, &k, 4);
				int r1 = rl_store_check(shared, key, len, t, &d1);
				int r2 = rl_store_check(owned, key, len, t, &d2);
				rl_store_stats(shared, &s1);
				rl_store_stats(owned, &s2);
				/* a state's heap is what the allocator handed out, which
				 * depends on the order of the two stores' allocations */
				if (all[a]->heap_bytes)
					s2.bytes = s1.bytes;
				if (r1 != r2 || (r1 >= 0 && memcmp(&d1, &d2, sizeof d1) != 0) ||
				    memcmp(&s1, &s2, sizeof s1) != 0)
					fail_msg("%s when_full %d: seed %#llx request %d: thread-safe %d "
						 "(remaining %lld, %zu keys, %zu bytes) vs one-thread %d "
						 "(remaining %lld, %zu keys, %zu bytes)",
						 all[a]->name, wf, (unsigned long long)seed, i, r1,
						 (long long)d1.remaining, s1.keys, s1.bytes, r2,
						 (long long)d2.remaining, s2.keys, s2.bytes);
			}
			rl_store_destroy(shared);
			rl_store_destroy(owned);
		}
}

static int thread_safe_mode(void **unused)
{
	(void)unused;
	one_thread = false;
	return 0;
}

static int one_thread_mode(void **unused)
{
	(void)unused;
	one_thread = true;
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_matches_limiter), cmocka_unit_test(test_verdicts_match_limiter),
		cmocka_unit_test(test_key_lengths),
		cmocka_unit_test(test_bad_arguments), cmocka_unit_test(test_bad_time_changes_nothing),
		cmocka_unit_test(test_limiter_copied), cmocka_unit_test(test_forced_collision),
		cmocka_unit_test(test_structured_keys_hash), cmocka_unit_test(test_evict_elsewhere),
		cmocka_unit_test(test_full_policies), cmocka_unit_test(test_stats_bytes),
		cmocka_unit_test(test_stats_count_allocator_bytes), cmocka_unit_test(test_heap_total_exact),
		cmocka_unit_test(test_bytes_per_key),
		cmocka_unit_test(test_churn_steady_key), cmocka_unit_test(test_moves_keep_state),
		cmocka_unit_test(test_second_bucket_verdicts), cmocka_unit_test(test_fill_to_cap),
	};
	const struct CMUnitTest twin[] = { cmocka_unit_test(test_one_thread_twin) };

	return cmocka_run_group_tests_name("thread-safe store", tests, thread_safe_mode, NULL) |
	       cmocka_run_group_tests_name("one-thread store", tests, one_thread_mode, NULL) |
	       cmocka_run_group_tests_name("both", twin, NULL, NULL);
}
