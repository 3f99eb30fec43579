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

#include "compat.h"
#include "lines.h"
#include "ratelab/parse.h"

enum { CLI_EXIT_OK = 0, CLI_EXIT_FAIL = 1, CLI_EXIT_USAGE = 2 };

/* The commands; each takes the arguments after its name. */
int cli_cmd_breaker(int argc, char **argv);
int cli_cmd_replay(int argc, char **argv);
int cli_cmd_check(int argc, char **argv);
int cli_cmd_sim(int argc, char **argv);
int cli_cmd_fleet(int argc, char **argv);
int cli_cmd_import(int argc, char **argv);
int cli_cmd_theory(int argc, char **argv);
int cli_cmd_study(int argc, char **argv);
int cli_cmd_compare(int argc, char **argv);
int cli_cmd_report(int argc, char **argv);

/*
 * Options. Each command describes its options in a table and parses argv
 * with cli_parse (getopt_long underneath): long options only, given as
 * "--name value" or "--name=value"; a flag as "--name" or
 * "--name=yes|no|true|false|1|0"; "-h" and "--help" print the command's
 * help; "--" ends the options; every other argument is positional ("-"
 * among them: standard input). An unknown option, a missing value, a value
 * given to a flag that is not one of those words, an option given twice or
 * too many positional arguments is a usage error naming it.
 */
enum cli_opt_kind { CLI_FLAG, CLI_VALUE };

struct cli_option {
	const char *name; /* without "--" */
	enum cli_opt_kind kind;
};

#define CLI_MAX_OPTS 24
#define CLI_MAX_POS 256

struct cli_args {
	/* Per option of the table: its value, "1" for a flag that is on; NULL when not given. */
	const char *value[CLI_MAX_OPTS];
	const char *pos[CLI_MAX_POS]; /* the positional arguments, in order */
	size_t npos;
};

/* cli_parse's answer when help was asked for: the caller prints it and exits 0. */
enum { CLI_HELP = -1 };

/*
 * Parses argv[0..argc) (the arguments after the command's name) against
 * opts[0..nopts), nopts <= CLI_MAX_OPTS, into *out, allowing at most
 * max_pos positional arguments. Returns CLI_EXIT_OK, CLI_HELP, or
 * CLI_EXIT_USAGE after printing the message.
 */
int cli_parse(const char *cmd, int argc, char **argv, const struct cli_option *opts, size_t nopts,
	      size_t max_pos, struct cli_args *out);

/*
 * Integer and duration option values, checked against [min, max]: on a bad
 * value, a usage error "--NAME 'TEXT' is not an integer", "... is out of
 * range [MIN, MAX]", or for a duration without a unit "... has no unit
 * (a duration needs one of ns, us, ms, s, m, h, e.g. 60s)". what names the
 * value ("--limit"). Return CLI_EXIT_OK or CLI_EXIT_USAGE.
 */
int cli_int(const char *cmd, const char *what, const char *text, int64_t min, int64_t max,
	    int64_t *out);
int cli_duration(const char *cmd, const char *what, const char *text, int64_t min_ns,
		 int64_t max_ns, int64_t *out_ns);

/*
 * A decider's name as --decider-name gives it (sim, study): 1 to
 * CLI_DECIDER_NAME_MAX of a-z, 0-9 and _; written to out (when not NULL)
 * as the subject's name "peer_NAME". CLI_EXIT_OK or a usage error.
 */
#define CLI_DECIDER_NAME_MAX 32
int cli_decider_name(const char *cmd, const char *name, char *out, size_t out_len);

/*
 * text quoted for a message by the one quoter, rl_quote (ratelab/parse.h):
 * at most CLI_QUOTE_MAX bytes of it. The result lives in one of 4 static
 * buffers, reused in turn: up to 4 may be used in one message.
 */
#define CLI_QUOTE_MAX SIM_QUOTE_MAX
const char *cli_quote(const char *text);

/*
 * Opens the input named by a positional argument: NULL or "-" is standard
 * input. Returns CLI_EXIT_OK or CLI_EXIT_USAGE after a message naming the
 * file and the reason.
 */
int cli_open_input(const char *cmd, const char *path, FILE **in);

/* Closes what cli_open_input opened (never stdin). */
void cli_close_input(FILE *in);

/* Prints "ratelab CMD: message" to stderr after flushing stdout; returns 2. */
int cli_usage_error(const char *cmd, const char *fmt, ...) RL_PRINTF(2, 3);

/*
 * sim_lines_next for a command's stdin that may be a pipe driven line by
 * line (`ratelab sim --decider 'ratelab replay ...'`): before it would wait
 * for more input, stdout is flushed, so the writer gets every answer to
 * what it wrote. A regular file is never polled: it streams through full
 * buffers, at one test per line.
 */
char *cli_lines_next(struct sim_lines *r);

/*
 * After the last line: CLI_EXIT_FAIL with a message if reading failed,
 * else status.
 */
int cli_lines_end(struct sim_lines *r, const char *cmd, int status);

/*
 * Flushes stdout: CLI_EXIT_FAIL after "ratelab CMD: write error: <stdout>:
 * REASON" if any write to it failed (said once per process), else status.
 */
int cli_output_end(const char *cmd, int status);

/* A write to stdout failed with errno e: the message above (once); CLI_EXIT_FAIL. */
int cli_stdout_error(const char *cmd, int e);

/* The program's last word on stdout: cli_output_end, then its close checked. */
int cli_output_close(const char *cmd, int status);

/* Stdout gets a large buffer: the commands stream millions of lines. */
void cli_stdout_buffered(void);

/*
 * The extra tier keys (registry.h) of the tier files that check and
 * replay load (rl_registry_load_with): the Redis backend's table
 * (rl_redis_tier_keys, alone: its base is 0) when the backend is built
 * in, else none (*keys NULL). Returns their count.
 */
struct rl_tier_key;
size_t cli_tier_keys(const struct rl_tier_key **keys);

#endif
