/*
 * cmd_check.c - `ratelab check [--config] [FILE] [--client ID]`: loads a
 * tiers file (no FILE, or "-": standard input) (registry.h) and prints the
 * rules it resolves to, one line per tier, per mapped client and for the
 * default, or with --client the one line of the tier ID gets; a bad file gets its
 * "FILE:LINE: problem" message and exit status 2. The file may hold the
 * extra keys of this build (cli_tier_keys), shown after the built-in ones.
 */
#include <string.h>

#include "cli.h"
#include "ratelab/registry.h"

static const char usage[] =
	"usage: ratelab check --config FILE [--client ID]\n"
	"       ratelab check [FILE] [--client ID]\n"
	"\n"
	"Validates a tiers file (format: examples/tiers.ini; no FILE, or '-': standard\n"
	"input) and prints, in order, each tier with every key it takes:\n"
	"  tier NAME algorithm=A limit=N window_ns=W burst=B on_error=E max_keys=K when_full=F\n"
#ifdef RATELAB_HAVE_REDIS
	"       redis_timeout_ms=T      (one line; T 0: the Redis connection's own)\n"
#endif
	"  tier NAME algorithm=A policy=P mode=M on_error=E ...   (policy = P, or mode = shadow:\n"
	"       P its rules, ':units' where they count the cost; M enforce or shadow)\n"
	"  tier NAME unlimited on_error=E\n"
	"  client ID tier=NAME          (sorted by id; ID may be a CIDR range)\n"
	"  default tier=NAME\n"
	"With --client ID it prints instead the one line 'client ID tier=NAME': the\n"
	"tier that client gets (its id, else the longest CIDR range holding it -- an\n"
	"address in any textual form, an IPv4-mapped IPv6 address ::ffff:a.b.c.d as\n"
	"its IPv4 address -- else the default).\n"
	"A bad file gets one message 'FILE:LINE: problem' on stderr and exit status 2.\n";

static const char *when_full_name(enum rl_when_full wf)
{
	return wf == RL_FULL_EVICT ? "evict" : wf == RL_FULL_FAIL_OPEN ? "fail_open" : "fail_closed";
}

/* A policy tier's rules as policy = P reads them (':units' where they count costs), and its mode. */
static void print_policy(const struct rl_tier *t)
{
	struct rl_policy p = { .count = t->policy->count };
	char buf[1024];

	for (size_t i = 0; i < p.count; i++) {
		p.rules[i] = t->policy->rules[i].rule;
		p.units[i] = t->policy->units[i];
	}
	printf("policy=%s mode=%s", rl_policy_format(&p, true, buf, sizeof(buf)), t->shadow ? "shadow" : "enforce");
}

enum { O_CONFIG, O_CLIENT, O_COUNT };

static const struct cli_option options[O_COUNT] = {
	[O_CONFIG] = { "config", CLI_VALUE },
	[O_CLIENT] = { "client", CLI_VALUE },
};

int cli_cmd_check(int argc, char **argv)
{
	struct cli_args a;
	const char *config;
	int status = cli_parse("check", argc, argv, options, O_COUNT, 1, &a);

	if (status == CLI_HELP) {
		fputs(usage, stdout);
		return cli_output_end("check", CLI_EXIT_OK);
	}
	if (status)
		return status;
	if (a.value[O_CONFIG] && a.npos)
		return cli_usage_error("check", "give the tiers file once: --config %s or %s",
				       cli_quote(a.value[O_CONFIG]), cli_quote(a.pos[0]));
	config = a.value[O_CONFIG] ? a.value[O_CONFIG] : a.npos ? a.pos[0] : "-";
	/* The registry reads a path; standard input has one on Linux. */
	bool from_stdin = strcmp(config, "-") == 0;

	struct rl_registry *r;
	const struct rl_tier_key *keys;
	size_t nkeys = cli_tier_keys(&keys);
	char err[512];
	int rc = rl_registry_load_with(&r, from_stdin ? "/dev/stdin" : config, keys, nkeys, err, sizeof(err));
	const char *shown = err;
	if (from_stdin && strncmp(err, "/dev/stdin", 10) == 0) {
		memcpy(err + 5, "-", 1); /* "/dev/stdin:3: x" -> "-:3: x" */
		shown = err + 5;
		memmove(err + 6, err + 10, strlen(err + 10) + 1);
	}
	if (rc == RL_ENOMEM) {
		fprintf(stderr, "ratelab check: %s\n", shown);
		return CLI_EXIT_FAIL;
	}
	if (rc)
		return cli_usage_error("check", "%s", shown);

	const char *client = a.value[O_CLIENT];
	if (client) {
		printf("client %s tier=%s\n", client, rl_registry_resolve(r, client, strlen(client))->name);
		rl_registry_destroy(r);
		return cli_output_end("check", CLI_EXIT_OK);
	}
	for (size_t i = 0; i < rl_registry_tier_count(r); i++) {
		const struct rl_tier *t = rl_registry_tier_at(r, i);
		const char *on_error = t->fail_closed ? "fail_closed" : "fail_open";
		if (t->unlimited) {
			printf("tier %s unlimited on_error=%s\n", t->name, on_error);
			continue;
		}
		const struct rl_rule *ru = &t->limiter.rule;
		printf("tier %s algorithm=%s ", t->name, t->limiter.algo->name);
		if (t->policy)
			print_policy(t);
		else
			printf("limit=%lld window_ns=%lld burst=%lld", (long long)ru->limit, (long long)ru->window_ns,
			       (long long)ru->burst);
		printf(" on_error=%s max_keys=%zu when_full=%s", on_error, t->max_keys, when_full_name(t->when_full));
		/* every extra key, given or not (0: the key's default) */
		for (size_t k = 0; k < nkeys; k++) {
			int64_t v;
			rl_tier_ext(t, k, &v);
			printf(" %s=%lld", keys[k].label ? keys[k].label : keys[k].name, (long long)v);
		}
		putchar('\n');
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
