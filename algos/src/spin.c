/*
 * spin.c - the slow half of spin.h's lock: waiting for its holder. Out of
 * line, so that the uncontended lock is the exchange and one branch.
 */
#include "spin.h"

#include <threads.h>

void rl__spin_wait(rl__spin *l)
{
	unsigned spins = 0;

	do
		while (atomic_load_explicit(l, memory_order_relaxed))
			if (++spins % RL_SPINS_BEFORE_YIELD == 0)
				thrd_yield();
	while (!rl__spin_take(l));
}
