// report_stats.cc - medians, ranges and CVs (report.h's Stat), their
// formatting and verdicts, and the simulator figures taken over the seeds:
// each seed's figure is computed on that seed's rows alone, and the Stat is
// over those per-seed figures.
#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "report.h"

namespace report {

Stat Stat::of(std::vector<double> v)
{
	v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return std::isnan(x); }), v.end());
	Stat s;
	s.n = v.size();
	if (v.empty())
		return s;
	std::sort(v.begin(), v.end());
	size_t n = v.size();
	s.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	s.min = v.front();
	s.max = v.back();
	if (n >= 2) {
		double mean = 0, var = 0;
		for (double x : v)
			mean += x;
		mean /= static_cast<double>(n);
		for (double x : v)
			var += (x - mean) * (x - mean);
		var /= static_cast<double>(n - 1);
		s.cv = mean > 0 ? std::sqrt(var) / mean : NAN;
	}
	return s;
}

std::string fmt(const Stat &s, int decimals)
{
	if (!s.measured())
		return "-";
	std::string out = fmt(s.median, decimals);
	std::string lo = fmt(s.min, decimals), hi = fmt(s.max, decimals);
	if (lo != hi)
		out += " [" + lo + "–" + hi + "]";
	if (s.noisy())
		out += " (CV " + fmt(100 * s.cv, 0) + "%)";
	return out;
}

std::string verdict(const Stat &s, double limit)
{
	if (!s.measured())
		return "not measured";
	if (s.n < 2)
		return std::string(s.median <= limit ? "met" : "**missed**") + " (one repetition, no range)";
	if (s.max <= limit)
		return "met";
	if (s.min > limit)
		return "**missed**";
	return "within noise";
}

std::vector<long long> seeds(const Inputs &in)
{
	std::set<long long> out;
	for (size_t i = 0; i < in.summary.rows.size(); i++)
		out.insert(std::stoll(in.summary.at(i, "seed")));
	return std::vector<long long>(out.begin(), out.end());
}

namespace {

bool kept(const std::function<bool(const std::string &)> &keep, const std::string &scenario)
{
	return !keep || keep(scenario);
}

} // namespace

Stat over_seeds(const Inputs &in, const std::string &algo, const std::string &num, const std::string &den,
		double scale, const std::function<bool(const std::string &)> &keep)
{
	std::map<std::string, std::pair<double, double>> by_seed;
	const Csv &s = in.summary;
	for (size_t i = 0; i < s.rows.size(); i++) {
		if (s.at(i, "algo") != algo || !kept(keep, s.at(i, "scenario")))
			continue;
		double n = s.num(i, num), d = den.empty() ? 1 : s.num(i, den);
		if (std::isnan(n) || std::isnan(d))
			continue;
		auto &acc = by_seed[s.at(i, "seed")];
		acc.first += n;
		acc.second += d;
	}
	std::vector<double> v;
	for (auto &[seed, acc] : by_seed)
		v.push_back(acc.second > 0 ? scale * acc.first / acc.second : NAN);
	return Stat::of(v);
}

Stat max_over_seeds(const Inputs &in, const std::string &algo, const std::string &col,
		    const std::function<bool(const std::string &)> &keep)
{
	std::map<std::string, double> by_seed;
	const Csv &s = in.summary;
	for (size_t i = 0; i < s.rows.size(); i++) {
		double x = s.num(i, col);
		if (s.at(i, "algo") != algo || !kept(keep, s.at(i, "scenario")) || std::isnan(x))
			continue;
		auto it = by_seed.find(s.at(i, "seed"));
		if (it == by_seed.end() || x > it->second)
			by_seed[s.at(i, "seed")] = x;
	}
	std::vector<double> v;
	for (auto &[seed, x] : by_seed)
		v.push_back(x);
	return Stat::of(v);
}

Stat cell_over_seeds(const Inputs &in, const std::string &scenario, const std::string &algo, const std::string &col)
{
	std::vector<double> v;
	const Csv &s = in.summary;
	for (size_t i = 0; i < s.rows.size(); i++)
		if (s.at(i, "scenario") == scenario && s.at(i, "algo") == algo)
			v.push_back(s.num(i, col));
	return Stat::of(v);
}

Stat extra_wait_over_seeds(const Inputs &in, const std::string &algo)
{
	// per seed: served-weighted mean wait, for algo and for the exact sliding_log
	std::map<std::string, double> wait[2], served[2];
	const Csv &s = in.summary;
	for (size_t i = 0; i < s.rows.size(); i++) {
		const std::string &a = s.at(i, "algo");
		int which = a == algo ? 0 : a == "sliding_log" ? 1 : -1;
		double w = s.num(i, "client_wait_ms_mean"), n = s.num(i, "client_served");
		if (which < 0 || std::isnan(w) || std::isnan(n))
			continue;
		const std::string &seed = s.at(i, "seed");
		wait[which][seed] += w * n;
		served[which][seed] += n;
		if (a == algo && algo == "sliding_log") {
			wait[1][seed] += w * n;
			served[1][seed] += n;
		}
	}
	std::vector<double> v;
	for (auto &[seed, n] : served[0])
		if (n > 0 && served[1][seed] > 0)
			v.push_back(wait[0][seed] / n - wait[1][seed] / served[1][seed]);
	return Stat::of(v);
}

} // namespace report
