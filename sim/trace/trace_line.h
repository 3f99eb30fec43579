/*
 * trace_line.h - the one reader of a trace line, shared by `ratelab
 * replay` (in process, --policy, --redis), the simulator's replay sources,
 * `ratelab import --format trace` and `ratelab study`, so that every
 * command accepts the same lines and words the same mistake the same way.
 *
 * A line is 2, 3 or 5 tokens separated by blanks (spaces, tabs):
 *   T KEY [COST]               a request of COST units at T
 *   T KEY COST ACTUAL DONE_T   the same, settled (settle.h): when admitted,
 *                              ACTUAL - COST units are given back or taken
 *                              at DONE_T
 * T, an integer number of ns in [0, RL_TIME_MAX_NS] (digits only: no sign,
 * no unit, no exponent; leading zeros are fine); KEY, any token; COST,
 * units, an integer in [1, RL_COST_MAX], 1 when absent; ACTUAL, units, an
 * integer in [0, RL_COST_MAX]; DONE_T, a time as T is, not before T. Any
 * other count of tokens is refused: one token as "expected 'T KEY'", 4 or
 * more than 5 as "expected " SIM_TRACE_LINE_FORMS. The line reader
 * (lines.h) has already dropped the line ending (LF or CRLF), blank and
 * '#' lines, and a UTF-8 byte-order mark on a file's first line.
 *
 * Order: the lines are requests in the order they reach the limiter. A
 * time earlier than the previous line's is accepted and handed to the
 * algorithm as it is; the algorithm clamps it to the key's last seen time
 * (algo.h, time going backwards).
 */
#ifndef RATELAB_SIM_TRACE_LINE_H
#define RATELAB_SIM_TRACE_LINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sim_trace_line {
	int64_t t_ns;       /* ns, in [0, RL_TIME_MAX_NS] */
	const char *key;    /* points into the line */
	size_t key_len;
	int64_t cost;       /* units, in [1, RL_COST_MAX]; 1 when absent */
	bool has_cost;
	bool has_settle;    /* the form 'T KEY COST ACTUAL DONE_T'; then: */
	int64_t actual;     /* the request's real cost, units, in [0, RL_COST_MAX] */
	int64_t done_ns;    /* when it is settled (its response ended), ns, in [T, RL_TIME_MAX_NS] */
};

/* The forms a line may take, as a refusal names them. */
#define SIM_TRACE_LINE_FORMS "'T KEY [COST]' or 'T KEY COST ACTUAL DONE_T'"

/*
 * Parses one line as sim_lines_next returns it (no line ending; a UTF-8
 * byte-order mark on a file's first line already removed). True on
 * success, has_settle telling the settle form; false with the reason in
 * msg (no FILE:LINE prefix: the caller adds it, the same in every
 * command). The line is split in place (KEY ends with a NUL). A line that
 * holds a NUL byte (sim_lines' has_nul) is refused by the caller, with
 * SIM_TRACE_LINE_NUL as the reason. A reader that does not settle a line
 * itself hands it on or refuses it in its own words (replay's in-process
 * loop hands it to --policy's; --redis with --policy refuses it); the
 * line's form is read here only.
 */
bool sim_trace_line_parse(char *line, struct sim_trace_line *out, char *msg, size_t msg_len);

#define SIM_TRACE_LINE_NUL "holds a NUL byte"

/*
 * The whole message of a bad line, the same in every command:
 * "FILE:LINE: 'TEXT': WHY", or "line LINE: 'TEXT': WHY" when file is NULL
 * (a stream the command reads as its input). TEXT is the line as read
 * (sim_lines' text), quoted by sim_quote; without it (text NULL, as for a
 * line that holds a NUL byte, which would be quoted short) the message is
 * "FILE:LINE: WHY".
 */
void sim_trace_line_error(char *msg, size_t msg_len, const char *file, long lineno, const char *text,
			  const char *why);

#endif
