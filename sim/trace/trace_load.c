/*
 * trace_load.c - model: one pass of the line reader, each line parsed by
 * the one trace line parser (settle form included), its key interned by a
 * keymap whose state is the key's id + 1 (0: new), the arrays doubled as
 * they fill; the settle arrays made at the first settle line.
 */
#include "trace_load.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "keymap.h"
#include "lines.h"
#include "ratelab/algo.h"
#include "trace_line.h"

/* The settle arrays at cap, made at the first settle line: the lines before it settle nothing
 * (ACTUAL = COST, DONE_T = T; trace.h). False when out of memory. */
static bool settles_at(struct sim_trace *t, size_t cap)
{
	uint32_t *as = realloc(t->actual, cap * sizeof(*as));
	if (as)
		t->actual = as;
	int64_t *ds = realloc(t->done_ns, cap * sizeof(*ds));
	if (ds)
		t->done_ns = ds;
	return as && ds;
}

/* Room for one more request and one more key name; false when out of memory. */
static bool grow(struct sim_trace *t, size_t *cap, size_t *kcap)
{
	if (t->n == *cap) {
		size_t c = *cap ? *cap * 2 : 1024;
		int64_t *ts = realloc(t->t_ns, c * sizeof(*ts));
		if (ts)
			t->t_ns = ts;
		uint32_t *ks = realloc(t->key, c * sizeof(*ks));
		if (ks)
			t->key = ks;
		uint32_t *cs = realloc(t->cost, c * sizeof(*cs));
		if (cs)
			t->cost = cs;
		if (!ts || !ks || !cs || (t->actual && !settles_at(t, c)))
			return false;
		*cap = c;
	}
	if (t->nkeys == *kcap) {
		size_t c = *kcap ? *kcap * 2 : 256;
		char **names = realloc(t->key_name, c * sizeof(*names));
		if (!names)
			return false;
		t->key_name = names;
		*kcap = c;
	}
	return true;
}

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

int sim_trace_load(FILE *in, const char *path, struct sim_trace *t, char *msg, size_t msg_len)
{
	struct sim_trace_header h = { 0 };
	struct sim_lines r = { .in = in, .on_comment = sim_trace_header_take, .comment_arg = &h };
	struct sim_keymap ids;
	size_t cap = 0, kcap = 0;
	bool origin_seen = false;
	int rc;
	char *line;

	memset(t, 0, sizeof(*t));
	if ((rc = sim_keymap_init(&ids, sizeof(uint32_t)))) {
		snprintf(msg, msg_len, "key map: %s%s", rl_strerror(rc),
			 rc == RL_EINVAL ? " (" SIM_HASH_SEED_ENV " is not a non-negative integer)" : "");
		return rc;
	}
	while (rc == RL_OK && (line = sim_lines_next(&r))) {
		struct sim_trace_line l = { .has_settle = false }; /* sim_trace_line_parse leaves it */
		char why[SIM_QUOTE_SIZE + 80];
		/* a settle line has 5 tokens; any other is worded as 'T KEY [COST]', as replay words it */
		bool ok = !r.has_nul && (tokens(line) == 5 ? sim_trace_line_parse_settle(line, &l, why, sizeof(why))
							   : sim_trace_line_parse(line, &l, why, sizeof(why)));
		if (ok && (!sim_trace_header_apply(&h, &l.t_ns) || (l.has_settle && !sim_trace_header_apply(&h, &l.done_ns)))) {
			snprintf(why, sizeof(why), "%s", SIM_TRACE_PAST_ORIGIN);
			ok = false;
		}
		if (ok && l.has_cost && l.cost > SIM_TRACE_COST_MAX) {
			snprintf(why, sizeof(why), "cost '%lld' is above %lld, one request's bound in a trace",
				 (long long)l.cost, SIM_TRACE_COST_MAX);
			ok = false;
		}
		if (ok && l.has_settle && l.actual > SIM_TRACE_COST_MAX) {
			snprintf(why, sizeof(why), "actual cost '%lld' is above %lld, one request's bound in a trace",
				 (long long)l.actual, SIM_TRACE_COST_MAX);
			ok = false;
		}
		if (!ok) {
			sim_trace_line_error(msg, msg_len, path, r.lineno, r.has_nul ? NULL : r.text,
					     r.has_nul ? SIM_TRACE_LINE_NUL : why);
			rc = RL_EINVAL;
			break;
		}
		uint32_t *id = grow(t, &cap, &kcap) ? sim_keymap_get(&ids, l.key, l.key_len) : NULL;
		if (id && !*id) { /* a new key: its id and its name */
			if (!(t->key_name[t->nkeys] = malloc(l.key_len + 1)))
				id = NULL;
			else {
				memcpy(t->key_name[t->nkeys], l.key, l.key_len + 1);
				*id = (uint32_t)++t->nkeys;
			}
		}
		if (!id) {
			snprintf(msg, msg_len, "%s:%ld: out of memory", path, r.lineno);
			rc = RL_ENOMEM;
			break;
		}
		if (!origin_seen) /* the first header's origin: the trace's time 0 */
			t->origin_ns = h.origin_ns;
		origin_seen = true;
		if (l.has_settle && !t->actual) {
			if (!settles_at(t, cap)) {
				snprintf(msg, msg_len, "%s:%ld: out of memory", path, r.lineno);
				rc = RL_ENOMEM;
				break;
			}
			for (size_t i = 0; i < t->n; i++) { /* the lines before: nothing to settle */
				t->actual[i] = t->cost[i];
				t->done_ns[i] = t->t_ns[i];
			}
		}
		if (t->actual) {
			t->actual[t->n] = l.has_settle ? (uint32_t)l.actual : (uint32_t)l.cost;
			t->done_ns[t->n] = l.has_settle ? l.done_ns : l.t_ns;
		}
		t->t_ns[t->n] = l.t_ns;
		t->cost[t->n] = l.has_cost ? (uint32_t)l.cost : 0;
		t->key[t->n++] = *id - 1;
		t->cost_read |= l.has_cost;
		t->has_cost |= l.has_cost && l.cost != 1;
	}
	/* the reader's NULL is the end only with feof: else a read error or its own out-of-memory */
	if (rc == RL_OK && ferror(in)) {
		snprintf(msg, msg_len, "%s:%ld: cannot read: %s", path, r.lineno + 1, strerror(errno));
		rc = RL_EIO;
	} else if (rc == RL_OK && !feof(in)) {
		snprintf(msg, msg_len, "%s:%ld: out of memory", path, r.lineno);
		rc = RL_ENOMEM;
	}
	t->resolution_ns = h.resolution_ns ? h.resolution_ns : 1;
	t->spread = h.spread;
	t->absolute = true;
	snprintf(t->format, sizeof(t->format), "trace");
	sim_lines_free(&r);
	sim_keymap_destroy(&ids);
	if (rc)
		sim_trace_free(t);
	return rc;
}
