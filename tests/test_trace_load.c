/*
 * test_trace_load.c - the one trace loader (sim_import, import.h) under its
 * two policies: the simulator's (sim_trace_load: file order, the first bad
 * line an error, the trace as written) and import's (sorted stably by time,
 * bad lines skipped and counted). On seeded traces (headers with an
 * origin, comments, blank and CRLF lines, lines with and without COST,
 * times out of order, bad lines at random) both are checked against one
 * slow model that reads the lines with plain sscanf; the seed is printed on
 * failure (RL_SEED replays it). Then the boundaries: a settle line, a NUL
 * byte in a comment, an empty file, a stdio stream with no descriptor.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "import.h"
#include "ratelab/status.h"
#include "test_rng.h"
#include "trace_load.h"

enum { MAXN = 64 };

/* The model's request: the absolute time, the key's text, COST (0: none given). */
struct req {
	int64_t t;
	char key[8];
	uint32_t cost;
	long line;
};

struct model {
	struct req r[MAXN];
	size_t n;
	long first_bad;     /* the first bad line's number, 0 if none */
	size_t nlines, nbad; /* lines that should hold a request, of them bad */
	int64_t first_origin;
};

/* Writes a random trace into text (its model into m); len returned. */
static size_t make(uint64_t *s, char *text, size_t cap, struct model *m)
{
	size_t len = 0, lines = 4 + t_splitmix(s) % 20;
	int64_t origin = 0;
	long lineno = 0;

	*m = (struct model){ 0 };
	for (size_t i = 0; i < lines; i++) {
		char buf[96];
		int kind = (int)(t_splitmix(s) % 12);
		lineno++;
		if (kind == 0) { /* a header: the origin of the lines after it */
			origin = (int64_t)(t_splitmix(s) % 3) * 1000000000;
			snprintf(buf, sizeof(buf), "# ratelab trace: resolution_ns=1 spread=no origin_ns=%lld",
				 (long long)origin);
		} else if (kind == 1) {
			snprintf(buf, sizeof(buf), "# a comment");
		} else if (kind == 2) {
			snprintf(buf, sizeof(buf), "  \t");
		} else if (kind == 3) { /* bad: a time that is no number, or a settle line */
			snprintf(buf, sizeof(buf), t_splitmix(s) % 2 ? "x%d k" : "5 k 1 1 %d", (int)(t_splitmix(s) % 5));
			m->nlines++;
			m->nbad++;
			if (!m->first_bad)
				m->first_bad = lineno;
		} else {
			int64_t t = (int64_t)(t_splitmix(s) % 50);
			uint32_t cost = t_splitmix(s) % 3 ? 0 : (uint32_t)(1 + t_splitmix(s) % 4);
			char key[8];
			snprintf(key, sizeof(key), "k%d", (int)(t_splitmix(s) % 5));
			if (cost)
				snprintf(buf, sizeof(buf), "%lld %s %u", (long long)t, key, cost);
			else
				snprintf(buf, sizeof(buf), "%lld\t%s", (long long)t, key);
			m->nlines++;
			if (m->n == 0)
				m->first_origin = origin;
			m->r[m->n++] = (struct req){ origin + t, "", cost, lineno };
			snprintf(m->r[m->n - 1].key, sizeof(m->r[0].key), "%s", key);
		}
		len += (size_t)snprintf(text + len, cap - len, "%s%s", buf, t_splitmix(s) % 2 ? "\r\n" : "\n");
	}
	return len;
}

/* text into a fresh file; its path in path. */
static void write_file(char *path, const char *text, size_t len)
{
	snprintf(path, 64, "/tmp/test_trace_load_XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	assert_int_equal(close(fd), 0);
}

static void fail_seed(uint64_t seed, int round, const char *what, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, what);
	vsnprintf(msg, sizeof(msg), what, ap);
	va_end(ap);
	fail_msg("seed %llu round %d: %s", (unsigned long long)seed, round, msg);
}

/* t's request i is the model's request j (time relative to origin, as the policy puts it). */
static void same(uint64_t seed, int round, const struct sim_trace *t, size_t i, const struct req *q, int64_t origin,
		 bool cost_as_written)
{
	uint32_t want_cost = cost_as_written ? q->cost : q->cost ? q->cost : 1;
	if (t->t_ns[i] != q->t - origin || strcmp(t->key_name[t->key[i]], q->key) != 0 || t->cost[i] != want_cost)
		fail_seed(seed, round, "request %zu: %lld %s %u, want %lld %s %u (line %ld)", i, (long long)t->t_ns[i],
			  t->key_name[t->key[i]], t->cost[i], (long long)(q->t - origin), q->key, want_cost, q->line);
}

static void both_policies_against_model(void **u)
{
	(void)u;
	uint64_t seed = t_seed_from_env(20261205), s = seed;
	static char text[MAXN * 100];

	for (int round = 0; round < 400; round++) {
		struct model m;
		char path[64], msg[512];
		size_t len = make(&s, text, sizeof(text), &m);
		write_file(path, text, len);

		/* the simulator's policy: file order, stop at the first bad line, as written */
		FILE *in = fopen(path, "r");
		struct sim_trace t;
		assert_non_null(in);
		int rc = sim_trace_load(in, path, &t, msg, sizeof(msg));
		fclose(in);
		if (m.first_bad) {
			char want[96];
			snprintf(want, sizeof(want), "%s:%ld: '", path, m.first_bad);
			if (rc != RL_EINVAL || strncmp(msg, want, strlen(want)) != 0)
				fail_seed(seed, round, "rc %d '%s', want RL_EINVAL '%s...'", rc, msg, want);
			assert_int_equal(t.n, 0);
		} else {
			if (rc != RL_OK || t.n != m.n || !t.absolute)
				fail_seed(seed, round, "rc %d '%s', %zu requests, want %zu", rc, msg, t.n, m.n);
			for (size_t i = 0; i < m.n; i++)
				same(seed, round, &t, i, &m.r[i], 0, true);
			if (m.n && t.origin_ns != m.first_origin)
				fail_seed(seed, round, "origin %lld, want %lld", (long long)t.origin_ns,
					  (long long)m.first_origin);
		}
		sim_trace_free(&t);

		/* import's: sorted stably by time, relative to the first, bad lines counted */
		struct sim_import_stats st;
		struct sim_import_opts o = { .format = "trace", .stats = &st };
		const char *paths[1] = { path };
		FILE *err = fopen("/dev/null", "w");
		assert_non_null(err);
		int status = sim_import(&o, paths, 1, &t, err);
		fclose(err);
		if (m.n == 0) {
			if (status != 2)
				fail_seed(seed, round, "import of no request: status %d", status);
		} else {
			struct req sorted[MAXN];
			for (size_t i = 0; i < m.n; i++) { /* insertion: stable, by time then by line */
				size_t j = i;
				for (; j > 0 && sorted[j - 1].t > m.r[i].t; j--)
					sorted[j] = sorted[j - 1];
				sorted[j] = m.r[i];
			}
			if (status != 0 || t.n != m.n || st.lines != m.nlines || st.skipped != m.nbad)
				fail_seed(seed, round, "import: status %d, %zu requests of %zu lines, %zu skipped; want %zu, "
					  "%zu, %zu", status, t.n, st.lines, st.skipped, m.n, m.nlines, m.nbad);
			for (size_t i = 0; i < m.n; i++)
				same(seed, round, &t, i, &sorted[i], sorted[0].t, false);
		}
		sim_trace_free(&t);
		unlink(path);
	}
}

/* sim_trace_load of text: its status, t filled. */
static int load_text(const char *text, size_t len, struct sim_trace *t, char *msg, size_t cap)
{
	FILE *in = fmemopen((void *)text, len, "r"); /* a stream with no descriptor */
	assert_non_null(in);
	int rc = sim_trace_load(in, "m.trace", t, msg, cap);
	fclose(in);
	return rc;
}

static void boundaries(void **u)
{
	(void)u;
	struct sim_trace t;
	char msg[512];

	/* empty, or comments only: no request, no error */
	assert_int_equal(load_text("", 0, &t, msg, sizeof(msg)), RL_OK);
	assert_int_equal(t.n, 0);
	sim_trace_free(&t);
	assert_int_equal(load_text("# x\n\n", 5, &t, msg, sizeof(msg)), RL_OK);
	assert_int_equal(t.n, 0);
	sim_trace_free(&t);

	/* a settle line is read (trace_load.h): the lines that settle nothing get DONE_T = T */
	assert_int_equal(load_text("1 a\n2 a 1 4 3\n", 14, &t, msg, sizeof(msg)), RL_OK);
	assert_int_equal(t.n, 2);
	assert_non_null(t.actual);
	assert_non_null(t.done_ns);
	assert_int_equal(t.actual[1], 4);
	assert_int_equal(t.done_ns[1], 3);
	assert_int_equal(t.done_ns[0], 1);
	sim_trace_free(&t);
	/* a line of 4 tokens is worded as every command words it (trace_line.h) */
	assert_int_equal(load_text("1 a\n2 a 1 1\n", 12, &t, msg, sizeof(msg)), RL_EINVAL);
	assert_string_equal(msg, "m.trace:2: '2 a 1 1': expected 'T KEY [COST]' or 'T KEY COST ACTUAL DONE_T'");

	/* a NUL byte in a comment is refused, as on any line (lines.h), not read short */
	static const char nul[] = "1 a\n# ratelab trace: origin_ns=5\0x\n2 b\n";
	assert_int_equal(load_text(nul, sizeof(nul) - 1, &t, msg, sizeof(msg)), RL_EINVAL);
	assert_string_equal(msg, "m.trace:2: holds a NUL byte");
	{ /* import counts it as a bad line of reason nul (it skipped it as a comment before) */
		char path[64];
		struct sim_import_stats st;
		struct sim_import_opts o = { .format = "trace", .stats = &st };
		write_file(path, nul, sizeof(nul) - 1);
		const char *paths[1] = { path };
		FILE *err = fopen("/dev/null", "w");
		assert_non_null(err);
		assert_int_equal(sim_import(&o, paths, 1, &t, err), 0);
		fclose(err);
		unlink(path);
		assert_int_equal(t.n, 2);
		assert_int_equal(st.lines, 3);
		assert_int_equal(st.skip[SIM_SKIP_NUL], 1);
		assert_int_equal(t.t_ns[1], 1); /* 2 - 1: no origin_ns=5 read from the cut comment */
		sim_trace_free(&t);
	}

	/* origin: a time T past RL_TIME_MAX_NS - origin_ns is bad; at it, kept */
	char text[160];
	int n = snprintf(text, sizeof(text), "# ratelab trace: origin_ns=10\n%lld a\n", (long long)RL_TIME_MAX_NS - 10);
	assert_int_equal(load_text(text, (size_t)n, &t, msg, sizeof(msg)), RL_OK);
	assert_int_equal(t.t_ns[0], RL_TIME_MAX_NS);
	assert_int_equal(t.origin_ns, 10);
	assert_int_equal(t.cost[0], 0);
	assert_false(t.cost_read);
	sim_trace_free(&t);
	n = snprintf(text, sizeof(text), "# ratelab trace: origin_ns=10\n%lld a\n", (long long)RL_TIME_MAX_NS - 9);
	assert_int_equal(load_text(text, (size_t)n, &t, msg, sizeof(msg)), RL_EINVAL);
	assert_non_null(strstr(msg, "m.trace:2: "));
	assert_non_null(strstr(msg, SIM_TRACE_PAST_ORIGIN));

	/* COST: 4294967295 kept, one more a bad line (32 bits a request) */
	assert_int_equal(load_text("1 a 4294967295\n", 15, &t, msg, sizeof(msg)), RL_OK);
	assert_int_equal(t.cost[0], 4294967295u);
	assert_true(t.cost_read && t.has_cost);
	sim_trace_free(&t);
	assert_int_equal(load_text("1 a 4294967296\n", 15, &t, msg, sizeof(msg)), RL_EINVAL);
	assert_string_equal(msg, "m.trace:1: '1 a 4294967296': cost '4294967296' is above 4294967295, one request's "
			    "bound in a trace");

	/* file order: a time earlier than the line before is kept where it is */
	assert_int_equal(load_text("5 a\n3 b 2\n", 10, &t, msg, sizeof(msg)), RL_OK);
	assert_int_equal(t.n, 2);
	assert_int_equal(t.t_ns[0], 5);
	assert_int_equal(t.t_ns[1], 3);
	assert_int_equal(t.cost[1], 2);
	sim_trace_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(both_policies_against_model),
		cmocka_unit_test(boundaries),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
