/*
 * redis_scripts.h - private: the Lua scripts of algos/lua, each lib.lua
 * followed by one algorithm's text, embedded by embed.cmake at build time.
 * Index i < RL_REDIS_SCRIPT_BREAKER is rl_algo_all()'s i-th algorithm.
 */
#ifndef RATELAB_REDIS_SCRIPTS_H
#define RATELAB_REDIS_SCRIPTS_H

enum { RL_REDIS_SCRIPT_BREAKER = 6, RL_REDIS_SCRIPT_COUNT = 7 };

extern const char *const rl_redis_scripts[RL_REDIS_SCRIPT_COUNT];

#endif
