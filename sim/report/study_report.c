/*
 * study_report.c - sim_study_report: read the study directory through the
 * one reader (study.h, sim_study_read) and index its rows per rule (the
 * report's view), draw the charts, write REPORT.md and report.html; and
 * the two judgements both writers state, from the measured figures only:
 * the recommendation (which algorithms hurt no within-rule key, which of
 * those admit the least excess) and the mean rate per key the theory line
 * is drawn at.
 */
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "study_report.h"
#include "study_report_int.h"

/* Row a before row b in the ranking: fewer within-rule keys hurt, then fewer false rejects, then less excess. */
static bool ranks_before(const struct sim_study_row *a, const struct sim_study_row *b)
{
	if (a->good_keys_hurt != b->good_keys_hurt)
		return a->good_keys_hurt < b->good_keys_hurt;
	if (a->false_rejects != b->false_rejects)
		return a->false_rejects < b->false_rejects;
	return a->excess_admitted < b->excess_admitted;
}

bool sr_verdict(const struct sim_study *s, const struct sr_rows *r, struct sr_verdict *v)
{
	*v = (struct sr_verdict){0};
	v->clean = malloc((r->n + 1) * sizeof(*v->clean));
	v->ranked = malloc((r->n + 1) * sizeof(*v->ranked));
	v->fewest = malloc((r->n + 1) * sizeof(*v->fewest));
	if (!v->clean || !v->ranked || !v->fewest) {
		sr_verdict_free(v);
		return false;
	}
	int64_t least_hurt = INT64_MAX;
	for (size_t i = 0; i < r->n; i++) {
		const struct sim_study_row *row = &s->rows[r->at[i]];
		if (row->good_keys_hurt < least_hurt)
			least_hurt = row->good_keys_hurt;
		if (row->good_keys_hurt == 0)
			v->clean[v->nclean++] = r->at[i];
		/* insertion after its equals: table order among ties */
		size_t j = v->nranked++;
		while (j > 0 && ranks_before(row, &s->rows[v->ranked[j - 1]])) {
			v->ranked[j] = v->ranked[j - 1];
			j--;
		}
		v->ranked[j] = r->at[i];
	}
	while (v->nbest < v->nranked && !ranks_before(&s->rows[v->ranked[0]], &s->rows[v->ranked[v->nbest]]))
		v->nbest++;
	if (v->nclean == 0)
		for (size_t i = 0; i < r->n; i++)
			if (s->rows[r->at[i]].good_keys_hurt == least_hurt)
				v->fewest[v->nfewest++] = r->at[i];
	return true;
}

void sr_verdict_free(struct sr_verdict *v)
{
	free(v->clean);
	free(v->ranked);
	free(v->fewest);
	*v = (struct sr_verdict){0};
}

bool sr_mean_rate(const struct sr_view *s, double *per_s)
{
	/* the trace covers its span and the last tick: one tick when every request shares it */
	double covered_s = ((double)s->st.span_ns + (double)s->st.resolution_ns) / 1e9;
	if (s->st.keys == 0 || covered_s <= 0)
		return false;
	*per_s = (double)s->st.requests / (double)s->st.keys / covered_s;
	return true;
}

/* Each rule's measured rows of study s, in the names' order, into r[0 .. s->nrules). */
static struct sr_rows *rows_of(const struct sim_study *s)
{
	struct sr_rows *r = calloc(s->nrules + 1, sizeof(*r));
	for (size_t i = 0; r && i < s->nrules; i++) {
		if (!(r[i].at = malloc((s->nnames + 1) * sizeof(*r[i].at)))) {
			for (size_t j = 0; j < i; j++)
				free(r[j].at);
			free(r);
			return NULL;
		}
		for (size_t a = 0; a < s->nnames; a++)
			if (!s->rows[i * s->nnames + a].absent)
				r[i].at[r[i].n++] = i * s->nnames + a;
	}
	return r;
}

static void rows_free(struct sr_rows *r, size_t n)
{
	for (size_t i = 0; r && i < n; i++)
		free(r[i].at);
	free(r);
}

int sr_view_load(struct sr_view *v, const char *dir, FILE *err)
{
	char msg[2048];
	*v = (struct sr_view){.dir = dir};
	int rc = sim_study_read(&v->st, dir, msg, sizeof(msg));
	if (rc) {
		fprintf(err, SR_WHO "%s\n", msg);
		return rc == SIM_CSV_FAIL ? SR_FAIL : SR_BAD;
	}
	v->target = v->st.target_keys ? v->st.target_keys : SIM_LIMITS_TARGET_DEFAULT;
	v->merged = strncmp(v->st.shard, "all (", 5) == 0;
	if (!(v->rule = rows_of(&v->st)) || (v->st.other && !(v->alt = rows_of(v->st.other)))) {
		fprintf(err, SR_WHO "out of memory\n");
		return SR_FAIL;
	}
	return SR_OK;
}

void sr_view_free(struct sr_view *v)
{
	rows_free(v->rule, v->st.nrules);
	if (v->st.other)
		rows_free(v->alt, v->st.other->nrules);
	sim_study_free(&v->st);
	*v = (struct sr_view){0};
}

uint64_t sr_burst(const struct sim_study_rule *r)
{
	const char *text = r->text;
	return strcspn(text, ":") < strcspn(text, "+") && text[strcspn(text, ":") + 1] == 'b' ? (uint64_t)r->rule.burst
											       : 0;
}

const char *sr_meta(const struct sr_view *v, const char *name)
{
	for (size_t i = 0; i < v->st.nmeta; i++)
		if (strcmp(v->st.meta[i].name, name) == 0)
			return v->st.meta[i].value;
	return NULL;
}

size_t sr_rule_find(const struct sr_view *v, const char *text)
{
	for (size_t i = 0; i < v->st.nrules; i++)
		if (strcmp(v->st.rules[i].text, text) == 0 && v->rule[i].n)
			return i;
	return SIZE_MAX;
}

bool sr_percentile(const struct sr_view *s, const struct sim_limits_window *w, uint32_t p, uint64_t *limit,
		   size_t *row, bool *exact)
{
	int64_t need = sim_limits_need(w->keys, p);
	for (size_t i = 0; w->keys && i < w->n; i++)
		if (w->keys - w->keys_refused[i] >= need) {
			*limit = (uint64_t)w->limit[i];
			*row = i;
			/* a study lists every percentile it quotes; a merge may not */
			*exact = !s->merged || w->limit[i] == 1 || (i > 0 && w->limit[i - 1] == w->limit[i] - 1);
			return true;
		}
	return false;
}

int sim_study_report(const char *dir, FILE *err)
{
	struct sr_view s;
	struct sr_charts ch = {0};
	struct sr_doc doc = {0};
	if (strlen(dir) > SR_DIR_MAX) {
		fprintf(err, SR_WHO "the directory's name is longer than %d bytes\n", SR_DIR_MAX);
		return SR_BAD;
	}
	int rc = sr_view_load(&s, dir, err);
	if (rc == SR_OK)
		rc = sr_charts_draw(&s, &ch, err);
	if (rc == SR_OK) {
		sr_build(&s, &ch, &doc);
		rc = sr_write(&doc, dir, err);
	}
	sr_doc_free(&doc);
	sr_charts_free(&ch);
	sr_view_free(&s);
	return rc;
}
