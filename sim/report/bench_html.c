/*
 * bench_html.c - report.html from REPORT.md's Markdown: one self-contained
 * page (its style inline, each chart embedded as a data:image/png;base64
 * URI read from RESULTS/plots, no script, and a content security policy
 * that lets it fetch nothing else). The Markdown is the report's own
 * subset: headings, paragraphs, "- " lists, pipe tables (alignment from
 * the separator row), an image alone on its line, and inline `code`,
 * **strong** and *emphasis*. A chart not drawn yet is named in its place.
 */
#include <stdlib.h>
#include <string.h>

#include "bench_report_int.h"

static const char style[] =
	"body{font-family:system-ui,sans-serif;max-width:72em;margin:2em auto;padding:0 1em;line-height:1.45;"
	"color:#222}table{border-collapse:collapse;margin:1em 0;font-size:0.9em;display:block;overflow-x:auto}"
	"th,td{border:1px solid #ccc;padding:0.25em 0.5em;vertical-align:top}th{background:#f0f3f7}"
	"td.r,th.r{text-align:right}code{background:#f4f4f4;padding:0 0.2em}"
	"figure{margin:1em 0}img{max-width:100%;height:auto;border:1px solid #ddd}"
	"p.missing{color:#a00}h1,h2,h3,h4{color:#1f3f68}";

/* s[0..n) holds "**". */
static bool has_pair(const char *s, size_t n)
{
	for (size_t i = 0; i + 1 < n; i++)
		if (s[i] == '*' && s[i + 1] == '*')
			return true;
	return false;
}

/* Inline Markdown of s[0..n) as HTML. */
static void inline_md(struct sr_buf *o, const char *s, size_t n)
{
	char *t = malloc(n + 1);
	if (!t) {
		o->oom = true;
		return;
	}
	bool strong = false, em = false;
	for (size_t i = 0; i < n;) {
		if (s[i] == '`') {
			const char *close = memchr(s + i + 1, '`', n - i - 1);
			if (close) {
				size_t len = (size_t)(close - (s + i + 1));
				memcpy(t, s + i + 1, len);
				t[len] = '\0';
				sr_puts(o, "<code>");
				sr_html(o, t);
				sr_puts(o, "</code>");
				i += len + 2;
				continue;
			}
		}
		if (s[i] == '*' && i + 1 < n && s[i + 1] == '*') {
			bool closes = strong;
			bool opens = !strong && i + 2 < n && s[i + 2] != ' ' && has_pair(s + i + 2, n - i - 2);
			if (closes || opens) {
				sr_puts(o, closes ? "</strong>" : "<strong>");
				strong = !strong;
				i += 2;
				continue;
			}
		}
		if (s[i] == '*') {
			/* an opener follows a space or '(' and precedes a non-space, a closer the reverse */
			bool closes = em && i > 0 && s[i - 1] != ' ';
			bool opens = !em && (i == 0 || s[i - 1] == ' ' || s[i - 1] == '(') && i + 1 < n && s[i + 1] != ' ' &&
				     memchr(s + i + 1, '*', n - i - 1);
			if (closes || opens) {
				sr_puts(o, closes ? "</em>" : "<em>");
				em = !em;
				i++;
				continue;
			}
		}
		size_t j = i + 1;
		while (j < n && s[j] != '`' && s[j] != '*')
			j++;
		memcpy(t, s + i, j - i);
		t[j - i] = '\0';
		sr_html(o, t);
		i = j;
	}
	if (em)
		sr_puts(o, "</em>");
	if (strong)
		sr_puts(o, "</strong>");
	free(t);
}

/* The cells of a table line "| a | b |": their starts and lengths, at most max. */
static size_t cells(const char *line, size_t len, const char **start, size_t *clen, size_t max)
{
	size_t n = 0, i = 1; /* after the leading '|' */
	while (i < len && n < max) {
		size_t j = i;
		while (j < len && line[j] != '|')
			j++;
		if (j >= len)
			break;
		size_t a = i, b = j;
		while (a < b && line[a] == ' ')
			a++;
		while (b > a && line[b - 1] == ' ')
			b--;
		start[n] = line + a;
		clen[n++] = b - a;
		i = j + 1;
	}
	return n;
}

#define MAX_COLS 64

static void table(struct sr_buf *o, const char **lines, const size_t *lens, size_t n)
{
	const char *c[MAX_COLS];
	size_t cl[MAX_COLS], ncols;
	char align[MAX_COLS];
	size_t nsep = n > 1 ? cells(lines[1], lens[1], c, cl, MAX_COLS) : 0;
	for (size_t k = 0; k < MAX_COLS; k++)
		align[k] = k < nsep && cl[k] && c[k][cl[k] - 1] == ':' ? 'r' : 'l';
	sr_puts(o, "<table>\n");
	for (size_t r = 0; r < n; r++) {
		if (r == 1)
			continue; /* the separator */
		ncols = cells(lines[r], lens[r], c, cl, MAX_COLS);
		sr_puts(o, "<tr>");
		for (size_t k = 0; k < ncols; k++) {
			const char *tag = r == 0 ? "th" : "td";
			sr_printf(o, "<%s%s>", tag, align[k] == 'r' ? " class=\"r\"" : "");
			inline_md(o, c[k], cl[k]);
			sr_printf(o, "</%s>", tag);
		}
		sr_puts(o, "</tr>\n");
	}
	sr_puts(o, "</table>\n");
}

/* "![alt](file)" alone on its line: the chart embedded from RESULTS/file. */
static bool image(struct br_in *in, struct sr_buf *o, const char *line, size_t len)
{
	if (len < 5 || line[0] != '!' || line[1] != '[' || line[len - 1] != ')')
		return false;
	const char *mid = strstr(line, "](");
	if (!mid || mid - line > (long)len)
		return false;
	char alt[512], file[512], path[SR_PATH_MAX + 512];
	snprintf(alt, sizeof(alt), "%.*s", (int)(mid - line - 2), line + 2);
	snprintf(file, sizeof(file), "%.*s", (int)(line + len - 1 - (mid + 2)), mid + 2);
	snprintf(path, sizeof(path), "%s/%s", in->results, file);
	char *png;
	size_t n;
	int rc = rp_read_file(path, &png, &n, BR_WHO, in->err);
	if (rc == RP_BAD) {
		sr_puts(o, "<p class=\"missing\">Chart not drawn yet: ");
		sr_html(o, file);
		sr_puts(o, "</p>\n");
		return true;
	}
	if (rc) {
		if (!in->status)
			in->status = rc;
		return true;
	}
	sr_puts(o, "<figure><img alt=\"");
	sr_html(o, alt);
	sr_puts(o, "\" src=\"data:image/png;base64,");
	sr_base64(o, (const unsigned char *)png, n);
	sr_puts(o, "\"></figure>\n");
	free(png);
	return true;
}

void br_html(struct br_in *in, const char *md, struct sr_buf *o)
{
	size_t nl = 1;
	for (const char *p = md; *p; p++)
		nl += *p == '\n';
	const char **lines = malloc(nl * sizeof(*lines));
	size_t *lens = malloc(nl * sizeof(*lens));
	if (!lines || !lens) {
		free(lines);
		free(lens);
		br_error(in, RP_FAIL, "out of memory");
		return;
	}
	size_t n = 0;
	for (const char *p = md; *p;) {
		const char *e = strchr(p, '\n');
		lines[n] = p;
		lens[n++] = e ? (size_t)(e - p) : strlen(p);
		p = e ? e + 1 : p + strlen(p);
	}
	sr_puts(o, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		   "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
		   "img-src data:; style-src 'unsafe-inline'\">\n<title>ratelab: measured report</title>\n");
	sr_printf(o, "<style>%s</style>\n</head>\n<body>\n", style);
	for (size_t i = 0; i < n;) {
		const char *l = lines[i];
		size_t len = lens[i];
		if (len == 0) {
			i++;
			continue;
		}
		size_t level = 0;
		while (level < len && l[level] == '#')
			level++;
		if (level >= 1 && level <= 6 && level < len && l[level] == ' ') {
			sr_printf(o, "<h%zu>", level);
			inline_md(o, l + level + 1, len - level - 1);
			sr_printf(o, "</h%zu>\n", level);
			i++;
			continue;
		}
		if (l[0] == '|') {
			size_t j = i;
			while (j < n && lens[j] && lines[j][0] == '|')
				j++;
			table(o, lines + i, lens + i, j - i);
			i = j;
			continue;
		}
		if (len > 2 && l[0] == '-' && l[1] == ' ') {
			sr_puts(o, "<ul>\n");
			for (; i < n && lens[i] > 2 && lines[i][0] == '-' && lines[i][1] == ' '; i++) {
				sr_puts(o, "<li>");
				inline_md(o, lines[i] + 2, lens[i] - 2);
				sr_puts(o, "</li>\n");
			}
			sr_puts(o, "</ul>\n");
			continue;
		}
		if (image(in, o, l, len)) {
			i++;
			continue;
		}
		/* a paragraph: the lines up to a blank one or another block */
		size_t j = i + 1;
		while (j < n && lens[j] && lines[j][0] != '|' && lines[j][0] != '#' && lines[j][0] != '!' &&
		       !(lines[j][0] == '-' && lens[j] > 1 && lines[j][1] == ' '))
			j++;
		sr_puts(o, "<p>");
		inline_md(o, l, (size_t)(lines[j - 1] + lens[j - 1] - l));
		sr_puts(o, "</p>\n");
		i = j;
	}
	sr_puts(o, "</body>\n</html>\n");
	free(lines);
	free(lens);
}
