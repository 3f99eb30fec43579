/*
 * cmd_import.c - `ratelab import [--format F] [OPTIONS] [LOG ...]`: reads
 * access logs (or traces) through the importer (import.h) and writes the
 * trace, one line 'T KEY [COST]' per request in time order, to standard
 * output; COST on every line when costs were read (--cost-field, or a
 * trace's COST on some line).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "import.h"

static const char usage[] =
	"usage: ratelab import [--format F] [OPTIONS] [LOG ...]\n"
	"\n"
	"Reads access logs (the files LOG, in the order given; standard input when\n"
	"there is none or for '-'; a .gz file is decompressed) and writes the trace\n"
	"'T KEY [COST]' of their requests, sorted by time (stably: equal times keep\n"
	"their order), T in ns since the first request. Stderr names the format when\n"
	"it was detected, the time resolution, each bad line (the first 5, as\n"
	"FILE:LINE) and ends 'skipped K of N lines'.\n"
	"  --format F       auto (the default: detected from the first lines), combined\n"
	"                   (nginx/Apache combined or common: HOST IDENT USER [TIME]\n"
	"                   \"REQUEST\" STATUS BYTES ...), jsonl (one JSON object per\n"
	"                   line), csv (a header line, then records; RFC 4180 quoting),\n"
	"                   or trace ('T KEY [COST]', T in ns)\n"
	"  --key K          combined: the key is ip (default), user, path (the request's\n"
	"                   path without its query) or ip+path (the ip, then the path)\n"
	"  --time-field F   jsonl, csv: the field of the time (default time): RFC 3339\n"
	"                   (2026-10-10T13:55:36.123+02:00) or a number of --time-unit\n"
	"  --key-field F    jsonl, csv: the field of the key (default key)\n"
	"  --cost-field F   the field of the request's cost, an integer in [1, 10^9]\n"
	"                   (default: every request costs 1); combined: bytes. COST\n"
	"                   is written on every line when costs were read\n"
	"  --time-unit U    s, ms, us or ns: the unit of numeric times (a number is\n"
	"                   refused without it); a fraction is allowed down to 1 ns\n"
	"  --absolute       T in ns since 1970-01-01 UTC instead of since the first request\n"
	"  --spread         the requests of one tick of the time resolution placed\n"
	"                   evenly inside it: the k-th of m at TICK + k*RES/m\n"
	"  --strict         the first bad line is an error (exit 2), not skipped\n"
	"A key's blanks and control bytes are written %XX.\n";

enum { O_FORMAT, O_KEY, O_TIME_FIELD, O_KEY_FIELD, O_COST_FIELD, O_TIME_UNIT, O_ABSOLUTE,
       O_SPREAD, O_STRICT, O_COUNT };

static const struct cli_option options[O_COUNT] = {
	[O_FORMAT] = { "format", CLI_VALUE },         [O_KEY] = { "key", CLI_VALUE },
	[O_TIME_FIELD] = { "time-field", CLI_VALUE }, [O_KEY_FIELD] = { "key-field", CLI_VALUE },
	[O_COST_FIELD] = { "cost-field", CLI_VALUE }, [O_TIME_UNIT] = { "time-unit", CLI_VALUE },
	[O_ABSOLUTE] = { "absolute", CLI_FLAG },      [O_SPREAD] = { "spread", CLI_FLAG },
	[O_STRICT] = { "strict", CLI_FLAG },
};

/* Writes v in decimal at p; returns the end. */
static char *put_u64(char *p, uint64_t v)
{
	char d[24];
	int n = 0;
	do
		d[n++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	while (n)
		*p++ = d[--n];
	return p;
}

/* The trace's lines, through a buffer of OUT_BUF bytes: one write per buffer, not per line. */
enum { OUT_BUF = 1 << 16 };

/* n bytes of p to stdout; false once a write failed (said on stderr), and every later call then too. */
static bool put(const void *p, size_t n)
{
	static bool failed;

	if (!failed && fwrite(p, 1, n, stdout) != n) {
		failed = true;
		cli_stdout_error("import", errno);
	}
	return !failed;
}

static int write_trace(const struct sim_trace *t)
{
	size_t *len = malloc((t->nkeys ? t->nkeys : 1) * sizeof(*len));
	char *buf = malloc(OUT_BUF), *p = buf;
	int status = CLI_EXIT_OK;

	if (!len || !buf) {
		free(len);
		free(buf);
		fputs("ratelab import: out of memory\n", stderr);
		return CLI_EXIT_FAIL;
	}
	char last[24]; /* the last time's digits and a blank: many requests share a time */
	size_t last_len = 0;
	int64_t last_t = -1;

	for (size_t k = 0; k < t->nkeys; k++)
		len[k] = strlen(t->key_name[k]);
	for (size_t i = 0; i < t->n; i++) {
		size_t kl = len[t->key[i]];
		if (t->t_ns[i] != last_t) {
			last_t = t->t_ns[i];
			last_len = (size_t)(put_u64(last, (uint64_t)last_t) - last);
			last[last_len++] = ' ';
		}
		if ((size_t)(buf + OUT_BUF - p) < kl + 48) {
			if (!put(buf, (size_t)(p - buf)))
				break;
			p = buf;
		}
		memcpy(p, last, last_len);
		p += last_len;
		if (kl + 48 > OUT_BUF) { /* a key too long for the buffer: written on its own */
			if (!put(buf, (size_t)(p - buf)) || !put(t->key_name[t->key[i]], kl))
				break;
			p = buf;
		} else {
			memcpy(p, t->key_name[t->key[i]], kl);
			p += kl;
		}
		if (t->cost_read) {
			*p++ = ' ';
			p = put_u64(p, t->cost[i]);
		}
		*p++ = '\n';
	}
	put(buf, (size_t)(p - buf));
	free(buf);
	free(len);
	return cli_output_end("import", status);
}

int cli_cmd_import(int argc, char **argv)
{
	struct cli_args a;
	struct sim_trace t;
	int status = cli_parse("import", argc, argv, options, O_COUNT, CLI_MAX_POS, &a);

	if (status == CLI_HELP) {
		fputs(usage, stdout);
		return cli_output_end("import", CLI_EXIT_OK);
	}
	if (status)
		return status;
	struct sim_import_opts o = {
		.format = a.value[O_FORMAT],
		.key = a.value[O_KEY],
		.time_field = a.value[O_TIME_FIELD],
		.key_field = a.value[O_KEY_FIELD],
		.cost_field = a.value[O_COST_FIELD],
		.time_unit = a.value[O_TIME_UNIT],
		.absolute = a.value[O_ABSOLUTE] != NULL,
		.spread = a.value[O_SPREAD] != NULL,
		.strict = a.value[O_STRICT] != NULL,
		.cmd = "import",
	};
	fflush(stdout);
	if ((status = sim_import(&o, a.pos, a.npos, &t, stderr)))
		return status;
	if (t.n == 0) { /* an empty trace out would look like a log with nothing in it was read well */
		sim_trace_free(&t);
		if (a.npos > 1)
			return cli_usage_error("import", "%s and the %zu other logs hold no request", cli_quote(a.pos[0]),
					       a.npos - 1);
		return cli_usage_error("import", "%s holds no request",
				       a.npos && strcmp(a.pos[0], "-") ? cli_quote(a.pos[0]) : "standard input");
	}
	cli_stdout_buffered();
	status = write_trace(&t);
	sim_trace_free(&t);
	return status;
}
