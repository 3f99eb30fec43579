/*
 * study_dir.h - a study's output directory (study_dir.c): checked before
 * the run, written beside it, then swapped in whole.
 */
#ifndef RATELAB_SIM_STUDY_DIR_H
#define RATELAB_SIM_STUDY_DIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * 0 when dir may receive a study: absent, an empty directory, or an
 * earlier study's; else -1 with the reason in msg (to follow the quoted
 * path: "is not a directory").
 */
int sim_study_dir_check(const char *dir, char *msg, size_t msg_len);

/* Creates the fresh directory the study is written into, beside dir (its parents made); 0 or -1 after a message. */
int sim_study_dir_begin(const char *dir, char *tmp, size_t tmp_len, FILE *err);

/* Moves tmp into dir's place, the earlier study removed; 0 or -1 after a message. */
int sim_study_dir_commit(const char *dir, const char *tmp, FILE *err);

/* Removes dir and everything in it (a failed run's unfinished directory). */
void sim_study_dir_remove(const char *dir);

#endif
