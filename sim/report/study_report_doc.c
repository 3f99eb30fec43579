/*
 * study_report_doc.c - the report as a list of blocks (headings,
 * paragraphs, list items, tables, images) holding plain text: what the
 * report says is built once, and REPORT.md and report.html each render it,
 * escaping the text for their own syntax. An allocation failure sets oom
 * and drops the rest; the writers then fail with one message.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "study_report_int.h"

static char *vformat(const char *fmt, va_list ap)
{
	va_list cp;
	va_copy(cp, ap);
	int n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	char *s = n < 0 ? NULL : malloc((size_t)n + 1);
	if (s)
		vsnprintf(s, (size_t)n + 1, fmt, ap);
	return s;
}

static struct sr_block *add(struct sr_doc *d, enum sr_block_kind kind)
{
	if (d->oom)
		return NULL;
	struct sr_block *b = realloc(d->b, (d->n + 1) * sizeof(*b));
	if (!b) {
		d->oom = true;
		return NULL;
	}
	d->b = b;
	b = &d->b[d->n++];
	*b = (struct sr_block){.kind = kind};
	return b;
}

static void add_text(struct sr_doc *d, enum sr_block_kind kind, int level, const char *fmt, va_list ap)
{
	struct sr_block *b = add(d, kind);
	if (!b)
		return;
	b->level = level;
	b->text = vformat(fmt, ap);
	d->oom |= !b->text;
}

void sr_h(struct sr_doc *d, int level, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	add_text(d, SR_H, level, fmt, ap);
	va_end(ap);
}

void sr_p(struct sr_doc *d, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	add_text(d, SR_P, 0, fmt, ap);
	va_end(ap);
}

void sr_li(struct sr_doc *d, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	add_text(d, SR_LI, 0, fmt, ap);
	va_end(ap);
}

void sr_img(struct sr_doc *d, const char *file, const char *title)
{
	struct sr_block *b = add(d, SR_IMG);
	if (!b)
		return;
	b->file = strdup(file);
	b->text = strdup(title);
	d->oom |= !b->file || !b->text;
}

void sr_table(struct sr_doc *d, const char *align)
{
	struct sr_block *b = add(d, SR_TABLE);
	if (!b)
		return;
	b->ncols = strlen(align);
	b->align = strdup(align);
	d->oom |= !b->align;
}

void sr_cell(struct sr_doc *d, const char *fmt, ...)
{
	if (d->oom || d->n == 0 || d->b[d->n - 1].kind != SR_TABLE)
		return;
	struct sr_block *b = &d->b[d->n - 1];
	if ((b->ncells & (b->ncells - 1)) == 0) { /* grow at powers of two */
		char **c = realloc(b->cell, (b->ncells ? 2 * b->ncells : 1) * sizeof(*c));
		if (!c) {
			d->oom = true;
			return;
		}
		b->cell = c;
	}
	va_list ap;
	va_start(ap, fmt);
	char *s = vformat(fmt, ap);
	va_end(ap);
	if (!s) {
		d->oom = true;
		return;
	}
	b->cell[b->ncells++] = s;
}

void sr_doc_free(struct sr_doc *d)
{
	for (size_t i = 0; i < d->n; i++) {
		struct sr_block *b = &d->b[i];
		free(b->text);
		free(b->file);
		free(b->align);
		for (size_t k = 0; k < b->ncells; k++)
			free(b->cell[k]);
		free(b->cell);
	}
	free(d->b);
	*d = (struct sr_doc){0};
}
