/*
 * trace.c - the in-memory trace's owner: every array and key name is one
 * allocation of its own, freed here.
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
