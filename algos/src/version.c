/*
 * version.c - the library's own version string, fixed when it is built.
 */
#include "ratelab/version.h"

const char *rl_version(void)
{
	return RATELAB_VERSION_STRING;
}
