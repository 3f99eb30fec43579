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

enum { RL_EXIT_OK = 0, RL_EXIT_FAIL = 1, RL_EXIT_USAGE = 2 };

/* The commands; each takes the arguments after its name. */
int rl_cmd_breaker(int argc, char **argv);
int rl_cmd_replay(int argc, char **argv);
int rl_cmd_check(int argc, char **argv);
int rl_cmd_sim(int argc, char **argv);

/* A decimal integer with no sign other than '-', no spaces, no overflow. */
bool rl_parse_i64(const char *s, int64_t *out);

/*
 * A duration: an integer with an optional unit ns, us, ms, s, m or h; a bare
 * integer is in bare_unit_ns. False on junk, a negative value or overflow.
 */
bool rl_parse_duration(const char *s, int64_t bare_unit_ns, int64_t *out_ns);

/*
 * Walks argv as "--name value" or "--name=value" options. Returns the
 * option's name (without "--") and sets *value (NULL for a flag given
 * without '='); returns NULL at the end. cur starts at 0.
 */
struct rl_opts {
	int argc;
	char **argv;
	int cur;
	const char *cmd;
};
const char *rl_opt_next(struct rl_opts *o, const char **value, bool takes_value(const char *));

/* Prints "ratelab CMD: message" to stderr after flushing stdout; returns 2. */
int rl_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Reads the next line that is neither blank nor a '#' comment. Returns the
 * line without its newline (valid until the next call) or NULL at the end;
 * *lineno counts every physical line.
 */
struct rl_lines {
	FILE *in;
	char *buf;
	size_t cap;
	long lineno;
};
char *rl_lines_next(struct rl_lines *r);
void rl_lines_free(struct rl_lines *r);

/* Stdout gets a large buffer: the commands stream millions of lines. */
void rl_stdout_buffered(void);

/*
 * Splits line in place at blanks into at most max tokens; returns how many
 * there were (max + 1 when there were more).
 */
int rl_split(char *line, char **tok, int max);

#endif
