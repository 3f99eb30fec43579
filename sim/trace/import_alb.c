/*
 * import_alb.c - one line of an AWS load balancer's access log, blank-
 * separated fields, some in double quotes:
 *
 *   Application:  TYPE TIME ELB CLIENT:PORT TARGET:PORT RQ_T TG_T RS_T
 *                 ELB_STATUS TARGET_STATUS RECEIVED SENT "REQUEST" "AGENT" ...
 *   Classic:      TIME ELB CLIENT:PORT BACKEND:PORT RQ_T BE_T RS_T
 *                 ELB_STATUS BACKEND_STATUS RECEIVED SENT "REQUEST" "AGENT" ...
 *
 * TIME is RFC 3339 in UTC with microseconds; a Classic line opens with it,
 * an Application line with its TYPE (http, https, h2, ws, wss, grpcs).
 * The key is the client's address without its port (an IPv6 address in
 * brackets loses them too); the cost "bytes" is SENT, the response's size.
 * What follows the request is not read.
 */
#include <stdio.h>
#include <string.h>

#include "import_impl.h"
#include "import_time.h"

/*
 * The field at s[*i..len): in quotes (to the closing quote, a quote after
 * '\' staying inside), or up to the next blank; *i then past it. False at
 * an unclosed quote or an empty field.
 */
static bool field(const char *s, size_t len, size_t *i, const char **v, size_t *vl, bool *quoted)
{
	size_t k = *i;

	*quoted = k < len && s[k] == '"';
	if (*quoted) {
		for (size_t e = k + 1; e < len; e++) {
			if (s[e] == '\\') {
				e++;
				continue;
			}
			if (s[e] == '"') {
				*v = s + k + 1;
				*vl = e - k - 1;
				*i = e + 1;
				return true;
			}
		}
		return false;
	}
	while (k < len && s[k] != ' ')
		k++;
	*v = s + *i;
	*vl = k - *i;
	*i = k;
	return *vl > 0;
}

static bool all_digits(const char *s, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (s[k] < '0' || s[k] > '9')
			return false;
	return n > 0;
}

const char *imp_alb(struct imp *im, char *s, size_t len, struct imp_fields *f)
{
	static const char *const shape = "expected an AWS load balancer log line '[TYPE] TIME ELB CLIENT:PORT "
					 "TARGET:PORT T T T STATUS STATUS RECEIVED SENT \"REQUEST\" ...'";
	enum { MAX = 13 };
	const char *v[MAX], *why;
	size_t vl[MAX], i = 0;
	bool quoted[MAX];
	bool classic = len > 0 && s[0] >= '0' && s[0] <= '9';
	int n = classic ? MAX - 1 : MAX, o = classic ? -1 : 0; /* o: a Classic field's index is one less */

	for (int k = 0; k < n; k++) {
		if (k > 0 && (i == len || s[i++] != ' '))
			return shape;
		if (!field(s, len, &i, &v[k], &vl[k], &quoted[k]))
			return shape;
	}
	if (i < len && s[i] != ' ')
		return shape;
	if (!classic && (quoted[0] || strspn(v[0], "abcdefghijklmnopqrstuvwxyz0123456789") != vl[0]))
		return shape;
	if (!quoted[12 + o] || quoted[1 + o] || quoted[3 + o] || quoted[11 + o])
		return shape;
	/* the status codes: 3 digits, or '-' when the request did not reach one */
	for (int k = 8 + o; k <= 9 + o; k++)
		if (!(vl[k] == 1 && v[k][0] == '-') && !(vl[k] == 3 && all_digits(v[k], 3)))
			return shape;
	bool had_offset;
	if (!sim_time_iso(v[1 + o], vl[1 + o], im->tz_s, &f->t_ns, &had_offset, &why)) {
		im->reason = SIM_SKIP_TIME;
		snprintf(im->why, sizeof(im->why), "time '%.*s': %s", vl[1 + o] > 40 ? 40 : (int)vl[1 + o], v[1 + o],
			 why);
		return im->why;
	}
	f->no_offset = !had_offset;
	/* CLIENT:PORT: the address, without the port and an IPv6 address's brackets */
	const char *host = v[3 + o], *colon = NULL;
	size_t host_len = vl[3 + o];
	for (size_t k = host_len; k-- > 0;)
		if (host[k] == ':') {
			colon = host + k;
			break;
		}
	if (colon && all_digits(colon + 1, (size_t)(host + host_len - colon - 1)))
		host_len = (size_t)(colon - host);
	if (host_len >= 2 && host[0] == '[' && host[host_len - 1] == ']') {
		host++;
		host_len -= 2;
	}
	if (!host_len || (host_len == 1 && host[0] == '-')) {
		im->reason = SIM_SKIP_KEY;
		return "no client address";
	}
	f->cost = 1;
	if (im->want_cost) {
		if ((why = imp_cost(im, v[11 + o], vl[11 + o], &f->cost)))
			return why;
	}
	return imp_request_key(im, host, host_len, v[12 + o], vl[12 + o], f);
}
