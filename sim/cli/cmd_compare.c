/*
 * cmd_compare.c - `ratelab compare OLD NEW [--out DIR]`: the wall times of
 * two Google Benchmark runs compared benchmark by benchmark (bench_cmp.h):
 * medians, change, the Mann-Whitney U test's p-value and a verdict; the
 * table printed, and with --out written as DIR/compare.csv, compare.md
 * and compare.html (the page of compare.md through the reports' one page
 * layer, report_html.h). Only those three files are written in DIR, each
 * beside its place and renamed into it; one that exists and does not
 * begin as compare writes it is refused, never replaced.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_cmp.h"
#include "cli.h"
#include "out_dir.h"
#include "report_html.h"

#define ALPHA_DEFAULT 0.05
#define THRESHOLD_DEFAULT_PCT 2.0
#define THRESHOLD_MAX_PCT 1000.0

#define CSV_HEADER "benchmark,old_median_ns,new_median_ns,change_pct,p_value,verdict\n"
#define MD_MARK "<!-- ratelab compare -->\n"
/* What compare.html begins with: a file that begins otherwise was not written by compare. */
#define HTML_MARK "<!DOCTYPE html>\n<!-- ratelab compare -->\n"

static const char usage[] =
	"usage: ratelab compare OLD NEW [--out DIR] [--alpha A] [--threshold T%] [--fail-on-slower]\n"
	"\n"
	"Compares the wall times of two runs of Google Benchmark, benchmark by benchmark\n"
	"(run_name), over their repetitions (the entries of run_type \"iteration\"; a\n"
	"benchmark needs at least 2 in each run). OLD and NEW are the JSON files\n"
	"(--benchmark_out=FILE --benchmark_out_format=json) or results folders of\n"
	"`make bench` (FOLDER/bench.json, else FOLDER/bench/bench.json). Prints per\n"
	"benchmark in both runs the old and new median, the change in %, the two-sided\n"
	"Mann-Whitney U test's p-value and a verdict: faster or slower when p <= A and\n"
	"the change is at least T%, else ~; then the geometric mean of the medians\n"
	"(geomean), and the benchmarks of one run only.\n"
	"  --out DIR          also write DIR/compare.csv (benchmark,old_median_ns,\n"
	"                     new_median_ns,change_pct,p_value,verdict), DIR/compare.md\n"
	"                     and DIR/compare.html (DIR made if missing; nothing else in\n"
	"                     it touched, and a compare.* file compare did not write is\n"
	"                     refused, never replaced)\n"
	"  --alpha A          the significance level, a decimal in (0, 1) (default 0.05)\n"
	"  --threshold T%     the smallest change that counts, percent of the old median,\n"
	"                     0 to 1000 (default 2%; the % sign optional)\n"
	"  --fail-on-slower   exit 1 when any benchmark is slower (a CI gate)\n"
	"Exit status: 0, 1 with --fail-on-slower and a slower benchmark or on an I/O\n"
	"failure, 2 for bad usage or input.\n";

enum { O_OUT, O_ALPHA, O_THRESHOLD, O_FAIL_ON_SLOWER, O_COUNT };

static const struct cli_option options[O_COUNT] = {
	[O_OUT] = { "out", CLI_VALUE },
	[O_ALPHA] = { "alpha", CLI_VALUE },
	[O_THRESHOLD] = { "threshold", CLI_VALUE },
	[O_FAIL_ON_SLOWER] = { "fail-on-slower", CLI_FLAG },
};

/* A plain decimal (digits, optionally '.' and digits), with a trailing '%' when pct; -1 when it is not one. */
static int decimal(const char *text, bool pct, double *out)
{
	size_t len = strlen(text), digits = strspn(text, "0123456789"), frac = 0;

	if (pct && len && text[len - 1] == '%')
		len--;
	if (digits < len && text[digits] == '.')
		frac = 1 + strspn(text + digits + 1, "0123456789");
	if (digits == 0 || digits + frac != len || frac == 1)
		return -1;
	*out = strtod(text, NULL);
	return 0;
}

/* OLD or NEW as given into the file to read: a folder's bench.json, else the argument itself. */
static int resolve(const char *what, const char *arg, char *path, size_t len)
{
	struct stat st;

	if (stat(arg, &st) != 0 || !S_ISDIR(st.st_mode)) {
		snprintf(path, len, "%s", arg);
		return CLI_EXIT_OK;
	}
	const char *const tries[] = { "bench.json", "bench/bench.json" };
	for (size_t i = 0; i < 2; i++) {
		if (snprintf(path, len, "%s/%s", arg, tries[i]) >= (int)len)
			return cli_usage_error("compare", "%s %s: path too long", what, cli_quote(arg));
		if (stat(path, &st) == 0)
			return CLI_EXIT_OK;
	}
	return cli_usage_error("compare", "%s %s is a folder without bench.json (looked for %s/bench.json and "
			       "%s/bench/bench.json)", what, cli_quote(arg), arg, arg);
}

struct out_file {
	const char *name, *mark;
	char path[PATH_MAX], tmp[PATH_MAX];
};

/* 0 when path is absent or begins with mark (compare wrote it); else a usage error. */
static int check_ours(const struct out_file *o)
{
	char head[128];
	size_t n = strlen(o->mark), got;
	struct stat st;
	FILE *f;

	if (lstat(o->path, &st) != 0) {
		if (errno == ENOENT)
			return CLI_EXIT_OK;
		return cli_usage_error("compare", "--out: cannot read %s: %s", cli_quote(o->path), strerror(errno));
	}
	if (!S_ISREG(st.st_mode))
		return cli_usage_error("compare", "--out: %s exists and is not a file compare wrote: refusing to "
				       "replace it", cli_quote(o->path));
	if (!(f = fopen(o->path, "rb")))
		return cli_usage_error("compare", "--out: cannot read %s: %s", cli_quote(o->path), strerror(errno));
	got = fread(head, 1, n, f);
	fclose(f);
	if (got != n || memcmp(head, o->mark, n) != 0)
		return cli_usage_error("compare", "--out: %s exists and was not written by ratelab compare: "
				       "refusing to replace it", cli_quote(o->path));
	return CLI_EXIT_OK;
}

/* mkdir -p dir (out_dir.h); 0 or CLI_EXIT_FAIL after a message. */
static int make_dir(const char *dir)
{
	if (sim_mkdir_p(dir) != 0) {
		fprintf(stderr, "ratelab compare: cannot create %s: %s\n", cli_quote(dir), strerror(errno));
		return CLI_EXIT_FAIL;
	}
	return CLI_EXIT_OK;
}

/* A benchmark's or file's name in Markdown: a code span, or, when the name holds a '`' or a
 * '|' (which a code span cannot hold in a table), its text with Markdown's escapes. */
static void md_name(struct sr_buf *b, const char *name)
{
	if (strpbrk(name, "`|")) {
		sr_md(b, name);
		return;
	}
	sr_puts(b, "`");
	for (const unsigned char *c = (const unsigned char *)name; *c; c++)
		if (*c < 0x20 || *c == 0x7f)
			sr_printf(b, "\\x%02x", *c);
		else
			sr_put(b, (const char *)c, 1);
	sr_puts(b, "`");
}

/* A CSV field: quoted when it holds a comma, a quote or a line break. */
static void csv_name(FILE *f, const char *name)
{
	if (!strpbrk(name, ",\"\r\n")) {
		fputs(name, f);
		return;
	}
	fputc('"', f);
	for (const char *c = name; *c; c++) {
		if (*c == '"')
			fputc('"', f);
		fputc(*c, f);
	}
	fputc('"', f);
}

struct run_names {
	const char *old_path, *new_path;
	double alpha, threshold_pct;
	struct sr_buf md, html; /* compare.md after its mark; the page of it */
};

static int write_csv(FILE *f, const struct sim_bench_cmp *c, const struct run_names *rn)
{
	(void)rn;
	fputs(CSV_HEADER, f);
	for (size_t i = 0; i < c->n; i++) {
		const struct sim_bench_row *r = &c->rows[i];
		csv_name(f, r->name);
		fprintf(f, ",%.3f,%.3f,%.2f,%.6g,%s\n", r->old_median_ns, r->new_median_ns,
			sim_bench_pct2(r->change_pct), r->p_value, sim_verdict_name(r->verdict));
	}
	return ferror(f) ? -1 : 0;
}

static void md_only(struct sr_buf *b, const char *which, const char *const *names, size_t n)
{
	if (n == 0)
		return;
	sr_printf(b, "\nOnly in the %s run (%zu):", which, n);
	for (size_t i = 0; i < n; i++) {
		sr_puts(b, i ? ", " : " ");
		md_name(b, names[i]);
	}
	sr_puts(b, ".\n");
}

/* compare.md after its mark, into b: also the source of compare.html. */
static void md_text(struct sr_buf *b, const struct sim_bench_cmp *c, const struct run_names *rn)
{
	sr_puts(b, "# ratelab compare\n\nOld: ");
	md_name(b, rn->old_path);
	sr_puts(b, ", new: ");
	md_name(b, rn->new_path);
	sr_printf(b, ". %zu benchmarks in both: %zu slower, %zu faster, %zu ~. A verdict is `faster` or `slower` "
		  "when the two-sided Mann-Whitney U test's p-value over the repetitions is at most %g and the "
		  "median changed by at least %g%%, else `~`.\n\n",
		  c->n, c->slower, c->faster, c->n - c->slower - c->faster, rn->alpha, rn->threshold_pct);
	sr_puts(b, "## Benchmarks in both runs\n\n| benchmark | old median (ns) | new median (ns) | change | p-value | verdict |\n"
		   "|---|---:|---:|---:|---:|---|\n");
	for (size_t i = 0; i < c->n; i++) {
		const struct sim_bench_row *r = &c->rows[i];
		sr_puts(b, "| ");
		md_name(b, r->name);
		sr_printf(b, " | %.3f | %.3f | %+.2f%% | %.4f | %s |\n", r->old_median_ns, r->new_median_ns,
			  sim_bench_pct2(r->change_pct), r->p_value, sim_verdict_name(r->verdict));
	}
	sr_printf(b, "| **geomean** (geometric mean) | %.3f | %.3f | %+.2f%% | | |\n", c->geo_old_ns, c->geo_new_ns,
		  sim_bench_pct2(c->geo_change_pct));
	if (c->n_only_old + c->n_only_new)
		sr_puts(b, "\n## Benchmarks in one run only\n");
	md_only(b, "old", c->only_old, c->n_only_old);
	md_only(b, "new", c->only_new, c->n_only_new);
}

/* The Markdown and its page into rn; 0, or CLI_EXIT_FAIL after a message. */
static int render(const struct sim_bench_cmp *c, struct run_names *rn)
{
	const struct rp_page page = { .title = "ratelab compare", .mark = "ratelab compare", .dir = ".",
				      .who = "ratelab compare: ", .missing_ok = true, .err = stderr };

	md_text(&rn->md, c, rn);
	if (!rn->md.oom && rp_html_page(&page, rn->md.p ? rn->md.p : "", &rn->html))
		return CLI_EXIT_FAIL;
	if (rn->md.oom || rn->html.oom) {
		fprintf(stderr, "ratelab compare: out of memory\n");
		return CLI_EXIT_FAIL;
	}
	return CLI_EXIT_OK;
}

static int write_md(FILE *f, const struct sim_bench_cmp *c, const struct run_names *rn)
{
	(void)c;
	fputs(MD_MARK, f);
	fwrite(rn->md.p, 1, rn->md.len, f);
	return ferror(f) ? -1 : 0;
}

static int write_html(FILE *f, const struct sim_bench_cmp *c, const struct run_names *rn)
{
	(void)c;
	fwrite(rn->html.p, 1, rn->html.len, f);
	return ferror(f) ? -1 : 0;
}

/* Writes o's file beside its place (o->tmp); 0 or CLI_EXIT_FAIL after a message, o->tmp removed. */
static int write_tmp(const struct out_file *o,
		     int (*body)(FILE *, const struct sim_bench_cmp *, const struct run_names *),
		     const struct sim_bench_cmp *c, const struct run_names *rn)
{
	FILE *f = fopen(o->tmp, "wx");
	int err;

	if (!f) {
		fprintf(stderr, "ratelab compare: cannot write %s: %s\n", cli_quote(o->tmp), strerror(errno));
		return CLI_EXIT_FAIL;
	}
	errno = 0;
	int bad = body(f, c, rn);
	err = errno;
	if (fclose(f) != 0 && !bad) {
		bad = 1;
		err = errno;
	}
	if (bad) {
		fprintf(stderr, "ratelab compare: writing %s: %s\n", cli_quote(o->tmp), strerror(err ? err : EIO));
		unlink(o->tmp);
		return CLI_EXIT_FAIL;
	}
	return CLI_EXIT_OK;
}

/*
 * The three files into dir: each checked to be absent or compare's, all
 * three written beside their places, then renamed in (a failed write
 * leaves the earlier files as they were).
 */
static int write_out(const char *dir, const struct sim_bench_cmp *c, struct run_names *rn)
{
	struct out_file files[3] = { { "compare.csv", CSV_HEADER, "", "" },
				     { "compare.md", MD_MARK, "", "" },
				     { "compare.html", HTML_MARK, "", "" } };
	int (*const bodies[3])(FILE *, const struct sim_bench_cmp *, const struct run_names *) = { write_csv, write_md,
												   write_html };
	struct stat st;
	size_t written = 0;
	int status;

	if (!*dir)
		return cli_usage_error("compare", "--out is empty");
	if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode))
		return cli_usage_error("compare", "--out %s is not a directory", cli_quote(dir));
	for (size_t i = 0; i < 3; i++) {
		if (snprintf(files[i].path, PATH_MAX, "%s/%s", dir, files[i].name) >= PATH_MAX ||
		    snprintf(files[i].tmp, PATH_MAX, "%s/.%s.%ld.tmp", dir, files[i].name, (long)getpid()) >= PATH_MAX)
			return cli_usage_error("compare", "--out %s: path too long", cli_quote(dir));
		if ((status = check_ours(&files[i])))
			return status;
	}
	if ((status = render(c, rn)) || (status = make_dir(dir)))
		return status;
	while (written < 3 && !(status = write_tmp(&files[written], bodies[written], c, rn)))
		written++;
	for (size_t i = 0; i < 3; i++) {
		if (status) {
			if (i < written)
				unlink(files[i].tmp);
		} else if (rename(files[i].tmp, files[i].path) != 0) {
			fprintf(stderr, "ratelab compare: cannot rename %s to %s: %s\n", cli_quote(files[i].tmp),
				cli_quote(files[i].path), strerror(errno));
			status = CLI_EXIT_FAIL;
			for (size_t k = i; k < 3; k++)
				unlink(files[k].tmp);
			break;
		}
	}
	return status;
}

/* A median in ns in a readable unit, into buf. */
static const char *human_ns(char *buf, size_t len, double ns)
{
	if (ns < 1e3)
		snprintf(buf, len, "%.2f ns", ns);
	else if (ns < 1e6)
		snprintf(buf, len, "%.2f us", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, len, "%.2f ms", ns / 1e6);
	else
		snprintf(buf, len, "%.2f s", ns / 1e9);
	return buf;
}

/* name as the table shows it: control bytes as \xNN; returns its width in bytes. */
static int put_name(FILE *f, const char *name)
{
	int w = 0;

	for (const unsigned char *c = (const unsigned char *)name; *c; c++)
		w += *c < 0x20 || *c == 0x7f ? fprintf(f, "\\x%02x", *c) : (fputc(*c, f), 1);
	return w;
}

static int name_width(const char *name)
{
	int w = 0;

	for (const unsigned char *c = (const unsigned char *)name; *c; c++)
		w += *c < 0x20 || *c == 0x7f ? 4 : 1;
	return w;
}

static void print_table(const struct sim_bench_cmp *c, const struct run_names *rn)
{
	char a[32], b[32];
	int w = (int)strlen("benchmark");

	for (size_t i = 0; i < c->n; i++)
		if (name_width(c->rows[i].name) > w)
			w = name_width(c->rows[i].name);
	printf("%-*s %12s %12s %9s %8s  %s\n", w, "benchmark", "old median", "new median", "change", "p-value",
	       "verdict");
	for (size_t i = 0; i < c->n; i++) {
		const struct sim_bench_row *r = &c->rows[i];
		printf("%*s", w - put_name(stdout, r->name), "");
		printf(" %12s %12s %+8.2f%% %8.4f  %s\n", human_ns(a, sizeof(a), r->old_median_ns),
		       human_ns(b, sizeof(b), r->new_median_ns), sim_bench_pct2(r->change_pct), r->p_value,
		       sim_verdict_name(r->verdict));
	}
	printf("%-*s %12s %12s %+8.2f%%\n", w, "geomean", human_ns(a, sizeof(a), c->geo_old_ns),
	       human_ns(b, sizeof(b), c->geo_new_ns), sim_bench_pct2(c->geo_change_pct));
	for (size_t i = 0; i < c->n_only_old; i++) {
		fputs("only in old: ", stdout);
		put_name(stdout, c->only_old[i]);
		putchar('\n');
	}
	for (size_t i = 0; i < c->n_only_new; i++) {
		fputs("only in new: ", stdout);
		put_name(stdout, c->only_new[i]);
		putchar('\n');
	}
	printf("%zu benchmarks in both: %zu slower, %zu faster, %zu ~ (p <= %g and a change of at least %g%%); "
	       "geomean: the geometric mean of the medians\n",
	       c->n, c->slower, c->faster, c->n - c->slower - c->faster, rn->alpha, rn->threshold_pct);
}

int cli_cmd_compare(int argc, char **argv)
{
	struct cli_args a;
	char old_path[PATH_MAX], new_path[PATH_MAX], msg[1024];
	struct sim_bench_run old_run = { 0 }, new_run = { 0 };
	struct sim_bench_cmp cmp = { 0 };
	struct run_names rn = { old_path, new_path, ALPHA_DEFAULT, THRESHOLD_DEFAULT_PCT, { 0 }, { 0 } };
	int status = cli_parse("compare", argc, argv, options, O_COUNT, 2, &a);

	if (status == CLI_HELP) {
		fputs(usage, stdout);
		return cli_output_end("compare", CLI_EXIT_OK);
	}
	if (status)
		return status;
	if (a.npos != 2)
		return cli_usage_error("compare", "give the OLD and the NEW run (see --help)");
	if (a.value[O_ALPHA] && decimal(a.value[O_ALPHA], false, &rn.alpha))
		return cli_usage_error("compare", "--alpha %s is not a decimal (e.g. 0.05)", cli_quote(a.value[O_ALPHA]));
	if (!(rn.alpha > 0 && rn.alpha < 1))
		return cli_usage_error("compare", "--alpha %s is out of range (0, 1)", cli_quote(a.value[O_ALPHA]));
	if (a.value[O_THRESHOLD] && decimal(a.value[O_THRESHOLD], true, &rn.threshold_pct))
		return cli_usage_error("compare", "--threshold %s is not a percentage (e.g. 2%%)",
				       cli_quote(a.value[O_THRESHOLD]));
	if (rn.threshold_pct > THRESHOLD_MAX_PCT)
		return cli_usage_error("compare", "--threshold %s is out of range [0%%, %g%%]",
				       cli_quote(a.value[O_THRESHOLD]), THRESHOLD_MAX_PCT);
	if ((status = resolve("OLD", a.pos[0], old_path, sizeof(old_path))) ||
	    (status = resolve("NEW", a.pos[1], new_path, sizeof(new_path))))
		return status;

	int got = sim_bench_load(old_path, &old_run, msg, sizeof(msg));
	if (got == SIM_BENCH_OK)
		got = sim_bench_load(new_path, &new_run, msg, sizeof(msg));
	if (got == SIM_BENCH_OK) {
		char qo[SIM_QUOTE_SIZE + 8], qn[SIM_QUOTE_SIZE + 8];
		snprintf(qo, sizeof(qo), "OLD %s", cli_quote(old_path));
		snprintf(qn, sizeof(qn), "NEW %s", cli_quote(new_path));
		got = sim_bench_compare(&old_run, &new_run, rn.alpha, rn.threshold_pct, qo, qn, &cmp, msg, sizeof(msg));
	}
	if (got == SIM_BENCH_BAD)
		status = cli_usage_error("compare", "%s", msg);
	else if (got == SIM_BENCH_IO) {
		fprintf(stderr, "ratelab compare: %s\n", msg);
		status = CLI_EXIT_FAIL;
	} else if (!a.value[O_OUT] || !(status = write_out(a.value[O_OUT], &cmp, &rn))) {
		print_table(&cmp, &rn);
		status = cli_output_end("compare", CLI_EXIT_OK);
		if (status == CLI_EXIT_OK && a.value[O_FAIL_ON_SLOWER] && cmp.slower > 0) {
			fprintf(stderr, "ratelab compare: %zu benchmark%s slower (--fail-on-slower)\n", cmp.slower,
				cmp.slower == 1 ? " is" : "s are");
			status = CLI_EXIT_FAIL;
		}
	}
	sr_buf_free(&rn.md);
	sr_buf_free(&rn.html);
	sim_bench_cmp_free(&cmp);
	sim_bench_run_free(&old_run);
	sim_bench_run_free(&new_run);
	return status;
}
