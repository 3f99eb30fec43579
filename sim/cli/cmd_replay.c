/*
 * cmd_replay.c - `ratelab replay --algo A --limit N --window W [--burst B]
 * [--explain] [--headers] [TRACE]` or `ratelab replay --config FILE ...
 * [TRACE]`: decides each line "T KEY [COST]" of TRACE (a file, or standard
 * input when absent or "-"; T in ns; COST the request's cost in units,
 * default 1) with the chosen algorithm (or KEY's tier), one state per KEY,
 * and prints 1 (allowed) or 0 (rejected) per request; --explain adds the
 * answer's fields, --headers the HTTP answer.
 * States are never dropped here: a replay is exact for any order of times.
 * With --redis the lines are decided in Redis instead (replay_redis.c).
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "compat.h"
#include "ratelab/algo.h"
#include "ratelab/http.h"
#include "ratelab/parse.h"
#include "ratelab/registry.h"
#include "replay.h"
#include "trace_line.h"

static const char usage[] =
	"usage: ratelab replay --algo A --limit N --window W [--burst B] [OPTIONS] [TRACE]\n"
	"       ratelab replay --algo A --policy P [OPTIONS] [TRACE]\n"
	"       ratelab replay --config FILE [OPTIONS] [TRACE]\n"
	"\n"
	"Reads lines 'T KEY [COST]' (T: integer ns in [0, 4*10^18]; KEY: any non-blank\n"
	"token; COST: the request's cost in units, an integer in [1, 10^12], default 1)\n"
	"or settle lines 'T KEY COST ACTUAL DONE_T' (the request, when admitted, settled\n"
	"to ACTUAL units in [0, 10^12] at DONE_T, not before T; docs/cli.md)\n"
	"from the file TRACE, or standard input when TRACE is absent or '-', and prints\n"
	"per request 1 (allowed) or 0 (rejected). Options take '--name value' or\n"
	"'--name=value'; flags also '--name=yes|no'.\n"
	"  --algo A     one of: %s\n"
	"  --limit N    requests (units) per window, 1..10^12\n"
	"  --window W   window: an integer with a unit ns, us, ms, s, m or h (60s, 1m);\n"
	"               a bare number is refused\n"
	"  --burst B    bucket capacity, 1..10^12, for the algorithms with a bucket\n"
	"               (%s; default N); refused for others\n"
	"  --policy P   several rules decided together instead of --limit/--window/\n"
	"               --burst: rules N/W[:bB][:units] joined by '+' (10/1s+1000/1h,\n"
	"               60/1m+90000/1m:units), at most 8; a request passes iff every\n"
	"               rule admits it, and then every rule takes it. A rule marked\n"
	"               :units counts the line's COST (every line must carry one), the\n"
	"               others count 1. --explain adds, per rule K (1, 2, ...),\n"
	"               ruleK=V ruleK.remaining= ruleK.retry_after_ns= ruleK.reset_ns=;\n"
	"               --headers lists the rules as policies \"rule1\", \"rule2\", ...\n"
	"  --shadow     shadow mode: decide and keep every key's state as when\n"
	"               enforcing, but admit (print 1 for) every request; --explain\n"
	"               adds would_reject=0|1 after the answer (which stays as it would\n"
	"               be), --headers answers 200 without Retry-After; stderr ends\n"
	"               with 'ratelab replay: shadow: would_reject=R of N requests'.\n"
	"               Not with --config. With --redis (the module or the scripts)\n"
	"               Redis decides as enforcing and the client\n"
	"               admits. With --redis, --policy or --shadow take one line per\n"
	"               round trip (--redis-batch 1) and no settle lines\n"
	"  --explain    add remaining=, retry_after_ns=, reset_ns= (and delay_ns= for\n"
	"               leaky_bucket)\n"
	"  --config F   a tiers file (see ratelab check; examples/tiers.ini) instead of\n"
	"               --algo/--limit/--window/--burst: KEY is the client id, decided\n"
	"               in its tier; --explain then ends with tier=NAME, and a request\n"
	"               of an unlimited tier prints '1 tier=NAME'\n"
	"  --headers    after each verdict line, the HTTP answer: a status line\n"
	"               'HTTP/1.1 200 OK' or 'HTTP/1.1 429 Too Many Requests', the\n"
	"               header lines (RateLimit-Policy, RateLimit, Retry-After when\n"
	"               rejected; none for an unlimited tier), then one empty line.\n"
	"               The policy is the tier's name, or \"default\" without --config\n"
	"  --legacy-headers  as --headers, plus X-RateLimit-Limit, -Remaining, -Reset;\n"
	"               not with --headers\n"
	"  --redis HOST:PORT decide in Redis (the state shared by every client of the\n"
	"               server; see README \"Redis\"); prints what the in-process replay\n"
	"               prints; stderr says which decided: 'ratelab replay: redis:\n"
	"               using module ratelab' (the server loaded ratelab.so) or\n"
	"               '... using scripts' (RATELAB_REDIS_SCRIPTS=1: the scripts\n"
	"               always); when Redis did not decide every line, stderr ends with\n"
	"               'ratelab replay: redis HOST:PORT: decided=D fallbacks=F\n"
	"               reconnects=R errors=E'\n"
	"  --redis-batch K   pipeline K lines per round trip, 1..10000 (default 1)\n"
	"  --redis-prefix P  prefix of the Redis keys (default rl:); state persists in\n"
	"               Redis between runs: a fresh prefix is a fresh replay\n"
	"  --redis-timeout MS  a batch's budget in ms, 1..60000 (default 5000; a\n"
	"               tier's redis_timeout overrides it); past it, the tier's\n"
	"               on_error decides\n"
	"  --rule-at T=N/W[:bB]  from time T (ns) on, every key's rule is N per W\n"
	"               (a duration with a unit), burst B (default N; only for %s);\n"
	"               repeatable, T increasing; a key's state converts at its\n"
	"               first line under the new rule (docs/library.md, \"A rule\n"
	"               change\"); in process and with --redis alike; not with --config\n"
	"Blank lines and lines starting with # are skipped; after a line '# ratelab\n"
	"trace: ... origin_ns=O' (as `ratelab import` writes first), a time is O + T.\n"
	"An input with no request is an error.\n";

enum { O_ALGO, O_LIMIT, O_WINDOW, O_BURST, O_POLICY, O_SHADOW, O_CONFIG, O_EXPLAIN, O_HEADERS, O_LEGACY,
       O_REDIS, O_REDIS_BATCH, O_REDIS_PREFIX, O_REDIS_TIMEOUT, O_COUNT };

static const struct cli_option options[O_COUNT] = {
	[O_ALGO] = { "algo", CLI_VALUE },       [O_LIMIT] = { "limit", CLI_VALUE },
	[O_WINDOW] = { "window", CLI_VALUE },   [O_BURST] = { "burst", CLI_VALUE },
	[O_POLICY] = { "policy", CLI_VALUE },   [O_SHADOW] = { "shadow", CLI_FLAG },
	[O_CONFIG] = { "config", CLI_VALUE },   [O_EXPLAIN] = { "explain", CLI_FLAG },
	[O_HEADERS] = { "headers", CLI_FLAG },  [O_LEGACY] = { "legacy-headers", CLI_FLAG },
	[O_REDIS] = { "redis", CLI_VALUE },     [O_REDIS_BATCH] = { "redis-batch", CLI_VALUE },
	[O_REDIS_PREFIX] = { "redis-prefix", CLI_VALUE }, [O_REDIS_TIMEOUT] = { "redis-timeout", CLI_VALUE },
};

static const char *burst_names_of(char *buf, size_t len)
{
	return rl_algo_burst_names(buf, len);
}

/* The --rule-at values, taken out of argv before cli_parse (it allows an option once). */
struct rule_at_args {
	const char **value;
	size_t n;
	char **args; /* argv without the --rule-at options (argv itself is left as it is) */
};

/*
 * Takes every "--rule-at V" and "--rule-at=V" before "--" into ra->value,
 * the other arguments into ra->args (argv, which may be read-only, is not
 * written); returns their count, or -1 after a usage
 * error (a --rule-at without a value), or -2 out of memory.
 */
static int take_rule_at(int argc, char **argv, struct rule_at_args *ra)
{
	int out = 0;
	bool opts_on = true;

	ra->value = calloc((size_t)argc + 1, sizeof(*ra->value));
	ra->args = calloc((size_t)argc + 1, sizeof(*ra->args));
	if (!ra->value || !ra->args)
		return -2;
	for (int i = 0; i < argc; i++) {
		if (opts_on && strcmp(argv[i], "--") == 0)
			opts_on = false;
		if (opts_on && strcmp(argv[i], "--rule-at") == 0) {
			if (i + 1 >= argc) {
				cli_usage_error("replay", "--rule-at needs a value T=N/W[:bB]");
				return -1;
			}
			ra->value[ra->n++] = argv[++i];
		} else if (opts_on && strncmp(argv[i], "--rule-at=", 10) == 0) {
			ra->value[ra->n++] = argv[i] + 10;
		} else {
			ra->args[out++] = argv[i];
		}
	}
	return out;
}

/* One --rule-at value T=N/W[:bB] into *t and *rule (base's algorithm). */
static int parse_rule_at(const char *text, const struct rl_algo *algo, int64_t *t, struct rl_rule *rule)
{
	char buf[160], what[200], names[160];
	const char *q = cli_quote(text);
	size_t len = strlen(text);

	if (len >= sizeof(buf))
		return cli_usage_error("replay", "--rule-at %s is not T=N/W[:bB]", q);
	memcpy(buf, text, len + 1);
	char *eq = strchr(buf, '='), *slash = eq ? strchr(eq, '/') : NULL, *colon = slash ? strchr(slash, ':') : NULL;
	if (!eq || !slash)
		return cli_usage_error("replay", "--rule-at %s is not T=N/W[:bB] (e.g. 5000000000=10/1s:b20)", q);
	*eq = *slash = '\0';
	if (colon)
		*colon = '\0';
	if (!rl_parse_i64(buf, t) || *t < 0 || *t > RL_TIME_MAX_NS)
		return cli_usage_error("replay", "--rule-at %s: time '%s' is not an integer in [0, %lld]", q, buf,
				       (long long)RL_TIME_MAX_NS);
	snprintf(what, sizeof(what), "--rule-at %s: limit", q);
	int status = cli_int("replay", what, eq + 1, 1, RL_LIMIT_MAX, &rule->limit);
	if (status)
		return status;
	snprintf(what, sizeof(what), "--rule-at %s: window", q);
	if ((status = cli_duration("replay", what, slash + 1, 1, RL_WINDOW_MAX_NS, &rule->window_ns)))
		return status;
	rule->burst = rule->limit;
	if (!colon)
		return CLI_EXIT_OK;
	if (colon[1] != 'b')
		return cli_usage_error("replay", "--rule-at %s is not T=N/W[:bB] (the burst is :bB, e.g. :b20)", q);
	if (!algo->uses_burst)
		return cli_usage_error("replay", "--rule-at %s: a burst does not apply to %s: it has no bucket (only %s "
				       "take a burst)", q, algo->name, rl_algo_burst_names(names, sizeof(names)));
	snprintf(what, sizeof(what), "--rule-at %s: burst", q);
	return cli_int("replay", what, colon + 2, 1, RL_BURST_MAX, &rule->burst);
}

/* rp->rules from rp->lim and the --rule-at values. */
static int make_rules(struct cli_replay *rp, const struct rule_at_args *ra)
{
	char msg[160];

	rp->nrules = 1 + ra->n;
	rp->rules = calloc(rp->nrules, sizeof(*rp->rules));
	rp->rule_at = calloc(rp->nrules, sizeof(*rp->rule_at));
	if (!rp->rules || !rp->rule_at) {
		fputs("ratelab replay: out of memory\n", stderr);
		return CLI_EXIT_FAIL;
	}
	rp->rules[0] = rp->lim;
	for (size_t i = 1; i < rp->nrules; i++) {
		struct rl_rule rule;
		int status = parse_rule_at(ra->value[i - 1], rp->lim.algo, &rp->rule_at[i], &rule);
		if (status)
			return status;
		if (i > 1 && rp->rule_at[i] <= rp->rule_at[i - 1])
			return cli_usage_error("replay", "--rule-at %s: times must increase (the one before is at %lld)",
					       cli_quote(ra->value[i - 1]), (long long)rp->rule_at[i - 1]);
		if (rl_limiter_init(&rp->rules[i], rp->lim.algo, &rule, msg, sizeof(msg)))
			return cli_usage_error("replay", "--rule-at %s: %s", cli_quote(ra->value[i - 1]), msg);
	}
	return CLI_EXIT_OK;
}

static int parse_opts(int argc, char **argv, struct replay_opts *ro)
{
	struct cli_args a;
	char burst_names[160];
	int status = cli_parse("replay", argc, argv, options, O_COUNT, 1, &a);

	if (status == CLI_HELP)
		printf(usage, rl_algo_names(), burst_names_of(burst_names, sizeof(burst_names)),
		       burst_names_of(burst_names, sizeof(burst_names)));
	if (status)
		return status;
	ro->algo = a.value[O_ALGO];
	ro->limit = a.value[O_LIMIT];
	ro->window = a.value[O_WINDOW];
	ro->burst = a.value[O_BURST];
	ro->policy = a.value[O_POLICY];
	ro->shadow = a.value[O_SHADOW];
	ro->config = a.value[O_CONFIG];
	ro->explain = a.value[O_EXPLAIN];
	/* the usage's [--headers | --legacy-headers]: one or the other */
	if (a.value[O_HEADERS] && a.value[O_LEGACY])
		return cli_usage_error("replay", "--headers and --legacy-headers exclude each other: "
				       "--legacy-headers prints the --headers answer plus the X-RateLimit-* lines");
	ro->headers = a.value[O_HEADERS] || a.value[O_LEGACY];
	ro->http_flags = RL_HTTP_LF | (a.value[O_LEGACY] ? RL_HTTP_LEGACY : 0);
	ro->trace = a.npos ? a.pos[0] : NULL;
	ro->redis = a.value[O_REDIS];
	ro->redis_batch = a.value[O_REDIS_BATCH];
	ro->redis_prefix = a.value[O_REDIS_PREFIX];
	ro->redis_timeout = a.value[O_REDIS_TIMEOUT];
	return CLI_EXIT_OK;
}

static int make_limiter(const struct replay_opts *ro, struct rl_limiter *lim)
{
	struct rl_rule rule;
	char msg[160], burst[160];
	int status;

	if (!ro->algo || !ro->limit || !ro->window)
		return cli_usage_error("replay", "--algo, --limit and --window are required (see --help)");
	const struct rl_algo *algo = rl_algo_find(ro->algo);
	if (!algo)
		return cli_usage_error("replay", "unknown algorithm %s (%s)", cli_quote(ro->algo),
				       rl_algo_names());
	if ((status = cli_int("replay", "--limit", ro->limit, 1, RL_LIMIT_MAX, &rule.limit)) ||
	    (status = cli_duration("replay", "--window", ro->window, 1, RL_WINDOW_MAX_NS, &rule.window_ns)))
		return status;
	rule.burst = rule.limit;
	if (ro->burst && !algo->uses_burst)
		return cli_usage_error("replay", "--burst does not apply to %s: it has no bucket (only %s "
				       "take a burst)", algo->name, rl_algo_burst_names(burst, sizeof(burst)));
	if (ro->burst && (status = cli_int("replay", "--burst", ro->burst, 1, RL_BURST_MAX, &rule.burst)))
		return status;
	if (rl_limiter_init(lim, algo, &rule, msg, sizeof(msg)))
		return cli_usage_error("replay", "%s", msg);
	return CLI_EXIT_OK;
}

/* --algo A --policy P: rp->pl, and rp->lim the policy as one limiter. */
static int make_policy(struct cli_replay *rp)
{
	const struct replay_opts *ro = &rp->ro;
	char msg[512], burst[160];

	if (!ro->algo)
		return cli_usage_error("replay", "--policy needs --algo (see --help)");
	if (ro->limit || ro->window || ro->burst)
		return cli_usage_error("replay", "--policy replaces --limit, --window and --burst");
	const struct rl_algo *algo = rl_algo_find(ro->algo);
	if (!algo)
		return cli_usage_error("replay", "unknown algorithm %s (%s)", cli_quote(ro->algo),
				       rl_algo_names());
	if (rl_policy_parse(ro->policy, &rp->policy, msg, sizeof(msg)))
		return cli_usage_error("replay", "--policy: %s", msg);
	for (size_t i = 0; i < rp->policy.count && !algo->uses_burst; i++)
		if (rp->policy.rules[i].burst != rp->policy.rules[i].limit)
			return cli_usage_error("replay", "--policy: rule %zu: a burst does not apply to %s: it has "
					       "no bucket (only %s take a burst)", i + 1, algo->name,
					       rl_algo_burst_names(burst, sizeof(burst)));
	if (!(rp->pl = malloc(sizeof(*rp->pl)))) {
		fputs("ratelab replay: out of memory\n", stderr);
		return CLI_EXIT_FAIL;
	}
	if (rl_policy_limiter_init(rp->pl, algo, &rp->policy, msg, sizeof(msg)))
		return cli_usage_error("replay", "--policy: %s", msg);
	rp->lim = *rl_policy_as_limiter(rp->pl);
	return CLI_EXIT_OK;
}

/* --shadow without --policy: the one rule as a policy of one rule (counting COST, as the rule does). */
static int one_rule_policy(struct cli_replay *rp)
{
	char msg[256];

	rp->policy = (struct rl_policy){ .count = 1 };
	rp->policy.rules[0] = rp->lim.rule;
	rp->policy.units[0] = true;
	if (!(rp->pl = malloc(sizeof(*rp->pl)))) {
		fputs("ratelab replay: out of memory\n", stderr);
		return CLI_EXIT_FAIL;
	}
	if (rl_policy_limiter_init(rp->pl, rp->lim.algo, &rp->policy, msg, sizeof(msg)))
		return cli_usage_error("replay", "%s", msg);
	rp->lim = *rl_policy_as_limiter(rp->pl);
	return CLI_EXIT_OK;
}

static void release_state(void *state, void *lim)
{
	rl_limiter_release(lim, state);
}

static void replay_free(struct cli_replay *rp)
{
	for (size_t i = 0; i < rp->nmaps; i++) {
		const struct rl_limiter *lim =
			rp->reg ? &rl_registry_tier_at(rp->reg, i)->limiter : &rp->lim;
		if (rp->maps[i].states)
			sim_keymap_each(&rp->maps[i], release_state, (void *)lim);
		sim_keymap_destroy(&rp->maps[i]);
	}
	free(rp->maps);
	free(rp->rules);
	free(rp->rule_at);
	free(rp->pl);
	rl_registry_destroy(rp->reg);
}

static int replay_setup(struct cli_replay *rp, const struct rule_at_args *ra)
{
	const struct replay_opts *ro = &rp->ro;
	size_t state_size = 0;

	if (ra->n && (ro->policy || ro->shadow))
		return cli_usage_error("replay", "--rule-at changes one rule (--limit/--window/--burst): not with %s",
				       ro->policy ? "--policy" : "--shadow");
	if (ro->shadow && ro->config)
		return cli_usage_error("replay", "--shadow takes --limit/--window or --policy (not --config)");
	if (ro->policy && ro->config)
		return cli_usage_error("replay", "--policy and --config exclude each other: a tiers file "
				       "gives each tier its rules");
	if (ro->config) {
		char err[512];
		if (ro->algo || ro->limit || ro->window || ro->burst)
			return cli_usage_error("replay", "--config replaces --algo, --limit, --window and --burst");
		if (ra->n)
			return cli_usage_error("replay", "--rule-at changes the one rule of --algo, --limit, --window "
					       "and --burst: not with --config");
		const struct rl_tier_key *keys;
		size_t nkeys = cli_tier_keys(&keys);
		int rc = rl_registry_load_with(&rp->reg, ro->config, keys, nkeys, err, sizeof(err));
		if (rc == RL_ENOMEM) {
			fprintf(stderr, "ratelab replay: %s\n", err);
			return CLI_EXIT_FAIL;
		}
		if (rc)
			return cli_usage_error("replay", "%s", err);
		rp->nmaps = rl_registry_tier_count(rp->reg);
	} else {
		int status = ro->policy ? make_policy(rp) : make_limiter(ro, &rp->lim);
		if (status || (status = make_rules(rp, ra)))
			return status;
		if (ro->shadow && !ro->policy && (status = one_rule_policy(rp)))
			return status;
		if (ro->shadow)
			rl_policy_set_shadow(rp->pl, true);
		rp->nmaps = 1;
		state_size = rp->lim.algo->state_size;
		if (rp->nrules > 1) {
			/* the key's rule index after its state, 8-byte aligned */
			rp->state_off = (state_size + 7) / 8 * 8;
			state_size = rp->state_off + 8;
		}
	}
	if (!(rp->maps = calloc(rp->nmaps, sizeof(*rp->maps)))) {
		fputs("ratelab replay: out of memory\n", stderr);
		return CLI_EXIT_FAIL;
	}
	for (size_t i = 0; i < rp->nmaps; i++) {
		const struct rl_tier *t = rp->reg ? rl_registry_tier_at(rp->reg, i) : NULL;
		if (t && t->unlimited)
			continue;
		int rc = sim_keymap_init(&rp->maps[i], t ? t->limiter.algo->state_size : state_size);
		if (rc) {
			fprintf(stderr, "ratelab replay: key map: %s%s\n", rl_strerror(rc),
				rc == RL_EINVAL ? " (" SIM_HASH_SEED_ENV " is not a non-negative integer)" : "");
			return rc == RL_EINVAL ? CLI_EXIT_USAGE : CLI_EXIT_FAIL;
		}
	}
	return CLI_EXIT_OK;
}

/* An input read to its end without one request is bad input, in the words of `ratelab import`. */
static int no_request(const struct cli_replay *rp, const struct sim_lines *in, int status)
{
	if (status != CLI_EXIT_OK || in->records || ferror(in->in) || !feof(in->in))
		return status;
	const char *path = rp->ro.trace && strcmp(rp->ro.trace, "-") ? rp->ro.trace : NULL;
	return cli_usage_error("replay", "%s holds no request", path ? cli_quote(path) : "standard input");
}

int cli_cmd_replay(int argc, char **argv)
{
	struct cli_replay rp = { 0 };
	struct rule_at_args ra = { 0 };
	int n = take_rule_at(argc, argv, &ra);
	int status = n == -2 ? CLI_EXIT_FAIL : n < 0 ? CLI_EXIT_USAGE : parse_opts(n, ra.args, &rp.ro);

	if (n == -2)
		fputs("ratelab replay: out of memory\n", stderr);
	if (status) {
		free(ra.value);
		free(ra.args);
		return status < 0 ? CLI_EXIT_OK : status;
	}
	status = replay_setup(&rp, &ra);
	free(ra.value);
	free(ra.args);
	if (status) {
		replay_free(&rp);
		return status;
	}

	struct sim_trace_header header = { 0 };
	struct sim_lines in = { .on_comment = sim_trace_header_take, .comment_arg = &header };

	rp.header = &header;
	if ((status = cli_open_input("replay", rp.ro.trace, &in.in))) {
		replay_free(&rp);
		return status;
	}

	if (rp.ro.redis) {
		status = no_request(&rp, &in, cli_replay_redis(&rp, &in));
		cli_close_input(in.in);
		sim_lines_free(&in);
		replay_free(&rp);
		return status;
	}
	if (rp.ro.redis_batch || rp.ro.redis_prefix || rp.ro.redis_timeout) {
		cli_close_input(in.in);
		replay_free(&rp);
		return cli_usage_error("replay", "--redis-batch, --redis-prefix and --redis-timeout need --redis");
	}

	status = rp.pl ? cli_replay_policy_in_process(&rp, &in) : cli_replay_in_process(&rp, &in);
	status = no_request(&rp, &in, cli_lines_end(&in, "replay", status));
	cli_close_input(in.in);
	sim_lines_free(&in);
	replay_free(&rp);
	return cli_output_end("replay", status);
}
