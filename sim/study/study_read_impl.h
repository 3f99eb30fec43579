/*
 * study_read_impl.h - the parts of the one reader of a study directory
 * (study.h, sim_study_read), private to study_read*.c: the file being
 * read, the messages ("DIR/FILE:LINE: reason", the words the report and
 * --merge print), the cells as the study's numbers, and one reader per
 * file. Each returns 0, SIM_CSV_BAD (2) or SIM_CSV_FAIL (1) with its
 * message in rd->msg.
 */
#ifndef RATELAB_SIM_STUDY_READ_IMPL_H
#define RATELAB_SIM_STUDY_READ_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compat.h"
#include "csv.h"
#include "study.h"

struct study_rd {
	const char *dir;
	struct sim_csv t; /* the file being read */
	char *msg;
	size_t msg_len;
};

/* "PATH:LINE: why" for row (SIZE_MAX: the header): SIM_CSV_BAD. */
int study_rd_bad(struct study_rd *rd, size_t row, const char *fmt, ...) RL_PRINTF(3, 4);
int study_rd_oom(struct study_rd *rd);
/* "NAME 'VALUE' is not WHAT" for a cell: SIM_CSV_BAD. */
int study_rd_bad_value(struct study_rd *rd, size_t row, const char *name, const char *value, const char *what);
/* Reads dir/name into rd->t; a missing file is SIM_CSV_BAD ("cannot open") unless optional (*there false). */
int study_rd_open(struct study_rd *rd, const char *name, bool optional, bool *there);
/* The column called name into *col, or SIM_CSV_BAD after "FILE:1: no column". */
int study_rd_col(struct study_rd *rd, const char *name, int *col);
/* A cell as a count: decimal digits, at most 2^63 - 1. */
int study_rd_count(struct study_rd *rd, size_t row, int col, int64_t *out);
/* A cell as a finite non-negative decimal; empty is 0 when empty_ok. */
int study_rd_decimal(struct study_rd *rd, size_t row, int col, bool empty_ok, double *out);
/* a > b for two figures of one row: SIM_CSV_BAD naming both. */
int study_rd_not_more(struct study_rd *rd, size_t row, const char *a, int64_t av, const char *b, int64_t bv);
/* The index of a rule's text, or of a name, in s; SIZE_MAX when none. */
size_t study_rd_rule_of(const struct sim_study *s, const char *text);
size_t study_rd_name_of(const struct sim_study *s, const char *name);
/* The row of (rule, algo) in s, or SIZE_MAX when study.csv has none. */
size_t study_rd_row_of(const struct sim_study *s, const char *rule, const char *algo);
/* "rule 'R' and algo 'A' are not a row of study.csv": SIM_CSV_BAD. */
int study_rd_unknown_pair(struct study_rd *rd, size_t row, const char *rule, const char *algo);

/* The files, in the order sim_study_read reads them; key_cap: the capacity of s->top. */
int study_rd_meta(struct study_rd *rd, struct sim_study *s);      /* study_read.c */
int study_rd_study(struct study_rd *rd, struct sim_study *s);     /* study_read_rows.c */
int study_rd_clients(struct study_rd *rd, struct sim_study *s, size_t *key_cap); /* study_read_keys.c */
int study_rd_refused(struct study_rd *rd, struct sim_study *s);
int study_rd_traffic(struct study_rd *rd, struct sim_study *s, size_t *key_cap);
int study_rd_limits(struct study_rd *rd, struct sim_study *s);    /* study_read_limits.c */
int study_rd_placement(struct study_rd *rd, struct sim_study *s); /* study_read_rows.c */

#endif
