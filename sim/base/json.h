/*
 * json.h - a small, strict JSON reader (RFC 8259) for the files other
 * tools write, such as Google Benchmark's --benchmark_out: the whole text
 * parsed into a tree. Strict: one value and nothing after it but white
 * space; no comments, trailing commas, single quotes, leading zeros or
 * control bytes in strings; nesting at most SIM_JSON_MAX_DEPTH deep. The
 * one extension is the bare words Google Benchmark and Python write for
 * numbers that are not finite (NaN, nan, inf, Infinity, each optionally
 * negative), read as such doubles.
 */
#ifndef RATELAB_SIM_JSON_H
#define RATELAB_SIM_JSON_H

#include <stdbool.h>
#include <stddef.h>

#define SIM_JSON_MAX_DEPTH 64

enum sim_json_type { SIM_JSON_NULL, SIM_JSON_BOOL, SIM_JSON_NUMBER, SIM_JSON_STRING, SIM_JSON_ARRAY, SIM_JSON_OBJECT };

/*
 * A value. A string is decoded (escapes, \uXXXX and surrogate pairs to
 * UTF-8) and NUL-terminated; \u0000 is refused, so it holds no NUL. An
 * array's elements and an object's member values are items[0..n); an
 * object's member names are keys[0..n), in the order written.
 */
struct sim_json {
	enum sim_json_type type;
	bool boolean;
	double number;
	char *string;
	struct sim_json *items;
	char **keys;
	size_t n;
};

/*
 * Parses text[0..len) into *out (to be freed with sim_json_free, also after
 * a failure). 0, or -1 with msg "line L: what" (L counting from 1; text
 * from the file quoted, control bytes escaped); out of memory is
 * "out of memory".
 */
int sim_json_parse(const char *text, size_t len, struct sim_json *out, char *msg, size_t msg_len);

void sim_json_free(struct sim_json *v);

/* obj's first member named key, or NULL (also when obj is not an object). */
const struct sim_json *sim_json_get(const struct sim_json *obj, const char *key);

#endif
