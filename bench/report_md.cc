// report_md.cc - the Markdown: the tradeoff table (also embedded in the
// README) and the full report with the accuracy tables, the population, the
// targets, every measured table and one data-driven sentence per chart.
// Timed cells are "median [min-max]" over the repetitions (CV > 5% marked),
// seed-dependent simulator cells the same over the seeds (report.h).
#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "bench_names.h"
#include "report.h"

namespace report {

namespace names = rlbench::names;
namespace {


std::string keys_label(size_t n)
{
	if (n >= 1000000 && n % 1000000 == 0)
		return std::to_string(n / 1000000) + "M";
	if (n >= 1000 && n % 1000 == 0)
		return std::to_string(n / 1000) + "K";
	return std::to_string(n);
}

// a / b with the range of every pair of samples' extremes.
Stat ratio(const Stat &a, const Stat &b)
{
	Stat r;
	if (!a.measured() || !b.measured())
		return r;
	r.n = std::min(a.n, b.n);
	r.median = a.median / b.median;
	r.min = a.min / b.max;
	r.max = a.max / b.min;
	return r;
}

// "a < b" only when their ranges do not overlap.
std::string rank_pair(const std::string &a, const Stat &sa, const std::string &b, const Stat &sb, int decimals)
{
	if (!sa.measured() || !sb.measured())
		return "not measured";
	if (sa.n < 2 || sb.n < 2)
		return a + " (" + fmt(sa, decimals) + ") and " + b + " (" + fmt(sb, decimals) +
		       "): one repetition, no ranking";
	if (sa.overlaps(sb))
		return a + " (" + fmt(sa, decimals) + ") and " + b + " (" + fmt(sb, decimals) + ") are within noise";
	return a + " (" + fmt(sa, decimals) + ") is below " + b + " (" + fmt(sb, decimals) + "), the ranges apart";
}

std::string env_value(const Inputs &in, const std::string &key)
{
	for (auto &[k, v] : in.env)
		if (k == key)
			return v;
	return "-";
}

std::string mt_name(const std::string &algo, const char *kind, int threads)
{
	return names::store_mt_run(algo, std::string(kind) == "shared", threads);
}

void machine(std::ostringstream &o, const Inputs &in)
{
	o << "## Machine and libraries\n\n";
	static const char *const keys[][2] = {
		{"cpu", "CPU"}, {"cores", "cores"}, {"memory", "memory"}, {"kernel", "kernel"},
		{"os", "OS"}, {"compiler", "compiler"}, {"cmake", "CMake"}, {"benchmark", "Google Benchmark"},
		{"glibc", "glibc"}, {"gnuplot", "gnuplot"}, {"nlohmann_json", "nlohmann-json"},
		{"commit", "ratelab commit"}, {"date", "run started"}, {"make_bench", "make bench"}};
	for (auto &kv : keys)
		o << "- " << kv[1] << ": " << env_value(in, kv[0]) << "\n";
	auto bt = in.bench.context.find("library_build_type");
	o << "- build: Release (-O3), C11 library, C++17 drivers; Google Benchmark library build type as it reports itself: "
	  << (bt == in.bench.context.end() ? "n/a" : bt->second)
	  << " (Debian's package; the timed loops are ours, compiled -O3)\n"
	  << "- malloc: glibc's thresholds fixed for the whole run (mmap 64 MiB, trim 1 GiB) so that no result "
	     "depends on what earlier benchmarks freed; the breaker is also measured under glibc's defaults\n";
	std::vector<long long> sd = seeds(in);
	o << "- mode: " << in.mode << " run, " << in.bench.repetitions
	  << (in.bench.repetitions > 1 ? " repetitions per benchmark" : " repetition per benchmark (no spread: a quick run)")
	  << ", " << sd.size() << " simulator seed" << (sd.size() == 1 ? "" : "s") << " (";
	for (size_t i = 0; i < sd.size(); i++)
		o << (i ? ", " : "") << sd[i];
	o << "); the machine is shared, so figures are compared within this run only\n\n"
	  << "**Reading the figures.** A timed figure is the median of the repetitions with their range "
	     "[min–max]; \"(CV x%)\" marks a figure whose coefficient of variation (stddev / mean over the "
	     "repetitions) exceeds 5%. A simulator figure that depends on the seed is the median over the seeds "
	     "with its range. A ranking or a target verdict is stated only when the ranges do not overlap; "
	     "otherwise it reads \"within noise\". \"-\" is a figure that was not measured.\n\n";
}

// A speed-up target (>= limit): met when the whole range is at or above it.
std::string verdict_at_least(const Stat &s, double limit)
{
	if (!s.measured())
		return "not measured";
	if (s.n < 2)
		return std::string(s.median >= limit ? "met" : "**missed**") + " (one repetition, no range)";
	if (s.min >= limit)
		return "met";
	if (s.max < limit)
		return "**missed**";
	return "within noise";
}

// a + b, the range of the sums of the extremes (two costs paid one after the other).
Stat sum(const Stat &a, const Stat &b)
{
	Stat r;
	if (!a.measured() || !b.measured())
		return r;
	r.n = std::min(a.n, b.n);
	r.median = a.median + b.median;
	r.min = a.min + b.min;
	r.max = a.max + b.max;
	return r;
}

// What no implementation of a target's path avoids on this machine,
// measured in the same run; "the target is below it" when its whole range
// is above the target (a ceiling target) or below it (a speed-up target).
struct Floor {
	std::string what;
	Stat v;
	const char *unit; // " ns" or "x"
	int decimals;
};

std::string floor_cell(const Floor &f, double target, bool at_least = false)
{
	if (f.what.empty())
		return "-";
	if (!f.v.measured())
		return f.what + ": not measured";
	bool beyond = at_least ? f.v.max < target : f.v.min > target;
	return f.what + " " + fmt(f.v, f.decimals) + f.unit + (beyond ? ": **the target is beyond it**" : "");
}

void target_row(std::ostringstream &o, const std::string &target, const std::string &measured,
		const std::string &verdict, const std::string &floor)
{
	o << "| " << target << " | " << measured << " | " << verdict << " | " << floor << " |\n";
}

void targets(std::ostringstream &o, const Inputs &in)
{
	const Stat call = in.bench.stat(names::kHotFloorCall), chain = in.bench.stat(names::kHotFloorChain);
	const Stat lock = in.bench.stat(names::atomic("spinlock"));
	const Stat lookup1 = in.bench.stat(names::store_lookup(1)), lookup1k = in.bench.stat(names::store_lookup(1000));
	// the one-thread store's own part (no floor: another table could do better), beside its row's floor
	auto own_part = [](const std::string &cell, const std::string &run, const Stat &v) {
		return (cell == "-" ? "" : cell + "; ") + "not a floor, this store's own part (the call, the hash and the tag search, " +
		       run + "): " + fmt(v, 2) + " ns";
	};
	// a check called as the hot loop calls it cannot beat the same call doing nothing
	const Floor call_floor{"the loop and call alone (hot/floor/call)", call, " ns", 2};
	// a thread-safe check takes a lock at least: the same call doing nothing else
	const Floor locked_floor{"the loop, call and lock alone (hot/floor/locked)",
				 in.bench.stat(names::kHotFloorLocked), " ns", 2};

	o << "## Targets\n\nA target is met when the whole range of the repetitions is within it, missed when the "
	     "whole range is beyond it, and within noise otherwise. The last column is what bounds the target's "
	     "path on this machine, measured in the same run; where even that floor is beyond the target, the "
	     "target cannot be met here and the row says so.\n\n"
	     "| target | measured | | floor on this machine |\n|---|---|---|---|\n";
	for (const Algo &a : in.algos) {
		Stat v = in.bench.stat(names::hot(a.name, true, false));
		if (!v.measured())
			continue; // peers have no hot/ run of their own
		double bound = names::hot_target_ns(a.name);
		target_row(o, "hot key, time passed in, 1 thread, " + a.name + " <= " + fmt(bound, 0) + " ns/op",
			   fmt(v, 2) + " ns/op", verdict(v, bound),
			   floor_cell(call_floor, bound));
	}
	for (bool one : {false, true})
		for (const Algo &a : in.algos) {
			Stat v = in.bench.stat(one ? names::store_one_thread(a.name, 1, "uniform")
						   : names::store(a.name, 1, "uniform"));
			if (!v.measured())
				continue; // peers are not run through rl_store
			Floor f = one ? call_floor : locked_floor;
			std::string cell = floor_cell(f, names::kStoreTargetNs);
			if (one && lookup1.measured())
				cell = own_part(cell, names::store_lookup(1), lookup1);
			target_row(o,
				   std::string("rl_store_check, 1 key, ") +
					   (one ? "one-thread store (no locks), " : "thread-safe store, uncontended, ") +
					   a.name + " <= " + fmt(names::kStoreTargetNs, 0) + " ns/op",
				   fmt(v, 2) + " ns/op", verdict(v, names::kStoreTargetNs), cell);
		}
	// rl_limit's floors: its lock, or for gcra its 16-byte CAS and the 8-byte one a TAT-only state would take
	const Floor cas16{"load + 16-byte CAS (atomic/cas16)", in.bench.stat(names::atomic("cas16")), " ns", 2},
		cas8{"load + 8-byte CAS (atomic/cas8)", in.bench.stat(names::atomic("cas8")), " ns", 2};
	const double limit_ns = names::kLimitTargetNs;
	for (const Algo &a : in.algos) {
		Stat v = in.bench.stat(names::limit(a.name));
		if (!v.measured())
			continue;
		bool cas = a.name == "gcra";
		std::string floor = cas ? floor_cell(cas16, limit_ns) +
						  "; a state of one word (TAT alone, without the clamp's last seen "
						  "time) would take an 8-byte one: " +
						  floor_cell(cas8, limit_ns)
					: floor_cell(locked_floor, limit_ns);
		target_row(o,
			   "thread-safe single limiter (rl_limit_allow_at), uncontended, " + a.name +
				   (cas ? " (lock-free where the machine has a 16-byte CAS)" : " (spinlock)") + " <= " +
				   fmt(limit_ns, 0) + " ns/op",
			   fmt(v, 2) + " ns/op", verdict(v, limit_ns), floor);
	}
	for (size_t n : {size_t(1000), names::kKeysTable, names::kStoreKeys[std::size(names::kStoreKeys) - 1]})
		for (bool one : {false, true})
			for (const Algo &a : in.algos) {
				if (one && n != 1000)
					continue; // the one-thread rows: the cache-resident target
				Stat s = in.bench.stat(one ? names::store_one_thread(a.name, n, "uniform")
							   : names::store(a.name, n, "uniform"));
				Stat f = in.bench.stat(names::floor(a.name, n, true));
				double bound = names::floor_target_ratio(a.name, n);
				std::string what = "keyed, " + keys_label(n) + " uniform keys, " +
						   (one ? "one-thread store, " : "") + a.name + " <= " + fmt(bound, 1) +
						   "x memory floor";
				if (!s.measured() && !f.measured()) {
					if (a.name.rfind("peer_", 0) != 0)
						target_row(o, what, "-", "not run (" + in.mode + " run)", "-");
					continue;
				}
				// below the caches the lock's cost hides behind the miss; in them it adds up
				Floor fl = n == 1000 && !one ? Floor{"with the bucket lock (atomic/spinlock + floor) / floor",
								     ratio(sum(lock, f), f), "x", 2}
							     : Floor{};
				std::string cell = floor_cell(fl, bound);
				if (one && lookup1k.measured())
					cell = own_part(cell, names::store_lookup(1000), lookup1k);
				target_row(o, what,
					   fmt(ratio(s, f), 2) + "x (" + fmt(s.median, 1) + " / " + fmt(f.median, 1) + " ns)",
					   verdict(ratio(s, f), bound), cell);
			}
	for (const auto &[row, p] : in.peers) {
		if (p.name != "go_x_time_rate")
			continue; // the targets name golang.org/x/time/rate and its idiomatic keyed map
		std::string near = p.nearest.empty() ? "token_bucket" : p.nearest;
		struct {
			const char *what;
			Stat peer;
			std::string ours;
			double bound;
		} rows[] = {
			{"hot key", p.hot_ns, names::hot(near, true, false), names::kPeerHotRatio},
			{"1K keys (its keyed map)", p.keys_1k_ns, names::store(near, 1000, "uniform"), names::kPeerKeyedRatio},
			{"1M keys (its keyed map)", p.keys_1m_ns, names::store(near, 1000000, "uniform"), names::kPeerKeyedRatio},
		};
		for (auto &r : rows) {
			Stat sp = ratio(r.peer, in.bench.stat(r.ours));
			target_row(o, std::string(r.what) + ": " + p.name + " / " + near + " >= " + fmt(r.bound, 0) + "x",
				   fmt(sp, 1) + "x (" + fmt(r.peer.median, 1) + " / " + fmt(in.bench.stat(r.ours).median, 1) +
					   " ns)",
				   verdict_at_least(sp, r.bound), "-");
		}
	}
	if (!in.peers_run)
		target_row(o,
			   "against golang.org/x/time/rate: >= " + fmt(names::kPeerHotRatio, 0) + "x hot, >= " +
				   fmt(names::kPeerKeyedRatio, 0) + "x its keyed map at 1K and 1M keys",
			   "-", "not run (no results/bench/peers.json)", "-");
	for (const char *b : names::kBreakerRuns) {
		Stat v = in.bench.stat(names::breaker(b));
		target_row(o,
			   std::string("breaker handle at limit 10^6, amortised (") + b + ") <= " +
				   fmt(names::kBreakerTargetNs, 0) + " ns/op",
			   fmt(v, 2) + " ns/op", verdict(v, names::kBreakerTargetNs),
			   floor_cell(call_floor, names::kBreakerTargetNs));
	}
	o << "\nThe memory floor is the dependent (pointer-chasing) random 16-byte read over an array as large "
	     "as the same algorithm's store at that key count at its largest (after the fill, or after its timed "
	     "runs: sliding_log's rings grow from one run per key to about N), in the same run: the latency of the one miss a "
	     "keyed check cannot avoid. A ratio's range is [min store / max floor – max store / min floor]. The "
	     "independent-load floor (overlapping misses) is in the keyed table. A speed-up over a peer is the "
	     "peer's ns/op over ratelab's nearest algorithm's (results/bench/peers.json names it); the peers' "
	     "keyed maps are thread-safe, so they are compared with the thread-safe store.\n\n"
	     "The floors. *hot/floor/call*: the hot loop with a check that does nothing (the call and return "
	  << "alone): " << fmt(call, 2)
	  << " ns; no check called the same way is faster, so it is the hot rows' floor. *hot/floor/chain*, "
	     "for reference: a minimal one-word check in the same loop (gcra's rule on one int64: loaded, raised "
	     "to now, compared, stored back, the next check's load waiting on that store): "
	  << fmt(chain, 2)
	  << " ns; it is not a floor, as a full check can run as fast (the chain overlaps the call). "
	     "*hot/floor/locked*: the same empty check taking and dropping a spinlock as the library's (exchange, "
	     "release store): "
	  << fmt(in.bench.stat(names::kHotFloorLocked), 2)
	  << " ns; no thread-safe check is faster (each takes a lock or a compare-and-swap), so it is the floor "
	     "of the thread-safe single-key rows. The "
	     "single-key entries' repetitions are randomly interleaved in the run (bench/run.sh), and so, in a "
	     "pass of their own, are the 1K rows' (both stores) with their memory floors', so that each target and "
	     "its floor are measured over the same moments of this shared host. A thread-safe check also takes one locked "
	     "read-modify-write, measured alone here (atomic/*, one thread, in a process that has had a second "
	     "thread, as a program that needs a thread-safe check has: glibc's locks skip the lock prefix until "
	     "then): the spinlock of the store's buckets and of rl_limit (exchange + release store) "
	  << fmt(lock, 2) << " ns, pthread lock + unlock (two locked operations, for comparison) "
	  << fmt(in.bench.stat(names::atomic("mutex")), 2)
	  << " ns, load + 8-byte compare-and-swap " << fmt(in.bench.stat(names::atomic("cas8")), 2)
	  << " ns, load + 16-byte compare-and-swap " << fmt(in.bench.stat(names::atomic("cas16")), 2)
	  << " ns. The one-thread store (rl_store_config.one_thread, for a store per worker thread) takes no "
	     "lock, so its rows show the check without that cost.";
	if (lookup1.measured())
		o << " What that store itself costs is measured by running it with an algorithm that decides nothing "
		     "(admits every request, reads no state; *store1t/lookup/1* and */1000*): the call, hashing the 8-byte key "
		     "and comparing the 16 tags of its first bucket (and of its second for the about 5 % of keys "
		     "stored there) take "
		  << fmt(lookup1, 2) << " ns at 1 key and " << fmt(lookup1k, 2)
		  << " ns at 1K keys. That is this table's cost, not the machine's (a table that searched fewer "
		     "slots per key would pay less here, and hold fewer keys for its size before it must evict); each "
		     "algorithm's one-thread row is that plus its own check. Each figure is interleaved with the rows of "
		     "its key count.";
	o << "\n\n";
}

void hot(std::ostringstream &o, const Inputs &in)
{
	o << "## Hot key, one thread\n\n"
	     "Rule N = 100 per W = 1 s, B = N; time passed in and advanced by W/N/2 per request (about half "
	     "admitted). *direct* calls the ops table's verdict or check op through a pointer loaded once, *ops* calls `rl_limiter_check` (the strategy "
	     "table); *verdict* passes out = NULL, *answer* fills `struct rl_decision`. *clock* reads "
	     "CLOCK_MONOTONIC per request (`clock_gettime` alone: "
	  << fmt(in.bench.stat(names::kClockRead), 1) << " ns).\n\n"
	  << "*rl_limit* is the thread-safe single limiter (`rl_limit_allow_at`, verdict only, one thread: its "
	     "spinlock, or for gcra its lock-free compare-and-swap).\n\n"
	  << "| algorithm | direct verdict | direct answer | ops verdict | ops answer | with clock read | rl_limit | admitted % |\n"
	     "|---|---|---|---|---|---|---|---|\n";
	for (const Algo &a : in.algos) {
		auto hot = [&](bool direct, bool answer) { return names::hot(a.name, direct, answer); };
		if (!in.bench.stat(hot(true, false)).measured())
			continue;
		o << "| " << a.name << " | " << fmt(in.bench.stat(hot(true, false)), 2) << " | "
		  << fmt(in.bench.stat(hot(true, true)), 2) << " | " << fmt(in.bench.stat(hot(false, false)), 2)
		  << " | " << fmt(in.bench.stat(hot(false, true)), 2) << " | " << fmt(in.bench.stat(names::clock(a.name)), 2)
		  << " | " << fmt(in.bench.stat(names::limit(a.name)), 2)
		  << " | " << fmt(in.bench.counter(hot(true, false), "allowed_pct"), 1) << " |\n";
	}
	o << "\nns/op.\n\n";
}

void keyed(std::ostringstream &o, const Inputs &in)
{
	o << "## Keyed: the store\n\n"
	     "`rl_store_check`, verdict only, one thread, on the thread-safe store (bucket locks) and, at 1, 1K "
	     "and 1M keys, on a one-thread store (`rl_store_config.one_thread`: no locks, for a store per worker "
	     "thread); the store is created for exactly the number of keys "
	     "and filled before timing; keys are 8-byte ids drawn beforehand (uniform, or Zipf with exponent "
	     "0.99); time advances by max(1, W / (2 N keys)) ns per request; every timed check finds its key (no insertion, so no eviction). Bytes per key: the store's own "
	     "`rl_store_stats` (all-in: table, keys, state heap) and, as a cross-check, the allocator's growth "
	     "over create + fill (mallinfo2).\n\n"
	     "| algorithm | keys | uniform ns/op | Zipf ns/op | one-thread uniform | floor dependent | floor independent | uniform / floor | one-thread / floor | store B/key | malloc B/key |\n"
	     "|---|---|---|---|---|---|---|---|---|---|---|\n";
	for (const Algo &a : in.algos)
		for (size_t n : key_counts(in)) {
			const std::string uniform = names::store(a.name, n, "uniform");
			Stat u = in.bench.stat(uniform), fd = in.bench.stat(names::floor(a.name, n, true));
			if (!u.measured())
				continue;
			Stat one = in.bench.stat(names::store_one_thread(a.name, n, "uniform"));
			o << "| " << a.name << " | " << keys_label(n) << " | " << fmt(u, 1) << " | "
			  << fmt(in.bench.stat(names::store(a.name, n, "zipf")), 1) << " | " << fmt(one, 1) << " | "
			  << fmt(fd, 1) << " | " << fmt(in.bench.stat(names::floor(a.name, n, false)), 1) << " | "
			  << fmt(ratio(u, fd), 2) << "x | " << (one.measured() ? fmt(ratio(one, fd), 2) + "x" : "-") << " | "
			  << fmt(in.bench.counter(uniform, "store_bytes_per_key"), 1) << " | "
			  << fmt(in.bench.counter(uniform, "malloc_bytes_per_key"), 1) << " |\n";
		}
	o << "\n### Threads\n\n"
	     "`rl_store_check` on one key shared by every thread, or one key per thread (disjoint keys, in "
	     "different buckets of a store sized for 4096 keys). ns/op is wall time over the requests of all "
	     "threads (the inverse of the total rate), so perfect scaling halves it at 2 threads. The machine has "
	  << env_value(in, "cores") << " cores, shared with other work.\n\n"
	  << "*rl_limit*: the thread-safe single limiter's unnamed key (`rl_limit_allow_at`) shared by every "
	     "thread, each advancing its own time by W/N/2 (the contended cost; gcra's is lock-free).\n\n"
	  << "| algorithm | shared, 1 thread | shared, 2 threads | disjoint, 1 thread | disjoint, 2 threads | disjoint speed-up, 2 threads | rl_limit, 1 thread | rl_limit, 2 threads |\n"
	     "|---|---|---|---|---|---|---|---|\n";
	for (const Algo &a : in.algos) {
		if (!in.bench.stat(mt_name(a.name, "shared", 1)).measured())
			continue;
		o << "| " << a.name << " | " << fmt(in.bench.stat(mt_name(a.name, "shared", 1)), 1) << " | "
		  << fmt(in.bench.stat(mt_name(a.name, "shared", 2)), 1) << " | "
		  << fmt(in.bench.stat(mt_name(a.name, "disjoint", 1)), 1) << " | "
		  << fmt(in.bench.stat(mt_name(a.name, "disjoint", 2)), 1) << " | "
		  << fmt(ratio(in.bench.stat(mt_name(a.name, "disjoint", 1)), in.bench.stat(mt_name(a.name, "disjoint", 2))), 2)
		  << "x | " << fmt(in.bench.stat(names::limit_mt_run(a.name, 1)), 1) << " | "
		  << fmt(in.bench.stat(names::limit_mt_run(a.name, 2)), 1) << " |\n";
	}
	o << "\n";
}

void breaker(std::ostringstream &o, const Inputs &in)
{
	o << "## Circuit breaker\n\n"
	     "`rl_breaker_handle` at limit 10^6, window 1 s, open 100 ms: *at_limit* offers exactly the limit "
	     "(stays CLOSED: one admission and one expiry per call), *overload* offers twice it (fills, opens, "
	     "probes, closes: the whole cycle amortised); *overload_cold_malloc* is overload under glibc's "
	     "initial malloc thresholds (the breaker keeps its ring across openings, so this should match "
	     "*overload*; every other benchmark runs with the thresholds fixed high, so that no result depends "
	     "on the allocations of the benchmarks before it).\n\n"
	     "| run | ns/op | admitted % |\n|---|---|---|\n";
	for (const char *b : names::kBreakerRuns)
		o << "| " << b << " | " << fmt(in.bench.stat(names::breaker(b)), 2) << " | "
		  << fmt(in.bench.counter(names::breaker(b), "allowed_pct"), 1) << " |\n";
	o << "\nThe simulator's breaker runs (`results/sim/breaker.csv`; median [range] over the seeds):\n\n"
	     "| scenario | requests | rejected % | openings | CLOSED s | OPEN s | HALF_OPEN s | max in window |\n"
	     "|---|---|---|---|---|---|---|---|\n";
	std::vector<std::string> names;
	for (size_t i = 0; i < in.breaker.rows.size(); i++)
		if (std::find(names.begin(), names.end(), in.breaker.at(i, "scenario")) == names.end())
			names.push_back(in.breaker.at(i, "scenario"));
	for (const std::string &n : names) {
		auto col = [&](const char *c, double scale) {
			std::vector<double> v;
			for (size_t i = 0; i < in.breaker.rows.size(); i++)
				if (in.breaker.at(i, "scenario") == n)
					v.push_back(in.breaker.num(i, c) * scale);
			return Stat::of(v);
		};
		o << "| " << n << " | " << fmt(col("requests", 1), 0) << " | " << fmt(col("rejected_pct", 1), 2) << " | "
		  << fmt(col("openings", 1), 0) << " | " << fmt(col("closed_ns", 1e-9), 2) << " | "
		  << fmt(col("open_ns", 1e-9), 2) << " | " << fmt(col("half_open_ns", 1e-9), 2) << " | "
		  << fmt(col("max_in_window", 1), 0) << " |\n";
	}
	o << "\n";
}

void registry(std::ostringstream &o, const Inputs &in)
{
	o << "## Registry: client id -> tier -> limiter\n\n"
	     "The tiers of examples/tiers.ini (free: token_bucket, the default for unmapped ids; premium: gcra, "
	     "1000 mapped ids; otp: sliding_log; internal: unlimited), 1000 ids per tier in turn. *resolve* "
	     "finds the tier; *check* resolves and decides in the tier's store.\n\n"
	     "| tier | resolve ns/op | check ns/op |\n|---|---|---|\n";
	for (const char *t : names::kRegistryTiers)
		o << "| " << t << " | " << fmt(in.bench.stat(names::registry(false, t)), 1) << " | "
		  << fmt(in.bench.stat(names::registry(true, t)), 1) << " |\n";
	o << "\n";
}

// The accuracy word, from the measured columns only, so that it cannot disagree with them.
std::string measured_words(const Figures &f)
{
	if (!f.over_n_pct.measured())
		return "not measured";
	std::string w;
	bool over = f.over_n_pct.max > 0, rejects = f.false_reject_pct.max > 0;
	if (!over && !rejects)
		w = "exact: never more than N in a window W, no false rejects";
	else {
		if (over)
			w = "over N on " + fmt(f.over_n_pct.median, 1) + "% of requests, up to " + fmt(f.worst_ratio.max, 2) +
			    "x N in one W";
		else
			w = "never over N";
		w += rejects ? "; false rejects on " + fmt(f.false_reject_pct.median, 1) + "% of requests" : "; no false rejects";
	}
	if (f.beyond_bound_pct.measured())
		w += f.beyond_bound_pct.max > 0 ? "; **beyond its own bound**" : "; within its own bound";
	return w;
}

void qualitative(std::ostringstream &o, const Inputs &in)
{
	o << "### Qualitative\n\nThe accuracy words are written from the measured columns above; the other "
	     "columns are the study notes'.\n\n| algorithm | accuracy (measured) | memory per key | bursts | choose when | source |\n"
	     "|---|---|---|---|---|---|\n";
	std::vector<Figures> figs = figures(in);
	for (size_t i = 0; i < in.quals.rows.size(); i++) {
		std::string words = "not measured";
		for (const Figures &f : figs)
			if (f.algo == in.quals.at(i, "algo"))
				words = measured_words(f);
		o << "| " << in.quals.at(i, "algo") << " | " << words << " | " << in.quals.at(i, "memory") << " | "
		  << in.quals.at(i, "bursts") << " | " << in.quals.at(i, "choose_when") << " | " << in.quals.at(i, "source")
		  << " |\n";
	}
	o << "\n";
}

std::vector<std::string> scenario_names(const Csv &s)
{
	std::vector<std::string> names;
	for (size_t i = 0; i < s.rows.size(); i++)
		if (std::find(names.begin(), names.end(), s.at(i, "scenario")) == names.end())
			names.push_back(s.at(i, "scenario"));
	return names;
}

// One table: scenarios down, algorithms across, one summary column per cell (median [range] over the seeds).
void per_scenario(std::ostringstream &o, const Inputs &in, const Csv &csv, const std::string &title,
		  const std::string &col, int decimals, const std::string &note, const std::string &plus = "")
{
	auto value = [&](size_t i) { return csv.num(i, col) + (plus.empty() ? 0 : csv.num(i, plus)); };
	bool all_zero = !csv.empty(), any = false;
	for (size_t i = 0; i < csv.rows.size(); i++) {
		double x = value(i);
		any = any || !std::isnan(x);
		all_zero = all_zero && (std::isnan(x) || x == 0);
	}
	if (all_zero && any) {
		o << "#### " << title << "\n\n" << note << "\n\n**0 for every algorithm, scenario and seed.**\n\n";
		return;
	}
	o << "#### " << title << "\n\n" << note << "\n\n| scenario |";
	for (const Algo &a : in.algos)
		o << ' ' << a.name << " |";
	o << "\n|---|";
	for (size_t i = 0; i < in.algos.size(); i++)
		o << "---|";
	o << '\n';
	for (const std::string &n : scenario_names(csv)) {
		o << "| " << n << " |";
		for (const Algo &a : in.algos) {
			std::vector<double> v;
			for (size_t i = 0; i < csv.rows.size(); i++)
				if (csv.at(i, "scenario") == n && csv.at(i, "algo") == a.name)
					v.push_back(value(i));
			o << ' ' << fmt(Stat::of(v), decimals) << " |";
		}
		o << '\n';
	}
	o << '\n';
}

void accuracy(std::ostringstream &o, const Inputs &in)
{
	o << "## Accuracy, per scenario\n\n"
	     "Three different questions, kept apart. **(a) Over-admission against the rule N per W**: what the "
	     "algorithm let through beyond N in a window of length W — by design for the bucket algorithms "
	     "(their burst B), by construction for fixed_window (2N across an edge) — and whether it ever went "
	     "beyond its *own* documented bound (a correctness check: must be 0). **(b) Harm to well-behaved "
	     "clients**: false rejects (rejected while fewer than N were admitted in (t − W, t]) and the extra "
	     "wait of clients that retry politely. **(c) Divergence from the exact sliding log**: an independent "
	     "sliding_log fed the same requests, decided differently (it cascades once the admitted sets differ, "
	     "so it is not a count of errors).\n\n";
	per_scenario(o, in, in.summary, "(a) largest count in any window of length W, over N", "max_window_ratio", 2,
		     "max_in_window / N: 1 is exactly the rule; 2 is twice N in one window.");
	per_scenario(o, in, in.summary, "(a) over-N admissions, % of requests", "false_allow_pct", 3,
		     "Admissions that left more than N admitted in (t − W, t] of the key's own admitted history.");
	per_scenario(o, in, in.summary, "(a) long-run admitted rate over N", "long_run_rate_ratio", 3,
		     "admitted / (active keys × N × duration / W).");
	per_scenario(o, in, in.summary, "(a) admissions beyond the algorithm's own bound, % of admissions",
		     "beyond_bound_pct", 3,
		     "Own bound: `rl_limiter_max_admitted(lim, W − 1)`, stated in each algorithm's header (e.g. token "
		     "bucket B + ⌊N(W−1)/W⌋, fixed window 2N, sliding log N). Anything but 0 is a bug.");
	per_scenario(o, in, in.summary, "(b) false rejects, % of requests", "false_reject_pct", 3,
		     "Rejected although fewer than N were admitted in (t − W, t].");
	per_scenario(o, in, in.summary, "(b) polite clients' mean wait, ms", "client_wait_ms_mean", 1,
		     "From a request's first send to its admission, over the requests of clients that retry after "
		     "retry_after_ns and were served (scenarios with such clients only; compare with sliding_log's "
		     "column for the extra wait). leaky_bucket's queueing delay (delay_ns) is not included.");
	per_scenario(o, in, in.summary, "(b) polite clients who gave up, % of their requests", "client_gave_up_pct", 2,
		     "Rejected on their last allowed retry.");
	per_scenario(o, in, in.diverged, "(c) divergence from the exact sliding log, % of requests",
		     "diverged_allow_pct", 3,
		     "Decided unlike the independent sliding_log: admitted where it rejected plus rejected where it "
		     "admitted (each share apart in `results/sim/diverged.csv`).",
		     "diverged_reject_pct");
	per_scenario(o, in, in.summary, "Fairness: Jain's index", "jain_index", 3,
		     "The least over the sources that pick keys uniformly (keys of equal demand); \"-\" where no "
		     "source does (Zipf-keyed, replayed): nothing comparable was measured.");
}

void population(std::ostringstream &o, const Inputs &in)
{
	std::string pop = population_scenario(in);
	auto cell = [&](const std::string &algo, const std::string &col) { return cell_over_seeds(in, pop, algo, col); };
	Stat fa = cell("sliding_counter", "false_allow_pct"), fr = cell("sliding_counter", "false_reject_pct");
	std::vector<double> total, div;
	for (size_t i = 0; i < in.summary.rows.size(); i++)
		if (in.summary.at(i, "scenario") == pop && in.summary.at(i, "algo") == "sliding_counter")
			total.push_back(in.summary.num(i, "false_allow_pct") + in.summary.num(i, "false_reject_pct"));
	for (size_t i = 0; i < in.diverged.rows.size(); i++)
		if (in.diverged.at(i, "scenario") == pop && in.diverged.at(i, "algo") == "sliding_counter")
			div.push_back(in.diverged.num(i, "diverged_allow_pct") + in.diverged.num(i, "diverged_reject_pct"));
	o << "## A Cloudflare-style population\n\n"
	     "Cloudflare (2017) reported that its sliding-window counter decided 0.003% of 400 million requests "
	     "from 270,000 sources wrongly, with a 6% average difference between its estimated and the real "
	     "rate. Scenario `" << pop << "` (`sim/scenarios/population.ini`) is modelled on that setup: one rule of "
	  << fmt(cell("sliding_counter", "limit").median, 0) << " requests per "
	  << fmt(cell("sliding_counter", "window_ns").median / 1e9, 0) << " s for every source; 30,000 sources "
	     "(25,000 Poisson at a mean 10% of the limit, 5,000 on/off at 60% while ON, ON 10 s of 60 s on "
	     "average), each group's rates heavy-tailed (Zipf(0.5) over its keys), so most sources are far under "
	     "the limit and a few far above; 10 minutes; "
	  << fmt(cell("sliding_counter", "requests"), 0) << " requests. Every request counts: the rates are "
	     "over all requests of the population, the well-behaved included (ratelab's counter counts admitted "
	     "requests, Cloudflare's every request; for a source under its limit the two agree).\n\n"
	     "| sliding_counter on `" << pop << "` | this run | Cloudflare 2017 |\n|---|---|---|\n"
	  << "| over-N admissions, % of requests | " << fmt(fa, 4) << " | |\n"
	  << "| false rejects, % of requests | " << fmt(fr, 4) << " | |\n"
	  << "| decided wrongly (both), % of requests | " << fmt(Stat::of(total), 4) << " | 0.003 |\n"
	  << "| diverged from an independent sliding log, % of requests | " << fmt(Stat::of(div), 4) << " | |\n"
	  << "| average difference, the counter's estimate vs the exact count in (t − W, t], % | "
	  << fmt(cell("sliding_counter", "estimate_diff_pct"), 2) << " | 6 |\n"
	  << "| heavy sources (asked for more than N per W on average), % of sources | "
	  << fmt(cell("sliding_counter", "heavy_keys_pct"), 2) << " | |\n"
	  << "| their share of the requests, % | " << fmt(cell("sliding_counter", "heavy_requests_pct"), 2) << " | |\n"
	  << "| their share of the wrong decisions, % | " << fmt(cell("sliding_counter", "heavy_false_pct"), 2)
	  << " | |\n\n";

	auto sweep = load_sweep(in);
	auto sc_total = [&](const std::string &name) {
		std::vector<double> v;
		for (size_t i = 0; i < in.summary.rows.size(); i++)
			if (in.summary.at(i, "scenario") == name && in.summary.at(i, "algo") == "sliding_counter")
				v.push_back(in.summary.num(i, "false_allow_pct") + in.summary.num(i, "false_reject_pct"));
		return Stat::of(v);
	};
	std::string zero_upto = "-", first_err = "-";
	for (auto &[load, name] : sweep) {
		Stat t = sc_total(name);
		if (t.measured() && t.max == 0)
			zero_upto = std::to_string(load) + "%";
		else if (first_err == "-")
			first_err = fmt(t.median, 3) + "% at " + std::to_string(load) + "%";
	}
	std::string at_100 = "-", at_top = "-";
	for (auto &[load, name] : sweep) {
		if (load == 100)
			at_100 = fmt(sc_total(name).median, 2) + "%";
		at_top = fmt(sc_total(name).median, 2) + "% at " + std::to_string(load) + "%";
	}
	bool reproduced = Stat::of(total).measured() && Stat::of(total).max <= 0.03;
	o << "**Which sources carry the error.** In the load sweep (Poisson sources, all at one load, one key "
	     "each), sliding_counter decides no request wrongly up to " << zero_upto << " of the limit, then "
	  << first_err << ", " << at_100 << " at 100% and " << at_top
	  << ": the error belongs to sources whose rate comes near or over N, where the weighted estimate of "
	     "the previous window decides near the threshold; sources far under it are never wrong. In the "
	     "population the few heavy sources (above N on average) send "
	  << fmt(cell("sliding_counter", "heavy_requests_pct").median, 1) << "% of the requests and carry "
	  << fmt(cell("sliding_counter", "heavy_false_pct").median, 1)
	  << "% of the wrong decisions; the rest fall on sources under N on average whose bursts (on/off ON "
	     "periods, Poisson clusters) run them near it for a while. The published figure is "
	  << (reproduced ? "reproduced to within a factor of 10" : "not reproduced")
	  << ": the share of wrong decisions is set by the share of traffic from sources near or above their "
	     "limit, which this population puts at "
	  << fmt(cell("sliding_counter", "heavy_requests_pct").median, 1)
	  << "% and Cloudflare's did not publish; a population with less traffic near the limit gives a "
	     "smaller figure, one with more a larger. The average difference is the mean of |estimate − exact| / "
	     "exact over the requests that find an admitted request in their window (prev · (W − e) / W + curr "
	     "against the exact count of the key's admitted requests): it is largest for sources with few "
	     "requests per window, where one request is a large share of the count — in the load sweep it "
	     "falls from "
	  << fmt(cell_over_seeds(in, sweep.empty() ? "" : sweep.front().second, "sliding_counter", "estimate_diff_pct").median, 1)
	  << "% at " << (sweep.empty() ? 0 : sweep.front().first) << "% load to "
	  << fmt(cell_over_seeds(in, sweep.empty() ? "" : sweep.back().second, "sliding_counter", "estimate_diff_pct").median, 1)
	  << "% at " << (sweep.empty() ? 0 : sweep.back().first)
	  << "% (N = 100 per window), while most of the population's sources send a handful per minute "
	     "against N = 50.\n\n";
}

void weighted(std::ostringstream &o, const Inputs &in)
{
	o << "## Weighted requests\n\n";
	Csv w = load_csv(in.results + "/sim/weighted/summary.csv", kSummaryColumns);
	if (w.empty()) {
		o << "not run (no weighted scenarios: `sim/scenarios/weighted/` absent when `make bench` ran).\n\n";
		return;
	}
	Csv wd = load_csv(in.results + "/sim/weighted/diverged.csv");
	o << "Each request costs units (cost distributions per scenario, `sim/scenarios/weighted/`); every "
	     "figure counts units against N units per W.\n\n";
	per_scenario(o, in, w, "(a) largest count in any window of length W, over N", "max_window_ratio", 2, "In units.");
	per_scenario(o, in, w, "(a) over-N admissions, % of requests", "false_allow_pct", 3,
		     "Admissions that left more than N units admitted in (t − W, t].");
	per_scenario(o, in, w, "(a) admissions beyond the algorithm's own bound, % of admissions", "beyond_bound_pct", 3,
		     "Must be 0.");
	per_scenario(o, in, w, "(b) false rejects, % of requests", "false_reject_pct", 3,
		     "Rejected although admitting it would have left at most N units in (t − W, t].");
	if (!wd.empty())
		per_scenario(o, in, wd, "(c) divergence from the exact sliding log, % of requests", "diverged_allow_pct", 3,
			     "Decided unlike an independent sliding_log fed the same requests.", "diverged_reject_pct");
}

// One sentence per chart, from the figures it draws.
// The bytes probe's rows: each algorithm's state bytes by the limit N.
// Which algorithms' state grows with N is read from them, not known by name.
std::map<std::string, std::map<double, double>> state_bytes_by_limit(const Inputs &in)
{
	std::map<std::string, std::map<double, double>> by;
	for (size_t i = 0; i < in.bytes_limit.rows.size(); i++)
		by[in.bytes_limit.at(i, "algo")][in.bytes_limit.num(i, "limit")] = in.bytes_limit.num(i, "state_bytes");
	return by;
}

// The least and the most of a probe's bytes over N.
std::pair<double, double> least_most(const std::map<double, double> &bytes)
{
	std::pair<double, double> r{NAN, NAN};
	for (const auto &[n, b] : bytes)
		r = {std::isnan(r.first) ? b : std::min(r.first, b), std::isnan(r.second) ? b : std::max(r.second, b)};
	return r;
}

void charts(std::ostringstream &o, const Inputs &in)
{
	std::vector<Figures> figs = figures(in);
	o << "## Charts\n\n";

	std::vector<const Figures *> by_ns;
	for (const Figures &f : figs)
		if (f.ns_hot.measured())
			by_ns.push_back(&f);
	std::sort(by_ns.begin(), by_ns.end(), [](const Figures *a, const Figures *b) { return a->ns_hot.median < b->ns_hot.median; });
	o << "![tradeoff](plots/tradeoff.png)\n\nEach algorithm's point is labelled with its name: left, over-N "
	     "admissions (% of requests, (a)); right, false rejects (% of requests, (b)); both against hot-key "
	     "ns/op, with the range over the repetitions (x) and over the seeds (y). ";
	if (by_ns.size() >= 2)
		o << "Cheapest checks: " << rank_pair(by_ns[0]->algo, by_ns[0]->ns_hot, by_ns[1]->algo, by_ns[1]->ns_hot, 2)
		  << ". ";
	o << "sliding_log, the exact rule, sits at zero on both.\n\n";

	std::string bnd = boundary_scenario(in);
	double max_ratio = NAN;
	std::string max_algo;
	for (size_t i = 0; i < in.summary.rows.size(); i++)
		if (in.summary.at(i, "scenario") == bnd && !(in.summary.num(i, "max_window_ratio") <= max_ratio)) {
			max_ratio = in.summary.num(i, "max_window_ratio");
			max_algo = in.summary.at(i, "algo");
		}
	o << "![boundary](plots/boundary.png)\n\nAdmitted per time bucket under the window-boundary attack (scenario `"
	  << bnd << "`, seed " << (seeds(in).empty() ? 0 : seeds(in).front()) << "), one panel per algorithm: the most "
	     "admitted in any window of length W is " << fmt(max_ratio, 2) << "x N, by " << max_algo << ".\n\n";

	auto sweep = load_sweep(in);
	o << "![load sweep](plots/load_sweep.png)\n\nOver-N admissions and false rejects (% of requests) against "
	     "offered load for every algorithm (sweep `"
	  << (sweep.empty() ? "" : sweep.front().second) << "` ...; median over " << seeds(in).size()
	  << " seeds, bars min–max). At " << (sweep.empty() ? 0 : sweep.back().first) << "% load: ";
	for (size_t i = 0; i < figs.size(); i++)
		if (!sweep.empty())
			o << (i ? ", " : "") << figs[i].algo << " "
			  << fmt(cell_over_seeds(in, sweep.back().second, figs[i].algo, "false_allow_pct"), 2) << " / "
			  << fmt(cell_over_seeds(in, sweep.back().second, figs[i].algo, "false_reject_pct"), 2);
	o << ".\n\n";

	double lo = NAN, hi = NAN;
	for (const Figures &f : figs)
		if (f.ns_1m.measured() && !f.peer) {
			double r = f.ns_1m.median / in.bench.ns(names::floor(f.algo, names::kKeysTable, true));
			lo = std::isnan(lo) ? r : std::min(lo, r);
			hi = std::isnan(hi) ? r : std::max(hi, r);
		}
	o << "![keys](plots/keys.png)\n\nns/op of the store against the number of keys (uniform order, log x; "
	     "medians, the ranges are in the keyed table) with the memory floors, and each peer's own keyed map "
	     "at the 1K and 1M keys its driver measures (points): at 1M keys the store costs "
	  << fmt(lo, 2) << "x to " << fmt(hi, 2) << "x the dependent-load floor (medians).\n\n";

	double sl_max = NAN, fixed_lo = NAN, fixed_hi = NAN;
	std::string growing;
	for (const auto &[algo, bytes] : state_bytes_by_limit(in)) {
		std::pair<double, double> r = least_most(bytes);
		if (r.second > r.first) {
			growing += (growing.empty() ? "" : " and ") + algo;
			sl_max = std::isnan(sl_max) ? r.second : std::max(sl_max, r.second);
		} else {
			fixed_lo = std::isnan(fixed_lo) ? r.first : std::min(fixed_lo, r.first);
			fixed_hi = std::isnan(fixed_hi) ? r.second : std::max(fixed_hi, r.second);
		}
	}
	o << "![bytes per key](plots/bytes_limit.png)\n\nBytes of state per key after N admissions at distinct "
	     "times in one window, against the limit N (log-log): "
	  << growing << " grows linearly to "
	  << fmt(sl_max / 1048576.0, 1) << " MiB at N = 10^6 while every other algorithm stays at "
	  << fmt(fixed_lo, 0) << " to " << fmt(fixed_hi, 0) << " B whatever N (lines of equal size coincide).\n\n";

	std::string bs = breaker_scenario(in);
	std::string openings = "-";
	for (size_t i = 0; i < in.breaker.rows.size(); i++)
		if (in.breaker.at(i, "scenario") == bs) {
			openings = in.breaker.at(i, "openings");
			break;
		}
	o << "![breaker](plots/breaker.png)\n\nThe breaker's state over time (bottom) under the traffic offered to it "
	     "(top: requests per second in each time bucket, with the breaker's limit), scenario `" << bs
	  << "`, seed " << (seeds(in).empty() ? 0 : seeds(in).front()) << ": it opened " << openings << " times.\n\n";

	Stat peak;
	int peak_load = 0;
	for (auto &[load, name] : sweep) {
		std::vector<double> v;
		for (size_t i = 0; i < in.summary.rows.size(); i++)
			if (in.summary.at(i, "scenario") == name && in.summary.at(i, "algo") == "sliding_counter")
				v.push_back(in.summary.num(i, "false_allow_pct") + in.summary.num(i, "false_reject_pct"));
		Stat s = Stat::of(v);
		if (!(s.median <= peak.median)) {
			peak = s;
			peak_load = load;
		}
	}
	o << "![sliding_counter error](plots/sc_error.png)\n\nsliding_counter on one key per source at each offered "
	     "load (the sweep): over-N admissions plus false rejects peak at " << fmt(peak, 3) << "% of requests (at "
	  << peak_load << "% load; each decision judged on the algorithm's own admitted history). The population "
	     "line is the same metric on the Cloudflare-style population, the dashed line Cloudflare's published "
	     "0.003% — a population of sources mostly far under their limit, all requests counted (see the "
	     "population section for why the figures differ).\n\n";
}

// "The answer": which algorithm for which need, each with the measured
// figure that decides it (the tradeoff table's figures; the fleet's run).
void answer(std::ostringstream &o, const Inputs &in)
{
	std::vector<Figures> figs = figures(in);
	std::vector<const Figures *> own;
	for (const Figures &f : figs)
		if (!f.peer)
			own.push_back(&f);
	auto find = [&](const std::string &name) -> const Figures * {
		for (const Figures *f : own)
			if (f->algo == name)
				return f;
		return nullptr;
	};
	auto least = [&](auto key) {
		const Figures *best = nullptr;
		for (const Figures *f : own)
			if (!std::isnan(key(*f)) && (!best || key(*f) < key(*best)))
				best = f;
		return best;
	};
	auto second = [&](auto key, const Figures *first) {
		const Figures *best = nullptr;
		for (const Figures *f : own)
			if (f != first && !std::isnan(key(*f)) && (!best || key(*f) < key(*best)))
				best = f;
		return best;
	};
	o << "## The answer\n\nWhich algorithm for which need, each with the figure of this run that decides it; "
	     "the sections below hold every figure and how it was measured.\n\n"
	     "| need | algorithm | the deciding figure |\n|---|---|---|\n";

	// exact windows: the fewest over-N admissions, then the lowest max in W / N
	auto over = [](const Figures &f) { return f.over_n_pct.median + f.worst_ratio.median * 1e-9; };
	if (const Figures *e = least(over)) {
		const Figures *next = second(over, e);
		o << "| exact windows (never more than N in any W) | " << e->algo << " | over-N admissions "
		  << fmt(e->over_n_pct, 3) << " %, the most in any W " << fmt(e->worst_ratio, 2) << " x N, false rejects "
		  << fmt(e->false_reject_pct, 3) << " %";
		if (next)
			o << "; the next, " << next->algo << ": " << fmt(next->over_n_pct, 3) << " % over N";
		o << " |\n";
	}
	// memory per key: the least bytes per key at 1M keys (all-in), else the state's size
	auto bytes = [](const Figures &f) { return std::isnan(f.allin_1m) ? f.state_bytes : f.allin_1m; };
	if (const Figures *m = least(bytes)) {
		o << "| memory per key | " << m->algo << " | " << fmt(m->state_bytes, 0) << " B of state, "
		  << fmt(m->allin_1m, 1) << " B per key all-in at 1M keys";
		if (const Figures *next = second(bytes, m))
			o << "; the next, " << next->algo << ": " << fmt(next->allin_1m, 1) << " B";
		for (const auto &[algo, by] : state_bytes_by_limit(in)) {
			std::pair<double, double> r = least_most(by);
			auto at100 = by.find(100);
			if (r.second > r.first && at100 != by.end())
				o << "; " << algo << "'s grows with N: " << fmt(at100->second, 0) << " B at N = 100";
		}
		o << " |\n";
	}
	// speed: the cheapest hot-key check, ranked only where the ranges are apart
	auto ns = [](const Figures &f) { return f.ns_hot.measured() ? f.ns_hot.median : NAN; };
	if (const Figures *q = least(ns)) {
		const Figures *next = second(ns, q);
		o << "| speed (one check, hot key) | " << q->algo
		  << (next && q->ns_hot.overlaps(next->ns_hot) ? " or " + next->algo + " (within noise)" : "") << " | "
		  << (next ? rank_pair(q->algo, q->ns_hot, next->algo, next->ns_hot, 2) : fmt(q->ns_hot, 2) + " ns")
		  << " (ns/op); at 1M keys " << q->algo << " " << fmt(q->ns_1m, 1) << " ns/op |\n";
	}
	// bursts: a burst up to B at once, then N per W; gcra decides as token_bucket does in less state
	const Figures *tb = find("token_bucket"), *gc = find("gcra");
	if (tb && gc)
		o << "| bursts (up to B at once, then N per W) | gcra | token_bucket's decisions in less state: over-N "
		     "admissions "
		  << fmt(gc->over_n_pct, 3) << " % (token_bucket " << fmt(tb->over_n_pct, 3) << " %), the most in any W "
		  << fmt(gc->worst_ratio, 2) << " x N, false rejects " << fmt(gc->false_reject_pct, 3) << " %, in "
		  << fmt(gc->state_bytes, 0) << " B of state (token_bucket " << fmt(tb->state_bytes, 0) << " B) |\n";
	o << "| a fleet (k nodes, one limit) | " << fleet_answer(in) << " |\n\n";
}

} // namespace

std::string tradeoff_table(const Inputs &in)
{
	std::ostringstream o;
	std::vector<long long> sd = seeds(in);
	o << "| algorithm | over-N admissions % | max in W / N | beyond own bound % | long-run rate / N at "
	  << (load_sweep(in).empty() ? 0 : load_sweep(in).back().first)
	  << "% load | false rejects % | extra client wait ms | diverged from sliding log % | state B/key | all-in B/key at 1M keys | ns/op hot | ns/op at 1M keys |\n"
	     "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
	for (const Figures &f : figures(in))
		o << "| " << f.algo << " | " << fmt(f.over_n_pct, 3) << " | " << fmt(f.worst_ratio, 2) << " | "
		  << fmt(f.beyond_bound_pct, 3) << " | " << fmt(f.rate_at_top, 3) << " | " << fmt(f.false_reject_pct, 3)
		  << " | " << fmt(f.extra_wait_ms, 1) << " | " << fmt(f.diverged_pct, 3) << " | " << fmt(f.state_bytes, 0)
		  << " | " << fmt(f.allin_1m, 1) << " | " << fmt(f.ns_hot, 2) << " | " << fmt(f.ns_1m, 1) << " |\n";
	o << "\nSimulator columns: the " << scenario_names(in.summary).size() << " scenarios of `sim/scenarios/` over "
	  << sd.size() << " seed" << (sd.size() == 1 ? "" : "s")
	  << ", median [min–max] over the seeds, request-weighted (sum over scenarios / sum of requests). "
	     "(a) over-N admissions: admissions that left more than N admitted in (t − W, t]; max in W / N: the "
	     "largest count in any window of length W over N, worst scenario; beyond own bound: admissions past "
	     "the algorithm's own documented bound (its header; must be 0); long-run rate / N: admitted rate over "
	     "N at the load sweep's top load. (b) false rejects: rejected while fewer than N were admitted in "
	     "(t − W, t]; extra client wait: polite clients' mean wait from first send to admission minus "
	     "sliding_log's in the same scenarios. (c) diverged: decided unlike an independent sliding log fed "
	     "the same requests. Timed columns: median [min–max] over the repetitions, (CV x%) when above 5%; "
	     "ns/op hot: one key, time passed in, verdict only; at 1M keys: `rl_store_check`, uniform keys, one "
	     "thread. All-in B/key at 1M keys: the store's bytes over its keys (`rl_store_stats`: table, keys, "
	     "state heap) after that run, in which each key saw a few requests";
	// a state that grows with its admitted times is larger for a key kept at its limit
	for (const auto &[algo, bytes] : state_bytes_by_limit(in)) {
		std::pair<double, double> r = least_most(bytes);
		auto at100 = bytes.find(100);
		if (r.second > r.first && at100 != bytes.end())
			o << "; a " << algo << " key kept at its limit holds more, its state alone " << fmt(at100->second, 0)
			  << " B after N = 100 admissions at distinct times in one window (the report's bytes-per-key chart)";
	}
	o << ". \"-\": not measured.\n";
	return o.str();
}

std::string full_report(const Inputs &in)
{
	std::ostringstream o;
	o << "# ratelab: measured report\n\n"
	     "Generated by `build-bench/ratelab_report` (bench/report_*.cc) from `results/bench/bench.json`, "
	     "`results/bench/bytes_vs_limit.csv`, `results/sim/summary.csv`, `results/sim/diverged.csv` and "
	     "`results/sim/breaker.csv` of one `make bench` run. Do not edit: run `make bench` again.\n\n";
	answer(o, in);
	machine(o, in);
	o << "## Tradeoff table\n\n" << tradeoff_table(in) << "\n";
	qualitative(o, in);
	accuracy(o, in);
	population(o, in);
	weighted(o, in);
	targets(o, in);
	hot(o, in);
	keyed(o, in);
	registry(o, in);
	breaker(o, in);
	redis_section(o, in);
	import_section(o, in);
	charts(o, in);
	perf_section(o, in);
	o << peers_section(in);
	o << fleet_section(in);
	o << theory_section(in);
	o << study_scale_section(in);
	return o.str();
}

} // namespace report
