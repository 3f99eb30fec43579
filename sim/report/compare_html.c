/*
 * compare_html.c - the page of `ratelab compare` (compare_html.h).
 */
#include "compare_html.h"


/* text with &, <, >, " and ' escaped, and control bytes shown as \xNN. */
static void esc(FILE *f, const char *text)
{
	for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
		switch (*c) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default:
			if (*c < 0x20 || *c == 0x7f)
				fprintf(f, "\\x%02x", *c);
			else
				fputc(*c, f);
		}
	}
}

static void only(FILE *f, const char *which, const char *const *names, size_t n)
{
	if (n == 0)
		return;
	fprintf(f, "<h2>Only in the %s run (%zu)</h2>\n<ul>\n", which, n);
	for (size_t i = 0; i < n; i++) {
		fputs("<li><code>", f);
		esc(f, names[i]);
		fputs("</code></li>\n", f);
	}
	fputs("</ul>\n", f);
}

int sim_compare_html(FILE *f, const struct sim_bench_cmp *c, const char *old_name, const char *new_name,
		     double alpha, double threshold_pct)
{
	fputs(SIM_COMPARE_HTML_MARK, f);
	fputs("<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>ratelab compare</title>\n<style>\n"
	      "body { font-family: sans-serif; margin: 2em; color: #222; }\n"
	      "table { border-collapse: collapse; }\n"
	      "th, td { padding: 0.2em 0.8em; border-bottom: 1px solid #ddd; }\n"
	      "td.num { text-align: right; font-variant-numeric: tabular-nums; }\n"
	      "tr.faster td.verdict { color: #176317; font-weight: bold; }\n"
	      "tr.slower td.verdict { color: #a31515; font-weight: bold; }\n"
	      "tr.geomean td { font-weight: bold; border-top: 2px solid #888; }\n"
	      "</style>\n</head>\n<body>\n<h1>ratelab compare</h1>\n<p>Old: <code>",
	      f);
	esc(f, old_name);
	fputs("</code>, new: <code>", f);
	esc(f, new_name);
	fprintf(f, "</code>. %zu benchmarks in both: %zu slower, %zu faster, %zu ~. A verdict is "
		"<code>faster</code> or <code>slower</code> when the two-sided Mann-Whitney U test's p-value "
		"over the repetitions is at most %g and the median changed by at least %g%%, else "
		"<code>~</code>.</p>\n",
		c->n, c->slower, c->faster, c->n - c->slower - c->faster, alpha, threshold_pct);
	fputs("<table>\n<tr><th>benchmark</th><th>old median (ns)</th><th>new median (ns)</th><th>change</th>"
	      "<th>p-value</th><th>verdict</th></tr>\n",
	      f);
	for (size_t i = 0; i < c->n; i++) {
		const struct sim_bench_row *r = &c->rows[i];
		const char *v = sim_verdict_name(r->verdict);
		fprintf(f, "<tr class=\"%s\"><td><code>", r->verdict == SIM_VERDICT_SAME ? "same" : v);
		esc(f, r->name);
		fprintf(f, "</code></td><td class=\"num\">%.3f</td><td class=\"num\">%.3f</td>"
			"<td class=\"num\">%+.2f%%</td><td class=\"num\">%.4f</td><td class=\"verdict\">%s</td></tr>\n",
			r->old_median_ns, r->new_median_ns, sim_bench_pct2(r->change_pct), r->p_value, v);
	}
	fprintf(f, "<tr class=\"geomean\"><td>geomean (geometric mean)</td><td class=\"num\">%.3f</td><td class=\"num\">%.3f</td>"
		"<td class=\"num\">%+.2f%%</td><td></td><td></td></tr>\n</table>\n",
		c->geo_old_ns, c->geo_new_ns, sim_bench_pct2(c->geo_change_pct));
	only(f, "old", c->only_old, c->n_only_old);
	only(f, "new", c->only_new, c->n_only_new);
	fputs("</body>\n</html>\n", f);
	return ferror(f) ? -1 : 0;
}
