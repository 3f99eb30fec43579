/*
 * policy.c - a policy limiter (policy.h): k limiters of one algorithm over
 * a per-key state that is a header and their k states side by side, each
 * request decided on copies and committed only when every rule admits.
 *
 * Invariant: a key's rule states change only when the policy admits, and
 * then each is exactly what its own limiter's check of its share at the
 * clamped time leaves (the committed copy, or for sliding_log the check
 * itself); sliding_log's probes drop only runs that have left the window
 * at a time the key's last seen time then reaches. The header's last seen
 * time is the key's: every rule decides at a time at or after it.
 */
#include "ratelab/policy.h"

#include <stdio.h>
#include <string.h>

#include "arith.h"
#include "policy_ops.h"
#include "ratelab/settle.h"
#include "ratelab/static_assert.h"
#include "ratelab/store.h"

/*
 * The first 16 bytes of a key's state: the key's last seen time, and what
 * release and heap_bytes (which get no limiter, algo.h) need to walk the
 * states. Zero in a fresh key, which owns nothing; written by every check
 * but a never.
 */
struct policy_head {
	uint32_t count;   /* rules */
	uint32_t algo_at; /* 1 + the algorithm's index in rl_algo_all() */
	int64_t last_ns;  /* the key's last seen time, ns: every rule decides at a time >= it */
};
RL_STATIC_ASSERT(sizeof(struct policy_head) == 16, "a policy state's header is 16 bytes");
RL_STATIC_ASSERT(RL_POLICY_MAX_STATE <= RL_STORE_MAX_STATE, "rl_store holds a policy's state");

static size_t stride_of(const struct rl_algo *algo)
{
	return (algo->state_size + 7) & ~(size_t)7;
}

size_t rl_policy_state_size(const struct rl_algo *algo, size_t count)
{
	return sizeof(struct policy_head) + count * stride_of(algo);
}

static void *rule_state(void *state, size_t stride, size_t i)
{
	return (unsigned char *)state + sizeof(struct policy_head) + i * stride;
}

static const struct rl_policy_limiter *policy_of(const struct rl_limiter *lim)
{
	const struct rl_policy_limiter *pl;

	memcpy(&pl, lim->priv.bytes, sizeof(pl));
	return pl;
}

static uint32_t algo_index(const struct rl_algo *algo)
{
	size_t n;
	const struct rl_algo *const *all = rl_algo_all(&n);

	for (size_t i = 0; i < n; i++)
		if (all[i] == algo)
			return (uint32_t)i + 1;
	return 0;
}

/* The algorithm and rule count a state's header names, or NULL for a fresh state. */
static const struct rl_algo *head_algo(const void *state, size_t *count)
{
	struct policy_head h;
	size_t n;
	const struct rl_algo *const *all = rl_algo_all(&n);

	memcpy(&h, state, sizeof(h));
	*count = h.count;
	return h.algo_at == 0 || h.algo_at > n ? NULL : all[h.algo_at - 1];
}

static void release_op(void *state)
{
	size_t count;
	const struct rl_algo *algo = head_algo(state, &count);

	if (!algo || !algo->release)
		return;
	for (size_t i = 0; i < count; i++)
		algo->release(rule_state(state, stride_of(algo), i));
}

static size_t heap_op(const void *state)
{
	size_t count, sum = 0;
	const struct rl_algo *algo = head_algo(state, &count);

	if (!algo || !algo->heap_bytes)
		return 0;
	for (size_t i = 0; i < count; i++)
		sum += algo->heap_bytes(rule_state((void *)(uintptr_t)state, stride_of(algo), i));
	return sum;
}

/* The full quota is back when every rule's is. */
static int64_t reset_op(const struct rl_limiter *lim, const void *state, int64_t now_ns)
{
	const struct rl_policy_limiter *pl = policy_of(lim);
	int64_t most = 0;

	for (size_t i = 0; i < pl->count; i++) {
		int64_t r = rl_limiter_reset_ns(&pl->rules[i], rule_state((void *)(uintptr_t)state, pl->stride, i),
						now_ns);
		if (r < 0)
			return r;
		most = r > most ? r : most;
	}
	return most;
}

static bool idle_op(const struct rl_limiter *lim, const void *state, int64_t now_ns)
{
	const struct rl_policy_limiter *pl = policy_of(lim);

	for (size_t i = 0; i < pl->count; i++)
		if (!pl->rules[i].algo->is_idle(&pl->rules[i], rule_state((void *)(uintptr_t)state, pl->stride, i),
						 now_ns))
			return false;
	return true;
}

/* Admitted by every rule: the least of their bounds. */
static int64_t bound_op(const struct rl_limiter *lim, int64_t span_ns)
{
	const struct rl_policy_limiter *pl = policy_of(lim);
	int64_t least = INT64_MAX;

	for (size_t i = 0; i < pl->count; i++) {
		int64_t b = rl_limiter_max_admitted(&pl->rules[i], span_ns);
		least = b < least ? b : least;
	}
	return least;
}

/* The combined answer (policy.h, Answers). */
static void combine(const struct rl_policy_answer *a, int verdict, struct rl_decision *all)
{
	*all = a->rule[0];
	for (size_t i = 1; i < a->count; i++) {
		const struct rl_decision *d = &a->rule[i];
		all->remaining = d->remaining < all->remaining ? d->remaining : all->remaining;
		all->retry_after_ns = d->retry_after_ns > all->retry_after_ns ? d->retry_after_ns : all->retry_after_ns;
		all->reset_ns = d->reset_ns > all->reset_ns ? d->reset_ns : all->reset_ns;
		all->delay_ns = d->delay_ns > all->delay_ns ? d->delay_ns : all->delay_ns;
	}
	if (verdict)
		all->retry_after_ns = 0;
}

/* Commits sliding_log's rules: each check admits (its probe did); undone on a failure. */
static int commit_logs(const struct rl_policy_limiter *pl, void *state, int64_t now_ns, const int64_t *share,
		       struct rl_policy_answer *a)
{
	for (size_t i = 0; i < pl->count; i++) {
		int rc = rl_limiter_check_n(&pl->rules[i], rule_state(state, pl->stride, i), now_ns, share[i],
					    &a->rule[i]);
		if (rc != RL_ALLOWED) {
			while (i-- > 0)
				rl__sliding_log_unpush(rule_state(state, pl->stride, i), share[i]);
			return rc < 0 ? rc : RL_ENOMEM;
		}
	}
	return RL_ALLOWED;
}

int rl_policy_check(const struct rl_policy_limiter *pl, void *state, int64_t now_ns, int64_t cost,
		    struct rl_policy_answer *out)
{
	_Alignas(16) unsigned char copy[RL_POLICY_MAX_RULES][RL_ALGO_MAX_STATE];
	struct rl_policy_answer local;
	struct rl_policy_answer *a = out ? out : &local;
	int64_t share[RL_POLICY_MAX_RULES];
	bool heap = pl->rules[0].algo->release != NULL, never = false;
	int verdict = RL_ALLOWED;
	struct policy_head h;

	if (!rl__time_ok(now_ns))
		return RL_ERANGE;
	if (!rl__cost_ok(cost))
		return RL_EINVAL;
	memcpy(&h, state, sizeof(h));
	now_ns = rl__clamp(now_ns, h.last_ns);
	a->count = pl->count;
	a->at_ns = now_ns;
	for (size_t i = 0; i < pl->count; i++) {
		void *st = rule_state(state, pl->stride, i);
		int rc;

		share[i] = pl->units[i] ? cost : 1;
		if (heap) {
			rc = rl__sliding_log_probe(&pl->rules[i], st, now_ns, share[i], &a->rule[i]);
		} else {
			memcpy(copy[i], st, pl->rules[i].algo->state_size);
			rc = rl_limiter_check_n(&pl->rules[i], copy[i], now_ns, share[i], &a->rule[i]);
		}
		if (rc < 0)
			return rc;
		a->verdict[i] = rc;
		verdict &= rc;
		never = never || (!rc && a->rule[i].retry_after_ns == RL_DURATION_MAX_NS);
	}
	h = (struct policy_head){ (uint32_t)pl->count, algo_index(pl->rules[0].algo), now_ns };
	if (verdict) {
		if (heap) {
			int rc = commit_logs(pl, state, now_ns, share, a);
			if (rc != RL_ALLOWED)
				return rc;
		} else {
			for (size_t i = 0; i < pl->count; i++)
				memcpy(rule_state(state, pl->stride, i), copy[i], pl->rules[i].algo->state_size);
		}
	}
	if (!never) {
		/* the key's time moves to now_ns: what has left the windows may go */
		for (size_t i = 0; heap && !verdict && i < pl->count; i++)
			rl__sliding_log_expire(&pl->rules[i], rule_state(state, pl->stride, i), now_ns);
		memcpy(state, &h, sizeof(h));
	}
	combine(a, verdict, &a->all);
	a->would_reject = false;
	if (pl->shadow && !verdict) {
		/* pl is const to the checks but for this count (policy.h) */
		__atomic_fetch_add((uint64_t *)(uintptr_t)&pl->would_reject, 1, __ATOMIC_RELAXED);
		a->would_reject = true;
		return RL_ALLOWED;
	}
	return verdict;
}

int rl_policy_settle(const struct rl_policy_limiter *pl, void *state, int64_t admitted_ns, int64_t delta,
		     int64_t now_ns)
{
	struct policy_head h;

	if (!rl_algo_settles(pl->rules[0].algo))
		return RL_EINVAL;
	if (!rl__time_ok(now_ns))
		return RL_ERANGE;
	memcpy(&h, state, sizeof(h));
	now_ns = rl__clamp(now_ns, h.last_ns);
	/* the checks that can fail, once, before any rule changes */
	int rc = rl_limiter_settle(&pl->rules[0], NULL, admitted_ns, 0, now_ns);
	if (rc == RL_ERANGE || delta == 0 || delta < -RL_COST_MAX || delta > RL_COST_MAX)
		return rc == RL_ERANGE ? rc : RL_EINVAL;
	for (size_t i = 0; i < pl->count; i++)
		if (pl->units[i] && (rc = rl_limiter_settle(&pl->rules[i], rule_state(state, pl->stride, i),
							    admitted_ns, delta, now_ns)) != RL_OK)
			return rc;
	return RL_OK;
}

void rl_policy_set_shadow(struct rl_policy_limiter *pl, bool shadow)
{
	pl->shadow = shadow;
}

uint64_t rl_policy_would_reject(const struct rl_policy_limiter *pl)
{
	return __atomic_load_n(&pl->would_reject, __ATOMIC_RELAXED);
}

static int check_op(const struct rl_limiter *lim, void *state, int64_t now_ns, int64_t cost,
		    struct rl_decision *out)
{
	struct rl_policy_answer a;
	int rc = rl_policy_check(policy_of(lim), state, now_ns, cost, out ? &a : NULL);

	if (out && rc >= 0)
		*out = a.all;
	return rc;
}

int rl_policy_rerule(const struct rl_policy_limiter *from, const struct rl_policy_limiter *to, void *state,
		     int64_t now_ns)
{
	struct policy_head h;

	if (!rl__time_ok(now_ns))
		return RL_ERANGE;
	if (!from || !to || from->count != to->count || from->rules[0].algo != to->rules[0].algo)
		return RL_EINVAL;
	if (from == to)
		return RL_OK;
	memcpy(&h, state, sizeof(h));
	now_ns = rl__clamp(now_ns, h.last_ns);
	/* by position; a rule's own conversion clamps to its own last seen time, at or before the key's */
	for (size_t i = 0; i < to->count; i++) {
		int rc = rl_limiter_rerule(&from->rules[i], &to->rules[i], rule_state(state, to->stride, i), now_ns);
		if (rc != RL_OK) /* not for rules of one algorithm that has the op (all six): a contract broken */
			return rc;
	}
	return RL_OK;
}

/* The store's rule change (algo.h): from and to are policies' limiters of one shape (rl_limiter_rerule checked). */
static void rerule_op(const struct rl_limiter *from, const struct rl_limiter *to, void *state, int64_t now)
{
	(void)rl_policy_rerule(policy_of(from), policy_of(to), state, now);
}

static int64_t last_op(const void *state)
{
	return rl_policy_state_last_ns(state);
}

int rl_policy_limiter_init(struct rl_policy_limiter *pl, const struct rl_algo *algo, const struct rl_policy *p,
			   char *msg, size_t msg_len)
{
	char why[200];
	size_t longest = 0;

	memset(pl, 0, sizeof(*pl));
	if (!algo || p->count == 0 || p->count > RL_POLICY_MAX_RULES) {
		snprintf(msg, msg_len, "a policy has 1 to %d rules (got %zu)", RL_POLICY_MAX_RULES, p->count);
		return RL_EINVAL;
	}
	if (algo->release && algo != &rl_sliding_log_algo) {
		snprintf(msg, msg_len, "%s cannot be a policy's algorithm", algo->name);
		return RL_EINVAL;
	}
	for (size_t i = 0; i < p->count; i++) {
		if (rl_limiter_init(&pl->rules[i], algo, &p->rules[i], why, sizeof(why)) != RL_OK) {
			snprintf(msg, msg_len, "rule %zu: %s", i + 1, why);
			return RL_EINVAL;
		}
		pl->units[i] = p->units[i];
		if (p->rules[i].window_ns > p->rules[longest].window_ns)
			longest = i;
	}
	pl->count = p->count;
	pl->stride = stride_of(algo);
	pl->ops = (struct rl_algo){
		.name = algo->name,
		.state_size = rl_policy_state_size(algo, p->count),
		.check = check_op,
		.is_idle = idle_op,
		/* all three, as rl_store asks of a state that may own memory */
		.release = release_op,
		.heap_bytes = heap_op,
		.reset_ns = reset_op,
		.answers_delay = algo->answers_delay,
		.max_admitted = bound_op,
		.uses_burst = algo->uses_burst,
		.rerule = rerule_op,
		.last_ns = last_op,
	};
	pl->one.algo = &pl->ops;
	pl->one.rule = p->rules[longest];
	const struct rl_policy_limiter *self = pl;
	memcpy(pl->one.priv.bytes, &self, sizeof(self));
	return RL_OK;
}

const struct rl_limiter *rl_policy_as_limiter(const struct rl_policy_limiter *pl)
{
	return &pl->one;
}

const struct rl_policy_limiter *rl_policy_of(const struct rl_limiter *lim)
{
	return lim && lim->algo && lim->algo->check == check_op ? policy_of(lim) : NULL;
}

int64_t rl_policy_state_last_ns(const void *state)
{
	struct policy_head h;

	memcpy(&h, state, sizeof(h));
	return h.last_ns;
}

void *rl_policy_rule_state(const struct rl_policy_limiter *pl, void *state, size_t i)
{
	return rule_state(state, pl->stride, i);
}

void rl_policy_state_set_head(const struct rl_policy_limiter *pl, void *state, int64_t last_ns)
{
	struct policy_head h = { (uint32_t)pl->count, algo_index(pl->rules[0].algo), last_ns };

	memcpy(state, &h, sizeof(h));
}

void rl_policy_release(const struct rl_policy_limiter *pl, void *state)
{
	release_op(state);
	memset(state, 0, pl->ops.state_size);
}
