/*
 * study_report.c - sim_study_report: load and check the study directory,
 * draw the charts, write REPORT.md and report.html; and the two judgements
 * both writers state, from the measured figures only: the recommendation
 * (which algorithms hurt no within-rule key, which of those admit the
 * least excess) and the mean rate per key the theory line is drawn at.
 */
#include <stdlib.h>
#include <string.h>

#include "study_report.h"
#include "study_report_int.h"

/* Row a before row b in the ranking: fewer within-rule keys hurt, then fewer false rejects, then less excess. */
static bool ranks_before(const struct sr_row *a, const struct sr_row *b)
{
	if (a->good_keys_hurt != b->good_keys_hurt)
		return a->good_keys_hurt < b->good_keys_hurt;
	if (a->false_rejects != b->false_rejects)
		return a->false_rejects < b->false_rejects;
	return a->excess_admitted < b->excess_admitted;
}

bool sr_verdict(const struct sr_study *s, const struct sr_rule *r, struct sr_verdict *v)
{
	*v = (struct sr_verdict){0};
	v->clean = malloc((r->nrows + 1) * sizeof(*v->clean));
	v->ranked = malloc((r->nrows + 1) * sizeof(*v->ranked));
	v->fewest = malloc((r->nrows + 1) * sizeof(*v->fewest));
	if (!v->clean || !v->ranked || !v->fewest) {
		sr_verdict_free(v);
		return false;
	}
	uint64_t least_hurt = UINT64_MAX;
	for (size_t i = 0; i < r->nrows; i++) {
		const struct sr_row *row = &s->row[r->rows[i]];
		if (row->good_keys_hurt < least_hurt)
			least_hurt = row->good_keys_hurt;
		if (row->good_keys_hurt == 0)
			v->clean[v->nclean++] = r->rows[i];
		/* insertion after its equals: table order among ties */
		size_t j = v->nranked++;
		while (j > 0 && ranks_before(row, &s->row[v->ranked[j - 1]])) {
			v->ranked[j] = v->ranked[j - 1];
			j--;
		}
		v->ranked[j] = r->rows[i];
	}
	while (v->nbest < v->nranked && !ranks_before(&s->row[v->ranked[0]], &s->row[v->ranked[v->nbest]]))
		v->nbest++;
	if (v->nclean == 0)
		for (size_t i = 0; i < r->nrows; i++)
			if (s->row[r->rows[i]].good_keys_hurt == least_hurt)
				v->fewest[v->nfewest++] = r->rows[i];
	return true;
}

void sr_verdict_free(struct sr_verdict *v)
{
	free(v->clean);
	free(v->ranked);
	free(v->fewest);
	*v = (struct sr_verdict){0};
}

bool sr_mean_rate(const struct sr_study *s, double *per_s)
{
	/* the trace covers its span and the last tick: one tick when every request shares it */
	double covered_s = ((double)s->span_ns + (double)s->resolution_ns) / 1e9;
	if (s->keys == 0 || covered_s <= 0)
		return false;
	*per_s = (double)s->requests / (double)s->keys / covered_s;
	return true;
}

int sim_study_report(const char *dir, FILE *err)
{
	struct sr_study s;
	struct sr_charts ch = {0};
	struct sr_doc doc = {0};
	if (strlen(dir) > SR_DIR_MAX) {
		fprintf(err, SR_WHO "the directory's name is longer than %d bytes\n", SR_DIR_MAX);
		return SR_BAD;
	}
	int rc = sr_load(&s, dir, err);
	if (rc == SR_OK)
		rc = sr_charts_draw(&s, &ch, err);
	if (rc == SR_OK) {
		sr_build(&s, &ch, &doc);
		rc = sr_write(&doc, dir, err);
	}
	sr_doc_free(&doc);
	sr_charts_free(&ch);
	sr_study_free(&s);
	return rc;
}
