/*
 * bench_import.c - the bench report's "Import speed" and "Study at scale"
 * sections. Import: from RESULTS/bench/import.json (bench/import/run.sh),
 * how many lines of an nginx combined access log `ratelab import` reads per
 * second on one core (CPU time of the one-threaded process, the median of
 * the runs), beside the wall-clock rate of the same runs and the target of
 * 2M lines per second; then the same for the log gzipped. Study at scale:
 * RESULTS/bench/study_scale.csv (name,value rows, bench/study/run.sh), the
 * wall time and peak memory of one `ratelab study` of a synthetic trace,
 * against the targets: at most 2 minutes, the trace at most 24 bytes per
 * request. Without its file a section says "not run".
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_report_int.h"

static const char import_absent[] = "Import: not run (bench/import/run.sh writes `results/bench/import.json`).\n\n";
static const char import_intro[] =
	"`%s` on a sample nginx combined log (`%s`: %lld lines, %s MiB, IPv4 and IPv6 clients, out of order "
	"as written at completion): read, parse, sort and write the trace, median of %zu runs on %s. Lines per "
	"CPU second (user + system time of the one thread) is the figure of one core; the wall-clock rate of "
	"the same runs also counts the other work of a shared host.\n\n"
	"| log | lines | median CPU s | lines per CPU second | median wall s | lines per wall second | target |\n"
	"|---|---|---|---|---|---|---|\n";
static const char study_absent[] = "Not run (no `results/bench/study_scale.csv`: bench/study/run.sh).\n\n";
static const char study_intro[] =
	"`%s` on the trace of `%s` (bench/study_gen.c: %s requests over %s keys, one hour of trace time), %s "
	"rule x algorithm rows, %s jobs on %s cores (%s), one run, timed from start to end: reading the "
	"trace, the study, its files and its report.\n\n"
	"| figure | measured | target |\n|---|---:|---|\n";

void br_import(struct br_in *in, struct sr_buf *o)
{
	char path[SR_PATH_MAX + 64];
	snprintf(path, sizeof(path), "%s/bench/import.json", in->results);
	struct sim_json j;
	sr_puts(o, "## Import speed\n\n");
	int rc = br_json(in, path, &j);
	if (rc <= 0) {
		if (rc == 0)
			sr_puts(o, import_absent);
		return;
	}
	double per_cpu = br_jnum(in, path, &j, "lines_per_cpu_s"), per_wall = br_jnum(in, path, &j, "lines_per_wall_s");
	double target = br_jnum(in, path, &j, "target_lines_per_s");
	long long lines = (long long)br_jnum(in, path, &j, "lines"), bytes = (long long)br_jnum(in, path, &j, "bytes");
	const struct sim_json *runs = br_jget(in, path, &j, "runs", SIM_JSON_ARRAY);
	sr_printf(o, import_intro, br_jstr(in, path, &j, "command"), br_jstr(in, path, &j, "log"), lines,
		  rp_fmt((double)bytes / 1048576.0, 0), runs ? runs->n : 0, br_jstr(in, path, &j, "cpu"));
	sr_printf(o, "| plain | %lld | %s | %sM | %s | %sM | >= %sM per core: %s |\n", lines,
		  rp_fmt(br_jnum(in, path, &j, "median_cpu_s"), 3), rp_fmt(per_cpu / 1e6, 2),
		  rp_fmt(br_jnum(in, path, &j, "median_wall_s"), 3), rp_fmt(per_wall / 1e6, 2), rp_fmt(target / 1e6, 0),
		  per_cpu >= target ? "met" : "**not met**");
	const struct sim_json *g = sim_json_get(&j, "gz");
	if (g)
		sr_printf(o, "| gzip -6 (%s MiB), read through zlib | %lld | %s | %sM | %s | %sM | - |\n",
			  rp_fmt(br_jnum(in, path, g, "bytes") / 1048576.0, 0), lines,
			  rp_fmt(br_jnum(in, path, g, "median_cpu_s"), 3),
			  rp_fmt(br_jnum(in, path, g, "lines_per_cpu_s") / 1e6, 2),
			  rp_fmt(br_jnum(in, path, g, "median_wall_s"), 3),
			  rp_fmt(br_jnum(in, path, g, "lines_per_wall_s") / 1e6, 2));
	sr_puts(o, "\n");
	sim_json_free(&j);
}

/* The value of row name of study_scale.csv (the rest of the row after its first field), "" when absent. */
static const char *value(const struct sim_csv *t, const char *name, struct sr_buf *b)
{
	const char *found = NULL;
	size_t row = 0;
	for (size_t i = 0; i < t->nrows; i++)
		if (t->nf[i] >= 2 && strcmp(t->row[i][0], name) == 0) {
			found = name;
			row = i;
		}
	if (!found)
		return "";
	b->len = 0;
	for (size_t f = 1; f < t->nf[row]; f++)
		sr_printf(b, "%s%s", f > 1 ? "," : "", t->row[row][f]);
	return rp_str("%s", b->p ? b->p : "");
}

static double num(const struct sim_csv *t, const char *name, struct sr_buf *b)
{
	const char *v = value(t, name, b);
	bool present = false;
	for (size_t i = 0; i < t->nrows && !present; i++)
		present = t->nf[i] >= 2 && strcmp(t->row[i][0], name) == 0;
	return present ? strtod(v, NULL) : NAN;
}

void br_study_scale(struct br_in *in, struct sr_buf *o)
{
	struct sim_csv t;
	struct sr_buf b = {0};
	sr_puts(o, "## Study at scale\n\n");
	/* name,value rows whose value may hold commas unquoted (the command line): ragged */
	static const struct sim_csv_rules ragged = { true, true, false, true };
	int rc = sim_csv_read(&t, br_path(in->results, "bench/study_scale.csv"), &ragged, BR_WHO, in->err);
	if (rc) {
		if (!in->status)
			in->status = rc;
		sim_csv_free(&t);
		return;
	}
	if (!t.present) {
		sr_puts(o, study_absent);
		sim_csv_free(&t);
		return;
	}
	double wall = num(&t, "wall_s", &b), rss = num(&t, "peak_rss_bytes", &b), trace = num(&t, "trace_bytes", &b),
	       n = num(&t, "requests", &b);
	double per_request = n > 0 ? trace / n : NAN;
	sr_printf(o, study_intro, value(&t, "command", &b), value(&t, "generator", &b), value(&t, "requests", &b),
		  value(&t, "keys", &b), value(&t, "rows", &b), value(&t, "jobs", &b), value(&t, "cores", &b),
		  value(&t, "cpu", &b));
	sr_printf(o, "| wall time | %s s | <= 120 s: %s |\n", rp_fmt(wall, 1), wall <= 120 ? "met" : "**missed**");
	sr_printf(o, "| peak RSS | %s MiB | stated |\n", rp_fmt(rss / 1048576.0, 0));
	sr_printf(o, "| the trace in memory | %s MiB, %s B per request (keys included) | <= 24 B per request: %s |\n",
		  rp_fmt(trace / 1048576.0, 0), rp_fmt(per_request, 1), per_request <= 24 ? "met" : "**missed**");
	double limits = num(&t, "limits_s", &b);
	if (!isnan(limits))
		sr_printf(o, "| limits.csv (%s windows, %s limits), within the wall time | %s s | <= 60 s: %s |\n",
			  value(&t, "limits_windows", &b), value(&t, "limits_rows", &b), rp_fmt(limits, 1),
			  limits <= 60 ? "met" : "**missed**");
	sr_puts(o, "\n");
	o->oom |= b.oom;
	sr_buf_free(&b);
	sim_csv_free(&t);
}
