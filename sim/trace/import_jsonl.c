/*
 * import_jsonl.c - one line of JSON lines: one object per line, of which
 * the time, key and cost fields (named by --time-field, --key-field,
 * --cost-field, compared with the member names as written) are read and
 * every other member skipped, nested objects and arrays included. A
 * string value is decoded (escapes, \uXXXX and surrogate pairs to UTF-8);
 * a number is taken as written. The first member of a name counts.
 */
#include <stdio.h>
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

static bool name_is(const char *name, const char *s, size_t len)
{
	return name && strlen(name) == len && !memcmp(name, s, len);
}

const char *imp_jsonl(struct imp *im, char *line, size_t len, struct imp_fields *f)
{
	struct cursor c = { line, 0, len };
	const char *tv = NULL, *kv = NULL, *cv = NULL, *why;
	size_t tl = 0, kl = 0, cl = 0;
	bool tok = false, kok = false, cok = false;

	ws(&c);
	if (c.i == len || line[c.i] != '{')
		return "expected a JSON object '{...}'";
	c.i++;
	ws(&c);
	if (c.i < len && line[c.i] == '}') {
		c.i++;
	} else {
		for (;;) {
			ws(&c);
			if (c.i == len || line[c.i] != '"')
				return "expected a member name";
			size_t name_at = c.i + 1;
			if ((why = string(&c, NULL)))
				return why;
			size_t name_len = c.i - 1 - name_at;
			ws(&c);
			if (c.i == len || line[c.i] != ':')
				return "expected ':' after a member name";
			c.i++;
			if (!tv && name_is(im->time_field, line + name_at, name_len))
				why = take(&c, &im->s_time, &tv, &tl, &tok);
			else if (!kv && name_is(im->key_field, line + name_at, name_len))
				why = take(&c, &im->s_key, &kv, &kl, &kok);
			else if (!cv && name_is(im->cost_field, line + name_at, name_len))
				why = take(&c, &im->s_cost, &cv, &cl, &cok);
			else
				why = skip_value(&c);
			if (why)
				return why;
			ws(&c);
			if (c.i < len && line[c.i] == ',') {
				c.i++;
				continue;
			}
			if (c.i < len && line[c.i] == '}') {
				c.i++;
				break;
			}
			return "expected ',' or '}' after a value";
		}
	}
	ws(&c);
	if (c.i != len)
		return "text after the object";
	if (!tv || !tok) {
		snprintf(im->why, sizeof(im->why), "no time field '%.40s'%s", im->time_field,
			 tv ? " (null, an object or an array)" : "");
		return im->why;
	}
	if (!kv || !kok || !kl) {
		snprintf(im->why, sizeof(im->why), "no key field '%.40s'%s", im->key_field,
			 kv ? " (empty, null, an object or an array)" : "");
		return im->why;
	}
	f->cost = 1;
	if (im->cost_field && (!cv || !cok)) {
		snprintf(im->why, sizeof(im->why), "no cost field '%.40s'", im->cost_field);
		return im->why;
	}
	if (cv && (why = imp_cost(im, cv, cl, &f->cost)))
		return why;
	if ((why = imp_time(im, tv, tl, &f->t_ns)))
		return why;
	f->key = kv;
	f->key_len = kl;
	f->key2_len = 0;
	return NULL;
}
