/*
 * study.h - `ratelab study`: every chosen algorithm and external decider,
 * under every chosen rule, on one recorded trace (trace.h), judged from the
 * clients' side.
 *
 * Definitions, per rule (N units per W) and algorithm. Everything counts
 * units: a request of cost c is c units (at c = 1, requests). Keys are
 * independent, so each key's requests are decided in trace order with a
 * fresh state per key.
 *   excess        the requests the exact sliding log (rl_sliding_log,
 *                 admit iff admitted units in (t - W, t] + c <= N), fed
 *                 every request of the key and keeping its own state,
 *                 refuses: excess_requests; excess_admitted counts those
 *                 this algorithm admitted;
 *   within rule   a key whose own requests never exceed N units in any
 *                 window (t - W, t], i.e. one the exact sliding log admits
 *                 whole: good_keys; good_keys_hurt those the algorithm
 *                 refused any request of; good_requests_rejected their
 *                 refused units;
 *   over_n_admissions, false_rejects, max_in_w: sim_run.h's false allows,
 *                 false rejects and max_in_window (each decision judged on
 *                 the algorithm's own admitted history in (t - W, t]),
 *                 counted in units; max_in_w_over_n = max_in_w / N;
 *   diverged      units on which the algorithm's verdict differs from the
 *                 exact sliding log's above (sim_run.h's diverged_allows +
 *                 diverged_rejects);
 *   ns_per_check  a timed loop of the algorithm alone (fresh states, no
 *                 measurement around it, the thread's CPU time) over the
 *                 shard's first requests (1M by default); for a decider,
 *                 the wall time of its run per decision, its round trip
 *                 included;
 *   bytes_per_key the algorithm's state_size plus the mean over keys of
 *                 the most heap each key's state held (sim_run.h's state
 *                 bytes); not measured for a decider (its memory is its own).
 *
 * Policies (an item of --rules with '+' or ":units", sim_study_rule): the
 * algorithm decides by rl_policy_check (a request admitted iff every rule
 * admits its share), the exact reference is the sliding-log policy of the
 * same rules; "exact" (over_n_admissions, false_rejects) holds when every
 * rule's own admitted shares in its window plus this share are within its
 * N; max_in_w counts the first rule's shares.
 *
 * Settles (a trace with ACTUAL and DONE_T, trace.h): applied to the
 * algorithm's and the reference's states as `ratelab replay` applies them
 * (study_decide.h); every figure counts each request's COST.
 *
 * Sharding: a key belongs to shard sim_study_key_hash(bytes) % K. The
 * hash is 64-bit FNV-1a of the key's bytes (offset basis
 * 14695981039346656037, prime 1099511628211): fixed, seed-free, the same
 * on every machine, so any K processes given the same trace split its
 * keys without talking to each other.
 *
 * Concurrency: sim_study_run shares the trace read-only between its
 * worker threads; deciders run one after another on the calling thread
 * once the workers are done (a child process is never forked while other
 * threads run). One sim_study_run at a time per process: its key ranking
 * uses qsort, which takes no context.
 */
#ifndef RATELAB_SIM_STUDY_H
#define RATELAB_SIM_STUDY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "import.h"
#include "ratelab/algo.h"
#include "ratelab/policy.h"
#include "study_limits.h"
#include "trace.h"

#define SIM_STUDY_TOP 1000        /* keys listed by name in clients.csv */
#define SIM_STUDY_TRAFFIC_KEYS 5  /* heaviest keys given a column in traffic.csv */
#define SIM_STUDY_TRAFFIC_BINS 2000 /* traffic.csv's most rows (sim_study_traffic_bin) */
#define SIM_STUDY_BUCKETS 5       /* refused.csv's buckets of the share refused */
#define SIM_STUDY_RULE_MAX 160    /* a rule's or policy's text, NUL included */
#define SIM_STUDY_NAME_MAX 48     /* an algorithm's or decider's name, NUL included */
#define SIM_STUDY_TEXT_MAX 32     /* a decimal cell of study.csv as written, NUL included */

/* study.csv's (and placement.csv's) columns, in the order sim_study_write writes them. */
enum sim_study_col {
	SIM_COL_RULE, SIM_COL_ALGO, SIM_COL_REQUESTS, SIM_COL_ADMITTED, SIM_COL_GOOD_KEYS, SIM_COL_GOOD_KEYS_HURT,
	SIM_COL_GOOD_REQUESTS_REJECTED, SIM_COL_EXCESS_REQUESTS, SIM_COL_EXCESS_ADMITTED, SIM_COL_OVER_N,
	SIM_COL_MAX_IN_W_OVER_N, SIM_COL_FALSE_REJECTS, SIM_COL_DIVERGED, SIM_COL_NS_PER_CHECK,
	SIM_COL_BYTES_PER_KEY, SIM_COL_MAX_IN_W, SIM_COL_KEYS, SIM_COL_HEAP_BYTES, SIM_STUDY_NCOLS
};
extern const char *const sim_study_col_name[SIM_STUDY_NCOLS];
#define SIM_STUDY_ALL_COLS ((1u << SIM_STUDY_NCOLS) - 1)
/* The columns kept as written (sim_study_row.text): max_in_w_over_n, ns_per_check, bytes_per_key. */
enum { SIM_TEXT_RATIO, SIM_TEXT_NS, SIM_TEXT_BYTES, SIM_STUDY_NTEXT };
/* refused.csv's buckets' bounds as written: bucket b is [lo, hi] when lo == hi, else (lo, hi]. */
extern const char *const sim_study_bucket_lo[SIM_STUDY_BUCKETS], *const sim_study_bucket_hi[SIM_STUDY_BUCKETS];

/*
 * An item of --rules as the user wrote it and what it means: a rule
 * ("60/1m:b120"), which counts units as everything in a study does, or a
 * policy (policy.h: rules joined by '+', or a rule marked ":units":
 * "10/1s+1000/1h", "60/1m+90000/1m:units"), whose rules without ":units"
 * count every request as 1. Both are held as a policy: a plain rule is a
 * policy of one ":units" rule, decided exactly as the rule alone (policy.h).
 * rule is the policy's first rule: the one max_in_w is counted in and
 * max_in_w_over_n divided by. A policy of count 0 (an item filled with
 * its rule alone) is that rule (sim_study_rule_policy).
 */
struct sim_study_rule {
	char text[SIM_STUDY_RULE_MAX];
	struct rl_rule rule;
	struct rl_policy policy;
	bool is_policy; /* written as a policy ('+' or ":units") */
};

/* An external decider (sim_decider.h's protocol), named in the tables. */
struct sim_study_decider {
	const char *cmd;
	char name[SIM_STUDY_NAME_MAX];
	int64_t timeout_ns;
};

struct sim_study_opts {
	const struct sim_study_rule *rules;
	size_t nrules;
	const struct rl_algo *const *algos;
	size_t nalgos;
	const struct sim_study_decider *deciders;
	size_t ndeciders;
	unsigned jobs;          /* worker threads, >= 1 */
	uint32_t shard, nshards; /* this shard of nshards (0 of 1: every key) */
	size_t timing_requests; /* the ns_per_check loop's length (0: 1M, at most the trace) */
	bool quiet;             /* no progress lines on err */
};

/* One (rule, algorithm or decider) row of study.csv; units throughout. */
struct sim_study_row {
	int64_t requests, admitted;
	int64_t good_keys, good_keys_hurt, good_requests_rejected;
	int64_t excess_requests, excess_admitted;
	int64_t over_n_admissions, false_rejects, diverged;
	int64_t max_in_w;
	int64_t keys;            /* keys with at least one request */
	int64_t state_bytes;     /* the algorithm's state_size; -1: a decider (not measured) */
	int64_t heap_bytes;      /* sum over keys of the most heap the key's state held */
	double ns_per_check;     /* timing: not deterministic */
	/* keys whose share of units refused is 0, (0, 0.01], (0.01, 0.1], (0.1, 0.5], (0.5, 1] */
	int64_t refused[SIM_STUDY_BUCKETS];
	/*
	 * Read back only (sim_study_read; zero in a computed study, which has
	 * every row whole): what a directory's files say beyond the figures.
	 */
	bool absent;             /* study.csv has no row of this rule and name */
	bool has_other;          /* clients.csv has its (other) row: */
	int64_t other_requests, other_admitted; /* units of the keys past the listed ones */
	int64_t other_within;    /* how many of them are within the rule */
	uint8_t refused_listed;  /* bit b: refused.csv lists bucket b (sim_study_bucket_lo/hi) */
	/* max_in_w_over_n, ns_per_check and bytes_per_key as written (the report quotes them; empty:
	 * not measured, or the column absent) */
	char text[SIM_STUDY_NTEXT][SIM_STUDY_TEXT_MAX];
};

/* One of the heaviest keys: clients.csv's rows and, for the first few, a traffic.csv column. */
struct sim_study_key {
	char *name;
	int64_t requests;        /* units */
	int64_t *admitted;       /* per row, units */
	unsigned char *within;   /* per rule: 1 within the rule */
	int64_t *per_bin;        /* the first SIM_STUDY_TRAFFIC_KEYS keys: units per traffic bin */
	unsigned char *listed;   /* read back only: per row, 1 when clients.csv lists the key there */
};

/* A row of meta.csv as written. */
struct sim_study_meta {
	char *name, *value;
};

/*
 * A study's results: what the five CSV files hold, whether computed
 * (sim_study_run) or merged from shards (study_merge.h). Rows are
 * rule-major: row r * nnames + a is rule r with names[a], the built-in
 * algorithms first, then the deciders.
 */
struct sim_study {
	/* meta.csv */
	char *trace;             /* the trace's path as given */
	char format[16];
	int64_t requests;        /* requests studied (a count, not units) */
	int64_t keys;            /* keys studied */
	int64_t span_ns;         /* last request time - first, the whole trace's */
	int64_t resolution_ns;
	bool spread, cost;
	unsigned jobs;
	char shard[48];          /* "I/K", "all", or what a merge combined */
	double elapsed_s;
	int64_t peak_rss_bytes;
	int64_t trace_bytes;     /* the in-memory trace: requests and key names */
	/* the tables */
	size_t nrules;
	struct sim_study_rule *rules;
	size_t nnames;
	char (*names)[SIM_STUDY_NAME_MAX];
	struct sim_study_row *rows;
	size_t ntop;             /* heaviest keys, by units requested desc, key bytes asc */
	struct sim_study_key *top;
	/* traffic.csv: bin i holds the units of trace times [bin0_ns + i * bin_ns, + bin_ns) */
	int64_t bin_ns;          /* sim_study_traffic_bin of the trace's first and last times */
	int64_t bin0_ns;         /* the first time's bin's start: a multiple of bin_ns */
	size_t nbins;            /* at most SIM_STUDY_TRAFFIC_BINS */
	int64_t *per_bin;        /* units per bin, every studied key */
	/* meta.csv, the caller's: what the import read (stats.lines 0: not recorded) and --target-keys
	 * (hundredths of a percent) */
	struct sim_import_stats import;
	uint32_t target_keys;
	struct sim_limits limits; /* limits.csv, the caller's (study_limits.h) */
	/* placement.csv, the caller's: the rules whose W/N is finer than the log's tick
	 * (sim_study_coarse) decided again with the other tick placement (spread when this
	 * study's is not, and the other way round), built-in algorithms only; NULL: none */
	struct sim_study *other;
	/*
	 * Read back only (sim_study_read): what the directory's files hold
	 * beyond a computed study's fields. rows, top and limits hold what the
	 * files list (a hand-made or older study may list less: row.absent,
	 * key.listed, limits' windows without rows).
	 */
	uint32_t columns;        /* bit c: study.csv (placement.csv for other) has column c (sim_study_col) */
	size_t ntraffic;         /* traffic.csv's key columns, in its order: */
	size_t *traffic;         /* indices into top (whose per_bin they fill) */
	bool has_limits;         /* the directory has limits.csv (a study before it has not) */
	size_t nmeta;            /* meta.csv's rows as written, in order */
	struct sim_study_meta *meta;
};

/* True when the tick resolution_ns is coarser than W/N of rule r (and above 1 ns). */
bool sim_study_coarse(const struct rl_rule *r, int64_t resolution_ns);

/*
 * out: t with its requests at the other tick placement (t->spread: back to
 * the tick's start; else the m requests of one time T at T + k * res / m,
 * as import.h's spread places them), in time order still. out shares t's
 * keys and costs and owns only out->t_ns. RL_OK or RL_ENOMEM.
 */
int sim_study_other_placement(const struct sim_trace *t, struct sim_trace *out);


/*
 * The traffic series' bin for trace times first..last (ns, first <= last):
 * the first of 1 s, 10 s, 1 min, 10 min, 1 h, 1 day, 10 days and 100 days
 * whose bins aligned to multiples of it (from time 0: whole UTC seconds,
 * minutes, hours and days of a log's times) number at most
 * SIM_STUDY_TRAFFIC_BINS from first's to last's. 100 days always fits a
 * trace's times, [0, 4e18] ns (463 bins): the series' cost is bounded by
 * the requests, never by the span.
 */
int64_t sim_study_traffic_bin(int64_t first_ns, int64_t last_ns);

/* 64-bit FNV-1a of the key's bytes (above). */
uint64_t sim_study_key_hash(const char *key, size_t len);

/*
 * Parses a rule "N/W" or "N/W:bB" (N, B integers; W a duration with its
 * unit, parse.h) into out; the burst defaults to N. False with the reason
 * in msg (naming the part at fault, the text not quoted: "the window W is
 * not a duration ..."). A text with '+' or ":units" is read as a policy by
 * rl_policy_parse, with its words (the text quoted first).
 */
bool sim_study_rule_parse(const char *text, struct sim_study_rule *out, char *msg, size_t msg_len);

/* The item's policy: r->policy, or for count 0 its rule as one ":units" rule. */
struct rl_policy sim_study_rule_policy(const struct sim_study_rule *r);

/*
 * Runs the study of trace t into s (zeroed by it; meta fields other than
 * those taken from the trace and the options are the caller's). Returns
 * RL_OK, or a negative rl_status with a message in msg (RL_ENOMEM, or
 * RL_EINVAL when a decider failed). err receives progress lines unless
 * o->quiet.
 */
int sim_study_run(struct sim_study *s, const struct sim_trace *t, const struct sim_study_opts *o, FILE *err,
		  char *msg, size_t msg_len);

/* Frees what s owns and zeroes it; a zeroed study is valid and empty. */
void sim_study_free(struct sim_study *s);

/*
 * Writes study.csv, clients.csv, traffic.csv, refused.csv, limits.csv,
 * meta.csv and, with s->other, placement.csv (study.csv's columns) into
 * the existing directory dir. 0, or -1 with a message on err.
 */
int sim_study_write(const struct sim_study *s, const char *dir, FILE *err);

/*
 * Reads a study directory's CSV files back (study_read.c): the one reader
 * of a study, for `ratelab study --merge` and the report. Columns are
 * found by their header names; a study of an earlier ratelab or a
 * hand-made one may lack some: study.csv needs its first nine columns in
 * the order above and ns_per_check, bytes_per_key (another absent column
 * reads 0); meta.csv the rows trace, format, requests, keys, span_ns,
 * resolution_ns, spread, cost, traffic_bin_ns (target_keys absent: 0, the
 * caller's default); limits.csv and placement.csv may be absent. Rules and
 * names are in the order study.csv first gives them; the windows those of
 * meta.csv's windows row, then any other of limits.csv's rows. Every
 * number is checked (a count at most 2^63 - 1; a decimal cell at most
 * SIM_STUDY_TEXT_MAX - 1 bytes; at most SIM_STUDY_TRAFFIC_BINS bins), and
 * the files against each other (no more admitted than requested, no more
 * hurt keys than within-rule keys, clients.csv, refused.csv and
 * placement.csv naming only rows of study.csv, a key's requests the same
 * in every row). A row's state_bytes is the whole number nearest its
 * bytes_per_key - heap_bytes / keys (-1 where bytes_per_key is empty).
 * 0; SIM_CSV_BAD (2) for a missing or malformed file, SIM_CSV_FAIL (1)
 * for memory or I/O; either with "DIR/FILE:LINE: reason" (or "cannot
 * open 'PATH': reason") in msg. s is valid (freed) on failure.
 */
int sim_study_read(struct sim_study *s, const char *dir, char *msg, size_t msg_len);

/*
 * 0 when s, read back, is a study as sim_study_write writes it: every row,
 * every column, every key listed in every row with its (other) row, every
 * bucket, traffic.csv's columns the first keys. Else -1 with what is
 * missing in msg (DIR names the directory): what a merge needs.
 */
int sim_study_whole(const struct sim_study *s, const char *dir, char *msg, size_t msg_len);

/*
 * Combines the studies of every shard I/K of one trace, one directory
 * each, into out: what the unsharded study holds, timing and meta aside
 * (study_merge.c). limits.csv: per window, the limits every shard's
 * figures are known at (listed by the shard, or at or above its largest
 * listed limit, where it refuses nothing), summed. 0, or -1 with the
 * reason in msg.
 */

/* --target-keys as written back: "99%", "99.5%", "99.25%". */
void sim_study_target_text(char *buf, size_t len, uint32_t target);
/*
 * A share of keys "P%", P a decimal in (0, 100] with at most two decimals
 * ("99%", "99.5%", "100%"), into hundredths of a percent; false for
 * anything else (a fraction such as 0.99, no '%', more decimals).
 */
bool sim_study_target_parse(const char *text, uint32_t *target);
int sim_study_merge(struct sim_study *out, const char *const *dirs, size_t n, char *msg, size_t msg_len);

#endif
