/*
 * public_headers.c - every public header, compiled as plain ISO C11
 * (-std=c11 -pedantic-errors, tests/CMakeLists.txt): no compiler
 * extension, no 128-bit type, no glibc call may reach a public header.
 * Built, never run: the build fails when a header stops being plain C11.
 */
#include "ratelab/algo.h"
#include "ratelab/breaker.h"
#include "ratelab/fixed_window.h"
#include "ratelab/fleet.h"
#include "ratelab/gcra.h"
#include "ratelab/http.h"
#include "ratelab/leaky_bucket.h"
#include "ratelab/level.h"
#include "ratelab/parse.h"
#include "ratelab/registry.h"
#include "ratelab/rule.h"
#include "ratelab/runlog.h"
#include "ratelab/sliding_counter.h"
#include "ratelab/sliding_log.h"
#include "ratelab/static_assert.h"
#include "ratelab/status.h"
#include "ratelab/store.h"
#include "ratelab/token_bucket.h"

/* One use, so the unit is not empty (ISO C). */
int rl_public_headers_compile(void);
int rl_public_headers_compile(void)
{
	return RL_OK;
}
