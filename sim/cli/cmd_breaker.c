/*
 * cmd_breaker.c - `ratelab breaker --limit L --window W --open O [FILE]`:
 * the rate-limit circuit breaker driven by lines "handle T" / "state T"
 * (T in seconds) from FILE or standard input, one answer line per call.
 * Its durations are seconds, as the breaker's rules fix them: a bare number
 * is seconds here (and only here).
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ratelab/breaker.h"
#include "ratelab/rule.h"

#define SPEC_MAX 1000000000LL /* the spec's bound on window, open time and timestamps, s */
#define NS_PER_S 1000000000LL

static const char usage[] =
	"usage: ratelab breaker --limit L --window W --open O [FILE]\n"
	"\n"
	"Reads lines 'handle T' or 'state T' (T: integer seconds, 0..10^9,\n"
	"non-decreasing) from FILE, or standard input when FILE is absent or '-', and\n"
	"prints per call ALLOWED,STATE / REJECTED,STATE or STATE.\n"
	"  --limit L    accepted requests allowed in the window, 1..10^6\n"
	"  --window W   sliding window, seconds (or with unit s, m, h), 1..10^9 s\n"
	"  --open O     time spent OPEN before HALF_OPEN, same form\n"
	"Blank lines and lines starting with # are skipped.\n";

enum { O_LIMIT, O_WINDOW, O_OPEN, O_COUNT };

static const struct cli_option options[O_COUNT] = {
	[O_LIMIT] = { "limit", CLI_VALUE },
	[O_WINDOW] = { "window", CLI_VALUE },
	[O_OPEN] = { "open", CLI_VALUE },
};

/* A duration in whole seconds in [1, SPEC_MAX]: bare integers are seconds. */
static int parse_seconds(const char *what, const char *s, int64_t *out)
{
	static const char *const units[] = { "", "ns", "us", "ms", "s", "m", "h" };
	size_t digits = strspn(s, "0123456789");
	bool syntax = false;
	int64_t ns;

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		syntax = syntax || (digits > 0 && strcmp(s + digits, units[i]) == 0);
	if (!syntax)
		return cli_usage_error("breaker", "%s %s is not a duration (seconds: bare, or an integer "
				       "with unit ns, us, ms, s, m or h)", what, cli_quote(s));
	if (!rl_parse_duration(s, NS_PER_S, &ns) || ns / NS_PER_S < 1 || ns / NS_PER_S > SPEC_MAX)
		return cli_usage_error("breaker", "%s %s is out of range [1, %lld] seconds", what,
				       cli_quote(s), SPEC_MAX);
	if (ns % NS_PER_S)
		return cli_usage_error("breaker", "%s %s is not a whole number of seconds", what,
				       cli_quote(s));
	*out = ns / NS_PER_S;
	return CLI_EXIT_OK;
}

int cli_cmd_breaker(int argc, char **argv)
{
	struct cli_args a;
	int64_t limit, window, open_for;
	int status = cli_parse("breaker", argc, argv, options, O_COUNT, 1, &a);

	if (status == CLI_HELP) {
		fputs(usage, stdout);
		return cli_output_end("breaker", CLI_EXIT_OK);
	}
	if (status)
		return status;
	if (!a.value[O_LIMIT] || !a.value[O_WINDOW] || !a.value[O_OPEN])
		return cli_usage_error("breaker", "--limit, --window and --open are required (see --help)");
	if ((status = cli_int("breaker", "--limit", a.value[O_LIMIT], 1, RL_BREAKER_LIMIT_MAX, &limit)) ||
	    (status = parse_seconds("--window", a.value[O_WINDOW], &window)) ||
	    (status = parse_seconds("--open", a.value[O_OPEN], &open_for)))
		return status;

	struct rl_breaker b;
	char msg[128];
	if (rl_breaker_init(&b, limit, window, open_for, msg, sizeof(msg)))
		return cli_usage_error("breaker", "%s", msg);

	struct sim_lines in = { 0 };
	char *line, *tok[2];

	if ((status = cli_open_input("breaker", a.npos ? a.pos[0] : NULL, &in.in))) {
		rl_breaker_destroy(&b);
		return status;
	}

	cli_stdout_buffered();
	while (status == CLI_EXIT_OK && (line = cli_lines_next(&in))) {
		if (in.has_nul) {
			status = cli_usage_error("breaker", "line %ld: holds a NUL byte", in.lineno);
			break;
		}
		int n = sim_split(line, tok, 2);
		int64_t t;
		bool handle = n == 2 && strcmp(tok[0], "handle") == 0;

		if (n != 2 || (!handle && strcmp(tok[0], "state") != 0)) {
			status = cli_usage_error("breaker", "line %ld: %s: expected 'handle T' or 'state T'",
						in.lineno, cli_quote(in.text));
			break;
		}
		if (!rl_parse_i64(tok[1], &t) || t < 0 || t > SPEC_MAX) {
			status = cli_usage_error("breaker", "line %ld: %s: time %s is not an integer number of seconds in [0, %lld]",
						in.lineno, cli_quote(in.text), cli_quote(tok[1]), SPEC_MAX);
			break;
		}
		enum rl_breaker_state st;
		int rc = handle ? rl_breaker_handle(&b, t, &st) : rl_breaker_state_at(&b, t, &st);
		if (rc == RL_EORDER) {
			status = cli_usage_error("breaker", "line %ld: %s: time %lld is before the previous call's %lld",
						in.lineno, cli_quote(in.text), (long long)t, (long long)b.last);
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
	cli_close_input(in.in);
	sim_lines_free(&in);
	rl_breaker_destroy(&b);
	return cli_output_end("breaker", status);
}
