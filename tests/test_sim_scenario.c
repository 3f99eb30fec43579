/*
 * test_sim_scenario.c - the scenario parser's refusals and the engine's
 * arithmetic at the edges of the documented ranges: every refusal names
 * the file and the line of the first fault, and a scenario that loads runs
 * without overflow (the sanitizer build traps on signed overflow).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ratelab/algo.h"
#include "sim_run.h"

/* Loads ini from a file named name (in a fresh directory); the status, the message in msg. */
static int load_named(const char *name, const char *ini, struct sim_scenario *sc, char *msg, size_t len,
		      char *path, size_t path_len)
{
	char dir[] = "/tmp/test_sim_scenario_XXXXXX";

	assert_non_null(mkdtemp(dir));
	snprintf(path, path_len, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fputs(ini, f) >= 0, 1);
	fclose(f);
	int rc = sim_scenario_load(path, sc, msg, len);
	unlink(path);
	rmdir(dir);
	return rc;
}

/* Expects the scenario refused with "PATH:LINE: ...want...". */
static void refused(const char *name, const char *ini, int line, const char *want)
{
	struct sim_scenario sc;
	char msg[700], path[128], prefix[160];

	assert_int_equal(load_named(name, ini, &sc, msg, sizeof(msg), path, sizeof(path)), RL_EINVAL);
	snprintf(prefix, sizeof(prefix), "%s:%d: ", path, line);
	if (strncmp(msg, prefix, strlen(prefix)) != 0 || !strstr(msg, want))
		fail_msg("message '%s', expected '%s' ... '%s'", msg, prefix, want);
}

static void loaded(const char *ini, struct sim_scenario *sc)
{
	char msg[700], path[128];
	int rc = load_named("s.ini", ini, sc, msg, sizeof(msg), path, sizeof(path));

	if (rc)
		fail_msg("%s", msg);
}

static int admit_all(void *ctx, int64_t t, uint32_t key, int64_t cost, int64_t *retry_ns)
{
	(void)t;
	(void)key;
	(void)cost;
	(void)retry_ns;
	++*(int64_t *)ctx;
	return RL_ALLOWED;
}

/* Runs the scenario's traffic through a decider admitting everything; the requests seen. */
static int64_t run_traffic(const struct sim_scenario *sc)
{
	struct sim_traffic tr;
	char msg[700];
	int64_t seen = 0;
	struct sim_decider d = { .decide = admit_all, .ctx = &seen };

	assert_int_equal(sim_traffic_create(&tr, sc, sc->seed, msg, sizeof(msg)), RL_OK);
	assert_int_equal(sim_traffic_run(&tr, &d, sc->name), RL_OK);
	sim_traffic_destroy(&tr);
	return seen;
}

/* every * W past RL_TIME_MAX_NS overflowed the engine's int64 arithmetic: refused at parse time. */
static void boundary_every_times_window_overflow_refused(void **unused)
{
	(void)unused;
	refused("b.ini", "[scenario]\nlimit = 1\nwindow = 3h\nduration = 1000h\nalgos = gcra\n"
		"[traffic a]\ntype = boundary\nevery = 1000000\n", 7, "every * window exceeds");
}

/* every is a boundary key: another source would ignore it, so it is refused on its line. */
static void every_on_other_sources_refused(void **unused)
{
	(void)unused;

	refused("s.ini", "[scenario]\nlimit = 1\nwindow = 3h\nduration = 30h\n"
		"[traffic a]\ntype = constant\nevery = 1000000\n", 7,
		"[traffic a]: 'every' does not apply to type constant (only to boundary)");
}

/* Spans near the largest allowed: attacks of 2 requests at k = every, 2 every, ... while kW - gap < duration. */
static void boundary_at_the_largest_span_runs(void **unused)
{
	(void)unused;
	struct sim_scenario sc;

	/* 3h = 1.08e13 ns; 370000 * 3h = 3.996e18 ns <= RL_TIME_MAX_NS < 1111111h */
	loaded("[scenario]\nlimit = 1\nwindow = 3h\nduration = 1111111h\n"
	       "[traffic a]\ntype = boundary\nevery = 370000\n", &sc);
	assert_int_equal(run_traffic(&sc), 2);
	loaded("[scenario]\nlimit = 1\nwindow = 3h\nduration = 1111111h\n"
	       "[traffic a]\ntype = boundary\nevery = 180000\n", &sc);
	assert_int_equal(run_traffic(&sc), 4);
}

/* About 3.6e18 requests (limit 10^6 per 1ms at 1000x for 1000h): refused, not run for ever. */
static void work_cap_refuses_endless_runs(void **unused)
{
	(void)unused;
	refused("r.ini", "[scenario]\nlimit = 1000000\nwindow = 1ms\nduration = 1000h\nbucket = 1h\n"
		"[traffic a]\ntype = poisson\nload = 100000\n", 2, "requests per run, more than 2000000000");
	/* the sweep's largest load counts, and so do a polite client's retries */
	refused("s.ini", "[scenario]\nlimit = 1000\nwindow = 1s\nduration = 10000s\nsweep = 50,100000\n"
		"[traffic a]\ntype = poisson\nload = 50\n", 2, "requests per run");
	refused("c.ini", "[scenario]\nlimit = 1000\nwindow = 1s\nduration = 1000s\n"
		"[traffic a]\ntype = constant\nload = 1000\nclient = polite\nmax_retries = 1000\n", 2,
		"requests per run");
}

/* Four sources of 10^7 keys each would need gigabytes of per-key state: refused. */
static void work_cap_refuses_too_many_keys(void **unused)
{
	(void)unused;
	char ini[600] = "[scenario]\nlimit = 1\nwindow = 1s\nduration = 1s\n";

	for (int i = 0; i < 4; i++)
		snprintf(ini + strlen(ini), sizeof(ini) - strlen(ini),
			 "[traffic s%d]\ntype = poisson\nkeys = 10000000\nload = 1\n", i);
	refused("k.ini", ini, 2, "40000000 keys in all, more than 20000000");
}

#define OK_HEAD "[scenario]\nlimit = 10\nwindow = 1s\nduration = 5s\n" /* lines 1-4 */

/* The last of two values silently won. */
static void key_given_twice_refused(void **unused)
{
	(void)unused;
	refused("d.ini", OK_HEAD "[traffic a]\ntype = poisson\nload = 50\nload = 60\n", 8, "'load' given twice");
	refused("e.ini", OK_HEAD "limit = 20\n[traffic a]\ntype = poisson\n", 5, "'limit' given twice");
	/* one key in two sources is no repeat */
	struct sim_scenario sc;
	loaded(OK_HEAD "[traffic a]\ntype = poisson\nload = 50\n[traffic b]\ntype = poisson\nload = 60\n", &sc);
	assert_int_equal(sc.ntraffic, 2);
	assert_int_equal(sc.traffic[1].load_pct, 60);
}

/* inih reports sections only with a key: a misspelt empty one passed unseen. */
static void empty_unknown_section_refused(void **unused)
{
	(void)unused;
	refused("u.ini", OK_HEAD "[traffic a]\ntype = poisson\n[trafic b]\n", 7, "unknown section [trafic b]");
	refused("v.ini", OK_HEAD "[traffic a]\ntype = poisson\n[traffic b]\n", 7, "[traffic b]: no type");
	refused("w.ini", OK_HEAD "[traffic a]\ntype = poisson\n[traffic a]\ntype = constant\n", 7,
		"[traffic a] given twice");
}

/* sim_scenario.h and the tier config require a unit; a bare integer was taken as ns. */
static void bare_integer_duration_refused(void **unused)
{
	(void)unused;
	refused("n.ini", "[scenario]\nlimit = 10\nwindow = 1000000000\n", 3, "window = '1000000000'");
	refused("m.ini", OK_HEAD "[traffic a]\ntype = onoff\non = 5\n", 7, "on = '5'");
}

/* inih goes on after an error; the message named the last bad line, not the first. */
static void first_error_is_reported(void **unused)
{
	(void)unused;
	refused("f.ini", "[scenario]\nlimit = 0\nwindow = x\nbogus = 1\n", 2, "limit = '0'");
	refused("g.ini", "[scenario]\nlimit = 10\njunk\nwindow = x\n", 3, "malformed line");
	refused("h.ini", "[scenario]\nlimit = 0\njunk\n", 2, "limit = '0'");
}

/* The base name becomes the CSV's scenario field: "x,y" added a column. */
static void file_name_checked_as_a_name(void **unused)
{
	(void)unused;
	struct sim_scenario sc;
	char msg[700], path[128];
	const char ini[] = OK_HEAD "[traffic a]\ntype = poisson\n";

	refused("x,y.ini", ini, 2, "base name 'x,y' is no scenario name");
	assert_int_equal(load_named("x,y.ini", "[scenario]\nname = xy\nlimit = 10\nwindow = 1s\nduration = 5s\n"
				    "[traffic a]\ntype = poisson\n", &sc, msg, sizeof(msg), path, sizeof(path)), RL_OK);
	assert_string_equal(sc.name, "xy");
	assert_int_equal(load_named("ok_1-2.v.ini", ini, &sc, msg, sizeof(msg), path, sizeof(path)), RL_OK);
	assert_string_equal(sc.name, "ok_1-2");
}

/* Two sources, each fair over its own keys but at different loads: mixing them gave 0.735. */
static void jain_index_per_source(void **unused)
{
	(void)unused;
	struct sim_scenario sc;
	struct sim_traffic tr;
	struct sim_result res;
	char msg[700];

	loaded("[scenario]\nlimit = 10\nwindow = 1s\nduration = 10s\nalgos = sliding_log\n"
	       "[traffic light]\ntype = constant\nkeys = 2\nload = 50\n"
	       "[traffic heavy]\ntype = constant\nkeys = 2\nload = 400\n", &sc);
	assert_int_equal(sim_traffic_create(&tr, &sc, sc.seed, msg, sizeof(msg)), RL_OK);
	assert_int_equal(sim_run(&tr, rl_algo_find("sliding_log"), NULL, &res), RL_OK);
	sim_traffic_destroy(&tr);
	assert_true(res.jain_index > 0.999);
}

/* Lines were cut at 199 characters (inih's buffer): a long line is read
 * whole, its value too, and one past RL_INI_LINE_MAX is refused on its own
 * line, the lines before it counted. */
static void long_line_refused_on_its_line(void **unused)
{
	enum { FILL = 65535 + 10 }; /* RL_INI_LINE_MAX (ini_reader.h) + 10 */
	static char ini[FILL + 100], fill[FILL + 1];

	(void)unused;
	memset(fill, 'c', 250);
	fill[250] = '\0';
	snprintf(ini, sizeof(ini), "[scenario]\n; %s\nlimit = x\n", fill);
	refused("s.ini", ini, 3, "limit = 'x'");
	/* a value longer than 255 characters: the list is read to its end */
	snprintf(ini, sizeof(ini), "[scenario]\nalgos = %s, nope\n", "gcra, gcra, gcra, gcra, gcra, gcra, gcra, gcra, "
		 "gcra, gcra, gcra, gcra, gcra, gcra, gcra, gcra, gcra, gcra, gcra, gcra, gcra, gcra, gcra, gcra, gcra, "
		 "gcra, gcra, gcra, gcra, gcra, gcra, gcra, gcra, gcra, gcra, gcra, gcra, gcra, gcra, gcra, gcra, gcra");
	refused("s.ini", ini, 2, "unknown algorithm 'nope'");
	memset(fill, 'c', FILL);
	fill[FILL] = '\0';
	snprintf(ini, sizeof(ini), "[scenario]\nlimit = 10\n; %s\n", fill);
	refused("s.ini", ini, 3, "line longer than 65535 characters");
}

/* A NUL byte was a silent cut of the line ("limit = 1\0000" read as limit = 1). */
static void nul_byte_refused(void **unused)
{
	static const char ini[] = "[scenario]\nlimit = 1\0" "00\nwindow = 1s\nduration = 5s\n[traffic a]\ntype = poisson\n";
	char dir[] = "/tmp/test_sim_scenario_XXXXXX", path[128], msg[700];
	struct sim_scenario sc;

	(void)unused;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/nul.ini", dir);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(ini, 1, sizeof(ini) - 1, f), sizeof(ini) - 1);
	fclose(f);
	int rc = sim_scenario_load(path, &sc, msg, sizeof(msg));
	unlink(path);
	rmdir(dir);
	assert_int_equal(rc, RL_EINVAL);
	assert_non_null(strstr(msg, "nul.ini:2: NUL byte in the line"));
}

/*
 * A trace that cannot be read (here a directory: it opens, and every read
 * fails) is an error, not an empty trace; a NUL byte in a trace line is
 * refused rather than read short.
 */
static void trace_read_error_is_no_end(void **unused)
{
	struct sim_scenario sc;
	struct sim_traffic tr;
	char msg[700], dir[] = "/tmp/test_sim_trace_XXXXXX", path[128], ini[400];

	(void)unused;
	loaded("[scenario]\nlimit = 10\nwindow = 1s\nduration = 5s\n[traffic t]\ntype = replay\nfile = /\n", &sc);
	assert_int_equal(sim_traffic_create(&tr, &sc, sc.seed, msg, sizeof(msg)), RL_EIO);
	assert_non_null(strstr(msg, "/:1: cannot read: "));

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/t.txt", dir);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite("0 a\n1 b\0c\n2 a\n", 1, 15, f), 15);
	fclose(f);
	snprintf(ini, sizeof(ini), "[scenario]\nlimit = 10\nwindow = 1s\nduration = 5s\n[traffic t]\n"
		 "type = replay\nfile = %s\n", path);
	loaded(ini, &sc);
	int rc = sim_traffic_create(&tr, &sc, sc.seed, msg, sizeof(msg));
	unlink(path);
	rmdir(dir);
	assert_int_equal(rc, RL_EINVAL);
	assert_non_null(strstr(msg, "t.txt:2: holds a NUL byte"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(boundary_every_times_window_overflow_refused),
		cmocka_unit_test(every_on_other_sources_refused),
		cmocka_unit_test(boundary_at_the_largest_span_runs),
		cmocka_unit_test(work_cap_refuses_endless_runs),
		cmocka_unit_test(work_cap_refuses_too_many_keys),
		cmocka_unit_test(key_given_twice_refused),
		cmocka_unit_test(empty_unknown_section_refused),
		cmocka_unit_test(bare_integer_duration_refused),
		cmocka_unit_test(first_error_is_reported),
		cmocka_unit_test(file_name_checked_as_a_name),
		cmocka_unit_test(jain_index_per_source),
		cmocka_unit_test(long_line_refused_on_its_line),
		cmocka_unit_test(nul_byte_refused),
		cmocka_unit_test(trace_read_error_is_no_end),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
