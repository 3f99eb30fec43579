// report_charts.cc - the data files the gnuplot scripts (plots/*.gp) read,
// written into results/plots/data:
//   vars.gp        gnuplot variables: the algorithms, the scenarios chosen,
//                  the rule of the boundary scenario, the time-series folder
//   tradeoff.dat   one line per algorithm: name, ns/op hot (median, min,
//                  max over the repetitions), over-N admissions % and false
//                  rejects % (median, min, max over the seeds), bytes per
//                  key (all-in at 1M keys, else the state's size)
//   tradeoff_labels.dat  per panel of the tradeoff chart a block, one line
//                  per point: name, the point (x, y), where its label starts
//                  (lx, ly: left end, middle) and where its leader line ends;
//                  placed apart (place_labels); vars.gp: the panels' ranges
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

// The tradeoff chart's geometry, shared with plots/tradeoff.gp through
// vars.gp: each panel's plot area in screen fractions of a W x H image (px).
constexpr double kTradeW = 1500, kTradeH = 700;
constexpr double kTradeLeft[2] = {0.06, 0.47}, kTradeRight[2] = {0.40, 0.81};
constexpr double kTradeBottom = 0.12, kTradeTop = 0.84;
// Text of the chart's font (DejaVu Sans 12 at pngcairo's 96 dpi), px: a
// generous width per character, so that a label never runs into its neighbour.
constexpr double kCharW = 8.6, kLabelH = 18, kMarker = 9, kGap = 8;

// 1, 2, 2.5, 5 times a power of ten: the least at or above v (v > 0).
double nice_ceil(double v)
{
	double p = std::pow(10, std::floor(std::log10(v)));
	for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
		if (m * p >= v)
			return m * p;
	return 10 * p;
}

struct Box {
	double x0, y0, x1, y1;
	bool hits(const Box &o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
};

// One label per point, placed apart: px, py the points in px of a w x h
// plot area (y up); each label (chars[i] characters) goes right or left of
// its point, level with it or stepped up or down, at the first place inside
// the area that covers no other label and no point. Returns per point the
// label's left end and middle (lx, ly), px.
std::vector<std::pair<double, double>> place_labels(const std::vector<double> &px, const std::vector<double> &py,
						    const std::vector<size_t> &chars, double w, double h)
{
	size_t n = px.size();
	std::vector<Box> taken;
	for (size_t i = 0; i < n; i++)
		taken.push_back({px[i] - kMarker, py[i] - kMarker, px[i] + kMarker, py[i] + kMarker});
	std::vector<std::pair<double, double>> at(n);
	// neighbours first along x, so that a cluster's labels fan out in order
	std::vector<size_t> order(n);
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return px[a] < px[b]; });
	for (size_t i : order) {
		double lw = kCharW * (double)chars[i] + 4;
		bool placed = false;
		Box first{};
		bool have_first = false;
		for (int step = 0; step <= 24 && !placed; step++)
			for (int sign : {1, -1}) {
				if (step == 0 && sign < 0)
					continue;
				double y = py[i] + sign * step * (kLabelH + 2);
				for (int side : {1, -1}) {
					double x0 = side > 0 ? px[i] + kMarker + kGap : px[i] - kMarker - kGap - lw;
					Box b{x0, y - kLabelH / 2, x0 + lw, y + kLabelH / 2};
					if (b.x0 < 0 || b.x1 > w || b.y0 < 0 || b.y1 > h)
						continue;
					if (!have_first) {
						first = b;
						have_first = true;
					}
					bool free = true;
					for (const Box &t : taken)
						free = free && !b.hits(t);
					if (free) {
						first = b;
						placed = true;
						break;
					}
				}
				if (placed)
					break;
			}
		if (!have_first) // wider than the area: at the point, left end inside
			first = {std::max(0.0, std::min(px[i] + kMarker + kGap, w - lw)), py[i] - kLabelH / 2, 0, py[i] + kLabelH / 2};
		first.x1 = first.x0 + lw;
		taken.push_back(first);
		at[i] = {first.x0, (first.y0 + first.y1) / 2};
	}
	return at;
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
		if (!f.ns_hot.measured() || !f.over_n_pct.measured() || !f.false_reject_pct.measured())
			continue; // no timing or no simulation: no point to place (gnuplot warns on an empty series)
		placed += (placed.empty() ? "" : " ") + f.algo;
		double bytes = std::isnan(f.allin_1m) ? f.state_bytes : f.allin_1m;
		t << f.algo << ' ' << num(f.ns_hot.median) << ' ' << num(f.ns_hot.min) << ' ' << num(f.ns_hot.max) << ' '
		  << num(f.over_n_pct.median) << ' ' << num(f.over_n_pct.min) << ' ' << num(f.over_n_pct.max) << ' '
		  << num(f.false_reject_pct.median) << ' ' << num(f.false_reject_pct.min) << ' '
		  << num(f.false_reject_pct.max) << ' ' << num(bytes) << '\n';
	}

	t.close();
	if (!t) {
		std::fprintf(stderr, "report: cannot write %s/tradeoff.dat\n", dir.c_str());
		std::exit(1);
	}

	// The tradeoff chart's ranges: x from 1 ns to the decade above the slowest, y from 0.
	std::vector<const Figures *> pts;
	double ns_top = 10;
	double ytop[2] = {0, 0};
	for (const Figures &f : figs)
		if (f.ns_hot.measured() && f.over_n_pct.measured() && f.false_reject_pct.measured()) {
			pts.push_back(&f);
			ns_top = std::max(ns_top, f.ns_hot.max);
			ytop[0] = std::max(ytop[0], f.over_n_pct.max);
			ytop[1] = std::max(ytop[1], f.false_reject_pct.max);
		}
	double xdec = std::ceil(std::log10(ns_top * 1.2));
	for (double &y : ytop)
		y = nice_ceil(std::max(y * 1.15, 1.0));
	std::ofstream tl = open_out(dir + "/tradeoff_labels.dat");
	tl << "algo x y lx ly leader_x leader_y\n";
	for (int p = 0; p < 2; p++) {
		double w = (kTradeRight[p] - kTradeLeft[p]) * kTradeW, h = (kTradeTop - kTradeBottom) * kTradeH;
		std::vector<double> px, py;
		std::vector<size_t> chars;
		for (const Figures *f : pts) {
			double y = (p == 0 ? f->over_n_pct : f->false_reject_pct).median;
			px.push_back(std::log10(f->ns_hot.median) / xdec * w);
			py.push_back(y / ytop[p] * h);
			chars.push_back(f->algo.size());
		}
		std::vector<std::pair<double, double>> at = place_labels(px, py, chars, w, h);
		auto data_x = [&](double x) { return std::pow(10, x / w * xdec); };
		auto data_y = [&](double y) { return y / h * ytop[p]; };
		for (size_t i = 0; i < pts.size(); i++) {
			// the leader line ends at the label's end nearer the point
			double lx = at[i].first, near = lx > px[i] ? lx - 2 : lx + kCharW * (double)chars[i] + 6;
			tl << pts[i]->algo << ' ' << num(data_x(px[i])) << ' ' << num(data_y(py[i])) << ' '
			   << num(data_x(lx)) << ' ' << num(data_y(at[i].second)) << ' ' << num(data_x(near)) << ' '
			   << num(data_y(at[i].second)) << '\n';
		}
		tl << "\n\n";
	}
	tl.close();
	if (!tl) {
		std::fprintf(stderr, "report: cannot write %s/tradeoff_labels.dat\n", dir.c_str());
		std::exit(1);
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
	  << "sweep_last = \"" << (sweep.empty() ? "" : sweep.back().second) << "\"\n"
	  << "sweep_limit = " << num(sweep_limit) << "\n"
	  << "population_total = " << num(pop_total) << "\n"
	  << "breaker_rate = " << num(breaker_limit / breaker_window_s) << "\n"
	  << "seeds = " << seeds(in).size() << "\n"
	  << "tradeoff_algos = \"" << placed << "\"\n"
	  << "sweep_algos = \"" << swept << "\"\n"
	  << "tradeoff_xmax = " << num(std::pow(10, xdec)) << "\n"
	  << "tradeoff_ymax_over = " << num(ytop[0]) << "\n"
	  << "tradeoff_ymax_rej = " << num(ytop[1]) << "\n"
	  << "tradeoff_w = " << kTradeW << "\ntradeoff_h = " << kTradeH << "\n"
	  << "tradeoff_left = \"" << kTradeLeft[0] << ' ' << kTradeLeft[1] << "\"\n"
	  << "tradeoff_right = \"" << kTradeRight[0] << ' ' << kTradeRight[1] << "\"\n"
	  << "tradeoff_bottom = " << kTradeBottom << "\ntradeoff_top = " << kTradeTop << "\n";
	v.close();
	write_peer_chart_data(in, dir);
}

} // namespace report
