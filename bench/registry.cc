// registry.cc - the registry's lookup by tier: client id -> tier (a binary
// search of the mapped ids, else the default) and, for check, the tier's
// store. The tiers are those of examples/tiers.ini, written to a temporary
// file: free (token_bucket, the default: unmapped ids), premium (gcra,
// 1000 mapped ids), otp (sliding_log, 10 ids), internal (unlimited, 10 ids).
//   registry/resolve/<tier>  rl_registry_resolve alone
//   registry/check/<tier>    rl_registry_check: resolve + the store's check
// Each cycles through 1000 ids of its tier (drawn beforehand); time advances
// 1 us per request.
#include <benchmark/benchmark.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "bench_names.h"
#include "ratelab_cxx.h"

namespace {

struct Tier {
	const char *name;
	const char *prefix; // of its client ids
	size_t mapped;      // ids listed in [clients]; 0 for the default tier
};

using rlbench::names::kRegistryTiers;
const Tier kTiers[] = {{kRegistryTiers[0], "anon-", 0}, {kRegistryTiers[1], "acct-", 1000},
		       {kRegistryTiers[2], "sms-", 10}, {kRegistryTiers[3], "10.0.0.", 10}};
static_assert(std::size(kTiers) == std::size(kRegistryTiers), "one Tier per name in bench_names.h");

std::string client_id(const Tier &t, size_t i)
{
	return t.prefix + std::to_string(i);
}

rl_registry *registry()
{
	static rl_registry *reg = [] {
		char path[] = "/tmp/ratelab_bench_tiersXXXXXX";
		int fd = mkstemp(path);
		if (fd < 0) {
			std::perror("bench: mkstemp");
			std::exit(1);
		}
		close(fd);
		std::ofstream f(path);
		f << "[tier free]\nalgorithm = token_bucket\nlimit = 10\nwindow = 1s\n\n"
		     "[tier premium]\nalgorithm = gcra\nlimit = 100\nwindow = 1s\nburst = 200\nmax_keys = 100000\n\n"
		     "[tier otp]\nalgorithm = sliding_log\nlimit = 3\nwindow = 10m\nwhen_full = fail_closed\n\n"
		     "[tier internal]\nunlimited = true\n\n[clients]\n";
		for (const Tier &t : kTiers)
			for (size_t i = 0; i < t.mapped; i += 10) {
				f << t.name << " =";
				for (size_t j = i; j < i + 10 && j < t.mapped; j++)
					f << ' ' << client_id(t, j);
				f << '\n';
			}
		f << "\n[defaults]\ntier = free\n";
		f.close();
		rl_registry *r = nullptr;
		char err[256];
		int rc = rl_registry_load(&r, path, err, sizeof err);
		unlink(path);
		if (rc != RL_OK) {
			std::fprintf(stderr, "bench: registry: %s\n", err);
			std::exit(1);
		}
		return r;
	}();
	return reg;
}

void bm_registry(benchmark::State &state, const Tier *tier, bool check)
{
	rl_registry *r = registry();
	std::vector<std::string> ids;
	for (size_t i = 0; i < 1000; i++)
		ids.push_back(client_id(*tier, tier->mapped ? i % tier->mapped : i));
	static int64_t now = 1000000000000;
	size_t i = 0;
	rl_answer ans;

	for (auto _ : state) {
		const std::string &id = ids[i++ % ids.size()];
		if (check) {
			int v = rl_registry_check(r, id.data(), id.size(), now, &ans);
			benchmark::DoNotOptimize(v);
			now += 1000;
		} else {
			benchmark::DoNotOptimize(rl_registry_resolve(r, id.data(), id.size()));
		}
	}
	state.SetItemsProcessed(state.iterations());
	if (std::string(rl_registry_resolve(r, ids[0].data(), ids[0].size())->name) != tier->name)
		state.SkipWithError("client resolved to the wrong tier");
}

int register_all()
{
	for (const Tier &t : kTiers)
		for (bool check : {false, true})
			benchmark::RegisterBenchmark(
				rlbench::names::registry(check, t.name).c_str(), bm_registry, &t, check);
	return 0;
}

const int registered = register_all();

} // namespace
