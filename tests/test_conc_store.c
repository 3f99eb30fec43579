/*
 * test_conc_store.c - rl_store under threads: exact totals on one hot key
 * for every algorithm; many keys over several threads give exactly the
 * answers of a single-threaded replay of the same per-key sequences, also
 * while keys move between their two buckets, and lose no update of the
 * shared heap total; a
 * churn of one-shot keys from several threads never passes the cap.
 * Seeded: RL_SEED overrides the seed, which failures print. POSIX threads,
 * which ThreadSanitizer intercepts (C11 thrd_create it does not).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <stdatomic.h>

#include <cmocka.h>

#include "limiter_fixture.h"
#include "ratelab/store.h"

#define THREADS 4
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define SCALE 4 /* sanitizers slow each check ~10x: a quarter of the work */
#else
#define SCALE 1
#endif
#define SEC 1000000000LL

static uint64_t seed = 20261112;

static uint64_t next_rand(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* ---- one hot key ---- */

struct hot {
	struct rl_store *s;
	pthread_barrier_t *start;
	int requests;
	int allowed;
};

static void *hot_thread(void *arg)
{
	struct hot *h = arg;

	pthread_barrier_wait(h->start); /* all threads at once: their checks interleave */
	for (int i = 0; i < h->requests; i++) {
		/* times within 1 us: the rule (1 h window) refills nothing */
		int rc = rl_store_check(h->s, "hot", 3, 1000 + i % 1000, NULL);
		if (rc < 0)
			return arg;
		h->allowed += rc;
	}
	return NULL;
}

#define HOT_REQS (2000 / SCALE) /* per thread */
#define HOT_ROUNDS 3

/*
 * The limit is half of all requests, so admissions and rejections
 * interleave across threads (a lost update admits too many); a barrier
 * starts the threads together, and each algorithm runs HOT_ROUNDS times.
 */
static void test_hot_key_exact(void **unused)
{
	size_t n;
	const struct rl_algo *const *all = rl_algo_all(&n);
	const int limit = THREADS * HOT_REQS / 2;
	pthread_barrier_t start;

	(void)unused;
	assert_int_equal(pthread_barrier_init(&start, NULL, THREADS), 0);
	for (size_t a = 0; a < n; a++)
		for (int round = 0; round < HOT_ROUNDS; round++) {
			struct rl_limiter lim = make(all[a], limit, 3600 * SEC, limit);
			struct rl_store_config cfg = { .limiter = &lim, .max_keys = 16 };
			struct rl_store *s = NULL;
			struct hot h[THREADS];
			pthread_t th[THREADS];
			_Alignas(16) unsigned char st[RL_STORE_MAX_STATE] = { 0 };
			int want = 0, got = 0;

			/* One thread's answer (about the limit; leaky_bucket admits one
			 * more, the request it is serving) for all the requests. */
			for (int i = 0; i < THREADS * HOT_REQS; i++)
				want += rl_limiter_check(&lim, st, 1000 + 999, NULL);
			rl_limiter_release(&lim, st);
			assert_true(want >= limit && want < THREADS * HOT_REQS);

			assert_int_equal(rl_store_create(&s, &cfg), RL_OK);
			for (int t = 0; t < THREADS; t++) {
				h[t] = (struct hot){ s, &start, HOT_REQS, 0 };
				assert_int_equal(pthread_create(&th[t], NULL, hot_thread, &h[t]), 0);
			}
			for (int t = 0; t < THREADS; t++) {
				void *rc;
				pthread_join(th[t], &rc);
				assert_null(rc);
				got += h[t].allowed;
			}
			if (got != want)
				fail_msg("%s round %d: %d threads admitted %d of %d, one thread %d", all[a]->name,
					 round, THREADS, got, THREADS * HOT_REQS, want);
			rl_store_destroy(s);
		}
	pthread_barrier_destroy(&start);
}

/* ---- eviction under contention: a shared clock, keys beyond the cap ---- */

#define EV_KEYS 1024
#define EV_MAX_KEYS 256
#define EV_REQS (20000 / SCALE) /* per thread */
#define EV_LATE_KEYS 200        /* >= the table's buckets: the cursor sweeps them all */

struct evict {
	struct rl_store *s;
	_Atomic int64_t *clock; /* ns; every check takes the next tick */
	pthread_barrier_t *start;
	uint64_t x;             /* the thread's random state */
	int bad;                /* a result other than a verdict or RL_EFULL */
	size_t max_seen;        /* the most keys a concurrent stats call saw */
};

static void *evict_thread(void *arg)
{
	struct evict *e = arg;
	struct rl_store_stats st;
	char key[16];

	pthread_barrier_wait(e->start);
	for (int i = 0; i < EV_REQS; i++) {
		snprintf(key, sizeof(key), "k%u", (unsigned)(next_rand(&e->x) % EV_KEYS));
		/* relaxed: a seq_cst tick would order every thread's checks for
		 * ThreadSanitizer (each acquires all earlier ticks), hiding races */
		int64_t now = atomic_fetch_add_explicit(e->clock, 1, memory_order_relaxed);
		int rc = rl_store_check(e->s, key, strlen(key), now, NULL);
		e->bad += rc != RL_ALLOWED && rc != RL_REJECTED && rc != RL_EFULL;
		if (i % 64 == 0) {
			rl_store_stats(e->s, &st);
			if (st.keys > e->max_seen)
				e->max_seen = st.keys;
		}
	}
	return NULL;
}

/*
 * sliding_log as it is, but its release op also adds the heap each state
 * held as the allocator holds it: destroying a store then tells what its
 * live keys held, summed state by state, to compare with the store's own
 * heap total. (Each ring's chunk is not a fixed size: the allocator hands
 * out a chunk up to 16 bytes larger than asked when the rest would be too
 * small to keep, depending on what was freed before.)
 */
static _Atomic size_t released_heap;
static struct rl_algo counted_log;

static void counted_release(void *state)
{
	atomic_fetch_add_explicit(&released_heap, rl_sliding_log_algo.heap_bytes(state),
				  memory_order_relaxed);
	rl_sliding_log_algo.release(state);
}

static const struct rl_algo *heap_counted_algo(const char *name)
{
	const struct rl_algo *a = rl_algo_find(name);

	if (a != &rl_sliding_log_algo)
		return a;
	counted_log = rl_sliding_log_algo;
	counted_log.release = counted_release;
	return &counted_log;
}

/*
 * Threads check 1024 keys of a store capped at 256 on one shared clock
 * (1 ns a check; keys go idle and come back), with
 * idle_grace_ns 0 and when_full evict: idle sweeps, evictions at the cap
 * and the victim search all race. Must hold: only verdicts or RL_EFULL,
 * never more than max_keys keys, both kinds of eviction happen; and once
 * every key is long idle, EV_LATE_KEYS new keys leave exactly those keys
 * and exactly their rings' bytes (the shared counters lost no update).
 */
static void test_concurrent_eviction(void **unused)
{
	/* Each rule keeps a key busy for 400 ns after a request; a key comes
	 * back every ~1024 ns: about 330 keys are busy at once, above the cap,
	 * and the rest are idle. */
	static const struct {
		const char *algo;
		int64_t limit, window_ns;
	} rules[] = { { "sliding_log", 4, 400 }, { "gcra", 1, 400 } };
	pthread_barrier_t start;

	(void)unused;
	assert_int_equal(pthread_barrier_init(&start, NULL, THREADS), 0);
	for (size_t a = 0; a < sizeof(rules) / sizeof(rules[0]); a++) {
		const char *name = rules[a].algo;
		const struct rl_algo *algo = heap_counted_algo(name);
		struct rl_limiter lim = make(algo, rules[a].limit, rules[a].window_ns, rules[a].limit);
		struct rl_store_config cfg = { .limiter = &lim, .max_keys = EV_MAX_KEYS,
					       .when_full = RL_FULL_EVICT, .idle_grace_ns = 0 };
		struct rl_store *s = NULL;
		struct rl_store_stats empty, st, late;
		_Atomic int64_t clock = 0;
		struct evict e[THREADS];
		pthread_t th[THREADS];

		assert_int_equal(rl_store_create(&s, &cfg), RL_OK);
		rl_store_stats(s, &empty);
		for (int t = 0; t < THREADS; t++) {
			e[t] = (struct evict){ s, &clock, &start, seed + 7919u * (uint64_t)(t + 1), 0, 0 };
			assert_int_equal(pthread_create(&th[t], NULL, evict_thread, &e[t]), 0);
		}
		for (int t = 0; t < THREADS; t++) {
			pthread_join(th[t], NULL);
			if (e[t].bad || e[t].max_seen > EV_MAX_KEYS)
				fail_msg("%s thread %d: %d bad results, %zu keys seen (seed %llu)", name, t,
					 e[t].bad, e[t].max_seen, (unsigned long long)seed);
		}
		rl_store_stats(s, &st);
		if (st.keys > EV_MAX_KEYS || !st.evicted_idle || !st.evicted_full)
			fail_msg("%s: %zu keys, %llu evicted idle, %llu evicted full", name, st.keys,
				 (unsigned long long)st.evicted_idle, (unsigned long long)st.evicted_full);

		/* An hour later every key is idle: new keys sweep them all away. */
		char key[16];
		for (int i = 0; i < EV_LATE_KEYS; i++) {
			snprintf(key, sizeof(key), "late%d", i);
			assert_int_equal(rl_store_check(s, key, strlen(key), 3600 * SEC, NULL), RL_ALLOWED);
		}
		rl_store_stats(s, &late);
		assert_int_equal(late.keys, EV_LATE_KEYS);
		atomic_store(&released_heap, 0);
		rl_store_destroy(s);
		if (algo == &counted_log) {
			/* exactly what the late keys' rings hold, one 4-run ring or more each */
			assert_int_equal(late.bytes - empty.bytes, atomic_load(&released_heap));
			assert_true(late.bytes - empty.bytes >= (size_t)EV_LATE_KEYS * 4 * 16);
		} else {
			assert_int_equal(late.bytes, empty.bytes);
		}
	}
	pthread_barrier_destroy(&start);
}

/* ---- many keys, compared with a single-threaded replay ---- */

#define KEYS_PER_THREAD 300
#define REQS_PER_THREAD (20000 / SCALE)
#define CHURN_PER_THREAD (100000u / SCALE)

struct req {
	uint32_t key; /* global key number */
	int64_t t;
	bool verdict_only; /* out = NULL: the store's cost-1 verdict route */
	int verdict;
	struct rl_decision d;
};

struct many {
	struct rl_store *s;
	struct req *reqs;
	pthread_barrier_t *epoch; /* two epochs: all threads end the first before any starts the second */
};

static void *many_thread(void *arg)
{
	struct many *m = arg;
	char key[16];

	for (int i = 0; i < REQS_PER_THREAD; i++) {
		struct req *r = &m->reqs[i];
		if (m->epoch && i == REQS_PER_THREAD / 2)
			pthread_barrier_wait(m->epoch);
		snprintf(key, sizeof(key), "client-%u", r->key);
		r->verdict = rl_store_check(m->s, key, strlen(key), r->t, r->verdict_only ? NULL : &r->d);
	}
	return NULL;
}

#define KEYS (THREADS * KEYS_PER_THREAD)
#define EPOCH_NS (1000 * SEC) /* the second epoch's shift: every first-epoch key is idle by then */

/*
 * Thread t owns keys [t * KEYS_PER_THREAD, (t + 1) * KEYS_PER_THREAD), and
 * with two epochs the same range + KEYS too. The second half of a
 * two-epoch trace is EPOCH_NS later and uses 3/4 as many keys: the first
 * half of its old ones and a quarter of new ones (fewer than the store's
 * cap, so that no key in use is evicted to make room).
 */
static void make_trace(struct req *reqs, int t, uint64_t *x, int epochs)
{
	static int64_t last[2 * KEYS];
	int64_t now = 0, epoch = 0;
	uint32_t prev = 0;

	memset(last + t * KEYS_PER_THREAD, 0, KEYS_PER_THREAD * sizeof(last[0]));
	memset(last + KEYS + t * KEYS_PER_THREAD, 0, KEYS_PER_THREAD * sizeof(last[0]));
	for (int i = 0; i < REQS_PER_THREAD; i++) {
		uint64_t r = next_rand(x);
		uint32_t k = (uint32_t)(t * KEYS_PER_THREAD) + (uint32_t)(r % KEYS_PER_THREAD);
		if (epochs == 2 && i == REQS_PER_THREAD / 2)
			epoch = now += EPOCH_NS;
		if (epochs == 2 && i >= REQS_PER_THREAD / 2) {
			uint32_t j = (uint32_t)(r % (KEYS_PER_THREAD * 3 / 4));
			k = (uint32_t)(t * KEYS_PER_THREAD) + j + (j >= KEYS_PER_THREAD / 2 ? KEYS : 0);
		}
		/* half the time the previous request's key again (not across
		 * epochs): bursts that fill a window, so that sliding_log's
		 * rings grow and shrink */
		if (i > 0 && i != REQS_PER_THREAD / 2 && (r >> 48) % 2 == 0)
			k = prev;
		prev = k;
		now += (int64_t)((r >> 20) % 200000); /* mean 100 us apart */
		/* now and then a time earlier than the key's last (in this
		 * epoch: a key idle since may have been dropped): the clamp */
		int64_t at = (r >> 40) % 16 == 0 && last[k] > epoch + 50000 ? last[k] - 50000 : now;
		reqs[i] = (struct req){ .key = k, .t = at, .verdict_only = (r >> 44) % 2 == 0 };
		if (at > last[k])
			last[k] = at;
	}
}

/*
 * The threads run their traces on s at once; then each key's requests,
 * replayed in its thread's order on one private state, must get the same
 * answers (the verdict alone for the half asked without out: the store's
 * cost-1 verdict routes, not only check_first's, run across threads).
 */
static void run_and_replay(struct rl_store *s, const struct rl_limiter *lim, uint64_t x,
			   int epochs)
{
	struct req *reqs = calloc((size_t)THREADS * REQS_PER_THREAD, sizeof(*reqs));
	struct many m[THREADS];
	pthread_t th[THREADS];
	pthread_barrier_t epoch;

	assert_non_null(reqs);
	assert_int_equal(pthread_barrier_init(&epoch, NULL, THREADS), 0);
	for (int t = 0; t < THREADS; t++)
		make_trace(reqs + (size_t)t * REQS_PER_THREAD, t, &x, epochs);
	for (int t = 0; t < THREADS; t++) {
		m[t] = (struct many){ s, reqs + (size_t)t * REQS_PER_THREAD, epochs == 2 ? &epoch : NULL };
		assert_int_equal(pthread_create(&th[t], NULL, many_thread, &m[t]), 0);
	}
	for (int t = 0; t < THREADS; t++)
		pthread_join(th[t], NULL);
	pthread_barrier_destroy(&epoch);

	_Alignas(16) static unsigned char states[2 * KEYS][RL_STORE_MAX_STATE];
	memset(states, 0, sizeof(states));
	for (size_t i = 0; i < (size_t)THREADS * REQS_PER_THREAD; i++) {
		struct rl_decision want;
		int rw = rl_limiter_check(lim, states[reqs[i].key], reqs[i].t, &want);
		if (rw != reqs[i].verdict || (!reqs[i].verdict_only && memcmp(&want, &reqs[i].d, sizeof(want)) != 0))
			fail_msg("%s, seed %llu, %d epoch(s): request %zu (key %u, t %lld): store %d, replay %d",
				 lim->algo->name, (unsigned long long)seed, epochs, i, reqs[i].key,
				 (long long)reqs[i].t, reqs[i].verdict, rw);
	}
	for (size_t k = 0; k < 2 * KEYS; k++)
		rl_limiter_release(lim, states[k]);
	free(reqs);
}

/*
 * Every algorithm on a store capped at the traces' keys. The threads'
 * clocks drift apart, so idleness is judged a whole trace (2 s of trace
 * time) behind: no drop may change a decision. With one epoch, a few
 * insertions near the cap find both buckets full and move a stored key to
 * its other bucket while the other threads check. With two, every
 * first-epoch key is idle in the second, so new keys reclaim them
 * (invisibly: an idle state decides as a fresh one) and the keys still
 * used, found in their second bucket, move back to their first as it
 * frees up.
 */
static void every_algo_matches_replay(int epochs)
{
	size_t n;
	const struct rl_algo *const *all = rl_algo_all(&n);

	/* the built-ins, then sliding_log counted (heap_counted_algo): the built-in
	 * takes its own verdict route (store.c), the copy the generic one */
	for (size_t a = 0; a <= n; a++) {
		const struct rl_algo *algo = a < n ? all[a] : heap_counted_algo("sliding_log");
		struct rl_limiter lim = make(algo, 5, 10000000, 8); /* 5 per 10 ms */
		struct rl_store_config cfg = { .limiter = &lim, .max_keys = KEYS,
					       .idle_grace_ns = 100 * SEC };
		struct rl_store *s = NULL;
		struct rl_store_stats empty, st;

		assert_int_equal(rl_store_create(&s, &cfg), RL_OK);
		rl_store_stats(s, &empty);
		run_and_replay(s, &lim, seed + 100 * (uint64_t)(epochs - 1) + a, epochs);
		rl_store_stats(s, &st);
		assert_true(st.keys <= KEYS);
		assert_int_equal(st.evicted_full, 0);
		if (epochs == 2)
			assert_true(st.evicted_idle > 0);
		atomic_store(&released_heap, 0);
		rl_store_destroy(s);
		/* the rings' growth, counted from every thread, lost no update */
		if (algo == &counted_log)
			assert_int_equal(st.bytes - empty.bytes, atomic_load(&released_heap));
	}
}

static void test_many_keys_match_replay(void **unused)
{
	(void)unused;
	every_algo_matches_replay(1);
}

static void test_moves_match_replay(void **unused)
{
	(void)unused;
	every_algo_matches_replay(2);
}

/* ---- churn from several threads: the cap holds ---- */

struct churn {
	struct rl_store *s;
	uint32_t base;
	int failures;
};

static void *churn_thread(void *arg)
{
	struct churn *c = arg;
	unsigned char ip[16] = { 0x20, 0x01, 0x0d, 0xb8 };

	for (uint32_t i = 0; i < CHURN_PER_THREAD; i++) {
		uint32_t id = c->base + i;
		memcpy(ip + 12, &id, 4);
		int rc = rl_store_check(c->s, ip, sizeof(ip), (int64_t)i * 1000, NULL);
		c->failures += rc < 0;
	}
	return NULL;
}

static void test_churn_cap(void **unused)
{
	static const enum rl_when_full policies[] = { RL_FULL_EVICT, RL_FULL_FAIL_OPEN,
						      RL_FULL_FAIL_CLOSED };
	struct rl_limiter lim = make(&rl_sliding_log_algo, 3, 3600 * SEC, 3); /* never idle here */

	(void)unused;
	for (size_t p = 0; p < 3; p++) {
		struct rl_store_config cfg = { .limiter = &lim, .max_keys = 1000, .when_full = policies[p] };
		struct rl_store *s = NULL;
		struct churn c[THREADS];
		pthread_t th[THREADS];
		struct rl_store_stats st;

		assert_int_equal(rl_store_create(&s, &cfg), RL_OK);
		for (int t = 0; t < THREADS; t++) {
			c[t] = (struct churn){ s, (uint32_t)t << 24, 0 };
			assert_int_equal(pthread_create(&th[t], NULL, churn_thread, &c[t]), 0);
		}
		for (int t = 0; t < THREADS; t++) {
			pthread_join(th[t], NULL);
			assert_int_equal(c[t].failures, 0);
		}
		rl_store_stats(s, &st);
		assert_true(st.keys <= 1000);
		if (policies[p] == RL_FULL_EVICT)
			assert_int_equal(st.evicted_full + st.keys, THREADS * CHURN_PER_THREAD);
		else
			assert_int_equal(st.full_decided + st.keys, THREADS * CHURN_PER_THREAD);
		rl_store_destroy(s);
	}
}

int main(void)
{
	const char *env = getenv("RL_SEED");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hot_key_exact),
		cmocka_unit_test(test_concurrent_eviction),
		cmocka_unit_test(test_many_keys_match_replay),
		cmocka_unit_test(test_moves_match_replay),
		cmocka_unit_test(test_churn_cap),
	};

	if (env)
		seed = strtoull(env, NULL, 10);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
