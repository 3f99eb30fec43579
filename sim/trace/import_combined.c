/*
 * import_combined.c - one line of the common or combined log format
 * (Apache's and nginx's default access logs):
 *
 *   HOST IDENT USER [DD/Mon/YYYY:HH:MM:SS +HHMM] "REQUEST" STATUS BYTES ["REFERER" "AGENT" ...]
 *
 * HOST is an IPv4 or IPv6 address or a name; the request is read up to its
 * closing quote, a quote escaped with '\' (and '\\') staying inside; STATUS
 * is three digits, BYTES digits or '-' (no byte sent: a cost of 0 for
 * --cost-field bytes, as the format defines it); what follows BYTES after a blank
 * (the combined format's referer and agent, or further fields) is not read.
 * The path of the request is its second word without the query string.
 * Parsed in one pass, in place, without copies. Apache's vhost_combined
 * is the same after a first field VHOST:PORT. With --key user, a request
 * without a user ('-') is keyed by its HOST.
 */
#include <stdio.h>
#include <string.h>

#include "import_impl.h"
#include "import_time.h"

/* The token of s[*i..len) up to the next blank; its length, 0 at a blank or the end. */
static size_t token(const char *s, size_t len, size_t *i)
{
	size_t start = *i, k = start;
	while (k < len && s[k] != ' ')
		k++;
	*i = k;
	return k - start;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

const char *imp_combined(struct imp *im, char *s, size_t len, struct imp_fields *f)
{
	size_t i = 0, host_len, user_at, user_len, req_at, req_end;
	const char *why;

	static const char *const shape = "expected 'HOST IDENT USER [TIME] \"REQUEST\" STATUS BYTES'";

	if (!(host_len = token(s, len, &i)) || i == len)
		return shape;
	i++;
	if (!token(s, len, &i) || i == len)
		return shape;
	user_at = ++i;
	if (!(user_len = token(s, len, &i)) || i == len || s[i + 1] != '[')
		return shape;
	if (len - i < 30 || s[i + 28] != ']')
		return "expected '[DD/Mon/YYYY:HH:MM:SS +HHMM]' after the user";
	/* Many lines share a second: the last time read is reused when its text repeats. */
	if (im->clf_ok && !memcmp(im->clf_text, s + i + 2, 26)) {
		f->t_ns = im->clf_ns;
	} else if (sim_time_clf(s + i + 2, 26, &f->t_ns, &why)) {
		memcpy(im->clf_text, s + i + 2, 26);
		im->clf_ns = f->t_ns;
		im->clf_ok = true;
	} else {
		im->reason = SIM_SKIP_TIME;
		snprintf(im->why, sizeof(im->why), "time '%.26s': %s", s + i + 2, why);
		return im->why;
	}
	i += 29;
	if (len - i < 3 || s[i] != ' ' || s[i + 1] != '"')
		return "expected ' \"REQUEST\"' after the time";
	req_at = i += 2;
	/* The closing quote: the first one after an even number of backslashes. */
	for (;;) {
		const char *q = memchr(s + i, '"', len - i);
		if (!q)
			return "the request's quote is not closed";
		size_t at = (size_t)(q - s), back = 0;
		while (at - back > req_at && s[at - back - 1] == '\\')
			back++;
		i = at;
		if (back % 2 == 0)
			break;
		i++;
	}
	req_end = i++;
	if (len - i < 6 || s[i] != ' ' || !is_digit(s[i + 1]) || !is_digit(s[i + 2]) ||
	    !is_digit(s[i + 3]) || s[i + 4] != ' ')
		return "expected a 3-digit status after the request";
	i += 5;
	size_t bytes_at = i, bytes_len = token(s, len, &i);
	if (!(bytes_len == 1 && s[bytes_at] == '-'))
		for (size_t k = 0; k < bytes_len; k++)
			if (!is_digit(s[bytes_at + k]))
				bytes_len = 0;
	if (!bytes_len)
		return "expected the size (digits or '-') after the status";
	if (im->want_cost && bytes_len == 1 && s[bytes_at] == '-') {
		f->cost = 0; /* the common log format's '-': no byte sent */
	} else if (im->want_cost) {
		if ((why = imp_cost(im, s + bytes_at, bytes_len, &f->cost)))
			return why;
	} else {
		f->cost = 1;
	}

	f->key2_len = 0;
	f->no_offset = false;
	f->anon = false;
	switch (im->key_mode) {
	case IMP_KEY_IP:
		f->key = s;
		f->key_len = host_len;
		return NULL;
	case IMP_KEY_USER:
		/* no user ('-'): the client's address, so that anonymous clients stay apart */
		f->anon = user_len == 1 && s[user_at] == '-';
		f->key = f->anon ? s : s + user_at;
		f->key_len = f->anon ? host_len : user_len;
		return NULL;
	case IMP_KEY_PATH:
	case IMP_KEY_IP_PATH:
		break;
	}
	/* "METHOD PATH[?QUERY] PROTOCOL": the second word, up to '?'. */
	size_t p = req_at, path_len;
	token(s, req_end, &p);
	if (p == req_end || p == req_at) {
		im->reason = SIM_SKIP_KEY;
		return "the request has no path";
	}
	p++;
	size_t path_at = p;
	path_len = token(s, req_end, &p);
	const char *q = memchr(s + path_at, '?', path_len);
	if (q)
		path_len = (size_t)(q - (s + path_at));
	if (!path_len) {
		im->reason = SIM_SKIP_KEY;
		return "the request has no path";
	}
	if (im->key_mode == IMP_KEY_PATH) {
		f->key = s + path_at;
		f->key_len = path_len;
	} else {
		f->key = s;
		f->key_len = host_len;
		f->key2 = s + path_at;
		f->key2_len = path_len;
	}
	return NULL;
}

const char *imp_vhost(struct imp *im, char *s, size_t len, struct imp_fields *f)
{
	static const char *const shape = "expected 'VHOST:PORT HOST IDENT USER [TIME] \"REQUEST\" STATUS BYTES'";
	const char *sp = memchr(s, ' ', len), *why;

	/* VHOST:PORT, the server's name and port: one token that holds a ':' */
	if (!sp || sp == s || !memchr(s, ':', (size_t)(sp - s)))
		return shape;
	size_t skip = (size_t)(sp - s) + 1;
	why = imp_combined(im, s + skip, len - skip, f);
	return why && !strncmp(why, "expected 'HOST", 14) ? shape : why;
}
