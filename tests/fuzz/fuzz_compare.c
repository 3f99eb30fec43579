/*
 * fuzz_compare.c - what `ratelab compare` reads (bench_cmp.h, json.h) on a
 * fuzzed file: whatever the bytes, sim_json_parse returns 0 or -1 with a
 * line, an offset within the text and a message holding no control byte, and sim_bench_load returns
 * SIM_BENCH_OK (a run of named benchmarks, each with positive finite
 * times) or SIM_BENCH_BAD (said), never SIM_BENCH_IO, a crash, a hang or
 * a sanitizer report; a run read is compared with itself (every verdict
 * ~) when each benchmark has 2 repetitions or more.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_cmp.h"
#include "json.h"

static char path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	snprintf(path, sizeof(path), "/tmp/fuzz_compare_%ld.json", (long)getpid());
	return 0;
}

static void clean(const char *msg)
{
	if (!*msg)
		abort();
	for (const unsigned char *c = (const unsigned char *)msg; *c; c++)
		if (*c < 0x20 || *c == 0x7f)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char msg[1024];
	struct sim_json v;
	struct sim_json_error err;
	struct sim_bench_run run;
	struct sim_bench_cmp cmp;

	int parsed = sim_json_parse((const char *)data, size, &v, &err);
	if (parsed != 0 && parsed != -1)
		abort();
	if (parsed) {
		clean(err.what);
		/* line 0 is out of memory only */
		if (err.offset > size || (err.line < 1 && strcmp(err.what, "out of memory") != 0))
			abort();
	}
	sim_json_free(&v);

	FILE *f = fopen(path, "wb");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f))
		abort();
	int got = sim_bench_load(path, &run, msg, sizeof(msg));
	if (got == SIM_BENCH_BAD) {
		clean(msg);
	} else if (got != SIM_BENCH_OK) {
		abort();
	} else {
		bool two = true;
		for (size_t i = 0; i < run.n; i++) {
			if (!run.b[i].name[0] || run.b[i].n == 0)
				abort();
			for (size_t k = 0; k < run.b[i].n; k++)
				if (!(run.b[i].ns[k] > 0) || !isfinite(run.b[i].ns[k]))
					abort();
			two = two && run.b[i].n >= 2;
		}
		got = sim_bench_compare(&run, &run, 0.05, 2, "OLD", "NEW", &cmp, msg, sizeof(msg));
		if (got != (two ? SIM_BENCH_OK : SIM_BENCH_BAD))
			abort();
		for (size_t i = 0; got == SIM_BENCH_OK && i < cmp.n; i++)
			if (cmp.rows[i].verdict != SIM_VERDICT_SAME || cmp.rows[i].p_value != 1)
				abort();
		sim_bench_cmp_free(&cmp);
	}
	sim_bench_run_free(&run);
	unlink(path);
	return 0;
}
