/*
 * study_report_build.c - what the report says about the study itself: the
 * trace facts (meta.csv), the traffic (traffic.csv), per rule the measured
 * table (study.csv, every column, headline first), the charts and the
 * distribution of refused shares (refused.csv), and the within-rule keys
 * each algorithm hurt (clients.csv). The theory and the recommendation
 * follow (study_report_judge.c).
 */
#include <stdlib.h>
#include <string.h>

#include "study_report_int.h"

/* The most keys per algorithm the clients section lists; the rest are counted. */
#define SR_HURT_LIST_MAX 20

/* ns as the largest unit dividing it exactly, else seconds with a fraction. */
static void duration(char *buf, size_t cap, uint64_t ns)
{
	static const struct {
		uint64_t ns;
		const char *unit;
	} units[] = {{3600000000000ull, "h"}, {60000000000ull, "min"}, {1000000000ull, "s"},
		     {1000000ull, "ms"}, {1000ull, "us"}, {1ull, "ns"}};
	if (ns == 0) {
		snprintf(buf, cap, "0 s");
		return;
	}
	if (ns >= 1000000000ull && ns % 1000000000ull != 0) {
		snprintf(buf, cap, "%.3f s", (double)ns / 1e9);
		return;
	}
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (ns % units[i].ns == 0) {
			snprintf(buf, cap, "%llu %s", (unsigned long long)(ns / units[i].ns), units[i].unit);
			return;
		}
}

static void bytes(char *buf, size_t cap, const char *text)
{
	char *end;
	double v = text ? strtod(text, &end) : 0;
	if (!text || !*text || *end)
		snprintf(buf, cap, "%s", text && *text ? text : "not recorded");
	else
		snprintf(buf, cap, "%.1f MiB (%s bytes)", v / 1048576.0, text);
}

static void fact(struct sr_doc *d, const char *name, const char *value)
{
	sr_cell(d, "%s", name);
	sr_cell(d, "%s", value);
}

static bool shown_meta(const char *name)
{
	static const char *const shown[] = {"trace", "format", "requests", "keys", "span_ns", "resolution_ns",
					    "spread", "cost", "elapsed_s", "peak_rss_bytes", "trace_bytes",
					    "lines_read", "lines_skipped", "requests_without_cost", "traffic_bin_ns"};
	static const char *const read[] = {"requests_cost_zero", "requests_anonymous", "requests_no_offset", "tz",
					   "format_detected"};
	if (strncmp(name, "skipped_", 8) == 0) /* in "What was read and assumed" */
		return true;
	for (size_t i = 0; i < sizeof(read) / sizeof(read[0]); i++)
		if (strcmp(name, read[i]) == 0)
			return true;
	for (size_t i = 0; i < sizeof(shown) / sizeof(shown[0]); i++)
		if (strcmp(name, shown[i]) == 0)
			return true;
	return false;
}

static void build_facts(const struct sr_view *s, struct sr_doc *d)
{
	char buf[256], span[64], res[64];
	sr_h(d, 2, "What was studied");
	sr_table(d, "ll");
	fact(d, "fact", "value");
	fact(d, "trace", s->st.trace);
	fact(d, "format", s->st.format);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)s->st.requests);
	fact(d, "requests", buf);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)s->st.keys);
	fact(d, "keys", buf);
	duration(span, sizeof(span), (uint64_t)s->st.span_ns);
	snprintf(buf, sizeof(buf), "%s (first request to last)", span);
	fact(d, "span", buf);
	duration(res, sizeof(res), (uint64_t)s->st.resolution_ns);
	snprintf(buf, sizeof(buf), "%s (requests within one tick arrive at one instant, unless spread)", res);
	fact(d, "time resolution", buf);
	fact(d, "--spread", s->st.spread ? "yes: each tick's requests placed evenly inside it"
				      : "no: each tick's requests at the tick's start");
	fact(d, "costs", s->st.cost ? "yes: the request columns count units" : "no: every request counts 1");
	bytes(buf, sizeof(buf), sr_meta(s, "peak_rss_bytes"));
	fact(d, "memory used (peak RSS)", buf);
	bytes(buf, sizeof(buf), sr_meta(s, "trace_bytes"));
	fact(d, "trace in memory", buf);
	const char *el = sr_meta(s, "elapsed_s");
	snprintf(buf, sizeof(buf), "%s%s", el && *el ? el : "not recorded", el && *el ? " s" : "");
	fact(d, "elapsed", buf);
	for (size_t i = 0; i < s->st.nmeta; i++)
		if (!shown_meta(s->st.meta[i].name))
			fact(d, s->st.meta[i].name, s->st.meta[i].value);
}

static void build_traffic(const struct sr_view *s, const struct sr_charts *ch, struct sr_doc *d)
{
	sr_h(d, 2, "Traffic");
	if (s->st.nbins == 0) {
		sr_p(d, "traffic.csv holds no bin: the trace is empty.");
		return;
	}
	struct sr_traffic tr;
	char from[64], to[64], at[64];
	sr_traffic_get(s, &tr);
	sr_traffic_when(s, &tr, 0, from, sizeof(from));
	sr_traffic_when(s, &tr, s->st.nbins - 1, to, sizeof(to));
	const char *zone = tr.dates ? tr.tz : "from the trace's time 0";
	if (sr_tcols(s) == 1)
		sr_p(d, "Requests per %s, counted in bins of %s from %s to %s (%s).", tr.per, tr.bin, from, to, zone);
	else if (sr_tcols(s) == 2)
		sr_p(d, "Requests per %s, counted in bins of %s from %s to %s (%s): all requests, and the heaviest key.",
		     tr.per, tr.bin, from, to, zone);
	else
		sr_p(d, "Requests per %s, counted in bins of %s from %s to %s (%s): all requests, and the %zu heaviest "
			"keys.", tr.per, tr.bin, from, to, zone, sr_tcols(s) - 1);
	sr_table(d, "lrrl");
	sr_cell(d, "series");
	sr_cell(d, "requests");
	sr_cell(d, "peak per %s", tr.per);
	sr_cell(d, "in the bin from");
	for (size_t k = 0; k < sr_tcols(s); k++) {
		uint64_t sum = 0, peak = 0;
		size_t when = 0;
		for (size_t i = 0; i < s->st.nbins; i++) {
			uint64_t v = sr_tval(s, i, k);
			sum += v;
			if (v > peak) {
				peak = v;
				when = i;
			}
		}
		sr_traffic_when(s, &tr, when, at, sizeof(at));
		sr_cell(d, "%s", k ? sr_tcol(s, k) : "all requests");
		sr_cell(d, "%llu", (unsigned long long)sum);
		sr_cell(d, "%.6g", (double)peak * tr.per_unit);
		sr_cell(d, "%s", at);
	}
	const struct sr_chart *c = sr_chart_find(ch, SR_CHART_TRAFFIC, 0);
	if (c)
		sr_img(d, c->file, c->title);
}

/* The buckets refused.csv lists for any row of rule ri, as bits (sim_study_row.refused_listed). */
static unsigned buckets(const struct sr_view *s, size_t ri)
{
	unsigned b = 0;
	for (size_t i = 0; i < s->rule[ri].n; i++)
		b |= s->st.rows[s->rule[ri].at[i]].refused_listed;
	return b;
}

/* The keys-by-refused-share table of one rule: one row per algorithm, one column per bucket. */
static void build_refused(const struct sr_view *s, size_t ri, struct sr_doc *d)
{
	unsigned b = buckets(s, ri);
	size_t nb = 0;
	for (int k = 0; k < SIM_STUDY_BUCKETS; k++)
		nb += b >> k & 1;
	if (nb == 0) {
		sr_p(d, "refused.csv has no row for this rule.");
		return;
	}
	sr_p(d, "Keys (with at least one request) by the share of their requests refused:");
	char align[SIM_STUDY_BUCKETS + 2] = "l";
	memset(align + 1, 'r', nb);
	align[nb + 1] = '\0';
	sr_table(d, align);
	sr_cell(d, "algorithm");
	for (int k = 0; k < SIM_STUDY_BUCKETS; k++)
		if (b >> k & 1)
			sr_cell(d, "%s%s, %s]", strcmp(sim_study_bucket_lo[k], sim_study_bucket_hi[k]) == 0 ? "[" : "(",
				sim_study_bucket_lo[k], sim_study_bucket_hi[k]);
	for (size_t i = 0; i < s->rule[ri].n; i++) {
		const struct sim_study_row *w = &s->st.rows[s->rule[ri].at[i]];
		sr_cell(d, "%s", sr_algo(&s->st, s->rule[ri].at[i]));
		for (int k = 0; k < SIM_STUDY_BUCKETS; k++) {
			if (!(b >> k & 1))
				continue;
			/* an algorithm without rows shows '-', not 0 */
			if (w->refused_listed)
				sr_cell(d, "%llu", (unsigned long long)(w->refused_listed >> k & 1 ? w->refused[k] : 0));
			else
				sr_cell(d, "-");
		}
	}
}

/* A row's cell of study.csv's column c, as written. */
static void study_cell(const struct sim_study *st, size_t row, int c, struct sr_doc *d)
{
	const struct sim_study_row *w = &st->rows[row];
	const int64_t *v = NULL;
	switch (c) {
	case SIM_COL_ALGO: sr_cell(d, "%s", sr_algo(st, row)); return;
	case SIM_COL_MAX_IN_W_OVER_N: sr_cell(d, "%s", w->text[SIM_TEXT_RATIO]); return;
	case SIM_COL_NS_PER_CHECK: sr_cell(d, "%s", w->text[SIM_TEXT_NS]); return;
	case SIM_COL_BYTES_PER_KEY: sr_cell(d, "%s", w->text[SIM_TEXT_BYTES]); return;
	case SIM_COL_REQUESTS: v = &w->requests; break;
	case SIM_COL_ADMITTED: v = &w->admitted; break;
	case SIM_COL_GOOD_KEYS: v = &w->good_keys; break;
	case SIM_COL_GOOD_KEYS_HURT: v = &w->good_keys_hurt; break;
	case SIM_COL_GOOD_REQUESTS_REJECTED: v = &w->good_requests_rejected; break;
	case SIM_COL_EXCESS_REQUESTS: v = &w->excess_requests; break;
	case SIM_COL_EXCESS_ADMITTED: v = &w->excess_admitted; break;
	case SIM_COL_OVER_N: v = &w->over_n_admissions; break;
	case SIM_COL_FALSE_REJECTS: v = &w->false_rejects; break;
	case SIM_COL_DIVERGED: v = &w->diverged; break;
	case SIM_COL_MAX_IN_W: v = &w->max_in_w; break;
	case SIM_COL_KEYS: v = &w->keys; break;
	case SIM_COL_HEAP_BYTES: v = &w->heap_bytes; break;
	default: sr_cell(d, "%s", ""); return;
	}
	sr_cell(d, "%lld", (long long)*v);
}

static void build_rule(const struct sr_view *s, const struct sr_charts *ch, size_t ri, struct sr_doc *d)
{
	const struct sim_study_rule *r = &s->st.rules[ri];
	const struct sr_rows *rows = &s->rule[ri];
	char win[64], align[SIM_STUDY_NCOLS + 1];
	size_t n = 0;
	duration(win, sizeof(win), (uint64_t)r->rule.window_ns);
	sr_h(d, 3, "Rule %s", r->text);
	if (sr_burst(r))
		sr_p(d, "%llu %s per %s, burst %llu.", (unsigned long long)r->rule.limit, s->st.cost ? "units" : "requests",
		     win, (unsigned long long)sr_burst(r));
	else
		sr_p(d, "%llu %s per %s (burst N).", (unsigned long long)r->rule.limit, s->st.cost ? "units" : "requests",
		     win);
	/* every column study.csv has but rule, in the order it writes them */
	for (int c = SIM_COL_ALGO; c < SIM_STUDY_NCOLS; c++)
		if (s->st.columns >> c & 1)
			align[n++] = c == SIM_COL_ALGO ? 'l' : 'r';
	align[n] = '\0';
	sr_table(d, align);
	for (int c = SIM_COL_ALGO; c < SIM_STUDY_NCOLS; c++)
		if (s->st.columns >> c & 1)
			sr_cell(d, "%s", sim_study_col_name[c]);
	for (size_t i = 0; i < rows->n; i++)
		for (int c = SIM_COL_ALGO; c < SIM_STUDY_NCOLS; c++)
			if (s->st.columns >> c & 1)
				study_cell(&s->st, rows->at[i], c, d);
	const struct sr_chart *c = sr_chart_find(ch, SR_CHART_HURT, ri);
	if (c)
		sr_img(d, c->file, c->title);
	build_refused(s, ri, d);
	c = sr_chart_find(ch, SR_CHART_REFUSED, ri);
	if (c)
		sr_img(d, c->file, c->title);
}

static void build_clients(const struct sr_view *s, struct sr_doc *d)
{
	const struct sim_study *st = &s->st;
	sr_h(d, 2, "Clients: the within-rule keys hurt");
	sr_p(d, "A key is within the rule when its own requests never exceed N in any window (t - W, t]; the "
		"exact sliding log admits all of them. It is hurt when any of its requests was refused. The "
		"totals are study.csv's (every key); the keys listed are those of clients.csv (the keys with "
		"the most requests), at most %d per algorithm.", SR_HURT_LIST_MAX);
	for (size_t ri = 0; ri < st->nrules; ri++) {
		const struct sr_rows *r = &s->rule[ri];
		sr_h(d, 3, "Rule %s", st->rules[ri].text);
		size_t listed = 0;
		for (size_t i = 0; i < r->n; i++) {
			const struct sim_study_row *w = &st->rows[r->at[i]];
			size_t in_file = 0;
			for (size_t k = 0; k < st->ntop; k++) {
				const struct sim_study_key *c = &st->top[k];
				in_file += c->listed[r->at[i]] && c->within[ri] && c->admitted[r->at[i]] < c->requests;
			}
			sr_li(d, "%s: %llu of %llu within-rule keys hurt, %llu of their %s refused; listed in "
				 "clients.csv: %zu", sr_algo(st, r->at[i]), (unsigned long long)w->good_keys_hurt,
			      (unsigned long long)w->good_keys, (unsigned long long)w->good_requests_rejected,
			      st->cost ? "units" : "requests", in_file);
			listed += in_file;
		}
		if (listed == 0)
			continue;
		sr_table(d, "llrrr");
		sr_cell(d, "algorithm");
		sr_cell(d, "key");
		sr_cell(d, "requests");
		sr_cell(d, "admitted");
		sr_cell(d, "refused");
		for (size_t i = 0; i < r->n; i++) {
			size_t row = r->at[i];
			const char *algo = sr_algo(st, row);
			size_t shown = 0, more = 0;
			for (size_t k = 0; k < st->ntop; k++) {
				const struct sim_study_key *c = &st->top[k];
				if (!c->listed[row] || !c->within[ri] || c->admitted[row] == c->requests)
					continue;
				if (shown == SR_HURT_LIST_MAX) {
					more++;
					continue;
				}
				shown++;
				sr_cell(d, "%s", algo);
				sr_cell(d, "%s", c->name);
				sr_cell(d, "%llu", (unsigned long long)c->requests);
				sr_cell(d, "%llu", (unsigned long long)c->admitted[row]);
				sr_cell(d, "%llu", (unsigned long long)(c->requests - c->admitted[row]));
			}
			if (more) {
				sr_cell(d, "%s", algo);
				sr_cell(d, "(%zu more in clients.csv)", more);
				sr_cell(d, "%s", "");
				sr_cell(d, "%s", "");
				sr_cell(d, "%s", "");
			}
		}
	}
}

void sr_build_measured(const struct sr_view *s, const struct sr_charts *ch, struct sr_doc *d)
{
	build_facts(s, d);
	if (!ch->have_gnuplot)
		sr_p(d, "Charts: gnuplot was not found on PATH when this report was written, so it has none. "
			"Install gnuplot and run the study again to get them.");
	build_traffic(s, ch, d);
	sr_h(d, 2, "Measured, per rule");
	sr_p(d, "One row per algorithm and decider, from study.csv, the headline columns first: requests and "
		"admitted; good_keys, the keys within the rule; good_keys_hurt, those refused any request, and "
		"good_requests_rejected, their requests refused; excess_requests, what the exact sliding log "
		"refuses, and excess_admitted, how much of it this algorithm admitted.%s",
	     s->st.cost ? " The trace has costs: the request columns count units." : "");
	for (size_t ri = 0; ri < s->st.nrules; ri++)
		build_rule(s, ch, ri, d);
	build_clients(s, d);
}

void sr_build(const struct sr_view *s, const struct sr_charts *ch, struct sr_doc *d)
{
	sr_h(d, 1, "Study of %s", *s->st.trace ? s->st.trace : "a trace (its name not recorded)");
	sr_build_answer(s, ch, d);
	sr_build_measured(s, ch, d);
	sr_build_judged(s, d);
}
