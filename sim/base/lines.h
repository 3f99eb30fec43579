/*
 * lines.h - the line reader of the traces the engine and the commands
 * read: one line at a time, blank lines and '#' comments skipped, every
 * physical line counted, a NUL byte reported rather than read short, the
 * line ending (LF or CRLF) dropped, and a UTF-8 byte-order mark at the
 * start of the first line skipped (as in INI files).
 */
#ifndef RATELAB_SIM_LINES_H
#define RATELAB_SIM_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "ratelab/parse.h"

/*
 * Reads the next line that is neither blank (spaces and tabs only) nor a
 * '#' comment; on physical line 1, a leading EF BB BF (the UTF-8
 * byte-order mark) is not part of the line. Returns the line without its line ending, for the caller to
 * split in place, or NULL: at the end (feof(in)), on a read error
 * (ferror(in)) or out of memory (neither), which every caller must tell
 * apart, lest an input be silently cut short; text keeps an unmodified copy for
 * messages. Both are valid until the next call; lineno counts every
 * physical line. A line holding a NUL byte is returned with has_nul set:
 * the readers refuse it rather than read it short.
 */
struct sim_lines {
	FILE *in;
	char *buf, *text;
	size_t cap, text_cap;
	long lineno;
	long records;  /* the lines returned (neither blank nor a comment) */
	bool has_nul;
	/* Optional: handed each '#' comment line (no line ending) before it is
	 * skipped, e.g. a trace's "# ratelab trace:" line (trace.h); arg is
	 * comment_arg. Not called for data lines: the readers' loops pay nothing. */
	void (*on_comment)(void *arg, const char *line);
	void *comment_arg;
};
char *sim_lines_next(struct sim_lines *r);
void sim_lines_free(struct sim_lines *r);

/*
 * Splits line in place at blanks into at most max tokens; returns how many
 * there were (max + 1 when there were more).
 */
int sim_split(char *line, char **tok, int max);

/* text quoted for a message as every ratelab message quotes it: rl_quote
 * (ratelab/parse.h). A buf of SIM_QUOTE_SIZE bytes always holds it. */
#define SIM_QUOTE_MAX RL_QUOTE_MAX
#define SIM_QUOTE_SIZE RL_QUOTE_SIZE
const char *sim_quote(char *buf, const char *text);

#endif
