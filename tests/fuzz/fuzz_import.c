/*
 * fuzz_import.c - the importer (import.h) on a fuzzed log file: whatever
 * the bytes, sim_import ends with status 0 (a trace whose times are in
 * order, relative to the first, and whose keys are in range and hold no
 * blank) or 2 (bad input, said), never 1, a crash, a hang or a sanitizer
 * report. The first byte picks the format and options; the rest is the
 * file (sometimes gzip-compressed data, which zlib must refuse cleanly).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "import.h"

static char path[64];
static FILE *devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	snprintf(path, sizeof(path), "/tmp/fuzz_import_%ld.in", (long)getpid());
	if (!(devnull = fopen("/dev/null", "w")))
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const formats[] = { NULL, "combined", "jsonl", "csv", "trace", "alb", "caddy",
					       "vhost_combined", "haproxy" };
	static const char *const keys[] = { NULL, "user", "path", "ip+path" };

	if (!size)
		return 0;
	uint8_t pick = data[0];
	struct sim_import_opts o = { .format = formats[pick % 9], .spread = pick & 0x08, .absolute = pick & 0x10,
				     .strict = pick & 0x20, .tz = pick & 0x04 ? "-01:30" : NULL };
	if (o.format && (!strcmp(o.format, "combined") || !strcmp(o.format, "vhost_combined")))
		o.key = keys[(pick >> 6) & 3];
	if (o.format && (!strcmp(o.format, "alb") || !strcmp(o.format, "haproxy")) && ((pick >> 6) & 3) != 1)
		o.key = keys[(pick >> 6) & 3];
	if (o.format && (!strcmp(o.format, "jsonl") || !strcmp(o.format, "csv") || !strcmp(o.format, "caddy"))) {
		o.time_unit = pick & 0x40 ? "ms" : NULL;
		o.cost_field = pick & 0x80 ? "c" : NULL;
		o.key_field = pick & 0x02 ? "a.b" : NULL;
		o.time_format = pick & 0x01 && !o.time_unit ? "%d/%b/%Y:%H:%M:%S %z" : NULL;
	}
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(data + 1, 1, size - 1, f) != size - 1 || fclose(f))
		abort();
	const char *paths[] = { path };
	struct sim_trace t;
	int status = sim_import(&o, paths, 1, &t, devnull);
	if (status != 0 && status != 2)
		abort();
	for (size_t i = 0; i < t.n; i++) {
		if (t.key[i] >= t.nkeys || t.cost[i] < 1 || t.t_ns[i] < 0 || (i && t.t_ns[i] < t.t_ns[i - 1]))
			abort();
		if (!o.absolute && t.t_ns[0] != 0)
			abort();
	}
	for (size_t k = 0; k < t.nkeys; k++)
		for (const char *p = t.key_name[k]; *p; p++)
			if ((unsigned char)*p <= ' ' || *p == 0x7f)
				abort();
	sim_trace_free(&t);
	return 0;
}
