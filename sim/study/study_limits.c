/*
 * study_limits.c - model: the shard's requests regrouped by key (times and
 * costs copied key by key, in time order), so that each key's history is
 * one contiguous run. Phase 1, per key and window: the peak, by two
 * pointers over its history. Then per window the limits to list, from the
 * sorted peaks. Phase 2, per key: for each window and each listed N below
 * its peak, the exact sliding log over its history (a queue of its
 * admitted requests, two pointers again), counting what it refuses. Keys
 * are jobs taken by threads from a shared counter, heaviest first; each
 * thread sums into its own counters, added up in thread order, so the
 * figures do not depend on the number of threads.
 */
#include "study_limits.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ratelab/status.h"
#include "study.h"

const uint32_t sim_limits_quoted[SIM_LIMITS_NQUOTED] = { 5000, 9000, 9900 };

#define MAX_THREADS 64

struct lim_ctx {
	const struct sim_limits_opts *o;
	struct sim_limits *l;
	size_t nkeys;
	size_t *off;        /* per key: its first request in kt/kc; off[nkeys] the end */
	int64_t *kt;        /* times, key by key */
	uint32_t *kc;       /* costs, key by key */
	uint32_t *order;    /* active keys, most requests first */
	size_t nactive;
	int64_t *peak;      /* peak[w * nkeys + k] */
	size_t most;        /* the most requests of one key */
	atomic_size_t next;
	int phase;
};

/* Per thread: the admitted queue and the phase 2 counters. */
struct lim_thread {
	struct lim_ctx *c;
	int64_t *qt;
	uint32_t *qc;
	int64_t *kr, *rr;   /* [w * SIM_LIMITS_MAX + row] */
	bool failed;
};

int64_t sim_limits_need(int64_t keys, uint32_t p)
{
	return (keys * (int64_t)p + 9999) / 10000;
}

/* The most units of the key's requests in any (t - W, t]. */
static int64_t key_peak(const int64_t *t, const uint32_t *c, size_t n, int64_t w)
{
	int64_t sum = 0, peak = 0;

	for (size_t i = 0, head = 0; i < n; i++) {
		sum += c[i];
		while (t[i] - t[head] >= w) /* t[head] <= t[i] - W: out of (t - W, t] */
			sum -= c[head++];
		if (sum > peak)
			peak = sum;
	}
	return peak;
}

/* Units the exact sliding log at limit n refuses of the key's requests; q* its admitted queue. */
static int64_t key_refused(const int64_t *t, const uint32_t *c, size_t cnt, int64_t w, int64_t n, int64_t *qt,
			   uint32_t *qc)
{
	int64_t in_w = 0, refused = 0;
	size_t head = 0, tail = 0;

	for (size_t i = 0; i < cnt; i++) {
		while (head < tail && t[i] - qt[head] >= w)
			in_w -= qc[head++];
		if (in_w + c[i] <= n) {
			qt[tail] = t[i];
			qc[tail++] = c[i];
			in_w += c[i];
		} else {
			refused += c[i];
		}
	}
	return refused;
}

static void key_job(struct lim_thread *th, uint32_t k)
{
	struct lim_ctx *c = th->c;
	const int64_t *t = c->kt + c->off[k];
	const uint32_t *cost = c->kc + c->off[k];
	size_t cnt = c->off[k + 1] - c->off[k];

	for (size_t w = 0; w < c->l->nwindows; w++) {
		const struct sim_limits_window *lw = &c->l->w[w];
		if (c->phase == 1) {
			c->peak[w * c->nkeys + k] = key_peak(t, cost, cnt, lw->window_ns);
			continue;
		}
		int64_t peak = c->peak[w * c->nkeys + k];
		for (size_t r = 0; r < lw->n && lw->limit[r] < peak; r++) {
			th->kr[w * SIM_LIMITS_MAX + r]++;
			th->rr[w * SIM_LIMITS_MAX + r] +=
				key_refused(t, cost, cnt, lw->window_ns, lw->limit[r], th->qt, th->qc);
		}
	}
}

static void *worker(void *arg)
{
	struct lim_thread *th = arg;
	struct lim_ctx *c = th->c;

	for (;;) {
		size_t j = atomic_fetch_add(&c->next, 1);
		if (j >= c->nactive)
			return NULL;
		key_job(th, c->order[j]);
	}
}

/* Runs the phase on up to jobs threads, the calling one among them. */
static void run_phase(struct lim_ctx *c, struct lim_thread *th, unsigned nth)
{
	pthread_t id[MAX_THREADS];
	unsigned started = 1;

	atomic_store(&c->next, 0);
	for (; started < nth; started++)
		if (pthread_create(&id[started], NULL, worker, &th[started]) != 0)
			break; /* fewer threads: the calling one still takes every job left */
	worker(&th[0]);
	for (unsigned i = 1; i < started; i++)
		pthread_join(id[i], NULL);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Key ids ranked by requests, descending (qsort takes no context: set before the sort). */
static const size_t *rank_off;

static int by_requests(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	size_t nx = rank_off[x + 1] - rank_off[x], ny = rank_off[y + 1] - rank_off[y];

	if (nx != ny)
		return nx > ny ? -1 : 1;
	return (x > y) - (x < y);
}

/* The limits to list for window w, from its keys' peaks sorted ascending. */
static int choose_limits(struct sim_limits_window *lw, const int64_t *sorted, size_t nk, uint32_t target)
{
	int64_t max = nk ? sorted[nk - 1] : 0;
	int64_t must[SIM_LIMITS_NQUOTED + 2];
	size_t nmust = 0;

	for (size_t q = 0; q < SIM_LIMITS_NQUOTED; q++)
		must[nmust++] = lw->quoted[q] = nk ? sorted[sim_limits_need((int64_t)nk, sim_limits_quoted[q]) - 1] : 0;
	must[nmust++] = lw->suggested = nk ? sorted[sim_limits_need((int64_t)nk, target) - 1] : 0;
	must[nmust++] = lw->max_peak = max;
	size_t cap = SIM_LIMITS_MAX;
	lw->limit = calloc(cap, sizeof(*lw->limit));
	lw->keys_refused = calloc(cap, sizeof(*lw->keys_refused));
	lw->requests_refused = calloc(cap, sizeof(*lw->requests_refused));
	if (!lw->limit || !lw->keys_refused || !lw->requests_refused)
		return RL_ENOMEM;
	size_t n = 0;
	if (max <= SIM_LIMITS_MAX) {
		for (int64_t v = 1; v <= max; v++)
			lw->limit[n++] = v;
	} else {
		/* geometric from 1 to max in SIM_LIMITS_MAX - nmust steps, each at least one
		 * above the one before (1, 2, 3 ... where the ratio is too small to move);
		 * then the quoted values; sorted and made distinct, at most SIM_LIMITS_MAX */
		size_t steps = SIM_LIMITS_MAX - nmust;
		for (size_t i = 0; i < steps; i++) {
			double v = exp(log((double)max) * (double)i / (double)(steps - 1));
			int64_t x = (int64_t)llround(v), prev = n ? lw->limit[n - 1] : 0;
			if (x <= prev)
				x = prev + 1;
			if (x > max)
				break;
			lw->limit[n++] = x;
		}
		for (size_t i = 0; i < nmust; i++)
			lw->limit[n++] = must[i];
		qsort(lw->limit, n, sizeof(*lw->limit), cmp_i64);
		size_t d = 0;
		for (size_t i = 0; i < n; i++)
			if (!d || lw->limit[i] != lw->limit[d - 1])
				lw->limit[d++] = lw->limit[i];
		n = d;
	}
	lw->n = n;
	return RL_OK;
}

/* The shard's requests regrouped by key; the active keys ranked. */
static int regroup(struct lim_ctx *c, const struct sim_trace *t)
{
	const struct sim_limits_opts *o = c->o;
	size_t nk = t->nkeys;
	unsigned char *in = calloc(nk ? nk : 1, 1);
	size_t *fill = NULL;
	int rc = RL_ENOMEM;

	c->nkeys = nk;
	c->off = calloc(nk + 1, sizeof(*c->off));
	c->order = malloc((nk ? nk : 1) * sizeof(*c->order));
	if (!in || !c->off || !c->order)
		goto out;
	for (size_t k = 0; k < nk; k++)
		in[k] = sim_study_key_hash(t->key_name[k], strlen(t->key_name[k])) % o->nshards == o->shard;
	for (size_t i = 0; i < t->n; i++)
		if (in[t->key[i]])
			c->off[t->key[i] + 1]++;
	for (size_t k = 0; k < nk; k++) {
		size_t cnt = c->off[k + 1];
		if (cnt > c->most)
			c->most = cnt;
		if (cnt)
			c->order[c->nactive++] = (uint32_t)k;
		c->off[k + 1] += c->off[k];
	}
	size_t total = c->off[nk];
	c->kt = malloc((total ? total : 1) * sizeof(*c->kt));
	c->kc = malloc((total ? total : 1) * sizeof(*c->kc));
	fill = malloc((nk ? nk : 1) * sizeof(*fill));
	if (!c->kt || !c->kc || !fill)
		goto out;
	memcpy(fill, c->off, nk * sizeof(*fill));
	for (size_t i = 0; i < t->n; i++) {
		uint32_t k = t->key[i];
		if (!in[k])
			continue;
		if (i && t->t_ns[i] < t->t_ns[i - 1]) {
			rc = RL_EORDER;
			goto out;
		}
		c->kt[fill[k]] = t->t_ns[i];
		c->kc[fill[k]++] = t->cost[i];
	}
	rank_off = c->off;
	qsort(c->order, c->nactive, sizeof(*c->order), by_requests);
	rc = RL_OK;
out:
	free(in);
	free(fill);
	return rc;
}

int sim_study_limits(struct sim_limits *l, const struct sim_trace *t, const struct sim_limits_opts *o, char *msg,
		     size_t msg_len)
{
	struct lim_ctx c = { .o = o, .l = l };
	struct lim_thread th[MAX_THREADS];
	unsigned nth = o->jobs < 1 ? 1 : o->jobs > MAX_THREADS ? MAX_THREADS : o->jobs;
	int64_t *sorted = NULL;
	int rc;

	memset(l, 0, sizeof(*l));
	memset(th, 0, sizeof(th));
	if (!o->nshards || o->shard >= o->nshards || o->target < 1 || o->target > 10000) {
		snprintf(msg, msg_len, "the shard must be below the shard count and the target in 1 .. 10000");
		return RL_EINVAL;
	}
	l->w = calloc(o->nwindows ? o->nwindows : 1, sizeof(*l->w));
	if (!l->w) {
		snprintf(msg, msg_len, "out of memory");
		return RL_ENOMEM;
	}
	l->nwindows = o->nwindows;
	for (size_t w = 0; w < o->nwindows; w++) {
		snprintf(l->w[w].text, sizeof(l->w[w].text), "%s", o->texts[w]);
		l->w[w].window_ns = o->windows_ns[w];
	}
	rc = regroup(&c, t);
	if (rc == RL_OK && nth > c.nactive)
		nth = c.nactive ? (unsigned)c.nactive : 1;
	if (rc == RL_OK &&
	    (!(c.peak = calloc(o->nwindows * c.nkeys + 1, sizeof(*c.peak))) ||
	     !(sorted = malloc((c.nactive ? c.nactive : 1) * sizeof(*sorted)))))
		rc = RL_ENOMEM;
	for (unsigned i = 0; rc == RL_OK && i < nth; i++) {
		th[i].c = &c;
		th[i].qt = malloc((c.most ? c.most : 1) * sizeof(*th[i].qt));
		th[i].qc = malloc((c.most ? c.most : 1) * sizeof(*th[i].qc));
		th[i].kr = calloc(o->nwindows * SIM_LIMITS_MAX + 1, sizeof(*th[i].kr));
		th[i].rr = calloc(o->nwindows * SIM_LIMITS_MAX + 1, sizeof(*th[i].rr));
		if (!th[i].qt || !th[i].qc || !th[i].kr || !th[i].rr)
			rc = RL_ENOMEM;
	}
	if (rc == RL_OK) {
		c.phase = 1;
		run_phase(&c, th, nth);
	}
	for (size_t w = 0; rc == RL_OK && w < o->nwindows; w++) {
		struct sim_limits_window *lw = &l->w[w];
		for (size_t j = 0; j < c.nactive; j++) {
			uint32_t k = c.order[j];
			sorted[j] = c.peak[w * c.nkeys + k];
		}
		lw->keys = (int64_t)c.nactive;
		for (size_t i = 0; i < c.off[c.nkeys]; i++)
			lw->requests += c.kc[i];
		qsort(sorted, c.nactive, sizeof(*sorted), cmp_i64);
		rc = choose_limits(lw, sorted, c.nactive, o->target);
	}
	if (rc == RL_OK) {
		c.phase = 2;
		run_phase(&c, th, nth);
		for (size_t w = 0; w < o->nwindows; w++)
			for (size_t r = 0; r < l->w[w].n; r++)
				for (unsigned i = 0; i < nth; i++) {
					l->w[w].keys_refused[r] += th[i].kr[w * SIM_LIMITS_MAX + r];
					l->w[w].requests_refused[r] += th[i].rr[w * SIM_LIMITS_MAX + r];
				}
	}
	for (unsigned i = 0; i < MAX_THREADS; i++) {
		free(th[i].qt);
		free(th[i].qc);
		free(th[i].kr);
		free(th[i].rr);
	}
	free(sorted);
	free(c.peak);
	free(c.off);
	free(c.kt);
	free(c.kc);
	free(c.order);
	if (rc != RL_OK) {
		snprintf(msg, msg_len, "%s", rc == RL_EORDER ? "the trace is not in time order" : "out of memory");
		sim_limits_free(l);
	}
	return rc;
}

void sim_limits_free(struct sim_limits *l)
{
	for (size_t w = 0; l->w && w < l->nwindows; w++) {
		free(l->w[w].limit);
		free(l->w[w].keys_refused);
		free(l->w[w].requests_refused);
	}
	free(l->w);
	memset(l, 0, sizeof(*l));
}
