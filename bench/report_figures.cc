// report_figures.cc - the numbers the report derives from its inputs.
//
// Simulator aggregation: per algorithm and seed, over every scenario of the
// default set, over-N % = 100 * sum(false_allows) / sum(requests) (likewise
// false rejects, beyond-bound admissions, divergence), i.e. request-weighted;
// worst burst = max(max_window_ratio); then the median and range over the
// seeds (report_stats.cc).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <regex>
#include <sys/stat.h>

#include "bench_names.h"
#include "report.h"

namespace report {

namespace names = rlbench::names;

std::vector<Figures> figures(const Inputs &in)
{
	std::vector<Figures> out;
	auto sweep = load_sweep(in);
	std::string top = sweep.empty() ? "" : sweep.back().second;
	for (const Algo &a : in.algos) {
		Figures f;
		f.algo = a.name;
		auto peer = in.peers.find(a.name);
		f.peer = a.name.rfind("peer_", 0) == 0;
		f.state_bytes = a.state_size ? static_cast<double>(a.state_size) : NAN;
		f.over_n_pct = over_seeds(in, a.name, "false_allows", "requests", 100);
		f.false_reject_pct = over_seeds(in, a.name, "false_rejects", "requests", 100);
		f.beyond_bound_pct = over_seeds(in, a.name, "beyond_bound", "admitted", 100);
		f.worst_ratio = max_over_seeds(in, a.name, "max_window_ratio");
		f.extra_wait_ms = extra_wait_over_seeds(in, a.name);
		if (!top.empty())
			f.rate_at_top = cell_over_seeds(in, top, a.name, "long_run_rate_ratio");
		{
			// the divergence file has its own rows: per seed over the default set
			std::map<std::string, std::pair<double, double>> by_seed;
			const Csv &d = in.diverged;
			for (size_t i = 0; i < d.rows.size(); i++)
				if (d.at(i, "algo") == a.name) {
					auto &acc = by_seed[d.at(i, "seed")];
					acc.first += d.num(i, "diverged_allows") + d.num(i, "diverged_rejects");
					acc.second += d.num(i, "requests");
				}
			std::vector<double> v;
			for (auto &[seed, acc] : by_seed)
				v.push_back(acc.second > 0 ? 100 * acc.first / acc.second : NAN);
			f.diverged_pct = Stat::of(v);
		}
		if (f.peer) {
			if (peer != in.peers.end()) {
				f.ns_hot = peer->second.hot_ns;
				f.ns_1m = peer->second.keys_1m_ns;
				f.allin_1m = peer->second.bytes_per_key;
			}
		} else {
			std::string keyed = names::store(a.name, names::kKeysTable, "uniform");
			f.allin_1m = in.bench.counter(keyed, "store_bytes_per_key");
			f.malloc_1m = in.bench.counter(keyed, "malloc_bytes_per_key");
			f.ns_hot = in.bench.stat(names::hot(a.name, true, false));
			f.ns_1m = in.bench.stat(keyed);
		}
		out.push_back(f);
	}
	return out;
}

namespace {

std::vector<std::string> scenarios(const Inputs &in)
{
	std::vector<std::string> names;
	for (size_t i = 0; i < in.summary.rows.size(); i++) {
		const std::string &n = in.summary.at(i, "scenario");
		if (std::find(names.begin(), names.end(), n) == names.end())
			names.push_back(n);
	}
	return names;
}

bool exists(const std::string &path)
{
	struct stat st;
	return stat(path.c_str(), &st) == 0;
}

} // namespace

std::string population_scenario(const Inputs &in)
{
	for (const std::string &n : scenarios(in))
		if (n == "population")
			return n;
	return "";
}

void require_inputs(const Inputs &in)
{
	std::vector<std::string> missing;
	auto need = [&](bool ok, const std::string &what) {
		if (!ok)
			missing.push_back(what);
	};
	need(!in.bench.runs.empty(), in.results + "/bench/bench.json (the benchmarks)");
	need(!in.summary.empty(), in.results + "/sim/summary.csv (the simulator)");
	need(!in.diverged.empty(), in.results + "/sim/diverged.csv (the simulator)");
	need(!in.breaker.empty(), in.results + "/sim/breaker.csv (the simulator)");
	need(!in.bytes_limit.empty(), in.results + "/bench/bytes_vs_limit.csv (the bytes-per-limit probe)");
	need(!in.quals.empty(), "the qualitative notes (bench/qualitative.csv)");
	need(!in.env.empty(), in.results + "/bench/env.txt (the machine)");
	if (!in.summary.empty()) {
		need(!boundary_scenario(in).empty(), "a boundary scenario in the simulator's summary");
		need(load_sweep(in).size() >= 3, "a load sweep (NAME_050 ... , 3 loads or more) in the simulator's summary");
		need(!population_scenario(in).empty(), "the population scenario (sim/scenarios/population.ini) in the summary");
		need(!breaker_scenario(in).empty(), "a breaker run with its series/breaker_<scenario>.csv");
	}
	if (!in.bench.runs.empty())
		for (const Algo &a : in.algos) {
			if (a.name.rfind("peer_", 0) == 0)
				continue;
			for (const std::string &run : {names::hot(a.name, true, false),
						       names::store(a.name, names::kKeysTable, "uniform"),
						       names::floor(a.name, names::kKeysTable, true)})
				need(in.bench.stat(run).measured(), "benchmark " + run);
		}
	if (missing.empty())
		return;
	for (const std::string &m : missing)
		std::fprintf(stderr, "report: missing: %s\n", m.c_str());
	std::fprintf(stderr, "report: %zu input(s) missing; run make bench (or the step that writes them)\n",
		     missing.size());
	std::exit(1);
}

std::string boundary_scenario(const Inputs &in)
{
	for (const std::string &n : scenarios(in))
		if (n.find("boundary") != std::string::npos)
			return n;
	return "";
}

std::vector<std::pair<int, std::string>> load_sweep(const Inputs &in)
{
	static const std::regex swept("(.+)_([0-9]{3})");
	std::map<std::string, std::vector<std::pair<int, std::string>>> groups;
	for (const std::string &n : scenarios(in)) {
		std::smatch m;
		if (std::regex_match(n, m, swept))
			groups[m[1]].emplace_back(std::stoi(m[2]), n);
	}
	// The longest sweep (the finest view of the load), Poisson on a tie (the
	// published sliding_counter figure is on Poisson traffic).
	const std::vector<std::pair<int, std::string>> *best = nullptr;
	bool best_poisson = false;
	for (auto &[prefix, members] : groups) {
		bool poisson = prefix.find("poisson") != std::string::npos;
		if (!best || members.size() > best->size() ||
		    (members.size() == best->size() && poisson && !best_poisson)) {
			best = &members;
			best_poisson = poisson;
		}
	}
	if (!best)
		return {};
	auto sorted = *best;
	std::sort(sorted.begin(), sorted.end());
	return sorted;
}

std::string breaker_scenario(const Inputs &in)
{
	// The bursty (on/off) run that opened the breaker most; else any run
	// that opened it most.
	std::string best;
	double best_openings = -1;
	bool best_bursty = false;
	for (size_t i = 0; i < in.breaker.rows.size(); i++) {
		const std::string &n = in.breaker.at(i, "scenario");
		if (!exists(in.series_dir + "/breaker_" + n + ".csv"))
			continue;
		bool bursty = n.find("onoff") != std::string::npos || n.find("burst") != std::string::npos;
		double openings = in.breaker.num(i, "openings");
		if ((bursty && !best_bursty) || (bursty == best_bursty && openings > best_openings)) {
			best = n;
			best_openings = openings;
			best_bursty = bursty;
		}
	}
	return best;
}

std::vector<size_t> key_counts(const Inputs &in)
{
	std::vector<size_t> counts;
	for (size_t n : names::kStoreKeys)
		for (const Algo &a : in.algos)
			if (in.bench.runs.count(names::store(a.name, n, "uniform"))) {
				counts.push_back(n);
				break;
			}
	return counts;
}

} // namespace report
