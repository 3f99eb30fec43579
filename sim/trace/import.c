/*
 * import.c - the one loader of a trace or log into struct sim_trace.
 * Model: every line of every file, in the order given, read by
 * its format's reader (import_impl.h) into a request record (time, key
 * id, cost) or counted as bad (by reason, the first places kept; strict:
 * the first is the end); then the records sorted stably by time (a log is
 * written at completion, not arrival; file_order keeps them as read),
 * spread inside their tick when asked, made relative to the
 * first request unless absolute, and split into the trace's arrays. Keys
 * are interned in first-seen order of the input. A request of cost 0 takes
 * nothing: every algorithm admits it and changes no state, so it is
 * counted and left out (the library refuses cost 0 in a check).
 *
 * The time resolution: the coarsest power of ten of ns, up to 1 s, of
 * which every time is a whole multiple (1 s for the common log format);
 * for a trace 1 ns, or what its "# ratelab trace:" line says.
 *
 * Messages: each bad line (the first IMP_SHOWN of them) as it is met,
 * then what was detected, the resolution, the times read at an assumed
 * offset, the requests of cost 0 and those keyed by their address, the
 * bad lines by reason, and last "skipped K of N lines".
 * With --strict, or on a fatal error, one message and nothing else.
 */
#include "import.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "csv.h"
#include "import_impl.h"
#include "import_time.h"
#include "lines.h"
#include "ratelab/parse.h"
#include "ratelab/rule.h"
#include "ratelab/status.h"
#include "trace_line.h"

enum { IMP_SHOWN = 5 };
enum { EXIT_FAIL = 1, EXIT_USAGE = 2 };

static const char *const format_names[IMP_NFORMATS] = {
	[IMP_COMBINED] = "combined", [IMP_JSONL] = "jsonl", [IMP_CSV] = "csv", [IMP_TRACE] = "trace",
	[IMP_ALB] = "alb", [IMP_CADDY] = "caddy", [IMP_VHOST] = "vhost_combined", [IMP_HAPROXY] = "haproxy",
};

const char *const sim_import_skip_name[SIM_SKIP_COUNT] = {
	[SIM_SKIP_SHAPE] = "shape", [SIM_SKIP_TIME] = "time", [SIM_SKIP_KEY] = "key",
	[SIM_SKIP_COST] = "cost", [SIM_SKIP_LONG] = "too_long", [SIM_SKIP_NUL] = "nul",
};

const char *const sim_import_skip_words[SIM_SKIP_COUNT] = {
	[SIM_SKIP_SHAPE] = "not a line of the format", [SIM_SKIP_TIME] = "their time",
	[SIM_SKIP_KEY] = "their key", [SIM_SKIP_COST] = "their cost",
	[SIM_SKIP_LONG] = "longer than 16 MiB", [SIM_SKIP_NUL] = "a NUL byte",
};

struct ctx {
	const struct sim_import_opts *o;
	FILE *err;
	const char *cmd;
	struct imp im;
	bool detected;
	char detected_at[96];
	struct imp_rec *rec;
	size_t n, cap;
	struct imp_keys keys;
	struct imp_buf copy;      /* a copy of the line: the trace reader splits the line in place */
	struct imp_buf record;    /* csv: a record whose quoted field spans lines, joined */
	size_t lines, bad;
	struct sim_import_stats st; /* o->stats' copy, filled as lines are read */
	int64_t res_ns;
	const char *file;         /* the current file's name in messages */
	long lineno;
	int64_t file_origin;      /* a trace's "# ratelab trace: origin_ns=": added to its times */
	int64_t first_origin;     /* file_origin at the first request (as_written's t->origin_ns) */
	bool failed;              /* quiet (o->msg): the failure's message is written */
	struct imp_settles settles; /* beside rec: real costs and response times (import_settle.c) */
};


/*
 * "ratelab CMD: message\n" on err, control bytes escaped; quiet (o->msg):
 * the first failure's message into o->msg as it is, nothing else. Returns status.
 */
static int say(struct ctx *c, int status, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (c->o->msg && (!status || c->failed))
		return status;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (c->o->msg) {
		snprintf(c->o->msg, c->o->msg_len, "%s", msg);
		c->failed = true;
		return status;
	}
	fprintf(c->err, "ratelab %s: ", c->cmd);
	for (const unsigned char *p = (const unsigned char *)msg; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			fprintf(c->err, "\\x%02x", *p);
		else
			fputc(*p, c->err);
	fputc('\n', c->err);
	return status;
}

static int oom(struct ctx *c)
{
	c->st.out_of_memory = true;
	return say(c, EXIT_FAIL, "out of memory after %zu requests", c->n);
}

/*
 * A bad line (text NULL for one that holds a NUL byte): counted, shown
 * (the first IMP_SHOWN) in the words of every command (trace_line.h), or
 * with --strict the end.
 */
static int bad_line(struct ctx *c, const char *text, const char *why, enum sim_import_skip reason)
{
	char msg[512];
	size_t k = c->st.skip[reason]++;
	long at = c->lineno + c->im.why_line; /* a CSV record's problem may lie on a later line of it */

	if (k < SIM_IMPORT_EXAMPLES)
		snprintf(c->st.where[reason][k], SIM_IMPORT_WHERE, "%s:%ld", c->file, at);
	c->bad++;
	sim_trace_line_error(msg, sizeof(msg), c->file, at, text, why);
	if (c->st.nexamples < SIM_IMPORT_FIRST_BAD)
		snprintf(c->st.example[c->st.nexamples++], sizeof(c->st.example[0]), "%s", msg);
	if (c->o->strict)
		return say(c, EXIT_USAGE, "%s", msg);
	if (c->bad <= IMP_SHOWN)
		say(c, 0, "%s", msg);
	if (c->bad == IMP_SHOWN + 1)
		say(c, 0, "(further bad lines are counted, not shown)");
	return 0;
}

static bool in(const char *v, const char *const *set, size_t n, size_t *at)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v, set[i]) == 0) {
			*at = i;
			return true;
		}
	return false;
}

/* The options that need no input: their values. */
static int check_values(struct ctx *c)
{
	static const char *const keys[] = { "ip", "user", "path", "ip+path" };
	static const char *const units[] = { "ns", "us", "ms", "s" };
	static const int64_t unit_ns[] = { 1, 1000, 1000000, 1000000000 };
	const struct sim_import_opts *o = c->o;
	char q[SIM_QUOTE_SIZE];
	const char *why;
	size_t at;

	if (o->format && strcmp(o->format, "auto") != 0) {
		if (!in(o->format, format_names, IMP_NFORMATS, &at))
			return say(c, EXIT_USAGE, "--format %s is not auto, combined, vhost_combined, alb, haproxy, "
				   "caddy, jsonl, csv or trace", sim_quote(q, o->format));
		c->im.format = (enum imp_format)at;
		c->detected = false;
	} else {
		c->detected = true;
	}
	if (o->key && !in(o->key, keys, 4, &at))
		return say(c, EXIT_USAGE, "--key %s is not ip, user, path or ip+path",
			   sim_quote(q, o->key));
	c->im.key_mode = o->key ? (enum imp_key)at : IMP_KEY_IP;
	if (o->time_unit && !in(o->time_unit, units, 4, &at))
		return say(c, EXIT_USAGE, "--time-unit %s is not s, ms, us or ns",
			   sim_quote(q, o->time_unit));
	c->im.unit_ns = o->time_unit ? unit_ns[at] : 0;
	const char *const fields[3] = { o->time_field, o->key_field, o->cost_field };
	static const char *const field_opts[3] = { "--time-field", "--key-field", "--cost-field" };
	for (int i = 0; i < 3; i++)
		if (fields[i] && !fields[i][0])
			return say(c, EXIT_USAGE, "%s is empty: it names a field", field_opts[i]);
	if (o->tz && !sim_time_offset(o->tz, strlen(o->tz), &c->im.tz_s))
		return say(c, EXIT_USAGE, "--tz %s is not a UTC offset +HH:MM or -HH:MM (e.g. +02:00)",
			   sim_quote(q, o->tz));
	int tz_min = (c->im.tz_s < 0 ? -c->im.tz_s : c->im.tz_s) / 60;
	snprintf(c->st.tz, sizeof(c->st.tz), "%c%02d:%02d", c->im.tz_s < 0 ? '-' : '+', tz_min / 60 % 100,
		 tz_min % 60);
	if (o->time_format && !sim_time_format_check(o->time_format, &why))
		return say(c, EXIT_USAGE, "--time-format %s %s", sim_quote(q, o->time_format), why);
	if (o->time_format && o->time_unit)
		return say(c, EXIT_USAGE, "--time-unit does not apply with --time-format (its %%s is epoch seconds)");
	c->im.time_format = o->time_format;
	c->im.time_field = o->time_field ? o->time_field : "time";
	c->im.key_field = o->key_field ? o->key_field : "key";
	c->im.cost_field = o->cost_field;
	c->im.want_cost = o->cost_field != NULL;
	/* settles: the real cost and the response time together, beside the estimate */
	const char *const set[2] = { o->actual_field, o->duration_field };
	static const char *const set_opts[2] = { "--actual-field", "--duration-field" };
	for (int i = 0; i < 2; i++)
		if (set[i] && !set[i][0])
			return say(c, EXIT_USAGE, "%s is empty: it names a field", set_opts[i]);
	if ((o->actual_field || o->duration_field) && !o->cost_field)
		return say(c, EXIT_USAGE, "%s needs --cost-field F: the estimate charged at the decision, which the "
			   "real cost settles", o->actual_field ? "--actual-field" : "--duration-field");
	if (!o->actual_field != !o->duration_field)
		return say(c, EXIT_USAGE, "%s needs %s: a settle is the real cost at the response's end",
			   o->actual_field ? "--actual-field" : "--duration-field",
			   o->actual_field ? "--duration-field D" : "--actual-field G");
	if (o->duration_unit && !o->duration_field)
		return say(c, EXIT_USAGE, "--duration-unit is given without --duration-field");
	if (o->duration_unit && !in(o->duration_unit, units, 4, &at))
		return say(c, EXIT_USAGE, "--duration-unit %s is not s, ms, us or ns", sim_quote(q, o->duration_unit));
	c->im.duration_unit_ns = o->duration_unit ? unit_ns[at] : 1000000000;
	c->im.actual_field = o->actual_field;
	c->im.duration_field = o->duration_field;
	return 0;
}

/*
 * The options that do not apply to the format (known now): refused; the
 * format's defaults (caddy: its fields and unit) applied.
 */
static int check_applies(struct ctx *c)
{
	const struct sim_import_opts *o = c->o;
	const char *f = format_names[c->im.format];
	char q[SIM_QUOTE_SIZE];
	if (o->actual_field && c->im.format != IMP_JSONL && c->im.format != IMP_CADDY && c->im.format != IMP_CSV)
		return say(c, EXIT_USAGE, "--actual-field and --duration-field apply to jsonl, caddy and csv (fields "
			   "by name), not to %s%s", f, c->im.format == IMP_TRACE ? ", whose settle lines "
			   "'T KEY COST ACTUAL DONE_T' are read as they are" : "");
	const char *not_field = o->time_field ? "--time-field" : o->key_field ? "--key-field" :
				o->time_unit ? "--time-unit" : o->time_format ? "--time-format" : NULL;

	switch (c->im.format) {
	case IMP_COMBINED:
	case IMP_VHOST:
		if (not_field)
			return say(c, EXIT_USAGE, "%s does not apply to the %s format (its time is "
				   "in brackets; its key is --key ip, user, path or ip+path)", not_field, f);
		break;
	case IMP_ALB:
	case IMP_HAPROXY:
		if (not_field)
			return say(c, EXIT_USAGE, "%s does not apply to the %s format (its time is its own; "
				   "its key is --key ip, path or ip+path)", not_field, f);
		if (c->im.key_mode == IMP_KEY_USER)
			return say(c, EXIT_USAGE, "--key user does not apply to the %s format: it has no user "
				   "(--key ip, path or ip+path)", f);
		break;
	case IMP_JSONL:
	case IMP_CSV:
	case IMP_CADDY:
		if (o->key)
			return say(c, EXIT_USAGE, "--key applies to the combined, vhost_combined, alb and haproxy "
				   "formats only (%s takes --key-field)", f);
		if (c->im.format == IMP_CADDY) {
			c->im.time_field = o->time_field ? o->time_field : "ts";
			c->im.key_field = o->key_field ? o->key_field : "request.remote_ip";
			c->im.key_addr_field = o->key_field ? NULL : "request.remote_addr";
			if (!o->time_unit)
				c->im.unit_ns = 1000000000; /* ts: Unix seconds with a fraction */
		}
		return 0;
	case IMP_TRACE:
		if (o->key || o->time_field || o->key_field || o->cost_field || o->time_unit || o->time_format ||
		    o->tz)
			return say(c, EXIT_USAGE, "%s does not apply to a trace ('T KEY [COST]', T in ns)",
				   o->key ? "--key" : o->time_field ? "--time-field" : o->key_field ?
				   "--key-field" : o->cost_field ? "--cost-field" : o->time_unit ? "--time-unit" :
				   o->time_format ? "--time-format" : "--tz");
		return 0;
	case IMP_NFORMATS:
		break;
	}
	if (o->cost_field && strcmp(o->cost_field, "bytes") != 0)
		return say(c, EXIT_USAGE, "--cost-field %s: the %s format's only cost is "
			   "'bytes', the size of the response", sim_quote(q, o->cost_field), f);
	return 0;
}

/* Caddy's access log: a JSON object with its logger's name, or its "ts" and "request". */
static bool caddy_like(const char *line, size_t len)
{
	static const char *const marks[] = { "\"logger\":\"http.log.access", "\"ts\":", "\"request\":" };
	bool has[3] = { false, false, false };

	for (int m = 0; m < 3; m++) {
		size_t ml = strlen(marks[m]);
		for (const char *p = line; !has[m] && (p = memchr(p, '"', len - (size_t)(p - line))); p++)
			has[m] = len - (size_t)(p - line) >= ml && !memcmp(p, marks[m], ml);
	}
	return has[0] || (has[1] && has[2]);
}

/* The format a line is in, or -1 (-2: out of memory). */
static int detect(struct ctx *c, const char *line, size_t len)
{
	struct imp probe = c->im;
	struct imp_fields f;
	const char *p = line + strspn(line, " \t");
	static const enum imp_format tried[] = { IMP_COMBINED, IMP_VHOST, IMP_ALB, IMP_HAPROXY };

	probe.key_mode = IMP_KEY_IP;
	probe.want_cost = false;
	if (*p == '{')
		return caddy_like(line, len) ? IMP_CADDY : IMP_JSONL;
	for (size_t k = 0; k < sizeof(tried) / sizeof(tried[0]); k++) {
		const char *why = tried[k] == IMP_COMBINED ? imp_combined(&probe, (char *)line, len, &f) :
				  tried[k] == IMP_VHOST ? imp_vhost(&probe, (char *)line, len, &f) :
				  tried[k] == IMP_ALB ? imp_alb(&probe, (char *)line, len, &f) :
				  imp_haproxy(&probe, (char *)line, len, &f);
		if (!why)
			return (int)tried[k];
	}
	c->copy.len = 0;
	if (!imp_buf_reserve(&c->copy, len + 1))
		return -2;
	memcpy(c->copy.p, line, len + 1);
	if (*p == '#' || !imp_trace(&probe, c->copy.p, len, &f))
		return IMP_TRACE;
	if (memchr(line, ',', len))
		return IMP_CSV;
	return -1;
}

/* One line that should hold a request: a record, or a bad line. 0, or the exit status. */
static int take_line(struct ctx *c, char *line, size_t len, bool too_long)
{
	struct imp_fields f = { .cost = 1 };
	const char *why;

	c->lines++;
	if (too_long)
		return bad_line(c, line, "longer than 16 MiB", SIM_SKIP_LONG);
	if (memchr(line, '\0', len))
		return bad_line(c, NULL, SIM_TRACE_LINE_NUL, SIM_SKIP_NUL);
	bool trace_cost = c->im.trace_cost; /* sticky: cleared to see this line's */
	c->im.trace_cost = false;
	c->im.reason = SIM_SKIP_SHAPE;
	c->im.why_line = 0;
	switch (c->im.format) {
	case IMP_COMBINED: why = imp_combined(&c->im, line, len, &f); break;
	case IMP_VHOST: why = imp_vhost(&c->im, line, len, &f); break;
	case IMP_ALB: why = imp_alb(&c->im, line, len, &f); break;
	case IMP_HAPROXY: why = imp_haproxy(&c->im, line, len, &f); break;
	case IMP_JSONL:
	case IMP_CADDY: why = imp_jsonl(&c->im, line, len, &f); break;
	case IMP_CSV: why = imp_csv(&c->im, line, len, &f); break;
	default:
		why = imp_trace(&c->im, line, len, &f);
		if (!why && c->file_origin) {
			if (f.t_ns > RL_TIME_MAX_NS - c->file_origin)
				why = SIM_TRACE_PAST_ORIGIN;
			else
				f.t_ns += c->file_origin;
		}
		break;
	}
	bool costed = c->im.want_cost || c->im.trace_cost;
	c->im.trace_cost |= trace_cost;
	if (!why && (f.cost > SIM_TRACE_COST_MAX || (f.settle && f.actual > SIM_TRACE_COST_MAX))) {
		snprintf(c->im.why, sizeof(c->im.why), "cost '%lld' is above %lld, one request's bound in a trace",
			 (long long)(f.cost > SIM_TRACE_COST_MAX ? f.cost : f.actual), SIM_TRACE_COST_MAX);
		why = c->im.why;
		c->im.reason = SIM_SKIP_COST;
	}
	if (why)
		return bad_line(c, c->im.format == IMP_TRACE ? c->copy.p : line, why, c->im.reason);
	if (f.cost == 0) { /* takes nothing: admitted by every algorithm, no state changed, nothing to decide */
		c->st.cost_zero++;
		return 0;
	}
	int64_t id = imp_keys_intern(&c->keys, &f);
	if (id < 0)
		return c->keys.nkeys >= IMP_KEYS_MAX ? say(c, EXIT_FAIL, "more than %lu keys", (unsigned long)IMP_KEYS_MAX)
						     : oom(c);
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 1 << 16;
		struct imp_rec *rec = realloc(c->rec, cap * sizeof(*rec));
		if (!rec)
			return oom(c);
		c->rec = rec;
		c->cap = cap;
	}
	if (f.settle && f.dur_ns > RL_TIME_MAX_NS - f.t_ns) {
		c->im.reason = SIM_SKIP_TIME;
		return bad_line(c, c->im.format == IMP_TRACE ? c->copy.p : line, "its response ends past 4*10^18 ns",
				SIM_SKIP_TIME);
	}
	if (!imp_settles_put(&c->settles, c->rec, c->n, &f))
		return oom(c);
	if (!c->n)
		c->first_origin = c->file_origin;
	/* as written: a line without COST is 0, for the reader's own default */
	uint32_t cost = c->o->as_written && !costed ? 0 : (uint32_t)f.cost;
	c->rec[c->n++] = (struct imp_rec){ f.t_ns, (uint32_t)id, cost };
	c->st.without_cost += !costed;
	c->st.no_offset += f.no_offset;
	c->st.anon += f.anon;
	if (c->im.format != IMP_TRACE)
		while (c->res_ns > 1 && f.t_ns % c->res_ns)
			c->res_ns /= 10;
	return 0;
}

/*
 * A trace's own line "# ratelab trace: resolution_ns=R spread=yes|no
 * origin_ns=O" (as `ratelab import` writes it): the source's resolution
 * kept, the origin added to the file's times. Other comments are skipped.
 */
static void trace_comment(struct ctx *c, const char *line)
{
	struct sim_trace_header h;

	if (!sim_trace_header_parse(line, &h))
		return;
	if (h.resolution_ns > c->im.trace_res_ns)
		c->im.trace_res_ns = h.resolution_ns;
	c->file_origin = h.origin_ns;
	c->im.trace_spread |= h.spread;
}

/* A line of requests (no header): the trace's comments skipped, the rest taken. 0, or the exit status. */
static int data_line(struct ctx *c, char *line, size_t len, bool too_long)
{
	if (c->im.format != IMP_TRACE)
		return take_line(c, line, len, too_long);
	/* a comment that holds a NUL byte is refused as any such line (lines.h), not read short */
	if (line[strspn(line, " \t")] == '#' && !memchr(line, '\0', len)) {
		trace_comment(c, line);
		return 0;
	}
	/* The trace reader splits the line: messages quote the copy. */
	c->copy.len = 0;
	if (!imp_buf_reserve(&c->copy, len + 1))
		return oom(c);
	memcpy(c->copy.p, line, len + 1);
	return take_line(c, line, len, too_long);
}

/*
 * The lines met before the format is known: up to DETECT_LINES are tried
 * (a rotated log may open with a line cut short), kept, and read once
 * the format is known. CSV is recognised on the first line only: it is
 * the header.
 */
enum { DETECT_LINES = 5 };
static const char known_formats[] = "not combined, vhost_combined, alb, haproxy, caddy, JSON lines, CSV with a "
				    "header, or a trace";
struct pending {
	struct imp_buf text[DETECT_LINES];
	long lineno[DETECT_LINES];
	bool too_long[DETECT_LINES];
	int n;
};

/*
 * Detection on one more line: 1 when the format is now known (the kept
 * lines read), 0 to keep looking, or the negated exit status.
 */
static int detect_more(struct ctx *c, struct pending *pd, char *line, size_t len, bool too_long)
{
	char q[SIM_QUOTE_SIZE];
	int fmt = detect(c, line, len), status;

	if (fmt == -2)
		return -oom(c);
	if (fmt == IMP_CSV && pd->n > 0)
		fmt = -1;
	if (fmt < 0) {
		if (pd->n == DETECT_LINES - 1) {
			const char *first = pd->text[0].p;
			return -say(c, EXIT_USAGE, "%s:%ld: cannot tell the log's format from its first %d lines "
				    "(%s; the first: %s): give --format", c->file, pd->lineno[0], DETECT_LINES,
				    known_formats, sim_quote(q, first));
		}
		struct imp_buf *b = &pd->text[pd->n];
		b->len = 0;
		if (!imp_buf_reserve(b, len + 1))
			return -oom(c);
		memcpy(b->p, line, len + 1);
		b->len = len;
		pd->lineno[pd->n] = c->lineno;
		pd->too_long[pd->n++] = too_long;
		return 0;
	}
	c->im.format = (enum imp_format)fmt;
	snprintf(c->detected_at, sizeof(c->detected_at), "%.80s:%ld", c->file, c->lineno);
	if ((status = check_applies(c)))
		return -status;
	long at = c->lineno;
	for (int i = 0; i < pd->n; i++) {
		c->lineno = pd->lineno[i];
		if ((status = data_line(c, pd->text[i].p, pd->text[i].len, pd->too_long[i])))
			return -status;
	}
	c->lineno = at;
	return 1;
}

/* Every line of one file. 0, or the exit status. */
static int read_file(struct ctx *c, const char *path)
{
	struct imp_reader r;
	struct pending pd = { .n = 0 };
	char *line;
	size_t len;
	int rc = 0, status = 0;
	bool detect_here = c->detected && !c->detected_at[0];
	bool header = !detect_here && c->im.format == IMP_CSV; /* each CSV file opens with its header */

	c->file = c->o->in ? path : !path || strcmp(path, "-") == 0 ? "stdin" : path;
	c->file_origin = 0;
	if (c->o->in && !imp_reader_open_file(&r, c->o->in)) /* open already: its first read failed */
		return errno == ENOMEM ? oom(c) : say(c, EXIT_FAIL, "%s:1: cannot read: %s", c->file, strerror(errno));
	if (!c->o->in && !imp_reader_open(&r, path)) {
		char q[SIM_QUOTE_SIZE];
		return say(c, EXIT_USAGE, "cannot open %s: %s", sim_quote(q, c->file), strerror(errno));
	}
	while (status == 0 && (rc = imp_reader_next(&r, &line, &len)) > 0) {
		c->lineno = r.lineno;
		if (r.lineno == 1 && len >= 3 && !memcmp(line, "\xEF\xBB\xBF", 3)) {
			line += 3;
			len -= 3;
		}
		while (len > 0 && line[len - 1] == '\r')
			line[--len] = '\0';
		if ((len == 0 || line[0] == ' ' || line[0] == '\t') && strspn(line, " \t") == len && !r.too_long)
			continue;
		if (detect_here) {
			int d = detect_more(c, &pd, line, len, r.too_long);
			if (d <= 0) {
				status = -d;
				continue;
			}
			detect_here = false;
			header = c->im.format == IMP_CSV;
		}
		bool too_long = r.too_long;
		int csv_state;
		if (c->im.format == IMP_CSV && !too_long && memchr(line, '"', len) &&
		    (csv_state = sim_csv_scan(line, len, SIM_CSV_START)) == SIM_CSV_QUOTED) {
			/* RFC 4180: a quoted field holds line breaks; the record read on to its end */
			c->record.len = 0;
			if (!imp_buf_reserve(&c->record, len + 1)) {
				status = oom(c);
				continue;
			}
			memcpy(c->record.p, line, len);
			c->record.len = len;
			while (!too_long && csv_state == SIM_CSV_QUOTED && (rc = imp_reader_next(&r, &line, &len)) > 0) {
				while (len > 0 && line[len - 1] == '\r')
					line[--len] = '\0';
				too_long = r.too_long || c->record.len + 1 + len > IMP_LINE_MAX;
				if (!imp_buf_reserve(&c->record, len + 2)) {
					status = oom(c);
					break;
				}
				if (!too_long) {
					c->record.p[c->record.len++] = '\n';
					memcpy(c->record.p + c->record.len, line, len);
					c->record.len += len;
					csv_state = sim_csv_scan(line, len, csv_state);
				}
			}
			if (status || rc < 0)
				break;
			c->record.p[c->record.len] = '\0';
			line = c->record.p;
			len = c->record.len;
		}
		if (header) {
			c->im.why_line = 0;
			const char *why = imp_csv_header(&c->im, line, len);
			char msg[512];
			header = false;
			if (why) {
				sim_trace_line_error(msg, sizeof(msg), c->file, c->lineno + c->im.why_line, line, why);
				status = say(c, EXIT_USAGE, "%s", msg);
			}
			continue;
		}
		status = data_line(c, line, len, too_long);
	}
	if (status == 0 && rc < 0)
		status = say(c, imp_reader_bad_data(&r) ? EXIT_USAGE : EXIT_FAIL, "%s:%ld: cannot read: %s",
			     c->file, r.lineno + 1, imp_reader_error(&r));
	if (status == 0 && detect_here && pd.n > 0) {
		char q[SIM_QUOTE_SIZE];
		status = say(c, EXIT_USAGE, "%s:%ld: cannot tell the log's format from %s (%s): give --format",
			     c->file, pd.lineno[0], sim_quote(q, pd.text[0].p), known_formats);
	}
	if (status == 0 && r.trailing)
		say(c, 0, "%s: warning: %llu bytes of trailing data after the gzip data, not gzip: not read", c->file,
		    (unsigned long long)r.trailing);
	for (int i = 0; i < DETECT_LINES; i++)
		free(pd.text[i].p);
	imp_reader_close(&r);
	return status;
}

/* "1s", "100ms", ... "1ns": a power of ten of ns up to 1 s. */
static const char *resolution_text(int64_t ns)
{
	static const char *const t[] = { "1ns", "10ns", "100ns", "1us", "10us", "100us",
					 "1ms", "10ms", "100ms", "1s" };
	int k = 0;
	for (; ns >= 10 && k < 9; ns /= 10)
		k++;
	return t[k];
}

/* The records sorted, spread, made relative, into t. 0, or the exit status. */
static int build(struct ctx *c, struct sim_trace *t)
{
	const struct sim_import_opts *o = c->o;

	if (!o->file_order && !imp_settles_sort(&c->settles, c->rec, c->n))
		return oom(c);
	bool spread = c->im.format == IMP_TRACE && c->im.trace_spread ? true : o->spread && c->res_ns > 1;
	if (spread && !(c->im.format == IMP_TRACE && c->im.trace_spread)) /* a spread trace is not spread twice */
		imp_spread(c->rec, c->n, c->res_ns);
	int64_t origin = c->n && !o->absolute ? c->rec[0].t_ns : 0;
	if (c->n && c->rec[c->n - 1].t_ns - origin > RL_TIME_MAX_NS) /* spread inside the range's last tick */
		return say(c, EXIT_USAGE, "--spread moves the last request past %lld ns", (long long)RL_TIME_MAX_NS);
	t->t_ns = malloc((c->n ? c->n : 1) * sizeof(*t->t_ns));
	t->key = malloc((c->n ? c->n : 1) * sizeof(*t->key));
	t->cost = malloc((c->n ? c->n : 1) * sizeof(*t->cost));
	if (!t->t_ns || !t->key || !t->cost)
		return oom(c);
	for (size_t i = 0; i < c->n; i++) {
		t->t_ns[i] = c->rec[i].t_ns - origin;
		t->key[i] = c->rec[i].key;
		t->cost[i] = c->rec[i].cost;
		t->has_cost |= c->rec[i].cost > 1; /* 0: as written, no COST */
	}
	t->cost_read = c->im.want_cost || c->im.trace_cost;
	t->n = c->n;
	int set = imp_settles_build(&c->settles, t);
	if (set)
		return set < 0 ? oom(c) : say(c, EXIT_USAGE, "a response ends past %lld ns once the times are %s",
					      (long long)RL_TIME_MAX_NS, spread ? "spread" : "placed");
	t->nkeys = c->keys.nkeys;
	t->key_name = c->keys.names;
	c->keys.names = NULL;
	c->keys.nkeys = 0;
	t->origin_ns = o->as_written ? c->first_origin : origin;
	t->resolution_ns = c->res_ns;
	t->absolute = o->absolute;
	t->spread = spread;
	if (!c->detected || c->detected_at[0])
		snprintf(t->format, sizeof(t->format), "%s", format_names[c->im.format]);
	return 0;
}

/* What was read, on err: the format when detected, the resolution, the lines skipped. */
static void summary(struct ctx *c, const struct sim_trace *t)
{
	const char *res = resolution_text(c->res_ns);

	if (c->detected && c->detected_at[0])
		say(c, 0, "format %s (detected from %s)", format_names[c->im.format], c->detected_at);
	if (c->res_ns == 1)
		say(c, 0, "time resolution 1ns");
	else if (t->spread && c->im.format == IMP_TRACE)
		say(c, 0, "time resolution %s: the trace's requests of one tick were spread evenly inside it", res);
	else if (t->spread)
		say(c, 0, "time resolution %s: the requests of one tick spread evenly inside it (--spread)", res);
	else
		say(c, 0, "time resolution %s: the requests of one tick share one instant (--spread "
		    "spreads them evenly inside it)", res);
	if (c->st.no_offset)
		say(c, 0, "%zu of %zu requests had a time without a UTC offset: read as %s%s", c->st.no_offset, c->n,
		    c->o->tz ? "--tz " : "UTC", c->o->tz ? c->st.tz : " (--tz +HH:MM says otherwise)");
	if (c->st.cost_zero)
		say(c, 0, "%zu request%s of cost 0 take%s nothing: admitted with no state change, left out of the trace",
		    c->st.cost_zero, c->st.cost_zero == 1 ? "" : "s", c->st.cost_zero == 1 ? "s" : "");
	if (c->st.anon)
		say(c, 0, "%zu of %zu requests had no user: keyed by their address (--key user)", c->st.anon, c->n);
	for (int k = 0; k < SIM_SKIP_COUNT && c->bad; k++) {
		size_t n = c->st.skip[k], shown = n < SIM_IMPORT_EXAMPLES ? n : SIM_IMPORT_EXAMPLES;
		char at[3 * SIM_IMPORT_WHERE + 8] = "";
		for (size_t i = 0; i < shown; i++)
			snprintf(at + strlen(at), sizeof(at) - strlen(at), "%s%s", i ? ", " : "", c->st.where[k][i]);
		if (n)
			say(c, 0, "skipped %zu line%s for %s (%s%s%s)", n, n == 1 ? "" : "s", sim_import_skip_words[k], n > shown ? "the first: " : "",
			    at, n > shown ? ", ..." : "");
	}
	say(c, 0, "skipped %zu of %zu lines", c->bad, c->lines);
}

static void ctx_free(struct ctx *c)
{
	imp_keys_free(&c->keys);
	free(c->rec);
	free(c->copy.p);
	free(c->im.s_time.p);
	free(c->im.s_key.p);
	free(c->im.s_cost.p);
	free(c->im.s_actual.p);
	free(c->im.s_dur.p);
	imp_settles_free(&c->settles);
	free(c->im.s_skip.p);
	free(c->im.names.p);
	free(c->record.p);
	free(c->im.cells);
}

/* A file named twice (the same file under two names too): its names. 0, or the exit status. */
static int named_twice(struct ctx *c, const char *const *paths, size_t npaths)
{
	char q1[SIM_QUOTE_SIZE], q2[SIM_QUOTE_SIZE];
	struct stat *st = malloc((npaths ? npaths : 1) * sizeof(*st));
	bool *known = calloc(npaths ? npaths : 1, sizeof(*known));
	int status = 0;

	if (!st || !known) {
		free(st);
		free(known);
		return oom(c);
	}
	for (size_t i = 0; i < npaths; i++) /* one that cannot be read is said when it is opened */
		known[i] = strcmp(paths[i], "-") != 0 && stat(paths[i], &st[i]) == 0 && !S_ISCHR(st[i].st_mode);
	for (size_t i = 0; i < npaths && !status; i++) {
		bool in_i = strcmp(paths[i], "-") == 0;
		for (size_t j = 0; j < i && !status; j++) {
			bool in_j = strcmp(paths[j], "-") == 0;
			if ((in_i && in_j) || (known[i] && known[j] && st[i].st_dev == st[j].st_dev &&
					       st[i].st_ino == st[j].st_ino))
				status = say(c, EXIT_USAGE, "%s is named twice (as %s and %s): its requests would "
					     "count twice", in_i ? "standard input" : "a file", sim_quote(q1, paths[j]),
					     sim_quote(q2, paths[i]));
		}
	}
	free(st);
	free(known);
	return status;
}

/* The stats handed to the caller who asked; returns status. */
static int finish_stats(struct ctx *c, int status)
{
	if (!c->o->stats)
		return status;
	c->st.lines = c->lines;
	c->st.skipped = c->bad;
	snprintf(c->st.format, sizeof(c->st.format), "%s", c->detected && !c->detected_at[0] ? "" :
		 format_names[c->im.format]);
	c->st.detected = c->detected;
	c->st.resolution_ns = c->res_ns;
	*c->o->stats = c->st;
	return status;
}

int sim_import(const struct sim_import_opts *o, const char *const *paths, size_t npaths,
	       struct sim_trace *t, FILE *err)
{
	static const char *const stdin_only[] = { "-" };
	struct ctx c = { .o = o, .err = err, .cmd = o->cmd ? o->cmd : "import", .res_ns = 1000000000 };
	int status, rc;

	memset(t, 0, sizeof(*t));
	if (!npaths) {
		paths = stdin_only;
		npaths = 1;
	}
	if ((status = check_values(&c)) || (status = named_twice(&c, paths, npaths)))
		return finish_stats(&c, status);
	if (!c.detected && (status = check_applies(&c)))
		return finish_stats(&c, status);
	if ((rc = imp_keys_init(&c.keys)) != RL_OK)
		return rc == RL_EINVAL ? say(&c, EXIT_USAGE, "%s is not a non-negative integer", SIM_HASH_SEED_ENV)
				       : say(&c, EXIT_FAIL, "no random seed for the key hash");
	for (size_t i = 0; i < npaths && !status; i++)
		status = read_file(&c, paths[i]);
	if (!status && c.lines > 0 && c.bad == c.lines)
		status = say(&c, EXIT_USAGE, "none of the %zu lines is a %s line (skipped %zu of %zu lines)",
			     c.lines, format_names[c.im.format], c.bad, c.lines);
	if (!status && c.lines == 0 && !o->as_written) {
		char q[SIM_QUOTE_SIZE];
		status = npaths == 1 ? say(&c, EXIT_USAGE, "%s holds no request", strcmp(paths[0], "-") ?
					   sim_quote(q, paths[0]) : "standard input")
				     : say(&c, EXIT_USAGE, "none of the %zu inputs holds a request", npaths);
	}
	if (!status) {
		if (c.im.format == IMP_TRACE)
			c.res_ns = c.im.trace_res_ns ? c.im.trace_res_ns : 1;
		status = build(&c, t);
	}
	if (!status) {
		summary(&c, t);
		c.st.requests = t->n;
	} else
		sim_trace_free(t);
	finish_stats(&c, status);
	ctx_free(&c);
	return status;
}
