/*
 * study_report_answer.c - what the report opens with. The answer: per
 * window of limits.csv, the keys' peaks (p50, p90, p99, max, read off the
 * rows: the smallest limit listed at which that share of keys is refused
 * nothing), the chart of keys and requests refused against the limit, and
 * the suggested limit (the --target-keys share, meta.csv's target_keys)
 * with the keys it would refuse, the heaviest first (clients.csv), the
 * share of requests it refuses and the algorithm recommended at it. Then
 * what was read and assumed (study_report_read.c).
 */
#include <stdlib.h>
#include <string.h>

#include "study.h"
#include "report_algos.h"
#include "study_report_int.h"

/* The most refused keys the answer names; the rest are counted. */
#define SR_REFUSED_LIST_MAX 10

static void share(char *buf, size_t cap, uint64_t part, uint64_t whole)
{
	if (!whole)
		snprintf(buf, cap, "-");
	else if (part && part * 1000 < whole)
		snprintf(buf, cap, "%.2g%%", 100.0 * (double)part / (double)whole);
	else
		snprintf(buf, cap, "%.1f%%", 100.0 * (double)part / (double)whole);
}

/* A percentile as the answer quotes it: "N", or "at most N" when a merge did not list the limit below. */
static void quoted(char *buf, size_t cap, const struct sr_view *s, const struct sim_limits_window *w, uint32_t p)
{
	uint64_t v;
	size_t row;
	bool exact;
	if (!sr_percentile(s, w, p, &v, &row, &exact))
		snprintf(buf, cap, "-");
	else
		snprintf(buf, cap, "%s%llu", exact ? "" : "at most ", (unsigned long long)v);
}

/* The keys of clients.csv the exact log refuses at rule (within_rule 0), the heaviest first. */
static void refused_keys(const struct sr_view *s, const char *rule, const char *unit, struct sr_doc *d)
{
	size_t ri = sr_rule_find(s, rule);
	if (ri == SIZE_MAX) {
		sr_li(d, "The keys it refuses are not named: the rule was not studied (a shard cannot know it, and "
			 "a limit above 1000000 or a 65th rule is not studied; stderr said which): study the trace "
			 "with --rules %s.", rule);
		return;
	}
	/* the first algorithm's row names the keys; sliding_log's, when studied, what the exact log admits */
	const struct sim_study *st = &s->st;
	size_t g = s->rule[ri].at[0], e = SIZE_MAX;
	for (size_t i = 0; i < s->rule[ri].n; i++)
		if (e == SIZE_MAX && rp_algo_of(sr_algo(st, s->rule[ri].at[i])).exact)
			e = s->rule[ri].at[i];
	size_t listed = 0, more = 0;
	struct sr_buf b = {0};
	for (size_t j = 0; j < st->ntop; j++) {
		const struct sim_study_key *c = &st->top[j];
		if (!c->listed[g] || c->within[ri])
			continue;
		if (listed == SR_REFUSED_LIST_MAX) {
			more++;
			continue;
		}
		sr_printf(&b, "%s%s (%llu %s", listed++ ? "; " : "", c->name, (unsigned long long)c->requests, unit);
		if (e != SIZE_MAX && c->listed[e])
			sr_printf(&b, ", %llu refused by the exact log", (unsigned long long)(c->requests - c->admitted[e]));
		sr_puts(&b, ")");
	}
	if (more)
		sr_printf(&b, "; and %zu more", more);
	if (b.oom)
		d->oom = true;
	else if (listed)
		sr_li(d, "The keys it refuses, the heaviest first (among clients.csv's keys): %s.", b.p);
	else
		sr_li(d, "It refuses none of clients.csv's keys (the heaviest ones).");
	sr_buf_free(&b);
}

static void answer_window(const struct sr_view *s, const struct sr_charts *ch, size_t wi, struct sr_doc *d)
{
	const struct sim_limits_window *w = &s->st.limits.w[wi];
	const char *unit = s->st.cost ? "units" : "requests";
	char p50[48], p90[48], p99[48], mx[48], target[16], ks[32], rs[32];
	sr_h(d, 3, "Window %s", w->text);
	if (!w->keys || !w->n) {
		sr_p(d, "No key has a request: no limit to suggest.");
		return;
	}
	quoted(p50, sizeof(p50), s, w, sim_limits_quoted[0]);
	quoted(p90, sizeof(p90), s, w, sim_limits_quoted[1]);
	quoted(p99, sizeof(p99), s, w, sim_limits_quoted[2]);
	quoted(mx, sizeof(mx), s, w, 10000);
	sr_li(d, "The keys' peaks (%llu keys; the most %s of one key in any %s): p50 %s, p90 %s, p99 %s, max %s.",
	      (unsigned long long)w->keys, unit, w->text, p50, p90, p99, mx);
	sim_study_target_text(target, sizeof(target), s->target);
	uint64_t n;
	size_t row;
	bool exact;
	sr_percentile(s, w, s->target, &n, &row, &exact);
	char rule[96];
	snprintf(rule, sizeof(rule), "%llu/%s", (unsigned long long)n, w->text);
	share(ks, sizeof(ks), (uint64_t)w->keys_refused[row], (uint64_t)w->keys);
	share(rs, sizeof(rs), (uint64_t)w->requests_refused[row], (uint64_t)w->requests);
	sr_li(d, "Suggested limit: %s%s, the smallest that refuses no request of %s of the keys. The exact "
		 "sliding log at it refuses %llu of %llu keys (%s) and %llu of %llu %s (%s).", exact ? "" : "at most ",
	      rule, target, (unsigned long long)w->keys_refused[row], (unsigned long long)w->keys, ks,
	      (unsigned long long)w->requests_refused[row], (unsigned long long)w->requests, unit, rs);
	refused_keys(s, rule, unit, d);
	size_t ri = sr_rule_find(s, rule);
	struct sr_verdict v;
	if (ri != SIZE_MAX && sr_verdict(&s->st, &s->rule[ri], &v)) {
		char list[1024] = "";
		size_t len = 0;
		for (size_t i = 0; i < v.nbest && len < sizeof(list); i++) {
			int k = snprintf(list + len, sizeof(list) - len, "%s%s", i ? ", " : "", sr_algo(&s->st, v.ranked[i]));
			len += k > 0 ? (size_t)k : 0;
		}
		const struct sim_study_row *b = &s->st.rows[v.ranked[0]];
		sr_li(d, "Every algorithm is studied at %s beside the given rules; %s there: %s (%llu within-rule "
			 "keys hurt, %llu false rejects, %llu of %llu excess admitted; see the recommendation).", rule,
		      v.nbest > 1 ? "tied for first" : "recommended", list, (unsigned long long)b->good_keys_hurt,
		      (unsigned long long)b->false_rejects, (unsigned long long)b->excess_admitted,
		      (unsigned long long)b->excess_requests);
		sr_verdict_free(&v);
	}
	const struct sr_chart *c = sr_chart_find(ch, SR_CHART_LIMITS, wi);
	if (c)
		sr_img(d, c->file, c->title);
}

void sr_build_answer(const struct sr_view *s, const struct sr_charts *ch, struct sr_doc *d)
{
	char target[16];
	sr_h(d, 2, "The answer");
	if (!s->st.has_limits || !s->st.limits.nwindows) {
		sr_p(d, "This study has no limits.csv (a study written by an earlier ratelab): no suggested limit.");
	} else {
		sim_study_target_text(target, sizeof(target), s->target);
		sr_p(d, "Which limit to set, per window: a key's peak is the most %s it sent in any window (t - W, t]; "
			"the exact sliding log at limit N refuses some request of exactly the keys whose peak is "
			"above N. The suggested limit is the smallest N that refuses no request of %s of the keys "
			"(--target-keys). limits.csv lists the exact log at every limit%s.",
		     s->st.cost ? "units" : "requests", target,
		     s->merged ? " every shard's figures are known at (a merge)" : "");
		for (size_t i = 0; i < s->st.limits.nwindows; i++)
			answer_window(s, ch, i, d);
	}
	sr_build_read(s, d);
}
