// report_theory.cc - the report's queueing-theory section: the simulator
// against the closed forms of sim/engine/theory.h. bench/run.sh runs
// sim/scenarios/theory/ once per seed into results/sim/theory/seed_S/; this
// reads each seed's summary.csv (the scenarios' rules) and series (the
// rejected share per 100 s bucket), and per algorithm, burst and load
// pools the seeds' buckets (the first of each run dropped: warm-up) into
// the measured share with its batch-means standard error
// (sim/engine/batch_means.h), beside its [min-max] over the seeds, the theory and
// the gap in standard errors. A point more than SIM_THEORY_MAX_GAP standard
// errors off its theory stops the generator (exit 1, each such point named):
// a generator that fails is better than a report that lies.
//
//   theory_<algo>.dat  per burst (a block each, its title first): the
//                      theory curve, "load_pct reject_pct" from 45 to 155 %
//                      (none for an algorithm without a closed form)
//   theory_<algo>_points.dat  per burst: "load_pct measured_pct se_pct"
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <dirent.h>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <tuple>

#include "report.h"

extern "C" {
#include "batch_means.h"
#include "theory.h"
}

namespace report {
namespace {

struct Rule {
	long long limit = 0, window_ns = 0, burst = 0;
};

// One (algo, burst, load): the pooled batches and the per-seed shares.
struct Point {
	std::unique_ptr<sim_batch_means> batches{new sim_batch_means()};
	std::vector<double> per_seed; // rejected share of each seed's run
	Rule rule;
	double theory = NAN;
	bool has_theory = false;
};

using Key = std::tuple<std::string, long long, int>; // algo, burst, load %

[[noreturn]] void die(const std::string &what)
{
	std::fprintf(stderr, "report: theory: %s (bench/run.sh runs sim/scenarios/theory/ into results/sim/theory/seed_S)\n",
		     what.c_str());
	std::exit(1);
}

std::vector<std::string> seed_dirs(const std::string &dir)
{
	std::vector<std::string> out;
	DIR *d = opendir(dir.c_str());
	if (!d)
		die(dir + ": missing");
	while (struct dirent *e = readdir(d))
		if (std::string(e->d_name).rfind("seed_", 0) == 0)
			out.push_back(dir + "/" + e->d_name);
	closedir(d);
	std::sort(out.begin(), out.end());
	if (out.empty())
		die(dir + ": no seed_S directory");
	return out;
}

// Adds one series file's buckets after the first; returns that run's share.
double add_series(const std::string &path, sim_batch_means *b)
{
	std::ifstream f(path);
	std::string line;
	int64_t adm = 0, rej = 0;
	size_t n = 0;
	if (!f)
		die(path + ": missing");
	while (std::getline(f, line)) {
		long long t, a, r;
		if (std::sscanf(line.c_str(), "%lld,%lld,%lld", &t, &a, &r) != 3)
			continue; // the '# seed=' line and the header
		if (n++ == 0)
			continue; // warm-up
		if (!sim_batch_add(b, a, r))
			die(path + ": more than SIM_BATCH_MAX buckets over the seeds");
		adm += a;
		rej += r;
	}
	if (n < 3)
		die(path + ": fewer than 3 buckets");
	return adm + rej ? (double)rej / (double)(adm + rej) : NAN;
}

// A share in %: 3 decimals, or 3 significant digits below 1 % (rare rejections).
std::string pct(double v)
{
	char buf[32];
	if (std::isnan(v))
		return "-";
	std::snprintf(buf, sizeof buf, v > 0 && v < 0.01 ? "%#.3g" : "%.3f", 100 * v);
	return buf;
}

std::string signed_gap(double g)
{
	char buf[32];
	std::snprintf(buf, sizeof buf, "%+.2f", g);
	return buf;
}

double lambda_of(const Rule &r, double load_pct)
{
	return load_pct / 100 * (double)r.limit / ((double)r.window_ns / 1e9);
}

const char *const kBetween[] = {"fixed_window", "sliding_log"}; // sliding_counter's neighbours

} // namespace

std::string theory_section(const Inputs &in)
{
	const std::string dir = in.results + "/sim/theory";
	std::vector<std::string> seeds = seed_dirs(dir);
	std::map<Key, Point> points;
	std::set<std::string> algos_seen;

	for (const std::string &sd : seeds) {
		Csv s = load_csv(sd + "/summary.csv", {"scenario", "algo", "limit", "window_ns", "burst"});
		if (s.empty())
			die(sd + "/summary.csv: missing or empty");
		for (size_t i = 0; i < s.rows.size(); i++) {
			const std::string &sc = s.at(i, "scenario"), &algo = s.at(i, "algo");
			size_t u = sc.rfind('_');
			int load = u == std::string::npos ? -1 : std::atoi(sc.c_str() + u + 1);
			if (load <= 0)
				die(sd + "/summary.csv: scenario " + sc + " is no load sweep's NAME_LLL");
			Rule r{(long long)s.num(i, "limit"), (long long)s.num(i, "window_ns"), (long long)s.num(i, "burst")};
			Point &p = points[{algo, r.burst, load}];
			p.rule = r;
			p.per_seed.push_back(add_series(sd + "/series/" + sc + "__" + algo + ".csv", p.batches.get()));
			algos_seen.insert(algo);
		}
	}
	for (auto &[k, p] : points)
		p.has_theory = sim_theory_reject(std::get<0>(k).c_str(), (uint64_t)p.rule.limit, p.rule.window_ns,
						 (uint64_t)p.rule.burst, lambda_of(p.rule, std::get<2>(k)), &p.theory);

	// The gate: every point with a closed form within SIM_THEORY_MAX_GAP standard errors.
	std::vector<std::string> off;
	std::vector<double> ses;
	double worst = 0;
	size_t checked = 0;
	for (auto &[k, p] : points) {
		if (!p.has_theory)
			continue;
		double g = sim_batch_gap(p.batches.get(), p.theory);
		checked++;
		worst = std::fmax(worst, std::fabs(g));
		ses.push_back(100 * sim_batch_se(p.batches.get()));
		if (!(std::fabs(g) <= SIM_THEORY_MAX_GAP)) {
			char buf[256];
			std::snprintf(buf, sizeof buf, "%s burst %lld at load %d%%: measured %.4f%%, theory %.4f%%, %+.2f standard errors (limit %.0f)",
				      std::get<0>(k).c_str(), std::get<1>(k), std::get<2>(k), 100 * sim_batch_rate(p.batches.get()),
				      100 * p.theory, g, SIM_THEORY_MAX_GAP);
			off.push_back(buf);
		}
	}
	if (!off.empty()) {
		for (const std::string &s : off)
			std::fprintf(stderr, "report: theory: FAILED: %s\n", s.c_str());
		std::fprintf(stderr, "report: theory: %zu of %zu points off their closed form; no report written\n",
			     off.size(), checked);
		std::exit(1);
	}

	// Chart data: per algorithm, a block per burst.
	std::string data = in.results + "/plots/data";
	for (const std::string &algo : algos_seen) {
		double probe;
		bool closed = sim_theory_reject(algo.c_str(), 1, 1000000000, 1, 1.0, &probe);
		std::ofstream pf(data + "/theory_" + algo + "_points.dat");
		std::ofstream cf; // the curves, for an algorithm with a closed form
		if (closed)
			cf.open(data + "/theory_" + algo + ".dat");
		std::map<long long, std::vector<const std::pair<const Key, Point> *>> by_burst;
		for (const auto &kp : points)
			if (std::get<0>(kp.first) == algo)
				by_burst[std::get<1>(kp.first)].push_back(&kp);
		for (const auto &[burst, ps] : by_burst) {
			const Rule &r = ps.front()->second.rule;
			if (burst != by_burst.begin()->first) { // blocks apart, none after the last
				cf << "\n\n";
				pf << "\n\n";
			}
			bool bucket = algo == "token_bucket" || algo == "gcra" || algo == "leaky_bucket";
			std::string title = bucket ? "\"B = " + std::to_string(burst) + "\"" : "\"N = " + std::to_string(r.limit) + "\"";
			cf << title << " reject_pct\n";
			for (int l = 45; l <= 155; l++) {
				double p;
				if (sim_theory_reject(algo.c_str(), (uint64_t)r.limit, r.window_ns, (uint64_t)burst, lambda_of(r, l), &p))
					cf << l << ' ' << 100 * p << '\n';
			}
			pf << title << " measured_pct se_pct\n";
			for (const auto *kp : ps)
				pf << std::get<2>(kp->first) << ' ' << 100 * sim_batch_rate(kp->second.batches.get()) << ' '
				   << 100 * sim_batch_se(kp->second.batches.get()) << '\n';
		}
		if ((closed && !cf) || !pf)
			die(data + "/theory_" + algo + "*.dat: cannot write");
	}

	const Rule &r0 = points.begin()->second.rule;
	std::ostringstream o;
	o << "## The simulator against queueing theory\n\n"
	  << "For Poisson arrivals on one key, several algorithms are classical queueing systems with a known "
	     "long-run rejection probability (`sim/engine/theory.h`, also `ratelab theory`): token_bucket and gcra are "
	     "M/D/1/K with K = B and service time D = W/N (gcra: ⌈W/N⌉ ns), leaky_bucket is M/D/1/K with K = B + 1, "
	     "sliding_log is the M/D/N/N loss system, Erlang B(N, λW), and fixed_window rejects E[(X − N)⁺]/E[X], "
	     "X ~ Poisson(λW). sliding_counter has no closed form; it is shown against the fixed window's and the "
	     "sliding log's. The scenarios (`sim/scenarios/theory/`): one key, N = "
	  << r0.limit << " per " << (double)r0.window_ns / 1e9 << " s, loads 50..150 % of N, bursts 1, 3, 10 and N, "
	  << "clients that never retry, 10,000 s per run, " << seeds.size()
	  << " seed(s) (`results/sim/theory/seed_S/`). Measured: the rejected share of all the seeds' requests; "
	     "[min–max] over the seeds. "
	     "Its standard error (SE) is by batch means: each 100 s bucket of a run's series is one batch (the "
	     "first, the warm-up from an empty state, dropped), the seeds' batches pooled, SE² = Σ(rej_b − R·req_b)² / "
	     "(n(n − 1)·mean req²) for the ratio R, floored at the binomial √(p(1 − p)/requests) so that a point "
	     "whose rare rejections never happened is not divided by 0. Gap: (measured − theory) / SE. A point more "
	     "than "
	  << SIM_THEORY_MAX_GAP << " SE off its theory fails `make bench`. All " << checked
	  << " points with a closed form are within it (largest |gap| " << fmt(worst, 2) << "). The SE is at most "
	  << fmt(Stat::of(ses).max, 3) << " percentage points (median " << fmt(Stat::of(ses).median, 3)
	  << "): well under the distance between the families' curves";
	auto at100 = [&](const char *algo) {
		auto it = points.find(Key{algo, r0.limit, 100});
		return it == points.end() || !it->second.has_theory ? NAN : it->second.theory;
	};
	if (!std::isnan(at100("token_bucket") + at100("fixed_window") + at100("sliding_log")))
		o << " (theory at 100 % and B = N: token_bucket " << pct(at100("token_bucket")) << " %, fixed_window "
		  << pct(at100("fixed_window")) << " %, sliding_log " << pct(at100("sliding_log")) << " %)";
	o << ", though not under the distance between token_bucket's B and leaky_bucket's B + 1 where both "
	     "approach 1 − 1/load.\n\n";

	o << "| algorithm | burst | load | measured % [min–max] | theory % | SE % | gap (SE) |\n"
	     "|---|---:|---:|---|---:|---:|---:|\n";
	std::vector<std::string> order;
	for (const Algo &a : in.algos)
		if (algos_seen.count(a.name))
			order.push_back(a.name);
	size_t between = 0, counter_points = 0;
	for (const std::string &algo : order)
		for (auto &[k, p] : points) {
			if (std::get<0>(k) != algo)
				continue;
			Stat s = Stat::of(p.per_seed);
			std::string range = s.n > 1 ? " [" + pct(s.min) + "–" + pct(s.max) + "]" : "";
			double m = sim_batch_rate(p.batches.get()), se = sim_batch_se(p.batches.get());
			o << "| " << algo << " | " << std::get<1>(k) << " | " << std::get<2>(k) << " % | " << pct(m) << range
			  << " | ";
			if (p.has_theory) {
				o << pct(p.theory) << " | " << pct(se) << " | " << signed_gap(sim_batch_gap(p.batches.get(), p.theory))
				  << " |\n";
				continue;
			}
			// no closed form: the neighbours' theory at the same point
			double lo = NAN, hi = NAN;
			sim_theory_reject(kBetween[0], (uint64_t)p.rule.limit, p.rule.window_ns, (uint64_t)p.rule.burst,
					  lambda_of(p.rule, std::get<2>(k)), &lo);
			sim_theory_reject(kBetween[1], (uint64_t)p.rule.limit, p.rule.window_ns, (uint64_t)p.rule.burst,
					  lambda_of(p.rule, std::get<2>(k)), &hi);
			counter_points++;
			between += m >= std::fmin(lo, hi) && m <= std::fmax(lo, hi);
			o << "no closed form (" << kBetween[0] << " " << pct(lo) << ", " << kBetween[1] << " " << pct(hi)
			  << ") | " << pct(se) << " | - |\n";
		}
	o << "\n![theory](plots/theory.png)\n\nRejection rate against offered load, one panel per algorithm: the "
	     "closed form's curve per burst, the measured points with bars of ±2 SE. sliding_counter, without a "
	     "closed form, is drawn against the fixed window's and the sliding log's curves; it lies between them at "
	  << between << " of its " << counter_points << " points.\n\n";
	return o.str();
}

} // namespace report
