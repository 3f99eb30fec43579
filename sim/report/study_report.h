/*
 * study_report.h - the report of a `ratelab study`: from the CSV files of
 * a study directory alone (study.csv, clients.csv, traffic.csv,
 * refused.csv, meta.csv), the directory's REPORT.md and a self-contained
 * report.html (its charts embedded as data: URIs; no network, it opens
 * from the file), the charts also as PNG files under plots/.
 *
 * The charts are drawn by running the `gnuplot` found on PATH, with
 * scripts and data this module writes into a temporary directory inside
 * dir and removes afterwards. Without gnuplot on PATH the report says so
 * and is written without charts; a gnuplot that fails is an error quoting
 * what it wrote on stderr.
 */
#ifndef RATELAB_SIM_STUDY_REPORT_H
#define RATELAB_SIM_STUDY_REPORT_H

#include <stdio.h>

/*
 * Writes dir/REPORT.md, dir/report.html and dir/plots/ from the CSV files
 * in dir. Returns 0, or the `ratelab` exit status after one message on err
 * ("ratelab study: ..."): 2 for bad input (a missing or malformed CSV
 * file, named with its line: "DIR/study.csv:LINE: ..."), 1 for a failure
 * of the machine (I/O, memory, gnuplot failing).
 */
int sim_study_report(const char *dir, FILE *err);

#endif
