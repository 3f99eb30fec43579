/*
 * perf_driver.c - the in-process workloads of the performance gate
 * (bench/perf/perf.py runs each under callgrind, one process per entry).
 *
 * Model: an entry is a set-up (not measured), then `ops` operations of one
 * kind. The set-up runs with callgrind's instrumentation off
 * (--instr-atstart=no); the driver switches it on, runs WARMUP operations to
 * warm the simulated caches and branch predictor, zeroes the counters and
 * runs the measured loop, then switches it off. The figures are therefore
 * exactly the cost of `ops` operations in a steady state.
 *
 * Invariant: same binary, same arguments, same figures. Every input is
 * fixed or drawn from a fixed seed before the measured loop; time is
 * virtual (passed in, never read from a clock); the random hash seeds
 * (the registry's, rl_limit's) are pinned by fixed_random.c's getrandom(),
 * linked into this executable ahead of the C library's.
 *
 *   perf_driver --list    one line per entry: name TAB ops TAB bench name TAB what
 *   perf_driver NAME      runs entry NAME; prints "ops=N" (exit 2: unknown entry)
 *
 * Each algorithm of the ops list gets the per_algo[] entries; adding any
 * other entry is one line in fixed[].
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include <valgrind/callgrind.h>

#include "ratelab/algo.h"
#include "ratelab/breaker.h"
#include "ratelab/limit.h"
#include "ratelab/registry.h"
#include "ratelab/store.h"

#include "lookup_algo.h"
#ifdef RL_PERF_REDIS
#include "redis_argv.h"
#ifdef RL_PERF_REDIS_PUBLIC_PREFIX /* a tree from before its private names took rl__ (perf-compare) */
#define rl__redis_cmd rl_redis_cmd
#define rl__redis_request_argv rl_redis_request_argv
#endif
#endif

/* The rule of bench/common.h: N = 100 per W = 1 s, B = N. */
#define PERF_LIMIT 100
#define PERF_WINDOW_NS INT64_C(1000000000)
/* Far from 0 and from any window boundary. */
#define PERF_START_NS (1000 * PERF_WINDOW_NS + PERF_WINDOW_NS / 3)
/* Operations run before the counters are zeroed. */
#define WARMUP 2000
/* Keyed entries up to this many keys spend their bursts before the measured loop. */
#define BURN_IN_MAX_KEYS 1000
/* Key draws kept for the keyed entries (cycled through). */
#define KEY_SEQ_LEN 65536

struct perf_ctx {
	struct rl_limiter lim;
	_Alignas(64) unsigned char state[64]; /* one hot key's state, zeroed = fresh */
	struct rl_decision dec;
	struct rl_decision *out; /* NULL: verdict only */
	struct rl_store *store;
	struct rl_registry *reg;
	struct rl_breaker breaker;
	struct rl_limit *limit;
	uint64_t keys[KEY_SEQ_LEN];
	char ids[16][16]; /* registry client ids */
	int64_t now_ns, step_ns;
};

struct perf_entry {
	const char *name;
	long ops;           /* operations in the measured loop */
	const char *bench;  /* the Google Benchmark run of the same work, or NULL */
	const char *what;
	int (*setup)(struct perf_ctx *c, const struct perf_entry *e);
	int (*op)(struct perf_ctx *c, long i);
	const void *arg;    /* the entry's algorithm, or NULL */
	long param;         /* keys, answer flag, ... */
};

/* splitmix64: the key draws. */
static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static int limiter(struct perf_ctx *c, const struct rl_algo *algo)
{
	struct rl_rule rule = rl_rule_make(PERF_LIMIT, PERF_WINDOW_NS);
	char msg[160];

	if (rl_limiter_init(&c->lim, algo, &rule, msg, sizeof msg) != RL_OK) {
		fprintf(stderr, "perf_driver: %s: %s\n", algo->name, msg);
		return -1;
	}
	return 0;
}

/* -- hot: one key, time advanced by W / N / 2 (twice the rate) per check */

static int setup_hot(struct perf_ctx *c, const struct perf_entry *e)
{
	c->out = e->param ? &c->dec : NULL;
	c->now_ns = PERF_START_NS;
	c->step_ns = PERF_WINDOW_NS / PERF_LIMIT / 2;
	return limiter(c, e->arg);
}

static int op_hot(struct perf_ctx *c, long i)
{
	(void)i;
	c->now_ns += c->step_ns;
	return rl_limiter_check(&c->lim, c->state, c->now_ns, c->out);
}

/*
 * -- store: param keys, all checked once at set-up, then uniform draws;
 * time advances W / (2 N keys) per check (each key at about twice its rate).
 */

static int op_store(struct perf_ctx *c, long i)
{
	c->now_ns += c->step_ns;
	return rl_store_check(c->store, &c->keys[i % KEY_SEQ_LEN], sizeof(uint64_t), c->now_ns, NULL);
}

static int fill_store(struct perf_ctx *c, const struct perf_entry *e, bool one_thread)
{
	size_t nkeys = (size_t)e->param;
	struct rl_store_config cfg = { 0 };
	uint64_t seed = 0x11 + nkeys;

	if (limiter(c, e->arg) != 0)
		return -1;
	cfg.limiter = &c->lim;
	cfg.max_keys = nkeys;
	cfg.when_full = RL_FULL_EVICT;
	cfg.hash_seed = 0x5eed;
	cfg.one_thread = one_thread;
	if (rl_store_create(&c->store, &cfg) != RL_OK)
		return -1;
	c->now_ns = PERF_START_NS;
	c->step_ns = PERF_WINDOW_NS / (2 * PERF_LIMIT * (int64_t)nkeys);
	if (c->step_ns < 1)
		c->step_ns = 1;
	for (uint64_t key = 0; key < nkeys; key++)
		if (rl_store_check(c->store, &key, sizeof key, c->now_ns, NULL) < 0)
			return -1;
	for (size_t i = 0; i < KEY_SEQ_LEN; i++)
		c->keys[i] = (uint64_t)(((unsigned __int128)splitmix(&seed) * nkeys) >> 64);
	/* A cache-resident table's keys offered for one window at twice their
	 * rate, spending their bursts: the measured checks then see the steady
	 * state's verdicts, about half rejected in no pattern over the keys
	 * (what a branch on the verdict mispredicts), not a fresh key's
	 * admissions. */
	if (nkeys <= BURN_IN_MAX_KEYS)
		for (long i = 0; i < 2 * PERF_LIMIT * (long)nkeys; i++)
			if (op_store(c, i) < 0)
				return -1;
	return 0;
}

static int setup_store(struct perf_ctx *c, const struct perf_entry *e)
{
	return fill_store(c, e, false);
}

/* The same on a one-thread store (rl_store_config.one_thread: no bucket locks). */
static int setup_store1t(struct perf_ctx *c, const struct perf_entry *e)
{
	return fill_store(c, e, true);
}

/* -- breaker: limit 10^6 per 1 s, one request every W / limit: stays CLOSED at its limit */

static int setup_breaker(struct perf_ctx *c, const struct perf_entry *e)
{
	char msg[160];

	c->now_ns = PERF_START_NS;
	c->step_ns = PERF_WINDOW_NS / e->param;
	if (rl_breaker_init(&c->breaker, e->param, PERF_WINDOW_NS, PERF_WINDOW_NS, msg, sizeof msg) != RL_OK) {
		fprintf(stderr, "perf_driver: breaker: %s\n", msg);
		return -1;
	}
	/* one full window first, so the measured loop runs with a full ring */
	for (long i = 0; i < e->param; i++) {
		enum rl_breaker_state before;
		c->now_ns += c->step_ns;
		if (rl_breaker_handle(&c->breaker, c->now_ns, &before) < 0)
			return -1;
	}
	return 0;
}

static int op_breaker(struct perf_ctx *c, long i)
{
	enum rl_breaker_state before;

	(void)i;
	c->now_ns += c->step_ns;
	return rl_breaker_handle(&c->breaker, c->now_ns, &before);
}

/*
 * -- registry: a gcra tier with 16 mapped clients plus the default tier;
 * resolve + check over the 16 ids in turn, 16 ms of virtual time apart.
 */

static int setup_registry(struct perf_ctx *c, const struct perf_entry *e)
{
	char path[] = "/tmp/ratelab_perf_tiersXXXXXX";
	char err[256];
	int fd = mkstemp(path);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "w");

	(void)e;
	if (!f)
		return -1;
	fputs("[tier premium]\nalgorithm = gcra\nlimit = 100\nwindow = 1s\nburst = 200\n\n"
	      "[tier free]\nalgorithm = token_bucket\nlimit = 10\nwindow = 1s\n\n[clients]\npremium =", f);
	for (int i = 0; i < 16; i++) {
		snprintf(c->ids[i], sizeof c->ids[i], "client%02d", i);
		fprintf(f, " %s", c->ids[i]);
	}
	fputs("\n\n[defaults]\ntier = free\n", f);
	fclose(f);
	int rc = rl_registry_load(&c->reg, path, err, sizeof err);
	unlink(path);
	if (rc != RL_OK) {
		fprintf(stderr, "perf_driver: registry: %s\n", err);
		return -1;
	}
	c->now_ns = PERF_START_NS;
	c->step_ns = PERF_WINDOW_NS / 1000;
	return 0;
}

static int op_registry(struct perf_ctx *c, long i)
{
	struct rl_answer ans;
	const char *id = c->ids[i % 16];

	c->now_ns += c->step_ns;
	return rl_registry_check(c->reg, id, strlen(id), c->now_ns, &ans);
}

/* -- harness: the loop and the indirect call of an operation that only advances time */

static int setup_empty(struct perf_ctx *c, const struct perf_entry *e)
{
	(void)e;
	c->step_ns = 1;
	return 0;
}

static int op_empty(struct perf_ctx *c, long i)
{
	(void)i;
	c->now_ns += c->step_ns;
	return 0;
}

/*
 * -- limit: the two-line API (limit.h), gcra of the bench rule; the unnamed
 * key (param 0, its mutex) or param keys named in turn (its store), time as
 * in hot and store.
 */

static int setup_limit(struct perf_ctx *c, const struct perf_entry *e)
{
	c->limit = rl_limit_new(((const struct rl_algo *)e->arg)->name, PERF_LIMIT, PERF_WINDOW_NS, 0);
	if (!c->limit) {
		fprintf(stderr, "perf_driver: rl_limit_new: %s\n", rl_limit_error());
		return -1;
	}
	c->now_ns = PERF_START_NS;
	c->step_ns = PERF_WINDOW_NS / PERF_LIMIT / 2 / (e->param ? e->param : 1);
	for (long i = 0; i < KEY_SEQ_LEN; i++)
		c->keys[i] = (uint64_t)(i % (e->param ? e->param : 1));
	/* the first keyed call makes the store: set-up, not measured */
	if (e->param && rl_limit_allow_key_at(c->limit, &c->keys[0], sizeof(uint64_t), c->now_ns, NULL) < 0)
		return -1;
	return 0;
}

static int op_limit(struct perf_ctx *c, long i)
{
	(void)i;
	c->now_ns += c->step_ns;
	return rl_limit_allow_at(c->limit, c->now_ns, NULL);
}

static int op_limit_key(struct perf_ctx *c, long i)
{
	c->now_ns += c->step_ns;
	return rl_limit_allow_key_at(c->limit, &c->keys[i % KEY_SEQ_LEN], sizeof(uint64_t), c->now_ns, NULL);
}

#ifdef RL_PERF_REDIS
/*
 * -- redis: the Redis backend's command for one request (redis_argv.h):
 * the EVALSHA argv of gcra on a 16-byte key with time and cost, no network
 * (the handle never connects). Built when the tree has the backend.
 */
static struct rl_redis *perf_redis;
static struct rl__redis_cmd perf_cmd;
static struct rl_redis_rule perf_rule;

static int setup_redis_argv(struct perf_ctx *c, const struct perf_entry *e)
{
	struct rl_redis_config cfg = { .port = 6379, .ttl_grace_ms = 1000 };

	if (limiter(c, e->arg) != 0 || rl_redis_create(&perf_redis, &cfg, NULL, 0) != RL_OK)
		return -1;
	perf_rule = (struct rl_redis_rule){ &c->lim, false, 0 };
	c->now_ns = PERF_START_NS;
	return 0;
}

static int op_redis_argv(struct perf_ctx *c, long i)
{
	struct rl_redis_req q = { &perf_rule, "user:0000012345", 15, c->now_ns += 7, 1 + i % 3 };

	rl__redis_request_argv(perf_redis, &q, &perf_cmd);
	return perf_cmd.argc;
}
#define REDIS_ENTRY { "redis/gcra/argv", 20000, NULL, "the Redis backend's EVALSHA argv for one request (no network)", setup_redis_argv, op_redis_argv, &rl_gcra_algo, 0 },
#else
#define REDIS_ENTRY
#endif

/*
 * The entries every algorithm of the ops list gets (rl_algo_all(), a fork's
 * own included): made at start-up, so that adding an algorithm adds its
 * entries without an edit here.
 */
#define LIST_OPS 20000
static const struct perf_entry per_algo[] = {
	{ "hot/%s/verdict", LIST_OPS, "hot/%s/ops/verdict", "rl_limiter_check, one key, verdict only", setup_hot, op_hot, NULL, 0 },
	{ "hot/%s/answer", LIST_OPS, "hot/%s/ops/answer", "rl_limiter_check, one key, full answer", setup_hot, op_hot, NULL, 1 },
	{ "store/%s/1", LIST_OPS, "store/%s/1/uniform", "rl_store_check, thread-safe store, 1 key", setup_store, op_store, NULL, 1 },
	{ "store1t/%s/1000", LIST_OPS, "store1t/%s/1000/uniform", "rl_store_check, one-thread store, 1K uniform keys", setup_store1t, op_store, NULL, 1000 },
};

/* What the list cannot generate: other APIs, other key counts, the harness. */
static const struct perf_entry fixed[] = {
	{ "harness/empty", 20000, NULL, "the driver's loop alone: included in every in-process entry", setup_empty, op_empty, NULL, 0 },
	{ "store/gcra/1000", 20000, "store/gcra/1000/uniform", "rl_store_check, 1K uniform keys", setup_store, op_store, &rl_gcra_algo, 1000 },
	{ "store/gcra/1000000", 20000, "store/gcra/1000000/uniform", "rl_store_check, 1M uniform keys", setup_store, op_store, &rl_gcra_algo, 1000000 },
	{ "store1t/gcra/1", 20000, "store1t/gcra/1/uniform", "rl_store_check, one-thread store, 1 key", setup_store1t, op_store, &rl_gcra_algo, 1 },
	{ "store1t/sliding_log/1", 20000, "store1t/sliding_log/1/uniform", "rl_store_check, one-thread store, 1 key, sliding_log (its heap-owning verdict route)", setup_store1t, op_store, &rl_sliding_log_algo, 1 },
	{ "store1t/lookup/1", 20000, "store1t/lookup/1/uniform", "rl_store_check, one-thread store, 1 key, an algorithm that decides nothing (the store's own part)", setup_store1t, op_store, &rlbench_lookup_algo, 1 },
	{ "breaker/at_limit", 20000, "breaker/at_limit", "rl_breaker_handle, limit 10^6, at the limit", setup_breaker, op_breaker, NULL, 1000000 },
	{ "limit/gcra/allow_at", 20000, NULL, "rl_limit_allow_at: the two-line API, unnamed key", setup_limit, op_limit, &rl_gcra_algo, 0 },
	{ "limit/token_bucket/allow_at", 20000, NULL, "rl_limit_allow_at, unnamed key behind its spinlock (gcra's takes none)", setup_limit, op_limit, &rl_token_bucket_algo, 0 },
	{ "limit/sliding_log/allow_at", 20000, NULL, "rl_limit_allow_at, unnamed key, sliding_log (a state that owns heap)", setup_limit, op_limit, &rl_sliding_log_algo, 0 },
	{ "limit/gcra/allow_key_at", 20000, NULL, "rl_limit_allow_key_at: the two-line API, 1K named keys in turn", setup_limit, op_limit_key, &rl_gcra_algo, 1000 },
	{ "registry/check/premium", 20000, "registry/check/premium", "rl_registry_check: resolve + the tier's store check", setup_registry, op_registry, NULL, 0 },
	REDIS_ENTRY
};

#define N_PER_ALGO (sizeof per_algo / sizeof per_algo[0])
#define N_FIXED (sizeof fixed / sizeof fixed[0])

static struct perf_entry *entries;
static size_t n_entries;

/* "hot/%s/verdict" with the algorithm's name, in storage that lives as long as the process. */
static const char *named(const char *pattern, const char *algo)
{
	size_t len = strlen(pattern) + strlen(algo);
	char *s = malloc(len);

	if (s)
		snprintf(s, len, pattern, algo);
	return s;
}

/* The table: the harness, each algorithm's generated entries, then the rest. */
static int make_entries(void)
{
	size_t nalgos;
	const struct rl_algo *const *algos = rl_algo_all(&nalgos);

	entries = calloc(N_FIXED + N_PER_ALGO * nalgos, sizeof *entries);
	if (!entries)
		return -1;
	entries[n_entries++] = fixed[0];
	for (size_t k = 0; k < N_PER_ALGO; k++)
		for (size_t a = 0; a < nalgos; a++) {
			struct perf_entry e = per_algo[k];
			e.name = named(per_algo[k].name, algos[a]->name);
			e.bench = named(per_algo[k].bench, algos[a]->name);
			e.arg = algos[a];
			if (!e.name || !e.bench)
				return -1;
			entries[n_entries++] = e;
		}
	for (size_t i = 1; i < N_FIXED; i++)
		entries[n_entries++] = fixed[i];
	return 0;
}



static volatile long sink; /* keeps every result alive */

static int run(const struct perf_entry *e)
{
	static struct perf_ctx ctx; /* large (the key draws): static, zeroed */
	struct perf_ctx *c = &ctx;
	long acc = 0;

	if (e->setup(c, e) != 0) {
		fprintf(stderr, "perf_driver: %s: set-up failed\n", e->name);
		return 1;
	}
	/* Locals: the table is built at start-up, so the loop must not reload them per call. */
	int (*const op)(struct perf_ctx *, long) = e->op;
	const long ops = e->ops;

	CALLGRIND_START_INSTRUMENTATION;
	for (long i = 0; i < WARMUP; i++)
		acc += op(c, i);
	CALLGRIND_ZERO_STATS;
	for (long i = WARMUP; i < WARMUP + ops; i++)
		acc += op(c, i);
	CALLGRIND_STOP_INSTRUMENTATION;
	sink = acc;
	rl_store_destroy(c->store);
	rl_registry_destroy(c->reg);
	if (c->breaker.limit)
		rl_breaker_destroy(&c->breaker);
	rl_limit_free(c->limit);
#ifdef RL_PERF_REDIS
	rl_redis_destroy(perf_redis);
#endif
	printf("ops=%ld\n", e->ops);
	return 0;
}

int main(int argc, char **argv)
{
	if (make_entries() != 0) {
		fputs("perf_driver: out of memory\n", stderr);
		return 1;
	}
	if (argc == 2 && strcmp(argv[1], "--list") == 0) {
		for (size_t i = 0; i < n_entries; i++)
			printf("%s\t%ld\t%s\t%s\n", entries[i].name, entries[i].ops,
			       entries[i].bench ? entries[i].bench : "-", entries[i].what);
		return 0;
	}
	if (argc == 2)
		for (size_t i = 0; i < n_entries; i++)
			if (strcmp(argv[1], entries[i].name) == 0)
				return run(&entries[i]);
	fprintf(stderr, "usage: perf_driver --list | perf_driver ENTRY%s%s\n",
		argc == 2 ? "; unknown entry: " : "", argc == 2 ? argv[1] : "");
	return 2;
}
