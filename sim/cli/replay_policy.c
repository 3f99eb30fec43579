/*
 * replay_policy.c - `ratelab replay --policy P` in process: each line
 * decided by rl_policy_check on its key's state (replay.h), with the
 * answer per rule. A loop of its own, so that the one-rule loop
 * (replay.c) stays as it is.
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
#include <string.h>

#include "cli.h"
#include "ratelab/http.h"
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
	char names[RL_POLICY_MAX_RULES][16], buf[2048];

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

/* The first rule that counts units (1-based), or 0. */
static size_t units_rule(const struct rl_policy *p)
{
	for (size_t i = 0; i < p->count; i++)
		if (p->units[i])
			return i + 1;
	return 0;
}

int cli_replay_policy_in_process(const struct cli_replay *rp, struct sim_lines *in)
{
	size_t units = rp->ro.policy ? units_rule(&rp->policy) : 0;
	uint64_t requests = 0;
	int status = CLI_EXIT_OK;
	char *line;

	cli_stdout_buffered();
	while ((line = cli_lines_next(in))) {
		struct cli_replay_line l;
		struct rl_policy_answer a;

		if ((status = cli_replay_parse(rp, in, line, &l)))
			break;
		if (units && !l.has_cost) {
			char why[160], msg[2 * SIM_QUOTE_SIZE + 240];
			snprintf(why, sizeof(why), "no COST, and rule %zu of --policy counts units (':units'): "
				 "every line needs 'T KEY COST'", units);
			sim_trace_line_error(msg, sizeof(msg), NULL, in->lineno, in->text, why);
			fflush(stdout);
			status = cli_usage_error("replay", "%s", msg);
			break;
		}
		void *state = sim_keymap_get(&rp->maps[0], l.key, l.key_len);
		int rc = state ? rl_policy_check(rp->pl, state, l.t, l.cost, &a) : RL_ENOMEM;
		if (rc < 0) {
			fflush(stdout);
			fprintf(stderr, "ratelab replay: line %ld: %s\n", in->lineno, rl_strerror(rc));
			status = CLI_EXIT_FAIL;
			break;
		}
		requests++;
		if (rp->ro.explain)
			print_explain(rp, rc, &a);
		else
			fputs(rc ? "1\n" : "0\n", stdout);
		if (rp->ro.headers)
			print_headers(rp, rc, &a);
	}
	if (rp->ro.shadow && status == CLI_EXIT_OK) {
		fflush(stdout);
		fprintf(stderr, "ratelab replay: shadow: would_reject=%llu of %llu requests\n",
			(unsigned long long)rl_policy_would_reject(rp->pl), (unsigned long long)requests);
	}
	return status;
}
