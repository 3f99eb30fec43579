/*
 * json.h - the one JSON reader (RFC 8259), for the files other tools write:
 * Google Benchmark's --benchmark_out (ratelab compare, ratelab report) and
 * the JSON the bench scripts write (ratelab report). The whole text parsed
 * into a tree.
 *
 * Strict: one value and nothing after it but white space; no comments,
 * trailing commas, single quotes, leading zeros, lone surrogates, \u0000 or
 * control bytes in strings; nesting at most SIM_JSON_MAX_DEPTH deep. A
 * UTF-8 byte-order mark before the value is skipped. The one extension is
 * the bare words Google Benchmark and Python write for numbers that are not
 * finite: NaN, nan, NAN, inf, Inf, INF and Infinity, each optionally after
 * '-', read as numbers (NaN, -infinity or +infinity) with their text.
 *
 * Numbers are exact: one written as an integer (no '.', no exponent) within
 * [-2^63, 2^63 - 1] is held as that int64_t (integer_exact set); every
 * number also holds strtod's nearest double and the text as written (so a
 * double Google Benchmark printed with 17 digits reads back to the same
 * bits and can be printed as written).
 */
#ifndef RATELAB_SIM_JSON_H
#define RATELAB_SIM_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lines.h"

#define SIM_JSON_MAX_DEPTH 64

enum sim_json_type { SIM_JSON_NULL, SIM_JSON_BOOL, SIM_JSON_NUMBER, SIM_JSON_STRING, SIM_JSON_ARRAY, SIM_JSON_OBJECT };

/*
 * A value. A string is decoded (escapes, \uXXXX and surrogate pairs to
 * UTF-8) and NUL-terminated; \u0000 is refused, so it holds no NUL. An
 * array's elements and an object's member values are items[0..n); an
 * object's member names are keys[0..n), in the order written (a repeated
 * name keeps every member; sim_json_get finds the first).
 */
struct sim_json {
	enum sim_json_type type;
	bool boolean;        /* SIM_JSON_BOOL */
	bool integer_exact;  /* SIM_JSON_NUMBER written as an integer in int64_t's range */
	int64_t integer;     /* its value when integer_exact, else 0 */
	double number;       /* SIM_JSON_NUMBER: the nearest double; NaN or +-infinity for the bare words */
	char *string;        /* SIM_JSON_STRING: the decoded text; SIM_JSON_NUMBER: the number as written */
	struct sim_json *items;
	char **keys;
	size_t n;
};

/* Where and why a text is not JSON. line counts from 1 and offset (bytes)
 * from 0, both at the failure; out of memory is line 0, what "out of memory". */
struct sim_json_error {
	long line;
	size_t offset;
	char what[SIM_QUOTE_SIZE + 200]; /* e.g. "expected ':' after a member name at '1}'" (text quoted) */
};

/* Parses text[0..len) into *out (free it with sim_json_free, also after a
 * failure): 0, or -1 with *err filled. */
int sim_json_parse(const char *text, size_t len, struct sim_json *out, struct sim_json_error *err);

void sim_json_free(struct sim_json *v);

/* The words of err for the file path, the same in every command that reads
 * JSON (compare, report): "PATH:LINE: WHAT", the project's "where: why";
 * "PATH: out of memory" when err->line is 0. Cut to msg_len, NUL-terminated. */
void sim_json_error_text(char *msg, size_t msg_len, const char *path, const struct sim_json_error *err);

/* obj's first member named key, or NULL (also when obj is NULL or not an object). */
const struct sim_json *sim_json_get(const struct sim_json *obj, const char *key);
/* That member's number; NaN when absent or not a number. */
double sim_json_num(const struct sim_json *obj, const char *key);
/* That member's string; NULL when absent or not a string. */
const char *sim_json_str(const struct sim_json *obj, const char *key);

static inline bool sim_json_is(const struct sim_json *v, enum sim_json_type t) { return v && v->type == t; }
static inline bool sim_json_true(const struct sim_json *v) { return sim_json_is(v, SIM_JSON_BOOL) && v->boolean; }

#endif
