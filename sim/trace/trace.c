/*
 * trace.c - the in-memory trace's owner: every array and key name is one
 * allocation of its own, freed here; and the trace file's header line.
 */
#include "trace.h"

#include <stdlib.h>
#include <string.h>

void sim_trace_free(struct sim_trace *t)
{
	for (size_t i = 0; t->key_name && i < t->nkeys; i++)
		free(t->key_name[i]);
	free(t->key_name);
	free(t->t_ns);
	free(t->key);
	free(t->cost);
	free(t->actual);
	free(t->done_ns);
	memset(t, 0, sizeof(*t));
}

bool sim_trace_header_parse(const char *line, struct sim_trace_header *h)
{
	static const char mark[] = "# ratelab trace:";
	const char *p = line + strspn(line, " \t");

	if (strncmp(p, mark, sizeof(mark) - 1) != 0)
		return false;
	*h = (struct sim_trace_header){ 0 };
	for (p += sizeof(mark) - 1; *p;) {
		p += strspn(p, " \t");
		size_t n = strcspn(p, " \t");
		const char *eq = memchr(p, '=', n);
		if (n == 10 && !strncmp(p, "spread=yes", 10)) {
			h->spread = true;
		} else if (eq && eq + 1 < p + n) {
			size_t klen = (size_t)(eq - p), vlen = n - klen - 1;
			int64_t v = 0;
			bool digits = vlen <= 19;
			for (size_t i = 0; digits && i < vlen; i++) {
				char ch = eq[1 + i];
				digits = ch >= '0' && ch <= '9' && v <= (RL_TIME_MAX_NS - (ch - '0')) / 10;
				v = digits ? v * 10 + (ch - '0') : v;
			}
			if (digits && klen == 13 && !strncmp(p, "resolution_ns", 13) && v >= 1 && v <= 1000000000)
				h->resolution_ns = v;
			else if (digits && klen == 9 && !strncmp(p, "origin_ns", 9))
				h->origin_ns = v;
		}
		p += n;
	}
	return true;
}

void sim_trace_header_take(void *arg, const char *line)
{
	struct sim_trace_header h;

	if (sim_trace_header_parse(line, &h))
		*(struct sim_trace_header *)arg = h;
}
