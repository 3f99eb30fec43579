/*
 * test_import_stats.c - what the importer hands the study's report
 * (struct sim_import_stats, import.h): the bad lines by reason with their
 * first places, the times read at an assumed offset, the requests keyed by
 * their address under --key user; filled on failure too.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "import.h"

static char path[64];

static void write_file(const char *text)
{
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/test_import_stats_%ld.log", (long)getpid());
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

static void combined_reasons(void **u)
{
	(void)u;
	FILE *err = fopen("/dev/null", "w");
	struct sim_import_stats st;
	struct sim_trace t;
	char where[SIM_IMPORT_WHERE];
	const char *paths[1];

	write_file("1.1.1.1 - - [10/Oct/2026:13:55:36 +0000] \"GET / HTTP/1.1\" 200 x\n"   /* shape */
		   "garbage\n"                                                              /* shape */
		   "1.1.1.2 - bob [10/Oct/2026:13:55:37 +0000] \"GET / HTTP/1.1\" 200 5\n"
		   "1.1.1.3 - - [32/Oct/2026:13:55:37 +0000] \"GET / HTTP/1.1\" 200 5\n"    /* time */
		   "1.1.1.4 - - [10/Oct/2026:13:55:38 +0000] \"GET / HTTP/1.1\" 200 -\n"    /* 0 bytes */
		   "1.1.1.5 - - [10/Oct/2026:13:55:39 +0000] \"GET / HTTP/1.1\" 200 7\n"
		   "1.1.1.6 - - [10/Oct/2026:13:55:40 +0000] \"GET / HTTP/1.1\" 304 0\n"); /* takes nothing */
	paths[0] = path;
	struct sim_import_opts o = { .key = "user", .cost_field = "bytes", .stats = &st };
	memset(&st, 0xff, sizeof(st));
	assert_int_equal(sim_import(&o, paths, 1, &t, err), 0);
	assert_int_equal(t.n, 2);
	assert_int_equal(st.lines, 7);
	assert_int_equal(st.cost_zero, 2);
	assert_int_equal(st.skipped, 3);
	assert_int_equal(st.skip[SIM_SKIP_SHAPE], 2);
	assert_int_equal(st.skip[SIM_SKIP_TIME], 1);
	assert_int_equal(st.skip[SIM_SKIP_COST] + st.skip[SIM_SKIP_KEY] + st.skip[SIM_SKIP_LONG] +
			 st.skip[SIM_SKIP_NUL], 0);
	snprintf(where, sizeof(where), "%s:1", path);
	assert_string_equal(st.where[SIM_SKIP_SHAPE][0], where);
	snprintf(where, sizeof(where), "%s:2", path);
	assert_string_equal(st.where[SIM_SKIP_SHAPE][1], where);
	snprintf(where, sizeof(where), "%s:4", path);
	assert_string_equal(st.where[SIM_SKIP_TIME][0], where);
	assert_int_equal(st.anon, 1); /* 1.1.1.5: no user */
	assert_int_equal(st.no_offset, 0);
	assert_string_equal(st.tz, "+00:00");
	assert_string_equal(st.format, "combined");
	assert_true(st.detected);
	assert_int_equal(st.resolution_ns, 1000000000);
	assert_string_equal(t.key_name[t.key[0]], "bob");
	assert_string_equal(t.key_name[t.key[1]], "1.1.1.5");
	assert_string_equal(sim_import_skip_name[SIM_SKIP_COST], "cost");
	sim_trace_free(&t);

	/* --strict: the first bad line ends it, and the stats say so */
	o.strict = true;
	assert_int_equal(sim_import(&o, paths, 1, &t, err), 2);
	assert_int_equal(st.skipped, 1);
	assert_int_equal(st.skip[SIM_SKIP_SHAPE], 1);
	assert_int_equal(t.n, 0);
	unlink(path);
	fclose(err);
}

static void offsets_assumed(void **u)
{
	(void)u;
	FILE *err = fopen("/dev/null", "w");
	struct sim_import_stats st;
	struct sim_trace t;
	const char *paths[1];

	write_file("{\"time\":\"2026-09-13T09:00:00\",\"key\":\"a\"}\n"
		   "{\"time\":\"2026-09-13T09:00:00Z\",\"key\":\"b\"}\n"
		   "{\"time\":\"2026-09-13T09:00:00.5\",\"key\":\"c\"}\n"
		   "{\"key\":\"d\"}\n");
	paths[0] = path;
	struct sim_import_opts o = { .tz = "-01:30", .stats = &st };
	assert_int_equal(sim_import(&o, paths, 1, &t, err), 0);
	assert_int_equal(t.n, 3);
	assert_int_equal(st.no_offset, 2);
	assert_string_equal(st.tz, "-01:30");
	assert_int_equal(st.skip[SIM_SKIP_TIME], 1);
	assert_int_equal(st.resolution_ns, 100000000);
	/* b at 09:00Z comes first: a and c are at 10:30Z */
	assert_string_equal(t.key_name[t.key[0]], "b");
	assert_int_equal(t.t_ns[1] - t.t_ns[0], 5400 * 1000000000LL);
	sim_trace_free(&t);
	unlink(path);
	fclose(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(combined_reasons),
		cmocka_unit_test(offsets_assumed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
