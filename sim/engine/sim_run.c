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
	int64_t *w = r->ks[key].win, width = r->ref->rule.window_ns, k = t / width;

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

/* The measurements of decision v (>= 0) on key at t; ref is the reference's verdict, st the state (NULL: external). */
static inline int record(struct run *r, void *st, int64_t t, uint32_t key, int64_t cost, int v, int ref)
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
	bool exact = sim_judge_exact(log, r->ref->rule.window_ns, r->ref->rule.limit, t, cost);
	estimate(r, key, t, (int64_t)log->total);
	if (v) {
		int rc = sim_judge_admit(log, t, cost);
		if (rc)
			return rc;
		ks->win[2] += cost;
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
	return record(r, st, measured_at(r, key, t), key, cost, v, ref);
}

/* The measurements of the external decider's verdict v on a request, made when v comes. */
static RL_NOINLINE int judge_external(struct run *r, int64_t t, uint32_t key, int64_t cost, int v)
{
	if (v < 0)
		return v;
	int ref = r->compare ? rl_limiter_check_n(r->ref, &r->refs[key], t, cost, NULL) : 0;
	if (ref < 0)
		return ref;
	return record(r, NULL, measured_at(r, key, t), key, cost, v, ref);
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
	const struct rl_rule *rule = &r->ref->rule;
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

/* With algo, its limiter decides; else ext does (name labels the run). */
static int run_with(struct sim_traffic *tr, const struct rl_algo *algo, const struct sim_decider *ext,
		    const char *name, const struct sim_hooks *hooks, struct sim_result *res)
{
	const struct sim_scenario *sc = tr->sc;
	struct rl_limiter lim, ref;
	size_t n = tr->nkeys ? tr->nkeys : 1;
	char label[2 * SIM_NAME_MAX + 2];
	int rc;

	*res = (struct sim_result){ 0 };
	if ((algo && (rc = rl_limiter_init(&lim, algo, &sc->rule, NULL, 0))) ||
	    (rc = rl_limiter_init(&ref, &rl_sliding_log_algo, &sc->rule, NULL, 0)))
		return rc;
	struct run r = {
		.lim = algo ? &lim : NULL, .ext = ext, .ref = &ref, .state_size = algo ? algo->state_size : 0,
		.hooks = hooks, .bucket_ns = sc->bucket_ns, .origin_ns = tr->origin_ns, .res = res,
		.owns_heap = algo && algo->heap_bytes != NULL, .compare = sc->compare, .clamp = sc->compare && tr->replays,
		.states = calloc(n, algo ? algo->state_size : 1), .refs = calloc(n, sizeof(*r.refs)),
		.track = calloc(n, sizeof(*r.track)),
		.ks = aligned_alloc(sizeof(struct key_stats), n * sizeof(struct key_stats)),
		.over = calloc(n, 1), /* an external decider states no bound: none is passed */
		.own_bound = algo ? rl_limiter_max_admitted(&lim, sc->rule.window_ns - 1) : INT64_MAX,
	};
	if (r.ks)
		memset(r.ks, 0, n * sizeof(*r.ks));
	if (!r.states || !r.refs || !r.track || !r.ks || !r.over) {
		rc = RL_ENOMEM;
	} else {
		struct sim_decider d = { .decide = algo ? decide : decide_external, .ctx = &r };
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
	}
	for (size_t key = 0; r.states && r.refs && r.track && key < n; key++) {
		if (algo)
			rl_limiter_release(&lim, r.states + key * algo->state_size);
		rl_limiter_release(&ref, &r.refs[key]);
		rl_runlog_free(&r.track[key]);
	}
	free(r.states);
	free(r.refs);
	free(r.track);
	free(r.ks);
	free(r.over);
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
