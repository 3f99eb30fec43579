// bench_names.h - every benchmark run's name and every target, written
// once: the drivers register runs by these names and the report generator
// looks them up by the same functions (it fails when a run it needs is
// missing, report_figures.cc require_inputs).
#ifndef RATELAB_BENCH_NAMES_H
#define RATELAB_BENCH_NAMES_H

#include <cstddef>
#include <string>

namespace rlbench::names {

// hot/<algo>/<direct|ops>/<verdict|answer>: one key, time passed in.
inline std::string hot(const std::string &algo, bool direct, bool answer)
{
	return "hot/" + algo + (direct ? "/direct" : "/ops") + (answer ? "/answer" : "/verdict");
}

// clock/<algo>: hot, direct, verdict, with a clock_gettime read; clock/read alone.
inline std::string clock(const std::string &algo)
{
	return "clock/" + algo;
}
inline const char *const kClockRead = "clock/read";

// store/<algo>/<keys>/<uniform|zipf>: rl_store_check over keys keys.
inline std::string store(const std::string &algo, size_t keys, const std::string &order)
{
	return "store/" + algo + "/" + std::to_string(keys) + "/" + order;
}

// floor/<algo>/<keys>/<dependent|independent>: the memory floor of that store.
inline std::string floor(const std::string &algo, size_t keys, bool dependent)
{
	return "floor/" + algo + "/" + std::to_string(keys) + (dependent ? "/dependent" : "/independent");
}

// store_mt/<algo>/<shared|disjoint>, registered with threads 1 and 2 in
// real time; Google Benchmark names each run with the suffix below.
inline std::string store_mt(const std::string &algo, bool shared)
{
	return "store_mt/" + algo + (shared ? "/shared" : "/disjoint");
}
inline std::string store_mt_run(const std::string &algo, bool shared, int threads)
{
	return store_mt(algo, shared) + "/real_time/threads:" + std::to_string(threads);
}

// The store's key counts: the quick run (RL_BENCH_QUICK=1) drops the last.
inline constexpr size_t kStoreKeys[] = {1, 1000, 100000, 1000000, 10000000};
inline constexpr size_t kStoreKeysQuick = 4;
// The key count of the tradeoff table's "at 1M keys" columns.
inline constexpr size_t kKeysTable = 1000000;

// breaker/<run>: rl_breaker_handle at limit 10^6.
inline constexpr const char *kBreakerRuns[] = {"at_limit", "overload", "overload_cold_malloc"};
inline std::string breaker(const std::string &run)
{
	return "breaker/" + run;
}

// registry/<resolve|check>/<tier>: the tiers of bench/registry.cc's config.
inline constexpr const char *kRegistryTiers[] = {"free", "premium", "otp", "internal"};
inline std::string registry(bool check, const std::string &tier)
{
	return std::string("registry/") + (check ? "check/" : "resolve/") + tier;
}

// The targets the report judges.
inline constexpr const char *kHotTargetAlgos[] = {"token_bucket", "gcra", "fixed_window", "sliding_counter"};
inline constexpr double kHotTargetNs = 3;        // hot, direct, verdict, ns/op
inline constexpr double kStoreTargetNs = 8;      // store/<algo>/1/uniform, ns/op
inline constexpr double kFloorTargetRatio = 1.3; // store / dependent floor at 1M and 10M keys
inline constexpr double kBreakerTargetNs = 5;    // breaker/<run>, ns/op

} // namespace rlbench::names

#endif
