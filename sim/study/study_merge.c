/*
 * study_merge.c - the studies of the K shards of one trace combined into
 * the study of the whole: keys are independent and each key lies in one
 * shard, so every count is a sum, max_in_w a maximum, and the heaviest
 * keys of the whole are found among the shards' own heaviest (a key's rank
 * in its shard is at most its rank in the whole, under the one order of
 * units desc, key bytes asc), whose per-row figures the shards list. The
 * merged files are then what the unsharded run writes, timing and meta.csv
 * aside. Shards of different traces, rules or algorithms, a shard given
 * twice and a missing shard are refused.
 */
#include "study.h"

#include <stdlib.h>
#include <string.h>

#include "ratelab/parse.h"

/* "I/K" (or "all": 0/1) into i, k; false for anything else. */
static bool shard_of(const char *text, int64_t *i, int64_t *k)
{
	char buf[48];
	const char *slash = strchr(text, '/');

	if (!strcmp(text, "all")) {
		*i = 0;
		*k = 1;
		return true;
	}
	if (!slash || (size_t)(slash - text) >= sizeof(buf))
		return false;
	memcpy(buf, text, (size_t)(slash - text));
	buf[slash - text] = '\0';
	return rl_parse_i64(buf, i) && rl_parse_i64(slash + 1, k) && *k >= 1 && *i >= 0 && *i < *k;
}

/* How b differs from a in what a merge requires equal, or NULL. */
static const char *differs(const struct sim_study *a, const struct sim_study *b)
{
	if (strcmp(a->trace ? a->trace : "", b->trace ? b->trace : ""))
		return "trace";
	if (strcmp(a->format, b->format))
		return "format";
	if (a->span_ns != b->span_ns || a->nbins != b->nbins || a->bin_ns != b->bin_ns || a->bin0_ns != b->bin0_ns)
		return "span_ns";
	if (a->resolution_ns != b->resolution_ns || a->spread != b->spread)
		return "resolution_ns or spread";
	if (a->nrules != b->nrules)
		return "rules";
	for (size_t r = 0; r < a->nrules; r++)
		if (strcmp(a->rules[r].text, b->rules[r].text))
			return "rules";
	if (a->limits.nwindows != b->limits.nwindows)
		return "windows";
	for (size_t w = 0; w < a->limits.nwindows; w++)
		if (strcmp(a->limits.w[w].text, b->limits.w[w].text))
			return "windows";
	if (a->target_keys != b->target_keys)
		return "target_keys";
	if (!a->other != !b->other || (a->other && (a->other->nrules != b->other->nrules ||
						    a->other->nnames != b->other->nnames)))
		return "placement.csv";
	if (a->nnames != b->nnames)
		return "algos";
	for (size_t n = 0; n < a->nnames; n++)
		if (strcmp(a->names[n], b->names[n]))
			return "algos";
	return NULL;
}

/* A key of some shard, for the ranking. */
struct cand {
	const struct sim_study_key *k;
	size_t shard_key; /* its index in its shard's list */
};

static int by_rank(const void *x, const void *y)
{
	const struct sim_study_key *a = ((const struct cand *)x)->k, *b = ((const struct cand *)y)->k;

	if (a->requests != b->requests)
		return a->requests > b->requests ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* The value shard s's window w has at limit v into *kr, *rr; false when not known. */
static bool shard_at(const struct sim_limits_window *lw, int64_t v, int64_t *kr, int64_t *rr)
{
	for (size_t r = 0; r < lw->n; r++)
		if (lw->limit[r] == v) {
			*kr = lw->keys_refused[r];
			*rr = lw->requests_refused[r];
			return true;
		}
	*kr = *rr = 0;
	return !lw->n || v > lw->limit[lw->n - 1]; /* above the largest peak nothing is refused */
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* limits.csv of the whole: per window, the limits every shard is known at, summed. */
static int merge_limits(struct sim_study *out, const struct sim_study *in, size_t n)
{
	struct sim_limits *l = &out->limits;
	size_t nw = in[0].limits.nwindows;

	if (!(l->w = calloc(nw ? nw : 1, sizeof(*l->w))))
		return -1;
	l->nwindows = nw;
	for (size_t w = 0; w < nw; w++) {
		struct sim_limits_window *o = &l->w[w];
		size_t all = 0;
		for (size_t i = 0; i < n; i++)
			all += in[i].limits.w[w].n;
		snprintf(o->text, sizeof(o->text), "%s", in[0].limits.w[w].text);
		o->window_ns = in[0].limits.w[w].window_ns;
		o->limit = malloc((all ? all : 1) * sizeof(*o->limit));
		o->keys_refused = calloc(all ? all : 1, sizeof(*o->keys_refused));
		o->requests_refused = calloc(all ? all : 1, sizeof(*o->requests_refused));
		if (!o->limit || !o->keys_refused || !o->requests_refused)
			return -1;
		for (size_t i = 0; i < n; i++) {
			const struct sim_limits_window *lw = &in[i].limits.w[w];
			if (lw->n) /* a shard without keys lists nothing (and holds no array) */
				memcpy(o->limit + o->n, lw->limit, lw->n * sizeof(*o->limit));
			o->n += lw->n;
			o->keys += lw->keys;
			o->requests += lw->requests;
		}
		qsort(o->limit, o->n, sizeof(*o->limit), cmp_i64);
		size_t d = 0;
		for (size_t r = 0; r < o->n; r++) {
			int64_t v = o->limit[r], kr = 0, rr = 0, a, b;
			bool known = !d || v != o->limit[d - 1];
			for (size_t i = 0; known && i < n; i++) {
				known = shard_at(&in[i].limits.w[w], v, &a, &b);
				kr += a;
				rr += b;
			}
			if (!known)
				continue;
			o->limit[d] = v;
			o->keys_refused[d] = kr;
			o->requests_refused[d++] = rr;
		}
		o->n = d;
	}
	return 0;
}

/* Adds the shard's rows w to the whole's o: counts summed, max_in_w the largest. */
static void add_rows(struct sim_study_row *rows, const struct sim_study_row *from, size_t n)
{
	for (size_t x = 0; x < n; x++) {
		struct sim_study_row *o = &rows[x];
		const struct sim_study_row *w = &from[x];
		/* ns per check: the shards' mean weighted by their requests */
		o->ns_per_check = o->requests + w->requests
					  ? (o->ns_per_check * (double)o->requests +
					     w->ns_per_check * (double)w->requests) /
						    (double)(o->requests + w->requests)
					  : 0;
		o->requests += w->requests;
		o->admitted += w->admitted;
		o->good_keys += w->good_keys;
		o->good_keys_hurt += w->good_keys_hurt;
		o->good_requests_rejected += w->good_requests_rejected;
		o->excess_requests += w->excess_requests;
		o->excess_admitted += w->excess_admitted;
		o->over_n_admissions += w->over_n_admissions;
		o->false_rejects += w->false_rejects;
		o->diverged += w->diverged;
		o->keys += w->keys;
		o->heap_bytes += w->heap_bytes;
		o->state_bytes = w->state_bytes;
		if (w->max_in_w > o->max_in_w)
			o->max_in_w = w->max_in_w;
		for (int b = 0; b < SIM_STUDY_BUCKETS; b++)
			o->refused[b] += w->refused[b];
	}
}

static int combine(struct sim_study *out, const struct sim_study *in, size_t n, char *msg, size_t msg_len)
{
	const struct sim_study *f = &in[0];
	size_t nrows = f->nrules * f->nnames, ncand = 0;

	out->trace = strdup(f->trace ? f->trace : "");
	snprintf(out->format, sizeof(out->format), "%s", f->format);
	out->span_ns = f->span_ns;
	out->resolution_ns = f->resolution_ns;
	out->spread = f->spread;
	out->jobs = f->jobs;
	out->trace_bytes = f->trace_bytes;
	out->nrules = f->nrules;
	out->nnames = f->nnames;
	out->nbins = f->nbins;
	out->bin_ns = f->bin_ns;
	out->bin0_ns = f->bin0_ns;
	out->import = f->import;
	out->target_keys = f->target_keys;
	snprintf(out->shard, sizeof(out->shard), "all (%zu shards merged)", n);
	out->rules = malloc(f->nrules * sizeof(*out->rules));
	out->names = malloc(f->nnames * sizeof(*out->names));
	out->rows = calloc(nrows, sizeof(*out->rows));
	out->per_bin = calloc(f->nbins ? f->nbins : 1, sizeof(*out->per_bin));
	for (size_t i = 0; i < n; i++)
		ncand += in[i].ntop;
	struct cand *cand = malloc((ncand ? ncand : 1) * sizeof(*cand));
	if (f->other && (out->other = calloc(1, sizeof(*out->other)))) {
		struct sim_study *o = out->other;
		size_t nr = f->other->nrules, nn = f->other->nnames;
		o->nrules = nr;
		o->nnames = nn;
		o->rules = malloc((nr ? nr : 1) * sizeof(*o->rules));
		o->names = malloc((nn ? nn : 1) * sizeof(*o->names));
		o->rows = calloc(nr * nn > 0 ? nr * nn : 1, sizeof(*o->rows));
		if (o->rules && o->names) {
			memcpy(o->rules, f->other->rules, nr * sizeof(*o->rules));
			memcpy(o->names, f->other->names, nn * sizeof(*o->names));
		}
	}
	if (!out->trace || !out->rules || !out->names || !out->rows || !out->per_bin || !cand ||
	    merge_limits(out, in, n) ||
	    (f->other && (!out->other || !out->other->rules || !out->other->names || !out->other->rows))) {
		free(cand);
		snprintf(msg, msg_len, "out of memory");
		return -1;
	}
	memcpy(out->rules, f->rules, f->nrules * sizeof(*out->rules));
	memcpy(out->names, f->names, f->nnames * sizeof(*out->names));
	ncand = 0;
	for (size_t i = 0; i < n; i++) {
		const struct sim_study *s = &in[i];
		out->requests += s->requests;
		out->keys += s->keys;
		out->cost = out->cost || s->cost;
		out->elapsed_s += s->elapsed_s;
		if (s->peak_rss_bytes > out->peak_rss_bytes)
			out->peak_rss_bytes = s->peak_rss_bytes;
		add_rows(out->rows, s->rows, nrows);
		if (out->other)
			add_rows(out->other->rows, s->other->rows, out->other->nrules * out->other->nnames);
		for (size_t b = 0; b < s->nbins; b++)
			out->per_bin[b] += s->per_bin[b];
		for (size_t j = 0; j < s->ntop; j++)
			cand[ncand++] = (struct cand){ &s->top[j], j };
	}
	qsort(cand, ncand, sizeof(*cand), by_rank);
	out->ntop = ncand < SIM_STUDY_TOP ? ncand : SIM_STUDY_TOP;
	int rc = 0;
	if (!(out->top = calloc(out->ntop ? out->ntop : 1, sizeof(*out->top))))
		rc = -1;
	for (size_t j = 0; !rc && j < out->ntop; j++) {
		const struct sim_study_key *src = cand[j].k;
		struct sim_study_key *k = &out->top[j];
		k->requests = src->requests;
		if (!(k->name = strdup(src->name)) || !(k->admitted = malloc(nrows * sizeof(int64_t))) ||
		    !(k->within = malloc(f->nrules))) {
			rc = -1;
			break;
		}
		memcpy(k->admitted, src->admitted, nrows * sizeof(int64_t));
		memcpy(k->within, src->within, f->nrules);
		if (j >= SIM_STUDY_TRAFFIC_KEYS)
			continue;
		/* a whole's heaviest key is among its shard's heaviest, with its column */
		if (!src->per_bin || cand[j].shard_key >= SIM_STUDY_TRAFFIC_KEYS) {
			snprintf(msg, msg_len, "key '%.60s' has no traffic.csv column in its shard", src->name);
			free(cand);
			return -1;
		}
		if (!(k->per_bin = malloc((out->nbins ? out->nbins : 1) * sizeof(int64_t)))) {
			rc = -1;
			break;
		}
		memcpy(k->per_bin, src->per_bin, out->nbins * sizeof(int64_t));
	}
	free(cand);
	if (rc)
		snprintf(msg, msg_len, "out of memory");
	return rc;
}

int sim_study_merge(struct sim_study *out, const char *const *dirs, size_t n, char *msg, size_t msg_len)
{
	struct sim_study *in = calloc(n ? n : 1, sizeof(*in));
	unsigned char *seen = NULL;
	int64_t k0 = 0;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (!in) {
		snprintf(msg, msg_len, "out of memory");
		return -1;
	}
	for (size_t i = 0; !rc && i < n; i++) {
		int64_t si, sk;
		char why[1024];
		if (sim_study_read(&in[i], dirs[i], why, sizeof(why)) ||
		    sim_study_whole(&in[i], dirs[i], why, sizeof(why))) {
			snprintf(msg, msg_len, "%s", why);
			rc = -1;
		} else if (!shard_of(in[i].shard, &si, &sk)) {
			snprintf(msg, msg_len, "'%s/meta.csv': shard '%.40s' is not I/K or all (a merged study "
				 "cannot be merged again)", dirs[i], in[i].shard);
			rc = -1;
		} else if (i > 0 && differs(&in[0], &in[i])) {
			snprintf(msg, msg_len, "'%s' and '%s' are not shards of one study: their %s differ",
				 dirs[0], dirs[i], differs(&in[0], &in[i]));
			rc = -1;
		} else if (i > 0 && sk != k0) {
			snprintf(msg, msg_len, "'%s' is a shard of %lld, '%s' of %lld", dirs[0], (long long)k0,
				 dirs[i], (long long)sk);
			rc = -1;
		} else if (i == 0 && (k0 = sk, !(seen = calloc((size_t)sk, 1)))) {
			snprintf(msg, msg_len, "out of memory");
			rc = -1;
		} else if (seen[si]) {
			snprintf(msg, msg_len, "shard %lld/%lld is given twice ('%s')", (long long)si,
				 (long long)sk, dirs[i]);
			rc = -1;
		} else {
			seen[si] = 1;
		}
	}
	for (int64_t s = 0; !rc && s < k0; s++)
		if (!seen[s]) {
			snprintf(msg, msg_len, "shard %lld/%lld is missing: a merge needs every shard",
				 (long long)s, (long long)k0);
			rc = -1;
		}
	if (!rc)
		rc = combine(out, in, n, msg, msg_len);
	for (size_t i = 0; i < n; i++)
		sim_study_free(&in[i]);
	free(in);
	free(seen);
	if (rc)
		sim_study_free(out);
	return rc;
}
