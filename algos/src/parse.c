/*
 * parse.c - strict decimal integers and durations (parse.h). Digits are
 * accumulated in uint64 with an overflow check before each step, so no
 * input can wrap.
 */
#include "ratelab/parse.h"

#include <string.h>

bool rl_parse_i64(const char *s, int64_t *out)
{
	bool neg = *s == '-';
	uint64_t v = 0;
	const char *p = s + neg;

	if (!*p)
		return false;
	for (; *p; p++) {
		if (*p < '0' || *p > '9')
			return false;
		if (v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (v > (uint64_t)INT64_MAX + neg)
		return false;
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return true;
}

bool rl_parse_duration(const char *s, int64_t bare_unit_ns, int64_t *out_ns)
{
	static const struct {
		const char *suffix;
		int64_t ns;
	} units[] = { { "ns", 1 },
		      { "us", 1000 },
		      { "ms", 1000000 },
		      { "s", 1000000000 },
		      { "m", 60000000000 },
		      { "h", 3600000000000 } };
	size_t digits = strspn(s, "0123456789");
	int64_t unit = bare_unit_ns;
	uint64_t v = 0;

	if (digits == 0)
		return false;
	if (s[digits]) {
		size_t i = 0;
		while (i < sizeof(units) / sizeof(units[0]) && strcmp(s + digits, units[i].suffix))
			i++;
		if (i == sizeof(units) / sizeof(units[0]))
			return false;
		unit = units[i].ns;
	}
	if (unit == 0)
		return false;
	/* The digits as rl_parse_i64 reads them: any number of leading zeros. */
	for (size_t i = 0; i < digits; i++) {
		if (v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (v > (uint64_t)(INT64_MAX / unit))
		return false;
	*out_ns = (int64_t)v * unit;
	return true;
}
