/*
 * test_json.c - the one JSON reader (sim/base/json.h), read by `ratelab
 * compare` and `ratelab report`: every kind of value; Google Benchmark's
 * and Python's bare words for numbers that are not finite; numbers exact
 * (integers at int64_t's bounds and one past them; on seeded numbers, every
 * integer equal to strtoll's and every double printed as Google Benchmark
 * prints it read back to the same bits); strict refusals with their line
 * and byte offset; the nesting bound at exactly its depth and one past it.
 */
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "json.h"
#include "test_rng.h"

static void parse_ok(const char *text, struct sim_json *v)
{
	struct sim_json_error err;
	if (sim_json_parse(text, strlen(text), v, &err))
		fail_msg("%s: line %ld: %s", text, err.line, err.what);
}

static void json_values(void **state)
{
	(void)state;
	struct sim_json v;

	parse_ok("\xef\xbb\xbf {\"a\": [1, -2.5e3, true, false, null, \"x\\n\\u00e9\\ud83d\\ude00\\\"\"],\n"
		 " \"b\": {}, \"c\": [], \"n\": NaN, \"i\": -inf, \"j\": Infinity, \"a\": 7} ",
		 &v);
	assert_int_equal(v.type, SIM_JSON_OBJECT);
	const struct sim_json *a = sim_json_get(&v, "a");
	assert_non_null(a);
	assert_int_equal(a->type, SIM_JSON_ARRAY);
	assert_int_equal(a->n, 6);
	assert_true(a->items[0].number == 1 && a->items[1].number == -2500);
	assert_string_equal(a->items[1].string, "-2.5e3"); /* a number keeps its text */
	assert_true(a->items[0].integer_exact && a->items[0].integer == 1 && !a->items[1].integer_exact);
	assert_true(sim_json_true(&a->items[2]) && !sim_json_true(&a->items[3]));
	assert_true(sim_json_is(&a->items[3], SIM_JSON_BOOL));
	assert_int_equal(a->items[4].type, SIM_JSON_NULL);
	assert_string_equal(a->items[5].string, "x\n\xc3\xa9\xf0\x9f\x98\x80\"");
	assert_int_equal(sim_json_get(&v, "b")->n, 0);
	assert_int_equal(sim_json_get(&v, "c")->type, SIM_JSON_ARRAY);
	assert_true(isnan(sim_json_num(&v, "n")));
	assert_true(isinf(sim_json_num(&v, "i")) && sim_json_num(&v, "i") < 0);
	assert_true(isinf(sim_json_num(&v, "j")) && sim_json_num(&v, "j") > 0);
	assert_int_equal(sim_json_get(&v, "a")->type, SIM_JSON_ARRAY); /* the first of two members "a" */
	assert_int_equal(v.n, 7);
	assert_null(sim_json_get(&v, "z"));
	assert_null(sim_json_get(a, "a"));
	assert_null(sim_json_get(NULL, "a"));
	assert_true(isnan(sim_json_num(&v, "b")) && isnan(sim_json_num(&v, "z")));
	assert_null(sim_json_str(&v, "n"));
	sim_json_free(&v);
}

/* Every bare word Google Benchmark (NaN, -NaN, inf, -inf) and Python (NaN,
 * Infinity) write, and the lower/upper-case spellings of printf's. */
static void json_nonfinite_words(void **state)
{
	(void)state;
	static const struct {
		const char *word;
		int sign; /* 0: NaN */
	} words[] = { { "NaN", 0 },	  { "-NaN", 0 }, { "nan", 0 },	     { "-nan", 0 },	   { "NAN", 0 },
		      { "-NAN", 0 },	  { "inf", 1 },	 { "-inf", -1 },     { "Inf", 1 },	   { "-Inf", -1 },
		      { "INF", 1 },	  { "-INF", -1 }, { "Infinity", 1 }, { "-Infinity", -1 } };
	char text[64];
	struct sim_json v;

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		snprintf(text, sizeof(text), "[%s]", words[i].word);
		parse_ok(text, &v);
		const struct sim_json *x = &v.items[0];
		assert_int_equal(x->type, SIM_JSON_NUMBER);
		assert_string_equal(x->string, words[i].word);
		assert_false(x->integer_exact);
		if (words[i].sign == 0 ? !isnan(x->number) : !isinf(x->number) || (x->number > 0) != (words[i].sign > 0))
			fail_msg("%s read as %g", words[i].word, x->number);
		sim_json_free(&v);
	}
}

/* Integers exact at int64_t's bounds; one past them only the nearest double. */
static void json_integers_at_bounds(void **state)
{
	(void)state;
	static const struct {
		const char *text;
		int exact;
		int64_t integer;
		double number;
	} cases[] = {
		{ "0", 1, 0, 0 },
		{ "-0", 1, 0, 0 },
		{ "9007199254740993", 1, 9007199254740993LL, 9007199254740992.0 }, /* 2^53 + 1: a double cannot */
		{ "9223372036854775807", 1, INT64_MAX, 9223372036854775807.0 },
		{ "9223372036854775808", 0, 0, 9223372036854775808.0 },
		{ "-9223372036854775808", 1, INT64_MIN, -9223372036854775808.0 },
		{ "-9223372036854775809", 0, 0, -9223372036854775808.0 },
		{ "18446744073709551616", 0, 0, 18446744073709551616.0 },
		{ "1e3", 0, 0, 1000 },
		{ "1.0", 0, 0, 1 },
	};
	struct sim_json v;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		parse_ok(cases[i].text, &v);
		if (v.integer_exact != (cases[i].exact != 0) || v.integer != cases[i].integer ||
		    v.number != cases[i].number)
			fail_msg("%s: exact %d integer %" PRId64 " number %.17g", cases[i].text, v.integer_exact,
				 v.integer, v.number);
		sim_json_free(&v);
	}
}

/*
 * Seeded numbers against the slow obvious models: an integer printed with
 * PRId64 reads back exact (strtoll agrees); a double printed as Google
 * Benchmark prints one (17 significant digits, %.17g) and as Python's repr
 * would (the shortest %.Ng that reads back) reads back to the same bits.
 */
static void json_numbers_seeded(void **state)
{
	(void)state;
	uint64_t seed = t_seed_from_env(42), s = seed;
	char text[64];
	struct sim_json v;

	for (int round = 0; round < 20000; round++) {
		uint64_t r = t_splitmix(&s);
		int64_t k = (int64_t)(r >> (t_splitmix(&s) % 64)) * (r & 1 ? -1 : 1);
		snprintf(text, sizeof(text), "%" PRId64, k);
		parse_ok(text, &v);
		if (!v.integer_exact || v.integer != k || v.integer != strtoll(text, NULL, 10))
			fail_msg("seed %" PRIu64 " round %d: %s read as %" PRId64 " (replay with RL_SEED=%" PRIu64 ")",
				 seed, round, text, v.integer, seed);
		sim_json_free(&v);

		double d;
		uint64_t bits = t_splitmix(&s);
		memcpy(&d, &bits, sizeof(d));
		if (!isfinite(d))
			continue;
		for (int digits = 1; digits <= 17; digits++) {
			snprintf(text, sizeof(text), "%.*g", digits, d);
			if (digits < 17 && strtod(text, NULL) != d)
				continue;
			parse_ok(text, &v);
			if (memcmp(&v.number, &d, sizeof(d)) != 0 || strcmp(v.string, text) != 0)
				fail_msg("seed %" PRIu64 " round %d: %s read as %.17g, want %.17g (replay with "
					 "RL_SEED=%" PRIu64 ")",
					 seed, round, text, v.number, d, seed);
			sim_json_free(&v);
			break;
		}
	}
}

static void json_strict(void **state)
{
	(void)state;
	static const struct {
		const char *text, *want;
		long line;
		size_t offset;
	} bad[] = {
		{ "", "expected a value at the end of the file", 1, 0 },
		{ "{\"a\": 1,}", "a trailing ','", 1, 8 },
		{ "[1, 2,\n]", "a trailing ','", 2, 7 },
		{ "{\"a\": 01}", "expected a value at '01}'", 1, 6 },
		{ "{\"a\": 1,\n\"b\": x}", "expected a value at 'x}'", 2, 14 },
		{ "[-]", "expected a value at '-]'", 1, 1 },
		{ "[1.]", "a number without digits after its '.': '1.]'", 1, 1 },
		{ "[1e]", "a number without digits in its exponent: '1e]'", 1, 1 },
		{ "{\n\n\"a\" 1}", "expected ':' after a member name at '1}'", 3, 7 },
		{ "{'a': 1}", "expected a member name in '\"' at '\\'a\\': 1}'", 1, 1 },
		{ "[\"a\tb\"]", "a control byte in a string (escape it)", 1, 3 },
		{ "[\"abc", "a string without its closing '\"'", 1, 5 },
		{ "[\"\\x41\"]", "a bad escape in a string", 1, 2 },
		{ "[\"\\u12g4\"]", "a bad escape in a string", 1, 2 },
		{ "[\"\\ud800\"]", "a lone surrogate", 1, 2 },
		{ "[\"\\udc00x\"]", "a lone surrogate", 1, 2 },
		{ "[\"\\u0000\"]", "\\u0000 in a string", 1, 2 },
		{ "[1] [2]", "text after the JSON value: '[2]'", 1, 4 },
		{ "[1 2]", "expected ',' or ']' at '2]'", 1, 3 },
		{ "[1, 2", "expected ',' or ']' at the end of the file", 1, 5 },
		{ "[tru]", "expected a value at 'tru]'", 1, 1 },
		{ "// comment\n{}", "expected a value at '// comment'", 1, 0 },
		{ "{\"a\": 1 /* c */}", "expected ',' or '}' at '/* c */}'", 1, 8 },
	};
	struct sim_json_error err;
	struct sim_json v;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (sim_json_parse(bad[i].text, strlen(bad[i].text), &v, &err) == 0)
			fail_msg("%s: parsed", bad[i].text);
		if (!strstr(err.what, bad[i].want) || err.line != bad[i].line || err.offset != bad[i].offset)
			fail_msg("%s: line %ld offset %zu '%s', want line %ld offset %zu '%s'", bad[i].text, err.line,
				 err.offset, err.what, bad[i].line, bad[i].offset, bad[i].want);
		sim_json_free(&v);
	}
	/* nesting: SIM_JSON_MAX_DEPTH levels are read, one more is refused (no stack overflow) */
	char deep[2 * SIM_JSON_MAX_DEPTH + 3];
	for (int k = 0; k <= 1; k++) {
		size_t d = SIM_JSON_MAX_DEPTH + (size_t)k, n = 0;
		for (size_t i = 0; i < d; i++)
			deep[n++] = '[';
		for (size_t i = 0; i < d; i++)
			deep[n++] = ']';
		int got = sim_json_parse(deep, n, &v, &err);
		assert_int_equal(got, k ? -1 : 0);
		if (k)
			assert_non_null(strstr(err.what, "nested more than 64 deep"));
		sim_json_free(&v);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(json_values),
		cmocka_unit_test(json_nonfinite_words),
		cmocka_unit_test(json_integers_at_bounds),
		cmocka_unit_test(json_numbers_seeded),
		cmocka_unit_test(json_strict),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
