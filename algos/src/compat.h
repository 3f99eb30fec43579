/*
 * compat.h - the library's calls that are not C11, in one private place.
 * Outside this header no file of algos/ names a glibc- or compiler-specific
 * function; each has a fallback for other platforms, stated here.
 */
#ifndef RATELAB_COMPAT_H
#define RATELAB_COMPAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#if defined(__GLIBC__)
#include <malloc.h>
#include <sys/random.h>
#include <sys/types.h>
#endif

/*
 * Bytes the allocator holds for the block p, asked bytes long: on glibc
 * its chunk (malloc_usable_size, the request rounded up to 16 less the
 * header, plus the one-word size header before it); elsewhere the asked
 * bytes, a lower bound.
 */
static inline size_t rl_malloc_held(const void *p, size_t asked)
{
#if defined(__GLIBC__)
	(void)asked;
	return malloc_usable_size((void *)p) + sizeof(size_t);
#else
	return asked;
#endif
}

/*
 * A secret 64-bit seed from the system's random source: getrandom() on
 * glibc, else /dev/urandom. False when none could be had.
 */
static inline bool rl_random_seed(uint64_t *out)
{
#if defined(__GLIBC__)
	return getrandom(out, sizeof(*out), 0) == (ssize_t)sizeof(*out);
#else
	FILE *f = fopen("/dev/urandom", "rb");
	bool ok = f && fread(out, sizeof(*out), 1, f) == 1;
	if (f)
		fclose(f);
	return ok;
#endif
}

#endif
