/*
 * test_breaker.c - the rate-limit circuit breaker against the spec text
 * (rate-limit-circuit-breaker.txt): its three examples (Example 3 as the
 * issue corrects it), every transition, same-timestamp ordering, the probe,
 * the window's exclusive old edge, memory per distinct timestamp, the
 * largest parameters, errors, and a seeded random comparison with the
 * model in model.h.
 *
 * Reproduce a random failure with RL_SEED=<seed> [RL_TRACE=<index>].
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "ratelab/breaker.h"
#include "ratelab/rule.h"

#define CLOSED RL_BREAKER_CLOSED
#define OPEN RL_BREAKER_OPEN
#define HALF_OPEN RL_BREAKER_HALF_OPEN

static struct rl_breaker *make(int64_t limit, int64_t window, int64_t open_for)
{
	struct rl_breaker *b = malloc(sizeof(*b));
	char msg[128];

	assert_non_null(b);
	assert_int_equal(rl_breaker_init(b, limit, window, open_for, msg, sizeof(msg)), RL_OK);
	return b;
}

static void destroy(struct rl_breaker *b)
{
	rl_breaker_destroy(b);
	free(b);
}

/* handleRequest(t) must answer "VERDICT,STATE" */
static void handle(struct rl_breaker *b, int64_t t, int verdict, enum rl_breaker_state before)
{
	enum rl_breaker_state s = (enum rl_breaker_state)-1;
	int v = rl_breaker_handle(b, t, &s);

	if (v != verdict || s != before)
		fail_msg("handle(%lld) = %s,%s; expected %s,%s", (long long)t,
			 v == RL_ALLOWED ? "ALLOWED" : v == RL_REJECTED ? "REJECTED" : "error",
			 v >= 0 ? rl_breaker_state_name(s) : rl_strerror(v),
			 verdict ? "ALLOWED" : "REJECTED", rl_breaker_state_name(before));
}

/* getState(t) must answer state */
static void state(struct rl_breaker *b, int64_t t, enum rl_breaker_state want)
{
	enum rl_breaker_state s = (enum rl_breaker_state)-1;

	assert_int_equal(rl_breaker_state_at(b, t, &s), RL_OK);
	if (s != want)
		fail_msg("getState(%lld) = %s; expected %s", (long long)t, rl_breaker_state_name(s),
			 rl_breaker_state_name(want));
}

/* ------------------------------------------------------------------ */
/* The spec's examples.                                                */

static void spec_example_1(void **u)
{
	(void)u;
	struct rl_breaker *b = make(3, 10, 5);
	handle(b, 1, 1, CLOSED);
	handle(b, 2, 1, CLOSED);
	handle(b, 4, 1, CLOSED);
	handle(b, 5, 0, CLOSED);
	state(b, 7, OPEN);
	state(b, 10, HALF_OPEN);
	handle(b, 10, 1, HALF_OPEN);
	state(b, 10, CLOSED);
	destroy(b);
}

static void spec_example_2(void **u)
{
	(void)u;
	struct rl_breaker *b = make(2, 5, 3);
	handle(b, 1, 1, CLOSED);
	handle(b, 3, 1, CLOSED);
	handle(b, 6, 1, CLOSED); /* the window (1, 6] leaves 1 out */
	handle(b, 7, 0, CLOSED); /* 3 and 6 are in (2, 7] */
	state(b, 7, OPEN);
	destroy(b);
}

static void spec_example_3_corrected(void **u)
{
	(void)u;
	/* the spec prints the second call as REJECTED; with requestLimit = 2
	 * the first two at t = 100 are allowed and the third is rejected */
	struct rl_breaker *b = make(2, 10, 4);
	handle(b, 100, 1, CLOSED);
	handle(b, 100, 1, CLOSED);
	handle(b, 100, 0, CLOSED);
	state(b, 100, OPEN);
	state(b, 103, OPEN);
	state(b, 104, HALF_OPEN);
	destroy(b);
}

/* ------------------------------------------------------------------ */
/* Transitions, ordering, the probe, the window.                       */

static void closed_to_open_to_half_open_to_closed(void **u)
{
	(void)u;
	struct rl_breaker *b = make(2, 100, 10);
	state(b, 0, CLOSED); /* it starts CLOSED */
	handle(b, 0, 1, CLOSED);
	handle(b, 1, 1, CLOSED);
	handle(b, 2, 0, CLOSED); /* CLOSED -> OPEN at 2 */
	state(b, 2, OPEN);
	handle(b, 3, 0, OPEN); /* all rejected while OPEN */
	handle(b, 11, 0, OPEN); /* 11 - 2 < 10; rejections do not restart the timer */
	state(b, 11, OPEN);
	state(b, 12, HALF_OPEN); /* exactly open_for after opening */
	state(b, 500, HALF_OPEN); /* HALF_OPEN lasts until a request comes */
	handle(b, 500, 1, HALF_OPEN); /* the probe: accepted, HALF_OPEN -> CLOSED */
	state(b, 500, CLOSED);
	handle(b, 500, 1, CLOSED); /* the new window holds the probe: 1 < 2 */
	handle(b, 500, 0, CLOSED); /* 2 in the window: opens again */
	handle(b, 509, 0, OPEN);
	handle(b, 510, 1, HALF_OPEN);
	destroy(b);
}

static void probe_starts_a_new_window(void **u)
{
	(void)u;
	/* old accepted requests still inside the window do not count after
	 * the probe: the new window holds only the probe */
	struct rl_breaker *b = make(3, 1000, 5);
	handle(b, 0, 1, CLOSED);
	handle(b, 1, 1, CLOSED);
	handle(b, 2, 1, CLOSED);
	handle(b, 3, 0, CLOSED);
	handle(b, 8, 1, HALF_OPEN); /* 0, 1, 2 are within (8 - 1000, 8] */
	handle(b, 8, 1, CLOSED);
	handle(b, 9, 1, CLOSED);
	handle(b, 9, 0, CLOSED); /* probe + 2 = 3 */
	destroy(b);

	/* limit 1: the probe fills the window by itself */
	b = make(1, 10, 1);
	handle(b, 0, 1, CLOSED);
	handle(b, 0, 0, CLOSED);
	handle(b, 1, 1, HALF_OPEN);
	handle(b, 1, 0, CLOSED);
	handle(b, 2, 1, HALF_OPEN);
	state(b, 2, CLOSED);
	handle(b, 11, 0, CLOSED); /* the probe at 2 is in (1, 11] */
	handle(b, 12, 1, HALF_OPEN);
	handle(b, 22, 1, CLOSED); /* the probe at 12 left at 22 */
	destroy(b);
}

static void same_timestamp_in_call_order(void **u)
{
	(void)u;
	struct rl_breaker *b = make(1, 10, 1);
	handle(b, 5, 1, CLOSED);
	handle(b, 5, 0, CLOSED); /* opens at 5 */
	state(b, 5, OPEN);
	handle(b, 5, 0, OPEN);
	state(b, 6, HALF_OPEN);
	state(b, 6, HALF_OPEN); /* getState records nothing */
	handle(b, 6, 1, HALF_OPEN);
	handle(b, 6, 0, CLOSED); /* opens at 6 */
	handle(b, 6, 0, OPEN);
	state(b, 7, HALF_OPEN);
	destroy(b);

	/* accepted requests at one timestamp count one by one */
	b = make(4, 1, 1);
	for (int i = 0; i < 4; i++)
		handle(b, 9, 1, CLOSED);
	handle(b, 9, 0, CLOSED);
	destroy(b);
}

static void window_is_open_at_its_old_end(void **u)
{
	(void)u;
	/* x counts at t iff t - W < x <= t */
	struct rl_breaker *b = make(1, 10, 100);
	handle(b, 0, 1, CLOSED);
	handle(b, 10, 1, CLOSED); /* 10 - 10 < 0 is false: 0 is out */
	handle(b, 19, 0, CLOSED); /* 9 < 10: still in */
	destroy(b);

	b = make(2, 10, 100);
	handle(b, 0, 1, CLOSED);
	handle(b, 5, 1, CLOSED);
	handle(b, 9, 0, CLOSED); /* 0 and 5 in (-1, 9] */
	destroy(b);

	b = make(2, 10, 100);
	handle(b, 0, 1, CLOSED);
	handle(b, 5, 1, CLOSED);
	handle(b, 10, 1, CLOSED); /* (0, 10] holds only 5 */
	handle(b, 14, 0, CLOSED); /* (4, 14] holds 5 and 10 */
	destroy(b);

	/* window 1: only the same second counts */
	b = make(1, 1, 100);
	handle(b, 7, 1, CLOSED);
	handle(b, 8, 1, CLOSED);
	handle(b, 8, 0, CLOSED);
	destroy(b);
}

static void rejected_requests_are_not_counted(void **u)
{
	(void)u;
	/* while OPEN nothing is recorded: after the probe only it counts,
	 * however many were rejected meanwhile */
	struct rl_breaker *b = make(2, 100, 3);
	handle(b, 0, 1, CLOSED);
	handle(b, 0, 1, CLOSED);
	handle(b, 0, 0, CLOSED);
	for (int i = 0; i < 50; i++)
		handle(b, 1, 0, OPEN);
	handle(b, 3, 1, HALF_OPEN);
	handle(b, 4, 1, CLOSED);
	handle(b, 4, 0, CLOSED);
	destroy(b);
}

/* ------------------------------------------------------------------ */
/* Memory, the largest parameters, errors.                             */

static void memory_is_per_distinct_timestamp(void **u)
{
	(void)u;
	/* the limit reached at one timestamp: one run, not a million slots */
	struct rl_breaker *b = make(1000000, 1000000000, 1000000000);
	for (int i = 0; i < 1000000; i++) {
		enum rl_breaker_state s;
		assert_int_equal(rl_breaker_handle(b, 1000, &s), RL_ALLOWED);
	}
	assert_int_equal(b->admitted.len, 1);
	assert_int_equal(b->admitted.total, 1000000);
	assert_true(b->admitted.cap <= 4);
	handle(b, 1000, 0, CLOSED);
	state(b, 1000, OPEN);
	/* nothing counted while OPEN; the ring is kept for the next window */
	assert_int_equal(b->admitted.len, 0);
	assert_int_equal(b->admitted.total, 0);
	assert_true(b->admitted.cap <= 4);
	destroy(b);

	/* a sliding window over many distinct times holds what is inside,
	 * within a small factor, and keeps its ring when they leave */
	b = make(1000000, 1000, 5);
	for (int64_t t = 0; t < 200000; t++) {
		enum rl_breaker_state s;
		assert_int_equal(rl_breaker_handle(b, t, &s), RL_ALLOWED);
		assert_int_equal(rl_breaker_handle(b, t, &s), RL_ALLOWED);
	}
	assert_int_equal(b->admitted.total, 2 * 1000); /* (t - 1000, t] */
	assert_true(b->admitted.len <= 1000);
	assert_true(b->admitted.cap <= 4 * 1000);
	handle(b, 1000000, 1, CLOSED); /* all left at once */
	assert_int_equal(b->admitted.total, 1);
	assert_int_equal(b->admitted.len, 1);
	assert_true(b->admitted.cap <= 4 * 1000);
	destroy(b);

	/* overload cycles reuse one ring: no reallocation per closed period */
	b = make(3, 10, 2);
	handle(b, 0, 1, CLOSED);
	handle(b, 0, 1, CLOSED);
	handle(b, 0, 1, CLOSED);
	const struct rl_run *ring = b->admitted.runs;
	for (int64_t t = 0; t < 300; t += 3) {
		handle(b, t + 1, 0, CLOSED); /* opens at t + 1 */
		assert_int_equal(b->admitted.cap, 4); /* kept while OPEN */
		handle(b, t + 3, 1, HALF_OPEN);
		handle(b, t + 3, 1, CLOSED);
		handle(b, t + 3, 1, CLOSED);
		assert_ptr_equal(b->admitted.runs, ring);
	}
	destroy(b);
}

static void largest_parameters(void **u)
{
	(void)u;
	const int64_t G = 1000000000; /* the spec's bound on window, open, times */
	struct rl_breaker *b = make(1000000, G, G);
	for (int i = 0; i < 1000000; i++) {
		enum rl_breaker_state s;
		assert_int_equal(rl_breaker_handle(b, 0, &s), RL_ALLOWED);
	}
	handle(b, G - 1, 0, CLOSED); /* 0 is in (G - 1 - G, G - 1] */
	state(b, G - 1, OPEN);
	/* open for 10^9 s: never HALF_OPEN within the spec's timestamps */
	state(b, G, OPEN);
	handle(b, G, 0, OPEN);
	destroy(b);

	b = make(1000000, G, G);
	for (int i = 0; i < 1000000; i++) {
		enum rl_breaker_state s;
		assert_int_equal(rl_breaker_handle(b, 0, &s), RL_ALLOWED);
	}
	handle(b, G, 1, CLOSED); /* (0, G] leaves all million out */
	state(b, G, CLOSED);
	destroy(b);

	b = make(1, G, G);
	handle(b, 0, 1, CLOSED);
	handle(b, 0, 0, CLOSED);
	state(b, G - 1, OPEN);
	state(b, G, HALF_OPEN);
	handle(b, G, 1, HALF_OPEN);
	destroy(b);

	/* the library takes any unit: far beyond the spec's seconds */
	b = make(2, RL_TIME_MAX_NS, RL_TIME_MAX_NS);
	handle(b, 0, 1, CLOSED);
	handle(b, RL_TIME_MAX_NS - 1, 1, CLOSED);
	handle(b, RL_TIME_MAX_NS, 1, CLOSED); /* (0, TMAX] leaves 0 out */
	handle(b, RL_TIME_MAX_NS, 0, CLOSED);
	destroy(b);
}

static void errors(void **u)
{
	(void)u;
	struct rl_breaker *b = make(2, 10, 5);
	enum rl_breaker_state s = CLOSED;

	handle(b, 5, 1, CLOSED);
	/* time going backwards: refused, nothing changes */
	assert_int_equal(rl_breaker_handle(b, 4, &s), RL_EORDER);
	assert_int_equal(rl_breaker_state_at(b, 4, &s), RL_EORDER);
	assert_int_equal(rl_breaker_handle(b, -1, &s), RL_ERANGE);
	assert_int_equal(rl_breaker_handle(b, INT64_MIN, &s), RL_ERANGE);
	assert_int_equal(rl_breaker_state_at(b, RL_TIME_MAX_NS + 1, &s), RL_ERANGE);
	assert_int_equal(rl_breaker_handle(b, INT64_MAX, &s), RL_ERANGE);
	handle(b, 5, 1, CLOSED); /* the refused calls recorded nothing */
	handle(b, 5, 0, CLOSED);
	assert_int_equal(rl_breaker_handle(b, 4, &s), RL_EORDER);
	state(b, 9, OPEN);
	state(b, 10, HALF_OPEN);
	assert_int_equal(rl_breaker_state_at(b, 9, &s), RL_EORDER);
	destroy(b);

	/* invalid parameters: refused with a message naming the field */
	static const struct {
		int64_t limit, window, open_for;
		const char *field;
	} bad[] = {
		{ 0, 10, 5, "limit" },
		{ -1, 10, 5, "limit" },
		{ 1000001, 10, 5, "limit" },
		{ 1, 0, 5, "window" },
		{ 1, -3, 5, "window" },
		{ 1, RL_TIME_MAX_NS + 1, 5, "window" },
		{ 1, 10, 0, "open" },
		{ 1, 10, -1, "open" },
		{ 1, 10, RL_TIME_MAX_NS + 1, "open" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct rl_breaker bb;
		char msg[128] = "";
		assert_int_equal(rl_breaker_init(&bb, bad[i].limit, bad[i].window, bad[i].open_for,
						 msg, sizeof(msg)),
				 RL_EINVAL);
		if (!strstr(msg, bad[i].field))
			fail_msg("case %zu: message '%s' does not name %s", i, msg, bad[i].field);
		assert_int_equal(rl_breaker_init(&bb, bad[i].limit, bad[i].window, bad[i].open_for,
						 NULL, 0),
				 RL_EINVAL);
	}
	struct rl_breaker ok;
	assert_int_equal(rl_breaker_init(&ok, 1, 1, 1, NULL, 0), RL_OK);
	rl_breaker_destroy(&ok);
	assert_int_equal(rl_breaker_init(&ok, 1000000, 1000000000, 1000000000, NULL, 0), RL_OK);
	rl_breaker_destroy(&ok);

	assert_string_equal(rl_breaker_state_name(CLOSED), "CLOSED");
	assert_string_equal(rl_breaker_state_name(OPEN), "OPEN");
	assert_string_equal(rl_breaker_state_name(HALF_OPEN), "HALF_OPEN");
}

/* ------------------------------------------------------------------ */
/* Random traces against the model.                                    */

#define DEFAULT_SEED 0xb4eaca11ULL
#define DEFAULT_TRACES 3000

static enum rl_breaker_state to_rl(enum m_bstate s)
{
	return s == M_CLOSED ? CLOSED : s == M_OPEN ? OPEN : HALF_OPEN;
}

static void random_against_model(void **u)
{
	(void)u;
	uint64_t seed = m_seed_from_env(DEFAULT_SEED);
	const char *only = getenv("RL_TRACE");
	long first = 0, last = DEFAULT_TRACES - 1;
	long transitions = 0;

	if (only && *only)
		first = last = strtol(only, NULL, 0);
	printf("breaker random traces: seed=0x%llx (override with RL_SEED, RL_TRACE)\n",
	       (unsigned long long)seed);
	for (long trace = first; trace <= last; trace++) {
		struct m_rng r = { seed ^ (0x9e3779b97f4a7c15ULL * (uint64_t)(trace + 1)) };
		int big = m_rng_range(&r, 0, 9) == 0;
		int64_t limit = big ? m_rng_range(&r, 1, 1000) : m_rng_range(&r, 1, 5);
		int64_t window = big ? m_rng_range(&r, 1, 1000000000) : m_rng_range(&r, 1, 30);
		int64_t open_for = big ? m_rng_range(&r, 1, 1000000000) : m_rng_range(&r, 1, 30);
		int calls = (int)m_rng_range(&r, 1, 250);
		struct rl_breaker b;
		struct m_breaker m;
		int64_t t = m_rng_range(&r, 0, 100);

		assert_int_equal(rl_breaker_init(&b, limit, window, open_for, NULL, 0), RL_OK);
		m_breaker_init(&m, limit, window, open_for);
		for (int c = 0; c < calls; c++) {
			switch (m_rng_range(&r, 0, 9)) {
			case 0: case 1: case 2: case 3:
				break; /* same timestamp */
			case 4: case 5:
				t += m_rng_range(&r, 1, 3);
				break;
			case 6:
				t += window + m_rng_range(&r, -1, 1);
				break;
			case 7:
				t += open_for + m_rng_range(&r, -1, 1);
				break;
			default:
				t += m_rng_range(&r, 0, window > open_for ? window : open_for);
				break;
			}
			if (t < 0)
				t = 0;
			enum rl_breaker_state got = (enum rl_breaker_state)-1;
			enum m_bstate want;
			const char *op;
			int v, mv;
			if (m_rng_range(&r, 0, 4) == 0) {
				op = "getState";
				v = rl_breaker_state_at(&b, t, &got);
				want = m_breaker_state(&m, t);
				mv = RL_OK;
			} else {
				op = "handleRequest";
				enum m_bstate before = m_breaker_state(&m, t);
				v = rl_breaker_handle(&b, t, &got);
				mv = m_breaker_handle(&m, t, &want);
				transitions += want != before || mv == 0;
			}
			if (v != mv || got != to_rl(want))
				fail_msg("seed=0x%llx trace=%ld (reproduce: RL_SEED=0x%llx RL_TRACE=%ld): "
					 "limit=%lld window=%lld open=%lld call #%d %s(%lld): impl %d,%s; "
					 "model %d,%s",
					 (unsigned long long)seed, trace, (unsigned long long)seed, trace,
					 (long long)limit, (long long)window, (long long)open_for, c, op,
					 (long long)t, v, v >= 0 ? rl_breaker_state_name(got) : "?", mv,
					 m_bstate_name(want));
		}
		rl_breaker_destroy(&b);
		m_breaker_free(&m);
	}
	if (first != last)
		assert_true(transitions > 1000); /* the traces do exercise the states */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(spec_example_1),
		cmocka_unit_test(spec_example_2),
		cmocka_unit_test(spec_example_3_corrected),
		cmocka_unit_test(closed_to_open_to_half_open_to_closed),
		cmocka_unit_test(probe_starts_a_new_window),
		cmocka_unit_test(same_timestamp_in_call_order),
		cmocka_unit_test(window_is_open_at_its_old_end),
		cmocka_unit_test(rejected_requests_are_not_counted),
		cmocka_unit_test(memory_is_per_distinct_timestamp),
		cmocka_unit_test(largest_parameters),
		cmocka_unit_test(errors),
		cmocka_unit_test(random_against_model),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
