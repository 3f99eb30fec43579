/*
 * study_report_traffic.c - how the study's traffic series reads: the rate's
 * unit, the bin, and its times as dates or as a count from 0
 * (study_report_int.h).
 */
#include <string.h>
#include <time.h>

#include "study_report_int.h"

#define NS_PER_S 1000000000ull
#define Y2000_S 946684800ull /* 2000-01-01T00:00:00Z */

/* "+HH:MM" or "-HH:MM" into seconds east of UTC; false otherwise. */
static bool parse_tz(const char *v, int64_t *out)
{
	if (!v || strlen(v) != 6 || (v[0] != '+' && v[0] != '-') || v[3] != ':')
		return false;
	for (int i = 1; i < 6; i++)
		if (i != 3 && (v[i] < '0' || v[i] > '9'))
			return false;
	int h = (v[1] - '0') * 10 + (v[2] - '0'), m = (v[4] - '0') * 10 + (v[5] - '0');
	if (h > 23 || m > 59)
		return false;
	*out = (v[0] == '-' ? -1 : 1) * (int64_t)(h * 3600 + m * 60);
	return true;
}

/* A whole number of seconds as "1 h 5 min", "10 s", "2 days". */
static void span_text(char *buf, size_t cap, uint64_t s)
{
	static const struct {
		uint64_t s;
		const char *one, *many;
	} u[] = {{86400, "day", "days"}, {3600, "h", "h"}, {60, "min", "min"}, {1, "s", "s"}};
	size_t n = 0;
	buf[0] = '\0';
	if (s == 0)
		snprintf(buf, cap, "0 s");
	for (size_t i = 0; i < sizeof(u) / sizeof(u[0]) && s; i++)
		if (s >= u[i].s) {
			uint64_t k = s / u[i].s;
			n += (size_t)snprintf(buf + n, n < cap ? cap - n : 0, "%s%llu %s", n ? " " : "",
					      (unsigned long long)k, k == 1 ? u[i].one : u[i].many);
			s %= u[i].s;
		}
}

void sr_traffic_get(const struct sr_view *s, struct sr_traffic *t)
{
	uint64_t peak = 0;
	double bin_s = (double)(s->st.bin_ns ? (uint64_t)s->st.bin_ns : NS_PER_S) / 1e9;

	*t = (struct sr_traffic){0};
	for (size_t i = 0; i < s->st.nbins; i++)
		if (sr_tval(s, i, 0) > peak)
			peak = sr_tval(s, i, 0);
	if ((double)peak / bin_s >= 1)
		t->unit = "s", t->per = "second", t->per_unit = 1 / bin_s;
	else if ((double)peak * 60 / bin_s >= 1)
		t->unit = "min", t->per = "minute", t->per_unit = 60 / bin_s;
	else
		t->unit = "h", t->per = "hour", t->per_unit = 3600 / bin_s;
	t->dates = strcmp(s->st.format, "trace") != 0 || (uint64_t)s->st.bin0_ns / NS_PER_S >= Y2000_S;
	if (!parse_tz(sr_meta(s, "tz"), &t->tz_s))
		t->tz_s = 0;
	if (t->tz_s)
		snprintf(t->tz, sizeof(t->tz), "UTC%s", sr_meta(s, "tz"));
	else
		snprintf(t->tz, sizeof(t->tz), "UTC");
	span_text(t->bin, sizeof(t->bin), (uint64_t)s->st.bin_ns / NS_PER_S);
}

void sr_traffic_when(const struct sr_view *s, const struct sr_traffic *t, size_t i, char *buf, size_t cap)
{
	uint64_t at = (uint64_t)s->st.bin0_ns / NS_PER_S + i * ((uint64_t)s->st.bin_ns / NS_PER_S);
	if (!t->dates) {
		span_text(buf, cap, at);
		return;
	}
	time_t when = (time_t)((int64_t)at + t->tz_s);
	struct tm tm;
	if (!gmtime_r(&when, &tm) || !strftime(buf, cap, "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(buf, cap, "%llu s", (unsigned long long)at);
}
