/*
 * http.c - model: each header is one snprintf into the caller's buffer,
 * from integers only; seconds are ceil(ns / 10^9).
 *
 * Invariant: on success buf holds exactly the lines http.h lists, in that
 * order; on failure it holds "" (when it has room for anything).
 */
#include "ratelab/http.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

#include "compat.h"

#define NS_PER_S 1000000000LL

int rl_http_status(int verdict)
{
	return verdict == RL_REJECTED ? 429 : 200;
}

int64_t rl_http_seconds_up(int64_t ns)
{
	return ns <= 0 ? 0 : ns / NS_PER_S + (ns % NS_PER_S != 0);
}

struct out {
	char *buf;
	size_t len, used;
	bool full;
};

static void put(struct out *o, const char *fmt, ...) RL_PRINTF(2, 3);

static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;

	if (o->full)
		return;
	va_start(ap, fmt);
	int n = vsnprintf(o->buf + o->used, o->len - o->used, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= o->len - o->used)
		o->full = true;
	else
		o->used += (size_t)n;
}

/* The policy name as an sf-string body: '"' and '\' escaped. */
static void put_name(struct out *o, const char *name)
{
	for (; *name; name++)
		put(o, *name == '"' || *name == '\\' ? "\\%c" : "%c", *name);
}

int rl_http_headers(char *buf, size_t len, const struct rl_http_policy *policy, int verdict,
		    const struct rl_decision *d, unsigned flags)
{
	if (!buf || !policy || !policy->name || !d || policy->quota < 0 || policy->window_ns < 1 ||
	    (verdict != RL_ALLOWED && verdict != RL_REJECTED))
		return RL_EINVAL;
	for (const char *c = policy->name; *c; c++)
		if (*c < 0x20 || *c > 0x7e)
			return RL_EINVAL;

	const char *eol = flags & RL_HTTP_LF ? "\n" : "\r\n";
	struct out o = { buf, len, 0, len == 0 };
	int64_t remaining = d->remaining > 0 ? d->remaining : 0;
	int64_t reset_s = rl_http_seconds_up(d->reset_ns);

	put(&o, "RateLimit-Policy: \"");
	put_name(&o, policy->name);
	put(&o, "\";q=%lld;w=%lld%s", (long long)policy->quota,
	    (long long)rl_http_seconds_up(policy->window_ns), eol);
	put(&o, "RateLimit: \"");
	put_name(&o, policy->name);
	put(&o, "\";r=%lld;t=%lld%s", (long long)remaining, (long long)reset_s, eol);
	if (verdict == RL_REJECTED)
		put(&o, "Retry-After: %lld%s", (long long)rl_http_seconds_up(d->retry_after_ns), eol);
	if (flags & RL_HTTP_LEGACY)
		put(&o, "X-RateLimit-Limit: %lld%sX-RateLimit-Remaining: %lld%sX-RateLimit-Reset: %lld%s",
		    (long long)policy->quota, eol, (long long)remaining, eol, (long long)reset_s, eol);
	if (o.full) {
		if (len)
			buf[0] = '\0';
		return RL_EFULL;
	}
	return (int)o.used;
}

int rl_http_headers_list(char *buf, size_t len, const struct rl_http_policy *policies,
			 const struct rl_decision *each, size_t n, int verdict, const struct rl_decision *all,
			 unsigned flags)
{
	if (!buf || !policies || !each || !all || n == 0 || (verdict != RL_ALLOWED && verdict != RL_REJECTED))
		return RL_EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (!policies[i].name || policies[i].quota < 0 || policies[i].window_ns < 1)
			return RL_EINVAL;
		for (const char *c = policies[i].name; *c; c++)
			if (*c < 0x20 || *c > 0x7e)
				return RL_EINVAL;
	}

	const char *eol = flags & RL_HTTP_LF ? "\n" : "\r\n";
	struct out o = { buf, len, 0, len == 0 };
	size_t binding = 0; /* the least remaining, the first on a tie */

	put(&o, "RateLimit-Policy: ");
	for (size_t i = 0; i < n; i++) {
		put(&o, "%s\"", i ? ", " : "");
		put_name(&o, policies[i].name);
		put(&o, "\";q=%lld;w=%lld", (long long)policies[i].quota,
		    (long long)rl_http_seconds_up(policies[i].window_ns));
	}
	put(&o, "%sRateLimit: ", eol);
	for (size_t i = 0; i < n; i++) {
		put(&o, "%s\"", i ? ", " : "");
		put_name(&o, policies[i].name);
		put(&o, "\";r=%lld;t=%lld", (long long)(each[i].remaining > 0 ? each[i].remaining : 0),
		    (long long)rl_http_seconds_up(each[i].reset_ns));
		binding = each[i].remaining < each[binding].remaining ? i : binding;
	}
	put(&o, "%s", eol);
	if (verdict == RL_REJECTED)
		put(&o, "Retry-After: %lld%s", (long long)rl_http_seconds_up(all->retry_after_ns), eol);
	if (flags & RL_HTTP_LEGACY)
		put(&o, "X-RateLimit-Limit: %lld%sX-RateLimit-Remaining: %lld%sX-RateLimit-Reset: %lld%s",
		    (long long)policies[binding].quota, eol, (long long)(all->remaining > 0 ? all->remaining : 0),
		    eol, (long long)rl_http_seconds_up(all->reset_ns), eol);
	if (o.full) {
		if (len)
			buf[0] = '\0';
		return RL_EFULL;
	}
	return (int)o.used;
}
