/*
 * import_trace.c - one line of a trace, 'T KEY [COST]' or the settle form
 * 'T KEY COST ACTUAL DONE_T', read by the one trace line reader
 * (trace_line.h) that every command shares.
 */
#include "import_impl.h"

#include "trace_line.h"

const char *imp_trace(struct imp *im, char *line, size_t len, struct imp_fields *f)
{
	struct sim_trace_line tl = { .has_settle = false };

	(void)len;
	if (!sim_trace_line_parse(line, &tl, im->why, sizeof(im->why)))
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
