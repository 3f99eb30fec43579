/*
 * parse.h - the strict number and duration syntax shared by the command
 * line, tier configs and simulator scenarios: one definition, so a value
 * that one accepts the others accept too.
 */
#ifndef RATELAB_PARSE_H
#define RATELAB_PARSE_H

#include <stdbool.h>
#include <stddef.h>
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

/*
 * text made safe to quote in a message, written to buf: between single
 * quotes, control bytes and '\' escaped (\n, \t, \r, \xNN, \\), cut
 * after RL_QUOTE_MAX bytes of text with "...(N bytes)" (N: text's length).
 * A buf of RL_QUOTE_SIZE bytes always holds it; returns buf. Every message
 * of ratelab that quotes what it was given quotes it this way.
 */
#define RL_QUOTE_MAX 60
#define RL_QUOTE_SIZE (RL_QUOTE_MAX * 4 + 48)
const char *rl_quote(char *buf, const char *text);

/*
 * An integer in [min, max]. True, or false with the reason in msg, worded
 * for every command alike: "WHAT 'TEXT' is not an integer" or "WHAT 'TEXT'
 * is out of range [MIN, MAX]" (WHAT names the value, e.g. "the limit").
 */
bool rl_parse_int_in(const char *what, const char *text, int64_t min, int64_t max, int64_t *out, char *msg,
		     size_t msg_len);

/*
 * A duration with its unit (ns, us, ms, s, m, h) in [min_ns, max_ns]. True,
 * or false with "WHAT 'TEXT' has no unit (...)", "WHAT 'TEXT' is not a
 * duration (...)" or "WHAT 'TEXT' is out of range [MINns, MAXns]" in msg.
 */
bool rl_parse_duration_in(const char *what, const char *text, int64_t min_ns, int64_t max_ns, int64_t *out_ns,
			  char *msg, size_t msg_len);

#ifdef __cplusplus
}
#endif
#endif
