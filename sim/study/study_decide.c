/*
 * study_decide.c - model: see study_decide.h. The settle queue is a
 * binary min-heap on (done_ns, seq), as replay_policy.c's: the same order,
 * so a study decides a settle trace request by request as `ratelab replay`
 * does.
 */
#include "study_decide.h"

#include <stdlib.h>
#include <string.h>

#include "ratelab/settle.h"

int study_decide_init(struct study_decide *d, const struct rl_algo *algo, const struct sim_study_rule *r,
		      const struct sim_trace *t)
{
	memset(d, 0, sizeof(*d));
	d->t = t;
	d->settles = t->actual != NULL;
	if (d->settles && !rl_algo_settles(algo))
		return RL_EINVAL;
	if (!r->is_policy && !d->settles)
		return rl_limiter_init(&d->lim, algo, &r->rule, NULL, 0);
	/* the policy limiter points into itself: it lives on the heap, never moved */
	if (!(d->pl = malloc(sizeof(*d->pl))))
		return RL_ENOMEM;
	struct rl_policy p = sim_study_rule_policy(r);
	if (rl_policy_limiter_init(d->pl, algo, &p, NULL, 0) != RL_OK) {
		free(d->pl);
		d->pl = NULL;
		return RL_EINVAL;
	}
	d->lim = *rl_policy_as_limiter(d->pl);
	return RL_OK;
}

size_t study_decide_state_size(const struct study_decide *d)
{
	return d->lim.algo->state_size;
}

static bool before(const struct study_pending *a, const struct study_pending *b)
{
	return a->done_ns < b->done_ns || (a->done_ns == b->done_ns && a->seq < b->seq);
}

static int push(struct study_decide *d, struct study_pending p)
{
	if (d->len == d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 64;
		struct study_pending *h = realloc(d->heap, cap * sizeof(*h));
		if (!h)
			return RL_ENOMEM;
		d->heap = h;
		d->cap = cap;
	}
	size_t i = d->len++;
	for (; i > 0 && before(&p, &d->heap[(i - 1) / 2]); i = (i - 1) / 2)
		d->heap[i] = d->heap[(i - 1) / 2];
	d->heap[i] = p;
	return RL_OK;
}

static struct study_pending pop(struct study_decide *d)
{
	struct study_pending top = d->heap[0], last = d->heap[--d->len];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= d->len)
			break;
		if (c + 1 < d->len && before(&d->heap[c + 1], &d->heap[c]))
			c++;
		if (!before(&d->heap[c], &last))
			break;
		d->heap[i] = d->heap[c];
		i = c;
	}
	if (d->len)
		d->heap[i] = last;
	return top;
}

int study_decide_one(struct study_decide *d, unsigned char *states, size_t i)
{
	const struct sim_trace *t = d->t;
	size_t ss = d->lim.algo->state_size;
	int64_t now = t->t_ns[i];

	while (d->len && d->heap[0].done_ns <= now) {
		struct study_pending p = pop(d);
		int rc = rl_policy_settle(d->pl, states + (size_t)p.key * ss, p.at_ns, p.delta, p.done_ns);
		if (rc == RL_OK && d->on_settle)
			rc = d->on_settle(d->on_settle_arg, &p);
		if (rc)
			return rc;
	}
	if (!d->pl)
		return rl_limiter_check_n(&d->lim, states + (size_t)t->key[i] * ss, now, t->cost[i], NULL);
	struct rl_policy_answer a;
	int v = rl_policy_check(d->pl, states + (size_t)t->key[i] * ss, now, t->cost[i], &a);
	if (v == RL_ALLOWED && d->settles && t->actual[i] != t->cost[i]) {
		struct study_pending p = { t->done_ns[i], i, a.at_ns, (int64_t)t->actual[i] - (int64_t)t->cost[i],
					   t->key[i] };
		int rc = push(d, p);
		if (rc)
			return rc;
	}
	return v;
}

void study_decide_release(const struct study_decide *d, void *state)
{
	if (d->pl)
		rl_policy_release(d->pl, state);
	else if (d->lim.algo->release)
		rl_limiter_release(&d->lim, state);
	memset(state, 0, d->lim.algo->state_size);
}

void study_decide_free(struct study_decide *d)
{
	free(d->heap);
	free(d->pl);
	d->heap = NULL;
	d->pl = NULL;
	d->len = d->cap = 0;
}
