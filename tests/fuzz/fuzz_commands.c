/*
 * fuzz_commands.c - the replay, breaker and check commands in process, on
 * a fuzzed input file: whatever the bytes, a command ends with status 0
 * (done) or 2 (bad input, one message), never 1 (no machine failure is
 * possible here), a crash, a hang or a sanitizer report. The first byte
 * picks the command line; the rest is the file it reads.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli.h"

static char path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	snprintf(path, sizeof(path), "/tmp/fuzz_commands_%ld.in", (long)getpid());
	if (!freopen("/dev/null", "w", stdout))
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char *const lines[][12] = {
		{ "replay", "--algo", "token_bucket", "--limit", "3", "--window", "1s", "--explain", path, NULL },
		{ "replay", "--algo", "gcra", "--limit", "2", "--window", "10ms", "--burst", "4", "--headers", path, NULL },
		{ "replay", "--algo", "leaky_bucket", "--limit", "5", "--window", "1s", "--explain", path, NULL },
		{ "replay", "--algo", "fixed_window", "--limit", "1", "--window", "100ns", "--legacy-headers", path, NULL },
		{ "replay", "--algo", "sliding_log", "--limit", "4", "--window", "1ms", "--explain", path, NULL },
		{ "replay", "--algo", "sliding_counter", "--limit", "3", "--window", "1s", path, NULL },
		{ "breaker", "--limit", "3", "--window", "10", "--open", "5", path, NULL },
		{ "check", "--config", path, NULL },
	};
	size_t n = sizeof(lines) / sizeof(lines[0]);

	if (!size)
		return 0;
	char *const *argv = lines[data[0] % n];
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(data + 1, 1, size - 1, f) != size - 1 || fclose(f))
		abort();
	int argc = 0;
	while (argv[argc])
		argc++;
	int status = argv[0][0] == 'r'   ? cli_cmd_replay(argc - 1, (char **)argv + 1)
		     : argv[0][0] == 'b' ? cli_cmd_breaker(argc - 1, (char **)argv + 1)
					 : cli_cmd_check(argc - 1, (char **)argv + 1);
	if (status != 0 && status != 2)
		abort();
	return 0;
}
