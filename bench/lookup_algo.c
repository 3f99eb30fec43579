/* lookup_algo.c - the algorithm that decides nothing (lookup_algo.h). */
#include "lookup_algo.h"

/* a time out of range refused, as algo.h asks of every check and verdict */
static int verdict_op(const struct rl_limiter *lim, void *st, int64_t now_ns)
{
	(void)lim, (void)st;
	return now_ns < 0 || now_ns > RL_TIME_MAX_NS ? RL_ERANGE : 1;
}

static int check_op(const struct rl_limiter *lim, void *st, int64_t now_ns, int64_t cost,
		    struct rl_decision *out)
{
	int rc = verdict_op(lim, st, now_ns);

	(void)cost;
	if (rc >= 0 && out)
		*out = (struct rl_decision){ 0 };
	return rc;
}

/* never idle: a stored key stays, so every timed check finds it */
static bool idle_op(const struct rl_limiter *lim, const void *st, int64_t now_ns)
{
	(void)lim, (void)st, (void)now_ns;
	return false;
}

static int64_t bound_op(const struct rl_limiter *lim, int64_t span_ns)
{
	(void)lim, (void)span_ns;
	return INT64_MAX;
}

const struct rl_algo rlbench_lookup_algo = {
	.name = "lookup",
	.state_size = 8,
	.check = check_op,
	.verdict = verdict_op,
	.is_idle = idle_op,
	.max_admitted = bound_op,
};
