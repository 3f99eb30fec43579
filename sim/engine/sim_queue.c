/*
 * sim_queue.c - model: an implicit binary heap in a growing array.
 * Invariant: every parent is earlier than its children in (t_ns, settle
 * first, seq) order, and seq values are unique, so the order is total.
 */
#include "sim_queue.h"

#include <stdbool.h>
#include <stdlib.h>

#include "ratelab/status.h"

static int earlier(const struct sim_event *a, const struct sim_event *b)
{
	if (a->t_ns != b->t_ns)
		return a->t_ns < b->t_ns;
	bool sa = a->kind == SIM_EV_SETTLE, sb = b->kind == SIM_EV_SETTLE;
	return sa != sb ? sa : a->seq < b->seq;
}

void sim_queue_init(struct sim_queue *q)
{
	*q = (struct sim_queue){ 0 };
}

void sim_queue_destroy(struct sim_queue *q)
{
	free(q->ev);
	*q = (struct sim_queue){ 0 };
}

int sim_queue_push(struct sim_queue *q, struct sim_event e)
{
	if (q->len == q->cap) {
		size_t cap = q->cap ? q->cap * 2 : 64;
		struct sim_event *ev = realloc(q->ev, cap * sizeof(*ev));
		if (!ev)
			return RL_ENOMEM;
		q->ev = ev;
		q->cap = cap;
	}
	e.seq = q->next_seq++;
	size_t i = q->len++;
	while (i > 0) {
		size_t parent = (i - 1) / 2;
		if (!earlier(&e, &q->ev[parent]))
			break;
		q->ev[i] = q->ev[parent];
		i = parent;
	}
	q->ev[i] = e;
	return RL_OK;
}

const struct sim_event *sim_queue_peek(const struct sim_queue *q)
{
	return q->len ? &q->ev[0] : NULL;
}

int sim_queue_pop(struct sim_queue *q, struct sim_event *e)
{
	if (q->len == 0)
		return 0;
	*e = q->ev[0];
	struct sim_event last = q->ev[--q->len];
	size_t i = 0, n = q->len;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && earlier(&q->ev[c + 1], &q->ev[c]))
			c++;
		if (!earlier(&q->ev[c], &last))
			break;
		q->ev[i] = q->ev[c];
		i = c;
	}
	if (n)
		q->ev[i] = last;
	return 1;
}
