// bytes_limit.cc - bytes per key against the limit N: one key of each
// algorithm is offered N requests at N distinct times inside one window
// (all admitted), and its state is measured - algo->state_size plus the
// heap the state holds (rl_limiter_heap_bytes: allocator chunks, headers
// included), cross-checked with the allocator's growth (mallinfo2).
// Writes CSV to stdout:
//   algo,limit,state_bytes,malloc_bytes
#include <cstdio>
#include <cstring>
#include <vector>

#include "common.h"

int main()
{
	const int64_t window = 1000000000;
	// N up to 10^6, the report's range: each N is offered N checks one by one,
	// so the library's RL_LIMIT_MAX (10^12) would take days.
	const int64_t most = 1000000;
	std::printf("algo,limit,state_bytes,malloc_bytes\n");
	for (const rl_algo *algo : rlbench::algos()) {
		for (int64_t limit = 1; limit <= most; limit *= 10) {
			rl_rule rule = rl_rule_make(limit, window);
			rl_limiter lim;
			char msg[160];
			if (rl_limiter_init(&lim, algo, &rule, msg, sizeof msg) != RL_OK) {
				std::fprintf(stderr, "bytes_limit: %s\n", msg);
				return 1;
			}
			std::vector<unsigned char> state(algo->state_size, 0);
			size_t before = rlbench::malloc_bytes();
			int64_t step = window / limit / 2;
			for (int64_t i = 0; i < limit; i++) {
				int rc = rl_limiter_check(&lim, state.data(), rlbench::kStartNs + i * step, nullptr);
				if (rc != RL_ALLOWED) {
					std::fprintf(stderr, "bytes_limit: %s: request %lld of %lld not admitted (%d)\n",
						     algo->name, static_cast<long long>(i), static_cast<long long>(limit), rc);
					return 1;
				}
			}
			size_t bytes = algo->state_size + rl_limiter_heap_bytes(&lim, state.data());
			size_t grown = rlbench::malloc_bytes() - before;
			std::printf("%s,%lld,%zu,%zu\n", algo->name, static_cast<long long>(limit), bytes,
				    algo->state_size + grown);
			rl_limiter_release(&lim, state.data());
		}
	}
	return 0;
}
