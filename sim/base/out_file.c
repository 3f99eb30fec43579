/*
 * out_file.c - one output file of a command (out_file.h).
 */
#include "out_file.h"

#include "ratelab/parse.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *sim_out_quote(char *buf, size_t len, const char *path)
{
	rl_quote_to(buf, len, path, RL_QUOTE_WHOLE);
	return buf;
}

int sim_out_close(FILE *f, const char *path, const char *cmd, FILE *err)
{
	char q[2 * SIM_OUT_PATH_MAX];
	/* a failed write leaves its data in the buffer (glibc), so the flush fails again and names the reason */
	int e = fflush(f) != 0 ? errno : ferror(f) ? EIO : 0;

	if (fclose(f) != 0 && !e)
		e = errno;
	if (!e)
		return 0;
	fprintf(err, "ratelab %s: write error: %s: %s\n", cmd, sim_out_quote(q, sizeof(q), path), strerror(e));
	return -1;
}

FILE *sim_out_file_begin(const char *path, char *tmp, const char *cmd, FILE *err)
{
	char q[2 * SIM_OUT_PATH_MAX];
	size_t len = strlen(path);
	int fd = -1;
	FILE *f = NULL;

	if (len + 16 < SIM_OUT_PATH_MAX) {
		memcpy(tmp, path, len);
		memcpy(tmp + len, ".ratelab-XXXXXX", sizeof(".ratelab-XXXXXX"));
		fd = mkstemp(tmp);
		/* the mode fopen would have given (mkstemp's is 0600) */
		mode_t mask = umask(0);
		umask(mask);
		if (fd >= 0 && fchmod(fd, 0666 & ~mask) != 0) {
			close(fd);
			unlink(tmp);
			fd = -1;
		}
	} else {
		errno = ENAMETOOLONG;
	}
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		fprintf(err, "ratelab %s: cannot write %s: %s\n", cmd, sim_out_quote(q, sizeof(q), path), strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
	}
	return f;
}

int sim_out_file_commit(FILE *f, const char *tmp, const char *path, const char *cmd, FILE *err)
{
	char q[2 * SIM_OUT_PATH_MAX];

	if (sim_out_close(f, tmp, cmd, err) != 0) {
		unlink(tmp);
		return -1;
	}
	if (rename(tmp, path) != 0) {
		fprintf(err, "ratelab %s: cannot move the output into %s: %s\n", cmd, sim_out_quote(q, sizeof(q), path),
			strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}
