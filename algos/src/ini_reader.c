/*
 * ini_reader.c - model: getc up to the newline into the caller's buffer,
 * noting what a buffer-sized fgets would hide (overflow, NUL bytes) and
 * refusing it; one call is one physical line, so lineno is exact. The
 * parser splits each line read as the common INI dialect does. Invariant: every
 * line parsed was read whole, and after a refusal or a read error no
 * further line is returned.
 */
#include "ini_reader.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static char *refuse(struct rl__ini_reader *r, long line, const char *why, const char *detail)
{
	r->error_line = line;
	snprintf(r->error, sizeof(r->error), "%s%s", why, detail ? detail : "");
	return NULL;
}

/* A header line (from '[', trimmed at the end): reports its name. */
static bool section(struct rl__ini_reader *r, const char *line)
{
	const char *end = strchr(line, ']');
	char name[256];

	if (!end)
		return refuse(r, r->lineno, "section header without ']'", NULL), false;
	const char *rest = end + 1 + strspn(end + 1, " \t\r");
	if (*rest && *rest != ';' && *rest != '#') {
		r->error_line = r->lineno;
		snprintf(r->error, sizeof(r->error), "text after the section header: '%s'", rest);
		return false;
	}
	const char *s = line + 1 + strspn(line + 1, " \t");
	size_t n = (size_t)(end - s);
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	if (n >= sizeof(name))
		return refuse(r, r->lineno, "section name too long", NULL), false;
	memcpy(name, s, n);
	name[n] = '\0';
	return !r->on_section || r->on_section(r->arg, name, r->lineno);
}

char *rl__ini_read_line(char *str, int num, void *stream)
{
	struct rl__ini_reader *r = stream;
	size_t n = 0, max = num > 1 ? (size_t)num - 1 : 0;
	bool too_long = false, nul = false;
	int c;

	if (r->error_line || (r->stop && *r->stop))
		return NULL;
	while ((c = getc(r->f)) != EOF && c != '\n') {
		nul |= c == '\0';
		if (n < max)
			str[n++] = (char)c;
		else
			too_long = true;
	}
	if (ferror(r->f))
		return refuse(r, r->lineno + 1, "cannot read: ", strerror(errno));
	if (c == EOF && n == 0 && !too_long)
		return NULL;
	r->lineno++;
	if (too_long) {
		char limit[48];
		snprintf(limit, sizeof(limit), "%zu characters", max);
		return refuse(r, r->lineno, "line longer than ", limit);
	}
	if (nul)
		return refuse(r, r->lineno, "NUL byte in the line", NULL);
	if (r->lineno == 1 && n >= 3 && memcmp(str, "\xEF\xBB\xBF", 3) == 0) {
		memmove(str, str + 3, n - 3);
		n -= 3;
	}
	str[n] = '\0';
	/* The parser skips every isspace() byte before a line's text (\v and
	 * \f too), so all of them count as indentation: a "\v[traffic x]"
	 * header would otherwise reach it without passing through section(). */
	size_t indent = 0;
	while (str[indent] && isspace((unsigned char)str[indent]))
		indent++;
	if (indent && !strchr(";#\r", str[indent]) && str[indent])
		return refuse(r, r->lineno, "indented line (keys and sections start in column 1; values do "
			      "not continue over lines)", NULL);
	if (str[0] == '[' && !section(r, str))
		return NULL;
	if (n < max)
		str[n++] = '\n';
	str[n] = '\0';
	return str;
}

/* s without its trailing whitespace (in place). */
static char *rstrip(char *s)
{
	size_t n = strlen(s);

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

static char *lskip(char *s)
{
	while (*s && isspace((unsigned char)*s))
		s++;
	return s;
}

/* The first of chars in s (any, for chars NULL), or the start of a
 * comment (';' after whitespace), or s's end. */
static char *find_chars_or_comment(char *s, const char *chars)
{
	bool was_space = false;

	while (*s && (!chars || !strchr(chars, *s)) && !(was_space && *s == ';')) {
		was_space = isspace((unsigned char)*s);
		s++;
	}
	return s;
}

int rl__ini_parse(struct rl__ini_reader *r, rl__ini_handler *handler, void *user)
{
	char *line = malloc(RL_INI_LINE_MAX + 1);
	char section[256] = "";
	int error = 0;

	if (!line)
		return -2;
	while (rl__ini_read_line(line, RL_INI_LINE_MAX + 1, r)) {
		char *start = lskip(rstrip(line)), *end;
		int lineno = (int)r->lineno;

		if (*start == ';' || *start == '#' || !*start)
			continue;
		if (*start == '[') {
			/* the reader checked the header and reported it */
			end = strchr(start + 1, ']');
			*end = '\0';
			snprintf(section, sizeof(section), "%s", rstrip(lskip(start + 1)));
			continue;
		}
		end = find_chars_or_comment(start, "=:");
		if (*end != '=' && *end != ':') {
			if (!error)
				error = lineno;
			continue;
		}
		*end = '\0';
		char *name = rstrip(start), *value = end + 1;
		end = find_chars_or_comment(value, NULL);
		*end = '\0';
		value = rstrip(lskip(value));
		if (!handler(user, section, name, value) && !error)
			error = lineno;
	}
	free(line);
	return error;
}
