/*
 * rm_api.c - the module API's function pointers (rm_api.h), filled from
 * the server's lookup function, the first word of the load context.
 */
#include "rm_api.h"

#define RM_API_DEFINE(type, name, params) type(*RedisModule_##name) params;
RM_API_LIST(RM_API_DEFINE)
#undef RM_API_DEFINE

typedef int rm_getapi_fn(const char *name, void *fnptr);

int rm_api_init(RedisModuleCtx *ctx, const char *name, int ver)
{
	rm_getapi_fn *getapi;
	int missing = 0;

	/* the context's first word is the lookup function's address */
	getapi = *(rm_getapi_fn **)(void *)ctx;
#define RM_API_GET(type, fn, params) missing |= getapi("RedisModule_" #fn, (void *)&RedisModule_##fn) != REDISMODULE_OK;
	RM_API_LIST(RM_API_GET)
#undef RM_API_GET
	if (missing || RedisModule_IsModuleNameBusy(name))
		return REDISMODULE_ERR;
	RedisModule_SetModuleAttribs(ctx, name, ver, REDISMODULE_APIVER_1);
	return REDISMODULE_OK;
}
