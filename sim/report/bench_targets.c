/*
 * bench_targets.c - the bench report's targets: each target against its
 * measured range, with what bounds its path on this machine (the floors,
 * measured in the same run).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_report_int.h"

static const size_t br_store_keys[] = RL_BENCH_STORE_KEYS;
static const char *const br_breaker_runs[] = RL_BENCH_BREAKER_RUNS;

static const char targets_head[] =
	"## Targets\n\nA target is met when the whole range of the repetitions is within it, missed when the "
	"whole range is beyond it, and within noise otherwise. The last column is what bounds the target's "
	"path on this machine, measured in the same run; where even that floor is beyond the target, the "
	"target cannot be met here and the row says so.\n\n"
	"| target | measured | | floor on this machine |\n|---|---|---|---|\n";
/* The notes under the table; each %s a figure of this run. */
static const char targets_notes[] =
	"\nThe memory floor is the dependent (pointer-chasing) random 16-byte read over an array as large "
	"as the same algorithm's store at that key count at its largest (after the fill, or after its timed "
	"runs: sliding_log's rings grow from one run per key to about N), in the same run: the latency of the one miss a "
	"keyed check cannot avoid. A ratio's range is [min store / max floor – max store / min floor]. The "
	"independent-load floor (overlapping misses) is in the keyed table. A speed-up over a peer is the "
	"peer's ns/op over ratelab's nearest algorithm's (results/bench/peers.json names it); the peers' "
	"keyed maps are thread-safe, so they are compared with the thread-safe store.\n\n"
	"The floors. *hot/floor/call*: the hot loop with a check that does nothing (the call and return "
	"alone): %s"
	" ns; no check called the same way is faster, so it is the hot rows' floor. *hot/floor/chain*, "
	"for reference: a minimal one-word check in the same loop (gcra's rule on one int64: loaded, raised "
	"to now, compared, stored back, the next check's load waiting on that store): "
	"%s"
	" ns; it is not a floor, as a full check can run as fast (the chain overlaps the call). "
	"*hot/floor/locked*: the same empty check taking and dropping a spinlock as the library's (exchange, "
	"release store): "
	"%s"
	" ns; no thread-safe check is faster (each takes a lock or a compare-and-swap), so it is the floor "
	"of the thread-safe single-key rows. The "
	"single-key entries' repetitions are randomly interleaved in the run (bench/run.sh), and so, in a "
	"pass of their own, are the 1K rows' (both stores) with their memory floors', so that each target and "
	"its floor are measured over the same moments of this shared host. A thread-safe check also takes one locked "
	"read-modify-write, measured alone here (atomic/*, one thread, in a process that has had a second "
	"thread, as a program that needs a thread-safe check has: glibc's locks skip the lock prefix until "
	"then): the spinlock of the store's buckets and of rl_limit (exchange + release store) "
	"%s ns, pthread lock + unlock (two locked operations, for comparison) "
	"%s"
	" ns, load + 8-byte compare-and-swap %s"
	" ns, load + 16-byte compare-and-swap %s"
	" ns. The one-thread store (rl_store_config.one_thread, for a store per worker thread) takes no "
	"lock, so its rows show the check without that cost.";
static const char targets_lookup[] =
	" What that store itself costs is measured by running it with an algorithm that decides nothing "
	"(admits every request, reads no state; *store1t/lookup/1* and */1000*): the call, hashing the 8-byte key "
	"and comparing the 16 tags of its first bucket (and of its second for the about 5 %% of keys "
	"stored there) take "
	"%s ns at 1 key and %s"
	" ns at 1K keys. That is this table's cost, not the machine's (a table that searched fewer "
	"slots per key would pay less here, and hold fewer keys for its size before it must evict); each "
	"algorithm's one-thread row is that plus its own check. Each figure is interleaved with the rows of "
	"its key count.";

/* What no implementation of a target's path avoids on this machine,
 * measured in the same run; "the target is beyond it" when its whole range
 * is above the target (a ceiling target) or below it (a speed-up target). */
struct floor_ {
	const char *what; /* NULL: no floor */
	struct rp_stat v;
	const char *unit; /* " ns" or "x" */
	int decimals;
};

static const char *floor_cell(const struct floor_ *f, double target)
{
	if (!f->what)
		return "-";
	if (!rp_measured(f->v))
		return rp_str("%s: not measured", f->what);
	bool beyond = f->v.min > target;
	return rp_str("%s %s%s%s", f->what, rp_fmt_stat(f->v, f->decimals), f->unit,
		      beyond ? ": **the target is beyond it**" : "");
}

static void row(struct sr_buf *o, const char *target, const char *measured, const char *verdict, const char *floor)
{
	sr_printf(o, "| %s | %s | %s | %s |\n", target, measured, verdict, floor);
}

/* the one-thread store's own part (no floor: another table could do better), beside its row's floor */
static const char *own_part(const char *cell, size_t keys, struct rp_stat v)
{
	return rp_str("%s%snot a floor, this store's own part (the call, the hash and the tag search, "
		      "store1t/lookup/%zu/uniform): %s ns",
		      strcmp(cell, "-") == 0 ? "" : cell, strcmp(cell, "-") == 0 ? "" : "; ", keys, rp_fmt_stat(v, 2));
}

void br_targets(struct br_in *in, struct sr_buf *o)
{
	const struct rp_stat call = br_stat(in, RL_BENCH_HOT_FLOOR("call")), chain = br_stat(in, RL_BENCH_HOT_FLOOR("chain"));
	const struct rp_stat lock = br_stat(in, RL_BENCH_ATOMIC("spinlock")), locked = br_stat(in, RL_BENCH_HOT_FLOOR("locked"));
	const struct rp_stat lookup1 = br_stat(in, RL_BENCH_STORE1T("uniform"), RL_BENCH_LOOKUP_ALGO, (size_t)1);
	const struct rp_stat lookup1k = br_stat(in, RL_BENCH_STORE1T("uniform"), RL_BENCH_LOOKUP_ALGO, (size_t)1000);
	/* a check called as the hot loop calls it cannot beat the same call doing nothing */
	const struct floor_ call_floor = { "the loop and call alone (hot/floor/call)", call, " ns", 2 };
	/* a thread-safe check takes a lock at least: the same call doing nothing else */
	const struct floor_ locked_floor = { "the loop, call and lock alone (hot/floor/locked)", locked, " ns", 2 };

	sr_puts(o, targets_head);
	for (size_t i = 0; i < in->nalgos; i++) {
		const char *a = in->algo[i].name;
		struct rp_stat v = br_stat(in, RL_BENCH_HOT("direct", "verdict"), a);
		if (!rp_measured(v))
			continue; /* peers have no hot/ run of their own */
		double bound = br_hot_target_ns(a);
		row(o, rp_str("hot key, time passed in, 1 thread, %s <= %s ns/op", a, rp_fmt(bound, 0)),
		    rp_str("%s ns/op", rp_fmt_stat(v, 2)), br_verdict(v, bound), floor_cell(&call_floor, bound));
	}
	for (int one = 0; one < 2; one++)
		for (size_t i = 0; i < in->nalgos; i++) {
			const char *a = in->algo[i].name;
			struct rp_stat v = br_stat(in, one ? RL_BENCH_STORE1T("uniform") : RL_BENCH_STORE("uniform"), a, (size_t)1);
			if (!rp_measured(v))
				continue; /* peers are not run through rl_store */
			const char *cell = floor_cell(one ? &call_floor : &locked_floor, RL_BENCH_STORE_TARGET_NS);
			if (one && rp_measured(lookup1))
				cell = own_part(cell, 1, lookup1);
			row(o,
			    rp_str("rl_store_check, 1 key, %s%s <= %s ns/op",
				   one ? "one-thread store (no locks), " : "thread-safe store, uncontended, ", a,
				   rp_fmt(RL_BENCH_STORE_TARGET_NS, 0)),
			    rp_str("%s ns/op", rp_fmt_stat(v, 2)), br_verdict(v, RL_BENCH_STORE_TARGET_NS), cell);
		}
	/* rl_limit's floors: its lock, or for gcra its 16-byte CAS and the 8-byte one a TAT-only state would take */
	const struct floor_ cas16 = { "load + 16-byte CAS (atomic/cas16)", br_stat(in, RL_BENCH_ATOMIC("cas16")), " ns", 2 };
	const struct floor_ cas8 = { "load + 8-byte CAS (atomic/cas8)", br_stat(in, RL_BENCH_ATOMIC("cas8")), " ns", 2 };
	for (size_t i = 0; i < in->nalgos; i++) {
		const char *a = in->algo[i].name;
		struct rp_stat v = br_stat(in, RL_BENCH_LIMIT, a);
		if (!rp_measured(v))
			continue;
		bool cas = rp_algo_of(a).lock_free_limit;
		const char *floor =
			cas ? rp_str("%s; a state of one word (TAT alone, without the clamp's last seen time) would take "
				     "an 8-byte one: %s",
				     floor_cell(&cas16, RL_BENCH_LIMIT_TARGET_NS), floor_cell(&cas8, RL_BENCH_LIMIT_TARGET_NS))
			    : floor_cell(&locked_floor, RL_BENCH_LIMIT_TARGET_NS);
		row(o,
		    rp_str("thread-safe single limiter (rl_limit_allow_at), uncontended, %s%s <= %s ns/op", a,
			   cas ? " (lock-free where the machine has a 16-byte CAS)" : " (spinlock)",
			   rp_fmt(RL_BENCH_LIMIT_TARGET_NS, 0)),
		    rp_str("%s ns/op", rp_fmt_stat(v, 2)), br_verdict(v, RL_BENCH_LIMIT_TARGET_NS), floor);
	}
	const size_t counts[3] = { 1000, RL_BENCH_KEYS_TABLE,
				   br_store_keys[sizeof(br_store_keys) / sizeof(*br_store_keys) - 1] };
	for (size_t c = 0; c < 3; c++)
		for (int one = 0; one < 2; one++)
			for (size_t i = 0; i < in->nalgos; i++) {
				size_t n = counts[c];
				const char *a = in->algo[i].name;
				if (one && n != 1000)
					continue; /* the one-thread rows: the cache-resident target */
				struct rp_stat s = br_stat(in, one ? RL_BENCH_STORE1T("uniform") : RL_BENCH_STORE("uniform"), a, n);
				struct rp_stat f = br_stat(in, RL_BENCH_FLOOR("dependent"), a, n);
				double bound = br_floor_target_ratio(a, n);
				const char *what = rp_str("keyed, %s uniform keys, %s%s <= %sx memory floor", br_keys_label(n),
							  one ? "one-thread store, " : "", a, rp_fmt(bound, 1));
				if (!rp_measured(s) && !rp_measured(f)) {
					if (!br_is_peer(a))
						row(o, what, "-", rp_str("not run (%s run)", in->mode), "-");
					continue;
				}
				/* below the caches the lock's cost hides behind the miss; in them it adds up */
				struct floor_ fl = { NULL, rp_stat_none(), "", 0 };
				if (n == 1000 && !one)
					fl = (struct floor_){ "with the bucket lock (atomic/spinlock + floor) / floor",
							      br_ratio(br_sum(lock, f), f), "x", 2 };
				const char *cell = floor_cell(&fl, bound);
				if (one && rp_measured(lookup1k))
					cell = own_part(cell, 1000, lookup1k);
				struct rp_stat r = br_ratio(s, f);
				row(o, what, rp_str("%sx (%s / %s ns)", rp_fmt_stat(r, 2), rp_fmt(s.median, 1), rp_fmt(f.median, 1)),
				    br_verdict(r, bound), cell);
			}
	/* the targets name golang.org/x/time/rate and its idiomatic keyed map (a map keeps the last of a name) */
	const struct br_peer *go = br_peer_of(in, "peer_go_x_time_rate");
	if (go) {
		const char *near = *go->nearest ? go->nearest : "token_bucket";
		struct {
			const char *what;
			struct rp_stat peer;
			const char *ours;
			double bound;
		} rows[3] = {
			{ "hot key", go->hot, rp_str(RL_BENCH_HOT("direct", "verdict"), near), RL_BENCH_PEER_HOT_RATIO },
			{ "1K keys (its keyed map)", go->k1k, rp_str(RL_BENCH_STORE("uniform"), near, (size_t)1000), RL_BENCH_PEER_KEYED_RATIO },
			{ "1M keys (its keyed map)", go->k1m, rp_str(RL_BENCH_STORE("uniform"), near, RL_BENCH_KEYS_TABLE), RL_BENCH_PEER_KEYED_RATIO },
		};
		for (size_t i = 0; i < 3; i++) {
			struct rp_stat ours = br_stat(in, "%s", rows[i].ours);
			struct rp_stat sp = br_ratio(rows[i].peer, ours);
			row(o, rp_str("%s: %s / %s >= %sx", rows[i].what, go->name, near, rp_fmt(rows[i].bound, 0)),
			    rp_str("%sx (%s / %s ns)", rp_fmt_stat(sp, 1), rp_fmt(rows[i].peer.median, 1), rp_fmt(ours.median, 1)),
			    br_verdict_at_least(sp, rows[i].bound), "-");
		}
	}
	if (!in->peers_run)
		row(o,
		    rp_str("against golang.org/x/time/rate: >= %sx hot, >= %sx its keyed map at 1K and 1M keys",
			   rp_fmt(RL_BENCH_PEER_HOT_RATIO, 0), rp_fmt(RL_BENCH_PEER_KEYED_RATIO, 0)),
		    "-", "not run (no results/bench/peers.json)", "-");
	for (size_t i = 0; i < sizeof(br_breaker_runs) / sizeof(*br_breaker_runs); i++) {
		struct rp_stat v = br_stat(in, RL_BENCH_BREAKER, br_breaker_runs[i]);
		row(o,
		    rp_str("breaker handle at limit 10^6, amortised (%s) <= %s ns/op", br_breaker_runs[i],
			   rp_fmt(RL_BENCH_BREAKER_TARGET_NS, 0)),
		    rp_str("%s ns/op", rp_fmt_stat(v, 2)), br_verdict(v, RL_BENCH_BREAKER_TARGET_NS),
		    floor_cell(&call_floor, RL_BENCH_BREAKER_TARGET_NS));
	}
	sr_printf(o, targets_notes, rp_fmt_stat(call, 2), rp_fmt_stat(chain, 2), rp_fmt_stat(locked, 2),
		  rp_fmt_stat(lock, 2), rp_fmt_stat(br_stat(in, RL_BENCH_ATOMIC("mutex")), 2),
		  rp_fmt_stat(br_stat(in, RL_BENCH_ATOMIC("cas8")), 2), rp_fmt_stat(br_stat(in, RL_BENCH_ATOMIC("cas16")), 2));
	if (rp_measured(lookup1))
		sr_printf(o, targets_lookup, rp_fmt_stat(lookup1, 2), rp_fmt_stat(lookup1k, 2));
	sr_puts(o, "\n\n");
}
