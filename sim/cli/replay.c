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

static void print_headers(const struct cli_replay *rp, const struct rl_tier *tier, int verdict,
			  const struct rl_decision *d)
{
	char buf[512];

	printf("HTTP/1.1 %s\n", rl_http_status(verdict) == 429 ? "429 Too Many Requests" : "200 OK");
	if (!(tier && tier->unlimited)) {
		const struct rl_limiter *lim = tier ? &tier->limiter : &rp->lim;
		struct rl_http_policy p = { tier ? tier->name : "default", lim->rule.limit, lim->rule.window_ns };
		if (rl_http_headers(buf, sizeof(buf), &p, verdict, d, rp->ro.http_flags) > 0)
			fputs(buf, stdout);
	}
	putchar('\n');
}

/* Inlined into the in-process loop (the perf gate counts its instructions per line). */
static RL_ALWAYS_INLINE void print_answer(const struct cli_replay *rp, const struct rl_tier *tier, int rc,
					  const struct rl_decision *d)
{
	const struct rl_limiter *lim = tier ? &tier->limiter : &rp->lim;

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
		print_headers(rp, tier, rc, d);
}

/* A line the parser refused: a settle line's status (the rest goes to
 * replay_policy.c's loop), else the message and CLI_EXIT_USAGE. Out of
 * line: the loop's code stays as it was before settle lines. */
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

	if (in->has_nul || !sim_trace_line_parse(line, &l, why, sizeof(why))) {
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

void cli_replay_print(const struct cli_replay *rp, const struct rl_tier *tier, int rc,
		      const struct rl_decision *d)
{
	print_answer(rp, tier, rc, d);
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
		print_answer(rp, l.tier, rc, &d);
	}
	/* a settle line: this line and the rest in replay_policy.c's loop */
	return status == CLI_REPLAY_SETTLE ? cli_replay_resume(rp, in) : status;
}
