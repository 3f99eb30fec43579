/*
 * report_json.h - a JSON reader for the reports' inputs (the benchmark
 * results): the whole document as a tree. Google Benchmark writes NaN and
 * infinities bare (nan, -nan, inf, NaN, ...), which JSON lacks: they read
 * as null (not measured). Object members keep their order; a repeated
 * name keeps every member (lookups find the first).
 */
#ifndef RATELAB_SIM_REPORT_JSON_H
#define RATELAB_SIM_REPORT_JSON_H

#include <stdbool.h>
#include <stddef.h>

enum rp_json_type { RP_JNULL, RP_JFALSE, RP_JTRUE, RP_JNUM, RP_JSTR, RP_JARR, RP_JOBJ };

struct rp_json {
	enum rp_json_type type;
	double num;          /* RP_JNUM */
	char *str;           /* RP_JSTR: the decoded string; RP_JNUM: the number as written */
	size_t n;            /* RP_JARR, RP_JOBJ: members */
	char **key;          /* RP_JOBJ: their names */
	struct rp_json *v;   /* their values */
};

/* Parses text[0..len): true, or false with *line and why (a static string). */
bool rp_json_parse(const char *text, size_t len, struct rp_json *out, long *line, const char **why);
void rp_json_free(struct rp_json *j);

/* The member called key of an object; NULL when j is not an object or has none. */
const struct rp_json *rp_json_get(const struct rp_json *j, const char *key);
/* Its number; NaN when absent or not a number. */
double rp_json_num(const struct rp_json *j, const char *key);
/* Its string; NULL when absent or not a string. */
const char *rp_json_str(const struct rp_json *j, const char *key);
static inline bool rp_json_is(const struct rp_json *j, enum rp_json_type t) { return j && j->type == t; }

#endif
