/*
 * bench_report_int.h - the bench report's parts, private to bench_*.c:
 * its inputs as read once, the benchmark and target names, the figures it
 * derives, and its sections. Errors are recorded in the inputs (the first
 * status kept, every message printed) so that a section can go on to the
 * end; nothing is written when one was recorded.
 */
#ifndef RATELAB_SIM_BENCH_REPORT_INT_H
#define RATELAB_SIM_BENCH_REPORT_INT_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "bench_names.h"
#include "compat.h"
#include "json.h"
#include "csv.h"
#include "report_algos.h"
#include "report_stat.h"
#include "report_text.h"

#define BR_WHO "ratelab report: "

/* One benchmark: ns per op over its repetitions (CPU time, or real time
 * for the threaded runs) and its first repetition's entry (the counters). */
struct br_run {
	const char *name;
	struct rp_stat ns;
	const struct sim_json *entry;
};

struct br_bench {
	struct sim_json doc;
	struct br_run *run; /* sorted by name */
	size_t nruns;
	int repetitions;
	const char *build_type; /* context.library_build_type, NULL when absent */
	double mhz;             /* context.mhz_per_cpu, NaN when absent */
};

struct br_algo {
	const char *name;
	size_t state_size; /* 0: not a library algorithm (a peer's summary row) */
};

/* An external limiter measured by its own driver (bench/peers.json). */
struct br_peer {
	const char *name, *nearest, *version, *note; /* "" when absent */
	struct rp_stat hot, k1k, k1m; /* n = reps (1 when not given), 0 when no median */
	int hot_reps, k1k_reps, k1m_reps; /* as given, 0 when absent */
	double bytes_per_key;
	const struct sim_json *agreement; /* nginx's agreement with leaky_bucket; NULL for a timed peer */
};

/* A file the report writes: built in memory, written at the end. */
struct br_file {
	char *path;
	struct sr_buf b;
};

struct br_in {
	const char *results, *out, *mode, *quals_path;
	FILE *err;
	int status; /* the first error's exit status, 0 while none */
	char mode_buf[32];
	struct br_algo *algo;
	size_t nalgos;
	struct br_bench bench;
	struct sim_csv summary, breaker, bytes_limit, quals, diverged;
	struct sim_json peers_doc;
	bool peers_run;
	const char *peers_date, *peers_host;
	struct br_peer *peer;
	size_t npeers;
	char **env_key, **env_val;
	size_t nenv;
	char *env_data;
	char series_dir[SR_PATH_MAX], data_dir[SR_PATH_MAX];
	struct br_file **file; /* each its own allocation: the buffers' addresses stay */
	size_t nfiles;
	/* derived once (bench_figures.c) */
	bool have_seeds, have_figs, have_sweep, have_keys, have_scen;
	struct br_seeds_cache { long long *v; size_t n; } seeds;
	struct br_figures *figs;
	struct br_load *sweep;
	size_t nsweep;
	size_t keys[8], nkeys;
	const char **scen;
	size_t nscen;
	char *breaker_scen;
	bool have_breaker_scen;
};

/* Records an error: the message on err ("ratelab report: ..."), the first status kept. */
void br_error(struct br_in *in, int status, const char *fmt, ...) RL_PRINTF(3, 4);
/* dir/name as a path in a static rotating buffer (rp_str's). */
const char *br_path(const char *dir, const char *name);
/* The buffer of the file at path (created empty on first use); NULL on oom (recorded). */
struct sr_buf *br_file(struct br_in *in, const char *path);
/* The buffer of RESULTS/plots/data/name. */
struct sr_buf *br_data(struct br_in *in, const char *name);
/* Reads a CSV file into t (missing: empty); a header without a column of
 * want (a NULL-terminated list) is an error. */
void br_csv(struct br_in *in, struct sim_csv *t, const char *path, const char *const *want);
/* Reads a JSON file: 1 read, 0 absent, -1 malformed (recorded). */
int br_json(struct br_in *in, const char *path, struct sim_json *out);

/* Not measured: null, or a bare NaN or infinity (Google Benchmark's and
 * Python's words for a figure they could not take). */
static inline bool br_jnone(const struct sim_json *v)
{
	return v && (v->type == SIM_JSON_NULL || (v->type == SIM_JSON_NUMBER && !isfinite(v->number)));
}

/* Required members of a JSON object read from path: a missing one (or of another type)
 * is recorded ("PATH: no number \"KEY\"", also for a number not measured) and reads
 * as NaN, "" or NULL. */
double br_jnum(struct br_in *in, const char *path, const struct sim_json *o, const char *key);
const char *br_jstr(struct br_in *in, const char *path, const struct sim_json *o, const char *key);
const struct sim_json *br_jget(struct br_in *in, const char *path, const struct sim_json *o, const char *key,
			      enum sim_json_type type);

/* ---- inputs (bench_load.c) */
extern const char *const *br_summary_columns;
int br_load(struct br_in *in);
void br_free(struct br_in *in);
/* The run called name, or NULL. */
const struct br_run *br_run(const struct br_in *in, const char *name);
/* ns/op of the named run (printf-style name); n = 0 when absent. */
struct rp_stat br_stat(const struct br_in *in, const char *fmt, ...) RL_PRINTF(2, 3);
/* Its median, NaN when absent. */
double br_ns(const struct br_in *in, const char *fmt, ...) RL_PRINTF(2, 3);
/* A counter of the named run, NaN when absent. */
double br_counter(const struct br_in *in, const char *key, const char *fmt, ...) RL_PRINTF(3, 4);
/* env.txt's value of key, "-" when absent. */
const char *br_env(const struct br_in *in, const char *key);
/* The peer whose summary row is algo (peer_<name>), or NULL. */
const struct br_peer *br_peer_of(const struct br_in *in, const char *algo);
bool br_is_peer(const char *algo);

/* ---- the benchmark names and the targets: bench/bench_names.h, the drivers' too */
double br_hot_target_ns(const char *algo);
double br_floor_target_ratio(const char *algo, size_t keys);

/* ---- figures (bench_figures.c) */
/* The summary's seeds, ascending (owned by in: valid until br_free). */
const struct br_seeds_cache *br_seeds(struct br_in *in);
/* The distinct values of column scenario in t, in first-seen order; *n of them. */
const char **br_scenarios(const struct sim_csv *t, size_t *n);
typedef bool (*br_keep)(const char *scenario);
struct rp_stat br_over_seeds(const struct br_in *in, const char *algo, const char *num, const char *den,
			     double scale, br_keep keep);
struct rp_stat br_max_over_seeds(const struct br_in *in, const char *algo, const char *col, br_keep keep);
struct rp_stat br_cell_over_seeds(const struct br_in *in, const char *scenario, const char *algo,
				  const char *col);
/* The same over two columns added. */
struct rp_stat br_cell2_over_seeds(const struct sim_csv *t, const char *scenario, const char *algo,
				   const char *a, const char *b);
struct rp_stat br_extra_wait_over_seeds(const struct br_in *in, const char *algo);

struct br_figures {
	const char *algo;
	bool peer;
	double state_bytes;
	struct rp_stat over_n_pct, worst_ratio, rate_at_top, beyond_bound_pct, false_reject_pct, extra_wait_ms,
		diverged_pct;
	double allin_1m, malloc_1m;
	struct rp_stat ns_hot, ns_1m;
};
/* One per algorithm, in in->algo order (owned by in). */
const struct br_figures *br_figures(struct br_in *in);

struct br_load {
	int load;
	const char *name;
};
/* The load sweep (NAME_050, NAME_100, ...), by load; *n of them. */
const struct br_load *br_load_sweep(struct br_in *in, size_t *n);
const char *br_boundary_scenario(struct br_in *in);   /* "" when none */
const char *br_population_scenario(struct br_in *in); /* "" when none */
const char *br_breaker_scenario(struct br_in *in);    /* "" when none */
/* The key counts of the store runs present, ascending; *n of them. */
const size_t *br_key_counts(struct br_in *in, size_t *n);
/* Records an error for each input the report needs and lacks. */
void br_require(struct br_in *in);

/* "a (x) is below b (y), the ranges apart", "... are within noise", or "...: one repetition, no ranking". */
const char *br_rank_pair(const char *a, struct rp_stat sa, const char *b, struct rp_stat sb, int decimals);
/* a / b and a + b with their ranges from the extremes. */
struct rp_stat br_ratio(struct rp_stat a, struct rp_stat b);
struct rp_stat br_sum(struct rp_stat a, struct rp_stat b);
/* "12K", "1M", "100". */
const char *br_keys_label(size_t n);
/* A verdict on "figure <= limit" (or >= for br_verdict_at_least). */
const char *br_verdict(struct rp_stat s, double limit);
const char *br_verdict_at_least(struct rp_stat s, double limit);

/* The bytes probe per algorithm (byte order): the least and most state bytes over N, at N = 100. */
struct br_bytes {
	const char *algo;
	double least, most, at100;
};
/* Freed by the caller (free). */
const struct br_bytes *br_bytes_by_limit(struct br_in *in, size_t *n);

/* ---- sections: each appends its Markdown to o */
void br_answer(struct br_in *in, struct sr_buf *o);
void br_machine(struct br_in *in, struct sr_buf *o);
void br_tradeoff(struct br_in *in, struct sr_buf *o);
void br_qualitative(struct br_in *in, struct sr_buf *o);
void br_accuracy(struct br_in *in, struct sr_buf *o);
void br_population(struct br_in *in, struct sr_buf *o);
void br_weighted(struct br_in *in, struct sr_buf *o);
void br_targets(struct br_in *in, struct sr_buf *o);
void br_hot(struct br_in *in, struct sr_buf *o);
void br_keyed(struct br_in *in, struct sr_buf *o);
void br_registry(struct br_in *in, struct sr_buf *o);
void br_breaker(struct br_in *in, struct sr_buf *o);
void br_redis(struct br_in *in, struct sr_buf *o);
void br_import(struct br_in *in, struct sr_buf *o);
void br_charts(struct br_in *in, struct sr_buf *o);
void br_perf(struct br_in *in, struct sr_buf *o);
void br_peers(struct br_in *in, struct sr_buf *o);
void br_fleet(struct br_in *in, struct sr_buf *o);
/* RESULTS/sim/llm.csv: the LLM API scenario (bench_llm.c). */
void br_llm(struct br_in *in, struct sr_buf *o);
void br_theory(struct br_in *in, struct sr_buf *o);
void br_study_scale(struct br_in *in, struct sr_buf *o);
/* The chart data (plots/data) of the tradeoff, sweep, keys, breaker and boundary charts, and the peers'. */
void br_chart_data(struct br_in *in);
void br_peer_chart_data(struct br_in *in);

#endif
