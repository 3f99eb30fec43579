/*
 * study_report_plot.c - the study report's charts, drawn by the gnuplot
 * found on PATH from a script and data this file writes into a temporary
 * directory inside the study directory (DIR/.report-XXXXXX, removed
 * afterwards; gnuplot runs there, so no path of the user's is ever quoted
 * into the script). The charts, PNG (pngcairo), moved to DIR/plots/:
 *   hurt_I.png     per rule I: within-rule keys hurt against excess
 *                  admitted, one labelled point per algorithm or decider;
 *   traffic.png    requests per second, minute or hour over the trace's
 *                  bins, all and the heaviest keys, against the log's
 *                  dates and times;
 *   refused_I.png  per rule I: how many keys had which share of their
 *                  requests refused, per algorithm (log scale);
 *   limits_I.png   per window I of limits.csv: the share of keys and of
 *                  requests the exact sliding log refuses against the
 *                  limit, the suggested limit marked.
 * Names from the data reach the script only as escaped gnuplot strings.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sr_palette.h" /* plots/style.gp: the charts' one palette */
#include "study_report_int.h"

/* Names in legends and labels: longer ones are cut, their length said. */
#define SR_GP_NAME_MAX 40
/* How long gnuplot may take, s: every chart has at most a few thousand points. */
#define SR_GNUPLOT_TIMEOUT_S 120

/*
 * The gnuplot on PATH (an empty entry is the working directory), made
 * absolute (it runs in another directory), into out[SR_PATH_MAX]; or false.
 */
static bool find_gnuplot(char *out)
{
	const char *path = getenv("PATH");
	if (!path)
		return false;
	for (const char *p = path;;) {
		const char *colon = strchr(p, ':');
		size_t n = colon ? (size_t)(colon - p) : strlen(p);
		char cwd[SR_PATH_MAX] = "";
		if ((n == 0 || p[0] != '/') && !getcwd(cwd, sizeof(cwd)))
			cwd[0] = '\0';
		int len = snprintf(out, SR_PATH_MAX, "%s%s%.*s/gnuplot", cwd, *cwd ? "/" : "", (int)(n ? n : 1), n ? p : ".");
		struct stat st;
		if (len > 0 && len < SR_PATH_MAX && stat(out, &st) == 0 && S_ISREG(st.st_mode) &&
		    access(out, X_OK) == 0)
			return true;
		if (!colon)
			return false;
		p = colon + 1;
	}
}

static int fail_errno(FILE *err, const char *what, const char *path)
{
	fprintf(err, SR_WHO "%s %s: %s\n", what, path, strerror(errno));
	return SR_FAIL;
}

/* Removes every regular file in path whose name ends in suffix (NULL: every one). */
static int empty_dir(const char *path, const char *suffix, FILE *err)
{
	DIR *d = opendir(path);
	if (!d)
		return errno == ENOENT ? SR_OK : fail_errno(err, "cannot open", path);
	struct dirent *e;
	int rc = SR_OK;
	while ((e = readdir(d)) && rc == SR_OK) {
		size_t n = strlen(e->d_name), sn = suffix ? strlen(suffix) : 0;
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
		    (suffix && (n < sn || strcmp(e->d_name + n - sn, suffix) != 0)))
			continue;
		char f[SR_PATH_MAX];
		if (!sr_path(f, path, e->d_name)) {
			fprintf(err, SR_WHO "%s/%s: the name is too long\n", path, e->d_name);
			rc = SR_FAIL;
		} else if (unlink(f) != 0 && errno != ENOENT)
			rc = fail_errno(err, "cannot remove", f);
	}
	closedir(d);
	return rc;
}

/* An axis of counts: from 0 (a little below, so points on 0 show) to a margin above max. */
static void range(struct sr_buf *b, const char *axis, double max)
{
	double top = max > 0 ? max * 1.25 : 1;
	sr_printf(b, "set %srange [%.6g:%.6g]\nset format %s '%%.0f'\n", axis, -top * 0.04, top, axis);
	if (max <= 8)
		sr_printf(b, "set %stics 1\n", axis);
}

static int add_chart(struct sr_charts *ch, enum sr_chart_kind kind, size_t rule, const char *file,
		     struct sr_buf *title, FILE *err)
{
	struct sr_chart *c = title->oom ? NULL : realloc(ch->c, (ch->n + 1) * sizeof(*c));
	if (!c) {
		sr_buf_free(title);
		fprintf(err, SR_WHO "out of memory\n");
		return SR_FAIL;
	}
	ch->c = c;
	c = &ch->c[ch->n++];
	*c = (struct sr_chart){.kind = kind, .rule = rule, .title = title->p};
	snprintf(c->file, sizeof(c->file), "plots/%s", file);
	*title = (struct sr_buf){0};
	return SR_OK;
}

static void gp_title(struct sr_buf *gp, const char *title)
{
	sr_puts(gp, "set title '");
	sr_gp(gp, title, SIZE_MAX);
	sr_puts(gp, "'\n");
}

/* Per rule: one point per algorithm at (excess admitted, within-rule keys hurt). */
static int script_hurt(const struct sr_view *s, size_t ri, struct sr_buf *gp, struct sr_buf *dat,
		       struct sr_charts *ch, FILE *err)
{
	const struct sim_study *st = &s->st;
	const struct sr_rows *r = &s->rule[ri];
	const char *unit = st->cost ? "units" : "requests";
	double mx = 0, my = 0;
	for (size_t i = 0; i < r->n; i++) {
		const struct sim_study_row *w = &st->rows[r->at[i]];
		sr_printf(dat, "%llu %llu\n", (unsigned long long)w->excess_admitted,
			  (unsigned long long)w->good_keys_hurt);
		if ((double)w->excess_admitted > mx)
			mx = (double)w->excess_admitted;
		if ((double)w->good_keys_hurt > my)
			my = (double)w->good_keys_hurt;
	}
	char file[64];
	snprintf(file, sizeof(file), "hurt_%zu.png", ri + 1);
	struct sr_buf title = {0};
	sr_printf(&title, "Rule %s: within-rule keys hurt against excess admitted", st->rules[ri].text);
	sr_printf(gp, "reset\nset output '%s'\n", file);
	gp_title(gp, title.p ? title.p : "");
	sr_printf(gp, "set xlabel 'excess admitted (%s the exact sliding log refuses, admitted)'\n", unit);
	sr_puts(gp, "set ylabel 'within-rule keys hurt (refused any request)'\nset grid\nset key off\n");
	range(gp, "x", mx);
	range(gp, "y", my);
	/* one label per distinct point, naming every algorithm there */
	for (size_t i = 0; i < r->n; i++) {
		const struct sim_study_row *w = &st->rows[r->at[i]];
		bool first = true;
		for (size_t j = 0; j < i && first; j++) {
			const struct sim_study_row *o = &st->rows[r->at[j]];
			first = !(o->excess_admitted == w->excess_admitted && o->good_keys_hurt == w->good_keys_hurt);
		}
		if (!first)
			continue;
		sr_printf(gp, "set label %zu '", i + 1);
		const char *sep = "";
		for (size_t j = i; j < r->n; j++) {
			const struct sim_study_row *o = &st->rows[r->at[j]];
			if (o->excess_admitted == w->excess_admitted && o->good_keys_hurt == w->good_keys_hurt) {
				sr_puts(gp, sep);
				sr_gp(gp, sr_algo(st, r->at[j]), SR_GP_NAME_MAX);
				sep = ", ";
			}
		}
		/* labels of neighbouring points stagger upwards in turn, by their order along x,
		 * so that close points do not print over each other */
		size_t rank = 0;
		for (size_t j = 0; j < r->n; j++) {
			const struct sim_study_row *o = &st->rows[r->at[j]];
			bool distinct_first = true;
			for (size_t k = 0; k < j && distinct_first; k++) {
				const struct sim_study_row *q = &st->rows[r->at[k]];
				distinct_first = !(q->excess_admitted == o->excess_admitted &&
						   q->good_keys_hurt == o->good_keys_hurt);
			}
			rank += distinct_first && (o->excess_admitted < w->excess_admitted ||
						   (o->excess_admitted == w->excess_admitted && j < i));
		}
		/* a label never leaves the plot: in the right half it ends left of its point, in the
		 * upper half it hangs below it (the axes' tops: range()'s) */
		bool right = (double)w->excess_admitted > (mx > 0 ? mx * 1.25 : 1) / 2;
		bool high = (double)w->good_keys_hurt > (my > 0 ? my * 1.25 : 1) / 2;
		double dy = 0.8 + 1.3 * (double)(rank % 3);
		sr_printf(gp, "' at %llu,%llu %s offset %s0.8,%.1f front\n", (unsigned long long)w->excess_admitted,
			  (unsigned long long)w->good_keys_hurt, right ? "right" : "left", right ? "-" : "",
			  high ? -dy : dy);
	}
	/* each algorithm's point in its style of the palette */
	for (size_t i = 0; i < r->n; i++) {
		sr_printf(gp, "%s'hurt_%zu.dat' every ::%zu::%zu using 1:2 with points lt sty('", i ? ", \\\n     " : "plot ",
			  ri + 1, i, i);
		sr_gp(gp, sr_algo(st, r->at[i]), SR_GP_NAME_MAX);
		sr_puts(gp, "') ps 1.6 notitle");
	}
	sr_puts(gp, "\n");
	return add_chart(ch, SR_CHART_HURT, ri, file, &title, err);
}

/* The traffic's x axis: a log's dates and times in its zone, chosen by the span; a trace's time from 0 in a unit. */
static void traffic_x(const struct sr_view *s, const struct sr_traffic *tr, struct sr_buf *gp, double *x_div)
{
	uint64_t span_s = (s->st.nbins - 1) * (uint64_t)(s->st.bin_ns / 1000000000);
	*x_div = 1;
	if (tr->dates) {
		const char *fmt = span_s <= 600 ? "%H:%M:%S" : span_s <= 86400 ? "%H:%M" :
				  span_s <= 7 * 86400 ? "%d %b\\n%H:%M" : span_s <= 400 * 86400 ? "%d %b\\n%Y" :
				  span_s <= 3 * 365 * 86400 ? "%b\\n%Y" : "%Y";
		sr_printf(gp, "set xdata time\nset timefmt '%%s'\nset format x \"%s\"\nset xlabel 'time (%s)'\n", fmt,
			  tr->tz);
		return;
	}
	const char *unit = span_s <= 600 ? "s" : span_s <= 36000 ? "min" : span_s <= 30 * 86400 ? "h" : "days";
	*x_div = span_s <= 600 ? 1 : span_s <= 36000 ? 60 : span_s <= 30 * 86400 ? 3600 : 86400;
	sr_printf(gp, "set format x '%%g'\nset xlabel 'time of the trace (%s)'\n", unit);
}

static int script_traffic(const struct sr_view *s, struct sr_buf *gp, struct sr_buf *dat,
			  struct sr_charts *ch, FILE *err)
{
	struct sr_traffic tr;
	double my = 0, x_div;
	sr_traffic_get(s, &tr);
	/* one point per bin at its start: x in s (dates: s since 1970 in the zone shown), y the rate per unit */
	for (size_t i = 0; i < s->st.nbins; i++) {
		uint64_t at = (uint64_t)(s->st.bin0_ns / 1000000000) + i * (uint64_t)(s->st.bin_ns / 1000000000);
		sr_printf(dat, "%lld", tr.dates ? (long long)at + (long long)tr.tz_s : (long long)at);
		for (size_t k = 0; k < sr_tcols(s); k++) {
			double v = (double)sr_tval(s, i, k) * tr.per_unit;
			sr_printf(dat, " %.9g", v);
			if (v > my)
				my = v;
		}
		sr_puts(dat, "\n");
	}
	struct sr_buf title = {0};
	sr_printf(&title, "Traffic: requests per %s, in bins of %s", tr.per, tr.bin);
	if (sr_tcols(s) == 2)
		sr_puts(&title, ", all and the heaviest key");
	else if (sr_tcols(s) > 2)
		sr_printf(&title, ", all and the %zu heaviest keys", sr_tcols(s) - 1);
	sr_puts(gp, "reset\nset output 'traffic.png'\n");
	gp_title(gp, title.p ? title.p : "");
	traffic_x(s, &tr, gp, &x_div);
	sr_printf(gp, "set ylabel 'requests / %s'\nset grid\nset key outside right top\n", tr.unit);
	/* y ticks in %g: a rate below 1 shows its decimals, not "0" */
	double top = my > 0 ? my * 1.15 : 1;
	sr_printf(gp, "set yrange [0:%.9g]\nset format y '%%g'\nset ytics autofreq\n", top);
	if (s->st.nbins == 1) {
		long long at = (long long)(s->st.bin0_ns / 1000000000) + (tr.dates ? (long long)tr.tz_s : 0);
		long long half = (long long)(s->st.bin_ns / 1000000000);
		if (tr.dates) /* a time axis takes its range as timefmt strings; one tick a bin */
			sr_printf(gp, "set xrange ['%lld':'%lld']\nset xtics %lld\n", at - half, at + half, half);
		else
			sr_printf(gp, "set xrange [%.9g:%.9g]\n", (double)(at - half) / x_div, (double)(at + half) / x_div);
	}
	const char *style = s->st.nbins < 60 ? "linespoints pt 7 ps 0.6" : "lines";
	for (size_t k = 0; k < sr_tcols(s); k++) {
		/* all requests black, the keys the palette's steps (dashed from the fifth) */
		sr_printf(gp, "%s'traffic.dat' using ($1/%g):%zu with %s lt ", k ? ", \\\n     " : "plot ", x_div, k + 2,
			  style);
		if (k == 0)
			sr_puts(gp, "ls_total lw 2.5 title '");
		else
			sr_printf(gp, "ls_step%zu dt %zu lw 1.5 title '", (k - 1) % 4 + 1, (k - 1) / 4 % 4 + 1);
		if (k == 0)
			sr_puts(gp, "all requests");
		else
			sr_gp(gp, sr_tcol(s, k), SR_GP_NAME_MAX);
		sr_puts(gp, "'");
	}
	sr_puts(gp, "\n");
	return add_chart(ch, SR_CHART_TRAFFIC, 0, "traffic.png", &title, err);
}

static int script_refused(const struct sr_view *s, size_t ri, struct sr_buf *gp, struct sr_buf *dat,
			  struct sr_charts *ch, FILE *err)
{
	const struct sim_study *st = &s->st;
	const struct sr_rows *r = &s->rule[ri];
	unsigned listed = 0;
	for (size_t i = 0; i < r->n; i++)
		listed |= st->rows[r->at[i]].refused_listed;
	if (listed == 0)
		return SR_OK;
	double my = 1;
	for (int k = 0; k < SIM_STUDY_BUCKETS; k++) {
		if (!(listed >> k & 1))
			continue;
		const char *lo = sim_study_bucket_lo[k], *hi = sim_study_bucket_hi[k];
		sr_printf(dat, "\"%s%s,%s]\"", strcmp(lo, hi) == 0 ? "[" : "(", lo, hi);
		for (size_t i = 0; i < r->n; i++) {
			const struct sim_study_row *w = &st->rows[r->at[i]];
			uint64_t n = w->refused_listed >> k & 1 ? (uint64_t)w->refused[k] : 0;
			/* 0 keys: no bar (the log scale has no 0) */
			if (n)
				sr_printf(dat, " %llu", (unsigned long long)n);
			else
				sr_puts(dat, " ?");
			if ((double)n > my)
				my = (double)n;
		}
		sr_puts(dat, "\n");
	}
	char file[64];
	snprintf(file, sizeof(file), "refused_%zu.png", ri + 1);
	struct sr_buf title = {0};
	sr_printf(&title, "Rule %s: keys by the share of their requests refused", st->rules[ri].text);
	sr_printf(gp, "reset\nset output '%s'\n", file);
	gp_title(gp, title.p ? title.p : "");
	sr_puts(gp, "set xlabel 'share of the key''s requests refused'\nset ylabel 'keys (log scale)'\n"
		    "set logscale y\nset grid ytics\nset key outside right top\nset datafile missing '?'\n"
		    "set style data histograms\nset style histogram clustered gap 1\n"
		    "set style fill solid 0.8 border -1\n");
	sr_printf(gp, "set yrange [0.8:%.6g]\n", my * 3);
	for (size_t i = 0; i < r->n; i++) {
		sr_printf(gp, "%s'refused_%zu.dat' using %zu%s lt sty('", i ? ", \\\n     " : "plot ", ri + 1,
			  i + 2, i ? "" : ":xtic(1)");
		sr_gp(gp, sr_algo(st, r->at[i]), SR_GP_NAME_MAX);
		sr_puts(gp, "') title '");
		sr_gp(gp, sr_algo(st, r->at[i]), SR_GP_NAME_MAX);
		sr_puts(gp, "'");
	}
	sr_puts(gp, "\n");
	return add_chart(ch, SR_CHART_REFUSED, ri, file, &title, err);
}

static int script_limits(const struct sr_view *s, size_t wi, struct sr_buf *gp, struct sr_buf *dat,
			 struct sr_charts *ch, FILE *err)
{
	const struct sim_limits_window *w = &s->st.limits.w[wi];
	uint64_t n;
	size_t row;
	bool exact;
	if (!w->keys || !w->n || !sr_percentile(s, w, s->target, &n, &row, &exact))
		return SR_OK;
	for (size_t i = 0; i < w->n; i++)
		sr_printf(dat, "%llu %.6g %.6g\n", (unsigned long long)w->limit[i],
			  100.0 * (double)w->keys_refused[i] / (double)w->keys,
			  w->requests ? 100.0 * (double)w->requests_refused[i] / (double)w->requests : 0.0);
	char file[64];
	snprintf(file, sizeof(file), "limits_%zu.png", wi + 1);
	struct sr_buf title = {0};
	sr_puts(&title, "Window ");
	sr_puts(&title, w->text);
	sr_puts(&title, ": keys and requests the exact sliding log refuses, by limit");
	sr_printf(gp, "reset\nset output '%s'\n", file);
	gp_title(gp, title.p ? title.p : "");
	sr_printf(gp, "set xlabel 'limit N (%s per window)%s'\nset ylabel 'refused (%% of all)'\nset grid\n"
		      "set key outside right top\nset yrange [-2:102]\n",
		  s->st.cost ? "units" : "requests", w->limit[w->n - 1] > 50 ? ", log scale" : "");
	if (w->limit[w->n - 1] > 50)
		sr_printf(gp, "set logscale x\nset xrange [1:%llu]\n", (unsigned long long)w->limit[w->n - 1] * 2);
	else
		sr_printf(gp, "set xrange [0:%llu]\n", (unsigned long long)w->limit[w->n - 1] + 1);
	/* the suggested limit: the palette's reference line (a limit, dashed black) */
	sr_printf(gp, "set arrow from %llu, graph 0 to %llu, graph 1 nohead lt ls_limit\n"
		      "set label 'suggested %llu' at %llu, graph 0.92 offset 0.5,0 tc lt ls_limit\n",
		  (unsigned long long)n, (unsigned long long)n, (unsigned long long)n, (unsigned long long)n);
	sr_printf(gp, "plot 'limits_%zu.dat' using 1:2 with linespoints lt ls_step2 ps 0.5 title 'keys refused any "
		      "request', \\\n     'limits_%zu.dat' using 1:3 with linespoints lt ls_step4 ps 0.5 title "
		      "'requests refused'\n", wi + 1, wi + 1);
	return add_chart(ch, SR_CHART_LIMITS, wi, file, &title, err);
}

static int write_file(const char *dir, const char *name, const struct sr_buf *b, FILE *err)
{
	char path[SR_PATH_MAX];
	sr_path(path, dir, name);
	return sr_buf_write(b, path, err);
}

/*
 * Runs gnuplot on plots.gp inside tmp, its settings the defaults (-d: no
 * ~/.gnuplot), for at most SR_GNUPLOT_TIMEOUT_S; a failure quotes its stderr.
 */
static int run_gnuplot(const char *gnuplot, const char *tmp, FILE *err)
{
	pid_t pid = fork();
	if (pid < 0)
		return fail_errno(err, "cannot start", gnuplot);
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		if (chdir(tmp) != 0)
			_exit(126);
		int e = open("gnuplot.err", O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (null < 0 || e < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 || dup2(e, 2) < 0)
			_exit(126);
		execl(gnuplot, "gnuplot", "-d", "plots.gp", (char *)NULL);
		static const char why[] = "(it could not be executed)\n";
		(void)!write(2, why, sizeof(why) - 1); /* nothing to do if even this fails */
		_exit(127);
	}
	int status;
	const struct timespec tick = {0, 10000000}; /* 10 ms */
	for (long waited = 0;; waited++) {
		pid_t r = waitpid(pid, &status, WNOHANG);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR)
			return fail_errno(err, "cannot wait for", gnuplot);
		if (waited == SR_GNUPLOT_TIMEOUT_S * 100L) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			fprintf(err, SR_WHO "gnuplot (%s) did not finish drawing the charts within %d s\n", gnuplot,
				SR_GNUPLOT_TIMEOUT_S);
			return SR_FAIL;
		}
		nanosleep(&tick, NULL);
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return SR_OK;
	char path[SR_PATH_MAX], text[2048];
	sr_path(path, tmp, "gnuplot.err");
	/* its last lines: gnuplot stops at the first error, after any warnings */
	FILE *f = fopen(path, "rb");
	size_t n = 0;
	if (f) {
		long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : 0;
		if (size > (long)sizeof(text) - 1)
			fseek(f, size - (long)sizeof(text) + 1, SEEK_SET);
		else
			rewind(f);
		n = fread(text, 1, sizeof(text) - 1, f);
		fclose(f);
	}
	text[n] = '\0';
	struct sr_buf q = {0};
	/* line by line, each escaped, indented under the message */
	for (char *line = text, *nl; *line; line = nl ? nl + 1 : line + strlen(line)) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		sr_puts(&q, "\n  | ");
		for (const char *c = line; *c; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				sr_printf(&q, "\\x%02x", (unsigned char)*c);
			else
				sr_put(&q, c, 1);
		if (!nl)
			break;
	}
	if (WIFEXITED(status))
		fprintf(err, SR_WHO "gnuplot (%s) exited with status %d drawing the charts; it wrote:%s\n",
			gnuplot, WEXITSTATUS(status), q.p ? q.p : " nothing");
	else
		fprintf(err, SR_WHO "gnuplot (%s) was killed by signal %d drawing the charts; it wrote:%s\n",
			gnuplot, WIFSIGNALED(status) ? WTERMSIG(status) : 0, q.p ? q.p : " nothing");
	sr_buf_free(&q);
	return SR_FAIL;
}

static int draw(const struct sr_view *s, struct sr_charts *ch, const char *gnuplot, const char *tmp,
		const char *plots, FILE *err)
{
	struct sr_buf gp = {0}, dat = {0};
	int rc = SR_OK;
	char name[64];
	sr_puts(&gp, "set encoding utf8\nset terminal pngcairo noenhanced size 1000,620 font 'DejaVu Sans,11'\n");
	sr_puts(&gp, sr_palette);
	for (size_t ri = 0; ri < s->st.nrules && rc == SR_OK; ri++) {
		rc = script_hurt(s, ri, &gp, &dat, ch, err);
		snprintf(name, sizeof(name), "hurt_%zu.dat", ri + 1);
		if (rc == SR_OK)
			rc = write_file(tmp, name, &dat, err);
		sr_buf_free(&dat);
		if (rc == SR_OK)
			rc = script_refused(s, ri, &gp, &dat, ch, err);
		snprintf(name, sizeof(name), "refused_%zu.dat", ri + 1);
		if (rc == SR_OK && dat.len)
			rc = write_file(tmp, name, &dat, err);
		sr_buf_free(&dat);
	}
	for (size_t wi = 0; wi < s->st.limits.nwindows && rc == SR_OK; wi++) {
		rc = script_limits(s, wi, &gp, &dat, ch, err);
		snprintf(name, sizeof(name), "limits_%zu.dat", wi + 1);
		if (rc == SR_OK && dat.len)
			rc = write_file(tmp, name, &dat, err);
		sr_buf_free(&dat);
	}
	if (rc == SR_OK && s->st.nbins > 0) {
		rc = script_traffic(s, &gp, &dat, ch, err);
		if (rc == SR_OK)
			rc = write_file(tmp, "traffic.dat", &dat, err);
	}
	sr_buf_free(&dat);
	if (rc == SR_OK)
		rc = write_file(tmp, "plots.gp", &gp, err);
	sr_buf_free(&gp);
	if (rc == SR_OK)
		rc = run_gnuplot(gnuplot, tmp, err);
	for (size_t i = 0; i < ch->n && rc == SR_OK; i++) {
		const char *base = ch->c[i].file + strlen("plots/");
		char from[SR_PATH_MAX], to[SR_PATH_MAX];
		sr_path(from, tmp, base);
		sr_path(to, plots, base);
		struct stat st;
		if (stat(from, &st) != 0 || st.st_size == 0) {
			fprintf(err, SR_WHO "gnuplot (%s) exited 0 but did not draw %s (is its pngcairo terminal "
				"there?)\n", gnuplot, base);
			rc = SR_FAIL;
		} else if (rename(from, to) != 0) {
			rc = fail_errno(err, "cannot move the chart to", to);
		}
	}
	return rc;
}

int sr_charts_draw(const struct sr_view *s, struct sr_charts *ch, FILE *err)
{
	*ch = (struct sr_charts){0};
	char plots[SR_PATH_MAX], tmp[SR_PATH_MAX], gnuplot[SR_PATH_MAX];
	sr_path(plots, s->dir, "plots");
	int rc = empty_dir(plots, ".png", err);
	if (rc)
		return rc;
	ch->have_gnuplot = find_gnuplot(gnuplot);
	if (!ch->have_gnuplot) {
		rmdir(plots); /* left alone when it holds files of the user's */
		return SR_OK;
	}
	if (mkdir(plots, 0777) != 0 && errno != EEXIST)
		return fail_errno(err, "cannot create", plots);
	sr_path(tmp, s->dir, ".report-XXXXXX");
	if (!mkdtemp(tmp))
		return fail_errno(err, "cannot create a temporary directory in", s->dir);
	rc = draw(s, ch, gnuplot, tmp, plots, err);
	int rc2 = empty_dir(tmp, NULL, err);
	if (rc2 == SR_OK && rmdir(tmp) != 0)
		rc2 = fail_errno(err, "cannot remove", tmp);
	return rc ? rc : rc2;
}

void sr_charts_free(struct sr_charts *ch)
{
	for (size_t i = 0; i < ch->n; i++)
		free(ch->c[i].title);
	free(ch->c);
	*ch = (struct sr_charts){0};
}

const struct sr_chart *sr_chart_find(const struct sr_charts *ch, enum sr_chart_kind kind, size_t rule)
{
	for (size_t i = 0; i < ch->n; i++)
		if (ch->c[i].kind == kind && (kind == SR_CHART_TRAFFIC || ch->c[i].rule == rule))
			return &ch->c[i];
	return NULL;
}
