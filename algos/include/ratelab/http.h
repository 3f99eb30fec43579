/*
 * http.h - a decision as HTTP response headers, for the layer that answers
 * the client: status 429 when rejected, Retry-After, the IETF
 * draft-ietf-httpapi-ratelimit-headers (revision 11) fields and,
 * optionally, the legacy X-RateLimit trio. Integer arithmetic only.
 *
 * For policy "free" (quota 10 per 1 s), remaining 3, reset_ns 0.4 s, the
 * headers are, in this order:
 *   RateLimit-Policy: "free";q=10;w=1
 *   RateLimit: "free";r=3;t=1
 *   Retry-After: 1                    only when rejected
 *   X-RateLimit-Limit: 10             these three with RL_HTTP_LEGACY
 *   X-RateLimit-Remaining: 3
 *   X-RateLimit-Reset: 1
 * Every duration is in whole seconds rounded up: w the window, t the wait
 * until the full quota is back (reset_ns), Retry-After the wait until a
 * request is allowed (retry_after_ns), X-RateLimit-Reset the same as t
 * (seconds from now, not an epoch). r and X-RateLimit-Remaining are the
 * decision's remaining, which a burst above the quota can make exceed q.
 */
#ifndef RATELAB_HTTP_H
#define RATELAB_HTTP_H

#include <stddef.h>
#include <stdint.h>

#include "ratelab/algo.h"

#ifdef __cplusplus
extern "C" {
#endif

struct rl_http_policy {
	const char *name;  /* printable ASCII; '"' and '\' are escaped */
	int64_t quota;     /* q: requests per window, >= 0 */
	int64_t window_ns; /* w, ns, >= 1 */
};

enum rl_http_flags {
	RL_HTTP_LEGACY = 1, /* add X-RateLimit-Limit, -Remaining, -Reset */
	RL_HTTP_LF = 2,     /* end lines with "\n" instead of HTTP's "\r\n" */
};

/* 200 when allowed, 429 (Too Many Requests) when rejected. */
int rl_http_status(int verdict);

/* Whole seconds in ns, rounded up; a negative duration counts as 0. */
int64_t rl_http_seconds_up(int64_t ns);

/*
 * Writes the header lines, each ended by "\r\n" (or "\n"), NUL-terminated,
 * into buf. Returns the length written, RL_EFULL when buf (len bytes) is
 * too small (buf then holds "" if len > 0), or RL_EINVAL (a NULL argument,
 * a name with a byte outside printable ASCII, a negative quota, a window
 * below 1 ns, or a verdict other than RL_ALLOWED / RL_REJECTED).
 */
int rl_http_headers(char *buf, size_t len, const struct rl_http_policy *policy, int verdict,
		    const struct rl_decision *d, unsigned flags);

/*
 * The same for several policies decided together (a policy of several
 * rules, policy.h), in the draft's list form, one item per policy in the
 * order given:
 *   RateLimit-Policy: "rpm";q=60;w=60, "tpm";q=90000;w=60
 *   RateLimit: "rpm";r=59;t=60, "tpm";r=89000;t=60
 *   Retry-After: S                    only when rejected: all's retry_after_ns
 * each[i] is policies[i]'s own answer (r, t); with RL_HTTP_LEGACY the trio
 * says all's remaining and reset with the quota of the policy of least
 * remaining (the first on a tie). n >= 1; the same returns as
 * rl_http_headers.
 */
int rl_http_headers_list(char *buf, size_t len, const struct rl_http_policy *policies,
			 const struct rl_decision *each, size_t n, int verdict, const struct rl_decision *all,
			 unsigned flags);

#ifdef __cplusplus
}
#endif
#endif
