/*
 * import_fields.c - what the field-based formats (JSON lines, CSV) share:
 * a field's time (RFC 3339, or a decimal number of --time-unit) and cost
 * (an integer number of units), and the scratch buffers that hold decoded
 * values.
 */
#include <stdio.h>
#include <stdlib.h>

#include "import_impl.h"
#include "import_time.h"
#include "ratelab/rule.h"

bool imp_buf_reserve(struct imp_buf *b, size_t n)
{
	if (b->cap - b->len >= n)
		return true;
	size_t cap = b->cap ? b->cap : 256;
	while (cap - b->len < n)
		cap *= 2;
	char *p = realloc(b->p, cap);
	if (!p)
		return false;
	b->p = p;
	b->cap = cap;
	return true;
}

const char *imp_time(struct imp *im, const char *s, size_t len, int64_t *ns)
{
	const char *why;
	bool date = len >= 20 && s[4] == '-';

	if (!date && im->unit_ns == 0 && len > 0 && s[0] >= '0' && s[0] <= '9') {
		im->unit_missing = true;
		snprintf(im->why, sizeof(im->why), "time '%.*s' is a number: give its unit with "
			 "--time-unit s, ms, us or ns", len > 40 ? 40 : (int)len, s);
		return im->why;
	}
	if (!date && im->unit_ns == 0)
		date = true; /* not a number either: RFC 3339's reason is the one to give */
	if (date ? sim_time_rfc3339(s, len, ns, &why) : sim_time_number(s, len, im->unit_ns, ns, &why))
		return NULL;
	snprintf(im->why, sizeof(im->why), "time '%.*s': %s", len > 40 ? 40 : (int)len, s, why);
	return im->why;
}

const char *imp_cost(struct imp *im, const char *s, size_t len, int64_t *cost)
{
	int64_t c = 0;
	size_t i = 0;

	for (; i < len && s[i] >= '0' && s[i] <= '9' && c <= RL_COST_MAX; i++)
		c = c * 10 + (s[i] - '0');
	if (i == 0 || i != len || c < 1 || c > RL_COST_MAX) {
		snprintf(im->why, sizeof(im->why), "cost '%.*s' is not an integer in [1, %lld]",
			 len > 40 ? 40 : (int)len, s, (long long)RL_COST_MAX);
		return im->why;
	}
	*cost = c;
	return NULL;
}
