// report_figures.cc - the numbers the report derives from its inputs.
//
// Simulator aggregation: per algorithm, over every scenario of the default
// set, false allow % = 100 * sum(false_allows) / sum(requests) (likewise for
// false rejects), i.e. request-weighted; worst burst = max(max_window_ratio).
#include <algorithm>
#include <cmath>
#include <regex>
#include <set>
#include <sys/stat.h>

#include "report.h"

namespace report {

std::vector<Figures> figures(const Inputs &in)
{
	std::vector<Figures> out;
	const Csv &s = in.summary;
	for (const Algo &a : in.algos) {
		Figures f;
		f.algo = a.name;
		f.state_bytes = a.state_size;
		double req = 0, fa = 0, fr = 0, worst = NAN;
		for (size_t i = 0; i < s.rows.size(); i++) {
			if (s.at(i, "algo") != a.name)
				continue;
			req += s.num(i, "requests");
			fa += s.num(i, "false_allows");
			fr += s.num(i, "false_rejects");
			double r = s.num(i, "max_window_ratio");
			worst = std::isnan(worst) ? r : std::max(worst, r);
		}
		f.false_allow_pct = req > 0 ? 100 * fa / req : NAN;
		f.false_reject_pct = req > 0 ? 100 * fr / req : NAN;
		f.worst_ratio = worst;
		std::string keyed = "store/" + a.name + "/1000000/uniform";
		f.allin_1m = in.bench.counter(keyed, "store_bytes_per_key");
		f.malloc_1m = in.bench.counter(keyed, "malloc_bytes_per_key");
		f.ns_hot = in.bench.ns("hot/" + a.name + "/direct/verdict");
		f.ns_1m = in.bench.ns(keyed);
		out.push_back(f);
	}
	append_peer_figures(in, out);
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
	static const std::regex keyed("store/[a-z_]+/([0-9]+)/uniform");
	std::set<size_t> counts;
	for (auto &[name, run] : in.bench.runs) {
		std::smatch m;
		if (std::regex_match(name, m, keyed))
			counts.insert(std::stoull(m[1]));
	}
	return std::vector<size_t>(counts.begin(), counts.end());
}

} // namespace report
