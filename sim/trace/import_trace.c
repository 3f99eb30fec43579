/*
 * import_trace.c - one line of a trace, 'T KEY [COST]' or (unless
 * trace_plain) the settle form 'T KEY COST ACTUAL DONE_T', read by the
 * one trace line reader (trace_line.h) that every command shares.
 */
#include "import_impl.h"

#include <string.h>

#include "trace_line.h"

/* The blank-separated tokens of a line (trace_line.h's blanks: spaces and tabs). */
static int tokens(const char *line)
{
	int n = 0;

	for (const char *c = line; *c;) {
		c += strspn(c, " \t");
		n += *c != '\0';
		c += strcspn(c, " \t");
	}
	return n;
}

const char *imp_trace(struct imp *im, char *line, size_t len, struct imp_fields *f)
{
	struct sim_trace_line tl = { .has_settle = false };

	(void)len;
	/* a line of 5 tokens is read as a settle line; any other is worded as
	 * 'T KEY [COST]', as replay words it (the same mistake, the same words) */
	if (!(im->trace_plain || tokens(line) != 5 ? sim_trace_line_parse(line, &tl, im->why, sizeof(im->why))
						   : sim_trace_line_parse_settle(line, &tl, im->why, sizeof(im->why))))
		return im->why;
	f->settle = tl.has_settle;
	f->actual = tl.actual;
	f->dur_ns = tl.has_settle ? tl.done_ns - tl.t_ns : 0;
	f->t_ns = tl.t_ns;
	f->key = tl.key;
	f->key_len = tl.key_len;
	f->key2_len = 0;
	f->cost = tl.cost;
	im->trace_cost |= tl.has_cost;
	return NULL;
}
