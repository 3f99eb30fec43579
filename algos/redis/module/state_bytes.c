/*
 * state_bytes.c - the byte form of a key's state (state_bytes.h). Plain
 * states are copied as they are; sliding_log's and the breaker's rings of
 * runs are written oldest run first and rebuilt into a fresh ring of the
 * least power of two (at least 4) that holds them, as the library's own
 * rings are shaped.
 */
#include "state_bytes.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ratelab/fixed_window.h"
#include "ratelab/gcra.h"
#include "ratelab/sliding_counter.h"
#include "ratelab/leaky_bucket.h"
#include "ratelab/sliding_log.h"
#include "ratelab/token_bucket.h"

enum { BREAKER_FIXED = 20, LOG_FIXED = 8, MIN_CAP = 4 };

static int name_id(const char *name)
{
	uint32_t h = 2166136261u;

	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = (h ^ *p) * 16777619u;
	h ^= h >> 16;
	h ^= h >> 8;
	return (int)(h & 0x7F);
}

/* The one algorithm whose state is not plain bytes and still has a byte form. */
static bool has_bytes(const struct rl_algo *algo)
{
	return !algo->release || algo == &rl_sliding_log_algo;
}

int rlm_id_of(const struct rl_algo *algo)
{
	return has_bytes(algo) ? name_id(algo->name) : -1;
}

/* The algorithm of each id, filled once by rlm_ids_init. */
static const struct rl_algo *by_id[0x80];

int rlm_ids_init(char *msg, size_t msg_len)
{
	size_t count;
	const struct rl_algo *const *all = rl_algo_all(&count);

	for (size_t i = 0; i < count; i++) {
		int id = name_id(all[i]->name);
		if (by_id[id] && by_id[id] != all[i]) {
			snprintf(msg, msg_len, "algorithms '%s' and '%s' share the stored state id %d: rename one",
				 by_id[id]->name, all[i]->name, id);
			return -1;
		}
		by_id[id] = all[i];
	}
	return 0;
}

const char *rlm_id_name(int id)
{
	if (id == RLM_BREAKER_ID)
		return "breaker";
	if (id == RLM_POLICY_ID)
		return "policy";
	return id >= 0 && id < 0x80 && by_id[id] ? by_id[id]->name : NULL;
}

int rlm_header_id(const unsigned char *buf, size_t len, int *version)
{
	if (len < RLM_HEADER || buf[0] != 'r' || buf[1] != 'l' ||
	    (buf[2] != RLM_VERSION && buf[2] != RLM_VERSION_V3 && buf[2] != RLM_VERSION_V2))
		return -1;
	*version = buf[2];
	return buf[3];
}

void rlm_rule_get(const unsigned char *in, struct rl_rule *rule)
{
	memcpy(&rule->limit, in, 8);
	memcpy(&rule->window_ns, in + 8, 8);
	memcpy(&rule->burst, in + 16, 8);
}

void rlm_rule_put(const struct rl_rule *rule, unsigned char *out)
{
	memcpy(out, &rule->limit, 8);
	memcpy(out + 8, &rule->window_ns, 8);
	memcpy(out + 16, &rule->burst, 8);
}

/*
 * Stored form v4 of the plain states, as the library kept them before its
 * counts were widened (rule.h): level_hi and fixed_window's count are the
 * low half of the library's u64 (the high half stored as the 4 zero
 * bytes: below 2^32 within RLM_BURST_MAX and RLM_LIMIT_MAX), so those two
 * are the library's bytes, as gcra's are ({tat_ns, last_ns, tat_frac},
 * 24 bytes; 16 in v2 and v3, without tat_frac); sliding_counter's is
 * {last_ns, end_ns, prev (u32), curr (u32)} (24 bytes).
 */
enum { COUNTER_V3 = 24, GCRA_V3 = 16 };

static size_t body_len(const struct rl_algo *algo, int version)
{
	if (algo == &rl_sliding_counter_algo)
		return COUNTER_V3;
	if (algo == &rl_gcra_algo && version < RLM_VERSION)
		return GCRA_V3;
	return algo->state_size;
}

/* The padding bytes of a plain state (after its last field): 0 when stored. */
static size_t padding_at(const struct rl_algo *algo)
{
	if (algo == &rl_token_bucket_algo || algo == &rl_leaky_bucket_algo)
		return offsetof(struct rl_level, level_hi) + sizeof(uint32_t);
	if (algo == &rl_fixed_window_algo)
		return offsetof(struct rl_fixed_window, count) + sizeof(uint32_t);
	return body_len(algo, RLM_VERSION);
}

void rlm_header_put(unsigned char *out, int id)
{
	out[0] = 'r';
	out[1] = 'l';
	out[2] = RLM_VERSION;
	out[3] = (unsigned char)id;
}

/* The runs of body (len bytes, a whole number of runs) into log. */
static int runs_get(struct rl_runlog *log, const unsigned char *body, size_t len)
{
	size_t n = len / RLM_RUN;
	uint64_t total = 0;
	int64_t prev = -1;

	if (len % RLM_RUN || n > UINT32_MAX / 2)
		return -1;
	for (size_t i = 0; i < n; i++) {
		int64_t at;
		uint32_t count;
		memcpy(&at, body + i * RLM_RUN, 8);
		memcpy(&count, body + i * RLM_RUN + 8, 4);
		total += count;
		if (at <= prev || at > RL_TIME_MAX_NS || count == 0 || total > UINT32_MAX)
			return -1;
		prev = at;
	}
	*log = (struct rl_runlog){ 0 };
	if (n == 0)
		return 0;
	uint32_t cap = MIN_CAP;
	while (cap < n)
		cap *= 2;
	log->runs = malloc((size_t)cap * sizeof(*log->runs));
	if (!log->runs)
		return -2;
	for (size_t i = 0; i < n; i++) {
		log->runs[i] = (struct rl_run){ 0 };
		memcpy(&log->runs[i].at, body + i * RLM_RUN, 8);
		uint32_t units;
		memcpy(&units, body + i * RLM_RUN + 8, 4);
		log->runs[i].count = units;
	}
	log->cap = cap;
	log->len = (uint32_t)n;
	log->total = total;
	return 0;
}

static void runs_put(const struct rl_runlog *log, unsigned char *out)
{
	for (uint32_t i = 0; i < log->len; i++) {
		const struct rl_run *r = &log->runs[(log->head + i) & (log->cap - 1)];
		memcpy(out + (size_t)i * RLM_RUN, &r->at, 8);
		uint32_t units = (uint32_t)r->count; /* a log holds below 2^32 units within RLM_LIMIT_MAX */
		memcpy(out + (size_t)i * RLM_RUN + 8, &units, 4);
	}
}

/*
 * A v2 or v3 gcra state (tat_ns, last_ns: the TAT of T = ceil(W / N) ns)
 * under rule, as v4's (state_bytes.h): damaged past v3's debt cap
 * min(2 * B * ceil(W / N), horizon) ns; the fraction 0, and the debt cut
 * to the exact cap min(2 * B * W, horizon * N) in 1/N ns (gcra.h), which
 * a v3 settle's debt may pass by less than 2 * B ns. B * ceil(W / N) <=
 * 10^30 and horizon * N < 2^103: exact in 128 bits.
 */
static int gcra_from_v3(const struct rl_rule *rule, struct rl_gcra *st)
{
	typedef unsigned __int128 u128;
	uint64_t n = (uint64_t)rule->limit, w = (uint64_t)rule->window_ns, b = (uint64_t)rule->burst;
	u128 horizon = (u128)RL_GCRA_HORIZON_NS, ceil_t = (w + n - 1) / n;
	u128 cap3 = 2 * (u128)b * ceil_t < horizon ? 2 * (u128)b * ceil_t : horizon;
	u128 cap = 2 * (u128)b * w < horizon * n ? 2 * (u128)b * w : horizon * n;

	st->tat_frac = 0;
	if (st->tat_ns <= st->last_ns || st->last_ns < 0)
		return 0; /* no debt, or a time the state check refuses */
	u128 debt = (u128)(uint64_t)(st->tat_ns - st->last_ns);
	if (debt > cap3)
		return -1;
	if (debt * n > cap) {
		st->tat_ns = st->last_ns + (int64_t)(cap / n);
		st->tat_frac = (uint64_t)(cap % n);
	}
	return 0;
}

int rlm_state_get(const struct rl_algo *algo, const struct rl_rule *rule, int version, const unsigned char *body,
		  size_t len, void *state)
{
	if (!algo->release) {
		if (len != body_len(algo, version))
			return -1;
		for (size_t i = padding_at(algo); i < len; i++)
			if (body[i])
				return -1;
		if (algo == &rl_sliding_counter_algo) {
			struct rl_sliding_counter *sc = state;
			uint32_t prev, curr;
			memcpy(&sc->last_ns, body, 8);
			memcpy(&sc->end_ns, body + 8, 8);
			memcpy(&prev, body + 16, 4);
			memcpy(&curr, body + 20, 4);
			sc->prev = prev;
			sc->curr = curr;
			return 0;
		}
		memcpy(state, body, len);
		if (algo == &rl_gcra_algo && version < RLM_VERSION)
			return gcra_from_v3(rule, state);
		return 0;
	}
	if (!has_bytes(algo) || len < LOG_FIXED)
		return -1;
	struct rl_sliding_log *sl = state;
	memcpy(&sl->last_ns, body, 8);
	if (sl->last_ns < 0 || sl->last_ns > RL_TIME_MAX_NS)
		return -1;
	return runs_get(&sl->log, body + LOG_FIXED, len - LOG_FIXED);
}

size_t rlm_state_len(const struct rl_algo *algo, const void *state)
{
	if (!algo->release)
		return body_len(algo, RLM_VERSION);
	if (!has_bytes(algo))
		return 0;
	return LOG_FIXED + (size_t)((const struct rl_sliding_log *)state)->log.len * RLM_RUN;
}

void rlm_state_put(const struct rl_algo *algo, const void *state, unsigned char *out)
{
	if (algo == &rl_sliding_counter_algo) {
		const struct rl_sliding_counter *sc = state;
		uint32_t prev = (uint32_t)sc->prev, curr = (uint32_t)sc->curr; /* <= N <= RLM_LIMIT_MAX */
		memcpy(out, &sc->last_ns, 8);
		memcpy(out + 8, &sc->end_ns, 8);
		memcpy(out + 16, &prev, 4);
		memcpy(out + 20, &curr, 4);
		return;
	}
	if (!algo->release) {
		size_t pad = padding_at(algo);
		memcpy(out, state, pad);
		memset(out + pad, 0, algo->state_size - pad);
		return;
	}
	const struct rl_sliding_log *sl = state;
	memcpy(out, &sl->last_ns, 8);
	runs_put(&sl->log, out + LOG_FIXED);
}

int rlm_breaker_get(struct rl_breaker *b, const unsigned char *body, size_t len)
{
	uint32_t state;

	if (len < BREAKER_FIXED)
		return -1;
	memcpy(&b->last, body, 8);
	memcpy(&b->opened_at, body + 8, 8);
	memcpy(&state, body + 16, 4);
	if (b->last < 0 || b->last > RL_TIME_MAX_NS || b->opened_at < 0 || b->opened_at > b->last ||
	    state > RL_BREAKER_HALF_OPEN)
		return -1;
	b->state = (enum rl_breaker_state)state;
	return runs_get(&b->admitted, body + BREAKER_FIXED, len - BREAKER_FIXED);
}

size_t rlm_breaker_len(const struct rl_breaker *b)
{
	return BREAKER_FIXED + (size_t)b->admitted.len * RLM_RUN;
}

void rlm_breaker_put(const struct rl_breaker *b, unsigned char *out)
{
	uint32_t state = (uint32_t)b->state;

	memcpy(out, &b->last, 8);
	memcpy(out + 8, &b->opened_at, 8);
	memcpy(out + 16, &state, 4);
	runs_put(&b->admitted, out + BREAKER_FIXED);
}
