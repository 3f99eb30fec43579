/*
 * state_bytes.h - a key's state as the bytes of a Redis string value, so
 * that RDB, AOF, replication and slot migration carry it as they carry any
 * string (no module type). Stored form v4, every integer little-endian
 * (the host's order on the platforms Redis runs on), signed 64-bit unless
 * said:
 *
 *   header   4 bytes: 'r', 'l', RLM_VERSION (4), the state's id: its
 *            algorithm's name hashed into [0, 0x7F] (rlm_id_of), so that
 *            a stored state keeps its meaning when the ops list is
 *            reordered or grows; RLM_BREAKER_ID (0x80) for the breaker;
 *            RLM_POLICY_ID (0x81) for a policy (policy_bytes.h: its
 *            rules' parts follow, each a body as below)
 *   rule     for the six algorithms, 24 bytes: the rule the state was
 *            last written under, limit N, window_ns W, burst B (as struct
 *            rl_rule holds it: B = N for the window algorithms)
 *   then, for an algorithm whose state is plain bytes (no release op):
 *            its state_size bytes exactly as the library keeps them, the
 *            padding written as 0 (struct rl_level: last_ns, level_lo,
 *            level_hi (u32), 4 zero bytes; struct rl_gcra: tat_ns,
 *            last_ns, tat_frac (u64, the TAT past tat_ns in 1/N ns,
 *            below N); struct rl_fixed_window: last_ns, end_ns, count
 *            (u32), 4 zero bytes; struct rl_sliding_counter: last_ns,
 *            end_ns, prev (u32), curr (u32)): the library's layout
 *            before its counts were widened to 64 bits, which holds
 *            every state within RLM_LIMIT_MAX and RLM_BURST_MAX;
 *   for sliding_log:
 *            last_ns (8), then one 12-byte run per distinct admitted
 *            time in the window, oldest first: at_ns (8), units (u32);
 *   for the breaker (no rule):
 *            last (8), opened_at (8), state (4), then the CLOSED window's
 *            runs as above (time in the caller's unit, count).
 *
 * The version names the whole form: v4 is v3 with gcra's tat_frac (T =
 * W / N exact, gcra.h), every other body unchanged, so every value is
 * written back as v4, and a module of v3 answers every v4 value "holds a
 * string of L bytes that is not ratelab state" (a downgrade deletes the
 * keys first). A v3 value is read as v4 but for
 * gcra's body, {tat_ns, last_ns} (16 bytes, the TAT of T = ceil(W / N)
 * ns): fraction 0, damaged past v3's debt cap min(2 * B * ceil(W / N),
 * horizon) ns, and the debt cut to v4's exact cap (gcra.h), which a v3
 * settle may have passed by less than 2 * B ns. A v2 value (v3 without
 * the rule) of the right shape is read as v3 written under the rule of
 * the check that reads it. Both are written back as v4. Otherwise a value is accepted only with this header, the exact
 * length its id implies (plain states) or a whole number of runs, zero
 * padding, and runs that a state could hold (times in [0, RL_TIME_MAX_NS],
 * increasing, counts >= 1, their sum below 2^32); the module then checks
 * every field against the stored rule (rl_limiter_state_check). Anything
 * else with the magic and the id is a damaged state.
 */
#ifndef RATELAB_STATE_BYTES_H
#define RATELAB_STATE_BYTES_H

#include <stddef.h>

#include "ratelab/algo.h"
#include "ratelab/breaker.h"

/*
 * The Redis backend's own bounds (module and scripts), below the
 * library's (rule.h, 10^12): stored form v4 and the scripts' arithmetic
 * hold counts below 2^32 and costs to 10^9. A rule or cost beyond them is
 * refused with the usual words ("limit '1000001' is not an integer in
 * [1, 1000000]") until a stored form v4 widens them.
 */
#define RLM_LIMIT_MAX 1000000LL /* redis.h's RL_REDIS_LIMIT_MAX, and the bursts' and costs' below */
#define RLM_BURST_MAX 1000000000LL
#define RLM_COST_MAX 1000000000LL

enum { RLM_HEADER = 4, RLM_VERSION = 4, RLM_VERSION_V3 = 3, RLM_VERSION_V2 = 2, RLM_BREAKER_ID = 0x80, RLM_POLICY_ID = 0x81, RLM_RUN = 12, RLM_RULE = 24 };

/* The id stored for algo: FNV-1a of its name folded to 7 bits; -1 when
 * algo's state has no byte form (it owns memory and is not sliding_log). */
int rlm_id_of(const struct rl_algo *algo);

/*
 * Maps each id to its algorithm, once (MODULE LOAD). 0 when every algorithm
 * of rl_algo_all() has its own id; else -1 with the two names that share
 * one in msg (the load then fails: a fork's new algorithm would read
 * another's stored states).
 */
int rlm_ids_init(char *msg, size_t msg_len);

/* The name of the state id holds ("gcra", "breaker", "policy"), or NULL (after rlm_ids_init). */
const char *rlm_id_name(int id);

/*
 * The id a value's header names, or -1 when buf is not a ratelab value
 * (too short, another magic or version); *version receives RLM_VERSION or
 * RLM_VERSION_V3 or RLM_VERSION_V2.
 */
int rlm_header_id(const unsigned char *buf, size_t len, int *version);

/* The stored rule (RLM_RULE bytes) and back. */
void rlm_rule_get(const unsigned char *in, struct rl_rule *rule);
void rlm_rule_put(const struct rl_rule *rule, unsigned char *out);

/* Writes the header for id into out (RLM_HEADER bytes). */
void rlm_header_put(unsigned char *out, int id);

/*
 * algo's state from the body (the bytes after the header and rule) of a
 * value of stored form version, written under rule, into state
 * (algo->state_size bytes, zeroed by the caller). 0, or -1 for a body of
 * the wrong shape (or a v2/v3 gcra debt past v3's cap), or -2 when out of
 * memory; on failure state owns nothing. A v2/v3 gcra state is read as
 * v4's (above): the rule is used for that only.
 */
int rlm_state_get(const struct rl_algo *algo, const struct rl_rule *rule, int version, const unsigned char *body,
		  size_t len, void *state);

/* Body bytes for state; 0 when algo's state has no byte form (a state
 * owning memory other than sliding_log's). */
size_t rlm_state_len(const struct rl_algo *algo, const void *state);

/* Writes the body (rlm_state_len bytes), padding as 0. */
void rlm_state_put(const struct rl_algo *algo, const void *state, unsigned char *out);

/* The breaker's stored part (last, opened_at, state, runs) into b, which
 * rl_breaker_init made. 0, -1 (shape) or -2 (memory), as rlm_state_get. */
int rlm_breaker_get(struct rl_breaker *b, const unsigned char *body, size_t len);

size_t rlm_breaker_len(const struct rl_breaker *b);

void rlm_breaker_put(const struct rl_breaker *b, unsigned char *out);

#endif
