/*
 * import_csv.c - CSV as RFC 4180 writes it: a header line naming the
 * columns, then one record per line, fields separated by ',', a field in
 * double quotes when it holds a comma or a quote (a quote inside written
 * twice: ""). Every record has the header's number of fields. A quoted
 * field may hold line breaks: the importer joins the lines of such a
 * record (imp_csv_open) before it is read. A header naming a column twice
 * is refused, naming it.
 */
#include <stdio.h>
#include <string.h>

#include "import_impl.h"

/* the columns read: time, key, cost, and the settles' real cost and response time */
enum { NCOL = 5 };

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
static const char *record(struct imp *im, const char *s, size_t len, const char *v[NCOL], size_t vl[NCOL],
			  int *nfields)
{
	const int col[NCOL] = { im->col_time, im->col_key, im->col_cost, im->col_actual, im->col_dur };
	struct imp_buf *buf[NCOL] = { &im->s_time, &im->s_key, &im->s_cost, &im->s_actual, &im->s_dur };
	size_t i = 0;
	int n = 0;
	const char *why;

	for (;;) {
		const char *fv;
		size_t fl;
		struct imp_buf *b = &im->s_skip;
		for (int w = 0; w < NCOL; w++)
			if (col[w] == n)
				b = buf[w];
		if ((why = field(s, len, &i, b, &fv, &fl)))
			return why;
		for (int w = 0; w < NCOL; w++)
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

int imp_csv_scan(const char *s, size_t len, int state)
{
	for (size_t i = 0; i < len; i++) {
		char ch = s[i];
		switch (state) {
		case IMP_CSV_START:
		case IMP_CSV_QUOTE: /* a quote that closes a field, or the first of "" */
			state = ch == '"' ? IMP_CSV_QUOTED : ch == ',' ? IMP_CSV_START : IMP_CSV_PLAIN;
			break;
		case IMP_CSV_PLAIN:
			if (ch == ',')
				state = IMP_CSV_START;
			break;
		default: { /* inside quotes: on to the next quote at once */
			const char *q = memchr(s + i, '"', len - i);
			if (!q)
				return IMP_CSV_QUOTED;
			i = (size_t)(q - s);
			state = IMP_CSV_QUOTE;
			break;
		}
		}
	}
	return state;
}

/* Columns' names (offset and length in im->names) compared: for the sort. */
static int by_column(const void *a, const void *b, const char *base)
{
	const size_t *x = a, *y = b;
	if (x[1] != y[1])
		return x[1] < y[1] ? -1 : 1;
	return memcmp(base + x[0], base + y[0], x[1]);
}

/* The name of a column given twice among the n names in im->names (offset, length pairs after the text). */
static const char *repeated_column(struct imp *im, size_t text_len, int n)
{
	size_t *pairs = (size_t *)(void *)(im->names.p + text_len), *tmp = pairs + 2 * (size_t)n;
	const char *base = im->names.p;

	/* merge sort by (length, bytes): n log n for a header of many columns */
	for (size_t w = 1; w < (size_t)n; w *= 2) {
		for (size_t lo = 0; lo < (size_t)n; lo += 2 * w) {
			size_t mid = lo + w < (size_t)n ? lo + w : (size_t)n, hi = lo + 2 * w < (size_t)n ? lo + 2 * w : (size_t)n;
			size_t i = lo, j = mid, o = lo;
			while (i < mid || j < hi) {
				bool right = i == mid || (j < hi && by_column(pairs + 2 * j, pairs + 2 * i, base) < 0);
				size_t from = right ? j++ : i++;
				tmp[2 * o] = pairs[2 * from];
				tmp[2 * o + 1] = pairs[2 * from + 1];
				o++;
			}
		}
		memcpy(pairs, tmp, 2 * (size_t)n * sizeof(*pairs));
	}
	for (int i = 1; i < n; i++)
		if (!by_column(pairs + 2 * (i - 1), pairs + 2 * i, base)) {
			snprintf(im->why, sizeof(im->why), "the header names the column '%.*s' twice",
				 pairs[2 * i + 1] > 40 ? 40 : (int)pairs[2 * i + 1], base + pairs[2 * i]);
			return im->why;
		}
	return NULL;
}

const char *imp_csv_header(struct imp *im, char *line, size_t len)
{
	const char *names[NCOL] = { im->time_field, im->key_field, im->cost_field, im->actual_field,
				    im->duration_field };
	int *col[NCOL] = { &im->col_time, &im->col_key, &im->col_cost, &im->col_actual, &im->col_dur };
	size_t i = 0;
	int n = 0;
	const char *why;

	*col[0] = *col[1] = *col[2] = *col[3] = *col[4] = -1;
	/* the names' text in im->names, their (offset, length) pairs in im->s_key, then after the text */
	im->names.len = 0;
	im->s_key.len = 0;
	for (;;) {
		const char *fv;
		size_t fl;
		if ((why = field(line, len, &i, &im->s_skip, &fv, &fl)))
			return why;
		for (int w = 0; w < NCOL; w++)
			if (names[w] && *col[w] < 0 && strlen(names[w]) == fl && !memcmp(names[w], fv, fl))
				*col[w] = n;
		size_t pair[2] = { im->names.len, fl };
		if (!imp_buf_reserve(&im->names, fl + 1) || !imp_buf_reserve(&im->s_key, sizeof(pair)))
			return "out of memory";
		memcpy(im->names.p + im->names.len, fv, fl);
		im->names.len += fl;
		memcpy(im->s_key.p + im->s_key.len, pair, sizeof(pair));
		im->s_key.len += sizeof(pair);
		n++;
		if (i == len)
			break;
		i++;
	}
	im->ncols = n;
	size_t text_len = (im->names.len + sizeof(size_t) - 1) / sizeof(size_t) * sizeof(size_t);
	if (!imp_buf_reserve(&im->names, text_len - im->names.len + 4 * (size_t)n * sizeof(size_t)))
		return "out of memory";
	memcpy(im->names.p + text_len, im->s_key.p, im->s_key.len);
	if ((why = repeated_column(im, text_len, n)))
		return why;
	static const char *const what[NCOL] = { "time", "key", "cost", "actual", "duration" };
	for (int w = 0; w < NCOL; w++)
		if (names[w] && *col[w] < 0) {
			snprintf(im->why, sizeof(im->why), "the header has no %s column '%.40s' (--%s-field)",
				 what[w], names[w], what[w]);
			return im->why;
		}
	return NULL;
}

const char *imp_csv(struct imp *im, char *line, size_t len, struct imp_fields *f)
{
	const char *v[NCOL] = { NULL, NULL, NULL, NULL, NULL }, *why;
	size_t vl[NCOL] = { 0, 0, 0, 0, 0 };
	int n;

	if ((why = record(im, line, len, v, vl, &n)))
		return why;
	if (n != im->ncols) {
		snprintf(im->why, sizeof(im->why), "%d fields, the header has %d", n, im->ncols);
		return im->why;
	}
	if (!vl[1]) {
		im->reason = SIM_SKIP_KEY;
		return "the key is empty";
	}
	f->cost = 1;
	if (im->cost_field && (why = imp_cost(im, v[2], vl[2], &f->cost)))
		return why;
	if (im->actual_field && (why = imp_settle_fields(im, v[3], vl[3], v[4], vl[4], f)))
		return why;
	if ((why = imp_time(im, v[0], vl[0], f)))
		return why;
	f->key = v[1];
	f->key_len = vl[1];
	f->key2_len = 0;
	return NULL;
}
