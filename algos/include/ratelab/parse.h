/*
 * parse.h - the strict number and duration syntax shared by the command
 * line, tier configs and simulator scenarios: one definition, so a value
 * that one accepts the others accept too.
 */
#ifndef RATELAB_PARSE_H
#define RATELAB_PARSE_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A decimal integer: an optional '-', digits only, no spaces, no overflow. */
bool rl_parse_i64(const char *s, int64_t *out);

/*
 * A duration: digits with an optional unit ns, us, ms, s, m or h. A bare
 * integer is in bare_unit_ns, or refused when bare_unit_ns is 0. False on
 * anything else, a sign, or a value past INT64_MAX ns.
 */
bool rl_parse_duration(const char *s, int64_t bare_unit_ns, int64_t *out_ns);

#ifdef __cplusplus
}
#endif
#endif
