/*
 * cli.h - what the ratelab commands share: strict number and duration
 * parsing, option lookup, and the input line reader.
 *
 * Exit statuses: 0 success, 2 bad usage or bad input (one message on
 * stderr naming the line and the offending text, after stdout is flushed),
 * 1 a failure of the machine (out of memory, I/O).
 */
#ifndef RATELAB_CLI_H
#define RATELAB_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ratelab/parse.h"

enum { RL_EXIT_OK = 0, RL_EXIT_FAIL = 1, RL_EXIT_USAGE = 2 };

/* The commands; each takes the arguments after its name. */
int rl_cmd_breaker(int argc, char **argv);
int rl_cmd_replay(int argc, char **argv);
int rl_cmd_check(int argc, char **argv);
int rl_cmd_sim(int argc, char **argv);

/*
 * Walks argv as "--name value" or "--name=value" options ("-h" is "help").
 * Returns the option's name without "--" (in a buffer valid until the next
 * call), "" for a positional argument (then *value is the argument), or
 * NULL at the end. *value is NULL for a flag, or for an option that takes a
 * value but has none (the next argument is missing or is itself an option).
 * cur starts at 0.
 */
struct rl_opts {
	int argc;
	char **argv;
	int cur;
};
const char *rl_opt_next(struct rl_opts *o, const char **value, bool takes_value(const char *));

/* A takes_value for commands whose every option but --help takes a value. */
bool rl_opt_all_but_help(const char *name);

/* Prints "ratelab CMD: message" to stderr after flushing stdout; returns 2. */
int rl_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Reads the next line that is neither blank (spaces and tabs only) nor a
 * '#' comment. Returns the line without its line ending, for the caller to
 * split in place, or NULL at the end; text keeps an unmodified copy for
 * messages. Both are valid until the next call; lineno counts every
 * physical line. A line holding a NUL byte is returned with has_nul set:
 * the commands refuse it rather than read it short. Before it would wait
 * for more input (a pipe with nothing ready), it flushes stdout, so a
 * command driven line by line (`ratelab sim --decider`) gets each answer
 * while a file still streams through full buffers.
 */
struct rl_lines {
	FILE *in;
	char *buf, *text;
	size_t cap, text_cap;
	long lineno;
	bool has_nul;
};
char *rl_lines_next(struct rl_lines *r);
void rl_lines_free(struct rl_lines *r);

/*
 * After the last line: RL_EXIT_FAIL with a message if reading failed,
 * else status.
 */
int rl_lines_end(struct rl_lines *r, const char *cmd, int status);

/*
 * Flushes stdout: RL_EXIT_FAIL with a message if writing failed, else
 * status.
 */
int rl_output_end(const char *cmd, int status);

/* Stdout gets a large buffer: the commands stream millions of lines. */
void rl_stdout_buffered(void);

/*
 * Splits line in place at blanks into at most max tokens; returns how many
 * there were (max + 1 when there were more).
 */
int rl_split(char *line, char **tok, int max);

#endif
