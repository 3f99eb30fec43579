/*
 * import_time.c - model: fixed-layout fields read digit by digit, the date
 * turned into days by the days-from-civil formula (eras of 400 years of
 * 146097 days), the offset subtracted in seconds, then one multiplication
 * by 10^9 checked against the range. No libc time functions: they are
 * slow, locale- and timezone-dependent, and do not carry nanoseconds.
 */
#include "import_time.h"

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

bool sim_time_rfc3339(const char *s, size_t len, int64_t *epoch_ns, const char **why)
{
	int y, mo, d, h, mi, sec, oh = 0, om = 0, sign = 1;
	int64_t frac = 0;
	size_t i = 19;

	*why = "not an RFC 3339 time 'YYYY-MM-DDTHH:MM:SS[.F](Z|+HH:MM)'";
	if (len < 20 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't' && s[10] != ' ') ||
	    s[13] != ':' || s[16] != ':')
		return false;
	if (!digits(s, 4, &y) || !digits(s + 5, 2, &mo) || !digits(s + 8, 2, &d) ||
	    !digits(s + 11, 2, &h) || !digits(s + 14, 2, &mi) || !digits(s + 17, 2, &sec))
		return false;
	if (s[i] == '.') {
		size_t first = ++i;
		int64_t scale = NS_PER_S;
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
	if (i + 1 == len && (s[i] == 'Z' || s[i] == 'z')) {
		sign = 0;
	} else if (i + 6 == len && (s[i] == '+' || s[i] == '-') && s[i + 3] == ':' &&
		   digits(s + i + 1, 2, &oh) && digits(s + i + 4, 2, &om)) {
		sign = s[i] == '-' ? -1 : 1;
		if (oh > 23 || om > 59) {
			*why = "no such UTC offset";
			return false;
		}
	} else {
		return false;
	}
	return civil_ns(y, mo, d, h, mi, sec, sign * (oh * 3600 + om * 60), frac, epoch_ns, why);
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
