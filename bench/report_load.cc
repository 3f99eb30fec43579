// report_load.cc - reads the report's inputs (see report.h).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "report.h"

namespace report {

const std::vector<std::string> kSummaryColumns = {
	"scenario", "algo", "limit", "window_ns", "burst", "seed", "requests", "admitted",
	"false_allows", "false_allow_pct", "false_rejects", "false_reject_pct",
	"keys_over_admitted_pct", "max_in_window", "max_window_ratio", "long_run_rate_ratio",
	"jain_index", "state_bytes_mean", "state_bytes_max", "decisions_per_sec", "own_bound", "beyond_bound",
	"beyond_bound_pct", "client_requests", "client_served", "client_gave_up_pct", "client_wait_ms_mean",
	"client_wait_ms_max", "heavy_keys_pct", "heavy_requests_pct", "heavy_false_pct", "estimate_diff_pct"};

double Bench::ns(const std::string &name) const
{
	return stat(name).median;
}

Stat Bench::stat(const std::string &name) const
{
	auto it = runs.find(name);
	return it == runs.end() ? Stat{} : it->second.ns;
}

double Bench::counter(const std::string &name, const std::string &key) const
{
	auto it = runs.find(name);
	if (it == runs.end())
		return NAN;
	auto c = it->second.counters.find(key);
	return c == it->second.counters.end() ? NAN : c->second;
}

namespace {

double unit_to_ns(const std::string &unit)
{
	if (unit == "ns")
		return 1;
	if (unit == "us")
		return 1e3;
	if (unit == "ms")
		return 1e6;
	return 1e9;
}

// The fields of a benchmark entry that are not user counters.
bool is_builtin(const std::string &key)
{
	static const char *const builtin[] = {
		"name", "family_index", "per_family_instance_index", "run_name", "run_type",
		"repetitions", "repetition_index", "threads", "iterations", "real_time", "cpu_time",
		"time_unit", "aggregate_name", "aggregate_unit", "error_occurred", "error_message"};
	for (const char *b : builtin)
		if (key == b)
			return true;
	return false;
}

std::vector<std::string> split(const std::string &line, char sep)
{
	std::vector<std::string> out;
	std::string cell;
	std::istringstream ss(line);
	while (std::getline(ss, cell, sep))
		out.push_back(cell);
	if (!line.empty() && line.back() == sep)
		out.emplace_back();
	return out;
}

} // namespace

Bench load_bench(const std::string &path)
{
	Bench b;
	std::ifstream f(path);
	if (!f)
		return b;
	// Google Benchmark writes NaN and inf bare (e.g. the cv of a zero
	// counter), which JSON lacks: read them as null (absent).
	std::ostringstream text;
	text << f.rdbuf();
	static const std::regex bare(": *-?(nan|NaN|inf|Inf|INF|NAN)([,\n}])");
	nlohmann::json j;
	try {
		j = nlohmann::json::parse(std::regex_replace(text.str(), bare, ": null$2"));
	} catch (const std::exception &e) {
		std::fprintf(stderr, "report: %s: %s\n", path.c_str(), e.what());
		std::exit(1);
	}
	for (auto &[k, v] : j["context"].items())
		b.context[k] = v.is_string() ? v.get<std::string>() : v.dump();

	// Every repetition (run_type "iteration") is a sample; a file written with
	// aggregates only gives its medians, as one sample each.
	std::map<std::string, std::vector<double>> samples, medians;
	for (const auto &e : j["benchmarks"]) {
		std::string run_type = e.value("run_type", "iteration");
		bool median = run_type == "aggregate" && e.value("aggregate_name", "") == "median";
		if (run_type != "iteration" && !median)
			continue;
		if (e.contains("error_occurred") && e["error_occurred"].is_boolean() && e["error_occurred"].get<bool>())
			continue;
		std::string name = e.value("run_name", e.value("name", ""));
		b.repetitions = std::max(b.repetitions, e.value("repetitions", 1));
		bool real = name.find("real_time") != std::string::npos;
		const auto &v = e[real ? "real_time" : "cpu_time"];
		double ns = v.is_number() ? v.get<double>() * unit_to_ns(e.value("time_unit", "ns")) : NAN;
		(median ? medians : samples)[name].push_back(ns);
		Run &r = b.runs[name];
		if (r.counters.empty())
			for (auto &[k, c] : e.items())
				if (!is_builtin(k) && c.is_number())
					r.counters[k] = c.get<double>();
	}
	for (auto &[name, r] : b.runs)
		r.ns = Stat::of(samples.count(name) ? samples[name] : medians[name]);
	return b;
}

int Csv::col(const std::string &name) const
{
	for (size_t i = 0; i < header.size(); i++)
		if (header[i] == name)
			return static_cast<int>(i);
	return -1;
}

const std::string &Csv::at(size_t row, const std::string &name) const
{
	static const std::string none;
	int c = col(name);
	return c < 0 || static_cast<size_t>(c) >= rows[row].size() ? none : rows[row][static_cast<size_t>(c)];
}

double Csv::num(size_t row, const std::string &name) const
{
	const std::string &s = at(row, name);
	char *end = nullptr;
	double v = std::strtod(s.c_str(), &end);
	return s.empty() || *end ? NAN : v;
}

Csv load_csv(const std::string &path, const std::vector<std::string> &want)
{
	Csv c;
	c.path = path;
	std::ifstream f(path);
	if (!f)
		return c;
	std::string line;
	// leading '#' lines are comments (the simulator's series name their seed there)
	while (std::getline(f, line))
		if (line.empty() || line[0] != '#') {
			c.header = split(line, ',');
			break;
		}
	for (const std::string &w : want)
		if (c.col(w) < 0) {
			std::fprintf(stderr, "report: %s: no column %s in the header \"%s\"\n", path.c_str(), w.c_str(),
				     line.c_str());
			std::exit(1);
		}
	while (std::getline(f, line))
		if (!line.empty())
			c.rows.push_back(split(line, ','));
	return c;
}

std::vector<std::pair<std::string, std::string>> load_env(const std::string &path)
{
	std::vector<std::pair<std::string, std::string>> env;
	std::ifstream f(path);
	std::string line;
	while (std::getline(f, line)) {
		size_t eq = line.find('=');
		if (eq != std::string::npos)
			env.emplace_back(line.substr(0, eq), line.substr(eq + 1));
	}
	return env;
}

std::map<std::string, Peer> load_peers(const std::string &path, bool *found)
{
	std::map<std::string, Peer> peers;
	std::ifstream f(path);
	*found = static_cast<bool>(f);
	if (!f)
		return peers;
	nlohmann::json j;
	try {
		j = nlohmann::json::parse(f);
	} catch (const std::exception &e) {
		std::fprintf(stderr, "report: %s: %s\n", path.c_str(), e.what());
		std::exit(1);
	}
	auto stat = [](const nlohmann::json &p, const char *key) {
		Stat s;
		if (!p.contains(key) || !p[key].is_object())
			return s;
		const auto &o = p[key];
		auto get = [&](const char *k) { return o.contains(k) && o[k].is_number() ? o[k].get<double>() : NAN; };
		s.median = get("median");
		s.min = get("min");
		s.max = get("max");
		s.n = std::isnan(s.median) ? 0 : static_cast<size_t>(o.value("reps", 1));
		return s;
	};
	for (const auto &p : j.value("peers", nlohmann::json::array())) {
		Peer r;
		r.name = p.value("name", "");
		r.nearest = p.value("nearest", "");
		r.note = p.value("note", "");
		r.hot_ns = stat(p, "hot_ns");
		r.keys_1k_ns = stat(p, "keys_1k_ns");
		r.keys_1m_ns = stat(p, "keys_1m_ns");
		if (p.contains("bytes_per_key") && p["bytes_per_key"].is_number())
			r.bytes_per_key = p["bytes_per_key"].get<double>();
		peers["peer_" + r.name] = r;
	}
	return peers;
}

std::string fmt(double v, int decimals)
{
	if (std::isnan(v))
		return "-";
	char buf[64];
	std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
	return buf;
}

} // namespace report
