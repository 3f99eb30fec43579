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

/* A record's end at p: LF, or CR LF. */
static bool line_end(const char *p, const char *end)
{
	return *p == '\n' || (*p == '\r' && p + 1 < end && p[1] == '\n');
}

int sim_csv_scan(const char *s, size_t len, int state)
{
	for (size_t i = 0; i < len; i++) {
		char ch = s[i];
		switch (state) {
		case SIM_CSV_START:
		case SIM_CSV_QUOTE: /* a quote that closes a field, or the first of "" */
			state = ch == '"' ? SIM_CSV_QUOTED : ch == ',' ? SIM_CSV_START : SIM_CSV_PLAIN;
			break;
		case SIM_CSV_PLAIN:
			if (ch == ',')
				state = SIM_CSV_START;
			break;
		default: { /* inside quotes: on to the next quote at once */
			const char *q = memchr(s + i, '"', len - i);
			if (!q)
				return SIM_CSV_QUOTED;
			i = (size_t)(q - s);
			state = SIM_CSV_QUOTE;
			break;
		}
		}
	}
	return state;
}

/*
 * A bad record, its problem found on line at: said in *b, the cursor past
 * the record's end, the first line end outside quotes that sim_csv_scan
 * finds from p (not yet rewritten in place) in state st on line.
 */
static int bad_record(struct sim_csv_cursor *c, char *p, int st, long line, long at, const char *what,
		      struct sim_csv_bad *b)
{
	b->why = what;
	b->line = at;
	while (p < c->end) {
		char *nl = memchr(p, '\n', (size_t)(c->end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(c->end - p);
		st = sim_csv_scan(p, n, st);
		p += n;
		if (!nl)
			break;
		p++;
		line++;
		if (st != SIM_CSV_QUOTED)
			break;
	}
	c->p = p;
	c->line = line;
	return SIM_CSV_BAD;
}

int sim_csv_record(struct sim_csv_cursor *c, char ***cells, size_t *ccap, size_t *ncells, struct sim_csv_bad *b)
{
	char *p = c->p, *end = c->end;
	long line = c->line;

	if (p == end)
		return SIM_CSV_END;
	for (;;) {
		/* one field: p at its first byte; out receives its text in place */
		char *out = p, *start = p;
		if (p < end && *p == '"') {
			long qline = line;
			p++;
			for (;;) {
				if (p == end)
					return bad_record(c, p, SIM_CSV_QUOTED, line, qline, "a quoted field is not closed", b);
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
			if (p < end && *p != ',' && !line_end(p, end))
				return bad_record(c, p, SIM_CSV_QUOTE, line, line,
						  "text after a closing '\"' (a quoted field ends at a comma or the line's end)",
						  b);
		} else {
			for (; p < end && *p != ',' && !line_end(p, end); p++) {
				if (*p == '"' && !c->bare)
					return bad_record(c, p, SIM_CSV_PLAIN, line, line, "a '\"' inside an unquoted field", b);
				if (*p == '\r' && !c->bare)
					return bad_record(c, p, SIM_CSV_PLAIN, line, line,
							  "a CR byte not before LF in an unquoted field", b);
			}
			out = p;
		}
		if (!grow((void **)cells, ccap, *ncells, sizeof(**cells)))
			return SIM_CSV_FAIL;
		(*cells)[(*ncells)++] = start;
		/* the separator: ',' continues the record; a line end or the end closes it */
		char sep = p < end ? *p : '\n';
		if (sep == '\r')
			p++;
		p += p < end;
		*out = '\0';
		if (sep == ',')
			continue;
		c->p = p;
		c->line = line + 1;
		return SIM_CSV_OK;
	}
}

int sim_csv_parse(struct sim_csv *t, size_t len, const struct sim_csv_rules *r, const char *who, FILE *err)
{
	char *p = t->data, *end = t->data + len;
	size_t ccap = 0, rcap = 0, ncells = 0, *firsts = NULL;
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
	struct sim_csv_cursor cur = { p, end, 1, false };
	int rc = SIM_CSV_OK;
	bool header_comments = r->comments;
	while (cur.p < end) {
		if (header_comments && *cur.p == '#') { /* a comment before the header */
			char *nl = memchr(cur.p, '\n', (size_t)(end - cur.p));
			cur.p = nl ? nl + 1 : end;
			cur.line++;
			continue;
		}
		if (r->skip_empty && line_end(cur.p, end)) {
			cur.p += *cur.p == '\r' ? 2 : 1;
			cur.line++;
			continue;
		}
		long rec_line = cur.line;
		size_t first = ncells;
		struct sim_csv_bad b;
		rc = sim_csv_record(&cur, &t->cells, &ccap, &ncells, &b);
		if (rc == SIM_CSV_BAD)
			rc = bad(t, b.line, who, err, b.why);
		else if (rc == SIM_CSV_FAIL)
			fprintf(err, "%s%s: out of memory\n", who, t->path);
		else if (rc == SIM_CSV_OK)
			rc = add_record(t, first, ncells, rec_line, &rcap, &firsts, &header, r, who, err);
		if (rc)
			break;
		header_comments = false;
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
