/*
 * sim_run.c - model: the decider the engine calls checks the request (of
 * cost c units) with the algorithm under test and with the reference on
 * that key's states, and tallies the comparison. Invariant: per key, track
 * holds exactly the algorithm's admitted units in (t - W, t] at the latest
 * request t, as (time, units) runs, so its total after each admission is
 * the count of the window ending there, and the largest such total is the
 * largest count of any window of length W.
 */
#include "sim_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ratelab/policy.h"
#include "ratelab/sliding_log.h"
#include "sim_judge.h"

/* What a run tallies per key: one cache line, so a request touches one line of them. */
struct key_stats {
	int64_t req, wrong;      /* requests, false decisions */
	int64_t units, adm;      /* units requested, units admitted */
	int64_t win[3];          /* aligned window of the last request; its prev and curr admitted units */
	size_t peak_heap;        /* for an algorithm whose states own heap */
};
_Static_assert(sizeof(struct key_stats) == 64, "struct key_stats is one cache line");

struct run {
	const struct rl_limiter *lim, *ref; /* lim is NULL for an external decider */
	/* A policy, shadow mode or settles (sim_run.h): the algorithm's and the
	 * reference's policy limiters (lim and ref are theirs), pstates the
	 * reference's states; NULL: the one rule, refs its states */
	struct rl_policy_limiter *pl, *ref_pl;
	unsigned char *pstates;
	size_t ref_size;             /* bytes of a reference state in pstates */
	int64_t limit, window_ns;    /* the judged rule: the scenario's (a policy's first) */
	bool units0;                 /* it counts costs (else 1 a request: a policy's rule without ':units') */
	size_t nmore;                /* a policy's rules after its first, judged on logs of their own */
	int64_t more_limit[RL_POLICY_MAX_RULES - 1], more_window_ns[RL_POLICY_MAX_RULES - 1];
	bool more_units[RL_POLICY_MAX_RULES - 1];
	struct rl_runlog *more;      /* per key, nmore logs */
	unsigned took;               /* the last decision: which states took it (sim_traffic.h's took) */
	uint32_t last_key;
	unsigned char *states;       /* nkeys * state_size */
	size_t state_size;
	struct rl_sliding_log *refs; /* the reference's per-key states */
	struct rl_runlog *track;     /* the algorithm's admitted times in the window, per key */
	struct key_stats *ks;        /* per key */
	unsigned char *over;         /* per key: ever more than N admitted in a window */
	bool owns_heap;              /* the algorithm's states own heap (rl_algo.heap_bytes) */
	bool compare;                /* the scenario's compare: reference and tracking on */
	bool clamp;                  /* compare, and a time handed may go back (a replayed trace) */
	int64_t own_bound;           /* rl_limiter_max_admitted(lim, W - 1) */
	const struct sim_hooks *hooks;
	int64_t bucket_ns;
	int64_t origin_ns;           /* the run's time 0 on the limiters' clock (sim_traffic.h) */
	struct sim_result *res;
	const struct sim_decider *ext; /* the external decider, when lim is NULL */
};

/* The sliding-counter estimate of key's admitted count before a request at t, against exact. */
static void estimate(struct run *r, uint32_t key, int64_t t, int64_t exact)
{
	int64_t *w = r->ks[key].win, width = r->window_ns, k = t / width;

	if (k != w[0]) {
		w[1] = k == w[0] + 1 ? w[2] : 0;
		w[2] = 0;
		w[0] = k;
	}
	if (!exact)
		return;
	double est = (double)w[1] * (double)(width - t % width) / (double)width + (double)w[2];
	r->res->estimate_diff_sum += fabs(est - (double)exact) / (double)exact;
	r->res->estimate_n++;
}

/*
 * A policy's rules 2..: whether the request's shares fit each rule's own
 * log (into *exact); when admitted (v), taken. RL_OK, RL_EFULL or RL_ENOMEM.
 */
static int judge_more(struct run *r, uint32_t key, int64_t t, int64_t cost, int v, bool *exact)
{
	for (size_t i = 0; i < r->nmore; i++) {
		struct rl_runlog *log = &r->more[(size_t)key * r->nmore + i];
		int64_t share = r->more_units[i] ? cost : 1;
		*exact = sim_judge_exact(log, r->more_window_ns[i], r->more_limit[i], t, share) && *exact;
	}
	for (size_t i = 0; v && i < r->nmore; i++) {
		int rc = sim_judge_admit(&r->more[(size_t)key * r->nmore + i], t, r->more_units[i] ? cost : 1);
		if (rc)
			return rc;
	}
	return RL_OK;
}

/*
 * The measurements of decision v (>= 0) on key at t; ref is the reference's
 * verdict, st the state (NULL: external). full: a policy's judge (rule 1's
 * share, the rules after it); a constant, so the one-rule path is as it was.
 */
static RL_ALWAYS_INLINE int record(struct run *r, void *st, int64_t t, uint32_t key, int64_t cost, int v, int ref,
				   const bool full)
{
	r->res->requests++;
	struct key_stats *ks = &r->ks[key];
	ks->req++;
	ks->units += cost;
	if (v) {
		r->res->admitted++;
		ks->adm += cost;
	}
	if (!r->compare)
		goto observe;
	/* the exact verdict on this request, given what the algorithm admitted
	 * before it (sim_judge.h, the study's judge too) */
	struct rl_runlog *log = &r->track[key];
	int64_t share = full && !r->units0 ? 1 : cost; /* what the judged rule counts */
	bool exact = sim_judge_exact(log, r->window_ns, r->limit, t, share);
	if (full && r->nmore) {
		int rc = judge_more(r, key, t, cost, v, &exact);
		if (rc)
			return rc;
	}
	estimate(r, key, t, (int64_t)log->total);
	if (v) {
		int rc = sim_judge_admit(log, t, share);
		if (rc)
			return rc;
		ks->win[2] += share;
		if ((int64_t)log->total > r->res->max_in_window)
			r->res->max_in_window = log->total;
		r->res->beyond_bound += (int64_t)log->total > r->own_bound;
		if (!exact && !r->over[key]) {
			r->over[key] = 1;
			r->res->keys_over++;
		}
	}
	ks->wrong += v != exact;
	r->res->false_allows += v && !exact;
	r->res->false_rejects += !v && exact;
	r->res->diverged_allows += v && !ref;
	r->res->diverged_rejects += !v && ref;
observe:
	if (r->owns_heap) {
		size_t heap = rl_limiter_heap_bytes(r->lim, st);
		if (heap > ks->peak_heap)
			ks->peak_heap = heap;
	}
	const struct sim_hooks *h = r->hooks;
	if (h) { /* the series and the hooks count in the run's time */
		size_t b = (size_t)((t - r->origin_ns) / r->bucket_ns);
		if (b < h->nbuckets) {
			if (h->series_admitted)
				h->series_admitted[b] += v;
			if (h->series_rejected)
				h->series_rejected[b] += !v;
		}
		if (h->on_decision)
			h->on_decision(h->arg, t - r->origin_ns, key, v);
	}
	return v;
}

/*
 * The time a request is measured at: a replayed line may go back in time
 * (sim_traffic.h), and like the limiters the measurement clamps it to the
 * key's last seen time, which the reference has just recorded.
 */
static inline int64_t measured_at(const struct run *r, uint32_t key, int64_t t)
{
	return r->clamp ? r->refs[key].last_ns : t;
}

/* The engine's time t (from the run's 0) is handed to the limiters as origin_ns + t. */
static int decide(void *ctx, int64_t t_run, uint32_t key, int64_t cost, int64_t *retry_ns)
{
	struct run *r = ctx;
	struct rl_decision d;
	void *st = r->states + (size_t)key * r->state_size;
	int64_t t = r->origin_ns + t_run;
	int v = rl_limiter_check_n(r->lim, st, t, cost, retry_ns ? &d : NULL);
	int ref = r->compare ? rl_limiter_check_n(r->ref, &r->refs[key], t, cost, NULL) : 0;

	if (v < 0)
		return v;
	if (ref < 0)
		return ref;
	if (retry_ns)
		*retry_ns = d.retry_after_ns;
	return record(r, st, measured_at(r, key, t), key, cost, v, ref, false);
}

/*
 * decide for a policy, shadow mode or settles: the policy limiters', and
 * which states took the request for took(): the algorithm's when it
 * admitted it enforcing (in shadow mode an admission with a wait, >= 1
 * ns, is a would-reject: policy.h), the reference's when it admitted it.
 */
static int decide_policy(void *ctx, int64_t t_run, uint32_t key, int64_t cost, int64_t *retry_ns)
{
	struct run *r = ctx;
	struct rl_decision d;
	void *st = r->states + (size_t)key * r->state_size;
	void *rst = r->compare ? r->pstates + (size_t)key * r->ref_size : NULL;
	int64_t t = r->origin_ns + t_run;
	int v = rl_limiter_check_n(r->lim, st, t, cost, &d);
	int ref = r->compare ? rl_limiter_check_n(r->ref, rst, t, cost, NULL) : 0;

	if (v < 0)
		return v;
	if (ref < 0)
		return ref;
	if (retry_ns)
		*retry_ns = d.retry_after_ns;
	r->took = (unsigned)(v == RL_ALLOWED && d.retry_after_ns == 0) | (unsigned)(ref == RL_ALLOWED) << 1;
	r->last_key = key;
	/* as measured_at: the reference's last seen time, which only grows */
	return record(r, st, r->clamp ? rl_policy_state_last_ns(rst) : t, key, cost, v, ref, true);
}

/* The states that took the last request, and when each decided it: an admission's time is its key's last seen time. */
static unsigned took(void *ctx, int64_t at_ns[2])
{
	struct run *r = ctx;

	at_ns[0] = rl_policy_state_last_ns(r->states + (size_t)r->last_key * r->state_size);
	at_ns[1] = r->compare ? rl_policy_state_last_ns(r->pstates + (size_t)r->last_key * r->ref_size) : 0;
	return r->took;
}

/* Settles delta units on the states that took the request (settle.h, per rule: policy.h). */
static int settle(void *ctx, int64_t t_run, uint32_t key, unsigned states, const int64_t at_ns[2], int64_t delta)
{
	struct run *r = ctx;
	int64_t t = r->origin_ns + t_run;
	int rc = RL_OK;

	if (states & 1)
		rc = rl_policy_settle(r->pl, r->states + (size_t)key * r->state_size, at_ns[0], delta, t);
	if (rc == RL_OK && (states & 2))
		rc = rl_policy_settle(r->ref_pl, r->pstates + (size_t)key * r->ref_size, at_ns[1], delta, t);
	/* the judge's histories: the algorithm's admission, judged at the reference's time (decide_policy) */
	if (rc == RL_OK && (states & 1) && r->compare && r->units0)
		rc = sim_judge_settle(&r->track[key], r->window_ns, t, at_ns[1], delta);
	for (size_t i = 0; rc == RL_OK && (states & 1) && r->compare && i < r->nmore; i++)
		if (r->more_units[i])
			rc = sim_judge_settle(&r->more[(size_t)key * r->nmore + i], r->more_window_ns[i], t, at_ns[1],
					      delta);
	return rc;
}

/* The measurements of the external decider's verdict v on a request, made when v comes. */
static RL_NOINLINE int judge_external(struct run *r, int64_t t, uint32_t key, int64_t cost, int v)
{
	if (v < 0)
		return v;
	int ref = r->compare ? rl_limiter_check_n(r->ref, &r->refs[key], t, cost, NULL) : 0;
	if (ref < 0)
		return ref;
	return record(r, NULL, measured_at(r, key, t), key, cost, v, ref, false);
}

/* The same with the external decider's verdict and retry-after. */
static int decide_external(void *ctx, int64_t t_run, uint32_t key, int64_t cost, int64_t *retry_ns)
{
	struct run *r = ctx;
	int64_t t = r->origin_ns + t_run;

	return judge_external(r, t, key, cost, r->ext->decide(r->ext->ctx, t, key, cost, retry_ns));
}

/* Pipelined (sim_traffic.h): the request goes out; it is measured when its answer comes, in order. */
static int send_external(void *ctx, int64_t t_run, uint32_t key, int64_t cost)
{
	struct run *r = ctx;

	return r->ext->send(r->ext->ctx, r->origin_ns + t_run, key, cost);
}

static int answer_external(void *ctx, int64_t t_run, uint32_t key, int64_t cost, int64_t *retry_ns)
{
	struct run *r = ctx;
	int64_t t = r->origin_ns + t_run;

	return judge_external(r, t, key, cost, r->ext->answer(r->ext->ctx, t, key, cost, retry_ns));
}

static void summarise(struct run *r, struct sim_traffic *tr)
{
	struct sim_result *res = r->res;
	const struct rl_rule *rule = &tr->sc->rule; /* a policy's first rule */
	/* Jain's index per source: only a source's uniformly picked keys have equal demand */
	double sum[SIM_MAX_TRAFFIC] = { 0 }, sum2[SIM_MAX_TRAFFIC] = { 0 }, bytes = 0;
	int64_t k[SIM_MAX_TRAFFIC] = { 0 };
	/* a heavy key asked for more than its quota over the run */
	double heavy_above = (double)rule->limit * (double)tr->sc->duration_ns / (double)rule->window_ns;

	for (uint32_t key = 0; key < tr->nkeys; key++) {
		const struct key_stats *ks = &r->ks[key];
		res->units += ks->units;
		res->admitted_units += ks->adm;
		if (!ks->req)
			continue;
		res->active_keys++;
		if ((double)ks->units > heavy_above) { /* the quota is in units */
			res->heavy_keys++;
			res->heavy_requests += ks->req;
			res->heavy_false += ks->wrong;
		}
		int64_t b = (int64_t)r->state_size + (int64_t)ks->peak_heap;
		bytes += (double)b;
		if (b > res->state_bytes_max)
			res->state_bytes_max = b;
		const struct sim_source *s = sim_traffic_source_of(tr, key);
		if (s->cdf || s->spec->type == SIM_TRAFFIC_REPLAY)
			continue;
		size_t i = (size_t)(s - tr->src);
		double x = (double)ks->adm / (double)ks->units;
		sum[i] += x;
		sum2[i] += x * x;
		k[i]++;
	}
	res->jain_index = NAN;
	for (size_t i = 0; i < tr->nsources; i++) {
		const struct sim_source *s = &tr->src[i];
		if (s->cdf || s->spec->type == SIM_TRAFFIC_REPLAY)
			continue;
		double j = k[i] >= 2 && sum2[i] > 0 ? sum[i] * sum[i] / ((double)k[i] * sum2[i]) : 1.0;
		if (!(j >= res->jain_index))
			res->jain_index = j;
	}
	res->clients = tr->polite;
	res->own_bound = r->own_bound;
	if (res->active_keys) {
		res->state_bytes_mean = bytes / (double)res->active_keys;
		double quota = (double)res->active_keys * (double)rule->limit *
			       (double)tr->sc->duration_ns / (double)rule->window_ns;
		res->long_run_rate_ratio = (double)res->admitted_units / quota;
	}
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/*
 * A policy, shadow mode or settles (sim_run.h): algo's policy limiter and
 * the reference's (sliding_log's, enforcing) on the heap (they point into
 * themselves), their states, and the logs of a policy's rules 2..; the
 * judged rule's bound when neither shadow mode nor settles void it.
 */
static int policy_init(struct run *r, const struct rl_algo *algo, const struct sim_traffic *tr, size_t n,
		       struct rl_limiter *lim, struct rl_limiter *ref)
{
	const struct sim_scenario *sc = tr->sc;
	struct rl_policy pol;

	sim_scenario_policy(sc, &pol);
	r->units0 = pol.units[0];
	r->nmore = pol.count - 1;
	for (size_t i = 0; i < r->nmore; i++) {
		r->more_limit[i] = pol.rules[i + 1].limit;
		r->more_window_ns[i] = pol.rules[i + 1].window_ns;
		r->more_units[i] = pol.units[i + 1];
	}
	if (!(r->pl = malloc(sizeof(*r->pl))) || !(r->ref_pl = malloc(sizeof(*r->ref_pl))))
		return RL_ENOMEM;
	if (rl_policy_limiter_init(r->pl, algo, &pol, NULL, 0) ||
	    rl_policy_limiter_init(r->ref_pl, &rl_sliding_log_algo, &pol, NULL, 0))
		return RL_EINVAL;
	rl_policy_set_shadow(r->pl, sc->shadow);
	*lim = *rl_policy_as_limiter(r->pl);
	*ref = *rl_policy_as_limiter(r->ref_pl);
	r->state_size = lim->algo->state_size;
	r->ref_size = ref->algo->state_size;
	r->owns_heap = algo->heap_bytes != NULL; /* a policy's heap_bytes walks its rules: only where they own heap */
	r->res->bound_measured = !sc->shadow && !tr->settles;
	r->own_bound = r->res->bound_measured ? rl_limiter_max_admitted(&r->pl->rules[0], sc->rule.window_ns - 1)
					      : INT64_MAX;
	if (!(r->states = calloc(n, r->state_size)) || !(r->pstates = calloc(n, r->ref_size)) ||
	    (r->nmore && !(r->more = calloc(n * r->nmore, sizeof(*r->more)))))
		return RL_ENOMEM;
	return RL_OK;
}

/* With algo, its limiter decides; else ext does (name labels the run). */
static int run_with(struct sim_traffic *tr, const struct rl_algo *algo, const struct sim_decider *ext,
		    const char *name, const struct sim_hooks *hooks, struct sim_result *res)
{
	const struct sim_scenario *sc = tr->sc;
	struct rl_limiter lim, ref;
	size_t n = tr->nkeys ? tr->nkeys : 1;
	char label[2 * SIM_NAME_MAX + 2];
	bool policy = sim_scenario_policy(sc, NULL) || tr->settles;
	int rc;

	*res = (struct sim_result){ .would_reject = -1 };
	if (policy && !algo) /* the decider protocol carries one rule and no settle (sim_decider.h) */
		return RL_EINVAL;
	if ((algo && (rc = rl_limiter_init(&lim, algo, &sc->rule, NULL, 0))) ||
	    (rc = rl_limiter_init(&ref, &rl_sliding_log_algo, &sc->rule, NULL, 0)))
		return rc;
	struct run r = {
		.lim = algo ? &lim : NULL, .ext = ext, .ref = &ref, .state_size = algo ? algo->state_size : 0,
		.hooks = hooks, .bucket_ns = sc->bucket_ns, .origin_ns = tr->origin_ns, .res = res,
		.owns_heap = algo && algo->heap_bytes != NULL, .compare = sc->compare, .clamp = sc->compare && tr->replays,
		.limit = sc->rule.limit, .window_ns = sc->rule.window_ns, .units0 = true,
		.track = calloc(n, sizeof(*r.track)),
		.ks = aligned_alloc(sizeof(struct key_stats), n * sizeof(struct key_stats)),
		.over = calloc(n, 1), /* an external decider states no bound: none is passed */
		.own_bound = algo ? rl_limiter_max_admitted(&lim, sc->rule.window_ns - 1) : INT64_MAX,
	};
	res->bound_measured = algo != NULL;
	if (policy) {
		rc = policy_init(&r, algo, tr, n, &lim, &ref);
	} else {
		r.states = calloc(n, algo ? algo->state_size : 1);
		r.refs = calloc(n, sizeof(*r.refs));
		rc = r.states && r.refs ? RL_OK : RL_ENOMEM;
	}
	if (r.ks)
		memset(r.ks, 0, n * sizeof(*r.ks));
	if (rc == RL_OK && (!r.track || !r.ks || !r.over))
		rc = RL_ENOMEM;
	if (rc == RL_OK) {
		struct sim_decider d = { .decide = algo ? decide : decide_external, .ctx = &r };
		if (policy)
			d = (struct sim_decider){ .decide = decide_policy, .ctx = &r, .took = took, .settle = settle };
		if (ext && ext->send) {
			d.send = send_external;
			d.answer = answer_external;
			d.window = ext->window;
		}
		snprintf(label, sizeof(label), "%s/%s", sc->name, name);
		double t0 = now_s();
		rc = sim_traffic_run(tr, &d, label);
		res->cpu_s = now_s() - t0;
		if (rc == RL_OK)
			summarise(&r, tr);
		if (rc == RL_OK && sc->shadow)
			res->would_reject = (int64_t)rl_policy_would_reject(r.pl);
	}
	for (size_t key = 0; key < n; key++) {
		if (algo && r.states)
			rl_limiter_release(&lim, r.states + key * r.state_size);
		if (r.refs)
			rl_limiter_release(&ref, &r.refs[key]);
		if (r.pstates)
			rl_limiter_release(&ref, r.pstates + key * r.ref_size);
		if (r.track)
			rl_runlog_free(&r.track[key]);
		for (size_t i = 0; r.more && i < r.nmore; i++)
			rl_runlog_free(&r.more[key * r.nmore + i]);
	}
	free(r.states);
	free(r.refs);
	free(r.pstates);
	free(r.track);
	free(r.more);
	free(r.ks);
	free(r.over);
	free(r.pl);
	free(r.ref_pl);
	return rc;
}

int sim_run(struct sim_traffic *tr, const struct rl_algo *algo, const struct sim_hooks *hooks,
	    struct sim_result *res)
{
	return run_with(tr, algo, NULL, algo->name, hooks, res);
}

int sim_run_external(struct sim_traffic *tr, const struct sim_decider *ext, const char *name,
		     const struct sim_hooks *hooks, struct sim_result *res)
{
	return run_with(tr, NULL, ext, name, hooks, res);
}
