/*
 * compat.h - the library's calls that are not C11, in one private place.
 * Outside this header no file of algos/ names a glibc- or compiler-specific
 * function; each has a fallback for other platforms, stated here.
 */
#ifndef RATELAB_COMPAT_H
#define RATELAB_COMPAT_H

#include <stddef.h>

#if defined(__GLIBC__)
#include <malloc.h>
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

#endif
