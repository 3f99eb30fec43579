/*
 * cmd_replay.c - `ratelab replay --algo A --limit N --window W [--burst B]
 * [--explain]`: decides each line "T KEY" of stdin (T in ns) with the
 * chosen algorithm, one state per KEY, and prints 1 (allowed) or 0
 * (rejected) per request; --explain adds the answer's fields.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "keymap.h"
#include "ratelab/algo.h"

static const char usage[] =
	"usage: ratelab replay --algo A --limit N --window W [--burst B] [--explain]\n"
	"\n"
	"Reads lines 'T KEY' (T: integer ns in [0, 4*10^18]; KEY: any non-blank token)\n"
	"and prints per request 1 (allowed) or 0 (rejected).\n"
	"  --algo A     token_bucket, gcra, leaky_bucket, fixed_window, sliding_log,\n"
	"               sliding_counter\n"
	"  --limit N    requests per window, 1..10^6\n"
	"  --window W   window; an integer with unit ns, us, ms, s, m or h (bare: ns)\n"
	"  --burst B    bucket capacity for token_bucket, gcra, leaky_bucket (default N)\n"
	"  --explain    add remaining=, retry_after_ns=, reset_ns= (and delay_ns= for\n"
	"               leaky_bucket)\n"
	"Blank lines and lines starting with # are skipped.\n";

static bool takes_value(const char *name)
{
	return strcmp(name, "help") != 0 && strcmp(name, "explain") != 0;
}

struct replay_opts {
	const char *algo;
	const char *limit, *window, *burst;
	bool explain;
};

static int parse_opts(int argc, char **argv, struct replay_opts *ro)
{
	struct rl_opts o = { argc, argv, 0, "replay" };
	const char *name, *val;

	while ((name = rl_opt_next(&o, &val, takes_value))) {
		const char **dst = strcmp(name, "algo") == 0     ? &ro->algo
				   : strcmp(name, "limit") == 0  ? &ro->limit
				   : strcmp(name, "window") == 0 ? &ro->window
				   : strcmp(name, "burst") == 0  ? &ro->burst
								 : NULL;
		if (strcmp(name, "help") == 0) {
			fputs(usage, stdout);
			return -1;
		}
		if (strcmp(name, "explain") == 0 && !val) {
			ro->explain = true;
			continue;
		}
		if (!dst)
			return rl_usage_error("replay", "unknown option or argument '%s' (see --help)",
					      o.argv[o.cur - 1]);
		if (!val)
			return rl_usage_error("replay", "option --%s needs a value", name);
		*dst = val;
	}
	return RL_EXIT_OK;
}

static int make_limiter(const struct replay_opts *ro, struct rl_limiter *lim)
{
	struct rl_rule rule;
	char msg[160];

	if (!ro->algo || !ro->limit || !ro->window)
		return rl_usage_error("replay", "--algo, --limit and --window are required (see --help)");
	const struct rl_algo *algo = rl_algo_find(ro->algo);
	if (!algo)
		return rl_usage_error("replay", "unknown algorithm '%s' (token_bucket, gcra, leaky_bucket, "
				      "fixed_window, sliding_log, sliding_counter)", ro->algo);
	if (!rl_parse_i64(ro->limit, &rule.limit))
		return rl_usage_error("replay", "--limit '%s' is not an integer", ro->limit);
	if (!rl_parse_duration(ro->window, 1, &rule.window_ns))
		return rl_usage_error("replay", "--window '%s' is not a duration (an integer with unit ns, "
				      "us, ms, s, m or h)", ro->window);
	rule.burst = rule.limit;
	if (ro->burst && !rl_parse_i64(ro->burst, &rule.burst))
		return rl_usage_error("replay", "--burst '%s' is not an integer", ro->burst);
	if (rl_limiter_init(lim, algo, &rule, msg, sizeof(msg)))
		return rl_usage_error("replay", "%s", msg);
	return RL_EXIT_OK;
}

static void release_state(void *state, void *lim)
{
	rl_limiter_release(lim, state);
}

int rl_cmd_replay(int argc, char **argv)
{
	struct replay_opts ro = { 0 };
	struct rl_limiter lim;
	int status = parse_opts(argc, argv, &ro);

	if (status)
		return status < 0 ? RL_EXIT_OK : status;
	if ((status = make_limiter(&ro, &lim)))
		return status;

	struct rl_keymap keys;
	if (rl_keymap_init(&keys, lim.algo->state_size)) {
		fputs("ratelab replay: out of memory\n", stderr);
		return RL_EXIT_FAIL;
	}

	struct rl_lines in = { .in = stdin };
	char *line, copy[256], *tok[2];
	bool leaky = lim.algo == &rl_leaky_bucket_algo;

	rl_stdout_buffered();
	while ((line = rl_lines_next(&in))) {
		snprintf(copy, sizeof(copy), "%s", line);
		int64_t t;

		if (rl_split(line, tok, 2) != 2) {
			status = rl_usage_error("replay", "line %ld: '%s': expected 'T KEY'", in.lineno, copy);
			break;
		}
		if (!rl_parse_i64(tok[0], &t) || t < 0 || t > RL_TIME_MAX_NS) {
			status = rl_usage_error("replay", "line %ld: '%s': time '%s' is not an integer number of ns in [0, %lld]",
						in.lineno, copy, tok[0], RL_TIME_MAX_NS);
			break;
		}
		void *state = rl_keymap_get(&keys, tok[1], strlen(tok[1]));
		struct rl_decision d;
		int rc = state ? rl_limiter_check(&lim, state, t, ro.explain ? &d : NULL) : RL_ENOMEM;
		if (rc < 0) {
			fflush(stdout);
			fprintf(stderr, "ratelab replay: line %ld: %s\n", in.lineno, rl_strerror(rc));
			status = RL_EXIT_FAIL;
			break;
		}
		if (!ro.explain) {
			fputs(rc ? "1\n" : "0\n", stdout);
			continue;
		}
		printf("%d remaining=%lld retry_after_ns=%lld reset_ns=%lld", rc, (long long)d.remaining,
		       (long long)d.retry_after_ns, (long long)d.reset_ns);
		if (leaky)
			printf(" delay_ns=%lld", (long long)d.delay_ns);
		putchar('\n');
	}
	rl_lines_free(&in);
	rl_keymap_each(&keys, release_state, &lim);
	rl_keymap_destroy(&keys);
	if (fflush(stdout) != 0 && status == RL_EXIT_OK)
		status = RL_EXIT_FAIL;
	return status;
}
