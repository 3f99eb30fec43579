/*
 * study_read_rows.c - study.csv and placement.csv into a study's rows
 * (study_read_impl.h): by column name, study.csv's first nine columns in
 * the writer's order; every figure checked against the row's others; each
 * rule read by sim_study_rule_parse; a row absent where the file has none.
 */
#include "study_read_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ratelab/algo.h"

/* One row's figures from the record row, by the columns col[] (-1: absent, 0). */
static int row_figures(struct study_rd *rd, size_t i, const int *col, struct sim_study_row *w)
{
	int64_t *f[SIM_STUDY_NCOLS] = { NULL };
	int rc;

	f[SIM_COL_REQUESTS] = &w->requests;
	f[SIM_COL_ADMITTED] = &w->admitted;
	f[SIM_COL_GOOD_KEYS] = &w->good_keys;
	f[SIM_COL_GOOD_KEYS_HURT] = &w->good_keys_hurt;
	f[SIM_COL_GOOD_REQUESTS_REJECTED] = &w->good_requests_rejected;
	f[SIM_COL_EXCESS_REQUESTS] = &w->excess_requests;
	f[SIM_COL_EXCESS_ADMITTED] = &w->excess_admitted;
	f[SIM_COL_OVER_N] = &w->over_n_admissions;
	f[SIM_COL_FALSE_REJECTS] = &w->false_rejects;
	f[SIM_COL_DIVERGED] = &w->diverged;
	f[SIM_COL_MAX_IN_W] = &w->max_in_w;
	f[SIM_COL_KEYS] = &w->keys;
	f[SIM_COL_HEAP_BYTES] = &w->heap_bytes;
	for (int c = 0; c < SIM_STUDY_NCOLS; c++)
		if (f[c] && col[c] >= 0 && (rc = study_rd_count(rd, i, col[c], f[c])))
			return rc;
	static const int texts[SIM_STUDY_NTEXT] = { SIM_COL_MAX_IN_W_OVER_N, SIM_COL_NS_PER_CHECK,
						    SIM_COL_BYTES_PER_KEY };
	for (int k = 0; k < SIM_STUDY_NTEXT; k++) {
		double d;
		if (col[texts[k]] < 0)
			continue;
		const char *v = rd->t.row[i][col[texts[k]]];
		if ((rc = study_rd_decimal(rd, i, col[texts[k]], true, &d)))
			return rc;
		if (strlen(v) >= SIM_STUDY_TEXT_MAX)
			return study_rd_bad_value(rd, i, rd->t.col[col[texts[k]]], v, "a figure of a study (too long)");
		snprintf(w->text[k], sizeof(w->text[k]), "%s", v);
		if (k == SIM_TEXT_NS)
			w->ns_per_check = d;
		if (k == SIM_TEXT_BYTES)
			w->state_bytes = *v ? 0 : -1; /* a decider's memory is not measured */
	}
	return 0;
}

/* The columns of the file being read into col[], and their set into *mask. */
static void find_cols(struct study_rd *rd, int *col, uint32_t *mask)
{
	*mask = 0;
	for (int c = 0; c < SIM_STUDY_NCOLS; c++)
		if ((col[c] = sim_csv_col(&rd->t, sim_study_col_name[c])) >= 0)
			*mask |= 1u << c;
}

/*
 * A measured row's state_bytes, from its bytes_per_key as written (the
 * state's size plus heap_bytes / keys, one decimal: study_write.c): the
 * whole number nearest bytes_per_key - heap_bytes / keys, exact while the
 * written figure is within 0.05 of it. A policy's state is its rules',
 * so no algorithm's state_size would do. A decider's (empty: -1) stays.
 */
static void state_sizes(struct sim_study *s)
{
	for (size_t i = 0; i < s->nrules * s->nnames; i++) {
		struct sim_study_row *w = &s->rows[i];
		if (w->absent || w->state_bytes < 0)
			continue;
		double per_key = strtod(w->text[SIM_TEXT_BYTES], NULL);
		double heap = w->keys ? (double)w->heap_bytes / (double)w->keys : 0;
		w->state_bytes = (int64_t)llround(per_key - heap > 0 ? per_key - heap : 0);
	}
}

int study_rd_study(struct study_rd *rd, struct sim_study *s)
{
	int rc = study_rd_open(rd, "study.csv", false, NULL), col[SIM_STUDY_NCOLS];
	struct sim_csv *t = &rd->t;
	enum { NHEAD = SIM_COL_EXCESS_ADMITTED + 1 };

	if (rc)
		return rc;
	for (int i = 0; i < NHEAD; i++)
		if ((size_t)i >= t->ncols || strcmp(t->col[i], sim_study_col_name[i]) != 0)
			return study_rd_bad(rd, SIZE_MAX,
				   "the header must begin rule,algo,requests,admitted,good_keys,good_keys_hurt,"
				   "good_requests_rejected,excess_requests,excess_admitted (column %d is not %s)",
				   i + 1, sim_study_col_name[i]);
	if ((rc = study_rd_col(rd, "ns_per_check", &col[0])) || (rc = study_rd_col(rd, "bytes_per_key", &col[0])))
		return rc;
	find_cols(rd, col, &s->columns);
	if (t->nrows == 0)
		return study_rd_bad(rd, SIZE_MAX, "no rows: the study measured nothing");
	s->rules = calloc(t->nrows, sizeof(*s->rules));
	s->names = calloc(t->nrows, sizeof(*s->names));
	struct sim_study_row *w = calloc(t->nrows, sizeof(*w));
	size_t *ri = calloc(t->nrows, sizeof(*ri)), *ai = calloc(t->nrows, sizeof(*ai));
	if (!s->rules || !s->names || !w || !ri || !ai) {
		free(w), free(ri), free(ai);
		return study_rd_oom(rd);
	}
	for (size_t i = 0; i < t->nrows && !rc; i++) {
		const char *rule = t->row[i][0], *algo = t->row[i][1];
		if ((rc = row_figures(rd, i, col, &w[i])))
			break;
		if (!*algo) {
			rc = study_rd_bad(rd, i, "algo is empty");
			break;
		}
		if (strlen(algo) >= SIM_STUDY_NAME_MAX) {
			rc = study_rd_bad_value(rd, i, "algo", algo, "a name of an algorithm or decider (too long)");
			break;
		}
		if ((rc = study_rd_not_more(rd, i, "admitted", w[i].admitted, "requests", w[i].requests)) ||
		    (rc = study_rd_not_more(rd, i, "good_keys_hurt", w[i].good_keys_hurt, "good_keys", w[i].good_keys)) ||
		    (rc = study_rd_not_more(rd, i, "good_requests_rejected", w[i].good_requests_rejected, "requests",
				   w[i].requests - w[i].admitted)) ||
		    (rc = study_rd_not_more(rd, i, "excess_requests", w[i].excess_requests, "requests", w[i].requests)) ||
		    (rc = study_rd_not_more(rd, i, "excess_admitted", w[i].excess_admitted, "excess_requests",
				   w[i].excess_requests)))
			break;
		ri[i] = study_rd_rule_of(s, rule);
		ai[i] = study_rd_name_of(s, algo);
		for (size_t j = 0; j < i && ri[i] != SIZE_MAX && ai[i] != SIZE_MAX; j++)
			if (ri[j] == ri[i] && ai[j] == ai[i]) {
				rc = study_rd_bad(rd, i, "rule and algo given twice (first on line %ld)", t->line[j]);
				break;
			}
		if (rc)
			break;
		if (ri[i] == SIZE_MAX) {
			char why[1024];
			if (strlen(rule) >= SIM_STUDY_RULE_MAX ||
			    !sim_study_rule_parse(rule, &s->rules[s->nrules], why, sizeof(why))) {
				rc = strlen(rule) >= SIM_STUDY_RULE_MAX ? study_rd_bad(rd, i, "rule is longer than %d bytes",
									    SIM_STUDY_RULE_MAX - 1)
								      : study_rd_bad(rd, i, "rule %s", why);
				break;
			}
			ri[i] = s->nrules++;
		}
		if (ai[i] == SIZE_MAX) {
			snprintf(s->names[s->nnames], sizeof(s->names[0]), "%s", algo);
			ai[i] = s->nnames++;
		}
	}
	if (!rc && !(s->rows = calloc(s->nrules * s->nnames, sizeof(*s->rows))))
		rc = study_rd_oom(rd);
	if (!rc) {
		for (size_t k = 0; k < s->nrules * s->nnames; k++)
			s->rows[k].absent = true;
		for (size_t i = 0; i < t->nrows; i++)
			s->rows[ri[i] * s->nnames + ai[i]] = w[i];
		state_sizes(s);
	}
	free(w), free(ri), free(ai);
	return rc;
}

/*
 * placement.csv, when there, into s->other: rows of the study's rules and
 * names, by column name (the figures the recommendation compares at least).
 */
int study_rd_placement(struct study_rd *rd, struct sim_study *s)
{
	bool there;
	int rc = study_rd_open(rd, "placement.csv", true, &there), col[SIM_STUDY_NCOLS];

	if (rc || !there)
		return rc;
	static const int need[] = { SIM_COL_RULE, SIM_COL_ALGO, SIM_COL_GOOD_KEYS, SIM_COL_GOOD_KEYS_HURT,
				    SIM_COL_FALSE_REJECTS, SIM_COL_EXCESS_REQUESTS, SIM_COL_EXCESS_ADMITTED,
				    SIM_COL_REQUESTS, SIM_COL_ADMITTED };
	for (size_t k = 0; k < sizeof(need) / sizeof(need[0]); k++)
		if ((rc = study_rd_col(rd, sim_study_col_name[need[k]], &col[0])))
			return rc;
	struct sim_study *o = calloc(1, sizeof(*o));
	if (!o)
		return study_rd_oom(rd);
	s->other = o;
	find_cols(rd, col, &o->columns);
	o->rules = calloc(s->nrules, sizeof(*o->rules));
	o->names = calloc(s->nnames, sizeof(*o->names));
	o->rows = calloc(s->nrules * s->nnames, sizeof(*o->rows));
	if (!o->rules || !o->names || !o->rows)
		return study_rd_oom(rd);
	/* o's rules: the study's that placement.csv names, in its order; its names the study's it names
	 * (built-in algorithms: a decider is not decided again), in the study's order */
	unsigned char *named = calloc(s->nnames + 1, 1);
	if (!named)
		return study_rd_oom(rd);
	for (size_t i = 0; i < rd->t.nrows; i++) {
		const char *rule = rd->t.row[i][col[SIM_COL_RULE]], *algo = rd->t.row[i][col[SIM_COL_ALGO]];
		if (study_rd_row_of(s, rule, algo) == SIZE_MAX) {
			free(named);
			return study_rd_unknown_pair(rd, i, rule, algo);
		}
		if (study_rd_rule_of(o, rule) == SIZE_MAX)
			o->rules[o->nrules++] = s->rules[study_rd_rule_of(s, rule)];
		named[study_rd_name_of(s, algo)] = 1;
	}
	for (size_t a = 0; a < s->nnames; a++)
		if (named[a])
			memcpy(o->names[o->nnames++], s->names[a], sizeof(o->names[0]));
	free(named);
	for (size_t k = 0; k < o->nrules * o->nnames; k++)
		o->rows[k].absent = true;
	for (size_t i = 0; i < rd->t.nrows; i++) {
		size_t at = study_rd_rule_of(o, rd->t.row[i][col[SIM_COL_RULE]]) * o->nnames +
			    study_rd_name_of(o, rd->t.row[i][col[SIM_COL_ALGO]]);
		if (!o->rows[at].absent)
			return study_rd_bad(rd, i, "rule and algo given twice");
		if ((rc = row_figures(rd, i, col, &o->rows[at])))
			return rc;
		o->rows[at].absent = false;
	}
	state_sizes(o);
	return 0;
}
