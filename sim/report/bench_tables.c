/*
 * bench_tables.c - the bench report's measured tables: the hot key, the keyed store (and its
 * threads), the registry and the circuit breaker.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_report_int.h"

static const char *const br_breaker_runs[] = RL_BENCH_BREAKER_RUNS;
static const char *const br_registry_tiers[] = RL_BENCH_REGISTRY_TIERS;
#define COUNT(a) (sizeof(a) / sizeof(*(a)))

static const char hot_head[] =
	"## Hot key, one thread\n\n"
	"Rule N = 100 per W = 1 s, B = N; time passed in and advanced by W/N/2 per request (about half "
	"admitted). *direct* calls the ops table's verdict or check op through a pointer loaded once, *ops* calls "
	"`rl_limiter_check` (the strategy "
	"table); *verdict* passes out = NULL, *answer* fills `struct rl_decision`. *clock* reads "
	"CLOCK_MONOTONIC per request (`clock_gettime` alone: %s ns).\n\n"
	"*rl_limit* is the thread-safe single limiter (`rl_limit_allow_at`, verdict only, one thread: its "
	"spinlock, or for gcra its lock-free compare-and-swap).\n\n"
	"| algorithm | direct verdict | direct answer | ops verdict | ops answer | with clock read | rl_limit | "
	"admitted %% |\n"
	"|---|---|---|---|---|---|---|---|\n";
static const char keyed_head[] =
	"## Keyed: the store\n\n"
	"`rl_store_check`, verdict only, one thread, on the thread-safe store (bucket locks) and, at 1, 1K "
	"and 1M keys, on a one-thread store (`rl_store_config.one_thread`: no locks, for a store per worker "
	"thread); the store is created for exactly the number of keys "
	"and filled before timing; keys are 8-byte ids drawn beforehand (uniform, or Zipf with exponent "
	"0.99); time advances by max(1, W / (2 N keys)) ns per request; every timed check finds its key (no "
	"insertion, so no eviction). Bytes per key: the store's own "
	"`rl_store_stats` (all-in: table, keys, state heap) and, as a cross-check, the allocator's growth "
	"over create + fill (mallinfo2).\n\n"
	"| algorithm | keys | uniform ns/op | Zipf ns/op | one-thread uniform | floor dependent | floor "
	"independent | uniform / floor | one-thread / floor | store B/key | malloc B/key |\n"
	"|---|---|---|---|---|---|---|---|---|---|---|\n";
static const char threads_head[] =
	"\n### Threads\n\n"
	"`rl_store_check` on one key shared by every thread, or one key per thread (disjoint keys, in "
	"different buckets of a store sized for 4096 keys). ns/op is wall time over the requests of all "
	"threads (the inverse of the total rate), so perfect scaling halves it at 2 threads. The machine has "
	"%s cores, shared with other work.\n\n"
	"*rl_limit*: the thread-safe single limiter's unnamed key (`rl_limit_allow_at`) shared by every "
	"thread, each advancing its own time by W/N/2 (the contended cost; gcra's is lock-free).\n\n"
	"| algorithm | shared, 1 thread | shared, 2 threads | disjoint, 1 thread | disjoint, 2 threads | "
	"disjoint speed-up, 2 threads | rl_limit, 1 thread | rl_limit, 2 threads |\n"
	"|---|---|---|---|---|---|---|---|\n";
static const char registry_head[] =
	"## Registry: client id -> tier -> limiter\n\n"
	"The tiers of examples/tiers.ini (free: token_bucket, the default for unmapped ids; premium: gcra, "
	"1000 mapped ids; otp: sliding_log; internal: unlimited), 1000 ids per tier in turn. *resolve* "
	"finds the tier; *check* resolves and decides in the tier's store.\n\n"
	"| tier | resolve ns/op | check ns/op |\n|---|---|---|\n";
static const char breaker_head[] =
	"## Circuit breaker\n\n"
	"`rl_breaker_handle` at limit 10^6, window 1 s, open 100 ms: *at_limit* offers exactly the limit "
	"(stays CLOSED: one admission and one expiry per call), *overload* offers twice it (fills, opens, "
	"probes, closes: the whole cycle amortised); *overload_cold_malloc* is overload under glibc's "
	"initial malloc thresholds (the breaker keeps its ring across openings, so this should match "
	"*overload*; every other benchmark runs with the thresholds fixed high, so that no result depends "
	"on the allocations of the benchmarks before it).\n\n"
	"| run | ns/op | admitted % |\n|---|---|---|\n";
static const char breaker_sim_head[] =
	"\nThe simulator's breaker runs (`results/sim/breaker.csv`; median [range] over the seeds):\n\n"
	"| scenario | requests | rejected % | openings | CLOSED s | OPEN s | HALF_OPEN s | max in window |\n"
	"|---|---|---|---|---|---|---|---|\n";

void br_hot(struct br_in *in, struct sr_buf *o)
{
	sr_printf(o, hot_head, rp_fmt_stat(br_stat(in, RL_BENCH_CLOCK_READ), 1));
	for (size_t i = 0; i < in->nalgos; i++) {
		const char *a = in->algo[i].name;
		if (!rp_measured(br_stat(in, RL_BENCH_HOT("direct", "verdict"), a)))
			continue;
		sr_printf(o, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", a, rp_fmt_stat(br_stat(in, RL_BENCH_HOT("direct", "verdict"), a), 2),
			  rp_fmt_stat(br_stat(in, RL_BENCH_HOT("direct", "answer"), a), 2),
			  rp_fmt_stat(br_stat(in, RL_BENCH_HOT("ops", "verdict"), a), 2),
			  rp_fmt_stat(br_stat(in, RL_BENCH_HOT("ops", "answer"), a), 2), rp_fmt_stat(br_stat(in, RL_BENCH_CLOCK, a), 2),
			  rp_fmt_stat(br_stat(in, RL_BENCH_LIMIT, a), 2),
			  rp_fmt(br_counter(in, "allowed_pct", RL_BENCH_HOT("direct", "verdict"), a), 1));
	}
	sr_puts(o, "\nns/op.\n\n");
}

void br_keyed(struct br_in *in, struct sr_buf *o)
{
	size_t nk;
	const size_t *keys = br_key_counts(in, &nk);
	sr_puts(o, keyed_head);
	for (size_t i = 0; i < in->nalgos; i++)
		for (size_t k = 0; k < nk; k++) {
			const char *a = in->algo[i].name;
			size_t n = keys[k];
			const char *uniform = rp_str(RL_BENCH_STORE("uniform"), a, n);
			struct rp_stat u = br_stat(in, "%s", uniform), fd = br_stat(in, RL_BENCH_FLOOR("dependent"), a, n);
			if (!rp_measured(u))
				continue;
			struct rp_stat one = br_stat(in, RL_BENCH_STORE1T("uniform"), a, n);
			sr_printf(o, "| %s | %s | %s | %s | %s | %s | %s | %sx | %s | %s | %s |\n", a, br_keys_label(n),
				  rp_fmt_stat(u, 1), rp_fmt_stat(br_stat(in, RL_BENCH_STORE("zipf"), a, n), 1),
				  rp_fmt_stat(one, 1), rp_fmt_stat(fd, 1),
				  rp_fmt_stat(br_stat(in, RL_BENCH_FLOOR("independent"), a, n), 1),
				  rp_fmt_stat(br_ratio(u, fd), 2),
				  rp_measured(one) ? rp_str("%sx", rp_fmt_stat(br_ratio(one, fd), 2)) : "-",
				  rp_fmt(br_counter(in, "store_bytes_per_key", "%s", uniform), 1),
				  rp_fmt(br_counter(in, "malloc_bytes_per_key", "%s", uniform), 1));
		}
	sr_printf(o, threads_head, br_env(in, "cores"));
	for (size_t i = 0; i < in->nalgos; i++) {
		const char *a = in->algo[i].name;
#define MT(kind, t) br_stat(in, RL_BENCH_STORE_MT(kind) RL_BENCH_MT_RUN, a, t)
		if (!rp_measured(MT("shared", 1)))
			continue;
		sr_printf(o, "| %s | %s | %s | %s | %s | %sx | %s | %s |\n", a, rp_fmt_stat(MT("shared", 1), 1),
			  rp_fmt_stat(MT("shared", 2), 1), rp_fmt_stat(MT("disjoint", 1), 1),
			  rp_fmt_stat(MT("disjoint", 2), 1), rp_fmt_stat(br_ratio(MT("disjoint", 1), MT("disjoint", 2)), 2),
			  rp_fmt_stat(br_stat(in, RL_BENCH_LIMIT_MT RL_BENCH_MT_RUN, a, 1), 1),
			  rp_fmt_stat(br_stat(in, RL_BENCH_LIMIT_MT RL_BENCH_MT_RUN, a, 2), 1));
#undef MT
	}
	sr_puts(o, "\n");
}

void br_registry(struct br_in *in, struct sr_buf *o)
{
	sr_puts(o, registry_head);
	for (size_t i = 0; i < COUNT(br_registry_tiers); i++)
		sr_printf(o, "| %s | %s | %s |\n", br_registry_tiers[i],
			  rp_fmt_stat(br_stat(in, RL_BENCH_REGISTRY("resolve"), br_registry_tiers[i]), 1),
			  rp_fmt_stat(br_stat(in, RL_BENCH_REGISTRY("check"), br_registry_tiers[i]), 1));
	sr_puts(o, "\n");
}

/* The breaker runs' column col of scenario name times scale, over the seeds. */
static struct rp_stat breaker_col(const struct sim_csv *b, const char *name, const char *col, double scale)
{
	struct rp_vec v = {0};
	for (size_t i = 0; i < b->nrows; i++)
		if (strcmp(sim_csv_at(b, i, "scenario"), name) == 0)
			rp_vec_push(&v, sim_csv_num(b, i, col) * scale);
	struct rp_stat s = rp_vec_stat(&v);
	rp_vec_free(&v);
	return s;
}

void br_breaker(struct br_in *in, struct sr_buf *o)
{
	sr_puts(o, breaker_head);
	for (size_t i = 0; i < COUNT(br_breaker_runs); i++)
		sr_printf(o, "| %s | %s | %s |\n", br_breaker_runs[i],
			  rp_fmt_stat(br_stat(in, RL_BENCH_BREAKER, br_breaker_runs[i]), 2),
			  rp_fmt(br_counter(in, "allowed_pct", RL_BENCH_BREAKER, br_breaker_runs[i]), 1));
	sr_puts(o, breaker_sim_head);
	size_t n;
	const char **names = br_scenarios(&in->breaker, &n);
	for (size_t i = 0; names && i < n; i++) {
		const struct sim_csv *b = &in->breaker;
		sr_printf(o, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", names[i],
			  rp_fmt_stat(breaker_col(b, names[i], "requests", 1), 0),
			  rp_fmt_stat(breaker_col(b, names[i], "rejected_pct", 1), 2),
			  rp_fmt_stat(breaker_col(b, names[i], "openings", 1), 0),
			  rp_fmt_stat(breaker_col(b, names[i], "closed_ns", 1e-9), 2),
			  rp_fmt_stat(breaker_col(b, names[i], "open_ns", 1e-9), 2),
			  rp_fmt_stat(breaker_col(b, names[i], "half_open_ns", 1e-9), 2),
			  rp_fmt_stat(breaker_col(b, names[i], "max_in_window", 1), 0));
	}
	free(names);
	sr_puts(o, "\n");
}
