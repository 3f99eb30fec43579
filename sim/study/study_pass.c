/*
 * study_pass.c - model: one (rule, decider) pass over the shard's requests
 * in trace order. Each verdict v on request i (key k, time t, cost c) is
 * judged three ways (study.h): against the reference's bit for i (the
 * excess, diverged), against the algorithm's own admitted units in
 * (t - W, t] before it (over_n_admissions, false_rejects, max_in_w, as
 * sim_run.c judges: the same rl_runlog per key), and per key (admitted
 * units, so refused = requested - admitted). Invariant: track[k] holds
 * exactly the units the decider admitted for k in (t - W, t] at k's latest
 * request. A key's judge (its run log and admitted units) is one half cache
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
#include "runlog_ops.h"
#include "sim_decider.h"
#include "sim_scenario.h"

#define PREFETCH 16 /* requests ahead: a key's state and judge; half as far ahead, its log's oldest run */

/* A key's judge: its admitted units in the window and in all. */
struct key_judge {
	struct rl_runlog track;
	int64_t adm;
};
/* 40 bytes: the log's total is 64 bits (units up to 10^12 per window) */
_Static_assert(sizeof(struct key_judge) == 40, "a key's judge is 40 bytes");

struct judge {
	const struct study_shared *sh;
	const uint64_t *excess;
	int64_t limit, window_ns;
	struct key_judge *kj; /* per key */
	struct sim_study_row *row;
};

static int judge_init(struct judge *j, const struct study_pass *p, const struct rl_rule *rule)
{
	size_t nk = p->sh->t->nkeys ? p->sh->t->nkeys : 1;

	*j = (struct judge){ .sh = p->sh, .excess = p->sh->excess[p->rule], .limit = rule->limit,
			     .window_ns = rule->window_ns, .row = p->row };
	j->kj = aligned_alloc(64, (nk * sizeof(*j->kj) + 63) / 64 * 64);
	if (j->kj)
		memset(j->kj, 0, nk * sizeof(*j->kj));
	return j->kj ? RL_OK : RL_ENOMEM;
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

	if (rl__runlog_expire_one(log, t - j->window_ns))
		rl_runlog_expire(log, t - j->window_ns);
	bool exact = (int64_t)log->total + c <= j->limit;
	if (v) {
		kj->adm += c;
		if (log->total + (uint64_t)c > (uint64_t)INT64_MAX)
			return RL_EFULL; /* more units admitted in one window than a run log counts */
		if (!rl__runlog_push_fits(log, t, (uint64_t)c)) {
			int rc = rl_runlog_push_n(log, t, (uint64_t)c);
			if (rc)
				return rc;
		}
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
	free(j->kj);
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

static void release_all(const struct rl_limiter *lim, unsigned char *states, size_t nkeys)
{
	for (size_t k = 0; lim->algo->release && k < nkeys; k++)
		rl_limiter_release(lim, states + k * lim->algo->state_size);
	memset(states, 0, nkeys * lim->algo->state_size);
}

/* The algorithm alone over the shard's first sh->timing_n requests, fresh states: ns per check. */
static int time_checks(const struct study_shared *sh, const struct rl_limiter *lim, unsigned char *states,
		       double *ns)
{
	const struct sim_trace *t = sh->t;
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
	release_all(lim, states, t->nkeys);
	return RL_OK;
}

int sim_study_algo_pass(struct study_pass *p, const struct rl_algo *algo, const struct rl_rule *rule)
{
	const struct study_shared *sh = p->sh;
	const struct sim_trace *t = sh->t;
	size_t nk = t->nkeys ? t->nkeys : 1, ss = algo->state_size;
	struct rl_limiter lim;
	struct judge j;
	int rc = rl_limiter_init(&lim, algo, rule, NULL, 0);

	if (rc)
		return rc;
	bool owns_heap = algo->heap_bytes != NULL;
	unsigned char *states = calloc(nk, ss);
	size_t *peak = owns_heap ? calloc(nk, sizeof(*peak)) : NULL;
	if ((rc = judge_init(&j, p, rule)) == RL_OK && (!states || (owns_heap && !peak)))
		rc = RL_ENOMEM;
	p->row->state_bytes = (int64_t)ss;
	if (rc == RL_OK)
		rc = time_checks(sh, &lim, states, &p->row->ns_per_check);
	for (size_t i = 0; rc == RL_OK && i < t->n; i++) {
		uint32_t k = t->key[i];
		prefetch(&j, t, i, states, ss);
		if (!sh->in[k])
			continue;
		void *st = states + (size_t)k * ss;
		int v = rl_limiter_check_n(&lim, st, t->t_ns[i], t->cost[i], NULL);
		if (v < 0) {
			rc = v;
			break;
		}
		if (owns_heap) {
			size_t h = rl_limiter_heap_bytes(&lim, st);
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
	}
	if (states)
		release_all(&lim, states, t->nkeys);
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
	struct judge j;
	size_t done = 0;
	int rc = judge_init(&j, p, &rule->rule);

	p->row->state_bytes = -1;
	if (!sc || rc) {
		snprintf(msg, msg_len, "out of memory");
		free(sc);
		free(j.kj);
		return RL_ENOMEM;
	}
	snprintf(sc->name, sizeof(sc->name), "%s", rule->text);
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
