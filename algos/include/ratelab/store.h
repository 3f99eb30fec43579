/*
 * store.h - the concurrent per-key store: key bytes -> per-key state of one
 * limiter, for every algorithm, with idle-key eviction and a hard cap.
 *
 * Layout. The table is allocated once, sized for max_keys: buckets of
 * RL_STORE_BUCKET_SLOTS slots, each bucket one spinlock, one 32-bit tag per
 * slot and the slots' states side by side. A key hashes (64 bits) to a
 * first bucket and a 32-bit tag, and its second bucket follows from those
 * two; it lives in one of its two buckets. A new key goes to its first
 * bucket when that has a free slot, else to its second; when both are
 * full, a key of theirs whose other bucket has a free slot moves there to
 * make room; a key found in its second bucket moves back to its first
 * once that has room. So nearly every key is found in its first bucket
 * (at 6/7 occupancy, measured, about 95 % of them): a check of a stored
 * key searches one bucket's 16 tags, rarely two. There are
 * ceil(max_keys * 7 / 6) slots or more, so the table is at most 6/7 full.
 * Bytes per key at the cap: (8 + 4 * 16 + 16 * slot) / 16 * 7 / 6, where
 * slot is the algorithm's state_size rounded up to 8, plus for a state
 * that owns memory its heap_bytes (algo.h: the allocator's chunks, headers
 * included). rl_store_stats counts them as held.
 *
 * Keys are fingerprints: the store keeps no key bytes. Two different keys
 * share one state iff they have the same 32-bit tag and meet in a bucket;
 * a check of a key new to the store compares its tag with the at most 32
 * tags of its two buckets, so it wrongly finds another key's state with
 * probability below 32 / (2^32 - 1), about 7.5e-9 (about 6e-9 at 6/7
 * occupancy): over 10^7 distinct keys, about 0.06 such merges are
 * expected. A merged pair behaves as one key (its requests share one quota)
 * until its state goes idle and is evicted. These bounds assume the keys
 * are not chosen knowing cfg.hash_seed: the default hash is fast, not
 * cryptographic, so anyone who knows the seed can find keys that share a
 * state. Keep the seed secret (the registry draws it from getrandom()) or
 * pass a keyed cfg.hash.
 *
 * Concurrency contract: every function but create/destroy may be called
 * from any number of threads at once (unless cfg.one_thread is set: then
 * no two calls may overlap); destroy must not race with anything.
 * A check locks the key's first bucket, when the key is not there its
 * second, and when not there either both (in index order). It never waits
 * for another bucket while it holds one: the first bucket, taken while the
 * second is held to move the key back to it, and the buckets searched
 * while the key's two are held (the sweeps before the cap, the keys moved
 * to make room, the victim search) are only try-locked, and the one sweep
 * after an insertion locks its bucket only after both of the key's
 * buckets are released, so no cycle of waits can form. A key moves
 * between its buckets only while both are locked, state and tag together.
 * All of a key's checks are therefore serialised and each runs the
 * algorithm's check on the one state, exactly as a single thread would, in
 * the order the locks were taken: N threads on one key admit exactly what
 * one thread would. There is no global lock; the only shared writes are
 * the key count and the sweep cursor (when a key is new or dropped), the
 * heap byte count of states that own memory (whenever one grows or
 * shrinks) and the statistics counters, all relaxed atomics.
 *
 * Eviction. A key whose state is idle (the algorithm's is_idle: its full
 * quota is back) decides exactly like a fresh key, so it may be dropped
 * without changing any decision. Each insertion of a new key first drops
 * idle keys of its own two buckets and then sweeps one more bucket at a
 * shared cursor, never a pass over the table. Bounded work per check: a
 * key already stored costs one or two buckets' tag scans and one check
 * (plus one more bucket's and a move when it goes back to its first); a
 * new key below the cap 3 buckets, 48 is_idle calls, and when both its
 * buckets are full up to 32 more buckets try-locked to move a key; a new key at the cap
 * up to 7 buckets, 112 is_idle calls (its two, SWEEP_WHEN_FULL = 4
 * try-swept, the one after insertion) and, with RL_FULL_EVICT, the victim
 * search: one reset computation (rl_limiter_reset_ns) per key
 * of its two buckets, and when those are empty up to EVICT_SEARCH = 8 more
 * buckets try-locked, 128 more reset computations at most. Idleness is judged at the time of the
 * check doing the sweep minus cfg.idle_grace_ns: the drop is invisible when
 * no later request of the dropped key carries an earlier time than that
 * (true for a monotonic clock read just before the call, as long as
 * threads do not lag each other by more than the grace).
 *
 * Full. A new key finds the store full when max_keys keys are stored or
 * when both its buckets are full of non-idle keys none of which can move
 * to its other bucket (measured: none of the 10^7 insertions of keys 0 to
 * 10^7 - 1, as 8-byte ids, that fill a gcra store to its cap, thread-safe
 * or one-thread). Then cfg.when_full decides:
 * RL_FULL_EVICT drops the key nearest to full quota (the least reset_ns)
 * among the keys of its two buckets (or, when those are empty, of the next
 * non-empty bucket at the sweep cursor) and stores the new key in its
 * place; RL_FULL_FAIL_OPEN decides as a fresh key would, storing nothing;
 * RL_FULL_FAIL_CLOSED rejects with remaining 0 and retry_after_ns =
 * reset_ns = the rule's window (the store cannot know when room frees up).
 * RL_FULL_EVICT returns RL_EFULL when every candidate bucket was busy.
 *
 * Rule change (rl_store_set_rule): the store carries algo.h's meaning of
 * a rule change on a live key. A key's state keeps the rule that last
 * wrote it; the key's first check under another rule converts it
 * (rl_limiter_rerule, at that check's time) and decides under the new
 * rule, exactly as a caller holding the state and that rule's index
 * would (a cost the new rule can never admit changes nothing, the
 * conversion included). A rule change locks every bucket (in index
 * order, as a check takes two: checks wait for it, none is decided half
 * under one rule) and, in one pass over the table, moves each key
 * written under the rule it replaces out of its bucket's tags, into a
 * side table of one (tag, rule) per slot that records the writer; keys
 * written under the new rule come back. So the fast paths, which search
 * the tags, never see an older key: its check misses them and, in the
 * locked search that a new key takes, finds it in the side table and
 * converts it. On a store whose rule never changed, the check of a key
 * found in its first bucket (about 95 % at the cap) runs the instructions
 * it ran before; a new key's tests its two buckets' older masks, and one
 * in its second bucket masks the older slots out of the free ones it could
 * move to (the perf gate: +0.1 instruction per check averaged over its
 * store/gcra entries' keys).
 * Until a key is checked again its state stays under its writer's rule:
 * idle sweeps and the eviction order judge it under that rule (a state
 * idle under it converts to an idle one), and a settle settles it under
 * it. The side table (8 bytes per slot) and the rules
 * (RL_STORE_MAX_RULES) are allocated on the first change and counted in
 * the stats' bytes. Memory per key otherwise is unchanged.
 */
#ifndef RATELAB_STORE_H
#define RATELAB_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ratelab/algo.h"

#ifdef __cplusplus
extern "C" {
#endif

struct rl_store;

/* What a check does for a new key when the store holds max_keys keys. */
enum rl_when_full {
	RL_FULL_EVICT,       /* reclaim the key nearest to full quota, then admit the new key */
	RL_FULL_FAIL_OPEN,   /* decide as a fresh key would, without storing it */
	RL_FULL_FAIL_CLOSED, /* reject, without storing it */
};

/* Slots per bucket: one lock and 16 tags per bucket. */
#define RL_STORE_BUCKET_SLOTS 16

/* The largest state the store takes, bytes: a policy's (policy.h: RL_POLICY_MAX_STATE). */
#define RL_STORE_MAX_STATE (16 + 8 * RL_ALGO_MAX_STATE)

/*
 * max_keys above this is refused (RL_EINVAL): 2^32 keys. Its table alone
 * is about 100 GiB for gcra (23.9 bytes per key), more than any machine
 * this runs on should give one limiter; larger values could only fail to
 * allocate (or abort under ASan, whose allocations stop at 2^40 bytes).
 */
#define RL_STORE_MAX_KEYS ((size_t)1 << 32)

/*
 * The most rules whose keys one store holds at once: the current one and
 * up to RL_STORE_MAX_RULES - 1 older rules that some key not checked
 * since was last written under (rl_store_set_rule: RL_EFULL beyond).
 */
#define RL_STORE_MAX_RULES 64

/* A 64-bit hash of len bytes of key under seed. */
typedef uint64_t (*rl_store_hash_fn)(const void *key, size_t len, uint64_t seed);

struct rl_store_config {
	const struct rl_limiter *limiter; /* copied by rl_store_create: need not outlive the store */
	size_t max_keys;                  /* hard cap on stored keys, >= 1 */
	enum rl_when_full when_full;
	/* Optional; zero is the default. */
	int64_t idle_grace_ns;            /* ns; idleness is judged at now - grace */
	uint64_t hash_seed;               /* seed of the key hash */
	rl_store_hash_fn hash;            /* NULL: rl_store_hash */
	/*
	 * true: the caller promises that no two calls on this store overlap
	 * (one store per worker thread, or calls under the caller's own
	 * lock), and the checks take no bucket locks: no locked instruction
	 * on the path of a stored key. Decisions are the same; concurrent
	 * calls on such a store are a data race (undefined). On x86-64 its
	 * cost-1 verdicts search a bucket's tags with AVX2 where the CPU has
	 * it (chosen by rl_store_create; a build with -DRL_NO_AVX2 keeps SSE2).
	 */
	bool one_thread;
};

struct rl_store_stats {
	size_t keys;            /* keys stored now */
	size_t slots;           /* table slots allocated */
	size_t bytes;           /* every byte the store holds: its struct, the table and,
				 * for states that own memory, their heap_bytes */
	uint64_t evicted_idle;  /* keys dropped because they were back at full quota */
	uint64_t evicted_full;  /* keys dropped to make room at the cap */
	uint64_t full_decided;  /* checks decided by the when_full policy */
	/* for a store of a policy limiter (policy.h): requests its shadow mode
	 * admitted that enforcing would have refused (rl_policy_would_reject:
	 * the policy limiter counts them, so stores sharing one count them
	 * together); 0 for one rule */
	uint64_t would_reject;
};

/*
 * Returns RL_OK, RL_EINVAL (no limiter, max_keys 0 or above
 * RL_STORE_MAX_KEYS, a state larger than RL_STORE_MAX_STATE, an algorithm
 * that sets some but not all of release, heap_bytes and reset_ns, a
 * negative grace) or RL_ENOMEM. The whole table is allocated here (zeroed pages the
 * system maps on first touch) and counted in the stats.
 */
int rl_store_create(struct rl_store **out, const struct rl_store_config *cfg);

/* Releases every state and the table. Not concurrent with any other call. */
void rl_store_destroy(struct rl_store *s);

/*
 * Decides one request of key (key_len bytes) at now_ns, as
 * rl_limiter_check does on the key's state. Thread-safe unless
 * cfg.one_thread (Concurrency above). Returns RL_ALLOWED, RL_REJECTED,
 * RL_ERANGE (now_ns outside [0, RL_TIME_MAX_NS]; nothing is stored),
 * RL_ENOMEM (a state that owns memory could not grow), RL_EFULL (see
 * Full) or RL_EINVAL (NULL store, or NULL key with key_len > 0).
 */
int rl_store_check(struct rl_store *s, const void *key, size_t key_len, int64_t now_ns,
		   struct rl_decision *out);

/*
 * The same for a request of cost units (algo.h), as rl_limiter_check_n.
 * RL_EINVAL also for a cost outside [1, RL_COST_MAX] (nothing is stored).
 * rl_store_check is this with cost 1.
 */
int rl_store_check_n(struct rl_store *s, const void *key, size_t key_len, int64_t now_ns,
		     int64_t cost, struct rl_decision *out);

/*
 * Changes the store's rule to lim's (copied): the same algorithm, another
 * limit, window or burst (Rule change above). Thread-safe with checks
 * (not with destroy) unless cfg.one_thread. Returns RL_OK (also when the
 * rule is the store's already), RL_EINVAL (NULL s or lim, another
 * algorithm, an algorithm with no stated rule change; for a store of a
 * policy's limiter, a limiter that is not a policy of the same algorithm
 * and rule count: policy.h, rl_policy_rerule), RL_ENOMEM (the side table of the first change could not be allocated;
 * nothing changed) or RL_EFULL (keys of RL_STORE_MAX_RULES rules are
 * stored already, none checked since: nothing changed). O(slots), every
 * bucket locked meanwhile.
 */
int rl_store_set_rule(struct rl_store *s, const struct rl_limiter *lim);

/*
 * A policy's limiter given to rl_store_set_rule is not copied: the store
 * reads its policy limiter (policy.h) for the keys written under it, and
 * the change is another policy limiter's, identified by its address
 * (rl_policy_of(lim) == rl_policy_of(the other) or not: two policy
 * limiters of equal rules are two rules, converting keys identically).
 * rl_store_reads_policy tells whether the store may still read pl: true
 * while pl's is the store's rule or some key not checked since was
 * written under it; once false it stays false (until pl is set again) and
 * pl may be freed. Every bucket locked meanwhile, O(slots). Not
 * concurrent with rl_store_set_rule.
 */
struct rl_policy_limiter;
bool rl_store_reads_policy(struct rl_store *s, const struct rl_policy_limiter *pl);

/* The limiter the store decides with now (its rule the last set). Not
 * concurrent with rl_store_set_rule. */
const struct rl_limiter *rl_store_limiter(const struct rl_store *s);

/*
 * Settles a request of key admitted at admitted_ns by delta units at
 * now_ns (settle.h: rl_limiter_settle, or rl_policy_settle for a policy
 * limiter), under the key's bucket locks, on the key's state under the
 * rule that wrote it. A settle never creates state: RL_ENOTFOUND when the
 * store holds none for the key (never checked, or dropped: idle, which
 * for fixed_window, sliding_log and sliding_counter leaves nothing a
 * settle could change and for the buckets means a drained bucket, whose
 * late charge is then forgiven; or evicted at the cap). Else RL_OK, RL_ERANGE
 * (admitted_ns or now_ns outside [0, RL_TIME_MAX_NS], admitted_ns after
 * now_ns) or RL_EINVAL (NULL store, NULL key with key_len > 0, delta 0 or
 * outside [-RL_COST_MAX, RL_COST_MAX], an algorithm that does not settle,
 * the settle's own refusals); the arguments are checked before the key
 * is looked up.
 */
int rl_store_settle(struct rl_store *s, const void *key, size_t key_len, int64_t admitted_ns, int64_t delta,
		    int64_t now_ns);

/*
 * A snapshot of the counters; under concurrent checks each field is exact
 * on its own but the fields may be from slightly different instants.
 */
void rl_store_stats(const struct rl_store *s, struct rl_store_stats *out);

/*
 * A secret seed for cfg.hash_seed from the system's random source: RL_OK,
 * or RL_EIO when the system gave none.
 */
int rl_store_random_seed(uint64_t *seed);

/* The default key hash: 64 bits, seeded; stable across runs and machines. */
uint64_t rl_store_hash(const void *key, size_t len, uint64_t seed);

#ifdef __cplusplus
}
#endif
#endif
