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

static void build_facts(const struct sr_study *s, struct sr_doc *d)
{
	char buf[256], span[64], res[64];
	sr_h(d, 2, "What was studied");
	sr_table(d, "ll");
	fact(d, "fact", "value");
	fact(d, "trace", s->trace);
	fact(d, "format", s->format);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)s->requests);
	fact(d, "requests", buf);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)s->keys);
	fact(d, "keys", buf);
	duration(span, sizeof(span), s->span_ns);
	snprintf(buf, sizeof(buf), "%s (first request to last)", span);
	fact(d, "span", buf);
	duration(res, sizeof(res), s->resolution_ns);
	snprintf(buf, sizeof(buf), "%s (requests within one tick arrive at one instant, unless spread)", res);
	fact(d, "time resolution", buf);
	fact(d, "--spread", s->spread ? "yes: each tick's requests placed evenly inside it"
				      : "no: each tick's requests at the tick's start");
	fact(d, "costs", s->cost ? "yes: the request columns count units" : "no: every request counts 1");
	bytes(buf, sizeof(buf), sr_meta(s, "peak_rss_bytes"));
	fact(d, "memory used (peak RSS)", buf);
	bytes(buf, sizeof(buf), sr_meta(s, "trace_bytes"));
	fact(d, "trace in memory", buf);
	const char *el = sr_meta(s, "elapsed_s");
	snprintf(buf, sizeof(buf), "%s%s", el && *el ? el : "not recorded", el && *el ? " s" : "");
	fact(d, "elapsed", buf);
	for (size_t i = 0; i < s->meta.nrows; i++)
		if (!shown_meta(s->meta.cell[i][0]))
			fact(d, s->meta.cell[i][0], s->meta.cell[i][1]);
}

static void build_traffic(const struct sr_study *s, const struct sr_charts *ch, struct sr_doc *d)
{
	sr_h(d, 2, "Traffic");
	if (s->nbin == 0) {
		sr_p(d, "traffic.csv holds no bin: the trace is empty.");
		return;
	}
	struct sr_traffic tr;
	char from[64], to[64], at[64];
	sr_traffic_get(s, &tr);
	sr_traffic_when(s, &tr, 0, from, sizeof(from));
	sr_traffic_when(s, &tr, s->nbin - 1, to, sizeof(to));
	const char *zone = tr.dates ? tr.tz : "from the trace's time 0";
	if (s->ntcols == 1)
		sr_p(d, "Requests per %s, counted in bins of %s from %s to %s (%s).", tr.per, tr.bin, from, to, zone);
	else if (s->ntcols == 2)
		sr_p(d, "Requests per %s, counted in bins of %s from %s to %s (%s): all requests, and the heaviest key.",
		     tr.per, tr.bin, from, to, zone);
	else
		sr_p(d, "Requests per %s, counted in bins of %s from %s to %s (%s): all requests, and the %zu heaviest "
			"keys.", tr.per, tr.bin, from, to, zone, s->ntcols - 1);
	sr_table(d, "lrrl");
	sr_cell(d, "series");
	sr_cell(d, "requests");
	sr_cell(d, "peak per %s", tr.per);
	sr_cell(d, "in the bin from");
	for (size_t k = 0; k < s->ntcols; k++) {
		uint64_t sum = 0, peak = 0;
		size_t when = 0;
		for (size_t i = 0; i < s->nbin; i++) {
			uint64_t v = s->tval[i * s->ntcols + k];
			sum += v;
			if (v > peak) {
				peak = v;
				when = i;
			}
		}
		sr_traffic_when(s, &tr, when, at, sizeof(at));
		sr_cell(d, "%s", k ? s->tcol[k] : "all requests");
		sr_cell(d, "%llu", (unsigned long long)sum);
		sr_cell(d, "%.6g", (double)peak * tr.per_unit);
		sr_cell(d, "%s", at);
	}
	const struct sr_chart *c = sr_chart_find(ch, SR_CHART_TRAFFIC, 0);
	if (c)
		sr_img(d, c->file, c->title);
}

/* The keys-by-refused-share table of one rule: one row per algorithm, one column per bucket. */
static void build_refused(const struct sr_study *s, const struct sr_rule *r, struct sr_doc *d)
{
	const struct sr_refused *b[16];
	size_t nb = 0;
	for (size_t i = 0; i < s->nref; i++) {
		const struct sr_refused *f = &s->ref[i];
		bool seen = strcmp(f->rule, r->text) != 0;
		for (size_t j = 0; j < nb && !seen; j++)
			seen = strcmp(b[j]->lo, f->lo) == 0 && strcmp(b[j]->hi, f->hi) == 0;
		if (!seen && nb < 16)
			b[nb++] = f;
	}
	if (nb == 0) {
		sr_p(d, "refused.csv has no row for this rule.");
		return;
	}
	sr_p(d, "Keys (with at least one request) by the share of their requests refused:");
	char align[18] = "l";
	memset(align + 1, 'r', nb);
	align[nb + 1] = '\0';
	sr_table(d, align);
	sr_cell(d, "algorithm");
	for (size_t k = 0; k < nb; k++)
		sr_cell(d, "%s%s, %s]", strcmp(b[k]->lo, b[k]->hi) == 0 ? "[" : "(", b[k]->lo, b[k]->hi);
	for (size_t i = 0; i < r->nrows; i++) {
		const char *algo = s->row[r->rows[i]].algo;
		sr_cell(d, "%s", algo);
		for (size_t k = 0; k < nb; k++) {
			uint64_t n = 0;
			bool any = false; /* an algorithm without rows shows '-', not 0 */
			for (size_t j = 0; j < s->nref; j++) {
				const struct sr_refused *f = &s->ref[j];
				if (strcmp(f->rule, r->text) != 0 || strcmp(f->algo, algo) != 0)
					continue;
				any = true;
				if (strcmp(f->lo, b[k]->lo) == 0 && strcmp(f->hi, b[k]->hi) == 0)
					n += f->keys;
			}
			if (any)
				sr_cell(d, "%llu", (unsigned long long)n);
			else
				sr_cell(d, "-");
		}
	}
}

static void build_rule(const struct sr_study *s, const struct sr_charts *ch, size_t ri, struct sr_doc *d)
{
	const struct sr_rule *r = &s->rule[ri];
	char win[64];
	duration(win, sizeof(win), (uint64_t)r->window_ns);
	sr_h(d, 3, "Rule %s", r->text);
	if (r->burst)
		sr_p(d, "%llu %s per %s, burst %llu.", (unsigned long long)r->limit, s->cost ? "units" : "requests",
		     win, (unsigned long long)r->burst);
	else
		sr_p(d, "%llu %s per %s (burst N).", (unsigned long long)r->limit, s->cost ? "units" : "requests", win);
	const struct sr_csv *t = &s->study;
	char *align = malloc(t->ncols);
	if (!align) {
		sr_p(d, "(out of memory)");
		return;
	}
	for (size_t c = 1; c < t->ncols; c++)
		align[c - 1] = c == 1 ? 'l' : 'r';
	align[t->ncols - 1] = '\0';
	sr_table(d, align);
	free(align);
	for (size_t c = 1; c < t->ncols; c++)
		sr_cell(d, "%s", t->col[c]);
	for (size_t i = 0; i < r->nrows; i++)
		for (size_t c = 1; c < t->ncols; c++)
			sr_cell(d, "%s", t->cell[s->row[r->rows[i]].csv_row][c]);
	const struct sr_chart *c = sr_chart_find(ch, SR_CHART_HURT, ri);
	if (c)
		sr_img(d, c->file, c->title);
	build_refused(s, r, d);
	c = sr_chart_find(ch, SR_CHART_REFUSED, ri);
	if (c)
		sr_img(d, c->file, c->title);
}

static void build_clients(const struct sr_study *s, struct sr_doc *d)
{
	sr_h(d, 2, "Clients: the within-rule keys hurt");
	sr_p(d, "A key is within the rule when its own requests never exceed N in any window (t - W, t]; the "
		"exact sliding log admits all of them. It is hurt when any of its requests was refused. The "
		"totals are study.csv's (every key); the keys listed are those of clients.csv (the keys with "
		"the most requests), at most %d per algorithm.", SR_HURT_LIST_MAX);
	for (size_t ri = 0; ri < s->nrules; ri++) {
		const struct sr_rule *r = &s->rule[ri];
		sr_h(d, 3, "Rule %s", r->text);
		size_t listed = 0;
		for (size_t i = 0; i < r->nrows; i++) {
			const struct sr_row *w = &s->row[r->rows[i]];
			size_t in_file = 0;
			for (size_t k = 0; k < s->nclients; k++) {
				const struct sr_client *c = &s->client[k];
				in_file += !c->other && c->within && c->admitted < c->requests &&
					   strcmp(c->rule, r->text) == 0 && strcmp(c->algo, w->algo) == 0;
			}
			sr_li(d, "%s: %llu of %llu within-rule keys hurt, %llu of their %s refused; listed in "
				 "clients.csv: %zu", w->algo, (unsigned long long)w->good_keys_hurt,
			      (unsigned long long)w->good_keys, (unsigned long long)w->good_requests_rejected,
			      s->cost ? "units" : "requests", in_file);
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
		for (size_t i = 0; i < r->nrows; i++) {
			const char *algo = s->row[r->rows[i]].algo;
			size_t shown = 0, more = 0;
			for (size_t k = 0; k < s->nclients; k++) {
				const struct sr_client *c = &s->client[k];
				if (c->other || !c->within || c->admitted == c->requests ||
				    strcmp(c->rule, r->text) != 0 || strcmp(c->algo, algo) != 0)
					continue;
				if (shown == SR_HURT_LIST_MAX) {
					more++;
					continue;
				}
				shown++;
				sr_cell(d, "%s", algo);
				sr_cell(d, "%s", c->key);
				sr_cell(d, "%llu", (unsigned long long)c->requests);
				sr_cell(d, "%llu", (unsigned long long)c->admitted);
				sr_cell(d, "%llu", (unsigned long long)(c->requests - c->admitted));
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

void sr_build_measured(const struct sr_study *s, const struct sr_charts *ch, struct sr_doc *d)
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
	     s->cost ? " The trace has costs: the request columns count units." : "");
	for (size_t ri = 0; ri < s->nrules; ri++)
		build_rule(s, ch, ri, d);
	build_clients(s, d);
}

void sr_build(const struct sr_study *s, const struct sr_charts *ch, struct sr_doc *d)
{
	sr_h(d, 1, "Study of %s", *s->trace ? s->trace : "a trace (its name not recorded)");
	sr_build_answer(s, ch, d);
	sr_build_measured(s, ch, d);
	sr_build_judged(s, d);
}
