/*
 * fuzz_breaker.c - the circuit breaker against the tests' model
 * (tests/model.h): the same verdict and effective state for every fuzzed
 * sequence of handle and state calls; a time going backwards is refused
 * with RL_EORDER and changes nothing.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_input.h"
#include "model.h"
#include "ratelab/breaker.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fin f = { data, size };
	int64_t limit = fin_range(&f, 1, 1, 40), window = fin_range(&f, 2, 1, 5000),
		open_for = fin_range(&f, 2, 1, 5000), t = fin_range(&f, 2, 0, 1000);
	struct rl_breaker b;
	struct m_breaker m;
	int ops = 0;
	bool called = false; /* t is the breaker's last time once a call was made */

	if (rl_breaker_init(&b, limit, window, open_for, NULL, 0))
		abort();
	m_breaker_init(&m, limit, window, open_for);
	while (f.n && ops++ < 2000) {
		uint64_t op = fin_u64(&f, 1);
		int64_t step = fin_range(&f, 1, 0, 255) * (op & 0x40 ? window / 16 + 1 : 1);
		enum rl_breaker_state got;
		if (op & 0x80 && step > 0 && t >= step && called) {
			/* backwards: refused, and the next calls go on as if it never came */
			if (rl_breaker_handle(&b, t - step, &got) != RL_EORDER ||
			    rl_breaker_state_at(&b, t - step, &got) != RL_EORDER)
				abort();
			continue;
		}
		t += step;
		called = true;
		if (op & 1) {
			enum m_bstate want;
			int v = rl_breaker_handle(&b, t, &got), mv = m_breaker_handle(&m, t, &want);
			if (v != mv || (int)got != (int)want)
				abort();
		} else {
			if (rl_breaker_state_at(&b, t, &got) != RL_OK || (int)got != (int)m_breaker_state(&m, t))
				abort();
		}
	}
	rl_breaker_destroy(&b);
	m_breaker_free(&m);
	return 0;
}
