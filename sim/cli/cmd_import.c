/*
 * cmd_import.c - `ratelab import [--format F] [OPTIONS] [LOG ...]`: reads
 * access logs (or traces) through the importer (import.h) and writes the
 * trace, one line 'T KEY [COST]' per request in time order, to standard
 * output, after a comment line "# ratelab trace: resolution_ns=R
 * spread=yes|no origin_ns=O" that `ratelab import` and `ratelab study`
 * honour when they read the trace (other readers skip it as a comment);
 * COST on every line when costs were read (--cost-field, or a trace's COST
 * on some line); 'T KEY COST ACTUAL DONE_T' on every line when settles were
 * read (--actual-field and --duration-field, or a trace's settle lines:
 * ACTUAL = COST and DONE_T = T on a line that settles nothing).
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
	"'T KEY [COST [ACTUAL DONE_T]]' of their requests, sorted by time (stably: equal times keep\n"
	"their order), T in ns since 1970-01-01 UTC, after a line '# ratelab trace:\n"
	"resolution_ns=R spread=yes|no origin_ns=O'. Stderr names the format when it\n"
	"was detected, the time resolution, each bad line (the first 5, as FILE:LINE),\n"
	"the bad lines by reason, and ends 'skipped K of N lines'. A bad line is\n"
	"skipped wherever it stands; an input with no request is an error.\n"
	"  --format F       auto (the default: detected from the first lines), combined\n"
	"                   (nginx/Apache combined or common: HOST IDENT USER [TIME]\n"
	"                   \"REQUEST\" STATUS BYTES ...), vhost_combined (Apache's:\n"
	"                   VHOST:PORT first), alb (AWS Application or Classic Load\n"
	"                   Balancer), haproxy (HAProxy's HTTP log behind a syslog\n"
	"                   prefix), caddy (Caddy's JSON access log), jsonl (one JSON\n"
	"                   object per line), csv (a header line, then records; RFC 4180\n"
	"                   quoting, line breaks inside quotes), or trace ('T KEY [COST]')\n"
	"  --key K          combined, vhost_combined: the key is ip (default), user (a\n"
	"                   request without one keyed by its ip), path (the request's\n"
	"                   path without its query) or ip+path; alb, haproxy: ip (the\n"
	"                   client's address without its port), path or ip+path\n"
	"  --time-field F   jsonl, caddy, csv: the field of the time (default time;\n"
	"                   caddy ts): ISO 8601 or RFC 3339 (2026-10-10T13:55:36.123+02:00;\n"
	"                   without an offset: --tz), DD/Mon/YYYY:HH:MM:SS +HHMM, or a\n"
	"                   number of --time-unit. A dotted name is a nested field\n"
	"  --key-field F    jsonl, caddy, csv: the field of the key (default key; caddy\n"
	"                   request.remote_ip); e.g. request.remote_ip\n"
	"  --cost-field F   the field of the request's cost, an integer in [1, 10^12]\n"
	"                   (default: every request costs 1); combined, vhost_combined,\n"
	"                   alb, haproxy: bytes. COST is written on every line when\n"
	"                   costs were read\n"
	"  --actual-field G, --duration-field D\n"
	"                   jsonl, caddy, csv, with --cost-field F (the estimate\n"
	"                   charged when the request is decided): the request's real\n"
	"                   cost G (an integer in [0, 10^9]) and its response time D;\n"
	"                   each line is then 'T KEY COST ACTUAL DONE_T', settled by\n"
	"                   ACTUAL - COST at DONE_T = T + D (replay, study). A missing\n"
	"                   or negative value is a bad line (reason cost or time)\n"
	"  --duration-unit U  s (default: seconds with a fraction, as nginx's\n"
	"                   $request_time 0.250), ms, us or ns; kept to the ns\n"
	"  --time-unit U    s, ms, us or ns: the unit of numeric times (a number is\n"
	"                   a bad line without it; caddy: s); a fraction down to 1 ns\n"
	"  --time-format F  jsonl, caddy, csv: the time field read by a strptime-style\n"
	"                   format, e.g. '%d/%b/%Y:%H:%M:%S %z' (%S takes a fraction;\n"
	"                   %f fraction digits, %s epoch seconds)\n"
	"  --tz +HH:MM      the UTC offset of times written without one (default UTC;\n"
	"                   HAProxy's dates have none); stderr counts them\n"
	"  --relative       T in ns since the first request (origin_ns says when that\n"
	"                   was), as `ratelab sim`'s replay sources want it\n"
	"  --absolute       T in ns since 1970-01-01 UTC (the default)\n"
	"  --spread         the requests of one tick of the time resolution placed\n"
	"                   evenly inside it: the k-th of m at TICK + k*RES/m\n"
	"  --strict         the first bad line is an error (exit 2), not skipped\n"
	"A key's blanks and control bytes are written %XX. The same file named twice\n"
	"is an error.\n";

enum { O_FORMAT, O_KEY, O_TIME_FIELD, O_KEY_FIELD, O_COST_FIELD, O_TIME_UNIT, O_ABSOLUTE,
       O_SPREAD, O_STRICT, O_TIME_FORMAT, O_TZ, O_RELATIVE, O_ACTUAL_FIELD, O_DURATION_FIELD,
       O_DURATION_UNIT, O_COUNT };

static const struct cli_option options[O_COUNT] = {
	[O_FORMAT] = { "format", CLI_VALUE },         [O_KEY] = { "key", CLI_VALUE },
	[O_TIME_FIELD] = { "time-field", CLI_VALUE }, [O_KEY_FIELD] = { "key-field", CLI_VALUE },
	[O_COST_FIELD] = { "cost-field", CLI_VALUE }, [O_TIME_UNIT] = { "time-unit", CLI_VALUE },
	[O_ABSOLUTE] = { "absolute", CLI_FLAG },      [O_SPREAD] = { "spread", CLI_FLAG },
	[O_STRICT] = { "strict", CLI_FLAG },	      [O_TIME_FORMAT] = { "time-format", CLI_VALUE },
	[O_TZ] = { "tz", CLI_VALUE },		      [O_RELATIVE] = { "relative", CLI_FLAG },
	[O_ACTUAL_FIELD] = { "actual-field", CLI_VALUE }, [O_DURATION_FIELD] = { "duration-field", CLI_VALUE },
	[O_DURATION_UNIT] = { "duration-unit", CLI_VALUE },
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
	p += snprintf(p, 128, "# ratelab trace: resolution_ns=%lld spread=%s origin_ns=%lld\n",
		      (long long)t->resolution_ns, t->spread ? "yes" : "no", (long long)t->origin_ns);
	for (size_t i = 0; i < t->n; i++) {
		size_t kl = len[t->key[i]];
		if (t->t_ns[i] != last_t) {
			last_t = t->t_ns[i];
			last_len = (size_t)(put_u64(last, (uint64_t)last_t) - last);
			last[last_len++] = ' ';
		}
		if ((size_t)(buf + OUT_BUF - p) < kl + 96) {
			if (!put(buf, (size_t)(p - buf)))
				break;
			p = buf;
		}
		memcpy(p, last, last_len);
		p += last_len;
		if (kl + 96 > OUT_BUF) { /* a key too long for the buffer: written on its own */
			if (!put(buf, (size_t)(p - buf)) || !put(t->key_name[t->key[i]], kl))
				break;
			p = buf;
		} else {
			memcpy(p, t->key_name[t->key[i]], kl);
			p += kl;
		}
		if (t->cost_read || t->actual) {
			*p++ = ' ';
			p = put_u64(p, t->cost[i]);
		}
		if (t->actual) {
			*p++ = ' ';
			p = put_u64(p, t->actual[i]);
			*p++ = ' ';
			p = put_u64(p, (uint64_t)t->done_ns[i]);
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
		.actual_field = a.value[O_ACTUAL_FIELD],
		.duration_field = a.value[O_DURATION_FIELD],
		.duration_unit = a.value[O_DURATION_UNIT],
		.time_unit = a.value[O_TIME_UNIT],
		.time_format = a.value[O_TIME_FORMAT],
		.tz = a.value[O_TZ],
		.absolute = !a.value[O_RELATIVE],
		.spread = a.value[O_SPREAD] != NULL,
		.strict = a.value[O_STRICT] != NULL,
		.cmd = "import",
	};
	if (a.value[O_RELATIVE] && a.value[O_ABSOLUTE])
		return cli_usage_error("import", "--relative and --absolute are each other's opposite: give one");
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
