/*
 * sim_traffic.h - the simulator's engine: a scenario's traffic sources
 * merged through the event queue on an integer-ns virtual clock, each
 * request handed to a decider (a limiter per key, or the breaker), whose
 * answers drive the clients that react: polite clients retry after the
 * answer's retry_after_ns, abusive ones after a fixed gap, and the
 * adversary probes again at once when admitted and at now + retry_after_ns
 * when not, which is greedy at every ns without stepping through them.
 *
 * A replay source's lines are requests in the order they reach the
 * limiter (trace_line.h): line i is an event at q_i = max(q_(i-1), t_i),
 * so the queue keeps file order, and the decider is handed the line's own
 * time t_i, which a limiter clamps to the key's last seen time. The lines
 * with q_i before the source's start or at or after its stop (the
 * duration) are left out, and counted: trace_first and trace_len -
 * trace_end of them.
 *
 * Settles: a replay source's settle line 'T KEY COST ACTUAL DONE_T'
 * (trace_line.h) is decided at T with COST; when a state of the decider
 * took it (the decider's took: enforcing, admitted; in shadow mode, one
 * enforcing would have admitted) and ACTUAL != COST, a settle event of
 * ACTUAL - COST units is scheduled at DONE_T (on the run's clock, as T),
 * which hands the decider's settle the times each state decided the
 * request at. Order at one ns: due settles leave before any decision at
 * that ns (sim_queue.h), and settles of one ns in the order their
 * requests were decided: the order `ratelab replay` and `ratelab study`
 * use, so a trace whose times never go back is decided request by request
 * as they decide it. (A line whose time goes back is an event at the
 * running largest time q_i: a settle due in (t_i, q_i] comes before it,
 * where replay applies it at the first line at or after DONE_T.) A settle
 * for a refused request does nothing (none is scheduled); one at or after
 * the duration is dropped, as replay drops those after its last line. A
 * settle line is refused on a source whose client retries (a retry has no
 * DONE_T of its own).
 *
 * Sources own disjoint key ranges; key ids are dense, 0 .. nkeys - 1.
 * Every source draws from its own PRNG stream (seed, source index), so
 * the offered traffic of a source without feedback is the same whatever
 * the decider does, and two runs with one seed are identical.
 *
 * Create once per scenario (replay files are read then), run any number
 * of times (each run restarts the sources), destroy. Single-threaded.
 */
#ifndef RATELAB_SIM_TRAFFIC_H
#define RATELAB_SIM_TRAFFIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim_rng.h"
#include "sim_scenario.h"

struct sim_source {
	const struct sim_traffic_spec *spec;
	struct sim_rng rng;
	struct sim_rng cost_rng; /* the costs' own stream: arrivals do not depend on them */
	uint32_t key_base, nkeys;
	double *cdf;       /* Zipf: cumulative weights of keys 0..nkeys-1; NULL = uniform */
	double mean_ns;    /* mean gap of the source's Poisson process (at its peak for diurnal), ns */
	int64_t n;         /* arrivals generated this run */
	int64_t step_q;    /* constant: gap = step_q + step_r / step_den ns (step_q capped */
	uint64_t step_r;   /* at RL_TIME_MAX_NS); den = keys * N * load <= 10^18 */
	uint64_t step_den;
	int64_t off_ns;    /* constant: next arrival's offset from start, ns, */
	uint64_t off_frac; /* plus off_frac / step_den ns */
	uint32_t next_key;                /* constant: round-robin key */
	int64_t t_ns;      /* the last arrival, ns */
	bool on;           /* onoff: in the ON state */
	int64_t switch_ns; /* onoff: when the state flips, ns */
	int64_t window;    /* boundary: the current attack's window index k */
	int64_t round_end_ns; /* adversary: end of the current round, ns */
	int64_t *trace_ns; /* replay: each line's own time, ns, in file order */
	uint32_t *trace_key; /* replay: key ids relative to key_base */
	uint32_t *trace_cost; /* replay: each line's COST, units; 0 = the source's cost */
	uint32_t *trace_actual; /* replay, settle lines (trace.h): ACTUAL, units; NULL: none settles */
	int64_t *trace_done_ns; /* replay, settle lines: DONE_T on the run's clock, ns */
	int64_t *trace_at_ns;   /* replay, settle lines: per line, 2 times its decider's states decided it at (took) */
	size_t trace_len;
	int64_t trace_origin_ns; /* replay: the trace's origin_ns (trace.h), epoch ns; 0 without one */
	size_t trace_first, trace_end; /* replay: the lines replayed, [first, end) */
};

/*
 * What the closed-loop (polite) clients experienced in the last run: each
 * request counts once, however many times it was retried. wait: from its
 * first send to the send that was admitted, ns. A request whose retry
 * would fall at or after the duration is unfinished (neither served nor
 * given up).
 */
struct sim_clients {
	int64_t requests;    /* first sends */
	int64_t served;      /* admitted, at once or on a retry */
	int64_t gave_up;     /* rejected on its last allowed retry */
	int64_t wait_ns_sum; /* over the served, ns */
	int64_t wait_ns_max;
};

struct sim_traffic {
	const struct sim_scenario *sc;
	uint64_t seed;
	size_t nsources;
	struct sim_source src[SIM_MAX_TRAFFIC];
	uint32_t nkeys;          /* keys over all sources */
	bool progress;           /* report progress of long runs on stderr */
	bool replays;            /* a source replays a trace: a decider's time may go back */
	bool settles;            /* a replayed trace has settle lines */
	int64_t origin_ns;       /* the run's time 0 on the traces' clock, epoch ns (the earliest
				  * replayed trace's origin_ns, 0 without one): a decider is handed
				  * origin_ns + t, so a fixed window aligns as on the trace's own times */
	struct sim_clients polite; /* the last run's polite clients */
};

/*
 * A decider answers one request of cost units (1..RL_COST_MAX):
 * RL_ALLOWED, RL_REJECTED or a negative rl_status. When retry_after_ns is
 * not NULL and the request is rejected, it receives the wait (>= 1 ns)
 * after which the request would be admitted (RL_DURATION_MAX_NS: never).
 */
struct sim_decider {
	int (*decide)(void *ctx, int64_t t_ns, uint32_t key, int64_t cost, int64_t *retry_after_ns);
	void *ctx;
	/* true: t_ns never goes backwards (a replayed line is handed its event's
	 * time q_i, not its own): for a decider that refuses a clock going back */
	bool in_order;
	/*
	 * A pipelined decider (a child process: sim_decider.h), or NULL: send
	 * hands a request on without waiting for its answer; answer returns
	 * the verdict on the oldest request sent and not yet answered, as
	 * decide would have (called with that request's arguments). window:
	 * the most requests unanswered at once (<= 1: decide, in lockstep).
	 */
	int (*send)(void *ctx, int64_t t_ns, uint32_t key, int64_t cost);
	int (*answer)(void *ctx, int64_t t_ns, uint32_t key, int64_t cost, int64_t *retry_after_ns);
	uint32_t window;
	/*
	 * Settles (see Settles above); both NULL for a decider that has
	 * nothing to settle (the breaker counts requests, not units): its
	 * runs leave settle lines' ACTUAL and DONE_T aside (a caller whose
	 * decider would need them refuses such a trace first). took, right after decide on a request that settles: which of
	 * the decider's states (bit i, at most two) took the request, and the
	 * time each decided it at (clamped to its key's last seen time), into
	 * at_ns[i], ns; 0: none took it. settle: applies delta units at t_ns
	 * (the run's clock) to the key's states named by states; RL_OK or a
	 * negative rl_status, which ends the run.
	 */
	unsigned (*took)(void *ctx, int64_t at_ns[2]);
	int (*settle)(void *ctx, int64_t t_ns, uint32_t key, unsigned states, const int64_t at_ns[2], int64_t delta);
};

/*
 * RL_OK, or an rl_status with a message ("FILE:LINE: ..." for traces):
 * RL_EINVAL for a bad trace, an empty one, or one of whose lines none
 * falls in the source's [start, stop) (times far past the duration:
 * absolute times), a trace with settle lines on a source whose client
 * retries, a line without COST when the scenario's policy has a ':units'
 * rule and the source gives no cost =,
 * RL_EIO when reading it failed (never taken for its end), RL_ENOMEM.
 */
int sim_traffic_create(struct sim_traffic *tr, const struct sim_scenario *sc, uint64_t seed,
			  char *msg, size_t msg_len);
void sim_traffic_destroy(struct sim_traffic *tr);

/* The lines of a replay source left out (0 for other sources). */
size_t sim_source_left_out(const struct sim_source *s);

/* The source that owns key. */
const struct sim_source *sim_traffic_source_of(const struct sim_traffic *tr, uint32_t key);

/*
 * Runs the scenario's traffic through d until the queue is empty (no event
 * at or after the duration is delivered). Returns RL_OK or the first error
 * the decider or the queue returned. label names the run in progress lines.
 *
 * With a pipelined decider (d->send, d->window > 1) the run is the same,
 * request for request: the next event is sent before the answers pending
 * have come only when no pending answer can change it. An answer's only
 * consequence is its own client's next event (react): a probe's next
 * probe, at t or later (admitted: at once); a polite client's retry at
 * t + retry_after >= t + 1 ns; an abusive one's at t + retry_gap; none for
 * client = none or a last retry. Each pending request reserves, when sent,
 * the place in push order (sim_queue.h) its consequence takes in lockstep,
 * and the next event goes out only when it leaves the queue before every
 * pending request's earliest consequence in (time, push order), so the
 * queue pops the same events in the same order. This holds for events of
 * every key alike: a consequence touches only its own key, but a decider
 * may keep state across keys (nginx's shared zone, a global clock), and
 * its input must stay the lockstep sequence, time order included.
 */
int sim_traffic_run(struct sim_traffic *tr, const struct sim_decider *d, const char *label);

#endif
