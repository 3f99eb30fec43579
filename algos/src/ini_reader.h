/*
 * ini_reader.h - the one line reader of ratelab's INI files (tier configs,
 * registry_load.c; simulator scenarios, sim/sim_scenario.c), handed to
 * inih's ini_parse_stream. Private to ratelab: not an installed header.
 *
 * Each call reads one physical line and counts it; it refuses, naming the
 * line and stopping the parse: a line longer than inih's buffer (num - 1
 * characters, its newline not counted; inih would split it in two), a NUL
 * byte (C strings would cut the line short silently), an indented key or
 * section (inih would read it as the continuation of the previous value),
 * a section header without ']' or with text after it (a comment may
 * follow), and a read error (told apart from the end of the file). A
 * UTF-8 byte order mark on line 1 is skipped. Each section header is
 * reported to on_section, with its name trimmed, before inih sees the line,
 * so even a section holding no key is seen with its line.
 */
#ifndef RATELAB_INI_READER_H
#define RATELAB_INI_READER_H

#include <stdbool.h>
#include <stdio.h>

struct rl_ini_reader {
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

/* inih's ini_reader: stream is a struct rl_ini_reader. NULL at the end or when stopped. */
char *rl_ini_read_line(char *str, int num, void *stream);

#endif
