/*
 * replay.h - what `ratelab replay` shares between its in-process path
 * (cmd_replay.c) and its Redis path (replay_redis.c): the options, the
 * limiter or tiers, the line parser and the printer, so both print the
 * same text for the same answers.
 */
#ifndef RATELAB_REPLAY_H
#define RATELAB_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "keymap.h"
#include "ratelab/algo.h"
#include "ratelab/registry.h"

struct replay_opts {
	const char *algo;
	const char *limit, *window, *burst;
	const char *config;
	const char *redis, *redis_batch, *redis_prefix, *redis_timeout; /* --redis... */
	bool explain;
	bool headers;
	unsigned http_flags; /* rl_http_flags */
};

/* One keymap per limited tier (or the one limiter without --config). */
struct replay {
	struct replay_opts ro;
	struct rl_limiter lim; /* without --config */
	struct rl_registry *reg;
	size_t nmaps;
	struct rl_keymap *maps;
};

/*
 * Splits and checks one input line: its time, its key (in line) and, with
 * --config, its tier (else NULL). RL_EXIT_OK, or RL_EXIT_USAGE after the
 * message naming the line.
 */
int rl_replay_parse(const struct replay *rp, const struct rl_lines *in, char *line, int64_t *t,
		    char **key, const struct rl_tier **tier);

/* Prints one request's answer: the verdict line, and the HTTP answer with --headers. */
void rl_replay_print(const struct replay *rp, const struct rl_tier *tier, int rc,
		     const struct rl_decision *d);

/*
 * Decides stdin's lines in Redis (--redis), --redis-batch lines per round
 * trip; returns the exit status. Without the Redis backend built in, a
 * usage error saying so.
 */
int rl_replay_redis(const struct replay *rp);

#endif
