/*
 * keymap.c - open addressing, linear probing, load factor <= 1/2; a
 * 64-bit hash per slot (0 reserved for empty) screens key comparisons. The
 * hash is the store's keyed one under a seed drawn per map from the system,
 * so a trace cannot be crafted to pile its keys into one probe run.
 */
#include "keymap.h"

#include <stdlib.h>
#include <string.h>

#include "ratelab/parse.h"
#include "ratelab/status.h"
#include "ratelab/store.h"

/* The store's keyed hash under the map's secret seed; 0 marks an empty slot. */
static uint64_t hash_bytes(const struct sim_keymap *m, const char *key, size_t len)
{
	uint64_t h = rl_store_hash(key, len, m->seed);

	return h ? h : 1;
}

static int alloc_slots(struct sim_keymap *m, size_t cap)
{
	m->hashes = calloc(cap, sizeof(*m->hashes));
	m->key_at = malloc(cap * sizeof(*m->key_at));
	m->key_len = malloc(cap * sizeof(*m->key_len));
	m->states = calloc(cap, m->state_size);
	m->cap = cap;
	return m->hashes && m->key_at && m->key_len && m->states ? RL_OK : RL_ENOMEM;
}

static void free_slots(struct sim_keymap *m)
{
	free(m->hashes);
	free(m->key_at);
	free(m->key_len);
	free(m->states);
}

int sim_keymap_init_seed(struct sim_keymap *m, size_t state_size, uint64_t seed)
{
	*m = (struct sim_keymap){ .state_size = (state_size + 15) & ~(size_t)15, .seed = seed };
	if (alloc_slots(m, 64)) {
		free_slots(m);
		*m = (struct sim_keymap){ 0 };
		return RL_ENOMEM;
	}
	return RL_OK;
}

int sim_keymap_init(struct sim_keymap *m, size_t state_size)
{
	const char *fixed = getenv(SIM_HASH_SEED_ENV);
	int64_t v;
	uint64_t seed;
	int rc = RL_OK;

	*m = (struct sim_keymap){ 0 };
	if (fixed)
		rc = rl_parse_i64(fixed, &v) && v >= 0 ? (seed = (uint64_t)v, RL_OK) : RL_EINVAL;
	else
		rc = rl_store_random_seed(&seed);
	return rc ? rc : sim_keymap_init_seed(m, state_size, seed);
}

void sim_keymap_destroy(struct sim_keymap *m)
{
	free_slots(m);
	free(m->arena);
	*m = (struct sim_keymap){ 0 };
}

static size_t probe(const struct sim_keymap *m, uint64_t h, const char *key, size_t len)
{
	size_t i = h & (m->cap - 1);

	while (m->hashes[i] &&
	       !(m->hashes[i] == h && m->key_len[i] == len && memcmp(m->arena + m->key_at[i], key, len) == 0))
		i = (i + 1) & (m->cap - 1);
	return i;
}

static int grow(struct sim_keymap *m)
{
	struct sim_keymap old = *m;

	if (alloc_slots(m, old.cap * 2)) {
		free_slots(m);
		*m = old;
		return RL_ENOMEM;
	}
	for (size_t i = 0; i < old.cap; i++) {
		if (!old.hashes[i])
			continue;
		size_t j = old.hashes[i] & (m->cap - 1);
		while (m->hashes[j])
			j = (j + 1) & (m->cap - 1);
		m->hashes[j] = old.hashes[i];
		m->key_at[j] = old.key_at[i];
		m->key_len[j] = old.key_len[i];
		memcpy(m->states + j * m->state_size, old.states + i * m->state_size, m->state_size);
	}
	free_slots(&old);
	return RL_OK;
}

void *sim_keymap_get(struct sim_keymap *m, const char *key, size_t len)
{
	uint64_t h = hash_bytes(m, key, len);
	size_t i = probe(m, h, key, len);

	if (m->hashes[i])
		return m->states + i * m->state_size;
	if (len > UINT32_MAX)
		return NULL;
	if ((m->len + 1) * 2 > m->cap) {
		if (grow(m))
			return NULL;
		i = probe(m, h, key, len);
	}
	if (m->arena_len + len > m->arena_cap) {
		size_t cap = m->arena_cap ? m->arena_cap * 2 : 4096;
		while (cap < m->arena_len + len)
			cap *= 2;
		char *arena = realloc(m->arena, cap);
		if (!arena)
			return NULL;
		m->arena = arena;
		m->arena_cap = cap;
	}
	memcpy(m->arena + m->arena_len, key, len);
	m->hashes[i] = h;
	m->key_at[i] = m->arena_len;
	m->key_len[i] = (uint32_t)len;
	m->arena_len += len;
	m->len++;
	return m->states + i * m->state_size;
}

void sim_keymap_each(struct sim_keymap *m, void (*fn)(void *state, void *arg), void *arg)
{
	for (size_t i = 0; i < m->cap; i++)
		if (m->hashes[i])
			fn(m->states + i * m->state_size, arg);
}
