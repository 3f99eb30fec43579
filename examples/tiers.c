/*
 * tiers.c - per-client limits from a tiers file (tiers.ini beside this
 * file): each client id resolves to its tier ([clients], else the
 * default) and is decided in that tier's own store.
 *
 *   ./tiers tiers.ini   prints, per client, how many of 30 requests made
 *                       at one instant were admitted and in which tier
 */
#include <stdio.h>
#include <string.h>

#include <ratelab/limit.h>
#include <ratelab/registry.h>

int main(int argc, char **argv)
{
	static const char *const clients[] = { "carol", "alice", "sms-gateway", "10.0.0.1" };
	struct rl_registry *r;
	char err[256];
	int64_t now = rl_now_ns();

	if (argc != 2) {
		fprintf(stderr, "usage: tiers FILE.ini\n");
		return 2;
	}
	if (rl_registry_load(&r, argv[1], err, sizeof(err)) != RL_OK) {
		fprintf(stderr, "tiers: %s\n", err);
		return 2;
	}
	for (size_t i = 0; i < sizeof(clients) / sizeof(clients[0]); i++) {
		struct rl_answer ans = { 0 };
		int admitted = 0;

		for (int k = 0; k < 30; k++)
			if (rl_registry_check(r, clients[i], strlen(clients[i]), now, &ans) == RL_ALLOWED)
				admitted++;
		printf("%-12s tier %-8s admitted %d of 30\n", clients[i], ans.tier->name, admitted);
	}
	rl_registry_destroy(r);
	return 0;
}
