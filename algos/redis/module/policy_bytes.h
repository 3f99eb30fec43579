/*
 * policy_bytes.h - a policy's per-key state (policy.h) as the bytes of one
 * Redis string, in the spirit of stored form v4 (state_bytes.h): a header,
 * then each rule's part exactly as a one-rule value's body, so that every
 * byte of a rule's state is the one state_bytes.c writes for it (a change
 * of the library's state fields flows through). Little-endian:
 *
 *   header  4 bytes: 'r', 'l', RLM_VERSION (4), RLM_POLICY_ID (0x81); a
 *           v3 policy value is read as v4, its parts as v3 bodies (gcra's
 *           16 bytes, state_bytes.h), and written back as v4
 *   policy  12 bytes: the algorithm's state id (u8, rlm_id_of), the rule
 *           count k (u8, 1..RL_POLICY_MAX_RULES), the ':units' mask the
 *           value was written under (u8, bit i for rule i + 1), a zero
 *           byte, then the key's last seen time last_ns (i64, in [0,
 *           RL_TIME_MAX_NS])
 *   rules   k parts in the policy's order, each its length L (u32) and L
 *           bytes: the rule the state was last written under (24 bytes,
 *           B = N for a window algorithm), then that rule's state as
 *           RATELAB.CHECK stores it after the rule
 *
 * Nothing may follow the last part. A body of another shape is a damaged
 * state; each part is then read and checked as RATELAB.CHECK reads a
 * value's body (the stored rule valid, the fields within it).
 */
#ifndef RATELAB_POLICY_BYTES_H
#define RATELAB_POLICY_BYTES_H

#include <stddef.h>
#include <stdint.h>

#include "ratelab/policy.h"
#include "state_bytes.h"

enum { RLM_POLICY_HEAD = 12, RLM_POLICY_PART_LEN = 4 }; /* RLM_POLICY_ID: state_bytes.h */

/* A policy value's body (after the 4-byte header), split; parts point into it. */
struct rlm_policy_value {
	int algo_id;       /* the algorithm's state id */
	size_t count;      /* rules, 1..RL_POLICY_MAX_RULES */
	unsigned units;    /* the ':units' mask written */
	int64_t last_ns;   /* the key's last seen time, ns */
	const unsigned char *part[RL_POLICY_MAX_RULES];
	size_t part_len[RL_POLICY_MAX_RULES];
};

/* Splits body (len bytes): 0, or -1 for a body of the wrong shape (above). */
int rlm_policy_split(const unsigned char *body, size_t len, struct rlm_policy_value *v);

/* The body's length for state, a policy state of pl (policy.h). */
size_t rlm_policy_len(const struct rl_policy_limiter *pl, void *state);

/* Writes the body (rlm_policy_len bytes) for state under pl's rules, algorithm id algo_id. */
void rlm_policy_put(const struct rl_policy_limiter *pl, void *state, int algo_id, unsigned char *out);

#endif
