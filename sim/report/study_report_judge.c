/*
 * study_report_judge.c - the report's two judgements. The theory line: per
 * rule, each algorithm's long-run rejection probability for Poisson
 * traffic at the trace's mean rate per key (sim_theory_reject) beside the
 * share the trace had rejected, so the effect of its burstiness and of
 * the skew between keys shows. The recommendation: per rule, from the
 * measured table only, the algorithms that hurt no within-rule key, the
 * least excess admitted among them (ties named as ties), and their cost.
 */
#include <stdlib.h>
#include <string.h>

#include "ratelab/algo.h"
#include "report_algos.h"
#include "study_report_int.h"
#include "theory.h"

/* A share as a percentage: three significant digits, whole numbers from 100%;
 * below one in a million, only that (a closed form's 1e-116 means nothing more). */
static void percent(char *buf, size_t cap, double p)
{
	if (p > 0 && p < 1e-6)
		snprintf(buf, cap, "< 0.0001%%");
	else if (p >= 1)
		snprintf(buf, cap, "%.0f%%", p * 100);
	else
		snprintf(buf, cap, "%.3g%%", p * 100);
}

static void build_theory(const struct sr_view *s, struct sr_doc *d)
{
	sr_h(d, 2, "Theory: Poisson traffic at the same mean rate");
	double lambda;
	if (!sr_mean_rate(s, &lambda)) {
		sr_p(d, "No theory line: the trace has no key, or no time to take a rate over.");
		return;
	}
	char span[64];
	snprintf(span, sizeof(span), "%.9g", ((double)s->st.span_ns + (double)s->st.resolution_ns) / 1e9);
	sr_p(d, "The mean rate per key: %llu requests / %llu keys / %s s (the span and one tick) = %.6g "
		"requests per second. For Poisson arrivals at that rate on every key, the long-run share "
		"rejected is known in closed form for several algorithms (token_bucket and gcra: M/D/1/K with "
		"K = B; leaky_bucket: M/D/1/K with K = B + 1; sliding_log: Erlang B; fixed_window: Poisson "
		"windows). Beside it, the share of this trace's requests each algorithm rejected. Where the "
		"measured share is above the theory, the difference is the trace's burstiness and the skew "
		"between its keys: the theory puts every key at the mean rate, with no burst beyond chance.%s",
	     (unsigned long long)s->st.requests, (unsigned long long)s->st.keys, span, lambda,
	     s->st.cost ? " The trace has costs: the measured shares are of units, the theory is for requests "
		       "of cost 1." : "");
	for (size_t ri = 0; ri < s->st.nrules; ri++) {
		const struct sim_study_rule *r = &s->st.rules[ri];
		char load[64];
		percent(load, sizeof(load), lambda * ((double)r->rule.window_ns / 1e9) / (double)r->rule.limit);
		sr_h(d, 3, "Rule %s: load %s (mean rate x W / N)", r->text, load);
		sr_table(d, "lrrr");
		sr_cell(d, "algorithm");
		sr_cell(d, "Poisson theory, rejected");
		sr_cell(d, "measured, rejected");
		sr_cell(d, "measured - theory");
		for (size_t i = 0; i < s->rule[ri].n; i++) {
			const struct sim_study_row *w = &s->st.rows[s->rule[ri].at[i]];
			const char *algo = sr_algo(&s->st, s->rule[ri].at[i]);
			char th[64], me[64], diff[64];
			double measured = w->requests ? (double)(w->requests - w->admitted) / (double)w->requests : 0;
			double p;
			bool has = rl_algo_find(algo) && sim_theory_reject(algo, (uint64_t)r->rule.limit, r->rule.window_ns,
								    sr_burst(r), lambda, &p);
			percent(me, sizeof(me), measured);
			if (has) {
				percent(th, sizeof(th), p);
				snprintf(diff, sizeof(diff), "%+.3g points", (measured - p) * 100);
			} else {
				snprintf(th, sizeof(th), "%s",
					 !rl_algo_find(algo) ? "a decider: none" : sim_theory_no_form(algo));
				snprintf(diff, sizeof(diff), "-");
			}
			sr_cell(d, "%s", algo);
			sr_cell(d, "%s", th);
			sr_cell(d, "%s", me);
			sr_cell(d, "%s", diff);
		}
	}
}

static void names(char *buf, size_t cap, const struct sim_study *s, const size_t *rows, size_t n)
{
	size_t len = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < n && len < cap; i++) {
		int w = snprintf(buf + len, cap - len, "%s%s", i ? ", " : "", sr_algo(s, rows[i]));
		len += w > 0 ? (size_t)w : 0;
	}
}

static const char *cost_text(const char *v, const char *unit, char *buf, size_t cap)
{
	if (!*v)
		return "not measured";
	snprintf(buf, cap, "%s %s", v, unit);
	return buf;
}

/*
 * The keys of clients.csv that lose the most under row against the exact
 * log (sliding_log's row e of the rule): the units the log admits and the
 * algorithm refuses, the three largest, "KEY: A admitted of E".
 */
static void losers(char *buf, size_t cap, const struct sim_study *s, size_t row, size_t e)
{
	size_t best[3];
	int64_t loss[3];
	size_t nbest = 0;
	bool g = false, x = false;
	if (rp_algo_of(sr_algo(s, row)).exact) {
		snprintf(buf, cap, "none (the exact log)");
		return;
	}
	for (size_t j = 0; j < s->ntop; j++) {
		g |= s->top[j].listed[row];
		x |= e != SIZE_MAX && s->top[j].listed[e];
	}
	if (!x || !g) {
		snprintf(buf, cap, "not known (no %s rows in clients.csv)", !x ? rp_algo_exact() : "such");
		return;
	}
	for (size_t j = 0; j < s->ntop; j++) {
		const struct sim_study_key *k = &s->top[j];
		if (!k->listed[row] || !k->listed[e] || k->admitted[e] <= k->admitted[row])
			continue;
		int64_t l = k->admitted[e] - k->admitted[row];
		size_t at = nbest < 3 ? nbest++ : 3;
		while (at > 0 && loss[at - 1] < l) {
			if (at < 3) {
				best[at] = best[at - 1];
				loss[at] = loss[at - 1];
			}
			at--;
		}
		if (at < 3) {
			best[at] = j;
			loss[at] = l;
		}
	}
	size_t len = 0;
	buf[0] = '\0';
	if (!nbest)
		snprintf(buf, cap, "none");
	for (size_t i = 0; i < nbest && len < cap; i++) {
		const struct sim_study_key *k = &s->top[best[i]];
		int w = snprintf(buf + len, cap - len, "%s%s: %llu admitted of %llu", i ? "; " : "", k->name,
				 (unsigned long long)k->admitted[row], (unsigned long long)(k->admitted[row] + loss[i]));
		len += w > 0 ? (size_t)w : 0;
	}
}

/* The rows of rule text in placement.csv (s->alt), or NULL when it was not decided again. */
static const struct sr_rows *other_rows(const struct sr_view *s, const char *text)
{
	for (size_t i = 0; s->st.other && i < s->st.other->nrules; i++)
		if (strcmp(s->st.other->rules[i].text, text) == 0)
			return &s->alt[i];
	return NULL;
}

/* The names of rows[0 .. n) of study x, sorted by name into buf: a set to compare. */
static void name_set(char *buf, size_t cap, const struct sim_study *x, const size_t *rows, size_t n)
{
	const char *pick[64];
	size_t k = 0;
	for (size_t i = 0; i < n && k < 64; i++)
		pick[k++] = sr_algo(x, rows[i]);
	for (size_t i = 1; i < k; i++)
		for (size_t j = i; j > 0 && strcmp(pick[j - 1], pick[j]) > 0; j--) {
			const char *t = pick[j];
			pick[j] = pick[j - 1];
			pick[j - 1] = t;
		}
	size_t len = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < k && len < cap; i++) {
		int w = snprintf(buf + len, cap - len, "%s%s", i ? ", " : "", pick[i]);
		len += w > 0 ? (size_t)w : 0;
	}
}

static void build_recommendation(const struct sr_view *s, struct sr_doc *d)
{
	const struct sim_study *st = &s->st, *alt = st->other;
	const char *unit = st->cost ? "units" : "requests";
	sr_h(d, 2, "Recommendation");
	sr_p(d, "From the measured table only, per rule, every algorithm ranked by the harm it does, then by "
		"what it lets through: first the within-rule keys it hurts; then its false rejects, the %s the "
		"exact rule would admit that it refuses (false_rejects), with the keys that lose the most "
		"against the exact sliding log (among clients.csv's keys); then the excess it admits. The first "
		"is recommended (ties named as ties). Their cost, ns per check and bytes per key, as measured "
		"in this run.", unit);
	for (size_t ri = 0; ri < st->nrules; ri++) {
		const struct sr_rows *r = &s->rule[ri];
		const char *text = st->rules[ri].text;
		struct sr_verdict v;
		sr_h(d, 3, "Rule %s", text);
		if (!sr_verdict(st, r, &v)) {
			d->oom = true;
			return;
		}
		char list[4096];
		uint64_t good = (uint64_t)st->rows[r->at[0]].good_keys;
		if (v.nclean == 0) {
			sr_li(d, "Hurt no within-rule key: none.");
			names(list, sizeof(list), st, v.fewest, v.nfewest);
			const struct sim_study_row *f = &st->rows[v.fewest[0]];
			sr_li(d, "%s within-rule keys hurt: %s (%llu of %llu%s).",
			      v.nfewest > 1 ? "Tied for the fewest" : "Fewest", list,
			      (unsigned long long)f->good_keys_hurt, (unsigned long long)f->good_keys,
			      v.nfewest > 1 ? " each" : "");
		} else {
			names(list, sizeof(list), st, v.clean, v.nclean);
			sr_li(d, "Hurt no within-rule key (of %llu): %s.", (unsigned long long)good, list);
		}
		/* the rule decided again with the other tick placement (placement.csv): its ranking there,
		 * and whether the first place is the same both ways (robust) */
		const struct sr_rows *ar = other_rows(s, text);
		struct sr_verdict av = {0};
		if (ar && ar->n && !sr_verdict(alt, ar, &av)) {
			sr_verdict_free(&v);
			d->oom = true;
			return;
		}
		names(list, sizeof(list), st, v.ranked, v.nbest);
		const struct sim_study_row *b = &st->rows[v.ranked[0]];
		sr_li(d, "%s: %s (%llu within-rule keys hurt, %llu false rejects, %llu of %llu excess %s "
			 "admitted%s).", v.nbest > 1 ? "Tied for first" : "Recommended", list,
		      (unsigned long long)b->good_keys_hurt, (unsigned long long)b->false_rejects,
		      (unsigned long long)b->excess_admitted, (unsigned long long)b->excess_requests, unit,
		      v.nbest > 1 ? " each" : "");
		const char *other = st->spread ? "without --spread (each tick's requests at its start)"
					      : "with --spread (each tick's requests placed evenly inside it)";
		if (av.nranked) {
			char here[1024], there[1024], clean_here[1024], clean_there[1024];
			name_set(here, sizeof(here), st, v.ranked, v.nbest);
			name_set(there, sizeof(there), alt, av.ranked, av.nbest);
			name_set(clean_here, sizeof(clean_here), st, v.clean, v.nclean);
			name_set(clean_there, sizeof(clean_there), alt, av.clean, av.nclean);
			const struct sim_study_row *ab = &alt->rows[av.ranked[0]];
			char first_there[1024], clean_list[1024];
			names(first_there, sizeof(first_there), alt, av.ranked, av.nbest);
			names(clean_list, sizeof(clean_list), alt, av.clean, av.nclean);
			sr_li(d, "Decided both ways: the log's time resolution is coarser than W/N, so where a request "
				 "falls inside its tick can decide a verdict; placement.csv holds the rule decided %s. "
				 "There: %s %s (%llu within-rule keys hurt, %llu false rejects, %llu of %llu excess "
				 "admitted); hurt no within-rule key: %s.", other,
			      av.nbest > 1 ? "tied for first," : "recommended", first_there,
			      (unsigned long long)ab->good_keys_hurt, (unsigned long long)ab->false_rejects,
			      (unsigned long long)ab->excess_admitted, (unsigned long long)ab->excess_requests,
			      av.nclean ? clean_list : "none");
			bool first = strcmp(here, there) == 0, clean = strcmp(clean_here, clean_there) == 0;
			sr_li(d, "Robust: %s; %s.",
			      first ? "the recommendation is the same both ways"
				    : "not the recommendation, which differs with the placement",
			      clean ? "which algorithms hurt no within-rule key is the same both ways"
				    : "not which algorithms hurt no within-rule key, which differs with the placement");
		}
		sr_table(d, av.nranked ? "lrrlrrrl" : "lrrlrrr");
		sr_cell(d, "algorithm");
		sr_cell(d, "within-rule keys hurt");
		sr_cell(d, "false rejects");
		sr_cell(d, "keys that lose the most");
		sr_cell(d, "excess admitted");
		sr_cell(d, "ns per check");
		sr_cell(d, "bytes per key");
		if (av.nranked)
			sr_cell(d, "%s", st->spread ? "without --spread: hurt, false rejects, excess"
						   : "with --spread: hurt, false rejects, excess");
		size_t e = SIZE_MAX;
		for (size_t i = 0; i < r->n; i++)
			if (e == SIZE_MAX && rp_algo_of(sr_algo(st, r->at[i])).exact)
				e = r->at[i];
		for (size_t i = 0; i < v.nranked; i++) {
			const struct sim_study_row *w = &st->rows[v.ranked[i]];
			const char *algo = sr_algo(st, v.ranked[i]);
			char c1[64], c2[64], lose[1024];
			losers(lose, sizeof(lose), st, v.ranked[i], e);
			sr_cell(d, "%s", algo);
			sr_cell(d, "%llu", (unsigned long long)w->good_keys_hurt);
			sr_cell(d, "%llu", (unsigned long long)w->false_rejects);
			sr_cell(d, "%s", lose);
			sr_cell(d, "%llu of %llu", (unsigned long long)w->excess_admitted,
				(unsigned long long)w->excess_requests);
			sr_cell(d, "%s", cost_text(w->text[SIM_TEXT_NS], "ns", c1, sizeof(c1)));
			sr_cell(d, "%s", cost_text(w->text[SIM_TEXT_BYTES], "B", c2, sizeof(c2)));
			if (!av.nranked)
				continue;
			const struct sim_study_row *o = NULL;
			for (size_t k = 0; k < ar->n && !o; k++)
				if (strcmp(sr_algo(alt, ar->at[k]), algo) == 0)
					o = &alt->rows[ar->at[k]];
			if (o)
				sr_cell(d, "%llu, %llu, %llu of %llu", (unsigned long long)o->good_keys_hurt,
					(unsigned long long)o->false_rejects, (unsigned long long)o->excess_admitted,
					(unsigned long long)o->excess_requests);
			else
				sr_cell(d, "not decided (a decider)");
		}
		sr_verdict_free(&av);
		sr_verdict_free(&v);
	}
}

void sr_build_judged(const struct sr_view *s, struct sr_doc *d)
{
	build_theory(s, d);
	build_recommendation(s, d);
}
