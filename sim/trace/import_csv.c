/*
 * import_csv.c - CSV logs read by ratelab's one CSV reader (csv.h), one
 * record at a time (import.c joins the lines of a record whose quoted field
 * holds a line break, by sim_csv_scan, before it is read): a header naming
 * the columns, then records of the header's number of fields. The reader
 * is asked for its bare mode, as import always read logs: a '"' or a CR
 * inside an unquoted field is a byte of it. A header naming a column twice
 * is refused, naming it. What import accepts: docs/cli.md, "CSV".
 */
#include <stdio.h>
#include <string.h>

#include "csv.h"
#include "import_impl.h"
#include "trace_line.h"

/* the columns read: time, key, cost, and the settles' real cost and response time */
enum { NCOL = 5 };

/*
 * The record line[0..len) split by the one reader into im->cells (a copy:
 * messages quote the record as read). NULL, or the reason, with
 * im->why_line the lines from the record's first to the problem's.
 */
static const char *split(struct imp *im, const char *line, size_t len)
{
	struct sim_csv_bad b;

	if (memchr(line, '\0', len))
		return SIM_TRACE_LINE_NUL;
	im->s_skip.len = 0;
	if (!imp_buf_reserve(&im->s_skip, len + 1))
		return "out of memory";
	memcpy(im->s_skip.p, line, len);
	im->s_skip.p[len] = '\0';
	struct sim_csv_cursor cur = { im->s_skip.p, im->s_skip.p + len, 1, true };
	im->ncells = 0;
	switch (sim_csv_record(&cur, &im->cells, &im->ccap, &im->ncells, &b)) {
	case SIM_CSV_OK:
		return NULL;
	case SIM_CSV_BAD:
		im->why_line = b.line - 1;
		return b.why;
	case SIM_CSV_END: /* no byte (import.c skips blank lines before they come here) */
		return "an empty record";
	default:
		return "out of memory";
	}
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
	const char *why;

	*col[0] = *col[1] = *col[2] = *col[3] = *col[4] = -1;
	if ((why = split(im, line, len)))
		return why;
	/* the names' text in im->names, their (offset, length) pairs in im->s_key, then after the text */
	im->names.len = 0;
	im->s_key.len = 0;
	int n = 0;
	for (size_t i = 0; i < im->ncells; i++) {
		const char *fv = im->cells[i];
		size_t fl = strlen(fv);
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
	const int col[NCOL] = { im->col_time, im->col_key, im->col_cost, im->col_actual, im->col_dur };
	const char *v[NCOL] = { NULL, NULL, NULL, NULL, NULL }, *why;
	size_t vl[NCOL] = { 0, 0, 0, 0, 0 };

	if ((why = split(im, line, len)))
		return why;
	if (im->ncells != (size_t)im->ncols) { /* the reader's words (csv.c) */
		snprintf(im->why, sizeof(im->why), "%zu field%s, the header has %d", im->ncells,
			 im->ncells == 1 ? "" : "s", im->ncols);
		return im->why;
	}
	for (int w = 0; w < NCOL; w++)
		if (col[w] >= 0) {
			v[w] = im->cells[col[w]];
			vl[w] = strlen(v[w]);
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
