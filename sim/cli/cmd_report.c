/*
 * cmd_report.c - `ratelab report RESULTS_DIR [--out DIR] [--qualitative
 * FILE] [--readme FILE] [--mode full|quick]`: the report of a `make bench`
 * run (bench_report.h) from its results directory.
 */
#include <string.h>

#include "bench_report.h"
#include "cli.h"

static const char usage[] =
	"usage: ratelab report RESULTS_DIR [--out DIR] [--qualitative FILE] [--readme FILE]\n"
	"                      [--mode full|quick]\n"
	"\n"
	"Renders the results of `make bench` (RESULTS_DIR: bench/, sim/, baseline/, plots/)\n"
	"into DIR/REPORT.md and DIR/report.html (one self-contained page, the PNG charts\n"
	"of RESULTS_DIR/plots embedded), and the charts' data into RESULTS_DIR/plots/data.\n"
	"Nothing is written unless every input was read and checked; each file is written\n"
	"beside its name (NAME.part) and renamed over it.\n"
	"  --out DIR          where REPORT.md and report.html go (default: RESULTS_DIR)\n"
	"  --qualitative FILE the study notes' columns (default: the source tree's\n"
	"                     bench/qualitative.csv)\n"
	"  --readme FILE      also rewrite FILE's tradeoff table, the text between\n"
	"                     <!-- tradeoff:begin --> and <!-- tradeoff:end --> (nothing else)\n"
	"  --mode full|quick  the run's mode as the report states it (default: env.txt's\n"
	"                     mode=, else full with more than one repetition, quick with one)\n";

enum { O_OUT, O_QUALITATIVE, O_README, O_MODE, O_COUNT };

static const struct cli_option options[O_COUNT] = {
	[O_OUT] = { "out", CLI_VALUE },
	[O_QUALITATIVE] = { "qualitative", CLI_VALUE },
	[O_README] = { "readme", CLI_VALUE },
	[O_MODE] = { "mode", CLI_VALUE },
};

int cli_cmd_report(int argc, char **argv)
{
	struct cli_args a;
	int status = cli_parse("report", argc, argv, options, O_COUNT, 1, &a);

	if (status == CLI_HELP) {
		fputs(usage, stdout);
		return cli_output_end("report", CLI_EXIT_OK);
	}
	if (status)
		return status;
	if (a.npos != 1)
		return cli_usage_error("report", "RESULTS_DIR is required (see --help)");
	const char *mode = a.value[O_MODE];
	if (mode && strcmp(mode, "full") != 0 && strcmp(mode, "quick") != 0)
		return cli_usage_error("report", "--mode %s is not full or quick", cli_quote(mode));
	struct bench_report_opts o = {
		.results = a.pos[0],
		.out = a.value[O_OUT],
		.qualitative = a.value[O_QUALITATIVE] ? a.value[O_QUALITATIVE] : CLI_QUALITATIVE_CSV,
		.readme = a.value[O_README],
		.mode = mode,
	};
	fflush(stdout);
	status = bench_report(&o, stderr);
	return cli_output_end("report", status);
}
