/*
 * static_assert.h - RL_STATIC_ASSERT, how the public headers pin their
 * struct sizes: C11's _Static_assert, or static_assert when the header is
 * read by a C++ compiler (which has no _Static_assert keyword).
 */
#ifndef RATELAB_STATIC_ASSERT_H
#define RATELAB_STATIC_ASSERT_H

#ifdef __cplusplus
#define RL_STATIC_ASSERT(cond, msg) static_assert(cond, msg)
#else
#define RL_STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)
#endif

#endif
