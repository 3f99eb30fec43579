/*
 * study.c - model: a study is two passes over the one shared trace per
 * rule. First the reference pass: the exact sliding log, one state per
 * key, marks each request it refuses (the excess, one bit per request) and
 * each key it refused anything of (not within the rule). Then one pass per
 * (rule, algorithm) decides every request of the shard's keys in trace
 * order, with per-key state in flat arrays indexed by key id, and judges
 * each verdict against those bits and against the algorithm's own
 * admitted history (study_judge.c). Passes are jobs taken by worker
 * threads from a shared counter; each job writes only its own row and its
 * own column of the top keys' admitted units, so the results do not depend
 * on the number of threads.
 */
#include "study.h"
#include "study_impl.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compat.h"
#include "ratelab/sliding_log.h"
#include "study_decide.h"

#define NS_PER_S 1000000000LL
#define DEFAULT_TIMING (1u << 20)
#define PREFETCH 12 /* requests ahead: the keys' states are fetched before their turn */

struct study_ctx {
	const struct sim_trace *t;
	const struct sim_study_opts *o;
	struct sim_study *s;
	struct study_shared sh;
	uint32_t *top_ids;
	atomic_size_t next;
	size_t njobs, first_job; /* jobs first_job .. njobs - 1 of this phase */
	pthread_mutex_t lock;
	int rc;
	char *msg;
	size_t msg_len;
	FILE *err;
	size_t done, total;
};

static void fail(struct study_ctx *c, int rc, const char *what)
{
	pthread_mutex_lock(&c->lock);
	if (c->rc == RL_OK) {
		c->rc = rc;
		snprintf(c->msg, c->msg_len, "%s", what);
	}
	pthread_mutex_unlock(&c->lock);
}

static void progress(struct study_ctx *c, const char *rule, const char *name)
{
	pthread_mutex_lock(&c->lock);
	c->done++;
	if (!c->o->quiet && c->err)
		fprintf(c->err, "ratelab study: [%zu/%zu] %s %s\n", c->done, c->total, rule, name);
	pthread_mutex_unlock(&c->lock);
}

/* The reference pass of rule r: excess bits, within-rule keys, excess units. The exact
 * sliding log decides as the algorithms do (study_decide.h): a policy's rules together, settles too. */
static int reference_pass(struct study_ctx *c, size_t r)
{
	const struct sim_trace *t = c->t;
	const struct study_shared *sh = &c->sh;
	struct study_decide d;
	int rc = study_decide_init(&d, &rl_sliding_log_algo, &c->o->rules[r], t);
	size_t ss = rc ? 0 : study_decide_state_size(&d);
	unsigned char *st = rc ? NULL : calloc(t->nkeys ? t->nkeys : 1, ss);
	unsigned char *bad = calloc(t->nkeys ? t->nkeys : 1, 1);
	uint64_t *ex = sh->excess[r];
	int64_t excess = 0;

	if (rc == RL_OK && (!st || !bad))
		rc = RL_ENOMEM;
	for (size_t i = 0; rc == RL_OK && i < t->n; i++) {
		uint32_t k = t->key[i];
		if (i + PREFETCH < t->n)
			RL_PREFETCH_WRITE(st + (size_t)t->key[i + PREFETCH] * ss);
		if (!sh->in[k])
			continue;
		int v = d.pl ? study_decide_one(&d, st, i)
			     : rl_limiter_check_n(&d.lim, st + (size_t)k * ss, t->t_ns[i], t->cost[i], NULL);
		if (v < 0) {
			rc = v;
		} else if (!v) {
			ex[i / 64] |= 1ULL << (i % 64);
			bad[k] = 1;
			excess += t->cost[i];
		}
	}
	int64_t good = 0;
	for (size_t k = 0; st && bad && k < t->nkeys; k++) {
		study_decide_release(&d, st + k * ss);
		sh->within[r][k] = sh->units[k] > 0 && !bad[k];
		good += sh->within[r][k];
	}
	sh->good_keys[r] = good;
	sh->excess_units[r] = excess;
	study_decide_free(&d);
	free(st);
	free(bad);
	return rc;
}

static void run_job(struct study_ctx *c, size_t job)
{
	struct sim_study *s = c->s;
	size_t nalgos = c->o->nalgos;
	char what[256];
	int rc;

	if (job < c->o->nrules) {
		rc = reference_pass(c, job);
		if (rc != RL_OK) {
			snprintf(what, sizeof(what), "rule %s: the reference pass failed: %s", c->o->rules[job].text,
				 rl_strerror(rc));
			fail(c, rc, what);
		}
		return;
	}
	job -= c->o->nrules;
	size_t r = job / nalgos, a = job % nalgos;
	struct study_pass p = {
		.sh = &c->sh, .rule = r, .row = &s->rows[r * s->nnames + a], .top_ids = c->top_ids,
		.ntop = s->ntop, .top = s->top, .col = r * s->nnames + a,
	};
	rc = sim_study_algo_pass(&p, c->o->algos[a], &c->o->rules[r]);
	if (rc != RL_OK) {
		snprintf(what, sizeof(what), "rule %s, %s: %s", c->o->rules[r].text, c->o->algos[a]->name,
			 rl_strerror(rc));
		fail(c, rc, what);
		return;
	}
	progress(c, c->o->rules[r].text, c->o->algos[a]->name);
}

static void *worker(void *arg)
{
	struct study_ctx *c = arg;

	for (;;) {
		size_t job = atomic_fetch_add(&c->next, 1);
		if (job >= c->njobs)
			return NULL;
		pthread_mutex_lock(&c->lock);
		bool stop = c->rc != RL_OK;
		pthread_mutex_unlock(&c->lock);
		if (!stop)
			run_job(c, job);
	}
}

/* Runs jobs [from, to) on up to o->jobs threads (the calling one among them). */
static void run_phase(struct study_ctx *c, size_t from, size_t to)
{
	pthread_t th[64];
	size_t nth = c->o->jobs > 1 ? c->o->jobs - 1 : 0, started = 0;

	if (nth > 63)
		nth = 63;
	if (nth > to - from)
		nth = to - from ? to - from - 1 : 0;
	atomic_store(&c->next, from);
	c->njobs = to;
	for (; started < nth; started++)
		if (pthread_create(&th[started], NULL, worker, c) != 0)
			break; /* fewer threads: the calling one still takes every job left */
	worker(c);
	for (size_t i = 0; i < started; i++)
		pthread_join(th[i], NULL);
}

/* Key ids ranked: units requested descending, then key bytes ascending.
 * qsort takes no context: the ranking reads these, set by prepare, which
 * runs on the calling thread before any worker starts. */
static const struct sim_trace *rank_trace;
static const int64_t *rank_units;

/* The multiple of bin at or below t. */
static int64_t floor_to(int64_t t, int64_t bin)
{
	return t / bin * bin - (t % bin < 0 ? bin : 0);
}

int64_t sim_study_traffic_bin(int64_t first_ns, int64_t last_ns)
{
	static const int64_t bins[] = { NS_PER_S,	   10 * NS_PER_S,    60 * NS_PER_S,	  600 * NS_PER_S,
					3600 * NS_PER_S,   86400 * NS_PER_S, 864000 * NS_PER_S, 8640000 * NS_PER_S };
	size_t i = 0;

	/* counted from each end's bin, never as last - first: no overflow for any int64_t */
	while (i + 1 < sizeof(bins) / sizeof(bins[0]) &&
	       floor_to(last_ns, bins[i]) / bins[i] - floor_to(first_ns, bins[i]) / bins[i] >= SIM_STUDY_TRAFFIC_BINS)
		i++;
	return bins[i];
}

static int by_rank(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (rank_units[x] != rank_units[y])
		return rank_units[x] > rank_units[y] ? -1 : 1;
	return strcmp(rank_trace->key_name[x], rank_trace->key_name[y]);
}

/* Shard membership, units per key, the ranking, the top keys and the traffic per second. */
static int prepare(struct study_ctx *c)
{
	const struct sim_trace *t = c->t;
	struct sim_study *s = c->s;
	struct study_shared *sh = &c->sh;
	size_t nk = t->nkeys ? t->nkeys : 1, nrows = s->nrules * s->nnames;

	sh->t = t;
	sh->in = calloc(nk, 1);
	sh->units = calloc(nk, sizeof(*sh->units));
	sh->excess = calloc(s->nrules, sizeof(*sh->excess));
	sh->within = calloc(s->nrules, sizeof(*sh->within));
	sh->good_keys = calloc(s->nrules, sizeof(*sh->good_keys));
	sh->excess_units = calloc(s->nrules, sizeof(*sh->excess_units));
	uint32_t *ids = malloc(nk * sizeof(*ids));
	if (!sh->in || !sh->units || !sh->excess || !sh->within || !sh->good_keys || !sh->excess_units || !ids) {
		free(ids);
		return RL_ENOMEM;
	}
	for (size_t r = 0; r < s->nrules; r++)
		if (!(sh->excess[r] = calloc(t->n / 64 + 1, sizeof(uint64_t))) || !(sh->within[r] = calloc(nk, 1))) {
			free(ids);
			return RL_ENOMEM;
		}
	for (size_t k = 0; k < t->nkeys; k++) {
		const char *name = t->key_name[k];
		sh->in[k] = sim_study_key_hash(name, strlen(name)) % c->o->nshards == c->o->shard;
	}
	for (size_t i = 0; i < t->n; i++) {
		uint32_t k = t->key[i];
		if (i && t->t_ns[i] < t->t_ns[i - 1]) {
			free(ids);
			return RL_EORDER; /* trace.h's decision order is time order */
		}
		if (sh->in[k]) {
			sh->units[k] += t->cost[i];
			sh->nin++;
		}
	}
	size_t nactive = 0;
	for (uint32_t k = 0; k < t->nkeys; k++)
		if (sh->units[k] > 0)
			ids[nactive++] = k;
	rank_trace = t;
	rank_units = sh->units;
	qsort(ids, nactive, sizeof(*ids), by_rank);
	s->keys = (int64_t)nactive;
	s->requests = (int64_t)sh->nin;
	s->ntop = nactive < SIM_STUDY_TOP ? nactive : SIM_STUDY_TOP;
	c->top_ids = ids;
	if (t->n) {
		s->bin_ns = sim_study_traffic_bin(t->t_ns[0], t->t_ns[t->n - 1]);
		s->bin0_ns = floor_to(t->t_ns[0], s->bin_ns);
		s->nbins = (size_t)((floor_to(t->t_ns[t->n - 1], s->bin_ns) - s->bin0_ns) / s->bin_ns) + 1;
	}
	if (!(s->top = calloc(s->ntop ? s->ntop : 1, sizeof(*s->top))) ||
	    !(s->per_bin = calloc(s->nbins ? s->nbins : 1, sizeof(*s->per_bin))))
		return RL_ENOMEM;
	for (size_t j = 0; j < s->ntop; j++) {
		struct sim_study_key *tk = &s->top[j];
		tk->requests = sh->units[ids[j]];
		if (!(tk->name = strdup(t->key_name[ids[j]])) || !(tk->admitted = calloc(nrows ? nrows : 1, sizeof(int64_t))) ||
		    !(tk->within = calloc(s->nrules ? s->nrules : 1, 1)) ||
		    (j < SIM_STUDY_TRAFFIC_KEYS && !(tk->per_bin = calloc(s->nbins ? s->nbins : 1, sizeof(int64_t)))))
			return RL_ENOMEM;
	}
	/* which top column each key feeds in traffic.csv, -1 for none */
	int heavy[SIM_STUDY_TRAFFIC_KEYS];
	size_t nheavy = s->ntop < SIM_STUDY_TRAFFIC_KEYS ? s->ntop : SIM_STUDY_TRAFFIC_KEYS;
	for (size_t j = 0; j < nheavy; j++)
		heavy[j] = (int)ids[j];
	for (size_t i = 0; i < t->n; i++) {
		uint32_t k = t->key[i];
		if (!sh->in[k])
			continue;
		size_t bin = (size_t)((t->t_ns[i] - s->bin0_ns) / s->bin_ns);
		s->per_bin[bin] += t->cost[i];
		for (size_t j = 0; j < nheavy; j++)
			if (heavy[j] == (int)k)
				s->top[j].per_bin[bin] += t->cost[i];
	}
	return RL_OK;
}

static void shared_free(struct study_shared *sh, size_t nrules)
{
	for (size_t r = 0; r < nrules; r++) {
		if (sh->excess)
			free(sh->excess[r]);
		if (sh->within)
			free(sh->within[r]);
	}
	free(sh->excess);
	free(sh->within);
	free(sh->in);
	free(sh->units);
	free(sh->good_keys);
	free(sh->excess_units);
}

/* The rows' per-rule figures that come from the reference pass. */
static void reference_figures(struct study_ctx *c)
{
	struct sim_study *s = c->s;

	for (size_t r = 0; r < s->nrules; r++)
		for (size_t a = 0; a < s->nnames; a++) {
			struct sim_study_row *row = &s->rows[r * s->nnames + a];
			row->good_keys = c->sh.good_keys[r];
			row->excess_requests = c->sh.excess_units[r];
		}
	for (size_t j = 0; j < s->ntop; j++)
		for (size_t r = 0; r < s->nrules; r++)
			s->top[j].within[r] = c->sh.within[r][c->top_ids[j]];
}

static int64_t trace_bytes(const struct sim_trace *t)
{
	int64_t b = (int64_t)(t->n * (sizeof(*t->t_ns) + sizeof(*t->key) + sizeof(*t->cost)));

	for (size_t k = 0; k < t->nkeys; k++)
		b += (int64_t)(strlen(t->key_name[k]) + 1 + sizeof(*t->key_name));
	return b;
}

int sim_study_run(struct sim_study *s, const struct sim_trace *t, const struct sim_study_opts *o, FILE *err,
		  char *msg, size_t msg_len)
{
	struct study_ctx c = { .t = t, .o = o, .s = s, .msg = msg, .msg_len = msg_len, .err = err };
	int rc;

	memset(s, 0, sizeof(*s));
	if (msg_len)
		msg[0] = '\0';
	if (!o->jobs || !o->nshards || o->shard >= o->nshards) {
		snprintf(msg, msg_len, "jobs must be >= 1 and the shard below the shard count");
		return RL_EINVAL;
	}
	snprintf(s->format, sizeof(s->format), "%s", t->format);
	s->span_ns = t->n ? t->t_ns[t->n - 1] - t->t_ns[0] : 0;
	s->resolution_ns = t->resolution_ns;
	s->spread = t->spread;
	s->cost = t->has_cost;
	s->jobs = o->jobs;
	s->trace_bytes = trace_bytes(t);
	if (o->nshards == 1)
		snprintf(s->shard, sizeof(s->shard), "all");
	else
		snprintf(s->shard, sizeof(s->shard), "%u/%u", o->shard, o->nshards);
	s->nrules = o->nrules;
	s->nnames = o->nalgos + o->ndeciders;
	s->rules = calloc(o->nrules ? o->nrules : 1, sizeof(*s->rules));
	s->names = calloc(s->nnames ? s->nnames : 1, sizeof(*s->names));
	s->rows = calloc(o->nrules * s->nnames > 0 ? o->nrules * s->nnames : 1, sizeof(*s->rows));
	if (!s->rules || !s->names || !s->rows || pthread_mutex_init(&c.lock, NULL) != 0) {
		snprintf(msg, msg_len, "out of memory");
		return RL_ENOMEM;
	}
	memcpy(s->rules, o->rules, o->nrules * sizeof(*s->rules));
	for (size_t a = 0; a < o->nalgos; a++)
		snprintf(s->names[a], sizeof(s->names[a]), "%s", o->algos[a]->name);
	for (size_t d = 0; d < o->ndeciders; d++)
		snprintf(s->names[o->nalgos + d], sizeof(s->names[0]), "%s", o->deciders[d].name);
	c.sh.timing_n = o->timing_requests ? o->timing_requests : DEFAULT_TIMING;
	rc = prepare(&c);
	if (rc != RL_OK) {
		snprintf(msg, msg_len, "%s", rc == RL_EORDER ? "the trace is not in time order" : "out of memory");
	} else {
		c.total = o->nrules * s->nnames;
		run_phase(&c, 0, o->nrules);
		if (c.rc == RL_OK)
			run_phase(&c, o->nrules, o->nrules + o->nrules * o->nalgos);
		rc = c.rc;
	}
	if (rc == RL_OK)
		reference_figures(&c);
	for (size_t r = 0; rc == RL_OK && r < o->nrules; r++)
		for (size_t d = 0; rc == RL_OK && d < o->ndeciders; d++) {
			size_t col = r * s->nnames + o->nalgos + d;
			struct study_pass p = {
				.sh = &c.sh, .rule = r, .row = &s->rows[col], .top_ids = c.top_ids,
				.ntop = s->ntop, .top = s->top, .col = col,
			};
			rc = sim_study_decider_pass(&p, &o->deciders[d], &o->rules[r], msg, msg_len);
			if (rc == RL_OK)
				progress(&c, o->rules[r].text, o->deciders[d].name);
		}
	shared_free(&c.sh, o->nrules);
	free(c.top_ids);
	pthread_mutex_destroy(&c.lock);
	return rc;
}

void sim_study_free(struct sim_study *s)
{
	for (size_t j = 0; s->top && j < s->ntop; j++) {
		free(s->top[j].name);
		free(s->top[j].admitted);
		free(s->top[j].within);
		free(s->top[j].per_bin);
		free(s->top[j].listed);
	}
	for (size_t i = 0; i < s->nmeta; i++) {
		free(s->meta[i].name);
		free(s->meta[i].value);
	}
	free(s->meta);
	free(s->traffic);
	free(s->top);
	free(s->trace);
	free(s->rules);
	free(s->names);
	free(s->rows);
	free(s->per_bin);
	sim_limits_free(&s->limits);
	if (s->other) {
		sim_study_free(s->other);
		free(s->other);
	}
	memset(s, 0, sizeof(*s));
}
