/*
 * study_write.c - a study's six CSV files (study.h, README "ratelab
 * study"). Fields are RFC 4180: a field holding ',', '"', CR or LF is
 * quoted, its '"' doubled. Every figure is an integer except the ratios and
 * timings, written with fixed decimals, so equal studies give equal bytes.
 */
#include "study.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "out_file.h"
#include "ratelab/version.h"

/* study.csv's column names and refused.csv's buckets, as written (study.h) */
const char *const sim_study_col_name[SIM_STUDY_NCOLS] = {
	"rule", "algo", "requests", "admitted", "good_keys", "good_keys_hurt", "good_requests_rejected",
	"excess_requests", "excess_admitted", "over_n_admissions", "max_in_w_over_n", "false_rejects", "diverged",
	"ns_per_check", "bytes_per_key", "max_in_w", "keys", "heap_bytes",
};
const char *const sim_study_bucket_lo[SIM_STUDY_BUCKETS] = { "0", "0", "0.01", "0.1", "0.5" };
const char *const sim_study_bucket_hi[SIM_STUDY_BUCKETS] = { "0", "0.01", "0.1", "0.5", "1" };

static void sim_study_csv_field(FILE *f, const char *s)
{
	if (!s[strcspn(s, ",\"\r\n")]) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static FILE *open_out(const char *dir, const char *name, FILE *err)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!(f = fopen(path, "w")))
		fprintf(err, "ratelab study: cannot write '%s': %s\n", path, strerror(errno));
	return f;
}

static int close_out(FILE *f, const char *dir, const char *name, FILE *err)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return sim_out_close(f, path, "study", err);
}

static void rule_algo(FILE *f, const struct sim_study *s, size_t r, size_t a)
{
	sim_study_csv_field(f, s->rules[r].text);
	fputc(',', f);
	sim_study_csv_field(f, s->names[a]);
}

static void write_study(FILE *f, const struct sim_study *s)
{
	for (int c = 0; c < SIM_STUDY_NCOLS; c++)
		fprintf(f, "%s%s", c ? "," : "", sim_study_col_name[c]);
	fputc('\n', f);
	for (size_t r = 0; r < s->nrules; r++)
		for (size_t a = 0; a < s->nnames; a++) {
			const struct sim_study_row *w = &s->rows[r * s->nnames + a];
			rule_algo(f, s, r, a);
			fprintf(f, ",%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%.4f,%lld,%lld,%.1f,", (long long)w->requests,
				(long long)w->admitted, (long long)w->good_keys, (long long)w->good_keys_hurt,
				(long long)w->good_requests_rejected, (long long)w->excess_requests,
				(long long)w->excess_admitted, (long long)w->over_n_admissions,
				(double)w->max_in_w / (double)s->rules[r].rule.limit, (long long)w->false_rejects,
				(long long)w->diverged, w->ns_per_check);
			/* a decider's memory is its own: not measured, left empty */
			if (w->state_bytes >= 0)
				fprintf(f, "%.1f", (double)w->state_bytes +
							   (w->keys ? (double)w->heap_bytes / (double)w->keys : 0));
			fprintf(f, ",%lld,%lld,%lld\n", (long long)w->max_in_w, (long long)w->keys,
				(long long)w->heap_bytes);
		}
}

static void write_clients(FILE *f, const struct sim_study *s)
{
	fputs("rule,algo,key,requests,admitted,within_rule\n", f);
	for (size_t r = 0; r < s->nrules; r++)
		for (size_t a = 0; a < s->nnames; a++) {
			size_t col = r * s->nnames + a;
			const struct sim_study_row *w = &s->rows[col];
			int64_t req = 0, adm = 0, within = 0;
			for (size_t j = 0; j < s->ntop; j++) {
				const struct sim_study_key *k = &s->top[j];
				rule_algo(f, s, r, a);
				fputc(',', f);
				sim_study_csv_field(f, k->name);
				fprintf(f, ",%lld,%lld,%d\n", (long long)k->requests, (long long)k->admitted[col],
					k->within[r]);
				req += k->requests;
				adm += k->admitted[col];
				within += k->within[r];
			}
			/* (other): the rest summed; within_rule counts its within-rule keys */
			rule_algo(f, s, r, a);
			fprintf(f, ",(other),%lld,%lld,%lld\n", (long long)(w->requests - req),
				(long long)(w->admitted - adm), (long long)(w->good_keys - within));
		}
}

static void write_traffic(FILE *f, const struct sim_study *s)
{
	size_t nk = s->ntop < SIM_STUDY_TRAFFIC_KEYS ? s->ntop : SIM_STUDY_TRAFFIC_KEYS;

	fputs("t_ns,requests", f);
	for (size_t j = 0; j < nk; j++) {
		fputc(',', f);
		sim_study_csv_field(f, s->top[j].name);
	}
	fputc('\n', f);
	for (size_t b = 0; b < s->nbins; b++) {
		fprintf(f, "%lld,%lld", (long long)(s->bin0_ns + (int64_t)b * s->bin_ns), (long long)s->per_bin[b]);
		for (size_t j = 0; j < nk; j++)
			fprintf(f, ",%lld", (long long)s->top[j].per_bin[b]);
		fputc('\n', f);
	}
}

static void write_refused(FILE *f, const struct sim_study *s)
{
	fputs("rule,algo,share_lo,share_hi,keys\n", f);
	for (size_t r = 0; r < s->nrules; r++)
		for (size_t a = 0; a < s->nnames; a++)
			for (size_t b = 0; b < SIM_STUDY_BUCKETS; b++) {
				rule_algo(f, s, r, a);
				fprintf(f, ",%s,%s,%lld\n", sim_study_bucket_lo[b], sim_study_bucket_hi[b],
					(long long)s->rows[r * s->nnames + a].refused[b]);
			}
}

/* limits.csv: per window, the exact sliding log at every limit listed (study_limits.h). */
static void write_limits(FILE *f, const struct sim_study *s)
{
	fputs("window,limit,keys,keys_refused,requests,requests_refused\n", f);
	for (size_t w = 0; w < s->limits.nwindows; w++) {
		const struct sim_limits_window *lw = &s->limits.w[w];
		for (size_t r = 0; r < lw->n; r++) {
			sim_study_csv_field(f, lw->text);
			fprintf(f, ",%lld,%lld,%lld,%lld,%lld\n", (long long)lw->limit[r], (long long)lw->keys,
				(long long)lw->keys_refused[r], (long long)lw->requests, (long long)lw->requests_refused[r]);
		}
	}
}

void sim_study_target_text(char *buf, size_t len, uint32_t target)
{
	if (target % 100 == 0)
		snprintf(buf, len, "%u%%", target / 100);
	else if (target % 10 == 0)
		snprintf(buf, len, "%u.%u%%", target / 100, target / 10 % 10);
	else
		snprintf(buf, len, "%u.%02u%%", target / 100, target % 100);
}

static void meta_row(FILE *f, const char *name, const char *value)
{
	fprintf(f, "%s,", name);
	sim_study_csv_field(f, value);
	fputc('\n', f);
}

static void meta_int(FILE *f, const char *name, long long v)
{
	fprintf(f, "%s,%lld\n", name, v);
}

/* names joined by ',' into buf (a list of rules or algorithms) */
static const char *joined(char *buf, size_t len, const struct sim_study *s, bool rules)
{
	size_t n = 0, count = rules ? s->nrules : s->nnames;

	buf[0] = '\0';
	for (size_t i = 0; i < count && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? "," : "", rules ? s->rules[i].text : s->names[i]);
	return buf;
}

/*
 * The import's skips by reason and its assumptions (docs/cli.md, meta.csv):
 * skipped_REASON (a count, every reason), skipped_REASON_at_I (FILE:LINE of
 * its first bad lines, I from 1), requests_cost_zero, requests_anonymous,
 * requests_no_offset, tz (the offset those were read at), format_detected.
 */
static void write_meta_import(FILE *f, const struct sim_import_stats *st)
{
	char name[64];

	for (int k = 0; k < SIM_SKIP_COUNT; k++) {
		snprintf(name, sizeof(name), "skipped_%s", sim_import_skip_name[k]);
		meta_int(f, name, (long long)st->skip[k]);
		for (size_t i = 0; i < st->skip[k] && i < SIM_IMPORT_EXAMPLES; i++) {
			snprintf(name, sizeof(name), "skipped_%s_at_%zu", sim_import_skip_name[k], i + 1);
			meta_row(f, name, st->where[k][i]);
		}
	}
	meta_int(f, "requests_cost_zero", (long long)st->cost_zero);
	meta_int(f, "requests_anonymous", (long long)st->anon);
	meta_int(f, "requests_no_offset", (long long)st->no_offset);
	meta_row(f, "tz", st->tz[0] ? st->tz : "+00:00");
	meta_row(f, "format_detected", st->detected ? "yes" : "no");
}

static void write_meta(FILE *f, const struct sim_study *s)
{
	char buf[8192];

	fputs("name,value\n", f);
	meta_row(f, "trace", s->trace ? s->trace : "");
	meta_row(f, "format", s->format);
	meta_int(f, "requests", s->requests);
	meta_int(f, "keys", s->keys);
	meta_int(f, "span_ns", s->span_ns);
	meta_int(f, "resolution_ns", s->resolution_ns);
	meta_int(f, "traffic_bin_ns", s->bin_ns);
	meta_row(f, "spread", s->spread ? "yes" : "no");
	meta_row(f, "cost", s->cost ? "yes" : "no");
	meta_row(f, "rules", joined(buf, sizeof(buf), s, true));
	meta_row(f, "algos", joined(buf, sizeof(buf), s, false));
	/* limits.csv's windows, in order: a shard may hold no key, so no row of a window */
	buf[0] = '\0';
	for (size_t w = 0, n = 0; w < s->limits.nwindows && n < sizeof(buf); w++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s", w ? "," : "", s->limits.w[w].text);
	meta_row(f, "windows", buf);
	meta_int(f, "jobs", s->jobs);
	meta_row(f, "shard", s->shard);
	fprintf(f, "elapsed_s,%.3f\n", s->elapsed_s);
	meta_int(f, "peak_rss_bytes", s->peak_rss_bytes);
	meta_int(f, "trace_bytes", s->trace_bytes);
	if (s->target_keys) {
		sim_study_target_text(buf, sizeof(buf), s->target_keys);
		meta_row(f, "target_keys", buf);
	}
	/* what the import read: a merge of shards keeps the first's (one trace) */
	if (s->import.lines) {
		meta_int(f, "lines_read", (long long)s->import.lines);
		meta_int(f, "lines_skipped", (long long)s->import.skipped);
		meta_int(f, "requests_without_cost", (long long)s->import.without_cost);
		for (size_t i = 0; i < s->import.nexamples; i++) {
			char name[48];
			snprintf(name, sizeof(name), "skipped_example_%zu", i + 1);
			meta_row(f, name, s->import.example[i]);
		}
		write_meta_import(f, &s->import);
	}
	meta_row(f, "ratelab_version", rl_version());
}

int sim_study_write(const struct sim_study *s, const char *dir, FILE *err)
{
	static const struct {
		const char *name;
		void (*write)(FILE *f, const struct sim_study *s);
	} files[] = {
		{ "study.csv", write_study },	{ "clients.csv", write_clients }, { "traffic.csv", write_traffic },
		{ "refused.csv", write_refused }, { "limits.csv", write_limits }, { "meta.csv", write_meta },
	};

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		FILE *f = open_out(dir, files[i].name, err);
		if (!f)
			return -1;
		files[i].write(f, s);
		if (close_out(f, dir, files[i].name, err))
			return -1;
	}
	if (s->other) {
		FILE *f = open_out(dir, "placement.csv", err);
		if (!f)
			return -1;
		write_study(f, s->other);
		if (close_out(f, dir, "placement.csv", err))
			return -1;
	}
	return 0;
}
