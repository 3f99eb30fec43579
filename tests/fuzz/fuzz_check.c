/*
 * fuzz_check.c - every algorithm's check on a fuzzed rule and trace of
 * (time step, cost) requests to one key, against the contract of algo.h:
 *   - the verdict is the same with and without an answer (out = NULL);
 *   - admissions stay within the algorithm's own bound (max_admitted) over
 *     closed intervals of span 0, W - 1, W and 2W - 1 ending at each one;
 *   - retry_after_ns is exact: the same cost is rejected at t + d - 1 and
 *     admitted at t + d (on clones of the key);
 *   - at t + reset_ns the key answers as a fresh key does.
 * A clone is a fresh state that replays the key's requests, so states that
 * own memory (sliding_log) are cloned like the others.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "ratelab/algo.h"

#define MAX_REQ 64

struct req {
	int64_t t, cost;
};

static struct rl_limiter lim;

/* A broken contract: what, on which rule, then abort (the fuzzer keeps the input). */
static void broken(const char *what, int64_t t, int64_t cost, int64_t got, int64_t want)
{
	fprintf(stderr, "fuzz_check: %s: %s N=%" PRId64 " W=%" PRId64 " B=%" PRId64 " t=%" PRId64 " cost=%" PRId64
		": got %" PRId64 ", want %" PRId64 "\n", lim.algo->name, what, lim.rule.limit, lim.rule.window_ns,
		lim.rule.burst, t, cost, got, want);
	abort();
}
static struct req hist[MAX_REQ];
static size_t nhist;

/* A fresh state that has seen the key's requests so far. */
static void *clone_key(void)
{
	void *st = calloc(1, lim.algo->state_size);

	if (!st)
		abort();
	for (size_t i = 0; i < nhist; i++)
		if (rl_limiter_check_n(&lim, st, hist[i].t, hist[i].cost, NULL) < 0)
			abort();
	return st;
}

static void drop(void *st)
{
	rl_limiter_release(&lim, st);
	free(st);
}

static int check_on_clone(int64_t t, int64_t cost, struct rl_decision *d)
{
	void *st = clone_key();
	int v = rl_limiter_check_n(&lim, st, t, cost, d);

	drop(st);
	return v;
}

/* Units admitted at times in [from, to]. */
static int64_t admitted_in(const struct req *adm, size_t nadm, int64_t from, int64_t to)
{
	int64_t u = 0;

	for (size_t i = 0; i < nadm; i++)
		if (adm[i].t >= from && adm[i].t <= to)
			u += adm[i].cost;
	return u;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fin f = { data, size };
	size_t nalgos;
	const struct rl_algo *const *all = rl_algo_all(&nalgos);
	const struct rl_algo *algo = all[fin_u64(&f, 1) % nalgos];
	struct rl_rule rule = { fin_range(&f, 2, 1, 1000), fin_range(&f, 5, 1, 1000000000000), 0 };
	static struct req adm[MAX_REQ];
	size_t nadm = 0;

	rule.burst = algo->uses_burst ? fin_range(&f, 2, 1, 2000) : rule.limit;
	if (rl_limiter_init(&lim, algo, &rule, NULL, 0))
		abort(); /* every rule drawn is in range */
	void *with = calloc(1, algo->state_size), *without = calloc(1, algo->state_size);
	if (!with || !without)
		abort();
	int64_t t = fin_range(&f, 4, 0, 1000000000), last = 0, w = rule.window_ns;
	nhist = 0;
	while (f.n && nhist < MAX_REQ) {
		uint64_t op = fin_u64(&f, 1);
		int64_t step = fin_range(&f, 3, 0, 1 << 20) * (w / 4096 + 1) / 16;
		t = op & 0x80 ? t - step / 4 : t + step; /* some requests go back in time */
		t = t < 0 ? 0 : t;
		int64_t cost = op & 0x40 ? fin_range(&f, 3, 1, 3 * rule.limit) : (int64_t)(op & 3) + 1;
		struct rl_decision d;
		int v = rl_limiter_check_n(&lim, with, t, cost, &d);
		int v0 = rl_limiter_check_n(&lim, without, t, cost, NULL);
		if (v < 0 || v != v0)
			broken("verdict with and without an answer", t, cost, v, v0);
		/* a time before the last is decided as the last; a cost never admitted
		 * (retry "never") leaves the key as it was, its last time included */
		int64_t at = t > last ? t : last;
		bool never = !v && d.retry_after_ns == RL_DURATION_MAX_NS;
		last = never ? last : at;
		hist[nhist++] = (struct req){ t, cost };
		if (v) {
			adm[nadm++] = (struct req){ at, cost };
			for (int k = 0; k < 4; k++) {
				int64_t span = k == 0 ? 0 : k == 1 ? w - 1 : k == 2 ? w : 2 * w - 1;
				if (admitted_in(adm, nadm, at - span, at) > rl_limiter_max_admitted(&lim, span))
					broken("admissions over the own bound", at, span, admitted_in(adm, nadm, at - span, at),
					       rl_limiter_max_admitted(&lim, span));
			}
		} else if (d.retry_after_ns > 0 && d.retry_after_ns < RL_DURATION_MAX_NS &&
			   at + d.retry_after_ns <= RL_TIME_MAX_NS) {
			if (check_on_clone(at + d.retry_after_ns, cost, NULL) != RL_ALLOWED)
				broken("not admitted at t + retry_after", at, cost, d.retry_after_ns, 1);
			if (check_on_clone(at + d.retry_after_ns - 1, cost, NULL) != RL_REJECTED)
				broken("admitted at t + retry_after - 1", at, cost, d.retry_after_ns, 0);
		}
		if (d.reset_ns < RL_DURATION_MAX_NS && at + d.reset_ns <= RL_TIME_MAX_NS) {
			struct rl_decision back, fresh;
			void *st = calloc(1, algo->state_size);
			if (!st)
				abort();
			int vf = rl_limiter_check_n(&lim, st, at + d.reset_ns, 1, &fresh);
			drop(st);
			int vb = check_on_clone(at + d.reset_ns, 1, &back);
			if (vb != vf || back.remaining != fresh.remaining)
				broken("not a fresh key at t + reset (remaining)", at, d.reset_ns, back.remaining,
				       fresh.remaining);
		}
	}
	drop(with);
	drop(without);
	return 0;
}
