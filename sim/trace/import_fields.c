/*
 * import_fields.c - what the formats share: a field's time (--time-format,
 * ISO 8601, the common log format's, or a decimal number of --time-unit),
 * its cost (an integer number of units), the key of a request line, and
 * the scratch buffers that hold decoded values.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import_impl.h"
#include "ratelab/parse.h"
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

/* s[0..len) quoted into im->why as "time 'S': WHY" (S cut at 40 bytes); returns im->why. */
static const char *bad_time(struct imp *im, const char *s, size_t len, const char *why)
{
	im->reason = SIM_SKIP_TIME;
	char q[RL_QUOTE_SIZE];
	rl_quote_bytes(q, sizeof(q), s, len, RL_QUOTE_MAX); /* the one quoter, as every command's values */
	snprintf(im->why, sizeof(im->why), "time %s: %s", q, why);
	return im->why;
}

const char *imp_time(struct imp *im, const char *s, size_t len, struct imp_fields *f)
{
	const char *why;
	bool had_offset = true;

	if (im->time_format) {
		if (!sim_time_format(im->time_format, s, len, im->tz_s, &f->t_ns, &had_offset, &why))
			return bad_time(im, s, len, why);
		f->no_offset = !had_offset;
		return NULL;
	}
	const char *t = s;
	size_t tl = len;
	if (tl >= 2 && t[0] == '[' && t[tl - 1] == ']') { /* nginx's $time_local as a log writes it */
		t++;
		tl -= 2;
	}
	if (tl == 26 && t[2] == '/' && t[6] == '/') {
		if (!sim_time_clf(t, tl, &f->t_ns, &why))
			return bad_time(im, s, len, why);
		f->no_offset = false;
		return NULL;
	}
	if (tl >= 10 && t[4] == '-' && t[0] >= '0' && t[0] <= '9') {
		if (!sim_time_iso(t, tl, im->tz_s, &f->t_ns, &had_offset, &why))
			return bad_time(im, s, len, why);
		f->no_offset = !had_offset;
		return NULL;
	}
	if (tl > 0 && ((t[0] >= '0' && t[0] <= '9') || t[0] == '.')) {
		if (im->unit_ns == 0)
			return bad_time(im, s, len, "is a number: give its unit with --time-unit s, ms, us or ns");
		if (!sim_time_number(t, tl, im->unit_ns, &f->t_ns, &why))
			return bad_time(im, s, len, why);
		f->no_offset = false;
		return NULL;
	}
	return bad_time(im, s, len, "not an ISO 8601 or RFC 3339 time, 'DD/Mon/YYYY:HH:MM:SS +HHMM' or a number "
			"(--time-format reads others)");
}

const char *imp_request_key(struct imp *im, const char *host, size_t host_len, const char *req, size_t req_len,
			    struct imp_fields *f)
{
	f->key2_len = 0;
	if (im->key_mode == IMP_KEY_IP || im->key_mode == IMP_KEY_USER) {
		f->key = host;
		f->key_len = host_len;
		return NULL;
	}
	/* "METHOD TARGET PROTOCOL": the second word, without a scheme and host, up to '?' */
	const char *sp = memchr(req, ' ', req_len);
	if (!sp) {
		im->reason = SIM_SKIP_KEY;
		return "the request has no path";
	}
	const char *p = sp + 1, *end = req + req_len;
	const char *e = memchr(p, ' ', (size_t)(end - p));
	if (e)
		end = e;
	const char *scheme = end - p >= 3 ? memchr(p, ':', (size_t)(end - p)) : NULL;
	if (scheme && end - scheme >= 3 && scheme[1] == '/' && scheme[2] == '/') {
		const char *slash = memchr(scheme + 3, '/', (size_t)(end - scheme - 3));
		p = slash ? slash : end;
	}
	const char *q = memchr(p, '?', (size_t)(end - p));
	if (q)
		end = q;
	if (end == p) {
		if (!scheme) {
			im->reason = SIM_SKIP_KEY;
			return "the request has no path";
		}
		p = "/"; /* "http://host" asks for the root */
		end = p + 1;
	}
	if (im->key_mode == IMP_KEY_PATH) {
		f->key = p;
		f->key_len = (size_t)(end - p);
	} else {
		f->key = host;
		f->key_len = host_len;
		f->key2 = p;
		f->key2_len = (size_t)(end - p);
	}
	return NULL;
}

const char *imp_cost(struct imp *im, const char *s, size_t len, int64_t *cost)
{
	int64_t c = 0;
	size_t i = 0;

	for (; i < len && s[i] >= '0' && s[i] <= '9' && c <= RL_COST_MAX; i++)
		c = c * 10 + (s[i] - '0');
	if (i == 0 || i != len || c > RL_COST_MAX) {
		im->reason = SIM_SKIP_COST;
		snprintf(im->why, sizeof(im->why), "cost '%.*s' is not an integer in [0, %lld]",
			 len > 40 ? 40 : (int)len, s, (long long)RL_COST_MAX);
		return im->why;
	}
	*cost = c;
	return NULL;
}
