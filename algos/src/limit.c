/*
 * limit.c - rl_limit: one rl_limiter, the unnamed key's state behind one
 * spinlock (spin.h; or, for gcra where the machine has a 16-byte
 * compare-and-swap, behind none: gcra_cas.h), and an rl_store for
 * named keys made on first use.
 *
 * Invariant: every decision is rl_limiter_check (or, for a verdict alone,
 * the algorithm's verdict op: the same decision, algo.h) on the one state
 * of its key, with that key's checks serialised (the unnamed key by l->lock, a
 * named key by its store bucket), so any interleaving of threads decides
 * exactly as one thread would in the order the locks were taken. The store
 * pointer goes from NULL to a store once, under l->store_lock, published
 * with release order; readers load it with acquire order.
 *
 * Why a spinlock and not a mutex: a check holds the lock for one
 * algorithm step (at most a sliding_log ring's growth), and
 * the spinlock costs one locked operation where a pthread mutex costs two
 * once the process has had a second thread (spin.h). The store's
 * creation, which allocates a table, keeps a mutex.
 */
#define _POSIX_C_SOURCE 200809L

#include "ratelab/limit.h"

#include <errno.h>
#include <pthread.h>
#include <stdalign.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compat.h"
#include "gcra_cas.h"
#include "ratelab/policy.h"
#include "ratelab/store.h"
#include "spin.h"
#include "verdicts.h"

/* A verdict alone (out == NULL) on the unnamed key. */
typedef int allow_fn(struct rl_limit *l, int64_t now_ns);

struct rl_limit {
	struct rl_limiter limiter;
	rl__spin lock;                     /* serialises the unnamed key's checks */
	pthread_mutex_t store_lock;       /* serialises the store's creation */
	_Atomic(struct rl_store *) store; /* named keys; NULL until the first keyed call */
	uint64_t seed;                    /* the store's key hash seed */
	bool lock_free;                   /* the unnamed key is a gcra state decided by CAS */
	/* limiter.algo->verdict (NULL when it has none), one load nearer */
	rl_verdict_fn *verdict;
	allow_fn *allow; /* the verdicts' route (allow_route), or NULL: rl_limit_allow_at's own */
	/* a policy's rules (limiter is its rl_policy_as_limiter), or NULL */
	struct rl_policy_limiter *policy;
	/* the unnamed key: RL_ALGO_MAX_STATE bytes, a policy's state size for a policy */
	alignas(max_align_t) unsigned char state[];
};

static _Thread_local char last_error[160];

static struct rl_limit *fail(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	errno = err;
	return NULL;
}

const char *rl_limit_error(void)
{
	return last_error;
}

/* The verdict under the unnamed key's lock; l->verdict takes what an
 * inlined verdict leaves to it. */
static RL_ALWAYS_INLINE int locked_verdict(struct rl_limit *l, int64_t now_ns, rl__inline_verdict_fn *verdict)
{
	int rc;

	rl__spin_lock(&l->lock);
	rc = verdict(&l->limiter, l->state, now_ns, l->verdict);
	rl__spin_unlock(&l->lock);
	return rc;
}

/* Each listed algorithm's copy, its verdict inline (verdicts.h says why). */
#define ALLOW_ROUTE(name)                                                    \
	static RL_NOINLINE int allow_##name(struct rl_limit *l, int64_t now_ns) \
	{                                                                   \
		return locked_verdict(l, now_ns, rl__##name##_inline);      \
	}
RL_INLINE_VERDICTS(ALLOW_ROUTE)
#undef ALLOW_ROUTE

static allow_fn *const allow_routes[RL__ROUTES] = {
#define ALLOW_ENTRY(name) allow_##name,
	RL_INLINE_VERDICTS(ALLOW_ENTRY)
#undef ALLOW_ENTRY
};

/* The route of the verdicts of a limit of algo: a listed algorithm's own copy, else NULL. */
static allow_fn *allow_route(const struct rl_algo *algo)
{
	int i = rl__inline_route(algo);

	return i < 0 || !algo->verdict ? NULL : allow_routes[i];
}

struct rl_limit *rl_limit_new(const char *algo, int64_t limit, int64_t window_ns, int64_t burst)
{
	char msg[sizeof(last_error)];
	const struct rl_algo *a;
	struct rl_rule rule = rl_rule_make(limit, window_ns);
	struct rl_limit *l;

	last_error[0] = '\0';
	if (!algo)
		return fail(EINVAL, "no algorithm given");
	a = rl_algo_find(algo);
	if (!a)
		return fail(EINVAL, "unknown algorithm '%.40s' (%s)", algo, rl_algo_names());
	if (!a->uses_burst && burst != 0)
		return fail(EINVAL, "burst %lld does not apply to %s (pass 0)", (long long)burst, a->name);
	if (burst != 0)
		rule.burst = burst;
	l = calloc(1, sizeof(*l) + RL_ALGO_MAX_STATE);
	if (!l)
		return fail(ENOMEM, "out of memory");
	if (rl_limiter_init(&l->limiter, a, &rule, msg, sizeof(msg)) != RL_OK) {
		free(l);
		return fail(EINVAL, "%s", msg);
	}
	if (pthread_mutex_init(&l->store_lock, NULL) != 0) {
		free(l);
		return fail(ENOMEM, "cannot make a mutex");
	}
	/* A seed nobody outside knows keeps key collisions at their random odds. */
	if (!rl__random_seed(&l->seed))
		l->seed = (uint64_t)rl_now_ns() ^ (uint64_t)(uintptr_t)l;
	atomic_init(&l->store, NULL);
	l->verdict = a->verdict;
#if RL_HAVE_CAS16
	l->lock_free = rl__lock_free_route(a) && rl__gcra_whole(&l->limiter) && rl__cas16_supported();
#endif
	l->allow = allow_route(a);
	return l;
}

#if RL_HAVE_CAS16
_Static_assert(alignof(max_align_t) >= 16 && offsetof(struct rl_gcra, tat_frac) == 16,
	       "the unnamed key's whole-ns gcra state changes in one aligned 16-byte word");
#endif

int rl_limit_allow_at(struct rl_limit *l, int64_t now_ns, struct rl_decision *out)
{
	int rc;

	if (!l)
		return RL_EINVAL;
#if RL_HAVE_CAS16
	if (l->lock_free) /* gcra_cas.h */
		return rl__gcra_check_cas16(&l->limiter, (rl__u128 *)(void *)l->state, now_ns, out);
#endif
	if (!out && l->allow)
		return l->allow(l, now_ns);
	rl__spin_lock(&l->lock);
	/* a verdict alone through the algorithm's verdict op (algo.h): the
	 * same decision, without the cost and answer arguments */
	rc = !out && l->verdict ? l->verdict(&l->limiter, l->state, now_ns)
				: rl_limiter_check(&l->limiter, l->state, now_ns, out);
	rl__spin_unlock(&l->lock);
	return rc;
}

bool rl_limit_allow(struct rl_limit *l)
{
	return rl_limit_allow_at(l, rl_now_ns(), NULL) == RL_ALLOWED;
}

/* The named keys' store, made by the first caller that needs it. */
static RL_ALWAYS_INLINE struct rl_store *keyed_store(struct rl_limit *l)
{
	struct rl_store *s = atomic_load_explicit(&l->store, memory_order_acquire);

	if (s)
		return s;
	pthread_mutex_lock(&l->store_lock);
	s = atomic_load_explicit(&l->store, memory_order_relaxed);
	if (!s) {
		struct rl_store_config cfg = {
			.limiter = &l->limiter,
			.max_keys = RL_LIMIT_KEYS,
			.when_full = RL_FULL_EVICT,
			.idle_grace_ns = RL_LIMIT_IDLE_GRACE_NS,
			.hash_seed = l->seed,
		};
		if (rl_store_create(&s, &cfg) != RL_OK)
			s = NULL;
		else
			atomic_store_explicit(&l->store, s, memory_order_release);
	}
	pthread_mutex_unlock(&l->store_lock);
	return s;
}

int rl_limit_allow_key_at(struct rl_limit *l, const void *key, size_t len, int64_t now_ns,
			  struct rl_decision *out)
{
	struct rl_store *s;

	if (!l || (!key && len > 0))
		return RL_EINVAL;
	s = keyed_store(l);
	if (!s)
		return RL_ENOMEM;
	return rl_store_check(s, key, len, now_ns, out);
}

bool rl_limit_allow_key(struct rl_limit *l, const void *key, size_t len)
{
	return rl_limit_allow_key_at(l, key, len, rl_now_ns(), NULL) == RL_ALLOWED;
}

const struct rl_rule *rl_limit_rule(const struct rl_limit *l)
{
	return l ? &l->limiter.rule : NULL;
}

void rl_limit_free(struct rl_limit *l)
{
	if (!l)
		return;
	rl_store_destroy(atomic_load_explicit(&l->store, memory_order_relaxed));
	rl_limiter_release(&l->limiter, l->state);
	pthread_mutex_destroy(&l->store_lock);
	free(l->policy);
	free(l);
}

int64_t rl_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * A policy (policy.h) is its own path: its limiter is the policy as one
 * algorithm (no verdict op, no route, no lock-free state), so the checks
 * above decide it through rl_limiter_check under the same locks.
 */
struct rl_limit *rl_limit_new_policy(const char *algo, const char *policy)
{
	char msg[sizeof(last_error)];
	const struct rl_algo *a;
	struct rl_policy p;
	struct rl_policy_limiter *pl;
	struct rl_limit *l;

	last_error[0] = '\0';
	if (!algo)
		return fail(EINVAL, "no algorithm given");
	if (!policy)
		return fail(EINVAL, "no policy given");
	a = rl_algo_find(algo);
	if (!a)
		return fail(EINVAL, "unknown algorithm '%.40s' (%s)", algo, rl_algo_names());
	if (rl_policy_parse(policy, &p, msg, sizeof(msg)) != RL_OK)
		return fail(EINVAL, "%s", msg);
	pl = malloc(sizeof(*pl));
	if (!pl)
		return fail(ENOMEM, "out of memory");
	if (rl_policy_limiter_init(pl, a, &p, msg, sizeof(msg)) != RL_OK) {
		free(pl);
		return fail(EINVAL, "%s", msg);
	}
	l = calloc(1, sizeof(*l) + pl->ops.state_size);
	if (!l) {
		free(pl);
		return fail(ENOMEM, "out of memory");
	}
	if (pthread_mutex_init(&l->store_lock, NULL) != 0) {
		free(pl);
		free(l);
		return fail(ENOMEM, "cannot make a mutex");
	}
	if (!rl__random_seed(&l->seed))
		l->seed = (uint64_t)rl_now_ns() ^ (uint64_t)(uintptr_t)l;
	atomic_init(&l->store, NULL);
	l->policy = pl;
	l->limiter = *rl_policy_as_limiter(pl);
	return l;
}

const struct rl_policy_limiter *rl_limit_policy(const struct rl_limit *l)
{
	return l ? l->policy : NULL;
}

#if RL_HAVE_CAS16
/* A cost-c check of the lock-free gcra word: decided on a copy, published by one CAS (gcra_cas.h). */
static RL_NOINLINE RL_TARGET_CX16 int cas_check_n(struct rl_limit *l, int64_t now_ns, int64_t cost,
						  struct rl_decision *out)
{
	rl__u128 *word = (rl__u128 *)(void *)l->state;
	rl__u128 seen = rl__load16_guess(word), next;
	struct rl_gcra st = { 0 }; /* tat_frac stays 0: T is whole (rl__gcra_whole) */
	int rc;

	do {
		memcpy(&st, &seen, sizeof(seen));
		rc = rl_limiter_check_n(&l->limiter, &st, now_ns, cost, out);
		if (rc < 0)
			return rc;
		memcpy(&next, &st, sizeof(next));
	} while (!rl__cas16(word, &seen, next));
	return rc;
}
#endif

int rl_limit_allow_n_at(struct rl_limit *l, int64_t now_ns, int64_t cost, struct rl_decision *out)
{
	int rc;

	if (!l)
		return RL_EINVAL;
#if RL_HAVE_CAS16
	if (l->lock_free)
		return cas_check_n(l, now_ns, cost, out);
#endif
	rl__spin_lock(&l->lock);
	rc = rl_limiter_check_n(&l->limiter, l->state, now_ns, cost, out);
	rl__spin_unlock(&l->lock);
	return rc;
}

int rl_limit_allow_key_n_at(struct rl_limit *l, const void *key, size_t len, int64_t now_ns, int64_t cost,
			    struct rl_decision *out)
{
	struct rl_store *s;

	if (!l || (!key && len > 0))
		return RL_EINVAL;
	s = keyed_store(l);
	if (!s)
		return RL_ENOMEM;
	return rl_store_check_n(s, key, len, now_ns, cost, out);
}

int rl_limit_policy_at(struct rl_limit *l, int64_t now_ns, int64_t cost, struct rl_policy_answer *out)
{
	int rc;

	if (!l || !l->policy)
		return RL_EINVAL;
	rl__spin_lock(&l->lock);
	rc = rl_policy_check(l->policy, l->state, now_ns, cost, out);
	rl__spin_unlock(&l->lock);
	return rc;
}

int rl_limit_set_shadow(struct rl_limit *l, bool shadow)
{
	if (!l || !l->policy)
		return RL_EINVAL;
	rl_policy_set_shadow(l->policy, shadow);
	return RL_OK;
}

uint64_t rl_limit_would_reject(const struct rl_limit *l)
{
	return l && l->policy ? rl_policy_would_reject(l->policy) : 0;
}
