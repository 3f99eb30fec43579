/*
 * import.c - model: every line of every file, in the order given, read by
 * its format's reader (import_impl.h) into a request record (time, key
 * id, cost) or counted as bad; then the records sorted stably by time
 * (a log is written at completion, not arrival), spread inside their tick
 * when asked, made relative to the first request, and split into the
 * trace's arrays. Keys are interned in first-seen order of the input.
 *
 * The time resolution: 1 s for the common log format (its times are
 * whole seconds), 1 ns for a trace, and for JSON lines and CSV the
 * coarsest power of ten of ns, up to 1 s, of which every time is a whole
 * multiple.
 *
 * Messages: each bad line (the first IMP_SHOWN of them) as it is met,
 * then what was detected, the resolution, and last "skipped K of N lines".
 * With --strict, or on a fatal error, one message and nothing else.
 */
#include "import.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "import_impl.h"
#include "lines.h"
#include "ratelab/rule.h"
#include "ratelab/status.h"
#include "trace_line.h"

enum { IMP_SHOWN = 5 };
enum { EXIT_FAIL = 1, EXIT_USAGE = 2 };

static const char *const format_names[] = {
	[IMP_COMBINED] = "combined", [IMP_JSONL] = "jsonl", [IMP_CSV] = "csv", [IMP_TRACE] = "trace",
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
	size_t lines, bad;
	struct sim_import_stats st; /* o->stats' copy, filled as lines are read */
	int64_t res_ns;
	const char *file;         /* the current file's name in messages */
	long lineno;
};


/* "ratelab CMD: message\n" on err, control bytes escaped; returns status. */
static int say(struct ctx *c, int status, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
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
	return say(c, EXIT_FAIL, "out of memory after %zu requests", c->n);
}

/*
 * A bad line (text NULL for one that holds a NUL byte): counted, shown
 * (the first IMP_SHOWN) in the words of every command (trace_line.h), or
 * with --strict the end.
 */
static int bad_line(struct ctx *c, const char *text, const char *why)
{
	char msg[512];

	c->bad++;
	sim_trace_line_error(msg, sizeof(msg), c->file, c->lineno, text, why);
	if (c->st.nexamples < SIM_IMPORT_EXAMPLES)
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
	size_t at;

	if (o->format && strcmp(o->format, "auto") != 0) {
		if (!in(o->format, format_names, 4, &at))
			return say(c, EXIT_USAGE, "--format %s is not auto, combined, jsonl, csv or trace",
				   sim_quote(q, o->format));
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
	c->im.time_field = o->time_field ? o->time_field : "time";
	c->im.key_field = o->key_field ? o->key_field : "key";
	c->im.cost_field = o->cost_field;
	c->im.want_cost = o->cost_field != NULL;
	return 0;
}

/* The options that do not apply to the format (known now): refused. */
static int check_applies(struct ctx *c)
{
	const struct sim_import_opts *o = c->o;
	const char *f = format_names[c->im.format];
	char q[SIM_QUOTE_SIZE];

	switch (c->im.format) {
	case IMP_COMBINED:
		if (o->time_field || o->key_field || o->time_unit)
			return say(c, EXIT_USAGE, "%s does not apply to the combined format (its time is "
				   "in brackets; its key is --key ip, user, path or ip+path)",
				   o->time_field ? "--time-field" : o->key_field ? "--key-field" : "--time-unit");
		if (o->cost_field && strcmp(o->cost_field, "bytes") != 0)
			return say(c, EXIT_USAGE, "--cost-field %s: the combined format's only cost is "
				   "'bytes', the size of the response",
				   sim_quote(q, o->cost_field));
		return 0;
	case IMP_JSONL:
	case IMP_CSV:
		if (o->key)
			return say(c, EXIT_USAGE, "--key applies to the combined format only (%s takes "
				   "--key-field)", f);
		return 0;
	case IMP_TRACE:
		if (o->key || o->time_field || o->key_field || o->cost_field || o->time_unit)
			return say(c, EXIT_USAGE, "%s does not apply to a trace ('T KEY [COST]', T in ns)",
				   o->key ? "--key" : o->time_field ? "--time-field" : o->key_field ?
				   "--key-field" : o->cost_field ? "--cost-field" : "--time-unit");
		return 0;
	}
	return 0;
}

/* The format a line is in, or -1 (-2: out of memory). */
static int detect(struct ctx *c, const char *line, size_t len)
{
	struct imp probe = c->im;
	struct imp_fields f;
	const char *p = line + strspn(line, " \t");

	probe.key_mode = IMP_KEY_IP;
	probe.want_cost = false;
	if (*p == '{')
		return IMP_JSONL;
	if (!imp_combined(&probe, (char *)line, len, &f))
		return IMP_COMBINED;
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
	struct imp_fields f;
	const char *why;

	c->lines++;
	if (too_long)
		return bad_line(c, line, "longer than 16 MiB");
	if (memchr(line, '\0', len))
		return bad_line(c, NULL, SIM_TRACE_LINE_NUL);
	bool trace_cost = c->im.trace_cost; /* sticky: cleared to see this line's */
	c->im.trace_cost = false;
	switch (c->im.format) {
	case IMP_COMBINED: why = imp_combined(&c->im, line, len, &f); break;
	case IMP_JSONL: why = imp_jsonl(&c->im, line, len, &f); break;
	case IMP_CSV: why = imp_csv(&c->im, line, len, &f); break;
	default: why = imp_trace(&c->im, line, len, &f); break;
	}
	bool costed = c->im.want_cost || c->im.trace_cost;
	c->im.trace_cost |= trace_cost;
	if (why && c->im.unit_missing)
		return say(c, EXIT_USAGE, "%s:%ld: %s", c->file, c->lineno, why);
	if (why)
		return bad_line(c, c->im.format == IMP_TRACE ? c->copy.p : line, why);
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
	c->rec[c->n++] = (struct imp_rec){ f.t_ns, (uint32_t)id, (uint32_t)f.cost };
	c->st.without_cost += !costed;
	if (c->im.format == IMP_JSONL || c->im.format == IMP_CSV)
		while (c->res_ns > 1 && f.t_ns % c->res_ns)
			c->res_ns /= 10;
	return 0;
}

/* A line of requests (no header): the trace's comments skipped, the rest taken. 0, or the exit status. */
static int data_line(struct ctx *c, char *line, size_t len, bool too_long)
{
	if (c->im.format != IMP_TRACE)
		return take_line(c, line, len, too_long);
	if (line[strspn(line, " \t")] == '#')
		return 0;
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
				    "(not combined, JSON lines, CSV with a header, or a trace; the first: %s): "
				    "give --format", c->file, pd->lineno[0], DETECT_LINES, sim_quote(q, first));
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

	c->file = !path || strcmp(path, "-") == 0 ? "stdin" : path;
	if (!imp_reader_open(&r, path)) {
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
		if (header) {
			const char *why = imp_csv_header(&c->im, line, len);
			char msg[512];
			header = false;
			if (why) {
				sim_trace_line_error(msg, sizeof(msg), c->file, c->lineno, line, why);
				status = say(c, EXIT_USAGE, "%s", msg);
			}
			continue;
		}
		status = data_line(c, line, len, r.too_long);
	}
	if (status == 0 && rc < 0)
		status = say(c, imp_reader_bad_data(&r) ? EXIT_USAGE : EXIT_FAIL, "%s:%ld: cannot read: %s",
			     c->file, r.lineno + 1, imp_reader_error(&r));
	if (status == 0 && detect_here && pd.n > 0) {
		char q[SIM_QUOTE_SIZE];
		status = say(c, EXIT_USAGE, "%s:%ld: cannot tell the log's format from %s (not combined, JSON "
			     "lines, CSV with a header, or a trace): give --format", c->file, pd.lineno[0],
			     sim_quote(q, pd.text[0].p));
	}
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

	if (!imp_sort(c->rec, c->n))
		return oom(c);
	if (o->spread && c->res_ns > 1)
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
		t->has_cost |= c->rec[i].cost != 1;
	}
	t->cost_read = c->im.want_cost || c->im.trace_cost;
	t->n = c->n;
	t->nkeys = c->keys.nkeys;
	t->key_name = c->keys.names;
	c->keys.names = NULL;
	c->keys.nkeys = 0;
	t->origin_ns = origin;
	t->resolution_ns = c->res_ns;
	t->absolute = o->absolute;
	t->spread = o->spread && c->res_ns > 1;
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
	else if (t->spread)
		say(c, 0, "time resolution %s: the requests of one tick spread evenly inside it (--spread)", res);
	else
		say(c, 0, "time resolution %s: the requests of one tick share one instant (--spread "
		    "spreads them evenly inside it)", res);
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
	free(c->im.s_skip.p);
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
	if ((status = check_values(&c)))
		return status;
	if (!c.detected && (status = check_applies(&c)))
		return status;
	if ((rc = imp_keys_init(&c.keys)) != RL_OK)
		return rc == RL_EINVAL ? say(&c, EXIT_USAGE, "%s is not a non-negative integer", SIM_HASH_SEED_ENV)
				       : say(&c, EXIT_FAIL, "no random seed for the key hash");
	for (size_t i = 0; i < npaths && !status; i++)
		status = read_file(&c, paths[i]);
	if (!status && c.lines > 0 && c.bad == c.lines)
		status = say(&c, EXIT_USAGE, "none of the %zu lines is a %s line (skipped %zu of %zu lines)",
			     c.lines, format_names[c.im.format], c.bad, c.lines);
	if (!status) {
		if (c.im.format == IMP_COMBINED)
			c.res_ns = 1000000000;
		else if (c.im.format == IMP_TRACE || c.n == 0)
			c.res_ns = 1;
		status = build(&c, t);
	}
	if (!status) {
		summary(&c, t);
		if (o->stats) {
			c.st.lines = c.lines;
			c.st.skipped = c.bad;
			c.st.requests = t->n;
			*o->stats = c.st;
		}
	} else
		sim_trace_free(t);
	ctx_free(&c);
	return status;
}
