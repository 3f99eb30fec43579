/*
 * fixed_random.c - getrandom() returning the same bytes on every call, for
 * the performance gate only: linked into perf_driver ahead of the C
 * library's. The library draws its hash seeds (the registry's stores,
 * rl_limit's store) from getrandom(), and a different seed places keys
 * differently, so the instruction counts would vary from run to run; with
 * this one they repeat exactly. (`ratelab` itself runs with
 * RATELAB_HASH_SEED set, perf.py CLIENT_ENV.)
 *
 * Never part of the library or the program: a secret seed is what keeps
 * the key hash's collisions out of a client's reach (store.h).
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

ssize_t getrandom(void *buf, size_t len, unsigned int flags);

ssize_t getrandom(void *buf, size_t len, unsigned int flags)
{
	uint64_t s = 0x5eed;
	unsigned char *p = buf;

	(void)flags;
	for (size_t i = 0; i < len; i++) {
		/* splitmix64, one byte per step */
		uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
		p[i] = (unsigned char)(z ^ (z >> 31));
	}
	return (ssize_t)len;
}
