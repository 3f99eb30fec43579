/*
 * report_text.h - the reports' text, shared by the study report and the
 * bench report: a growable buffer whose appends cannot fail, the escapes
 * that make data bytes safe in Markdown, HTML, gnuplot strings and
 * messages, base64 for the pages' embedded charts, and the one writer of a
 * report's files (beside its name, then renamed).
 */
#ifndef RATELAB_SIM_REPORT_TEXT_H
#define RATELAB_SIM_REPORT_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "compat.h"

/* The longest path the reports build, NUL included. */
#define SR_PATH_MAX 4096
/* dir/name into out[SR_PATH_MAX]; false, out empty, when it does not fit. */
bool sr_path(char *out, const char *dir, const char *name);

/* ---- text buffer: appends never fail; oom is set instead, checked once at the end */
struct sr_buf {
	char *p; /* NUL-terminated when len > 0 */
	size_t len, cap;
	bool oom;
};
void sr_put(struct sr_buf *b, const char *s, size_t n);
void sr_puts(struct sr_buf *b, const char *s);
void sr_printf(struct sr_buf *b, const char *fmt, ...) RL_PRINTF(2, 3);
void sr_buf_free(struct sr_buf *b);
/*
 * Writes b to path: to PATH.part, created anew (an existing PATH.part is no
 * file of ours and is left alone: an error), then renamed over path. Returns
 * 0, or 1 after "WHO PATH: reason" on err (out of memory, a failed write or
 * close, a failed rename; PATH.part removed).
 */
int rp_write(const struct sr_buf *b, const char *path, const char *who, FILE *err);

/* ---- escapes. Bytes that are not valid UTF-8, and control bytes, become
 * the text \xNN (\n, \t, \r for those three) in every one of them. */
/* Markdown text (a table cell or a line): also \ ` * [ ] < > | # and a '_'
 * not inside a word escaped by '\'. */
void sr_md(struct sr_buf *b, const char *s);
/* HTML text or attribute value: & < > " ' as character references. */
void sr_html(struct sr_buf *b, const char *s);
/* The inside of a gnuplot single-quoted string ('' for '), for a noenhanced
 * terminal; at most max bytes of s, then "...(N bytes)". */
void sr_gp(struct sr_buf *b, const char *s, size_t max);
/* For a message: s quoted by rl_quote (ratelab/parse.h), at most RL_QUOTE_MAX bytes of it. */
void sr_quote(struct sr_buf *b, const char *s);
/* The same for a path: whole (RL_QUOTE_WHOLE), so the file's name stays. */
void sr_quote_path(struct sr_buf *b, const char *s);
/* RFC 4648 base64 of data[0..n). */
void sr_base64(struct sr_buf *b, const unsigned char *data, size_t n);

#endif
