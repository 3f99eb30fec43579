/*
 * import_haproxy.c - one line of HAProxy's HTTP log format, as syslog
 * writes it:
 *
 *   PREFIX haproxy[PID]: CLIENT:PORT [DD/Mon/YYYY:HH:MM:SS.mmm] FRONTEND
 *       BACKEND/SERVER TQ/TW/TC/TR/TA STATUS BYTES ... "REQUEST"
 *
 * The syslog prefix (its own date, host and tag) is not read: the line is
 * found at the first " [" that opens the accept date after a CLIENT:PORT.
 * The accept date has no UTC offset (it is the proxy's local time): read
 * at --tz, UTC by default. The key is CLIENT without its port; the cost
 * "bytes" is BYTES, the response's size; the request is the line's last
 * quoted text (captured headers in braces come before it).
 */
#include <stdio.h>
#include <string.h>

#include "import_impl.h"
#include "import_time.h"

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* The token of s[*i..len) up to the next blank; its length. */
static size_t token(const char *s, size_t len, size_t *i)
{
	size_t start = *i, k = start;
	while (k < len && s[k] != ' ')
		k++;
	*i = k;
	return k - start;
}

const char *imp_haproxy(struct imp *im, char *s, size_t len, struct imp_fields *f)
{
	static const char *const shape = "expected an HAProxy HTTP log line '... CLIENT:PORT [DD/Mon/YYYY:HH:MM:SS.mmm] "
					 "FRONTEND BACKEND/SERVER TQ/TW/TC/TR/TA STATUS BYTES ... \"REQUEST\"'";
	const char *why;
	size_t at = 0, date = 0, client = 0;

	/* " [DD/" after a token that holds a ':' and follows a blank */
	for (;;) {
		const char *b = at < len ? memchr(s + at, '[', len - at) : NULL;
		if (!b)
			return shape;
		size_t k = (size_t)(b - s) - 1;
		at = k + 2;
		if (k + 1 == 0 || s[k] != ' ' || len - k < 8 || !is_digit(s[k + 2]) || !is_digit(s[k + 3]) || s[k + 4] != '/')
			continue;
		size_t c = k;
		while (c > 0 && s[c - 1] != ' ')
			c--;
		if (c == 0 || c == k || !memchr(s + c, ':', k - c))
			continue;
		date = k + 2;
		client = c;
		break;
	}
	const char *close = memchr(s + date, ']', len - date);
	if (!close)
		return shape;
	size_t date_len = (size_t)(close - (s + date)), i = (size_t)(close - s) + 1;
	bool had_offset;
	if (!sim_time_format("%d/%b/%Y:%H:%M:%S", s + date, date_len, im->tz_s, &f->t_ns, &had_offset, &why)) {
		im->reason = SIM_SKIP_TIME;
		snprintf(im->why, sizeof(im->why), "time '%.*s': %s", date_len > 40 ? 40 : (int)date_len, s + date,
			 why);
		return im->why;
	}
	f->no_offset = !had_offset;
	/* FRONTEND BACKEND/SERVER TIMERS STATUS BYTES */
	size_t tok_at[5], tok_len[5];
	for (int k = 0; k < 5; k++) {
		if (i == len || s[i] != ' ')
			return shape;
		tok_at[k] = ++i;
		if (!(tok_len[k] = token(s, len, &i)))
			return shape;
	}
	if (!memchr(s + tok_at[1], '/', tok_len[1]) || !memchr(s + tok_at[2], '/', tok_len[2]))
		return shape;
	const char *bytes = s + tok_at[4];
	size_t bytes_len = tok_len[4];
	if (bytes[0] == '+') { /* option logasap: the size so far */
		bytes++;
		bytes_len--;
	}
	const char *q1 = memchr(s + i, '"', len - i), *q2 = len > i ? s + len - 1 : NULL;
	while (q2 && q2 > q1 && *q2 != '"')
		q2--;
	if (!q1 || q2 <= q1)
		return "no quoted request (a TCP log line?)";
	size_t host_len = 0;
	const char *host = s + client;
	while (host[host_len] != ' ')
		host_len++;
	size_t colon = host_len;
	while (colon > 0 && host[colon - 1] != ':')
		colon--;
	if (colon > 1)
		host_len = colon - 1;
	f->cost = 1;
	if (im->want_cost && (why = imp_cost(im, bytes, bytes_len, &f->cost)))
		return why;
	return imp_request_key(im, host, host_len, q1 + 1, (size_t)(q2 - q1 - 1), f);
}
