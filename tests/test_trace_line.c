/*
 * test_trace_line.c - the one trace line reader (trace_line.h) and the
 * line reader under it (lines.h): what is accepted, each bound at its
 * edge and one past it, the one wording of every mistake, and the line
 * endings and byte-order mark every command reads alike.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "lines.h"
#include "ratelab/algo.h"
#include "trace_line.h"

static bool parse(const char *text, struct sim_trace_line *l, char *why, size_t why_len)
{
	static char buf[512];

	snprintf(buf, sizeof(buf), "%s", text);
	return sim_trace_line_parse(buf, l, why, why_len);
}

static void accepted(void **u)
{
	(void)u;
	struct sim_trace_line l;
	char why[256];

	assert_true(parse("0 a", &l, why, sizeof(why)));
	assert_int_equal(l.t_ns, 0);
	assert_int_equal(l.key_len, 1);
	assert_memory_equal(l.key, "a", 2);
	assert_int_equal(l.cost, 1);
	assert_false(l.has_cost);

	assert_true(parse(" \t4000000000000000000\tclient-7 \t1000000000000  ", &l, why, sizeof(why)));
	assert_int_equal(l.t_ns, RL_TIME_MAX_NS);
	assert_int_equal(l.key_len, 8);
	assert_string_equal(l.key, "client-7");
	assert_int_equal(l.cost, RL_COST_MAX);
	assert_true(l.has_cost);

	assert_true(parse("007 k 01", &l, why, sizeof(why))); /* leading zeros are a number */
	assert_int_equal(l.t_ns, 7);
	assert_int_equal(l.cost, 1);
	assert_true(l.has_cost);
	assert_false(l.has_settle);
}

/* The settle form 'T KEY COST ACTUAL DONE_T', each bound at its edge (one past it: refused). */
static void accepted_settle(void **u)
{
	(void)u;
	struct sim_trace_line l;
	char why[256];

	assert_true(parse("5 a 3 0 5", &l, why, sizeof(why))); /* ACTUAL 0, DONE_T == T */
	assert_true(l.has_settle);
	assert_true(l.has_cost);
	assert_int_equal(l.t_ns, 5);
	assert_string_equal(l.key, "a");
	assert_int_equal(l.cost, 3);
	assert_int_equal(l.actual, 0);
	assert_int_equal(l.done_ns, 5);

	assert_true(parse("\t0 k\t1000000000000 1000000000000 4000000000000000000 ", &l, why, sizeof(why)));
	assert_true(l.has_settle);
	assert_int_equal(l.cost, RL_COST_MAX);
	assert_int_equal(l.actual, RL_COST_MAX);
	assert_int_equal(l.done_ns, RL_TIME_MAX_NS);

	assert_true(parse("4000000000000000000 k 1 00 4000000000000000000", &l, why, sizeof(why)));
	assert_int_equal(l.t_ns, RL_TIME_MAX_NS);
	assert_int_equal(l.actual, 0);
	assert_int_equal(l.done_ns, RL_TIME_MAX_NS);
}

static void refused(void **u)
{
	(void)u;
	static const struct {
		const char *line, *why;
	} cases[] = {
		{ "5", "expected 'T KEY'" },
		{ "5 a 1 x", "expected 'T KEY [COST]' or 'T KEY COST ACTUAL DONE_T'" },
		{ "5 a 1 2 9 x", "expected 'T KEY [COST]' or 'T KEY COST ACTUAL DONE_T'" },
		{ "5 a 1 2 9 x y z", "expected 'T KEY [COST]' or 'T KEY COST ACTUAL DONE_T'" },
		{ "5 a 0 2 9", "cost '0' is not an integer in [1, 1000000000000]" },
		{ "5 a 1 -1 9", "actual cost '-1' is not an integer in [0, 1000000000000]" },
		{ "5 a 1 1000000000001 9", "actual cost '1000000000001' is not an integer in [0, 1000000000000]" },
		{ "5 a 1 2.5 9", "actual cost '2.5' is not an integer in [0, 1000000000000]" },
		{ "5 a 1 2 4", "done time '4' is not an integer number of ns in [T, 4000000000000000000] (T = 5)" },
		{ "5 a 1 2 4000000000000000001",
		  "done time '4000000000000000001' is not an integer number of ns in [T, 4000000000000000000] (T = 5)" },
		{ "5 a 1 2 9ns", "done time '9ns' is not an integer number of ns in [T, 4000000000000000000] (T = 5)" },
		{ "abc a", "time 'abc' is not an integer number of ns in [0, 4000000000000000000]" },
		{ "-1 a", "time '-1' is not an integer number of ns in [0, 4000000000000000000]" },
		{ "-0 a", "time '-0' is not an integer number of ns in [0, 4000000000000000000]" },
		{ "+1 a", "time '+1' is not an integer number of ns in [0, 4000000000000000000]" },
		{ "1.5 a", "time '1.5' is not an integer number of ns in [0, 4000000000000000000]" },
		{ "1e3 a", "time '1e3' is not an integer number of ns in [0, 4000000000000000000]" },
		{ "5ms a", "time '5ms' is not an integer number of ns in [0, 4000000000000000000]" },
		{ "4000000000000000001 a",
		  "time '4000000000000000001' is not an integer number of ns in [0, 4000000000000000000]" },
		{ "18446744073709551616 a",
		  "time '18446744073709551616' is not an integer number of ns in [0, 4000000000000000000]" },
		{ "\xEF\xBB\xBF" "0 a", "time '\xEF\xBB\xBF" "0' is not an integer number of ns in [0, 4000000000000000000]" },
		{ "0\x01 a", "time '0\\x01' is not an integer number of ns in [0, 4000000000000000000]" },
		{ "0 a 0", "cost '0' is not an integer in [1, 1000000000000]" },
		{ "0 a 1000000000001", "cost '1000000000001' is not an integer in [1, 1000000000000]" },
		{ "0 a -1", "cost '-1' is not an integer in [1, 1000000000000]" },
		{ "0 a 2.5", "cost '2.5' is not an integer in [1, 1000000000000]" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sim_trace_line l;
		char why[256] = "";
		if (parse(cases[i].line, &l, why, sizeof(why)))
			fail_msg("'%s' was accepted", cases[i].line);
		if (strcmp(why, cases[i].why) != 0)
			fail_msg("'%s': got \"%s\", want \"%s\"", cases[i].line, why, cases[i].why);
	}
}

static void long_token_is_cut(void **u)
{
	(void)u;
	static char line[4000];
	struct sim_trace_line l;
	char why[SIM_QUOTE_SIZE + 80];

	memset(line, '9', 3000);
	memcpy(line + 3000, " a", 3);
	assert_false(sim_trace_line_parse(line, &l, why, sizeof(why)));
	assert_non_null(strstr(why, "...(3000 bytes) is not an integer number of ns"));
}

static void error_message(void **u)
{
	(void)u;
	char msg[512];

	sim_trace_line_error(msg, sizeof(msg), "t.txt", 4, "5 a\tb\\", "expected " SIM_TRACE_LINE_FORMS);
	assert_string_equal(msg, "t.txt:4: '5 a\\tb\\\\': expected 'T KEY [COST]' or 'T KEY COST ACTUAL DONE_T'");
	sim_trace_line_error(msg, sizeof(msg), NULL, 3, "bad", "expected 'T KEY'");
	assert_string_equal(msg, "line 3: 'bad': expected 'T KEY'");
	sim_trace_line_error(msg, sizeof(msg), "t.txt", 2, NULL, SIM_TRACE_LINE_NUL);
	assert_string_equal(msg, "t.txt:2: holds a NUL byte");
	sim_trace_line_error(msg, 8, "t.txt", 2, "x", "y"); /* cut, terminated */
	assert_string_equal(msg, "t.txt:2");
}

/* Reads text through sim_lines and the parser; the times, one per line, into t. */
static size_t read_all(const char *text, size_t len, int64_t *t, size_t max, long *last_line)
{
	FILE *f = fmemopen((void *)text, len, "r");
	struct sim_lines in = { .in = f };
	size_t n = 0;
	char *line, why[256];

	assert_non_null(f);
	while ((line = sim_lines_next(&in))) {
		struct sim_trace_line l;
		assert_false(in.has_nul);
		if (!sim_trace_line_parse(line, &l, why, sizeof(why)))
			fail_msg("line %ld '%s': %s", in.lineno, in.text, why);
		assert_true(n < max);
		t[n++] = l.t_ns;
		*last_line = in.lineno;
	}
	assert_true(feof(f) && !ferror(f));
	sim_lines_free(&in);
	fclose(f);
	return n;
}

static void bom_crlf_comments(void **u)
{
	(void)u;
	static const char text[] = "\xEF\xBB\xBF" "1 a\r\n# note\r\n\r\n  \t\n2 b 3\r\n3 c";
	int64_t t[8];
	long last = 0;

	assert_int_equal(read_all(text, sizeof(text) - 1, t, 8, &last), 3);
	assert_int_equal(t[0], 1);
	assert_int_equal(t[1], 2);
	assert_int_equal(t[2], 3);
	assert_int_equal(last, 6);

	/* the mark only on the first line: later it is part of the line */
	static const char second[] = "1 a\n\xEF\xBB\xBF" "2 b\n";
	FILE *f = fmemopen((void *)second, sizeof(second) - 1, "r");
	struct sim_lines in = { .in = f };
	struct sim_trace_line l;
	char why[256];
	assert_non_null(sim_lines_next(&in));
	char *line = sim_lines_next(&in);
	assert_non_null(line);
	assert_memory_equal(in.text, "\xEF\xBB\xBF" "2 b", 7);
	assert_false(sim_trace_line_parse(line, &l, why, sizeof(why)));
	sim_lines_free(&in);
	fclose(f);

	/* a first line of the mark alone is blank */
	static const char alone[] = "\xEF\xBB\xBF\n5 z\n";
	long last2 = 0;
	assert_int_equal(read_all(alone, sizeof(alone) - 1, t, 8, &last2), 1);
	assert_int_equal(t[0], 5);
	assert_int_equal(last2, 2);
}

static void quote(void **u)
{
	(void)u;
	char buf[SIM_QUOTE_SIZE], text[200];

	assert_string_equal(sim_quote(buf, "a\n\t\r\\\x1b\x7f"), "'a\\n\\t\\r\\\\\\x1b\\x7f'");
	memset(text, 'x', 61);
	text[61] = '\0';
	sim_quote(buf, text);
	assert_int_equal(strlen(buf), 62 + strlen("...(61 bytes)"));
	assert_non_null(strstr(buf, "'...(61 bytes)"));
	memset(text, '\x01', 199);
	text[199] = '\0';
	assert_true(strlen(sim_quote(buf, text)) < SIM_QUOTE_SIZE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(accepted),
		cmocka_unit_test(accepted_settle),
		cmocka_unit_test(refused),
		cmocka_unit_test(long_token_is_cut),
		cmocka_unit_test(error_message),
		cmocka_unit_test(bom_crlf_comments),
		cmocka_unit_test(quote),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
