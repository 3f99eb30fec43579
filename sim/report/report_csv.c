/*
 * report_csv.c - the reports' CSV reader (report_csv.h): the file read
 * whole and split in place.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report_csv.h"

int rp_read_file(const char *path, char **data, size_t *len, const char *who, FILE *err)
{
	*data = NULL;
	*len = 0;
	FILE *f = fopen(path, "rb");
	if (!f) {
		if (errno == ENOENT)
			return RP_BAD;
		fprintf(err, "%s%s: %s\n", who, path, strerror(errno));
		return RP_FAIL;
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
		return RP_FAIL;
	}
	d[n] = '\0';
	*data = d;
	*len = n;
	return RP_OK;
}

static int bad(const struct rp_csv *t, long line, const char *who, FILE *err, const char *what)
{
	fprintf(err, "%s%s:%ld: %s\n", who, t->path, line, what);
	return RP_BAD;
}

void rp_csv_free(struct rp_csv *t)
{
	free(t->path);
	free(t->data);
	free(t->cells);
	free(t->row);
	free(t->nf);
	free(t->line);
	*t = (struct rp_csv){0};
}

/* One pass over the records: counts them (cells NULL) or fills the tables. */
static int split(struct rp_csv *t, char *d, size_t len, size_t *ncells, size_t *nrec, bool fill,
		 const char *who, FILE *err)
{
	size_t i = 0, cells = 0, rec = 0;
	long line = 1;
	bool header = true;
	while (i < len) {
		/* comments before the header, empty lines anywhere */
		if (header && d[i] == '#') {
			while (i < len && d[i] != '\n')
				i++;
			i++;
			line++;
			continue;
		}
		if (d[i] == '\n' || (d[i] == '\r' && i + 1 < len && d[i + 1] == '\n')) {
			i += d[i] == '\r' ? 2 : 1;
			line++;
			continue;
		}
		long start = line;
		size_t first = cells;
		for (;;) { /* one field */
			char *out = d + i, *w = out;
			if (i < len && d[i] == '"') {
				i++;
				for (;;) {
					if (i >= len)
						return bad(t, start, who, err, "a quoted field is not closed");
					if (d[i] == '"') {
						if (i + 1 < len && d[i + 1] == '"') {
							if (fill)
								*w = '"';
							w++;
							i += 2;
							continue;
						}
						i++;
						break;
					}
					if (d[i] == '\0')
						return bad(t, line, who, err, "a NUL byte");
					if (d[i] == '\n')
						line++;
					if (fill)
						*w = d[i];
					w++;
					i++;
				}
				if (i < len && d[i] != ',' && d[i] != '\n' && !(d[i] == '\r' && i + 1 < len && d[i + 1] == '\n'))
					return bad(t, line, who, err, "text after a closing quote");
			} else {
				while (i < len && d[i] != ',' && d[i] != '\n' &&
				       !(d[i] == '\r' && i + 1 < len && d[i + 1] == '\n')) {
					if (d[i] == '"')
						return bad(t, line, who, err, "a '\"' inside an unquoted field");
					if (d[i] == '\0')
						return bad(t, line, who, err, "a NUL byte");
					i++;
				}
				w = d + i;
			}
			if (fill)
				t->cells[cells] = out;
			cells++;
			bool more = i < len && d[i] == ',';
			size_t end = i;
			if (i < len)
				i += d[i] == '\r' ? 2 : 1;
			if (fill)
				*w = '\0';
			(void)end;
			if (!more) {
				line++;
				break;
			}
		}
		if (fill) {
			if (header) {
				t->col = t->cells + first;
				t->ncols = cells - first;
			} else {
				t->row[rec] = t->cells + first;
				t->nf[rec] = cells - first;
				t->line[rec] = start;
			}
		}
		if (!header)
			rec++;
		header = false;
	}
	*ncells = cells;
	*nrec = rec;
	return RP_OK;
}

int rp_csv_read(struct rp_csv *t, const char *path, const char *who, FILE *err)
{
	*t = (struct rp_csv){0};
	t->path = strdup(path);
	if (!t->path) {
		fprintf(err, "%sout of memory\n", who);
		return RP_FAIL;
	}
	size_t len;
	int rc = rp_read_file(path, &t->data, &len, who, err);
	if (rc == RP_BAD)
		return RP_OK; /* absent: an empty table */
	if (rc)
		return rc;
	t->present = true;
	if (memchr(t->data, '\0', len)) {
		long line = 1;
		for (const char *p = t->data; *p; p++)
			line += *p == '\n';
		return bad(t, line, who, err, "a NUL byte");
	}
	size_t ncells, nrec;
	if ((rc = split(t, t->data, len, &ncells, &nrec, false, who, err)))
		return rc;
	t->cells = malloc((ncells + 1) * sizeof(*t->cells));
	t->row = malloc((nrec + 1) * sizeof(*t->row));
	t->nf = malloc((nrec + 1) * sizeof(*t->nf));
	t->line = malloc((nrec + 1) * sizeof(*t->line));
	if (!t->cells || !t->row || !t->nf || !t->line) {
		fprintf(err, "%s%s: out of memory\n", who, path);
		return RP_FAIL;
	}
	t->nrows = nrec;
	return split(t, t->data, len, &ncells, &nrec, true, who, err);
}

int rp_csv_col(const struct rp_csv *t, const char *name)
{
	for (size_t i = 0; i < t->ncols; i++)
		if (strcmp(t->col[i], name) == 0)
			return (int)i;
	return -1;
}

const char *rp_csv_at(const struct rp_csv *t, size_t row, const char *name)
{
	int c = rp_csv_col(t, name);
	return c < 0 || (size_t)c >= t->nf[row] ? "" : t->row[row][c];
}

double rp_csv_num(const struct rp_csv *t, size_t row, const char *name)
{
	const char *s = rp_csv_at(t, row, name);
	char *end;
	double v = strtod(s, &end);
	return !*s || *end ? NAN : v;
}
