/*
 * fuzz_input.h - reading a fuzzer's bytes as numbers: every read succeeds
 * (zeros once the bytes run out), so every input is some valid program.
 */
#ifndef RATELAB_FUZZ_INPUT_H
#define RATELAB_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>

struct fin {
	const uint8_t *p;
	size_t n;
};

static inline uint64_t fin_u64(struct fin *f, int bytes)
{
	uint64_t v = 0;

	for (int i = 0; i < bytes; i++) {
		v = v << 8 | (f->n ? *f->p : 0);
		if (f->n) {
			f->p++;
			f->n--;
		}
	}
	return v;
}

/* A value in [lo, hi] (hi - lo < 2^63) from bytes bytes. */
static inline int64_t fin_range(struct fin *f, int bytes, int64_t lo, int64_t hi)
{
	return lo + (int64_t)(fin_u64(f, bytes) % ((uint64_t)(hi - lo) + 1));
}

#endif
