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
 * The one quoter of ratelab's messages: every message that quotes what it
 * was given (a value, a key, a line, a path) quotes it here, so the same bad
 * value reads the same in every command. The quote of text:
 *  - is between single quotes;
 *  - shows '\' as \\, '\'' as \', LF, TAB and CR as \n, \t and \r, and
 *    as \xNN (two lower-case hex digits) every other byte below 0x20, 0x7f,
 *    each byte of a C1 control U+0080..U+009F, and each byte that is not
 *    part of a valid UTF-8 character (stray, overlong, surrogate, past
 *    U+10FFFF, cut short): nothing in it can move a terminal's cursor;
 *  - keeps a valid UTF-8 character of 2 to 4 bytes as it is;
 *  - holds at most max bytes of text (RL_QUOTE_WHOLE: no limit), and is cut
 *    only between characters, never inside one: a cut quote ends its
 *    closing quote with "...(N bytes)", N text's length in bytes.
 * rl_quote_to writes it to buf of size bytes (size >= RL_QUOTE_MIN_SIZE),
 * cut earlier, with the marker, when the whole of it would not fit; a buf
 * of RL_QUOTE_SIZE_FOR(max) bytes always holds the quote of max bytes.
 * Returns the quote's length (buf is NUL-terminated). rl_quote_bytes
 * quotes len bytes at text, a NUL among them shown as \x00.
 */
/*
 * The length (1..4) of the valid UTF-8 character at text, of at most left
 * bytes, or 0 when none starts there (left 0, a stray or overlong byte, a
 * surrogate, past U+10FFFF, cut short by left). ASCII bytes, controls
 * among them, are 1. The one UTF-8 reader: the quote below and the
 * reports' escapes.
 */
size_t rl_utf8_len(const char *text, size_t left);

#define RL_QUOTE_WHOLE SIZE_MAX
#define RL_QUOTE_MIN_SIZE 40
#define RL_QUOTE_SIZE_FOR(max) ((max) * 4 + 48)
size_t rl_quote_to(char *buf, size_t size, const char *text, size_t max);
size_t rl_quote_bytes(char *buf, size_t size, const char *text, size_t len, size_t max);

/* rl_quote_to of a value with max RL_QUOTE_MAX into buf[RL_QUOTE_SIZE]: returns buf. */
#define RL_QUOTE_MAX 60
#define RL_QUOTE_SIZE RL_QUOTE_SIZE_FOR(RL_QUOTE_MAX)
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
