/*
 * test_study_limits.c - limits.csv (study_limits.h) against a slow exact
 * model on seeded random traces: for each window and each limit N listed,
 * a plain sliding log per key (the units admitted at times in (t - W, t]
 * summed afresh for every request) counts the keys it refuses and what it
 * refuses; each key's peak by brute force over every window ending at one
 * of its requests; the limits listed (every N up to the largest peak, or
 * at most SIM_LIMITS_MAX with the quoted percentiles among them), the
 * percentiles and the suggested limit from the sorted peaks. Also the
 * study's own sliding_log row at rule N/W, which must say the same, and a
 * merge of shards. A failure prints the seed (RL_SEED=<seed> replays it).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "model.h"
#include "study.h"
#include "study_limits.h"

#define NKEYS 12
#define NREQ 900
#define NWIN 3
#define S_NS 1000000000LL

static uint64_t seed;

#define EXPECT(what, got, want)                                                                              \
	do {                                                                                                 \
		if ((int64_t)(got) != (int64_t)(want))                                                       \
			fail_msg("seed %llu, window %s: %s: %lld, expected %lld", (unsigned long long)seed,  \
				 lw->text, what, (long long)(got), (long long)(want));                       \
	} while (0)

struct fixture {
	struct sim_trace t;
	int64_t win[NWIN];
	const char *text[NWIN];
};

static void trace_free(struct sim_trace *t)
{
	for (size_t k = 0; k < t->nkeys; k++)
		free(t->key_name[k]);
	free(t->key_name);
	free(t->t_ns);
	free(t->key);
	free(t->cost);
	memset(t, 0, sizeof(*t));
}

/*
 * Keys of every kind: sparse ones, steady ones, some in bursts at one
 * instant (a log's tick), and with big the heavy ones' costs up to 40 so
 * that the largest peak is above SIM_LIMITS_MAX. Times on a coarse tick
 * (ties) or in ns.
 */
static void make_fixture(struct fixture *f, struct m_rng *g, bool big)
{
	static const char *const texts[NWIN] = { "1s", "7s", "1m" };
	static const int64_t wins[NWIN] = { S_NS, 7 * S_NS, 60 * S_NS };
	struct sim_trace *t = &f->t;
	int64_t tick = m_rng_range(g, 0, 1) ? S_NS / 10 : 1;

	memset(f, 0, sizeof(*f));
	for (int w = 0; w < NWIN; w++) {
		f->win[w] = wins[w];
		f->text[w] = texts[w];
	}
	t->nkeys = NKEYS;
	t->key_name = calloc(NKEYS, sizeof(*t->key_name));
	t->t_ns = calloc(NREQ, sizeof(*t->t_ns));
	t->key = calloc(NREQ, sizeof(*t->key));
	t->cost = calloc(NREQ, sizeof(*t->cost));
	assert_true(t->key_name && t->t_ns && t->key && t->cost);
	for (int k = 0; k < NKEYS; k++) {
		char name[16];
		snprintf(name, sizeof(name), "key%d", k);
		t->key_name[k] = strdup(name);
	}
	int64_t now = 0;
	for (size_t i = 0; i < NREQ; i++) {
		/* mostly close together, sometimes a pause past the longest window */
		int64_t gap = m_rng_range(g, 0, 40) == 0 ? m_rng_range(g, 0, 90 * S_NS) : m_rng_range(g, 0, S_NS / 5);
		now += gap / tick * tick;
		int k = (int)m_rng_range(g, 0, NKEYS - 1);
		if (k >= 9 && m_rng_range(g, 0, 2)) /* the heavy ones come back for more */
			k = 9 + (int)m_rng_range(g, 0, 2);
		t->t_ns[i] = now;
		t->key[i] = (uint32_t)k;
		t->cost[i] = 1;
		if (k >= 9 && big) {
			t->cost[i] = (uint32_t)m_rng_range(g, 1, 40);
			t->has_cost = true;
		}
	}
	t->n = NREQ;
	t->resolution_ns = tick;
	snprintf(t->format, sizeof(t->format), "trace");
}

/* The largest units of key k in any (t - W, t], by brute force. */
static int64_t model_peak(const struct sim_trace *t, uint32_t k, int64_t w, const int *in)
{
	int64_t peak = 0;

	for (size_t i = 0; i < t->n; i++) {
		if (t->key[i] != k || !in[k])
			continue;
		int64_t sum = 0;
		for (size_t x = 0; x < t->n; x++)
			if (t->key[x] == k && t->t_ns[x] > t->t_ns[i] - w && t->t_ns[x] <= t->t_ns[i])
				sum += t->cost[x];
		peak = sum > peak ? sum : peak;
	}
	return peak;
}

/* The plain sliding log at n over every key: keys refused and units refused. */
static void model_log(const struct sim_trace *t, int64_t w, int64_t n, const int *in, int64_t *keys_refused,
		      int64_t *refused)
{
	int *adm = calloc(t->n, sizeof(int)), bad[NKEYS] = { 0 };

	assert_non_null(adm);
	*refused = 0;
	for (size_t i = 0; i < t->n; i++) {
		uint32_t k = t->key[i];
		if (!in[k])
			continue;
		int64_t sum = 0;
		for (size_t x = 0; x < i; x++)
			if (t->key[x] == k && adm[x] && t->t_ns[x] > t->t_ns[i] - w)
				sum += t->cost[x];
		adm[i] = sum + t->cost[i] <= n;
		if (!adm[i]) {
			bad[k] = 1;
			*refused += t->cost[i];
		}
	}
	*keys_refused = 0;
	for (int k = 0; k < NKEYS; k++)
		*keys_refused += bad[k];
	free(adm);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Every figure of l (one shard of nshards) against the models. */
static void check_limits(const struct fixture *f, const struct sim_limits *l, uint32_t target, uint32_t shard,
			 uint32_t nshards, bool merged)
{
	const struct sim_trace *t = &f->t;
	int in[NKEYS];
	int64_t units = 0, nk = 0, peaks[NKEYS];

	for (int k = 0; k < NKEYS; k++)
		in[k] = sim_study_key_hash(t->key_name[k], strlen(t->key_name[k])) % nshards == shard;
	for (size_t i = 0; i < t->n; i++)
		units += in[t->key[i]] ? t->cost[i] : 0;
	assert_int_equal(l->nwindows, NWIN);
	for (int w = 0; w < NWIN; w++) {
		const struct sim_limits_window *lw = &l->w[w];
		assert_string_equal(lw->text, f->text[w]);
		nk = 0;
		for (int k = 0; k < NKEYS; k++) {
			int64_t p = model_peak(t, (uint32_t)k, f->win[w], in);
			if (p)
				peaks[nk++] = p;
		}
		qsort(peaks, (size_t)nk, sizeof(peaks[0]), cmp_i64);
		EXPECT("keys", lw->keys, nk);
		EXPECT("requests", lw->requests, units);
		int64_t max = nk ? peaks[nk - 1] : 0;
		if (max <= SIM_LIMITS_MAX) {
			EXPECT("rows (every N to the largest peak)", lw->n, max);
			for (size_t r = 0; r < lw->n; r++)
				EXPECT("limit", lw->limit[r], (int64_t)r + 1);
		} else if (!merged) {
			if (lw->n > SIM_LIMITS_MAX || lw->n < SIM_LIMITS_MAX / 2)
				fail_msg("seed %llu, window %s: %zu rows", (unsigned long long)seed, lw->text, lw->n);
			EXPECT("first limit", lw->limit[0], 1);
			EXPECT("last limit", lw->limit[lw->n - 1], max);
			for (size_t r = 1; r < lw->n; r++)
				if (lw->limit[r] <= lw->limit[r - 1])
					fail_msg("seed %llu, window %s: limits not ascending at row %zu",
						 (unsigned long long)seed, lw->text, r);
		}
		if (!merged && nk) {
			/* the percentiles, the target's and the largest peak: listed, and computed */
			int64_t want[SIM_LIMITS_NQUOTED + 1];
			for (int q = 0; q < SIM_LIMITS_NQUOTED; q++) {
				want[q] = peaks[(nk * sim_limits_quoted[q] + 9999) / 10000 - 1];
				EXPECT("a quoted percentile", lw->quoted[q], want[q]);
			}
			want[SIM_LIMITS_NQUOTED] = peaks[(nk * target + 9999) / 10000 - 1];
			EXPECT("suggested", lw->suggested, want[SIM_LIMITS_NQUOTED]);
			EXPECT("max_peak", lw->max_peak, max);
			for (int q = 0; q <= SIM_LIMITS_NQUOTED; q++) {
				bool listed = false;
				for (size_t r = 0; r < lw->n; r++)
					listed |= lw->limit[r] == want[q];
				if (!listed)
					fail_msg("seed %llu, window %s: percentile %lld not listed", (unsigned long long)seed,
						 lw->text, (long long)want[q]);
			}
		}
		for (size_t r = 0; r < lw->n; r++) {
			int64_t kr, rr;
			model_log(t, f->win[w], lw->limit[r], in, &kr, &rr);
			EXPECT("keys_refused", lw->keys_refused[r], kr);
			EXPECT("requests_refused", lw->requests_refused[r], rr);
		}
	}
}

static void limits_of(const struct fixture *f, struct sim_limits *l, uint32_t target, unsigned jobs,
		      uint32_t shard, uint32_t nshards)
{
	struct sim_limits_opts o = { .texts = f->text, .windows_ns = f->win, .nwindows = NWIN, .target = target,
				     .shard = shard, .nshards = nshards, .jobs = jobs };
	char msg[256];

	if (sim_study_limits(l, &f->t, &o, msg, sizeof(msg)) != RL_OK)
		fail_msg("seed %llu: sim_study_limits: %s", (unsigned long long)seed, msg);
}

/* The study's sliding_log at rule N/W says what limits.csv says at N. */
static void check_against_study(const struct fixture *f, const struct sim_limits *l)
{
	const struct rl_algo *log = rl_algo_find("sliding_log");
	struct sim_study_rule rules[NWIN] = { 0 }; /* policy.count 0: each its rule alone */

	for (int w = 0; w < NWIN; w++) {
		const struct sim_limits_window *lw = &l->w[w];
		rules[w].rule = rl_rule_make(lw->limit[lw->n / 2], lw->window_ns);
		snprintf(rules[w].text, sizeof(rules[w].text), "%lld/%s", (long long)lw->limit[lw->n / 2], lw->text);
	}
	struct sim_study_opts o = { .rules = rules, .nrules = NWIN, .algos = &log, .nalgos = 1, .jobs = 2,
				    .nshards = 1, .timing_requests = 10, .quiet = true };
	struct sim_study s;
	char msg[256];
	assert_int_equal(sim_study_run(&s, &f->t, &o, stderr, msg, sizeof(msg)), RL_OK);
	for (int w = 0; w < NWIN; w++) {
		const struct sim_limits_window *lw = &l->w[w];
		EXPECT("the study's excess_requests at the middle limit", s.rows[w].excess_requests,
		       lw->requests_refused[lw->n / 2]);
		EXPECT("the study's keys less good_keys at the middle limit", s.rows[w].keys - s.rows[w].good_keys,
		       lw->keys_refused[lw->n / 2]);
		EXPECT("the study's sliding_log refused", s.rows[w].requests - s.rows[w].admitted,
		       lw->requests_refused[lw->n / 2]);
	}
	sim_study_free(&s);
}

/* Two shards written, read back and merged: the whole's figures at the limits kept. */
static void check_merge(const struct fixture *f, uint32_t target)
{
	struct sim_study part[2];
	struct sim_study_rule rule = { .text = "5/1s", .rule = rl_rule_make(5, S_NS) };
	const struct rl_algo *log = rl_algo_find("sliding_log");
	char dirs[2][64], msg[512];
	const char *dv[2] = { dirs[0], dirs[1] };

	for (uint32_t i = 0; i < 2; i++) {
		struct sim_study_opts o = { .rules = &rule, .nrules = 1, .algos = &log, .nalgos = 1, .jobs = 1,
					    .shard = i, .nshards = 2, .timing_requests = 10, .quiet = true };
		assert_int_equal(sim_study_run(&part[i], &f->t, &o, stderr, msg, sizeof(msg)), RL_OK);
		limits_of(f, &part[i].limits, target, 1, i, 2);
		part[i].target_keys = target;
		part[i].trace = strdup("t");
		snprintf(dirs[i], sizeof(dirs[i]), "/tmp/test_study_limits.%d.%u", (int)getpid(), i);
		assert_int_equal(mkdir(dirs[i], 0700), 0);
		assert_int_equal(sim_study_write(&part[i], dirs[i], stderr), 0);
	}
	struct sim_study m;
	if (sim_study_merge(&m, dv, 2, msg, sizeof(msg)))
		fail_msg("seed %llu: merge: %s", (unsigned long long)seed, msg);
	check_limits(f, &m.limits, target, 0, 1, true);
	/* every limit the whole lists when it lists every N is kept */
	for (size_t w = 0; w < NWIN; w++) {
		struct sim_limits whole;
		limits_of(f, &whole, target, 1, 0, 1);
		const struct sim_limits_window *lw = &whole.w[w];
		if (lw->max_peak <= SIM_LIMITS_MAX)
			EXPECT("merged rows", m.limits.w[w].n, lw->n);
		sim_limits_free(&whole);
	}
	assert_int_equal(m.target_keys, target);
	sim_study_free(&m);
	for (int i = 0; i < 2; i++) {
		static const char *const files[] = { "study.csv", "clients.csv", "traffic.csv", "refused.csv",
						     "limits.csv", "meta.csv" };
		for (size_t j = 0; j < sizeof(files) / sizeof(files[0]); j++) {
			char p[192];
			snprintf(p, sizeof(p), "%s/%s", dirs[i], files[j]);
			assert_int_equal(unlink(p), 0);
		}
		assert_int_equal(rmdir(dirs[i]), 0);
		sim_study_free(&part[i]);
	}
}

static void limits_vs_model(bool big)
{
	uint64_t base = m_seed_from_env(big ? 12 : 11);

	for (uint64_t i = 0; i < 12; i++) {
		seed = base + i * 7919;
		struct m_rng g = { seed };
		struct fixture f;
		struct sim_limits l;
		uint32_t target = i % 3 == 0 ? 9900 : i % 3 == 1 ? 5050 : 10000;
		make_fixture(&f, &g, big);
		limits_of(&f, &l, target, 1 + (unsigned)(i % 3), 0, 1);
		check_limits(&f, &l, target, 0, 1, false);
		check_against_study(&f, &l);
		sim_limits_free(&l);
		limits_of(&f, &l, target, 2, 1, 2);
		check_limits(&f, &l, target, 1, 2, false);
		sim_limits_free(&l);
		check_merge(&f, target);
		trace_free(&f.t);
	}
}

static void limits_unit_requests(void **u)
{
	(void)u;
	limits_vs_model(false);
}

static void limits_big_peaks(void **u)
{
	(void)u;
	limits_vs_model(true);
}

/* A hand-made case read off the trace: window 10 s, key a at 0, 0, 5, 10 (peak 3), key b at 1 (peak 1). */
static void limits_known(void **u)
{
	(void)u;
	static const int64_t times[] = { 0, 0, 1, 5, 10 };
	static const uint32_t key[] = { 0, 0, 1, 0, 0 };
	struct fixture f;
	memset(&f, 0, sizeof(f));
	struct sim_trace *t = &f.t;
	t->n = 5;
	t->nkeys = 2;
	t->t_ns = malloc(sizeof(times));
	t->key = malloc(sizeof(key));
	t->cost = malloc(5 * sizeof(uint32_t));
	t->key_name = calloc(2, sizeof(char *));
	assert_true(t->t_ns && t->key && t->cost && t->key_name);
	for (int i = 0; i < 5; i++) {
		t->t_ns[i] = times[i] * S_NS;
		t->key[i] = key[i];
		t->cost[i] = 1;
	}
	t->key_name[0] = strdup("a");
	t->key_name[1] = strdup("b");
	const char *text = "10s";
	int64_t win = 10 * S_NS;
	struct sim_limits_opts o = { .texts = &text, .windows_ns = &win, .nwindows = 1, .target = 5000, .nshards = 1,
				     .jobs = 1 };
	struct sim_limits l;
	char msg[128];
	assert_int_equal(sim_study_limits(&l, t, &o, msg, sizeof(msg)), RL_OK);
	const struct sim_limits_window *lw = &l.w[0];
	/* a's (t - 10 s, t]: at 10 the requests at 0 are out, so 5 and 10: the peak is 3 (0, 0, 5) */
	assert_int_equal(lw->n, 3);
	assert_int_equal(lw->max_peak, 3);
	assert_int_equal(lw->suggested, 1); /* 50% of 2 keys: 1 key, b's peak */
	assert_int_equal(lw->keys, 2);
	assert_int_equal(lw->requests, 5);
	/* N = 1: a admits 0, refuses 0, 5 (0 in the window), admits 10 (0 out): 2 refused */
	assert_int_equal(lw->keys_refused[0], 1);
	assert_int_equal(lw->requests_refused[0], 2);
	/* N = 2: a admits 0, 0, refuses 5, admits 10: 1 refused */
	assert_int_equal(lw->keys_refused[1], 1);
	assert_int_equal(lw->requests_refused[1], 1);
	assert_int_equal(lw->keys_refused[2], 0);
	assert_int_equal(lw->requests_refused[2], 0);
	sim_limits_free(&l);
	trace_free(t);
}

static void target_text(void **u)
{
	(void)u;
	uint32_t v;
	char buf[16];
	static const struct {
		const char *text;
		uint32_t v;
	} good[] = { { "99%", 9900 }, { "99.5%", 9950 }, { "99.25%", 9925 }, { "100%", 10000 }, { "0.01%", 1 },
		     { "50%", 5000 } };
	static const char *const bad[] = { "0.99", "99", "0%", "100.01%", "101%", "99.125%", "99.%", ".5%",
					   "-1%", "1e2%", "99 %", "", "%", "1000%" };
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		assert_true(sim_study_target_parse(good[i].text, &v));
		assert_int_equal(v, good[i].v);
		sim_study_target_text(buf, sizeof(buf), v);
		assert_string_equal(buf, good[i].text);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (sim_study_target_parse(bad[i], &v))
			fail_msg("'%s' taken as a share of keys", bad[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(limits_known),
		cmocka_unit_test(target_text),
		cmocka_unit_test(limits_unit_requests),
		cmocka_unit_test(limits_big_peaks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
