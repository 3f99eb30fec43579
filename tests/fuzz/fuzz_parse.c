/*
 * fuzz_parse.c - rl_parse_i64 and rl_parse_duration against a reference
 * written here from parse.h's text alone: the same acceptance and the same
 * value for every input string (digits of any length, leading zeros, a
 * sign, units, junk).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ratelab/parse.h"

/* Digits only, at least one; the value, or false past limit (no overflow: stops early). */
static bool ref_digits(const char *s, size_t n, unsigned __int128 limit, unsigned __int128 *v)
{
	*v = 0;
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		*v = *v * 10 + (unsigned)(s[i] - '0');
		if (*v > limit)
			*v = limit + 1; /* saturate: stays past the limit */
	}
	return *v <= limit;
}

static bool ref_i64(const char *s, int64_t *out)
{
	bool neg = *s == '-';
	unsigned __int128 v;
	const char *d = s + neg;

	if (!ref_digits(d, strlen(d), (unsigned __int128)INT64_MAX + neg, &v))
		return false;
	*out = neg ? (int64_t)(0 - (uint64_t)v) : (int64_t)v;
	return true;
}

static bool ref_duration(const char *s, int64_t bare, int64_t *out)
{
	static const struct {
		const char *unit;
		int64_t ns;
	} units[] = { { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 },
		      { "m", 60000000000 }, { "h", 3600000000000 } };
	size_t n = strspn(s, "0123456789");
	const char *u = s + n;
	int64_t mult = 0;
	unsigned __int128 v;

	if (!*u)
		mult = bare;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(u, units[i].unit) == 0)
			mult = units[i].ns;
	if (!mult || !ref_digits(s, n, (unsigned __int128)INT64_MAX, &v) || v * (unsigned __int128)mult > INT64_MAX)
		return false;
	*out = (int64_t)(v * (unsigned __int128)mult);
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	int64_t got = 0, want = 0;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0'; /* a NUL inside ends the string, as for any C caller */
	bool a = rl_parse_i64(s, &got), b = ref_i64(s, &want);
	if (a != b || (a && got != want))
		abort();
	for (int64_t bare = 0; bare <= 1000; bare += 1000) {
		a = rl_parse_duration(s, bare, &got);
		b = ref_duration(s, bare, &want);
		if (a != b || (a && got != want))
			abort();
	}
	free(s);
	return 0;
}
