// report_redis.cc - the report's Redis section, from results/bench/redis.json
// (bench/redis/run.sh: ratelab_redis_bench) and results/bench/redis_rlf.json
// (bench/peers/node/redis.js), all measured on one redis-server in one run:
// ratelab's scripts, the module's RATELAB.CHECK (when the server had it),
// the reference plain GCRA script and rate-limiter-flexible's
// RateLimiterRedis. One table of speed (decisions per second at 1, 10 and
// 100 in flight, the server's us and CPU us per decision and their ratio
// to the plain script's, round trips p50/p99, bytes per key in Redis), the
// targets checked against it (scripts <= 1.5x the plain script's server
// time, sliding_log <= 2.5x; the module <= 1 us and >= 3x the plain
// script's pipelined decisions per second), and one table of exactness
// (the same seeded trace through each, compared decision by decision with
// the in-process algorithm of the same rule). Without redis.json the
// section says "not run". It writes the chart's data,
// results/plots/data/redis.csv (plots/redis.gp), empty when not run.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "report.h"

namespace report {

namespace {

const char *const batches[] = {"batch_1", "batch_10", "batch_100"};

const nlohmann::json *find_plain(const nlohmann::json &subjects)
{
	for (const auto &s : subjects)
		if (s.at("kind") == "plain")
			return &s;
	return nullptr;
}

std::string label(const nlohmann::json &s)
{
	std::string kind = s.at("kind"), name = s.at("name");
	if (kind == "script")
		return "ratelab script: " + name;
	if (kind == "module")
		return "ratelab.so: " + name.substr(name.find(' ') + 1);
	return name;
}

// The target a subject is held to, as text, and whether it is met (ratio: server us / the plain script's).
std::string target(const nlohmann::json &s, double ratio, double plain_rate)
{
	std::string kind = s.at("kind"), algo = s.at("algo");
	if (kind == "script") {
		double cap = algo == "sliding_log" ? 2.5 : 1.5;
		return std::string(ratio <= cap ? "met" : "**not met**") + " (<= " + fmt(cap, 1) + "x)";
	}
	if (kind == "module") {
		double us = s.at("server_us"), rate = s.at("batch_100").at("decisions_per_s");
		bool ok = us <= 1.0 && rate >= 3 * plain_rate;
		return std::string(ok ? "met" : "**not met**") + " (<= 1 us: " + fmt(us, 2) +
		       "; >= 3x plain's decisions/s: " + fmt(rate / plain_rate, 2) + "x)";
	}
	return "";
}

} // namespace

void redis_section(std::ostringstream &o, const Inputs &in)
{
	o << "## Redis backend\n\n";
	std::filesystem::create_directories(in.results + "/plots/data");
	std::ofstream csv(in.results + "/plots/data/redis.csv");
	std::ifstream f(in.results + "/bench/redis.json");
	if (!f) {
		o << "Redis: not run (redis-server, redis-benchmark or the Redis backend was missing; `make deps`).\n\n";
		return;
	}
	nlohmann::json j = nlohmann::json::parse(f);
	if (!j.contains("subjects")) {
		o << "Redis: not run by this version (results/bench/redis.json is of an older bench; `make bench`).\n\n";
		return;
	}
	nlohmann::json subjects = j.at("subjects");
	std::ifstream rf(in.results + "/bench/redis_rlf.json");
	bool rlf = static_cast<bool>(rf);
	if (rlf)
		subjects.push_back(nlohmann::json::parse(rf));
	const auto &ceil = j.at("ceiling_evalsha_per_s");
	const nlohmann::json *plain = find_plain(subjects);
	double plain_us = plain ? plain->at("server_us").get<double>() : NAN;
	double plain_cpu = plain ? plain->at("server_cpu_us").get<double>() : NAN;
	double plain_rate = plain ? plain->at("batch_100").at("decisions_per_s").get<double>() : NAN;

	o << "One `redis-server` started for the run, every subject against it in the same run, one client "
	     "(its own connection); rule " << j.at("rule").get<std::string>()
	  << " on 1000 keys, the caller passing the time in epoch ns (ratelab's and the plain script's "
	     "requests). *In flight* k: ratelab's and the plain script's requests keep k commands outstanding on "
	     "the connection, one sent for each reply taken (ratelab's commands are the backend's own, "
	     "scripts or module); rate-limiter-flexible has k `consume()` calls pending on its ioredis "
	     "connection. A round trip runs from a request's command made to its reply taken. *Server us*: `INFO commandstats` usec per call of the decision's command (`EVALSHA`, "
	     "whose time includes the calls its script makes; `RATELAB.CHECK`), measured at 100 in flight, "
	     "the median of 5 runs with the subjects interleaved; *CPU us*: the server's `used_cpu_user + "
	     "used_cpu_sys` over the same runs per decision (all its work for a decision: reading, parsing and "
	     "answering the command too). On a busy machine the first counts the time the server waited for a "
	     "core in the middle of a script; the second does not. *Ratio*: to the plain GCRA script's "
	     "(bench/redis/plain_gcra.lua: doubles, one `GET` and one `SET`, as most published limiters are), "
	     "the inexact ceiling the scripts' targets are set against. Bytes per key: `MEMORY USAGE` of the "
	     "key's Redis keys after one admitted request, averaged over 200 keys. Ceiling: `redis-benchmark "
	     "-c 1 -P k evalsha` of the script `return 1`: "
	  << fmt(ceil.at("batch_1"), 0) << " / " << fmt(ceil.at("batch_10"), 0) << " / "
	  << fmt(ceil.at("batch_100"), 0) << " per second at 1 / 10 / 100.\n\n";
	if (!j.at("module").get<bool>())
		o << "The module (ratelab.so) was not in this build: no RATELAB.CHECK rows.\n\n";
	if (!rlf)
		o << "rate-limiter-flexible: not run (node or its packages missing; `make deps`).\n\n";

	o << "| subject | decisions/s, 1 in flight | 10 | 100 | server us / decision | ratio to plain | CPU us / "
	     "decision | ratio | round trip p50 / p99 us, 1 in flight | p50 / p99 us, 100 | bytes/key in Redis | "
	     "target |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n";
	for (const auto &s : subjects) {
		double us = s.at("server_us"), cpu = s.at("server_cpu_us");
		o << "| " << label(s);
		for (const char *b : batches)
			o << " | " << fmt(s.at(b).at("decisions_per_s"), 0);
		o << " | " << fmt(us, 2) << " | " << fmt(us / plain_us, 2) << "x | " << fmt(cpu, 2) << " | "
		  << fmt(cpu / plain_cpu, 2) << "x | " << fmt(s.at("batch_1").at("p50_us"), 1) << " / "
		  << fmt(s.at("batch_1").at("p99_us"), 1) << " | " << fmt(s.at("batch_100").at("p50_us"), 1) << " / "
		  << fmt(s.at("batch_100").at("p99_us"), 1) << " | " << fmt(s.at("bytes_per_key"), 0) << " | "
		  << target(s, us / plain_us, plain_rate) << " |\n";
	}
	o << "\nTargets: each ratelab script's server time per decision at most 1.5x the plain script's "
	     "(sliding_log 2.5x); the module's at most 1 us, with at least 3x the plain script's decisions per "
	     "second at 100 in flight. A target not met is marked, and the reason is measured below.\n\n";
	if (j.contains("stages_us") && plain) {
		double base = j.at("stages_us").at("return_1"), lib = j.at("stages_us").at("lib");
		o << "Where a script's server time goes. The same rounds timed two stages of a script, called with a "
		     "script's arguments: `return 1`, " << fmt(base, 2) << " us (what any `EVALSHA` of these arguments "
		     "costs), and lib.lua followed by `return 1`, " << fmt(lib, 2) << " us (the functions every "
		     "ratelab script makes anew on each call, which Redis cannot keep between calls, and its arguments "
		     "read into exact (s, ns) pairs), before the algorithm starts. Each script's time split there; the "
		     "plain script's after `return 1`:\n\n"
		     "| subject | server us | before the algorithm | the algorithm: state read, decided, written, "
		     "answered |\n|---|---|---|---|\n";
		for (const auto &s : subjects) {
			std::string kind = s.at("kind");
			if (kind != "script" && kind != "plain")
				continue;
			double us = s.at("server_us"), before = kind == "script" ? lib : base;
			o << "| " << label(s) << " | " << fmt(us, 2) << " | " << fmt(before, 2) << " | "
			  << fmt(us - before, 2) << " |\n";
		}
		o << "\n";
	}
	if (j.contains("stages_us") && j.at("module").get<bool>()) {
		double lo = INFINITY, hi = 0, log_us = NAN, base = j.at("stages_us").at("return_1");
		for (const auto &s : subjects) {
			if (s.at("kind") != "module")
				continue;
			double us = s.at("server_us");
			if (s.at("algo") == "sliding_log")
				log_us = us;
			else
				lo = std::min(lo, us), hi = std::max(hi, us);
		}
		o << "The module: a decision of a fixed-size state costs the server " << fmt(lo, 2) << " to " << fmt(hi, 2)
		  << " us, " << (hi < base ? "less than" : "against") << " the script `return 1` (" << fmt(base, 2)
		  << " us). That time is mostly Redis's own work for a write command (its 8 arguments read, the key "
		     "opened, the value and its expiry written, the effect `SET ... PXAT` propagated to replicas and "
		     "the AOF, 5 fields answered) around the library's decision. sliding_log's value holds one 12-byte run per distinct admitted "
		     "time in its window (at this rule and traffic up to 1000 per key), which every decision reads, "
		     "checks and writes back: " << fmt(log_us, 2) << " us.\n\n";
	}
	if (j.contains("costs")) {
		std::map<std::string, double> ns;
		o << "The primitives a script is made of, each run in a loop inside one `EVAL`, the server's CPU per "
		     "iteration (the empty loop's subtracted), same server, same run.\n\n"
		     "| primitive | CPU ns |\n|---|---|\n";
		for (const auto &c : j.at("costs")) {
			std::string what = c.at("what");
			ns[what] = c.at("ns").get<double>();
			o << "| " << what << " | " << fmt(ns[what], 0) << " |\n";
		}
		double mine = ns["HMGET of 3 fields"] + ns["HSET of 3 fields"] + ns["PEXPIRE"];
		double theirs = ns["GET of a string key"] + ns["SET of a string key with PX"];
		o << "\nA ratelab script reads and writes a key's state as a hash whose TTL is set apart (`HMGET`, "
		     "`HSET`, `PEXPIRE`: " << fmt(mine, 0) << " ns in these loops, against the plain script's `GET` "
		     "and `SET PX`, " << fmt(theirs, 0) << " ns), and decides in exact integers, reading the stored "
		     "times and writing them and its answer as exact decimal strings, where the plain script rounds "
		     "its doubles.\n\n";
	}

	o << "Exactness: one seeded trace (3 keys, epoch-ns times, steps around the emission interval, a tenth "
	     "of the requests of cost 2 to 4; 3000 requests, in batches of 10) through each subject, compared "
	     "decision by decision with the in-process algorithm of the same rule (the plain script's is gcra). "
	     "rate-limiter-flexible takes no time from its caller: its trace (150 requests on 3 keys, 5 per "
	     "second) is played in real time, each request's send time kept and fed to the in-process "
	     "fixed_window of the same rule; its window starts at a key's first request and ends when Redis "
	     "expires the key, not on the epoch's multiples of W, and it gives no retry or reset in ns.\n\n"
	     "| subject | in-process algorithm | requests | verdicts differ | answers differ (any field) | first "
	     "difference |\n|---|---|---|---|---|---|\n";
	for (const auto &s : subjects) {
		const auto &x = s.at("exact");
		std::string ex = x.at("example");
		o << "| " << label(s) << " | " << s.at("algo").get<std::string>() << " | " << x.at("requests").get<int>()
		  << " | " << x.at("verdicts_differ").get<int>() << " | " << x.at("answers_differ").get<int>() << " | "
		  << (ex.empty() ? "none" : ex) << " |\n";
	}
	o << "\n![redis](plots/redis.png)\n\nDecisions per second against the requests in flight (log scales), "
	     "every subject on the same server, beside the trivial script's ceiling.\n\n";

	csv << "in_flight,ceiling";
	for (const auto &s : subjects)
		csv << "," << label(s);
	csv << "\n";
	for (const char *b : batches) {
		csv << std::string(b).substr(6) << "," << ceil.at(b).get<double>();
		for (const auto &s : subjects)
			csv << "," << s.at(b).at("decisions_per_s").get<double>();
		csv << "\n";
	}
}

} // namespace report
