/*
 * replay.h - what `ratelab replay` shares between its in-process path
 * (cmd_replay.c) and its Redis path (replay_redis.c): the options, the
 * limiter or tiers, and replay.c's line parser and printer, so that both
 * print the same text for the same answers; neither path calls the other
 * (cmd_replay.c picks one).
 */
#ifndef RATELAB_CLI_REPLAY_H
#define RATELAB_CLI_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "keymap.h"
#include "lines.h"
#include "trace.h"
#include "ratelab/algo.h"
#include "ratelab/policy.h"
#include "ratelab/registry.h"

struct replay_opts {
	const char *algo;
	const char *limit, *window, *burst;
	const char *policy; /* --policy P: rules joined by '+' (policy.h) */
	const char *config;
	const char *trace; /* NULL or "-": standard input */
	const char *redis, *redis_batch, *redis_prefix, *redis_timeout; /* --redis... */
	bool explain;
	bool headers;
	bool shadow; /* --shadow: decide as enforcing, admit all, count would-rejects */
	unsigned http_flags; /* rl_http_flags */
};

/* One keymap per limited tier (or the one limiter without --config). */
struct cli_replay {
	struct replay_opts ro;
	struct rl_limiter lim; /* without --config; with --policy, the policy as one limiter */
	/*
	 * Without --config: rules[0] is lim, rules[i] (i >= 1) the i-th
	 * --rule-at change, in force for the lines with t >= rule_at[i]
	 * (increasing); nrules is 1 without --rule-at.
	 */
	struct rl_limiter *rules;
	int64_t *rule_at;
	size_t nrules;
	size_t state_off; /* with --rule-at: where a key's rule index follows its state */
	struct rl_policy policy;              /* --policy */
	struct rl_policy_limiter *pl;         /* --policy's limiter, or NULL */
	struct rl_registry *reg;
	size_t nmaps;
	struct sim_keymap *maps;
	/* the input's "# ratelab trace:" line (trace.h), its origin_ns added to
	 * every later line's times; the line reader's on_comment fills it */
	struct sim_trace_header *header;
};

/* One parsed line: key points into the line. */
struct cli_replay_line {
	int64_t t;                  /* ns */
	int64_t cost;               /* units, default 1 */
	const char *key;
	size_t key_len;
	const struct rl_tier *tier; /* with --config, else NULL */
	size_t map;                 /* the tier's index (0 without --config) */
};

/*
 * Splits and checks one input line. CLI_EXIT_OK, or CLI_EXIT_USAGE after
 * the message naming the line.
 */
int cli_replay_parse(const struct cli_replay *rp, const struct sim_lines *in, char *line,
		     struct cli_replay_line *out);

/* Prints one request's answer under lim (NULL: the tier's, or rp->lim):
 * the verdict line, and the HTTP answer with --headers. */
void cli_replay_print(const struct cli_replay *rp, const struct rl_tier *tier, const struct rl_limiter *lim, int rc,
		      const struct rl_decision *d);

/* The index into rp->rules of the rule in force at t (--rule-at). */
size_t cli_replay_rule_at(const struct cli_replay *rp, int64_t t);

/* Decides in's lines in process (replay.c); returns the exit status. */
int cli_replay_in_process(const struct cli_replay *rp, struct sim_lines *in);

/* parse_line's answer for a settle line, which replay.c's loop hands on (not an exit status). */
#define CLI_REPLAY_SETTLE 100

/* True when text has the 5 tokens of a settle line 'T KEY COST ACTUAL DONE_T'. */
bool cli_replay_settle_form(const char *text);

/*
 * Goes on deciding in's lines in replay_policy.c's loop, from the line
 * just read (in->text), whose states and output go on from replay.c's.
 */
int cli_replay_resume(const struct cli_replay *rp, struct sim_lines *in);

/*
 * Decides in's lines with --policy or --shadow (replay_policy.c): a line
 * without COST is refused when a rule counts units; --explain adds each
 * rule's answer, --headers the list form of the HTTP fields. The settle
 * form 'T KEY COST ACTUAL DONE_T' is read here (and handed here by
 * replay.c's loop). Returns the exit status.
 */
int cli_replay_policy_in_process(const struct cli_replay *rp, struct sim_lines *in);

/*
 * For the Redis path with --policy or --shadow: one line split and checked
 * as replay_policy.c's loop checks it (COST needed when a rule counts
 * units; *settle true for the settle form), CLI_EXIT_OK or CLI_EXIT_USAGE
 * after the message; and one answer printed as that loop prints it
 * (--explain with each rule's answer and would_reject, --headers).
 */
int cli_replay_policy_line(const struct cli_replay *rp, const struct sim_lines *in, char *line,
			   struct cli_replay_line *out, bool *settle);
void cli_replay_policy_print(const struct cli_replay *rp, int rc, const struct rl_policy_answer *a);

/*
 * Decides in's lines in Redis (--redis), --redis-batch lines per round
 * trip; returns the exit status. Without the Redis backend built in, a
 * usage error saying so.
 */
int cli_replay_redis(const struct cli_replay *rp, struct sim_lines *in);

#endif
