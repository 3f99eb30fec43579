// report_md.cc - the Markdown: the tradeoff table (also embedded in the
// README) and the full report with the targets, every measured table and
// one data-driven sentence per chart.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "report.h"

namespace report {
namespace {

const char *const kHotTargetAlgos[] = {"token_bucket", "gcra", "fixed_window", "sliding_counter"};

std::string keys_label(size_t n)
{
	if (n >= 1000000 && n % 1000000 == 0)
		return std::to_string(n / 1000000) + "M";
	if (n >= 1000 && n % 1000 == 0)
		return std::to_string(n / 1000) + "K";
	return std::to_string(n);
}

std::string verdict(double v, double limit)
{
	if (std::isnan(v))
		return "not measured";
	return v <= limit ? "met" : "**missed**";
}

std::string env_value(const Inputs &in, const std::string &key)
{
	for (auto &[k, v] : in.env)
		if (k == key)
			return v;
	return "n/a";
}

std::string mt_name(const std::string &algo, const char *kind, int threads)
{
	return "store_mt/" + algo + "/" + kind + "/real_time/threads:" + std::to_string(threads);
}

void machine(std::ostringstream &o, const Inputs &in)
{
	o << "## Machine and libraries\n\n";
	static const char *const keys[][2] = {
		{"cpu", "CPU"}, {"cores", "cores"}, {"memory", "memory"}, {"kernel", "kernel"},
		{"os", "OS"}, {"compiler", "compiler"}, {"cmake", "CMake"}, {"benchmark", "Google Benchmark"},
		{"glibc", "glibc"}, {"inih", "inih"}, {"gnuplot", "gnuplot"}, {"nlohmann_json", "nlohmann-json"},
		{"commit", "ratelab commit"}, {"date", "run started"}};
	for (auto &kv : keys)
		o << "- " << kv[1] << ": " << env_value(in, kv[0]) << "\n";
	auto bt = in.bench.context.find("library_build_type");
	o << "- build: Release (-O3), C11 library, C++17 drivers; Google Benchmark library build type as it reports itself: "
	  << (bt == in.bench.context.end() ? "n/a" : bt->second)
	  << " (Debian's package; the timed loops are ours, compiled -O3)\n"
	  << "- malloc: glibc's thresholds fixed for the whole run (mmap 64 MiB, trim 1 GiB) so that no result "
	     "depends on what earlier benchmarks freed; the breaker is also measured under glibc's defaults\n";
	o << "- mode: " << in.mode << " run, " << in.bench.repetitions
	  << (in.bench.repetitions > 1 ? " repetitions per benchmark, medians quoted" : " repetition per benchmark")
	  << "; the machine is shared, so figures are compared within this run only\n\n";
}

void targets(std::ostringstream &o, const Inputs &in)
{
	o << "## Targets\n\n| target | measured | |\n|---|---|---|\n";
	for (const char *a : kHotTargetAlgos) {
		double v = in.bench.ns(std::string("hot/") + a + "/direct/verdict");
		o << "| hot key, time passed in, 1 thread, " << a << " <= 3 ns/op | " << fmt(v, 2) << " ns/op | "
		  << verdict(v, 3) << " |\n";
	}
	for (const Algo &a : in.algos) {
		double v = in.bench.ns("store/" + a.name + "/1/uniform");
		o << "| thread-safe path (rl_store_check), uncontended, " << a.name << " <= 8 ns/op | " << fmt(v, 2)
		  << " ns/op | " << verdict(v, 8) << " |\n";
	}
	for (size_t n : {size_t(1000000), size_t(10000000)})
		for (const Algo &a : in.algos) {
			std::string base = a.name + "/" + std::to_string(n);
			double s = in.bench.ns("store/" + base + "/uniform"), f = in.bench.ns("floor/" + base + "/dependent");
			o << "| keyed, " << keys_label(n) << " uniform keys, " << a.name << " <= 1.3x memory floor | "
			  << fmt(s / f, 2) << "x (" << fmt(s, 1) << " / " << fmt(f, 1) << " ns) | " << verdict(s / f, 1.3)
			  << " |\n";
		}
	for (const char *b : {"at_limit", "overload", "overload_cold_malloc"}) {
		double v = in.bench.ns(std::string("breaker/") + b);
		o << "| breaker handle at limit 10^6, amortised (" << b << ") <= 5 ns/op | " << fmt(v, 2) << " ns/op | "
		  << verdict(v, 5) << " |\n";
	}
	o << "\nThe memory floor is the dependent (pointer-chasing) random 16-byte read over an array as large "
	     "as the same algorithm's store at that key count, in the same run: the latency of the one miss a "
	     "keyed check cannot avoid. The independent-load floor (overlapping misses) is in the keyed table.\n\n";
}

void hot(std::ostringstream &o, const Inputs &in)
{
	o << "## Hot key, one thread\n\n"
	     "Rule N = 100 per W = 1 s, B = N; time passed in and advanced by W/N/2 per request (about half "
	     "admitted). *direct* calls `rl_<algo>_check`, *ops* calls `rl_limiter_check` (the strategy "
	     "table); *verdict* passes out = NULL, *answer* fills `struct rl_decision`. *clock* reads "
	     "CLOCK_MONOTONIC per request (`clock_gettime` alone: "
	  << fmt(in.bench.ns("clock/read"), 1) << " ns).\n\n"
	  << "| algorithm | direct verdict | direct answer | ops verdict | ops answer | with clock read | admitted % |\n"
	     "|---|---|---|---|---|---|---|\n";
	for (const Algo &a : in.algos) {
		std::string h = "hot/" + a.name + "/";
		o << "| " << a.name << " | " << fmt(in.bench.ns(h + "direct/verdict"), 2) << " | "
		  << fmt(in.bench.ns(h + "direct/answer"), 2) << " | " << fmt(in.bench.ns(h + "ops/verdict"), 2) << " | "
		  << fmt(in.bench.ns(h + "ops/answer"), 2) << " | " << fmt(in.bench.ns("clock/" + a.name), 2) << " | "
		  << fmt(in.bench.counter(h + "direct/verdict", "allowed_pct"), 1) << " |\n";
	}
	o << "\nns/op.\n\n";
}

void keyed(std::ostringstream &o, const Inputs &in)
{
	o << "## Keyed: the thread-safe store\n\n"
	     "`rl_store_check`, verdict only, one thread; the store is created for exactly the number of keys "
	     "and filled before timing; keys are 8-byte ids drawn beforehand (uniform, or Zipf with exponent "
	     "0.99); time advances by max(1, W / (2 N keys)) ns per request; every timed check finds its key (no insertion, so no eviction). Bytes per key: the store's own "
	     "`rl_store_stats` (all-in: table, keys, state heap) and, as a cross-check, the allocator's growth "
	     "over create + fill (mallinfo2).\n\n"
	     "| algorithm | keys | uniform ns/op | Zipf ns/op | floor dependent | floor independent | uniform / floor | store B/key | malloc B/key |\n"
	     "|---|---|---|---|---|---|---|---|---|\n";
	for (const Algo &a : in.algos)
		for (size_t n : key_counts(in)) {
			std::string base = a.name + "/" + std::to_string(n);
			double u = in.bench.ns("store/" + base + "/uniform"), fd = in.bench.ns("floor/" + base + "/dependent");
			o << "| " << a.name << " | " << keys_label(n) << " | " << fmt(u, 1) << " | "
			  << fmt(in.bench.ns("store/" + base + "/zipf"), 1) << " | " << fmt(fd, 1) << " | "
			  << fmt(in.bench.ns("floor/" + base + "/independent"), 1) << " | " << fmt(u / fd, 2) << "x | "
			  << fmt(in.bench.counter("store/" + base + "/uniform", "store_bytes_per_key"), 1) << " | "
			  << fmt(in.bench.counter("store/" + base + "/uniform", "malloc_bytes_per_key"), 1) << " |\n";
		}
	o << "\n### Threads\n\n"
	     "`rl_store_check` on one key shared by every thread, or one key per thread (disjoint keys, in "
	     "different buckets of a store sized for 4096 keys). ns/op is wall time over the requests of all "
	     "threads (the inverse of the total rate), so perfect scaling halves it at 2 threads. The machine has "
	  << env_value(in, "cores") << " cores, shared with other work.\n\n"
	  << "| algorithm | shared, 1 thread | shared, 2 threads | disjoint, 1 thread | disjoint, 2 threads | disjoint speed-up, 2 threads |\n"
	     "|---|---|---|---|---|---|\n";
	for (const Algo &a : in.algos)
		o << "| " << a.name << " | " << fmt(in.bench.ns(mt_name(a.name, "shared", 1)), 1) << " | "
		  << fmt(in.bench.ns(mt_name(a.name, "shared", 2)), 1) << " | "
		  << fmt(in.bench.ns(mt_name(a.name, "disjoint", 1)), 1) << " | "
		  << fmt(in.bench.ns(mt_name(a.name, "disjoint", 2)), 1) << " | "
		  << fmt(in.bench.ns(mt_name(a.name, "disjoint", 1)) / in.bench.ns(mt_name(a.name, "disjoint", 2)), 2)
		  << "x |\n";
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
	for (const char *b : {"at_limit", "overload", "overload_cold_malloc"})
		o << "| " << b << " | " << fmt(in.bench.ns(std::string("breaker/") + b), 2) << " | "
		  << fmt(in.bench.counter(std::string("breaker/") + b, "allowed_pct"), 1) << " |\n";
	if (!in.breaker.empty()) {
		o << "\nThe simulator's breaker runs (`results/sim/breaker.csv`):\n\n"
		     "| scenario | requests | rejected % | openings | CLOSED s | OPEN s | HALF_OPEN s | max in window |\n"
		     "|---|---|---|---|---|---|---|---|\n";
		for (size_t i = 0; i < in.breaker.rows.size(); i++)
			o << "| " << in.breaker.at(i, "scenario") << " | " << in.breaker.at(i, "requests") << " | "
			  << fmt(in.breaker.num(i, "rejected_pct"), 2) << " | " << in.breaker.at(i, "openings") << " | "
			  << fmt(in.breaker.num(i, "closed_ns") / 1e9, 2) << " | " << fmt(in.breaker.num(i, "open_ns") / 1e9, 2)
			  << " | " << fmt(in.breaker.num(i, "half_open_ns") / 1e9, 2) << " | "
			  << in.breaker.at(i, "max_in_window") << " |\n";
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
	for (const char *t : {"free", "premium", "otp", "internal"})
		o << "| " << t << " | " << fmt(in.bench.ns(std::string("registry/resolve/") + t), 1) << " | "
		  << fmt(in.bench.ns(std::string("registry/check/") + t), 1) << " |\n";
	o << "\n";
}

void qualitative(std::ostringstream &o, const Inputs &in)
{
	o << "### Qualitative (study notes)\n\n| algorithm | accuracy | memory per key | bursts | choose when | source |\n"
	     "|---|---|---|---|---|---|\n";
	for (size_t i = 0; i < in.quals.rows.size(); i++)
		o << "| " << in.quals.at(i, "algo") << " | " << in.quals.at(i, "accuracy") << " | "
		  << in.quals.at(i, "memory") << " | " << in.quals.at(i, "bursts") << " | "
		  << in.quals.at(i, "choose_when") << " | " << in.quals.at(i, "source") << " |\n";
	o << "\n";
}

// One sentence per chart, from the figures it draws.
void charts(std::ostringstream &o, const Inputs &in)
{
	std::vector<Figures> figs = figures(in);
	o << "## Charts\n\n";

	auto cheapest = std::min_element(figs.begin(), figs.end(),
					 [](const Figures &a, const Figures &b) { return a.ns_hot < b.ns_hot; });
	auto worst = std::max_element(figs.begin(), figs.end(), [](const Figures &a, const Figures &b) {
		return a.false_allow_pct + a.false_reject_pct < b.false_allow_pct + b.false_reject_pct;
	});
	o << "![tradeoff](plots/tradeoff.png)\n\nError (false allow + false reject % over the default scenarios) "
	     "against hot-key ns/op, point size growing with bytes per key: the cheapest check is "
	  << (cheapest != figs.end() ? cheapest->algo + " (" + fmt(cheapest->ns_hot, 2) + " ns)" : "n/a")
	  << ", the largest error "
	  << (worst != figs.end() ? worst->algo + " (" + fmt(worst->false_allow_pct + worst->false_reject_pct, 3) + " %)" : "n/a")
	  << ", while sliding_log, the exact reference, has zero error by construction.\n\n";

	std::string bnd = boundary_scenario(in);
	double max_ratio = NAN;
	std::string max_algo;
	for (size_t i = 0; i < in.summary.rows.size(); i++)
		if (in.summary.at(i, "scenario") == bnd && !(in.summary.num(i, "max_window_ratio") <= max_ratio)) {
			max_ratio = in.summary.num(i, "max_window_ratio");
			max_algo = in.summary.at(i, "algo");
		}
	o << "![boundary](plots/boundary.png)\n\nAdmitted per time bucket under the window-boundary attack (scenario `"
	  << bnd << "`), one panel per algorithm: the most admitted in any window of length W is "
	  << fmt(max_ratio, 2) << "x N, by " << (max_algo.empty() ? "n/a" : max_algo) << ".\n\n";

	std::vector<size_t> counts = key_counts(in);
	double lo = NAN, hi = NAN;
	for (const Figures &f : figs)
		if (!std::isnan(f.ns_1m)) {
			double r = f.ns_1m / in.bench.ns("floor/" + f.algo + "/1000000/dependent");
			lo = std::isnan(lo) ? r : std::min(lo, r);
			hi = std::isnan(hi) ? r : std::max(hi, r);
		}
	o << "![keys](plots/keys.png)\n\nns/op of the store against the number of keys (uniform order, log x) with "
	     "the memory floors: at 1M keys the store costs "
	  << fmt(lo, 2) << "x to " << fmt(hi, 2) << "x the dependent-load floor.\n\n";

	double sl_max = NAN, fixed_lo = NAN, fixed_hi = NAN;
	for (size_t i = 0; i < in.bytes_limit.rows.size(); i++) {
		double b = in.bytes_limit.num(i, "state_bytes");
		if (in.bytes_limit.at(i, "algo") == "sliding_log") {
			sl_max = std::isnan(sl_max) ? b : std::max(sl_max, b);
		} else {
			fixed_lo = std::isnan(fixed_lo) ? b : std::min(fixed_lo, b);
			fixed_hi = std::isnan(fixed_hi) ? b : std::max(fixed_hi, b);
		}
	}
	o << "![bytes per key](plots/bytes_limit.png)\n\nBytes of state per key after N admissions at distinct "
	     "times in one window, against the limit N (log-log): sliding_log grows linearly to "
	  << fmt(sl_max / 1048576.0, 1) << " MiB at N = 10^6 while every other algorithm stays at "
	  << fmt(fixed_lo, 0) << " to " << fmt(fixed_hi, 0) << " B whatever N (lines of equal size coincide).\n\n";

	std::string bs = breaker_scenario(in);
	std::string openings = "n/a";
	for (size_t i = 0; i < in.breaker.rows.size(); i++)
		if (in.breaker.at(i, "scenario") == bs)
			openings = in.breaker.at(i, "openings");
	o << "![breaker](plots/breaker.png)\n\nThe breaker's state over time under bursty traffic (scenario `" << bs
	  << "`): it opened " << openings << " times.\n\n";

	auto sweep = load_sweep(in);
	double peak = NAN;
	int peak_load = 0;
	for (auto &[load, name] : sweep)
		for (size_t i = 0; i < in.summary.rows.size(); i++)
			if (in.summary.at(i, "scenario") == name && in.summary.at(i, "algo") == "sliding_counter") {
				double e = in.summary.num(i, "false_allow_pct") + in.summary.num(i, "false_reject_pct");
				if (!(e <= peak)) {
					peak = e;
					peak_load = load;
				}
			}
	o << "![sliding_counter error](plots/sc_error.png)\n\nsliding_counter's error against offered load"
	  << (sweep.empty() ? "" : " (sweep `" + sweep.front().second + "` ...)") << ": at most " << fmt(peak, 3)
	  << " % of requests decided differently from the exact sliding log (at " << peak_load
	  << " % load), beside Cloudflare's published 0.003 %.\n\n";
}

} // namespace

std::string tradeoff_table(const Inputs &in)
{
	std::ostringstream o;
	o << "| algorithm | false allow % | false reject % | worst burst (x N in one W) | state B/key | all-in B/key at 1M keys | ns/op hot | ns/op at 1M keys |\n"
	     "|---|---|---|---|---|---|---|---|\n";
	for (const Figures &f : figures(in))
		o << "| " << f.algo << " | " << fmt(f.false_allow_pct, 4) << " | " << fmt(f.false_reject_pct, 4) << " | "
		  << fmt(f.worst_ratio, 2) << " | " << f.state_bytes << " | " << fmt(f.allin_1m, 1) << " | "
		  << fmt(f.ns_hot, 2) << " | " << fmt(f.ns_1m, 1) << " |\n";
	o << "\nError columns: the simulator's " << in.summary.rows.size() / (in.algos.empty() ? 1 : in.algos.size())
	  << " default scenarios against the exact sliding log, request-weighted (sum of false decisions / "
	     "sum of requests); worst burst: the largest max_window_ratio of any scenario. ns/op hot: one key, "
	     "time passed in, verdict only; at 1M keys: `rl_store_check`, uniform keys, one thread.\n";
	return o.str();
}

std::string full_report(const Inputs &in)
{
	std::ostringstream o;
	o << "# ratelab: measured report\n\n"
	     "Generated by `build-bench/ratelab_report` (bench/report_*.cc) from `results/bench/bench.json`, "
	     "`results/bench/bytes_vs_limit.csv`, `results/sim/summary.csv` and `results/sim/breaker.csv` of one "
	     "`make bench` run. Do not edit: run `make bench` again.\n\n";
	machine(o, in);
	o << "## Tradeoff table\n\n" << tradeoff_table(in) << "\n";
	qualitative(o, in);
	targets(o, in);
	hot(o, in);
	keyed(o, in);
	registry(o, in);
	breaker(o, in);
	redis_section(o, in);
	charts(o, in);
	return o.str();
}

} // namespace report
