/*
 * study_gen.c - `ratelab_study_gen N KEYS SPAN_S`: a synthetic access trace
 * for the study benchmark, 'T KEY' lines on stdout, deterministic (a fixed
 * splitmix64 stream, no seed option): N requests over SPAN_S seconds of
 * trace time at a steady overall rate, each from one of KEYS keys (IPv4
 * addresses): half the requests pick a key uniformly (every key is seen),
 * half with a skew of about 1/rank (rank drawn as (KEYS + 1)^u - 1, u
 * uniform), so that a few keys are heavy and most are light.
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fputs("usage: ratelab_study_gen N KEYS SPAN_S\n", stderr);
		return 2;
	}
	int64_t n = strtoll(argv[1], NULL, 10), keys = strtoll(argv[2], NULL, 10), span = strtoll(argv[3], NULL, 10);
	if (n < 1 || keys < 1 || keys > 16777216 || span < 1) {
		fputs("ratelab_study_gen: N >= 1, 1 <= KEYS <= 2^24, SPAN_S >= 1\n", stderr);
		return 2;
	}
	uint64_t s = 42;
	double step = (double)span * 1e9 / (double)n, lk = log((double)keys + 1);
	static char buf[1 << 16];
	setvbuf(stdout, buf, _IOFBF, sizeof(buf));
	for (int64_t i = 0; i < n; i++) {
		double u = (double)(next(&s) >> 11) / 9007199254740992.0;
		uint64_t r = next(&s), rank = r & 1 ? (r >> 1) % (uint64_t)keys : (uint64_t)(exp(u * lk) - 1);
		if (rank >= (uint64_t)keys)
			rank = (uint64_t)keys - 1;
		/* the rank's address, scattered so that heavy keys are not neighbours */
		uint32_t a = (uint32_t)(rank * 2654435761ULL % (uint64_t)keys);
		printf("%" PRId64 " 10.%u.%u.%u\n", (int64_t)((double)i * step), (a >> 16) & 255, (a >> 8) & 255, a & 255);
	}
	return fflush(stdout) == 0 ? 0 : 1;
}
