/*
 * registry_load.c - model: the INI file (registry.h) is read once, line by
 * line, by the shared INI reader and parser (ini_reader.h: it counts
 * lines, refuses what it cannot read whole, and reports section headers
 * with their lines), whose handler sets keys from the table of each
 * section's keys: a tier's built-in keys, then the caller's extra keys
 * (registry.h), which a tier holds by their place in the caller's table.
 * The whole file is checked before anything is built, and any failure
 * frees everything: a registry exists whole or not at all.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#include "compat.h"
#include "ini_reader.h"
#include "ratelab/parse.h"
#include "registry_impl.h"

enum section { SEC_NONE, SEC_TIER, SEC_CLIENTS, SEC_DEFAULTS };

struct parse {
	const char *path;
	struct rl__ini_reader rd; /* its lineno is the line being handled */
	bool failed;
	bool nomem; /* the failure is an allocation failure: RL_ENOMEM, not RL_EINVAL */
	char *err;
	size_t err_len;
	enum section sec;
	struct rl_registry *r;
	const struct rl_tier_key *ext; /* the caller's extra keys */
	size_t n_ext;
	unsigned *keys; /* per tier: K_* bits set (the extra keys: the tier's ext_given) */
	struct rl_policy *policies; /* per tier: its policy = P as read */
	size_t tiers_cap, clients_cap;
	char default_name[RL_TIER_NAME_MAX + 1];
	long default_line;
};

static bool fail(struct parse *p, long line, const char *fmt, ...)
	RL_PRINTF(3, 4);

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

static bool new_tier(struct parse *p, const char *name)
{
	struct rl_registry *r = p->r;

	if (!valid_name(name))
		return fail(p, p->rd.lineno, "bad tier name '%s' (1-%d of A-Z a-z 0-9 _ -)", name,
			    RL_TIER_NAME_MAX);
	for (size_t i = 0; i < r->ntiers; i++)
		if (strcmp(r->tiers[i].name, name) == 0)
			return fail(p, p->rd.lineno, "duplicate tier '%s' (first on line %ld)", name,
				    r->tiers[i].line);
	if (r->ntiers == p->tiers_cap) {
		size_t cap = p->tiers_cap ? 2 * p->tiers_cap : 8;
		struct rl_tier *t = realloc(r->tiers, cap * sizeof(*t));
		unsigned *k = t ? realloc(p->keys, cap * sizeof(*k)) : NULL;
		if (t)
			r->tiers = t;
		if (k)
			p->keys = k;
		struct rl_policy *pol = k ? realloc(p->policies, cap * sizeof(*pol)) : NULL;
		if (!pol) {
			p->nomem = true;
			return fail(p, p->rd.lineno, "out of memory");
		}
		p->policies = pol;
		p->tiers_cap = cap;
	}
	struct rl_tier *t = &r->tiers[r->ntiers];
	*t = (struct rl_tier){ .max_keys = RL_TIER_DEFAULT_MAX_KEYS, .when_full = RL_FULL_EVICT,
			       .line = p->rd.lineno };
	snprintf(t->name, sizeof(t->name), "%s", name);
	p->policies[r->ntiers] = (struct rl_policy){ 0 };
	p->keys[r->ntiers++] = 0;
	return true;
}

/* A section header (the reader's on_section): "[tier NAME]", "[clients]" or "[defaults]". */
static bool section_line(void *arg, const char *name, long line)
{
	struct parse *p = arg;

	(void)line; /* p->rd.lineno */
	if (strncmp(name, "tier", 4) == 0 && isspace((unsigned char)name[4])) {
		p->sec = SEC_TIER;
		return new_tier(p, name + 5 + strspn(name + 5, " \t"));
	}
	if (strcmp(name, "clients") == 0)
		p->sec = SEC_CLIENTS;
	else if (strcmp(name, "defaults") == 0)
		p->sec = SEC_DEFAULTS;
	else
		return fail(p, p->rd.lineno, "unknown section [%s] (expected [tier NAME], [clients] or [defaults])",
			    name);
	return true;
}

/* The built-in keys of a [tier NAME] section, in tier_keys order: bit 1 << K_x of p->keys. */
enum {
	K_ALGORITHM,
	K_LIMIT,
	K_WINDOW,
	K_BURST,
	K_POLICY,
	K_MODE,
	K_UNLIMITED,
	K_ON_ERROR,
	K_MAX_KEYS,
	K_WHEN_FULL,
	K_COUNT
};
#define BIT(k) (1u << (k))

/* Each key's setter: true, or false after fail(). */
typedef bool (*set_fn)(struct parse *p, struct rl_tier *t, const char *name, const char *value);

static bool set_algorithm(struct parse *p, struct rl_tier *t, const char *name, const char *value)
{
	(void)name;
	return (t->limiter.algo = rl_algo_find(value)) ||
	       fail(p, p->rd.lineno, "unknown algorithm '%s' (%s)", value, rl_algo_names());
}

static bool set_count(struct parse *p, const char *name, const char *value, int64_t max, int64_t *out)
{
	return parse_count(value, max, out) ||
	       fail(p, p->rd.lineno, "%s '%s' is not an integer in [1, %lld]", name, value, (long long)max);
}

static bool set_limit(struct parse *p, struct rl_tier *t, const char *name, const char *value)
{
	return set_count(p, name, value, RL_LIMIT_MAX, &t->limiter.rule.limit);
}

static bool set_burst(struct parse *p, struct rl_tier *t, const char *name, const char *value)
{
	return set_count(p, name, value, RL_BURST_MAX, &t->limiter.rule.burst);
}

static bool set_max_keys(struct parse *p, struct rl_tier *t, const char *name, const char *value)
{
	int64_t v;

	if (!set_count(p, name, value, (int64_t)RL_STORE_MAX_KEYS, &v))
		return false;
	t->max_keys = (size_t)v;
	return true;
}

static bool set_window(struct parse *p, struct rl_tier *t, const char *name, const char *value)
{
	int64_t *w = &t->limiter.rule.window_ns;

	(void)name;
	return (rl_parse_duration(value, 0, w) && *w >= 1 && *w <= RL_WINDOW_MAX_NS) ||
	       fail(p, p->rd.lineno, "window '%s' is not a duration (an integer with unit ns, us, "
		    "ms, s, m or h; 1ns to 10^18 ns)", value);
}

/* value, one of the choices (NULL-ended): its index, else -1 after fail(). */
static int choice(struct parse *p, const char *name, const char *value, const char *const *choices,
		  const char *expected)
{
	for (int i = 0; choices[i]; i++)
		if (strcmp(value, choices[i]) == 0)
			return i;
	fail(p, p->rd.lineno, "%s '%s' is not %s", name, value, expected);
	return -1;
}

static bool set_policy(struct parse *p, struct rl_tier *t, const char *name, const char *value)
{
	char msg[2 * RL_QUOTE_SIZE + 300];

	(void)name;
	return rl_policy_parse(value, &p->policies[t - p->r->tiers], msg, sizeof(msg)) == RL_OK ||
	       fail(p, p->rd.lineno, "policy: %s", msg);
}

static bool set_mode(struct parse *p, struct rl_tier *t, const char *name, const char *value)
{
	static const char *const v[] = { "enforce", "shadow", NULL };
	int i = choice(p, name, value, v, "enforce or shadow");

	t->shadow = i == 1;
	return i >= 0;
}

static bool set_unlimited(struct parse *p, struct rl_tier *t, const char *name, const char *value)
{
	static const char *const v[] = { "false", "true", NULL };
	int i = choice(p, name, value, v, "true or false");

	t->unlimited = i == 1;
	return i >= 0;
}

static bool set_on_error(struct parse *p, struct rl_tier *t, const char *name, const char *value)
{
	static const char *const v[] = { "fail_open", "fail_closed", NULL };
	int i = choice(p, name, value, v, "fail_open or fail_closed");

	t->fail_closed = i == 1;
	return i >= 0;
}

static bool set_when_full(struct parse *p, struct rl_tier *t, const char *name, const char *value)
{
	static const char *const v[] = { "evict", "fail_open", "fail_closed", NULL };
	static const enum rl_when_full wf[] = { RL_FULL_EVICT, RL_FULL_FAIL_OPEN, RL_FULL_FAIL_CLOSED };
	int i = choice(p, name, value, v, "evict, fail_open or fail_closed");

	if (i >= 0)
		t->when_full = wf[i];
	return i >= 0;
}

static const struct {
	const char *name;
	set_fn set;
} tier_keys[K_COUNT] = {
	[K_ALGORITHM] = { "algorithm", set_algorithm }, [K_LIMIT] = { "limit", set_limit },
	[K_WINDOW] = { "window", set_window },          [K_BURST] = { "burst", set_burst },
	[K_POLICY] = { "policy", set_policy },          [K_MODE] = { "mode", set_mode },
	[K_UNLIMITED] = { "unlimited", set_unlimited }, [K_ON_ERROR] = { "on_error", set_on_error },
	[K_MAX_KEYS] = { "max_keys", set_max_keys },    [K_WHEN_FULL] = { "when_full", set_when_full },
};

/* Extra key i of p's table: its value parsed by the key's own function. */
static bool set_ext(struct parse *p, struct rl_tier *t, size_t i, const char *value)
{
	const struct rl_tier_key *key = &p->ext[i];
	char msg[256] = "";
	int64_t v = 0;

	if (t->ext_given & (UINT32_C(1) << i))
		return fail(p, p->rd.lineno, "'%s' given twice in [tier %s]", key->name, t->name);
	t->ext_given |= UINT32_C(1) << i;
	if (key->parse(key, value, &v, msg, sizeof(msg)) != RL_OK)
		return msg[0] ? fail(p, p->rd.lineno, "%s", msg)
			      : fail(p, p->rd.lineno, "%s '%s' is not a valid value", key->name, value);
	t->ext[i] = v;
	return true;
}

/* The extra keys' names into buf (len bytes): "A, B or C". */
static void ext_names(const struct parse *p, char *buf, size_t len)
{
	buf[0] = '\0';
	for (size_t i = 0; i < p->n_ext; i++) {
		size_t used = strlen(buf);
		snprintf(buf + used, len - used, "%s%s", i == 0 ? "" : i + 1 == p->n_ext ? " or " : ", ",
			 p->ext[i].name);
	}
}

static bool tier_key(struct parse *p, const char *name, const char *value)
{
	struct rl_tier *t = &p->r->tiers[p->r->ntiers - 1];
	unsigned *set = &p->keys[p->r->ntiers - 1];

	for (int k = 0; k < K_COUNT; k++) {
		if (strcmp(name, tier_keys[k].name) != 0)
			continue;
		if (*set & BIT(k))
			return fail(p, p->rd.lineno, "'%s' given twice in [tier %s]", name, t->name);
		unsigned rule_keys = BIT(K_LIMIT) | BIT(K_WINDOW) | BIT(K_BURST);
		if ((k == K_POLICY && (*set & rule_keys)) || ((BIT(k) & rule_keys) && (*set & BIT(K_POLICY))))
			return fail(p, p->rd.lineno, "'%s' with '%s' in [tier %s]: policy = RULES replaces limit, "
				    "window and burst", name, k == K_POLICY ? (*set & BIT(K_LIMIT) ? "limit" :
				    *set & BIT(K_WINDOW) ? "window" : "burst") : "policy", t->name);
		*set |= BIT(k);
		return tier_keys[k].set(p, t, name, value);
	}
	for (size_t i = 0; i < p->n_ext; i++)
		if (strcmp(name, p->ext[i].name) == 0)
			return set_ext(p, t, i, value);
	/* every name: the built-in ones, then at most RL_TIER_EXT_MAX extra ones */
	char known[128 + RL_TIER_EXT_MAX * (RL_TIER_KEY_NAME_MAX + 2)] = "";
	for (int k = 0; k < K_COUNT; k++)
		snprintf(known + strlen(known), sizeof(known) - strlen(known), "%s%s", k ? ", " : "",
			 tier_keys[k].name);
	for (size_t i = 0; i < p->n_ext; i++)
		snprintf(known + strlen(known), sizeof(known) - strlen(known), ", %s", p->ext[i].name);
	return fail(p, p->rd.lineno, "unknown key '%s' in [tier %s] (%s)", name, t->name, known);
}

/* id[0..len) holds '/': a CIDR range ADDRESS/BITS, its bits past the
 * prefix zero. Fills c's range flag; false after fail(). */
static bool parse_range(struct parse *p, const char *id, size_t len, struct range *out)
{
	const char *slash = memchr(id, '/', len);
	size_t alen = (size_t)(slash - id), blen = len - alen - 1;
	char bits[8];
	int64_t b;

	*out = (struct range){ 0 };
	out->family = rl__registry_address(id, alen, out->addr);
	if (blen && blen < sizeof(bits)) {
		memcpy(bits, slash + 1, blen);
		bits[blen] = '\0';
	} else {
		bits[0] = '\0';
	}
	if (!out->family || !rl_parse_i64(bits, &b) || b < 0 || b > (out->family == 4 ? 32 : 128))
		return fail(p, p->rd.lineno, "client '%.*s' is not a CIDR range (ADDRESS/BITS: 10.0.0.0/8, "
			    "2001:db8::/32)", (int)len, id);
	out->bits = (int)b;
	out->line = p->rd.lineno;
	int width = out->family == 4 ? 32 : 128;
	for (int i = out->bits; i < width; i++)
		if (out->addr[i / 8] & (0x80 >> (i % 8))) {
			return fail(p, p->rd.lineno, "CIDR range '%.*s' has bits set past its /%d prefix", (int)len,
				    id, out->bits);
		}
	return true;
}

static bool add_client(struct parse *p, const char *tier, const char *id, size_t len)
{
	struct rl_registry *r = p->r;
	struct range range = { 0 };
	bool is_range = memchr(id, '/', len) != NULL, host = false;

	if (is_range && !parse_range(p, id, len, &range))
		return false;
	/* an address id also matches its other textual forms (and, IPv4, its
	 * IPv4-mapped IPv6 form): a host range beside the literal id */
	if (!is_range && (range.family = rl__registry_address(id, len, range.addr)) != 0) {
		host = true;
		range.bits = range.family == 4 ? 32 : 128;
		range.line = p->rd.lineno;
	}
	range.host = host;
	range.client = r->nclients;

	if (r->nclients == p->clients_cap) {
		size_t cap = p->clients_cap ? 2 * p->clients_cap : 16;
		struct client *c = realloc(r->clients, cap * sizeof(*c));
		if (!c) {
			p->nomem = true;
			return fail(p, p->rd.lineno, "out of memory");
		}
		r->clients = c;
		p->clients_cap = cap;
	}
	struct client *c = &r->clients[r->nclients];
	if (!(c->id = malloc(len + 1))) {
		p->nomem = true;
		return fail(p, p->rd.lineno, "out of memory");
	}
	memcpy(c->id, id, len);
	c->id[len] = '\0';
	c->len = len;
	snprintf(c->tier_name, sizeof(c->tier_name), "%s", tier);
	c->line = p->rd.lineno;
	c->range = is_range;
	c->host = host;
	r->nclients++;
	if (is_range || host) {
		struct range *g = realloc(r->ranges, (r->nranges + 1) * sizeof(*g));
		if (!g) {
			p->nomem = true;
			return fail(p, p->rd.lineno, "out of memory");
		}
		r->ranges = g;
		g[r->nranges++] = range;
	}
	return true;
}

/* Longest prefix first, an address id's host range before a CIDR range of
 * the same length: the lookup takes the first range that holds an address. */
static int range_cmp(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	if (x->bits != y->bits)
		return (y->bits > x->bits) - (y->bits < x->bits);
	return (int)y->host - (int)x->host;
}

static bool clients_key(struct parse *p, const char *tier, const char *value)
{
	if (!valid_name(tier))
		return fail(p, p->rd.lineno, "bad tier name '%s' in [clients] (expected TIER = ID ID ...)", tier);
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
	return any || fail(p, p->rd.lineno, "no client ids for tier '%s'", tier);
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
			return fail(p, p->rd.lineno, "unknown key '%s' in [defaults] (tier)", name);
		if (p->default_line)
			return fail(p, p->rd.lineno, "'tier' given twice in [defaults] (first on line %ld)",
				    p->default_line);
		snprintf(p->default_name, sizeof(p->default_name), "%s", value);
		p->default_line = p->rd.lineno;
		return 1;
	case SEC_NONE:
		break;
	}
	return fail(p, p->rd.lineno, "'%s' outside any section", name);
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

/*
 * A tier's policy limiter: its policy = P, or (one_rule) its one rule
 * counting the request's cost, in shadow mode when mode = shadow.
 */
static bool tier_policy(struct parse *p, struct rl_tier *t, struct rl_policy *pol, bool one_rule)
{
	const struct rl_algo *algo = t->limiter.algo;
	char msg[2 * RL_QUOTE_SIZE + 300], names[160];

	if (one_rule) {
		struct rl_rule rule = t->limiter.rule;
		if (!(p->keys[t - p->r->tiers] & BIT(K_BURST)))
			rule.burst = rule.limit;
		*pol = (struct rl_policy){ .count = 1 };
		pol->rules[0] = rule;
		pol->units[0] = true;
		if ((p->keys[t - p->r->tiers] & BIT(K_BURST)) && !algo->uses_burst)
			return fail(p, t->line, "tier '%s': burst does not apply to %s (only %s take a burst)",
				    t->name, algo->name, rl_algo_burst_names(names, sizeof(names)));
	}
	for (size_t i = 0; i < pol->count && !algo->uses_burst; i++)
		if (pol->rules[i].burst != pol->rules[i].limit)
			return fail(p, t->line, "tier '%s': policy: rule %zu: a burst does not apply to %s: it has no "
				    "bucket (only %s take a burst)", t->name, i + 1, algo->name,
				    rl_algo_burst_names(names, sizeof(names)));
	struct rl_policy_limiter *pl = malloc(sizeof(*pl));
	if (!pl) {
		p->nomem = true;
		return fail(p, t->line, "out of memory");
	}
	if (rl_policy_limiter_init(pl, algo, pol, msg, sizeof(msg)) != RL_OK) {
		free(pl);
		return fail(p, t->line, "tier '%s': policy: %s", t->name, msg);
	}
	rl_policy_set_shadow(pl, t->shadow);
	t->policy = pl;
	t->limiter = *rl_policy_as_limiter(pl);
	return true;
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
			if (k & (BIT(K_ALGORITHM) | BIT(K_LIMIT) | BIT(K_WINDOW) | BIT(K_BURST) | BIT(K_POLICY) |
				  BIT(K_MODE) | BIT(K_MAX_KEYS) | BIT(K_WHEN_FULL)))
				return fail(p, t->line, "tier '%s' is unlimited: it takes no algorithm, limit, "
					    "window, burst, policy, mode, max_keys or when_full", t->name);
			if (t->ext_given) {
				char names[RL_TIER_EXT_MAX * (RL_TIER_KEY_NAME_MAX + 4)];
				ext_names(p, names, sizeof(names));
				return fail(p, t->line, "tier '%s' is unlimited: it takes no %s", t->name, names);
			}
			continue;
		}
		static const int needed[] = { K_ALGORITHM, K_LIMIT, K_WINDOW };
		const char *missing = NULL;
		/* a policy stands for limit and window */
		for (size_t n = 0; n < ((k & BIT(K_POLICY)) ? 1 : sizeof(needed) / sizeof(needed[0])) && !missing; n++)
			if (!(k & BIT(needed[n])))
				missing = tier_keys[needed[n]].name;
		if (missing)
			return fail(p, t->line, "tier '%s' has no '%s' (or 'policy = RULES', or 'unlimited = true')",
				    t->name, missing);
		if ((k & BIT(K_POLICY)) || t->shadow) {
			if (!tier_policy(p, t, &p->policies[i], !(k & BIT(K_POLICY))))
				return false;
			continue;
		}
		if ((k & BIT(K_BURST)) && !t->limiter.algo->uses_burst)
			return fail(p, t->line, "tier '%s': burst does not apply to %s (only %s take a burst)",
				    t->name, t->limiter.algo->name, rl_algo_burst_names(msg, sizeof(msg)));
		struct rl_rule rule = t->limiter.rule;
		if (!(k & BIT(K_BURST)))
			rule.burst = rule.limit;
		if (rl_limiter_init(&t->limiter, t->limiter.algo, &rule, msg, sizeof(msg)))
			return fail(p, t->line, "tier '%s': %s", t->name, msg);
	}
	for (size_t i = 0; i < r->nclients; i++)
		if (!find_tier(r, r->clients[i].tier_name, &r->clients[i].tier))
			return fail(p, r->clients[i].line, "client '%s' is mapped to tier '%s', which is not defined",
				    r->clients[i].id, r->clients[i].tier_name);
	/* the ranges were added in the order of their clients */
	for (size_t i = 0, k = 0; i < r->nclients; i++)
		if (r->clients[i].range || r->clients[i].host)
			r->ranges[k++].tier = r->clients[i].tier;
	for (size_t i = 0; i < r->nranges; i++)
		for (size_t j = i + 1; j < r->nranges; j++) {
			const struct range *a = &r->ranges[i], *b = &r->ranges[j];
			if (a->family != b->family || a->bits != b->bits || memcmp(a->addr, b->addr, sizeof(a->addr)) != 0)
				continue;
			const struct client *ca = &r->clients[a->client], *cb = &r->clients[b->client];
			/* an address id beside the /32 or /128 range of it: the id wins (its
			 * host range sorts first); one id twice: the clients' own check says so */
			if (a->host != b->host || (ca->len == cb->len && memcmp(ca->id, cb->id, ca->len) == 0))
				continue;
			return fail(p, b->line, a->host ? "one address mapped twice (lines %ld and %ld)"
							: "one CIDR range mapped twice (lines %ld and %ld)",
				    a->line, b->line);
		}
	if (r->nranges)
		qsort(r->ranges, r->nranges, sizeof(*r->ranges), range_cmp);
	if (r->nclients)
		qsort(r->clients, r->nclients, sizeof(*r->clients), rl__registry_client_cmp);
	for (size_t i = 1; i < r->nclients; i++)
		if (rl__registry_client_cmp(&r->clients[i - 1], &r->clients[i]) == 0) {
			const struct client *a = &r->clients[i - 1], *b = &r->clients[i];
			const struct client *later = a->line > b->line ? a : b;
			return fail(p, later->line, "client '%s' mapped twice (lines %ld and %ld)", a->id,
				    a->line < b->line ? a->line : b->line, later->line);
		}
	if (!p->default_line)
		return fail(p, p->rd.lineno, "end of file: no default tier (add [defaults] with tier = NAME)");
	if (!find_tier(r, p->default_name, &r->default_tier))
		return fail(p, p->default_line, "default tier '%s' is not defined", p->default_name);
	if (r->ntiers && !(r->stores = calloc(r->ntiers, sizeof(*r->stores)))) {
		p->nomem = true;
		return fail(p, p->rd.lineno, "out of memory");
	}
	if (mtx_init(&r->create_lock, mtx_plain) != thrd_success) {
		p->nomem = true;
		return fail(p, p->rd.lineno, "cannot create a mutex");
	}
	r->lock_ok = true;
	if (!rl__random_seed(&r->seed)) {
		p->nomem = true;
		return fail(p, p->rd.lineno, "cannot seed the key hash: %s", strerror(errno));
	}
	return true;
}

_Static_assert(RL_TIER_KEY_NAME_MAX == 31, "good_ext's message names the longest extra key name");
_Static_assert(RL_TIER_EXT_MAX <= 32, "a tier's ext_given has a bit per extra key");

/* A caller's table of extra keys: true, or false with the problem in err. */
static bool good_ext(const struct rl_tier_key *keys, size_t n, char *err, size_t err_len)
{
	if (n > RL_TIER_EXT_MAX) {
		snprintf(err, err_len, "extra tier keys: %zu, more than %d", n, RL_TIER_EXT_MAX);
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		const char *name = keys[i].name;
		const char *why = NULL;
		size_t len = name ? strlen(name) : 0;
		if (!name || !keys[i].parse)
			why = "no name or no parse function";
		else if (!len || len > RL_TIER_KEY_NAME_MAX ||
			 strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_") != len)
			why = "its name is not 1-31 of a-z 0-9 _";
		for (int k = 0; !why && k < K_COUNT; k++)
			if (strcmp(name, tier_keys[k].name) == 0)
				why = "its name is a built-in key's";
		for (size_t j = 0; !why && j < i; j++)
			if (strcmp(name, keys[j].name) == 0)
				why = "its name is an earlier key's";
		if (why) {
			snprintf(err, err_len, "extra tier key %zu: %s", i, why);
			return false;
		}
	}
	return true;
}

int rl_registry_load(struct rl_registry **out, const char *path, char *err, size_t err_len)
{
	return rl_registry_load_with(out, path, NULL, 0, err, err_len);
}

int rl_registry_load_with(struct rl_registry **out, const char *path, const struct rl_tier_key *keys,
			  size_t nkeys, char *err, size_t err_len)
{
	struct parse p = { .path = path, .ext = keys, .n_ext = nkeys, .err = err, .err_len = err ? err_len : 0 };
	int rc;

	if (p.err_len)
		err[0] = '\0';
	if (!out || !path || (nkeys && !keys))
		return RL_EINVAL;
	*out = NULL;
	if (!good_ext(keys, nkeys, p.err, p.err_len))
		return RL_EINVAL;
	if (!(p.rd.f = fopen(path, "r"))) {
		snprintf(p.err, p.err_len, "%s: cannot open: %s", path, strerror(errno));
		return RL_ENOTFOUND;
	}
	if (!(p.r = calloc(1, sizeof(*p.r)))) {
		fclose(p.rd.f);
		snprintf(p.err, p.err_len, "%s: out of memory", path);
		return RL_ENOMEM;
	}
	p.rd.on_section = section_line;
	p.rd.arg = &p;
	p.rd.stop = &p.failed;
	rc = rl__ini_parse(&p.rd, handler, &p);
	if (rc > 0 && !p.failed && (!p.rd.error_line || rc < p.rd.error_line)) {
		fail(&p, rc, "syntax error (expected '[section]' or 'name = value')");
	} else if (p.rd.error_line && !p.failed) {
		fail(&p, p.rd.error_line, "%s", p.rd.error);
	} else if (rc < 0 && !p.failed) {
		/* the parser's only negative result: its line buffer */
		p.nomem = true;
		fail(&p, p.rd.lineno, "out of memory");
	}
	if (!p.failed)
		finish(&p);
	fclose(p.rd.f);
	free(p.keys);
	free(p.policies);
	if (p.failed) {
		rl_registry_destroy(p.r);
		return p.nomem ? RL_ENOMEM : RL_EINVAL;
	}
	*out = p.r;
	return RL_OK;
}

