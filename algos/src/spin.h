/*
 * spin.h - the one-word lock of the store's buckets (store.c) and of
 * rl_limit's unnamed key (limit.c), private to the library.
 *
 * Taking it is one locked exchange; dropping it is a plain release store,
 * not a second locked operation, because nobody sleeps on it and so
 * dropping it wakes nobody. That is its point: a locked read-modify-write
 * is the costly part of a lock, and a pthread mutex in a process
 * that has ever had a second thread pays two (glibc drops the lock prefix
 * only while a process has had one thread). A waiter spins on plain loads,
 * so that it does not take the line away from the holder, and yields the
 * CPU every RL_SPINS_BEFORE_YIELD tries, so that a descheduled holder gets
 * to run. Meant for critical sections of one check of one state, not for
 * anything that blocks.
 */
#ifndef RATELAB_SPIN_H
#define RATELAB_SPIN_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

typedef _Atomic uint32_t rl__spin; /* 0 free, 1 held; a zeroed one is free */

enum { RL_SPINS_BEFORE_YIELD = 64 };

/* Waits for a lock another thread holds, then takes it. */
void rl__spin_wait(rl__spin *l);

/* One try: true iff l was free and is now held (a held l is written anyway). */
static inline bool rl__spin_take(rl__spin *l)
{
	return !atomic_exchange_explicit(l, 1, memory_order_acquire);
}

/* Takes l: at once when it is free, else after rl__spin_wait. */
static inline void rl__spin_lock(rl__spin *l)
{
	if (!rl__spin_take(l))
		rl__spin_wait(l);
}

/* Takes l iff it is free now; a held lock is only read, not written. */
static inline bool rl__spin_trylock(rl__spin *l)
{
	return !atomic_load_explicit(l, memory_order_relaxed) && rl__spin_take(l);
}

static inline void rl__spin_unlock(rl__spin *l)
{
	atomic_store_explicit(l, 0, memory_order_release);
}

#endif
