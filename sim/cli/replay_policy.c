/*
 * replay_policy.c - `ratelab replay --policy P` (and --shadow) in process:
 * each line decided by rl_policy_check on its key's state (replay.h),
 * with the answer per rule; and settle lines 'T KEY COST ACTUAL DONE_T'
 * for a policy or one rule (replay.c's loop hands them here at the first
 * one). A loop of its own, so that the one-rule loop (replay.c) stays as
 * it is.
 *
 * Settles: an admitted settle line's request is settled by ACTUAL - COST
 * at DONE_T (settle.h; none when they are equal): before deciding a line
 * at T, every settle due at or before T is applied, earliest first, in
 * line order at one time; those due after the last line change nothing
 * printed and are dropped. The admission's time is the one the request
 * was decided at (T, or the key's later last seen time).
 *
 * With --shadow (and, without --policy, the one rule as a policy of one
 * rule counting COST) every request prints 1; --explain says
 * would_reject=0|1 after the answer, which stays as it would be.
 *
 * --explain line: the combined answer as for one rule, then per rule K
 * (1-based, in the policy's order)
 *   ruleK=V ruleK.remaining=R ruleK.retry_after_ns=A ruleK.reset_ns=S
 * (and ruleK.delay_ns=D for leaky_bucket), V the rule's own verdict and
 * the fields its own answer (policy.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ratelab/fixed_window.h"
#include "ratelab/http.h"
#include "ratelab/settle.h"
#include "ratelab/sliding_counter.h"
#include "ratelab/sliding_log.h"
#include "replay.h"
#include "trace_line.h"

static void print_explain(const struct cli_replay *rp, int rc, const struct rl_policy_answer *a)
{
	bool delay = rp->lim.algo->answers_delay;

	printf("%d remaining=%lld retry_after_ns=%lld reset_ns=%lld", rc, (long long)a->all.remaining,
	       (long long)a->all.retry_after_ns, (long long)a->all.reset_ns);
	if (delay)
		printf(" delay_ns=%lld", (long long)a->all.delay_ns);
	if (rp->ro.shadow)
		printf(" would_reject=%d", a->would_reject);
	for (size_t i = 0; i < a->count && rp->ro.policy; i++) {
		const struct rl_decision *d = &a->rule[i];
		printf(" rule%zu=%d rule%zu.remaining=%lld rule%zu.retry_after_ns=%lld rule%zu.reset_ns=%lld", i + 1,
		       a->verdict[i], i + 1, (long long)d->remaining, i + 1, (long long)d->retry_after_ns, i + 1,
		       (long long)d->reset_ns);
		if (delay)
			printf(" rule%zu.delay_ns=%lld", i + 1, (long long)d->delay_ns);
	}
	putchar('\n');
}

static void print_headers(const struct cli_replay *rp, int rc, const struct rl_policy_answer *a)
{
	struct rl_http_policy hp[RL_POLICY_MAX_RULES];
	char names[RL_POLICY_MAX_RULES][32], buf[2048];

	for (size_t i = 0; i < rp->policy.count; i++) {
		snprintf(names[i], sizeof(names[i]), "rule%zu", i + 1);
		hp[i] = (struct rl_http_policy){ names[i], rp->policy.rules[i].limit, rp->policy.rules[i].window_ns };
	}
	printf("HTTP/1.1 %s\n", rl_http_status(rc) == 429 ? "429 Too Many Requests" : "200 OK");
	if (!rp->ro.policy) { /* --shadow with one rule: its fields as without --shadow */
		struct rl_http_policy one = { "default", rp->policy.rules[0].limit, rp->policy.rules[0].window_ns };
		if (rl_http_headers(buf, sizeof(buf), &one, rc, &a->all, rp->ro.http_flags) > 0)
			fputs(buf, stdout);
	} else if (rl_http_headers_list(buf, sizeof(buf), hp, a->rule, rp->policy.count, rc, &a->all,
					rp->ro.http_flags) > 0) {
		fputs(buf, stdout);
	}
	putchar('\n');
}

void cli_replay_policy_print(const struct cli_replay *rp, int rc, const struct rl_policy_answer *a)
{
	if (rp->ro.explain)
		print_explain(rp, rc, a);
	else
		fputs(rc ? "1\n" : "0\n", stdout);
	if (rp->ro.headers)
		print_headers(rp, rc, a);
}

/* The first rule that counts units (1-based), or 0. */
static size_t units_rule(const struct rl_policy *p)
{
	for (size_t i = 0; i < p->count; i++)
		if (p->units[i])
			return i + 1;
	return 0;
}

bool cli_replay_settle_form(const char *text)
{
	int n = 0;

	for (const char *c = text; *c;) {
		while (*c == ' ' || *c == '\t')
			c++;
		if (!*c)
			break;
		n++;
		while (*c && *c != ' ' && *c != '\t')
			c++;
	}
	return n == 5;
}

/* A settle waiting for its time: the request admitted at at_ns, settled at done_ns. */
struct pending {
	int64_t done_ns;
	uint64_t seq; /* the line's order: settles at one time in line order */
	int64_t at_ns, delta;
	size_t map;
	size_t key_len;
	char *key;
};

struct queue {
	struct pending *heap; /* a min-heap on (done_ns, seq) */
	size_t len, cap;
	uint64_t seq;
};

static bool before(const struct pending *a, const struct pending *b)
{
	return a->done_ns < b->done_ns || (a->done_ns == b->done_ns && a->seq < b->seq);
}

static bool push(struct queue *q, struct pending p)
{
	if (q->len == q->cap) {
		size_t cap = q->cap ? 2 * q->cap : 64;
		struct pending *h = realloc(q->heap, cap * sizeof(*h));
		if (!h)
			return false;
		q->heap = h;
		q->cap = cap;
	}
	size_t i = q->len++;
	for (; i > 0 && before(&p, &q->heap[(i - 1) / 2]); i = (i - 1) / 2)
		q->heap[i] = q->heap[(i - 1) / 2];
	q->heap[i] = p;
	return true;
}

static struct pending pop(struct queue *q)
{
	struct pending top = q->heap[0], last = q->heap[--q->len];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= q->len)
			break;
		if (c + 1 < q->len && before(&q->heap[c + 1], &q->heap[c]))
			c++;
		if (!before(&q->heap[c], &last))
			break;
		q->heap[i] = q->heap[c];
		i = c;
	}
	if (q->len)
		q->heap[i] = last;
	return top;
}

static void queue_free(struct queue *q)
{
	while (q->len)
		free(pop(q).key);
	free(q->heap);
}

static const struct rl_limiter *limiter_of(const struct cli_replay *rp, const struct rl_tier *tier)
{
	return tier ? &tier->limiter : &rp->lim;
}

/* The time a one-rule check that admitted decided at: every settling algorithm records it as its last seen time. */
static int64_t decided_at(const struct rl_limiter *lim, const void *state)
{
	return lim->algo->last_ns(state);
}

/* Applies the settles due at or before t_ns (all of them for t_ns = INT64_MAX). */
static int settle_due(const struct cli_replay *rp, struct queue *q, int64_t t_ns, long lineno)
{
	while (q->len && q->heap[0].done_ns <= t_ns) {
		struct pending p = pop(q);
		void *state = sim_keymap_get(&rp->maps[p.map], p.key, p.key_len);
		const struct rl_limiter *lim = rp->reg ? &rl_registry_tier_at(rp->reg, p.map)->limiter : &rp->lim;
		int rc = !state ? RL_ENOMEM
		       : rp->pl ? rl_policy_settle(rp->pl, state, p.at_ns, p.delta, p.done_ns)
				: rl_limiter_settle(lim, state, p.at_ns, p.delta, p.done_ns);
		free(p.key);
		if (rc) {
			fflush(stdout);
			fprintf(stderr, "ratelab replay: line %ld: a settle: %s\n", lineno, rl_strerror(rc));
			return CLI_EXIT_FAIL;
		}
	}
	return CLI_EXIT_OK;
}

/* Splits and checks one line as replay.c's parser does, the settle form too. */
static int parse(const struct cli_replay *rp, const struct sim_lines *in, char *line, struct sim_trace_line *l,
		 const struct rl_tier **tier, size_t *map)
{
	char why[SIM_QUOTE_SIZE + 120], msg[2 * SIM_QUOTE_SIZE + 240];

	bool ok = !in->has_nul && sim_trace_line_parse(line, l, why, sizeof(why));
	if (ok && rp->header->origin_ns && (l->t_ns > RL_TIME_MAX_NS - rp->header->origin_ns ||
					    (l->has_settle && l->done_ns > RL_TIME_MAX_NS - rp->header->origin_ns))) {
		snprintf(why, sizeof(why), "%s", SIM_TRACE_PAST_ORIGIN);
		ok = false;
	} else if (ok) { /* the trace's origin: T and DONE_T alike */
		l->t_ns += rp->header->origin_ns;
		l->done_ns += l->has_settle ? rp->header->origin_ns : 0;
	}
	if (!ok) {
		sim_trace_line_error(msg, sizeof(msg), NULL, in->lineno, in->has_nul ? NULL : in->text,
				     in->has_nul ? SIM_TRACE_LINE_NUL : why);
		return cli_usage_error("replay", "%s", msg);
	}
	*tier = rp->reg ? rl_registry_resolve(rp->reg, l->key, l->key_len) : NULL;
	*map = *tier ? (size_t)(*tier - rl_registry_tier_at(rp->reg, 0)) : 0;
	size_t units = rp->ro.policy ? units_rule(&rp->policy) : 0;
	const char *bad = NULL;

	if (units && !l->has_cost)
		snprintf(why, sizeof(why), "no COST, and rule %zu of --policy counts units (':units'): every line "
			 "needs 'T KEY COST'", units), bad = why;
	const struct rl_algo *algo = rp->pl ? rp->pl->rules[0].algo : limiter_of(rp, *tier)->algo;
	if (!bad && l->has_settle && !(*tier && (*tier)->unlimited) && !rl_algo_settles(algo))
		snprintf(why, sizeof(why), "%s does not settle (ACTUAL DONE_T): its state is not fixed bytes (settle.h)",
			 algo->name), bad = why;
	if (bad) {
		sim_trace_line_error(msg, sizeof(msg), NULL, in->lineno, in->text, bad);
		fflush(stdout);
		return cli_usage_error("replay", "%s", msg);
	}
	return CLI_EXIT_OK;
}

int cli_replay_policy_line(const struct cli_replay *rp, const struct sim_lines *in, char *line,
			   struct cli_replay_line *out, bool *settle)
{
	struct sim_trace_line l;
	const struct rl_tier *tier;
	int status = parse(rp, in, line, &l, &tier, &out->map);

	if (status)
		return status;
	out->t = l.t_ns;
	out->cost = l.cost;
	out->key = l.key;
	out->key_len = l.key_len;
	out->tier = tier;
	*settle = l.has_settle;
	return CLI_EXIT_OK;
}

/* Decides one parsed line, prints its answer, queues its settle. */
static int decide(const struct cli_replay *rp, struct queue *q, const struct sim_trace_line *l,
		  const struct rl_tier *tier, size_t map, long lineno, uint64_t *requests)
{
	int status = settle_due(rp, q, l->t_ns, lineno);
	struct rl_policy_answer a;
	int64_t at_ns = l->t_ns;
	int rc = RL_ALLOWED;

	if (status)
		return status;
	if (!(tier && tier->unlimited)) {
		void *state = sim_keymap_get(&rp->maps[map], l->key, l->key_len);
		const struct rl_limiter *lim = limiter_of(rp, tier);
		if (!state)
			rc = RL_ENOMEM;
		else if (rp->pl)
			rc = rl_policy_check(rp->pl, state, l->t_ns, l->cost, &a), at_ns = a.at_ns;
		else if ((rc = rl_limiter_check_n(lim, state, l->t_ns, l->cost, &a.all)) == RL_ALLOWED && l->has_settle)
			at_ns = decided_at(lim, state);
	}
	if (rc < 0) {
		fflush(stdout);
		fprintf(stderr, "ratelab replay: line %ld: %s\n", lineno, rl_strerror(rc));
		return CLI_EXIT_FAIL;
	}
	(*requests)++;
	if (!rp->pl)
		cli_replay_print(rp, tier, limiter_of(rp, tier), rc, &a.all);
	else
		cli_replay_policy_print(rp, rc, &a);
	/* an admitted request (in shadow mode, one enforcing admits) is settled at DONE_T */
	bool took = rc == RL_ALLOWED && !(rp->pl && a.would_reject) && !(tier && tier->unlimited);
	if (l->has_settle && took && l->actual != l->cost) {
		struct pending p = { l->done_ns, q->seq++, at_ns, l->actual - l->cost, map, l->key_len,
				     malloc(l->key_len + 1) };
		if (!p.key || !push(q, p)) {
			free(p.key);
			fflush(stdout);
			fputs("ratelab replay: out of memory\n", stderr);
			return CLI_EXIT_FAIL;
		}
		memcpy(p.key, l->key, l->key_len + 1);
	}
	return CLI_EXIT_OK;
}

static int run(const struct cli_replay *rp, struct sim_lines *in, bool resume)
{
	struct queue q = { 0 };
	uint64_t requests = 0;
	int status = CLI_EXIT_OK;
	char *line = NULL;

	cli_stdout_buffered();
	if (resume && !(line = strdup(in->text))) {
		fputs("ratelab replay: out of memory\n", stderr);
		return CLI_EXIT_FAIL;
	}
	for (char *next = line; next || (next = cli_lines_next(in)); next = NULL) {
		struct sim_trace_line l;
		const struct rl_tier *tier = NULL;
		size_t map = 0;

		if ((status = parse(rp, in, next, &l, &tier, &map)) ||
		    (status = decide(rp, &q, &l, tier, map, in->lineno, &requests)))
			break;
	}
	free(line);
	queue_free(&q);
	if (rp->ro.shadow && status == CLI_EXIT_OK) {
		fflush(stdout);
		fprintf(stderr, "ratelab replay: shadow: would_reject=%llu of %llu requests\n",
			(unsigned long long)rl_policy_would_reject(rp->pl), (unsigned long long)requests);
	}
	return status;
}

int cli_replay_policy_in_process(const struct cli_replay *rp, struct sim_lines *in)
{
	return run(rp, in, false);
}

int cli_replay_resume(const struct cli_replay *rp, struct sim_lines *in)
{
	return run(rp, in, true);
}
