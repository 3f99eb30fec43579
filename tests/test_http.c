/*
 * test_http.c - exact header strings: 429 and Retry-After when rejected,
 * the RateLimit-Policy / RateLimit fields, the legacy trio, rounding up of
 * every duration, escaping, and a buffer one byte too small.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ratelab/http.h"

#define SEC 1000000000LL

static void test_allowed(void **unused)
{
	struct rl_http_policy p = { "free", 10, SEC };
	struct rl_decision d = { .remaining = 3, .reset_ns = 400000000 };
	char buf[256];

	(void)unused;
	assert_int_equal(rl_http_status(RL_ALLOWED), 200);
	int n = rl_http_headers(buf, sizeof(buf), &p, RL_ALLOWED, &d, 0);
	assert_string_equal(buf, "RateLimit-Policy: \"free\";q=10;w=1\r\n"
				 "RateLimit: \"free\";r=3;t=1\r\n");
	assert_int_equal(n, (int)strlen(buf));
}

static void test_rejected_legacy(void **unused)
{
	struct rl_http_policy p = { "premium", 100, 60 * SEC };
	struct rl_decision d = { .remaining = 0, .retry_after_ns = SEC + 1, .reset_ns = 59 * SEC };
	char buf[512];

	(void)unused;
	assert_int_equal(rl_http_status(RL_REJECTED), 429);
	rl_http_headers(buf, sizeof(buf), &p, RL_REJECTED, &d, RL_HTTP_LEGACY | RL_HTTP_LF);
	assert_string_equal(buf, "RateLimit-Policy: \"premium\";q=100;w=60\n"
				 "RateLimit: \"premium\";r=0;t=59\n"
				 "Retry-After: 2\n"
				 "X-RateLimit-Limit: 100\n"
				 "X-RateLimit-Remaining: 0\n"
				 "X-RateLimit-Reset: 59\n");
}

static void test_rounding(void **unused)
{
	(void)unused;
	assert_int_equal(rl_http_seconds_up(0), 0);
	assert_int_equal(rl_http_seconds_up(-5), 0);
	assert_int_equal(rl_http_seconds_up(1), 1);
	assert_int_equal(rl_http_seconds_up(SEC), 1);
	assert_int_equal(rl_http_seconds_up(SEC + 1), 2);
	assert_int_equal(rl_http_seconds_up(INT64_MAX), INT64_MAX / SEC + 1);

	struct rl_http_policy p = { "ms", 5, 500000 }; /* 5 per 0.5 ms: w rounds up to 1 */
	struct rl_decision d = { .remaining = 4, .reset_ns = 0 };
	char buf[128];
	rl_http_headers(buf, sizeof(buf), &p, RL_ALLOWED, &d, RL_HTTP_LF);
	assert_string_equal(buf, "RateLimit-Policy: \"ms\";q=5;w=1\nRateLimit: \"ms\";r=4;t=0\n");
}

static void test_escaping_and_errors(void **unused)
{
	struct rl_http_policy p = { "a\"b\\c", 1, SEC };
	struct rl_decision d = { 0 };
	char buf[128];

	(void)unused;
	rl_http_headers(buf, sizeof(buf), &p, RL_ALLOWED, &d, RL_HTTP_LF);
	assert_string_equal(buf, "RateLimit-Policy: \"a\\\"b\\\\c\";q=1;w=1\nRateLimit: \"a\\\"b\\\\c\";r=0;t=0\n");

	p.name = "tab\there";
	assert_int_equal(rl_http_headers(buf, sizeof(buf), &p, RL_ALLOWED, &d, 0), RL_EINVAL);
	p.name = "x";
	assert_int_equal(rl_http_headers(buf, sizeof(buf), &p, 7, &d, 0), RL_EINVAL);
	p.window_ns = 0;
	assert_int_equal(rl_http_headers(buf, sizeof(buf), &p, RL_ALLOWED, &d, 0), RL_EINVAL);
	p.window_ns = SEC;

	/* exactly enough room, then one byte less */
	int n = rl_http_headers(buf, sizeof(buf), &p, RL_ALLOWED, &d, 0);
	assert_true(n > 0);
	assert_int_equal(rl_http_headers(buf, (size_t)n + 1, &p, RL_ALLOWED, &d, 0), n);
	assert_int_equal(rl_http_headers(buf, (size_t)n, &p, RL_ALLOWED, &d, 0), RL_EFULL);
	assert_string_equal(buf, "");
	assert_int_equal(rl_http_headers(buf, 0, &p, RL_ALLOWED, &d, 0), RL_EFULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_allowed),
		cmocka_unit_test(test_rejected_legacy),
		cmocka_unit_test(test_rounding),
		cmocka_unit_test(test_escaping_and_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
