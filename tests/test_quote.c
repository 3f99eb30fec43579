/*
 * test_quote.c - the one quoter of ratelab's messages (rl_quote_to,
 * parse.h): each rule of its header pinned on an edge case, then seeded
 * random byte strings against a slow model written from Unicode's table of
 * well-formed UTF-8 (Table 3-7), and the properties a cut quote keeps when
 * its buffer is small. A failure prints the seed: RL_SEED=<seed> replays it.
 */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "ratelab/parse.h"
#include "test_rng.h"

static const char *q(const char *text)
{
	static char buf[RL_QUOTE_SIZE];
	return rl_quote(buf, text);
}

static void edges(void **u)
{
	(void)u;
	char text[300], want[400];

	assert_string_equal(q(""), "''");
	assert_string_equal(q("plain text 1/2s"), "'plain text 1/2s'");
	assert_string_equal(q("it's"), "'it\\'s'");
	assert_string_equal(q("a\\b"), "'a\\\\b'");
	assert_string_equal(q("\n\t\r"), "'\\n\\t\\r'");
	assert_string_equal(q("\x01\x1b[2J\x1f"), "'\\x01\\x1b[2J\\x1f'");
	assert_string_equal(q("\x7f"), "'\\x7f'");
	/* invalid UTF-8: a stray continuation, a cut sequence, overlong, a surrogate, past U+10FFFF, 0xff */
	assert_string_equal(q("a\x80z"), "'a\\x80z'");
	assert_string_equal(q("\xc3"), "'\\xc3'");
	assert_string_equal(q("\xe2\x82z"), "'\\xe2\\x82z'");
	assert_string_equal(q("\xc0\xaf"), "'\\xc0\\xaf'");
	assert_string_equal(q("\xe0\x80\xaf"), "'\\xe0\\x80\\xaf'");
	assert_string_equal(q("\xed\xa0\x80"), "'\\xed\\xa0\\x80'");
	assert_string_equal(q("\xf4\x90\x80\x80"), "'\\xf4\\x90\\x80\\x80'");
	assert_string_equal(q("\xff"), "'\\xff'");
	/* a C1 control (U+009B, CSI to some terminals) escaped; U+00A0 kept */
	assert_string_equal(q("\xc2\x9b" "2J"), "'\\xc2\\x9b2J'");
	assert_string_equal(q("\xc2\xa0"), "'\xc2\xa0'");
	/* multibyte characters kept: é (2), € (3), 😀 (4) */
	assert_string_equal(q("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"), "'caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80'");

	/* exactly RL_QUOTE_MAX bytes: whole; one more: cut after RL_QUOTE_MAX, the marker after the quote */
	memset(text, 'x', RL_QUOTE_MAX);
	text[RL_QUOTE_MAX] = '\0';
	snprintf(want, sizeof(want), "'%s'", text);
	assert_string_equal(q(text), want);
	text[RL_QUOTE_MAX] = 'y';
	text[RL_QUOTE_MAX + 1] = '\0';
	snprintf(want, sizeof(want), "'%.*s'...(%d bytes)", RL_QUOTE_MAX, text, RL_QUOTE_MAX + 1);
	assert_string_equal(q(text), want);

	/* a 4-byte character across the cap: cut before it, never inside it */
	memset(text, 'x', RL_QUOTE_MAX - 2);
	memcpy(text + RL_QUOTE_MAX - 2, "\xf0\x9f\x98\x80", 5);
	snprintf(want, sizeof(want), "'%.*s'...(%d bytes)", RL_QUOTE_MAX - 2, text, RL_QUOTE_MAX + 2);
	assert_string_equal(q(text), want);

	/* the worst case: every byte escaped to 4, and a long length, fits RL_QUOTE_SIZE */
	memset(text, '\x01', sizeof(text) - 1);
	text[sizeof(text) - 1] = '\0';
	assert_true(strlen(q(text)) < RL_QUOTE_SIZE);
	assert_non_null(strstr(q(text), "'...(299 bytes)"));

	/* whole: no cap; a NUL among rl_quote_bytes' bytes shown */
	char big[RL_QUOTE_SIZE_FOR(200)];
	memset(text, 'p', 200);
	text[200] = '\0';
	assert_int_equal(rl_quote_to(big, sizeof(big), text, RL_QUOTE_WHOLE), 202);
	assert_int_equal(rl_quote_bytes(big, sizeof(big), "a\0b", 3, RL_QUOTE_MAX), 8);
	assert_string_equal(big, "'a\\x00b'");
}

/* A buffer too small for the whole quote: cut earlier, well formed, with the marker; at RL_QUOTE_MIN_SIZE too. */
static void small_buffers(void **u)
{
	(void)u;
	char buf[64];

	assert_int_equal(rl_quote_to(buf, 40, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", RL_QUOTE_WHOLE), 39);
	assert_string_equal(buf, "'abcdefghijklmnopqrstuvwx'...(52 bytes)");
	/* exactly fits: not cut */
	assert_int_equal(rl_quote_to(buf, 6, "abc", RL_QUOTE_WHOLE), 5);
	assert_string_equal(buf, "'abc'");
	/* an escape is never split: "\x01" needs 4 bytes */
	rl_quote_to(buf, RL_QUOTE_MIN_SIZE, "ab\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01", RL_QUOTE_WHOLE);
	assert_string_equal(buf, "'ab\\x01\\x01\\x01\\x01\\x01'...(12 bytes)");
}

/* ---- the slow model: Unicode 15, Table 3-7, byte by byte ---- */

/* The length of the well-formed sequence at s (len bytes left), 0 if none. */
static size_t model_char(const unsigned char *s, size_t len)
{
	static const struct {
		unsigned char lo[4], hi[4];
		size_t n;
	} forms[] = {
		{ { 0x00 }, { 0x7f }, 1 },
		{ { 0xc2, 0x80 }, { 0xdf, 0xbf }, 2 },
		{ { 0xe0, 0xa0, 0x80 }, { 0xe0, 0xbf, 0xbf }, 3 },
		{ { 0xe1, 0x80, 0x80 }, { 0xec, 0xbf, 0xbf }, 3 },
		{ { 0xed, 0x80, 0x80 }, { 0xed, 0x9f, 0xbf }, 3 },
		{ { 0xee, 0x80, 0x80 }, { 0xef, 0xbf, 0xbf }, 3 },
		{ { 0xf0, 0x90, 0x80, 0x80 }, { 0xf0, 0xbf, 0xbf, 0xbf }, 4 },
		{ { 0xf1, 0x80, 0x80, 0x80 }, { 0xf3, 0xbf, 0xbf, 0xbf }, 4 },
		{ { 0xf4, 0x80, 0x80, 0x80 }, { 0xf4, 0x8f, 0xbf, 0xbf }, 4 },
	};
	for (size_t f = 0; f < sizeof(forms) / sizeof(forms[0]); f++) {
		size_t k = 0;
		while (k < forms[f].n && k < len && s[k] >= forms[f].lo[k] && s[k] <= forms[f].hi[k])
			k++;
		if (k == forms[f].n)
			return k;
	}
	return 0;
}

/* The quote the header describes, with room enough: into out; bound[o] set where a character's form starts. */
static void model_quote(const unsigned char *s, size_t len, size_t max, char *out, bool *bound)
{
	size_t i = 0, o = 0;

	out[o++] = '\'';
	while (i < len) {
		bound[o] = true;
		size_t n = model_char(s + i, len - i);
		bool c1 = n == 2 && s[i] == 0xc2 && s[i + 1] < 0xa0;
		size_t take = n >= 2 && !c1 ? n : 1;

		if (i + take > max)
			break;
		if (take > 1) {
			memcpy(out + o, s + i, take);
			o += take;
		} else if (s[i] == '\\' || s[i] == '\'') {
			out[o++] = '\\';
			out[o++] = (char)s[i];
		} else if (s[i] == '\n') {
			o += (size_t)sprintf(out + o, "\\n");
		} else if (s[i] == '\t') {
			o += (size_t)sprintf(out + o, "\\t");
		} else if (s[i] == '\r') {
			o += (size_t)sprintf(out + o, "\\r");
		} else if (s[i] >= 0x20 && s[i] < 0x7f) {
			out[o++] = (char)s[i];
		} else {
			o += (size_t)sprintf(out + o, "\\x%02x", s[i]);
		}
		i += take;
	}
	bound[o] = true;
	out[o++] = '\'';
	if (i < len)
		o += (size_t)sprintf(out + o, "...(%zu bytes)", len);
	out[o] = '\0';
}

/* A byte chosen so that valid and invalid sequences, escapes and plain text all turn up. */
static unsigned char pick(uint64_t *rng)
{
	static const unsigned char odd[] = { 0x00, 0x01, 0x09, 0x0a, 0x0d, 0x1b, 0x7f, '\\', '\'', 0x80, 0x9b, 0xa0,
					     0xbf, 0xc0, 0xc2, 0xc3, 0xdf, 0xe0, 0xe2, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff };
	uint64_t r = t_splitmix(rng);
	return r % 3 == 0 ? odd[(r >> 8) % sizeof(odd)] : r % 3 == 1 ? (unsigned char)(0x80 + (r >> 8) % 64)
								       : (unsigned char)(0x20 + (r >> 8) % 95);
}

static void against_model(void **u)
{
	(void)u;
	uint64_t seed = t_seed_from_env(0x71a0c7e5), rng = seed;
	unsigned char text[160];
	char want[RL_QUOTE_SIZE_FOR(160)], got[RL_QUOTE_SIZE_FOR(160)];

	for (int round = 0; round < 200000; round++) {
		size_t len = t_splitmix(&rng) % sizeof(text), max = t_splitmix(&rng) % 4 ? RL_QUOTE_MAX : len / 2;
		for (size_t i = 0; i < len; i++)
			text[i] = pick(&rng);
		bool bound[RL_QUOTE_SIZE_FOR(160)] = { false };
		model_quote(text, len, max, want, bound);
		size_t n = rl_quote_bytes(got, sizeof(got), (const char *)text, len, max);
		if (n != strlen(got) || strcmp(got, want) != 0) {
			printf("seed %#llx round %d: len %zu max %zu:\n got  %s\n want %s\n", (unsigned long long)seed,
			       round, len, max, got, want);
			fail();
		}
		/* a smaller buffer: the quote's text a prefix of the whole one's, cut at one of its characters */
		size_t size = RL_QUOTE_MIN_SIZE + t_splitmix(&rng) % 80;
		char small[RL_QUOTE_MIN_SIZE + 80];
		n = rl_quote_bytes(small, size, (const char *)text, len, max);
		const char *close = strrchr(small, '\'');
		if (n >= size || n != strlen(small) || !close || close == small ||
		    strncmp(small, want, (size_t)(close - small)) != 0 || !bound[close - small] ||
		    (strcmp(small, want) != 0 && !strstr(close, "...("))) {
			printf("seed %#llx round %d: size %zu: got %s, whole %s\n", (unsigned long long)seed, round, size,
			       small, want);
			fail();
		}
	}
}

/* rl_utf8_len against the table at every position of seeded byte strings, and at every cut of them */
static void utf8_len_against_model(void **u)
{
	(void)u;
	uint64_t seed = t_seed_from_env(0x0f8b17e5), rng = seed;
	unsigned char text[16];

	assert_int_equal(rl_utf8_len("", 0), 0);
	assert_int_equal(rl_utf8_len("\xc2\x80", 2), 2); /* a C1 control is valid UTF-8 (the quote escapes it) */
	assert_int_equal(rl_utf8_len("\xf4\x8f\xbf\xbf", 3), 0); /* cut short by left */
	for (int round = 0; round < 200000; round++) {
		size_t len = 1 + t_splitmix(&rng) % sizeof(text);
		for (size_t i = 0; i < len; i++)
			text[i] = pick(&rng);
		for (size_t at = 0; at < len; at++) {
			size_t want = model_char(text + at, len - at), got = rl_utf8_len((const char *)text + at, len - at);
			if (got != want) {
				printf("seed %#llx round %d: at %zu of %zu: got %zu, want %zu\n", (unsigned long long)seed,
				       round, at, len, got, want);
				fail();
			}
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(edges),
		cmocka_unit_test(small_buffers),
		cmocka_unit_test(against_model),
		cmocka_unit_test(utf8_len_against_model),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
