/*
 * study_report_csv.c - the study's CSV files, read by ratelab's one
 * reader (csv.h: RFC 4180) strictly: the first record is the header,
 * named once each; every record must have as many fields as the header. A
 * NUL byte, an unclosed quote, text after a closing quote, a '"' inside an
 * unquoted field, a wrong field count or a repeated header name is refused
 * with FILE:LINE. Then the cells as the study's numbers.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
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

/* The whole file, by the one reader's sim_read_file (csv.h); a missing one is no study. */
static int read_all(struct sr_csv *t, size_t *len, FILE *err)
{
	int rc = sim_read_file(t->path, &t->data, len, SR_WHO, err);
	if (rc == SIM_CSV_BAD) {
		int e = errno;
		struct sr_buf q = {0};
		sr_quote_path(&q, t->path);
		fprintf(err, SR_WHO "cannot open %s: %s%s\n", q.p ? q.p : "", strerror(e),
			e == ENOENT ? " (not a study directory, or a study that did not finish)" : "");
		sr_buf_free(&q);
		return SR_BAD;
	}
	return rc == SIM_CSV_OK ? SR_OK : SR_FAIL;
}

static const struct sim_csv_rules strict = { false, false, true, false };

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
	/* the one reader (csv.h), strictly; its tables kept here */
	struct sim_csv c = { .path = t->path, .data = t->data };
	rc = sim_csv_parse(&c, len, &strict, SR_WHO, err);
	t->col = c.col;
	t->ncols = c.ncols;
	t->nrows = c.nrows;
	t->cell = c.row;
	t->flat = c.cells;
	t->line = c.line;
	free(c.nf); /* every row has ncols */
	return rc == SIM_CSV_OK ? SR_OK : rc == SIM_CSV_BAD ? SR_BAD : SR_FAIL;
}

void sr_csv_free(struct sr_csv *t)
{
	free(t->cell);
	free(t->flat); /* the header's cells too */
	free(t->line);
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
