/*
 * state_bytes.h - a key's state as the bytes of a Redis string value, so
 * that RDB, AOF, replication and slot migration carry it as they carry any
 * string (no module type). Layout, every integer in the host's byte order
 * (little-endian on the platforms Redis runs on):
 *
 *   header   4 bytes: 'r', 'l', RLM_VERSION, the state's id: its
 *            algorithm's name hashed into [0, 0x7F] (rlm_id_of), so that
 *            a stored state keeps its meaning when the ops list is
 *            reordered or grows; RLM_BREAKER_ID for the breaker
 *   then, for an algorithm whose state is plain bytes (no release op):
 *            its state_size bytes exactly as the library keeps them;
 *   for sliding_log:
 *            last_ns (8), then one 12-byte run per distinct admitted
 *            time in the window, oldest first: at_ns (8), units (4);
 *   for the breaker:
 *            last (8), opened_at (8), state (4), then the CLOSED window's
 *            runs as above (time in the caller's unit, count).
 *
 * A value is accepted only with this header, the exact length its id
 * implies (plain states) or a whole number of runs, and runs that a state
 * could hold (times in [0, RL_TIME_MAX_NS], non-decreasing, counts >= 1,
 * their sum below 2^32); anything else is "not ratelab state".
 */
#ifndef RATELAB_STATE_BYTES_H
#define RATELAB_STATE_BYTES_H

#include <stddef.h>

#include "ratelab/algo.h"
#include "ratelab/breaker.h"

enum { RLM_HEADER = 4, RLM_VERSION = 2, RLM_BREAKER_ID = 0x80, RLM_RUN = 12 };

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

/* The name of the state id holds ("gcra", "breaker"), or NULL (after rlm_ids_init). */
const char *rlm_id_name(int id);

/*
 * The id a value's header names, or -1 when buf is not a ratelab value
 * (too short, another magic or version).
 */
int rlm_header_id(const unsigned char *buf, size_t len);

/* Writes the header for id into out (RLM_HEADER bytes). */
void rlm_header_put(unsigned char *out, int id);

/*
 * algo's state from the body (the bytes after the header) into state
 * (algo->state_size bytes, zeroed by the caller). 0, or -1 for a body of
 * the wrong shape, or -2 when out of memory; on failure state owns nothing.
 */
int rlm_state_get(const struct rl_algo *algo, const unsigned char *body, size_t len, void *state);

/* Body bytes for state; 0 when algo's state has no byte form (a state
 * owning memory other than sliding_log's). */
size_t rlm_state_len(const struct rl_algo *algo, const void *state);

/* Writes the body (rlm_state_len bytes). */
void rlm_state_put(const struct rl_algo *algo, const void *state, unsigned char *out);

/* The breaker's stored part (last, opened_at, state, runs) into b, which
 * rl_breaker_init made. 0, -1 (shape) or -2 (memory), as rlm_state_get. */
int rlm_breaker_get(struct rl_breaker *b, const unsigned char *body, size_t len);

size_t rlm_breaker_len(const struct rl_breaker *b);

void rlm_breaker_put(const struct rl_breaker *b, unsigned char *out);

#endif
