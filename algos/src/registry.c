/*
 * registry.c - model: the INI file (registry.h) is read once, line by line,
 * through inih; sections are tracked by our own line reader (which also
 * counts lines, so every message names one), keys by inih's handler. The
 * whole file is checked before anything is built, and any failure frees
 * everything: a registry exists whole or not at all.
 *
 * Stores are created lazily, on the first check of their tier, so that
 * loading (and `ratelab check`) validates a max_keys of up to
 * RL_STORE_MAX_KEYS without allocating its table: a store's table is
 * max_keys * 24 bytes or more. Creation is serialised by the registry's
 * mutex and published with a release store; checks read the pointer with
 * an acquire load, so the lock is taken only until a tier's store exists
 * (or while its allocation keeps failing, which on_error then decides).
 *
 * Invariant: after a successful load every client maps to a defined tier,
 * every limited tier has a valid limiter, its store slot is NULL or its
 * own store, and nothing else changes until destroy.
 */
#include "ratelab/registry.h"
#include "ratelab/parse.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <threads.h>

#include <ini.h>

#include "arith.h"

enum section { SEC_NONE, SEC_TIER, SEC_CLIENTS, SEC_DEFAULTS };

/* Which keys a tier section set: bits of these. */
enum { K_ALGORITHM = 1, K_LIMIT = 2, K_WINDOW = 4, K_BURST = 8, K_UNLIMITED = 16,
       K_ON_ERROR = 32, K_MAX_KEYS = 64, K_WHEN_FULL = 128,
       K_REDIS_TIMEOUT = 256 };

struct client {
	char *id;
	size_t len;
	char tier_name[RL_TIER_NAME_MAX + 1];
	size_t tier; /* index, resolved after the parse */
	long line;
};

struct rl_registry {
	struct rl_tier *tiers;
	size_t ntiers;
	struct client *clients; /* sorted by (id bytes, length) */
	size_t nclients;
	size_t default_tier;
	_Atomic(struct rl_store *) *stores; /* per tier; NULL until its first check */
	uint64_t seed;                      /* key hash seed of every store, from getrandom */
	mtx_t create_lock;                  /* serialises store creation */
	bool lock_ok;                       /* create_lock was initialised */
};

struct parse {
	const char *path;
	FILE *f;
	long lineno;
	bool failed;
	bool nomem; /* the failure is an allocation failure: RL_ENOMEM, not RL_EINVAL */
	char *err;
	size_t err_len;
	enum section sec;
	struct rl_registry *r;
	unsigned *keys; /* per tier: K_* bits set */
	size_t tiers_cap, clients_cap;
	char default_name[RL_TIER_NAME_MAX + 1];
	long default_line;
};

static bool fail(struct parse *p, long line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static bool fail(struct parse *p, long line, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (p->failed)
		return false;
	p->failed = true;
	if (!p->err_len)
		return false;
	n = snprintf(p->err, p->err_len, "%s:%ld: ", p->path, line);
	if (n >= 0 && (size_t)n < p->err_len) {
		va_start(ap, fmt);
		vsnprintf(p->err + n, p->err_len - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return false;
}

static bool valid_name(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > RL_TIER_NAME_MAX)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-')
			return false;
	return true;
}

/* An integer in [1, max]. */
static bool parse_count(const char *s, int64_t max, int64_t *out)
{
	return rl_parse_i64(s, out) && *out >= 1 && *out <= max;
}

static char *trim(char *s)
{
	char *e = s + strlen(s);

	while (isspace((unsigned char)*s))
		s++;
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static bool new_tier(struct parse *p, const char *name)
{
	struct rl_registry *r = p->r;

	if (!valid_name(name))
		return fail(p, p->lineno, "bad tier name '%s' (1-%d of A-Z a-z 0-9 _ -)", name,
			    RL_TIER_NAME_MAX);
	for (size_t i = 0; i < r->ntiers; i++)
		if (strcmp(r->tiers[i].name, name) == 0)
			return fail(p, p->lineno, "duplicate tier '%s' (first on line %ld)", name,
				    r->tiers[i].line);
	if (r->ntiers == p->tiers_cap) {
		size_t cap = p->tiers_cap ? 2 * p->tiers_cap : 8;
		struct rl_tier *t = realloc(r->tiers, cap * sizeof(*t));
		unsigned *k = t ? realloc(p->keys, cap * sizeof(*k)) : NULL;
		if (t)
			r->tiers = t;
		if (!k) {
			p->nomem = true;
			return fail(p, p->lineno, "out of memory");
		}
		p->keys = k;
		p->tiers_cap = cap;
	}
	struct rl_tier *t = &r->tiers[r->ntiers];
	*t = (struct rl_tier){ .max_keys = RL_TIER_DEFAULT_MAX_KEYS, .when_full = RL_FULL_EVICT,
			       .line = p->lineno };
	snprintf(t->name, sizeof(t->name), "%s", name);
	p->keys[r->ntiers++] = 0;
	return true;
}

/* A section header line: "[tier NAME]", "[clients]" or "[defaults]". */
static bool section_line(struct parse *p, char *line)
{
	char *end = strchr(line, ']');

	if (!end)
		return fail(p, p->lineno, "section header without ']'");
	*end = '\0';
	char *name = trim(line + 1), *rest = trim(end + 1);
	if (*rest && *rest != ';' && *rest != '#')
		return fail(p, p->lineno, "text after the section header: '%s'", rest);
	if (strncmp(name, "tier", 4) == 0 && isspace((unsigned char)name[4])) {
		p->sec = SEC_TIER;
		return new_tier(p, trim(name + 5));
	}
	if (strcmp(name, "clients") == 0)
		p->sec = SEC_CLIENTS;
	else if (strcmp(name, "defaults") == 0)
		p->sec = SEC_DEFAULTS;
	else
		return fail(p, p->lineno, "unknown section [%s] (expected [tier NAME], [clients] or [defaults])",
			    name);
	return true;
}

/*
 * inih's reader: one line into str (num bytes), counted; section headers
 * are handled here. A line holds at most num - 1 characters, its newline
 * not included (the newline is passed on when it fits; inih needs none).
 * Refused, naming the line: longer lines, NUL bytes (C strings would cut
 * the line short silently) and indented keys or sections (inih would read
 * them as continuations of the previous value). A UTF-8 byte order mark
 * on line 1 is skipped, here rather than in inih, so that a first line
 * "[tier NAME]" is seen as a section.
 */
static char *reader(char *str, int num, void *stream)
{
	struct parse *p = stream;
	size_t n = 0, max = (size_t)num - 1;
	bool too_long = false, nul = false;
	int c;

	if (p->failed)
		return NULL;
	while ((c = getc(p->f)) != EOF && c != '\n') {
		nul |= c == '\0';
		if (n < max)
			str[n++] = (char)c;
		else
			too_long = true;
	}
	if (ferror(p->f))
		return fail(p, p->lineno + 1, "cannot read: %s", strerror(errno)), NULL;
	if (c == EOF && n == 0 && !too_long)
		return NULL;
	p->lineno++;
	if (too_long)
		return fail(p, p->lineno, "line longer than %zu characters", max), NULL;
	if (nul)
		return fail(p, p->lineno, "NUL byte in the line"), NULL;
	if (p->lineno == 1 && n >= 3 && memcmp(str, "\xEF\xBB\xBF", 3) == 0) {
		memmove(str, str + 3, n - 3);
		n -= 3;
	}
	if (n < max)
		str[n++] = '\n';
	str[n] = '\0';
	size_t indent = strspn(str, " \t");
	if (indent && !strchr(";#\r\n", str[indent]))
		return fail(p, p->lineno, "indented line (keys and sections start in column 1; values do "
			    "not continue over lines)"), NULL;
	char copy[INI_MAX_LINE + 1];
	snprintf(copy, sizeof(copy), "%s", str);
	char *s = trim(copy);
	if (*s == '[' && !section_line(p, s))
		return NULL;
	return str;
}

static bool set_once(struct parse *p, unsigned bit, const char *name)
{
	unsigned *k = &p->keys[p->r->ntiers - 1];

	if (*k & bit)
		return fail(p, p->lineno, "'%s' given twice in [tier %s]", name,
			    p->r->tiers[p->r->ntiers - 1].name);
	*k |= bit;
	return true;
}

static bool tier_key(struct parse *p, const char *name, const char *value)
{
	struct rl_tier *t = &p->r->tiers[p->r->ntiers - 1];
	struct rl_rule *rule = &t->limiter.rule;
	int64_t v;

	if (strcmp(name, "algorithm") == 0) {
		if (!set_once(p, K_ALGORITHM, name))
			return false;
		if (!(t->limiter.algo = rl_algo_find(value)))
			return fail(p, p->lineno, "unknown algorithm '%s' (token_bucket, gcra, leaky_bucket, "
				    "fixed_window, sliding_log, sliding_counter)", value);
	} else if (strcmp(name, "limit") == 0 || strcmp(name, "burst") == 0) {
		bool limit = name[0] == 'l';
		if (!set_once(p, limit ? K_LIMIT : K_BURST, name))
			return false;
		if (!parse_count(value, limit ? RL_LIMIT_MAX : RL_BURST_MAX, limit ? &rule->limit : &rule->burst))
			return fail(p, p->lineno, "%s '%s' is not an integer in [1, %lld]", name, value,
				    limit ? RL_LIMIT_MAX : RL_BURST_MAX);
	} else if (strcmp(name, "window") == 0) {
		if (!set_once(p, K_WINDOW, name))
			return false;
		if (!rl_parse_duration(value, 0, &rule->window_ns) || rule->window_ns < 1 ||
		    rule->window_ns > RL_WINDOW_MAX_NS)
			return fail(p, p->lineno, "window '%s' is not a duration (an integer with unit ns, us, "
				    "ms, s, m or h; 1ns to 10^18 ns)", value);
	} else if (strcmp(name, "unlimited") == 0) {
		if (!set_once(p, K_UNLIMITED, name))
			return false;
		if (strcmp(value, "true") && strcmp(value, "false"))
			return fail(p, p->lineno, "unlimited '%s' is not true or false", value);
		t->unlimited = value[0] == 't';
	} else if (strcmp(name, "on_error") == 0) {
		if (!set_once(p, K_ON_ERROR, name))
			return false;
		if (strcmp(value, "fail_open") && strcmp(value, "fail_closed"))
			return fail(p, p->lineno, "on_error '%s' is not fail_open or fail_closed", value);
		t->fail_closed = strcmp(value, "fail_closed") == 0;
	} else if (strcmp(name, "max_keys") == 0) {
		if (!set_once(p, K_MAX_KEYS, name))
			return false;
		if (!parse_count(value, (int64_t)RL_STORE_MAX_KEYS, &v))
			return fail(p, p->lineno, "max_keys '%s' is not an integer in [1, %zu]", value,
				    RL_STORE_MAX_KEYS);
		t->max_keys = (size_t)v;
	} else if (strcmp(name, "when_full") == 0) {
		if (!set_once(p, K_WHEN_FULL, name))
			return false;
		if (strcmp(value, "evict") == 0)
			t->when_full = RL_FULL_EVICT;
		else if (strcmp(value, "fail_open") == 0)
			t->when_full = RL_FULL_FAIL_OPEN;
		else if (strcmp(value, "fail_closed") == 0)
			t->when_full = RL_FULL_FAIL_CLOSED;
		else
			return fail(p, p->lineno, "when_full '%s' is not evict, fail_open or fail_closed", value);
	} else if (strcmp(name, "redis_timeout") == 0) {
		/* the Redis backend's budget per decision (redis.h), whole ms */
		if (!set_once(p, K_REDIS_TIMEOUT, name))
			return false;
		if (!rl_parse_duration(value, 1000000, &v) || v < 1000000 || v > 60000000000LL ||
		    v % 1000000)
			return fail(p, p->lineno, "redis_timeout '%s' is not a whole number of ms in "
				    "[1ms, 60s] (bare: ms)", value);
		t->redis_timeout_ms = v / 1000000;
	} else {
		return fail(p, p->lineno, "unknown key '%s' in [tier %s] (algorithm, limit, window, burst, "
			    "unlimited, on_error, max_keys, when_full)", name, t->name);
	}
	return true;
}

static bool add_client(struct parse *p, const char *tier, const char *id, size_t len)
{
	struct rl_registry *r = p->r;

	if (r->nclients == p->clients_cap) {
		size_t cap = p->clients_cap ? 2 * p->clients_cap : 16;
		struct client *c = realloc(r->clients, cap * sizeof(*c));
		if (!c) {
			p->nomem = true;
			return fail(p, p->lineno, "out of memory");
		}
		r->clients = c;
		p->clients_cap = cap;
	}
	struct client *c = &r->clients[r->nclients];
	if (!(c->id = malloc(len + 1))) {
		p->nomem = true;
		return fail(p, p->lineno, "out of memory");
	}
	memcpy(c->id, id, len);
	c->id[len] = '\0';
	c->len = len;
	snprintf(c->tier_name, sizeof(c->tier_name), "%s", tier);
	c->line = p->lineno;
	r->nclients++;
	return true;
}

static bool clients_key(struct parse *p, const char *tier, const char *value)
{
	if (!valid_name(tier))
		return fail(p, p->lineno, "bad tier name '%s' in [clients] (expected TIER = ID ID ...)", tier);
	const char *s = value;
	bool any = false;
	while (*s) {
		size_t n = strcspn(s, " \t");
		if (n && !add_client(p, tier, s, n))
			return false;
		any |= n > 0;
		s += n;
		s += strspn(s, " \t");
	}
	return any || fail(p, p->lineno, "no client ids for tier '%s'", tier);
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
	struct parse *p = user;

	(void)section; /* the reader tracks sections, with their lines */
	if (p->failed)
		return 0;
	switch (p->sec) {
	case SEC_TIER:
		return tier_key(p, name, value);
	case SEC_CLIENTS:
		return clients_key(p, name, value);
	case SEC_DEFAULTS:
		if (strcmp(name, "tier") != 0)
			return fail(p, p->lineno, "unknown key '%s' in [defaults] (tier)", name);
		if (p->default_line)
			return fail(p, p->lineno, "'tier' given twice in [defaults] (first on line %ld)",
				    p->default_line);
		snprintf(p->default_name, sizeof(p->default_name), "%s", value);
		p->default_line = p->lineno;
		return 1;
	case SEC_NONE:
		break;
	}
	return fail(p, p->lineno, "'%s' outside any section", name);
}

static int client_cmp(const void *a, const void *b)
{
	const struct client *x = a, *y = b;
	int c = memcmp(x->id, y->id, x->len < y->len ? x->len : y->len);

	return c ? c : (x->len > y->len) - (x->len < y->len);
}

static bool find_tier(const struct rl_registry *r, const char *name, size_t *idx)
{
	for (size_t i = 0; i < r->ntiers; i++)
		if (strcmp(r->tiers[i].name, name) == 0) {
			*idx = i;
			return true;
		}
	return false;
}

/* After the parse: whole-file rules, limiters and stores. */
static bool finish(struct parse *p)
{
	struct rl_registry *r = p->r;
	char msg[160];

	for (size_t i = 0; i < r->ntiers; i++) {
		struct rl_tier *t = &r->tiers[i];
		unsigned k = p->keys[i];
		if (t->unlimited) {
			if (k & (K_ALGORITHM | K_LIMIT | K_WINDOW | K_BURST | K_MAX_KEYS | K_WHEN_FULL))
				return fail(p, t->line, "tier '%s' is unlimited: it takes no algorithm, limit, "
					    "window, burst, max_keys or when_full", t->name);
			if (k & K_REDIS_TIMEOUT)
				return fail(p, t->line, "tier '%s' is unlimited: it takes no redis_timeout", t->name);
			continue;
		}
		const char *missing = !(k & K_ALGORITHM) ? "algorithm" : !(k & K_LIMIT) ? "limit"
				      : !(k & K_WINDOW)	   ? "window"
							   : NULL;
		if (missing)
			return fail(p, t->line, "tier '%s' has no '%s' (or 'unlimited = true')", t->name, missing);
		struct rl_rule rule = t->limiter.rule;
		if (!(k & K_BURST))
			rule.burst = rule.limit;
		if (rl_limiter_init(&t->limiter, t->limiter.algo, &rule, msg, sizeof(msg)))
			return fail(p, t->line, "tier '%s': %s", t->name, msg);
	}
	for (size_t i = 0; i < r->nclients; i++)
		if (!find_tier(r, r->clients[i].tier_name, &r->clients[i].tier))
			return fail(p, r->clients[i].line, "client '%s' is mapped to tier '%s', which is not defined",
				    r->clients[i].id, r->clients[i].tier_name);
	if (r->nclients)
		qsort(r->clients, r->nclients, sizeof(*r->clients), client_cmp);
	for (size_t i = 1; i < r->nclients; i++)
		if (client_cmp(&r->clients[i - 1], &r->clients[i]) == 0) {
			const struct client *a = &r->clients[i - 1], *b = &r->clients[i];
			const struct client *later = a->line > b->line ? a : b;
			return fail(p, later->line, "client '%s' mapped twice (lines %ld and %ld)", a->id,
				    a->line < b->line ? a->line : b->line, later->line);
		}
	if (!p->default_line)
		return fail(p, p->lineno, "end of file: no default tier (add [defaults] with tier = NAME)");
	if (!find_tier(r, p->default_name, &r->default_tier))
		return fail(p, p->default_line, "default tier '%s' is not defined", p->default_name);
	if (r->ntiers && !(r->stores = calloc(r->ntiers, sizeof(*r->stores)))) {
		p->nomem = true;
		return fail(p, p->lineno, "out of memory");
	}
	if (mtx_init(&r->create_lock, mtx_plain) != thrd_success) {
		p->nomem = true;
		return fail(p, p->lineno, "cannot create a mutex");
	}
	r->lock_ok = true;
	if (getrandom(&r->seed, sizeof(r->seed), 0) != (ssize_t)sizeof(r->seed)) {
		p->nomem = true;
		return fail(p, p->lineno, "cannot seed the key hash: %s", strerror(errno));
	}
	return true;
}

/* The tier's store, created on first use; NULL when it cannot be allocated. */
static struct rl_store *store_of(struct rl_registry *r, const struct rl_tier *t)
{
	_Atomic(struct rl_store *) *slot = &r->stores[t - r->tiers];
	struct rl_store *s = atomic_load_explicit(slot, memory_order_acquire);

	if (s)
		return s;
	mtx_lock(&r->create_lock);
	s = atomic_load_explicit(slot, memory_order_relaxed);
	if (!s) {
		struct rl_store_config cfg = { .limiter = &t->limiter, .max_keys = t->max_keys,
					       .when_full = t->when_full, .hash_seed = r->seed };
		if (rl_store_create(&s, &cfg) == RL_OK)
			atomic_store_explicit(slot, s, memory_order_release);
		else
			s = NULL;
	}
	mtx_unlock(&r->create_lock);
	return s;
}

void rl_registry_destroy(struct rl_registry *r)
{
	if (!r)
		return;
	for (size_t i = 0; r->stores && i < r->ntiers; i++)
		rl_store_destroy(atomic_load_explicit(&r->stores[i], memory_order_relaxed));
	if (r->lock_ok)
		mtx_destroy(&r->create_lock);
	free(r->stores);
	for (size_t i = 0; i < r->nclients; i++)
		free(r->clients[i].id);
	free(r->tiers);
	free(r->clients);
	free(r);
}

int rl_registry_load(struct rl_registry **out, const char *path, char *err, size_t err_len)
{
	struct parse p = { .path = path, .err = err, .err_len = err ? err_len : 0 };
	int rc;

	if (p.err_len)
		err[0] = '\0';
	if (!out || !path)
		return RL_EINVAL;
	*out = NULL;
	if (!(p.f = fopen(path, "r"))) {
		snprintf(p.err, p.err_len, "%s: cannot open: %s", path, strerror(errno));
		return RL_ENOTFOUND;
	}
	if (!(p.r = calloc(1, sizeof(*p.r)))) {
		fclose(p.f);
		snprintf(p.err, p.err_len, "%s: out of memory", path);
		return RL_ENOMEM;
	}
	rc = ini_parse_stream(reader, &p, handler, &p);
	if (rc > 0 && !p.failed) {
		fail(&p, rc, "syntax error (expected '[section]' or 'name = value')");
	} else if (rc < 0 && !p.failed) {
		/* inih's only negative result besides a failed open: its own malloc */
		p.nomem = true;
		fail(&p, p.lineno, "out of memory");
	}
	if (!p.failed)
		finish(&p);
	fclose(p.f);
	free(p.keys);
	if (p.failed) {
		rl_registry_destroy(p.r);
		return p.nomem ? RL_ENOMEM : RL_EINVAL;
	}
	*out = p.r;
	return RL_OK;
}

size_t rl_registry_tier_count(const struct rl_registry *r)
{
	return r->ntiers;
}

const struct rl_tier *rl_registry_tier_at(const struct rl_registry *r, size_t i)
{
	return i < r->ntiers ? &r->tiers[i] : NULL;
}

const struct rl_tier *rl_registry_default(const struct rl_registry *r)
{
	return &r->tiers[r->default_tier];
}

size_t rl_registry_client_count(const struct rl_registry *r)
{
	return r->nclients;
}

const char *rl_registry_client_at(const struct rl_registry *r, size_t i, const struct rl_tier **tier)
{
	if (i >= r->nclients)
		return NULL;
	if (tier)
		*tier = &r->tiers[r->clients[i].tier];
	return r->clients[i].id;
}

const struct rl_tier *rl_registry_resolve(const struct rl_registry *r, const char *client, size_t len)
{
	struct client key = { .id = (char *)client, .len = len };
	const struct client *c =
		r->nclients ? bsearch(&key, r->clients, r->nclients, sizeof(key), client_cmp) : NULL;

	return &r->tiers[c ? c->tier : r->default_tier];
}

int rl_registry_check(struct rl_registry *r, const char *client, size_t len, int64_t now_ns,
		      struct rl_answer *ans)
{
	if (!r || !ans || (!client && len))
		return RL_EINVAL;

	const struct rl_tier *t = rl_registry_resolve(r, client, len);

	*ans = (struct rl_answer){ .verdict = RL_ALLOWED, .tier = t };
	if (t->unlimited)
		return rl_time_ok(now_ns) ? RL_ALLOWED : RL_ERANGE;
	if (!rl_time_ok(now_ns))
		return RL_ERANGE;
	struct rl_store *s = store_of(r, t);
	int rc = s ? rl_store_check(s, client, len, now_ns, &ans->d) : RL_ENOMEM;
	if (rc == RL_ERANGE || rc == RL_EINVAL)
		return rc;
	if (rc < 0) {
		/* the store could not decide: the tier's on_error does */
		ans->store_error = rc;
		rc = t->fail_closed ? RL_REJECTED : RL_ALLOWED;
		int64_t w = t->limiter.rule.window_ns;
		ans->d = (struct rl_decision){ 0, rc ? 0 : w, rc ? 0 : w, 0 };
	}
	ans->verdict = rc;
	return rc;
}
