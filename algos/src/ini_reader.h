/*
 * ini_reader.h - the one reader and parser of ratelab's INI files (tier
 * configs, registry_load.c; simulator scenarios, sim/engine/sim_scenario.c).
 * Private to ratelab: not an installed header.
 *
 * rl__ini_read_line reads one physical line and counts it; it refuses,
 * naming the line and stopping the parse: a line longer than the buffer
 * (num - 1 characters, its newline not counted), a NUL
 * byte (C strings would cut the line short silently), an indented key or
 * section (an INI reader that continues values over lines would take it
 * for the previous value's continuation),
 * a section header without ']' or with text after it (a comment may
 * follow), and a read error (told apart from the end of the file). A
 * UTF-8 byte order mark on line 1 is skipped. Each section header is
 * reported to on_section, with its name trimmed, before the parser sees the line,
 * so even a section holding no key is seen with its line.
 */
#ifndef RATELAB_INI_READER_H
#define RATELAB_INI_READER_H

#include <stdbool.h>
#include <stdio.h>

struct rl__ini_reader {
	/* Set by the caller. */
	FILE *f;
	/* Called on each section header; returning false stops the parse. May be NULL. */
	bool (*on_section)(void *arg, const char *name, long line);
	void *arg;
	const bool *stop; /* when set and true, the next call stops the parse (NULL: never) */
	/* Kept by the reader. */
	long lineno;      /* physical lines read so far */
	long error_line;  /* the line the reader refused or could not read; 0: none */
	char error[96];   /* why, without file and line */
};

/* One line into str[0..num): stream is a struct rl__ini_reader. NULL at
 * the end or when stopped. */
char *rl__ini_read_line(char *str, int num, void *stream);

/* The longest line rl__ini_parse takes, characters, its newline not counted. */
#define RL_INI_LINE_MAX 65535

/* Called for each "name = value" (or "name: value") of a section: 0 marks
 * the line as an error. */
typedef int rl__ini_handler(void *user, const char *section, const char *name, const char *value);

/*
 * Parses r's lines (rl__ini_read_line, lines up to RL_INI_LINE_MAX) in the
 * common INI dialect (inih's defaults, which ratelab used before):
 * "[section]" headers; "name = value" or
 * "name: value", name and value trimmed; whole-line comments starting with
 * ';' or '#'; a ';' after whitespace starts a comment at the line's end;
 * blank lines skipped. Returns 0, the number of the first line in error
 * (a line of neither form, a handler that answered 0; the parse goes on
 * unless r->stop says otherwise), or -2 when out of memory. A refusal of
 * the reader ends the parse with r->error_line set (the caller tells it).
 */
int rl__ini_parse(struct rl__ini_reader *r, rl__ini_handler *handler, void *user);

#endif
