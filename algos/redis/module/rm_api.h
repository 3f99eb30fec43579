/*
 * rm_api.h - the part of the Redis module API that ratelab.so uses,
 * declared from Redis's documented module API (API version 1), not from
 * Redis's own header: the module builds with the compiler and ratelab alone.
 *
 * How a module reaches the server: Redis dlopen()s the library and calls
 * RedisModule_OnLoad(ctx, argv, argc). The first word of the context is
 * the server's lookup function, int getapi(const char *name, void *fnptr),
 * which stores the address of the API function called name (for example
 * "RedisModule_OpenKey") into *fnptr, or returns REDISMODULE_ERR when the
 * server lacks it. rm_api_init() fills the function pointers below that
 * way, then registers the module's name (SetModuleAttribs). The opaque
 * types are only ever handled through pointers.
 *
 * Not installed: private to the module.
 */
#ifndef RATELAB_RM_API_H
#define RATELAB_RM_API_H

#include <stddef.h>

#define REDISMODULE_OK 0
#define REDISMODULE_ERR 1
#define REDISMODULE_APIVER_1 1

/* OpenKey modes. */
#define REDISMODULE_READ (1 << 0)
#define REDISMODULE_WRITE (1 << 1)

/* KeyType answers. */
#define REDISMODULE_KEYTYPE_EMPTY 0
#define REDISMODULE_KEYTYPE_STRING 1
#define REDISMODULE_KEYTYPE_LIST 2
#define REDISMODULE_KEYTYPE_HASH 3
#define REDISMODULE_KEYTYPE_SET 4
#define REDISMODULE_KEYTYPE_ZSET 5
#define REDISMODULE_KEYTYPE_MODULE 6
#define REDISMODULE_KEYTYPE_STREAM 7

/* SetExpire's "no expiry". */
#define REDISMODULE_NO_EXPIRE (-1)

typedef struct RedisModuleCtx RedisModuleCtx;
typedef struct RedisModuleKey RedisModuleKey;
typedef struct RedisModuleString RedisModuleString;

/* A command's handler: argv[0] is the command's name. */
typedef int (*RedisModuleCmdFunc)(RedisModuleCtx *ctx, RedisModuleString **argv, int argc);

/*
 * X(return type, name without the RedisModule_ prefix, parameters), every
 * one required: a server lacking one refuses the module at load.
 * Times: Milliseconds is the server's Unix time in ms; SetAbsExpire takes
 * a Unix time in ms. Replicate's format has one letter per argument:
 * c a C string, s a RedisModuleString, b a buffer and its length, l a
 * long long.
 */
#define RM_API_LIST(X)                                                                                    \
	X(void, SetModuleAttribs, (RedisModuleCtx * ctx, const char *name, int ver, int apiver))        \
	X(int, IsModuleNameBusy, (const char *name))                                                      \
	X(int, CreateCommand,                                                                             \
	  (RedisModuleCtx * ctx, const char *name, RedisModuleCmdFunc fn, const char *flags, int firstkey, \
	   int lastkey, int keystep))                                                                      \
	X(void, Log, (RedisModuleCtx * ctx, const char *level, const char *fmt, ...))                    \
	X(int, WrongArity, (RedisModuleCtx * ctx))                                                        \
	X(int, ReplyWithError, (RedisModuleCtx * ctx, const char *err))                                   \
	X(int, ReplyWithLongLong, (RedisModuleCtx * ctx, long long v))                                    \
	X(int, ReplyWithArray, (RedisModuleCtx * ctx, long len))                                          \
	X(int, ReplyWithStringBuffer, (RedisModuleCtx * ctx, const char *buf, size_t len))                \
	X(const char *, StringPtrLen, (const RedisModuleString *s, size_t *len))                          \
	X(int, StringToLongLong, (const RedisModuleString *s, long long *v))                              \
	X(RedisModuleKey *, OpenKey, (RedisModuleCtx * ctx, RedisModuleString * name, int mode))          \
	X(void, CloseKey, (RedisModuleKey * key))                                                         \
	X(int, KeyType, (RedisModuleKey * key))                                                           \
	X(char *, StringDMA, (RedisModuleKey * key, size_t *len, int mode))                               \
	X(int, StringTruncate, (RedisModuleKey * key, size_t len))                                        \
	X(int, DeleteKey, (RedisModuleKey * key))                                                         \
	X(int, SetExpire, (RedisModuleKey * key, long long ttl_ms))                                       \
	X(int, SetAbsExpire, (RedisModuleKey * key, long long at_ms))                                     \
	X(long long, Milliseconds, (void))                                                                \
	X(int, Replicate, (RedisModuleCtx * ctx, const char *cmd, const char *fmt, ...))

#define RM_API_DECLARE(type, name, params) extern type(*RedisModule_##name) params;
RM_API_LIST(RM_API_DECLARE)
#undef RM_API_DECLARE

/*
 * Fills every pointer above from the server behind ctx and registers the
 * module as name (version ver). REDISMODULE_OK, or REDISMODULE_ERR when a
 * function is missing (an older server) or the name is taken.
 */
int rm_api_init(RedisModuleCtx *ctx, const char *name, int ver);

#endif
