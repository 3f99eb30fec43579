/*
 * algo_list.c - the list of algorithms, derived from ratelab/algo_list.h:
 * the table of ops tables, lookup by name and the names for messages. Its own
 * translation unit, so that a test program can link a copy built with
 * RL_ALGO_LIST_EXTRA in its place.
 */
#include <stdio.h>
#include <string.h>

#include "ratelab/algo.h"

static const struct rl_algo *const all_algos[] = {
#define RL_ALGO(name) &rl_##name##_algo,
#include "ratelab/algo_list.h"
#undef RL_ALGO
};

/* ", a, b, c": the names joined, with one leading separator to skip. */
static const char joined[] =
#define RL_ALGO(name) ", " #name
#include "ratelab/algo_list.h"
#undef RL_ALGO
	;

const struct rl_algo *const *rl_algo_all(size_t *count)
{
	*count = sizeof(all_algos) / sizeof(all_algos[0]);
	return all_algos;
}

const struct rl_algo *rl_algo_find(const char *name)
{
	for (size_t i = 0; i < sizeof(all_algos) / sizeof(all_algos[0]); i++)
		if (strcmp(all_algos[i]->name, name) == 0)
			return all_algos[i];
	return NULL;
}

char *rl_algo_burst_names(char *buf, size_t len)
{
	size_t used = 0;

	if (!buf || !len)
		return buf;
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(all_algos) / sizeof(all_algos[0]); i++)
		if (all_algos[i]->uses_burst && used < len) {
			int n = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", all_algos[i]->name);
			used += n > 0 ? (size_t)n : 0;
		}
	return buf;
}

const char *rl_algo_names(void)
{
	return joined + 2;
}
