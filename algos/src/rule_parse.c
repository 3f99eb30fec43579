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

const char *rl_quote(char *buf, const char *text)
{
	size_t n = 0, len = strlen(text), i;

	buf[n++] = '\'';
	for (i = 0; i < len && i < RL_QUOTE_MAX; i++) {
		unsigned char c = (unsigned char)text[i];
		const char *esc = c == '\\' ? "\\\\" : c == '\n' ? "\\n" : c == '\t' ? "\\t" : c == '\r' ? "\\r" : NULL;

		if (esc)
			n += (size_t)sprintf(buf + n, "%s", esc);
		else if (c < 0x20 || c == 0x7f)
			n += (size_t)sprintf(buf + n, "\\x%02x", c);
		else
			buf[n++] = (char)c;
	}
	buf[n++] = '\'';
	if (i < len)
		n += (size_t)sprintf(buf + n, "...(%zu bytes)", len);
	buf[n] = '\0';
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
