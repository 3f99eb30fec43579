/*
 * trace_line.h - the one reader of a trace line, 'T KEY [COST]', shared by
 * `ratelab replay`, the simulator's replay sources, `ratelab import
 * --format trace` and `ratelab study`, so that every command accepts the
 * same lines and words the same mistake the same way.
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
};

/*
 * Parses one line as sim_lines_next returns it (no line ending; a UTF-8
 * byte-order mark on a file's first line already removed). True on
 * success; false with the reason in msg (no FILE:LINE prefix: the caller
 * adds it, the same in every command).
 */
bool sim_trace_line_parse(char *line, struct sim_trace_line *out, char *msg, size_t msg_len);

#endif
