/*
 * replay_redis.c - `ratelab replay --redis HOST:PORT [--redis-batch K]
 * [--redis-prefix P] [--redis-timeout MS]`: the replay's lines decided in
 * Redis (redis.h), K lines per pipelined round trip, printed exactly as
 * the in-process replay prints them (replay.h), costs included. Keys keep their state in
 * Redis between runs (that is what a shared store is for): a fresh
 * --redis-prefix is a fresh replay. The trace's times are logical, so the
 * keys' TTL grace is a day of wall time. When Redis did not decide every
 * line (a fallback, a reconnection, an error), one line on stderr at the
 * end gives the backend's counters, and the last failure. Once a server
 * answered, stderr says which decided: "ratelab replay: redis: using
 * module ratelab" (the server has ratelab.so) or "... using scripts".
 * With --config, a line of a policy or shadow tier (registry.h) is one
 * rl_redis_policy_check of the tier's policy limiter, between the
 * batches of the other tiers' lines, printed as the in-process replay
 * prints the tier's limiter's answer (the combined one).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"
#include "trace_line.h"

#ifdef RATELAB_HAVE_REDIS
#include "ratelab/redis.h"

enum { BATCH_MAX = 10000, GRACE_MS = 86400000 };

struct pending {
	int64_t t, cost;
	const struct rl_tier *tier;
	size_t rule;  /* index into the rules: the tier's, or 0 */
	long lineno;
	char key[RL_REDIS_KEY_MAX + 1];
};

/* A settle waiting for its time (replay_policy.c's, through Redis): the
 * request admitted at at_ns, settled by delta at done_ns. */
struct due {
	int64_t done_ns, at_ns, delta;
	uint64_t seq; /* the line's order: settles at one time in line order */
	long lineno;
	char key[RL_REDIS_KEY_MAX + 1];
};

struct run {
	const struct cli_replay *rp;
	struct rl_redis *r;
	struct rl_redis_rule *rules;
	struct rl_redis_policy *pols; /* --config: a policy or shadow tier's, by tier (else unused) */
	struct pending *p;
	struct rl_redis_req *reqs;
	struct rl_redis_answer *ans;
	size_t n;
	/* settle lines: a min-heap by (done_ns, seq), and each key's last seen
	 * time (the time a check decides at: the library's clamp) */
	struct due *heap;
	size_t len, cap;
	uint64_t seq;
	struct sim_keymap seen;
	uint64_t requests; /* lines decided (--shadow's closing line) */
};

/* HOST:PORT, HOST may be [IPv6]. */
static int parse_target(const char *s, char *host, size_t host_len, int *port)
{
	const char *colon = strrchr(s, ':');
	int64_t v;

	if (!colon || colon == s || !rl_parse_i64(colon + 1, &v) || v < 1 || v > 65535)
		return cli_usage_error("replay", "--redis '%s' is not HOST:PORT (PORT in 1..65535)", s);
	const char *h = s;
	size_t len = (size_t)(colon - s);
	if (h[0] == '[' && len >= 2 && h[len - 1] == ']')
		h++, len -= 2;
	if (len == 0 || len >= host_len)
		return cli_usage_error("replay", "--redis '%s': bad host", s);
	memcpy(host, h, len);
	host[len] = '\0';
	*port = (int)v;
	return CLI_EXIT_OK;
}

static int parse_ms(const char *name, const char *s, int64_t max, int64_t *out)
{
	if (!rl_parse_i64(s, out) || *out < 1 || *out > max)
		return cli_usage_error("replay", "--%s '%s' is not an integer in [1, %lld]", name, s, (long long)max);
	return CLI_EXIT_OK;
}

/* A line Redis could not answer: its error on stderr, CLI_EXIT_FAIL. */
static int failed(struct run *x, long lineno, int rc)
{
	fflush(stdout);
	fprintf(stderr, "ratelab replay: line %ld: %s\n", lineno,
		rc == RL_EREDIS ? rl_redis_error(x->r) : rl_redis_strerror(rc));
	return CLI_EXIT_FAIL;
}

/* Decides and prints the pending lines [from, to), none of a policy tier, with one batch. */
static int flush_batch(struct run *x, size_t from, size_t to)
{
	size_t m = 0;

	for (size_t i = from; i < to; i++) {
		if (x->p[i].tier && x->p[i].tier->unlimited)
			continue;
		x->reqs[m++] = (struct rl_redis_req){ &x->rules[x->p[i].rule], x->p[i].key,
						      strlen(x->p[i].key), x->p[i].t, x->p[i].cost };
	}
	if (m && rl_redis_check_batch(x->r, x->reqs, m, x->ans) != RL_OK) {
		fflush(stdout);
		fputs("ratelab replay: out of memory\n", stderr);
		return CLI_EXIT_FAIL;
	}
	m = 0;
	for (size_t i = from; i < to; i++) {
		struct rl_decision none = { 0 };
		const struct pending *p = &x->p[i];
		if (p->tier && p->tier->unlimited) {
			cli_replay_print(x->rp, p->tier, NULL, RL_ALLOWED, &none);
			continue;
		}
		const struct rl_redis_answer *a = &x->ans[m++];
		if (a->rc < 0)
			return failed(x, p->lineno, a->rc);
		cli_replay_print(x->rp, p->tier, x->rules[p->rule].lim, a->rc, &a->d);
	}
	return CLI_EXIT_OK;
}

/*
 * A line of a policy or shadow tier (--config): one RATELAB.CHECKP (or
 * policy script), printed as in process, where the tier's limiter is the
 * policy as one limiter (the combined answer; in shadow mode allowed).
 */
static int policy_line(struct run *x, const struct pending *p)
{
	struct rl_policy_answer a;
	int rc = rl_redis_policy_check(x->r, &x->pols[p->rule], p->key, strlen(p->key), p->t, p->cost, &a);

	if (rc < 0)
		return failed(x, p->lineno, rc);
	cli_replay_print(x->rp, p->tier, &p->tier->limiter, rc, &a.all);
	return CLI_EXIT_OK;
}

/* Decides and prints the pending lines in order; CLI_EXIT_FAIL at a Redis error. */
static int flush(struct run *x)
{
	int status = CLI_EXIT_OK;

	for (size_t from = 0, to; !status && from < x->n; from = to) {
		/* the lines up to the next policy tier's go as one batch; that one alone */
		for (to = from; to < x->n && !(x->p[to].tier && x->p[to].tier->policy); to++)
			;
		if (to > from)
			status = flush_batch(x, from, to);
		if (!status && to < x->n)
			status = policy_line(x, &x->p[to++]);
	}
	x->n = 0;
	return status;
}

static bool due_before(const struct due *a, const struct due *b)
{
	return a->done_ns < b->done_ns || (a->done_ns == b->done_ns && a->seq < b->seq);
}

static bool due_push(struct run *x, const struct due *d)
{
	if (x->len == x->cap) {
		size_t cap = x->cap ? 2 * x->cap : 64;
		struct due *h = realloc(x->heap, cap * sizeof(*h));
		if (!h)
			return false;
		x->heap = h, x->cap = cap;
	}
	size_t i = x->len++;
	for (; i && due_before(d, &x->heap[(i - 1) / 2]); i = (i - 1) / 2)
		x->heap[i] = x->heap[(i - 1) / 2];
	x->heap[i] = *d;
	return true;
}

static struct due due_pop(struct run *x)
{
	struct due top = x->heap[0], last = x->heap[--x->len];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= x->len)
			break;
		if (c + 1 < x->len && due_before(&x->heap[c + 1], &x->heap[c]))
			c++;
		if (!due_before(&x->heap[c], &last))
			break;
		x->heap[i] = x->heap[c];
		i = c;
	}
	if (x->len)
		x->heap[i] = last;
	return top;
}

/* The key's last seen time, moved to t when later (NULL: out of memory). */
static int64_t *seen_at(struct run *x, const char *key, size_t len)
{
	return sim_keymap_get(&x->seen, key, len);
}

/* Applies, through Redis, the settles due at or before t_ns, earliest first. */
static int settle_due(struct run *x, int64_t t_ns)
{
	while (x->len && x->heap[0].done_ns <= t_ns) {
		struct due d = due_pop(x);
		size_t len = strlen(d.key);
		int rc = rl_redis_settle(x->r, &x->rules[0], d.key, len, d.at_ns, d.delta, d.done_ns, NULL);
		int64_t *seen = seen_at(x, d.key, len);
		if (rc != RL_OK || !seen) {
			fflush(stdout);
			fprintf(stderr, "ratelab replay: line %ld: a settle: %s\n", d.lineno,
				!seen ? "out of memory" : rc == RL_EREDIS ? rl_redis_error(x->r) : rl_redis_strerror(rc));
			return CLI_EXIT_FAIL;
		}
		/* a bucket's settle moves its last seen time to the settle's (settle.h) */
		if (x->rules[0].lim->algo->uses_burst && *seen < d.done_ns)
			*seen = d.done_ns;
	}
	return CLI_EXIT_OK;
}

/*
 * A settle line 'T KEY COST ACTUAL DONE_T' (replay_policy.c's meaning):
 * the lines before it answered, the settles due at T applied, the line
 * decided alone, and when admitted (and ACTUAL != COST) its settle queued.
 */
static int settle_line(struct run *x, struct sim_lines *in, char *line)
{
	const struct cli_replay *rp = x->rp;
	struct sim_trace_line l;
	char why[SIM_QUOTE_SIZE + 120], msg[2 * SIM_QUOTE_SIZE + 240];
	int status;

	if (in->has_nul || !sim_trace_line_parse(line, &l, why, sizeof(why))) {
		sim_trace_line_error(msg, sizeof(msg), NULL, in->lineno, in->has_nul ? NULL : in->text,
				     in->has_nul ? SIM_TRACE_LINE_NUL : why);
		return cli_usage_error("replay", "%s", msg);
	}
	if (rp->reg || rp->nrules > 1) {
		sim_trace_line_error(msg, sizeof(msg), NULL, in->lineno, in->text,
				     "a settle line 'T KEY COST ACTUAL DONE_T' is replayed through --redis without "
				     "--config and --rule-at only");
		return cli_usage_error("replay", "%s", msg);
	}
	if (l.key_len > RL_REDIS_KEY_MAX)
		return cli_usage_error("replay", "line %ld: key longer than %d bytes", in->lineno, RL_REDIS_KEY_MAX);
	if ((status = settle_due(x, l.t_ns)))
		return status;
	struct pending *p = &x->p[0];
	*p = (struct pending){ l.t_ns, l.cost, NULL, 0, in->lineno, { 0 } };
	memcpy(p->key, l.key, l.key_len + 1);
	x->n = 1;
	int64_t *seen = seen_at(x, l.key, l.key_len);
	if (!seen) {
		fputs("ratelab replay: out of memory\n", stderr);
		return CLI_EXIT_FAIL;
	}
	*seen = *seen > l.t_ns ? *seen : l.t_ns;
	int64_t at_ns = *seen;
	if ((status = flush(x)))
		return status;
	if (x->ans[0].rc == RL_ALLOWED && !x->ans[0].fallback && l.actual != l.cost) {
		struct due d = { l.done_ns, at_ns, l.actual - l.cost, x->seq++, in->lineno, { 0 } };
		memcpy(d.key, l.key, l.key_len + 1);
		if (!due_push(x, &d)) {
			fputs("ratelab replay: out of memory\n", stderr);
			return CLI_EXIT_FAIL;
		}
	}
	return CLI_EXIT_OK;
}

static int setup(struct run *x, size_t batch)
{
	const struct cli_replay *rp = x->rp;
	const struct replay_opts *ro = &rp->ro;
	/* --shadow alone: the one rule's checks in shadow mode (a policy carries its own) */
	struct rl_redis_config cfg = { .ttl_grace_ms = GRACE_MS, .prefix = ro->redis_prefix,
				       .shadow = ro->shadow && !ro->policy };
	char host[256], msg[320];
	int64_t timeout = 5000; /* a replay wants Redis's answers: a long budget */
	int status;

	if ((status = parse_target(ro->redis, host, sizeof(host), &cfg.port)))
		return status;
	if (ro->redis_timeout && (status = parse_ms("redis-timeout", ro->redis_timeout, 60000, &timeout)))
		return status;
	cfg.host = host;
	cfg.command_timeout_ms = cfg.connect_timeout_ms = timeout;
	int rc = rl_redis_create(&x->r, &cfg, msg, sizeof(msg));
	if (rc == RL_EINVAL)
		return cli_usage_error("replay", "%s", msg);
	size_t nrules = rp->reg ? rl_registry_tier_count(rp->reg) : rp->nrules;
	x->rules = calloc(nrules, sizeof(*x->rules));
	x->pols = calloc(nrules, sizeof(*x->pols));
	x->p = calloc(batch, sizeof(*x->p));
	x->reqs = calloc(batch, sizeof(*x->reqs));
	x->ans = calloc(batch, sizeof(*x->ans));
	if (rc || !x->rules || !x->pols || !x->p || !x->reqs || !x->ans) {
		fputs("ratelab replay: out of memory\n", stderr);
		return CLI_EXIT_FAIL;
	}
	for (size_t i = 0; i < nrules; i++) {
		const struct rl_tier *t = rp->reg ? rl_registry_tier_at(rp->reg, i) : NULL;
		const struct rl_algo *algo = t ? t->limiter.algo : rp->rules[i].algo; /* NULL: an unlimited tier */
		if (algo && rl_redis_supports(algo, msg, sizeof(msg)) != RL_OK)
			return cli_usage_error("replay", "%s", msg);
		/* a policy or shadow tier: its policy limiter (shadow mode in it) by RATELAB.CHECKP */
		if (t && t->policy)
			x->pols[i] = (struct rl_redis_policy){ t->policy, t->fail_closed, rl_redis_tier_timeout_ms(t, 0) };
		/* the tiers were loaded with the backend's keys alone (cli_tier_keys): base 0 */
		/* without --config: the rule and each --rule-at change (the stored
		 * form carries the rule a key's state was written under) */
		x->rules[i] = (struct rl_redis_rule){ t ? &t->limiter : &rp->rules[i], t && t->fail_closed,
						      t ? rl_redis_tier_timeout_ms(t, 0) : 0 };
	}
	return CLI_EXIT_OK;
}

/* The answer of a one-rule check (--shadow alone) as a policy of one rule's. */
static void as_policy_answer(const struct rl_redis_answer *ans, struct rl_policy_answer *a)
{
	memset(a, 0, sizeof(*a));
	a->all = ans->d;
	a->would_reject = ans->would_reject;
	a->count = 1;
	a->verdict[0] = ans->would_reject ? RL_REJECTED : ans->rc;
	a->rule[0] = ans->d;
	a->at_ns = -1;
}

/*
 * --policy or --shadow through Redis, one line per round trip: with
 * --policy each line is one rl_redis_policy_check (RATELAB.CHECKP); with
 * --shadow alone the one rule's check in shadow mode, its key keeping the
 * one-rule form. Printed as in process (replay_policy.c); with --shadow
 * the same closing line follows (cli_replay_redis), from the backend's
 * would_reject.
 */
static int run_policy(struct run *x, struct sim_lines *in)
{
	const struct cli_replay *rp = x->rp;
	const struct rl_redis_policy pol = { rp->pl, false, 0 };
	const struct rl_redis_rule one = { &rp->pl->rules[0], false, 0 };
	int status = CLI_EXIT_OK;
	char *line;

	cli_stdout_buffered();
	while ((line = cli_lines_next(in))) {
		struct cli_replay_line l;
		struct rl_policy_answer a;
		bool settle;
		int rc;

		if ((status = cli_replay_policy_line(rp, in, line, &l, &settle)))
			break;
		if (settle || l.key_len > RL_REDIS_KEY_MAX) {
			fflush(stdout);
			status = settle ? cli_usage_error("replay", "line %ld: a settle line (T KEY COST ACTUAL DONE_T) is "
							  "decided in process only: not with --redis", in->lineno)
					: cli_usage_error("replay", "line %ld: key longer than %d bytes", in->lineno,
							  RL_REDIS_KEY_MAX);
			break;
		}
		if (rp->ro.policy) {
			rc = rl_redis_policy_check(x->r, &pol, l.key, l.key_len, l.t, l.cost, &a);
		} else {
			struct rl_redis_req q = { &one, l.key, l.key_len, l.t, l.cost };
			struct rl_redis_answer ans;
			rc = rl_redis_check_batch(x->r, &q, 1, &ans);
			if (rc == RL_OK)
				rc = ans.rc;
			as_policy_answer(&ans, &a);
		}
		if (rc < 0) {
			fflush(stdout);
			fprintf(stderr, "ratelab replay: line %ld: %s\n", in->lineno,
				rc == RL_EREDIS ? rl_redis_error(x->r) : rl_redis_strerror(rc));
			status = CLI_EXIT_FAIL;
			break;
		}
		x->requests++;
		cli_replay_policy_print(rp, rc, &a);
	}
	return status;
}

int cli_replay_redis(const struct cli_replay *rp, struct sim_lines *in)
{
	struct run x = { .rp = rp };
	int64_t batch = 1;
	int status = CLI_EXIT_OK;

	if (rp->ro.redis_batch && (status = parse_ms("redis-batch", rp->ro.redis_batch, BATCH_MAX, &batch)))
		return status;
	if (rp->pl && batch != 1)
		return cli_usage_error("replay", "--redis-batch: with %s each line is one round trip (pass 1 or "
				       "leave it out)", rp->ro.policy ? "--policy" : "--shadow");
	if (sim_keymap_init(&x.seen, sizeof(int64_t)) != RL_OK) {
		fputs("ratelab replay: cannot make the keys' table (RATELAB_HASH_SEED?)\n", stderr);
		return CLI_EXIT_FAIL;
	}
	if (!(status = setup(&x, (size_t)batch)) && rp->pl) {
		status = run_policy(&x, in);
		status = cli_lines_end(in, "replay", status);
	} else if (!status) {
		char *line;
		cli_stdout_buffered();
		while ((line = cli_lines_next(in))) {
			struct pending *p = &x.p[x.n];
			struct cli_replay_line l;
			if (!in->has_nul && cli_replay_settle_form(in->text)) {
				/* a settle line: decided alone, after the lines before it */
				if ((status = flush(&x)) || (status = settle_line(&x, in, line)))
					break;
				continue;
			}
			if ((status = cli_replay_parse(rp, in, line, &l))) {
				/* the lines before it are answered first, as in-process */
				int st = flush(&x);
				status = st ? st : status;
				break;
			}
			if (l.key_len > RL_REDIS_KEY_MAX) {
				int st = flush(&x);
				status = st ? st : cli_usage_error("replay", "line %ld: key longer than %d bytes",
								    in->lineno, RL_REDIS_KEY_MAX);
				break;
			}
			/* settles due before this line first */
			if (x.len && x.heap[0].done_ns <= l.t && ((status = flush(&x)) || (status = settle_due(&x, l.t))))
				break;
			/* the key's last seen time, which a settle line's admission is at */
			int64_t *seen = seen_at(&x, l.key, l.key_len);
			if (!seen) {
				fputs("ratelab replay: out of memory\n", stderr);
				status = CLI_EXIT_FAIL;
				break;
			}
			*seen = *seen > l.t ? *seen : l.t;
			p = &x.p[x.n]; /* after a flush, the first */
			memcpy(p->key, l.key, l.key_len + 1);
			p->t = l.t;
			p->cost = l.cost;
			p->tier = l.tier;
			p->lineno = in->lineno;
			p->rule = rp->reg ? l.map : cli_replay_rule_at(rp, l.t);
			if (++x.n == (size_t)batch && (status = flush(&x)))
				break;
		}
		if (!status)
			status = flush(&x);
		status = cli_lines_end(in, "replay", status);
	}
	if (x.r) {
		/* the counters, when Redis did not decide everything */
		struct rl_redis_stats st;
		rl_redis_stats(x.r, &st);
		/* which decided: the module or the scripts (once a server answered) */
		fflush(stdout);
		if (st.decided || st.errors)
			fprintf(stderr, "ratelab replay: redis: using %s\n", st.module ? "module ratelab" : "scripts");
		if (st.fallbacks || st.reconnects || st.errors) {
			fflush(stdout);
			fprintf(stderr, "ratelab replay: redis %s: decided=%llu fallbacks=%llu reconnects=%llu errors=%llu\n",
				rp->ro.redis, (unsigned long long)st.decided, (unsigned long long)st.fallbacks,
				(unsigned long long)st.reconnects, (unsigned long long)st.errors);
		}
		/* the last failure, which names the server (one prefix: the
		 * backend's message starts with it), and what it cost */
		if (st.fallbacks)
			fprintf(stderr, "ratelab replay: %s; %llu decisions fell back to on_error\n", rl_redis_error(x.r),
				(unsigned long long)st.fallbacks);
		else if (st.errors && status == CLI_EXIT_OK) /* an error that stopped the replay was told */
			fprintf(stderr, "ratelab replay: %s\n", rl_redis_error(x.r));
		/* the in-process replay's last line */
		if (rp->ro.shadow && status == CLI_EXIT_OK)
			fprintf(stderr, "ratelab replay: shadow: would_reject=%llu of %llu requests\n",
				(unsigned long long)st.would_reject, (unsigned long long)x.requests);
	}
	rl_redis_destroy(x.r);
	sim_keymap_destroy(&x.seen);
	free(x.heap);
	free(x.rules);
	free(x.pols);
	free(x.p);
	free(x.reqs);
	free(x.ans);
	return cli_output_end("replay", status);
}

#else

int cli_replay_redis(const struct cli_replay *rp, struct sim_lines *in)
{
	(void)rp;
	(void)in;
	return cli_usage_error("replay", "--redis: this ratelab was built without the Redis backend "
			      "(hiredis was not found)");
}

#endif
