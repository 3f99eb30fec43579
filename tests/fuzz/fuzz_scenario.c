/*
 * fuzz_scenario.c - the scenario loader on fuzzed INI bytes: it loads or
 * refuses with a "FILE:LINE: ..." message, never crashes; a scenario that
 * loads is valid for the engine (scenario.h's invariant: a valid rule,
 * 1 <= bucket, 1 <= duration <= RL_TIME_MAX_NS, at least one source with a
 * type, an algorithm chosen).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ratelab/status.h"
#include "sim_scenario.h"

static char path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	snprintf(path, sizeof(path), "/tmp/fuzz_scenario_%ld.ini", (long)getpid());
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sim_scenario sc;
	char msg[700];
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(data, 1, size, f) != size || fclose(f))
		abort();
	int rc = sim_scenario_load(path, &sc, msg, sizeof(msg));
	if (rc == RL_OK) {
		if (rl_rule_validate(&sc.rule, NULL, 0) || sc.bucket_ns < 1 || sc.duration_ns < 1 ||
		    sc.duration_ns > RL_TIME_MAX_NS || sc.ntraffic < 1 || !sc.algo_mask)
			abort();
		for (size_t i = 0; i < sc.ntraffic; i++)
			if (sc.traffic[i].type == SIM_TRAFFIC_UNSET)
				abort();
	} else if (rc != RL_EINVAL || strncmp(msg, path, strlen(path)) != 0 || msg[strlen(path)] != ':') {
		abort();
	}
	return 0;
}
