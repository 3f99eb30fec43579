/*
 * out_file.h - one output file of a command (out_file.c): every write and
 * the close checked, with one message naming the file and the system's
 * reason; written beside its place and renamed onto it once whole.
 */
#ifndef RATELAB_SIM_OUT_FILE_H
#define RATELAB_SIM_OUT_FILE_H

#include <stddef.h>
#include <stdio.h>

#define SIM_OUT_PATH_MAX 4096

/* path quoted for a message into buf[len] as rl_quote_to (ratelab/parse.h) quotes it, whole
 * (RL_QUOTE_WHOLE): cut, with its marker, only past what len holds. Returns buf. */
const char *sim_out_quote(char *buf, size_t len, const char *path);

/*
 * Ends a file written by cmd: flushed, checked for any failed write, then
 * closed. 0, or -1 after "ratelab CMD: write error: 'PATH': REASON" on err.
 */
int sim_out_close(FILE *f, const char *path, const char *cmd, FILE *err);

/*
 * One output file written beside its place (PATH.ratelab-XXXXXX, named in
 * tmp[SIM_OUT_PATH_MAX]) and renamed onto it once whole: the stream, or
 * NULL after a message on err.
 */
FILE *sim_out_file_begin(const char *path, char *tmp, const char *cmd, FILE *err);

/* Ends it: sim_out_close, then the rename; on failure tmp is removed. 0, or -1 after a message. */
int sim_out_file_commit(FILE *f, const char *tmp, const char *path, const char *cmd, FILE *err);

#endif
