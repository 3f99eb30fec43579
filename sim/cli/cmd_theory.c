/*
 * cmd_theory.c - `ratelab theory --rule N/W[:bB] --load L%`: each
 * algorithm's long-run rejection probability for cost-1 requests arriving
 * as a Poisson process on one key at L% of N per W (theory.h), in
 * rl_algo_all() order; an algorithm without a closed form says so. A quick
 * answer before a study; the simulator's theory scenarios check the same
 * numbers.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ratelab/algo.h"
#include "ratelab/rule.h"
#include "theory.h"

#define LOAD_MIN_PCT 0.01 /* percent of N per W */
#define LOAD_MAX_PCT 10000.0

static const char usage[] =
	"usage: ratelab theory --rule N/W[:bB] --load L%\n"
	"\n"
	"Prints each algorithm's long-run rejection probability when requests of cost 1\n"
	"arrive as a Poisson process on one key at L% of N per W, from the closed forms\n"
	"(token_bucket, gcra: M/D/1/K with K = B; leaky_bucket: K = B + 1; sliding_log:\n"
	"Erlang B(N, lambda W); fixed_window: E[(X - N)+] / E[X], X ~ Poisson(lambda W)):\n"
	"  # Poisson arrivals on one key at L% of N/W (RATE per second), burst B\n"
	"  ALGO P            (P printed with 6 significant digits)\n"
	"  ALGO no closed form\n"
	"  --rule N/W[:bB]  N requests per window W (1..10^6; W an integer with a unit\n"
	"                   ns, us, ms, s, m or h), burst B (default N): 10/1s, 60/1m:b120\n"
	"  --load L%        the offered rate, percent of N per W, 0.01 to 10000 (a\n"
	"                   decimal; the % sign optional)\n";

enum { O_RULE, O_LOAD, O_COUNT };

static const struct cli_option options[O_COUNT] = {
	[O_RULE] = { "rule", CLI_VALUE },
	[O_LOAD] = { "load", CLI_VALUE },
};

/* The rule through the library's one reader (rl_rule_parse), its words
 * after the option's name as every command puts them. */
static int parse_rule(const char *text, struct rl_rule *rule)
{
	char why[1024];

	if (rl_rule_parse(text, rule, why, sizeof(why)) != RL_OK)
		return cli_usage_error("theory", "--rule %s", why);
	return CLI_EXIT_OK;
}

/* "80%", "80", "99.5%": a plain decimal percentage in [LOAD_MIN_PCT, LOAD_MAX_PCT]. */
static int parse_load(const char *text, double *pct)
{
	size_t len = strlen(text), digits = strspn(text, "0123456789"), frac = 0;

	if (len && text[len - 1] == '%')
		len--;
	if (digits < len && text[digits] == '.')
		frac = 1 + strspn(text + digits + 1, "0123456789");
	if (digits == 0 || digits + frac != len || frac == 1)
		return cli_usage_error("theory", "--load %s is not a load (a percentage of N per W, e.g. 80%%)",
				       cli_quote(text));
	*pct = strtod(text, NULL);
	if (!(*pct >= LOAD_MIN_PCT && *pct <= LOAD_MAX_PCT))
		return cli_usage_error("theory", "--load %s is out of range [%g%%, %g%%]", cli_quote(text),
				       LOAD_MIN_PCT, LOAD_MAX_PCT);
	return CLI_EXIT_OK;
}

int cli_cmd_theory(int argc, char **argv)
{
	struct cli_args a;
	struct rl_rule rule;
	double pct = 0;
	char msg[256];
	int status = cli_parse("theory", argc, argv, options, O_COUNT, 0, &a);

	if (status == CLI_HELP) {
		fputs(usage, stdout);
		return cli_output_end("theory", CLI_EXIT_OK);
	}
	if (status)
		return status;
	if (!a.value[O_RULE] || !a.value[O_LOAD])
		return cli_usage_error("theory", "--rule and --load are required (see --help)");
	if ((status = parse_rule(a.value[O_RULE], &rule)) || (status = parse_load(a.value[O_LOAD], &pct)))
		return status;
	if (rl_rule_validate(&rule, msg, sizeof(msg)))
		return cli_usage_error("theory", "--rule %s: %s", cli_quote(a.value[O_RULE]), msg);

	/* lambda = L% * N / W per second */
	double lambda = pct / 100 * (double)rule.limit / ((double)rule.window_ns / 1e9);
	size_t n;
	const struct rl_algo *const *all = rl_algo_all(&n);

	printf("# Poisson arrivals on one key at %g%% of %s (%.6g per second), burst %lld\n", pct,
	       a.value[O_RULE], lambda, (long long)rule.burst);
	for (size_t i = 0; i < n; i++) {
		double p;
		if (sim_theory_reject(all[i]->name, (uint64_t)rule.limit, rule.window_ns, (uint64_t)rule.burst,
				      lambda, &p))
			printf("%s %.6g\n", all[i]->name, p);
		else
			printf("%s no closed form\n", all[i]->name);
	}
	return cli_output_end("theory", CLI_EXIT_OK);
}
