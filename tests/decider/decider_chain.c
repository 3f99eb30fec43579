/*
 * decider_chain.c - a test decider for `ratelab sim --decider`
 * (sim_decider.h's protocol) whose every answer depends on every request
 * before it, of every key, in order: a hash chain over the lines read.
 * Two runs of the simulator that hand it different sequences (another
 * order across keys, a request sent that lockstep would not have sent)
 * diverge at once. Usage: decider_chain MODE, MODE one of
 *   line   answers each request and flushes it (the protocol's plain form)
 *   drain  answers every request it has read, then one write, before it
 *          waits for more input (a decider that reads in blocks)
 *   pad    as line, each answer padded with a tier= field to about 3000
 *          bytes, so that its stdout fills while the simulator writes
 * Exits 0 at the end of its input; 2 on a line that is not 'T KEY [COST]'.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint64_t h = 0x243f6a8885a308d3ULL;

static uint64_t mix(uint64_t x)
{
	uint64_t z = (h ^ x) + 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* The answer to one request line, appended to out; its length. */
static size_t answer(const char *line, char *out, int pad)
{
	long long t, key, cost = 1;
	int n = sscanf(line, "%lld %lld %lld", &t, &key, &cost);

	if (n < 2) {
		fprintf(stderr, "decider_chain: '%s': expected 'T KEY [COST]'\n", line);
		exit(2);
	}
	h = mix((uint64_t)t);
	h = mix((uint64_t)key);
	h = mix((uint64_t)cost);
	int v = (h >> 7) % 3 != 0;
	long long retry = (h >> 20) % 4 == 0 ? 1 : 1 + (long long)((h >> 32) % 500000000);
	size_t len = v ? (size_t)sprintf(out, "1") : (size_t)sprintf(out, "0 %lld", retry);
	if (pad) {
		memcpy(out + len, " tier=", 6);
		memset(out + len + 6, 'x', 3000);
		len += 3006;
	}
	out[len++] = '\n';
	return len;
}

int main(int argc, char **argv)
{
	const char *mode = argc == 2 ? argv[1] : "";
	int pad = strcmp(mode, "pad") == 0, drain = strcmp(mode, "drain") == 0;
	static char in[1 << 16], out[(1 << 16) * 2];
	size_t have = 0;

	if (!pad && !drain && strcmp(mode, "line") != 0) {
		fprintf(stderr, "usage: decider_chain line|drain|pad\n");
		return 2;
	}
	for (;;) {
		ssize_t n = read(0, in + have, sizeof(in) - 1 - have);
		if (n <= 0)
			return n < 0;
		have += (size_t)n;
		size_t olen = 0, used = 0;
		char *nl;
		while ((nl = memchr(in + used, '\n', have - used))) {
			*nl = '\0';
			olen += answer(in + used, out + olen, pad);
			used = (size_t)(nl - in) + 1;
			if (!drain || olen > sizeof(out) - 4096) { /* line and pad: each answer written at once */
				for (size_t off = 0; off < olen;) {
					ssize_t w = write(1, out + off, olen - off);
					if (w <= 0)
						return 1;
					off += (size_t)w;
				}
				olen = 0;
			}
		}
		for (size_t off = 0; off < olen;) {
			ssize_t w = write(1, out + off, olen - off);
			if (w <= 0)
				return 1;
			off += (size_t)w;
		}
		memmove(in, in + used, have - used);
		have -= used;
	}
}
