/*
 * bench_peers.c - the peers (bench/peers/): the limiters people deploy,
 * beside ratelab's algorithms from the same `make bench` run.
 *
 * Inputs: RESULTS/bench/peers.json (bench/peers/collect.py: per peer its
 * nearest ratelab algorithm, hot / 1K / 1M keys ns/op as median, min, max
 * and repetitions, bytes per key; nginx's agreement with leaky_bucket) and
 * the peer_NAME rows of RESULTS/sim/summary.csv (`ratelab sim --decider`).
 * peers.json absent: the peers were not run (PEERS=0), and the report says
 * so. A figure absent from it (or null) is shown as "-".
 *
 * Ratios are peer / ratelab's nearest algorithm, both from this run:
 * ns/op hot against hot/<algo>/direct/verdict, at 1K and 1M keys against
 * store/<algo>/<n>/uniform, bytes per key against the store's all-in bytes
 * per key at 1M keys.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_report_int.h"

static const char peers_intro[] =
	"Each peer is the real library through its public API, timed in its own harness in this run "
	"(%s, host %s): one hot key with time passed in (or the nearest its "
	"API allows), 1K and 1M keys offered uniformly (the ecosystem's idiomatic map of limiters, filled "
	"once and kept, with its time, across the repetitions, as ratelab's store), bytes per key from the runtime's memory statistics before and after 1M keys. ns/op are "
	"medians (min–max) of the repetitions; each ratio is the peer's figure over ratelab's nearest "
	"algorithm from this run (hot: one key, direct, verdict only; keys: `rl_store_check`, uniform; "
	"bytes: the store's all-in bytes per key at 1M keys). Across languages, a ratio mixes the "
	"algorithm with the runtime (garbage collector, string keys, a mutex per limiter).\n\n"
	"| peer | nearest | ns/op hot | ratio | ns/op 1K keys | ratio | ns/op 1M keys | ratio | B/key | ratio |\n"
	"|---|---|---|---|---|---|---|---|---|---|\n";
static const char peers_accuracy[] =
	"\nAccuracy, from `ratelab sim --decider` (the same traffic and metrics as the built-in "
	"algorithms; rows `peer_NAME` of `results/sim/summary.csv`, the first seed of the run), the nearest "
	"algorithm on the same scenarios and seed; false allow: an admission that left more than N in "
	"(t − W, t]; false reject: a rejection while fewer than N were there:\n\n"
	"| peer | runs (scenario, seed) | false allow % | false reject % | worst burst (x N in one W) | nearest | "
	"its false allow % | its false reject % |\n"
	"|---|---|---|---|---|---|---|---|\n";
static const char peers_agreement[] =
	"**%s against %s** (%s): %s of %s decisions agree (%s %%); admitted %s by nginx, %s by ratelab. A real "
	"nginx (limit_req rate=%sr/s burst=%s nodelay, %s keys) on a loopback port, driven at real time by an "
	"HTTP client; the sent times replayed through `ratelab replay --algo leaky_bucket`. The schedule keeps "
	"every decision at least %s ms from its boundary (nginx keeps ms; sends were at most %s ms late; on the "
	"sent times the closest decision was %s ms from it).\n\n";

static const char *ratio(double peer, double ours)
{
	if (isnan(peer) || isnan(ours) || ours <= 0)
		return "-";
	return rp_str("%.2fx", peer / ours);
}

static const char *spread(struct rp_stat s, int reps)
{
	if (isnan(s.median))
		return "-";
	if (reps < 2)
		return rp_fmt(s.median, 1);
	return rp_str("%s (%s–%s)", rp_fmt(s.median, 1), rp_fmt(s.min, 1), rp_fmt(s.max, 1));
}

/* False allow and reject % of algo over the (scenario, seed) runs where peer has rows. */
static void accuracy(const struct br_in *in, const char *algo, const char *peer, double *fa_pct, double *fr_pct)
{
	const struct sim_csv *s = &in->summary;
	double req = 0, fa = 0, fr = 0;
	for (size_t i = 0; i < s->nrows; i++) {
		if (strcmp(sim_csv_at(s, i, "algo"), algo) != 0)
			continue;
		bool shared = false;
		for (size_t j = 0; j < s->nrows && !shared; j++)
			shared = strcmp(sim_csv_at(s, j, "algo"), peer) == 0 &&
				 strcmp(sim_csv_at(s, j, "scenario"), sim_csv_at(s, i, "scenario")) == 0 &&
				 strcmp(sim_csv_at(s, j, "seed"), sim_csv_at(s, i, "seed")) == 0;
		if (!shared)
			continue;
		req += sim_csv_num(s, i, "requests");
		fa += sim_csv_num(s, i, "false_allows");
		fr += sim_csv_num(s, i, "false_rejects");
	}
	*fa_pct = req > 0 ? 100 * fa / req : NAN;
	*fr_pct = req > 0 ? 100 * fr / req : NAN;
}

void br_peers(struct br_in *in, struct sr_buf *o)
{
	sr_puts(o, "## Peers: the limiters people deploy\n\n");
	if (!in->peers_run) {
		sr_puts(o, "not run (PEERS=0)\n\n");
		return;
	}
	sr_printf(o, peers_intro, in->peers_date, in->peers_host);
	for (size_t i = 0; i < in->npeers; i++) {
		const struct br_peer *q = &in->peer[i];
		if (q->agreement)
			continue;
		double hot = br_ns(in, RL_BENCH_HOT("direct", "verdict"), q->nearest), k1 = br_ns(in, RL_BENCH_STORE("uniform"), q->nearest, (size_t)1000);
		double k1m = br_ns(in, RL_BENCH_STORE("uniform"), q->nearest, RL_BENCH_KEYS_TABLE);
		double b = br_counter(in, "store_bytes_per_key", RL_BENCH_STORE("uniform"), q->nearest, RL_BENCH_KEYS_TABLE);
		sr_printf(o, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", q->name, q->nearest,
			  spread(q->hot, q->hot_reps), ratio(q->hot.median, hot), spread(q->k1k, q->k1k_reps),
			  ratio(q->k1k.median, k1), spread(q->k1m, q->k1m_reps), ratio(q->k1m.median, k1m),
			  rp_fmt(q->bytes_per_key, 1), ratio(q->bytes_per_key, b));
	}
	sr_puts(o, peers_accuracy);
	for (size_t i = 0; i < in->npeers; i++) {
		const struct br_peer *q = &in->peer[i];
		if (q->agreement)
			continue;
		const char *row = rp_str("peer_%s", q->name);
		size_t n = 0;
		double worst = NAN, mine[2] = { NAN, NAN }, near[2] = { NAN, NAN };
		for (size_t r = 0; r < in->summary.nrows; r++)
			if (strcmp(sim_csv_at(&in->summary, r, "algo"), row) == 0) {
				n++;
				double x = sim_csv_num(&in->summary, r, "max_window_ratio");
				worst = isnan(worst) || x > worst ? x : worst;
			}
		if (n) {
			accuracy(in, row, row, &mine[0], &mine[1]);
			accuracy(in, q->nearest, row, &near[0], &near[1]);
		}
		sr_printf(o, "| %s | %zu | %s | %s | %s | %s | %s | %s |\n", q->name, n, rp_fmt(mine[0], 4),
			  rp_fmt(mine[1], 4), rp_fmt(worst, 2), q->nearest, rp_fmt(near[0], 4), rp_fmt(near[1], 4));
	}
	sr_puts(o, "\n");
	for (size_t i = 0; i < in->npeers; i++) {
		const struct br_peer *q = &in->peer[i];
		const struct sim_json *a = q->agreement;
		if (!a)
			continue;
		sr_printf(o, peers_agreement, q->name, q->nearest, q->version, rp_fmt(sim_json_num(a, "agree"), 0),
			  rp_fmt(sim_json_num(a, "requests"), 0), rp_fmt(sim_json_num(a, "agree_pct"), 2),
			  rp_fmt(sim_json_num(a, "admitted_nginx"), 0), rp_fmt(sim_json_num(a, "admitted_ratelab"), 0),
			  rp_fmt(sim_json_num(a, "rate_per_s"), 0), rp_fmt(sim_json_num(a, "burst"), 0),
			  rp_fmt(sim_json_num(a, "keys"), 0), rp_fmt(sim_json_num(a, "margin_ms"), 0),
			  rp_fmt(sim_json_num(a, "max_send_lateness_ms"), 1), rp_fmt(sim_json_num(a, "min_margin_ms"), 1));
	}
	sr_puts(o, "How each peer was driven:\n\n");
	for (size_t i = 0; i < in->npeers; i++) {
		const struct br_peer *q = &in->peer[i];
		sr_printf(o, "- %s%s%s%s: %s\n", q->name, *q->version ? " (" : "", q->version, *q->version ? ")" : "",
			  q->note);
	}
	sr_puts(o, "\n![peers](plots/peers.png)\n\n");
}

/* gnuplot reads "NaN" as a missing point */
static const char *pnum(double v)
{
	return isnan(v) ? "NaN" : rp_fmt(v, 2);
}

void br_peer_chart_data(struct br_in *in)
{
	struct sr_buf *d = br_data(in, "peers.dat"), *v = br_data(in, "vars.gp");
	if (!d || !v)
		return;
	sr_puts(d, "name ns_hot ns_1m bytes_per_key\n");
	for (size_t i = 0; i < in->nalgos; i++) {
		const char *a = in->algo[i].name;
		if (br_is_peer(a))
			continue; /* the summary's peer rows: written below from peers.json */
		const char *keyed = rp_str(RL_BENCH_STORE("uniform"), a, RL_BENCH_KEYS_TABLE);
		sr_printf(d, "%s %s %s %s\n", a, pnum(br_ns(in, RL_BENCH_HOT("direct", "verdict"), a)), pnum(br_ns(in, "%s", keyed)),
			  pnum(br_counter(in, "store_bytes_per_key", "%s", keyed)));
	}
	for (size_t i = 0; i < in->npeers; i++) {
		const struct br_peer *q = &in->peer[i];
		if (!q->agreement)
			sr_printf(d, "peer_%s %s %s %s\n", q->name, pnum(q->hot.median), pnum(q->k1m.median),
				  pnum(q->bytes_per_key));
	}
	sr_printf(v, "peers_run = %d\n", in->peers_run ? 1 : 0);
}
