/*
 * trace_line.c - model: the line is split in place at blanks (sim_split),
 * then T, COST, ACTUAL and DONE_T are read as plain decimal digits checked
 * against their bound once, after at most 19 significant digits.
 */
#include "trace_line.h"

#include <stdio.h>
#include <string.h>

#include "lines.h"
#include "ratelab/algo.h"

/*
 * Digits only, the value in [0, max]. Leading zeros are skipped; at most
 * 19 digits remain (< 10^19 < 2^64), so the sum cannot wrap before the
 * one bound check at the end.
 */
static bool read_digits(const char *s, int64_t max, int64_t *out)
{
	const char *p = s, *first;
	uint64_t v = 0;

	if (!*p)
		return false;
	while (*p == '0')
		p++;
	for (first = p; *p; p++) {
		unsigned d = (unsigned)(unsigned char)*p - '0';
		if (d > 9)
			return false;
		v = v * 10 + d;
	}
	if (p - first > 19 || v > (uint64_t)max)
		return false;
	*out = (int64_t)v;
	return true;
}

/* A settle line's ACTUAL and DONE_T (tok[3], tok[4]), T in out->t_ns already. Out of the
 * plain lines' way: replay's per-line instruction count is gated (bench/perf). */
static bool read_settle(char *const *tok, struct sim_trace_line *out, char *msg, size_t msg_len)
{
	char q[SIM_QUOTE_SIZE];

	if (!read_digits(tok[3], RL_COST_MAX, &out->actual)) {
		snprintf(msg, msg_len, "actual cost %s is not an integer in [0, %lld]", sim_quote(q, tok[3]),
			 (long long)RL_COST_MAX);
		return false;
	}
	if (!read_digits(tok[4], RL_TIME_MAX_NS, &out->done_ns) || out->done_ns < out->t_ns) {
		snprintf(msg, msg_len, "done time %s is not an integer number of ns in [T, %lld] (T = %lld)",
			 sim_quote(q, tok[4]), (long long)RL_TIME_MAX_NS, (long long)out->t_ns);
		return false;
	}
	return true;
}

bool sim_trace_line_parse(char *line, struct sim_trace_line *out, char *msg, size_t msg_len)
{
	char *tok[5], q[SIM_QUOTE_SIZE];
	int ntok = sim_split(line, tok, 5); /* 0 to 6: 6 is "more than 5" */
	bool settle = ntok == 5;

	/* 2, 3 or 5 tokens, one bit each */
	if (!((1u << ntok) & (1u << 2 | 1u << 3 | 1u << 5))) {
		snprintf(msg, msg_len, "expected %s", ntok < 2 ? "'T KEY'" : SIM_TRACE_LINE_FORMS);
		return false;
	}
	if (!read_digits(tok[0], RL_TIME_MAX_NS, &out->t_ns)) {
		snprintf(msg, msg_len, "time %s is not an integer number of ns in [0, %lld]", sim_quote(q, tok[0]),
			 (long long)RL_TIME_MAX_NS);
		return false;
	}
	out->has_cost = ntok >= 3;
	out->has_settle = settle;
	out->cost = 1;
	if (ntok >= 3 && (!read_digits(tok[2], RL_COST_MAX, &out->cost) || out->cost < 1)) {
		snprintf(msg, msg_len, "cost %s is not an integer in [1, %lld]", sim_quote(q, tok[2]),
			 (long long)RL_COST_MAX);
		return false;
	}
	if (settle && !read_settle(tok, out, msg, msg_len))
		return false;
	out->key = tok[1];
	out->key_len = strlen(tok[1]);
	return true;
}

void sim_trace_line_error(char *msg, size_t msg_len, const char *file, long lineno, const char *text,
			  const char *why)
{
	char q[SIM_QUOTE_SIZE];
	int n = file ? snprintf(msg, msg_len, "%s:%ld: ", file, lineno) : snprintf(msg, msg_len, "line %ld: ", lineno);

	if (n >= 0 && (size_t)n < msg_len)
		snprintf(msg + n, msg_len - (size_t)n, "%s%s%s", text ? sim_quote(q, text) : "", text ? ": " : "", why);
}
