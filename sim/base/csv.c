/*
 * csv.c - the one CSV reader (csv.h): the file read whole and split in
 * place.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "lines.h"

int sim_read_file(const char *path, char **data, size_t *len, const char *who, FILE *err)
{
	*data = NULL;
	*len = 0;
	FILE *f = fopen(path, "rb");
	if (!f) {
		if (errno == ENOENT || errno == ENOTDIR)
			return SIM_CSV_BAD;
		fprintf(err, "%s%s: %s\n", who, path, strerror(errno));
		return SIM_CSV_FAIL;
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
	int e = ferror(f) ? errno : 0;
	fclose(f);
	if (!d || e) {
		free(d);
		fprintf(err, "%s%s: %s\n", who, path, d ? strerror(e) : "out of memory");
		return SIM_CSV_FAIL;
	}
	d[n] = '\0';
	*data = d;
	*len = n;
	return SIM_CSV_OK;
}

static int bad(const struct sim_csv *t, long line, const char *who, FILE *err, const char *what)
{
	fprintf(err, "%s%s:%ld: %s\n", who, t->path, line, what);
	return SIM_CSV_BAD;
}

const struct sim_csv_rules sim_csv_lenient = { true, true, false, false };

void sim_csv_free(struct sim_csv *t)
{
	free(t->path);
	free(t->data);
	free(t->cells);
	free(t->row);
	free(t->nf);
	free(t->line);
	*t = (struct sim_csv){0};
}

/* Grows *v (of *cap elements of size sz) to hold n + 1. */
static bool grow(void **v, size_t *cap, size_t n, size_t sz)
{
	if (n < *cap)
		return true;
	size_t c = *cap ? *cap * 2 : 64;
	void *g = c > SIZE_MAX / sz ? NULL : realloc(*v, c * sz);
	if (!g)
		return false;
	*v = g;
	*cap = c;
	return true;
}

/* A record of fields first .. ncells (of t->cells) starting on line: the header, or a row. */
static int add_record(struct sim_csv *t, size_t first, size_t ncells, long line, size_t *rcap, size_t **firsts,
		      bool *header, const struct sim_csv_rules *r, const char *who, FILE *err)
{
	size_t nf = ncells - first;
	if (!*header) { /* the header: cells 0 .. nf */
		for (size_t i = first; r->strict && i < ncells; i++)
			for (size_t j = first; j < i; j++)
				if (strcmp(t->cells[i], t->cells[j]) == 0) {
					char q[SIM_QUOTE_SIZE];
					fprintf(err, "%s%s:%ld: column %s given twice\n", who, t->path, line,
						sim_quote(q, t->cells[i]));
					return SIM_CSV_BAD;
				}
		*header = true;
		t->ncols = nf;
		return SIM_CSV_OK;
	}
	if (!r->ragged && nf != t->ncols) {
		fprintf(err, "%s%s:%ld: %zu field%s, the header has %zu\n", who, t->path, line, nf, nf == 1 ? "" : "s",
			t->ncols);
		return SIM_CSV_BAD;
	}
	size_t c0 = *rcap, c1 = *rcap, c2 = *rcap;
	if (!grow((void **)firsts, &c0, t->nrows, sizeof(**firsts)) ||
	    !grow((void **)&t->nf, &c1, t->nrows, sizeof(*t->nf)) ||
	    !grow((void **)&t->line, &c2, t->nrows, sizeof(*t->line))) {
		fprintf(err, "%s%s: out of memory\n", who, t->path);
		return SIM_CSV_FAIL;
	}
	*rcap = c0;
	(*firsts)[t->nrows] = first; /* the row's cells, by index until they stop moving */
	t->nf[t->nrows] = nf;
	t->line[t->nrows++] = line;
	return SIM_CSV_OK;
}

int sim_csv_parse(struct sim_csv *t, size_t len, const struct sim_csv_rules *r, const char *who, FILE *err)
{
	char *p = t->data, *end = t->data + len;
	size_t ccap = 0, rcap = 0, ncells = 0, first = 0, *firsts = NULL;
	bool header = false;
	if (len >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
		p += 3;
	if (memchr(p, '\0', (size_t)(end - p))) {
		long line = 1;
		for (char *q = p; *q; q++)
			line += *q == '\n';
		return bad(t, line, who, err, "holds a NUL byte");
	}
	if (p == end && r->strict)
		return bad(t, 1, who, err, "empty: no header line");
	long line = 1, rec_line = 1;
	int rc = SIM_CSV_OK;
	bool header_comments = r->comments;
	for (;;) {
		if (p == end && ncells == first)
			break;
		if (ncells == first && header_comments && *p == '#') { /* a comment before the header */
			while (p < end && *p != '\n')
				p++;
			p += p < end;
			rec_line = ++line;
			continue;
		}
		if (ncells == first && r->skip_empty && (*p == '\n' || (*p == '\r' && p + 1 < end && p[1] == '\n'))) {
			p += *p == '\r' ? 2 : 1;
			rec_line = ++line;
			continue;
		}
		/* one field: p at its first byte; out receives its text in place */
		char *out = p, *start = p;
		if (*p == '"') {
			long qline = line;
			p++;
			for (;;) {
				if (p == end) {
					rc = bad(t, qline, who, err, "a quoted field is not closed");
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
				rc = bad(t, line, who, err,
					 "text after a closing '\"' (a quoted field ends at a comma or the line's end)");
				break;
			}
		} else {
			while (p < end && *p != ',' && *p != '\n' && !(*p == '\r' && p + 1 < end && p[1] == '\n')) {
				if (*p == '"') {
					rc = bad(t, line, who, err, "a '\"' inside an unquoted field");
					break;
				}
				if (*p == '\r') {
					rc = bad(t, line, who, err, "a CR byte not before LF in an unquoted field");
					break;
				}
				out++;
				p++;
			}
			if (rc)
				break;
		}
		if (!grow((void **)&t->cells, &ccap, ncells, sizeof(*t->cells))) {
			fprintf(err, "%s%s: out of memory\n", who, t->path);
			rc = SIM_CSV_FAIL;
			break;
		}
		t->cells[ncells++] = start;
		/* the separator: ',' continues the record; a line end or the end closes it */
		char sep = p < end ? *p : '\n';
		if (sep == '\r')
			p++;
		p += p < end;
		*out = '\0';
		if (sep == ',')
			continue;
		if ((rc = add_record(t, first, ncells, rec_line, &rcap, &firsts, &header, r, who, err)))
			break;
		header_comments = false;
		first = ncells;
		line++;
		rec_line = line;
	}
	/* the pointers, once the cells stop moving */
	if (!rc && header)
		t->col = t->cells;
	if (!rc && t->nrows && !(t->row = malloc(t->nrows * sizeof(*t->row)))) {
		fprintf(err, "%s%s: out of memory\n", who, t->path);
		rc = SIM_CSV_FAIL;
	}
	for (size_t i = 0; !rc && i < t->nrows; i++)
		t->row[i] = t->cells + firsts[i];
	free(firsts);
	if (rc) /* nothing half read */
		t->nrows = t->ncols = 0;
	return rc;
}

int sim_csv_read(struct sim_csv *t, const char *path, const struct sim_csv_rules *r, const char *who, FILE *err)
{
	*t = (struct sim_csv){0};
	t->path = strdup(path);
	if (!t->path) {
		fprintf(err, "%sout of memory\n", who);
		return SIM_CSV_FAIL;
	}
	size_t len;
	int rc = sim_read_file(path, &t->data, &len, who, err);
	if (rc == SIM_CSV_BAD)
		return SIM_CSV_OK; /* absent: an empty table */
	if (rc)
		return rc;
	t->present = true;
	return sim_csv_parse(t, len, r ? r : &sim_csv_lenient, who, err);
}

int sim_csv_col(const struct sim_csv *t, const char *name)
{
	for (size_t i = 0; i < t->ncols; i++)
		if (strcmp(t->col[i], name) == 0)
			return (int)i;
	return -1;
}

const char *sim_csv_at(const struct sim_csv *t, size_t row, const char *name)
{
	int c = sim_csv_col(t, name);
	return c < 0 || (size_t)c >= t->nf[row] ? "" : t->row[row][c];
}

double sim_csv_num(const struct sim_csv *t, size_t row, const char *name)
{
	const char *s = sim_csv_at(t, row, name);
	char *end;
	double v = strtod(s, &end);
	return !*s || *end ? NAN : v;
}
