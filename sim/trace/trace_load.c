/*
 * trace_load.c - model: the one loader (sim_import) with the simulator's
 * policy (trace_load.h), its exit status told as the library's codes.
 */
#include "trace_load.h"

#include "import.h"
#include "ratelab/status.h"

int sim_trace_load(FILE *in, const char *path, struct sim_trace *t, char *msg, size_t msg_len)
{
	struct sim_import_stats st = { .out_of_memory = false };
	const struct sim_import_opts o = {
		.format = "trace", .stats = &st, .absolute = true, .strict = true,
		.file_order = true, .as_written = true,
		.in = in, .msg = msg, .msg_len = msg_len,
	};
	const char *paths[1] = { path };

	if (msg_len)
		msg[0] = '\0';
	int status = sim_import(&o, paths, 1, t, NULL);
	if (!status)
		return RL_OK;
	return status == 2 ? RL_EINVAL : st.out_of_memory ? RL_ENOMEM : RL_EIO;
}
