/*
 * test_report_layer.c - the reports' shared pieces (sim/report/report_*.h):
 * the one CSV reader against an obviously-correct RFC 4180 writer on seeded
 * random tables (every byte a cell can hold, quoted where it must be; the
 * seed printed on failure, RL_SEED replays it), its refusals with
 * FILE:LINE under the study's strict rules and the bench report's lenient
 * ones; the statistics (the one median, sim/base/stat.h, against a slow
 * counting one on seeded vectors; range, CV against a direct computation)
 * and their formats; the per-algorithm facts table (report_algos.h): a row
 * for every algorithm of the library, each fact the one the reports need.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "csv.h"
#include "ratelab/algo.h"
#include "ratelab/limit.h"
#include "report_algos.h"
#include "report_stat.h"
#include "report_text.h"
#include "stat.h"
#include "test_rng.h"
#include "verdicts.h"

static const struct sim_csv_rules strict = { false, false, true, false };

/* Parses text under r into t (a copy, as the reader splits in place); err's text into msg. */
static int parse(struct sim_csv *t, const char *text, const struct sim_csv_rules *r, char *msg, size_t cap)
{
	size_t len = strlen(text);
	*t = (struct sim_csv){0};
	t->path = strdup("T.csv");
	t->data = malloc(len + 1);
	assert_non_null(t->path);
	assert_non_null(t->data);
	memcpy(t->data, text, len + 1);
	char *buf = NULL;
	size_t n = 0;
	FILE *err = open_memstream(&buf, &n);
	assert_non_null(err);
	int rc = sim_csv_parse(t, len, r, "who: ", err);
	fclose(err);
	snprintf(msg, cap, "%s", buf ? buf : "");
	free(buf);
	return rc;
}

static void csv_quoted_fields_whole(void **state)
{
	(void)state;
	struct sim_csv t;
	char msg[512];
	/* a quoted field keeps its commas, quotes and line ends (the C++ reader cut it at the comma) */
	assert_int_equal(parse(&t, "a,b\r\n\"x, y\",\"say \"\"hi\"\"\nthere\"\n3,\n", &strict, msg, sizeof(msg)), SIM_CSV_OK);
	assert_int_equal(t.ncols, 2);
	assert_int_equal(t.nrows, 2);
	assert_string_equal(t.row[0][0], "x, y");
	assert_string_equal(t.row[0][1], "say \"hi\"\nthere");
	assert_string_equal(t.row[1][0], "3");
	assert_string_equal(t.row[1][1], "");
	assert_int_equal(t.line[0], 2);
	assert_int_equal(t.line[1], 4); /* after a field that spans two lines */
	assert_string_equal(sim_csv_at(&t, 0, "b"), "say \"hi\"\nthere");
	assert_string_equal(sim_csv_at(&t, 0, "nope"), "");
	assert_true(isnan(sim_csv_num(&t, 1, "b")));
	assert_true(sim_csv_num(&t, 1, "a") == 3);
	sim_csv_free(&t);
}

static void csv_refusals(void **state)
{
	(void)state;
	static const struct {
		const char *text, *msg;
		bool lenient;
	} cases[] = {
		{ "a,b\n1,\"2\n", "who: T.csv:2: a quoted field is not closed\n", false },
		{ "a,b\n1,\"2\"x\n", "who: T.csv:2: text after a closing '\"' (a quoted field ends at a comma or the line's end)\n", false },
		{ "a,b\n1,2\"\n", "who: T.csv:2: a '\"' inside an unquoted field\n", false },
		{ "a,b\n1,2\r3\n", "who: T.csv:2: a CR byte not before LF in an unquoted field\n", false },
		{ "a,a\n1,2\n", "who: T.csv:1: column 'a' given twice\n", false },
		{ "a,b\n1,2,3\n", "who: T.csv:2: 3 fields, the header has 2\n", false },
		{ "", "who: T.csv:1: empty: no header line\n", false },
		{ "# c\na,b\n\n1\n", "who: T.csv:4: 1 field, the header has 2\n", true },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct sim_csv t;
		char msg[512];
		int rc = parse(&t, cases[i].text, cases[i].lenient ? &sim_csv_lenient : &strict, msg, sizeof(msg));
		if (rc != SIM_CSV_BAD || strcmp(msg, cases[i].msg) != 0)
			fail_msg("case %zu: rc %d, message '%s', want '%s'", i, rc, msg, cases[i].msg);
		assert_int_equal(t.nrows, 0); /* nothing half read */
		sim_csv_free(&t);
	}
	/* lenient: comments before the header and empty lines skipped, lines counted */
	struct sim_csv t;
	char msg[512];
	assert_int_equal(parse(&t, "# seed=1\n#x\na,b\n\n1,2\n\n3,4", &sim_csv_lenient, msg, sizeof(msg)), SIM_CSV_OK);
	assert_int_equal(t.nrows, 2);
	assert_int_equal(t.line[0], 5);
	assert_int_equal(t.line[1], 7);
	assert_string_equal(t.row[1][1], "4");
	sim_csv_free(&t);
}

/* The obviously-correct writer: a cell quoted when it holds , " CR LF or is empty-looking-ambiguous. */
static void write_cell(struct sr_buf *b, const char *c)
{
	if (!strpbrk(c, ",\"\r\n")) {
		sr_puts(b, c);
		return;
	}
	sr_puts(b, "\"");
	for (; *c; c++)
		sr_put(b, *c == '"' ? "\"\"" : c, *c == '"' ? 2 : 1);
	sr_puts(b, "\"");
}

static void csv_random_round_trip(void **state)
{
	(void)state;
	static const char alphabet[] = "ab ,\"\r\n;x9\t#";
	uint64_t seed = t_seed_from_env(20261205), s = seed;
	for (int round = 0; round < 300; round++) {
		size_t ncols = 1 + t_splitmix(&s) % 5, nrows = t_splitmix(&s) % 8;
		char cell[9][5][9];
		struct sr_buf b = {0};
		for (size_t r = 0; r <= nrows; r++) {
			for (size_t c = 0; c < ncols; c++) {
				size_t len = t_splitmix(&s) % 8;
				for (size_t k = 0; k < len; k++)
					cell[r][c][k] = alphabet[t_splitmix(&s) % (sizeof(alphabet) - 1)];
				cell[r][c][len] = '\0';
				if (r == 0) /* header names distinct, and a one-column empty row is an empty line */
					snprintf(cell[r][c], sizeof(cell[r][c]), "h%zu", c);
				if (r > 0 && ncols == 1 && !len)
					snprintf(cell[r][c], sizeof(cell[r][c]), "e");
				if (c)
					sr_puts(&b, ",");
				write_cell(&b, cell[r][c]);
			}
			sr_puts(&b, t_splitmix(&s) % 2 ? "\r\n" : "\n");
		}
		struct sim_csv t;
		char msg[512];
		int rc = parse(&t, b.p, &strict, msg, sizeof(msg));
		if (rc != SIM_CSV_OK)
			fail_msg("seed %llu round %d: rc %d: %s", (unsigned long long)seed, round, rc, msg);
		if (t.ncols != ncols || t.nrows != nrows)
			fail_msg("seed %llu round %d: %zu x %zu, want %zu x %zu", (unsigned long long)seed, round, t.nrows,
				 t.ncols, nrows, ncols);
		for (size_t r = 0; r < nrows; r++)
			for (size_t c = 0; c < ncols; c++)
				if (strcmp(t.row[r][c], cell[r + 1][c]) != 0)
					fail_msg("seed %llu round %d: cell %zu,%zu '%s', want '%s'", (unsigned long long)seed,
						 round, r, c, t.row[r][c], cell[r + 1][c]);
		sim_csv_free(&t);
		sr_buf_free(&b);
	}
}

static void stats(void **state)
{
	(void)state;
	double v[] = { 4, NAN, 1, 3, 2 };
	struct rp_stat s = rp_stat_of(v, 5);
	assert_int_equal(s.n, 4);
	assert_true(s.median == 2.5 && s.min == 1 && s.max == 4);
	/* sample stddev of 1..4 is sqrt(5/3); mean 2.5 */
	assert_true(fabs(s.cv - sqrt(5.0 / 3) / 2.5) < 1e-15);
	assert_string_equal(rp_fmt_stat(s, 2), "2.50 [1.00\xe2\x80\x93" "4.00] (CV 52%)");
	double one[] = { 7 };
	s = rp_stat_of(one, 1);
	assert_true(s.n == 1 && s.median == 7 && isnan(s.cv));
	assert_string_equal(rp_fmt_stat(s, 1), "7.0");
	double same[] = { 1.001, 1.004 }; /* a range that is one figure at the precision shown */
	assert_string_equal(rp_fmt_stat(rp_stat_of(same, 2), 2), "1.00");
	assert_string_equal(rp_fmt_stat(rp_stat_none(), 2), "-");
	assert_string_equal(rp_fmt(NAN, 3), "-");
	assert_string_equal(rp_gnum(NAN), "NaN");
	assert_string_equal(rp_gnum(0.1234567), "0.123457");
	double odd[] = { 5, 1, 3 };
	assert_true(sim_median(odd, 3) == 3);
}

/* The slow obvious median of v[0..n) without NaNs: the value with as many below as above (of the
 * middle two, their mean), found by counting; NaN when there is no value. */
static double slow_median(const double *v, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		k += !isnan(v[i]);
	if (k == 0)
		return NAN;
	double lo = NAN, hi = NAN; /* the values of rank (k - 1) / 2 and k / 2, counted from 0 */
	for (size_t i = 0; i < n; i++) {
		if (isnan(v[i]))
			continue;
		size_t below = 0, same = 0;
		for (size_t j = 0; j < n; j++)
			if (!isnan(v[j])) {
				below += v[j] < v[i];
				same += v[j] == v[i];
			}
		if (below <= (k - 1) / 2 && (k - 1) / 2 < below + same)
			lo = v[i];
		if (below <= k / 2 && k / 2 < below + same)
			hi = v[i];
	}
	return k % 2 ? lo : (lo + hi) / 2;
}

/* The one median (sim/base/stat.h) of every command, against the slow one on seeded vectors with
 * NaNs, ties, an empty and an all-NaN one; rp_stat_of's median is the same. */
static void median_against_slow(void **state)
{
	(void)state;
	assert_true(isnan(sim_median(NULL, 0)));
	double nans[] = { NAN, NAN };
	assert_true(isnan(sim_median(nans, 2)));
	assert_true(isnan(sim_stat_median_sorted(NULL, 0)));
	double even[] = { 4, 1, 3, 2 };
	assert_true(sim_median(even, 4) == 2.5);
	uint64_t seed = t_seed_from_env(20261205), s = seed;
	for (int round = 0; round < 2000; round++) {
		double v[12], w[12];
		size_t n = t_splitmix(&s) % 13;
		for (size_t i = 0; i < n; i++) {
			uint64_t r = t_splitmix(&s);
			v[i] = r % 5 == 0 ? NAN : (double)(int64_t)(r % 9) - 4 + (r & 1024 ? 0.5 : 0);
			w[i] = v[i];
		}
		double want = slow_median(v, n), got = sim_median(w, n);
		memcpy(w, v, n * sizeof(*v));
		struct rp_stat st = rp_stat_of(w, n);
		if (!(got == want || (isnan(got) && isnan(want))) || !(st.median == want || (isnan(st.median) && isnan(want))))
			fail_msg("seed %llu round %d: median %g, rp_stat_of %g, want %g", (unsigned long long)seed, round, got,
				 st.median, want);
	}
}

/* A table of rows checked as rp_algo_rows_check does; its message for a failure. */
static int check_rows(const struct rp_algo_row *t, size_t n, char *msg, size_t cap)
{
	msg[0] = '\0';
	return rp_algo_rows_check(t, n, msg, cap);
}

/* The facts table (report_algos.h): a row for every algorithm of the library, and a planted fault of
 * each kind (a row missing, doubled, foreign; no exact row, two) refused with its name. */
static void algo_rows_cover_the_library(void **state)
{
	(void)state;
	size_t n, count;
	const struct rp_algo_row *rows = rp_algo_rows(&n);
	const struct rl_algo *const *all = rl_algo_all(&count);
	char msg[512], want[256];
	struct rp_algo_row t[16];
	assert_true(n + 1 <= sizeof(t) / sizeof(t[0]));
	if (check_rows(rows, n, msg, sizeof(msg)) != 0)
		fail_msg("the table: %s", msg);
	assert_int_equal(n, count);
	for (size_t i = 0; i < count; i++) {
		/* row i missing */
		size_t m = 0;
		for (size_t k = 0; k < n; k++)
			if (strcmp(rows[k].name, all[i]->name) != 0)
				t[m++] = rows[k];
		assert_int_equal(m, n - 1);
		assert_int_equal(check_rows(t, m, msg, sizeof(msg)), -1);
		snprintf(want, sizeof(want), "no row for algorithm '%s'", all[i]->name);
		assert_string_equal(msg, want);
		/* row i twice */
		memcpy(t, rows, n * sizeof(*rows));
		t[n] = rows[i];
		t[n].exact = false;
		assert_int_equal(check_rows(t, n + 1, msg, sizeof(msg)), -1);
		snprintf(want, sizeof(want), "2 rows for '%s'", rows[i].name);
		assert_string_equal(msg, want);
	}
	memcpy(t, rows, n * sizeof(*rows));
	t[n] = (struct rp_algo_row){ "peer_go_x_time_rate", false, false };
	assert_int_equal(check_rows(t, n + 1, msg, sizeof(msg)), -1);
	snprintf(want, sizeof(want), "row %zu: 'peer_go_x_time_rate' is no algorithm of the library (%s)", n,
		 rl_algo_names());
	assert_string_equal(msg, want);
	for (size_t k = 0; k < n; k++)
		t[k].exact = false;
	assert_int_equal(check_rows(t, n, msg, sizeof(msg)), -1);
	assert_string_equal(msg, "no exact row: the reports' reference is missing");
	for (size_t k = 0; k < n; k++)
		t[k].exact = k < 2;
	assert_int_equal(check_rows(t, n, msg, sizeof(msg)), -1);
	snprintf(want, sizeof(want), "2 exact rows ('%s', '%s'): one reference", rows[0].name, rows[1].name);
	assert_string_equal(msg, want);
}

/* Each fact is the one the reports need: the descriptor's where it has it; exact for the algorithm whose
 * bound in any window is N (the simulator's reference, sliding_log); lock-free where the library's own
 * rl_limit route is (verdicts.h); and a peer's or decider's name has none. */
static void algo_facts_are_the_reports(void **state)
{
	(void)state;
	size_t count;
	const struct rl_algo *const *all = rl_algo_all(&count);
	static const int64_t limits[] = { 2, 20, 1000 };
	for (size_t i = 0; i < count; i++) {
		const struct rl_algo *a = all[i];
		struct rp_algo f = rp_algo_of(a->name);
		assert_true(f.known);
		if (f.owns_heap != (a->release != NULL) || f.uses_burst != a->uses_burst ||
		    f.lock_free_limit != rl__lock_free_route(a))
			fail_msg("%s: owns_heap %d uses_burst %d lock_free_limit %d, the library's %d %d %d", a->name,
				 f.owns_heap, f.uses_burst, f.lock_free_limit, a->release != NULL, a->uses_burst,
				 rl__lock_free_route(a));
		for (size_t l = 0; l < sizeof(limits) / sizeof(*limits); l++) {
			struct rl_limiter lim;
			struct rl_rule rule = { limits[l], RL_S(1), limits[l] }; /* B = N */
			char why[256];
			if (rl_limiter_init(&lim, a, &rule, why, sizeof(why)) != RL_OK)
				fail_msg("%s: %s", a->name, why);
			int64_t most = rl_limiter_max_admitted(&lim, RL_S(1) - 1); /* a window (t - W, t] */
			if (f.exact != (most == limits[l]))
				fail_msg("%s: exact %d, yet at most %lld admitted in a window of N = %lld", a->name, f.exact,
					 (long long)most, (long long)limits[l]);
		}
	}
	/* the reports word the reference as the simulator's (sim_run.c, study.c: rl_sliding_log_algo) */
	assert_string_equal(rp_algo_exact(), rl_sliding_log_algo.name);
	assert_true(rp_algo_of(rl_sliding_log_algo.name).exact);
	const char *strangers[] = { "peer_go_x_time_rate", "", "Gcra", "gcra ", NULL };
	for (size_t i = 0; i < sizeof(strangers) / sizeof(*strangers); i++) {
		struct rp_algo f = rp_algo_of(strangers[i]);
		if (f.known || f.owns_heap || f.uses_burst || f.exact || f.lock_free_limit)
			fail_msg("'%s' has a fact", strangers[i] ? strangers[i] : "(null)");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(csv_quoted_fields_whole),
		cmocka_unit_test(csv_refusals),
		cmocka_unit_test(csv_random_round_trip),
		cmocka_unit_test(stats),
		cmocka_unit_test(median_against_slow),
		cmocka_unit_test(algo_rows_cover_the_library),
		cmocka_unit_test(algo_facts_are_the_reports),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
