// report_peers.cc - the peers (bench/peers/): the limiters people deploy,
// beside ratelab's algorithms from the same `make bench` run.
//
// Inputs: results/bench/peers.json (bench/peers/collect.py: per peer its
// nearest ratelab algorithm, hot / 1K / 1M keys ns/op as median, min, max
// and repetitions, bytes per key; nginx's agreement with leaky_bucket) and
// the peer_NAME rows of results/sim/summary.csv (`ratelab sim --decider`).
// peers.json absent: the peers were not run (PEERS=0), and the report says
// so. A figure absent from it (or null) is shown as "-".
//
// Ratios are peer / ratelab's nearest algorithm, both from this run:
// ns/op hot against hot/<algo>/direct/verdict, at 1K and 1M keys against
// store/<algo>/<n>/uniform, bytes per key against the store's all-in bytes
// per key at 1M keys.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "bench_names.h"
#include "report.h"

namespace report {
namespace {

struct PStat {
	double median = NAN, min = NAN, max = NAN;
	int reps = 0;
};

struct PeerRun {
	std::string name, nearest, version, note;
	PStat hot, keys_1k, keys_1m;
	double bytes_per_key = NAN;
	nlohmann::json agreement; // nginx only
};

struct Peers {
	bool present = false;
	std::string date, host;
	std::vector<PeerRun> list;
};

double number(const nlohmann::json &j, const char *key)
{
	auto it = j.find(key);
	return it != j.end() && it->is_number() ? it->get<double>() : NAN;
}

std::string text(const nlohmann::json &j, const char *key)
{
	auto it = j.find(key);
	return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

PStat stat(const nlohmann::json &j, const char *key)
{
	PStat s;
	auto it = j.find(key);
	if (it == j.end() || !it->is_object())
		return s;
	s.median = number(*it, "median");
	s.min = number(*it, "min");
	s.max = number(*it, "max");
	s.reps = static_cast<int>(number(*it, "reps") >= 0 ? number(*it, "reps") : 0);
	return s;
}

// peers.json, read once; a malformed file stops the report.
const Peers &peers(const Inputs &in)
{
	static Peers p;
	static bool loaded = false;
	if (loaded)
		return p;
	loaded = true;
	std::string path = in.results + "/bench/peers.json";
	std::ifstream f(path);
	if (!f)
		return p;
	nlohmann::json j;
	try {
		f >> j;
		p.date = text(j.at("context"), "date");
		p.host = text(j.at("context"), "host");
		for (const auto &e : j.at("peers")) {
			PeerRun q;
			q.name = e.at("name").get<std::string>();
			q.nearest = text(e, "nearest");
			q.version = text(e, "version");
			q.note = text(e, "note");
			q.hot = stat(e, "hot_ns");
			q.keys_1k = stat(e, "keys_1k_ns");
			q.keys_1m = stat(e, "keys_1m_ns");
			q.bytes_per_key = number(e, "bytes_per_key");
			if (e.contains("agreement"))
				q.agreement = e["agreement"];
			p.list.push_back(q);
		}
	} catch (const std::exception &ex) {
		std::fprintf(stderr, "report: %s: %s\n", path.c_str(), ex.what());
		std::exit(1);
	}
	p.present = true;
	return p;
}

std::string dash(double v, int decimals)
{
	return std::isnan(v) ? "-" : fmt(v, decimals);
}

std::string ratio(double peer, double ours)
{
	if (std::isnan(peer) || std::isnan(ours) || ours <= 0)
		return "-";
	char buf[32];
	std::snprintf(buf, sizeof buf, "%.2fx", peer / ours);
	return buf;
}

std::string spread(const PStat &s)
{
	if (std::isnan(s.median))
		return "-";
	if (s.reps < 2)
		return fmt(s.median, 1);
	return fmt(s.median, 1) + " (" + fmt(s.min, 1) + "–" + fmt(s.max, 1) + ")";
}

// False allow and reject % of algo over the (scenario, seed) runs where peer has rows.
std::pair<double, double> accuracy(const Inputs &in, const std::string &algo, const std::string &peer)
{
	const Csv &s = in.summary;
	double req = 0, fa = 0, fr = 0;
	for (size_t i = 0; i < s.rows.size(); i++) {
		if (s.at(i, "algo") != algo)
			continue;
		bool shared = false;
		for (size_t j = 0; j < s.rows.size() && !shared; j++)
			shared = s.at(j, "algo") == peer && s.at(j, "scenario") == s.at(i, "scenario") &&
				 s.at(j, "seed") == s.at(i, "seed");
		if (!shared)
			continue;
		req += s.num(i, "requests");
		fa += s.num(i, "false_allows");
		fr += s.num(i, "false_rejects");
	}
	if (req <= 0)
		return {NAN, NAN};
	return {100 * fa / req, 100 * fr / req};
}

double ours_keys(const Inputs &in, const std::string &algo, size_t n)
{
	return in.bench.ns(rlbench::names::store(algo, n, "uniform"));
}

} // namespace

std::string peers_section(const Inputs &in)
{
	std::ostringstream o;
	const Peers &p = peers(in);
	o << "## Peers: the limiters people deploy\n\n";
	if (!p.present) {
		o << "not run (PEERS=0)\n\n";
		return o.str();
	}
	o << "Each peer is the real library through its public API, timed in its own harness in this run "
	     "(" << p.date << ", host " << p.host << "): one hot key with time passed in (or the nearest its "
	     "API allows), 1K and 1M keys offered uniformly (the ecosystem's idiomatic map of limiters, filled "
	     "first), bytes per key from the runtime's memory statistics before and after 1M keys. ns/op are "
	     "medians (min–max) of the repetitions; each ratio is the peer's figure over ratelab's nearest "
	     "algorithm from this run (hot: one key, direct, verdict only; keys: `rl_store_check`, uniform; "
	     "bytes: the store's all-in bytes per key at 1M keys). Across languages, a ratio mixes the "
	     "algorithm with the runtime (garbage collector, string keys, a mutex per limiter).\n\n"
	  << "| peer | nearest | ns/op hot | ratio | ns/op 1K keys | ratio | ns/op 1M keys | ratio | B/key | ratio |\n"
	     "|---|---|---|---|---|---|---|---|---|---|\n";
	for (const PeerRun &q : p.list) {
		if (!q.agreement.is_null())
			continue;
		double hot = in.bench.ns(rlbench::names::hot(q.nearest, true, false));
		double k1 = ours_keys(in, q.nearest, 1000), k1m = ours_keys(in, q.nearest, rlbench::names::kKeysTable);
		double b = in.bench.counter(rlbench::names::store(q.nearest, rlbench::names::kKeysTable, "uniform"),
					    "store_bytes_per_key");
		o << "| " << q.name << " | " << q.nearest << " | " << spread(q.hot) << " | " << ratio(q.hot.median, hot)
		  << " | " << spread(q.keys_1k) << " | " << ratio(q.keys_1k.median, k1) << " | " << spread(q.keys_1m)
		  << " | " << ratio(q.keys_1m.median, k1m) << " | " << dash(q.bytes_per_key, 1) << " | "
		  << ratio(q.bytes_per_key, b) << " |\n";
	}
	o << "\nAccuracy, from `ratelab sim --decider` (the same traffic and metrics as the built-in "
	     "algorithms; rows `peer_NAME` of `results/sim/summary.csv`, the first seed of the run), the nearest "
	     "algorithm on the same scenarios and seed; false allow: an admission that left more than N in "
	     "(t − W, t]; false reject: a rejection while fewer than N were there:\n\n"
	     "| peer | runs (scenario, seed) | false allow % | false reject % | worst burst (x N in one W) | nearest | its false allow % | its false reject % |\n"
	     "|---|---|---|---|---|---|---|---|\n";
	for (const PeerRun &q : p.list) {
		if (!q.agreement.is_null())
			continue;
		std::string row = "peer_" + q.name;
		size_t n = 0;
		double worst = NAN;
		for (size_t i = 0; i < in.summary.rows.size(); i++)
			if (in.summary.at(i, "algo") == row) {
				n++;
				double r = in.summary.num(i, "max_window_ratio");
				worst = std::isnan(worst) || r > worst ? r : worst;
			}
		std::pair<double, double> mine = n ? accuracy(in, row, row) : std::pair<double, double>(NAN, NAN);
		std::pair<double, double> near = n ? accuracy(in, q.nearest, row) : std::pair<double, double>(NAN, NAN);
		o << "| " << q.name << " | " << n << " | " << dash(mine.first, 4) << " | " << dash(mine.second, 4) << " | "
		  << dash(worst, 2) << " | " << q.nearest << " | " << dash(near.first, 4) << " | " << dash(near.second, 4)
		  << " |\n";
	}
	o << "\n";
	for (const PeerRun &q : p.list) {
		if (q.agreement.is_null())
			continue;
		const nlohmann::json &a = q.agreement;
		o << "**" << q.name << " against " << q.nearest << "** (" << q.version << "): " << dash(number(a, "agree"), 0)
		  << " of " << dash(number(a, "requests"), 0) << " decisions agree (" << dash(number(a, "agree_pct"), 2)
		  << " %); admitted " << dash(number(a, "admitted_nginx"), 0) << " by nginx, "
		  << dash(number(a, "admitted_ratelab"), 0) << " by ratelab. A real nginx (limit_req rate="
		  << dash(number(a, "rate_per_s"), 0) << "r/s burst=" << dash(number(a, "burst"), 0) << " nodelay, "
		  << dash(number(a, "keys"), 0) << " keys) on a loopback port, driven at real time by an HTTP client; "
		     "the sent times replayed through `ratelab replay --algo leaky_bucket`. The schedule keeps every "
		     "decision at least " << dash(number(a, "margin_ms"), 0) << " ms from its boundary (nginx keeps ms; "
		     "sends were at most " << dash(number(a, "max_send_lateness_ms"), 1) << " ms late; on the sent "
		     "times the closest decision was " << dash(number(a, "min_margin_ms"), 1) << " ms from it).\n\n";
	}
	o << "How each peer was driven:\n\n";
	for (const PeerRun &q : p.list)
		o << "- " << q.name << (q.version.empty() ? "" : " (" + q.version + ")") << ": " << q.note << "\n";
	o << "\n![peers](plots/peers.png)\n\n";
	return o.str();
}

void write_peer_chart_data(const Inputs &in, const std::string &dir)
{
	// ratelab's algorithms, then the timed peers: name, ns hot, ns at 1M keys, bytes per key
	std::ofstream d(dir + "/peers.dat");
	d << "name ns_hot ns_1m bytes_per_key\n";
	auto num = [](double v) { return std::isnan(v) ? std::string("NaN") : fmt(v, 2); };
	for (const Algo &a : in.algos) {
		if (a.name.rfind("peer_", 0) == 0)
			continue; /* the summary's peer rows: written below from peers.json */
		std::string keyed = rlbench::names::store(a.name, rlbench::names::kKeysTable, "uniform");
		d << a.name << ' ' << num(in.bench.ns(rlbench::names::hot(a.name, true, false))) << ' '
		  << num(in.bench.ns(keyed)) << ' ' << num(in.bench.counter(keyed, "store_bytes_per_key")) << '\n';
	}
	for (const PeerRun &q : peers(in).list)
		if (q.agreement.is_null())
			d << "peer_" << q.name << ' ' << num(q.hot.median) << ' ' << num(q.keys_1m.median) << ' '
			  << num(q.bytes_per_key) << '\n';
	if (!d) {
		std::fprintf(stderr, "report: cannot write %s/peers.dat\n", dir.c_str());
		std::exit(1);
	}
	std::ofstream v(dir + "/vars.gp", std::ios::app);
	v << "peers_run = " << (peers(in).present ? 1 : 0) << "\n";
}

} // namespace report
