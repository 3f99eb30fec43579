/*
 * study_report_read.c - the study report's "What was read and assumed",
 * from meta.csv's rows of the import (study_write.c): the lines read and
 * skipped, by reason with the first FILE:LINE of each and the first bad
 * lines whole; requests without a cost, of cost 0, without a user; the
 * format and whether it was detected; the time zone assumed for times
 * written without an offset; the time resolution and the tick placement.
 * A study written before a row existed says "not recorded" or keeps the
 * words of then, never a guess.
 */
#include <stdlib.h>
#include <string.h>

#include "import.h"
#include "study_report_int.h"

/* The meta row as a count, or -1 when absent or not a count. */
static long long meta_count(const struct sr_view *s, const char *name)
{
	const char *v = sr_meta(s, name);
	char *end;
	if (!v || !*v)
		return -1;
	long long n = strtoll(v, &end, 10);
	return *end || n < 0 ? -1 : n;
}

/* The skips by reason (meta.csv's skipped_REASON and skipped_REASON_at_I), one item each that is not 0. */
static void skips_by_reason(const struct sr_view *s, struct sr_doc *d)
{
	for (int k = 0; k < SIM_SKIP_COUNT; k++) {
		char name[64];
		snprintf(name, sizeof(name), "skipped_%s", sim_import_skip_name[k]);
		long long n = meta_count(s, name);
		if (n <= 0)
			continue;
		struct sr_buf at = {0};
		long long shown = 0;
		for (int i = 1; i <= SIM_IMPORT_EXAMPLES; i++) {
			snprintf(name, sizeof(name), "skipped_%s_at_%d", sim_import_skip_name[k], i);
			const char *w = sr_meta(s, name);
			if (w) {
				sr_printf(&at, "%s%s", shown ? ", " : "", w);
				shown++;
			}
		}
		sr_li(d, "Skipped for %s (%s): %lld line%s%s%s%s.", sim_import_skip_words[k], sim_import_skip_name[k], n,
		      n == 1 ? "" : "s", shown ? (n > shown ? ", the first at " : ", at ") : "", at.p ? at.p : "",
		      n > shown && shown ? ", ..." : "");
		d->oom |= at.oom;
		sr_buf_free(&at);
	}
}

static void lines(const struct sr_view *s, struct sr_doc *d)
{
	const char *read = sr_meta(s, "lines_read"), *skipped = sr_meta(s, "lines_skipped");
	if (!read || !skipped) {
		sr_li(d, "Lines read and skipped: not recorded in meta.csv.");
		return;
	}
	bool by_reason = sr_meta(s, "skipped_shape") != NULL;
	sr_li(d, "Lines read: %s; skipped: %s%s", read, skipped,
	      by_reason ? " (each skipped line counted once, for the first reason it fails)."
			: " (each skipped line is counted once, for the first reason it fails; the reasons are not "
			  "counted apart).");
	if (by_reason)
		skips_by_reason(s, d);
	for (int i = 1; i <= SIM_IMPORT_FIRST_BAD; i++) {
		char name[32];
		snprintf(name, sizeof(name), "skipped_example_%d", i);
		const char *ex = sr_meta(s, name);
		if (ex)
			sr_li(d, "Skipped: %s", ex);
	}
}

static void requests(const struct sr_view *s, struct sr_doc *d)
{
	const char *nocost = sr_meta(s, "requests_without_cost");
	if (nocost)
		sr_li(d, "Requests without a cost: %s of %llu (each counts 1%s).", nocost,
		      (unsigned long long)s->st.requests, s->st.cost ? "; the others count their cost" : "");
	long long zero = meta_count(s, "requests_cost_zero"), anon = meta_count(s, "requests_anonymous");
	if (zero > 0)
		sr_li(d, "Requests of cost 0: %lld, admitted with no state change and left out of the trace.", zero);
	if (anon > 0)
		sr_li(d, "Requests without a user (--key user): %lld, each keyed by its address.", anon);
}

static void time_zone(const struct sr_view *s, struct sr_doc *d)
{
	const char *f = s->st.format;
	long long no_offset = meta_count(s, "requests_no_offset");
	const char *tz = sr_meta(s, "tz");
	if (strcmp(f, "trace") == 0)
		sr_li(d, "Time zone: none; a trace's times are nanoseconds since 1970-01-01 UTC (its origin_ns "
			 "added).");
	else if (no_offset >= 0 && tz)
		sr_li(d, "Time zone: each time's own UTC offset applied; %lld of %llu requests had a time without "
			 "one, read at %s (%s). Every time is UTC.",
		      no_offset, (unsigned long long)s->st.requests, tz,
		      strcmp(tz, "+00:00") == 0 ? "UTC, the default; --tz +HH:MM says otherwise" : "--tz");
	else if (strcmp(f, "combined") == 0) /* a study written before the tz row */
		sr_li(d, "Time zone: each line's own UTC offset (as in [10/Oct/2024:13:55:36 +0200]) applied; "
			 "every time is UTC.");
	else
		sr_li(d, "Time zone: RFC 3339 times with their own offset (Z or +hh:mm) applied; numeric times are "
			 "since the Unix epoch (UTC) in --time-unit; every time is UTC.");
}

static void resolution(const struct sr_view *s, struct sr_doc *d)
{
	char res[64];
	uint64_t r = (uint64_t)s->st.resolution_ns;
	if (r >= 1000000000 && r % 1000000000 == 0)
		snprintf(res, sizeof(res), "%llu s", (unsigned long long)(r / 1000000000));
	else if (r >= 1000000 && r % 1000000 == 0)
		snprintf(res, sizeof(res), "%llu ms", (unsigned long long)(r / 1000000));
	else if (r >= 1000 && r % 1000 == 0)
		snprintf(res, sizeof(res), "%llu us", (unsigned long long)(r / 1000));
	else
		snprintf(res, sizeof(res), "%llu ns", (unsigned long long)r);
	const struct sim_study *o = s->st.other;
	if (o && o->nrules) {
		struct sr_buf b = {0};
		for (size_t i = 0; i < o->nrules; i++)
			sr_printf(&b, "%s%s", i ? ", " : "", o->rules[i].text);
		sr_li(d, "Rules whose W/N is finer than the time resolution, decided both with and without --spread "
			 "(placement.csv; the recommendation says where the verdicts agree): %s.", b.p ? b.p : "");
		d->oom |= b.oom;
		sr_buf_free(&b);
	}
	sr_li(d, "Time resolution: %s. %s", res,
	      r <= 1 ? "Every request at its own time."
	      : s->st.spread ? "Spread (--spread): the requests of one tick placed evenly inside it."
			  : "Not spread: the requests of one tick arrive together at its start (--spread places them "
			    "evenly inside it).");
}

void sr_build_read(const struct sr_view *s, struct sr_doc *d)
{
	sr_h(d, 2, "What was read and assumed");
	lines(s, d);
	requests(s, d);
	const char *detected = sr_meta(s, "format_detected");
	if (detected)
		sr_li(d, "Format: %s, %s.", s->st.format,
		      strcmp(detected, "yes") == 0 ? "detected from the first lines" : "as given (--format)");
	time_zone(s, d);
	resolution(s, d);
}
