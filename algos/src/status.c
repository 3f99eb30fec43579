/*
 * status.c - rl_strerror, derived from status.h's RL_STATUS_LIST.
 */
#include "ratelab/status.h"

const char *rl_strerror(int status)
{
	switch (status) {
#define RL_STATUS_CASE(name, value, message, meaning) \
	case RL_##name:                               \
		return message;
		RL_STATUS_LIST(RL_STATUS_CASE)
#undef RL_STATUS_CASE
	}
	return "unknown status";
}
