// report_perf.cc - the report's performance-tracking section: the gate's
// exact per-operation figures (results/bench/perf.json, written by
// bench/perf/run.sh in `make bench`) beside the benchmarks' ns/op, and the
// chart data of estimated cycles per entry across the commits of
// results/baseline/history.csv (plots/history.gp).
//
// A missing perf.json stops the report (exit 1): make bench always writes it.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "report.h"

namespace report {

namespace {

struct PerfEntry {
	std::string name, what, bench;
	double ir = 0, est = 0, d1 = 0, ll = 0, bmiss = 0;
};

[[noreturn]] void die(const std::string &msg)
{
	std::fprintf(stderr, "report: %s\n", msg.c_str());
	std::exit(1);
}

// history.dat: one row per commit of the history (first-seen order), one
// column of estimated cycles per entry measured now (NaN where absent).
void write_history(const std::string &results, const std::vector<PerfEntry> &now)
{
	std::ifstream f(results + "/baseline/history.csv");
	if (!f)
		die("cannot read " + results + "/baseline/history.csv (the perf history)");
	std::string line;
	std::getline(f, line);
	if (line.rfind("commit,date,entry,ir,est_cycles", 0) != 0)
		die(results + "/baseline/history.csv: unexpected header: " + line);
	std::vector<std::string> commits;
	std::map<std::pair<std::string, std::string>, std::string> est;
	while (std::getline(f, line)) {
		std::vector<std::string> cells;
		std::stringstream s(line);
		for (std::string c; std::getline(s, c, ',');)
			cells.push_back(c);
		if (cells.size() < 5)
			die(results + "/baseline/history.csv: short row: " + line);
		if (std::find(commits.begin(), commits.end(), cells[0]) == commits.end())
			commits.push_back(cells[0]);
		est[{cells[0], cells[2]}] = cells[4];
	}
	std::ofstream out(results + "/plots/data/history.dat");
	out << "commit";
	for (const auto &e : now)
		out << ' ' << e.name;
	out << '\n';
	for (const auto &c : commits) {
		out << c;
		for (const auto &e : now) {
			auto it = est.find({c, e.name});
			out << ' ' << (it == est.end() ? "NaN" : it->second);
		}
		out << '\n';
	}
	std::ofstream vars(results + "/plots/data/history_vars.gp");
	vars << "history_cols = " << now.size() + 1 << "\n";
	if (!out || !vars)
		die("cannot write " + results + "/plots/data/history.dat");
}

} // namespace

void perf_section(std::ostringstream &o, const Inputs &in)
{
	std::string path = in.results + "/bench/perf.json";
	std::ifstream f(path);
	if (!f)
		die("missing " + path + " (bench/perf/run.sh, a step of make bench, writes it)");
	nlohmann::json j;
	try {
		f >> j;
	} catch (const std::exception &ex) {
		die(path + ": " + ex.what());
	}
	std::vector<PerfEntry> entries;
	try {
		for (const auto &e : j.at("entries")) {
			PerfEntry p;
			p.name = e.at("name").get<std::string>();
			p.what = e.at("what").get<std::string>();
			p.bench = e.at("bench").is_null() ? "" : e.at("bench").get<std::string>();
			p.ir = e.at("ir").get<double>();
			p.est = e.at("est_cycles").get<double>();
			p.d1 = e.at("d1_miss").get<double>();
			p.ll = e.at("ll_miss").get<double>();
			p.bmiss = e.at("bmiss").get<double>();
			entries.push_back(p);
		}
	} catch (const std::exception &ex) {
		die(path + ": " + ex.what());
	}
	if (entries.empty())
		die(path + ": no entries");
	write_history(in.results, entries);

	double mhz = NAN;
	auto ctx = in.bench.context.find("mhz_per_cpu");
	if (ctx != in.bench.context.end())
		mhz = std::atof(ctx->second.c_str());

	o << "## Performance tracking: exact counts per operation\n\n"
	     "Each entry runs a fixed, seeded workload in its own process under callgrind ("
	  << j.value("valgrind", std::string("valgrind")) << ", `" << j.value("callgrind_options", std::string())
	  << "`; the simulated caches are fixed, not read from the host) and is divided by its operations; "
	     "set-up and a warm-up are not counted (the two `ratelab` entries are the difference between a long and "
	     "a short run, divided by the difference in work, so a figure near 0 can come out slightly below it). The same binary gives the same figures to the instruction "
	     "on every run (`make perf-check` gates on them, README \"Performance tracking\"). "
	     "*Estimated cycles* = L1 hits + 5 x LL hits + 35 x RAM hits, over instruction fetches and data "
	     "accesses (the model of iai-callgrind); *mispredicts* = conditional + indirect branch "
	     "mispredictions of callgrind's simple predictor. Measured at "
	  << j.value("commit", std::string("?")) << " with " << j.value("compiler", std::string("?"))
	  << "; ns/op is the same run's Google Benchmark median (\"-\": no benchmark of that work).\n\n";
	o << "| entry | what | instructions | est. cycles | L1d misses | LL misses | mispredicts | ns/op | cycles/op at "
	  << (std::isnan(mhz) ? std::string("-") : fmt(mhz, 0)) << " MHz | measured / estimated cycles |\n"
	  << "|---|---|---|---|---|---|---|---|---|---|\n";
	std::vector<std::pair<double, std::string>> ratios;
	for (const auto &e : entries) {
		double ns = e.bench.empty() ? NAN : in.bench.ns(e.bench);
		double cycles = ns * mhz / 1000.0;
		double ratio = cycles / e.est;
		auto cell = [](double v, int d) { return std::isnan(v) ? std::string("-") : fmt(v, d); };
		o << "| " << e.name << " | " << e.what << " | " << fmt(e.ir, 1) << " | " << fmt(e.est, 1) << " | "
		  << fmt(e.d1, 3) << " | " << fmt(e.ll, 3) << " | " << fmt(e.bmiss, 3) << " | " << cell(ns, 2) << " | "
		  << cell(cycles, 1) << " | " << cell(ratio, 2) << " |\n";
		if (!std::isnan(ratio))
			ratios.push_back({ratio, e.name});
	}
	o << "\n";
	if (!ratios.empty()) {
		std::sort(ratios.begin(), ratios.end());
		const auto &lo = ratios.front(), &hi = ratios.back(), &mid = ratios[ratios.size() / 2];
		o << "How they relate on this machine: the measured cycles per operation (ns/op x clock) are "
		  << fmt(mid.first, 2) << " times the estimate at the median over the " << ratios.size()
		  << " entries with a benchmark, from " << fmt(lo.first, 2) << " (" << lo.second << ") to "
		  << fmt(hi.first, 2) << " (" << hi.second
		  << "). The estimate charges at least a cycle for every instruction fetch and data access; below 1, "
		     "the core overlaps several of them per cycle (the hot checks, which also carry the driver's loop: "
		     "see harness/empty); towards and above 1, time goes where the model is blind: the latency of the misses "
		     "a deep out-of-order core cannot hide, atomics and locks, mispredictions, or the virtual "
		     "machine's memory. The counts say *whether* a change added work or misses; ns/op says what the "
		     "work costs here.\n\n";
	} else {
		o << "How they relate on this machine: no entry has a benchmark run in results/bench/bench.json.\n\n";
	}
	// The thresholds in force when the figures were taken (perf.py measure writes them).
	if (j.contains("thresholds")) {
		o << "The gate's thresholds in force (`bench/perf/thresholds.csv`; growth over the base that fails an entry, "
		     "the last matching line winning; \"-\": shown, never gating):\n\n"
		     "| entries | figure | threshold | reason |\n|---|---|---|---|\n";
		try {
			for (const auto &t : j.at("thresholds"))
				o << "| `" << t.at("entry").get<std::string>() << "` | " << t.at("figure").get<std::string>()
				  << " | " << (t.at("threshold").is_null() ? std::string("-")
									   : "+" + fmt(t.at("threshold").get<double>(), 1) + "%")
				  << " | " << t.at("reason").get<std::string>() << " |\n";
		} catch (const std::exception &ex) {
			die(path + ": thresholds: " + ex.what());
		}
		o << "\n";
	}
	o << "![estimated cycles per entry across commits](plots/history.png)\n\n"
	     "Estimated cycles per operation per entry at each baseline refresh (results/baseline/history.csv, "
	     "one row per entry per `make perf-baseline`), log scale.\n\n";
}

} // namespace report
