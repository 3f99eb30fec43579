/*
 * test_import_time.c - the importer's exact times (import_time.h) against
 * an independent computation, the C library's timegm(), on fixed dates
 * (leap years: 2000 is one, 2100 and 1900 are not; month ends; offsets
 * east and west; fractions of every length) and on seeded random civil
 * times (the seed is printed on failure), also read without an offset
 * at a default one and through strptime-style formats; what is refused,
 * at each edge.
 */
#define _DEFAULT_SOURCE /* timegm */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "import_time.h"
#include "ratelab/rule.h"

static const char *const months[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
				      "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };

/* timegm's epoch seconds of a civil time, offset_s east of UTC. */
static int64_t reference(int y, int mo, int d, int h, int mi, int s, int offset_s)
{
	struct tm tm = { .tm_year = y - 1900, .tm_mon = mo - 1, .tm_mday = d,
			 .tm_hour = h, .tm_min = mi, .tm_sec = s };
	return (int64_t)timegm(&tm) - offset_s;
}

static bool clf(const char *s, int64_t *ns)
{
	const char *why;
	return sim_time_clf(s, strlen(s), ns, &why);
}

static bool rfc(const char *s, int64_t *ns)
{
	const char *why;
	return sim_time_rfc3339(s, strlen(s), ns, &why);
}

static void clf_fixed(void **u)
{
	(void)u;
	int64_t ns;

	assert_true(clf("10/Oct/2026:13:55:36 -0700", &ns));
	assert_int_equal(ns, reference(2026, 10, 10, 13, 55, 36, -7 * 3600) * 1000000000LL);
	assert_true(clf("01/Jan/1970:00:00:00 +0000", &ns));
	assert_int_equal(ns, 0);
	assert_true(clf("29/Feb/2000:23:59:59 +0530", &ns)); /* 2000: divisible by 400, a leap year */
	assert_int_equal(ns, reference(2000, 2, 29, 23, 59, 59, 5 * 3600 + 1800) * 1000000000LL);
	assert_true(clf("29/Feb/2024:12:00:00 +0000", &ns));
	assert_int_equal(ns, reference(2024, 2, 29, 12, 0, 0, 0) * 1000000000LL);
	assert_true(clf("31/Dec/2095:23:59:60 +0000", &ns)); /* a leap second: the next minute's first */
	assert_int_equal(ns, reference(2096, 1, 1, 0, 0, 0, 0) * 1000000000LL);
	assert_true(clf("01/Jan/1970:01:00:00 +0100", &ns)); /* exactly the epoch */
	assert_int_equal(ns, 0);

	assert_false(clf("29/Feb/2100:00:00:00 +0000", &ns)); /* 2100: divisible by 100 only */
	assert_false(clf("29/Feb/2023:00:00:00 +0000", &ns));
	assert_false(clf("31/Apr/2026:00:00:00 +0000", &ns));
	assert_false(clf("00/Jan/2026:00:00:00 +0000", &ns));
	assert_false(clf("10/oct/2026:13:55:36 -0700", &ns)); /* months as nginx writes them */
	assert_false(clf("10/Oct/2026:24:00:00 -0700", &ns));
	assert_false(clf("10/Oct/2026:13:60:00 -0700", &ns));
	assert_false(clf("10/Oct/2026:13:55:61 -0700", &ns));
	assert_false(clf("10/Oct/2026:13:55:36 -2400", &ns));
	assert_false(clf("10/Oct/2026:13:55:36 -0760", &ns));
	assert_false(clf("10/Oct/2026:13:55:36 0700", &ns));
	assert_false(clf("10/Oct/2026:13:55:36  -0700", &ns));
	assert_false(clf("1/Oct/2026:13:55:36 -0700", &ns));
	assert_false(clf("01/Jan/1970:00:59:59 +0100", &ns)); /* one second before the epoch */
	assert_false(clf("31/Dec/1969:23:59:59 +0000", &ns));
	assert_false(clf("02/Oct/2096:07:06:41 +0000", &ns)); /* one second past RL_TIME_MAX_NS */
	assert_true(clf("02/Oct/2096:07:06:40 +0000", &ns));
	assert_int_equal(ns, RL_TIME_MAX_NS);
}

static void rfc3339_fixed(void **u)
{
	(void)u;
	int64_t ns, s0 = reference(2026, 10, 10, 13, 55, 36, 0) * 1000000000LL;

	assert_true(rfc("2026-10-10T13:55:36Z", &ns));
	assert_int_equal(ns, s0);
	assert_true(rfc("2026-10-10t13:55:36z", &ns));
	assert_int_equal(ns, s0);
	assert_true(rfc("2026-10-10 13:55:36+00:00", &ns));
	assert_int_equal(ns, s0);
	assert_true(rfc("2026-10-10T15:55:36+02:00", &ns));
	assert_int_equal(ns, s0);
	assert_true(rfc("2026-10-10T08:25:36-05:30", &ns));
	assert_int_equal(ns, s0);
	assert_true(rfc("2026-10-10T13:55:36.5Z", &ns));
	assert_int_equal(ns, s0 + 500000000);
	assert_true(rfc("2026-10-10T13:55:36.123Z", &ns));
	assert_int_equal(ns, s0 + 123000000);
	assert_true(rfc("2026-10-10T13:55:36.000123+00:00", &ns));
	assert_int_equal(ns, s0 + 123000);
	assert_true(rfc("2026-10-10T13:55:36.123456789Z", &ns));
	assert_int_equal(ns, s0 + 123456789);
	assert_true(rfc("2026-10-10T13:55:36.1234567890000Z", &ns)); /* zeros past 1 ns */
	assert_int_equal(ns, s0 + 123456789);
	assert_true(rfc("2026-10-11T00:25:36.25+10:30", &ns));
	assert_int_equal(ns, s0 + 250000000);

	assert_false(rfc("2026-10-10T13:55:36.1234567891Z", &ns)); /* finer than 1 ns */
	assert_false(rfc("2026-10-10T13:55:36", &ns));             /* no offset */
	assert_false(rfc("2026-10-10T13:55:36.Z", &ns));
	assert_false(rfc("2026-10-10T13:55:36+0200", &ns));
	assert_false(rfc("2026-10-10T13:55:36+02:00x", &ns));
	assert_false(rfc("2026-02-30T13:55:36Z", &ns));
	assert_false(rfc("2026-13-10T13:55:36Z", &ns));
	assert_false(rfc("2026-10-10X13:55:36Z", &ns));
	assert_false(rfc("1969-12-31T23:59:59.999999999Z", &ns));
	assert_true(rfc("1970-01-01T00:00:00.000000001Z", &ns));
	assert_int_equal(ns, 1);
}

static bool iso(const char *s, int tz, int64_t *ns, bool *had)
{
	const char *why;
	return sim_time_iso(s, strlen(s), tz, ns, had, &why);
}

static bool fmt(const char *f, const char *s, int tz, int64_t *ns, bool *had)
{
	const char *why;
	assert_true(sim_time_format_check(f, &why));
	return sim_time_format(f, s, strlen(s), tz, ns, had, &why);
}

/* ISO 8601: an offset is optional (then the default is used, and said), basic forms too. */
static void iso_fixed(void **u)
{
	(void)u;
	int64_t ns, s0 = reference(2026, 9, 13, 9, 0, 0, 0) * 1000000000LL;
	bool had;

	assert_true(iso("2026-09-13T09:00:00", 0, &ns, &had));
	assert_int_equal(ns, s0);
	assert_false(had);
	assert_true(iso("2026-09-13T09:00:00", 2 * 3600, &ns, &had)); /* --tz +02:00 */
	assert_int_equal(ns, s0 - 2 * 3600 * 1000000000LL);
	assert_true(iso("2026-09-13 09:00:00.25", -5 * 3600 - 1800, &ns, &had));
	assert_int_equal(ns, s0 + (5 * 3600 + 1800) * 1000000000LL + 250000000);
	assert_true(iso("2026-09-13T09:00:00,5", 0, &ns, &had)); /* ISO's decimal comma */
	assert_int_equal(ns, s0 + 500000000);
	assert_true(iso("2026-09-13T11:00:00+0200", 7 * 3600, &ns, &had)); /* an offset wins over tz */
	assert_int_equal(ns, s0);
	assert_true(had);
	assert_true(iso("2026-09-13T11:00:00+02", 0, &ns, &had));
	assert_int_equal(ns, s0);
	assert_true(iso("2026-09-13T09:00:00Z", 3600, &ns, &had));
	assert_int_equal(ns, s0);
	assert_true(had);
	assert_false(iso("2026-09-13T09:00", 0, &ns, &had));
	assert_false(iso("2026-09-13T09:00:00+2", 0, &ns, &had));
	assert_false(iso("2026-09-13T09:00:00+24:00", 0, &ns, &had));
	assert_false(iso("2026-09-13T09:00:00 ", 0, &ns, &had));
	assert_false(iso("1970-01-01T00:00:00", 60, &ns, &had)); /* before the epoch at +00:01 */
	assert_true(iso("1970-01-01T00:00:00", -60, &ns, &had));
	assert_int_equal(ns, 60 * 1000000000LL);

	int off;
	assert_true(sim_time_offset("+02:00", 6, &off) && off == 7200);
	assert_true(sim_time_offset("-0530", 5, &off) && off == -19800);
	assert_true(sim_time_offset("UTC", 3, &off) && off == 0);
	assert_false(sim_time_offset("+2", 2, &off));
	assert_false(sim_time_offset("+24:00", 6, &off));
	assert_false(sim_time_offset("CEST", 4, &off));
	assert_false(sim_time_offset("Z", 1, &off));
}

/* strptime-style formats: each conversion, the fraction after %S, what is refused. */
static void formats(void **u)
{
	(void)u;
	int64_t ns, s0 = reference(2015, 5, 17, 8, 5, 32, 0) * 1000000000LL;
	bool had;
	const char *why;

	assert_true(fmt("%d/%b/%Y:%H:%M:%S %z", "17/May/2015:08:05:32 +0000", 3600, &ns, &had));
	assert_int_equal(ns, s0);
	assert_true(had);
	assert_true(fmt("%d/%b/%Y:%H:%M:%S", "17/may/2015:08:05:32.125", 0, &ns, &had));
	assert_int_equal(ns, s0 + 125000000);
	assert_false(had);
	assert_true(fmt("%d/%b/%Y:%H:%M:%S", "17/May/2015:10:05:32", 7200, &ns, &had)); /* at --tz */
	assert_int_equal(ns, s0);
	assert_true(fmt("%Y%m%d %H%M%S.%f", "20150517 080532.000001", 0, &ns, &had)); /* '.' in the format */
	assert_int_equal(ns, s0 + 1000);
	assert_true(fmt("%a, %d %B %Y %T %Z", "Sun, 17 May 2015 08:05:32 GMT", 3600, &ns, &had));
	assert_int_equal(ns, s0);
	assert_true(fmt("%F %I:%M:%S %p", "2015-05-17 08:05:32 AM", 0, &ns, &had));
	assert_int_equal(ns, s0);
	assert_true(fmt("%F %I:%M:%S %p", "2015-05-17 08:05:32 PM", 0, &ns, &had));
	assert_int_equal(ns, s0 + 12 * 3600 * 1000000000LL);
	assert_true(fmt("%F %I:%M:%S %p", "2015-05-17 12:05:32 am", 0, &ns, &had));
	assert_int_equal(ns, s0 - 8 * 3600 * 1000000000LL);
	assert_true(fmt("%m/%e/%y %H:%M", "5/ 7/15 8:05", 0, &ns, &had));
	assert_int_equal(ns, (reference(2015, 5, 7, 8, 5, 0, 0)) * 1000000000LL);
	assert_true(fmt("%s", "1431849932.5", 3600, &ns, &had));
	assert_int_equal(ns, s0 + 500000000);
	assert_true(fmt("[%d/%b/%Y:%H:%M:%S %z]", "[17/May/2015:10:35:32 +02:30]", 0, &ns, &had));
	assert_int_equal(ns, s0);
	assert_true(fmt("%Y-%m-%d %H:%M:%S%%", "2015-05-17 08:05:32%", 0, &ns, &had));
	assert_int_equal(ns, s0);

	assert_false(fmt("%d/%b/%Y:%H:%M:%S %z", "17/May/2015:08:05:32 +0000 x", 0, &ns, &had)); /* the whole */
	assert_false(fmt("%d/%b/%Y", "31/Feb/2015", 0, &ns, &had));
	assert_false(fmt("%d/%b/%Y %Z", "17/May/2015 CEST", 0, &ns, &had));
	assert_false(fmt("%d/%b/%Y:%H:%M:%S", "17/May/2015:08:05:32.1234567891", 0, &ns, &had));
	assert_false(fmt("%F %I:%M %p", "2015-05-17 13:05 PM", 0, &ns, &had));
	assert_false(sim_time_format_check("%H:%M:%S", &why));     /* no date */
	assert_false(sim_time_format_check("%Y-%m %H", &why));     /* no day */
	assert_false(sim_time_format_check("%Y-%m-%d %q", &why));  /* unknown */
	assert_false(sim_time_format_check("%Y-%m-%d %", &why));   /* a lone % */
	assert_false(sim_time_format_check("%F %I:%M", &why));     /* %I without %p */
	assert_true(sim_time_format_check("%s", &why));
}

static void numbers(void **u)
{
	(void)u;
	const char *why;
	int64_t ns;

	assert_true(sim_time_number("1700000000", 10, 1000000000, &ns, &why));
	assert_int_equal(ns, 1700000000LL * 1000000000LL);
	assert_true(sim_time_number("1700000000.25", 13, 1000000000, &ns, &why));
	assert_int_equal(ns, 1700000000250000000LL);
	assert_true(sim_time_number("1700000000123", 13, 1000000, &ns, &why));
	assert_int_equal(ns, 1700000000123000000LL);
	assert_true(sim_time_number("12.5", 4, 1000, &ns, &why)); /* us */
	assert_int_equal(ns, 12500);
	assert_true(sim_time_number("4000000000000000000", 19, 1, &ns, &why));
	assert_int_equal(ns, RL_TIME_MAX_NS);
	assert_false(sim_time_number("4000000000000000001", 19, 1, &ns, &why));
	assert_false(sim_time_number("4000000000.000000001", 20, 1000000000, &ns, &why));
	assert_false(sim_time_number("12.5", 4, 1, &ns, &why)); /* half a ns */
	assert_false(sim_time_number("1.7e9", 5, 1000000000, &ns, &why));
	assert_false(sim_time_number("-1", 2, 1, &ns, &why));
	assert_false(sim_time_number("", 0, 1, &ns, &why));
	assert_false(sim_time_number("1.", 2, 1000, &ns, &why));
}

/* splitmix64 */
static uint64_t rng(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Random civil times in 1971..2094, every day of every month, offsets of either sign. */
static void random_against_timegm(void **u)
{
	(void)u;
	static const int mdays[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	uint64_t seed = (uint64_t)time(NULL), s = seed;

	for (int i = 0; i < 100000; i++) {
		int y = 1971 + (int)(rng(&s) % 124), mo = 1 + (int)(rng(&s) % 12);
		int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
		int d = 1 + (int)(rng(&s) % (uint64_t)(mdays[mo - 1] + (mo == 2 && leap)));
		int h = (int)(rng(&s) % 24), mi = (int)(rng(&s) % 60), sec = (int)(rng(&s) % 60);
		int oh = (int)(rng(&s) % 15), om = (int)(rng(&s) % 4) * 15, sign = rng(&s) % 2 ? 1 : -1;
		uint32_t frac = (uint32_t)(rng(&s) % 1000000000);
		int64_t want = reference(y, mo, d, h, mi, sec, sign * (oh * 3600 + om * 60)) * 1000000000LL;
		char text[64];
		int64_t ns;

		snprintf(text, sizeof(text), "%02d/%s/%04d:%02d:%02d:%02d %c%02d%02d", d, months[mo - 1], y, h,
			 mi, sec, sign > 0 ? '+' : '-', oh, om);
		if (!clf(text, &ns) || ns != want) {
			printf("seed %llu: %s: got %lld want %lld\n", (unsigned long long)seed, text,
			       (long long)ns, (long long)want);
			fail();
		}
		snprintf(text, sizeof(text), "%04d-%02d-%02dT%02d:%02d:%02d.%09u%c%02d:%02d", y, mo, d, h, mi,
			 sec, frac, sign > 0 ? '+' : '-', oh, om);
		char f[64];
		int64_t got;
		bool had;
		snprintf(f, sizeof(f), "%04d-%02d-%02dT%02d:%02d:%02d.%09u", y, mo, d, h, mi, sec, frac);
		if (!iso(f, sign * (oh * 3600 + om * 60), &got, &had) || got != want + frac || had) {
			printf("seed %llu: %s at %+d s: got %lld want %lld\n", (unsigned long long)seed, f,
			       sign * (oh * 3600 + om * 60), (long long)got, (long long)(want + frac));
			fail();
		}
		snprintf(f, sizeof(f), "%02d/%s/%04d:%02d:%02d:%02d.%09u", d, months[mo - 1], y, h, mi, sec, frac);
		if (!fmt("%d/%b/%Y:%H:%M:%S", f, sign * (oh * 3600 + om * 60), &got, &had) || got != want + frac) {
			printf("seed %llu: %s: got %lld want %lld\n", (unsigned long long)seed, f, (long long)got,
			       (long long)(want + frac));
			fail();
		}
		if (!rfc(text, &ns) || ns != want + frac) {
			printf("seed %llu: %s: got %lld want %lld\n", (unsigned long long)seed, text,
			       (long long)ns, (long long)(want + frac));
			fail();
		}
	}
}

static void days(void **u)
{
	(void)u;
	assert_int_equal(sim_days_from_civil(1970, 1, 1), 0);
	assert_int_equal(sim_days_from_civil(1969, 12, 31), -1);
	assert_int_equal(sim_days_from_civil(2000, 3, 1), 11017);
	assert_int_equal(sim_days_from_civil(2000, 2, 29), 11016);
	assert_int_equal(sim_days_from_civil(1600, 1, 1), -135140);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(clf_fixed),
		cmocka_unit_test(rfc3339_fixed),
		cmocka_unit_test(iso_fixed),
		cmocka_unit_test(formats),
		cmocka_unit_test(numbers),
		cmocka_unit_test(random_against_timegm),
		cmocka_unit_test(days),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
