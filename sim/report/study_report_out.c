/*
 * study_report_out.c - the report document as REPORT.md (GitHub-flavoured
 * Markdown, the charts linked as plots/NAME.png, all text from the document
 * escaped by sr_md), and report.html made from that Markdown by the page
 * layer both reports share (report_html.h).
 */
#include "report_html.h"
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

/* The document as REPORT.md's Markdown into o. */
static void render_md(const struct sr_doc *d, struct sr_buf *o)
{
	for (size_t i = 0; i < d->n; i++) {
		const struct sr_block *b = &d->b[i];
		switch (b->kind) {
		case SR_H:
			sr_printf(o, "%.*s ", b->level, "###");
			sr_md(o, b->text);
			sr_puts(o, "\n\n");
			break;
		case SR_P:
			sr_md(o, b->text);
			sr_puts(o, "\n\n");
			break;
		case SR_LI:
			sr_puts(o, "- ");
			sr_md(o, b->text);
			sr_puts(o, i + 1 < d->n && d->b[i + 1].kind == SR_LI ? "\n" : "\n\n");
			break;
		case SR_TABLE:
			md_table(o, b);
			break;
		case SR_IMG:
			sr_puts(o, "![");
			sr_md(o, b->text);
			sr_printf(o, "](%s)\n\n", b->file);
			break;
		}
	}
	o->oom |= d->oom;
}

int sr_write(const struct sr_doc *d, const char *dir, FILE *err)
{
	struct sr_buf md = {0}, html = {0};
	char path[SR_PATH_MAX];
	render_md(d, &md);
	/* the page from the same Markdown, through the layer the bench report's page uses */
	const char *title = d->n && d->b[0].kind == SR_H ? d->b[0].text : "ratelab study";
	struct rp_page page = { .title = title, .dir = dir, .who = SR_WHO, .missing_ok = false, .err = err };
	int rc = md.oom ? SR_OK : rp_html_page(&page, md.p ? md.p : "", &html) ? SR_FAIL : SR_OK;
	sr_path(path, dir, "REPORT.md");
	if (rc == SR_OK)
		rc = sr_buf_write(&md, path, err);
	sr_path(path, dir, "report.html");
	if (rc == SR_OK)
		rc = sr_buf_write(&html, path, err);
	sr_buf_free(&md);
	sr_buf_free(&html);
	return rc;
}
