/*
 * import_keys.c - model: a key's bytes map to an id through the engine's
 * keymap (seeded hash, so crafted keys cannot pile up), ids given in the
 * order keys are first met; each name is its own allocation, handed to
 * the trace. The last key is checked first: a log's lines often repeat
 * the previous client.
 */
#include <stdlib.h>
#include <string.h>

#include "import_impl.h"
#include "ratelab/status.h"

int imp_keys_init(struct imp_keys *k)
{
	memset(k, 0, sizeof(*k));
	return sim_keymap_init(&k->map, sizeof(uint32_t));
}

static bool needs_escape(unsigned char ch)
{
	return ch <= 0x20 || ch == 0x7f;
}

/* Appends s[0..len) to b (room made), blanks and control bytes written %XX. */
static void put_key(struct imp_buf *b, const char *s, size_t len)
{
	static const char hex[] = "0123456789ABCDEF";
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (needs_escape(ch)) {
			b->p[b->len++] = '%';
			b->p[b->len++] = hex[ch >> 4];
			b->p[b->len++] = hex[ch & 15];
		} else {
			b->p[b->len++] = (char)ch;
		}
	}
}

int64_t imp_keys_intern(struct imp_keys *k, const struct imp_fields *f)
{
	const char *key = f->key;
	size_t len = f->key_len;
	bool plain = f->key2_len == 0;

	/* A name holds no byte to escape, so a key equal to one needs none. */
	if (plain && k->have_last && k->last_len == len && memcmp(k->names[k->last_id], key, len) == 0)
		return k->last_id;
	for (size_t i = 0; plain && i < len; i++)
		plain = !needs_escape((unsigned char)key[i]);
	if (!plain) {
		k->build.len = 0;
		if (!imp_buf_reserve(&k->build, 3 * (f->key_len + f->key2_len) + 1))
			return -1;
		put_key(&k->build, f->key, f->key_len);
		put_key(&k->build, f->key2, f->key2_len);
		key = k->build.p;
		len = k->build.len;
		if (k->have_last && k->last_len == len && memcmp(k->names[k->last_id], key, len) == 0)
			return k->last_id;
	}
	uint32_t *slot = sim_keymap_get(&k->map, key, len);
	if (!slot)
		return -1;
	if (!*slot) {
		if (k->nkeys >= IMP_KEYS_MAX)
			return -1;
		if (k->nkeys == k->cap) {
			size_t cap = k->cap ? 2 * k->cap : 1024;
			char **names = realloc(k->names, cap * sizeof(*names));
			if (!names)
				return -1;
			k->names = names;
			k->cap = cap;
		}
		char *name = malloc(len + 1);
		if (!name)
			return -1;
		memcpy(name, key, len);
		name[len] = '\0';
		k->names[k->nkeys] = name;
		*slot = (uint32_t)++k->nkeys;
	}
	k->last_id = *slot - 1;
	k->last_len = len;
	k->have_last = true;
	return k->last_id;
}

void imp_keys_free(struct imp_keys *k)
{
	for (size_t i = 0; i < k->nkeys; i++)
		free(k->names[i]);
	free(k->names);
	free(k->build.p);
	sim_keymap_destroy(&k->map);
	memset(k, 0, sizeof(*k));
}
