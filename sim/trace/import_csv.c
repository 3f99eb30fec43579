/*
 * import_csv.c - CSV as RFC 4180 writes it: a header line naming the
 * columns, then one record per line, fields separated by ',', a field in
 * double quotes when it holds a comma or a quote (a quote inside written
 * twice: ""). Every record has the header's number of fields. A record
 * cannot span lines: a line whose quote is not closed is a bad line.
 */
#include <stdio.h>
#include <string.h>

#include "import_impl.h"

/*
 * The field at s[*i..len): pointed at (unquoted) or decoded into b
 * (quoted); *i then at the ',' that ends it or at len. NULL, or the reason.
 */
static const char *field(const char *s, size_t len, size_t *i, struct imp_buf *b, const char **v,
			 size_t *vlen)
{
	size_t start = *i;

	if (start == len || s[start] != '"') {
		const char *comma = memchr(s + start, ',', len - start);
		*i = comma ? (size_t)(comma - s) : len;
		*v = s + start;
		*vlen = *i - start;
		return NULL;
	}
	b->len = 0;
	if (!imp_buf_reserve(b, len - start))
		return "out of memory";
	for (size_t k = start + 1; k < len; k++) {
		if (s[k] != '"') {
			b->p[b->len++] = s[k];
			continue;
		}
		if (k + 1 < len && s[k + 1] == '"') {
			b->p[b->len++] = '"';
			k++;
			continue;
		}
		if (k + 1 < len && s[k + 1] != ',')
			return "text after a quoted field's closing quote";
		*i = k + 1;
		*v = b->p;
		*vlen = b->len;
		return NULL;
	}
	return "a quoted field is not closed";
}

/* Splits the line into fields, those of the wanted columns into v[0..2]; the number of fields. */
static const char *record(struct imp *im, const char *s, size_t len, const char *v[3], size_t vl[3],
			  int *nfields)
{
	const int col[3] = { im->col_time, im->col_key, im->col_cost };
	struct imp_buf *buf[3] = { &im->s_time, &im->s_key, &im->s_cost };
	size_t i = 0;
	int n = 0;
	const char *why;

	for (;;) {
		const char *fv;
		size_t fl;
		struct imp_buf *b = &im->s_skip;
		for (int w = 0; w < 3; w++)
			if (col[w] == n)
				b = buf[w];
		if ((why = field(s, len, &i, b, &fv, &fl)))
			return why;
		for (int w = 0; w < 3; w++)
			if (col[w] == n) {
				v[w] = fv;
				vl[w] = fl;
			}
		n++;
		if (i == len)
			break;
		i++; /* the comma */
	}
	*nfields = n;
	return NULL;
}

const char *imp_csv_header(struct imp *im, char *line, size_t len)
{
	const char *names[3] = { im->time_field, im->key_field, im->cost_field };
	int *col[3] = { &im->col_time, &im->col_key, &im->col_cost };
	size_t i = 0;
	int n = 0;
	const char *why;

	*col[0] = *col[1] = *col[2] = -1;
	for (;;) {
		const char *fv;
		size_t fl;
		if ((why = field(line, len, &i, &im->s_skip, &fv, &fl)))
			return why;
		for (int w = 0; w < 3; w++)
			if (names[w] && *col[w] < 0 && strlen(names[w]) == fl && !memcmp(names[w], fv, fl))
				*col[w] = n;
		n++;
		if (i == len)
			break;
		i++;
	}
	im->ncols = n;
	static const char *const what[3] = { "time", "key", "cost" };
	for (int w = 0; w < 3; w++)
		if (names[w] && *col[w] < 0) {
			snprintf(im->why, sizeof(im->why), "the header has no %s column '%.40s' (--%s-field)",
				 what[w], names[w], what[w]);
			return im->why;
		}
	return NULL;
}

const char *imp_csv(struct imp *im, char *line, size_t len, struct imp_fields *f)
{
	const char *v[3] = { NULL, NULL, NULL }, *why;
	size_t vl[3] = { 0, 0, 0 };
	int n;

	if ((why = record(im, line, len, v, vl, &n)))
		return why;
	if (n != im->ncols) {
		snprintf(im->why, sizeof(im->why), "%d fields, the header has %d", n, im->ncols);
		return im->why;
	}
	if (!vl[1])
		return "the key is empty";
	f->cost = 1;
	if (im->cost_field && (why = imp_cost(im, v[2], vl[2], &f->cost)))
		return why;
	if ((why = imp_time(im, v[0], vl[0], &f->t_ns)))
		return why;
	f->key = v[1];
	f->key_len = vl[1];
	f->key2_len = 0;
	return NULL;
}
