/*
 * study_pass.c - model: one (rule, decider) pass over the shard's requests
 * in trace order. Each verdict v on request i (key k, time t, cost c) is
 * judged three ways (study.h): against the reference's bit for i (the
 * excess, diverged), against the algorithm's own admitted units in
 * (t - W, t] before it (over_n_admissions, false_rejects, max_in_w: the
 * simulator's judge, sim_judge.h), and per key (admitted
 * units, so refused = requested - admitted). Invariant: track[k] holds
 * exactly the units the decider admitted for k in (t - W, t] at k's latest
 * request, settled as the simulator's judge settles (judge_settle). A key's judge (its run log and admitted units) is one half cache
 * line, and the passes prefetch the state and judge of the key PREFETCH
 * requests ahead: keys come in no order, so each request is otherwise a
 * few cache misses.
 */
#include "study_impl.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compat.h"
#include "ratelab/runlog.h"
#include "sim_decider.h"
#include "sim_judge.h"
#include "sim_scenario.h"
#include "study_decide.h"

#define PREFETCH 16 /* requests ahead: a key's state and judge; half as far ahead, its log's oldest run */

/* A key's judge: its admitted units in the window and in all. */
struct key_judge {
	struct rl_runlog track;
	int64_t adm;
};
/* 40 bytes: the log's total is 64 bits (units up to 10^12 per window) */
_Static_assert(sizeof(struct key_judge) == 40, "a key's judge is 40 bytes");

/*
 * A policy's rules 2.. are judged on logs of their own (more, nmore per
 * key): a decision is exact when every rule's own admitted share in its
 * window plus this request's share is within its N (the share: c for a
 * rule that counts units, else 1).
 */
struct judge {
	const struct study_shared *sh;
	const uint64_t *excess;
	int64_t limit, window_ns;
	bool units0;          /* rule 1 counts units (always, but for a policy's rule without ":units") */
	struct key_judge *kj; /* per key */
	struct sim_study_row *row;
	size_t nmore;         /* a policy's rules after its first */
	int64_t more_limit[RL_POLICY_MAX_RULES - 1], more_window_ns[RL_POLICY_MAX_RULES - 1];
	bool more_units[RL_POLICY_MAX_RULES - 1];
	struct rl_runlog *more; /* per key, nmore logs */
};

static int judge_init(struct judge *j, const struct study_pass *p, const struct sim_study_rule *r)
{
	size_t nk = p->sh->t->nkeys ? p->sh->t->nkeys : 1;
	struct rl_policy policy = sim_study_rule_policy(r);
	const struct rl_policy *pol = &policy;

	*j = (struct judge){ .sh = p->sh, .excess = p->sh->excess[p->rule], .limit = r->rule.limit,
			     .window_ns = r->rule.window_ns, .units0 = pol->units[0], .row = p->row,
			     .nmore = pol->count - 1 };
	for (size_t i = 0; i < j->nmore; i++) {
		j->more_limit[i] = pol->rules[i + 1].limit;
		j->more_window_ns[i] = pol->rules[i + 1].window_ns;
		j->more_units[i] = pol->units[i + 1];
	}
	if (j->nmore && !(j->more = calloc(nk * j->nmore, sizeof(*j->more))))
		return RL_ENOMEM;
	j->kj = aligned_alloc(64, (nk * sizeof(*j->kj) + 63) / 64 * 64);
	if (j->kj)
		memset(j->kj, 0, nk * sizeof(*j->kj));
	return j->kj ? RL_OK : RL_ENOMEM;
}

/* A policy's rules 2..: whether the request's shares fit; when admitted (v), taken. */
static int judge_more(struct judge *j, uint32_t k, int64_t t, int64_t c, int v, bool *exact)
{
	for (size_t r = 0; r < j->nmore; r++) {
		struct rl_runlog *log = &j->more[(size_t)k * j->nmore + r];
		int64_t share = j->more_units[r] ? c : 1;
		rl_runlog_expire(log, t - j->more_window_ns[r]);
		*exact = *exact && (int64_t)log->total + share <= j->more_limit[r];
		if (!v)
			continue;
		if ((int64_t)log->total + share > UINT32_MAX)
			return RL_EFULL;
		int rc = rl_runlog_push_n(log, t, (uint32_t)share);
		if (rc)
			return rc;
	}
	return RL_OK;
}

/* Fetches the states and judges of the key of request i + PREFETCH, and the oldest and newest runs of the
 * log of that of i + PREFETCH / 2 (whose judge the first step fetched). */
static RL_ALWAYS_INLINE void prefetch(const struct judge *j, const struct sim_trace *t, size_t i,
				      unsigned char *states, size_t ss)
{
	if (i + PREFETCH < t->n) {
		uint32_t k = t->key[i + PREFETCH];
		if (states)
			RL_PREFETCH_WRITE(states + (size_t)k * ss);
		RL_PREFETCH_WRITE(&j->kj[k]);
	}
	if (i + PREFETCH / 2 < t->n) {
		const struct rl_runlog *log = &j->kj[t->key[i + PREFETCH / 2]].track;
		if (log->runs) {
			RL_PREFETCH_WRITE(&log->runs[log->head]);
			RL_PREFETCH_WRITE(&log->runs[(log->head + log->len - 1) & (log->cap - 1)]);
		}
	}
}

static RL_ALWAYS_INLINE int judge(struct judge *j, size_t i, uint32_t k, int64_t t, int64_t c, int v)
{
	struct sim_study_row *row = j->row;
	struct key_judge *kj = &j->kj[k];
	struct rl_runlog *log = &kj->track;
	bool excess = j->excess[i / 64] >> (i % 64) & 1;
	int64_t share = j->units0 ? c : 1;

	bool exact = sim_judge_exact(log, j->window_ns, j->limit, t, share);
	if (j->nmore) {
		int rc = judge_more(j, k, t, c, v, &exact);
		if (rc)
			return rc;
	}
	if (v) {
		kj->adm += c;
		int rc = sim_judge_admit(log, t, share);
		if (rc)
			return rc;
		if ((int64_t)log->total > row->max_in_w)
			row->max_in_w = log->total;
		row->over_n_admissions += exact ? 0 : c;
		row->excess_admitted += excess ? c : 0;
		row->diverged += excess ? c : 0;
	} else {
		row->false_rejects += exact ? c : 0;
		row->diverged += excess ? 0 : c;
	}
	return RL_OK;
}

/*
 * A settle the pass applied (study_decide.h) on the judge's logs, as the
 * simulator's judge settles (sim_judge_settle): the admission, logged at
 * its request's trace time, takes delta more units (or fewer) in every
 * rule that counts units, from DONE_T on while it is in the rule's window.
 */
static int judge_settle(void *arg, const struct study_pending *p)
{
	struct judge *j = arg;
	int64_t at = j->sh->t->t_ns[p->seq];
	int rc = RL_OK;

	if (j->units0)
		rc = sim_judge_settle(&j->kj[p->key].track, j->window_ns, p->done_ns, at, p->delta);
	for (size_t r = 0; rc == RL_OK && r < j->nmore; r++)
		if (j->more_units[r])
			rc = sim_judge_settle(&j->more[(size_t)p->key * j->nmore + r], j->more_window_ns[r],
					      p->done_ns, at, p->delta);
	return rc;
}

/* Per-key totals into the row and the top keys' column; frees the judge. */
static void judge_finish(struct judge *j, const struct study_pass *p, const size_t *peak_heap)
{
	const struct study_shared *sh = j->sh;
	struct sim_study_row *row = j->row;
	const unsigned char *within = sh->within[p->rule];

	for (size_t k = 0; k < sh->t->nkeys; k++) {
		int64_t u = sh->units[k], adm = j->kj[k].adm, refused = u - adm;
		if (!u)
			continue;
		row->keys++;
		row->requests += u;
		row->admitted += adm;
		if (within[k] && refused) {
			row->good_keys_hurt++;
			row->good_requests_rejected += refused;
		}
		/* the share refused, refused / u, against 0.01, 0.1 and 0.5 in integers */
		int b = !refused ? 0 : refused * 100 <= u ? 1 : refused * 10 <= u ? 2 : refused * 2 <= u ? 3 : 4;
		row->refused[b]++;
		if (peak_heap)
			row->heap_bytes += (int64_t)peak_heap[k];
	}
	for (size_t n = 0; n < p->ntop; n++)
		p->top[n].admitted[p->col] = j->kj[p->top_ids[n]].adm;
	for (size_t k = 0; k < sh->t->nkeys; k++)
		rl_runlog_free(&j->kj[k].track);
	for (size_t k = 0; j->more && k < sh->t->nkeys * j->nmore; k++)
		rl_runlog_free(&j->more[k]);
	free(j->kj);
	free(j->more);
}

/* Seconds of clock c: the thread's CPU time for a check loop (other processes
 * sharing the core do not count), wall time for a decider (its work is the
 * child's). */
static double clock_s(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void release_all(const struct study_decide *d, unsigned char *states, size_t nkeys)
{
	size_t ss = study_decide_state_size(d);

	for (size_t k = 0; d->lim.algo->release && k < nkeys; k++)
		study_decide_release(d, states + k * ss);
	memset(states, 0, nkeys * ss);
}

/* The algorithm alone over the shard's first sh->timing_n requests, fresh states: ns per check
 * (settles left out: a check's cost). */
static int time_checks(const struct study_shared *sh, const struct study_decide *d, unsigned char *states,
		       double *ns)
{
	const struct sim_trace *t = sh->t;
	const struct rl_limiter *lim = &d->lim;
	size_t ss = lim->algo->state_size, done = 0;

	memset(states, 0, t->nkeys * ss); /* the pages mapped before the clock starts */
	double t0 = clock_s(CLOCK_THREAD_CPUTIME_ID);

	for (size_t i = 0; i < t->n && done < sh->timing_n; i++) {
		uint32_t k = t->key[i];
		if (!sh->in[k])
			continue;
		int v = rl_limiter_check_n(lim, states + (size_t)k * ss, t->t_ns[i], t->cost[i], NULL);
		if (v < 0)
			return v;
		done++;
	}
	*ns = done ? (clock_s(CLOCK_THREAD_CPUTIME_ID) - t0) * 1e9 / (double)done : 0;
	release_all(d, states, t->nkeys);
	return RL_OK;
}

int sim_study_algo_pass(struct study_pass *p, const struct rl_algo *algo, const struct sim_study_rule *rule)
{
	const struct study_shared *sh = p->sh;
	const struct sim_trace *t = sh->t;
	size_t nk = t->nkeys ? t->nkeys : 1;
	struct study_decide d;
	struct judge j = { 0 };
	int rc = study_decide_init(&d, algo, rule, t);

	if (rc) {
		study_decide_free(&d);
		return rc;
	}
	size_t ss = study_decide_state_size(&d);
	const struct rl_limiter *lim = &d.lim;
	bool owns_heap = lim->algo->heap_bytes != NULL;
	unsigned char *states = calloc(nk, ss);
	size_t *peak = owns_heap ? calloc(nk, sizeof(*peak)) : NULL;
	if ((rc = judge_init(&j, p, rule)) == RL_OK && (!states || (owns_heap && !peak)))
		rc = RL_ENOMEM;
	d.on_settle = judge_settle;
	d.on_settle_arg = &j;
	p->row->state_bytes = (int64_t)ss;
	if (rc == RL_OK)
		rc = time_checks(sh, &d, states, &p->row->ns_per_check);
	for (size_t i = 0; rc == RL_OK && i < t->n; i++) {
		uint32_t k = t->key[i];
		prefetch(&j, t, i, states, ss);
		if (!sh->in[k])
			continue;
		void *st = states + (size_t)k * ss;
		int v = d.pl ? study_decide_one(&d, states, i) : rl_limiter_check_n(lim, st, t->t_ns[i], t->cost[i], NULL);
		if (v < 0) {
			rc = v;
			break;
		}
		if (owns_heap) {
			size_t h = rl_limiter_heap_bytes(lim, st);
			if (h > peak[k])
				peak[k] = h;
		}
		rc = judge(&j, i, k, t->t_ns[i], t->cost[i], v);
	}
	if (j.kj) {
		if (rc == RL_OK)
			judge_finish(&j, p, peak);
		else
			judge_finish(&j, &(struct study_pass){ .sh = sh, .rule = p->rule, .row = p->row }, NULL);
	} else {
		free(j.more);
	}
	if (states)
		release_all(&d, states, t->nkeys);
	study_decide_free(&d);
	free(states);
	free(peak);
	return rc;
}

int sim_study_decider_pass(struct study_pass *p, const struct sim_study_decider *d,
			   const struct sim_study_rule *rule, char *msg, size_t msg_len)
{
	const struct study_shared *sh = p->sh;
	const struct sim_trace *t = sh->t;
	struct sim_scenario *sc = calloc(1, sizeof(*sc));
	struct sim_child *child = NULL;
	struct judge j = { 0 };
	size_t done = 0;
	int rc;

	p->row->state_bytes = -1;
	if (rule->is_policy || t->actual) { /* the protocol (sim_decider.h) carries one rule and no settle */
		snprintf(msg, msg_len, "decider %s: %s", d->name, rule->is_policy ? "a decider decides one rule, not "
			 "a policy" : "a decider does not settle (the trace has settle lines)");
		free(sc);
		return RL_EINVAL;
	}
	rc = judge_init(&j, p, rule);
	if (!sc || rc) {
		snprintf(msg, msg_len, "out of memory");
		free(sc);
		free(j.kj);
		free(j.more);
		return RL_ENOMEM;
	}
	snprintf(sc->name, sizeof(sc->name), "%.*s", (int)sizeof(sc->name) - 1, rule->text); /* a rule's text: short */
	sc->rule = rule->rule;
	rc = sim_child_start(&child, d->cmd, sc, d->timeout_ns, msg, msg_len);
	double t0 = clock_s(CLOCK_MONOTONIC);
	for (size_t i = 0; rc == RL_OK && i < t->n; i++) {
		uint32_t k = t->key[i];
		if (!sh->in[k])
			continue;
		int v = sim_child_decide(child, t->t_ns[i], k, t->cost[i], NULL);
		if (v < 0) {
			snprintf(msg, msg_len, "decider %s (rule %s): %s", d->name, rule->text,
				 sim_child_error(child) ? sim_child_error(child) : rl_strerror(v));
			rc = RL_EINVAL;
			break;
		}
		done++;
		if ((rc = judge(&j, i, k, t->t_ns[i], t->cost[i], v)) != RL_OK)
			snprintf(msg, msg_len, "decider %s (rule %s): %s", d->name, rule->text, rl_strerror(rc));
	}
	if (child) {
		char why[512];
		int frc = sim_child_finish(child, why, sizeof(why));
		if (rc == RL_OK && frc != RL_OK) {
			snprintf(msg, msg_len, "decider %s (rule %s): %s", d->name, rule->text, why);
			rc = frc;
		}
	}
	p->row->ns_per_check = done ? (clock_s(CLOCK_MONOTONIC) - t0) * 1e9 / (double)done : 0;
	judge_finish(&j, rc == RL_OK ? p : &(struct study_pass){ .sh = sh, .rule = p->rule, .row = p->row }, NULL);
	free(sc);
	return rc;
}
