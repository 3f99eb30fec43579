/*
 * report_algos.c - the per-algorithm facts of the reports (report_algos.h).
 */
#include <stdio.h>
#include <string.h>

#include "ratelab/algo.h"
#include "report_algos.h"

/*
 * One row per algorithm of ratelab/algo_list.h, in its order. exact: only
 * sliding_log decides by the rule itself (algo.h); the others admit more
 * somewhere (a bucket's B at once, fixed_window up to 2N across an edge,
 * sliding_counter by its estimate). lock_free_limit: only gcra's state
 * changes as one 16-byte word (limit.h); the others keep the spinlock.
 */
static const struct rp_algo_row rows[] = {
	{ "token_bucket", false, false },    /* tokens and their time: the lock */
	{ "gcra", false, true },             /* the TAT and the last seen time, one CAS on whole ns */
	{ "leaky_bucket", false, false },    /* its queue's slots: the lock */
	{ "fixed_window", false, false },    /* a window's count: the lock */
	{ "sliding_log", true, false },      /* its log on the heap: exact, and the lock */
	{ "sliding_counter", false, false }, /* two windows' counts: the lock */
};

const struct rp_algo_row *rp_algo_rows(size_t *n)
{
	*n = sizeof(rows) / sizeof(rows[0]);
	return rows;
}

static const struct rp_algo_row *row_of(const char *name)
{
	for (size_t i = 0; name && i < sizeof(rows) / sizeof(rows[0]); i++)
		if (strcmp(rows[i].name, name) == 0)
			return &rows[i];
	return NULL;
}

struct rp_algo rp_algo_of(const char *name)
{
	struct rp_algo f = { false, false, false, false, false };
	const struct rl_algo *a = name ? rl_algo_find(name) : NULL;
	const struct rp_algo_row *r = row_of(name);

	if (!a)
		return f;
	f.known = true;
	f.owns_heap = a->release != NULL;
	f.uses_burst = a->uses_burst;
	if (r) { /* a row is missing only in a build whose test fails: the plain case meanwhile */
		f.exact = r->exact;
		f.lock_free_limit = r->lock_free_limit;
	}
	return f;
}

const char *rp_algo_exact(void)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (rows[i].exact)
			return rows[i].name;
	return rl_sliding_log_algo.name; /* unreachable while rp_algo_rows_check passes */
}

int rp_algo_rows_check(const struct rp_algo_row *t, size_t n, char *msg, size_t msg_len)
{
	size_t count;
	const struct rl_algo *const *all = rl_algo_all(&count);
	const char *exact = NULL;

	for (size_t i = 0; i < count; i++) {
		size_t seen = 0;
		for (size_t k = 0; k < n; k++)
			seen += t[k].name && strcmp(t[k].name, all[i]->name) == 0;
		if (seen != 1) {
			if (seen == 0)
				snprintf(msg, msg_len, "no row for algorithm '%s'", all[i]->name);
			else
				snprintf(msg, msg_len, "%zu rows for '%s'", seen, all[i]->name);
			return -1;
		}
	}
	for (size_t k = 0; k < n; k++) {
		if (!t[k].name || !rl_algo_find(t[k].name)) {
			snprintf(msg, msg_len, "row %zu: '%s' is no algorithm of the library (%s)", k,
				 t[k].name ? t[k].name : "(null)", rl_algo_names());
			return -1;
		}
		if (t[k].exact && exact) {
			snprintf(msg, msg_len, "2 exact rows ('%s', '%s'): one reference", exact, t[k].name);
			return -1;
		}
		if (t[k].exact)
			exact = t[k].name;
	}
	if (!exact) {
		snprintf(msg, msg_len, "no exact row: the reports' reference is missing");
		return -1;
	}
	return 0;
}
