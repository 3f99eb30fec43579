// common.cc - the shared benchmark helpers (see common.h); the Zipf draw is
// Hoermann and Derflinger's rejection-inversion, O(1) per key for any n.
#include "common.h"

#include <malloc.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace rlbench {

std::vector<const rl_algo *> algos()
{
	size_t n = 0;
	const rl_algo *const *all = rl_algo_all(&n);
	return std::vector<const rl_algo *>(all, all + n);
}

rl_limiter make_limiter(const rl_algo *algo)
{
	rl_rule rule = rl_rule_make(kLimit, kWindowNs);
	rl_limiter lim;
	char msg[160];

	if (rl_limiter_init(&lim, algo, &rule, msg, sizeof msg) != RL_OK) {
		std::fprintf(stderr, "bench: %s: %s\n", algo->name, msg);
		std::exit(1);
	}
	return lim;
}

const char *order_name(KeyOrder order)
{
	return order == KeyOrder::uniform ? "uniform" : "zipf";
}

namespace {

// Rejection-inversion sampling of Zipf(n, s) over ranks 1..n.
class Zipf {
public:
	Zipf(double n, double s) : n_(n), s_(s)
	{
		h_x1_ = h_integral(1.5) - 1.0;
		h_n_ = h_integral(n + 0.5);
		cut_ = 2.0 - h_integral_inverse(h_integral(2.5) - h(2.0));
	}

	uint64_t draw(SplitMix &rng) const
	{
		for (;;) {
			double u = h_n_ + rng.unit() * (h_x1_ - h_n_);
			double x = h_integral_inverse(u);
			double k = std::floor(x + 0.5);
			if (k < 1)
				k = 1;
			else if (k > n_)
				k = n_;
			if (k - x <= cut_ || u >= h_integral(k + 0.5) - h(k))
				return static_cast<uint64_t>(k);
		}
	}

private:
	static double helper1(double x) { return std::fabs(x) > 1e-8 ? std::log1p(x) / x : 1 - x * (0.5 - x * (1.0 / 3 - 0.25 * x)); }
	static double helper2(double x) { return std::fabs(x) > 1e-8 ? std::expm1(x) / x : 1 + x * 0.5 * (1 + x / 3 * (1 + 0.25 * x)); }
	double h(double x) const { return std::exp(-s_ * std::log(x)); }
	double h_integral(double x) const
	{
		double lx = std::log(x);
		return helper2((1 - s_) * lx) * lx;
	}
	double h_integral_inverse(double x) const
	{
		double t = x * (1 - s_);
		if (t < -1)
			t = -1;
		return std::exp(helper1(t) * x);
	}

	double n_, s_, h_x1_, h_n_, cut_;
};

} // namespace

std::vector<uint64_t> key_sequence(KeyOrder order, size_t nkeys, size_t len, uint64_t seed)
{
	std::vector<uint64_t> seq(len);
	SplitMix rng{seed};

	if (order == KeyOrder::uniform) {
		for (auto &k : seq)
			k = rng.below(nkeys);
	} else {
		Zipf zipf(static_cast<double>(nkeys), 0.99);
		for (auto &k : seq)
			k = zipf.draw(rng) - 1;
	}
	return seq;
}

size_t malloc_bytes()
{
	struct mallinfo2 mi = mallinfo2();
	return mi.uordblks + mi.hblkhd;
}

void malloc_warm()
{
	mallopt(M_MMAP_THRESHOLD, 64 << 20);
	mallopt(M_TRIM_THRESHOLD, 1 << 30);
}

void malloc_cold()
{
	mallopt(M_MMAP_THRESHOLD, 128 << 10);
	mallopt(M_TRIM_THRESHOLD, 128 << 10);
}

namespace {
const bool warm_at_start = (malloc_warm(), true);
} // namespace

} // namespace rlbench
