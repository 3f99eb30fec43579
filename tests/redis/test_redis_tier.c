/*
 * test_redis_tier.c - the Redis backend's tier keys (redis.h, "Tiers";
 * registry.h's extra keys): redis_timeout parsed to whole ms, read back by
 * rl_redis_tier_timeout_ms (alone or within a larger table), 0 when not
 * given; each mistake fails the load with its exact "FILE:LINE: problem".
 * No server: the keys are parsed in process.
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

#include "ratelab/redis.h"
#include "ratelab/registry.h"

static char example[512];

/* Writes text to a fresh temporary file; returns its path (static). */
static const char *write_tmp(const char *text)
{
	static char path[64];
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "/tmp/rl_redis_tier_XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
	fclose(f);
	return path;
}

static void test_table(void **unused)
{
	const struct rl_tier_key *keys = NULL;

	(void)unused;
	assert_int_equal(rl_redis_tier_keys(&keys), 1);
	assert_string_equal(keys[0].name, "redis_timeout");
	assert_string_equal(keys[0].label, "redis_timeout_ms");
	assert_non_null(keys[0].parse);
}

/* redis_timeout: the backend's budget per decision, whole ms (bare: ms). */
static void test_timeout_key(void **unused)
{
	static const struct {
		const char *value;
		int64_t ms;
	} ok[] = { { "50", 50 }, { "2s", 2000 }, { "1ms", 1 }, { "60000", 60000 }, { "1m", 60000 } };
	const struct rl_tier_key *keys;
	size_t n = rl_redis_tier_keys(&keys);
	char text[200], err[256];

	(void)unused;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		struct rl_registry *r = NULL;
		snprintf(text, sizeof(text), "[tier t]\nalgorithm = gcra\nlimit = 5\nwindow = 1s\n"
			 "redis_timeout = %s\n[defaults]\ntier = t\n", ok[i].value);
		const char *path = write_tmp(text);
		assert_int_equal(rl_registry_load_with(&r, path, keys, n, err, sizeof(err)), RL_OK);
		unlink(path);
		assert_int_equal(rl_redis_tier_timeout_ms(rl_registry_default(r), 0), ok[i].ms);
		rl_registry_destroy(r);
	}
	/* not given: 0, the connection's own */
	struct rl_registry *r = NULL;
	assert_int_equal(rl_registry_load_with(&r, example, keys, n, err, sizeof(err)), RL_OK);
	for (size_t i = 0; i < rl_registry_tier_count(r); i++)
		assert_int_equal(rl_redis_tier_timeout_ms(rl_registry_tier_at(r, i), 0), 0);
	rl_registry_destroy(r);
}

static int parse_other(const struct rl_tier_key *key, const char *value, int64_t *out, char *msg,
		       size_t msg_len)
{
	(void)key;
	(void)msg;
	(void)msg_len;
	*out = (int64_t)strlen(value);
	return RL_OK;
}

/* The backend's keys within a larger table: read back from their base. */
static void test_timeout_key_at_base(void **unused)
{
	static const char text[] = "[tier t]\nalgorithm = gcra\nlimit = 5\nwindow = 1s\nother = abc\n"
				   "redis_timeout = 250\n[tier u]\nalgorithm = gcra\nlimit = 5\nwindow = 1s\n"
				   "[defaults]\ntier = t\n";
	const struct rl_tier_key *keys;
	size_t n = rl_redis_tier_keys(&keys);
	struct rl_tier_key all[RL_TIER_EXT_MAX] = { { "other", NULL, parse_other } };
	struct rl_registry *r = NULL;
	char err[256];
	int64_t v;

	(void)unused;
	assert_true(1 + n <= RL_TIER_EXT_MAX);
	memcpy(&all[1], keys, n * sizeof(*keys));
	const char *path = write_tmp(text);
	assert_int_equal(rl_registry_load_with(&r, path, all, 1 + n, err, sizeof(err)), RL_OK);
	unlink(path);
	const struct rl_tier *t = rl_registry_tier_at(r, 0), *u = rl_registry_tier_at(r, 1);
	assert_int_equal(rl_redis_tier_timeout_ms(t, 1), 250);
	assert_true(rl_tier_ext(t, 0, &v));
	assert_int_equal(v, 3);
	assert_int_equal(rl_redis_tier_timeout_ms(u, 1), 0);
	rl_registry_destroy(r);
}

static void test_mistakes(void **unused)
{
	static const struct {
		const char *text;
		const char *message; /* after "FILE:" */
	} bad[] = {
		{ "[tier free]\nalgorithm = gcra\nlimt = 10\n", "3: unknown key 'limt' in [tier free] (algorithm, "
		  "limit, window, burst, policy, mode, unlimited, on_error, max_keys, when_full, redis_timeout)" },
		{ "[tier a]\nredis_timeout = 0\n", "2: redis_timeout '0' is not a whole number of ms in [1ms, 60s] "
		  "(bare: ms)" },
		{ "[tier a]\nredis_timeout = 1500us\n", "2: redis_timeout '1500us' is not a whole number of ms in "
		  "[1ms, 60s] (bare: ms)" },
		{ "[tier a]\nredis_timeout = 61s\n", "2: redis_timeout '61s' is not a whole number of ms in [1ms, 60s] "
		  "(bare: ms)" },
		{ "[tier a]\nredis_timeout = -5\n", "2: redis_timeout '-5' is not a whole number of ms in [1ms, 60s] "
		  "(bare: ms)" },
		{ "[tier a]\nredis_timeout = 5\nredis_timeout = 6\n", "3: 'redis_timeout' given twice in [tier a]" },
		{ "[tier a]\nunlimited = true\nredis_timeout = 5\n[defaults]\ntier = a\n",
		  "1: tier 'a' is unlimited: it takes no redis_timeout" },
	};
	const struct rl_tier_key *keys;
	size_t n = rl_redis_tier_keys(&keys);
	char err[512], want[512];

	(void)unused;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct rl_registry *r = NULL;
		const char *path = write_tmp(bad[i].text);
		int rc = rl_registry_load_with(&r, path, keys, n, err, sizeof(err));

		snprintf(want, sizeof(want), "%s:%s", path, bad[i].message);
		unlink(path);
		if (rc != RL_EINVAL || r != NULL || strcmp(err, want) != 0)
			fail_msg("case %zu: rc %d\n got: %s\nwant: %s", i, rc, err, want);
	}
}

int main(void)
{
	const char *src = __FILE__, *slash = strrchr(src, '/');
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_timeout_key),
		cmocka_unit_test(test_timeout_key_at_base),
		cmocka_unit_test(test_mistakes),
	};

	snprintf(example, sizeof(example), "%.*s/../../examples/tiers.ini", slash ? (int)(slash - src) : 1,
		 slash ? src : ".");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
