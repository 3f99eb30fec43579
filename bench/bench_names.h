// bench_names.h - every benchmark run's name and every target, written
// once: the drivers register runs by these names, and `ratelab report`
// looks them up by the same names and targets (sim/report/bench_report_int.h,
// kept equal to these; it fails when a run it needs is missing,
// bench_figures.c br_require).
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

// hot/floor/<call|chain|locked>: the floor of hot/<algo>/direct/verdict in
// its loop (bench/hot_floor.h): an empty check, the one-word gcra chain,
// and an empty check that takes a lock (the thread-safe rows' floor).
inline const char *const kHotFloorCall = "hot/floor/call";
inline const char *const kHotFloorChain = "hot/floor/chain";
inline const char *const kHotFloorLocked = "hot/floor/locked";

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

// store1t/<algo>/<keys>/<uniform|zipf>: the same on a one-thread store
// (rl_store_config.one_thread: no bucket locks), at kStoreKeysOneThread.
inline std::string store_one_thread(const std::string &algo, size_t keys, const std::string &order)
{
	return "store1t/" + algo + "/" + std::to_string(keys) + "/" + order;
}
inline constexpr size_t kStoreKeysOneThread[] = {1, 1000, 1000000};

// store1t/lookup/<keys>/uniform: the one-thread store's own part of a
// check, at 1 and 1K keys: the same runs with an algorithm that decides
// nothing (lookup_algo.h), so that only the hash and the table's tag
// search remain.
inline constexpr const char *kLookupAlgo = "lookup"; // rlbench_lookup_algo's name
inline constexpr size_t kLookupKeys[] = {1, 1000};
inline std::string store_lookup(size_t keys)
{
	return store_one_thread(kLookupAlgo, keys, "uniform");
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

// limit/<algo>/verdict: rl_limit_allow_at on the unnamed key, one thread.
inline std::string limit(const std::string &algo)
{
	return "limit/" + algo + "/verdict";
}

// limit_mt/<algo>: every thread on one rl_limit, threads 1 and 2 in real time.
inline std::string limit_mt(const std::string &algo)
{
	return "limit_mt/" + algo;
}
inline std::string limit_mt_run(const std::string &algo, int threads)
{
	return limit_mt(algo) + "/real_time/threads:" + std::to_string(threads);
}

// atomic/<op>: the one locked operation of a thread-safe check, alone.
inline std::string atomic(const std::string &op)
{
	return "atomic/" + op;
}

// The targets the report judges.
inline constexpr double kHotTargetNs = 3;        // hot, direct, verdict, ns/op: fixed-size states
inline constexpr double kHotLogTargetNs = 5;     // the same for sliding_log
inline constexpr double kStoreTargetNs = 8;      // store/<algo>/1/uniform, ns/op
inline constexpr double kLimitTargetNs = 6;      // limit/<algo>/verdict, ns/op
inline constexpr double kKeyedCachedRatio = 3;   // store / dependent floor at 1K keys
inline constexpr double kFloorTargetRatio = 1.2; // store / dependent floor at 1M and 10M keys
inline constexpr double kFloorLogRatio = 1.6;    // the same for sliding_log (its ring is a second line)
inline constexpr double kBreakerTargetNs = 5;    // breaker/<run>, ns/op
inline constexpr double kPeerHotRatio = 15;      // golang.org/x/time/rate hot / ratelab's nearest
inline constexpr double kPeerKeyedRatio = 5;     // its keyed map / ratelab's store, 1K and 1M keys

inline double hot_target_ns(const std::string &algo)
{
	return algo == "sliding_log" ? kHotLogTargetNs : kHotTargetNs;
}

inline double floor_target_ratio(const std::string &algo, size_t keys)
{
	if (keys < kKeysTable)
		return kKeyedCachedRatio;
	return algo == "sliding_log" ? kFloorLogRatio : kFloorTargetRatio;
}

} // namespace rlbench::names

#endif
