/*
 * json.c - the one JSON reader (json.h): recursive descent over the whole
 * text, depth bounded, each container grown by doubling.
 */
#include "json.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lines.h"

struct parser {
	const char *s;
	size_t i, len;
	long line;
	struct sim_json_error *err;
	int failed;
};

/* Records the first failure: where the cursor is, and what (printf-style). */
static int fail(struct parser *p, const char *fmt, ...)
{
	va_list ap;

	if (p->failed)
		return -1;
	p->failed = 1;
	va_start(ap, fmt);
	vsnprintf(p->err->what, sizeof(p->err->what), fmt, ap);
	va_end(ap);
	p->err->line = strcmp(p->err->what, "out of memory") == 0 ? 0 : p->line;
	p->err->offset = p->i;
	return -1;
}

/* The text at the cursor, up to the end of its line, quoted for a message. */
static const char *here(struct parser *p, char *buf)
{
	char text[SIM_QUOTE_MAX + 1];
	size_t n = 0;

	while (p->i + n < p->len && n < SIM_QUOTE_MAX && p->s[p->i + n] != '\n' && p->s[p->i + n] != '\0')
		n++;
	memcpy(text, p->s + p->i, n);
	text[n] = '\0';
	if (p->i >= p->len)
		return "the end of the file";
	return sim_quote(buf, text);
}

static void ws(struct parser *p)
{
	while (p->i < p->len) {
		char c = p->s[p->i];
		if (c == '\n')
			p->line++;
		else if (c != ' ' && c != '\t' && c != '\r')
			return;
		p->i++;
	}
}

static bool word(struct parser *p, const char *w)
{
	size_t n = strlen(w);

	if (p->len - p->i < n || memcmp(p->s + p->i, w, n) != 0)
		return false;
	p->i += n;
	return true;
}

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

static size_t put_utf8(char *o, unsigned cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | cp >> 12);
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | cp >> 18);
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* A string at the cursor (its opening quote) into a fresh *out. */
static int string(struct parser *p, char **out)
{
	char q[SIM_QUOTE_SIZE];
	size_t start = ++p->i, n = 0;
	char *o;

	/* Decoded text is never longer than the source: one pass to find the end. */
	while (p->i < p->len && p->s[p->i] != '"') {
		unsigned char c = (unsigned char)p->s[p->i];
		if (c < 0x20)
			return fail(p, "a control byte in a string (escape it): %s", here(p, q));
		p->i += c == '\\' && p->i + 1 < p->len ? 2 : 1;
	}
	if (p->i >= p->len)
		return fail(p, "a string without its closing '\"'");
	if (!(o = *out = malloc(p->i - start + 1)))
		return fail(p, "out of memory");
	for (size_t i = start; i < p->i;) {
		char c = p->s[i++];
		if (c != '\\') {
			o[n++] = c;
			continue;
		}
		size_t at = p->i;
		p->i = i - 1;
		c = p->s[i++];
		const char *esc = strchr("\"\\/bfnrt", c);
		if (c && esc) {
			o[n++] = "\"\\/\b\f\n\r\t"[esc - "\"\\/bfnrt"];
			p->i = at;
			continue;
		}
		int cp = c == 'u' && at - i >= 4 ? hex4(p->s + i) : -1;
		if (cp < 0)
			return fail(p, "a bad escape in a string: %s", here(p, q));
		i += 4;
		if (cp >= 0xd800 && cp < 0xdc00) {
			int lo = at - i >= 6 && p->s[i] == '\\' && p->s[i + 1] == 'u' ? hex4(p->s + i + 2) : -1;
			if (lo < 0xdc00 || lo >= 0xe000)
				return fail(p, "a lone surrogate in a string: %s", here(p, q));
			cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			i += 6;
		} else if (cp >= 0xdc00 && cp < 0xe000) {
			return fail(p, "a lone surrogate in a string: %s", here(p, q));
		} else if (cp == 0) {
			return fail(p, "\\u0000 in a string: %s", here(p, q));
		}
		n += put_utf8(o + n, (unsigned)cp);
		p->i = at;
	}
	o[n] = '\0';
	p->i++;
	return 0;
}

/* The integer digits[0..n) (optionally negative) into *out when it fits int64_t. */
static bool exact_integer(const char *digits, size_t n, bool neg, int64_t *out)
{
	uint64_t v = 0, max = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;

	for (size_t k = 0; k < n; k++) {
		uint64_t d = (uint64_t)(digits[k] - '0');
		if (v > (max - d) / 10)
			return false;
		v = v * 10 + d;
	}
	/* -2^63 is the one value whose magnitude int64_t cannot negate. */
	*out = neg ? (v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v) : (int64_t)v;
	return true;
}

/* A number as RFC 8259 writes it, or one of the non-finite words, into v
 * (its text kept as written). */
static int number(struct parser *p, struct sim_json *v)
{
	static const char *const nonfinite[] = { "Infinity", "NaN", "nan", "NAN", "inf", "Inf", "INF" };
	char q[SIM_QUOTE_SIZE];
	size_t start = p->i, i = p->i, int_at, int_len = 0;
	bool neg = i < p->len && p->s[i] == '-', integer = true;

	v->type = SIM_JSON_NUMBER;
	i += neg;
	for (size_t k = 0; k < sizeof(nonfinite) / sizeof(nonfinite[0]); k++) {
		p->i = i;
		if (word(p, nonfinite[k])) {
			v->number = nonfinite[k][0] == 'N' || nonfinite[k][0] == 'n' ? NAN : neg ? -INFINITY : INFINITY;
			goto text;
		}
	}
	p->i = start;
	while (i + int_len < p->len && p->s[i + int_len] >= '0' && p->s[i + int_len] <= '9')
		int_len++;
	if (int_len == 0 || (int_len > 1 && p->s[i] == '0'))
		return fail(p, "expected a value at %s", here(p, q));
	int_at = i;
	i += int_len;
	if (i < p->len && p->s[i] == '.') {
		size_t d = 0;
		for (i++; i < p->len && p->s[i] >= '0' && p->s[i] <= '9'; i++)
			d++;
		if (d == 0)
			return fail(p, "a number without digits after its '.': %s", here(p, q));
		integer = false;
	}
	if (i < p->len && (p->s[i] == 'e' || p->s[i] == 'E')) {
		size_t d = 0;
		i++;
		i += i < p->len && (p->s[i] == '+' || p->s[i] == '-');
		for (; i < p->len && p->s[i] >= '0' && p->s[i] <= '9'; i++)
			d++;
		if (d == 0)
			return fail(p, "a number without digits in its exponent: %s", here(p, q));
		integer = false;
	}
	p->i = i;
	v->integer_exact = integer && exact_integer(p->s + int_at, int_len, neg, &v->integer);
text:
	if (!(v->string = malloc(p->i - start + 1)))
		return fail(p, "out of memory");
	memcpy(v->string, p->s + start, p->i - start);
	v->string[p->i - start] = '\0';
	if (!isnan(v->number) && !isinf(v->number))
		v->number = strtod(v->string, NULL);
	return 0;
}

static int value(struct parser *p, struct sim_json *v, int depth);

/* Appends a zeroed item to a container (and, for an object, its key). */
static struct sim_json *grow(struct parser *p, struct sim_json *v, size_t *cap)
{
	if (v->n == *cap) {
		size_t c = *cap ? *cap * 2 : 4;
		struct sim_json *items = realloc(v->items, c * sizeof(*items));
		if (!items)
			return fail(p, "out of memory"), NULL;
		v->items = items;
		if (v->type == SIM_JSON_OBJECT) {
			char **keys = realloc(v->keys, c * sizeof(*keys));
			if (!keys)
				return fail(p, "out of memory"), NULL;
			v->keys = keys;
		}
		*cap = c;
	}
	memset(&v->items[v->n], 0, sizeof(v->items[0]));
	if (v->type == SIM_JSON_OBJECT)
		v->keys[v->n] = NULL;
	return &v->items[v->n++];
}

static int container(struct parser *p, struct sim_json *v, int depth)
{
	char q[SIM_QUOTE_SIZE];
	bool object = p->s[p->i] == '{';
	char close = object ? '}' : ']';
	size_t cap = 0;

	v->type = object ? SIM_JSON_OBJECT : SIM_JSON_ARRAY;
	if (depth >= SIM_JSON_MAX_DEPTH)
		return fail(p, "nested more than %d deep", SIM_JSON_MAX_DEPTH);
	p->i++;
	ws(p);
	if (p->i < p->len && p->s[p->i] == close) {
		p->i++;
		return 0;
	}
	for (;;) {
		struct sim_json *item = grow(p, v, &cap);
		if (!item)
			return -1;
		if (object) {
			if (p->i >= p->len || p->s[p->i] != '"')
				return fail(p, "expected a member name in '\"' at %s", here(p, q));
			if (string(p, &v->keys[v->n - 1]))
				return -1;
			ws(p);
			if (p->i >= p->len || p->s[p->i] != ':')
				return fail(p, "expected ':' after a member name at %s", here(p, q));
			p->i++;
			ws(p);
		}
		if (value(p, item, depth + 1))
			return -1;
		ws(p);
		if (p->i < p->len && p->s[p->i] == ',') {
			p->i++;
			ws(p);
			if (p->i < p->len && p->s[p->i] == close)
				return fail(p, "a trailing ',' before '%c'", close);
			continue;
		}
		if (p->i < p->len && p->s[p->i] == close) {
			p->i++;
			return 0;
		}
		return fail(p, "expected ',' or '%c' at %s", close, here(p, q));
	}
}

static int value(struct parser *p, struct sim_json *v, int depth)
{
	char q[SIM_QUOTE_SIZE];

	memset(v, 0, sizeof(*v));
	if (p->i >= p->len)
		return fail(p, "expected a value at the end of the file");
	switch (p->s[p->i]) {
	case '{':
	case '[':
		return container(p, v, depth);
	case '"':
		v->type = SIM_JSON_STRING;
		return string(p, &v->string);
	case 't':
	case 'f':
		v->type = SIM_JSON_BOOL;
		v->boolean = p->s[p->i] == 't';
		if (word(p, v->boolean ? "true" : "false"))
			return 0;
		return fail(p, "expected a value at %s", here(p, q));
	case 'n':
		if (word(p, "null"))
			return 0;
		break;
	}
	return number(p, v);
}

int sim_json_parse(const char *text, size_t len, struct sim_json *out, struct sim_json_error *err)
{
	struct parser p = { text, 0, len, 1, err, 0 };
	char q[SIM_QUOTE_SIZE];

	memset(out, 0, sizeof(*out));
	/* A UTF-8 byte-order mark is not JSON, but editors write one. */
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
		p.i = 3;
	ws(&p);
	if (value(&p, out, 0))
		return -1;
	ws(&p);
	if (p.i < len)
		return fail(&p, "text after the JSON value: %s", here(&p, q));
	return 0;
}

void sim_json_free(struct sim_json *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->n; i++) {
		sim_json_free(&v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->string);
	memset(v, 0, sizeof(*v));
}

void sim_json_error_text(char *msg, size_t msg_len, const char *path, const struct sim_json_error *err)
{
	if (err->line == 0)
		snprintf(msg, msg_len, "%s: %s", path, err->what);
	else
		snprintf(msg, msg_len, "%s:%ld: %s", path, err->line, err->what);
}

const struct sim_json *sim_json_get(const struct sim_json *obj, const char *key)
{
	if (!obj || obj->type != SIM_JSON_OBJECT)
		return NULL;
	for (size_t i = 0; i < obj->n; i++)
		if (obj->keys[i] && strcmp(obj->keys[i], key) == 0)
			return &obj->items[i];
	return NULL;
}

double sim_json_num(const struct sim_json *obj, const char *key)
{
	const struct sim_json *v = sim_json_get(obj, key);
	return sim_json_is(v, SIM_JSON_NUMBER) ? v->number : NAN;
}

const char *sim_json_str(const struct sim_json *obj, const char *key)
{
	const struct sim_json *v = sim_json_get(obj, key);
	return sim_json_is(v, SIM_JSON_STRING) ? v->string : NULL;
}
