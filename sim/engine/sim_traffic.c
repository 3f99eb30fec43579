/*
 * sim_traffic.c - model: every source keeps at most one pending arrival in
 * the queue (plus its clients' retries); popping an arrival schedules the
 * source's next one before the request is decided. Invariant: the queue
 * only ever holds events in [0, duration), and events leave in (time, push
 * order), so a run is a pure function of the scenario, the seed and the
 * decider's answers.
 */
#include "sim_traffic.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compat.h"
#include "keymap.h"
#include "lines.h"
#include "ratelab/algo.h"
#include "ratelab/parse.h"
#include "sim_math.h"
#include "sim_queue.h"
#include "trace_load.h"

#define PROGRESS_EVERY (1u << 22) /* events between looks at the wall clock */

/*
 * What a loaded trace asks of its source: a settle line needs a client
 * that does not retry; a ':units' rule of the policy a COST on every line
 * that the source's cost = does not give (replay's words).
 */
static int check_trace(const struct sim_source *s, const struct sim_scenario *sc, char *msg, size_t msg_len)
{
	const struct sim_traffic_spec *sp = s->spec;
	const struct rl_policy *pol = &sc->policy;
	const char *ini = sc->file;
	char path[SIM_QUOTE_SIZE];
	size_t k = 0;

	sim_quote(path, sp->file);
	if (s->trace_actual && sp->client != SIM_CLIENT_NONE) {
		snprintf(msg, msg_len, "%s:%d: [traffic %s]: the trace %s has settle lines 'T KEY COST ACTUAL "
			 "DONE_T', and client = %s retries, which a settle line cannot say when it ends: "
			 "client = none", ini, sp->line, sp->name, path,
			 sp->client == SIM_CLIENT_POLITE ? "polite" : "abusive");
		return RL_EINVAL;
	}
	while (k < pol->count && !pol->units[k])
		k++;
	for (size_t i = 0; k < pol->count && !sp->cost_given && i < s->trace_len; i++)
		if (!s->trace_cost[i]) {
			snprintf(msg, msg_len, "%s:%d: [traffic %s]: the trace %s: request %zu (in file order) has "
				 "no COST, and rule %zu of policy counts units (':units'): every line needs 'T KEY "
				 "COST', or give cost =", ini, sp->line, sp->name, path, i + 1, k + 1);
			return RL_EINVAL;
		}
	return RL_OK;
}

/* The source's trace file, loaded whole (trace_load.h); its origin kept for the run's. */
static int load_trace(struct sim_source *s, const struct sim_scenario *sc, char *msg, size_t msg_len)
{
	const char *ini = sc->file;
	const char *path = s->spec->file;
	FILE *in = fopen(path, "r");
	struct sim_trace t;

	if (!in) {
		char q[SIM_QUOTE_SIZE];
		snprintf(msg, msg_len, "%s:%d: [traffic %s]: cannot open the trace %s", ini, s->spec->line,
			 s->spec->name, sim_quote(q, path));
		return RL_EINVAL;
	}
	int rc = sim_trace_load(in, path, &t, msg, msg_len);
	fclose(in);
	if (rc)
		return rc;
	s->trace_ns = t.t_ns;
	s->trace_key = t.key;
	s->trace_cost = t.cost;
	s->trace_actual = t.actual;
	s->trace_done_ns = t.done_ns;
	s->trace_len = t.n;
	s->trace_origin_ns = t.origin_ns;
	s->nkeys = t.nkeys ? (uint32_t)t.nkeys : 1;
	if (t.actual && !(s->trace_at_ns = calloc(2 * t.n, sizeof(*s->trace_at_ns)))) {
		snprintf(msg, msg_len, "%s: out of memory", path);
		sim_trace_free(&t);
		s->trace_ns = s->trace_done_ns = NULL;
		s->trace_key = s->trace_cost = s->trace_actual = NULL;
		return RL_ENOMEM;
	}
	t.t_ns = t.done_ns = NULL;
	t.key = t.cost = t.actual = NULL;
	sim_trace_free(&t); /* the key names: the engine keys by id */
	return check_trace(s, sc, msg, msg_len);
}

/*
 * The run's time 0: the earliest origin_ns of the replayed traces (0
 * without one), so that the limiters see a trace's own times (origin_ns +
 * T) while the run counts from 0; each trace's times moved to the run's
 * clock (T as written for the trace whose origin it is).
 */
static void run_origin(struct sim_traffic *tr)
{
	bool any = false;

	for (size_t i = 0; i < tr->nsources; i++) {
		const struct sim_source *s = &tr->src[i];
		if (s->spec->type != SIM_TRAFFIC_REPLAY)
			continue;
		int64_t o = s->trace_origin_ns; /* a later header may lower it: never past a time */
		for (size_t k = 0; k < s->trace_len; k++)
			o = s->trace_ns[k] < o ? s->trace_ns[k] : o;
		if (!any || o < tr->origin_ns)
			tr->origin_ns = o;
		any = true;
	}
	for (size_t i = 0; i < tr->nsources; i++) {
		struct sim_source *s = &tr->src[i];
		for (size_t k = 0; s->spec->type == SIM_TRAFFIC_REPLAY && k < s->trace_len; k++) {
			s->trace_ns[k] -= tr->origin_ns; /* >= 0: every time is at least its origin */
			if (s->trace_done_ns)
				s->trace_done_ns[k] -= tr->origin_ns; /* >= T */
		}
	}
}

/*
 * The lines replayed, [trace_first, trace_end): those whose event time
 * q_i = max(t_0 .. t_i) is in [start, stop). q only grows, so the lines
 * left out are a prefix and a suffix. None replayed is an error: an
 * empty trace, times past the run (absolute times) or before the source's
 * start.
 */
static int replay_range(struct sim_source *s, const char *ini, char *msg, size_t msg_len)
{
	const struct sim_traffic_spec *sp = s->spec;
	int64_t q = -1;
	size_t i = 0;

	for (; i < s->trace_len && (q = q > s->trace_ns[i] ? q : s->trace_ns[i]) < sp->start_ns; i++)
		;
	s->trace_first = i;
	for (; i < s->trace_len && (q = q > s->trace_ns[i] ? q : s->trace_ns[i]) < sp->stop_ns; i++)
		;
	s->trace_end = i;
	if (s->trace_end > s->trace_first)
		return RL_OK;
	char path[SIM_QUOTE_SIZE];
	sim_quote(path, sp->file);
	if (s->trace_len == 0)
		snprintf(msg, msg_len, "%s:%d: [traffic %s]: the trace %s holds no request", ini, sp->line, sp->name,
			 path);
	else if (s->trace_ns[0] >= sp->stop_ns)
		snprintf(msg, msg_len, "%s:%d: [traffic %s]: the trace %s starts at %lld ns, at or past the "
			 "source's end (%lld ns, the duration unless stop is given): none of its %zu requests "
			 "would be replayed. Trace times are ns from the start of the run: if these are "
			 "absolute (epoch) times, `ratelab import --relative --format trace %s` makes them "
			 "relative to the first request", ini, sp->line, sp->name, path, (long long)s->trace_ns[0],
			 (long long)sp->stop_ns, s->trace_len, sp->file);
	else
		snprintf(msg, msg_len, "%s:%d: [traffic %s]: none of the %zu requests of the trace %s falls "
			 "in the source's [start, stop) = [%lld, %lld) ns", ini, sp->line, sp->name, s->trace_len,
			 path, (long long)sp->start_ns, (long long)sp->stop_ns);
	return RL_EINVAL;
}

size_t sim_source_left_out(const struct sim_source *s)
{
	return s->spec && s->spec->type == SIM_TRAFFIC_REPLAY ? s->trace_len - (s->trace_end - s->trace_first) : 0;
}

static int make_zipf(struct sim_source *s)
{
	double sum = 0;

	s->cdf = malloc(s->nkeys * sizeof(*s->cdf));
	if (!s->cdf)
		return RL_ENOMEM;
	for (uint32_t i = 0; i < s->nkeys; i++) {
		sum += sim_exp(-s->spec->zipf * sim_ln((double)i + 1));
		s->cdf[i] = sum;
	}
	return RL_OK;
}

int sim_traffic_create(struct sim_traffic *tr, const struct sim_scenario *sc, uint64_t seed,
			  char *msg, size_t msg_len)
{
	uint64_t keys = 0;

	*tr = (struct sim_traffic){ .sc = sc, .seed = seed, .nsources = sc->ntraffic };
	for (size_t i = 0; i < sc->ntraffic; i++) {
		struct sim_source *s = &tr->src[i];
		const struct sim_traffic_spec *spec = &sc->traffic[i];
		int rc = RL_OK;

		s->spec = spec;
		s->nkeys = (uint32_t)spec->keys;
		if (spec->type == SIM_TRAFFIC_REPLAY) {
			tr->replays = true;
			rc = load_trace(s, sc, msg, msg_len);
			tr->settles = tr->settles || s->trace_actual;
		} else if (spec->zipf > 0 && spec->type != SIM_TRAFFIC_BOUNDARY && spec->type != SIM_TRAFFIC_ADVERSARY) {
			rc = make_zipf(s);
		}
		if (rc == RL_ENOMEM)
			snprintf(msg, msg_len, "out of memory");
		if (rc) {
			tr->nsources = i + 1;
			sim_traffic_destroy(tr);
			return rc;
		}
		s->key_base = (uint32_t)keys;
		keys += s->nkeys;
		if (keys > UINT32_MAX) {
			snprintf(msg, msg_len, "%s: more than 2^32 keys in all", sc->file);
			tr->nsources = i + 1;
			sim_traffic_destroy(tr);
			return RL_EINVAL;
		}
		/* per-key offered rate load% * N / W, over all of the source's keys */
		s->mean_ns = (double)sc->rule.window_ns * 100.0 /
			     ((double)spec->keys * (double)sc->rule.limit * (double)spec->load_pct);
		if (spec->type == SIM_TRAFFIC_DIURNAL)
			s->mean_ns = s->mean_ns * 100.0 / (100.0 + (double)spec->amplitude_pct);
	}
	tr->nkeys = (uint32_t)keys;
	run_origin(tr);
	for (size_t i = 0; i < tr->nsources; i++) {
		int rc = tr->src[i].spec->type == SIM_TRAFFIC_REPLAY ? replay_range(&tr->src[i], sc->file, msg, msg_len)
								     : RL_OK;
		if (rc) {
			sim_traffic_destroy(tr);
			return rc;
		}
	}
	return RL_OK;
}

void sim_traffic_destroy(struct sim_traffic *tr)
{
	for (size_t i = 0; i < tr->nsources; i++) {
		free(tr->src[i].cdf);
		free(tr->src[i].trace_ns);
		free(tr->src[i].trace_key);
		free(tr->src[i].trace_cost);
		free(tr->src[i].trace_actual);
		free(tr->src[i].trace_done_ns);
		free(tr->src[i].trace_at_ns);
	}
	*tr = (struct sim_traffic){ 0 };
}

const struct sim_source *sim_traffic_source_of(const struct sim_traffic *tr, uint32_t key)
{
	size_t i = 0;

	while (i + 1 < tr->nsources && key >= tr->src[i + 1].key_base)
		i++;
	return &tr->src[i];
}

static uint32_t pick_key(struct sim_source *s)
{
	if (s->nkeys == 1)
		return 0;
	if (!s->cdf)
		return (uint32_t)sim_rng_below(&s->rng, s->nkeys);
	double u = sim_rng_unit(&s->rng) * s->cdf[s->nkeys - 1];
	uint32_t lo = 0, hi = s->nkeys - 1; /* the first i with cdf[i] > u */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (s->cdf[mid] > u)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

static int64_t add_sat(int64_t t, int64_t d)
{
	return d > RL_TIME_MAX_NS - t ? RL_TIME_MAX_NS : t + d;
}

/* The adversary's round r: start offsets cycle so some round straddles a window edge. */
static int64_t round_start(const struct sim_source *s, int64_t w, int64_t r)
{
	const int64_t offsets[] = { w - 1, w / 2, 1, w / 4, 3 * (w / 4), 0 };
	int64_t first = (s->spec->start_ns + w - 1) / w * w;

	return first + (1 + 3 * r) * w + offsets[r % 6];
}

/* A request's cost from the source's distribution (sim_scenario.h), units. */
static uint32_t draw_cost(struct sim_source *s)
{
	const struct sim_traffic_spec *sp = s->spec;
	int64_t lo = sp->cost_min, hi = sp->cost_max;

	switch (sp->cost_kind) {
	case SIM_COST_UNIFORM:
		return (uint32_t)(lo + (int64_t)sim_rng_below(&s->cost_rng, (uint64_t)(hi - lo + 1)));
	case SIM_COST_PARETO: {
		/* inverse CDF of the Pareto truncated to [lo, hi]:
		 * x = lo * (1 - u (1 - (lo/hi)^a))^(-1/a), u in [0, 1) */
		double a = sp->cost_alpha;
		double r = sim_exp(a * sim_ln((double)lo / (double)hi)); /* >= e^-208 */
		double y = 1.0 - sim_rng_unit(&s->cost_rng) * (1.0 - r);
		double x = (double)lo * sim_exp(-sim_ln(y) / a);
		int64_t c = x >= (double)hi ? hi : (int64_t)x;
		return (uint32_t)(c < lo ? lo : c);
	}
	case SIM_COST_CONSTANT:
		break;
	}
	return (uint32_t)lo;
}

/*
 * The source's next arrival after the one it made last: false when it has
 * no more before its stop time. *cost is set for a trace line that names
 * its cost, else left alone.
 */
static bool next_arrival(struct sim_source *s, const struct sim_scenario *sc, int64_t *t, uint32_t *key,
			 uint32_t *cost)
{
	const struct sim_traffic_spec *sp = s->spec;
	int64_t w = sc->rule.window_ns, n = s->n++;

	switch (sp->type) {
	case SIM_TRAFFIC_UNSET:
		return false; /* never in a loaded scenario */
	case SIM_TRAFFIC_CONSTANT: {
		/* arrival n at start + floor(n * W * 100 / den), kept as a running quotient and remainder */
		int64_t off = s->off_ns;
		if (off >= sp->stop_ns - sp->start_ns)
			return false;
		s->off_ns = add_sat(s->off_ns, s->step_q);
		s->off_frac += s->step_r;
		if (s->off_frac >= s->step_den) {
			s->off_frac -= s->step_den;
			s->off_ns++;
		}
		*t = sp->start_ns + off;
		if (s->cdf) {
			*key = pick_key(s);
		} else {
			*key = s->next_key;
			s->next_key = s->next_key + 1 == s->nkeys ? 0 : s->next_key + 1;
		}
		return true;
	}
	case SIM_TRAFFIC_POISSON:
		*t = s->t_ns = add_sat(s->t_ns, sim_rng_exp_ns(&s->rng, s->mean_ns));
		break;
	case SIM_TRAFFIC_ONOFF:
		for (;;) {
			if (s->on) {
				int64_t c = add_sat(s->t_ns, sim_rng_exp_ns(&s->rng, s->mean_ns));
				if (c < s->switch_ns) {
					*t = s->t_ns = c;
					break;
				}
			}
			if (s->switch_ns >= sp->stop_ns)
				return false;
			/* memoryless: restarting the arrival clock at the switch is exact */
			s->t_ns = s->switch_ns;
			s->on = !s->on;
			s->switch_ns = add_sat(s->t_ns, sim_rng_exp_ns(&s->rng, s->on ? sp->on_ns : sp->off_ns));
		}
		break;
	case SIM_TRAFFIC_DIURNAL:
		/* thinning (Lewis-Shedler): candidates at the peak rate, kept with rate(t) / peak */
		for (;;) {
			s->t_ns = add_sat(s->t_ns, sim_rng_exp_ns(&s->rng, s->mean_ns));
			if (s->t_ns >= sp->stop_ns)
				return false;
			double turns = (double)((s->t_ns - sp->start_ns) % sp->period_ns) / (double)sp->period_ns;
			double a = (double)sp->amplitude_pct / 100.0;
			if (sim_rng_unit(&s->rng) * (1.0 + a) < 1.0 + a * sim_sin_turns(turns))
				break;
		}
		*t = s->t_ns;
		break;
	case SIM_TRAFFIC_BOUNDARY: {
		int64_t per_side = sp->count * s->nkeys;
		int64_t i = n % (2 * per_side);
		int64_t edge;
		if (n && i == 0)
			s->window += sp->every;
		/* saturated: INT64_MAX - gap (gap < W <= RL_TIME_MAX_NS) is past every stop time */
		if (rl__mul_overflow(s->window, w, &edge))
			edge = INT64_MAX;
		*t = edge - (i < per_side ? sp->gap_ns : 0);
		*key = (uint32_t)(i % s->nkeys);
		return *t < sp->stop_ns;
	}
	case SIM_TRAFFIC_ADVERSARY:
		if (n >= sp->rounds)
			return false;
		*t = round_start(s, w, n);
		*key = (uint32_t)(n % s->nkeys);
		s->round_end_ns = add_sat(*t, 2 * w);
		return *t < sp->stop_ns;
	case SIM_TRAFFIC_REPLAY:
		/* q_i, the running largest time; the lines before trace_first only raise it */
		for (;; n = s->n++) {
			if ((size_t)n >= s->trace_end)
				return false;
			if (s->trace_ns[n] > s->t_ns)
				s->t_ns = s->trace_ns[n];
			if ((size_t)n >= s->trace_first)
				break;
		}
		*t = s->t_ns;
		*key = s->trace_key[n];
		*cost = s->trace_cost[n];
		return true;
	}
	*key = pick_key(s);
	return *t < sp->stop_ns;
}

static void restart(struct sim_traffic *tr)
{
	const struct sim_scenario *sc = tr->sc;

	for (size_t i = 0; i < tr->nsources; i++) {
		struct sim_source *s = &tr->src[i];
		const struct sim_traffic_spec *sp = s->spec;

		sim_rng_seed(&s->rng, tr->seed, i);
		sim_rng_seed(&s->cost_rng, tr->seed, SIM_MAX_TRAFFIC + i);
		s->n = 0;
		s->t_ns = sp->type == SIM_TRAFFIC_REPLAY ? -1 : sp->start_ns;
		s->on = true;
		s->switch_ns = add_sat(sp->start_ns, sim_rng_exp_ns(&s->rng, (double)sp->on_ns));
		if (sp->type == SIM_TRAFFIC_BOUNDARY) {
			/* the first k, a multiple of every, with kW - gap >= start; the scenario
			 * keeps span = every * W <= RL_TIME_MAX_NS, so start + gap + span fits */
			int64_t span = sc->rule.window_ns * sp->every;
			s->window = ((sp->start_ns + sp->gap_ns + span - 1) / span) * sp->every;
			if (s->window == 0)
				s->window = sp->every;
		}
		s->round_end_ns = 0;
		s->step_den = (uint64_t)sp->keys * (uint64_t)sc->rule.limit * (uint64_t)sp->load_pct;
		rl__u128 q = (rl__u128)sc->rule.window_ns * 100 / s->step_den;
		s->step_q = q > (rl__u128)RL_TIME_MAX_NS ? RL_TIME_MAX_NS : (int64_t)q;
		s->step_r = (uint64_t)((rl__u128)sc->rule.window_ns * 100 % s->step_den);
		s->off_ns = 0;
		s->off_frac = 0;
		s->next_key = 0;
	}
}

static int schedule_next(struct sim_queue *q, struct sim_traffic *tr, uint32_t src)
{
	struct sim_source *s = &tr->src[src];
	int64_t t = 0;
	uint32_t key = 0, cost = 0;

	if (!next_arrival(s, tr->sc, &t, &key, &cost) || t >= tr->sc->duration_ns)
		return RL_OK;
	if (!cost) /* constant costs, the common case, without a call */
		cost = s->spec->cost_kind == SIM_COST_CONSTANT ? (uint32_t)s->spec->cost_min : draw_cost(s);
	enum sim_event_kind kind = s->spec->type == SIM_TRAFFIC_ADVERSARY ? SIM_EV_PROBE : SIM_EV_ARRIVAL;
	return sim_queue_push(q, (struct sim_event){ .t_ns = t, .source = src, .key = s->key_base + key,
						   .kind = kind, .first_ns = t, .cost = cost });
}

static void tally_polite(struct sim_clients *c, const struct sim_event *ev, int verdict, int64_t max_retries)
{
	int64_t wait = ev->t_ns - ev->first_ns;

	c->requests += ev->attempt == 0;
	if (verdict) {
		c->served++;
		c->wait_ns_sum += wait;
		if (wait > c->wait_ns_max)
			c->wait_ns_max = wait;
	} else {
		c->gave_up += ev->attempt >= max_retries;
	}
}

/* What the source does after the decision on ev (verdict, retry_after_ns). */
static RL_ALWAYS_INLINE int react(struct sim_queue *q, struct sim_traffic *tr, const struct sim_event *ev, int verdict,
		 int64_t retry_ns)
{
	struct sim_source *s = &tr->src[ev->source];
	const struct sim_traffic_spec *sp = s->spec;
	struct sim_event next = *ev;

	if (ev->kind == SIM_EV_PROBE) {
		next.t_ns = verdict ? ev->t_ns : add_sat(ev->t_ns, retry_ns > 0 ? retry_ns : 1);
		if (next.t_ns >= s->round_end_ns || next.t_ns >= sp->stop_ns)
			return schedule_next(q, tr, ev->source);
	} else {
		if (sp->client == SIM_CLIENT_POLITE)
			tally_polite(&tr->polite, ev, verdict, sp->max_retries);
		if (verdict || sp->client == SIM_CLIENT_NONE || ev->attempt >= sp->max_retries)
			return RL_OK;
		int64_t wait = sp->client == SIM_CLIENT_POLITE ? retry_ns : sp->retry_gap_ns;
		next.t_ns = add_sat(ev->t_ns, wait > 0 ? wait : 1);
		next.attempt++;
		next.kind = SIM_EV_RETRY;
	}
	return next.t_ns < tr->sc->duration_ns ? sim_queue_push(q, next) : RL_OK;
}

/* A request sent to a pipelined decider and not yet answered (run_pipelined). */
struct pending {
	struct sim_event ev;
	int64_t at_ns;    /* the time the decider was handed, ns */
	uint64_t seq;     /* the place in push order reserved for its consequence */
	int64_t until_ns; /* its consequence's earliest time, ns; INT64_MAX: none */
	bool want;        /* its retry-after is wanted */
};

/*
 * The earliest time an answer to ev can schedule an event at (react): a
 * probe's next probe at once (admitted); a polite client's retry 1 ns
 * later at the least (a decider's retry-after is >= 1 ns); an abusive
 * client's after its gap; none without a retry to come.
 */
static int64_t earliest_consequence(const struct sim_traffic *tr, const struct sim_event *ev)
{
	const struct sim_traffic_spec *sp = tr->src[ev->source].spec;

	if (ev->kind == SIM_EV_PROBE)
		return ev->t_ns;
	if (sp->client == SIM_CLIENT_NONE || ev->attempt >= sp->max_retries)
		return INT64_MAX;
	return add_sat(ev->t_ns, sp->client == SIM_CLIENT_POLITE || sp->retry_gap_ns < 1 ? 1 : sp->retry_gap_ns);
}

/* e leaves the queue before an event at t_ns pushed with seq. */
static bool leaves_before(const struct sim_event *e, int64_t t_ns, uint64_t seq)
{
	return e->t_ns < t_ns || (e->t_ns == t_ns && e->seq < seq);
}

/* After the decision on replayed line `line` of s (ev), which settles: its settle at DONE_T, when a state took it. */
static int schedule_settle(struct sim_queue *q, const struct sim_traffic *tr, const struct sim_decider *d,
			   const struct sim_event *ev, const struct sim_source *s, size_t line)
{
	struct sim_event e = { .t_ns = s->trace_done_ns[line], .source = ev->source, .key = ev->key,
			       .kind = SIM_EV_SETTLE, .cost = ev->cost, .first_ns = (int64_t)line };
	unsigned took = d->took(d->ctx, &s->trace_at_ns[2 * line]);

	if (!took || e.t_ns >= tr->sc->duration_ns) /* refused: nothing to settle; past the run: dropped */
		return RL_OK;
	e.attempt = (uint16_t)took;
	return sim_queue_push(q, e);
}

static double wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The scenario's progress line, every PROGRESS_EVERY events, at most once a second. */
static void progress(struct sim_traffic *tr, const char *label, int64_t t_ns, uint32_t *since, double *last)
{
	if (!tr->progress || ++*since != PROGRESS_EVERY)
		return;
	*since = 0;
	double now = wall_s();
	if (now - *last >= 1.0) {
		*last = now;
		fprintf(stderr, "ratelab sim: %s: %lld%% of virtual time\n", label,
			(long long)((rl__u128)t_ns * 100 / (rl__u128)tr->sc->duration_ns));
	}
}

/*
 * sim_traffic_run with a pipelined decider (sim_traffic.h says why it is
 * exact). pend is a ring of the requests unanswered, oldest first; mins a
 * ring of indices into it whose (until_ns, seq) increase from its front,
 * the front the least of all pending (a sliding-window minimum: each
 * request enters and leaves it once).
 */
static RL_NOINLINE int run_pipelined(struct sim_traffic *tr, struct sim_queue *q, const struct sim_decider *d,
			 const char *label)
{
	size_t w = d->window;
	struct pending *pend = malloc(w * sizeof(*pend));
	uint64_t *mins = malloc(w * sizeof(*mins));
	uint64_t head = 0, tail = 0, mhead = 0, mtail = 0; /* pend [head, tail), mins [mhead, mtail), mod w */
	uint32_t since = 0;
	double last = tr->progress ? wall_s() : 0;
	bool own_times = tr->replays && !d->in_order;
	int rc = pend && mins ? RL_OK : RL_ENOMEM;

	while (rc == RL_OK) {
		const struct sim_event *next = sim_queue_peek(q);
		const struct pending *least = mhead < mtail ? &pend[mins[mhead % w] % w] : NULL;
		if (next && tail - head < w && (!least || leaves_before(next, least->until_ns, least->seq))) {
			struct pending *p = &pend[tail % w];
			sim_queue_pop(q, &p->ev);
			const struct sim_source *s = &tr->src[p->ev.source];
			const struct sim_traffic_spec *sp = s->spec;
			p->want = p->ev.kind == SIM_EV_PROBE ||
				  (sp->client == SIM_CLIENT_POLITE && p->ev.attempt < sp->max_retries);
			p->at_ns = p->ev.t_ns;
			if (own_times && p->ev.kind == SIM_EV_ARRIVAL && sp->type == SIM_TRAFFIC_REPLAY)
				p->at_ns = s->trace_ns[s->n - 1]; /* as in sim_traffic_run */
			if (p->ev.kind == SIM_EV_ARRIVAL && (rc = schedule_next(q, tr, p->ev.source)))
				break;
			p->seq = q->next_seq++; /* in lockstep, react's push comes next */
			p->until_ns = earliest_consequence(tr, &p->ev);
			if ((rc = d->send(d->ctx, p->at_ns, p->ev.key, p->ev.cost)) < 0)
				break;
			if (p->until_ns != INT64_MAX) {
				while (mtail > mhead) { /* drop the later ones that are no less: never the least again */
					const struct pending *b = &pend[mins[(mtail - 1) % w] % w];
					if (b->until_ns < p->until_ns || (b->until_ns == p->until_ns && b->seq < p->seq))
						break;
					mtail--;
				}
				mins[mtail++ % w] = tail;
			}
			tail++;
			continue;
		}
		if (head == tail)
			break; /* the queue is empty and every answer taken */
		struct pending *p = &pend[head % w];
		int64_t retry_ns = 0;
		int verdict = d->answer(d->ctx, p->at_ns, p->ev.key, p->ev.cost, p->want ? &retry_ns : NULL);
		if (verdict < 0) {
			rc = verdict;
			break;
		}
		if (mhead < mtail && mins[mhead % w] == head)
			mhead++;
		head++;
		uint64_t seq = q->next_seq;
		q->next_seq = p->seq; /* react pushes one event at most: it takes the place reserved */
		rc = react(q, tr, &p->ev, verdict, retry_ns);
		q->next_seq = seq;
		progress(tr, label, p->ev.t_ns, &since, &last);
	}
	free(pend);
	free(mins);
	return rc;
}

int sim_traffic_run(struct sim_traffic *tr, const struct sim_decider *d, const char *label)
{
	struct sim_queue q;
	struct sim_event ev;
	int rc = RL_OK;
	uint32_t since = 0;
	double last = tr->progress ? wall_s() : 0;
	bool own_times = tr->replays && !d->in_order;
	bool settle = tr->settles && d->settle && d->took;

	sim_queue_init(&q);
	restart(tr);
	tr->polite = (struct sim_clients){ 0 };
	for (uint32_t i = 0; i < tr->nsources && rc == RL_OK; i++)
		rc = schedule_next(&q, tr, i);
	if (rc == RL_OK && d->send && d->window > 1 && !d->settle) {
		rc = run_pipelined(tr, &q, d, label);
		sim_queue_destroy(&q);
		return rc;
	}
	while (rc == RL_OK && sim_queue_pop(&q, &ev)) {
		if (ev.kind == SIM_EV_SETTLE) { /* its line's ACTUAL - COST, at the times took gave */
			const struct sim_source *s = &tr->src[ev.source];
			size_t line = (size_t)ev.first_ns;
			rc = d->settle(d->ctx, ev.t_ns, ev.key, ev.attempt, &s->trace_at_ns[2 * line],
				       (int64_t)s->trace_actual[line] - (int64_t)s->trace_cost[line]);
			continue;
		}
		const struct sim_traffic_spec *sp = tr->src[ev.source].spec;
		bool want = ev.kind == SIM_EV_PROBE || (sp->client == SIM_CLIENT_POLITE && ev.attempt < sp->max_retries);
		int64_t retry_ns = 0;
		const struct sim_source *s = &tr->src[ev.source];
		size_t line = s->n - 1; /* a replayed line: its index, until the next is scheduled */
		bool settles = settle && ev.kind == SIM_EV_ARRIVAL && s->trace_actual && s->trace_cost[line] &&
			       s->trace_actual[line] != s->trace_cost[line];

		int64_t at = ev.t_ns;
		if (own_times && ev.kind == SIM_EV_ARRIVAL && sp->type == SIM_TRAFFIC_REPLAY)
			at = s->trace_ns[line]; /* a replayed line's own time */

		if (ev.kind == SIM_EV_ARRIVAL && (rc = schedule_next(&q, tr, ev.source)))
			break;
		int verdict = d->decide(d->ctx, at, ev.key, ev.cost, want ? &retry_ns : NULL);
		if (verdict < 0) {
			rc = verdict;
			break;
		}
		if (settles && (rc = schedule_settle(&q, tr, d, &ev, s, line)))
			break;
		rc = react(&q, tr, &ev, verdict, retry_ns);
		if (tr->progress && ++since == PROGRESS_EVERY) {
			since = 0;
			double now = wall_s();
			if (now - last >= 1.0) {
				last = now;
				fprintf(stderr, "ratelab sim: %s: %lld%% of virtual time\n", label,
					(long long)((rl__u128)ev.t_ns * 100 / (rl__u128)tr->sc->duration_ns));
			}
		}
	}
	sim_queue_destroy(&q);
	return rc;
}
