/*
 * test_parse.c - the shared number and duration syntax (parse.h): every
 * unit, the overflow edges, and what is refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "ratelab/parse.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(integers),
		cmocka_unit_test(durations),
		cmocka_unit_test(duration_digits_as_integers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
