/*
 * study_report_load.c - the study directory as the report reads it: the
 * five CSV files by their header names (study.csv's first nine columns in
 * the contract's order), every number checked, the figures checked
 * against each other (no more admitted than requests, no more hurt keys
 * than within-rule keys, no more excess admitted than excess), each rule
 * parsed (N/W or N/W:bB), and clients.csv and refused.csv naming only
 * (rule, algo) pairs of study.csv. Anything else is refused with FILE:LINE.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ratelab/parse.h"
#include "ratelab/rule.h"
#include "ratelab/status.h"
#include "study.h"
#include "study_report_int.h"

static const char *const headline[] = {
	"rule", "algo", "requests", "admitted", "good_keys", "good_keys_hurt",
	"good_requests_rejected", "excess_requests", "excess_admitted",
};
enum { NHEAD = sizeof(headline) / sizeof(headline[0]) };

static int oom(FILE *err)
{
	fprintf(err, SR_WHO "out of memory\n");
	return SR_FAIL;
}

/* A rule's or policy's text through the study's reader (sim_study_rule_parse:
 * the library's rl_rule_parse, rl_policy_parse); a policy's figures are its
 * first rule's (study.h); burst 0 when that rule gives none (B = N). False
 * with the reason in why. */
static bool parse_rule(const char *text, struct sr_rule *r, char *why, size_t why_len)
{
	struct sim_study_rule sr;

	if (!sim_study_rule_parse(text, &sr, why, why_len))
		return false;
	r->limit = (uint64_t)sr.rule.limit;
	r->window_ns = sr.rule.window_ns;
	r->burst = strcspn(text, ":") < strcspn(text, "+") && text[strcspn(text, ":") + 1] == 'b'
			   ? (uint64_t)sr.rule.burst : 0;
	return true;
}

static bool same_pair(const char *r1, const char *a1, const char *r2, const char *a2)
{
	return strcmp(r1, r2) == 0 && strcmp(a1, a2) == 0;
}

static bool known_pair(const struct sr_study *s, const char *rule, const char *algo)
{
	for (size_t i = 0; i < s->nrows; i++)
		if (same_pair(s->row[i].rule, s->row[i].algo, rule, algo))
			return true;
	return false;
}

const struct sr_rule *sr_rule_find(const struct sr_study *s, const char *text)
{
	for (size_t i = 0; i < s->nrules; i++)
		if (strcmp(s->rule[i].text, text) == 0)
			return &s->rule[i];
	return NULL;
}

/* a > b for two figures of one row: the message names both. */
static int not_more(const struct sr_csv *t, size_t row, const char *a, uint64_t av, const char *b,
		    uint64_t bv, FILE *err)
{
	if (av <= bv)
		return SR_OK;
	return sr_csv_bad(t, row, err, "%s %llu is more than %s %llu", a, (unsigned long long)av, b,
			  (unsigned long long)bv);
}

static int load_study(struct sr_study *s, FILE *err)
{
	struct sr_csv *t = &s->study;
	for (size_t i = 0; i < NHEAD; i++)
		if (i >= t->ncols || strcmp(t->col[i], headline[i]) != 0)
			return sr_csv_bad(t, SIZE_MAX, err,
					  "the header must begin rule,algo,requests,admitted,good_keys,"
					  "good_keys_hurt,good_requests_rejected,excess_requests,"
					  "excess_admitted (column %zu is not %s)",
					  i + 1, headline[i]);
	int ns = sr_csv_col(t, "ns_per_check", err), by = sr_csv_col(t, "bytes_per_key", err), fr = -1;
	if (ns < 0 || by < 0)
		return SR_BAD;
	for (size_t c = 0; c < t->ncols; c++)
		if (strcmp(t->col[c], "false_rejects") == 0)
			fr = (int)c;
	if (t->nrows == 0)
		return sr_csv_bad(t, SIZE_MAX, err, "no rows: the study measured nothing");
	s->row = calloc(t->nrows, sizeof(*s->row));
	s->rule = calloc(t->nrows, sizeof(*s->rule));
	if (!s->row || !s->rule)
		return oom(err);
	for (size_t i = 0; i < t->nrows; i++) {
		struct sr_row *r = &s->row[i];
		char **c = t->cell[i];
		r->csv_row = i;
		r->rule = c[0];
		r->algo = c[1];
		uint64_t *v[] = {&r->requests, &r->admitted, &r->good_keys, &r->good_keys_hurt,
				 &r->good_requests_rejected, &r->excess_requests, &r->excess_admitted};
		for (int k = 0; k < 7; k++)
			if (sr_csv_u64(t, i, 2 + k, v[k], err))
				return SR_BAD;
		if (fr >= 0 && sr_csv_u64(t, i, fr, &r->false_rejects, err))
			return SR_BAD;
		double d;
		bool present;
		if (sr_csv_num(t, i, ns, true, &d, &present, err) ||
		    sr_csv_num(t, i, by, true, &d, &present, err))
			return SR_BAD;
		r->ns_per_check = c[ns];
		r->bytes_per_key = c[by];
		if (!*r->algo)
			return sr_csv_bad(t, i, err, "algo is empty");
		if (not_more(t, i, "admitted", r->admitted, "requests", r->requests, err) ||
		    not_more(t, i, "good_keys_hurt", r->good_keys_hurt, "good_keys", r->good_keys, err) ||
		    not_more(t, i, "good_requests_rejected", r->good_requests_rejected, "requests",
			     r->requests - r->admitted, err) ||
		    not_more(t, i, "excess_requests", r->excess_requests, "requests", r->requests, err) ||
		    not_more(t, i, "excess_admitted", r->excess_admitted, "excess_requests",
			     r->excess_requests, err))
			return SR_BAD;
		for (size_t j = 0; j < i; j++)
			if (same_pair(r->rule, r->algo, s->row[j].rule, s->row[j].algo))
				return sr_csv_bad(t, i, err, "rule and algo given twice (first on line %ld)",
						  t->line[j]);
		struct sr_rule *rule = (struct sr_rule *)sr_rule_find(s, r->rule);
		if (!rule) {
			rule = &s->rule[s->nrules];
			char why[1024];
			if (!parse_rule(r->rule, rule, why, sizeof(why)))
				return sr_csv_bad(t, i, err, "rule %s", why);
			rule->text = r->rule;
			rule->rows = malloc(t->nrows * sizeof(*rule->rows));
			if (!rule->rows)
				return oom(err);
			s->nrules++;
		}
		rule->rows[rule->nrows++] = i;
		s->nrows++;
	}
	return SR_OK;
}

/* within_rule of a key's row: 1/0 or yes/no. */
static int parse_within(const struct sr_csv *t, size_t row, int col, uint64_t *out, FILE *err)
{
	const char *v = t->cell[row][col];
	if (strcmp(v, "1") == 0 || strcmp(v, "yes") == 0)
		*out = 1;
	else if (strcmp(v, "0") == 0 || strcmp(v, "no") == 0)
		*out = 0;
	else
		return sr_csv_bad_value(t, row, col, "within_rule", "1, 0, yes or no (a key's row)", err);
	return SR_OK;
}

static int unknown_pair(const struct sr_csv *t, size_t row, const char *rule, const char *algo, FILE *err)
{
	struct sr_buf q = {0};
	sr_quote(&q, rule);
	sr_puts(&q, " and algo ");
	sr_quote(&q, algo);
	sr_csv_bad(t, row, err, "rule %s are not a row of study.csv", q.p ? q.p : "");
	sr_buf_free(&q);
	return SR_BAD;
}

static int load_clients(struct sr_study *s, FILE *err)
{
	struct sr_csv *t = &s->clients;
	const char *names[] = {"rule", "algo", "key", "requests", "admitted", "within_rule"};
	int c[6];
	for (int k = 0; k < 6; k++)
		if ((c[k] = sr_csv_col(t, names[k], err)) < 0)
			return SR_BAD;
	s->client = calloc(t->nrows ? t->nrows : 1, sizeof(*s->client));
	if (!s->client)
		return oom(err);
	for (size_t i = 0; i < t->nrows; i++) {
		char **v = t->cell[i];
		struct sr_client *k = &s->client[i];
		k->rule = v[c[0]];
		k->algo = v[c[1]];
		k->key = v[c[2]];
		/* the (other) row closes its (rule, algo) group: a key of that name elsewhere is a key */
		k->other = strcmp(k->key, "(other)") == 0 &&
			   (i + 1 == t->nrows || !same_pair(k->rule, k->algo, t->cell[i + 1][c[0]],
							    t->cell[i + 1][c[1]]));
		if (sr_csv_u64(t, i, c[3], &k->requests, err) || sr_csv_u64(t, i, c[4], &k->admitted, err))
			return SR_BAD;
		int rc = k->other ? sr_csv_u64(t, i, c[5], &k->within, err) : parse_within(t, i, c[5], &k->within, err);
		if (rc)
			return rc;
		if (not_more(t, i, "admitted", k->admitted, "requests", k->requests, err))
			return SR_BAD;
		if (!known_pair(s, k->rule, k->algo))
			return unknown_pair(t, i, k->rule, k->algo, err);
		s->nclients++;
	}
	return SR_OK;
}

static int load_refused(struct sr_study *s, FILE *err)
{
	struct sr_csv *t = &s->refused;
	const char *names[] = {"rule", "algo", "share_lo", "share_hi", "keys"};
	int c[5];
	for (int k = 0; k < 5; k++)
		if ((c[k] = sr_csv_col(t, names[k], err)) < 0)
			return SR_BAD;
	s->ref = calloc(t->nrows ? t->nrows : 1, sizeof(*s->ref));
	if (!s->ref)
		return oom(err);
	for (size_t i = 0; i < t->nrows; i++) {
		char **v = t->cell[i];
		struct sr_refused *f = &s->ref[i];
		f->rule = v[c[0]];
		f->algo = v[c[1]];
		f->lo = v[c[2]];
		f->hi = v[c[3]];
		double lo, hi;
		bool present;
		if (sr_csv_num(t, i, c[2], false, &lo, &present, err) ||
		    sr_csv_num(t, i, c[3], false, &hi, &present, err) || sr_csv_u64(t, i, c[4], &f->keys, err))
			return SR_BAD;
		if (lo > hi || hi > 1)
			return sr_csv_bad(t, i, err, "share_lo %s and share_hi %s are not a bucket of [0, 1]",
					  f->lo, f->hi);
		if (!known_pair(s, f->rule, f->algo))
			return unknown_pair(t, i, f->rule, f->algo, err);
		s->nref++;
	}
	return SR_OK;
}

/* The bins a study writes at most (study.h's SIM_STUDY_TRAFFIC_BINS): more is not a study's. */
#define SR_TRAFFIC_BINS 2000

static int load_traffic(struct sr_study *s, FILE *err)
{
	struct sr_csv *t = &s->traffic;
	if (t->ncols < 2 || strcmp(t->col[0], "t_ns") != 0 || strcmp(t->col[1], "requests") != 0)
		return sr_csv_bad(t, SIZE_MAX, err,
				  "the header must begin t_ns,requests (then one column per heavy key)");
	if (t->nrows > SR_TRAFFIC_BINS)
		return sr_csv_bad(t, SR_TRAFFIC_BINS, err, "more than %d bins", SR_TRAFFIC_BINS);
	s->ntcols = t->ncols - 1;
	s->nbin = t->nrows;
	s->tcol = (const char **)(t->col + 1);
	s->tval = calloc(s->nbin * s->ntcols + 1, sizeof(*s->tval));
	if (!s->tval)
		return oom(err);
	for (size_t i = 0; i < t->nrows; i++) {
		uint64_t at;
		if (sr_csv_u64(t, i, 0, &at, err))
			return SR_BAD;
		if (i == 0)
			s->t0_ns = at;
		if (at % s->bin_ns != 0 || at != s->t0_ns + i * s->bin_ns)
			return sr_csv_bad(t, i, err, "t_ns %llu where %llu was due (every traffic_bin_ns from the first, in order)",
					  (unsigned long long)at, (unsigned long long)(s->t0_ns + i * s->bin_ns));
		for (size_t k = 0; k < s->ntcols; k++)
			if (sr_csv_u64(t, i, (int)k + 1, &s->tval[i * s->ntcols + k], err))
				return SR_BAD;
	}
	return SR_OK;
}

/* The row of meta.csv named name, or SIZE_MAX. */
static size_t meta_row(const struct sr_study *s, const char *name)
{
	for (size_t i = 0; i < s->meta.nrows; i++)
		if (strcmp(s->meta.cell[i][0], name) == 0)
			return i;
	return SIZE_MAX;
}

const char *sr_meta(const struct sr_study *s, const char *name)
{
	size_t i = meta_row(s, name);
	return i == SIZE_MAX ? NULL : s->meta.cell[i][1];
}

static int meta_yes_no(const struct sr_study *s, const char *name, bool *out, FILE *err)
{
	size_t i = meta_row(s, name);
	const char *v = s->meta.cell[i][1];
	if (strcmp(v, "yes") != 0 && strcmp(v, "no") != 0)
		return sr_csv_bad_value(&s->meta, i, 1, name, "yes or no", err);
	*out = v[0] == 'y';
	return SR_OK;
}

static int meta_u64(const struct sr_study *s, const char *name, uint64_t *out, FILE *err)
{
	size_t i = meta_row(s, name);
	const char *v = s->meta.cell[i][1];
	uint64_t n = 0;
	for (const char *p = v; *p; p++) {
		if (*p < '0' || *p > '9' || n > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return sr_csv_bad_value(&s->meta, i, 1, name, "an integer", err);
		n = n * 10 + (uint64_t)(*p - '0');
	}
	if (!*v)
		return sr_csv_bad_value(&s->meta, i, 1, name, "an integer", err);
	*out = n;
	return SR_OK;
}

static int load_meta(struct sr_study *s, FILE *err)
{
	struct sr_csv *t = &s->meta;
	if (t->ncols != 2 || strcmp(t->col[0], "name") != 0 || strcmp(t->col[1], "value") != 0)
		return sr_csv_bad(t, SIZE_MAX, err, "the header must be name,value");
	for (size_t i = 0; i < t->nrows; i++)
		for (size_t j = 0; j < i; j++)
			if (strcmp(t->cell[i][0], t->cell[j][0]) == 0)
				return sr_csv_bad(t, i, err, "%s given twice (first on line %ld)", t->cell[i][0],
						  t->line[j]);
	const char *need[] = {"trace", "format", "requests", "keys", "span_ns", "resolution_ns", "spread", "cost",
			      "traffic_bin_ns"};
	for (size_t k = 0; k < sizeof(need) / sizeof(need[0]); k++)
		if (!sr_meta(s, need[k])) {
			fprintf(err, SR_WHO "%s:%ld: no row named %s\n", t->path, t->nrows ? t->line[t->nrows - 1] : 1,
				need[k]);
			return SR_BAD;
		}
	s->trace = sr_meta(s, "trace");
	s->format = sr_meta(s, "format");
	if (meta_u64(s, "requests", &s->requests, err) || meta_u64(s, "keys", &s->keys, err) ||
	    meta_u64(s, "span_ns", &s->span_ns, err) || meta_u64(s, "resolution_ns", &s->resolution_ns, err) ||
	    meta_yes_no(s, "spread", &s->spread, err) || meta_yes_no(s, "cost", &s->cost, err) ||
	    meta_u64(s, "traffic_bin_ns", &s->bin_ns, err))
		return SR_BAD;
	/* a whole number of seconds: the bins of sim_study_traffic_bin */
	if (s->bin_ns == 0 || s->bin_ns % 1000000000u != 0)
		return sr_csv_bad_value(&s->meta, meta_row(s, "traffic_bin_ns"), 1, "traffic_bin_ns",
					"a whole number of seconds in ns", err);
	s->target = SIM_LIMITS_TARGET_DEFAULT;
	size_t tk = meta_row(s, "target_keys");
	if (tk != SIZE_MAX && !sim_study_target_parse(s->meta.cell[tk][1], &s->target))
		return sr_csv_bad_value(&s->meta, tk, 1, "target_keys", "a share P% (0 < P <= 100)", err);
	const char *shard = sr_meta(s, "shard");
	s->merged = shard && strncmp(shard, "all (", 5) == 0;
	return SR_OK;
}

/* limits.csv, when the study has one: each window's rows together, limits ascending. */
static int load_limits(struct sr_study *s, FILE *err)
{
	char path[SR_PATH_MAX];
	if (!sr_path(path, s->dir, "limits.csv") || access(path, F_OK) != 0)
		return SR_OK; /* a study written before limits.csv: the report says so */
	int rc = sr_csv_read(&s->limits, s->dir, "limits.csv", err);
	if (rc)
		return rc;
	struct sr_csv *t = &s->limits;
	const char *names[] = {"window", "limit", "keys", "keys_refused", "requests", "requests_refused"};
	int c[6];
	for (int k = 0; k < 6; k++)
		if ((c[k] = sr_csv_col(t, names[k], err)) < 0)
			return SR_BAD;
	s->has_limits = true;
	s->win = calloc(t->nrows ? t->nrows : 1, sizeof(*s->win));
	if (!s->win)
		return oom(err);
	for (size_t i = 0; i < t->nrows; i++) {
		const char *text = t->cell[i][c[0]];
		uint64_t v[5];
		for (int k = 0; k < 5; k++)
			if (sr_csv_u64(t, i, c[1 + k], &v[k], err))
				return SR_BAD;
		struct sr_window *w = s->nwin ? &s->win[s->nwin - 1] : NULL;
		if (!w || strcmp(w->text, text) != 0) {
			for (size_t j = 0; j < s->nwin; j++)
				if (strcmp(s->win[j].text, text) == 0)
					return sr_csv_bad(t, i, err, "window %s again after other windows' rows", text);
			w = &s->win[s->nwin++];
			w->text = text;
			if (!rl_parse_duration(text, 0, &w->window_ns) || w->window_ns < 1)
				return sr_csv_bad_value(t, i, c[0], "window", "a duration (e.g. 1m)", err);
			w->keys = v[1];
			w->requests = v[3];
			w->limit = malloc(t->nrows * sizeof(*w->limit));
			w->keys_refused = malloc(t->nrows * sizeof(*w->keys_refused));
			w->requests_refused = malloc(t->nrows * sizeof(*w->requests_refused));
			if (!w->limit || !w->keys_refused || !w->requests_refused)
				return oom(err);
		}
		if (v[0] < 1 || (w->n && v[0] <= w->limit[w->n - 1]))
			return sr_csv_bad(t, i, err, "limit %llu is not above the row before's (and at least 1)",
					  (unsigned long long)v[0]);
		if (v[1] != w->keys || v[3] != w->requests)
			return sr_csv_bad(t, i, err, "keys or requests differ from the window's first row");
		if (not_more(t, i, "keys_refused", v[2], "keys", v[1], err) ||
		    not_more(t, i, "requests_refused", v[4], "requests", v[3], err))
			return SR_BAD;
		w->limit[w->n] = v[0];
		w->keys_refused[w->n] = v[2];
		w->requests_refused[w->n++] = v[4];
	}
	return SR_OK;
}

/* placement.csv, when there: the figures the recommendation compares, by column name. */
static int load_placement(struct sr_study *s, FILE *err)
{
	char path[SR_PATH_MAX];
	if (!sr_path(path, s->dir, "placement.csv") || access(path, F_OK) != 0)
		return SR_OK;
	int rc = sr_csv_read(&s->placement, s->dir, "placement.csv", err);
	if (rc)
		return rc;
	struct sr_csv *t = &s->placement;
	const char *names[] = {"rule", "algo", "good_keys", "good_keys_hurt", "false_rejects", "excess_requests",
			       "excess_admitted", "requests", "admitted"};
	int c[9];
	for (int k = 0; k < 9; k++)
		if ((c[k] = sr_csv_col(t, names[k], err)) < 0)
			return SR_BAD;
	s->alt = calloc(t->nrows ? t->nrows : 1, sizeof(*s->alt));
	if (!s->alt)
		return oom(err);
	for (size_t i = 0; i < t->nrows; i++) {
		struct sr_row *r = &s->alt[i];
		r->csv_row = i;
		r->rule = t->cell[i][c[0]];
		r->algo = t->cell[i][c[1]];
		r->ns_per_check = r->bytes_per_key = "";
		uint64_t *v[] = {&r->good_keys, &r->good_keys_hurt, &r->false_rejects, &r->excess_requests,
				 &r->excess_admitted, &r->requests, &r->admitted};
		for (int k = 0; k < 7; k++)
			if (sr_csv_u64(t, i, c[2 + k], v[k], err))
				return SR_BAD;
		if (!known_pair(s, r->rule, r->algo))
			return unknown_pair(t, i, r->rule, r->algo, err);
		s->nalt++;
	}
	return SR_OK;
}

bool sr_percentile(const struct sr_study *s, const struct sr_window *w, uint32_t p, uint64_t *limit, size_t *row,
		   bool *exact)
{
	uint64_t need = (uint64_t)sim_limits_need((int64_t)w->keys, p);
	for (size_t i = 0; w->keys && i < w->n; i++)
		if (w->keys - w->keys_refused[i] >= need) {
			*limit = w->limit[i];
			*row = i;
			/* a study lists every percentile it quotes; a merge may not */
			*exact = !s->merged || w->limit[i] == 1 || (i > 0 && w->limit[i - 1] == w->limit[i] - 1);
			return true;
		}
	return false;
}

int sr_load(struct sr_study *s, const char *dir, FILE *err)
{
	*s = (struct sr_study){0};
	s->dir = dir;
	int rc;
	if ((rc = sr_csv_read(&s->meta, dir, "meta.csv", err)) || (rc = load_meta(s, err)) ||
	    (rc = sr_csv_read(&s->study, dir, "study.csv", err)) || (rc = load_study(s, err)) ||
	    (rc = sr_csv_read(&s->clients, dir, "clients.csv", err)) || (rc = load_clients(s, err)) ||
	    (rc = sr_csv_read(&s->refused, dir, "refused.csv", err)) || (rc = load_refused(s, err)) ||
	    (rc = sr_csv_read(&s->traffic, dir, "traffic.csv", err)) || (rc = load_traffic(s, err)) ||
	    (rc = load_limits(s, err)) || (rc = load_placement(s, err)))
		return rc;
	return SR_OK;
}

void sr_study_free(struct sr_study *s)
{
	for (size_t i = 0; i < s->nrules; i++)
		free(s->rule[i].rows);
	free(s->rule);
	free(s->row);
	free(s->client);
	free(s->ref);
	free(s->tval);
	for (size_t i = 0; i < s->nwin; i++) {
		free(s->win[i].limit);
		free(s->win[i].keys_refused);
		free(s->win[i].requests_refused);
	}
	free(s->win);
	free(s->alt);
	sr_csv_free(&s->limits);
	sr_csv_free(&s->placement);
	sr_csv_free(&s->study);
	sr_csv_free(&s->clients);
	sr_csv_free(&s->traffic);
	sr_csv_free(&s->refused);
	sr_csv_free(&s->meta);
	*s = (struct sr_study){0};
}
