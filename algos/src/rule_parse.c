/*
 * rule_parse.c - the one reader of a rule's text "N/W[:bB]" (rule.h), and
 * the field readers and message quoting every command words its mistakes
 * with (parse.h).
 */
#include "ratelab/parse.h"
#include "ratelab/rule.h"
#include "ratelab/status.h"

#include <stdio.h>
#include <string.h>

#define RULE_FORM "(N/W or N/W:bB, e.g. 10/1s or 60/1m:b120)"
/* A rule's text is short: N (7 digits), W (19 digits and a unit), B (10 digits). */
#define RULE_TEXT_MAX 128

size_t rl_utf8_len(const char *text, size_t left)
{
	const unsigned char *s = (const unsigned char *)text;
	unsigned c, cp, min;
	size_t n;

	if (left == 0)
		return 0;
	c = s[0];
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		min = 0x10000;
	} else {
		return 0;
	}
	if (n > left)
		return 0;
	cp = c & (0x7fu >> n);
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3fu);
	}
	return cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ? 0 : n;
}

/*
 * The multibyte character the quote keeps at s: its length 2..4, or 0 for an
 * ASCII byte, a byte not in valid UTF-8 (rl_utf8_len) or a C1 control
 * U+0080..U+009F (C2 80..C2 9F), which some terminals obey as they do ESC.
 */
static size_t utf8_char(const unsigned char *s, size_t left)
{
	size_t n = rl_utf8_len((const char *)s, left);

	if (n < 2 || (s[0] == 0xc2 && s[1] < 0xa0))
		return 0;
	return n;
}

/* The character at s as the quote shows it, into out[5]: its length there; *used: bytes of s it takes. */
static size_t quote_char(const unsigned char *s, size_t left, char out[5], size_t *used)
{
	size_t n = utf8_char(s, left);
	unsigned c = s[0];

	*used = n ? n : 1;
	if (n) {
		memcpy(out, s, n);
		return n;
	}
	if (c == '\\' || c == '\'' || c == '\n' || c == '\t' || c == '\r') {
		out[0] = '\\';
		out[1] = c == '\n' ? 'n' : c == '\t' ? 't' : c == '\r' ? 'r' : (char)c;
		return 2;
	}
	if (c < 0x20 || c >= 0x7f) /* controls, DEL, and bytes not in valid UTF-8 */
		return (size_t)snprintf(out, 5, "\\x%02x", c);
	out[0] = (char)c;
	return 1;
}

size_t rl_quote_bytes(char *buf, size_t size, const char *text, size_t len, size_t max)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t i = 0, need = 2, n = 0, used, w;
	char one[5], mark[40];
	int mark_len = snprintf(mark, sizeof(mark), "...(%zu bytes)", len);

	/* pass 1: the whole quote of the characters within max: does it fit? */
	while (i < len) {
		w = quote_char(s + i, len - i, one, &used);
		if (i + used > max)
			break;
		need += w;
		i += used;
	}
	size_t room = i < len ? size - 1 - (size_t)mark_len : size - 1; /* bytes for the quote itself */
	bool cut = i < len || need > room;

	if (cut)
		room = size - 1 - (size_t)mark_len;
	buf[n++] = '\'';
	for (i = 0; i < len; i += used) {
		w = quote_char(s + i, len - i, one, &used);
		if (i + used > max || n + w + 1 > room)
			break;
		memcpy(buf + n, one, w);
		n += w;
	}
	buf[n++] = '\'';
	if (cut) {
		memcpy(buf + n, mark, (size_t)mark_len);
		n += (size_t)mark_len;
	}
	buf[n] = '\0';
	return n;
}

size_t rl_quote_to(char *buf, size_t size, const char *text, size_t max)
{
	return rl_quote_bytes(buf, size, text, strlen(text), max);
}

const char *rl_quote(char *buf, const char *text)
{
	rl_quote_to(buf, RL_QUOTE_SIZE, text, RL_QUOTE_MAX);
	return buf;
}

static bool integer_text(const char *s)
{
	s += *s == '-';
	return *s && strspn(s, "0123456789") == strlen(s);
}

bool rl_parse_int_in(const char *what, const char *text, int64_t min, int64_t max, int64_t *out, char *msg,
		     size_t msg_len)
{
	char q[RL_QUOTE_SIZE];

	if (!integer_text(text)) {
		snprintf(msg, msg_len, "%s %s is not an integer", what, rl_quote(q, text));
		return false;
	}
	if (!rl_parse_i64(text, out) || *out < min || *out > max) {
		snprintf(msg, msg_len, "%s %s is out of range [%lld, %lld]", what, rl_quote(q, text), (long long)min,
			 (long long)max);
		return false;
	}
	return true;
}

bool rl_parse_duration_in(const char *what, const char *text, int64_t min_ns, int64_t max_ns, int64_t *out_ns,
			  char *msg, size_t msg_len)
{
	static const char *const units[] = { "ns", "us", "ms", "s", "m", "h" };
	size_t digits = strspn(text, "0123456789");
	bool unit = false;
	char q[RL_QUOTE_SIZE];

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		unit = unit || strcmp(text + digits, units[i]) == 0;
	if (digits > 0 && !text[digits]) {
		snprintf(msg, msg_len, "%s %s has no unit (a duration needs one of ns, us, ms, s, m, h, e.g. %.20ss)",
			 what, rl_quote(q, text), text);
		return false;
	}
	if (digits == 0 || !unit) {
		snprintf(msg, msg_len, "%s %s is not a duration (an integer with unit ns, us, ms, s, m or h)", what,
			 rl_quote(q, text));
		return false;
	}
	if (!rl_parse_duration(text, 0, out_ns) || *out_ns < min_ns || *out_ns > max_ns) {
		snprintf(msg, msg_len, "%s %s is out of range [%lldns, %lldns]", what, rl_quote(q, text),
			 (long long)min_ns, (long long)max_ns);
		return false;
	}
	return true;
}

int rl_rule_parse(const char *text, struct rl_rule *out, char *msg, size_t msg_len)
{
	char buf[RULE_TEXT_MAX], q[RL_QUOTE_SIZE], q2[RL_QUOTE_SIZE], why[RL_QUOTE_SIZE + 160];
	size_t len = strlen(text);
	struct rl_rule r;

	rl_quote(q, text);
	char *slash = len < sizeof(buf) ? memcpy(buf, text, len + 1), strchr(buf, '/') : NULL;
	char *colon = slash ? strchr(buf, ':') : NULL;
	if (!slash || (colon && colon < slash)) {
		snprintf(msg, msg_len, "%s is not a rule " RULE_FORM, q);
		return RL_EINVAL;
	}
	*slash = '\0';
	const char *burst = NULL;
	if (colon) {
		*colon = '\0';
		if (colon[1] != 'b') {
			snprintf(msg, msg_len, "%s: the burst %s is not bB " RULE_FORM, q, rl_quote(q2, colon + 1));
			return RL_EINVAL;
		}
		burst = colon + 2;
	}
	if (!rl_parse_int_in("the limit", buf, 1, RL_LIMIT_MAX, &r.limit, why, sizeof(why)) ||
	    !rl_parse_duration_in("the window", slash + 1, 1, RL_WINDOW_MAX_NS, &r.window_ns, why, sizeof(why))) {
		snprintf(msg, msg_len, "%s: %s", q, why);
		return RL_EINVAL;
	}
	r.burst = r.limit;
	if (burst && !rl_parse_int_in("the burst", burst, 1, RL_BURST_MAX, &r.burst, why, sizeof(why))) {
		snprintf(msg, msg_len, "%s: %s", q, why);
		return RL_EINVAL;
	}
	if (rl_rule_validate(&r, why, sizeof(why)) != RL_OK) {
		snprintf(msg, msg_len, "%s: %s", q, why);
		return RL_EINVAL;
	}
	*out = r;
	return RL_OK;
}
