/*
 * study_read_limits.c - limits.csv into a study's limits (study_limits.h;
 * meta.csv's windows first, study_read.c), and sim_study_whole: whether a
 * study read back is whole, as sim_study_write writes one (what --merge
 * needs).
 */
#include "study_read_impl.h"

#include <stdlib.h>
#include <string.h>

#include "ratelab/parse.h"

/* ---- limits.csv */

static int grow(int64_t **a, size_t n)
{
	int64_t *g = realloc(*a, n * sizeof(*g));
	if (!g)
		return -1;
	*a = g;
	return 0;
}

int study_rd_limits(struct study_rd *rd, struct sim_study *s)
{
	bool there;
	int rc = study_rd_open(rd, "limits.csv", true, &there), c[6];
	static const char *const names[] = { "window", "limit", "keys", "keys_refused", "requests",
					     "requests_refused" };
	struct sim_csv *t = &rd->t;
	struct sim_limits *l = &s->limits;

	if (rc || !there)
		return rc; /* none: a study written before limits.csv, the report says so */
	s->has_limits = true;
	for (int k = 0; k < 6; k++)
		if ((rc = study_rd_col(rd, names[k], &c[k])))
			return rc;
	/* meta.csv's windows first (read_meta), in order: a shard may have no row of one */
	struct sim_limits_window *g = realloc(l->w, (l->nwindows + t->nrows + 1) * sizeof(*g));
	if (!g)
		return study_rd_oom(rd);
	memset(g + l->nwindows, 0, (t->nrows + 1) * sizeof(*g));
	l->w = g;
	size_t last = SIZE_MAX, cap = 0;
	for (size_t i = 0; i < t->nrows; i++) {
		const char *text = t->row[i][c[0]];
		int64_t v[5];
		for (int k = 0; k < 5; k++)
			if ((rc = study_rd_count(rd, i, c[1 + k], &v[k])))
				return rc;
		size_t at = 0;
		while (at < l->nwindows && strcmp(l->w[at].text, text) != 0)
			at++;
		if (at != last && at < l->nwindows && l->w[at].n)
			return study_rd_bad(rd, i, "window %s again after other windows' rows", text);
		if (at == l->nwindows) {
			struct sim_limits_window *lw = &l->w[l->nwindows];
			if (strlen(text) >= SIM_LIMITS_TEXT_MAX || !rl_parse_duration(text, 0, &lw->window_ns) ||
			    lw->window_ns < 1)
				return study_rd_bad_value(rd, i, "window", text, "a duration (e.g. 1m)");
			snprintf(lw->text, sizeof(lw->text), "%s", text);
			l->nwindows++;
		}
		struct sim_limits_window *w = &l->w[at];
		if (at != last) {
			last = at;
			cap = 0;
			w->keys = v[1];
			w->requests = v[3];
		}
		if (v[0] < 1 || (w->n && v[0] <= w->limit[w->n - 1]))
			return study_rd_bad(rd, i, "limit %lld is not above the row before's (and at least 1)", (long long)v[0]);
		if (v[1] != w->keys || v[3] != w->requests)
			return study_rd_bad(rd, i, "keys or requests differ from the window's first row");
		if ((rc = study_rd_not_more(rd, i, "keys_refused", v[2], "keys", v[1])) ||
		    (rc = study_rd_not_more(rd, i, "requests_refused", v[4], "requests", v[3])))
			return rc;
		if (w->n == cap) {
			cap = cap ? 2 * cap : 64;
			if (grow(&w->limit, cap) || grow(&w->keys_refused, cap) || grow(&w->requests_refused, cap))
				return study_rd_oom(rd);
		}
		w->limit[w->n] = v[0];
		w->keys_refused[w->n] = v[2];
		w->requests_refused[w->n++] = v[4];
	}
	return 0;
}

int sim_study_whole(const struct sim_study *s, const char *dir, char *msg, size_t msg_len)
{
	size_t nrows = s->nrules * s->nnames, ntop = s->keys < SIM_STUDY_TOP ? (size_t)s->keys : SIM_STUDY_TOP;
	size_t nk = ntop < SIM_STUDY_TRAFFIC_KEYS ? ntop : SIM_STUDY_TRAFFIC_KEYS;
	const struct sim_study *o = s->other;

	if (s->columns != SIM_STUDY_ALL_COLS || (o && o->columns != SIM_STUDY_ALL_COLS)) {
		snprintf(msg, msg_len, "'%s/%s' lacks some of a study's columns", dir,
			 s->columns != SIM_STUDY_ALL_COLS ? "study.csv" : "placement.csv");
		return -1;
	}
	if (!s->has_limits) {
		snprintf(msg, msg_len, "'%s' has no limits.csv", dir);
		return -1;
	}
	for (size_t i = 0; i < nrows; i++) {
		const struct sim_study_row *w = &s->rows[i];
		const char *rule = s->rules[i / s->nnames].text, *algo = s->names[i % s->nnames];
		if (w->absent || !w->has_other || w->refused_listed != (1u << SIM_STUDY_BUCKETS) - 1) {
			snprintf(msg, msg_len, "'%s': rule '%s', algo '%s' lacks its %s", dir, rule, algo,
				 w->absent ? "study.csv row" : !w->has_other ? "(other) row in clients.csv"
										 : "refused.csv rows");
			return -1;
		}
		for (size_t j = 0; j < s->ntop; j++)
			if (!s->top[j].listed[i]) {
				snprintf(msg, msg_len, "'%s/clients.csv': key '%.60s' is not listed for rule '%s', algo '%s'",
					 dir, s->top[j].name, rule, algo);
				return -1;
			}
	}
	for (size_t i = 0; o && i < o->nrules * o->nnames; i++)
		if (o->rows[i].absent) {
			snprintf(msg, msg_len, "'%s/placement.csv': rule '%s', algo '%s' has no row", dir,
				 o->rules[i / o->nnames].text, o->names[i % o->nnames]);
			return -1;
		}
	if (s->ntop != ntop || s->ntraffic != nk) {
		snprintf(msg, msg_len, "'%s': clients.csv lists %zu keys and traffic.csv %zu, a study %zu and %zu", dir,
			 s->ntop, s->ntraffic, ntop, nk);
		return -1;
	}
	for (size_t k = 0; k < nk; k++)
		if (s->traffic[k] != k) {
			snprintf(msg, msg_len, "'%s/traffic.csv': column %zu is not the key '%.60s'", dir, k + 3,
				 s->top[k].name);
			return -1;
		}
	return 0;
}
