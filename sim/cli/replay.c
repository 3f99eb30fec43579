/*
 * replay.c - `ratelab replay`'s line parser and printer (replay.h), the
 * one both replay paths use, so that the same answers print the same
 * text: the in-process path here (parser and printer inline in its loop)
 * and the Redis path (replay_redis.c). cmd_replay.c picks one.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "compat.h"
#include "ratelab/http.h"
#include "ratelab/parse.h"
#include "replay.h"
#include "trace_line.h"

static void print_headers(const struct cli_replay *rp, const struct rl_tier *tier, const struct rl_limiter *lim,
			  int verdict, const struct rl_decision *d)
{
	char buf[512];

	printf("HTTP/1.1 %s\n", rl_http_status(verdict) == 429 ? "429 Too Many Requests" : "200 OK");
	if (!(tier && tier->unlimited)) {
		struct rl_http_policy p = { tier ? tier->name : "default", lim->rule.limit, lim->rule.window_ns };
		if (rl_http_headers(buf, sizeof(buf), &p, verdict, d, rp->ro.http_flags) > 0)
			fputs(buf, stdout);
	}
	putchar('\n');
}

/* Inlined into the in-process loop (the perf gate counts its instructions per line). */
static RL_ALWAYS_INLINE void print_answer(const struct cli_replay *rp, const struct rl_tier *tier,
					  const struct rl_limiter *lim, int rc, const struct rl_decision *d)
{
	if (!rp->ro.explain) {
		fputs(rc ? "1\n" : "0\n", stdout);
	} else if (tier && tier->unlimited) {
		printf("1 tier=%s\n", tier->name);
	} else {
		printf("%d remaining=%lld retry_after_ns=%lld reset_ns=%lld", rc, (long long)d->remaining,
		       (long long)d->retry_after_ns, (long long)d->reset_ns);
		if (lim->algo->answers_delay)
			printf(" delay_ns=%lld", (long long)d->delay_ns);
		if (tier)
			printf(" tier=%s", tier->name);
		putchar('\n');
	}
	if (rp->ro.headers)
		print_headers(rp, tier, lim, rc, d);
}

/* A line this loop does not decide: a settle line (good or bad: the rest
 * goes to replay_policy.c's loop, which words a bad one as here), else the
 * message and CLI_EXIT_USAGE. Out of line: the loop's code stays as it
 * was before settle lines. */
static RL_NOINLINE int bad_line(const struct sim_lines *in, const char *why)
{
	char msg[2 * SIM_QUOTE_SIZE + 120];

	if (!in->has_nul && cli_replay_settle_form(in->text))
		return CLI_REPLAY_SETTLE;
	sim_trace_line_error(msg, sizeof(msg), NULL, in->lineno, in->has_nul ? NULL : in->text,
			     in->has_nul ? SIM_TRACE_LINE_NUL : why);
	cli_usage_error("replay", "%s", msg);
	return CLI_EXIT_USAGE; /* visibly non-zero: out is unset */
}

static RL_ALWAYS_INLINE int parse_line(const struct cli_replay *rp, const struct sim_lines *in, char *line,
				       struct cli_replay_line *out)
{
	struct sim_trace_line l;
	char why[SIM_QUOTE_SIZE + 80];

	/* a settle line is read, then handed on by bad_line */
	bool ok = !in->has_nul && sim_trace_line_parse(line, &l, why, sizeof(why)) && !l.has_settle;
	if (ok && rp->header->origin_ns && !sim_trace_header_apply(rp->header, &l.t_ns)) {
		snprintf(why, sizeof(why), "%s", SIM_TRACE_PAST_ORIGIN);
		ok = false;
	}
	if (!ok) {
		int status = bad_line(in, why);
		return status ? status : CLI_EXIT_USAGE; /* never 0: out is unset */
	}
	out->t = l.t_ns;
	out->cost = l.cost;
	out->key = l.key;
	out->key_len = l.key_len;
	out->tier = rp->reg ? rl_registry_resolve(rp->reg, l.key, l.key_len) : NULL;
	out->map = out->tier ? (size_t)(out->tier - rl_registry_tier_at(rp->reg, 0)) : 0;
	return CLI_EXIT_OK;
}

void cli_replay_print(const struct cli_replay *rp, const struct rl_tier *tier, const struct rl_limiter *lim, int rc,
		      const struct rl_decision *d)
{
	print_answer(rp, tier, lim ? lim : tier ? &tier->limiter : &rp->lim, rc, d);
}

size_t cli_replay_rule_at(const struct cli_replay *rp, int64_t t)
{
	size_t lo = 0, hi = rp->nrules; /* rule_at[1..lo] <= t < rule_at[hi] */

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (rp->rule_at[mid] <= t)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* Whether a request of cost can never be admitted under lim: a fresh key refuses it. */
static bool never_fits(const struct rl_limiter *lim, int64_t t, int64_t cost)
{
	_Alignas(16) unsigned char fresh[RL_ALGO_MAX_STATE] = { 0 };
	int rc = lim->algo->check(lim, fresh, t, cost, NULL);

	rl_limiter_release(lim, fresh);
	return rc == RL_REJECTED;
}

/*
 * The in-process loop with --rule-at: each key keeps, after its state, the
 * index (plus 1; 0: fresh) of the rule that last wrote it, and the first
 * line of a key under another rule converts its state (rl_limiter_rerule)
 * before deciding, as the Redis module does from its stored form. A cost
 * the new rule can never admit changes nothing, the conversion included
 * (the module writes nothing for it): the state is put back as it was.
 */
static int in_process_rules(const struct cli_replay *rp, struct sim_lines *in)
{
	bool want = rp->ro.explain || rp->ro.headers;
	int status = CLI_EXIT_OK;
	char *line;

	cli_stdout_buffered();
	while ((line = cli_lines_next(in))) {
		struct cli_replay_line l;

		if ((status = parse_line(rp, in, line, &l)))
			break;
		size_t ri = cli_replay_rule_at(rp, l.t);
		const struct rl_limiter *lim = &rp->rules[ri];
		struct rl_decision d = { 0 };
		unsigned char *state = sim_keymap_get(&rp->maps[0], l.key, l.key_len);
		int rc = RL_ENOMEM;
		if (state) {
			_Alignas(16) unsigned char before[RL_ALGO_MAX_STATE];
			uint32_t under;
			memcpy(&under, state + rp->state_off, sizeof(under));
			bool convert = under && under - 1 != ri;
			/* a conversion allocates nothing: the bytes put back are the state */
			if (convert)
				memcpy(before, state, lim->algo->state_size);
			rc = convert ? rl_limiter_rerule(&rp->rules[under - 1], lim, state, l.t) : RL_OK;
			if (rc == RL_OK)
				rc = rl_limiter_check_n(lim, state, l.t, l.cost, want ? &d : NULL);
			if (convert && rc == RL_REJECTED && never_fits(lim, l.t, l.cost)) {
				memcpy(state, before, lim->algo->state_size);
			} else {
				under = (uint32_t)ri + 1;
				memcpy(state + rp->state_off, &under, sizeof(under));
			}
		}
		if (rc < 0) {
			fflush(stdout);
			fprintf(stderr, "ratelab replay: line %ld: %s\n", in->lineno, rl_strerror(rc));
			status = CLI_EXIT_FAIL;
			break;
		}
		print_answer(rp, NULL, lim, rc, &d);
	}
	return status;
}

int cli_replay_parse(const struct cli_replay *rp, const struct sim_lines *in, char *line,
		     struct cli_replay_line *out)
{
	int status = parse_line(rp, in, line, out);

	if (status == CLI_REPLAY_SETTLE) {
		char msg[2 * SIM_QUOTE_SIZE + 200];
		sim_trace_line_error(msg, sizeof(msg), NULL, in->lineno, in->text,
				     "a settle line 'T KEY COST ACTUAL DONE_T' is replayed in process only");
		return cli_usage_error("replay", "%s", msg);
	}
	return status;
}

int cli_replay_in_process(const struct cli_replay *rp, struct sim_lines *in)
{
	bool want = rp->ro.explain || rp->ro.headers;
	int status = CLI_EXIT_OK;
	char *line;

	if (rp->nrules > 1)
		return in_process_rules(rp, in);

	cli_stdout_buffered();
	while ((line = cli_lines_next(in))) {
		struct cli_replay_line l;

		if ((status = parse_line(rp, in, line, &l)))
			break;
		const struct rl_limiter *lim = l.tier ? &l.tier->limiter : &rp->lim;
		struct rl_decision d = { 0 };
		int rc = RL_ALLOWED;
		if (!(l.tier && l.tier->unlimited)) {
			void *state = sim_keymap_get(&rp->maps[l.map], l.key, l.key_len);
			rc = state ? rl_limiter_check_n(lim, state, l.t, l.cost, want ? &d : NULL) : RL_ENOMEM;
		}
		if (rc < 0) {
			fflush(stdout);
			fprintf(stderr, "ratelab replay: line %ld: %s\n", in->lineno, rl_strerror(rc));
			status = CLI_EXIT_FAIL;
			break;
		}
		print_answer(rp, l.tier, lim, rc, &d);
	}
	/* a settle line: this line and the rest in replay_policy.c's loop */
	if (status == CLI_REPLAY_SETTLE && rp->nrules > 1) {
		fflush(stdout);
		fprintf(stderr, "ratelab replay: line %ld: a settle line 'T KEY COST ACTUAL DONE_T' is not replayed "
			"with --rule-at\n", in->lineno);
		return CLI_EXIT_USAGE;
	}
	return status == CLI_REPLAY_SETTLE ? cli_replay_resume(rp, in) : status;
}
