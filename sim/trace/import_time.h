/*
 * import_time.h - the times of access logs read exactly, in integers: the
 * common log format's "10/Oct/2026:13:55:36 -0700", RFC 3339's
 * "2026-10-10T13:55:36.123456789+02:00" and plain decimal numbers in a
 * unit. Every result is epoch ns in [0, RL_TIME_MAX_NS] (1970-01-01 to
 * 2096-10-02): an out-of-range time is refused rather than wrapped.
 * Dates are proleptic Gregorian; a second of 60 (a leap second) is the
 * first second of the next minute, as timegm() counts it.
 */
#ifndef RATELAB_SIM_IMPORT_TIME_H
#define RATELAB_SIM_IMPORT_TIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Days from 1970-01-01 to y-m-d (m 1..12, d 1..31), negative before it. */
int64_t sim_days_from_civil(int64_t y, int m, int d);

/*
 * s[0..len): exactly "DD/Mon/YYYY:HH:MM:SS +HHMM" (26 bytes, Mon in
 * English with a capital, the offset east of UTC). On failure *why names
 * the reason, a static string.
 */
bool sim_time_clf(const char *s, size_t len, int64_t *epoch_ns, const char **why);

/*
 * s[0..len): ISO 8601 "YYYY-MM-DDTHH:MM:SS[.F][Z|+HH:MM|+HHMM|+HH]" ('T'
 * also 't' or a space, 'Z' also 'z', the fraction's separator '.' or
 * ','); F has 1 to 9 digits, or more when the digits past the ninth are
 * zeros (no finer than 1 ns). Without an offset the time is
 * default_offset_s east of UTC and *had_offset is false.
 */
bool sim_time_iso(const char *s, size_t len, int default_offset_s, int64_t *epoch_ns, bool *had_offset,
		  const char **why);

/* s[0..len): RFC 3339, sim_time_iso's times with an offset 'Z' or +HH:MM (-HH:MM). */
bool sim_time_rfc3339(const char *s, size_t len, int64_t *epoch_ns, const char **why);

/* s[0..len): a UTC offset "+HH:MM" or "+HHMM" (or '-'), or "UTC", "GMT": seconds east of UTC. */
bool sim_time_offset(const char *s, size_t len, int *offset_s);

/*
 * A strptime-style format: true when every conversion is one that
 * sim_time_format knows and the format gives a date (%Y or %y, %m or %b,
 * %d) or an epoch time (%s); else *why says what is wrong.
 */
bool sim_time_format_check(const char *fmt, const char **why);

/*
 * s[0..len) read by fmt, which sim_time_format_check accepted, as
 * strptime(3) reads it in the C locale: %Y 4 digits, %y 2 (69-99 the
 * 1900s), %m %d %e %H %I %M %S 1 or 2 digits, %p AM or PM, %b %h %B an
 * English month's name (any case; %B in full or abbreviated), %a %A a
 * weekday's name (skipped), %z an offset (Z, +HH:MM, +HHMM, +HH), %Z UTC,
 * GMT or Z, %s epoch seconds with an optional ".F", %T %H:%M:%S, %F
 * %Y-%m-%d, %f a fraction's digits, %n %t and a blank any blanks, %% a
 * '%'. A fraction ".F" or ",F" right after %S (or %T) is read with it
 * unless the format goes on with that separator. Without %z, %Z or %s the
 * time is default_offset_s east of UTC and *had_offset is false. The
 * whole of s must match.
 */
bool sim_time_format(const char *fmt, const char *s, size_t len, int default_offset_s, int64_t *epoch_ns,
		     bool *had_offset, const char **why);

/*
 * s[0..len): a decimal number "D[.F]" of unit_ns (1, 10^3, 10^6 or 10^9)
 * ns; its fraction must be a whole number of ns.
 */
bool sim_time_number(const char *s, size_t len, int64_t unit_ns, int64_t *ns, const char **why);

#endif
