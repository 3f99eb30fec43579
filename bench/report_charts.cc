// report_charts.cc - the data files the gnuplot scripts (plots/*.gp) read,
// written into results/plots/data:
//   vars.gp        gnuplot variables: the algorithms, the scenarios chosen,
//                  the rule of the boundary scenario, the time-series folder
//   tradeoff.dat   one line per algorithm: name, ns/op hot (median, min,
//                  max over the repetitions), over-N admissions % and false
//                  rejects % (median, min, max over the seeds), bytes per
//                  key (all-in at 1M keys, else the state's size)
//   load_sweep.dat per algorithm the sweep measured a block (its name heads
//                  it; vars.gp lists them as sweep_algos): offered load %,
//                  over-N % and false reject % (median, min, max over seeds)
//   keys.dat       keys, ns/op per algorithm (uniform, median; a peer's own
//                  keyed map at 1K and 1M keys only), median memory floor
//                  (dependent, independent) over the algorithms' stores
//   sc_error.dat   offered load %, sliding_counter false allow/reject/total %
//                  (medians over the seeds); vars.gp: the population's total
//   breaker.dat    t (s), state (0 CLOSED, 1 HALF_OPEN, 2 OPEN)
//   offered.dat    t (s), requests per second offered in each time bucket
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "bench_names.h"
#include "report.h"

namespace report {

namespace names = rlbench::names;
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

	std::ofstream t = open_out(dir + "/tradeoff.dat");
	std::string placed; // the algorithms in tradeoff.dat, in its order
	t << "algo ns ns_min ns_max over over_min over_max rej rej_min rej_max bytes\n";
	for (const Figures &f : figs) {
		if (!f.ns_hot.measured())
			continue; // no timing: no point to place
		placed += (placed.empty() ? "" : " ") + f.algo;
		double bytes = std::isnan(f.allin_1m) ? f.state_bytes : f.allin_1m;
		t << f.algo << ' ' << num(f.ns_hot.median) << ' ' << num(f.ns_hot.min) << ' ' << num(f.ns_hot.max) << ' '
		  << num(f.over_n_pct.median) << ' ' << num(f.over_n_pct.min) << ' ' << num(f.over_n_pct.max) << ' '
		  << num(f.false_reject_pct.median) << ' ' << num(f.false_reject_pct.min) << ' '
		  << num(f.false_reject_pct.max) << ' ' << num(bytes) << '\n';
	}

	// One block per algorithm the sweep measured (a quick run runs a peer on one scenario only).
	std::ofstream ls = open_out(dir + "/load_sweep.dat");
	std::string swept;
	for (const Figures &f : figs) {
		std::ostringstream block;
		bool any = false;
		for (auto &[load, name] : load_sweep(in)) {
			Stat o = cell_over_seeds(in, name, f.algo, "false_allow_pct");
			Stat r = cell_over_seeds(in, name, f.algo, "false_reject_pct");
			any = any || o.measured() || r.measured();
			block << load << ' ' << num(o.median) << ' ' << num(o.min) << ' ' << num(o.max) << ' '
			      << num(r.median) << ' ' << num(r.min) << ' ' << num(r.max) << '\n';
		}
		if (!any)
			continue;
		swept += (swept.empty() ? "" : " ") + f.algo;
		ls << "\"" << f.algo << "\" over over_min over_max rej rej_min rej_max\n" << block.str() << "\n\n";
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
			auto peer = in.peers.find(a.name);
			double ns = peer == in.peers.end() ? in.bench.ns(names::store(a.name, n, "uniform"))
				    : n == 1000		  ? peer->second.keys_1k_ns.median
				    : n == 1000000	  ? peer->second.keys_1m_ns.median
							  : NAN;
			k << ' ' << num(ns);
			dep.push_back(in.bench.ns(names::floor(a.name, n, true)));
			indep.push_back(in.bench.ns(names::floor(a.name, n, false)));
		}
		k << ' ' << num(median(dep)) << ' ' << num(median(indep)) << '\n';
	}

	auto sweep = load_sweep(in);
	double sweep_limit = NAN;
	std::ofstream sc = open_out(dir + "/sc_error.dat");
	sc << "load_pct false_allow_pct false_reject_pct total_pct\n";
	for (auto &[load, name] : sweep) {
		Stat fa = cell_over_seeds(in, name, "sliding_counter", "false_allow_pct");
		Stat fr = cell_over_seeds(in, name, "sliding_counter", "false_reject_pct");
		sweep_limit = cell_over_seeds(in, name, "sliding_counter", "limit").median;
		sc << load << ' ' << num(fa.median) << ' ' << num(fr.median) << ' ' << num(fa.median + fr.median) << '\n';
	}
	std::string pop = population_scenario(in);
	double pop_total = cell_over_seeds(in, pop, "sliding_counter", "false_allow_pct").median +
			   cell_over_seeds(in, pop, "sliding_counter", "false_reject_pct").median;

	std::ofstream b = open_out(dir + "/breaker.dat");
	b << "t_s state\n";
	std::string bs = breaker_scenario(in);
	Csv series = load_csv(in.series_dir + "/breaker_" + bs + ".csv");
	for (size_t i = 0; i < series.rows.size(); i++)
		b << num(series.num(i, "t_ns") / 1e9) << ' ' << state_code(series.at(i, "state")) << '\n';
	// What was offered to the breaker: the same scenario's requests per bucket (admitted + rejected)
	// under sliding_log, the same arrivals the breaker saw for sources that do not retry.
	std::ofstream of = open_out(dir + "/offered.dat");
	of << "t_s per_s\n";
	Csv offered = load_csv(in.series_dir + "/" + bs + "__sliding_log.csv");
	if (offered.rows.size() < 2) {
		std::fprintf(stderr, "report: missing: %s/%s__sliding_log.csv (the breaker chart's offered traffic)\n",
			     in.series_dir.c_str(), bs.c_str());
		std::exit(1);
	}
	double bucket_s = (offered.num(1, "t_ns") - offered.num(0, "t_ns")) / 1e9;
	for (size_t i = 0; i < offered.rows.size(); i++)
		of << num(offered.num(i, "t_ns") / 1e9) << ' '
		   << num((offered.num(i, "admitted") + offered.num(i, "rejected")) / bucket_s) << '\n';
	double breaker_limit = NAN, breaker_window_s = NAN;
	for (size_t i = 0; i < in.breaker.rows.size(); i++)
		if (in.breaker.at(i, "scenario") == bs && in.breaker.col("limit") >= 0) {
			breaker_limit = in.breaker.num(i, "limit");
			breaker_window_s = in.breaker.num(i, "window_ns") / 1e9;
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
	  << "sweep_limit = " << num(sweep_limit) << "\n"
	  << "population_total = " << num(pop_total) << "\n"
	  << "breaker_rate = " << num(breaker_limit / breaker_window_s) << "\n"
	  << "seeds = " << seeds(in).size() << "\n"
	  << "tradeoff_algos = \"" << placed << "\"\n"
	  << "sweep_algos = \"" << swept << "\"\n";
	v.close();
	write_peer_chart_data(in, dir);
}

} // namespace report
