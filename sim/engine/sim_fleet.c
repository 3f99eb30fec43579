/*
 * sim_fleet.c - model: sim_fleet.h. The fleet's states (k x K
 * rl_fleet_state), a store of per-node counts for each key's recent windows,
 * a binary heap of the nodes' next sync times, and the reference counts
 * per key on true time.
 *
 * Invariants: node j's key list holds exactly the keys whose state at j
 * is not fresh (epoch != 0); a store slot's total is the sum of its
 * per-node counts; ref_offered[i] and ref_admitted[i] count the requests
 * of key i in the true window ref_win[i] and the fleet's admissions of
 * them, settled into the result when the window closes; syncs run in
 * time order and before a request at the same instant.
 */
#include "sim_fleet.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ratelab/fleet.h"
#include "sim_rng.h"

enum { RING = 4 }; /* windows kept per key: nodes are at most one window apart */

struct sim_fleet_config sim_fleet_defaults(void)
{
	struct sim_fleet_config c = {
		.limit = 100,
		.window_ns = 1000000000LL,
		.nodes = 4,
		.sync_ns = 10000000LL,
		.routing = SIM_FLEET_RANDOM,
		.keys = 20,
		.load_pct = 125,
		.duration_ns = 60000000000LL,
		.seed = 1,
	};
	return c;
}

struct slot {
	int64_t window; /* -1: empty */
	int64_t total;  /* units: sum of the node counts below */
};

struct fleet {
	const struct sim_fleet_config *c;
	struct rl_fleet *lg; /* node j's: its index j */
	int k, K;
	struct rl_fleet_state *st;  /* [j * K + i] */
	int *keys;               /* node j's non-fresh keys: keys[j * K + 0 .. nkeys[j]) */
	int *nkeys;
	struct slot *slots;      /* [i * RING + r] */
	int64_t *counts;         /* [(i * RING + r) * k + j]: node j's units */
	int64_t *offset;         /* node clock - true clock, ns */
	int64_t *next_sync;      /* true time of node j's next sync */
	int *heap, *pos;         /* nodes by next_sync (min-heap), pos[j] its index */
	int64_t *ref_win, *ref_offered, *ref_admitted; /* per key, on true time */
	struct sim_fleet_result *r;
};

static bool err(char *msg, size_t len, const char *what, long long v)
{
	if (msg && len)
		snprintf(msg, len, "fleet: %s %lld out of range", what, v);
	return false;
}

bool sim_fleet_valid(const struct sim_fleet_config *c, char *msg, size_t len)
{
	const int64_t W = c->window_ns;

	if (c->limit < 1 || c->limit > RL_LIMIT_MAX)
		return err(msg, len, "limit", c->limit);
	if (W < 1 || W > RL_WINDOW_MAX_NS)
		return err(msg, len, "window_ns", W);
	if (c->nodes < 1 || c->nodes > SIM_FLEET_NODES_MAX || c->nodes > c->limit)
		return err(msg, len, "nodes (1 .. min(1024, limit))", c->nodes);
	if (c->sync_ns < 1 || c->sync_ns > RL_TIME_MAX_NS)
		return err(msg, len, "sync_ns", c->sync_ns);
	if (c->skew_ns < 0 || c->skew_ns >= W)
		return err(msg, len, "skew_ns (0 .. W - 1)", c->skew_ns);
	if (c->keys < 1 || c->keys > SIM_FLEET_KEYS_MAX)
		return err(msg, len, "keys", c->keys);
	if ((int64_t)c->nodes * c->keys > 4000000)
		return err(msg, len, "nodes * keys (at most 4000000)", (long long)c->nodes * c->keys);
	if (c->load_pct < 1 || c->load_pct > 10000)
		return err(msg, len, "load_pct", c->load_pct);
	if (c->duration_ns < W || c->duration_ns / W > 1000000 || c->duration_ns > 864000000000000LL)
		return err(msg, len, "duration_ns (W .. min(10^6 W, 10 days))", c->duration_ns);
	if (c->outage_from_ns < 0 || c->outage_to_ns < c->outage_from_ns)
		return err(msg, len, "outage_from_ns", c->outage_from_ns);
	/* expected requests: K * load * N * duration / W */
	double req = (double)c->keys * (double)c->load_pct / 100.0 * (double)c->limit *
		     ((double)c->duration_ns / (double)W);
	if (req > 5e8)
		return err(msg, len, "expected requests (at most 5*10^8)", (long long)req);
	double syncs = (double)c->nodes * ((double)c->duration_ns / (double)c->sync_ns);
	if (syncs > 1e9)
		return err(msg, len, "syncs (nodes * duration / sync, at most 10^9)", (long long)syncs);
	return true;
}

/* The min-heap of nodes by next_sync. */
static void heap_swap(struct fleet *f, int a, int b)
{
	int na = f->heap[a], nb = f->heap[b];

	f->heap[a] = nb;
	f->heap[b] = na;
	f->pos[nb] = a;
	f->pos[na] = b;
}

static void heap_down(struct fleet *f, int i)
{
	for (;;) {
		int l = 2 * i + 1, r = l + 1, m = i;

		if (l < f->k && f->next_sync[f->heap[l]] < f->next_sync[f->heap[m]])
			m = l;
		if (r < f->k && f->next_sync[f->heap[r]] < f->next_sync[f->heap[m]])
			m = r;
		if (m == i)
			return;
		heap_swap(f, i, m);
		i = m;
	}
}

/* Key i's store slot for window w, claimed if w is newer than its
 * occupant; NULL if the slot holds a newer window (never with RING > 2). */
static struct slot *slot_for(struct fleet *f, int i, int64_t w, int64_t **counts)
{
	int r = (int)(w % RING);
	struct slot *s = &f->slots[i * RING + r];

	*counts = &f->counts[(size_t)(i * RING + r) * (size_t)f->k];
	if (s->window > w)
		return NULL;
	if (s->window < w) {
		s->window = w;
		s->total = 0;
		memset(*counts, 0, (size_t)f->k * sizeof(**counts));
	}
	return s;
}

static void sync_node(struct fleet *f, int j, int64_t t)
{
	const struct sim_fleet_config *c = f->c;
	int64_t now = t + f->offset[j];
	bool down = c->outage_from_ns <= t - c->window_ns && t - c->window_ns < c->outage_to_ns;
	bool wrote = false;
	int *keys = &f->keys[(size_t)j * (size_t)f->K];

	for (int n = 0; n < f->nkeys[j];) {
		int i = keys[n];
		struct rl_fleet_state *st = &f->st[(size_t)j * (size_t)f->K + (size_t)i];
		int64_t w, mine, *counts;

		if (!rl_fleet_sync_take(&f->lg[j], st, now, &w, &mine)) {
			memset(st, 0, sizeof(*st)); /* the window ended: the node drops the key */
			keys[n] = keys[--f->nkeys[j]];
			continue;
		}
		n++;
		wrote = true;
		struct slot *s = down ? NULL : slot_for(f, i, w, &counts);
		if (!s) {
			rl_fleet_sync_failed(st, w, mine);
			continue;
		}
		s->total += mine - counts[j];
		counts[j] = mine;
		rl_fleet_sync_apply(&f->lg[j], st, w, mine, s->total);
	}
	if (wrote && down)
		f->r->sync_failures++;
	else if (wrote)
		f->r->round_trips++;
}

/* Closes key i's true window: its over- and under-admission. */
static void settle(struct fleet *f, int i)
{
	const int64_t N = f->c->limit;
	int64_t adm = f->ref_admitted[i], central = f->ref_offered[i] < N ? f->ref_offered[i] : N;

	f->r->central_admitted += (uint64_t)central;
	f->r->over_admitted += (uint64_t)(adm > N ? adm - N : 0);
	f->r->false_rejects += (uint64_t)(central > adm ? central - adm : 0);
	f->ref_offered[i] = f->ref_admitted[i] = 0;
}

static void request(struct fleet *f, int64_t t, int i, int j)
{
	const int64_t tw = t / f->c->window_ns;
	struct rl_fleet_state *st = &f->st[(size_t)j * (size_t)f->K + (size_t)i];
	bool fresh = st->epoch == 0;
	int v = rl_fleet_check(&f->lg[j], st, t + f->offset[j], 1, NULL);

	if (fresh && st->epoch != 0)
		f->keys[(size_t)j * (size_t)f->K + (size_t)f->nkeys[j]++] = i;
	if (f->ref_win[i] != tw) {
		settle(f, i);
		f->ref_win[i] = tw;
	}
	f->r->requests++;
	f->ref_offered[i]++;
	if (v == RL_ALLOWED) {
		f->r->admitted++;
		f->ref_admitted[i]++;
	}
}

static void release(struct fleet *f)
{
	free(f->lg);
	free(f->st);
	free(f->keys);
	free(f->nkeys);
	free(f->slots);
	free(f->counts);
	free(f->offset);
	free(f->next_sync);
	free(f->heap);
	free(f->pos);
	free(f->ref_win);
	free(f->ref_admitted);
	free(f->ref_offered);
}

int sim_fleet_run(const struct sim_fleet_config *c, struct sim_fleet_result *r, char *msg,
		  size_t msg_len)
{
	struct fleet f = { .c = c, .k = c->nodes, .K = c->keys, .r = r };

	memset(r, 0, sizeof(*r));
	if (!sim_fleet_valid(c, msg, msg_len))
		return RL_EINVAL;
	size_t kK = (size_t)f.k * (size_t)f.K, kr = (size_t)f.K * RING;
	f.lg = malloc((size_t)f.k * sizeof(*f.lg));
	f.st = calloc(kK, sizeof(*f.st));
	f.keys = malloc(kK * sizeof(*f.keys));
	f.nkeys = calloc((size_t)f.k, sizeof(*f.nkeys));
	f.slots = malloc(kr * sizeof(*f.slots));
	f.counts = calloc(kr * (size_t)f.k, sizeof(*f.counts));
	f.offset = malloc((size_t)f.k * sizeof(*f.offset));
	f.next_sync = malloc((size_t)f.k * sizeof(*f.next_sync));
	f.heap = malloc((size_t)f.k * sizeof(*f.heap));
	f.pos = malloc((size_t)f.k * sizeof(*f.pos));
	f.ref_win = malloc((size_t)f.K * sizeof(*f.ref_win));
	f.ref_admitted = calloc((size_t)f.K, sizeof(*f.ref_admitted));
	f.ref_offered = calloc((size_t)f.K, sizeof(*f.ref_offered));
	if (!f.lg || !f.st || !f.keys || !f.nkeys || !f.slots || !f.counts || !f.offset || !f.next_sync ||
	    !f.heap || !f.pos || !f.ref_win || !f.ref_admitted || !f.ref_offered) {
		release(&f);
		if (msg && msg_len)
			snprintf(msg, msg_len, "fleet: out of memory");
		return RL_ENOMEM;
	}
	for (int j = 0; j < f.k; j++)
		if (rl_fleet_init(&f.lg[j], c->limit, c->window_ns, c->nodes, j, msg, msg_len) != RL_OK) {
			release(&f);
			return RL_EINVAL;
		}
	for (size_t s = 0; s < kr; s++)
		f.slots[s] = (struct slot){ -1, 0 };
	for (int i = 0; i < f.K; i++)
		f.ref_win[i] = -1;

	/* True time runs over [W, W + duration): every node clock stays >= 0
	 * (sync_node's outage test subtracts this start, W). */
	const int64_t t0 = c->window_ns, end = t0 + c->duration_ns;
	struct sim_rng arrivals, keys, routes, nodes;
	sim_rng_seed(&arrivals, c->seed, 1);
	sim_rng_seed(&keys, c->seed, 2);
	sim_rng_seed(&routes, c->seed, 3);
	sim_rng_seed(&nodes, c->seed, 4);
	for (int j = 0; j < f.k; j++) {
		f.offset[j] = (int64_t)sim_rng_below(&nodes, (uint64_t)(2 * c->skew_ns + 1)) - c->skew_ns;
		f.next_sync[j] = t0 + (int64_t)sim_rng_below(&nodes, (uint64_t)c->sync_ns);
		f.heap[j] = j;
		f.pos[j] = j;
	}
	for (int j = f.k / 2; j >= 0; j--)
		heap_down(&f, j);

	/* mean gap between arrivals of all keys: W / (K * load * N) */
	double mean_ns = (double)c->window_ns * 100.0 /
			 ((double)f.K * (double)c->load_pct * (double)c->limit);
	for (int64_t t = t0 + sim_rng_exp_ns(&arrivals, mean_ns); t < end;
	     t += sim_rng_exp_ns(&arrivals, mean_ns)) {
		while (f.next_sync[f.heap[0]] <= t) {
			int j = f.heap[0];
			sync_node(&f, j, f.next_sync[j]);
			f.next_sync[j] += c->sync_ns;
			heap_down(&f, 0);
		}
		int i = (int)sim_rng_below(&keys, (uint64_t)f.K);
		int j = c->routing == SIM_FLEET_STICKY ? i % f.k : (int)sim_rng_below(&routes, (uint64_t)f.k);
		request(&f, t, i, j);
	}
	for (int i = 0; i < f.K; i++)
		settle(&f, i);
	release(&f);
	return RL_OK;
}
