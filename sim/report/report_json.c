/*
 * report_json.c - the reports' JSON reader (report_json.h): a recursive
 * descent over the text, nesting bounded by RP_JSON_DEPTH.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_json.h"

#define RP_JSON_DEPTH 64

struct parser {
	const char *s, *end;
	long line;
	const char *why;
};

static void ws(struct parser *p)
{
	while (p->s < p->end && (*p->s == ' ' || *p->s == '\t' || *p->s == '\n' || *p->s == '\r')) {
		p->line += *p->s == '\n';
		p->s++;
	}
}

static bool fail(struct parser *p, const char *why)
{
	if (!p->why)
		p->why = why;
	return false;
}

static bool word(struct parser *p, const char *w)
{
	size_t n = strlen(w);
	if ((size_t)(p->end - p->s) >= n && memcmp(p->s, w, n) == 0) {
		p->s += n;
		return true;
	}
	return false;
}

static void put_utf8(char **w, unsigned long c)
{
	unsigned char *o = (unsigned char *)*w;
	if (c < 0x80) {
		*o++ = (unsigned char)c;
	} else if (c < 0x800) {
		*o++ = (unsigned char)(0xc0 | c >> 6);
		*o++ = (unsigned char)(0x80 | (c & 0x3f));
	} else if (c < 0x10000) {
		*o++ = (unsigned char)(0xe0 | c >> 12);
		*o++ = (unsigned char)(0x80 | (c >> 6 & 0x3f));
		*o++ = (unsigned char)(0x80 | (c & 0x3f));
	} else {
		*o++ = (unsigned char)(0xf0 | c >> 18);
		*o++ = (unsigned char)(0x80 | (c >> 12 & 0x3f));
		*o++ = (unsigned char)(0x80 | (c >> 6 & 0x3f));
		*o++ = (unsigned char)(0x80 | (c & 0x3f));
	}
	*w = (char *)o;
}

static bool hex4(struct parser *p, unsigned long *c)
{
	*c = 0;
	for (int i = 0; i < 4; i++, p->s++) {
		if (p->s >= p->end)
			return fail(p, "a \\u escape is cut short");
		char h = *p->s;
		unsigned d = h >= '0' && h <= '9' ? (unsigned)(h - '0')
			     : h >= 'a' && h <= 'f' ? (unsigned)(h - 'a' + 10)
			     : h >= 'A' && h <= 'F' ? (unsigned)(h - 'A' + 10) : 16;
		if (d == 16)
			return fail(p, "a \\u escape has a bad hex digit");
		*c = *c << 4 | d;
	}
	return true;
}

/* A string at p->s (its opening quote), decoded into a new buffer. */
static bool string(struct parser *p, char **out)
{
	p->s++;
	const char *q = p->s;
	while (q < p->end && *q != '"')
		q += *q == '\\' && q + 1 < p->end ? 2 : 1;
	if (q >= p->end)
		return fail(p, "a string is not closed");
	char *w = malloc((size_t)(q - p->s) + 1), *o = w;
	if (!w)
		return fail(p, "out of memory");
	while (*p->s != '"') {
		unsigned char c = (unsigned char)*p->s++;
		if (c < 0x20) {
			free(w);
			return fail(p, "a control byte inside a string");
		}
		if (c != '\\') {
			*o++ = (char)c;
			continue;
		}
		char e = *p->s++;
		unsigned long u;
		switch (e) {
		case '"': *o++ = '"'; break;
		case '\\': *o++ = '\\'; break;
		case '/': *o++ = '/'; break;
		case 'b': *o++ = '\b'; break;
		case 'f': *o++ = '\f'; break;
		case 'n': *o++ = '\n'; break;
		case 'r': *o++ = '\r'; break;
		case 't': *o++ = '\t'; break;
		case 'u':
			if (!hex4(p, &u)) {
				free(w);
				return false;
			}
			if (u >= 0xd800 && u < 0xdc00 && p->end - p->s >= 6 && p->s[0] == '\\' && p->s[1] == 'u') {
				unsigned long lo;
				p->s += 2;
				if (!hex4(p, &lo)) {
					free(w);
					return false;
				}
				u = lo >= 0xdc00 && lo < 0xe000 ? 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00) : 0xfffd;
			} else if (u >= 0xd800 && u < 0xe000) {
				u = 0xfffd;
			}
			put_utf8(&o, u);
			break;
		default:
			free(w);
			return fail(p, "a bad escape in a string");
		}
	}
	p->s++;
	*o = '\0';
	*out = w;
	return true;
}

static bool value(struct parser *p, struct rp_json *j, int depth);

static bool push(struct parser *p, struct rp_json *j, size_t *cap, char *key)
{
	if (j->n == *cap) {
		size_t c = *cap ? *cap * 2 : 4;
		struct rp_json *v = realloc(j->v, c * sizeof(*v));
		if (v)
			j->v = v;
		char **k = j->type == RP_JOBJ ? realloc(j->key, c * sizeof(*k)) : NULL;
		if (k)
			j->key = k;
		if (!v || (j->type == RP_JOBJ && !k)) {
			free(key);
			return fail(p, "out of memory");
		}
		*cap = c;
	}
	if (j->type == RP_JOBJ)
		j->key[j->n] = key;
	j->v[j->n] = (struct rp_json){0};
	j->n++;
	return true;
}

static bool container(struct parser *p, struct rp_json *j, int depth)
{
	bool obj = *p->s == '{';
	char close = obj ? '}' : ']';
	size_t cap = 0;
	j->type = obj ? RP_JOBJ : RP_JARR;
	if (depth > RP_JSON_DEPTH)
		return fail(p, "nested too deep");
	p->s++;
	ws(p);
	if (p->s < p->end && *p->s == close) {
		p->s++;
		return true;
	}
	for (;;) {
		char *key = NULL;
		ws(p);
		if (obj) {
			if (p->s >= p->end || *p->s != '"')
				return fail(p, "expected a member name");
			if (!string(p, &key))
				return false;
			ws(p);
			if (p->s >= p->end || *p->s != ':') {
				free(key);
				return fail(p, "expected ':'");
			}
			p->s++;
		}
		if (!push(p, j, &cap, key) || !value(p, &j->v[j->n - 1], depth + 1))
			return false;
		ws(p);
		if (p->s < p->end && *p->s == ',') {
			p->s++;
			continue;
		}
		if (p->s < p->end && *p->s == close) {
			p->s++;
			return true;
		}
		return fail(p, obj ? "expected ',' or '}'" : "expected ',' or ']'");
	}
}

static bool value(struct parser *p, struct rp_json *j, int depth)
{
	static const char *const bare[] = { "-nan", "-NaN", "-NAN", "-inf", "-Inf", "-INF", "nan", "NaN", "NAN",
					    "inf", "Inf", "INF" };
	*j = (struct rp_json){0};
	ws(p);
	if (p->s >= p->end)
		return fail(p, "expected a value");
	char c = *p->s;
	if (c == '{' || c == '[')
		return container(p, j, depth);
	if (c == '"') {
		j->type = RP_JSTR;
		return string(p, &j->str);
	}
	if (word(p, "true")) {
		j->type = RP_JTRUE;
		return true;
	}
	if (word(p, "false")) {
		j->type = RP_JFALSE;
		return true;
	}
	if (word(p, "null"))
		return true;
	for (size_t i = 0; i < sizeof(bare) / sizeof(*bare); i++)
		if (word(p, bare[i]))
			return true; /* Google Benchmark's bare NaN and inf: not measured */
	const char *start = p->s;
	if (p->s < p->end && *p->s == '-')
		p->s++;
	size_t digits = 0;
	while (p->s < p->end && *p->s >= '0' && *p->s <= '9')
		p->s++, digits++;
	if (!digits)
		return fail(p, "expected a value");
	if (p->s < p->end && *p->s == '.') {
		p->s++;
		for (digits = 0; p->s < p->end && *p->s >= '0' && *p->s <= '9'; p->s++)
			digits++;
		if (!digits)
			return fail(p, "a number has no digit after its '.'");
	}
	if (p->s < p->end && (*p->s == 'e' || *p->s == 'E')) {
		p->s++;
		if (p->s < p->end && (*p->s == '+' || *p->s == '-'))
			p->s++;
		for (digits = 0; p->s < p->end && *p->s >= '0' && *p->s <= '9'; p->s++)
			digits++;
		if (!digits)
			return fail(p, "a number has no digit in its exponent");
	}
	size_t n = (size_t)(p->s - start);
	j->str = malloc(n + 1);
	if (!j->str)
		return fail(p, "out of memory");
	memcpy(j->str, start, n);
	j->str[n] = '\0';
	j->type = RP_JNUM;
	j->num = strtod(j->str, NULL);
	return true;
}

bool rp_json_parse(const char *text, size_t len, struct rp_json *out, long *line, const char **why)
{
	struct parser p = { text, text + len, 1, NULL };
	bool ok = value(&p, out, 0);
	if (ok) {
		ws(&p);
		if (p.s < p.end)
			ok = fail(&p, "text after the value");
	}
	if (!ok) {
		rp_json_free(out);
		*line = p.line;
		*why = p.why;
	}
	return ok;
}

void rp_json_free(struct rp_json *j)
{
	for (size_t i = 0; i < j->n; i++) {
		rp_json_free(&j->v[i]);
		if (j->key)
			free(j->key[i]);
	}
	free(j->v);
	free(j->key);
	free(j->str);
	*j = (struct rp_json){0};
}

const struct rp_json *rp_json_get(const struct rp_json *j, const char *key)
{
	if (!j || j->type != RP_JOBJ)
		return NULL;
	for (size_t i = 0; i < j->n; i++)
		if (strcmp(j->key[i], key) == 0)
			return &j->v[i];
	return NULL;
}

double rp_json_num(const struct rp_json *j, const char *key)
{
	const struct rp_json *v = rp_json_get(j, key);
	return v && v->type == RP_JNUM ? v->num : NAN;
}

const char *rp_json_str(const struct rp_json *j, const char *key)
{
	const struct rp_json *v = rp_json_get(j, key);
	return v && v->type == RP_JSTR ? v->str : NULL;
}
