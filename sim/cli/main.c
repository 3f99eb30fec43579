/*
 * main.c - the ratelab program: dispatches to its commands.
 */
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
			return commands[i].run(argc - 2, argv + 2);
	fprintf(stderr, "ratelab: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return CLI_EXIT_USAGE;
}
