/*
 * policy_parse.c - a policy's text, "N/W[:bB][:units]" joined by '+'
 * (policy.h): each rule's "N/W[:bB]" read by rl_rule_parse, the one rule
 * reader.
 */
#include "ratelab/parse.h"
#include "ratelab/policy.h"
#include "ratelab/status.h"

#include <stdio.h>
#include <string.h>

#define POLICY_FORM "(rules N/W[:bB][:units] joined by '+', e.g. 10/1s+1000/1h or 60/1m+90000/1m:units)"
#define UNITS_MARK ":units"
/* A policy's text: at most 8 rules of about 40 bytes, and spaces. */
#define POLICY_TEXT_MAX 512

/* s without its leading and trailing spaces, in place. */
static char *trim(char *s)
{
	size_t n;

	while (*s == ' ' || *s == '\t')
		s++;
	n = strlen(s);
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = '\0';
	return s;
}

int rl_policy_parse(const char *text, struct rl_policy *out, char *msg, size_t msg_len)
{
	char buf[POLICY_TEXT_MAX], q[RL_QUOTE_SIZE], why[RL_QUOTE_SIZE * 2 + 200];
	size_t len = strlen(text), count = 1;
	struct rl_policy p = { 0 };

	rl_quote(q, text);
	for (const char *c = text; *c; c++)
		count += *c == '+';
	if (count > RL_POLICY_MAX_RULES) {
		snprintf(msg, msg_len, "%s has %zu rules (at most %d)", q, count, RL_POLICY_MAX_RULES);
		return RL_EINVAL;
	}
	if (len >= sizeof(buf)) {
		snprintf(msg, msg_len, "%s is not a policy " POLICY_FORM, q);
		return RL_EINVAL;
	}
	memcpy(buf, text, len + 1);
	char *part = buf;
	for (size_t i = 0; i < count; i++) {
		char *plus = strchr(part, '+');
		if (plus)
			*plus = '\0';
		char *rule = trim(part);
		size_t rlen = strlen(rule), mlen = strlen(UNITS_MARK);

		if (!*rule) {
			snprintf(msg, msg_len, "%s: rule %zu is empty " POLICY_FORM, q, i + 1);
			return RL_EINVAL;
		}
		if (rlen > mlen && strcmp(rule + rlen - mlen, UNITS_MARK) == 0) {
			p.units[i] = true;
			rule[rlen - mlen] = '\0';
		}
		if (rl_rule_parse(rule, &p.rules[i], why, sizeof(why)) != RL_OK) {
			if (count == 1 && !p.units[i])
				snprintf(msg, msg_len, "%s", why);
			else
				snprintf(msg, msg_len, "%s: rule %zu: %s", q, i + 1, why);
			return RL_EINVAL;
		}
		part = plus ? plus + 1 : part;
	}
	p.count = count;
	*out = p;
	return RL_OK;
}

bool rl_policy_uses_units(const struct rl_policy *p)
{
	for (size_t i = 0; i < p->count; i++)
		if (p->units[i])
			return true;
	return false;
}

/* The shortest unit that writes W exactly. */
static int format_window(char *buf, size_t len, int64_t w)
{
	static const struct {
		const char *unit;
		int64_t ns;
	} units[] = { { "h", 3600000000000LL }, { "m", 60000000000LL }, { "s", 1000000000LL },
		      { "ms", 1000000LL },	{ "us", 1000LL },	    { "ns", 1 } };

	for (size_t i = 0;; i++)
		if (w % units[i].ns == 0)
			return snprintf(buf, len, "%lld%s", (long long)(w / units[i].ns), units[i].unit);
}

char *rl_policy_format(const struct rl_policy *p, bool with_burst, char *buf, size_t len)
{
	size_t n = 0;

	if (len == 0)
		return buf;
	buf[0] = '\0';
	for (size_t i = 0; i < p->count && n < len; i++) {
		char w[32];
		const struct rl_rule *r = &p->rules[i];

		format_window(w, sizeof(w), r->window_ns);
		int k = snprintf(buf + n, len - n, "%s%lld/%s", i ? "+" : "", (long long)r->limit, w);
		n += k > 0 ? (size_t)k : 0;
		if (n < len && with_burst && r->burst != r->limit) {
			k = snprintf(buf + n, len - n, ":b%lld", (long long)r->burst);
			n += k > 0 ? (size_t)k : 0;
		}
		if (n < len && p->units[i]) {
			k = snprintf(buf + n, len - n, UNITS_MARK);
			n += k > 0 ? (size_t)k : 0;
		}
	}
	return buf;
}
