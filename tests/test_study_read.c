/*
 * test_study_read.c - the one reader of a study directory (study.h,
 * sim_study_read) against the one writer (sim_study_write): seeded random
 * studies written, read back and written again give the same bytes, file
 * for file, and the read study is whole (sim_study_whole, what --merge
 * asks). Then what a hand-made or older study may lack (columns, rows,
 * keys, buckets, limits.csv) read as study.h says, refused by
 * sim_study_whole with its reason; and the reader's refusals of files that
 * contradict each other, each with DIR/FILE:LINE. A failure prints its seed
 * (RL_SEED replays it).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_files.h"

#include "csv.h"
#include "ratelab/algo.h"
#include "study.h"
#include "study_limits.h"
#include "test_rng.h"

static char tmp_root[64];
static const char *const files[] = { "study.csv", "clients.csv", "traffic.csv", "refused.csv",
				     "limits.csv", "meta.csv", "placement.csv" };


static void write_text(const char *dir, const char *name, const char *text)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
	assert_int_equal(fclose(f), 0);
}

static void fresh_dir(char *dir, size_t cap, const char *name)
{
	snprintf(dir, cap, "%s/%s", tmp_root, name);
	assert_int_equal(mkdir(dir, 0777), 0);
}

/* ---- the round trip: a random trace (keys whose names hold ',', '"' and a line break), studied */

struct rt {
	struct sim_trace t;
	struct sim_study_rule rules[3];
	size_t nrules;
};

static void rt_free(struct rt *f)
{
	for (size_t k = 0; k < f->t.nkeys; k++)
		free(f->t.key_name[k]);
	free(f->t.key_name);
	free(f->t.t_ns);
	free(f->t.key);
	free(f->t.cost);
}

static void rt_make(struct rt *f, uint64_t *rng)
{
	static const char *const odd[] = { "10.0.0.1", "a,b", "q\"x", "line\nbreak", "2001:db8::1", "(other)" };
	memset(f, 0, sizeof(*f));
	/* enough keys, sometimes, for clients.csv's (other) rows to hold keys past the top */
	size_t nkeys = 3 + t_splitmix(rng) % (t_splitmix(rng) % 2 ? 12 : SIM_STUDY_TOP + 40);
	size_t n = 200 + t_splitmix(rng) % 3000;
	struct sim_trace *t = &f->t;
	t->nkeys = nkeys;
	t->key_name = calloc(nkeys, sizeof(*t->key_name));
	t->t_ns = calloc(n, sizeof(*t->t_ns));
	t->key = calloc(n, sizeof(*t->key));
	t->cost = calloc(n, sizeof(*t->cost));
	assert_true(t->key_name && t->t_ns && t->key && t->cost);
	for (size_t k = 0; k < nkeys; k++) {
		char name[64];
		if (k < sizeof(odd) / sizeof(odd[0]))
			snprintf(name, sizeof(name), "%s", odd[k]);
		else
			snprintf(name, sizeof(name), "key%zu", k);
		t->key_name[k] = strdup(name);
	}
	bool costs = t_splitmix(rng) % 2;
	int64_t at = (int64_t)(t_splitmix(rng) % 2) * 1700000000000000000LL;
	for (size_t i = 0; i < n; i++) {
		at += (int64_t)(t_splitmix(rng) % 40000000);
		t->t_ns[i] = at;
		/* skewed: low keys heavy */
		uint64_t a = t_splitmix(rng) % nkeys, b = t_splitmix(rng) % nkeys;
		t->key[i] = (uint32_t)(a < b ? a : b);
		t->cost[i] = costs ? (uint32_t)(1 + t_splitmix(rng) % 3) : 1;
	}
	t->has_cost = costs;
	t->n = n;
	t->resolution_ns = t_splitmix(rng) % 2 ? 1 : 1000000;
	snprintf(t->format, sizeof(t->format), "trace");
	char text[3][64], msg[256];
	snprintf(text[0], 64, "%llu/1s", (unsigned long long)(2 + t_splitmix(rng) % 20));
	snprintf(text[1], 64, "%llu/2s:b%llu", (unsigned long long)(3 + t_splitmix(rng) % 10),
		 (unsigned long long)(14 + t_splitmix(rng) % 10));
	snprintf(text[2], 64, "4/1s+%llu/1m", (unsigned long long)(20 + t_splitmix(rng) % 200));
	f->nrules = 3;
	for (size_t r = 0; r < f->nrules; r++)
		assert_true(sim_study_rule_parse(text[r], &f->rules[r], msg, sizeof(msg)));
}

/* A computed study of f: its rules, every algorithm, limits of 1s and 2s, the import's rows, placement.csv. */
static void rt_study(const struct rt *f, struct sim_study *s, uint64_t *rng)
{
	size_t nalgos;
	const struct rl_algo *const *algos = rl_algo_all(&nalgos);
	struct sim_study_opts o = { .rules = f->rules, .nrules = f->nrules, .algos = algos, .nalgos = nalgos,
				    .jobs = 2, .shard = 0, .nshards = 1, .timing_requests = 20, .quiet = true };
	char msg[256];
	assert_int_equal(sim_study_run(s, &f->t, &o, stderr, msg, sizeof(msg)), RL_OK);
	static const char *const texts[] = { "1s", "2s" };
	static const int64_t windows[] = { 1000000000, 2000000000 };
	struct sim_limits_opts lo = { texts, windows, 2, 9950, 0, 1, 1 };
	assert_int_equal(sim_study_limits(&s->limits, &f->t, &lo, msg, sizeof(msg)), 0);
	s->target_keys = 9950;
	s->trace = strdup("/logs/a,b.log");
	snprintf(s->shard, sizeof(s->shard), "all");
	s->elapsed_s = 1.5;
	if (t_splitmix(rng) % 2) {
		struct sim_import_stats *st = &s->import;
		st->lines = f->t.n + 3;
		st->skipped = 3;
		st->skip[0] = 3;
		snprintf(st->where[0][0], sizeof(st->where[0][0]), "a.log:7");
		st->without_cost = 5;
		st->no_offset = 2;
		snprintf(st->tz, sizeof(st->tz), "+02:00");
		st->detected = true;
		st->nexamples = 1;
		snprintf(st->example[0], sizeof(st->example[0]), "a.log:7: not a line: 'x,\"y\"'");
	}
	if (t_splitmix(rng) % 2) {
		struct sim_study_opts oo = o;
		oo.nrules = 2;
		assert_non_null(s->other = calloc(1, sizeof(*s->other)));
		assert_int_equal(sim_study_run(s->other, &f->t, &oo, stderr, msg, sizeof(msg)), RL_OK);
	}
}

static void test_round_trip(void **state)
{
	(void)state;
	uint64_t seed = t_seed_from_env(20261205), rng = seed;
	for (int iter = 0; iter < 12; iter++) {
		struct rt f;
		struct sim_study s, back;
		char a[256], b[256], name[32], msg[1024];
		rt_make(&f, &rng);
		rt_study(&f, &s, &rng);
		snprintf(name, sizeof(name), "rt%d_a", iter);
		fresh_dir(a, sizeof(a), name);
		snprintf(name, sizeof(name), "rt%d_b", iter);
		fresh_dir(b, sizeof(b), name);
		assert_int_equal(sim_study_write(&s, a, stderr), 0);
		int rc = sim_study_read(&back, a, msg, sizeof(msg));
		if (rc)
			fail_msg("seed %llu, study %d: read back: %s", (unsigned long long)seed, iter, msg);
		if (sim_study_whole(&back, a, msg, sizeof(msg)))
			fail_msg("seed %llu, study %d: not whole: %s", (unsigned long long)seed, iter, msg);
		if (back.nrules != s.nrules || back.nnames != s.nnames || back.ntop != s.ntop ||
		    back.nbins != s.nbins || back.limits.nwindows != 2 || !back.has_limits ||
		    !back.other != !s.other)
			fail_msg("seed %llu, study %d: %zu rules, %zu names, %zu keys, %zu bins read; %zu, %zu, %zu, "
				 "%zu written", (unsigned long long)seed, iter, back.nrules, back.nnames, back.ntop,
				 back.nbins, s.nrules, s.nnames, s.ntop, s.nbins);
		/* the model read writes the files it was read from, byte for byte */
		assert_int_equal(sim_study_write(&back, b, stderr), 0);
		for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
			size_t la = 0, lb = 0;
			char *x = tf_slurp(a, files[i], &la), *y = tf_slurp(b, files[i], &lb);
			if (!x != !y || (x && (la != lb || memcmp(x, y, la) != 0)))
				fail_msg("seed %llu, study %d: %s written again differs", (unsigned long long)seed, iter,
					 files[i]);
			free(x);
			free(y);
		}
		sim_study_free(&back);
		sim_study_free(&s);
		rt_free(&f);
	}
}

/* ---- an older or hand-made study: what it lacks reads as study.h says */

static const char meta_min[] = "name,value\ntrace,t\nformat,trace\nrequests,30\nkeys,3\nspan_ns,9\nresolution_ns,1\n"
			       "spread,no\ncost,no\ntraffic_bin_ns,1000000000\n";
/* 11 columns: no false_rejects, max_in_w_over_n and the rest; gcra has no row of 5/1s */
static const char study_11[] =
	"rule,algo,requests,admitted,good_keys,good_keys_hurt,good_requests_rejected,excess_requests,"
	"excess_admitted,ns_per_check,bytes_per_key\n"
	"2/1s,gcra,30,20,2,1,3,10,1,18.25,8\n"
	"2/1s,peer_x,30,21,2,0,0,10,1,,\n"
	"5/1s,peer_x,30,25,3,0,0,4,0,7,\n";

static void test_older_study(void **state)
{
	(void)state;
	char dir[256], msg[1024];
	struct sim_study s;
	fresh_dir(dir, sizeof(dir), "older");
	write_text(dir, "meta.csv", meta_min);
	write_text(dir, "study.csv", study_11);
	write_text(dir, "clients.csv", "rule,algo,key,requests,admitted,within_rule\n"
					"2/1s,gcra,k1,20,12,no\n2/1s,gcra,k2,6,6,yes\n2/1s,gcra,(other),4,2,1\n"
					"5/1s,peer_x,k2,6,6,1\n");
	write_text(dir, "refused.csv", "rule,algo,share_lo,share_hi,keys\n2/1s,gcra,0,0,2\n2/1s,gcra,0.1,0.5,1\n");
	write_text(dir, "traffic.csv", "t_ns,requests,k2\n0,20,4\n1000000000,10,2\n");
	int rc = sim_study_read(&s, dir, msg, sizeof(msg));
	if (rc)
		fail_msg("read: %s", msg);
	assert_int_equal(s.nrules, 2);
	assert_int_equal(s.nnames, 2);
	assert_string_equal(s.names[1], "peer_x");
	assert_int_equal(s.columns, ((1u << 9) - 1) | 1u << SIM_COL_NS_PER_CHECK | 1u << SIM_COL_BYTES_PER_KEY);
	const struct sim_study_row *g = &s.rows[0], *p = &s.rows[1];
	assert_false(g->absent);
	assert_true(s.rows[2].absent); /* 5/1s, gcra */
	assert_int_equal(g->false_rejects, 0);
	assert_string_equal(g->text[SIM_TEXT_NS], "18.25");
	assert_string_equal(g->text[SIM_TEXT_RATIO], "");
	assert_int_equal(g->state_bytes, 8); /* bytes_per_key 8, no heap_bytes column */
	assert_int_equal(p->state_bytes, -1); /* a decider's memory: not measured */
	assert_true(g->has_other && g->other_requests == 4 && g->other_admitted == 2 && g->other_within == 1);
	assert_false(p->has_other);
	assert_int_equal(g->refused_listed, 1u << 0 | 1u << 3);
	assert_int_equal(g->refused[3], 1);
	assert_int_equal(p->refused_listed, 0);
	assert_int_equal(s.ntop, 2);
	assert_string_equal(s.top[0].name, "k1");
	assert_true(s.top[0].listed[0] && !s.top[0].listed[1] && !s.top[0].listed[3]);
	assert_true(s.top[1].listed[3] && s.top[1].within[1] == 1 && s.top[0].within[0] == 0);
	assert_int_equal(s.ntraffic, 1);
	assert_int_equal(s.traffic[0], 1);
	assert_int_equal(s.top[1].per_bin[1], 2);
	assert_false(s.has_limits);
	assert_int_equal(s.target_keys, 0);
	assert_null(s.other);
	assert_int_equal(sim_study_whole(&s, dir, msg, sizeof(msg)), -1);
	assert_non_null(strstr(msg, "lacks some of a study's columns"));
	sim_study_free(&s);
}

/* ---- files that contradict each other: refused with DIR/FILE:LINE */

struct bad_case {
	const char *file, *text, *want; /* want: after "DIR/" */
};

static void test_refused(void **state)
{
	(void)state;
	static const char study_ok[] =
		"rule,algo,requests,admitted,good_keys,good_keys_hurt,good_requests_rejected,excess_requests,"
		"excess_admitted,ns_per_check,bytes_per_key\n2/1s,gcra,30,20,2,1,3,10,1,5,8\n";
	static const char clients_ok[] = "rule,algo,key,requests,admitted,within_rule\n2/1s,gcra,k,5,5,1\n";
	static const char refused_ok[] = "rule,algo,share_lo,share_hi,keys\n2/1s,gcra,0,0,1\n";
	static const char traffic_ok[] = "t_ns,requests\n0,30\n";
	const struct bad_case cases[] = {
		{ "refused.csv", "rule,algo,share_lo,share_hi,keys\n2/1s,gcra,0,0.2,1\n",
		  "refused.csv:2: share_lo 0 and share_hi 0.2 are not a bucket of a study" },
		{ "refused.csv", "rule,algo,share_lo,share_hi,keys\n2/1s,gcra,0,0,1\n2/1s,gcra,0,0,2\n",
		  "refused.csv:3: the bucket 0, 0 given twice for rule and algo" },
		{ "clients.csv", "rule,algo,key,requests,admitted,within_rule\n2/1s,gcra,k,5,5,1\n2/1s,gcra,k,5,4,1\n",
		  "clients.csv:3: key 'k' given twice for rule and algo" },
		{ "study.csv",
		  "rule,algo,requests,admitted,good_keys,good_keys_hurt,good_requests_rejected,excess_requests,"
		  "excess_admitted,ns_per_check,bytes_per_key\n2/1s,gcra,30,20,2,1,3,10,1,5,8\n2/1s,sliding_log,30,20,2,"
		  "1,3,10,1,5,8\n",
		  NULL },
		{ "clients.csv",
		  "rule,algo,key,requests,admitted,within_rule\n2/1s,gcra,k,5,5,1\n2/1s,sliding_log,k,6,5,1\n",
		  "clients.csv:3: key 'k': requests 6, where another row of it gives 5" },
		{ "clients.csv",
		  "rule,algo,key,requests,admitted,within_rule\n2/1s,gcra,k,5,5,1\n2/1s,sliding_log,k,5,5,no\n",
		  "clients.csv:3: key 'k': within_rule 0, where another row of its rule gives 1" },
		{ "placement.csv",
		  "rule,algo,good_keys,good_keys_hurt,false_rejects,excess_requests,excess_admitted,requests,admitted\n"
		  "2/1s,fixed_window,1,0,0,0,0,1,1\n",
		  "placement.csv:2: rule '2/1s' and algo 'fixed_window' are not a row of study.csv" },
		{ "limits.csv", "window,limit,keys,keys_refused,requests,requests_refused\n1s,2,3,1,30,4\n1m,1,3,1,30,4\n"
				"1s,3,3,0,30,0\n",
		  "limits.csv:4: window 1s again after other windows' rows" },
		{ "meta.csv", "name,value\ntrace,t\nformat,trace\nrequests,1\nkeys,1\nspan_ns,0\nresolution_ns,1\n"
			      "spread,no\ncost,no\ntraffic_bin_ns,1000000000\nwindows,\"1s,soon\"\n",
		  "meta.csv:11: windows '1s,soon' is not a list of durations" },
		{ "study.csv",
		  "rule,algo,requests,admitted,good_keys,good_keys_hurt,good_requests_rejected,excess_requests,"
		  "excess_admitted,ns_per_check,bytes_per_key\n2/1s,gcra,9223372036854775808,20,2,1,3,10,1,5,8\n",
		  "study.csv:2: requests '9223372036854775808' is not an integer (digits only, at most 2^63 - 1)" },
		/* the boundaries: 2^63 - 1 read, one more refused above; a decimal cell of 31 bytes read, 32 refused */
		{ "study.csv",
		  "rule,algo,requests,admitted,good_keys,good_keys_hurt,good_requests_rejected,excess_requests,"
		  "excess_admitted,ns_per_check,bytes_per_key\n2/1s,gcra,9223372036854775807,20,2,1,3,10,1,"
		  "1.00000000000000000000000000000,8\n",
		  "" },
		{ "study.csv",
		  "rule,algo,requests,admitted,good_keys,good_keys_hurt,good_requests_rejected,excess_requests,"
		  "excess_admitted,ns_per_check,bytes_per_key\n2/1s,gcra,30,20,2,1,3,10,1,"
		  "1.000000000000000000000000000000,8\n",
		  "study.csv:2: ns_per_check '1.000000000000000000000000000000' is not a figure of a study (too long)" },
		{ "traffic.csv", NULL, "traffic.csv:2002: more than 2000 bins" },
		{ "traffic.csv", NULL, "" },
	};
	/* SIM_STUDY_TRAFFIC_BINS bins read, one more refused */
	static char bins[2][64 * 1024];
	for (int k = 0; k < 2; k++) {
		size_t n = (size_t)snprintf(bins[k], sizeof(bins[k]), "t_ns,requests\n");
		for (int b = 0; b < SIM_STUDY_TRAFFIC_BINS + 1 - k; b++)
			n += (size_t)snprintf(bins[k] + n, sizeof(bins[k]) - n, "%d000000000,1\n", b);
	}
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char dir[256], name[32], msg[1024], want[512];
		struct sim_study s;
		snprintf(name, sizeof(name), "bad%zu", i);
		fresh_dir(dir, sizeof(dir), name);
		write_text(dir, "meta.csv", meta_min);
		write_text(dir, "study.csv", study_ok);
		write_text(dir, "clients.csv", clients_ok);
		write_text(dir, "refused.csv", refused_ok);
		write_text(dir, "traffic.csv", traffic_ok);
		if (i == 4 || i == 5) /* the key's second row needs sliding_log's row */
			write_text(dir, "study.csv", cases[3].text);
		if (!cases[i].want) /* a valid study.csv for the next case */
			continue;
		const char *text = cases[i].text ? cases[i].text : bins[*cases[i].want ? 0 : 1];
		write_text(dir, cases[i].file, text);
		int rc = sim_study_read(&s, dir, msg, sizeof(msg));
		if (!*cases[i].want) { /* at the boundary: read */
			if (rc)
				fail_msg("case %zu: refused: %s", i, msg);
			sim_study_free(&s);
			continue;
		}
		snprintf(want, sizeof(want), "%s/%s", dir, cases[i].want);
		if (rc != SIM_CSV_BAD || strncmp(msg, want, strlen(want)) != 0)
			fail_msg("case %zu: status %d, message:\n%s\nwanted status 2 and:\n%s", i, rc, msg, want);
	}
}

/* sim_study_whole names what a merge lacks: a row, a key of a row, a bucket */
static void test_not_whole(void **state)
{
	(void)state;
	uint64_t seed = t_seed_from_env(42), rng = seed;
	struct rt f;
	struct sim_study s, back;
	char dir[256], msg[1024];
	rt_make(&f, &rng);
	rt_study(&f, &s, &rng);
	fresh_dir(dir, sizeof(dir), "whole");
	assert_int_equal(sim_study_write(&s, dir, stderr), 0);
	static const char *const lack[] = { "(other) row in clients.csv", "refused.csv rows", "is not listed for rule" };
	for (int k = 0; k < 3; k++) {
		assert_int_equal(sim_study_read(&back, dir, msg, sizeof(msg)), 0);
		if (k == 0)
			back.rows[1].has_other = false;
		else if (k == 1)
			back.rows[1].refused_listed &= 0x0f;
		else
			back.top[0].listed[1] = 0;
		if (sim_study_whole(&back, dir, msg, sizeof(msg)) != -1 || !strstr(msg, lack[k]))
			fail_msg("seed %llu, case %d: %s", (unsigned long long)seed, k, msg);
		sim_study_free(&back);
	}
	sim_study_free(&s);
	rt_free(&f);
}

static int setup(void **state)
{
	(void)state;
	snprintf(tmp_root, sizeof(tmp_root), "/tmp/test_study_read.XXXXXX");
	return mkdtemp(tmp_root) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	if (getenv("KEEP_TMP"))
		return 0;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp_root);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_older_study),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_not_whole),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
