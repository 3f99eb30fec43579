// floor.cc - the memory-floor arrays (see floor.h). One array is cached at a
// time, keyed by its size, so that repetitions reuse it and the next size
// frees it.
#include "floor.h"

#include <cstdint>
#include <memory>
#include <vector>

#include "common.h"

namespace rlbench {
namespace {

struct Elem {
	uint64_t next; // dependent: index of the next element of the cycle
	uint64_t pad;  // always 0; read so that each access is 16 bytes
};

struct FloorArray {
	size_t bytes = 0;
	std::vector<Elem> elems;
	std::vector<uint64_t> seq; // independent: random element indices
};

std::unique_ptr<FloorArray> cached;

const FloorArray &floor_array(size_t bytes)
{
	if (cached && cached->bytes == bytes)
		return *cached;
	cached.reset();
	auto fa = std::make_unique<FloorArray>();
	size_t n = bytes / sizeof(Elem) ? bytes / sizeof(Elem) : 1;
	SplitMix rng{0x5eed0f100f};

	fa->bytes = bytes;
	fa->elems.resize(n);
	for (size_t i = 0; i < n; i++)
		fa->elems[i] = Elem{i, 0};
	// Sattolo's shuffle: one cycle through every element.
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = rng.below(i);
		std::swap(fa->elems[i].next, fa->elems[j].next);
	}
	fa->seq.resize(n >= (1u << 16) ? (1u << 22) : (1u << 16));
	for (auto &k : fa->seq)
		k = rng.below(n);
	cached = std::move(fa);
	return *cached;
}

} // namespace

void run_floor(benchmark::State &state, size_t bytes, bool dependent)
{
	const FloorArray &fa = floor_array(bytes);
	const Elem *e = fa.elems.data();
	const uint64_t *seq = fa.seq.data();
	size_t mask = fa.seq.size() - 1, i = 0;
	uint64_t at = 0, sum = 0;

	if (dependent) {
		for (auto _ : state) {
			at = e[at].next + e[at].pad;
			benchmark::DoNotOptimize(at);
		}
	} else {
		for (auto _ : state) {
			const Elem &x = e[seq[i++ & mask]];
			sum += x.next + x.pad;
			benchmark::DoNotOptimize(sum);
		}
	}
	state.SetItemsProcessed(state.iterations());
	state.counters["array_bytes"] = static_cast<double>(fa.elems.size() * sizeof(Elem));
}

} // namespace rlbench
