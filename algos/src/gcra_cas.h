/*
 * gcra_cas.h - gcra on a state shared by threads without a lock, where the
 * machine has a 16-byte compare-and-swap (compat.h's RL_HAVE_CAS16 and
 * rl__cas16_supported()); private to the library, for rl_limit's unnamed
 * key (limit.c).
 */
#ifndef RATELAB_GCRA_CAS_H
#define RATELAB_GCRA_CAS_H

#include "compat.h"
#include "ratelab/gcra.h"

#if RL_HAVE_CAS16
/*
 * One request of cost 1 (rl__gcra_check) on the struct rl_gcra at word,
 * 16-byte aligned, which other threads may be checking at the same time:
 * decided on a copy and written back by one 16-byte compare-and-swap; a
 * failed swap means another check took effect since the read, and this
 * one is decided again on the state that check left. Every check thus
 * takes effect at its own successful swap, on the state the one before it
 * left: exactly one thread's decisions, in the order of the swaps. A check
 * always swaps (its last seen time may change), so a torn guess is never
 * taken for a state. Lock-free: some check always completes. out (may be
 * NULL) receives the successful attempt's answer.
 */
int rl__gcra_check_cas16(const struct rl_limiter *lim, rl__u128 *word, int64_t now_ns,
			struct rl_decision *out);
#endif

#endif
