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

static void build_theory(const struct sr_study *s, struct sr_doc *d)
{
	sr_h(d, 2, "Theory: Poisson traffic at the same mean rate");
	double lambda;
	if (!sr_mean_rate(s, &lambda)) {
		sr_p(d, "No theory line: the trace has no key, or no time to take a rate over.");
		return;
	}
	char span[64];
	snprintf(span, sizeof(span), "%.9g", ((double)s->span_ns + (double)s->resolution_ns) / 1e9);
	sr_p(d, "The mean rate per key: %llu requests / %llu keys / %s s (the span and one tick) = %.6g "
		"requests per second. For Poisson arrivals at that rate on every key, the long-run share "
		"rejected is known in closed form for several algorithms (token_bucket and gcra: M/D/1/K with "
		"K = B; leaky_bucket: M/D/1/K with K = B + 1; sliding_log: Erlang B; fixed_window: Poisson "
		"windows). Beside it, the share of this trace's requests each algorithm rejected. Where the "
		"measured share is above the theory, the difference is the trace's burstiness and the skew "
		"between its keys: the theory puts every key at the mean rate, with no burst beyond chance.%s",
	     (unsigned long long)s->requests, (unsigned long long)s->keys, span, lambda,
	     s->cost ? " The trace has costs: the measured shares are of units, the theory is for requests "
		       "of cost 1." : "");
	for (size_t ri = 0; ri < s->nrules; ri++) {
		const struct sr_rule *r = &s->rule[ri];
		char load[64];
		percent(load, sizeof(load), lambda * ((double)r->window_ns / 1e9) / (double)r->limit);
		sr_h(d, 3, "Rule %s: load %s (mean rate x W / N)", r->text, load);
		sr_table(d, "lrrr");
		sr_cell(d, "algorithm");
		sr_cell(d, "Poisson theory, rejected");
		sr_cell(d, "measured, rejected");
		sr_cell(d, "measured - theory");
		for (size_t i = 0; i < r->nrows; i++) {
			const struct sr_row *w = &s->row[r->rows[i]];
			char th[64], me[64], diff[64];
			double measured = w->requests ? (double)(w->requests - w->admitted) / (double)w->requests : 0;
			double p;
			bool has = rl_algo_find(w->algo) &&
				   sim_theory_reject(w->algo, r->limit, r->window_ns, r->burst, lambda, &p);
			percent(me, sizeof(me), measured);
			if (has) {
				percent(th, sizeof(th), p);
				snprintf(diff, sizeof(diff), "%+.3g points", (measured - p) * 100);
			} else {
				snprintf(th, sizeof(th), "%s",
					 !rl_algo_find(w->algo) ? "a decider: none" : sim_theory_no_form(w->algo));
				snprintf(diff, sizeof(diff), "-");
			}
			sr_cell(d, "%s", w->algo);
			sr_cell(d, "%s", th);
			sr_cell(d, "%s", me);
			sr_cell(d, "%s", diff);
		}
	}
}

static void names(char *buf, size_t cap, const struct sr_study *s, const size_t *rows, size_t n)
{
	size_t len = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < n && len < cap; i++) {
		int w = snprintf(buf + len, cap - len, "%s%s", i ? ", " : "", s->row[rows[i]].algo);
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

/* The first row of clients.csv's group (rule, algo), or SIZE_MAX. */
static size_t client_group(const struct sr_study *s, const char *rule, const char *algo)
{
	for (size_t k = 0; k < s->nclients; k++)
		if (strcmp(s->client[k].rule, rule) == 0 && strcmp(s->client[k].algo, algo) == 0)
			return k;
	return SIZE_MAX;
}

/*
 * The keys of clients.csv that lose the most under algo against the exact
 * log (sliding_log's row of the rule): the units the log admits and the
 * algorithm refuses, the three largest, "KEY: A admitted of E"; the groups
 * list the same keys in the same order.
 */
static void losers(char *buf, size_t cap, const struct sr_study *s, const char *rule, const char *algo)
{
	size_t g = client_group(s, rule, algo), e = client_group(s, rule, "sliding_log");
	size_t best[3];
	uint64_t loss[3];
	size_t nbest = 0;
	if (strcmp(algo, "sliding_log") == 0) {
		snprintf(buf, cap, "none (the exact log)");
		return;
	}
	if (e == SIZE_MAX || g == SIZE_MAX) {
		snprintf(buf, cap, "not known (no %s rows in clients.csv)", e == SIZE_MAX ? "sliding_log" : "such");
		return;
	}
	for (size_t j = 0; g + j < s->nclients && e + j < s->nclients; j++) {
		const struct sr_client *a = &s->client[g + j], *x = &s->client[e + j];
		if (a->other || x->other || strcmp(a->rule, rule) || strcmp(a->algo, algo) ||
		    strcmp(x->algo, "sliding_log") || strcmp(a->key, x->key) != 0)
			break;
		if (x->admitted <= a->admitted)
			continue;
		uint64_t l = x->admitted - a->admitted;
		size_t at = nbest < 3 ? nbest++ : 3;
		while (at > 0 && loss[at - 1] < l) {
			if (at < 3) {
				best[at] = best[at - 1];
				loss[at] = loss[at - 1];
			}
			at--;
		}
		if (at < 3) {
			best[at] = g + j;
			loss[at] = l;
		}
	}
	size_t len = 0;
	buf[0] = '\0';
	if (!nbest)
		snprintf(buf, cap, "none");
	for (size_t i = 0; i < nbest && len < cap; i++) {
		const struct sr_client *a = &s->client[best[i]];
		int w = snprintf(buf + len, cap - len, "%s%s: %llu admitted of %llu", i ? "; " : "", a->key,
				 (unsigned long long)a->admitted, (unsigned long long)(a->admitted + loss[i]));
		len += w > 0 ? (size_t)w : 0;
	}
}

/*
 * The rule decided again with the other tick placement (placement.csv):
 * its ranking there, and whether the first place is the same both ways
 * (robust). Returns the rows' verdict in *v (v->nranked 0: not decided
 * again); alt_rows the rule's rows, indices into s->alt.
 */
static bool other_verdict(const struct sr_study *s, const struct sr_rule *r, struct sr_study *alt,
			  struct sr_rule *ar, struct sr_verdict *v)
{
	*v = (struct sr_verdict){0};
	*alt = *s;
	alt->row = s->alt;
	alt->nrows = s->nalt;
	*ar = *r;
	ar->rows = malloc((s->nalt + 1) * sizeof(*ar->rows));
	ar->nrows = 0;
	if (!ar->rows)
		return false;
	for (size_t i = 0; i < s->nalt; i++)
		if (strcmp(s->alt[i].rule, r->text) == 0)
			ar->rows[ar->nrows++] = i;
	bool ok = !ar->nrows || sr_verdict(alt, ar, v);
	return ok;
}

/* The names of rows[0 .. n) of study x, sorted by name into buf: a set to compare. */
static void name_set(char *buf, size_t cap, const struct sr_study *x, const size_t *rows, size_t n)
{
	const char *pick[64];
	size_t k = 0;
	for (size_t i = 0; i < n && k < 64; i++)
		pick[k++] = x->row[rows[i]].algo;
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

static void build_recommendation(const struct sr_study *s, struct sr_doc *d)
{
	const char *unit = s->cost ? "units" : "requests";
	sr_h(d, 2, "Recommendation");
	sr_p(d, "From the measured table only, per rule, every algorithm ranked by the harm it does, then by "
		"what it lets through: first the within-rule keys it hurts; then its false rejects, the %s the "
		"exact rule would admit that it refuses (false_rejects), with the keys that lose the most "
		"against the exact sliding log (among clients.csv's keys); then the excess it admits. The first "
		"is recommended (ties named as ties). Their cost, ns per check and bytes per key, as measured "
		"in this run.", unit);
	for (size_t ri = 0; ri < s->nrules; ri++) {
		const struct sr_rule *r = &s->rule[ri];
		struct sr_verdict v;
		sr_h(d, 3, "Rule %s", r->text);
		if (!sr_verdict(s, r, &v)) {
			d->oom = true;
			return;
		}
		char list[4096];
		uint64_t good = s->row[r->rows[0]].good_keys;
		if (v.nclean == 0) {
			sr_li(d, "Hurt no within-rule key: none.");
			names(list, sizeof(list), s, v.fewest, v.nfewest);
			const struct sr_row *f = &s->row[v.fewest[0]];
			sr_li(d, "%s within-rule keys hurt: %s (%llu of %llu%s).",
			      v.nfewest > 1 ? "Tied for the fewest" : "Fewest", list,
			      (unsigned long long)f->good_keys_hurt, (unsigned long long)f->good_keys,
			      v.nfewest > 1 ? " each" : "");
		} else {
			names(list, sizeof(list), s, v.clean, v.nclean);
			sr_li(d, "Hurt no within-rule key (of %llu): %s.", (unsigned long long)good, list);
		}
		struct sr_study alt;
		struct sr_rule ar;
		struct sr_verdict av;
		if (!other_verdict(s, r, &alt, &ar, &av)) {
			free(ar.rows);
			sr_verdict_free(&v);
			d->oom = true;
			return;
		}
		names(list, sizeof(list), s, v.ranked, v.nbest);
		const struct sr_row *b = &s->row[v.ranked[0]];
		sr_li(d, "%s: %s (%llu within-rule keys hurt, %llu false rejects, %llu of %llu excess %s "
			 "admitted%s).", v.nbest > 1 ? "Tied for first" : "Recommended", list,
		      (unsigned long long)b->good_keys_hurt, (unsigned long long)b->false_rejects,
		      (unsigned long long)b->excess_admitted, (unsigned long long)b->excess_requests, unit,
		      v.nbest > 1 ? " each" : "");
		const char *other = s->spread ? "without --spread (each tick's requests at its start)"
					      : "with --spread (each tick's requests placed evenly inside it)";
		if (av.nranked) {
			char here[1024], there[1024], clean_here[1024], clean_there[1024];
			name_set(here, sizeof(here), s, v.ranked, v.nbest);
			name_set(there, sizeof(there), &alt, av.ranked, av.nbest);
			name_set(clean_here, sizeof(clean_here), s, v.clean, v.nclean);
			name_set(clean_there, sizeof(clean_there), &alt, av.clean, av.nclean);
			const struct sr_row *ab = &alt.row[av.ranked[0]];
			char first_there[1024], clean_list[1024];
			names(first_there, sizeof(first_there), &alt, av.ranked, av.nbest);
			names(clean_list, sizeof(clean_list), &alt, av.clean, av.nclean);
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
			sr_cell(d, "%s", s->spread ? "without --spread: hurt, false rejects, excess"
						   : "with --spread: hurt, false rejects, excess");
		for (size_t i = 0; i < v.nranked; i++) {
			const struct sr_row *w = &s->row[v.ranked[i]];
			char c1[64], c2[64], lose[1024];
			losers(lose, sizeof(lose), s, r->text, w->algo);
			sr_cell(d, "%s", w->algo);
			sr_cell(d, "%llu", (unsigned long long)w->good_keys_hurt);
			sr_cell(d, "%llu", (unsigned long long)w->false_rejects);
			sr_cell(d, "%s", lose);
			sr_cell(d, "%llu of %llu", (unsigned long long)w->excess_admitted,
				(unsigned long long)w->excess_requests);
			sr_cell(d, "%s", cost_text(w->ns_per_check, "ns", c1, sizeof(c1)));
			sr_cell(d, "%s", cost_text(w->bytes_per_key, "B", c2, sizeof(c2)));
			if (!av.nranked)
				continue;
			const struct sr_row *o = NULL;
			for (size_t k = 0; k < ar.nrows && !o; k++)
				if (strcmp(alt.row[ar.rows[k]].algo, w->algo) == 0)
					o = &alt.row[ar.rows[k]];
			if (o)
				sr_cell(d, "%llu, %llu, %llu of %llu", (unsigned long long)o->good_keys_hurt,
					(unsigned long long)o->false_rejects, (unsigned long long)o->excess_admitted,
					(unsigned long long)o->excess_requests);
			else
				sr_cell(d, "not decided (a decider)");
		}
		sr_verdict_free(&av);
		free(ar.rows);
		sr_verdict_free(&v);
	}
}

void sr_build_judged(const struct sr_study *s, struct sr_doc *d)
{
	build_theory(s, d);
	build_recommendation(s, d);
}
