// hot_floor.cc - the floor of hot/<algo>/direct/verdict: two check
// functions of its CheckFn type, called through the same function pointer
// in the same loop (hot.cc), in their own translation unit and noinline so
// that the compiler cannot see through the call.
//
//   hot/floor/call   a check that does nothing: the loop, the indirect call
//                    and the return alone
//   hot/floor/chain  a minimal stateful check, for reference: one word
//                    (gcra's TAT, ns) loaded, raised to now, compared with
//                    now + tolerance, stored back when admitted; the next
//                    check's load waits on that store. Not a floor: on a
//                    wide core the chain overlaps the call, and a full
//                    check has run as fast (the report's floor is the call)
//   hot/floor/locked a check that takes a lock and does nothing else: the
//                    least any thread-safe check costs (one locked
//                    read-modify-write, the call around it), the floor of
//                    the thread-safe single-key rows
#include "hot_floor.h"

#include <atomic>
#include <cstdint>
#include <cstring>

namespace rlbench {

__attribute__((noinline)) int floor_call(const rl_limiter *, void *, int64_t, rl_decision *)
{
	return 1;
}

__attribute__((noinline)) int floor_chain(const rl_limiter *lim, void *st, int64_t now_ns, rl_decision *)
{
	int64_t *tat_ns = static_cast<int64_t *>(st);
	int64_t tat = *tat_ns > now_ns ? *tat_ns : now_ns;
	/* gcra's constants, tau then T, the first two words of its private area (gcra_ops.h) */
	int64_t tol, t;
	std::memcpy(&tol, lim->priv.bytes, sizeof(tol));
	std::memcpy(&t, lim->priv.bytes + sizeof(tol), sizeof(t));
	int verdict = tat - now_ns <= tol;

	if (verdict)
		*tat_ns = tat + t;
	return verdict;
}

__attribute__((noinline)) int floor_locked(const rl_limiter *, void *, int64_t, rl_decision *)
{
	static std::atomic<uint32_t> lock{0};

	while (lock.exchange(1, std::memory_order_acquire)) {
	}
	lock.store(0, std::memory_order_release);
	return 1;
}

} // namespace rlbench
