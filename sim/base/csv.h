/*
 * csv.h - ratelab's one CSV reader (RFC 4180): fields separated
 * by ',', a field quoted with '"' may hold ',', CR, LF and '""' (one '"');
 * records end with LF or CRLF, the last may lack it; an optional UTF-8
 * byte-order mark is skipped. A NUL byte, an unclosed quote, text after a
 * closing quote, a '"' or a lone CR inside an unquoted field is refused
 * with "FILE:LINE: problem" (LINE: the physical line, from 1, where the
 * record or the quoted field began). The study's files are read strictly
 * (every record as many fields as the header, no header name twice, no
 * empty file: the study report; rows of any length, checked by the caller:
 * `ratelab study --merge`); the bench report leniently (comments before the
 * header, empty lines skipped; rows of any length only where it asks for
 * them).
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

/* Reads a whole file into *data (NUL-terminated, *len bytes): SIM_CSV_OK, SIM_CSV_BAD
 * when it does not exist (errno ENOENT, or ENOTDIR: a component is no folder;
 * nothing printed), SIM_CSV_FAIL after "WHO: PATH: reason" on err. */
int sim_read_file(const char *path, char **data, size_t *len, const char *who, FILE *err);

#endif
