/*
 * cmd_replay.c - `ratelab replay --algo A --limit N --window W [--burst B]
 * [--explain] [--headers]` or `ratelab replay --config FILE ...`: decides
 * each line "T KEY" of stdin (T in ns) with the chosen algorithm (or KEY's
 * tier), one state per KEY, and prints 1 (allowed) or 0 (rejected) per
 * request; --explain adds the answer's fields, --headers the HTTP answer.
 * States are never dropped here: a replay is exact for any order of times.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ratelab/algo.h"
#include "ratelab/http.h"
#include "ratelab/registry.h"
#include "replay.h"

static const char usage[] =
	"usage: ratelab replay --algo A --limit N --window W [--burst B] [--explain] [--headers]\n"
	"       ratelab replay --config FILE [--explain] [--headers]\n"
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
	"  --config F   a tiers file (see ratelab check; examples/tiers.ini) instead of\n"
	"               --algo/--limit/--window/--burst: KEY is the client id, decided\n"
	"               in its tier; --explain then ends with tier=NAME, and a request\n"
	"               of an unlimited tier prints '1 tier=NAME'\n"
	"  --headers    after each verdict line, the HTTP answer: a status line\n"
	"               'HTTP/1.1 200 OK' or 'HTTP/1.1 429 Too Many Requests', the\n"
	"               header lines (RateLimit-Policy, RateLimit, Retry-After when\n"
	"               rejected; none for an unlimited tier), then one empty line.\n"
	"               The policy is the tier's name, or \"default\" without --config\n"
	"  --legacy-headers  as --headers, plus X-RateLimit-Limit, -Remaining, -Reset\n"
	"  --redis HOST:PORT decide in Redis (the state shared by every client of the\n"
	"               server; see README \"Redis\"); prints what the in-process replay\n"
	"               prints, and 'ratelab replay: redis HOST:PORT: decided=D\n"
	"               fallbacks=F reconnects=R errors=E' on stderr at the end\n"
	"  --redis-batch K   pipeline K lines per round trip, 1..10000 (default 1)\n"
	"  --redis-prefix P  prefix of the Redis keys (default rl:); state persists in\n"
	"               Redis between runs: a fresh prefix is a fresh replay\n"
	"  --redis-timeout MS  a batch's budget in ms, 1..60000 (default 5000; a\n"
	"               tier's redis_timeout overrides it); past it, the tier's\n"
	"               on_error decides\n"
	"Blank lines and lines starting with # are skipped.\n";

static bool takes_value(const char *name)
{
	return strcmp(name, "help") != 0 && strcmp(name, "explain") != 0 &&
	       strcmp(name, "headers") != 0 && strcmp(name, "legacy-headers") != 0;
}

static int parse_opts(int argc, char **argv, struct replay_opts *ro)
{
	struct rl_opts o = { argc, argv, 0 };
	const char *name, *val;
	int at; /* index of the argument being parsed, for messages */

	while ((at = o.cur, name = rl_opt_next(&o, &val, takes_value))) {
		const char **dst = strcmp(name, "algo") == 0     ? &ro->algo
				   : strcmp(name, "limit") == 0  ? &ro->limit
				   : strcmp(name, "window") == 0 ? &ro->window
				   : strcmp(name, "burst") == 0  ? &ro->burst
				   : strcmp(name, "config") == 0 ? &ro->config
				   : strcmp(name, "redis") == 0  ? &ro->redis
				   : strcmp(name, "redis-batch") == 0 ? &ro->redis_batch
				   : strcmp(name, "redis-prefix") == 0 ? &ro->redis_prefix
				   : strcmp(name, "redis-timeout") == 0 ? &ro->redis_timeout
								 : NULL;
		if (strcmp(name, "help") == 0) {
			fputs(usage, stdout);
			return -1;
		}
		if (strcmp(name, "explain") == 0 && !val) {
			ro->explain = true;
			continue;
		}
		if ((strcmp(name, "headers") == 0 || strcmp(name, "legacy-headers") == 0) && !val) {
			ro->headers = true;
			ro->http_flags = RL_HTTP_LF | (name[0] == 'l' ? RL_HTTP_LEGACY : 0);
			continue;
		}
		if (!dst)
			return rl_usage_error("replay", "unknown option or argument '%s' (see --help)",
					      o.argv[at]);
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

static void replay_free(struct replay *rp)
{
	for (size_t i = 0; i < rp->nmaps; i++) {
		const struct rl_limiter *lim =
			rp->reg ? &rl_registry_tier_at(rp->reg, i)->limiter : &rp->lim;
		if (rp->maps[i].states)
			rl_keymap_each(&rp->maps[i], release_state, (void *)lim);
		rl_keymap_destroy(&rp->maps[i]);
	}
	free(rp->maps);
	rl_registry_destroy(rp->reg);
}

static int replay_setup(struct replay *rp)
{
	const struct replay_opts *ro = &rp->ro;

	if (ro->config) {
		char err[512];
		if (ro->algo || ro->limit || ro->window || ro->burst)
			return rl_usage_error("replay", "--config replaces --algo, --limit, --window and --burst");
		int rc = rl_registry_load(&rp->reg, ro->config, err, sizeof(err));
		if (rc == RL_ENOMEM) {
			fprintf(stderr, "ratelab replay: %s\n", err);
			return RL_EXIT_FAIL;
		}
		if (rc)
			return rl_usage_error("replay", "%s", err);
		rp->nmaps = rl_registry_tier_count(rp->reg);
	} else {
		int status = make_limiter(ro, &rp->lim);
		if (status)
			return status;
		rp->nmaps = 1;
	}
	if (!(rp->maps = calloc(rp->nmaps, sizeof(*rp->maps)))) {
		fputs("ratelab replay: out of memory\n", stderr);
		return RL_EXIT_FAIL;
	}
	for (size_t i = 0; i < rp->nmaps; i++) {
		const struct rl_tier *t = rp->reg ? rl_registry_tier_at(rp->reg, i) : NULL;
		if (t && t->unlimited)
			continue;
		if (rl_keymap_init(&rp->maps[i], t ? t->limiter.algo->state_size : rp->lim.algo->state_size)) {
			fputs("ratelab replay: out of memory\n", stderr);
			return RL_EXIT_FAIL;
		}
	}
	return RL_EXIT_OK;
}

static void print_headers(const struct replay *rp, const struct rl_tier *tier, int verdict,
			  const struct rl_decision *d)
{
	char buf[512];

	printf("HTTP/1.1 %s\n", rl_http_status(verdict) == 429 ? "429 Too Many Requests" : "200 OK");
	if (!(tier && tier->unlimited)) {
		const struct rl_limiter *lim = tier ? &tier->limiter : &rp->lim;
		struct rl_http_policy p = { tier ? tier->name : "default", lim->rule.limit, lim->rule.window_ns };
		if (rl_http_headers(buf, sizeof(buf), &p, verdict, d, rp->ro.http_flags) > 0)
			fputs(buf, stdout);
	}
	putchar('\n');
}

void rl_replay_print(const struct replay *rp, const struct rl_tier *tier, int rc,
		     const struct rl_decision *d)
{
	const struct rl_limiter *lim = tier ? &tier->limiter : &rp->lim;

	if (!rp->ro.explain) {
		fputs(rc ? "1\n" : "0\n", stdout);
	} else if (tier && tier->unlimited) {
		printf("1 tier=%s\n", tier->name);
	} else {
		printf("%d remaining=%lld retry_after_ns=%lld reset_ns=%lld", rc, (long long)d->remaining,
		       (long long)d->retry_after_ns, (long long)d->reset_ns);
		if (lim->algo == &rl_leaky_bucket_algo)
			printf(" delay_ns=%lld", (long long)d->delay_ns);
		if (tier)
			printf(" tier=%s", tier->name);
		putchar('\n');
	}
	if (rp->ro.headers)
		print_headers(rp, tier, rc, d);
}

int rl_replay_parse(const struct replay *rp, const struct rl_lines *in, char *line, int64_t *t,
		    char **key, const struct rl_tier **tier)
{
	char *tok[2];

	if (in->has_nul)
		return rl_usage_error("replay", "line %ld: holds a NUL byte", in->lineno);
	if (rl_split(line, tok, 2) != 2)
		return rl_usage_error("replay", "line %ld: '%s': expected 'T KEY'", in->lineno, in->text);
	if (!rl_parse_i64(tok[0], t) || *t < 0 || *t > RL_TIME_MAX_NS)
		return rl_usage_error("replay", "line %ld: '%s': time '%s' is not an integer number of ns in [0, %lld]",
				      in->lineno, in->text, tok[0], RL_TIME_MAX_NS);
	*key = tok[1];
	*tier = rp->reg ? rl_registry_resolve(rp->reg, tok[1], strlen(tok[1])) : NULL;
	return RL_EXIT_OK;
}

int rl_cmd_replay(int argc, char **argv)
{
	struct replay rp = { 0 };
	int status = parse_opts(argc, argv, &rp.ro);

	if (status)
		return status < 0 ? RL_EXIT_OK : status;
	if ((status = replay_setup(&rp))) {
		replay_free(&rp);
		return status;
	}

	if (rp.ro.redis) {
		status = rl_replay_redis(&rp);
		replay_free(&rp);
		return status;
	}
	if (rp.ro.redis_batch || rp.ro.redis_prefix || rp.ro.redis_timeout) {
		replay_free(&rp);
		return rl_usage_error("replay", "--redis-batch, --redis-prefix and --redis-timeout need --redis");
	}

	struct rl_lines in = { .in = stdin };
	char *line, *key;
	bool want = rp.ro.explain || rp.ro.headers;

	rl_stdout_buffered();
	while ((line = rl_lines_next(&in))) {
		int64_t t;
		const struct rl_tier *tier;

		if ((status = rl_replay_parse(&rp, &in, line, &t, &key, &tier)))
			break;
		size_t klen = strlen(key), m = tier ? (size_t)(tier - rl_registry_tier_at(rp.reg, 0)) : 0;
		const struct rl_limiter *lim = tier ? &tier->limiter : &rp.lim;
		struct rl_decision d = { 0 };
		int rc = RL_ALLOWED;
		if (!(tier && tier->unlimited)) {
			void *state = rl_keymap_get(&rp.maps[m], key, klen);
			rc = state ? rl_limiter_check(lim, state, t, want ? &d : NULL) : RL_ENOMEM;
		}
		if (rc < 0) {
			fflush(stdout);
			fprintf(stderr, "ratelab replay: line %ld: %s\n", in.lineno, rl_strerror(rc));
			status = RL_EXIT_FAIL;
			break;
		}
		rl_replay_print(&rp, tier, rc, &d);
	}
	status = rl_lines_end(&in, "replay", status);
	rl_lines_free(&in);
	replay_free(&rp);
	return rl_output_end("replay", status);
}
