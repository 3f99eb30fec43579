/*
 * report_csv.h - the reports' names for ratelab's one CSV reader
 * (sim/base/csv.h, where its contract is): the report code was written
 * against rp_csv before the reader moved down to sim/base for every
 * layer; these names are that reader, nothing of their own.
 */
#ifndef RATELAB_SIM_REPORT_CSV_H
#define RATELAB_SIM_REPORT_CSV_H

#include "csv.h"

#define rp_csv sim_csv
#define rp_csv_rules sim_csv_rules
#define rp_csv_lenient sim_csv_lenient
#define rp_csv_parse sim_csv_parse
#define rp_csv_read sim_csv_read
#define rp_csv_free sim_csv_free
#define rp_csv_col sim_csv_col
#define rp_csv_at sim_csv_at
#define rp_csv_num sim_csv_num
#define rp_read_file sim_read_file
#define RP_OK SIM_CSV_OK
#define RP_FAIL SIM_CSV_FAIL
#define RP_BAD SIM_CSV_BAD

#endif
