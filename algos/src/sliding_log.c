/*
 * sliding_log.c - model: the exact sliding window. A request of cost c at t
 * is admitted iff the units admitted at times x with t - W < x <= t, plus
 * c, are at most N.
 *
 * Invariant: at most N units admitted in any interval of length W, and the
 * log holds exactly the admitted units still inside the window, as
 * (time, units) runs.
 */
#include "ratelab/sliding_log.h"

#include "arith.h"
#include "runlog_ops.h"
#include "sliding_log_ops.h"

/*
 * The smallest wait after which c units fit if nothing else arrives: the
 * oldest runs leave the window one by one (at their time + W) until what
 * is left, plus c, is at most N. c <= N, and the request was rejected.
 */
static int64_t retry_after(const struct rl_runlog *log, int64_t n, int64_t w, int64_t now,
			   int64_t cost)
{
	int64_t left = (int64_t)log->total;
	uint32_t i = log->head;

	for (;;) {
		const struct rl_run *r = &log->runs[i];
		left -= (int64_t)r->count;
		if (left + cost <= n)
			return r->at + w - now;
		i = (i + 1) & (log->cap - 1);
	}
}

/*
 * The check for any cost, inlined into each entry point: with the constant
 * cost 1 its cost arithmetic folds away, so plain requests pay nothing for
 * weighted ones.
 */
static RL_ALWAYS_INLINE int
decide(const struct rl_limiter *lim, struct rl_sliding_log *st, int64_t now_ns, int64_t cost,
       struct rl_decision *out)
{
	if (!rl__time_ok(now_ns))
		return RL_ERANGE;
	if (!rl__cost_ok(cost))
		return RL_EINVAL;

	int64_t now = rl__clamp(now_ns, st->last_ns);
	int64_t w = lim->rule.window_ns, n = lim->rule.limit;
	struct rl_runlog *log = &st->log;

	/* Expiry changes no decision, so it may stand even if the push fails. */
	rl_runlog_expire(log, now - w);
	if (rl__runlog_trim_due(log))
		rl_runlog_trim(log);

	/* total below 2^62 (settle keeps it there) and cost <= 10^12: the sum fits in 64 bits */
	int verdict = log->total + (uint64_t)cost <= (uint64_t)n ? RL_ALLOWED : RL_REJECTED;

	if (verdict) {
		int rc = rl__runlog_push_fits(log, now, (uint64_t)cost)
				 ? RL_OK
				 : rl_runlog_push_n(log, now, (uint64_t)cost);
		if (rc)
			return rc;
	}
	st->last_ns = now;

	if (out) {
		/* a lowered N may leave more than N in the log (rerule_op) */
		out->remaining = log->total < (uint64_t)n ? n - log->total : 0;
		/* (a cost above N never reaches here: never() answers it) */
		out->retry_after_ns = verdict ? 0 : retry_after(log, n, w, now, cost);
		out->reset_ns = log->total ? rl_runlog_newest(log)->at + w - now : 0;
		out->delay_ns = 0;
	}
	return verdict;
}

size_t rl_sliding_log_heap_bytes(const struct rl_sliding_log *st)
{
	return (size_t)st->log.cap * sizeof(struct rl_run);
}

/*
 * A cost above N, which is never admitted: rejected, answered from the log
 * as it stands (the runs that have left the window skipped, not dropped),
 * so that the key's state is left unchanged (algo.h).
 */
static int never(const struct rl_limiter *lim, const struct rl_sliding_log *st, int64_t now_ns,
		 int64_t cost, struct rl_decision *out)
{
	if (!rl__time_ok(now_ns))
		return RL_ERANGE;
	if (!rl__cost_ok(cost))
		return RL_EINVAL;
	if (!out)
		return RL_REJECTED;

	int64_t now = rl__clamp(now_ns, st->last_ns), w = lim->rule.window_ns;
	const struct rl_runlog *log = &st->log;
	int64_t in_window = (int64_t)log->total;

	for (uint32_t i = 0; i < log->len; i++) {
		const struct rl_run *r = &log->runs[(log->head + i) & (log->cap - 1)];
		if (r->at > now - w)
			break;
		in_window -= (int64_t)r->count;
	}
	out->remaining = in_window < lim->rule.limit ? lim->rule.limit - in_window : 0;
	out->retry_after_ns = RL_DURATION_MAX_NS;
	out->reset_ns = in_window ? rl_runlog_newest(log)->at + w - now : 0;
	out->delay_ns = 0;
	return RL_REJECTED;
}

/*
 * A cost other than 1, out of line so that the cost-1 path (its arithmetic
 * folded) stays as small as before costs existed; a cost above N is never
 * admitted.
 */
static RL_NOINLINE int weighted(const struct rl_limiter *lim, struct rl_sliding_log *st,
					      int64_t now_ns, int64_t cost, struct rl_decision *out)
{
	if (cost > lim->rule.limit)
		return never(lim, st, now_ns, cost, out);
	return decide(lim, st, now_ns, cost, out);
}

/* Cost 1 with an answer, or a verdict rl__sliding_log_fast hands on. */
static RL_NOINLINE int answered(const struct rl_limiter *lim, struct rl_sliding_log *st,
				int64_t now_ns, struct rl_decision *out)
{
	return decide(lim, st, now_ns, 1, out);
}

/* A cost-1 verdict that rl__sliding_log_fast hands on. */
static int answered_verdict(const struct rl_limiter *lim, void *st, int64_t now)
{
	return answered(lim, st, now, NULL);
}

/* A cost-1 verdict: rl__sliding_log_fast (sliding_log_ops.h), a leaf in the common case. */
static RL_ALWAYS_INLINE int fast_verdict(const struct rl_limiter *lim, struct rl_sliding_log *st,
					 int64_t now_ns)
{
	return rl__sliding_log_fast(lim, st, now_ns, answered_verdict);
}

static int check_op(const struct rl_limiter *lim, void *st, int64_t now_ns, int64_t cost,
		    struct rl_decision *out)
{
	if (cost != 1)
		return weighted(lim, st, now_ns, cost, out);
	return out ? answered(lim, st, now_ns, out) : fast_verdict(lim, st, now_ns);
}

/* check for cost 1 without an answer: algo.h's verdict op. */
static int verdict_op(const struct rl_limiter *lim, void *st, int64_t now_ns)
{
	return fast_verdict(lim, st, now_ns);
}

/* A check that may resize the ring, with the heap measured around it. */
static RL_NOINLINE int check_measured(const struct rl_limiter *lim, struct rl_sliding_log *st,
				      int64_t now_ns, int64_t cost, struct rl_decision *out,
				      int64_t *heap_delta)
{
	size_t before = rl_runlog_heap_bytes(&st->log);
	int rc = cost == 1 ? answered(lim, st, now_ns, out) : weighted(lim, st, now_ns, cost, out);

	*heap_delta += (int64_t)rl_runlog_heap_bytes(&st->log) - (int64_t)before;
	return rc;
}

/* A cost-1 verdict: rl__sliding_log_fast, else check_measured (only four arguments kept live). */
static RL_ALWAYS_INLINE int verdict_measured(const struct rl_limiter *lim, struct rl_sliding_log *st,
					     int64_t now_ns, int64_t *heap_delta)
{
	int rc = rl__sliding_log_fast(lim, st, now_ns, NULL);

	return rc != RL_SLIDING_LOG_HAND_OVER ? rc : check_measured(lim, st, now_ns, 1, NULL, heap_delta);
}

/*
 * check, with the heap measured only around the checks that may resize
 * the ring: a cost-1 verdict that rl__sliding_log_fast finishes is a leaf (no
 * register saved), the rest goes to check_measured.
 */
static int check_heap_op(const struct rl_limiter *lim, void *state, int64_t now_ns, int64_t cost,
			 struct rl_decision *out, int64_t *heap_delta)
{
	if (cost == 1 && !out)
		return verdict_measured(lim, state, now_ns, heap_delta);
	return check_measured(lim, state, now_ns, cost, out, heap_delta);
}

static bool idle_op(const struct rl_limiter *lim, const void *state, int64_t now_ns)
{
	const struct rl_sliding_log *st = state;
	int64_t now = rl__clamp(now_ns, st->last_ns);

	return st->log.len == 0 || rl_runlog_newest(&st->log)->at <= now - lim->rule.window_ns;
}

static void release_op(void *state)
{
	struct rl_sliding_log *st = state;

	rl_runlog_free(&st->log);
}

/* At most N in each of the floor(span / W) + 1 half-open pieces of length W that tile the interval. */
static int64_t bound_op(const struct rl_limiter *lim, int64_t span_ns)
{
	return rl__sat_count((rl__u128)lim->rule.limit * ((rl__u128)span_ns / (rl__u128)lim->rule.window_ns + 1));
}

static size_t heap_op(const void *state)
{
	const struct rl_sliding_log *st = state;

	return rl_runlog_heap_bytes(&st->log);
}

/* The newest run leaves the window last. */
static int64_t reset_op(const struct rl_limiter *lim, const void *state, int64_t now_ns)
{
	const struct rl_sliding_log *st = state;
	int64_t now = rl__clamp(now_ns, st->last_ns);
	int64_t left = st->log.len ? rl_runlog_newest(&st->log)->at + lim->rule.window_ns - now : 0;

	return left > 0 ? left : 0;
}

/*
 * The runs are absolute times and stay; those the old window (and the
 * new, when shorter) has left by now are dropped, as a check under either
 * rule would drop them, so a longer W1 never counts admissions older than
 * W0 (sliding_log.h). Allocates nothing.
 */
static void rerule_op(const struct rl_limiter *from, const struct rl_limiter *to, void *state, int64_t now)
{
	struct rl_sliding_log *st = state;
	int64_t w = from->rule.window_ns < to->rule.window_ns ? from->rule.window_ns : to->rule.window_ns;

	rl_runlog_expire(&st->log, now - w);
	st->last_ns = now;
}

/*
 * last_ns a time; the ring's shape sound (cap 0 or a power of two, len <=
 * cap, head < cap); runs inside (last_ns - W, last_ns], strictly
 * increasing, each of at least 1 unit, their sum the log's total and at
 * most RL_SLIDING_LOG_UNITS_MAX (sliding_log.h: N after a change that
 * lowered N, or settled charges).
 */
static bool state_ok_op(const struct rl_limiter *lim, const void *state)
{
	const struct rl_sliding_log *st = state;
	const struct rl_runlog *log = &st->log;
	int64_t prev = st->last_ns - lim->rule.window_ns;
	uint64_t sum = 0;

	if (!rl__time_ok(st->last_ns) || (log->cap & (log->cap - 1)) || log->len > log->cap ||
	    (log->cap && (log->head >= log->cap || !log->runs)))
		return false;
	for (uint32_t i = 0; i < log->len; i++) {
		const struct rl_run *r = &log->runs[(log->head + i) & (log->cap - 1)];
		if (r->at <= prev || r->at > st->last_ns || r->count == 0 || r->count > RL_SLIDING_LOG_UNITS_MAX)
			return false;
		prev = r->at;
		sum += r->count;
		if (sum > RL_SLIDING_LOG_UNITS_MAX)
			return false;
	}
	/* a settle's debt: 2 * N at most, N at most RL_LIMIT_MAX under any earlier rule */
	return sum == log->total && sum <= 2 * (uint64_t)RL_LIMIT_MAX;
}

static int64_t last_ns_op(const void *state)
{
	return ((const struct rl_sliding_log *)state)->last_ns;
}

const struct rl_algo rl_sliding_log_algo = {
	.name = "sliding_log",
	.state_size = sizeof(struct rl_sliding_log),
	.check = check_op,
	.verdict = verdict_op,
	.is_idle = idle_op,
	.release = release_op,
	.heap_bytes = heap_op,
	.reset_ns = reset_op,
	.check_heap = check_heap_op,
	.max_admitted = bound_op,
	.rerule = rerule_op,
	.state_ok = state_ok_op,
	.last_ns = last_ns_op,
};

#include "policy_ops.h"

/*
 * Policies (policy.h, policy_ops.h): the check's decision and answer
 * without changing the state. The runs that have left the window are
 * skipped, as never() skips them.
 */
int rl__sliding_log_probe(const struct rl_limiter *lim, const struct rl_sliding_log *st, int64_t now_ns,
			  int64_t cost, struct rl_decision *out)
{
	if (!rl__time_ok(now_ns) || !rl__cost_ok(cost) || cost > lim->rule.limit)
		return never(lim, st, now_ns, cost, out);

	int64_t now = rl__clamp(now_ns, st->last_ns);
	int64_t w = lim->rule.window_ns, n = lim->rule.limit;
	const struct rl_runlog *log = &st->log;
	int64_t in_window = (int64_t)log->total;
	uint32_t first = 0;

	for (; first < log->len; first++) {
		const struct rl_run *r = &log->runs[(log->head + first) & (log->cap - 1)];
		if (r->at > now - w)
			break;
		in_window -= (int64_t)r->count;
	}
	int verdict = in_window + cost <= n ? RL_ALLOWED : RL_REJECTED;

	if (!out)
		return verdict;
	out->remaining = n - in_window - (verdict ? cost : 0);
	out->retry_after_ns = 0;
	for (int64_t left = in_window; !verdict; first++) {
		/* the oldest runs in the window leave one by one (retry_after) */
		const struct rl_run *r = &log->runs[(log->head + first) & (log->cap - 1)];
		left -= (int64_t)r->count;
		if (left + cost <= n) {
			out->retry_after_ns = r->at + w - now;
			break;
		}
	}
	/* admitted, its own run at now would leave last */
	out->reset_ns = verdict ? w : in_window ? rl_runlog_newest(log)->at + w - now : 0;
	out->delay_ns = 0;
	return verdict;
}

/* Drops the runs that have left the window at now_ns (no decision changes). */
void rl__sliding_log_expire(const struct rl_limiter *lim, struct rl_sliding_log *st, int64_t now_ns)
{
	struct rl_runlog *log = &st->log;

	rl_runlog_expire(log, rl__clamp(now_ns, st->last_ns) - lim->rule.window_ns);
	if (rl__runlog_trim_due(log))
		rl_runlog_trim(log);
}

/* Takes back the cost units the last admitted check added to the newest run. */
void rl__sliding_log_unpush(struct rl_sliding_log *st, int64_t cost)
{
	struct rl_runlog *log = &st->log;
	struct rl_run *r = &log->runs[(log->head + log->len - 1) & (log->cap - 1)];

	r->count -= (uint64_t)cost;
	log->total -= (uint64_t)cost;
	if (r->count == 0)
		log->len--;
}

#include "settle_ops.h"

/*
 * settle.h: the run at admitted_ns while it is in the window. A charge
 * keeps the log's total at most 2 * N (a window owed once more); a
 * refund that empties a run drops it, the later runs moved down one
 * place, so that every run holds at least one unit (state_ok_op).
 */
int rl__sliding_log_settle(const struct rl_limiter *lim, void *state, int64_t admitted_ns, int64_t delta,
			   int64_t now_ns)
{
	struct rl_sliding_log *st = state;
	struct rl_runlog *log = &st->log;
	int64_t now = rl__clamp(now_ns, st->last_ns);
	uint32_t mask = log->cap - 1, lo = 0, hi = log->len;

	if (admitted_ns <= now - lim->rule.window_ns)
		return RL_OK; /* it has left the window */
	/* the runs are in time order: the first at or after admitted_ns */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (log->runs[(log->head + mid) & mask].at < admitted_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == log->len || log->runs[(log->head + lo) & mask].at != admitted_ns)
		return RL_OK; /* nothing admitted then */
	struct rl_run *r = &log->runs[(log->head + lo) & mask];
	if (delta > 0) {
		/* total <= 2 * N <= 2 * 10^12 and delta <= 10^12: no sum wraps 64 bits */
		uint64_t most = 2 * (uint64_t)lim->rule.limit, room = log->total < most ? most - log->total : 0;
		uint64_t add = (uint64_t)delta < room ? (uint64_t)delta : room;
		r->count += add;
		log->total += add;
		return RL_OK;
	}
	uint64_t take = (uint64_t)-delta < r->count ? (uint64_t)-delta : r->count;
	r->count -= take;
	log->total -= take;
	if (r->count == 0) {
		for (uint32_t i = lo; i + 1 < log->len; i++)
			log->runs[(log->head + i) & mask] = log->runs[(log->head + i + 1) & mask];
		log->len--;
	}
	return RL_OK;
}
