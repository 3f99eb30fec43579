/*
 * out_dir.h - a command's output folder (`study --out`, `sim --out`;
 * out_dir.c): a new or empty folder, or one an earlier run of the same
 * command wrote, known by the manifest that run left in it
 * (SIM_OUT_MANIFEST, the command and every file and folder it wrote).
 * Anything else in the folder is foreign: the folder is refused, never
 * emptied. A run writes into a staging folder inside DIR; when it succeeds,
 * its files are renamed into place one by one (each replaced whole), the
 * earlier run's files it did not write again are removed, and the new
 * manifest is renamed over the old; when it fails, DIR is left as it was.
 *
 * The manifest, one entry a line:
 *   ratelab-manifest 1
 *   command CMD
 *   dir REL        (a folder the run made, REL relative to DIR)
 *   file REL       (a file the run wrote)
 */
#ifndef RATELAB_SIM_OUT_DIR_H
#define RATELAB_SIM_OUT_DIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "out_file.h"

#define SIM_OUT_MANIFEST ".ratelab-manifest"

struct sim_out_dir {
	const char *cmd;                /* "study", "sim": the command named in the manifest */
	char dir[SIM_OUT_PATH_MAX];     /* DIR as given, trailing '/' dropped */
	char stage[SIM_OUT_PATH_MAX];   /* DIR/.ratelab-new-XXXXXX: where the run writes */
	bool made;                      /* DIR did not exist before this run */
};

/*
 * 0 when cmd may write into dir: absent, an empty folder, or holding only
 * what cmd's manifest lists and none of the paths inputs[0..ninputs) ("-"
 * and absent paths are skipped). Else -1 with the reason in msg, to follow
 * the quoted DIR ("holds 'DIR/notes.txt', which ..."): the first foreign
 * entry in name order, depth first.
 */
int sim_out_dir_check(const char *dir, const char *cmd, const char *const *inputs, size_t ninputs, char *msg,
		      size_t msg_len);

/*
 * mkdir -p: DIR and its missing parents (mode 0777 less the umask); an
 * existing directory is fine. 0, or -1 with errno (ENAMETOOLONG past
 * SIM_OUT_PATH_MAX - 1 bytes). The one place a command makes parents.
 */
int sim_mkdir_p(const char *dir);

/*
 * Makes DIR if absent (its parents too) and the staging folder inside it,
 * into d (zeroed by it). 0, or -1 after a message "ratelab CMD: ..." on err.
 */
int sim_out_dir_begin(struct sim_out_dir *d, const char *dir, const char *cmd, FILE *err);

/*
 * Moves everything in the stage into DIR (the earlier run's files of the
 * same names replaced), removes the earlier run's files not written again
 * and writes the manifest; the stage is then gone. 0, or -1 after a
 * message on err (then sim_out_dir_abort).
 */
int sim_out_dir_commit(struct sim_out_dir *d, FILE *err);

/* Removes the stage and what is in it, and DIR when this run made it and it is empty. */
void sim_out_dir_abort(struct sim_out_dir *d);

#endif
