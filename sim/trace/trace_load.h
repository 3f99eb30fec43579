/*
 * trace_load.h - a trace file loaded whole, as written: the one reader of
 * the simulator's replay sources (and of the span a scenario takes from
 * them), on the same line reader (lines.h), line parser (trace_line.h)
 * and header (trace.h) as `ratelab replay` and `ratelab import`.
 *
 * The lines are kept in file order (a time earlier than the line before
 * is kept: the engine hands each line its own time). A file's "# ratelab
 * trace:" line applies to the lines after it: its origin_ns is added to
 * their times (epoch ns then; at most RL_TIME_MAX_NS), its resolution_ns
 * and spread are carried into t. The first bad line is an error in the
 * words every command uses (sim_trace_line_error: "FILE:LINE: 'TEXT': WHY").
 */
#ifndef RATELAB_SIM_TRACE_LOAD_H
#define RATELAB_SIM_TRACE_LOAD_H

#include <stddef.h>
#include <stdio.h>

#include "trace.h"

/*
 * Reads the open file in (named path in messages) into t (zeroed first;
 * the caller frees it with sim_trace_free, and closes in). t->t_ns are
 * origin_ns + T, so t->absolute is true and t->origin_ns is the first
 * header's origin_ns (0 without one: the times are then as written);
 * t->cost[i] is the line's COST, 0 for a line without one (the reader's
 * own default applies); t->resolution_ns is the header's (1 without one);
 * t->cost_read when some line gave a COST. Settle lines 'T KEY COST
 * ACTUAL DONE_T' (trace_line.h) are read: then t->actual and t->done_ns
 * (DONE_T + origin_ns, as T) are set for every line, ACTUAL = COST (0
 * for a line without COST) and DONE_T = T on the lines that settle
 * nothing; both NULL when no line settles. An ACTUAL above
 * SIM_TRACE_COST_MAX is a bad line. RL_OK; RL_EINVAL after
 * "FILE:LINE: ..." (a bad line); RL_EIO ("FILE:LINE: cannot read: why")
 * or RL_ENOMEM ("FILE:LINE: out of memory"). An empty file is RL_OK with
 * t->n == 0: the caller says what that means.
 */
int sim_trace_load(FILE *in, const char *path, struct sim_trace *t, char *msg, size_t msg_len);

#endif
