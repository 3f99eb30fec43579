/*
 * cli.c - parsing and I/O helpers shared by the ratelab commands.
 */
#include "cli.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const char *rl_opt_next(struct rl_opts *o, const char **value, bool takes_value(const char *))
{
	static char name[64];

	if (o->cur >= o->argc)
		return NULL;
	const char *arg = o->argv[o->cur++];
	if (strcmp(arg, "-h") == 0) {
		*value = NULL;
		return "help";
	}
	if (strncmp(arg, "--", 2) != 0 || !arg[2]) {
		*value = arg;
		return ""; /* a positional argument */
	}
	const char *eq = strchr(arg, '=');
	size_t len = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
	if (len >= sizeof(name))
		len = sizeof(name) - 1;
	memcpy(name, arg + 2, len);
	name[len] = '\0';
	if (eq)
		*value = eq + 1;
	else if (takes_value(name) && o->cur < o->argc && strncmp(o->argv[o->cur], "--", 2) != 0)
		*value = o->argv[o->cur++];
	else
		*value = NULL;
	return name;
}

bool rl_opt_all_but_help(const char *name)
{
	return strcmp(name, "help") != 0;
}

int rl_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "ratelab %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return RL_EXIT_USAGE;
}

/*
 * True when the next read of in would wait for its writer: nothing left in
 * the stream's buffer (glibc's read pointers; elsewhere assumed empty) and
 * nothing ready on its descriptor. A file is always ready, so a replay of a
 * file polls once per buffer refill, not per line.
 */
static bool input_would_block(FILE *in)
{
#ifdef __GLIBC__
	if (in->_IO_read_ptr < in->_IO_read_end)
		return false;
#endif
	struct pollfd p = { .fd = fileno(in), .events = POLLIN };
	return p.fd >= 0 && poll(&p, 1, 0) == 0;
}

char *rl_lines_next(struct rl_lines *r)
{
	ssize_t n;

	for (;;) {
		/* answers written so far go out before we wait: a writer waiting for them can go on
		 * (a failed flush leaves stdout's error flag for rl_output_end) */
		if (input_would_block(r->in))
			fflush(stdout);
		if ((n = getline(&r->buf, &r->cap, r->in)) < 0)
			break;
		r->lineno++;
		while (n > 0 && (r->buf[n - 1] == '\n' || r->buf[n - 1] == '\r'))
			r->buf[--n] = '\0';
		if ((size_t)n + 1 > r->text_cap) {
			char *text = realloc(r->text, (size_t)n + 1);
			if (!text)
				return NULL; /* reported as a read failure by rl_lines_end */
			r->text = text;
			r->text_cap = (size_t)n + 1;
		}
		memcpy(r->text, r->buf, (size_t)n + 1);
		r->has_nul = memchr(r->buf, '\0', (size_t)n) != NULL;
		const char *p = r->buf + strspn(r->buf, " \t");
		if (r->has_nul || (*p && *p != '#'))
			return r->buf;
	}
	return NULL;
}

void rl_lines_free(struct rl_lines *r)
{
	free(r->buf);
	free(r->text);
	r->buf = r->text = NULL;
	r->cap = r->text_cap = 0;
}

int rl_lines_end(struct rl_lines *r, const char *cmd, int status)
{
	if (status != RL_EXIT_OK || (!ferror(r->in) && feof(r->in)))
		return status;
	fflush(stdout);
	fprintf(stderr, "ratelab %s: reading input after line %ld: %s\n", cmd, r->lineno,
		ferror(r->in) ? strerror(errno) : "out of memory");
	return RL_EXIT_FAIL;
}

int rl_output_end(const char *cmd, int status)
{
	if (fflush(stdout) == 0)
		return status;
	fprintf(stderr, "ratelab %s: writing output: %s\n", cmd, strerror(errno));
	return RL_EXIT_FAIL;
}

void rl_stdout_buffered(void)
{
	static char buf[1 << 16];

	setvbuf(stdout, buf, _IOFBF, sizeof(buf));
}

int rl_split(char *line, char **tok, int max)
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
