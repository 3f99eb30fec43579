// report.h - the report generator's inputs, read once: the benchmark JSON,
// the simulator's and the probe's CSV files, the machine description and
// the study notes' qualitative columns. A run the report needs and does not
// find stops the generator (require_inputs: a message naming it, exit 1);
// a figure that was not measured is empty in the CSV files and "-" here.
//
// Statistics: a timed figure is the median of its repetitions with their
// min-max range and coefficient of variation (CV, stddev / mean); a figure
// whose CV exceeds 5% is marked. A simulator figure that depends on the seed
// is the median over the seeds run, with its min-max range. A ranking or a
// target verdict is stated only where the ranges do not overlap.
#ifndef RATELAB_BENCH_REPORT_H
#define RATELAB_BENCH_REPORT_H

#include <cmath>
#include <cstddef>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace report {

// A figure measured several times: the median, the range and the CV of
// the samples (n of them; min = max = median and cv NaN when n < 2).
struct Stat {
	double median = NAN, min = NAN, max = NAN, cv = NAN;
	size_t n = 0;

	static Stat of(std::vector<double> samples); // NaN samples are dropped
	bool measured() const { return n > 0; }
	bool noisy() const { return cv > 0.05; }     // CV above 5%
	// The ranges overlap: neither is strictly below the other.
	bool overlaps(const Stat &o) const { return !(max < o.min || o.max < min); }
};

// One benchmark's result: ns per op over the repetitions (CPU time, or real
// time for the threaded runs) and its user counters (the first repetition's).
struct Run {
	Stat ns;
	std::map<std::string, double> counters;
};

struct Bench {
	std::map<std::string, Run> runs; // by run name, e.g. "hot/gcra/direct/verdict"
	std::map<std::string, std::string> context;
	int repetitions = 1;

	// ns/op of run name (the median), NaN when absent.
	double ns(const std::string &name) const;
	// ns/op of run name with its spread; n = 0 when absent.
	Stat stat(const std::string &name) const;
	// A counter of run name, NaN when absent.
	double counter(const std::string &name, const std::string &key) const;
};

struct Csv {
	std::string path;
	std::vector<std::string> header;
	std::vector<std::vector<std::string>> rows;

	bool empty() const { return rows.empty(); }
	// Index of column name; -1 when absent.
	int col(const std::string &name) const;
	const std::string &at(size_t row, const std::string &name) const;
	double num(size_t row, const std::string &name) const;
};

struct Algo {
	std::string name;
	size_t state_size;
};

// An external limiter measured by its own driver (results/bench/peers.json),
// simulated as the summary's rows named "peer_<name>".
struct Peer {
	std::string name, nearest, note;
	Stat hot_ns, keys_1k_ns, keys_1m_ns;
	double bytes_per_key = NAN;
};

struct Inputs {
	std::string results;                       // the results/ directory
	std::vector<Algo> algos;                   // rl_algo_all order, then the summary's other rows (peers)
	Bench bench;                               // results/bench/bench.json
	Csv summary, breaker, bytes_limit, quals;  // sim summary, sim breaker, probe, notes
	Csv diverged;                              // sim: against an independent sliding_log
	std::map<std::string, Peer> peers;         // by summary row name (peer_<name>)
	bool peers_run = false;                    // results/bench/peers.json exists
	std::vector<std::pair<std::string, std::string>> env; // results/bench/env.txt
	std::string mode;                          // "full" or "quick"
	std::string series_dir;                    // results/sim/series
};

// The columns summary.csv must have (others may follow).
extern const std::vector<std::string> kSummaryColumns;

Bench load_bench(const std::string &path);
// results/bench/peers.json (the contract's format); absent file: not run.
std::map<std::string, Peer> load_peers(const std::string &path, bool *found);
// Reads a CSV file; a header lacking a column of want is an error (message
// on stderr, exit 1; more columns are fine). A missing file gives an empty Csv.
Csv load_csv(const std::string &path, const std::vector<std::string> &want = {});
std::vector<std::pair<std::string, std::string>> load_env(const std::string &path);

// Stops the generator (exit 1, a message naming each) when a run the report
// needs is missing: the benchmarks, the simulator's summary, the boundary,
// load sweep, population and breaker scenarios, every algorithm's hot and
// 1M-key store runs. Optional parts (peers, the 10M-key runs of a quick
// run) are reported as not run instead.
void require_inputs(const Inputs &in);

// The simulator's seeds in the summary, ascending.
std::vector<long long> seeds(const Inputs &in);

// Per seed, sum(column num) / sum(column den) over the rows of algo whose
// scenario passes keep (all when keep is empty), times scale; its Stat over
// the seeds. Rows where either column is empty are skipped; a seed with no
// such row gives no sample.
Stat over_seeds(const Inputs &in, const std::string &algo, const std::string &num, const std::string &den,
		double scale, const std::function<bool(const std::string &)> &keep = {});
// Per seed, the largest value of column col over algo's rows (kept as above).
Stat max_over_seeds(const Inputs &in, const std::string &algo, const std::string &col,
		    const std::function<bool(const std::string &)> &keep = {});
// Per seed, the value of column col in the row (scenario, algo).
Stat cell_over_seeds(const Inputs &in, const std::string &scenario, const std::string &algo, const std::string &col);
// Per seed, the polite clients' mean wait (ms) of algo minus sliding_log's
// in the same scenario, served-weighted over the scenarios with polite clients.
Stat extra_wait_over_seeds(const Inputs &in, const std::string &algo);

// The per-algorithm figures of the tradeoff table (simulator figures over
// the seeds; timed figures over the repetitions).
struct Figures {
	std::string algo;
	bool peer = false;
	double state_bytes = NAN;
	Stat over_n_pct;       // admissions that left more than N in (t - W, t], % of requests
	Stat worst_ratio;      // the largest count in any window of length W over N, worst scenario
	Stat rate_at_top;      // long-run admitted rate / N at the load sweep's highest load
	Stat beyond_bound_pct; // admissions past the algorithm's own bound, % (must be 0)
	Stat false_reject_pct; // rejected while under N in (t - W, t], % of requests
	Stat extra_wait_ms;    // polite clients' mean wait minus sliding_log's, ms
	Stat diverged_pct;     // decided unlike an independent sliding_log, % of requests
	double allin_1m = NAN, malloc_1m = NAN; // store bytes per key at 1M keys
	Stat ns_hot, ns_1m;    // hot key (direct, verdict); store at 1M uniform keys
};
std::vector<Figures> figures(const Inputs &in);

// Scenario choices for the charts, from the summary's names: the boundary
// attack, the sweep of offered load (NAME_050, NAME_100, ...: load in % of N)
// and the breaker's bursty run (a series/breaker_<scenario>.csv file).
std::string boundary_scenario(const Inputs &in);
std::string population_scenario(const Inputs &in); // "population", "" when absent
std::vector<std::pair<int, std::string>> load_sweep(const Inputs &in);
std::string breaker_scenario(const Inputs &in);

// Key counts of the store benchmarks present, ascending.
std::vector<size_t> key_counts(const Inputs &in);

// Writes the chart data (results/plots/data); full_report() writes the
// sentence under each chart.
void write_chart_data(const Inputs &in, const std::string &dir);

// Markdown: the tradeoff table alone (README) and the whole report.
std::string tradeoff_table(const Inputs &in);
std::string full_report(const Inputs &in);
// The performance-tracking section (report_perf.cc); also writes plots/data/history.dat
// and history_vars.gp (the chart's column count).
void perf_section(std::ostringstream &o, const Inputs &in);
// The Redis backend's section (report_redis.cc): "not run" without results/bench/redis.json.
void redis_section(std::ostringstream &o, const Inputs &in);
// The importer's speed (report_import.cc): "not run" without results/bench/import.json.
void import_section(std::ostringstream &o, const Inputs &in);

// The local-plus-global section (report_fleet.cc): reads sim/fleet.csv,
// writes plots/data/fleet.dat; exits 1 when the file is missing.
std::string fleet_section(const Inputs &in);
// "The answer"'s row for a fleet: the largest sync interval keeping random
// routing's error under 1 % at k = 4, with its round trips.
std::string fleet_answer(const Inputs &in);

// The simulator against queueing theory (report_theory.cc): reads
// sim/theory/seed_S/{summary.csv,series/}, writes plots/data/theory_*.dat;
// exits 1, naming each, when a point is more than SIM_THEORY_MAX_GAP
// standard errors off its closed form, or when the runs are missing.
std::string theory_section(const Inputs &in);
// "Study at scale" (report_study.cc): reads bench/study_scale.csv
// (bench/study/run.sh); "not run" without it.
std::string study_scale_section(const Inputs &in);

// The peers (report_peers.cc): their section of the report (ns/op and bytes
// per key against the nearest algorithm, accuracy on the same runs, nginx's
// agreement with leaky_bucket; "not run (PEERS=0)" without peers.json) and
// their chart data (peers.dat; peers_run in vars.gp).
std::string peers_section(const Inputs &in);
void write_peer_chart_data(const Inputs &in, const std::string &dir);

// Number formatting: "-" for NaN (not measured).
std::string fmt(double v, int decimals);
// "median [min-max]" (the range only when it is one), with " (CV x%)" marked
// when the CV exceeds 5%; "-" when not measured.
std::string fmt(const Stat &s, int decimals);
// A verdict on "figure <= limit" from its range: met, **missed**, or within
// noise when the range straddles the limit; "not measured".
std::string verdict(const Stat &s, double limit);

} // namespace report

#endif
