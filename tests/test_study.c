/*
 * test_study.c - every figure of a study (study.h) against the slow models
 * of tests/model.h, on seeded random traces of known clients: polite keys
 * (well inside the rule), bursty ones at the edge and abusive ones, key
 * names with ',' and '"', costs (some never admissible), rules with and
 * without a burst. The expected figures are computed here from the
 * definitions, by brute force over each key's whole history; a failure
 * prints the seed (RL_SEED=<seed> replays it).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "model.h"
#include "study.h"

#define NKEYS 14
#define NREQ 700
#define NRULES 3
#define S_NS 1000000000LL

static uint64_t seed;

/* The trace: keys with names, requests in time order. */
struct fixture {
	struct sim_trace t;
	struct sim_study_rule rules[NRULES];
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
 * The clients, by key: 0-3 polite (random gaps of 4 * W/N on average),
 * 4-7 regular at just under the rule's rate (within the rule: only an
 * approximation refuses them), 8-9 a burst of N at one instant every W and
 * a bit (within the rule, at its edge), 10-13 abusive (gaps of W/N / 4).
 */
static int64_t next_gap(struct m_rng *g, int k, const struct rl_rule *r, int64_t *burst_left)
{
	int64_t per = r->window_ns / r->limit;

	if (k < 4)
		return m_rng_range(g, 1, 8 * per);
	if (k < 8)
		return per + per / 20 + m_rng_range(g, 0, 2);
	if (k < 10) {
		if (--*burst_left > 0)
			return 0;
		*burst_left = r->limit;
		return r->window_ns + m_rng_range(g, 1, r->window_ns / 2);
	}
	return m_rng_range(g, 0, per / 4);
}

static void make_fixture(struct fixture *f, struct m_rng *g, bool costs)
{
	static const char *const names[NKEYS] = { "10.0.0.1", "10.0.0.2", "a,b", "q\"x", "2001:db8::1",
						  "user one", "k6", "k7", "k8", "k9", "heavy1", "heavy2",
						  "heavy3", "z" };
	memset(f, 0, sizeof(*f));
	/* one rate, three rules: N/W, 2N/2W with a burst below 2N, N/W with a burst above N;
	 * W a multiple of N so that gcra decides as the token bucket model */
	int64_t n = m_rng_range(g, 2, 6), w = n * m_rng_range(g, S_NS / 20, S_NS / 4);
	f->rules[0].rule = rl_rule_make(n, w);
	f->rules[1].rule = (struct rl_rule){ 2 * n, 2 * w, 2 * n - 1 };
	f->rules[2].rule = (struct rl_rule){ n, w, n + m_rng_range(g, 1, 4) };
	for (int r = 0; r < NRULES; r++)
		snprintf(f->rules[r].text, sizeof(f->rules[r].text), "rule%d", r);
	struct sim_trace *t = &f->t;
	t->nkeys = NKEYS;
	t->key_name = calloc(NKEYS, sizeof(*t->key_name));
	t->t_ns = calloc(NREQ, sizeof(*t->t_ns));
	t->key = calloc(NREQ, sizeof(*t->key));
	t->cost = calloc(NREQ, sizeof(*t->cost));
	assert_non_null(t->key_name);
	assert_non_null(t->t_ns);
	assert_non_null(t->key);
	assert_non_null(t->cost);
	for (int k = 0; k < NKEYS; k++)
		t->key_name[k] = strdup(names[k]);
	/* each key's next time; the trace takes the earliest (ties: lowest key) */
	int64_t next[NKEYS], burst_left[NKEYS];
	for (int k = 0; k < NKEYS; k++) {
		burst_left[k] = n;
		next[k] = m_rng_range(g, 0, w);
	}
	for (size_t i = 0; i < NREQ; i++) {
		int k = 0;
		for (int j = 1; j < NKEYS; j++)
			if (next[j] < next[k])
				k = j;
		t->t_ns[i] = next[k];
		t->key[i] = (uint32_t)k;
		t->cost[i] = 1;
		if (costs && k != 8 && k != 9) {
			t->cost[i] = (uint32_t)m_rng_range(g, 1, 3);
			if (m_rng_range(g, 0, 49) == 0)
				t->cost[i] = 40; /* above every N and B: never admissible */
			t->has_cost = true;
		}
		next[k] += next_gap(g, k, &f->rules[0].rule, &burst_left[k]);
	}
	t->n = NREQ;
	t->resolution_ns = 1;
	snprintf(t->format, sizeof(t->format), "trace");
}

/* The model of algorithm name under rule r (gcra: a token bucket, W a multiple of N). */
static struct m_lim model_of(const char *name, const struct rl_rule *r)
{
	struct m_lim m = { M_TOKEN_BUCKET, r->limit, r->window_ns, r->burst };

	if (!strcmp(name, "gcra")) {
		m.n = 1;
		m.w = r->window_ns / r->limit;
	} else if (!strcmp(name, "leaky_bucket")) {
		m.kind = M_LEAKY_BUCKET;
	} else if (!strcmp(name, "fixed_window")) {
		m.kind = M_FIXED_WINDOW;
	} else if (!strcmp(name, "sliding_log")) {
		m.kind = M_SLIDING_LOG;
	} else if (!strcmp(name, "sliding_counter")) {
		m.kind = M_SLIDING_COUNTER;
	} else {
		assert_string_equal(name, "token_bucket");
	}
	return m;
}

/* Units key admitted (per verdict v[]) at times in (t - W, t], requests before index i. */
static int64_t own_window(const struct sim_trace *t, const int *v, size_t i, int64_t w)
{
	int64_t sum = 0;

	for (size_t x = 0; x < i; x++)
		if (t->key[x] == t->key[i] && v[x] && t->t_ns[x] > t->t_ns[i] - w)
			sum += t->cost[x];
	return sum;
}

/*
 * Verdicts of model m deciding each key's requests with its own state: the
 * model's decision alone (m_decide; the trace is in time order, so no time
 * is clamped, and a cost above the model's cap is refused without a change
 * that matters: m_check_n's answers are not needed here).
 */
static void model_verdicts(const struct sim_trace *t, struct m_lim m, int *v)
{
	struct m_key keys[NKEYS];

	memset(keys, 0, sizeof(keys));
	for (size_t i = 0; i < t->n; i++) {
		struct m_key *k = &keys[t->key[i]];
		v[i] = t->cost[i] > m_cost_cap(&m) ? 0 : m_decide(&m, k, t->t_ns[i], t->cost[i], 1, NULL);
	}
	for (int k = 0; k < NKEYS; k++)
		m_key_free(&keys[k]);
}

#define EXPECT(what, got, want)                                                                        \
	do {                                                                                           \
		if ((int64_t)(got) != (int64_t)(want))                                                  \
			fail_msg("seed %llu, %s %s %s: %lld, expected %lld", (unsigned long long)seed,     \
				 rule->text, name, what, (long long)(got), (long long)(want));             \
	} while (0)

/* The study's rows, clients and refused buckets of one shard, against the models. */
static void check_study(const struct fixture *f, const struct sim_study *s, uint32_t shard, uint32_t nshards)
{
	const struct sim_trace *t = &f->t;
	size_t nalgos;
	const struct rl_algo *const *algos = rl_algo_all(&nalgos);
	int in[NKEYS];
	int64_t units[NKEYS] = { 0 }, keys = 0, nin = 0;

	for (int k = 0; k < NKEYS; k++)
		in[k] = sim_study_key_hash(t->key_name[k], strlen(t->key_name[k])) % nshards == shard;
	for (size_t i = 0; i < t->n; i++)
		if (in[t->key[i]]) {
			units[t->key[i]] += t->cost[i];
			nin++;
		}
	for (int k = 0; k < NKEYS; k++)
		keys += units[k] > 0;
	if (s->keys != keys || s->requests != nin)
		fail_msg("seed %llu: %lld keys, %lld requests; expected %lld, %lld", (unsigned long long)seed,
			 (long long)s->keys, (long long)s->requests, (long long)keys, (long long)nin);
	assert_int_equal(s->nnames, nalgos);

	/* the ranking: units desc, key bytes asc, every active key (fewer than SIM_STUDY_TOP) */
	int order[NKEYS], nord = 0;
	for (int k = 0; k < NKEYS; k++)
		if (units[k])
			order[nord++] = k;
	for (int x = 0; x < nord; x++)
		for (int y = x + 1; y < nord; y++) {
			int a = order[x], b = order[y];
			if (units[b] > units[a] || (units[b] == units[a] && strcmp(t->key_name[b], t->key_name[a]) < 0)) {
				order[x] = b;
				order[y] = a;
			}
		}
	if (s->ntop != (size_t)nord)
		fail_msg("seed %llu: %zu top keys, expected %d", (unsigned long long)seed, s->ntop, nord);
	for (int x = 0; x < nord; x++)
		if (strcmp(s->top[x].name, t->key_name[order[x]]) || s->top[x].requests != units[order[x]])
			fail_msg("seed %llu: top key %d is %s (%lld), expected %s (%lld)", (unsigned long long)seed, x,
				 s->top[x].name, (long long)s->top[x].requests, t->key_name[order[x]],
				 (long long)units[order[x]]);

	int *ref = calloc(t->n, sizeof(int)), *v = calloc(t->n, sizeof(int));
	assert_non_null(ref);
	assert_non_null(v);
	for (size_t r = 0; r < NRULES; r++) {
		const struct sim_study_rule *rule = &f->rules[r];
		const char *name = "sliding_log (reference)";
		model_verdicts(t, model_of("sliding_log", &rule->rule), ref);
		int within[NKEYS];
		int64_t good = 0, excess = 0;
		for (int k = 0; k < NKEYS; k++)
			within[k] = units[k] > 0 && in[k];
		for (size_t i = 0; i < t->n; i++)
			if (in[t->key[i]] && !ref[i]) {
				within[t->key[i]] = 0;
				excess += t->cost[i];
			}
		for (int k = 0; k < NKEYS; k++)
			good += within[k];
		for (int x = 0; x < nord; x++)
			EXPECT("within (top key)", s->top[x].within[r], within[order[x]]);
		for (size_t a = 0; a < nalgos; a++) {
			name = algos[a]->name;
			assert_string_equal(s->names[a], name);
			const struct sim_study_row *row = &s->rows[r * s->nnames + a];
			model_verdicts(t, model_of(name, &rule->rule), v);
			int64_t req = 0, adm = 0, hurt = 0, good_rej = 0, ex_adm = 0, over = 0, fr = 0, div = 0, max = 0;
			int64_t kadm[NKEYS] = { 0 }, buckets[SIM_STUDY_BUCKETS] = { 0 };
			for (size_t i = 0; i < t->n; i++) {
				uint32_t k = t->key[i];
				int64_t c = t->cost[i];
				if (!in[k])
					continue;
				int64_t before = own_window(t, v, i, rule->rule.window_ns);
				req += c;
				if (v[i]) {
					adm += c;
					kadm[k] += c;
					over += before + c > rule->rule.limit ? c : 0;
					ex_adm += ref[i] ? 0 : c;
					max = before + c > max ? before + c : max;
				} else {
					fr += before + c <= rule->rule.limit ? c : 0;
					good_rej += within[k] ? c : 0;
				}
				div += v[i] != ref[i] ? c : 0;
			}
			for (int k = 0; k < NKEYS; k++) {
				if (!units[k])
					continue;
				hurt += within[k] && kadm[k] < units[k];
				/* the share refused as an exact fraction, against the bucket bounds */
				int64_t refused = units[k] - kadm[k];
				int b = refused == 0 ? 0 : 100 * refused <= units[k] ? 1 : 10 * refused <= units[k] ? 2
					: 2 * refused <= units[k] ? 3 : 4;
				buckets[b]++;
			}
			EXPECT("requests", row->requests, req);
			EXPECT("admitted", row->admitted, adm);
			EXPECT("good_keys", row->good_keys, good);
			EXPECT("good_keys_hurt", row->good_keys_hurt, hurt);
			EXPECT("good_requests_rejected", row->good_requests_rejected, good_rej);
			EXPECT("excess_requests", row->excess_requests, excess);
			EXPECT("excess_admitted", row->excess_admitted, ex_adm);
			EXPECT("over_n_admissions", row->over_n_admissions, over);
			EXPECT("false_rejects", row->false_rejects, fr);
			EXPECT("diverged", row->diverged, div);
			EXPECT("max_in_w", row->max_in_w, max);
			EXPECT("keys", row->keys, keys);
			EXPECT("state_bytes", row->state_bytes, (int64_t)algos[a]->state_size);
			for (int b = 0; b < SIM_STUDY_BUCKETS; b++)
				EXPECT("refused bucket", row->refused[b], buckets[b]);
			for (int x = 0; x < nord; x++)
				EXPECT("top key admitted", s->top[x].admitted[r * s->nnames + a], kadm[order[x]]);
		}
	}
	free(ref);
	free(v);

	/* traffic: units per bin of trace time, every studied key and the heaviest five */
	int64_t bin = sim_study_traffic_bin(t->t_ns[0], t->t_ns[t->n - 1]);
	assert_int_equal(s->bin_ns, bin);
	assert_true(s->bin0_ns <= t->t_ns[0] && t->t_ns[0] - s->bin0_ns < bin && s->bin0_ns % bin == 0);
	size_t nbins = (size_t)((t->t_ns[t->n - 1] - s->bin0_ns) / bin) + 1;
	assert_int_equal(s->nbins, nbins);
	for (size_t b = 0; b < nbins; b++) {
		int64_t all = 0, heavy[SIM_STUDY_TRAFFIC_KEYS] = { 0 };
		for (size_t i = 0; i < t->n; i++) {
			if (!in[t->key[i]] || t->t_ns[i] < s->bin0_ns + (int64_t)b * bin ||
			    t->t_ns[i] >= s->bin0_ns + (int64_t)(b + 1) * bin)
				continue;
			all += t->cost[i];
			for (int x = 0; x < nord && x < SIM_STUDY_TRAFFIC_KEYS; x++)
				heavy[x] += (int)t->key[i] == order[x] ? t->cost[i] : 0;
		}
		assert_int_equal(s->per_bin[b], all);
		for (int x = 0; x < nord && x < SIM_STUDY_TRAFFIC_KEYS; x++)
			assert_int_equal(s->top[x].per_bin[b], heavy[x]);
	}
}

/* The traffic bin: the first unit of the list that gives at most SIM_STUDY_TRAFFIC_BINS bins, at every boundary. */
static void study_traffic_bin(void **u)
{
	(void)u;
	static const int64_t unit[] = { S_NS, 10 * S_NS, 60 * S_NS, 600 * S_NS, 3600 * S_NS, 86400 * S_NS,
					864000 * S_NS, 8640000 * S_NS };
	const int64_t max = SIM_STUDY_TRAFFIC_BINS;
	/* one request, or two in one second */
	assert_int_equal(sim_study_traffic_bin(0, 0), S_NS);
	assert_int_equal(sim_study_traffic_bin(5 * S_NS + 1, 6 * S_NS - 1), S_NS);
	for (size_t i = 0; i + 1 < sizeof(unit) / sizeof(unit[0]); i++) {
		/* aligned at 0: max bins exactly fit, one ns more takes the next unit */
		assert_int_equal(sim_study_traffic_bin(0, max * unit[i] - 1), unit[i]);
		assert_int_equal(sim_study_traffic_bin(0, max * unit[i]), unit[i + 1]);
		/* the bins are aligned to the unit, not to the first time: a first time late in its
		 * bin counts that whole bin */
		int64_t t0 = 7 * unit[i] + unit[i] - 1;
		assert_int_equal(sim_study_traffic_bin(t0, t0 + (max - 1) * unit[i]), unit[i]);
		assert_int_equal(sim_study_traffic_bin(t0, t0 + (max - 1) * unit[i] + 1), unit[i + 1]);
	}
	/* two requests 126 years apart (1970 and 2096): 100-day bins, 461 of them */
	int64_t last = 4007836800LL * S_NS; /* 2097-01-01 */
	assert_int_equal(sim_study_traffic_bin(0, last), 8640000 * S_NS);
	/* the largest trace time */
	assert_int_equal(sim_study_traffic_bin(0, 4000000000000000000LL), 8640000 * S_NS);
	assert_true(4000000000000000000LL / (8640000 * S_NS) + 1 <= max);
}

static void study_once(const struct fixture *f, unsigned jobs, uint32_t shard, uint32_t nshards)
{
	size_t nalgos;
	const struct rl_algo *const *algos = rl_algo_all(&nalgos);
	struct sim_study_opts o = {
		.rules = f->rules, .nrules = NRULES, .algos = algos, .nalgos = nalgos, .jobs = jobs,
		.shard = shard, .nshards = nshards, .timing_requests = 50, .quiet = true,
	};
	struct sim_study s;
	char msg[256];

	int rc = sim_study_run(&s, &f->t, &o, stderr, msg, sizeof(msg));
	if (rc != RL_OK)
		fail_msg("seed %llu: sim_study_run: %d %s", (unsigned long long)seed, rc, msg);
	check_study(f, &s, shard, nshards);
	sim_study_free(&s);
}

static void figures_vs_models(bool costs)
{
	uint64_t base = m_seed_from_env(costs ? 2 : 1);

	for (uint64_t i = 0; i < 20; i++) {
		seed = base + i * 7919;
		struct m_rng g = { seed };
		struct fixture f;
		make_fixture(&f, &g, costs);
		study_once(&f, 1 + (unsigned)(i % 3), 0, 1);
		study_once(&f, 2, 0, 2);
		study_once(&f, 2, 1, 2);
		trace_free(&f.t);
	}
}

static void study_unit_requests(void **u)
{
	(void)u;
	figures_vs_models(false);
}

static void study_costs(void **u)
{
	(void)u;
	figures_vs_models(true);
}

/* A hand-made case whose figures are read off the trace: 2 per 10 s, three keys. */
static void study_known_clients(void **u)
{
	(void)u;
	struct fixture f;
	static const int64_t times[] = { 0, 0, 1, 5, 11, 11, 12 };
	static const uint32_t key[] = { 0, 1, 2, 1, 2, 2, 2 };
	static const char *const names[] = { "polite", "pair", "abuser" };

	memset(&f, 0, sizeof(f));
	f.t.n = 7;
	f.t.nkeys = 3;
	f.t.t_ns = malloc(sizeof(times));
	f.t.key = malloc(sizeof(key));
	f.t.cost = malloc(7 * sizeof(uint32_t));
	f.t.key_name = calloc(3, sizeof(char *));
	assert_non_null(f.t.t_ns);
	assert_non_null(f.t.key);
	assert_non_null(f.t.cost);
	assert_non_null(f.t.key_name);
	for (size_t i = 0; i < 7; i++) {
		f.t.t_ns[i] = times[i] * S_NS;
		f.t.key[i] = key[i];
		f.t.cost[i] = 1;
	}
	for (size_t k = 0; k < 3; k++)
		f.t.key_name[k] = strdup(names[k]);
	snprintf(f.t.format, sizeof(f.t.format), "trace");
	/* rule 0: 2/10s. abuser: 1, 11, 11, 12: the log refuses 12 (11, 11 and 1 is
	 * out at 11); fixed_window admits 11, 11 and refuses 12 too */
	for (int r = 0; r < NRULES; r++) {
		f.rules[r].rule = rl_rule_make(2, 10 * S_NS);
		snprintf(f.rules[r].text, sizeof(f.rules[r].text), "2/10s");
	}
	const struct rl_algo *fw = rl_algo_find("fixed_window");
	struct sim_study_opts o = { .rules = f.rules, .nrules = 1, .algos = &fw, .nalgos = 1, .jobs = 1,
				    .nshards = 1, .quiet = true };
	struct sim_study s;
	char msg[256];
	assert_int_equal(sim_study_run(&s, &f.t, &o, stderr, msg, sizeof(msg)), RL_OK);
	const struct sim_study_row *row = &s.rows[0];
	assert_int_equal(row->requests, 7);
	assert_int_equal(row->admitted, 6);
	assert_int_equal(row->good_keys, 2);        /* polite, pair */
	assert_int_equal(row->good_keys_hurt, 0);
	assert_int_equal(row->excess_requests, 1);  /* abuser at 12 */
	assert_int_equal(row->excess_admitted, 0);
	assert_int_equal(row->max_in_w, 2);
	assert_int_equal(s.ntop, 3);
	assert_string_equal(s.top[0].name, "abuser");
	assert_int_equal(s.top[0].within[0], 0);
	assert_int_equal(s.bin_ns, S_NS);
	assert_int_equal(s.bin0_ns, 0);
	assert_int_equal(s.nbins, 13);
	assert_int_equal(s.per_bin[11], 2);
	sim_study_free(&s);
	trace_free(&f.t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(study_known_clients),
		cmocka_unit_test(study_traffic_bin),
		cmocka_unit_test(study_unit_requests),
		cmocka_unit_test(study_costs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
