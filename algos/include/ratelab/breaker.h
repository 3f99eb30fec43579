/*
 * breaker.h - the rate-limit circuit breaker (its rules are also stated in
 * README.md). It opens on the number of requests, not failures.
 *
 * CLOSED: admitted times x with now - window < x <= now are counted; a
 *   request is admitted iff fewer than limit are; otherwise it is rejected
 *   and the breaker opens at now. Rejected requests are never counted.
 * OPEN: every request is rejected; once now - opened_at >= open_for the
 *   effective state is HALF_OPEN.
 * HALF_OPEN: the first request is admitted as a probe; the breaker closes
 *   with a new window holding only the probe.
 * Every call first computes the effective state at its time; handle()
 * reports that state (the one before the request is processed).
 *
 * Times are integers in one unit of the caller's choosing (`ratelab
 * breaker` uses seconds, the simulator ns), non-decreasing across
 * calls: an earlier time is refused with RL_EORDER, a negative one with
 * RL_ERANGE. Memory is O(min(limit, distinct times in a window)) for the
 * fullest window so far: the ring of (time, count) runs is kept, not
 * shrunk, so a breaker cycling through overload never reallocates. Each
 * call is amortised O(1). Single-threaded: callers serialise.
 */
#ifndef RATELAB_BREAKER_H
#define RATELAB_BREAKER_H

#include <stddef.h>
#include <stdint.h>

#include "ratelab/runlog.h"
#include "ratelab/status.h"

#ifdef __cplusplus
extern "C" {
#endif

enum rl_breaker_state { RL_BREAKER_CLOSED, RL_BREAKER_OPEN, RL_BREAKER_HALF_OPEN };

struct rl_breaker {
	int64_t limit;     /* admitted requests allowed per window */
	int64_t window;    /* sliding window length, caller's unit */
	int64_t open_for;  /* time spent OPEN before HALF_OPEN, caller's unit */
	int64_t opened_at; /* when it last opened; meaningful while OPEN */
	int64_t last;      /* latest time seen, for the ordering check */
	struct rl_runlog admitted; /* admitted times in the window while CLOSED */
	enum rl_breaker_state state; /* stored state; the effective one may be later */
};

/* The breaker's own bound on its limit, 10^6: it counts requests, not
 * units, in a log of u32-counted runs (its stored form too), so it keeps
 * the bound the limiters had before they counted units up to RL_LIMIT_MAX. */
#define RL_BREAKER_LIMIT_MAX 1000000LL

/* Ranges: 1 <= limit <= RL_BREAKER_LIMIT_MAX; 1 <= window, open_for <= RL_TIME_MAX_NS. */
int rl_breaker_init(struct rl_breaker *b, int64_t limit, int64_t window, int64_t open_for,
		    char *msg, size_t msg_len);
void rl_breaker_destroy(struct rl_breaker *b);

/*
 * Processes one request at now. Returns RL_ALLOWED (1), RL_REJECTED (0) or a
 * negative rl_status (no decision is affected then); *before receives the effective
 * state before the request.
 */
int rl_breaker_handle(struct rl_breaker *b, int64_t now, enum rl_breaker_state *before);

/* The effective state at now, recording no request. RL_OK or an error. */
int rl_breaker_state_at(struct rl_breaker *b, int64_t now, enum rl_breaker_state *state);

/* "CLOSED", "OPEN" or "HALF_OPEN". */
const char *rl_breaker_state_name(enum rl_breaker_state s);

#ifdef __cplusplus
}
#endif
#endif
