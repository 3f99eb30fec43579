// report.h - the report generator's inputs, read once: the benchmark JSON,
// the simulator's and the probe's CSV files, the machine description and
// the study notes' qualitative columns. Missing inputs are empty, and every
// figure drawn from them then reads "n/a".
#ifndef RATELAB_BENCH_REPORT_H
#define RATELAB_BENCH_REPORT_H

#include <cstddef>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace report {

// One benchmark's result: ns per op (the median of the repetitions when
// there are several; CPU time, or real time for the threaded runs) and its
// user counters.
struct Run {
	double ns = 0;
	std::map<std::string, double> counters;
};

struct Bench {
	std::map<std::string, Run> runs; // by run name, e.g. "hot/gcra/direct/verdict"
	std::map<std::string, std::string> context;
	int repetitions = 1;

	// ns/op of run name, NaN when absent.
	double ns(const std::string &name) const;
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

struct Inputs {
	std::string results;                       // the results/ directory
	std::vector<Algo> algos;                   // rl_algo_all order
	Bench bench;                               // results/bench/bench.json
	Csv summary, breaker, bytes_limit, quals;  // sim summary, sim breaker, probe, notes
	std::vector<std::pair<std::string, std::string>> env; // results/bench/env.txt
	std::string mode;                          // "full" or "quick"
	std::string series_dir;                    // results/sim/series
};

// The columns summary.csv must have, in this order.
extern const std::vector<std::string> kSummaryColumns;

Bench load_bench(const std::string &path);
// Reads a CSV file; with want non-empty, a header other than want is an
// error (message on stderr, exit 1). A missing file gives an empty Csv.
Csv load_csv(const std::string &path, const std::vector<std::string> &want = {});
std::vector<std::pair<std::string, std::string>> load_env(const std::string &path);

// The per-algorithm figures of the tradeoff table.
struct Figures {
	std::string algo;
	size_t state_bytes = 0;
	double false_allow_pct = 0, false_reject_pct = 0, worst_ratio = 0; // simulator, all scenarios
	double allin_1m = 0, malloc_1m = 0;  // store bytes per key at 1M keys
	double ns_hot = 0, ns_1m = 0;        // hot key (direct, verdict); store at 1M uniform keys
};
std::vector<Figures> figures(const Inputs &in);

// Scenario choices for the charts, from the summary's names: the boundary
// attack, the sweep of offered load (NAME_050, NAME_100, ...: load in % of N)
// and the breaker's bursty run (a series/breaker_<scenario>.csv file).
std::string boundary_scenario(const Inputs &in);
std::vector<std::pair<int, std::string>> load_sweep(const Inputs &in);
std::string breaker_scenario(const Inputs &in);

// Key counts of the store benchmarks present, ascending.
std::vector<size_t> key_counts(const Inputs &in);

// Writes the chart data (results/plots/data) and returns nothing; the
// sentences describing each chart come from chart_notes().
void write_chart_data(const Inputs &in, const std::string &dir);

// Markdown: the tradeoff table alone (README) and the whole report.
std::string tradeoff_table(const Inputs &in);
std::string full_report(const Inputs &in);
// The Redis backend's section (report_redis.cc): "not run" without results/bench/redis.json.
void redis_section(std::ostringstream &o, const Inputs &in);

// Number formatting: "n/a" for NaN.
std::string fmt(double v, int decimals);

} // namespace report

#endif
