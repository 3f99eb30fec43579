/*
 * sim_llm_out.h - `ratelab sim --llm P` (sim_llm_out.c): the LLM API
 * scenario written as DIR/llm.csv. Returns the exit status, after its
 * message (2: a bad policy).
 */
#ifndef RATELAB_CLI_SIM_LLM_OUT_H
#define RATELAB_CLI_SIM_LLM_OUT_H

#include <stdbool.h>
#include <stdint.h>

int cli_sim_llm(const char *dir, const char *policy, uint64_t seed, bool quiet);

#endif
