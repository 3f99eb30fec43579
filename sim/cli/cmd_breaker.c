/*
 * cmd_breaker.c - `ratelab breaker --limit L --window W --open O`: the
 * spec's circuit breaker driven by lines "handle T" / "state T" (T in
 * seconds) on stdin, one answer line per call in the spec's strings.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ratelab/breaker.h"
#include "ratelab/rule.h"

#define SPEC_MAX 1000000000LL /* the spec's bound on window, open time and timestamps, s */
#define NS_PER_S 1000000000LL

static const char usage[] =
	"usage: ratelab breaker --limit L --window W --open O\n"
	"\n"
	"Reads lines 'handle T' or 'state T' (T: integer seconds, 0..10^9,\n"
	"non-decreasing) and prints per call ALLOWED,STATE / REJECTED,STATE or STATE.\n"
	"  --limit L    accepted requests allowed in the window, 1..10^6\n"
	"  --window W   sliding window, seconds (or with unit s, m, h), 1..10^9 s\n"
	"  --open O     time spent OPEN before HALF_OPEN, same form\n"
	"Blank lines and lines starting with # are skipped.\n";

/* Parses a duration in whole seconds (bare integers are seconds). */
static bool parse_seconds(const char *s, int64_t *out)
{
	int64_t ns;

	if (!rl_parse_duration(s, NS_PER_S, &ns) || ns % NS_PER_S)
		return false;
	*out = ns / NS_PER_S;
	return true;
}

int cli_cmd_breaker(int argc, char **argv)
{
	struct cli_opts o = { argc, argv, 0 };
	int64_t limit = 0, window = 0, open_for = 0;
	const char *name, *val;
	int at; /* index of the argument being parsed, for messages */

	while ((at = o.cur, name = cli_opt_next(&o, &val, cli_opt_all_but_help))) {
		if (strcmp(name, "help") == 0) {
			fputs(usage, stdout);
			return CLI_EXIT_OK;
		}
		int64_t *dst = strcmp(name, "limit") == 0    ? &limit
			       : strcmp(name, "window") == 0 ? &window
			       : strcmp(name, "open") == 0   ? &open_for
							     : NULL;
		if (!dst)
			return cli_usage_error("breaker", "unknown option '%s' (see --help)", o.argv[at]);
		if (!val)
			return cli_usage_error("breaker", "option --%s needs a value", name);
		bool ok = dst == &limit ? rl_parse_i64(val, dst) : parse_seconds(val, dst);
		int64_t max = dst == &limit ? RL_LIMIT_MAX : SPEC_MAX;
		if (!ok || *dst < 1 || *dst > max)
			return cli_usage_error("breaker", "--%s '%s' is not %s in [1, %lld]", name, val,
					      dst == &limit ? "an integer" : "a whole number of seconds",
					      (long long)max);
	}
	if (!limit || !window || !open_for)
		return cli_usage_error("breaker", "--limit, --window and --open are required (see --help)");

	struct rl_breaker b;
	char msg[128];
	if (rl_breaker_init(&b, limit, window, open_for, msg, sizeof(msg)))
		return cli_usage_error("breaker", "%s", msg);

	struct sim_lines in = { .in = stdin };
	char *line, *tok[2];
	int status = CLI_EXIT_OK;

	cli_stdout_buffered();
	while (status == CLI_EXIT_OK && (line = sim_lines_next(&in))) {
		if (in.has_nul) {
			status = cli_usage_error("breaker", "line %ld: holds a NUL byte", in.lineno);
			break;
		}
		int n = sim_split(line, tok, 2);
		int64_t t;
		bool handle = n == 2 && strcmp(tok[0], "handle") == 0;

		if (n != 2 || (!handle && strcmp(tok[0], "state") != 0)) {
			status = cli_usage_error("breaker", "line %ld: '%s': expected 'handle T' or 'state T'",
						in.lineno, in.text);
			break;
		}
		if (!rl_parse_i64(tok[1], &t) || t < 0 || t > SPEC_MAX) {
			status = cli_usage_error("breaker", "line %ld: '%s': time '%s' is not an integer in [0, %lld]",
						in.lineno, in.text, tok[1], SPEC_MAX);
			break;
		}
		enum rl_breaker_state st;
		int rc = handle ? rl_breaker_handle(&b, t, &st) : rl_breaker_state_at(&b, t, &st);
		if (rc == RL_EORDER) {
			status = cli_usage_error("breaker", "line %ld: '%s': time %lld is before the previous call's %lld",
						in.lineno, in.text, (long long)t, (long long)b.last);
		} else if (rc < 0) {
			fflush(stdout);
			fprintf(stderr, "ratelab breaker: line %ld: %s\n", in.lineno, rl_strerror(rc));
			status = CLI_EXIT_FAIL;
		} else if (handle) {
			printf("%s,%s\n", rc == RL_ALLOWED ? "ALLOWED" : "REJECTED", rl_breaker_state_name(st));
		} else {
			puts(rl_breaker_state_name(st));
		}
	}
	status = cli_lines_end(&in, "breaker", status);
	sim_lines_free(&in);
	rl_breaker_destroy(&b);
	return cli_output_end("breaker", status);
}
