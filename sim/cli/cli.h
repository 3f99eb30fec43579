/*
 * cli.h - what the ratelab commands share: option lookup, usage errors,
 * and how a command ends its input and its output. (Numbers and durations
 * are parsed by the library's parse.h, lines read by the engine's lines.h.)
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

#include "lines.h"
#include "ratelab/parse.h"

enum { CLI_EXIT_OK = 0, CLI_EXIT_FAIL = 1, CLI_EXIT_USAGE = 2 };

/* The commands; each takes the arguments after its name. */
int cli_cmd_breaker(int argc, char **argv);
int cli_cmd_replay(int argc, char **argv);
int cli_cmd_check(int argc, char **argv);
int cli_cmd_sim(int argc, char **argv);
int cli_cmd_fleet(int argc, char **argv);

/*
 * Walks argv as "--name value" or "--name=value" options ("-h" is "help").
 * Returns the option's name without "--" (in a buffer valid until the next
 * call), "" for a positional argument (then *value is the argument), or
 * NULL at the end. *value is NULL for a flag, or for an option that takes a
 * value but has none (the next argument is missing or is itself an option).
 * cur starts at 0.
 */
struct cli_opts {
	int argc;
	char **argv;
	int cur;
};
const char *cli_opt_next(struct cli_opts *o, const char **value, bool takes_value(const char *));

/* A takes_value for commands whose every option but --help takes a value. */
bool cli_opt_all_but_help(const char *name);

/* Prints "ratelab CMD: message" to stderr after flushing stdout; returns 2. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * After the last line: CLI_EXIT_FAIL with a message if reading failed,
 * else status.
 */
int cli_lines_end(struct sim_lines *r, const char *cmd, int status);

/*
 * Flushes stdout: CLI_EXIT_FAIL with a message if writing failed, else
 * status.
 */
int cli_output_end(const char *cmd, int status);

/* Stdout gets a large buffer: the commands stream millions of lines. */
void cli_stdout_buffered(void);

#endif
