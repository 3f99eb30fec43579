/*
 * bench_names.h - every benchmark run's name and every target, in one
 * place for both sides: the drivers (the C++17 bench/NAME.cc) register their runs
 * by these names, and `ratelab report` (the C11 sim/report/bench_NAME.c) looks
 * them up by the same names and judges them against these targets (it
 * fails when a run it needs is missing: bench_figures.c br_require).
 *
 * A name is a printf format whose fixed parts are macro arguments, so that
 * the report writes RL_BENCH_STORE("uniform") and the drivers
 * RL_BENCH_STORE("%s"): the same string literal either way. Plain C11
 * and C++17; the C++ builders (std::string) follow at the end.
 */
#ifndef RATELAB_BENCH_NAMES_H
#define RATELAB_BENCH_NAMES_H

#include <stddef.h>

/* hot/<algo>/<direct|ops>/<verdict|answer>: one key, time passed in. */
#define RL_BENCH_HOT(path, what) "hot/%s/" path "/" what
/* hot/floor/<call|chain|locked>: the floor of hot/<algo>/direct/verdict in its
 * loop (bench/hot_floor.h): an empty check, the one-word gcra chain, and an
 * empty check that takes a lock (the thread-safe rows' floor). */
#define RL_BENCH_HOT_FLOOR(what) "hot/floor/" what
/* clock/<algo>: hot, direct, verdict, with a clock_gettime read; clock/read alone. */
#define RL_BENCH_CLOCK "clock/%s"
#define RL_BENCH_CLOCK_READ "clock/read"
/* store/<algo>/<keys>/<uniform|zipf>: rl_store_check over keys keys. */
#define RL_BENCH_STORE(order) "store/%s/%zu/" order
/* store1t/<algo>/<keys>/<uniform|zipf>: the same on a one-thread store
 * (rl_store_config.one_thread: no bucket locks), at RL_BENCH_STORE_KEYS_ONE_THREAD. */
#define RL_BENCH_STORE1T(order) "store1t/%s/%zu/" order
#define RL_BENCH_STORE_KEYS_ONE_THREAD { 1, 1000, 1000000 }
/* store1t/lookup/<keys>/uniform: the one-thread store's own part of a check, at 1
 * and 1K keys: the same runs with an algorithm that decides nothing
 * (lookup_algo.h), so that only the hash and the table's tag search remain. */
#define RL_BENCH_LOOKUP_ALGO "lookup" /* rlbench_lookup_algo's name */
#define RL_BENCH_LOOKUP_KEYS { 1, 1000 }
/* floor/<algo>/<keys>/<dependent|independent>: the memory floor of that store. */
#define RL_BENCH_FLOOR(kind) "floor/%s/%zu/" kind
/* store_mt/<algo>/<shared|disjoint>, registered with threads 1 and 2 in real
 * time; Google Benchmark names each run with RL_BENCH_MT_RUN after it. */
#define RL_BENCH_STORE_MT(kind) "store_mt/%s/" kind
#define RL_BENCH_MT_RUN "/real_time/threads:%d"
/* The store's key counts: the quick run (RL_BENCH_QUICK=1) drops the last. */
#define RL_BENCH_STORE_KEYS { 1, 1000, 100000, 1000000, 10000000 }
#define RL_BENCH_STORE_KEYS_QUICK 4
/* The key count of the tradeoff table's "at 1M keys" columns. */
#define RL_BENCH_KEYS_TABLE ((size_t)1000000)
/* breaker/<run>: rl_breaker_handle at limit 10^6; the runs in order: at the
 * limit's rate, twice it, twice it from a cold allocator. */
#define RL_BENCH_BREAKER "breaker/%s"
#define RL_BENCH_BREAKER_RUNS { "at_limit", "overload", "overload_cold_malloc" }
/* registry/<resolve|check>/<tier>: the tiers of bench/registry.cc's config. */
#define RL_BENCH_REGISTRY(op) "registry/" op "/%s"
#define RL_BENCH_REGISTRY_TIERS { "free", "premium", "otp", "internal" }
/* limit/<algo>/verdict: rl_limit_allow_at on the unnamed key, one thread. */
#define RL_BENCH_LIMIT "limit/%s/verdict"
/* limit_mt/<algo>: every thread on one rl_limit, threads 1 and 2 in real time. */
#define RL_BENCH_LIMIT_MT "limit_mt/%s"
/* atomic/<op>: the one locked operation of a thread-safe check, alone. */
#define RL_BENCH_ATOMIC(op) "atomic/" op

/* The targets the report judges. */
#define RL_BENCH_HOT_TARGET_NS 3.0        /* hot, direct, verdict, ns/op: fixed-size states */
#define RL_BENCH_HOT_LOG_TARGET_NS 5.0    /* the same for sliding_log */
#define RL_BENCH_STORE_TARGET_NS 8.0      /* store/<algo>/1/uniform, ns/op */
#define RL_BENCH_LIMIT_TARGET_NS 6.0      /* limit/<algo>/verdict, ns/op */
#define RL_BENCH_KEYED_CACHED_RATIO 3.0   /* store / dependent floor at 1K keys */
#define RL_BENCH_FLOOR_TARGET_RATIO 1.2   /* store / dependent floor at 1M and 10M keys */
#define RL_BENCH_FLOOR_LOG_RATIO 1.6      /* the same for sliding_log (its ring is a second line) */
#define RL_BENCH_BREAKER_TARGET_NS 5.0    /* breaker/<run>, ns/op */
#define RL_BENCH_PEER_HOT_RATIO 15.0      /* golang.org/x/time/rate hot / ratelab's nearest */
#define RL_BENCH_PEER_KEYED_RATIO 5.0     /* its keyed map / ratelab's store, 1K and 1M keys */

#ifdef __cplusplus
/* The drivers' side: each name as a std::string, from the formats above. */
#include <cstddef>
#include <cstdio>
#include <string>

namespace rlbench::names {

template <typename... Args> std::string format(const char *fmt, Args... args)
{
	char buf[256];
	std::snprintf(buf, sizeof buf, fmt, args...);
	return buf;
}

inline std::string hot(const std::string &algo, bool direct, bool answer)
{
	return format(RL_BENCH_HOT("%s", "%s"), algo.c_str(), direct ? "direct" : "ops", answer ? "answer" : "verdict");
}
inline const char *const kHotFloorCall = RL_BENCH_HOT_FLOOR("call");
inline const char *const kHotFloorChain = RL_BENCH_HOT_FLOOR("chain");
inline const char *const kHotFloorLocked = RL_BENCH_HOT_FLOOR("locked");
inline std::string clock(const std::string &algo)
{
	return format(RL_BENCH_CLOCK, algo.c_str());
}
inline const char *const kClockRead = RL_BENCH_CLOCK_READ;
inline std::string store(const std::string &algo, size_t keys, const std::string &order)
{
	return format(RL_BENCH_STORE("%s"), algo.c_str(), keys, order.c_str());
}
inline std::string store_one_thread(const std::string &algo, size_t keys, const std::string &order)
{
	return format(RL_BENCH_STORE1T("%s"), algo.c_str(), keys, order.c_str());
}
inline constexpr size_t kStoreKeysOneThread[] = RL_BENCH_STORE_KEYS_ONE_THREAD;
inline constexpr const char *kLookupAlgo = RL_BENCH_LOOKUP_ALGO;
inline constexpr size_t kLookupKeys[] = RL_BENCH_LOOKUP_KEYS;
inline std::string store_lookup(size_t keys)
{
	return store_one_thread(kLookupAlgo, keys, "uniform");
}
inline std::string floor(const std::string &algo, size_t keys, bool dependent)
{
	return format(RL_BENCH_FLOOR("%s"), algo.c_str(), keys, dependent ? "dependent" : "independent");
}
inline std::string store_mt(const std::string &algo, bool shared)
{
	return format(RL_BENCH_STORE_MT("%s"), algo.c_str(), shared ? "shared" : "disjoint");
}
inline std::string store_mt_run(const std::string &algo, bool shared, int threads)
{
	return store_mt(algo, shared) + format(RL_BENCH_MT_RUN, threads);
}
inline constexpr size_t kStoreKeys[] = RL_BENCH_STORE_KEYS;
inline constexpr size_t kStoreKeysQuick = RL_BENCH_STORE_KEYS_QUICK;
inline constexpr size_t kKeysTable = RL_BENCH_KEYS_TABLE;
inline constexpr const char *kBreakerRuns[] = RL_BENCH_BREAKER_RUNS;
inline std::string breaker(const std::string &run)
{
	return format(RL_BENCH_BREAKER, run.c_str());
}
inline constexpr const char *kRegistryTiers[] = RL_BENCH_REGISTRY_TIERS;
inline std::string registry(bool check, const std::string &tier)
{
	return format(check ? RL_BENCH_REGISTRY("check") : RL_BENCH_REGISTRY("resolve"), tier.c_str());
}
inline std::string limit(const std::string &algo)
{
	return format(RL_BENCH_LIMIT, algo.c_str());
}
inline std::string limit_mt(const std::string &algo)
{
	return format(RL_BENCH_LIMIT_MT, algo.c_str());
}
inline std::string limit_mt_run(const std::string &algo, int threads)
{
	return limit_mt(algo) + format(RL_BENCH_MT_RUN, threads);
}
inline std::string atomic(const std::string &op)
{
	return format(RL_BENCH_ATOMIC("%s"), op.c_str());
}

} // namespace rlbench::names
#endif

#endif
