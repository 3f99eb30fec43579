/*
 * sim_queue.h - the simulator's event queue: a binary min-heap ordered by
 * (time, settles first, sequence number). The sequence number is assigned
 * at push, so events at the same ns leave in the order they were
 * scheduled, but a settle (SIM_EV_SETTLE) leaves before any other event
 * of its ns: due settles come before a decision at the same ns, as
 * `ratelab replay` and `ratelab study` apply them. Ties are
 * deterministic. Single-threaded; sim_queue_init / sim_queue_destroy.
 */
#ifndef RATELAB_SIM_QUEUE_H
#define RATELAB_SIM_QUEUE_H

#include <stddef.h>
#include <stdint.h>

/* The simulator's bound on a request's cost, below the library's
 * RL_COST_MAX (10^12): its events keep costs in 32 bits. */
#define SIM_COST_MAX 1000000000LL

struct sim_event {
	int64_t t_ns;     /* virtual time, ns */
	uint64_t seq;     /* push order, breaks ties */
	uint32_t source;  /* index of the traffic source */
	uint32_t key;     /* dense key id */
	uint16_t attempt; /* 0 for a fresh request, n for its nth retry (max_retries <= 1000);
			   * a settle: the decider's states that took the request (bit i, sim_traffic.h) */
	uint16_t kind;    /* sim_event_kind */
	uint32_t cost;    /* the request's cost, units (1..SIM_COST_MAX); a retry keeps it */
	int64_t first_ns; /* arrival and retry: when the request was first sent, ns; a settle:
			   * its trace line's index in its source (the settle's units and times are there) */
};
/* 40 bytes: every request's events are copied through the heap, so a settle's payload stays in its source */
_Static_assert(sizeof(struct sim_event) == 40, "an event is 40 bytes");

enum sim_event_kind { SIM_EV_ARRIVAL, SIM_EV_RETRY, SIM_EV_PROBE, SIM_EV_SETTLE };

struct sim_queue {
	struct sim_event *ev; /* heap array, ev[0] the earliest */
	size_t len, cap;
	uint64_t next_seq; /* the seq the next push takes; a caller may reserve one (next_seq++) for an
			    * event it pushes later, setting next_seq to it for that push (sim_traffic.c) */
};

void sim_queue_init(struct sim_queue *q);
void sim_queue_destroy(struct sim_queue *q);

/* Schedules e (its seq is assigned here). RL_OK or RL_ENOMEM. */
int sim_queue_push(struct sim_queue *q, struct sim_event e);

/* The earliest event, left in the queue; NULL when it is empty. */
const struct sim_event *sim_queue_peek(const struct sim_queue *q);

/* Removes the earliest event into *e; 0 when the queue is empty. */
int sim_queue_pop(struct sim_queue *q, struct sim_event *e);

#endif
