/*
 * cmd_check.c - `ratelab check --config FILE`: loads a tiers file
 * (registry.h) and prints the rules it resolves to, one line per tier,
 * per mapped client and for the default; a bad file gets its
 * "FILE:LINE: problem" message and exit status 2.
 */
#include <string.h>

#include "cli.h"
#include "ratelab/registry.h"

static const char usage[] =
	"usage: ratelab check --config FILE\n"
	"\n"
	"Validates a tiers file (format: examples/tiers.ini) and prints, in order:\n"
	"  tier NAME algorithm=A limit=N window_ns=W burst=B on_error=E max_keys=K when_full=F\n"
	"  tier NAME unlimited on_error=E\n"
	"  client ID tier=NAME          (sorted by id)\n"
	"  default tier=NAME\n"
	"A bad file gets one message 'FILE:LINE: problem' on stderr and exit status 2.\n";

static const char *when_full_name(enum rl_when_full wf)
{
	return wf == RL_FULL_EVICT ? "evict" : wf == RL_FULL_FAIL_OPEN ? "fail_open" : "fail_closed";
}

int cli_cmd_check(int argc, char **argv)
{
	struct cli_opts o = { argc, argv, 0 };
	const char *name, *val, *config = NULL;
	int at; /* index of the argument being parsed, for messages */

	while ((at = o.cur, name = cli_opt_next(&o, &val, cli_opt_all_but_help))) {
		if (strcmp(name, "help") == 0) {
			fputs(usage, stdout);
			return CLI_EXIT_OK;
		}
		if (strcmp(name, "config") != 0)
			return cli_usage_error("check", "unknown option or argument '%s' (see --help)",
					      o.argv[at]);
		if (!val)
			return cli_usage_error("check", "option --config needs a value");
		config = val;
	}
	if (!config)
		return cli_usage_error("check", "--config FILE is required (see --help)");

	struct rl_registry *r;
	char err[512];
	int rc = rl_registry_load(&r, config, err, sizeof(err));
	if (rc == RL_ENOMEM) {
		fprintf(stderr, "ratelab check: %s\n", err);
		return CLI_EXIT_FAIL;
	}
	if (rc)
		return cli_usage_error("check", "%s", err);

	for (size_t i = 0; i < rl_registry_tier_count(r); i++) {
		const struct rl_tier *t = rl_registry_tier_at(r, i);
		const char *on_error = t->fail_closed ? "fail_closed" : "fail_open";
		if (t->unlimited) {
			printf("tier %s unlimited on_error=%s\n", t->name, on_error);
			continue;
		}
		const struct rl_rule *ru = &t->limiter.rule;
		printf("tier %s algorithm=%s limit=%lld window_ns=%lld burst=%lld on_error=%s max_keys=%zu "
		       "when_full=%s\n", t->name, t->limiter.algo->name, (long long)ru->limit,
		       (long long)ru->window_ns, (long long)ru->burst, on_error, t->max_keys,
		       when_full_name(t->when_full));
	}
	for (size_t i = 0; i < rl_registry_client_count(r); i++) {
		const struct rl_tier *t;
		const char *id = rl_registry_client_at(r, i, &t);
		printf("client %s tier=%s\n", id, t->name);
	}
	printf("default tier=%s\n", rl_registry_default(r)->name);
	rl_registry_destroy(r);
	return cli_output_end("check", CLI_EXIT_OK);
}
