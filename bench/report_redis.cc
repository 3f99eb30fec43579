// report_redis.cc - the report's Redis section, from
// results/bench/redis.json (bench/redis/run.sh): decisions per second of
// one client against a local redis-server in pipelined batches of 1, 10
// and 100 beside redis-benchmark's EVALSHA ceiling for a trivial script in
// the same run (and the ratio), round-trip latency p50/p99, and each key's
// bytes inside Redis beside the in-process store's. Without the file
// (redis-server or the backend missing) the section says "not run". It
// also writes the chart's data, results/plots/data/redis.csv (plots/redis.gp),
// empty when not run.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "report.h"

namespace report {

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
	const auto &ceil = j.at("ceiling_evalsha_per_s");
	const char *const batches[] = {"batch_1", "batch_10", "batch_100"};
	std::map<std::string, const Figures *> fig;
	std::vector<Figures> figs = figures(in);
	for (const Figures &x : figs)
		fig[x.algo] = &x;

	o << "One client, its own connection, against a local `redis-server` started for the run; rule 1000 "
	     "per second on 1000 keys, the caller passing the time. A batch is one pipelined round trip of "
	     "EVALSHA calls (`rl_redis_check_batch`). Ceiling: `redis-benchmark -c 1 -P k evalsha` of the "
	     "script `return 1`, same server, same run.\n\n"
	     "| algorithm | decisions/s, batch 1 | batch 10 | batch 100 | round trip p50 / p99 us, batch 1 | "
	     "p50 / p99 us, batch 100 | bytes/key in Redis | in-process state B/key | all-in B/key at 1M keys |\n"
	     "|---|---|---|---|---|---|---|---|---|\n";
	for (const auto &a : j.at("algos")) {
		std::string name = a.at("name");
		o << "| " << name;
		for (const char *b : batches) {
			double v = a.at(b).at("decisions_per_s"), c = ceil.at(b);
			o << " | " << fmt(v, 0) << " (" << fmt(100.0 * v / c, 1) << "% of ceiling)";
		}
		o << " | " << fmt(a.at("batch_1").at("p50_us"), 1) << " / " << fmt(a.at("batch_1").at("p99_us"), 1)
		  << " | " << fmt(a.at("batch_100").at("p50_us"), 1) << " / " << fmt(a.at("batch_100").at("p99_us"), 1)
		  << " | " << fmt(a.at("bytes_per_key"), 0);
		auto it = fig.find(name);
		if (it != fig.end())
			o << " | " << it->second->state_bytes << " | " << fmt(it->second->allin_1m, 1) << " |\n";
		else
			o << " | - | - |\n";
	}
	csv << "batch,ceiling";
	for (const auto &a : j.at("algos"))
		csv << "," << a.at("name").get<std::string>();
	csv << "\n";
	for (const char *b : batches) {
		csv << std::string(b).substr(6) << "," << ceil.at(b).get<double>();
		for (const auto &a : j.at("algos"))
			csv << "," << a.at(b).at("decisions_per_s").get<double>();
		csv << "\n";
	}
	o << "| *ceiling: trivial EVALSHA* | " << fmt(ceil.at("batch_1"), 0) << " | " << fmt(ceil.at("batch_10"), 0)
	  << " | " << fmt(ceil.at("batch_100"), 0) << " | | | | | |\n\n"
	     "Bytes in Redis: `MEMORY USAGE` of the key's hash (and, for sliding_log, its list of runs) after one "
	     "admitted request, averaged over 200 keys, Redis's own per-key overhead included. The scripts' "
	     "exact multi-limb arithmetic (redis.h) is Lua work on the server per decision, which is why "
	     "pipelining gains far less than it does for the trivial script.\n\n"
	     "![redis](plots/redis.png)\n\nDecisions per second against the pipeline depth (log scales), each "
	     "algorithm's script beside the trivial script's ceiling.\n\n";
}

} // namespace report
