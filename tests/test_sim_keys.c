/*
 * test_sim_keys.c - a [traffic] key that its source's type would ignore is
 * refused, naming the file, the key's line and the key: every key against
 * every type, from the scenario format's table (sim_scenario.h) written
 * out here independently; and sweep where a source's load cannot change.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "sim_scenario.h"

static const char *const types[] = { "constant", "poisson", "onoff", "boundary", "adversary", "diurnal", "replay" };
enum { CONSTANT = 1, POISSON = 2, ONOFF = 4, BOUNDARY = 8, ADVERSARY = 16, DIURNAL = 32, REPLAY = 64, ALL = 127 };
#define RATED (CONSTANT | POISSON | ONOFF | DIURNAL)

static const struct {
	const char *key, *value;
	unsigned types; /* the types that read it */
} keys[] = {
	{ "load", "50", RATED },
	{ "zipf", "0.5", RATED },
	{ "keys", "2", RATED | BOUNDARY },
	{ "on", "1s", ONOFF },
	{ "off", "1s", ONOFF },
	{ "period", "1s", DIURNAL },
	{ "amplitude", "10", DIURNAL },
	{ "count", "2", BOUNDARY },
	{ "gap", "1ns", BOUNDARY },
	{ "every", "2", BOUNDARY },
	{ "rounds", "2", ADVERSARY },
	{ "file", "t.txt", REPLAY },
	{ "client", "polite", ALL & ~ADVERSARY },
	{ "max_retries", "1", ALL & ~ADVERSARY },
	{ "retry_gap", "1ms", ALL & ~ADVERSARY },
	{ "start", "1s", ALL },
	{ "stop", "4s", ALL },
	{ "cost", "uniform 1 3", ALL },
};

static char dir[] = "/tmp/test_sim_keys_XXXXXX";

static int load_text(const char *text, struct sim_scenario *sc, char *msg, size_t len)
{
	char path[64];

	snprintf(path, sizeof(path), "%s/s.ini", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	return sim_scenario_load(path, sc, msg, len);
}

static void every_key_every_type(void **u)
{
	(void)u;
	char path[64], text[512], want[160], msg[600];
	struct sim_scenario sc;

	snprintf(path, sizeof(path), "%s/t.txt", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("0 a\n2000000000 b\n", f);
	assert_int_equal(fclose(f), 0);
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
		for (size_t ty = 0; ty < 7; ty++) {
			bool applies = keys[k].types & (1u << ty);
			/* line 6: type; line 7: the key; then what the type or the key needs */
			int n = snprintf(text, sizeof(text),
					 "[scenario]\nlimit = 10\nwindow = 1s\nduration = 5s\n[traffic x]\ntype = %s\n%s = %s\n",
					 types[ty], keys[k].key, keys[k].value);
			if (ty == 6 && strcmp(keys[k].key, "file") != 0)
				n += snprintf(text + n, sizeof(text) - (size_t)n, "file = t.txt\n");
			if (applies && strcmp(keys[k].key, "max_retries") == 0)
				n += snprintf(text + n, sizeof(text) - (size_t)n, "client = polite\n");
			if (applies && strcmp(keys[k].key, "retry_gap") == 0)
				snprintf(text + n, sizeof(text) - (size_t)n, "client = abusive\n");
			int rc = load_text(text, &sc, msg, sizeof(msg));
			if (applies && rc != 0)
				fail_msg("'%s' on %s refused: %s", keys[k].key, types[ty], msg);
			snprintf(want, sizeof(want), "s.ini:7: [traffic x]: '%s' does not apply to type %s (only to ",
				 keys[k].key, types[ty]);
			if (!applies && (rc == 0 || !strstr(msg, want)))
				fail_msg("'%s' on %s: rc %d, message '%s'", keys[k].key, types[ty], rc, msg);
		}
	unlink(path);
}

static void retries_need_a_client(void **u)
{
	(void)u;
	char msg[600];
	struct sim_scenario sc;

	assert_int_not_equal(load_text("[scenario]\nlimit = 10\nwindow = 1s\nduration = 5s\n"
				       "[traffic x]\ntype = poisson\nmax_retries = 2\n", &sc, msg, sizeof(msg)), 0);
	assert_non_null(strstr(msg, "s.ini:7: [traffic x]: 'max_retries' applies only with client = polite or abusive"));
	assert_int_not_equal(load_text("[scenario]\nlimit = 10\nwindow = 1s\nduration = 5s\n"
				       "[traffic x]\ntype = poisson\nretry_gap = 1ms\nclient = polite\n", &sc, msg, sizeof(msg)), 0);
	assert_non_null(strstr(msg, "s.ini:7: [traffic x]: 'retry_gap' applies only with client = abusive"));
}

static void sweep_needs_a_load(void **u)
{
	(void)u;
	char msg[600], path[64];
	struct sim_scenario sc;

	snprintf(path, sizeof(path), "%s/t.txt", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("0 a\n", f);
	assert_int_equal(fclose(f), 0);
	assert_int_not_equal(load_text("[scenario]\nlimit = 10\nwindow = 1s\nduration = 5s\nsweep = 50,100\n"
				       "[traffic p]\ntype = poisson\n[traffic r]\ntype = replay\nfile = t.txt\n",
				       &sc, msg, sizeof(msg)), 0);
	assert_non_null(strstr(msg, "s.ini:5: [scenario]: sweep"));
	assert_non_null(strstr(msg, "[traffic r] cannot change"));
	assert_int_not_equal(load_text("[scenario]\nlimit = 10\nwindow = 1s\nduration = 5s\nsweep = 50\n"
				       "[traffic b]\ntype = boundary\n[traffic a]\ntype = adversary\n",
				       &sc, msg, sizeof(msg)), 0);
	assert_non_null(strstr(msg, "s.ini:5: [scenario]: sweep sets each source's load, and no source has one"));
	/* beside a source with a load, a boundary source is fine (the default mix does this) */
	assert_int_equal(load_text("[scenario]\nlimit = 10\nwindow = 1s\nduration = 5s\nsweep = 50\n"
				   "[traffic b]\ntype = boundary\n[traffic p]\ntype = poisson\n", &sc, msg, sizeof(msg)), 0);
	unlink(path);
}

static int setup(void **u)
{
	(void)u;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **u)
{
	char path[64];

	(void)u;
	snprintf(path, sizeof(path), "%s/s.ini", dir);
	unlink(path);
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_key_every_type),
		cmocka_unit_test(retries_need_a_client),
		cmocka_unit_test(sweep_needs_a_load),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
