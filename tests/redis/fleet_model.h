/*
 * fleet_model.h - the local-plus-global fleet in process, with its store
 * modelled in memory (as sim/engine/sim_fleet.c runs it), and a seeded random
 * trace run through real rl_fleet_nodes and the model side by side: the
 * Redis tests (one server, a cluster) check that both decide alike.
 * Include after <cmocka.h>.
 */
#ifndef RATELAB_TEST_LG_MODEL_H
#define RATELAB_TEST_LG_MODEL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ratelab/fleet.h"
#include "ratelab/fleet_node.h"
#include "test_rng.h"

/* The trace: 3 nodes, 4 keys, N = 50 per 10 s, S = 700 ms, costs 1..3,
 * gaps up to 200 ms, 3000 requests (about 30 windows). Logical time runs
 * far faster than real time here, while Redis counts a window's TTL (2W)
 * in real time: W = 10 s keeps every window alive for the whole run. */
enum { LGM_KEYS = 4, LGM_NODES = 3, LGM_WINDOWS = 64, LGM_REQUESTS = 3000, LGM_LIMIT = 50 };
#define LGM_W 10000000000LL
#define LGM_S 700000000LL

struct lgm_store {
	int64_t units[LGM_KEYS][LGM_WINDOWS][LGM_NODES]; /* node j's units of key k in window w */
};

struct lgm_node {
	struct rl_fleet_state st[LGM_KEYS];
	int64_t next_sync;
	bool synced;
};

/* Node j's sync in the model: write its units, read the total. */
static inline void lgm_sync(const struct rl_fleet *lg, struct lgm_node *m, int j, struct lgm_store *store,
			    int64_t now)
{
	for (int k = 0; k < LGM_KEYS; k++) {
		int64_t w, mine, total = 0;
		if (!rl_fleet_sync_take(lg, &m->st[k], now, &w, &mine)) {
			memset(&m->st[k], 0, sizeof(m->st[k])); /* the node drops it */
			continue;
		}
		assert_true(w < LGM_WINDOWS);
		store->units[k][w][j] = mine;
		for (int i = 0; i < LGM_NODES; i++)
			total += store->units[k][w][i];
		rl_fleet_sync_apply(lg, &m->st[k], w, mine, total);
	}
	m->next_sync = now + LGM_S;
	m->synced = true;
}

/*
 * Runs the seeded trace (random node, key "keyK", cost, time) through
 * n[j] (made from lg[j], sync interval LGM_S) and the model, failing on
 * the first verdict or remaining that differs; then syncs every node
 * (each must succeed) and returns the last time. store receives the
 * model's counts, which the store behind n must now hold too.
 */
static inline int64_t lgm_compare(struct rl_fleet_node **n, const struct rl_fleet *lg, uint64_t s0,
				  struct lgm_store *store)
{
	struct lgm_node m[LGM_NODES];
	uint64_t s = s0;
	int64_t t = 0;

	memset(m, 0, sizeof(m));
	memset(store, 0, sizeof(*store));
	for (int i = 0; i < LGM_REQUESTS; i++) {
		t += (int64_t)(t_splitmix(&s) % 200000000);
		int j = (int)(t_splitmix(&s) % LGM_NODES), k = (int)(t_splitmix(&s) % LGM_KEYS);
		int64_t c = 1 + (int64_t)(t_splitmix(&s) % 3);
		char key[8];
		struct rl_decision dn, dm;

		snprintf(key, sizeof(key), "key%d", k);
		if (!m[j].synced || t >= m[j].next_sync)
			lgm_sync(&lg[j], &m[j], j, store, t);
		int want = rl_fleet_check(&lg[j], &m[j].st[k], t, c, &dm);
		int got = rl_fleet_node_check(n[j], key, strlen(key), t, c, &dn);
		if (got != want || dn.remaining != dm.remaining)
			fail_msg("seed %llu request %d (node %d %s t %lld c %lld): got %d rem %lld, model %d rem %lld",
				 (unsigned long long)s0, i, j, key, (long long)t, (long long)c, got,
				 (long long)dn.remaining, want, (long long)dm.remaining);
	}
	for (int j = 0; j < LGM_NODES; j++) {
		bool failed = true;
		assert_int_equal(rl_fleet_node_sync(n[j], t, &failed), RL_OK);
		assert_false(failed);
		lgm_sync(&lg[j], &m[j], j, store, t);
	}
	return t;
}

#endif
