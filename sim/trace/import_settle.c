/*
 * import_settle.c - settles in an import (import.h): the real cost and the
 * response time read from a log's fields, or a trace's settle line's ACTUAL
 * and DONE_T - T, kept beside the records and sorted with them.
 *
 * Sorting: the records' times are sorted through an index (imp_sort on
 * (time, input index) records, stable), and the records and the settles
 * are then placed by it: the same order imp_sort gives the records alone,
 * since a stable sort's order depends on the times only.
 */
#include <stdlib.h>
#include <string.h>

#include "import_impl.h"
#include "ratelab/algo.h"
#include "ratelab/rule.h"

/* "D" or "D.F" of unit_ns into ns, finer digits than 1 ns dropped; false when not such a number or past max. */
static bool decimal_ns(const char *s, size_t len, int64_t unit_ns, int64_t max, int64_t *out)
{
	size_t i = 0;
	unsigned __int128 whole = 0, frac = 0, scale = 1;

	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++)
		if ((whole = whole * 10 + (unsigned)(s[i] - '0')) > (unsigned __int128)max)
			return false;
	if (i == 0)
		return false;
	if (i < len && s[i] == '.') {
		size_t f = ++i;
		for (; i < len && s[i] >= '0' && s[i] <= '9'; i++)
			if (scale < (unsigned __int128)unit_ns) { /* digits finer than 1 ns add nothing */
				frac = frac * 10 + (unsigned)(s[i] - '0');
				scale *= 10;
			}
		if (i == f)
			return false;
	}
	if (i != len)
		return false;
	unsigned __int128 ns = whole * (unsigned __int128)unit_ns + frac * (unsigned __int128)unit_ns / scale;
	if (ns > (unsigned __int128)max)
		return false;
	*out = (int64_t)ns;
	return true;
}

static const char *unit_name(int64_t unit_ns)
{
	return unit_ns == 1000000000 ? "s" : unit_ns == 1000000 ? "ms" : unit_ns == 1000 ? "us" : "ns";
}

const char *imp_settle_fields(struct imp *im, const char *actual, size_t alen, const char *dur, size_t dlen,
			      struct imp_fields *f)
{
	int64_t a = 0;
	size_t i = 0;

	if (!actual || !dur) {
		im->reason = actual ? SIM_SKIP_TIME : SIM_SKIP_COST;
		snprintf(im->why, sizeof(im->why), "no %s field '%.40s' (%s)", actual ? "response time" : "actual cost",
			 actual ? im->duration_field : im->actual_field, actual ? "--duration-field" : "--actual-field");
		return im->why;
	}
	for (; i < alen && actual[i] >= '0' && actual[i] <= '9' && a <= RL_COST_MAX; i++)
		a = a * 10 + (actual[i] - '0');
	if (i == 0 || i != alen || a > RL_COST_MAX) {
		im->reason = SIM_SKIP_COST;
		if (alen && actual[0] == '-')
			snprintf(im->why, sizeof(im->why), "actual cost '%.*s' is negative", alen > 40 ? 40 : (int)alen,
				 actual);
		else
			snprintf(im->why, sizeof(im->why), "actual cost '%.*s' is not an integer in [0, %lld]",
				 alen > 40 ? 40 : (int)alen, actual, (long long)RL_COST_MAX);
		return im->why;
	}
	if (!decimal_ns(dur, dlen, im->duration_unit_ns, RL_TIME_MAX_NS, &f->dur_ns)) {
		im->reason = SIM_SKIP_TIME;
		snprintf(im->why, sizeof(im->why), "response time '%.*s' is %s%s", dlen > 40 ? 40 : (int)dlen, dur,
			 dlen && dur[0] == '-' ? "negative" : "not a number of ", dlen && dur[0] == '-' ? "" :
			 unit_name(im->duration_unit_ns));
		return im->why;
	}
	f->settle = true;
	f->actual = a;
	return NULL;
}

static bool grow(struct imp_settles *s, size_t need)
{
	if (need <= s->cap)
		return true;
	size_t cap = s->cap ? 2 * s->cap : 1 << 16;
	while (cap < need)
		cap *= 2;
	uint32_t *a = realloc(s->actual, cap * sizeof(*a));
	if (a)
		s->actual = a;
	int64_t *d = a ? realloc(s->dur_ns, cap * sizeof(*d)) : NULL;
	if (!d)
		return false;
	s->dur_ns = d;
	s->cap = cap;
	return true;
}

bool imp_settles_put(struct imp_settles *s, const struct imp_rec *rec, size_t n, const struct imp_fields *f)
{
	if (!s->on && !f->settle)
		return true;
	if (!grow(s, n + 1))
		return false;
	if (!s->on) /* the records before the first settle settle nothing */
		for (size_t i = 0; i < n; i++) {
			s->actual[i] = rec[i].cost;
			s->dur_ns[i] = 0;
		}
	s->on = true;
	s->actual[n] = f->settle ? (uint32_t)f->actual : (uint32_t)f->cost;
	s->dur_ns[n] = f->settle ? f->dur_ns : 0;
	return true;
}

bool imp_settles_sort(struct imp_settles *s, struct imp_rec *rec, size_t n)
{
	if (!s->on)
		return imp_sort(rec, n);
	struct imp_rec *idx = malloc((n ? n : 1) * sizeof(*idx));
	struct imp_rec *r2 = malloc((n ? n : 1) * sizeof(*r2));
	uint32_t *a2 = malloc((n ? n : 1) * sizeof(*a2));
	int64_t *d2 = malloc((n ? n : 1) * sizeof(*d2));
	bool ok = idx && r2 && a2 && d2 && n <= UINT32_MAX;

	for (size_t i = 0; ok && i < n; i++)
		idx[i] = (struct imp_rec){ rec[i].t_ns, (uint32_t)i, 0 };
	ok = ok && imp_sort(idx, n);
	for (size_t i = 0; ok && i < n; i++) {
		r2[i] = rec[idx[i].key];
		a2[i] = s->actual[idx[i].key];
		d2[i] = s->dur_ns[idx[i].key];
	}
	if (ok) {
		memcpy(rec, r2, n * sizeof(*rec));
		free(s->actual);
		free(s->dur_ns);
		s->actual = a2;
		s->dur_ns = d2;
		s->cap = n;
		a2 = NULL;
		d2 = NULL;
	}
	free(idx);
	free(r2);
	free(a2);
	free(d2);
	return ok;
}

int imp_settles_build(struct imp_settles *s, struct sim_trace *t)
{
	if (!s->on)
		return 0;
	t->actual = s->actual;
	s->actual = NULL;
	t->done_ns = malloc((t->n ? t->n : 1) * sizeof(*t->done_ns));
	if (!t->done_ns)
		return -1;
	for (size_t i = 0; i < t->n; i++) {
		if (s->dur_ns[i] > RL_TIME_MAX_NS - t->t_ns[i])
			return 1;
		t->done_ns[i] = t->t_ns[i] + s->dur_ns[i];
	}
	return 0;
}

void imp_settles_free(struct imp_settles *s)
{
	free(s->actual);
	free(s->dur_ns);
	memset(s, 0, sizeof(*s));
}
