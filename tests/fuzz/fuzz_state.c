/*
 * fuzz_state.c - arbitrary stored state under arbitrary valid rules, as
 * the Redis module reads it (algos/redis/module/state_bytes.c, compiled
 * in): the bytes decoded as a v4 or v3 value (its stored rule from the input too)
 * or a v2 one, checked (rl_limiter_state_check under the rule that wrote
 * it), converted to the check's rule (rl_limiter_rerule) and decided a few
 * times. Never undefined behaviour (ASan+UBSan); a value accepted decides;
 * what the conversion and every check leave passes the check again; a
 * value refused changes nothing and owns nothing.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "ratelab/algo.h"
#include "state_bytes.h"

/* A valid rule, edges likely: each field's value from 1 byte of choice and 8 of value. */
static int64_t pick(struct fin *f, int64_t max)
{
	switch (fin_u64(f, 1) % 4) {
	case 0:
		return 1;
	case 1:
		return max;
	case 2:
		return fin_range(f, 1, 1, 16);
	default:
		return fin_range(f, 8, 1, max);
	}
}

/* Within the module's bounds (RLM_*: the stored form keeps counts in 32
 * bits), which it refuses past, as the library's wider rules would not fit. */
static struct rl_rule pick_rule(struct fin *f, const struct rl_algo *algo)
{
	struct rl_rule r;

	r.limit = pick(f, RLM_LIMIT_MAX);
	r.window_ns = pick(f, RL_WINDOW_MAX_NS);
	r.burst = algo->uses_burst ? pick(f, RLM_BURST_MAX) : r.limit;
	return r;
}

static void state_must_pass(const struct rl_limiter *lim, const void *state)
{
	if (rl_limiter_state_check(lim, state) != RL_OK)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fin f = { data, size };
	size_t count;
	const struct rl_algo *const *all = rl_algo_all(&count);
	const struct rl_algo *algo = all[fin_u64(&f, 1) % count];
	bool v3 = fin_u64(&f, 1) & 1; /* a stored rule (v3 or v4), else a v2 value */
	int version = !v3 ? RLM_VERSION_V2 : fin_u64(&f, 1) & 1 ? RLM_VERSION : RLM_VERSION_V3;
	struct rl_rule check_rule = pick_rule(&f, algo);
	struct rl_limiter to, from;

	if (rlm_id_of(algo) < 0) /* no stored form (a state owning memory other than sliding_log's) */
		return 0;
	if (rl_limiter_init(&to, algo, &check_rule, NULL, 0) != RL_OK)
		abort(); /* pick_rule makes valid rules only */
	from = to;

	/* the value's body: the rest of the input, after the stored rule for v3 */
	int64_t now = fin_range(&f, 8, 0, RL_TIME_MAX_NS);
	const unsigned char *body = f.p;
	size_t len = f.n;
	if (v3) {
		struct rl_rule stored;
		if (len < RLM_RULE)
			return 0;
		rlm_rule_get(body, &stored);
		body += RLM_RULE;
		len -= RLM_RULE;
		/* the module's test: a valid rule within its bounds, B = N for a window algorithm */
		if ((!algo->uses_burst && stored.burst != stored.limit) || stored.limit > RLM_LIMIT_MAX ||
		    stored.burst > RLM_BURST_MAX || rl_limiter_init(&from, algo, &stored, NULL, 0) != RL_OK)
			return 0;
	}
	_Alignas(16) unsigned char state[RL_ALGO_MAX_STATE] = { 0 };
	if (rlm_state_get(algo, &from.rule, version, body, len, state) != 0)
		return 0; /* refused: state owns nothing */
	if (rl_limiter_state_check(&from, state) != RL_OK) {
		rl_limiter_release(&from, state);
		return 0;
	}
	/* accepted: converted, then decided, every state left valid */
	if (rl_limiter_rerule(&from, &to, state, now) != RL_OK)
		abort();
	state_must_pass(&to, state);
	uint64_t seed = (uint64_t)now;
	for (int i = 0; i < 4; i++) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		int64_t t = (int64_t)((uint64_t)now + (seed >> 40) % ((uint64_t)check_rule.window_ns + 2));
		int64_t cost = i == 3 ? RLM_COST_MAX : (int64_t)(seed >> 60) + 1;
		struct rl_decision d;
		int rc = rl_limiter_check_n(&to, state, t > RL_TIME_MAX_NS ? RL_TIME_MAX_NS : t, cost, &d);
		if (rc < 0 && rc != RL_ENOMEM)
			abort();
		if (rc >= 0 && (d.remaining < 0 || d.retry_after_ns < 0 || d.reset_ns < 0 || d.delay_ns < 0))
			abort();
		state_must_pass(&to, state);
	}
	/* written back as the module writes it, and read again: the same state */
	size_t blen = rlm_state_len(algo, state);
	unsigned char *out = malloc(blen + 1);
	_Alignas(16) unsigned char again[RL_ALGO_MAX_STATE] = { 0 };
	if (!out)
		abort();
	rlm_state_put(algo, state, out);
	if (rlm_state_get(algo, &to.rule, RLM_VERSION, out, blen, again) != 0 || rl_limiter_state_check(&to, again) != RL_OK)
		abort();
	free(out);
	rl_limiter_release(&to, again);
	rl_limiter_release(&to, state);
	return 0;
}
