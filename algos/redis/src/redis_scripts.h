/*
 * redis_scripts.h - private: the Lua scripts of algos/redis/lua, embedded
 * by embed.cmake at build time, found by name: an algorithm's script is
 * the one named as the algorithm (rl_algo.name), the breaker's is
 * "breaker". Each text is lib.lua followed by the script's own.
 */
#ifndef RATELAB_REDIS_SCRIPTS_H
#define RATELAB_REDIS_SCRIPTS_H

#include <stddef.h>

/* The most scripts a build may embed (the SHA1 table's size). */
#define RL__REDIS_SCRIPTS_MAX 32

struct rl__redis_script {
	const char *name; /* the file's name without .lua */
	int keys;         /* Redis keys it takes: the largest n of a KEYS[n] (1: every state is one string) */
	const char *text;
};

extern const struct rl__redis_script rl__redis_scripts[];
extern const size_t rl__redis_script_count;

#endif
