/*
 * test_registry.c - tiers from INI files: the example file resolves and
 * decides as written; each kind of malformed file fails whole, with its
 * exact "FILE:LINE: problem" message.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cmocka.h>

#include "ratelab/parse.h"
#include "ratelab/registry.h"
#include "test_rng.h"

#define SEC 1000000000LL

static char example[512];

/* Writes len bytes to a fresh temporary file; returns its path (static). */
static const char *write_bytes(const char *bytes, size_t len)
{
	static char path[64];
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "/tmp/rl_registry_XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(bytes, 1, len, f), len);
	fclose(f);
	return path;
}

static const char *write_tmp(const char *text)
{
	return write_bytes(text, strlen(text));
}

static void test_example_file(void **unused)
{
	struct rl_registry *r = NULL;
	char err[256];
	struct rl_answer a;

	(void)unused;
	assert_int_equal(rl_registry_load(&r, example, err, sizeof(err)), RL_OK);
	assert_string_equal(err, "");
	assert_int_equal(rl_registry_tier_count(r), 4);
	assert_string_equal(rl_registry_default(r)->name, "free");

	const struct rl_tier *prem = rl_registry_resolve(r, "2001:db8::1", 11);
	assert_string_equal(prem->name, "premium");
	assert_ptr_equal(prem->limiter.algo, &rl_gcra_algo);
	assert_int_equal(prem->limiter.rule.limit, 100);
	assert_int_equal(prem->limiter.rule.window_ns, SEC);
	assert_int_equal(prem->limiter.rule.burst, 200);
	assert_int_equal(prem->max_keys, 100000);
	assert_string_equal(rl_registry_resolve(r, "carol", 5)->name, "free");
	assert_string_equal(rl_registry_resolve(r, "ali", 3)->name, "free"); /* prefix of alice */
	assert_true(rl_registry_resolve(r, "10.0.0.2", 8)->unlimited);
	const struct rl_tier *otp = rl_registry_resolve(r, "sms-gateway", 11);
	assert_true(otp->fail_closed);
	assert_int_equal(otp->when_full, RL_FULL_FAIL_CLOSED);
	assert_int_equal(otp->limiter.rule.window_ns, 600 * SEC);

	/* free: 10 per second, burst 10 */
	for (int i = 0; i < 10; i++)
		assert_int_equal(rl_registry_check(r, "carol", 5, 0, &a), RL_ALLOWED);
	assert_int_equal(rl_registry_check(r, "carol", 5, 0, &a), RL_REJECTED);
	assert_string_equal(a.tier->name, "free");
	assert_int_equal(a.d.retry_after_ns, SEC / 10);
	/* another free client has its own quota */
	assert_int_equal(rl_registry_check(r, "dave", 4, 0, &a), RL_ALLOWED);
	assert_int_equal(a.d.remaining, 9);
	/* unlimited */
	for (int i = 0; i < 1000; i++)
		assert_int_equal(rl_registry_check(r, "10.0.0.1", 8, 0, &a), RL_ALLOWED);
	assert_string_equal(a.tier->name, "internal");
	assert_int_equal(rl_registry_check(r, "10.0.0.1", 8, -1, &a), RL_ERANGE);
	assert_int_equal(rl_registry_check(r, "carol", 5, -1, &a), RL_ERANGE);

	size_t n = rl_registry_client_count(r);
	const struct rl_tier *t;
	assert_int_equal(n, 6);
	assert_string_equal(rl_registry_client_at(r, 0, &t), "10.0.0.1"); /* sorted */
	assert_string_equal(t->name, "internal");
	rl_registry_destroy(r);
}

/* when_full decides at the cap, without on_error: evict replaces the key, fail_closed rejects. */
static void test_on_error(void **unused)
{
	static const char *const texts[] = {
		"[tier t]\nalgorithm = gcra\nlimit = 1\nwindow = 1h\nmax_keys = 1\nwhen_full = evict\n"
		"on_error = fail_closed\n[defaults]\ntier = t\n",
		"[tier t]\nalgorithm = gcra\nlimit = 1\nwindow = 1h\nmax_keys = 1\nwhen_full = fail_closed\n"
		"[defaults]\ntier = t\n",
	};
	struct rl_registry *r = NULL;
	struct rl_answer a;
	char err[256];

	(void)unused;
	const char *path = write_tmp(texts[0]);
	assert_int_equal(rl_registry_load(&r, path, err, sizeof(err)), RL_OK);
	unlink(path);
	assert_int_equal(rl_registry_check(r, "a", 1, 0, &a), RL_ALLOWED);
	/* evict replaces a, b is decided by its own (fresh) state */
	assert_int_equal(rl_registry_check(r, "b", 1, 0, &a), RL_ALLOWED);
	assert_int_equal(a.store_error, RL_OK);
	rl_registry_destroy(r);

	path = write_tmp(texts[1]);
	assert_int_equal(rl_registry_load(&r, path, err, sizeof(err)), RL_OK);
	unlink(path);
	assert_int_equal(rl_registry_check(r, "a", 1, 0, &a), RL_ALLOWED);
	assert_int_equal(rl_registry_check(r, "b", 1, 0, &a), RL_REJECTED);
	assert_int_equal(a.d.retry_after_ns, 3600 * SEC);
	rl_registry_destroy(r);
}

#if !defined(__SANITIZE_ADDRESS__)
/* The process's virtual memory now, bytes (/proc/self/statm, in pages). */
static size_t vm_bytes(void)
{
	unsigned long pages = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	assert_non_null(f);
	assert_int_equal(fscanf(f, "%lu", &pages), 1);
	fclose(f);
	return pages * (size_t)sysconf(_SC_PAGESIZE);
}
#endif

/*
 * on_error decides when the store cannot: the tier's store (10^8 keys, a
 * 2.4 GB table, created on the first check) cannot be allocated under an
 * address-space limit 1 GiB above what the process maps. fail_closed
 * rejects, fail_open admits, both report RL_ENOMEM; once memory is back the
 * next check creates the store and decides normally. Under ASan the limit
 * would starve the sanitizer's own mappings, so the test is skipped there.
 */
static void test_on_error_decides_without_store(void **unused)
{
	(void)unused;
#if defined(__SANITIZE_ADDRESS__)
	skip();
#else
	struct rl_registry *r = NULL;
	struct rl_answer a;
	struct rlimit old, low;
	char err[256];

	const char *path = write_tmp("[tier closed]\nalgorithm = gcra\nlimit = 1\nwindow = 1h\n"
				     "max_keys = 100000000\non_error = fail_closed\n"
				     "[tier open]\nalgorithm = gcra\nlimit = 1\nwindow = 1h\n"
				     "max_keys = 100000000\n[clients]\nclosed = c\n[defaults]\ntier = open\n");
	assert_int_equal(rl_registry_load(&r, path, err, sizeof(err)), RL_OK);
	unlink(path);
	assert_int_equal(getrlimit(RLIMIT_AS, &old), 0);
	low = (struct rlimit){ vm_bytes() + ((size_t)1 << 30), old.rlim_max };
	assert_int_equal(setrlimit(RLIMIT_AS, &low), 0);
	int closed = rl_registry_check(r, "c", 1, 0, &a);
	struct rl_answer ca = a;
	int open = rl_registry_check(r, "o", 1, 0, &a);
	assert_int_equal(setrlimit(RLIMIT_AS, &old), 0);

	assert_int_equal(closed, RL_REJECTED);
	assert_int_equal(ca.verdict, RL_REJECTED);
	assert_int_equal(ca.store_error, RL_ENOMEM);
	assert_int_equal(ca.d.retry_after_ns, 3600 * SEC);
	assert_int_equal(open, RL_ALLOWED);
	assert_int_equal(a.store_error, RL_ENOMEM);
	/* memory is back: the store is created and decides (limit 1 per hour) */
	assert_int_equal(rl_registry_check(r, "c", 1, 0, &a), RL_ALLOWED);
	assert_int_equal(a.store_error, RL_OK);
	assert_int_equal(rl_registry_check(r, "c", 1, 0, &a), RL_REJECTED);
	assert_int_equal(a.store_error, RL_OK);
	rl_registry_destroy(r);
#endif
}

static const struct {
	const char *text;
	const char *message; /* after "FILE:" */
} bad[] = {
	{ "[tier free]\nalgorithm = gcra\nlimt = 10\n", "3: unknown key 'limt' in [tier free] (algorithm, limit, "
	  "window, burst, policy, mode, unlimited, on_error, max_keys, when_full)" },
	/* no extra keys asked for: a backend's key is an unknown one */
	{ "[tier a]\nredis_timeout = 5\n", "2: unknown key 'redis_timeout' in [tier a] (algorithm, limit, "
	  "window, burst, policy, mode, unlimited, on_error, max_keys, when_full)" },
	{ "[tiers]\n", "1: unknown section [tiers] (expected [tier NAME], [clients] or [defaults])" },
	{ "[tier a]\nlimit = 10x\n", "2: limit '10x' is not an integer in [1, 1000000000000]" },
	{ "[tier a]\nlimit = 0\n", "2: limit '0' is not an integer in [1, 1000000000000]" },
	{ "[tier a]\nburst = 99999999999999999999\n", "2: burst '99999999999999999999' is not an integer in [1, 1000000000000]" },
	{ "[tier a]\nwindow = 10\n", "2: window '10' is not a duration (an integer with unit ns, us, ms, s, m or h; "
	  "1ns to 10^18 ns)" },
	{ "[tier a]\nwindow = 0s\n", "2: window '0s' is not a duration (an integer with unit ns, us, ms, s, m or h; "
	  "1ns to 10^18 ns)" },
	{ "[tier a]\nalgorithm = bucket\n", "2: unknown algorithm 'bucket' (token_bucket, gcra, leaky_bucket, "
	  "fixed_window, sliding_log, sliding_counter)" },
	{ "[tier a]\nunlimited = true\n\n[tier a]\nunlimited = true\n", "4: duplicate tier 'a' (first on line 1)" },
	{ "[tier a]\nunlimited = true\n[clients]\ngold = alice\n[defaults]\ntier = a\n",
	  "4: client 'alice' is mapped to tier 'gold', which is not defined" },
	{ "[tier a]\nunlimited = true\n[clients]\na = x y\na = y\n[defaults]\ntier = a\n",
	  "5: client 'y' mapped twice (lines 4 and 5)" },
	{ "[tier a]\nunlimited = true\n", "2: end of file: no default tier (add [defaults] with tier = NAME)" },
	{ "[tier a]\nunlimited = true\n[defaults]\ntier = b\n", "4: default tier 'b' is not defined" },
	{ "[tier a]\nalgorithm = gcra\nlimit = 5\n[defaults]\ntier = a\n", "1: tier 'a' has no 'window' (or "
	  "'policy = RULES', or 'unlimited = true')" },
	{ "[tier a]\npolicy = 10/1s\n[defaults]\ntier = a\n", "1: tier 'a' has no 'algorithm' (or "
	  "'policy = RULES', or 'unlimited = true')" },
	/* policies and modes (issue 44): the line and the value */
	{ "[tier a]\nalgorithm = gcra\nlimit = 5\npolicy = 10/1s\n", "4: 'policy' with 'limit' in [tier a]: "
	  "policy = RULES replaces limit, window and burst" },
	{ "[tier a]\npolicy = 10/1s\nburst = 5\n", "3: 'burst' with 'policy' in [tier a]: "
	  "policy = RULES replaces limit, window and burst" },
	{ "[tier a]\npolicy = 1/1s+2/1s+3/1s+4/1s+5/1s+6/1s+7/1s+8/1s+9/1s\n", "2: policy: "
	  "'1/1s+2/1s+3/1s+4/1s+5/1s+6/1s+7/1s+8/1s+9/1s' has 9 rules (at most 8)" },
	{ "[tier a]\npolicy = 10/1s+0/1h\n", "2: policy: '10/1s+0/1h': rule 2: '0/1h': the limit '0' is out of "
	  "range [1, 1000000000000]" },
	{ "[tier a]\nmode = loud\n", "2: mode 'loud' is not enforce or shadow" },
	{ "[tier a]\nmode = shadow\nmode = shadow\n", "3: 'mode' given twice in [tier a]" },
	{ "[tier a]\nalgorithm = fixed_window\npolicy = 10/1s:b20\n[defaults]\ntier = a\n", "1: tier 'a': "
	  "policy: rule 1: a burst does not apply to fixed_window: it has no bucket (only token_bucket, gcra, "
	  "leaky_bucket take a burst)" },
	{ "[tier a]\nunlimited = true\nmode = shadow\n[defaults]\ntier = a\n", "1: tier 'a' is unlimited: it "
	  "takes no algorithm, limit, window, burst, policy, mode, max_keys or when_full" },
	{ "[tier a]\nunlimited = true\nlimit = 5\n[defaults]\ntier = a\n", "1: tier 'a' is unlimited: it takes no "
	  "algorithm, limit, window, burst, policy, mode, max_keys or when_full" },
	{ "[tier a]\nlimit = 5\nlimit = 6\n", "3: 'limit' given twice in [tier a]" },
	{ "limit = 5\n", "1: 'limit' outside any section" },
	{ "[tier a b]\n", "1: bad tier name 'a b' (1-63 of A-Z a-z 0-9 _ -)" },
	{ "[tier a\n", "1: section header without ']'" },
	{ "[tier a]\njunk\n", "2: syntax error (expected '[section]' or 'name = value')" },
	{ "[tier a]\non_error = maybe\n", "2: on_error 'maybe' is not fail_open or fail_closed" },
	{ "[tier a]\nwhen_full = drop\n", "2: when_full 'drop' is not evict, fail_open or fail_closed" },
	{ "[defaults]\ntier = a\nname = b\n", "3: unknown key 'name' in [defaults] (tier)" },
	{ "[tier a]\nalgorithm = gcra\nlimit = 5\nwindow = 1s\nburst = 1000000000001\n",
	  "5: burst '1000000000001' is not an integer in [1, 1000000000000]" },
	{ "[tier a]\nunlimited = yes\n", "2: unlimited 'yes' is not true or false" },
	{ "[clients]\na =\n", "2: no client ids for tier 'a'" },
	/* the message says "out of memory" but the file is at fault: RL_EINVAL */
	{ "[tier a]\nalgorithm = out of memory\n", "2: unknown algorithm 'out of memory' (token_bucket, gcra, "
	  "leaky_bucket, fixed_window, sliding_log, sliding_counter)" },
	{ "[tier a]\nalgorithm = cannot allocate\n", "2: unknown algorithm 'cannot allocate' (token_bucket, gcra, "
	  "leaky_bucket, fixed_window, sliding_log, sliding_counter)" },
	{ "[tier a]\nmax_keys = 4294967297\n", "2: max_keys '4294967297' is not an integer in [1, 4294967296]" },
	{ "[tier a]\nalgorithm = gcra\n  limit = 5\n", "3: indented line (keys and sections start in column 1; "
	  "values do not continue over lines)" },
	{ "[tier a]\n\t[tier b]\n", "2: indented line (keys and sections start in column 1; values do not "
	  "continue over lines)" },
	{ "[tier a]\n; a comment\nalgorithm = gcra ; inline\n# another\nlimit = 1\nwindow = 1s\n"
	  "[clients]\na = \tx\n[defaults]\ntier = nope\n", "10: default tier 'nope' is not defined" },
};

static void test_bad_files(void **unused)
{
	char err[512], want[512];

	(void)unused;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct rl_registry *r = (struct rl_registry *)&want; /* must be reset to NULL */
		const char *path = write_tmp(bad[i].text);
		int rc = rl_registry_load(&r, path, err, sizeof(err));

		snprintf(want, sizeof(want), "%s:%s", path, bad[i].message);
		unlink(path);
		if (rc != RL_EINVAL || r != NULL || strcmp(err, want) != 0)
			fail_msg("case %zu: rc %d\n got: %s\nwant: %s", i, rc, err, want);
	}
}

/*
 * Extra tier keys (rl_registry_load_with), a table of the test's own: weight,
 * an integer in [1, 100], and zone, whose parser gives no message.
 */
static int parse_weight(const struct rl_tier_key *key, const char *value, int64_t *out, char *msg,
			size_t msg_len)
{
	if (rl_parse_i64(value, out) && *out >= 1 && *out <= 100)
		return RL_OK;
	snprintf(msg, msg_len, "%s '%s' is not an integer in [1, 100]", key->name, value);
	return RL_EINVAL;
}

static int parse_zone(const struct rl_tier_key *key, const char *value, int64_t *out, char *msg,
		      size_t msg_len)
{
	(void)key;
	(void)msg;
	(void)msg_len;
	return rl_parse_i64(value, out) ? RL_OK : RL_EINVAL;
}

static const struct rl_tier_key extra[] = {
	{ "weight", "weight_units", parse_weight },
	{ "zone", NULL, parse_zone },
};
#define NEXTRA (sizeof(extra) / sizeof(extra[0]))

/* A given key's value reaches rl_tier_ext by its place; a key not given reads unset, 0. */
static void test_extra_keys(void **unused)
{
	static const char text[] = "[tier a]\nalgorithm = gcra\nlimit = 5\nwindow = 1s\nweight = 7\n"
				   "[tier b]\nzone = -3 ; inline comment\nalgorithm = gcra\nlimit = 5\nwindow = 1s\n"
				   "[tier c]\nunlimited = true\n[defaults]\ntier = a\n";
	struct rl_registry *r = NULL;
	char err[256];
	int64_t v = 99;

	(void)unused;
	const char *path = write_tmp(text);
	assert_int_equal(rl_registry_load_with(&r, path, extra, NEXTRA, err, sizeof(err)), RL_OK);
	unlink(path);
	assert_string_equal(err, "");
	const struct rl_tier *a = rl_registry_tier_at(r, 0), *b = rl_registry_tier_at(r, 1),
			     *c = rl_registry_tier_at(r, 2);
	assert_true(rl_tier_ext(a, 0, &v));
	assert_int_equal(v, 7);
	assert_false(rl_tier_ext(a, 1, &v));
	assert_int_equal(v, 0);
	assert_false(rl_tier_ext(b, 0, &v));
	assert_int_equal(v, 0);
	assert_true(rl_tier_ext(b, 1, &v));
	assert_int_equal(v, -3);
	assert_true(rl_tier_ext(b, 1, NULL));
	for (size_t i = 0; i < NEXTRA; i++) {
		v = 99;
		assert_false(rl_tier_ext(c, i, &v));
		assert_int_equal(v, 0);
	}
	/* past the table, and past any table */
	assert_false(rl_tier_ext(a, NEXTRA, &v));
	assert_false(rl_tier_ext(a, RL_TIER_EXT_MAX, &v));
	assert_int_equal(v, 0);
	/* the built-in keys as without extra keys */
	assert_int_equal(a->limiter.rule.limit, 5);
	assert_int_equal(b->limiter.rule.burst, 5);
	assert_int_equal(rl_registry_check(r, "x", 1, 0, &(struct rl_answer){ 0 }), RL_ALLOWED);
	rl_registry_destroy(r);

	/* loaded without them, a file that uses none loads the same */
	assert_int_equal(rl_registry_load(&r, example, err, sizeof(err)), RL_OK);
	for (size_t i = 0; i < rl_registry_tier_count(r); i++)
		assert_false(rl_tier_ext(rl_registry_tier_at(r, i), 0, NULL));
	rl_registry_destroy(r);
}

/* Extra keys follow the built-in keys' rules, with the same messages. */
static void test_extra_key_mistakes(void **unused)
{
	static const struct {
		const char *text;
		const char *message; /* after "FILE:" */
	} cases[] = {
		{ "[tier a]\nlimt = 10\n", "2: unknown key 'limt' in [tier a] (algorithm, limit, window, burst, "
		  "policy, mode, unlimited, on_error, max_keys, when_full, weight, zone)" },
		{ "[tier a]\nweight = 5\nweight = 6\n", "3: 'weight' given twice in [tier a]" },
		{ "[tier a]\nzone = 1\nzone = x\n", "3: 'zone' given twice in [tier a]" },
		{ "[tier a]\nweight = 0\n", "2: weight '0' is not an integer in [1, 100]" },
		{ "[tier a]\nweight = 5x\n", "2: weight '5x' is not an integer in [1, 100]" },
		{ "[tier a]\nzone = east\n", "2: zone 'east' is not a valid value" },
		{ "[tier a]\nunlimited = true\nzone = 5\n[defaults]\ntier = a\n",
		  "1: tier 'a' is unlimited: it takes no weight or zone" },
		{ "[tier a]\nweight = 5\nunlimited = true\n[defaults]\ntier = a\n",
		  "1: tier 'a' is unlimited: it takes no weight or zone" },
		/* the built-in keys' refusal first */
		{ "[tier a]\nunlimited = true\nweight = 5\nlimit = 5\n[defaults]\ntier = a\n",
		  "1: tier 'a' is unlimited: it takes no algorithm, limit, window, burst, policy, mode, max_keys or when_full" },
		/* a line's problem before the tier's */
		{ "[tier a]\nunlimited = true\nweight = 5\n[tier b]\nweight = 500\n",
		  "5: weight '500' is not an integer in [1, 100]" },
	};
	char err[512], want[512];

	(void)unused;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rl_registry *r = (struct rl_registry *)&want; /* must be reset to NULL */
		const char *path = write_tmp(cases[i].text);
		int rc = rl_registry_load_with(&r, path, extra, NEXTRA, err, sizeof(err));

		snprintf(want, sizeof(want), "%s:%s", path, cases[i].message);
		unlink(path);
		if (rc != RL_EINVAL || r != NULL || strcmp(err, want) != 0)
			fail_msg("case %zu: rc %d\n got: %s\nwant: %s", i, rc, err, want);
	}
}

/* A bad table of extra keys is the caller's mistake: RL_EINVAL, named, before the file is read. */
static void test_extra_key_tables(void **unused)
{
	static const struct rl_tier_key nine[RL_TIER_EXT_MAX + 1] = {
		{ "k0", NULL, parse_zone }, { "k1", NULL, parse_zone }, { "k2", NULL, parse_zone },
		{ "k3", NULL, parse_zone }, { "k4", NULL, parse_zone }, { "k5", NULL, parse_zone },
		{ "k6", NULL, parse_zone }, { "k7", NULL, parse_zone }, { "k8", NULL, parse_zone },
	};
	static const struct {
		struct rl_tier_key keys[2];
		const char *message;
	} cases[] = {
		{ { { "zone", NULL, parse_zone }, { NULL, NULL, parse_zone } },
		  "extra tier key 1: no name or no parse function" },
		{ { { "zone", NULL, NULL }, { "weight", NULL, parse_zone } },
		  "extra tier key 0: no name or no parse function" },
		{ { { "zone", NULL, parse_zone }, { "Zone", NULL, parse_zone } },
		  "extra tier key 1: its name is not 1-31 of a-z 0-9 _" },
		{ { { "", NULL, parse_zone }, { "zone", NULL, parse_zone } },
		  "extra tier key 0: its name is not 1-31 of a-z 0-9 _" },
		{ { { "zone", NULL, parse_zone }, { "a234567890123456789012345678901x", NULL, parse_zone } },
		  "extra tier key 1: its name is not 1-31 of a-z 0-9 _" },
		{ { { "zone", NULL, parse_zone }, { "when_full", NULL, parse_zone } },
		  "extra tier key 1: its name is a built-in key's" },
		{ { { "zone", NULL, parse_zone }, { "zone", NULL, parse_zone } },
		  "extra tier key 1: its name is an earlier key's" },
	};
	struct rl_registry *r = NULL;
	char err[256];

	(void)unused;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(rl_registry_load_with(&r, example, cases[i].keys, 2, err, sizeof(err)), RL_EINVAL);
		assert_null(r);
		assert_string_equal(err, cases[i].message);
	}
	assert_int_equal(rl_registry_load_with(&r, example, nine, RL_TIER_EXT_MAX + 1, err, sizeof(err)),
			 RL_EINVAL);
	assert_string_equal(err, "extra tier keys: 9, more than 8");
	assert_int_equal(rl_registry_load_with(&r, example, NULL, 1, err, sizeof(err)), RL_EINVAL);
	/* the longest name, and as many keys as a load takes */
	static const struct rl_tier_key longest = { "a234567890123456789012345678901", NULL, parse_zone };
	assert_int_equal(rl_registry_load_with(&r, example, &longest, 1, err, sizeof(err)), RL_OK);
	rl_registry_destroy(r);
	assert_int_equal(rl_registry_load_with(&r, example, nine, RL_TIER_EXT_MAX, err, sizeof(err)), RL_OK);
	rl_registry_destroy(r);
}

/* An embedded NUL byte is refused with its line, not silently cut. */
static void test_nul_byte(void **unused)
{
	static const char text[] = "[tier a]\nalgorithm = gcra\nlimit = 1\0junk\nwindow = 1s\n"
				    "[defaults]\ntier = a\n";
	char err[512], want[512];
	struct rl_registry *r = NULL;

	(void)unused;
	const char *path = write_bytes(text, sizeof(text) - 1);
	assert_int_equal(rl_registry_load(&r, path, err, sizeof(err)), RL_EINVAL);
	snprintf(want, sizeof(want), "%s:3: NUL byte in the line", path);
	unlink(path);
	assert_string_equal(err, want);
	assert_null(r);
}

/* A UTF-8 byte order mark before line 1 is skipped: "[tier a]" is a section. */
static void test_bom(void **unused)
{
	struct rl_registry *r = NULL;
	char err[256];

	(void)unused;
	const char *path = write_tmp("\xEF\xBB\xBF[tier a]\nunlimited = true\n[defaults]\ntier = a\n");
	int rc = rl_registry_load(&r, path, err, sizeof(err));
	unlink(path);
	if (rc != RL_OK)
		fail_msg("rc %d: %s", rc, err);
	assert_string_equal(rl_registry_tier_at(r, 0)->name, "a");
	rl_registry_destroy(r);
}

/* A bad file with no room for a message: the right code, no crash. */
static void test_no_error_buffer(void **unused)
{
	struct rl_registry *r = NULL;

	(void)unused;
	const char *path = write_tmp("[tier a]\nalgorithm = out of memory\n");
	assert_int_equal(rl_registry_load(&r, path, NULL, 0), RL_EINVAL);
	assert_null(r);
	unlink(path);
	path = write_tmp("[tier a]\nunlimited = true\n[defaults]\ntier = a\n");
	assert_int_equal(rl_registry_load(&r, path, NULL, 0), RL_OK);
	unlink(path);
	rl_registry_destroy(r);
	assert_int_equal(rl_registry_load(&r, "/nonexistent/tiers.ini", NULL, 0), RL_ENOTFOUND);
}

/* Lines were cut at 199 characters (inih's buffer): a 1000-character line
 * loads whole, and one of 65536 characters is refused, naming the limit. */
static void test_line_limit(void **unused)
{
	static char text[70000];
	char err[512], want[512];
	struct rl_registry *r = NULL;

	(void)unused;
	snprintf(text, sizeof(text), "[tier a]\nunlimited = true\n[clients]\na = %01000d\n[defaults]\ntier = a\n", 7);
	const char *path = write_tmp(text);
	int rc = rl_registry_load(&r, path, err, sizeof(err));
	unlink(path);
	if (rc != RL_OK)
		fail_msg("1004 characters: rc %d: %s", rc, err);
	assert_int_equal(strlen(rl_registry_client_at(r, 0, NULL)), 1000);
	rl_registry_destroy(r);
	r = NULL;

	/* "a = " (4) + 65532 digits = 65536 characters */
	snprintf(text, sizeof(text), "[tier a]\nunlimited = true\n[clients]\na = %065532d\n[defaults]\ntier = a\n", 7);
	path = write_tmp(text);
	assert_int_equal(rl_registry_load(&r, path, err, sizeof(err)), RL_EINVAL);
	snprintf(want, sizeof(want), "%s:4: line longer than 65535 characters", path);
	unlink(path);
	assert_string_equal(err, want);
	assert_null(r);
}

/* max_keys up to RL_STORE_MAX_KEYS loads without allocating any store. */
static void test_largest_max_keys_loads(void **unused)
{
	struct rl_registry *r = NULL;
	char err[256];

	(void)unused;
	const char *path = write_tmp("[tier a]\nalgorithm = sliding_log\nlimit = 1\nwindow = 1s\n"
				     "max_keys = 4294967296\n[defaults]\ntier = a\n");
	int rc = rl_registry_load(&r, path, err, sizeof(err));
	unlink(path);
	if (rc != RL_OK)
		fail_msg("rc %d: %s", rc, err);
	assert_int_equal(rl_registry_tier_at(r, 0)->max_keys, (size_t)1 << 32);
	rl_registry_destroy(r);
}

static void test_long_line_and_missing_file(void **unused)
{
	char err[512];
	struct rl_registry *r = NULL;

	(void)unused;
	assert_int_equal(rl_registry_load(&r, "/nonexistent/tiers.ini", err, sizeof(err)), RL_ENOTFOUND);
	assert_string_equal(err, "/nonexistent/tiers.ini: cannot open: No such file or directory");
	assert_null(r);
}

/*
 * A NULL client of length 0 is the empty id: resolved to the default tier
 * without memcmp(NULL, ..., 0) (undefined; UBSan's nonnull check) while
 * clients are mapped. An error leaves a verdict that is not "allowed".
 */
static void test_null_client_and_error_verdict(void **unused)
{
	struct rl_registry *r = NULL;
	char err[256];
	struct rl_answer a;

	(void)unused;
	assert_int_equal(rl_registry_load(&r, write_tmp("[tier free]\nalgorithm = gcra\nlimit = 1\nwindow = 1s\n"
							   "[tier open]\nunlimited = true\n"
							   "[clients]\nopen = alice\n[defaults]\ntier = free\n"),
					  err, sizeof(err)), RL_OK);
	assert_string_equal(rl_registry_resolve(r, NULL, 0)->name, "free");
	assert_int_equal(rl_registry_check(r, NULL, 0, SEC, &a), RL_ALLOWED);
	assert_string_equal(a.tier->name, "free");
	assert_int_equal(rl_registry_check(r, "", 0, SEC, &a), RL_REJECTED); /* the same key: "" */
	assert_int_equal(rl_registry_check(r, NULL, 1, SEC, &a), RL_EINVAL);

	assert_int_equal(rl_registry_check(r, "bob", 3, -1, &a), RL_ERANGE);
	assert_int_equal(a.verdict, RL_REJECTED);
	assert_int_equal(rl_registry_check(r, "alice", 5, RL_TIME_MAX_NS + 1, &a), RL_ERANGE);
	assert_int_equal(a.verdict, RL_REJECTED); /* unlimited, but no verdict for a bad time */
	assert_int_equal(rl_registry_check(r, "alice", 5, SEC, &a), RL_ALLOWED);
	assert_int_equal(a.verdict, RL_ALLOWED);
	rl_registry_destroy(r);
}

/* The tier of client id s. */
static const char *tier_of(const struct rl_registry *r, const char *s)
{
	return rl_registry_resolve(r, s, strlen(s))->name;
}

/* A slow model of the longest prefix: the ranges as bit strings, compared bit by bit. */
static int model_bits(const char *addr, unsigned char out[16])
{
	int fam = inet_pton(AF_INET, addr, out) == 1 ? 4 : inet_pton(AF_INET6, addr, out) == 1 ? 6 : 0;
	return fam;
}

/* [clients] took "10.0.0.0/8" as a literal id: ranges now hold addresses,
 * the longest prefix wins, an exact id beats any range, IPv4 and IPv6
 * apart; a bad range is refused with its line. */
static void test_cidr_ranges(void **unused)
{
	static const char text[] = "[tier a]\nunlimited = true\n[tier b]\nunlimited = true\n"
				   "[tier c]\nunlimited = true\n[tier d]\nunlimited = true\n"
				   "[clients]\na = 10.0.0.0/8 2001:db8::/32\nb = 10.1.0.0/16 10.1.2.3/32\n"
				   "c = 2001:db8:1::/48 0.0.0.0/0\nd = 10.1.2.3 10.1.2.128/25 2001:DB8:3::7\n"
				   "[defaults]\ntier = d\n";
	static const struct {
		const char *client, *tier;
	} want[] = {
		{ "10.1.2.3", "d" },   /* the exact id, though 10.1.2.3/32 holds it too */
		{ "10.1.2.4", "b" },   /* /16 over /8 */
		{ "10.1.2.200", "d" }, /* /25 */
		{ "10.1.2.127", "b" }, /* just below the /25 */
		{ "10.200.0.1", "a" }, /* /8 */
		{ "11.0.0.1", "c" },   /* 0.0.0.0/0 holds every IPv4 address */
		{ "2001:db8:1::5", "c" },
		{ "2001:db8:2::1", "a" },
		{ "2001:db9::1", "d" }, /* no IPv6 range: the default */
		/* IPv4-mapped IPv6 (a dual-stack server's IPv4 client): its IPv4 address */
		{ "::ffff:10.0.0.1", "a" },
		{ "::FFFF:10.1.2.4", "b" },
		{ "::ffff:a01:203", "d" },      /* 10.1.2.3, the literal id, in hex */
		{ "0:0:0:0:0:ffff:10.1.2.200", "d" },
		{ "::ffff:11.0.0.1", "c" },     /* 0.0.0.0/0 */
		{ "::10.0.0.1", "d" },          /* IPv4-compatible, not mapped: no range */
		/* every textual form of an IPv6 address */
		{ "2001:DB8:2::1", "a" },
		{ "2001:0db8:0002:0000:0000:0000:0000:0001", "a" },
		{ "2001:db8:3::7", "d" },       /* the literal id 2001:DB8:3::7 over 2001:db8::/32 */
		{ "2001:db8:3:0:0:0:0:7", "d" },
		{ "2001:db8:3::8", "a" },
		{ "10.0.0.0/8", "d" },  /* the range's text is no id */
		{ "alice", "d" },
		{ "", "d" },
	};
	struct rl_registry *r = NULL;
	char err[256];

	(void)unused;
	const char *path = write_tmp(text);
	int rc = rl_registry_load(&r, path, err, sizeof(err));
	unlink(path);
	if (rc != RL_OK)
		fail_msg("rc %d: %s", rc, err);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (strcmp(tier_of(r, want[i].client), want[i].tier) != 0)
			fail_msg("client '%s': tier %s, want %s", want[i].client, tier_of(r, want[i].client),
				 want[i].tier);

	/* seeded random IPv4 addresses against a bit-by-bit model of the ranges */
	static const struct {
		const char *net;
		int bits;
		const char *tier;
	} ranges[] = { { "10.0.0.0", 8, "a" }, { "10.1.0.0", 16, "b" }, { "10.1.2.3", 32, "b" },
		       { "0.0.0.0", 0, "c" }, { "10.1.2.128", 25, "d" } };
	uint64_t seed = t_seed_from_env(0xc1d7), st = seed;
	for (int n = 0; n < 20000; n++) {
		uint64_t x = t_splitmix(&st);
		unsigned char a[16], net[16];
		char ip[32];
		/* mostly inside 10.1.2.0/23 and 10.0.0.0/8, where the ranges nest */
		uint32_t v = n % 3 == 0 ? (uint32_t)x : n % 3 == 1 ? 0x0a000000u | (uint32_t)(x & 0xffffff)
								: 0x0a010200u | (uint32_t)(x & 0x1ff);
		snprintf(ip, sizeof(ip), "%u.%u.%u.%u", v >> 24, (v >> 16) & 255, (v >> 8) & 255, v & 255);
		assert_int_equal(model_bits(ip, a), 4);
		const char *expect = "d";
		int best = -1;
		if (strcmp(ip, "10.1.2.3") != 0)
			for (size_t k = 0; k < sizeof(ranges) / sizeof(ranges[0]); k++) {
				model_bits(ranges[k].net, net);
				int same = 1;
				for (int b = 0; b < ranges[k].bits && same; b++)
					same = ((a[b / 8] >> (7 - b % 8)) & 1) == ((net[b / 8] >> (7 - b % 8)) & 1);
				if (same && ranges[k].bits > best) {
					best = ranges[k].bits;
					expect = ranges[k].tier;
				}
			}
		if (strcmp(tier_of(r, ip), expect) != 0)
			fail_msg("seed 0x%llx: client %s: tier %s, model %s", (unsigned long long)seed, ip,
				 tier_of(r, ip), expect);
	}
	rl_registry_destroy(r);

	static const struct {
		const char *clients, *want;
	} bad_ranges[] = {
		{ "a = 10.0.0.1/8", "4: CIDR range '10.0.0.1/8' has bits set past its /8 prefix" },
		{ "a = 10.0.0.0/33", "4: client '10.0.0.0/33' is not a CIDR range" },
		{ "a = 10.0.0.0/", "4: client '10.0.0.0/' is not a CIDR range" },
		{ "a = host/8", "4: client 'host/8' is not a CIDR range" },
		{ "a = 2001:db8::/129", "4: client '2001:db8::/129' is not a CIDR range" },
		{ "a = 2001:db8::/32\na = 2001:0db8::/32", "5: one CIDR range mapped twice (lines 4 and 5)" },
		{ "a = 2001:db8::1\na = 2001:DB8::1", "5: one address mapped twice (lines 4 and 5)" },
	};
	for (size_t i = 0; i < sizeof(bad_ranges) / sizeof(bad_ranges[0]); i++) {
		char t[256], w[300];
		snprintf(t, sizeof(t), "[tier a]\nunlimited = true\n[clients]\n%s\n[defaults]\ntier = a\n",
			 bad_ranges[i].clients);
		path = write_tmp(t);
		assert_int_equal(rl_registry_load(&r, path, err, sizeof(err)), RL_EINVAL);
		snprintf(w, sizeof(w), "%s:%s", path, bad_ranges[i].want);
		unlink(path);
		if (strncmp(err, w, strlen(w)) != 0)
			fail_msg("'%s': '%s', want '%s'", bad_ranges[i].clients, err, w);
	}
}

/*
 * policy = P: the tier decides as the policy limiter of its algorithm and P
 * (rl_policy_check's combined answer); mode = shadow admits every request,
 * keeping the state and the answer enforcing would have had, and counts
 * the would-rejects (per tier), a rule alone as a policy of that rule.
 */
static void test_policy_and_shadow_tiers(void **unused)
{
	(void)unused;
	const char *path = write_tmp("[tier p]\nalgorithm = sliding_counter\npolicy = 2/1s + 3/1h\n"
				     "[tier s]\nalgorithm = gcra\nlimit = 2\nwindow = 1h\nmode = shadow\n"
				     "[tier sp]\nalgorithm = fixed_window\npolicy = 1/1s+5/1h:units\nmode = shadow\n"
				     "[clients]\ns = sam\nsp = sue\n[defaults]\ntier = p\n");
	struct rl_registry *r;
	char err[256];

	assert_int_equal(rl_registry_load(&r, path, err, sizeof(err)), RL_OK);
	unlink(path);
	const struct rl_tier *p = rl_registry_resolve(r, "pat", 3), *sh = rl_registry_resolve(r, "sam", 3),
			     *sp = rl_registry_resolve(r, "sue", 3);
	assert_non_null(p->policy);
	assert_int_equal(p->policy->count, 2);
	assert_false(p->shadow);
	assert_true(sh->shadow && sh->policy && sh->policy->count == 1);
	assert_int_equal(sh->limiter.rule.limit, 2);

	/* the policy against a copy of it, request by request */
	struct rl_policy pol;
	struct rl_policy_limiter ref;
	assert_int_equal(rl_policy_parse("2/1s + 3/1h", &pol, err, sizeof(err)), RL_OK);
	assert_int_equal(rl_policy_limiter_init(&ref, rl_algo_find("sliding_counter"), &pol, err, sizeof(err)), RL_OK);
	_Alignas(16) unsigned char st[RL_POLICY_MAX_STATE] = { 0 };
	for (int i = 0; i < 12; i++) {
		int64_t t = (int64_t)i * 400000000;
		struct rl_answer a;
		struct rl_policy_answer want;
		int v = rl_registry_check(r, "pat", 3, t, &a);
		assert_int_equal(v, rl_policy_check(&ref, st, t, 1, &want));
		assert_int_equal(a.d.remaining, want.all.remaining);
		assert_int_equal(a.d.retry_after_ns, want.all.retry_after_ns);
		assert_int_equal(a.d.reset_ns, want.all.reset_ns);
		assert_false(a.would_reject);
	}
	assert_int_equal(rl_tier_would_reject(p), 0);

	/* shadow: 5 requests at one instant under 2/1h, all admitted, 3 would-rejects */
	int would = 0;
	for (int i = 0; i < 5; i++) {
		struct rl_answer a;
		assert_int_equal(rl_registry_check(r, "sam", 3, 1000, &a), RL_ALLOWED);
		assert_int_equal(a.verdict, RL_ALLOWED);
		would += a.would_reject;
		assert_true(a.would_reject == (i >= 2));
		assert_true(a.would_reject ? a.d.retry_after_ns > 0 : a.d.retry_after_ns == 0);
	}
	assert_int_equal(would, 3);
	assert_int_equal(rl_tier_would_reject(sh), 3);
	/* a shadow policy with ':units': a cost of 4 then 2 in one hour of 5 units: the second would be refused */
	struct rl_answer a;
	assert_int_equal(rl_registry_check_n(r, "sue", 3, 0, 4, &a), RL_ALLOWED);
	assert_false(a.would_reject);
	assert_int_equal(rl_registry_check_n(r, "sue", 3, 2000000000, 2, &a), RL_ALLOWED);
	assert_true(a.would_reject);
	assert_int_equal(rl_tier_would_reject(sp), 1);
	assert_int_equal(rl_tier_would_reject(NULL), 0);
	rl_registry_destroy(r);
}

int main(void)
{
	const char *src = __FILE__, *slash = strrchr(src, '/');
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null_client_and_error_verdict),
		cmocka_unit_test(test_example_file),
		cmocka_unit_test(test_extra_keys),
		cmocka_unit_test(test_extra_key_mistakes),
		cmocka_unit_test(test_extra_key_tables),
		cmocka_unit_test(test_on_error),
		cmocka_unit_test(test_on_error_decides_without_store),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_long_line_and_missing_file),
		cmocka_unit_test(test_nul_byte),
		cmocka_unit_test(test_bom),
		cmocka_unit_test(test_policy_and_shadow_tiers),
		cmocka_unit_test(test_no_error_buffer),
		cmocka_unit_test(test_line_limit),
		cmocka_unit_test(test_largest_max_keys_loads),
		cmocka_unit_test(test_cidr_ranges),
	};

	snprintf(example, sizeof(example), "%.*s/../examples/tiers.ini",
		 slash ? (int)(slash - src) : 1, slash ? src : ".");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
