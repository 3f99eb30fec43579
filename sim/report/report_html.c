/*
 * report_html.c - rp_html_page (report_html.h): the reports' Markdown as
 * one self-contained page. Two passes over the lines: the first names each
 * heading (its id) for the table of contents, the second renders the
 * blocks.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "report_html.h"

static const char style[] =
	"body{font-family:system-ui,'DejaVu Sans',sans-serif;max-width:72em;margin:2em auto;padding:0 1em;"
	"line-height:1.45;color:#222}h1,h2,h3,h4{color:#1f3f68}"
	"nav.toc{border:1px solid #ccd;background:#f7f9fc;padding:0.3em 1em;margin:1em 0}"
	"nav.toc ol{margin:0.2em 0;padding-left:1.5em}nav.toc>ol{columns:2 22em}nav.toc li{break-inside:avoid}"
	"div.wide{overflow-x:auto;max-width:100%;margin:1em 0}"
	"table{border-collapse:separate;border-spacing:0;font-size:0.9em}"
	"th,td{border:1px solid #ccc;border-width:0 1px 1px 0;padding:0.25em 0.5em;vertical-align:top;"
	"background:#fff}tr>:first-child{border-left-width:1px}thead th{border-top-width:1px}"
	"th{background:#f0f3f7}td.r,th.r{text-align:right;font-variant-numeric:tabular-nums}"
	/* the first column stays in view when the table scrolls sideways */
	"tr>:first-child{position:sticky;left:0;z-index:1}"
	"th[aria-sort]{cursor:pointer}th[aria-sort=ascending]::after{content:' \\25B2'}"
	"th[aria-sort=descending]::after{content:' \\25BC'}"
	"code{background:#f4f4f4;padding:0 0.2em}figure{margin:1em 0}"
	"img{max-width:100%;height:auto;border:1px solid #ddd}figcaption{font-size:0.85em;color:#555}"
	"p.missing{color:#a00}";

/* The table sort (report_html.h). Its SHA-256 below is what the policy lets
 * run: change one byte of it and run tests/cli/report.sh, which names the new hash. */
static const char script[] =
	"(function(){"
	"function num(c){var m=/^[-+]?(\\d+\\.?\\d*|\\.\\d+)(e[-+]?\\d+)?/i.exec(c.textContent.trim().replace(/^\\u2212/,'-'));"
	"return m?parseFloat(m[0]):null}"
	"function blank(c){var s=c?c.textContent.trim():'';return s===''||s==='-'}"
	"function sort(t,k,th){var b=t.tBodies[0],rows=Array.prototype.slice.call(b.rows),isnum=true;"
	"rows.forEach(function(r){var c=r.cells[k];if(!blank(c)&&num(c)===null)isnum=false});"
	"var dir=th.getAttribute('aria-sort')==='ascending'?-1:1;"
	"var keyed=rows.map(function(r,i){var c=r.cells[k];"
	"return{r:r,i:i,v:blank(c)?null:isnum?num(c):c.textContent.trim()}});"
	"keyed.sort(function(x,y){if(x.v===null||y.v===null)return x.v===y.v?x.i-y.i:x.v===null?1:-1;"
	"var d=isnum?x.v-y.v:x.v.localeCompare(y.v,undefined,{numeric:true});return d?dir*d:x.i-y.i});"
	"keyed.forEach(function(e){b.appendChild(e.r)});"
	"Array.prototype.forEach.call(th.parentNode.cells,function(h){h.setAttribute('aria-sort','none')});"
	"th.setAttribute('aria-sort',dir>0?'ascending':'descending')}"
	"Array.prototype.forEach.call(document.querySelectorAll('table.sort'),function(t){"
	"Array.prototype.forEach.call(t.tHead.rows[0].cells,function(th,k){th.tabIndex=0;"
	"th.setAttribute('aria-sort','none');th.addEventListener('click',function(){sort(t,k,th)});"
	"th.addEventListener('keydown',function(e){if(e.key==='Enter')sort(t,k,th)})})})"
	"})();";
static const char script_sha256[] = "sha256-J9Z4zv50pywoi2fMh+nXZ4QX/89ieSDK7yfLqOlx5Qk=";

/* Markdown's escapable characters: a backslash before one means it. */
static bool escapable(char c)
{
	return c > 0 && ispunct((unsigned char)c);
}

/* s[0..n) holds "**". */
static bool has_pair(const char *s, size_t n)
{
	for (size_t i = 0; i + 1 < n; i++)
		if (s[i] == '*' && s[i + 1] == '*')
			return true;
	return false;
}

/* s[0..n) with its escapes resolved and no markup interpreted, as a new string; NULL on oom. */
static char *plain(const char *s, size_t n)
{
	char *t = malloc(n + 1);
	size_t k = 0;
	if (!t)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\\' && i + 1 < n && escapable(s[i + 1]))
			i++;
		else if (s[i] == '`' || s[i] == '*')
			continue;
		t[k++] = s[i];
	}
	t[k] = '\0';
	return t;
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
		if (s[i] == '\\' && i + 1 < n && escapable(s[i + 1])) {
			t[0] = s[i + 1];
			t[1] = '\0';
			sr_html(o, t);
			i += 2;
			continue;
		}
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
		while (j < n && s[j] != '`' && s[j] != '*' && s[j] != '\\')
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

/* The cells of a table line "| a | b |": their starts and lengths, at most max; "\|" stays in its cell. */
static size_t cells(const char *line, size_t len, const char **start, size_t *clen, size_t max)
{
	size_t n = 0, i = 1; /* after the leading '|' */
	while (i < len && n < max) {
		size_t j = i;
		while (j < len && line[j] != '|')
			j += line[j] == '\\' && j + 1 < len ? 2 : 1;
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

/* Whether a body row is a summary row (report_html.h): its first cell begins with "**". */
static bool summary_row(const char *line, size_t len)
{
	const char *c[1];
	size_t cl[1];
	return cells(line, len, c, cl, 1) == 1 && cl[0] >= 2 && c[0][0] == '*' && c[0][1] == '*';
}

static void table(struct sr_buf *o, const char **lines, const size_t *lens, size_t n)
{
	const char *c[MAX_COLS];
	size_t cl[MAX_COLS];
	bool right[MAX_COLS];
	size_t nsep = n > 1 ? cells(lines[1], lens[1], c, cl, MAX_COLS) : 0;
	size_t foot = n; /* the first row of the footer: the trailing summary rows, never the only body rows */
	while (foot > 3 && summary_row(lines[foot - 1], lens[foot - 1]))
		foot--;
	for (size_t k = 0; k < MAX_COLS; k++)
		right[k] = k < nsep && cl[k] && c[k][cl[k] - 1] == ':';
	sr_puts(o, "<div class=\"wide\"><table class=\"sort\">\n");
	for (size_t r = 0; r < n; r++) {
		if (r == 1)
			continue; /* the separator */
		if (r == foot)
			sr_puts(o, "</tbody>\n<tfoot>\n");
		size_t ncols = cells(lines[r], lens[r], c, cl, MAX_COLS);
		const char *tag = r == 0 ? "th" : "td";
		sr_puts(o, r == 0 ? "<thead><tr>" : "<tr>");
		for (size_t k = 0; k < ncols; k++) {
			sr_printf(o, "<%s%s>", tag, right[k] ? " class=\"r\"" : "");
			inline_md(o, c[k], cl[k]);
			sr_printf(o, "</%s>", tag);
		}
		sr_puts(o, r == 0 ? "</tr></thead>\n<tbody>\n" : "</tr>\n");
	}
	if (n == 1)
		sr_puts(o, "<tbody>\n");
	sr_puts(o, foot < n ? "</tfoot></table></div>\n" : "</tbody></table></div>\n");
}

/* "![alt](file)" alone on its line: the chart embedded from DIR/file. 0 when it was not an
 * image line, 1 when rendered, -1 after an error. */
static int image(const struct rp_page *p, struct sr_buf *o, const char *line, size_t len)
{
	if (len < 5 || line[0] != '!' || line[1] != '[' || line[len - 1] != ')')
		return 0;
	const char *mid = NULL; /* the last "](": a file name holds none */
	for (const char *q = line + 2; q + 1 < line + len; q++)
		if (q[0] == ']' && q[1] == '(' && q[-1] != '\\')
			mid = q;
	if (!mid)
		return 0;
	char file[512], path[SR_PATH_MAX];
	snprintf(file, sizeof(file), "%.*s", (int)(line + len - 1 - (mid + 2)), mid + 2);
	char *alt = plain(line + 2, (size_t)(mid - line - 2));
	if (!alt) {
		o->oom = true;
		return 1;
	}
	char *png = NULL;
	size_t n = 0;
	int rc = sr_path(path, p->dir, file) ? sim_read_file(path, &png, &n, p->who, p->err) : SIM_CSV_BAD;
	if (rc == SIM_CSV_BAD && p->missing_ok) {
		sr_puts(o, "<p class=\"missing\">Chart not drawn yet: ");
		sr_html(o, file);
		sr_puts(o, "</p>\n");
	} else if (rc == SIM_CSV_BAD) {
		fprintf(p->err, "%s%s/%s: No such file or directory\n", p->who, p->dir, file);
	} else if (rc == SIM_CSV_OK) {
		sr_puts(o, "<figure><img alt=\"");
		sr_html(o, alt);
		sr_puts(o, "\" src=\"data:image/png;base64,");
		sr_base64(o, (const unsigned char *)png, n);
		sr_puts(o, "\"><figcaption>");
		sr_html(o, alt);
		sr_puts(o, "</figcaption></figure>\n");
	}
	free(png);
	free(alt);
	return rc == SIM_CSV_OK || (rc == SIM_CSV_BAD && p->missing_ok) ? 1 : -1;
}

/* A heading: its level (1..6) and where its text starts, or 0. */
static size_t heading(const char *l, size_t len, size_t *text)
{
	size_t level = 0;
	while (level < len && l[level] == '#')
		level++;
	if (level < 1 || level > 6 || level >= len || l[level] != ' ')
		return 0;
	*text = level + 1;
	return level;
}

/* The lines' headings as ids: "the-answer", a repeated one "the-answer-2". */
struct ids {
	char **id; /* per line: the heading's id, NULL for other lines */
	size_t n;
};

static void make_id(struct ids *ids, size_t line, const char *text, size_t len, bool *oom)
{
	char *txt = plain(text, len);
	char *id = txt ? malloc(len + 24) : NULL;
	if (!id) {
		free(txt);
		*oom = true;
		return;
	}
	size_t k = 0;
	for (const unsigned char *s = (const unsigned char *)txt; *s; s++) {
		if (isalnum(*s))
			id[k++] = (char)tolower(*s);
		else if (k && id[k - 1] != '-')
			id[k++] = '-';
	}
	while (k && id[k - 1] == '-')
		k--;
	if (k == 0)
		id[k++] = 's';
	id[k] = '\0';
	/* unique: the first of a name keeps it, the later ones a count */
	size_t base = k;
	for (unsigned dup = 2;; dup++) {
		bool taken = false;
		for (size_t i = 0; i < line && !taken; i++)
			taken = ids->id[i] && strcmp(ids->id[i], id) == 0;
		if (!taken)
			break;
		snprintf(id + base, 24, "-%u", dup);
	}
	free(txt);
	ids->id[line] = id;
}

static void toc(struct sr_buf *o, const char **lines, const size_t *lens, const struct ids *ids)
{
	int open = 0; /* the list levels open: 1 in "##", 2 in a "###" list below one */
	sr_puts(o, "<nav class=\"toc\" aria-label=\"Contents\"><strong>Contents</strong>\n<ol>\n");
	for (size_t i = 0; i < ids->n; i++) {
		size_t t, level = ids->id[i] ? heading(lines[i], lens[i], &t) : 0;
		if (level != 2 && level != 3)
			continue;
		if (level == 3 && open == 1) {
			sr_puts(o, "\n<ol>\n");
			open = 2;
		} else if (level == 2 && open == 2) {
			sr_puts(o, "</li>\n</ol>\n</li>\n");
			open = 1;
		} else if (open) {
			sr_puts(o, "</li>\n");
		} else {
			open = 1; /* the first entry, "##" or "###" */
		}
		sr_puts(o, "<li><a href=\"#");
		sr_html(o, ids->id[i]);
		sr_puts(o, "\">");
		inline_md(o, lines[i] + t, lens[i] - t);
		sr_puts(o, "</a>");
	}
	sr_puts(o, open == 2 ? "</li>\n</ol>\n</li>\n" : open ? "</li>\n" : "");
	sr_puts(o, "</ol>\n</nav>\n");
}

int rp_html_page(const struct rp_page *p, const char *md, struct sr_buf *o)
{
	size_t nl = 1;
	for (const char *c = md; *c; c++)
		nl += *c == '\n';
	const char **lines = malloc(nl * sizeof(*lines));
	size_t *lens = malloc(nl * sizeof(*lens));
	struct ids ids = { calloc(nl, sizeof(char *)), 0 };
	if (!lines || !lens || !ids.id) {
		free(lines);
		free(lens);
		free(ids.id);
		o->oom = true;
		return 0;
	}
	size_t n = 0;
	for (const char *c = md; *c;) {
		const char *e = strchr(c, '\n');
		lines[n] = c;
		lens[n++] = e ? (size_t)(e - c) : strlen(c);
		c = e ? e + 1 : c + strlen(c);
	}
	ids.n = n;
	bool any_toc = false;
	for (size_t i = 0; i < n; i++) {
		size_t t, level = heading(lines[i], lens[i], &t);
		if (level)
			make_id(&ids, i, lines[i] + t, lens[i] - t, &o->oom);
		any_toc |= level == 2 || level == 3;
	}
	sr_puts(o, "<!DOCTYPE html>\n");
	if (p->mark)
		sr_printf(o, "<!-- %s -->\n", p->mark);
	sr_puts(o, "<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
	/* the page may load nothing: images from data: URIs, its style inline, its one script by hash */
	sr_printf(o, "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
		     "img-src data:; style-src 'unsafe-inline'; script-src '%s'\">\n", script_sha256);
	sr_puts(o, "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>");
	sr_html(o, p->title);
	sr_printf(o, "</title>\n<style>%s</style>\n</head>\n<body>\n", style);
	int rc = 0;
	bool toc_done = !any_toc;
	for (size_t i = 0; i < n && rc == 0;) {
		const char *l = lines[i];
		size_t len = lens[i], t, level;
		if (len == 0) {
			i++;
			continue;
		}
		if ((level = heading(l, len, &t))) {
			if (level == 2 && !toc_done) {
				toc(o, lines, lens, &ids);
				toc_done = true;
			}
			sr_printf(o, "<h%zu id=\"", level);
			sr_html(o, ids.id[i] ? ids.id[i] : "");
			sr_puts(o, "\">");
			inline_md(o, l + t, len - t);
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
		int img = image(p, o, l, len);
		if (img) {
			rc = img < 0;
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
	sr_printf(o, "<script>%s</script>\n</body>\n</html>\n", script);
	for (size_t i = 0; i < n; i++)
		free(ids.id[i]);
	free(ids.id);
	free(lines);
	free(lens);
	return rc;
}
