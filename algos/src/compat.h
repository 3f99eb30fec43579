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
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#endif

/* Unsigned 128-bit arithmetic: products such as limit * window_ns. */
__extension__ typedef unsigned __int128 rl__u128;

/*
 * The full product of two 64-bit words. The empty asm hides b's value
 * range from the optimiser: a compiler that knows b non-negative from a
 * range check before may widen it as a signed value and multiply the high
 * word too (sar, imul, add beside the mul); without the range it is one mul.
 */
static inline rl__u128 rl__mul_wide(uint64_t a, uint64_t b)
{
#if defined(__GNUC__)
	__asm__("" : "+r"(b));
#endif
	return (rl__u128)a * b;
}

/*
 * v, its value hidden from the optimiser. A compiler may fold x < v + 1
 * back into x <= v, which it turns into a flag, a byte and a negation (setae,
 * movzbl, neg) where the strict compare's borrow is the all-ones mask
 * itself (cmp, sbb): a bound passed through here keeps its strict compare.
 */
static inline uint64_t rl__opaque_u64(uint64_t v)
{
	__asm__("" : "+r"(v));
	return v;
}

/* Attributes: a hot helper always inlined, a cold one kept out of line;
 * printf-style checking. */
#define RL_ALWAYS_INLINE inline __attribute__((always_inline))
#define RL_NOINLINE __attribute__((noinline))
#define RL_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))

/* A prefetch of p for writing (a hint; no effect on results). */
#define RL_PREFETCH_WRITE(p) __builtin_prefetch((p), 1)

/* a * b into *out; true when the product overflows int64_t. */
static inline bool rl__mul_overflow(int64_t a, int64_t b, int64_t *out)
{
	return __builtin_mul_overflow(a, b, out);
}

/*
 * Bytes the allocator holds for the block p, asked bytes long: on glibc
 * its chunk (malloc_usable_size, the request rounded up to 16 less the
 * header, plus the one-word size header before it); elsewhere the asked
 * bytes, a lower bound.
 */
static inline size_t rl__malloc_held(const void *p, size_t asked)
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
static inline bool rl__random_seed(uint64_t *out)
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
 * The mask of the i < 16 with v[i] == x (bit i). With SSE2 (the x86-64
 * baseline) one compare per 4 words, the four results packed into one
 * 16-bit mask: no branch per word, so a key's position does not feed the
 * predictor. Elsewhere the plain loop, same answer.
 */
static inline unsigned rl__match_u32x16(const uint32_t *v, uint32_t x)
{
#if defined(__SSE2__)
	__m128i k = _mm_set1_epi32((int)x);
	const __m128i *p = (const __m128i *)(const void *)v;
	__m128i m01 = _mm_packs_epi32(_mm_cmpeq_epi32(_mm_loadu_si128(p), k),
				      _mm_cmpeq_epi32(_mm_loadu_si128(p + 1), k));
	__m128i m23 = _mm_packs_epi32(_mm_cmpeq_epi32(_mm_loadu_si128(p + 2), k),
				      _mm_cmpeq_epi32(_mm_loadu_si128(p + 3), k));

	return (unsigned)_mm_movemask_epi8(_mm_packs_epi16(m01, m23));
#else
	unsigned mask = 0;

	for (int i = 0; i < 16; i++)
		mask |= (unsigned)(v[i] == x) << i;
	return mask;
#endif
}

/*
 * rl__match_u32x16 in two 256-bit compares, for a function compiled with
 * RL_TARGET_AVX2 and called only where rl__has_avx2(): each compare's eight
 * results read as one sign bit per word (vmovmskps), fewer instructions
 * than SSE2's (whose unaligned loads cannot fold into its compares).
 * RL_TARGET_AVX2 also enables BMI1, which every AVX2 processor has (and
 * rl__has_avx2 checks): the compiler then knows that tzcnt's result needs no
 * widening into an index. (BMI2's mulx is left out: it makes the hash no
 * shorter.)
 * RL_NO_AVX2 builds without it (the tests of the SSE2 path).
 */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(RL_NO_AVX2)
#include <immintrin.h>
#define RL_HAVE_AVX2_PATH 1
#define RL_TARGET_AVX2 __attribute__((target("avx2,bmi")))
static RL_ALWAYS_INLINE RL_TARGET_AVX2 unsigned rl__match_u32x16_avx2(const uint32_t *v, uint32_t x)
{
	__m256i k = _mm256_set1_epi32((int)x);
	const __m256i *p = (const __m256i *)(const void *)v;
	unsigned lo = (unsigned)_mm256_movemask_ps(
		_mm256_castsi256_ps(_mm256_cmpeq_epi32(_mm256_loadu_si256(p), k)));
	unsigned hi = (unsigned)_mm256_movemask_ps(
		_mm256_castsi256_ps(_mm256_cmpeq_epi32(_mm256_loadu_si256(p + 1), k)));

	return lo | hi << 8;
}

/* True when this CPU (and its OS) runs RL_TARGET_AVX2 code. */
static inline bool rl__has_avx2(void)
{
	return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi");
}
#endif

/* The index of the lowest set bit of m != 0. */
static inline int rl__lowest_bit(unsigned m)
{
#if defined(__GNUC__)
	return __builtin_ctz(m);
#else
	int i = 0;

	while (!(m & 1u)) {
		m >>= 1;
		i++;
	}
	return i;
#endif
}

/*
 * A 16-byte compare-and-swap, where the machine has one: on x86-64 the
 * cmpxchg16b instruction (every x86-64 CPU but the very first; asked of
 * cpuid once, rl__cas16_supported). *p = desired iff *p == *expected, else
 * *expected = *p; true iff swapped. p is 16-byte aligned. Elsewhere
 * RL_HAVE_CAS16 is 0 and callers keep their lock.
 */
#if defined(__x86_64__) && defined(__GNUC__)
#define RL_HAVE_CAS16 1
static inline bool rl__cas16_supported(void)
{
	unsigned a, b, c, d;

	return __get_cpuid(1, &a, &b, &c, &d) && (c & bit_CMPXCHG16B);
}

/* For a caller of rl__cas16 that wants it inlined (only such a caller can). */
#define RL_TARGET_CX16 __attribute__((target("cx16")))

static inline RL_TARGET_CX16 bool rl__cas16(rl__u128 *p, rl__u128 *expected, rl__u128 desired)
{
	rl__u128 seen = __sync_val_compare_and_swap(p, *expected, desired);
	bool swapped = seen == *expected;

	*expected = seen;
	return swapped;
}

/* A guess of *p for rl__cas16: each 8-byte half read atomically, the pair maybe torn. */
static inline rl__u128 rl__load16_guess(const rl__u128 *p)
{
	const uint64_t *h = (const uint64_t *)(const void *)p;
	uint64_t lo = __atomic_load_n(&h[0], __ATOMIC_RELAXED), hi = __atomic_load_n(&h[1], __ATOMIC_RELAXED);

	return ((rl__u128)hi << 64) | lo;
}
#else
#define RL_HAVE_CAS16 0
#endif

#endif
