/*
 * import_jsonl.c - one line of JSON lines: one object per line, of which
 * the time, key and cost fields (named by --time-field, --key-field,
 * --cost-field, compared with the member names as written) are read and
 * every other member skipped, nested objects and arrays included. A
 * dotted name "request.remote_ip" is the member remote_ip of the object
 * request (a member whose own name holds the dot also matches). A string
 * value is decoded (escapes, \uXXXX and surrogate pairs to UTF-8); a
 * number is taken as written. A member name written twice in the object,
 * or in an object a dotted name goes through, makes the line bad: which
 * of the two counts would be a guess.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import_impl.h"

struct cursor {
	const char *s;
	size_t i, len;
};

static void ws(struct cursor *c)
{
	while (c->i < c->len && (c->s[c->i] == ' ' || c->s[c->i] == '\t'))
		c->i++;
}

/* The value of four hex digits, or -1 at the first that is not one. */
static int hex4(const char *s)
{
	int v = 0;
	for (int k = 0; k < 4; k++) {
		char h = s[k];
		int d = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10 :
			h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
		if (d < 0)
			return -1;
		v = v * 16 + d;
	}
	return v;
}

static void put_utf8(struct imp_buf *b, unsigned cp)
{
	char *o = b->p + b->len;
	if (cp < 0x80) {
		o[0] = (char)cp;
		b->len += 1;
	} else if (cp < 0x800) {
		o[0] = (char)(0xc0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 0x3f));
		b->len += 2;
	} else if (cp < 0x10000) {
		o[0] = (char)(0xe0 | cp >> 12);
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		b->len += 3;
	} else {
		o[0] = (char)(0xf0 | cp >> 18);
		o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[3] = (char)(0x80 | (cp & 0x3f));
		b->len += 4;
	}
}

/*
 * The string at c (at its opening quote): skipped, or decoded into out
 * when out is not NULL (out->len 0 first; never longer than the text).
 */
static const char *string(struct cursor *c, struct imp_buf *out)
{
	if (out) {
		out->len = 0;
		if (!imp_buf_reserve(out, c->len - c->i + 1))
			return "out of memory";
	}
	for (c->i++; c->i < c->len; c->i++) {
		char ch = c->s[c->i];
		if (ch == '"') {
			c->i++;
			return NULL;
		}
		if (ch != '\\') {
			if (out)
				out->p[out->len++] = ch;
			continue;
		}
		if (++c->i == c->len)
			break;
		const char *esc = strchr("\"\\/bfnrt", c->s[c->i]);
		if (esc && c->s[c->i]) {
			if (out)
				out->p[out->len++] = "\"\\/\b\f\n\r\t"[esc - "\"\\/bfnrt"];
			continue;
		}
		int cp;
		if (c->s[c->i] != 'u' || c->len - c->i < 5 || (cp = hex4(c->s + c->i + 1)) < 0)
			return "a string has a bad escape";
		c->i += 4;
		if (cp >= 0xd800 && cp < 0xdc00) {
			int lo;
			if (c->len - c->i < 7 || c->s[c->i + 1] != '\\' || c->s[c->i + 2] != 'u' ||
			    (lo = hex4(c->s + c->i + 3)) < 0xdc00 || lo > 0xdfff)
				return "a string has a lone surrogate escape";
			cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			c->i += 6;
		} else if (cp >= 0xdc00 && cp < 0xe000) {
			return "a string has a lone surrogate escape";
		}
		if (out)
			put_utf8(out, (unsigned)cp);
	}
	return "a string is not closed";
}

/* Skips the value at c: a string, a number or literal, an object or an array. */
static const char *skip_value(struct cursor *c)
{
	int depth = 0;
	const char *why;

	do {
		ws(c);
		if (c->i == c->len)
			return "the object is not closed";
		char ch = c->s[c->i];
		if (ch == '"') {
			if ((why = string(c, NULL)))
				return why;
		} else if (ch == '{' || ch == '[') {
			depth++;
			c->i++;
		} else if (ch == '}' || ch == ']') {
			if (depth-- == 0)
				return "expected a value";
			c->i++;
		} else if (ch == ',' || ch == ':') {
			if (depth == 0)
				return "expected a value";
			c->i++;
		} else {
			size_t start = c->i;
			while (c->i < c->len && !strchr(",:{}[]\" \t", c->s[c->i]))
				c->i++;
			if (c->i == start)
				return "expected a value";
		}
	} while (depth > 0);
	return NULL;
}

/*
 * The value at c of a wanted field: a string decoded into b, or a number
 * (or literal) pointed at; *ok false for null, an object or an array.
 */
static const char *take(struct cursor *c, struct imp_buf *b, const char **v, size_t *vlen, bool *ok)
{
	const char *why;
	size_t start;

	ws(c);
	if (c->i < c->len && c->s[c->i] == '"') {
		if ((why = string(c, b)))
			return why;
		*v = b->p;
		*vlen = b->len;
		*ok = true;
		return NULL;
	}
	start = c->i;
	if ((why = skip_value(c)))
		return why;
	*v = c->s + start;
	*vlen = c->i - start;
	*ok = c->s[start] != '{' && c->s[start] != '[' && !(*vlen == 4 && !memcmp(*v, "null", 4));
	return NULL;
}

/* A wanted field: its dotted name, where its value goes, and whether it was met. */
/* the wanted members: time, key, cost, caddy's address, the settles' real cost and response time */
enum { NWANT = 6 };

struct want {
	const char *name;
	size_t len;
	struct imp_buf *b;
	const char *v;
	size_t vl;
	bool ok, met;
};

/* Member names as written (offset, length in the line), for the repeat check. */
struct name_at {
	size_t at, len;
};

static int by_name(const void *a, const void *b, void *line)
{
	const struct name_at *x = a, *y = b;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return memcmp((const char *)line + x->at, (const char *)line + y->at, x->len);
}

/* A member name given twice among names[0..n): its index, or -1. */
static long repeated(struct name_at *names, size_t n, const char *line)
{
	if (n <= 16) { /* the usual object: a few names, compared pairwise, mostly by length */
		for (size_t i = 1; i < n; i++)
			for (size_t j = 0; j < i; j++)
				if (names[i].len == names[j].len &&
				    !memcmp(line + names[i].at, line + names[j].at, names[i].len))
					return (long)i;
		return -1;
	}
	/* many: merge-sorted, so that a line of many members costs n log n */
	struct name_at *tmp = malloc(n * sizeof(*tmp));
	if (!tmp)
		return -2;
	for (size_t w = 1; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t i = lo, j = mid, o = lo;
			while (i < mid && j < hi)
				tmp[o++] = by_name(&names[j], &names[i], (void *)line) < 0 ? names[j++] : names[i++];
			while (i < mid)
				tmp[o++] = names[i++];
			while (j < hi)
				tmp[o++] = names[j++];
		}
		memcpy(names, tmp, n * sizeof(*names));
	}
	free(tmp);
	for (size_t i = 1; i < n; i++)
		if (!by_name(&names[i - 1], &names[i], (void *)line))
			return (long)i;
	return -1;
}

/*
 * The object at c (at its '{'), whose members' dotted names begin with
 * path[0..plen) (empty at the top; path a wanted name that goes on): each member a wanted field names is
 * taken, an object on the way to one is read the same way, every other
 * value skipped. A member name written twice in one of these objects
 * makes the line bad, naming it.
 */
static const char *object(struct imp *im, struct cursor *c, struct want *w, const char *path, size_t plen)
{
	const char *line = c->s, *why;
	size_t first_name = im->names.len / sizeof(struct name_at), n = 0;

	c->i++;
	ws(c);
	if (c->i < c->len && line[c->i] == '}') {
		c->i++;
		return NULL;
	}
	for (;;) {
		ws(c);
		if (c->i == c->len || line[c->i] != '"')
			return "expected a member name";
		size_t name_at = c->i + 1;
		if ((why = string(c, NULL)))
			return why;
		size_t name_len = c->i - 1 - name_at;
		ws(c);
		if (c->i == c->len || line[c->i] != ':')
			return "expected ':' after a member name";
		c->i++;
		if (!imp_buf_reserve(&im->names, sizeof(struct name_at)))
			return "out of memory";
		struct name_at na = { name_at, name_len };
		memcpy(im->names.p + im->names.len, &na, sizeof(na));
		im->names.len += sizeof(na);
		n++;
		int k = 0, inside = -1;
		for (; k < NWANT; k++) {
			if (!w[k].name || w[k].len < plen + name_len || memcmp(w[k].name, path, plen) ||
			    memcmp(w[k].name + plen, line + name_at, name_len))
				continue;
			if (w[k].len == plen + name_len)
				break;
			if (w[k].name[plen + name_len] == '.')
				inside = k;
		}
		ws(c);
		if (k < NWANT) {
			if (w[k].met) /* a repeat: said below, where the object's names are checked */
				why = skip_value(c);
			else
				why = take(c, w[k].b, &w[k].v, &w[k].vl, &w[k].ok);
			w[k].met = true;
		} else if (inside >= 0 && c->i < c->len && line[c->i] == '{') {
			/* the path of the member's members: the wanted name's own bytes up to the '.' */
			why = object(im, c, w, w[inside].name, plen + name_len + 1);
		} else {
			why = skip_value(c);
		}
		if (why)
			return why;
		ws(c);
		if (c->i < c->len && line[c->i] == ',') {
			c->i++;
			continue;
		}
		if (c->i < c->len && line[c->i] == '}') {
			c->i++;
			break;
		}
		return "expected ',' or '}' after a value";
	}
	struct name_at *names = (struct name_at *)(void *)im->names.p + first_name;
	long r = repeated(names, n, line);
	if (r == -2)
		return "out of memory";
	if (r >= 0) {
		im->reason = SIM_SKIP_SHAPE;
		snprintf(im->why, sizeof(im->why), "member '%.*s' is given twice", names[r].len > 40 ? 40 :
			 (int)names[r].len, line + names[r].at);
		return im->why;
	}
	im->names.len = first_name * sizeof(struct name_at);
	return NULL;
}

const char *imp_jsonl(struct imp *im, char *line, size_t len, struct imp_fields *f)
{
	struct cursor c = { line, 0, len };
	struct want w[NWANT] = {
		{ im->time_field, strlen(im->time_field), &im->s_time, NULL, 0, false, false },
		{ im->key_field, strlen(im->key_field), &im->s_key, NULL, 0, false, false },
		{ im->cost_field, im->cost_field ? strlen(im->cost_field) : 0, &im->s_cost, NULL, 0, false, false },
		{ im->key_addr_field, im->key_addr_field ? strlen(im->key_addr_field) : 0, &im->s_skip, NULL, 0,
		  false, false },
		{ im->actual_field, im->actual_field ? strlen(im->actual_field) : 0, &im->s_actual, NULL, 0, false, false },
		{ im->duration_field, im->duration_field ? strlen(im->duration_field) : 0, &im->s_dur, NULL, 0, false,
		  false },
	};
	const char *why;

	ws(&c);
	if (c.i == len || line[c.i] != '{')
		return "expected a JSON object '{...}'";
	im->names.len = 0;
	if ((why = object(im, &c, w, "", 0)))
		return why;
	ws(&c);
	if (c.i != len)
		return "text after the object";
	if (!w[0].met || !w[0].ok) {
		im->reason = SIM_SKIP_TIME;
		snprintf(im->why, sizeof(im->why), "no time field '%.40s' (--time-field)%s", im->time_field,
			 w[0].met ? ": null, an object or an array" : "");
		return im->why;
	}
	if (!w[1].met && w[3].met && w[3].ok && w[3].vl) { /* "HOST:PORT", "[V6]:PORT": the host */
		const char *a = w[3].v;
		size_t n = w[3].vl;
		while (n > 0 && a[n - 1] >= '0' && a[n - 1] <= '9')
			n--;
		if (n > 1 && n < w[3].vl && a[n - 1] == ':')
			n--;
		else
			n = w[3].vl;
		if (n >= 2 && a[0] == '[' && a[n - 1] == ']') {
			a++;
			n -= 2;
		}
		w[1] = (struct want){ .v = a, .vl = n, .ok = true, .met = n > 0 };
	}
	if (!w[1].met || !w[1].ok || !w[1].vl) {
		im->reason = SIM_SKIP_KEY;
		snprintf(im->why, sizeof(im->why), "no key field '%.40s' (--key-field)%s", im->key_field,
			 w[1].met ? ": empty, null, an object or an array" : "");
		return im->why;
	}
	f->cost = 1;
	if (im->cost_field && (!w[2].met || !w[2].ok)) {
		im->reason = SIM_SKIP_COST;
		snprintf(im->why, sizeof(im->why), "no cost field '%.40s' (--cost-field)", im->cost_field);
		return im->why;
	}
	if (w[2].met && (why = imp_cost(im, w[2].v, w[2].vl, &f->cost)))
		return why;
	if (im->actual_field && (why = imp_settle_fields(im, w[4].met && w[4].ok ? w[4].v : NULL, w[4].vl,
							  w[5].met && w[5].ok ? w[5].v : NULL, w[5].vl, f)))
		return why;
	if ((why = imp_time(im, w[0].v, w[0].vl, f)))
		return why;
	f->key = w[1].v;
	f->key_len = w[1].vl;
	f->key2_len = 0;
	return NULL;
}
