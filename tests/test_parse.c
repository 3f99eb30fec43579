/*
 * test_parse.c - the shared number and duration syntax (parse.h): every
 * unit, the overflow edges, and what is refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "ratelab/parse.h"
#include "ratelab/rule.h"
#include "ratelab/status.h"

static void integers(void **u)
{
	(void)u;
	int64_t v = 7;

	assert_true(rl_parse_i64("0", &v) && v == 0);
	assert_true(rl_parse_i64("-42", &v) && v == -42);
	assert_true(rl_parse_i64("9223372036854775807", &v) && v == INT64_MAX);
	assert_true(rl_parse_i64("-9223372036854775808", &v) && v == INT64_MIN);
	v = 7;
	static const char *const bad[] = { "", "-", "+1", " 1", "1 ", "1e3", "0x10", "1.0",
					   "9223372036854775808", "-9223372036854775809",
					   "99999999999999999999999" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (rl_parse_i64(bad[i], &v))
			fail_msg("'%s' was accepted", bad[i]);
		assert_int_equal(v, 7); /* untouched on failure */
	}
}

static void durations(void **u)
{
	(void)u;
	static const struct {
		const char *s;
		int64_t ns;
	} good[] = { { "5ns", 5 },
		     { "5us", 5000 },
		     { "5ms", 5000000 },
		     { "5s", 5000000000 },
		     { "5m", 300000000000 },
		     { "5h", 18000000000000 },
		     { "9223372036854775807ns", INT64_MAX },
		     { "2562047h", 2562047 * 3600000000000LL } };
	int64_t ns;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		assert_true(rl_parse_duration(good[i].s, 0, &ns));
		assert_int_equal(ns, good[i].ns);
	}
	assert_true(rl_parse_duration("12", 1, &ns) && ns == 12);
	assert_true(rl_parse_duration("12", 1000000000, &ns) && ns == 12000000000);
	assert_false(rl_parse_duration("12", 0, &ns)); /* a unit is required */
	assert_false(rl_parse_duration("2562048h", 0, &ns)); /* past INT64_MAX ns */
	assert_false(rl_parse_duration("9223372036854775808ns", 0, &ns));
	static const char *const bad[] = { "", "s", "-5s", "+5s", "5 s", "5S", "5sec", "1.5s", "5ms5" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (rl_parse_duration(bad[i], 1, &ns))
			fail_msg("'%s' was accepted", bad[i]);
}

/*
 * Regression: a duration's digits are whatever rl_parse_i64 accepts, so 32
 * or more digits with leading zeros are a number too (they were refused).
 */
static void duration_digits_as_integers(void **u)
{
	(void)u;
	static const char zeros40[] = "0000000000000000000000000000000000000000";
	char buf[128];
	int64_t v, ns;

	snprintf(buf, sizeof(buf), "%s7", zeros40);
	assert_true(rl_parse_i64(buf, &v) && v == 7);
	snprintf(buf, sizeof(buf), "%s7s", zeros40);
	assert_true(rl_parse_duration(buf, 0, &ns));
	assert_int_equal(ns, 7000000000);
	snprintf(buf, sizeof(buf), "%s9223372036854775807ns", zeros40);
	assert_true(rl_parse_duration(buf, 0, &ns) && ns == INT64_MAX);
	snprintf(buf, sizeof(buf), "%s9223372036854775808ns", zeros40);
	assert_false(rl_parse_duration(buf, 0, &ns));
	snprintf(buf, sizeof(buf), "%s12", zeros40);
	assert_true(rl_parse_duration(buf, 1000, &ns) && ns == 12000);
	assert_false(rl_parse_duration("99999999999999999999999999999999s", 0, &ns));
}

/* rl_rule_parse: each part at both edges of its range, and the words of
 * each mistake (every command prints them after its option's name). */
static void rules(void **u)
{
	(void)u;
	struct rl_rule r;
	char msg[512];
	static const struct {
		const char *text;
		int64_t n, w, b;
	} good[] = {
		{ "10/1s", 10, 1000000000, 10 },
		{ "1/1ns", 1, 1, 1 },
		{ "1000000/1000000000000000000ns", 1000000, 1000000000000000000, 1000000 },
		{ "60/1m:b120", 60, 60000000000, 120 },
		{ "5/2h:b1", 5, 7200000000000, 1 },
		{ "5/1s:b1000000000", 5, 1000000000, 1000000000 },
		{ "007/1s", 7, 1000000000, 7 },
	};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		assert_int_equal(rl_rule_parse(good[i].text, &r, msg, sizeof(msg)), RL_OK);
		assert_int_equal(r.limit, good[i].n);
		assert_int_equal(r.window_ns, good[i].w);
		assert_int_equal(r.burst, good[i].b);
	}
	static const struct {
		const char *text, *msg;
	} bad[] = {
		{ "10", "'10' is not a rule (N/W or N/W:bB, e.g. 10/1s or 60/1m:b120)" },
		{ "", "'' is not a rule (N/W or N/W:bB, e.g. 10/1s or 60/1m:b120)" },
		{ "10:b5/1s", "'10:b5/1s' is not a rule (N/W or N/W:bB, e.g. 10/1s or 60/1m:b120)" },
		{ "0/1s", "'0/1s': the limit '0' is out of range [1, 1000000000000]" },
		{ "1000000000001/1s", "'1000000000001/1s': the limit '1000000000001' is out of range [1, 1000000000000]" },
		{ "x/1s", "'x/1s': the limit 'x' is not an integer" },
		{ "10/60", "'10/60': the window '60' has no unit (a duration needs one of ns, us, ms, s, m, h, e.g. 60s)" },
		{ "10/0s", "'10/0s': the window '0s' is out of range [1ns, 1000000000000000000ns]" },
		{ "10/1000000000000000001ns",
		  "'10/1000000000000000001ns': the window '1000000000000000001ns' is out of range [1ns, "
		  "1000000000000000000ns]" },
		{ "10/soon", "'10/soon': the window 'soon' is not a duration (an integer with unit ns, us, ms, s, m or h)" },
		{ "10/1s:5", "'10/1s:5': the burst '5' is not bB (N/W or N/W:bB, e.g. 10/1s or 60/1m:b120)" },
		{ "10/1s:b0", "'10/1s:b0': the burst '0' is out of range [1, 1000000000000]" },
		{ "10/1s:b1000000000001", "'10/1s:b1000000000001': the burst '1000000000001' is out of range [1, 1000000000000]" },
		{ "10/1s:bx", "'10/1s:bx': the burst 'x' is not an integer" },
		{ "1\n0/1s", "'1\\n0/1s': the limit '1\\n0' is not an integer" },
		{ "1\x1b/1s", "'1\\x1b/1s': the limit '1\\x1b' is not an integer" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(rl_rule_parse(bad[i].text, &r, msg, sizeof(msg)), RL_EINVAL);
		assert_string_equal(msg, bad[i].msg);
	}
	/* control bytes escaped, a long text cut with its length */
	assert_int_equal(rl_rule_parse("1\n/1s", &r, msg, sizeof(msg)), RL_EINVAL);
	char big[300];
	memset(big, '7', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(rl_rule_parse(big, &r, msg, sizeof(msg)), RL_EINVAL);
	assert_non_null(strstr(msg, "...(299 bytes) is not a rule"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(integers),
		cmocka_unit_test(durations),
		cmocka_unit_test(duration_digits_as_integers),
		cmocka_unit_test(rules),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
