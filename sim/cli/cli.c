/*
 * cli.c - parsing and I/O helpers shared by the ratelab commands.
 */
#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const char *cli_opt_next(struct cli_opts *o, const char **value, bool takes_value(const char *))
{
	static char name[64];

	if (o->cur >= o->argc)
		return NULL;
	const char *arg = o->argv[o->cur++];
	if (strcmp(arg, "-h") == 0) {
		*value = NULL;
		return "help";
	}
	if (strncmp(arg, "--", 2) != 0 || !arg[2]) {
		*value = arg;
		return ""; /* a positional argument */
	}
	const char *eq = strchr(arg, '=');
	size_t len = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
	if (len >= sizeof(name))
		len = sizeof(name) - 1;
	memcpy(name, arg + 2, len);
	name[len] = '\0';
	if (eq)
		*value = eq + 1;
	else if (takes_value(name) && o->cur < o->argc && strncmp(o->argv[o->cur], "--", 2) != 0)
		*value = o->argv[o->cur++];
	else
		*value = NULL;
	return name;
}

bool cli_opt_all_but_help(const char *name)
{
	return strcmp(name, "help") != 0;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "ratelab %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return CLI_EXIT_USAGE;
}

int cli_lines_end(struct sim_lines *r, const char *cmd, int status)
{
	if (status != CLI_EXIT_OK || (!ferror(r->in) && feof(r->in)))
		return status;
	fflush(stdout);
	fprintf(stderr, "ratelab %s: reading input after line %ld: %s\n", cmd, r->lineno,
		ferror(r->in) ? strerror(errno) : "out of memory");
	return CLI_EXIT_FAIL;
}

int cli_output_end(const char *cmd, int status)
{
	if (fflush(stdout) == 0)
		return status;
	fprintf(stderr, "ratelab %s: writing output: %s\n", cmd, strerror(errno));
	return CLI_EXIT_FAIL;
}

void cli_stdout_buffered(void)
{
	static char buf[1 << 16];

	setvbuf(stdout, buf, _IOFBF, sizeof(buf));
}
