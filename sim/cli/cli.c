/*
 * cli.c - parsing and I/O helpers shared by the ratelab commands.
 */
#include "cli.h"

#include "ratelab/parse.h"

#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

/* A flag's value word: 1 on, 0 off, -1 not one of the words. */
static int flag_word(const char *w)
{
	static const char *const on[] = { "yes", "true", "1" }, *const off[] = { "no", "false", "0" };

	for (size_t i = 0; i < 3; i++) {
		if (strcmp(w, on[i]) == 0)
			return 1;
		if (strcmp(w, off[i]) == 0)
			return 0;
	}
	return -1;
}

static int take_option(const char *cmd, const struct cli_option *opt, const char *arg,
		       bool *seen, struct cli_args *out, size_t i)
{
	if (*seen)
		return cli_usage_error(cmd, "option --%s given twice", opt->name);
	*seen = true;
	if (opt->kind == CLI_VALUE) {
		/* "--limit --window 1s": the next option is not --limit's value. */
		if (arg[0] == '-' && arg[1] == '-' && arg[2])
			return cli_usage_error(cmd, "option --%s needs a value (got option %s)", opt->name,
					       cli_quote(arg));
		out->value[i] = arg;
		return CLI_EXIT_OK;
	}
	int on = arg ? flag_word(arg) : 1;
	if (on < 0)
		return cli_usage_error(cmd, "option --%s is a flag: its value %s is not yes, no, true, "
				       "false, 1 or 0", opt->name, cli_quote(arg));
	out->value[i] = on ? "1" : NULL;
	return CLI_EXIT_OK;
}

int cli_parse(const char *cmd, int argc, char **argv, const struct cli_option *opts, size_t nopts,
	      size_t max_pos, struct cli_args *out)
{
	struct option lo[CLI_MAX_OPTS + 2];
	bool seen[CLI_MAX_OPTS] = { false };
	char **av;
	int c, status = CLI_EXIT_OK;

	memset(out, 0, sizeof(*out));
	if (nopts > CLI_MAX_OPTS || max_pos > CLI_MAX_POS)
		return cli_usage_error(cmd, "internal: too many options");
	for (size_t i = 0; i < nopts; i++)
		lo[i] = (struct option){ opts[i].name,
					 opts[i].kind == CLI_VALUE ? required_argument : optional_argument,
					 NULL, 256 + (int)i };
	lo[nopts] = (struct option){ "help", no_argument, NULL, 'h' };
	lo[nopts + 1] = (struct option){ NULL, 0, NULL, 0 };
	/* getopt_long wants a program name first and reorders what follows: a copy. */
	if (!(av = malloc(((size_t)argc + 2) * sizeof(*av)))) {
		fputs("ratelab: out of memory\n", stderr);
		return CLI_EXIT_FAIL;
	}
	av[0] = (char *)cmd;
	memcpy(av + 1, argv, (size_t)argc * sizeof(*av));
	av[argc + 1] = NULL;
	optind = 0; /* glibc: start afresh */
	opterr = 0;
	/* "-": positional arguments come back in order as 1; ":": a missing value is ':'. */
	while (status == CLI_EXIT_OK && (c = getopt_long(argc + 1, av, "-:h", lo, NULL)) != -1) {
		const char *arg = av[optind - 1];

		if (c == 1) {
			if (out->npos == max_pos)
				status = cli_usage_error(cmd, "unexpected argument %s (see --help)", cli_quote(optarg));
			else
				out->pos[out->npos++] = optarg;
		} else if (c == 'h') {
			status = CLI_HELP;
		} else if (c == ':') {
			status = cli_usage_error(cmd, "option %s needs a value", cli_quote(arg));
		} else if (c == '?') {
			status = optopt && optopt < 256 && arg[1] != '-'
					 ? cli_usage_error(cmd, "unknown option '-%c' (see --help)", optopt)
					 : cli_usage_error(cmd, "unknown option or argument %s (see --help)",
							   cli_quote(arg));
		} else {
			size_t i = (size_t)(c - 256);
			status = take_option(cmd, &opts[i], optarg, &seen[i], out, i);
		}
	}
	/* After "--": all positional. */
	for (int i = optind; status == CLI_EXIT_OK && i <= argc; i++) {
		if (out->npos == max_pos)
			status = cli_usage_error(cmd, "unexpected argument %s (see --help)", cli_quote(av[i]));
		else
			out->pos[out->npos++] = av[i];
	}
	free(av);
	return status;
}

int cli_int(const char *cmd, const char *what, const char *text, int64_t min, int64_t max,
	    int64_t *out)
{
	char why[1024];

	if (!rl_parse_int_in(what, text, min, max, out, why, sizeof(why)))
		return cli_usage_error(cmd, "%s", why);
	return CLI_EXIT_OK;
}

int cli_duration(const char *cmd, const char *what, const char *text, int64_t min_ns,
		 int64_t max_ns, int64_t *out_ns)
{
	char why[1024];

	if (!rl_parse_duration_in(what, text, min_ns, max_ns, out_ns, why, sizeof(why)))
		return cli_usage_error(cmd, "%s", why);
	return CLI_EXIT_OK;
}

int cli_decider_name(const char *cmd, const char *name, char *out, size_t out_len)
{
	size_t len = strlen(name);

	if (len < 1 || len > CLI_DECIDER_NAME_MAX || strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_") != len)
		return cli_usage_error(cmd, "--decider-name %s: 1 to 32 of a-z, 0-9 and _", cli_quote(name));
	if (out)
		snprintf(out, out_len, "peer_%s", name);
	return CLI_EXIT_OK;
}

const char *cli_quote(const char *text)
{
	static char bufs[4][SIM_QUOTE_SIZE];
	static unsigned next;

	return sim_quote(bufs[next++ % 4], text);
}

int cli_open_input(const char *cmd, const char *path, FILE **in)
{
	if (!path || strcmp(path, "-") == 0) {
		*in = stdin;
		return CLI_EXIT_OK;
	}
	if (!(*in = fopen(path, "r")))
		return cli_usage_error(cmd, "cannot open %s: %s", cli_quote(path), strerror(errno));
	return CLI_EXIT_OK;
}

void cli_close_input(FILE *in)
{
	if (in && in != stdin)
		fclose(in);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	char msg[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fflush(stdout);
	fprintf(stderr, "ratelab %s: ", cmd);
	/* Text the library or a file put in the message may hold control bytes: never echo them. */
	for (const unsigned char *c = (const unsigned char *)msg; *c; c++)
		if (*c < 0x20 || *c == 0x7f)
			fprintf(stderr, "\\x%02x", *c);
		else
			fputc(*c, stderr);
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

static bool stdout_failed; /* its failure was said */

int cli_stdout_error(const char *cmd, int e)
{
	if (!stdout_failed)
		fprintf(stderr, "ratelab %s: write error: <stdout>: %s\n", cmd, strerror(e));
	stdout_failed = true;
	return CLI_EXIT_FAIL;
}

int cli_output_end(const char *cmd, int status)
{
	/* a failed write keeps its bytes in the buffer (glibc), so the flush fails again with the reason;
	 * a large write that went past the buffer leaves only the error flag */
	int e = fflush(stdout) != 0 ? errno : ferror(stdout) ? EIO : 0;

	if (!e && !stdout_failed)
		return status;
	return cli_stdout_error(cmd, e ? e : EIO);
}

int cli_output_close(const char *cmd, int status)
{
	status = cli_output_end(cmd, status);
	if (fclose(stdout) != 0 && !stdout_failed)
		status = cli_stdout_error(cmd, errno);
	return status;
}

/*
 * True when the next read of in would wait for its writer: nothing left in
 * the stream's buffer (glibc's read pointers; elsewhere taken as empty,
 * which only flushes more often) and nothing ready on its descriptor.
 */
static bool input_would_block(FILE *in)
{
#ifdef __GLIBC__
	if (in->_IO_read_ptr < in->_IO_read_end)
		return false;
#endif
	struct pollfd p = { .fd = fileno(in), .events = POLLIN };
	return p.fd >= 0 && poll(&p, 1, 0) == 0;
}

char *cli_lines_next(struct sim_lines *r)
{
	static const FILE *checked;
	static bool may_wait; /* checked is a pipe, a terminal or a socket: a read can wait for its writer */

	if (r->in != checked || r->lineno == 0) {
		struct stat st;
		checked = r->in;
		may_wait = fstat(fileno(r->in), &st) != 0 || !S_ISREG(st.st_mode);
	}
	if (may_wait && input_would_block(r->in))
		fflush(stdout); /* a failed flush leaves stdout's error flag for cli_output_end */
	return sim_lines_next(r);
}

void cli_stdout_buffered(void)
{
	static char buf[1 << 16];

	setvbuf(stdout, buf, _IOFBF, sizeof(buf));
}
