/*
 * test_csv.c - ratelab's one CSV reader (sim/base/csv.h) as every layer
 * uses it: RFC 4180's cases (quotes, "" inside quotes, CRLF, line breaks
 * and CRLF inside a quoted field, a last record without a line end, a
 * byte-order mark), each record's line (the physical line it begins on)
 * against a slow model on seeded random tables (the seed printed on
 * failure, RL_SEED replays it), the strict refusals with FILE:LINE, the
 * rules `ratelab study --merge` reads with (rows of any length),
 * sim_read_file / sim_csv_read on a missing file; and the per-record
 * error mode import reads its logs with (sim_csv_record: each record's
 * line, cells or problem's line against a slow model on seeded records,
 * some bad; bare mode; reading on after a bad record).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "csv.h"
#include "test_rng.h"

static const struct sim_csv_rules strict = { false, false, true, false };
static const struct sim_csv_rules merge = { false, false, true, true };

/* Parses text (len bytes) under r into t; err's text into msg. */
static int parse_n(struct sim_csv *t, const char *text, size_t len, const struct sim_csv_rules *r, char *msg,
		   size_t cap)
{
	*t = (struct sim_csv){ 0 };
	t->path = strdup("F.csv");
	t->data = malloc(len + 1);
	assert_non_null(t->path);
	assert_non_null(t->data);
	memcpy(t->data, text, len);
	t->data[len] = '\0';
	char *buf = NULL;
	size_t n = 0;
	FILE *err = open_memstream(&buf, &n);
	assert_non_null(err);
	int rc = sim_csv_parse(t, len, r, "w: ", err);
	fclose(err);
	snprintf(msg, cap, "%s", buf ? buf : "");
	free(buf);
	return rc;
}

static int parse(struct sim_csv *t, const char *text, const struct sim_csv_rules *r, char *msg, size_t cap)
{
	return parse_n(t, text, strlen(text), r, msg, cap);
}

static void rfc4180_cases(void **state)
{
	(void)state;
	struct sim_csv t;
	char msg[256];
	/* BOM, CRLF, a quoted field with ',', '""', CRLF and LF inside, the last record without a line end */
	static const char text[] = "\xef\xbb\xbf" "a,b,c\r\n"
				   "1,\"x,y\",\"say \"\"hi\"\"\"\r\n"
				   "2,\"two\r\nlines\",\"three\nlines\nhere\"\r\n"
				   "3,,\"\"\r\n"
				   "4,last,end";
	assert_int_equal(parse(&t, text, &strict, msg, sizeof(msg)), SIM_CSV_OK);
	assert_int_equal(t.ncols, 3);
	assert_string_equal(t.col[0], "a"); /* the BOM is not part of the first name */
	assert_int_equal(t.nrows, 4);
	assert_string_equal(t.row[0][1], "x,y");
	assert_string_equal(t.row[0][2], "say \"hi\"");
	assert_string_equal(t.row[1][1], "two\r\nlines");
	assert_string_equal(t.row[1][2], "three\nlines\nhere");
	assert_string_equal(t.row[2][1], "");
	assert_string_equal(t.row[2][2], "");
	assert_string_equal(t.row[3][2], "end");
	/* the line each record begins on: row 2 after the three line breaks inside row 1's quotes */
	assert_int_equal(t.line[0], 2);
	assert_int_equal(t.line[1], 3);
	assert_int_equal(t.line[2], 7);
	assert_int_equal(t.line[3], 8);
	/* the reports' names are the same reader */
	assert_string_equal(sim_csv_at(&t, 3, "b"), "last");
	sim_csv_free(&t);
}

static void strict_refusals(void **state)
{
	(void)state;
	static const struct {
		const char *text, *msg;
	} cases[] = {
		/* the line named is where the record (or the quote) began, after earlier line breaks in quotes */
		{ "a,b\n\"1\n2\",3\n4,\"5\n", "w: F.csv:4: a quoted field is not closed\n" },
		{ "a,b\r\n\"x\r\ny\",\"2\"z\r\n", "w: F.csv:3: text after a closing '\"' (a quoted field ends at a comma or the line's end)\n" },
		{ "a,b\n1,x\"y\n", "w: F.csv:2: a '\"' inside an unquoted field\n" },
		{ "a,b\n1,2\r\n3,4\r5\n", "w: F.csv:3: a CR byte not before LF in an unquoted field\n" },
		{ "a,b\n1\n", "w: F.csv:2: 1 field, the header has 2\n" },
		{ "x,y,x\n", "w: F.csv:1: column 'x' given twice\n" },
		{ "", "w: F.csv:1: empty: no header line\n" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sim_csv t;
		char msg[256];
		int rc = parse(&t, cases[i].text, &strict, msg, sizeof(msg));
		if (rc != SIM_CSV_BAD || strcmp(msg, cases[i].msg) != 0)
			fail_msg("case %zu: rc %d, message '%s', want '%s'", i, rc, msg, cases[i].msg);
		assert_int_equal(t.nrows, 0); /* nothing half read */
		sim_csv_free(&t);
	}
	/* a NUL byte: the line it stands on */
	struct sim_csv t;
	char msg[256];
	assert_int_equal(parse_n(&t, "a,b\n1,2\n3,\0\n", 12, &strict, msg, sizeof(msg)), SIM_CSV_BAD);
	assert_string_equal(msg, "w: F.csv:3: holds a NUL byte\n");
	sim_csv_free(&t);
}

/* `ratelab study --merge`'s rules: rows of any length (its reader checks each file's count). */
static void merge_rules(void **state)
{
	(void)state;
	struct sim_csv t;
	char msg[256];
	assert_int_equal(parse(&t, "name,value\ntrace,\"a,b.log\"\n\nx,1,2\n", &merge, msg, sizeof(msg)), SIM_CSV_OK);
	assert_int_equal(t.nrows, 3);
	assert_int_equal(t.nf[0], 2);
	assert_string_equal(t.row[0][1], "a,b.log");
	assert_int_equal(t.nf[1], 1); /* an empty line: one empty field */
	assert_string_equal(t.row[1][0], "");
	assert_int_equal(t.nf[2], 3);
	assert_int_equal(t.line[2], 4);
	sim_csv_free(&t);
	assert_int_equal(parse(&t, "k,k\n", &merge, msg, sizeof(msg)), SIM_CSV_BAD);
	assert_string_equal(msg, "w: F.csv:1: column 'k' given twice\n");
	sim_csv_free(&t);
}

/* A missing file: nothing printed, an empty table (sim_csv_read) or SIM_CSV_BAD (sim_read_file). */
static void missing_files(void **state)
{
	(void)state;
	char *data, *buf = NULL;
	size_t len, n = 0;
	FILE *err = open_memstream(&buf, &n);
	assert_non_null(err);
	assert_int_equal(sim_read_file("/nonexistent/ratelab/x.csv", &data, &len, "w: ", err), SIM_CSV_BAD);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(sim_read_file("/dev/null/x.csv", &data, &len, "w: ", err), SIM_CSV_BAD); /* ENOTDIR */
	struct sim_csv t;
	assert_int_equal(sim_csv_read(&t, "/nonexistent/ratelab/x.csv", &strict, "w: ", err), SIM_CSV_OK);
	assert_false(t.present);
	assert_int_equal(t.nrows, 0);
	sim_csv_free(&t);
	fclose(err);
	assert_int_equal(n, 0);
	free(buf);
	/* a file that is there, through the whole path */
	char path[] = "/tmp/test_csv_XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	static const char body[] = "a,b\r\n1,\"2\r\n3\"\r\n";
	assert_int_equal(write(fd, body, sizeof(body) - 1), (ssize_t)(sizeof(body) - 1));
	assert_int_equal(close(fd), 0);
	assert_int_equal(sim_csv_read(&t, path, &strict, "w: ", stderr), SIM_CSV_OK);
	assert_true(t.present);
	assert_int_equal(t.nrows, 1);
	assert_string_equal(t.row[0][1], "2\r\n3");
	sim_csv_free(&t);
	unlink(path);
}

/*
 * The obviously correct writer: cell into out, quoted when it holds ',',
 * '"', CR or LF ('"' doubled); *line counts its LFs. The bytes written.
 */
static size_t write_cell(char *out, const char *cell, long *line)
{
	size_t len = 0;
	bool quote = strpbrk(cell, ",\"\r\n") != NULL;

	if (quote)
		out[len++] = '"';
	for (const char *p = cell; *p; p++) {
		if (*p == '"')
			out[len++] = '"';
		*line += *p == '\n';
		out[len++] = *p;
	}
	if (quote)
		out[len++] = '"';
	return len;
}

/*
 * Seeded random tables written by an obviously correct writer (a cell
 * quoted when it holds ',', '"', CR or LF; records ended by LF or CRLF at
 * random), each record's first physical line counted by the model as the
 * writer goes: the reader's lines and cells must be the model's.
 */
static void random_lines_against_model(void **state)
{
	(void)state;
	static const char alphabet[] = "ab,\"\r\n x";
	uint64_t seed = t_seed_from_env(20261205), s = seed;
	for (int round = 0; round < 500; round++) {
		size_t ncols = 1 + t_splitmix(&s) % 4, nrows = 1 + t_splitmix(&s) % 9;
		char cell[10][4][8];
		long want_line[10], line = 1;
		char text[10 * 4 * 20 + 64];
		size_t len = 0;
		for (size_t r = 0; r <= nrows; r++) {
			want_line[r] = line;
			for (size_t c = 0; c < ncols; c++) {
				size_t n = t_splitmix(&s) % 7;
				for (size_t k = 0; k < n; k++)
					cell[r][c][k] = alphabet[t_splitmix(&s) % (sizeof(alphabet) - 1)];
				cell[r][c][n] = '\0';
				if (r == 0)
					snprintf(cell[r][c], sizeof(cell[r][c]), "h%zu", c);
				if (ncols == 1 && !cell[r][c][0]) /* a lone empty cell is a record of one empty field */
					snprintf(cell[r][c], sizeof(cell[r][c]), "e");
				if (c)
					text[len++] = ',';
				len += write_cell(text + len, cell[r][c], &line);
			}
			bool crlf = t_splitmix(&s) % 2, last = r == nrows && t_splitmix(&s) % 2;
			if (!last) {
				if (crlf)
					text[len++] = '\r';
				text[len++] = '\n';
				line++;
			}
		}
		struct sim_csv t;
		char msg[256];
		int rc = parse_n(&t, text, len, &strict, msg, sizeof(msg));
		if (rc != SIM_CSV_OK || t.nrows != nrows || t.ncols != ncols)
			fail_msg("seed %llu round %d: rc %d (%s), %zu x %zu, want %zu x %zu", (unsigned long long)seed,
				 round, rc, msg, t.nrows, t.ncols, nrows, ncols);
		for (size_t r = 0; r < nrows; r++) {
			if (t.line[r] != want_line[r + 1])
				fail_msg("seed %llu round %d: row %zu on line %ld, want %ld", (unsigned long long)seed, round,
					 r, t.line[r], want_line[r + 1]);
			for (size_t c = 0; c < ncols; c++)
				if (strcmp(t.row[r][c], cell[r + 1][c]) != 0)
					fail_msg("seed %llu round %d: cell %zu,%zu '%s', want '%s'", (unsigned long long)seed,
						 round, r, c, t.row[r][c], cell[r + 1][c]);
		}
		sim_csv_free(&t);
	}
}

/*
 * The per-record error mode (sim_csv_record) on seeded records, some bad
 * (text after a closing quote; a '"' inside an unquoted field, a byte of
 * it in bare mode), written by the writer above: each record's first line,
 * its cells or its problem's line must be the model's, and reading goes on
 * at the next record after a bad one.
 */
static void per_record_against_model(void **state)
{
	(void)state;
	static const char alphabet[] = "ab,\"\r\n x";
	uint64_t seed = t_seed_from_env(20261206), s = seed;
	for (int round = 0; round < 1000; round++) {
		bool bare = t_splitmix(&s) % 2;
		size_t nrec = 1 + t_splitmix(&s) % 8;
		struct {
			long line, bad_line;
			size_t nf;
			char cell[4][10];
		} want[8];
		char text[8 * 4 * 24 + 8];
		size_t len = 0;
		long line = 1;
		for (size_t r = 0; r < nrec; r++) {
			size_t nf = 1 + t_splitmix(&s) % 4;
			int badf = t_splitmix(&s) % 3 == 0 ? (int)(t_splitmix(&s) % nf) : -1, kind = (int)(t_splitmix(&s) % 2);
			want[r].line = line;
			want[r].bad_line = 0;
			want[r].nf = nf;
			for (size_t c = 0; c < nf; c++) {
				char *cell = want[r].cell[c];
				if (c)
					text[len++] = ',';
				if ((int)c == badf) { /* "q"z, or a"b */
					memcpy(text + len, kind ? "a\"b" : "\"q\"z", kind ? 3 : 4);
					len += kind ? 3 : 4;
					snprintf(cell, 10, "a\"b");
					if (!want[r].bad_line && (!kind || !bare))
						want[r].bad_line = line;
					continue;
				}
				size_t n = t_splitmix(&s) % 7;
				for (size_t k = 0; k < n; k++)
					cell[k] = alphabet[t_splitmix(&s) % (sizeof(alphabet) - 1)];
				cell[n] = '\0';
				if (nf == 1 && !cell[0]) /* a lone empty cell at the very end would be no record */
					snprintf(cell, 10, "e");
				len += write_cell(text + len, cell, &line);
			}
			if (r + 1 < nrec || t_splitmix(&s) % 2) {
				if (t_splitmix(&s) % 2)
					text[len++] = '\r';
				text[len++] = '\n';
				line++;
			}
		}
		text[len] = '\0';
		struct sim_csv_cursor cur = { text, text + len, 1, bare };
		char **cells = NULL;
		size_t ccap = 0;
		for (size_t r = 0; r <= nrec; r++) {
			size_t ncells = 0;
			struct sim_csv_bad b = { NULL, 0 };
			long at = cur.line;
			int rc = sim_csv_record(&cur, &cells, &ccap, &ncells, &b);
			if (r == nrec) {
				if (rc != SIM_CSV_END)
					fail_msg("seed %llu round %d: rc %d after the last record", (unsigned long long)seed,
						 round, rc);
				break;
			}
			if (at != want[r].line)
				fail_msg("seed %llu round %d: record %zu on line %ld, want %ld", (unsigned long long)seed, round,
					 r, at, want[r].line);
			if (want[r].bad_line) {
				if (rc != SIM_CSV_BAD || b.line != want[r].bad_line)
					fail_msg("seed %llu round %d: record %zu: rc %d line %ld, want bad on line %ld",
						 (unsigned long long)seed, round, r, rc, b.line, want[r].bad_line);
				continue;
			}
			if (rc != SIM_CSV_OK || ncells != want[r].nf)
				fail_msg("seed %llu round %d: record %zu: rc %d (%s), %zu cells, want %zu",
					 (unsigned long long)seed, round, r, rc, b.why ? b.why : "", ncells, want[r].nf);
			for (size_t c = 0; c < ncells; c++)
				if (strcmp(cells[c], want[r].cell[c]) != 0)
					fail_msg("seed %llu round %d: record %zu cell %zu '%s', want '%s'",
						 (unsigned long long)seed, round, r, c, cells[c], want[r].cell[c]);
		}
		free(cells);
	}
}

/* The per-record mode's boundaries: the words, an unclosed quote to the end, bare CR. */
static void per_record_cases(void **state)
{
	(void)state;
	char text[] = "a,\"b\"c\nd,e\r\n\"x\ny\"\"q\",z\nf\rg,\"h\n";
	struct sim_csv_cursor cur = { text, text + sizeof(text) - 1, 1, false };
	char **cells = NULL;
	size_t ccap = 0, n = 0;
	struct sim_csv_bad b;

	assert_int_equal(sim_csv_record(&cur, &cells, &ccap, &n, &b), SIM_CSV_BAD);
	assert_string_equal(b.why, "text after a closing '\"' (a quoted field ends at a comma or the line's end)");
	assert_int_equal(b.line, 1);
	n = 0;
	assert_int_equal(sim_csv_record(&cur, &cells, &ccap, &n, &b), SIM_CSV_OK); /* d,e */
	assert_int_equal(n, 2);
	assert_string_equal(cells[1], "e");
	n = 0; /* "x\ny""q",z: a record of two lines */
	assert_int_equal(sim_csv_record(&cur, &cells, &ccap, &n, &b), SIM_CSV_OK);
	assert_int_equal(n, 2);
	assert_string_equal(cells[0], "x\ny\"q");
	assert_int_equal(cur.line, 5);
	n = 0; /* f\rg: a CR inside an unquoted field */
	assert_int_equal(sim_csv_record(&cur, &cells, &ccap, &n, &b), SIM_CSV_BAD);
	assert_string_equal(b.why, "a CR byte not before LF in an unquoted field");
	assert_int_equal(b.line, 5);
	/* the resynchronisation read the unclosed quote on as part of that record: to the end */
	assert_int_equal(sim_csv_record(&cur, &cells, &ccap, &n, &b), SIM_CSV_END);
	assert_int_equal(cur.line, 6);

	char bare[] = "f\rg,a\"b\n\"h\n";
	cur = (struct sim_csv_cursor){ bare, bare + sizeof(bare) - 1, 1, true };
	n = 0;
	assert_int_equal(sim_csv_record(&cur, &cells, &ccap, &n, &b), SIM_CSV_OK);
	assert_string_equal(cells[0], "f\rg");
	assert_string_equal(cells[1], "a\"b");
	n = 0;
	assert_int_equal(sim_csv_record(&cur, &cells, &ccap, &n, &b), SIM_CSV_BAD);
	assert_string_equal(b.why, "a quoted field is not closed");
	assert_int_equal(b.line, 2);
	assert_int_equal(sim_csv_record(&cur, &cells, &ccap, &n, &b), SIM_CSV_END);
	free(cells);

	/* the scanner: where a record stands at a line's end */
	assert_int_equal(sim_csv_scan("a,\"b", 4, SIM_CSV_START), SIM_CSV_QUOTED);
	assert_int_equal(sim_csv_scan("c\"\"d", 4, SIM_CSV_QUOTED), SIM_CSV_QUOTED);
	assert_int_equal(sim_csv_scan("e\",f", 4, SIM_CSV_QUOTED), SIM_CSV_PLAIN);
	assert_int_equal(sim_csv_scan("a\"b,", 4, SIM_CSV_START), SIM_CSV_START);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rfc4180_cases),
		cmocka_unit_test(strict_refusals),
		cmocka_unit_test(merge_rules),
		cmocka_unit_test(missing_files),
		cmocka_unit_test(random_lines_against_model),
		cmocka_unit_test(per_record_against_model),
		cmocka_unit_test(per_record_cases),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
