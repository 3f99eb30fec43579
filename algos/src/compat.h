/*
 * compat.h - what ratelab uses beyond C11, in one private place (the
 * library, and the simulator engine built on it). Outside this header no
 * file names a glibc- or compiler-specific call or type. Compilers: GCC
 * and Clang (unsigned __int128 and the builtins below; any other is
 * refused here). C library: glibc, or any POSIX one through the stated
 * fallbacks.
 */
#ifndef RATELAB_COMPAT_H
#define RATELAB_COMPAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#if !defined(__GNUC__) || !defined(__SIZEOF_INT128__)
#error "ratelab needs GCC or Clang on a 64-bit target (unsigned __int128)"
#endif

#if defined(__GLIBC__)
#include <malloc.h>
#include <sys/random.h>
#include <sys/types.h>
#endif

/* Unsigned 128-bit arithmetic: products such as limit * window_ns. */
__extension__ typedef unsigned __int128 rl_u128;

/* Attributes: a hot helper always inlined, a cold one kept out of line;
 * printf-style checking. */
#define RL_ALWAYS_INLINE inline __attribute__((always_inline))
#define RL_NOINLINE __attribute__((noinline))
#define RL_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))

/* A prefetch of p for writing (a hint; no effect on results). */
#define RL_PREFETCH_WRITE(p) __builtin_prefetch((p), 1)

/* a * b into *out; true when the product overflows int64_t. */
static inline bool rl_mul_overflow(int64_t a, int64_t b, int64_t *out)
{
	return __builtin_mul_overflow(a, b, out);
}

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
