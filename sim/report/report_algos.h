/*
 * report_algos.h - what the reports need to know of each algorithm, looked
 * up by its name instead of branched on it: one place to read, and a new
 * algorithm of ratelab/algo_list.h is one row (test_report_layer fails
 * until it has one).
 *
 * A fact the library's descriptor holds (struct rl_algo, ratelab/algo.h)
 * is read from it; the table (report_algos.c) holds only those it does
 * not, each row with why it has its values.
 *
 * Any other name (a peer such as "peer_go_x_time_rate", a decider of the
 * study, NULL) is no algorithm of the library: every fact false, so that
 * a caller treats it as the plain case (fixed-size state, no burst, not
 * the reference, the spinlock).
 */
#ifndef RATELAB_SIM_REPORT_ALGOS_H
#define RATELAB_SIM_REPORT_ALGOS_H

#include <stdbool.h>
#include <stddef.h>

/* A row of the table: the facts no descriptor field states. */
struct rp_algo_row {
	const char *name; /* rl_algo.name */
	/* Its decisions are the rule itself, N per any window (t - W, t],
	 * with no false allow or false reject: the reference the simulator
	 * (sim_run.c: diverged) and the study (study.c) judge the others by,
	 * "the exact log" of the reports. One row has it. */
	bool exact;
	/* rl_limit's unnamed key may take no lock: its check publishes the
	 * state with one 16-byte compare-and-swap (limit.h; the library's
	 * rl__lock_free_route, verdicts.h, which the test pins this to). */
	bool lock_free_limit;
};

/* An algorithm's facts, the table's and its descriptor's. */
struct rp_algo {
	bool known;           /* an algorithm of the library (rl_algo_find) */
	bool owns_heap;       /* rl_algo.release != NULL: its state is a log on the heap, its size growing
			       * with the admitted times (sliding_log's ring), not a few fixed words */
	bool uses_burst;      /* rl_algo.uses_burst: the rule's B shapes its decisions (the buckets) */
	bool exact;           /* rp_algo_row.exact */
	bool lock_free_limit; /* rp_algo_row.lock_free_limit */
};

/* The facts of the algorithm called name; all false for any other name or NULL. */
struct rp_algo rp_algo_of(const char *name);

/* The name of the exact algorithm (rp_algo_row.exact), the reports' reference. */
const char *rp_algo_exact(void);

/* The table, for its test: rows[0..*n). */
const struct rp_algo_row *rp_algo_rows(size_t *n);

/*
 * Checks a table against the library: every algorithm of rl_algo_all() has
 * exactly one row of rows[0..n), no row names anything else, and exactly
 * one row is exact. 0, or -1 with the first fault in msg ("no row for
 * algorithm 'gcra'", "2 rows for 'gcra'", "row 3: 'nope' is no algorithm
 * of the library (...)", "2 exact rows ('a', 'b'): one reference").
 */
int rp_algo_rows_check(const struct rp_algo_row *rows, size_t n, char *msg, size_t msg_len);

#endif
