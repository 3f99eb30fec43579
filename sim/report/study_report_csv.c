/*
 * study_report_csv.c - the reader of the study's CSV files (RFC 4180):
 * fields separated by ',', a field quoted with '"' may hold ',', CR, LF
 * and '""' (one '"'); records end with LF or CRLF, the last one may lack
 * it; an optional UTF-8 byte-order mark is skipped. The first record is
 * the header; every record must have as many fields as the header. A NUL
 * byte, an unclosed quote, text after a closing quote, a '"' inside an
 * unquoted field, a wrong field count or a repeated header name is refused
 * with FILE:LINE. The file is read whole and split in place.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "study_report_int.h"

int sr_csv_bad(const struct sr_csv *t, size_t row, FILE *err, const char *fmt, ...)
{
	long line = row == SIZE_MAX ? 1 : t->line[row];
	fprintf(err, SR_WHO "%s:%ld: ", t->path, line);
	va_list ap;
	va_start(ap, fmt);
	vfprintf(err, fmt, ap);
	va_end(ap);
	fputc('\n', err);
	return SR_BAD;
}

static int bad_at(const struct sr_csv *t, long line, FILE *err, const char *what)
{
	fprintf(err, SR_WHO "%s:%ld: %s\n", t->path, line, what);
	return SR_BAD;
}

static int read_all(struct sr_csv *t, size_t *len, FILE *err)
{
	FILE *f = fopen(t->path, "rb");
	if (!f) {
		int e = errno;
		struct sr_buf q = {0};
		sr_quote_path(&q, t->path);
		fprintf(err, SR_WHO "cannot open %s: %s%s\n", q.p ? q.p : "", strerror(e),
			e == ENOENT ? " (not a study directory, or a study that did not finish)" : "");
		sr_buf_free(&q);
		return e == ENOENT || e == ENOTDIR ? SR_BAD : SR_FAIL;
	}
	size_t cap = 1 << 16, n = 0;
	char *d = malloc(cap);
	while (d) {
		n += fread(d + n, 1, cap - n - 1, f);
		if (n < cap - 1)
			break;
		char *g = cap > SIZE_MAX / 2 ? NULL : realloc(d, cap * 2);
		if (!g) {
			free(d);
			d = NULL;
			break;
		}
		d = g;
		cap *= 2;
	}
	bool rerr = ferror(f);
	fclose(f);
	if (!d || rerr) {
		free(d);
		fprintf(err, SR_WHO "%s: %s\n", t->path, d ? "read error" : "out of memory");
		return SR_FAIL;
	}
	d[n] = '\0';
	t->data = d;
	*len = n;
	return SR_OK;
}

/* Appends a record of nf fields to t (the header when t->col is NULL). */
static int add_record(struct sr_csv *t, char **field, size_t nf, long line, FILE *err)
{
	if (!t->col) {
		for (size_t i = 0; i < nf; i++)
			for (size_t j = 0; j < i; j++)
				if (strcmp(field[i], field[j]) == 0) {
					struct sr_buf q = {0};
					sr_quote(&q, field[i]);
					fprintf(err, SR_WHO "%s:%ld: column %s given twice\n", t->path, line,
						q.p ? q.p : "");
					sr_buf_free(&q);
					return SR_BAD;
				}
		t->col = malloc(nf * sizeof(*t->col));
		if (!t->col)
			goto oom;
		memcpy(t->col, field, nf * sizeof(*field));
		t->ncols = nf;
		return SR_OK;
	}
	if (nf != t->ncols) {
		fprintf(err, SR_WHO "%s:%ld: %zu field%s, the header has %zu\n", t->path, line, nf,
			nf == 1 ? "" : "s", t->ncols);
		return SR_BAD;
	}
	if ((t->nrows & (t->nrows - 1)) == 0) { /* grow at powers of two */
		size_t cap = t->nrows ? t->nrows * 2 : 1;
		char **f = cap > SIZE_MAX / sizeof(*f) / nf ? NULL : realloc(t->flat, cap * nf * sizeof(*f));
		if (f)
			t->flat = f;
		long *l = realloc(t->line, cap * sizeof(*l));
		if (l)
			t->line = l;
		if (!f || !l)
			goto oom;
	}
	memcpy(t->flat + t->nrows * nf, field, nf * sizeof(*field));
	t->line[t->nrows] = line;
	t->nrows++;
	return SR_OK;
oom:
	fprintf(err, SR_WHO "%s: out of memory\n", t->path);
	return SR_FAIL;
}

int sr_csv_read(struct sr_csv *t, const char *dir, const char *name, FILE *err)
{
	*t = (struct sr_csv){0};
	size_t plen = strlen(dir) + strlen(name) + 2;
	t->path = malloc(plen);
	if (!t->path) {
		fprintf(err, SR_WHO "out of memory\n");
		return SR_FAIL;
	}
	snprintf(t->path, plen, "%s/%s", dir, name);
	size_t len;
	int rc = read_all(t, &len, err);
	if (rc)
		return rc;
	char *p = t->data, *end = t->data + len;
	if (len >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
		p += 3;
	if (memchr(p, '\0', (size_t)(end - p))) {
		long line = 1;
		for (char *q = p; *q; q++)
			line += *q == '\n';
		return bad_at(t, line, err, "holds a NUL byte");
	}
	if (p == end)
		return bad_at(t, 1, err, "empty: no header line");
	size_t fcap = 16, nf = 0;
	char **field = malloc(fcap * sizeof(*field));
	if (!field) {
		fprintf(err, SR_WHO "out of memory\n");
		return SR_FAIL;
	}
	long line = 1, rec_line = 1;
	rc = SR_OK;
	for (;;) {
		if (p == end && nf == 0)
			break;
		/* one field: p at its first byte; out receives its text in place */
		char *out = p, *start = p;
		if (*p == '"') {
			long qline = line;
			p++;
			for (;;) {
				if (p == end) {
					rc = bad_at(t, qline, err, "a quoted field is not closed");
					break;
				}
				if (*p == '"') {
					if (p + 1 < end && p[1] == '"') {
						*out++ = '"';
						p += 2;
						continue;
					}
					p++;
					break;
				}
				line += *p == '\n';
				*out++ = *p++;
			}
			if (rc)
				break;
			if (p < end && *p != ',' && *p != '\n' && !(*p == '\r' && p + 1 < end && p[1] == '\n')) {
				rc = bad_at(t, line, err,
					    "text after a closing '\"' (a quoted field ends at a comma or the line's end)");
				break;
			}
		} else {
			while (p < end && *p != ',' && *p != '\n' && !(*p == '\r' && p + 1 < end && p[1] == '\n')) {
				if (*p == '"') {
					rc = bad_at(t, line, err, "a '\"' inside an unquoted field");
					break;
				}
				if (*p == '\r') {
					rc = bad_at(t, line, err, "a CR byte not before LF in an unquoted field");
					break;
				}
				out++;
				p++;
			}
			if (rc)
				break;
		}
		if (nf == fcap) {
			char **g = realloc(field, 2 * fcap * sizeof(*field));
			if (!g) {
				fprintf(err, SR_WHO "out of memory\n");
				rc = SR_FAIL;
				break;
			}
			field = g;
			fcap *= 2;
		}
		field[nf++] = start;
		/* the separator: ',' continues the record; a line end or the end closes it */
		char sep = p < end ? *p : '\n';
		if (sep == '\r')
			p++;
		p += p < end;
		*out = '\0';
		if (sep == ',')
			continue;
		rc = add_record(t, field, nf, rec_line, err);
		if (rc)
			break;
		nf = 0;
		line++;
		rec_line = line;
	}
	free(field);
	/* the rows, once the cells stop moving */
	if (rc == SR_OK && t->nrows) {
		t->cell = malloc(t->nrows * sizeof(*t->cell));
		if (!t->cell) {
			fprintf(err, SR_WHO "%s: out of memory\n", t->path);
			return SR_FAIL;
		}
		for (size_t i = 0; i < t->nrows; i++)
			t->cell[i] = t->flat + i * t->ncols;
	}
	return rc;
}

void sr_csv_free(struct sr_csv *t)
{
	free(t->cell);
	free(t->flat);
	free(t->line);
	free(t->col);
	free(t->data);
	free(t->path);
	*t = (struct sr_csv){0};
}

int sr_csv_col(const struct sr_csv *t, const char *name, FILE *err)
{
	for (size_t i = 0; i < t->ncols; i++)
		if (strcmp(t->col[i], name) == 0)
			return (int)i;
	fprintf(err, SR_WHO "%s:1: no column '%s' in the header\n", t->path, name);
	return -1;
}

int sr_csv_bad_value(const struct sr_csv *t, size_t row, int col, const char *name, const char *what,
		     FILE *err)
{
	struct sr_buf q = {0};
	sr_quote(&q, t->cell[row][col]);
	sr_csv_bad(t, row, err, "%s %s is not %s", name, q.p ? q.p : "", what);
	sr_buf_free(&q);
	return SR_BAD;
}

static int bad_value(const struct sr_csv *t, size_t row, int col, const char *what, FILE *err)
{
	return sr_csv_bad_value(t, row, col, t->col[col], what, err);
}

int sr_csv_u64(const struct sr_csv *t, size_t row, int col, uint64_t *out, FILE *err)
{
	const char *s = t->cell[row][col];
	uint64_t v = 0;
	if (!*s)
		return bad_value(t, row, col, "an integer", err);
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return bad_value(t, row, col, "an integer (digits only, at most 2^64 - 1)", err);
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return SR_OK;
}

int sr_csv_num(const struct sr_csv *t, size_t row, int col, bool empty_ok, double *out,
	       bool *present, FILE *err)
{
	const char *s = t->cell[row][col];
	*present = *s != '\0';
	if (!*s) {
		*out = 0;
		return empty_ok ? SR_OK : bad_value(t, row, col, "a number", err);
	}
	/* digits, an optional fraction, an optional exponent: what strtod reads, minus
	 * signs, hex, inf and nan, which no count or cost can be */
	const char *p = s;
	size_t digits = 0;
	while (*p >= '0' && *p <= '9')
		p++, digits++;
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++)
			digits++;
	if (digits && (*p == 'e' || *p == 'E')) {
		p++;
		p += *p == '+' || *p == '-';
		if (!(*p >= '0' && *p <= '9'))
			digits = 0;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	char *e;
	double v = digits && !*p ? strtod(s, &e) : -1;
	if (v < 0 || v > 1.7e308)
		return bad_value(t, row, col, "a non-negative decimal number", err);
	*out = v;
	return SR_OK;
}
