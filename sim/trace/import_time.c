/*
 * import_time.c - model: fixed-layout fields read digit by digit, the date
 * turned into days by the days-from-civil formula (eras of 400 years of
 * 146097 days), the offset subtracted in seconds, then one multiplication
 * by 10^9 checked against the range. No libc time functions: they are
 * slow, locale- and timezone-dependent, and do not carry nanoseconds.
 */
#include "import_time.h"

#include <string.h>

#include "ratelab/rule.h"

#define NS_PER_S 1000000000LL

int64_t sim_days_from_civil(int64_t y, int m, int d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	int64_t yoe = y - era * 400;                                   /* [0, 399] */
	int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1; /* [0, 365], from March 1 */
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;           /* [0, 146096] */
	return era * 146097 + doe - 719468;
}

static bool leap(int64_t y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int month_days(int64_t y, int m)
{
	static const int days[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	return m == 2 && leap(y) ? 29 : days[m - 1];
}

/* n decimal digits at s into *v; false if any is not a digit. */
static bool digits(const char *s, int n, int *v)
{
	*v = 0;
	for (int i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		*v = *v * 10 + (s[i] - '0');
	}
	return true;
}

/*
 * Epoch ns of a civil time, offset_s east of UTC, plus frac_ns; false
 * (with *why) when a field is out of its range or the result outside
 * [0, RL_TIME_MAX_NS].
 */
static bool civil_ns(int y, int mo, int d, int h, int mi, int s, int offset_s, int64_t frac_ns,
		     int64_t *out, const char **why)
{
	if (mo < 1 || mo > 12 || d < 1 || d > month_days(y, mo)) {
		*why = "no such date";
		return false;
	}
	if (h > 23 || mi > 59 || s > 60) {
		*why = "no such time of day";
		return false;
	}
	int64_t secs = sim_days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s - offset_s;
	if (secs < 0 || secs > RL_TIME_MAX_NS / NS_PER_S ||
	    secs * NS_PER_S > RL_TIME_MAX_NS - frac_ns) {
		*why = "outside 1970-01-01 to 2096-10-02 (UTC)";
		return false;
	}
	*out = secs * NS_PER_S + frac_ns;
	return true;
}

bool sim_time_clf(const char *s, size_t len, int64_t *epoch_ns, const char **why)
{
	static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	int d, mo = 0, y, h, mi, sec, oh, om;

	*why = "not a date 'DD/Mon/YYYY:HH:MM:SS +HHMM'";
	if (len != 26 || s[2] != '/' || s[6] != '/' || s[11] != ':' || s[14] != ':' || s[17] != ':' ||
	    s[20] != ' ' || (s[21] != '+' && s[21] != '-'))
		return false;
	if (!digits(s, 2, &d) || !digits(s + 7, 4, &y) || !digits(s + 12, 2, &h) ||
	    !digits(s + 15, 2, &mi) || !digits(s + 18, 2, &sec) || !digits(s + 22, 2, &oh) ||
	    !digits(s + 24, 2, &om))
		return false;
	for (int i = 0; i < 12; i++)
		if (s[3] == months[3 * i] && s[4] == months[3 * i + 1] && s[5] == months[3 * i + 2])
			mo = i + 1;
	if (!mo)
		return false;
	if (oh > 23 || om > 59) {
		*why = "no such UTC offset";
		return false;
	}
	int offset = (oh * 3600 + om * 60) * (s[21] == '-' ? -1 : 1);
	return civil_ns(y, mo, d, h, mi, sec, offset, 0, epoch_ns, why);
}

/*
 * An offset at s[*i..len): 'Z', "+HH:MM", "+HHMM" or "+HH" (or '-'); seconds
 * east of UTC into *offset_s, *i past it. False when there is none there
 * (*i unchanged) or, with *why, when it is out of range.
 */
static bool offset_at(const char *s, size_t len, size_t *i, int *offset_s, const char **why)
{
	size_t k = *i;
	int oh, om = 0;

	if (k < len && (s[k] == 'Z' || s[k] == 'z')) {
		*offset_s = 0;
		*i = k + 1;
		return true;
	}
	if (k + 3 > len || (s[k] != '+' && s[k] != '-') || !digits(s + k + 1, 2, &oh))
		return false;
	size_t end = k + 3;
	if (end + 3 <= len && s[end] == ':' && digits(s + end + 1, 2, &om))
		end += 3;
	else if (end + 2 <= len && digits(s + end, 2, &om))
		end += 2;
	if (oh > 23 || om > 59) {
		*why = "no such UTC offset";
		return false;
	}
	*offset_s = (oh * 3600 + om * 60) * (s[k] == '-' ? -1 : 1);
	*i = end;
	return true;
}

/*
 * A fraction of a second at s[*i..len) (its digits, the separator already
 * passed): ns into *frac, *i past it; false when it has no digit or, with
 * *why, when it is finer than 1 ns.
 */
static bool fraction_at(const char *s, size_t len, size_t *i, int64_t *frac, const char **why)
{
	size_t first = *i, k = *i;
	int64_t scale = NS_PER_S;

	*frac = 0;
	for (; k < len && s[k] >= '0' && s[k] <= '9'; k++) {
		if (scale > 1) {
			scale /= 10;
			*frac += (s[k] - '0') * scale;
		} else if (s[k] != '0') {
			*why = "its fraction is finer than 1 ns";
			return false;
		}
	}
	*i = k;
	return k > first;
}

bool sim_time_iso(const char *s, size_t len, int default_offset_s, int64_t *epoch_ns, bool *had_offset,
		  const char **why)
{
	static const char *const shape = "not an ISO 8601 time 'YYYY-MM-DDTHH:MM:SS[.F][Z|+HH:MM]'";
	int y, mo, d, h, mi, sec, offset = default_offset_s;
	int64_t frac = 0;
	size_t i = 19;

	*why = shape;
	*had_offset = false;
	if (len < 19 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't' && s[10] != ' ') ||
	    s[13] != ':' || s[16] != ':')
		return false;
	if (!digits(s, 4, &y) || !digits(s + 5, 2, &mo) || !digits(s + 8, 2, &d) ||
	    !digits(s + 11, 2, &h) || !digits(s + 14, 2, &mi) || !digits(s + 17, 2, &sec))
		return false;
	if (i < len && (s[i] == '.' || s[i] == ',')) {
		i++;
		if (!fraction_at(s, len, &i, &frac, why))
			return false;
		*why = shape;
	}
	if (i < len) {
		if (!offset_at(s, len, &i, &offset, why))
			return false;
		*had_offset = true;
		if (i != len) {
			*why = shape;
			return false;
		}
	}
	return civil_ns(y, mo, d, h, mi, sec, offset, frac, epoch_ns, why);
}

bool sim_time_rfc3339(const char *s, size_t len, int64_t *epoch_ns, const char **why)
{
	bool had_offset;

	if (!sim_time_iso(s, len, 0, epoch_ns, &had_offset, why))
		return false;
	if (had_offset && len >= 20 && (s[len - 1] == 'Z' || s[len - 1] == 'z' || s[len - 3] == ':'))
		return true;
	*why = "not an RFC 3339 time 'YYYY-MM-DDTHH:MM:SS[.F](Z|+HH:MM)'";
	return false;
}

bool sim_time_offset(const char *s, size_t len, int *offset_s)
{
	size_t i = 0;
	const char *why;

	if (len == 3 && (!memcmp(s, "UTC", 3) || !memcmp(s, "GMT", 3))) {
		*offset_s = 0;
		return true;
	}
	return len > 0 && s[0] != 'Z' && s[0] != 'z' && offset_at(s, len, &i, offset_s, &why) && i == len &&
	       (len == 6 || len == 5);
}

/* Up to max digits at s[*i..len), at least one: the value into *v, *i past them. */
static bool num_at(const char *s, size_t len, size_t *i, int max, int *v)
{
	size_t k = *i;

	*v = 0;
	while (k < len && k - *i < (size_t)max && s[k] >= '0' && s[k] <= '9')
		*v = *v * 10 + (s[k++] - '0');
	if (k == *i)
		return false;
	*i = k;
	return true;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t';
}

static bool same_letters(const char *a, const char *b, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		char x = a[k] >= 'A' && a[k] <= 'Z' ? (char)(a[k] + 32) : a[k];
		char y = b[k] >= 'A' && b[k] <= 'Z' ? (char)(b[k] + 32) : b[k];
		if (x != y)
			return false;
	}
	return true;
}

/* A month's English name at s[*i..len), in full or its first three letters, any case: 1..12, or 0. */
static int month_at(const char *s, size_t len, size_t *i, bool full)
{
	static const char *const names[12] = { "january", "february", "march", "april", "may", "june", "july",
					       "august", "september", "october", "november", "december" };
	for (int m = 0; m < 12; m++) {
		size_t n = strlen(names[m]);
		if (full && len - *i >= n && same_letters(s + *i, names[m], n)) {
			*i += n;
			return m + 1;
		}
	}
	for (int m = 0; m < 12; m++)
		if (len - *i >= 3 && same_letters(s + *i, names[m], 3)) {
			*i += 3;
			return m + 1;
		}
	return 0;
}

/* Letters at s[*i..len) (a weekday's name, a zone's name): skipped; false when none. */
static bool letters_at(const char *s, size_t len, size_t *i)
{
	size_t k = *i;
	while (k < len && ((s[k] >= 'a' && s[k] <= 'z') || (s[k] >= 'A' && s[k] <= 'Z')))
		k++;
	if (k == *i)
		return false;
	*i = k;
	return true;
}

/* The conversions sim_time_format knows, after '%'. */
static const char known[] = "YymdeHIMSfpzZbhBaAsTF%nt";

bool sim_time_format_check(const char *fmt, const char **why)
{
	bool epoch = false, year = false, month = false, day = false, hour12 = false, ampm = false;

	for (const char *p = fmt; *p; p++) {
		if (*p != '%')
			continue;
		char c = *++p;
		if (!c || !strchr(known, c)) {
			*why = "knows %Y %y %m %d %e %H %I %p %M %S %f %z %Z %b %B %h %a %A %s %T %F %n %t %%";
			return false;
		}
		epoch |= c == 's';
		year |= c == 'Y' || c == 'y' || c == 'F';
		month |= c == 'm' || c == 'b' || c == 'B' || c == 'h' || c == 'F';
		day |= c == 'd' || c == 'e' || c == 'F';
		hour12 |= c == 'I';
		ampm |= c == 'p';
	}
	if (!epoch && !(year && month && day)) {
		*why = "needs a date: %Y (or %y), %m (or %b), %d; or %s";
		return false;
	}
	if (hour12 != ampm) {
		*why = "takes %I (a 12-hour clock) with %p (AM or PM) only";
		return false;
	}
	return true;
}

bool sim_time_format(const char *fmt, const char *s, size_t len, int default_offset_s, int64_t *epoch_ns,
		     bool *had_offset, const char **why)
{
	int y = 1970, mo = 1, d = 1, h = 0, mi = 0, sec = 0, offset = default_offset_s, pm = -1, v;
	int64_t frac = 0, epoch_s = -1;
	size_t i = 0;
	const char *p = fmt;

	*had_offset = false;
	*why = "does not match --time-format";
	while (*p) {
		if (is_space(*p)) {
			while (is_space(*p))
				p++;
			while (i < len && is_space(s[i]))
				i++;
			continue;
		}
		if (*p != '%') {
			if (i == len || s[i] != *p)
				return false;
			i++;
			p++;
			continue;
		}
		char c = p[1];
		p += 2;
		switch (c) {
		case 'Y':
			if (len - i < 4 || !digits(s + i, 4, &y))
				return false;
			i += 4;
			break;
		case 'y':
			if (len - i < 2 || !digits(s + i, 2, &v))
				return false;
			y = v < 69 ? 2000 + v : 1900 + v; /* POSIX: 69-99 the 20th century */
			i += 2;
			break;
		case 'm':
			if (!num_at(s, len, &i, 2, &mo))
				return false;
			break;
		case 'e':
			if (i < len && s[i] == ' ')
				i++;
			/* fall through */
		case 'd':
			if (!num_at(s, len, &i, 2, &d))
				return false;
			break;
		case 'H':
		case 'I':
			if (!num_at(s, len, &i, 2, &h))
				return false;
			break;
		case 'M':
			if (!num_at(s, len, &i, 2, &mi))
				return false;
			break;
		case 'S':
			if (!num_at(s, len, &i, 2, &sec))
				return false;
			/* a fraction after the seconds, unless the format itself goes on with one */
			if (i + 1 < len && (s[i] == '.' || s[i] == ',') && s[i + 1] >= '0' && s[i + 1] <= '9' &&
			    *p != s[i]) {
				i++;
				if (!fraction_at(s, len, &i, &frac, why))
					return false;
			}
			break;
		case 'f':
			if (!fraction_at(s, len, &i, &frac, why))
				return false;
			break;
		case 'p':
			if (len - i < 2 || !same_letters(s + i, "am", 1) == !same_letters(s + i, "pm", 1) ||
			    (s[i + 1] != 'M' && s[i + 1] != 'm'))
				return false;
			pm = same_letters(s + i, "pm", 1);
			i += 2;
			break;
		case 'z':
			if (!offset_at(s, len, &i, &offset, why))
				return false;
			*had_offset = true;
			break;
		case 'Z':
			if (len - i >= 3 && (same_letters(s + i, "utc", 3) || same_letters(s + i, "gmt", 3))) {
				i += 3;
			} else if (i < len && (s[i] == 'Z' || s[i] == 'z')) {
				i++;
			} else {
				*why = "its zone is not UTC, GMT or Z (give the offset: %z)";
				return false;
			}
			offset = 0;
			*had_offset = true;
			break;
		case 'b':
		case 'h':
		case 'B':
			if (!(mo = month_at(s, len, &i, c == 'B')))
				return false;
			break;
		case 'a':
		case 'A':
			if (!letters_at(s, len, &i))
				return false;
			break;
		case 's': {
			int64_t whole = 0;
			size_t first = i;
			for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
				if (whole > RL_TIME_MAX_NS / NS_PER_S) {
					*why = "outside 1970-01-01 to 2096-10-02 (UTC)";
					return false;
				}
				whole = whole * 10 + (s[i] - '0');
			}
			if (i == first)
				return false;
			if (i + 1 < len && s[i] == '.' && s[i + 1] >= '0' && s[i + 1] <= '9') {
				i++;
				if (!fraction_at(s, len, &i, &frac, why))
					return false;
			}
			epoch_s = whole;
			*had_offset = true; /* an epoch time needs none */
			break;
		}
		case 'T':
			if (!num_at(s, len, &i, 2, &h) || i == len || s[i++] != ':' || !num_at(s, len, &i, 2, &mi) ||
			    i == len || s[i++] != ':' || !num_at(s, len, &i, 2, &sec))
				return false;
			if (i + 1 < len && (s[i] == '.' || s[i] == ',') && s[i + 1] >= '0' && s[i + 1] <= '9' &&
			    *p != s[i]) {
				i++;
				if (!fraction_at(s, len, &i, &frac, why))
					return false;
			}
			break;
		case 'F':
			if (len - i < 10 || !digits(s + i, 4, &y) || s[i + 4] != '-' || !digits(s + i + 5, 2, &mo) ||
			    s[i + 7] != '-' || !digits(s + i + 8, 2, &d))
				return false;
			i += 10;
			break;
		case 'n':
		case 't':
			while (i < len && is_space(s[i]))
				i++;
			break;
		case '%':
			if (i == len || s[i] != '%')
				return false;
			i++;
			break;
		default:
			*why = "--time-format has an unknown conversion";
			return false;
		}
	}
	if (i != len)
		return false;
	if (pm >= 0) {
		if (h < 1 || h > 12) {
			*why = "no such time of day";
			return false;
		}
		h = h % 12 + (pm ? 12 : 0);
	}
	if (epoch_s >= 0) {
		if (epoch_s > RL_TIME_MAX_NS / NS_PER_S || epoch_s * NS_PER_S > RL_TIME_MAX_NS - frac) {
			*why = "outside 1970-01-01 to 2096-10-02 (UTC)";
			return false;
		}
		*epoch_ns = epoch_s * NS_PER_S + frac;
		return true;
	}
	return civil_ns(y, mo, d, h, mi, sec, offset, frac, epoch_ns, why);
}

bool sim_time_number(const char *s, size_t len, int64_t unit_ns, int64_t *ns, const char **why)
{
	int64_t whole = 0, frac = 0, scale = unit_ns;
	size_t i = 0;

	*why = "not a plain decimal number";
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
		if (whole > (RL_TIME_MAX_NS / unit_ns - (s[i] - '0')) / 10) {
			*why = "is past 4*10^18 ns";
			return false;
		}
		whole = whole * 10 + (s[i] - '0');
	}
	if (i == 0)
		return false;
	if (i < len && s[i] == '.') {
		size_t first = ++i;
		for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
			if (scale > 1) {
				scale /= 10;
				frac += (s[i] - '0') * scale;
			} else if (s[i] != '0') {
				*why = "its fraction is finer than 1 ns";
				return false;
			}
		}
		if (i == first)
			return false;
	}
	if (i != len)
		return false;
	if (whole * unit_ns > RL_TIME_MAX_NS - frac) {
		*why = "is past 4*10^18 ns";
		return false;
	}
	*ns = whole * unit_ns + frac;
	return true;
}
