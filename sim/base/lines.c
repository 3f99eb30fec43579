/*
 * lines.c - model: getline() into a buffer that only grows; the copy in
 * text is what messages quote, so a caller may split buf in place. The
 * byte-order mark is cut from buf before the copy, so neither holds it.
 */
#include "lines.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

char *sim_lines_next(struct sim_lines *r)
{
	ssize_t n;

	while ((n = getline(&r->buf, &r->cap, r->in)) >= 0) {
		r->lineno++;
		while (n > 0 && (r->buf[n - 1] == '\n' || r->buf[n - 1] == '\r'))
			r->buf[--n] = '\0';
		if (r->lineno == 1 && n >= 3 && memcmp(r->buf, "\xEF\xBB\xBF", 3) == 0) {
			n -= 3;
			memmove(r->buf, r->buf + 3, (size_t)n + 1);
		}
		if ((size_t)n + 1 > r->text_cap) {
			char *text = realloc(r->text, (size_t)n + 1);
			if (!text)
				return NULL; /* out of memory: the caller sees neither feof nor ferror */
			r->text = text;
			r->text_cap = (size_t)n + 1;
		}
		memcpy(r->text, r->buf, (size_t)n + 1);
		r->has_nul = memchr(r->buf, '\0', (size_t)n) != NULL;
		const char *p = r->buf + strspn(r->buf, " \t");
		if (r->has_nul || (*p && *p != '#')) {
			r->records++;
			return r->buf;
		}
		if (*p == '#' && r->on_comment)
			r->on_comment(r->comment_arg, r->buf);
	}
	return NULL;
}

void sim_lines_free(struct sim_lines *r)
{
	free(r->buf);
	free(r->text);
	r->buf = r->text = NULL;
	r->cap = r->text_cap = 0;
}

int sim_split(char *line, char **tok, int max)
{
	int n = 0;
	char *p = line;

	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			return n;
		if (n == max)
			return max + 1;
		tok[n++] = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		if (*p)
			*p++ = '\0';
	}
}

const char *sim_quote(char *buf, const char *text)
{
	return rl_quote(buf, text);
}
