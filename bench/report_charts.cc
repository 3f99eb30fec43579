// report_charts.cc - the data files the gnuplot scripts (plots/*.gp) read,
// written into results/plots/data:
//   vars.gp        gnuplot variables: the algorithms, the scenarios chosen,
//                  the rule of the boundary scenario, the time-series folder
//   tradeoff.dat   per algorithm a block: ns/op hot, error % (false allow +
//                  false reject), bytes per key (all-in at 1M keys, else
//                  the state's size); the legend title heads each block
//   keys.dat       keys, ns/op per algorithm (uniform), median memory floor
//                  (dependent, independent) over the algorithms' store sizes
//   sc_error.dat   offered load %, sliding_counter false allow/reject/total %
//   breaker.dat    t (s), state (0 CLOSED, 1 HALF_OPEN, 2 OPEN)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "report.h"

namespace report {
namespace {

std::ofstream open_out(const std::string &path)
{
	std::ofstream f(path);
	if (!f) {
		std::fprintf(stderr, "report: cannot write %s\n", path.c_str());
		std::exit(1);
	}
	return f;
}

double median(std::vector<double> v)
{
	v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return std::isnan(x); }), v.end());
	if (v.empty())
		return NAN;
	std::sort(v.begin(), v.end());
	size_t n = v.size();
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// gnuplot reads "NaN" as a missing point.
std::string num(double v)
{
	if (std::isnan(v))
		return "NaN";
	char buf[64];
	std::snprintf(buf, sizeof buf, "%.6g", v);
	return buf;
}

int state_code(const std::string &s)
{
	if (s == "CLOSED" || s == "0")
		return 0;
	if (s == "HALF_OPEN" || s == "1")
		return 1;
	return 2;
}

} // namespace

void write_chart_data(const Inputs &in, const std::string &dir)
{
	std::vector<Figures> figs = figures(in);

	// One block per algorithm, its legend title in the block's header line.
	std::ofstream t = open_out(dir + "/tradeoff.dat");
	for (const Figures &f : figs) {
		double bytes = std::isnan(f.allin_1m) ? static_cast<double>(f.state_bytes) : f.allin_1m;
		char title[96];
		std::snprintf(title, sizeof title, "\"%s, %.0f B/key\" ns_hot error_pct bytes_per_key", f.algo.c_str(), bytes);
		t << title << '\n' << num(f.ns_hot) << ' ' << num(f.false_allow_pct + f.false_reject_pct) << ' '
		  << num(bytes) << "\n\n\n";
	}

	std::ofstream k = open_out(dir + "/keys.dat");
	k << "keys";
	for (const Algo &a : in.algos)
		k << ' ' << a.name;
	k << " floor_dependent floor_independent\n";
	for (size_t n : key_counts(in)) {
		k << n;
		std::vector<double> dep, indep;
		for (const Algo &a : in.algos) {
			std::string base = a.name + "/" + std::to_string(n);
			k << ' ' << num(in.bench.ns("store/" + base + "/uniform"));
			dep.push_back(in.bench.ns("floor/" + base + "/dependent"));
			indep.push_back(in.bench.ns("floor/" + base + "/independent"));
		}
		k << ' ' << num(median(dep)) << ' ' << num(median(indep)) << '\n';
	}

	auto sweep = load_sweep(in);
	double sweep_limit = NAN;
	std::ofstream sc = open_out(dir + "/sc_error.dat");
	sc << "load_pct false_allow_pct false_reject_pct total_pct\n";
	for (auto &[load, name] : sweep)
		for (size_t i = 0; i < in.summary.rows.size(); i++)
			if (in.summary.at(i, "scenario") == name && in.summary.at(i, "algo") == "sliding_counter") {
				sweep_limit = in.summary.num(i, "limit");
				double fa = in.summary.num(i, "false_allow_pct"), fr = in.summary.num(i, "false_reject_pct");
				sc << load << ' ' << num(fa) << ' ' << num(fr) << ' ' << num(fa + fr) << '\n';
			}

	std::ofstream b = open_out(dir + "/breaker.dat");
	b << "t_s state\n";
	std::string bs = breaker_scenario(in);
	if (!bs.empty()) {
		Csv series = load_csv(in.series_dir + "/breaker_" + bs + ".csv");
		for (size_t i = 0; i < series.rows.size(); i++)
			b << num(series.num(i, "t_ns") / 1e9) << ' ' << state_code(series.at(i, "state")) << '\n';
	}

	std::string bnd = boundary_scenario(in);
	double limit = NAN, window_ns = NAN, bucket_ns = NAN;
	for (size_t i = 0; i < in.summary.rows.size(); i++)
		if (in.summary.at(i, "scenario") == bnd) {
			limit = in.summary.num(i, "limit");
			window_ns = in.summary.num(i, "window_ns");
			Csv s = load_csv(in.series_dir + "/" + bnd + "__" + in.summary.at(i, "algo") + ".csv");
			if (s.rows.size() >= 2)
				bucket_ns = s.num(1, "t_ns") - s.num(0, "t_ns");
			break;
		}
	std::ofstream v = open_out(dir + "/vars.gp");
	v << "algos = \"";
	for (size_t i = 0; i < in.algos.size(); i++)
		v << (i ? " " : "") << in.algos[i].name;
	v << "\"\nseries = \"" << in.series_dir << "\"\n"
	  << "boundary = \"" << bnd << "\"\n"
	  << "boundary_limit = " << num(limit) << "\n"
	  << "boundary_window_s = " << num(window_ns / 1e9) << "\n"
	  << "boundary_bucket_s = " << num(bucket_ns / 1e9) << "\n"
	  << "breaker_scenario = \"" << bs << "\"\n"
	  << "bytes_limit = \"" << in.bytes_limit.path << "\"\n"
	  << "sweep = \"" << (sweep.empty() ? "" : sweep.front().second) << "\"\n"
	  << "sweep_limit = " << num(sweep_limit) << "\n";
	v.close();
	write_peer_chart_data(in, dir);
}

} // namespace report
