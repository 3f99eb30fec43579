/*
 * main.c - the ratelab program: dispatches to its commands.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "ratelab/version.h"

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
} commands[] = {
	{ "breaker", cli_cmd_breaker, "drive the rate-limit circuit breaker with handle/state lines" },
	{ "import", cli_cmd_import, "read access logs (nginx/Apache, JSON lines, CSV) into a trace" },
	{ "replay", cli_cmd_replay, "decide a trace of 'T KEY [COST]' lines with one algorithm" },
	{ "check", cli_cmd_check, "validate a tiers config file and print the resolved rules" },
	{ "sim", cli_cmd_sim, "simulate scenarios; measure each algorithm's error vs the exact log" },
	{ "fleet", cli_cmd_fleet, "simulate k nodes with local shares synced every S (local plus global)" },
	{ "theory", cli_cmd_theory, "each algorithm's rejection probability for Poisson traffic (closed forms)" },
	{ "study", cli_cmd_study, "every algorithm and rule on one trace or log, judged by its clients" },
	{ "compare", cli_cmd_compare, "compare two Google Benchmark runs: medians, Mann-Whitney U test, verdicts" },
	{ "report", cli_cmd_report, "render make bench's results into REPORT.md and report.html" },
};

static void usage(FILE *f)
{
	fputs("usage: ratelab COMMAND [OPTIONS]   (ratelab COMMAND --help for each)\n"
	      "       ratelab --version\n\n"
	      "ratelab: exact rate-limiting algorithms, the rate-limit circuit breaker,\n"
	      "a simulator and benchmarks.\n\ncommands:\n", f);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].summary);
}

int main(int argc, char **argv)
{
	/* a write past `ulimit -f` then fails with EFBIG, reported with its path, instead of killing us */
	signal(SIGXFSZ, SIG_IGN);
	if (argc < 2) {
		usage(stderr);
		return CLI_EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return cli_output_end("--help", CLI_EXIT_OK);
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("ratelab %s\n", rl_version());
		return cli_output_end("--version", CLI_EXIT_OK);
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return cli_output_close(commands[i].name, commands[i].run(argc - 2, argv + 2));
	fprintf(stderr, "ratelab: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return CLI_EXIT_USAGE;
}
