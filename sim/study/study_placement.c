/*
 * study_placement.c - a log's other tick placement. A log's times are
 * whole ticks of its resolution; imported without --spread, the requests
 * of one tick share its start; with it, the m requests of tick T are
 * placed at T + k * res / m (k = 0 .. m - 1 in their order, rounded down:
 * import.h's spread). Where the tick is coarser than W/N a rule's verdicts
 * can hang on that choice, so the study decides such a rule both ways.
 */
#include "study.h"

#include <stdlib.h>

#include "ratelab/status.h"

bool sim_study_coarse(const struct rl_rule *r, int64_t resolution_ns)
{
	/* res > W / N, in integers: res * N > W (res <= 1 s, N <= RL_LIMIT_MAX: no overflow) */
	return resolution_ns > 1 && resolution_ns * r->limit > r->window_ns;
}

int sim_study_other_placement(const struct sim_trace *t, struct sim_trace *out)
{
	int64_t res = t->resolution_ns;

	*out = *t;
	out->spread = !t->spread;
	out->t_ns = malloc((t->n ? t->n : 1) * sizeof(*out->t_ns));
	if (!out->t_ns)
		return RL_ENOMEM;
	if (t->spread) {
		/* back to the tick's start: spread times stay inside their tick */
		for (size_t i = 0; i < t->n; i++) {
			int64_t r = t->t_ns[i] % res;
			out->t_ns[i] = t->t_ns[i] - (r < 0 ? r + res : r);
		}
		return RL_OK;
	}
	for (size_t i = 0, j; i < t->n; i = j) {
		for (j = i + 1; j < t->n && t->t_ns[j] == t->t_ns[i]; j++)
			;
		uint64_t m = j - i;
		for (size_t k = 0; k < m; k++)
			out->t_ns[i + k] = t->t_ns[i] + (int64_t)((unsigned __int128)k * (uint64_t)res / m);
	}
	return RL_OK;
}
