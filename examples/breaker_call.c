/*
 * breaker_call.c - the circuit breaker guarding calls to a dependency.
 *
 * The breaker admits at most 3 calls in any 10 s window; the 4th call in a
 * window is refused and opens it; while open (5 s) every call is refused
 * without touching the dependency; after that one probe call is let
 * through and closes it again. Times are seconds here (any one unit works).
 *
 *   ./breaker_call      prints one line per call: time, state before, verdict
 */
#include <stdio.h>

#include <ratelab/breaker.h>

/* The guarded dependency: here it only counts how often it was reached. */
static int reached;

static void call_dependency(void)
{
	reached++;
}

int main(void)
{
	static const int64_t times_s[] = { 0, 1, 2, 3, 4, 8, 9, 10, 11 };
	struct rl_breaker b;
	char msg[128];

	if (rl_breaker_init(&b, 3, 10, 5, msg, sizeof(msg)) != RL_OK) {
		fprintf(stderr, "breaker_call: %s\n", msg);
		return 1;
	}
	for (size_t i = 0; i < sizeof(times_s) / sizeof(times_s[0]); i++) {
		enum rl_breaker_state before;
		int v = rl_breaker_handle(&b, times_s[i], &before);

		if (v < 0) {
			fprintf(stderr, "breaker_call: %s\n", rl_strerror(v));
			rl_breaker_destroy(&b);
			return 1;
		}
		if (v == RL_ALLOWED)
			call_dependency();
		printf("t=%lld %s %s\n", (long long)times_s[i], rl_breaker_state_name(before),
		       v == RL_ALLOWED ? "called" : "refused");
	}
	printf("dependency reached %d times\n", reached);
	rl_breaker_destroy(&b);
	return 0;
}
