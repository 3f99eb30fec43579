/*
 * sim_decider.h - an external decider: a child process that makes the
 * simulator's decisions through the decider protocol, so any limiter, in
 * any language, is scored exactly as the built-in algorithms are.
 *
 * The protocol (also in the README). The child is started with
 * `/bin/sh -c CMD`, once per scenario, with the scenario's rule in its
 * environment: RATELAB_LIMIT (N), RATELAB_WINDOW_NS (W, ns), RATELAB_BURST
 * (B) and RATELAB_SCENARIO (the scenario's name). For each request, in
 * order of simulated time, the simulator writes one line `T KEY\n` to the
 * child's stdin (T: integer ns of simulated time, non-decreasing but for
 * the lines of a replayed trace, handed their own times (sim_traffic.h);
 * KEY: the key's decimal id, one limiter state per KEY) - `T KEY COST\n` for a
 * request of a weighted scenario whose cost is not 1 (COST units, as
 * `ratelab replay` reads them) - and reads one answer line per request,
 * in order, on the child's stdout:
 *     V [R] [NAME=VALUE ...]
 * V is 1 (admitted) or 0 (rejected); R, optional, is the retry-after in
 * integer ns (a rejected request's wait until the key's next request would
 * be admitted; ignored when admitted); then the fields `ratelab replay
 * --explain` writes, any of retry_after_ns=R (standing for R), remaining=,
 * reset_ns=, delay_ns= (integers) and tier=NAME, which are ignored, so
 * that it answers in the protocol as it is. Any other name is refused. Without R a polite client
 * retries 1 ns later (the engine's least wait). After the last request
 * the child's stdin is closed; it must exit with status 0.
 *
 * The child must flush its answers before it waits for more input. The
 * simulator pipelines (sim_child_send, sim_child_answer): it may write
 * requests before the answers to earlier ones have come, but only those
 * the earlier answers cannot change (sim_traffic.h, the engine's window),
 * and it never waits for more answers than the next step needs, having
 * written every request it holds first; so a child that answers line by
 * line, however it buffers its input, sees the same requests in the same
 * order as in lockstep (sim_child_decide: one request, then its answer).
 * Anything else ends the run with a message (the command, the first
 * request left unanswered and the answer quoted, control bytes escaped):
 * the child exiting or closing its stdout early, an answer that is not of
 * the form above (naming what is wrong), no answer within the timeout of
 * a wait for one (for the first answer, a hint that the child may not be
 * flushing), a non-zero exit status at the end.
 */
#ifndef RATELAB_SIM_DECIDER_H
#define RATELAB_SIM_DECIDER_H

#include <stddef.h>
#include <stdint.h>

#include "sim_scenario.h"

struct sim_child;

/*
 * Starts CMD for scenario sc; answers must come within timeout_ns.
 * RL_OK, or RL_ENOMEM / RL_EINVAL with a message in msg.
 */
int sim_child_start(struct sim_child **c, const char *cmd, const struct sim_scenario *sc,
		       int64_t timeout_ns, char *msg, size_t msg_len);

/*
 * A sim_decider's decide for ctx = the child, in lockstep: sends the
 * request and waits for its answer (sim_child_send, then
 * sim_child_answer). RL_ALLOWED or RL_REJECTED (with *retry_after_ns when
 * not NULL: >= 1 ns), or RL_EINVAL when the child failed;
 * sim_child_error then says how.
 */
int sim_child_decide(void *ctx, int64_t t_ns, uint32_t key, int64_t cost, int64_t *retry_after_ns);

/*
 * Pipelined: queues the request `T KEY [COST]` behind those sent before
 * and not yet answered, writing what the child's stdin takes without
 * waiting (the rest goes out before the next wait for an answer). Any
 * number may be unanswered; the caller decides how many (sim_traffic.h's
 * window). RL_OK, or RL_EINVAL once the child has failed (out of memory
 * too, with its message).
 */
int sim_child_send(void *ctx, int64_t t_ns, uint32_t key, int64_t cost);

/*
 * The answer to the oldest request sent and not yet answered (t_ns, key
 * and cost are that request's, unused: the child keeps its own copy for
 * messages), as sim_child_decide returns it. Waits only when the answer
 * has not come yet, after writing every queued request; reads all the
 * answers that have come in one go, while writing, so that a child whose
 * stdout is full never blocks the simulator writing to its stdin.
 */
int sim_child_answer(void *ctx, int64_t t_ns, uint32_t key, int64_t cost, int64_t *retry_after_ns);

/* How a run went over the pipes, for the progress line. */
struct sim_child_counts {
	int64_t requests; /* sent */
	int64_t ahead;    /* sent while an earlier request was unanswered */
	int64_t waits;    /* answers waited for (the rest had come already) */
};
void sim_child_counts(const struct sim_child *c, struct sim_child_counts *out);

/* The message of the child's first failure, or NULL. */
const char *sim_child_error(const struct sim_child *c);

/*
 * Closes the child's stdin and waits for it (killing it after the
 * timeout), then frees c. RL_OK when it exited with status 0 and no
 * failure came before; else RL_EINVAL with a message in msg. A child
 * with requests unanswered (the caller stopped early, for its own
 * error) is killed at once: RL_OK unless it had failed.
 */
int sim_child_finish(struct sim_child *c, char *msg, size_t msg_len);

#endif
