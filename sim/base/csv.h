/*
 * csv.h - ratelab's one CSV reader (RFC 4180): fields separated
 * by ',', a field quoted with '"' may hold ',', CR, LF and '""' (one '"');
 * records end with LF or CRLF, the last may lack it; an optional UTF-8
 * byte-order mark is skipped. A NUL byte, an unclosed quote, text after a
 * closing quote, a '"' or a lone CR inside an unquoted field is refused
 * with "FILE:LINE: problem" (LINE: the physical line, from 1, where the
 * record or the quoted field began). The study's files are read strictly
 * (every record as many fields as the header, no header name twice, no
 * empty file: the study's one reader, sim/study/study_read.c, for its
 * report and `ratelab study --merge`); the bench report leniently (comments before the
 * header, empty lines skipped; rows of any length only where it asks for
 * them); `ratelab import`'s CSV logs record by record (sim_csv_record below,
 * bare, a bad record skipped and counted: docs/cli.md says what it accepts).
 */
#ifndef RATELAB_SIM_CSV_H
#define RATELAB_SIM_CSV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct sim_csv {
	char *path;      /* as given */
	bool present;    /* the file exists */
	size_t ncols;
	char **col;      /* header names */
	size_t nrows;
	size_t *nf;      /* fields of each row (ncols for every row when strict) */
	char ***row;     /* row[r][f], NUL-terminated */
	long *line;      /* the line each row starts on, from 1 */
	char *data;      /* the file's bytes, split in place */
	char **cells;    /* the header's cells, then every row's */
};

/* The exit statuses: success, machine failure, bad input. */
enum { SIM_CSV_OK = 0, SIM_CSV_FAIL = 1, SIM_CSV_BAD = 2 };

struct sim_csv_rules {
	bool comments;   /* lines starting with '#' before the header are skipped */
	bool skip_empty; /* empty lines are skipped (else one is a record of one empty field) */
	bool strict;     /* a header is required, named once each */
	bool ragged;     /* rows may have any number of fields (else the header's) */
};
/* The bench report's rules: comments, empty lines skipped, rows of the header's length. */
extern const struct sim_csv_rules sim_csv_lenient;

/* Splits t->data[0..len) (read by the caller, NUL-terminated, split in
 * place) into t's header and rows under r; t->path names it in messages.
 * SIM_CSV_BAD after "WHO FILE:LINE: problem" on err, SIM_CSV_FAIL when out of memory. */
int sim_csv_parse(struct sim_csv *t, size_t len, const struct sim_csv_rules *r, const char *who, FILE *err);

/* Reads path under r (NULL: sim_csv_lenient). A missing file gives an empty table
 * (present false) and SIM_CSV_OK; SIM_CSV_BAD after "WHO FILE:LINE: problem" on err;
 * SIM_CSV_FAIL for I/O or memory. */
int sim_csv_read(struct sim_csv *t, const char *path, const struct sim_csv_rules *r, const char *who, FILE *err);
void sim_csv_free(struct sim_csv *t);
/* The index of the column called name, or -1. */
int sim_csv_col(const struct sim_csv *t, const char *name);
/* The cell of row in column name; "" when the column or the cell is absent. */
const char *sim_csv_at(const struct sim_csv *t, size_t row, const char *name);
/* The cell as a number (strtod, the whole cell); NaN when empty or not a number. */
double sim_csv_num(const struct sim_csv *t, size_t row, const char *name);

/*
 * One record at a time: the splitter under sim_csv_parse, and the reader
 * of import's CSV logs, record by record. A cursor over data[p .. end)
 * (*end a NUL byte, as sim_read_file leaves it), line the physical line p
 * is on (from 1). A record is split in place: its fields appended to
 * *cells (grown as needed: *ccap entries), each NUL-terminated. bare
 * (import's logs, as ratelab import always read them): a '"' or a CR
 * inside an unquoted field is a byte of it, not an error.
 */
struct sim_csv_cursor {
	char *p, *end;
	long line;
	bool bare;
};
/* A bad record: the problem, and the physical line it was found on. */
struct sim_csv_bad {
	const char *why;
	long line;
};
enum { SIM_CSV_END = 3 }; /* sim_csv_record: no record left */
/*
 * The record at c->p, c then at the next one: SIM_CSV_OK; SIM_CSV_END when
 * none is left (c->p == c->end); SIM_CSV_BAD with *b set and c past the bad
 * record (to the line end that sim_csv_scan finds outside quotes), so that
 * reading may go on at the next record: the per-record error mode (an
 * unclosed quote runs to the end); SIM_CSV_FAIL out of memory. The
 * record's first line is c->line before the call.
 */
int sim_csv_record(struct sim_csv_cursor *c, char ***cells, size_t *ccap, size_t *ncells, struct sim_csv_bad *b);

/*
 * Where a record stands after s[0..len), from state (SIM_CSV_START at a
 * record's start): SIM_CSV_QUOTED when it ends inside a quoted field, so
 * that the record goes on past the line end. For a reader that meets a
 * file line by line (import) and for sim_csv_record's resynchronisation.
 */
enum { SIM_CSV_START, SIM_CSV_PLAIN, SIM_CSV_QUOTED, SIM_CSV_QUOTE };
int sim_csv_scan(const char *s, size_t len, int state);

/* Reads a whole file into *data (NUL-terminated, *len bytes): SIM_CSV_OK, SIM_CSV_BAD
 * when it does not exist (errno ENOENT, or ENOTDIR: a component is no folder;
 * nothing printed), SIM_CSV_FAIL after "WHO: PATH: reason" on err. */
int sim_read_file(const char *path, char **data, size_t *len, const char *who, FILE *err);

#endif
