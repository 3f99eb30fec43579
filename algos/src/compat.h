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
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
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

/*
 * The least i < 16 with v[i] == x, or -1. With SSE2 (the x86-64 baseline)
 * one compare per 4 words, the four results packed into one 16-bit mask:
 * no branch per word, so a key's position does not feed the predictor.
 * Elsewhere the plain loop, same answer.
 */
static inline int rl_find_u32x16(const uint32_t *v, uint32_t x)
{
#if defined(__SSE2__)
	__m128i k = _mm_set1_epi32((int)x);
	const __m128i *p = (const __m128i *)(const void *)v;
	__m128i m01 = _mm_packs_epi32(_mm_cmpeq_epi32(_mm_loadu_si128(p), k),
				      _mm_cmpeq_epi32(_mm_loadu_si128(p + 1), k));
	__m128i m23 = _mm_packs_epi32(_mm_cmpeq_epi32(_mm_loadu_si128(p + 2), k),
				      _mm_cmpeq_epi32(_mm_loadu_si128(p + 3), k));
	unsigned mask = (unsigned)_mm_movemask_epi8(_mm_packs_epi16(m01, m23));

	return mask ? __builtin_ctz(mask) : -1;
#else
	for (int i = 0; i < 16; i++)
		if (v[i] == x)
			return i;
	return -1;
#endif
}

/*
 * A 16-byte compare-and-swap, where the machine has one: on x86-64 the
 * cmpxchg16b instruction (every x86-64 CPU but the very first; asked of
 * cpuid once, rl_cas16_supported). *p = desired iff *p == *expected, else
 * *expected = *p; true iff swapped. p is 16-byte aligned. Elsewhere
 * RL_HAVE_CAS16 is 0 and callers keep their lock.
 */
#if defined(__x86_64__) && defined(__GNUC__)
#define RL_HAVE_CAS16 1
static inline bool rl_cas16_supported(void)
{
	unsigned a, b, c, d;

	return __get_cpuid(1, &a, &b, &c, &d) && (c & bit_CMPXCHG16B);
}

static inline __attribute__((target("cx16"))) bool
rl_cas16(unsigned __int128 *p, unsigned __int128 *expected, unsigned __int128 desired)
{
	unsigned __int128 seen = __sync_val_compare_and_swap(p, *expected, desired);
	bool swapped = seen == *expected;

	*expected = seen;
	return swapped;
}

/* A guess of *p for rl_cas16: each 8-byte half read atomically, the pair maybe torn. */
static inline unsigned __int128 rl_load16_guess(const unsigned __int128 *p)
{
	const uint64_t *h = (const uint64_t *)(const void *)p;
	uint64_t lo = __atomic_load_n(&h[0], __ATOMIC_RELAXED), hi = __atomic_load_n(&h[1], __ATOMIC_RELAXED);

	return ((unsigned __int128)hi << 64) | lo;
}
#else
#define RL_HAVE_CAS16 0
#endif

#endif
