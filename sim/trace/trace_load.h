/*
 * trace_load.h - a trace file loaded whole, as written: the simulator's
 * replay sources (and the span a scenario takes from them) read it through
 * the one loader, sim_import (import.h), with the policy file order, the
 * first bad line an error, the trace as written; `ratelab import` and the
 * study use the same loader sorted, bad lines skipped and counted. So every
 * reader of a trace has the same line reader, line parser (trace_line.h)
 * and header (trace.h).
 *
 * The lines are kept in file order (a time earlier than the line before
 * is kept: the engine hands each line its own time). A file's "# ratelab
 * trace:" line applies to the lines after it: its origin_ns is added to
 * their times (epoch ns then; at most RL_TIME_MAX_NS), its resolution_ns
 * (the largest of the file's headers) and spread are carried into t. The
 * first bad line is an error in the words every command uses
 * (sim_trace_line_error: "FILE:LINE: 'TEXT': WHY"); settle lines
 * 'T KEY COST ACTUAL DONE_T' are read (below).
 * A line longer than 16 MiB is a bad line (IMP_LINE_MAX), and a file that
 * opens with gzip's magic bytes is read through zlib, as import reads them.
 */
#ifndef RATELAB_SIM_TRACE_LOAD_H
#define RATELAB_SIM_TRACE_LOAD_H

#include <stddef.h>
#include <stdio.h>

#include "trace.h"

/*
 * Reads the open file in (named path in messages) from where it stands
 * into t (zeroed first; the caller frees it with sim_trace_free, and
 * closes in). t->t_ns are origin_ns + T, so t->absolute is true and
 * t->origin_ns is the header's origin_ns at the first request (0 without
 * one: the times are then as written); t->cost[i] is the line's COST, 0
 * for a line without one (the reader's own default applies);
 * t->resolution_ns is the header's (1 without one); t->cost_read when
 * some line gave a COST. Settle lines 'T KEY COST ACTUAL DONE_T'
 * (trace_line.h) are read: then t->actual and t->done_ns (DONE_T +
 * origin_ns, as T) are set for every line, ACTUAL = COST and DONE_T = T
 * on the lines that settle nothing; both NULL when no line settles. RL_OK; RL_EINVAL after "FILE:LINE: ..." (a bad
 * line, a corrupt .gz, a bad RATELAB_HASH_SEED); RL_ENOMEM ("out of
 * memory ...") or RL_EIO ("FILE:LINE: cannot read: why"). An empty file
 * is RL_OK with t->n == 0: the caller says what that means.
 */
int sim_trace_load(FILE *in, const char *path, struct sim_trace *t, char *msg, size_t msg_len);

#endif
