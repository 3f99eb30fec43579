/*
 * registry.h - tiers of rules from an INI file: client id -> tier ->
 * limiter, one rl_store per limited tier.
 *
 * The file (see examples/tiers.ini):
 *
 *   [tier NAME]            NAME: 1-63 of A-Z a-z 0-9 _ -, unique
 *   algorithm = gcra       an algorithm's name (ratelab/algo_list.h)
 *                                                             (required)
 *   limit     = 10         requests (units) per window, 1..10^12 (required)
 *   window    = 1s         an integer with unit ns, us, ms, s, m or h
 *                                                             (required)
 *   burst     = 20         bucket capacity, 1..10^12, for token_bucket, gcra
 *                          and leaky_bucket only     (default: limit)
 *   policy    = 10/1s + 1000/1h
 *                          instead of limit, window and burst (never
 *                          with them): 1 to 8 rules N/W[:bB][:units]
 *                          joined by '+', decided together (policy.h)
 *   mode      = enforce    or shadow: every request admitted, its state
 *                          kept as when enforcing; an answer enforcing
 *                          would have refused says would_reject and is
 *                          counted (rl_tier_would_reject)
 *                                                     (default enforce)
 *   on_error  = fail_open  or fail_closed: the verdict when the store cannot
 *                          decide (out of memory, RL_EFULL)   (default fail_open)
 *   max_keys  = 1000000    the tier's store cap, 1..2^32       (default 10^6)
 *   when_full = evict      or fail_open, fail_closed (store.h) (default evict)
 *   KEY       = VALUE      an extra key the caller asked for (below)
 *
 *   [tier NAME]
 *   unlimited = true       every request allowed; no algorithm, limit,
 *                          window, burst, policy, mode, max_keys,
 *                          when_full or extra key then
 *
 *   [clients]
 *   TIER = ID ID ...       client ids (any non-blank text, ':' included)
 *                          mapped to TIER; a client appears at most once.
 *                          An ID holding '/' is a CIDR range, ADDRESS/BITS
 *                          (10.0.0.0/8, 2001:db8::/32; the bits past the
 *                          prefix zero): a client that is an IPv4 or IPv6
 *                          address and no listed id takes the tier of the
 *                          longest range holding it; a range is never a
 *                          literal id. Addresses match in every textual
 *                          form (inet_pton's: 2001:DB8::1 is 2001:db8:0::1,
 *                          a listed address id included), and an
 *                          IPv4-mapped IPv6 address (::ffff:10.1.2.3, as a
 *                          dual-stack server reports an IPv4 client) is
 *                          its IPv4 address (IPv4 ranges and ids hold it;
 *                          an IPv4 /b counts as the IPv6 /(96 + b)). An
 *                          address id beats a range of the same length;
 *                          two forms of one address id are an error
 *
 *   [defaults]
 *   tier = NAME            the tier of every other client     (required)
 *
 * Comments start with ';' or '#' at the start of a line, or ';' after a
 * blank within one. Lines are at most 65535 characters, the newline not
 * counted; a UTF-8 byte order mark before line 1 is skipped. Keys and
 * section headers start in column 1: an indented one is refused (values do
 * not continue over lines). Any mistake (unknown section or key, a key
 * given twice, a bad number or duration, an unknown algorithm, a policy
 * beside limit, window or burst, a bad policy (its rules, more than 8: in
 * rl_policy_parse's words after "policy: "), a mode other than enforce or
 * shadow, a duplicate tier, client or range, a bad CIDR range, a client or default naming a
 * tier that is not defined,
 * no default, an overlong line, a NUL byte, an indented line) fails the
 * load with one message "FILE:LINE: problem"; a registry is created whole
 * or not at all.
 *
 * Extra keys. A part built beside the core, such as a backend keeping the
 * limiters' state elsewhere, keeps its own per-tier settings in the same
 * file without the core knowing them: it defines a table of struct
 * rl_tier_key (its header documents the keys), and its caller passes the
 * table to rl_registry_load_with. Extra keys follow the built-in keys'
 * rules: each at most once per tier, none in an unlimited tier, mistakes
 * reported as "FILE:LINE: problem", and the message for an unknown key
 * lists them after the built-in ones. Each key's own function parses its
 * value into an int64_t, which the tier keeps by the key's place in the
 * table (rl_tier_ext).
 *
 * Stores. A limited tier's store is created on the tier's first check, not
 * at load: loading validates without allocating (a store's table takes
 * about 24 to 43 bytes per max_keys, store.h). When the allocation fails,
 * that check is decided by the tier's on_error with store_error RL_ENOMEM,
 * and the next check of the tier tries again. Every store hashes keys with
 * one seed per registry, drawn from getrandom(), so clients cannot choose
 * keys that collide (store.h).
 *
 * Policies and shadow mode. A tier with policy = P decides by the policy
 * limiter of its algorithm and P (policy.h): its limiter is that
 * policy's as one limiter (rl_policy_as_limiter: the combined answer; its
 * rule the policy's rule of the longest window), its policy the policy
 * limiter. A tier in mode = shadow is a policy too, of its one rule when
 * it has no policy (counting the request's cost, as the rule does).
 * Memory per key: rl_policy_state_size (16 bytes + the rules' states).
 *
 * Reload (rl_registry_reload). A tiers file loaded again, changed, takes
 * the place of the registry's tiers and clients; a tier of the same name,
 * max_keys and when_full and the same state shape keeps its store and its
 * keys, whose states then carry the change as the library states it (each
 * key's state converted at its next check from the rule that last wrote
 * it; store.h, Rule change):
 *   - one rule, of the same algorithm, before and after (algo.h,
 *     rl_limiter_rerule);
 *   - a policy (policy = P, or a shadow tier's policy of its one rule) of
 *     the same algorithm and rule count before and after: rules matched
 *     by position, rule i's state converted from the old rule i to the
 *     new one as rl_limiter_rerule converts one rule's (policy.h,
 *     rl_policy_rerule; a changed ":units" mark keeps what the rule
 *     counted as used); a share some new rule can never admit changes
 *     nothing, the conversion included. The same rules in another mode
 *     (enforce <-> shadow) keep the keys as they are: a shadow tier
 *     decides and keeps state exactly as enforcing (rl_tier_would_reject
 *     counts from the reload).
 * Any other tier starts with no keys: new, renamed, another algorithm or
 * store size, another rule count, one rule before and a policy after or
 * the reverse (their states' shapes differ: so a tier without policy =
 * that moves between enforce and shadow, its one rule then a policy of
 * one rule, starts afresh; written policy = N/W it keeps its keys). A
 * store no new tier keeps is freed; the older policy limiters a kept
 * store's keys were written under live until no key needs them
 * (rl_store_reads_policy).
 *
 * Concurrency: between loads the tiers and the client map are
 * immutable; rl_registry_check may be called from any number of threads
 * (store.h; a tier's store is created once, under the registry's mutex).
 * Destroy and reload must not race with anything: a tier pointer taken
 * before a reload (an answer's, rl_registry_resolve's) is invalid after
 * it.
 */
#ifndef RATELAB_REGISTRY_H
#define RATELAB_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ratelab/algo.h"
#include "ratelab/policy.h"
#include "ratelab/store.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RL_TIER_NAME_MAX 63
#define RL_TIER_DEFAULT_MAX_KEYS 1000000
/* The most extra keys one load takes (rl_registry_load_with). */
#define RL_TIER_EXT_MAX 8
/* An extra key's name is 1 to this many of a-z 0-9 _. */
#define RL_TIER_KEY_NAME_MAX 31

struct rl_tier {
	char name[RL_TIER_NAME_MAX + 1];
	bool unlimited;
	bool fail_closed;          /* on_error = fail_closed */
	struct rl_limiter limiter; /* unset when unlimited; a policy's as one limiter when policy */
	/* policy = P or mode = shadow: the tier's policy limiter (owned by the
	 * registry), else NULL */
	const struct rl_policy_limiter *policy;
	bool shadow;               /* mode = shadow */
	size_t max_keys;
	enum rl_when_full when_full;
	/* The extra keys' values, by their place in the load's table: read
	 * them with rl_tier_ext. Bit i of ext_given: key i was given. */
	int64_t ext[RL_TIER_EXT_MAX];
	uint32_t ext_given;
	long line;                 /* the line of its [tier NAME] */
};

/*
 * An extra tier key (rl_registry_load_with): a setting of a part built
 * beside the core, kept in [tier NAME] sections as KEY = VALUE.
 */
struct rl_tier_key {
	const char *name;  /* 1-RL_TIER_KEY_NAME_MAX of a-z 0-9 _, no built-in key's */
	const char *label; /* the value's name in a listing, its unit in it
			    * (ratelab check prints LABEL=V); NULL: name */
	/*
	 * value (trimmed, comments removed) into *out: RL_OK, or RL_EINVAL
	 * with the problem in msg (msg_len >= 1, a longer one cut short),
	 * which the load reports as "FILE:LINE: msg".
	 */
	int (*parse)(const struct rl_tier_key *key, const char *value, int64_t *out, char *msg,
		     size_t msg_len);
};

struct rl_registry;

/* The answer to one client's request. */
struct rl_answer {
	int verdict;               /* RL_ALLOWED or RL_REJECTED */
	const struct rl_tier *tier;
	struct rl_decision d;      /* zeros for an unlimited tier */
	int store_error;           /* RL_OK, or the store's error that on_error decided */
	/* a tier in shadow mode admitted a request enforcing would have
	 * refused (d keeps the answer it would have had: retry_after_ns > 0) */
	bool would_reject;
};

/*
 * Loads path. Returns RL_OK, RL_EINVAL (err gets "FILE:LINE: problem"),
 * RL_ENOTFOUND (the file cannot be opened) or RL_ENOMEM (an allocation
 * failed, or no mutex or random seed could be had). err may be NULL when
 * err_len is 0; a message that does not fit is cut short.
 */
int rl_registry_load(struct rl_registry **out, const char *path, char *err, size_t err_len);

/*
 * rl_registry_load, the tiers also taking the nkeys extra keys of keys
 * (NULL when nkeys is 0); rl_registry_load is this with none. RL_EINVAL
 * too for a bad table (more than RL_TIER_EXT_MAX keys, a NULL name or
 * parse, a bad name, one name twice or a built-in key's): err then says
 * what is wrong ("extra tier key I: problem"). keys must outlive the
 * load only.
 */
int rl_registry_load_with(struct rl_registry **out, const char *path, const struct rl_tier_key *keys,
			  size_t nkeys, char *err, size_t err_len);
void rl_registry_destroy(struct rl_registry *r);

/*
 * Loads path (with the nkeys extra keys of keys, as rl_registry_load_with)
 * into r's place: see Reload above. RL_OK; or, leaving r exactly as it
 * was, rl_registry_load_with's errors (err "FILE:LINE: problem"), or
 * RL_ENOMEM / RL_EFULL when a kept store cannot take the new rule
 * (rl_store_set_rule; err says which tier). Not concurrent with anything.
 */
int rl_registry_reload(struct rl_registry *r, const char *path, const struct rl_tier_key *keys, size_t nkeys,
		       char *err, size_t err_len);

/*
 * Requests tier t, in shadow mode, admitted that enforcing would have
 * refused since it was loaded; 0 for a tier not in shadow mode.
 */
uint64_t rl_tier_would_reject(const struct rl_tier *t);

/*
 * The value of extra key i (its place in the table the registry was loaded
 * with) in tier t: true and *v (v may be NULL) when the tier gave it,
 * else false and *v = 0.
 */
bool rl_tier_ext(const struct rl_tier *t, size_t i, int64_t *v);

/* Tiers in file order, one array: tier i is rl_registry_tier_at(r, 0) + i. */
size_t rl_registry_tier_count(const struct rl_registry *r);
const struct rl_tier *rl_registry_tier_at(const struct rl_registry *r, size_t i);
const struct rl_tier *rl_registry_default(const struct rl_registry *r);

/* Mapped clients, sorted by id: the i-th id and its tier. */
size_t rl_registry_client_count(const struct rl_registry *r);
const char *rl_registry_client_at(const struct rl_registry *r, size_t i, const struct rl_tier **tier);

/* The tier of client (len bytes; NULL with len 0: the empty id): its
 * mapping, else the longest CIDR range holding it, else the default. */
const struct rl_tier *rl_registry_resolve(const struct rl_registry *r, const char *client, size_t len);

/*
 * Decides one request of client at now_ns in its tier. Returns the verdict
 * (also in ans), or RL_ERANGE / RL_EINVAL for a caller's mistake; then
 * ans->verdict is RL_REJECTED (an error never reads as allowed). A NULL
 * client with len 0 is the empty id.
 */
int rl_registry_check(struct rl_registry *r, const char *client, size_t len, int64_t now_ns,
		      struct rl_answer *ans);

/*
 * The same for a request of cost units (algo.h) in the tier's rule; an
 * unlimited tier admits any valid cost. RL_EINVAL also for a cost outside
 * [1, RL_COST_MAX]. rl_registry_check is this with cost 1.
 */
int rl_registry_check_n(struct rl_registry *r, const char *client, size_t len, int64_t now_ns,
			int64_t cost, struct rl_answer *ans);

#ifdef __cplusplus
}
#endif
#endif
