/*
 * report_text.c - the reports' text (report_text.h): a growable buffer whose appends
 * cannot fail (an allocation failure is remembered and reported once, when
 * the buffer is written), and the escapes that make bytes from the data
 * (keys, algorithm and decider names, trace paths) safe in Markdown, HTML,
 * gnuplot strings and messages. Bytes that are not valid UTF-8, and
 * control bytes, are shown as \xNN everywhere, so the output is valid
 * UTF-8 and no data byte can end a table row, a tag or a string.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "report_text.h"

#include "ratelab/parse.h"

static bool reserve(struct sr_buf *b, size_t more)
{
	if (b->oom)
		return false;
	if (b->len + more + 1 <= b->cap)
		return true;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < b->len + more + 1) {
		if (cap > SIZE_MAX / 2) {
			b->oom = true;
			return false;
		}
		cap *= 2;
	}
	char *p = realloc(b->p, cap);
	if (!p) {
		b->oom = true;
		return false;
	}
	b->p = p;
	b->cap = cap;
	return true;
}

bool sr_path(char *out, const char *dir, const char *name)
{
	int n = snprintf(out, SR_PATH_MAX, "%s/%s", dir, name);
	if (n < 0 || n >= SR_PATH_MAX) {
		out[0] = '\0';
		return false;
	}
	return true;
}

void sr_put(struct sr_buf *b, const char *s, size_t n)
{
	if (!reserve(b, n))
		return;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void sr_puts(struct sr_buf *b, const char *s)
{
	sr_put(b, s, strlen(s));
}

void sr_printf(struct sr_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !reserve(b, (size_t)n)) {
		b->oom = true;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void sr_buf_free(struct sr_buf *b)
{
	free(b->p);
	*b = (struct sr_buf){0};
}

int rp_write(const struct sr_buf *b, const char *path, const char *who, FILE *err)
{
	char tmp[SR_PATH_MAX + 8], q[RL_QUOTE_SIZE_FOR(SR_PATH_MAX + 8)]; /* a path quoted whole */
	if (b->oom) {
		rl_quote_to(q, sizeof(q), path, RL_QUOTE_WHOLE);
		fprintf(err, "%s%s: out of memory\n", who, q);
		return 1;
	}
	/* written beside, then renamed: a reader never sees half a file */
	if (snprintf(tmp, sizeof(tmp), "%s.part", path) >= (int)sizeof(tmp)) {
		rl_quote_to(q, sizeof(q), path, RL_QUOTE_WHOLE);
		fprintf(err, "%s%s: the name is too long\n", who, q);
		return 1;
	}
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0644);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "wb");
	if (!f) {
		int e = errno;
		if (fd >= 0) {
			close(fd);
			remove(tmp);
		}
		rl_quote_to(q, sizeof(q), tmp, RL_QUOTE_WHOLE);
		fprintf(err, "%s%s: %s%s\n", who, q, strerror(e),
			e == EEXIST ? " (not written by ratelab: remove it if it is stale)" : "");
		return 1;
	}
	bool ok = fwrite(b->p ? b->p : "", 1, b->len, f) == b->len;
	int e = errno;
	if (fclose(f) != 0 && ok) {
		ok = false;
		e = errno;
	}
	if (ok && rename(tmp, path) != 0) {
		ok = false;
		e = errno;
	}
	if (!ok) {
		remove(tmp);
		rl_quote_to(q, sizeof(q), path, RL_QUOTE_WHOLE);
		fprintf(err, "%swrite error: %s: %s\n", who, q, strerror(e));
		return 1;
	}
	return 0;
}

/* Appends at most max bytes of s escaped for mode, then "...(N bytes)" if cut. */
enum esc_mode { ESC_MD, ESC_HTML, ESC_GP };

static void escape(struct sr_buf *b, const char *s, size_t max, enum esc_mode mode)
{
	const unsigned char *start = (const unsigned char *)s, *p = start;
	size_t total = strlen(s), done = 0;
	while (*p) {
		if (done >= max) {
			sr_printf(b, "...(%zu bytes)", total);
			return;
		}
		size_t n = rl_utf8_len((const char *)p, total - (size_t)(p - start));
		unsigned c = *p;
		if (n == 0 || c < 0x20 || c == 0x7f) {
			const char *name = c == '\n' ? "\\n" : c == '\t' ? "\\t" : c == '\r' ? "\\r" : NULL;
			if (name)
				sr_puts(b, name);
			else
				sr_printf(b, "\\x%02x", c);
			p++;
			done++;
			continue;
		}
		if (n > 1) {
			sr_put(b, (const char *)p, n);
			p += n;
			done += n;
			continue;
		}
		switch (mode) {
		case ESC_MD:
			/* '_' inside a word emphasises nothing (CommonMark), so names stay readable */
			if (strchr("\\`*[]<>|#", (int)c) ||
			    (c == '_' && !(p > start && isalnum(p[-1]) && isalnum(p[1]))))
				sr_put(b, "\\", 1);
			sr_put(b, (const char *)p, 1);
			break;
		case ESC_HTML:
			switch (c) {
			case '&': sr_puts(b, "&amp;"); break;
			case '<': sr_puts(b, "&lt;"); break;
			case '>': sr_puts(b, "&gt;"); break;
			case '"': sr_puts(b, "&quot;"); break;
			case '\'': sr_puts(b, "&#39;"); break;
			default: sr_put(b, (const char *)p, 1);
			}
			break;
		case ESC_GP:
			sr_put(b, (const char *)p, 1);
			if (c == '\'')
				sr_put(b, "'", 1);
			break;
		}
		p++;
		done++;
	}
}

void sr_md(struct sr_buf *b, const char *s)
{
	escape(b, s, SIZE_MAX, ESC_MD);
}

void sr_html(struct sr_buf *b, const char *s)
{
	escape(b, s, SIZE_MAX, ESC_HTML);
}

void sr_gp(struct sr_buf *b, const char *s, size_t max)
{
	escape(b, s, max, ESC_GP);
}

/* rl_quote_to's quote of at most max bytes of s, appended whole: the room it can take reserved first. */
static void quote(struct sr_buf *b, const char *s, size_t max)
{
	size_t len = strlen(s), size = RL_QUOTE_SIZE_FOR(len < max ? len : max);

	if (!reserve(b, size))
		return;
	b->len += rl_quote_to(b->p + b->len, size, s, max);
}

void sr_quote(struct sr_buf *b, const char *s)
{
	quote(b, s, RL_QUOTE_MAX);
}

void sr_quote_path(struct sr_buf *b, const char *s)
{
	quote(b, s, RL_QUOTE_WHOLE);
}

void sr_base64(struct sr_buf *b, const unsigned char *d, size_t n)
{
	static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	if (!reserve(b, (n + 2) / 3 * 4))
		return;
	char *o = b->p + b->len;
	size_t i = 0;
	for (; i + 3 <= n; i += 3) {
		uint32_t v = (uint32_t)d[i] << 16 | (uint32_t)d[i + 1] << 8 | d[i + 2];
		*o++ = abc[v >> 18];
		*o++ = abc[v >> 12 & 63];
		*o++ = abc[v >> 6 & 63];
		*o++ = abc[v & 63];
	}
	if (i < n) {
		uint32_t v = (uint32_t)d[i] << 16 | (i + 1 < n ? (uint32_t)d[i + 1] << 8 : 0);
		*o++ = abc[v >> 18];
		*o++ = abc[v >> 12 & 63];
		*o++ = i + 1 < n ? abc[v >> 6 & 63] : '=';
		*o++ = '=';
	}
	b->len = (size_t)(o - b->p);
	b->p[b->len] = '\0';
}
