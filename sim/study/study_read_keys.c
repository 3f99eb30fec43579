/*
 * study_read_keys.c - clients.csv, refused.csv and traffic.csv into a
 * study (study_read_impl.h): the keys each row lists with its (other)
 * row, the buckets each row lists, traffic.csv's bins and key columns.
 */
#include "study_read_impl.h"

#include "ratelab/parse.h"

#include <stdlib.h>
#include <string.h>

/* ---- clients.csv */

/*
 * The key called name in s->top, added (listed nowhere) when new: its
 * index, or SIZE_MAX out of memory. hint is where it is likely (every
 * row lists the same keys in the same order): tried first, so that a
 * study's clients.csv is read in time linear in its rows.
 */
static size_t key_of(struct sim_study *s, const char *name, size_t hint, size_t *cap)
{
	size_t nrows = s->nrules * s->nnames;

	if (hint < s->ntop && strcmp(s->top[hint].name, name) == 0)
		return hint;
	for (size_t j = 0; j < s->ntop; j++)
		if (strcmp(s->top[j].name, name) == 0)
			return j;
	if (s->ntop == *cap) {
		size_t c = *cap ? 2 * *cap : 64;
		struct sim_study_key *g = realloc(s->top, c * sizeof(*g));
		if (!g)
			return SIZE_MAX;
		s->top = g;
		*cap = c;
	}
	struct sim_study_key *k = &s->top[s->ntop];
	*k = (struct sim_study_key){ 0 };
	k->name = strdup(name);
	k->admitted = calloc(nrows ? nrows : 1, sizeof(*k->admitted));
	k->listed = calloc(nrows ? nrows : 1, 1);
	k->within = calloc(s->nrules ? s->nrules : 1, 1);
	s->ntop++; /* freed whole by sim_study_free, even when incomplete */
	return k->name && k->admitted && k->listed && k->within ? s->ntop - 1 : SIZE_MAX;
}

int study_rd_clients(struct study_rd *rd, struct sim_study *s, size_t *cap)
{
	int rc = study_rd_open(rd, "clients.csv", false, NULL), c[6];
	static const char *const names[] = { "rule", "algo", "key", "requests", "admitted", "within_rule" };
	struct sim_csv *t = &rd->t;
	size_t at = 0;

	if (rc)
		return rc;
	for (int k = 0; k < 6; k++)
		if ((rc = study_rd_col(rd, names[k], &c[k])))
			return rc;
	for (size_t i = 0; i < t->nrows; i++) {
		char **v = t->row[i];
		int64_t req, adm, within;
		/* the (other) row closes its (rule, algo) group: a key of that name elsewhere is a key */
		bool other = strcmp(v[c[2]], "(other)") == 0 &&
			     (i + 1 == t->nrows || strcmp(v[c[0]], t->row[i + 1][c[0]]) != 0 ||
			      strcmp(v[c[1]], t->row[i + 1][c[1]]) != 0);
		if ((rc = study_rd_count(rd, i, c[3], &req)) || (rc = study_rd_count(rd, i, c[4], &adm)))
			return rc;
		const char *wv = v[c[5]];
		if (other) {
			if ((rc = study_rd_count(rd, i, c[5], &within)))
				return rc;
		} else if (strcmp(wv, "1") == 0 || strcmp(wv, "yes") == 0) {
			within = 1;
		} else if (strcmp(wv, "0") == 0 || strcmp(wv, "no") == 0) {
			within = 0;
		} else {
			return study_rd_bad_value(rd, i, "within_rule", wv, "1, 0, yes or no (a key's row)");
		}
		if ((rc = study_rd_not_more(rd, i, "admitted", adm, "requests", req)))
			return rc;
		size_t row = study_rd_row_of(s, v[c[0]], v[c[1]]);
		if (row == SIZE_MAX)
			return study_rd_unknown_pair(rd, i, v[c[0]], v[c[1]]);
		struct sim_study_row *w = &s->rows[row];
		if (other) {
			w->has_other = true;
			w->other_requests = req;
			w->other_admitted = adm;
			w->other_within = within;
			continue;
		}
		/* the row's n-th key: likely the n-th of the first row's */
		at = i > 0 && strcmp(v[c[0]], t->row[i - 1][c[0]]) == 0 && strcmp(v[c[1]], t->row[i - 1][c[1]]) == 0
			     ? at + 1 : 0;
		size_t j = key_of(s, v[c[2]], at, cap);
		if (j == SIZE_MAX)
			return study_rd_oom(rd);
		struct sim_study_key *k = &s->top[j];
		bool first = true, rule_first = true;
		size_t ri = row / s->nnames;
		for (size_t r = 0; r < s->nrules * s->nnames && first; r++)
			first = !k->listed[r];
		for (size_t a = 0; a < s->nnames && rule_first; a++)
			rule_first = !k->listed[ri * s->nnames + a];
		char q[RL_QUOTE_SIZE];
		if (k->listed[row])
			return study_rd_bad(rd, i, "key %s given twice for rule and algo", rl_quote(q, k->name));
		if (!first && k->requests != req)
			return study_rd_bad(rd, i, "key %s: requests %lld, where another row of it gives %lld",
				   rl_quote(q, k->name), (long long)req, (long long)k->requests);
		/* within the rule: the key's own requests against the rule, whatever the algorithm */
		if (!rule_first && k->within[ri] != within)
			return study_rd_bad(rd, i, "key %s: within_rule %s, where another row of its rule gives %s",
					    rl_quote(q, k->name), within ? "1" : "0", k->within[ri] ? "1" : "0");
		k->requests = req;
		k->listed[row] = 1;
		k->admitted[row] = adm;
		k->within[ri] = (unsigned char)within;
	}
	return 0;
}

/* ---- refused.csv */

int study_rd_refused(struct study_rd *rd, struct sim_study *s)
{
	int rc = study_rd_open(rd, "refused.csv", false, NULL), c[5];
	static const char *const names[] = { "rule", "algo", "share_lo", "share_hi", "keys" };
	struct sim_csv *t = &rd->t;

	if (rc)
		return rc;
	for (int k = 0; k < 5; k++)
		if ((rc = study_rd_col(rd, names[k], &c[k])))
			return rc;
	for (size_t i = 0; i < t->nrows; i++) {
		char **v = t->row[i];
		double lo, hi;
		int64_t keys;
		if ((rc = study_rd_decimal(rd, i, c[2], false, &lo)) || (rc = study_rd_decimal(rd, i, c[3], false, &hi)) ||
		    (rc = study_rd_count(rd, i, c[4], &keys)))
			return rc;
		if (lo > hi || hi > 1)
			return study_rd_bad(rd, i, "share_lo %s and share_hi %s are not a bucket of [0, 1]", v[c[2]], v[c[3]]);
		size_t row = study_rd_row_of(s, v[c[0]], v[c[1]]);
		if (row == SIZE_MAX)
			return study_rd_unknown_pair(rd, i, v[c[0]], v[c[1]]);
		int b = 0;
		while (b < SIM_STUDY_BUCKETS &&
		       (strcmp(v[c[2]], sim_study_bucket_lo[b]) || strcmp(v[c[3]], sim_study_bucket_hi[b])))
			b++;
		if (b == SIM_STUDY_BUCKETS)
			return study_rd_bad(rd, i, "share_lo %s and share_hi %s are not a bucket of a study (0,0 0,0.01 "
				   "0.01,0.1 0.1,0.5 0.5,1)", v[c[2]], v[c[3]]);
		struct sim_study_row *w = &s->rows[row];
		if (w->refused_listed & (1u << b))
			return study_rd_bad(rd, i, "the bucket %s, %s given twice for rule and algo", v[c[2]], v[c[3]]);
		w->refused_listed |= (uint8_t)(1u << b);
		w->refused[b] = keys;
	}
	return 0;
}

/* ---- traffic.csv */

int study_rd_traffic(struct study_rd *rd, struct sim_study *s, size_t *cap)
{
	int rc = study_rd_open(rd, "traffic.csv", false, NULL);
	struct sim_csv *t = &rd->t;

	if (rc)
		return rc;
	if (t->ncols < 2 || strcmp(t->col[0], "t_ns") != 0 || strcmp(t->col[1], "requests") != 0)
		return study_rd_bad(rd, SIZE_MAX, "the header must begin t_ns,requests (then one column per heavy key)");
	if (t->nrows > SIM_STUDY_TRAFFIC_BINS)
		return study_rd_bad(rd, SIM_STUDY_TRAFFIC_BINS, "more than %d bins", SIM_STUDY_TRAFFIC_BINS);
	s->ntraffic = t->ncols - 2;
	size_t nb = t->nrows ? t->nrows : 1;
	if (!(s->traffic = calloc(s->ntraffic + 1, sizeof(*s->traffic))) || !(s->per_bin = calloc(nb, sizeof(int64_t))))
		return study_rd_oom(rd);
	for (size_t k = 0; k < s->ntraffic; k++) {
		size_t j = key_of(s, t->col[2 + k], k, cap);
		if (j == SIZE_MAX || !(s->top[j].per_bin = calloc(nb, sizeof(int64_t))))
			return study_rd_oom(rd);
		s->traffic[k] = j;
	}
	for (size_t i = 0; i < t->nrows; i++) {
		int64_t at;
		if ((rc = study_rd_count(rd, i, 0, &at)))
			return rc;
		if (i == 0)
			s->bin0_ns = at;
		if (at % s->bin_ns != 0 || at != s->bin0_ns + (int64_t)i * s->bin_ns)
			return study_rd_bad(rd, i, "t_ns %lld where %lld was due (every traffic_bin_ns from the first, in order)",
				   (long long)at, (long long)(s->bin0_ns + (int64_t)i * s->bin_ns));
		if ((rc = study_rd_count(rd, i, 1, &s->per_bin[i])))
			return rc;
		for (size_t k = 0; k < s->ntraffic; k++)
			if ((rc = study_rd_count(rd, i, (int)k + 2, &s->top[s->traffic[k]].per_bin[i])))
				return rc;
		s->nbins++;
	}
	return 0;
}
