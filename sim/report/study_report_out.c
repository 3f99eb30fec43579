/*
 * study_report_out.c - the two renderings of the report document:
 * REPORT.md (GitHub-flavoured Markdown, the charts linked as plots/NAME.png)
 * and report.html (one self-contained page: its style inline, each chart
 * embedded as a data:image/png;base64 URI, no script, and a content
 * security policy that lets it fetch nothing else).
 * All text from the document is escaped here, by sr_md and sr_html.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "study_report_int.h"

int sr_buf_write(const struct sr_buf *b, const char *path, FILE *err)
{
	return rp_write(b, path, SR_WHO, err) ? SR_FAIL : SR_OK;
}

static const char *cell(const struct sr_block *b, size_t i)
{
	return i < b->ncells ? b->cell[i] : "";
}

static size_t table_rows(const struct sr_block *b)
{
	return b->ncols ? (b->ncells + b->ncols - 1) / b->ncols : 0;
}

static void md_table(struct sr_buf *o, const struct sr_block *b)
{
	size_t rows = table_rows(b);
	for (size_t r = 0; r < rows; r++) {
		sr_puts(o, "|");
		for (size_t c = 0; c < b->ncols; c++) {
			sr_puts(o, " ");
			sr_md(o, cell(b, r * b->ncols + c));
			sr_puts(o, " |");
		}
		sr_puts(o, "\n");
		if (r == 0) {
			sr_puts(o, "|");
			for (size_t c = 0; c < b->ncols; c++)
				sr_puts(o, b->align[c] == 'r' ? "---:|" : "---|");
			sr_puts(o, "\n");
		}
	}
	sr_puts(o, "\n");
}

int sr_write_md(const struct sr_doc *d, const char *dir, FILE *err)
{
	struct sr_buf o = {0};
	for (size_t i = 0; i < d->n; i++) {
		const struct sr_block *b = &d->b[i];
		switch (b->kind) {
		case SR_H:
			sr_printf(&o, "%.*s ", b->level, "###");
			sr_md(&o, b->text);
			sr_puts(&o, "\n\n");
			break;
		case SR_P:
			sr_md(&o, b->text);
			sr_puts(&o, "\n\n");
			break;
		case SR_LI:
			sr_puts(&o, "- ");
			sr_md(&o, b->text);
			sr_puts(&o, i + 1 < d->n && d->b[i + 1].kind == SR_LI ? "\n" : "\n\n");
			break;
		case SR_TABLE:
			md_table(&o, b);
			break;
		case SR_IMG:
			sr_puts(&o, "![");
			sr_md(&o, b->text);
			sr_printf(&o, "](%s)\n\n", b->file);
			break;
		}
	}
	o.oom |= d->oom;
	char path[SR_PATH_MAX];
	sr_path(path, dir, "REPORT.md");
	int rc = sr_buf_write(&o, path, err);
	sr_buf_free(&o);
	return rc;
}

/* The chart's PNG as a data: URI. */
static int html_img(struct sr_buf *o, const char *dir, const struct sr_block *b, FILE *err)
{
	char path[SR_PATH_MAX];
	sr_path(path, dir, b->file);
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(err, SR_WHO "%s: %s\n", path, strerror(errno));
		return SR_FAIL;
	}
	struct sr_buf png = {0};
	char chunk[65536];
	size_t n;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		sr_put(&png, chunk, n);
	bool bad = ferror(f);
	fclose(f);
	if (bad || png.oom) {
		fprintf(err, SR_WHO "%s: %s\n", path, bad ? "read error" : "out of memory");
		sr_buf_free(&png);
		return SR_FAIL;
	}
	sr_puts(o, "<figure><img src=\"data:image/png;base64,");
	sr_base64(o, (const unsigned char *)png.p, png.len);
	sr_puts(o, "\" alt=\"");
	sr_html(o, b->text);
	sr_puts(o, "\"><figcaption>");
	sr_html(o, b->text);
	sr_puts(o, "</figcaption></figure>\n");
	sr_buf_free(&png);
	return SR_OK;
}

static void html_table(struct sr_buf *o, const struct sr_block *b)
{
	size_t rows = table_rows(b);
	sr_puts(o, "<div class=\"wide\"><table>\n");
	for (size_t r = 0; r < rows; r++) {
		sr_puts(o, r == 0 ? "<thead><tr>" : "<tr>");
		for (size_t c = 0; c < b->ncols; c++) {
			const char *tag = r == 0 ? "th" : "td";
			sr_printf(o, "<%s%s>", tag, b->align[c] == 'r' ? " class=\"num\"" : "");
			sr_html(o, cell(b, r * b->ncols + c));
			sr_printf(o, "</%s>", tag);
		}
		sr_puts(o, r == 0 ? "</tr></thead>\n<tbody>\n" : "</tr>\n");
	}
	sr_puts(o, "</tbody></table></div>\n");
}

static const char style[] =
	"body{font-family:'DejaVu Sans',Helvetica,Arial,sans-serif;max-width:1100px;margin:2em auto;"
	"padding:0 1em;color:#222;line-height:1.45}"
	"div.wide{overflow-x:auto}table{border-collapse:collapse;margin:1em 0;font-size:0.9em}"
	"th,td{border:1px solid #bbb;padding:0.25em 0.6em;text-align:left}"
	"th{background:#eef2f7}td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}"
	"figure{margin:1em 0}img{max-width:100%;height:auto;border:1px solid #ddd}"
	"figcaption{font-size:0.85em;color:#555}h1,h2,h3{color:#1f3f68}";

int sr_write_html(const struct sr_doc *d, const char *dir, FILE *err)
{
	struct sr_buf o = {0};
	const char *title = d->n && d->b[0].kind == SR_H ? d->b[0].text : "ratelab study";
	sr_puts(&o, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
	/* the page may load nothing: images from data: URIs, its style inline, no script */
	sr_puts(&o, "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
		    "img-src data:; style-src 'unsafe-inline'\">\n<title>");
	sr_html(&o, title);
	sr_printf(&o, "</title>\n<style>%s</style>\n</head>\n<body>\n", style);
	int rc = SR_OK;
	for (size_t i = 0; i < d->n && rc == SR_OK; i++) {
		const struct sr_block *b = &d->b[i];
		switch (b->kind) {
		case SR_H:
			sr_printf(&o, "<h%d>", b->level);
			sr_html(&o, b->text);
			sr_printf(&o, "</h%d>\n", b->level);
			break;
		case SR_P:
			sr_puts(&o, "<p>");
			sr_html(&o, b->text);
			sr_puts(&o, "</p>\n");
			break;
		case SR_LI:
			if (i == 0 || d->b[i - 1].kind != SR_LI)
				sr_puts(&o, "<ul>\n");
			sr_puts(&o, "<li>");
			sr_html(&o, b->text);
			sr_puts(&o, "</li>\n");
			if (i + 1 == d->n || d->b[i + 1].kind != SR_LI)
				sr_puts(&o, "</ul>\n");
			break;
		case SR_TABLE:
			html_table(&o, b);
			break;
		case SR_IMG:
			rc = html_img(&o, dir, b, err);
			break;
		}
	}
	sr_puts(&o, "</body>\n</html>\n");
	o.oom |= d->oom;
	char path[SR_PATH_MAX];
	sr_path(path, dir, "report.html");
	if (rc == SR_OK)
		rc = sr_buf_write(&o, path, err);
	sr_buf_free(&o);
	return rc;
}
