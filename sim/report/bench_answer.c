/*
 * bench_answer.c - the bench report's first section, "The answer": which
 * algorithm for which need, each with the measured figure that decides it
 * (the tradeoff table's figures; the fleet's run). The library's own
 * algorithms only; peers are compared in their own section.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_report_int.h"

static const char answer_head[] =
	"## The answer\n\nWhich algorithm for which need, each with the figure of this run that decides it; "
	"the sections below hold every figure and how it was measured.\n\n"
	"| need | algorithm | the deciding figure |\n|---|---|---|\n";
static const char answer_exact[] =
	"| exact windows (never more than N in any W) | %s | over-N admissions %s %%, the most in any W %s x N, "
	"false rejects %s %%";
static const char answer_memory[] = "| memory per key | %s | %s B of state, %s B per key all-in at 1M keys";
static const char answer_speed[] = " (ns/op); at 1M keys %s %s ns/op |\n";
static const char answer_bursts[] =
	"| bursts (up to B at once, then N per W) | gcra | token_bucket's decisions kept as one arrival time: over-N "
	"admissions %s %% (token_bucket %s %%), the most in any W %s x N, false rejects %s %%, in %s B of state "
	"(token_bucket %s B) |\n";
static const char answer_fleet[] =
	"local plus global (`ratelab/fleet.h`) | random routing, k = 4 nodes, a sync every S = %g ms: "
	"over-admission %s %% + false rejects %s %% of the central limiter's, with %s round trips per 1000 "
	"requests (a central limiter pays 1000)";
static const char answer_no_fleet[] =
	"local plus global | no sync interval kept its error under 1 % (see Local plus global)";

typedef double (*key_fn)(const struct br_figures *f);

/* exact windows: the fewest over-N admissions, then the lowest max in W / N */
static double over(const struct br_figures *f)
{
	return f->over_n_pct.median + f->worst_ratio.median * 1e-9;
}

/* memory: the bytes per key at 1M keys (all-in), else the state's size */
static double bytes(const struct br_figures *f)
{
	return isnan(f->allin_1m) ? f->state_bytes : f->allin_1m;
}

/* speed: the hot-key check */
static double ns(const struct br_figures *f)
{
	return rp_measured(f->ns_hot) ? f->ns_hot.median : NAN;
}

/* The library algorithm with the least key (the first of equals), other than not; NULL when none. */
static const struct br_figures *least(const struct br_figures *figs, size_t n, key_fn key,
				      const struct br_figures *not)
{
	const struct br_figures *best = NULL;
	for (size_t i = 0; i < n; i++) {
		const struct br_figures *f = &figs[i];
		if (!f->peer && f != not && !isnan(key(f)) && (!best || key(f) < key(best)))
			best = f;
	}
	return best;
}

static const struct br_figures *find(const struct br_figures *figs, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!figs[i].peer && strcmp(figs[i].algo, name) == 0)
			return &figs[i];
	return NULL;
}

/* The fleet's row: the largest sync interval keeping random routing's error under 1 % at k = 4. */
static void fleet_answer(struct br_in *in, struct sr_buf *o)
{
	struct sim_csv c;
	br_csv(in, &c, br_path(in->results, "sim/fleet.csv"), NULL);
	long long best = -1;
	double at[3] = { NAN, NAN, NAN };
	for (;;) { /* the k = 4 sweep in ascending S, the last row of an S kept */
		long long next = -1;
		size_t row = 0;
		for (size_t i = 0; i < c.nrows; i++) {
			if (c.nf[i] != c.ncols || strcmp(sim_csv_at(&c, i, "routing"), "random") != 0 ||
			    sim_csv_num(&c, i, "nodes") != 4 || sim_csv_num(&c, i, "skew_ns") != 0 ||
			    sim_csv_num(&c, i, "outage_to_ns") != 0)
				continue;
			long long s = (long long)sim_csv_num(&c, i, "sync_ns");
			if (s > best && (next < 0 || s <= next)) {
				next = s;
				row = i;
			}
		}
		if (next < 0)
			break;
		double ov = sim_csv_num(&c, row, "over_pct"), rej = sim_csv_num(&c, row, "false_reject_pct");
		if (!(ov + rej < 1.0))
			break;
		best = next;
		at[0] = ov;
		at[1] = rej;
		at[2] = sim_csv_num(&c, row, "round_trips_per_1k");
	}
	if (best < 0)
		sr_puts(o, answer_no_fleet);
	else
		sr_printf(o, answer_fleet, (double)best / 1e6, rp_fmt(at[0], 3), rp_fmt(at[1], 3), rp_fmt(at[2], 1));
	sim_csv_free(&c);
}

void br_answer(struct br_in *in, struct sr_buf *o)
{
	const struct br_figures *figs = br_figures(in), *e, *m, *q, *next;
	size_t n = in->nalgos;
	if (!figs)
		return;
	sr_puts(o, answer_head);
	if ((e = least(figs, n, over, NULL))) {
		sr_printf(o, answer_exact, e->algo, rp_fmt_stat(e->over_n_pct, 3), rp_fmt_stat(e->worst_ratio, 2),
			  rp_fmt_stat(e->false_reject_pct, 3));
		if ((next = least(figs, n, over, e)))
			sr_printf(o, "; the next, %s: %s %% over N", next->algo, rp_fmt_stat(next->over_n_pct, 3));
		sr_puts(o, " |\n");
	}
	if ((m = least(figs, n, bytes, NULL))) {
		sr_printf(o, answer_memory, m->algo, rp_fmt(m->state_bytes, 0), rp_fmt(m->allin_1m, 1));
		if ((next = least(figs, n, bytes, m)))
			sr_printf(o, "; the next, %s: %s B", next->algo, rp_fmt(next->allin_1m, 1));
		size_t nb;
		const struct br_bytes *by = br_bytes_by_limit(in, &nb);
		for (size_t i = 0; i < nb; i++)
			if (by[i].most > by[i].least && !isnan(by[i].at100))
				sr_printf(o, "; %s's grows with N: %s B at N = 100", by[i].algo, rp_fmt(by[i].at100, 0));
		free((void *)by);
		sr_puts(o, " |\n");
	}
	if ((q = least(figs, n, ns, NULL))) {
		next = least(figs, n, ns, q);
		sr_printf(o, "| speed (one check, hot key) | %s", q->algo);
		if (next && rp_overlaps(q->ns_hot, next->ns_hot))
			sr_printf(o, " or %s (within noise)", next->algo);
		sr_puts(o, " | ");
		if (next)
			sr_puts(o, br_rank_pair(q->algo, q->ns_hot, next->algo, next->ns_hot, 2));
		else
			sr_printf(o, "%s ns", rp_fmt_stat(q->ns_hot, 2));
		sr_printf(o, answer_speed, q->algo, rp_fmt_stat(q->ns_1m, 1));
	}
	const struct br_figures *tb = find(figs, n, "token_bucket"), *gc = find(figs, n, "gcra");
	if (tb && gc)
		sr_printf(o, answer_bursts, rp_fmt_stat(gc->over_n_pct, 3), rp_fmt_stat(tb->over_n_pct, 3),
			  rp_fmt_stat(gc->worst_ratio, 2), rp_fmt_stat(gc->false_reject_pct, 3), rp_fmt(gc->state_bytes, 0),
			  rp_fmt(tb->state_bytes, 0));
	sr_puts(o, "| a fleet (k nodes, one limit) | ");
	fleet_answer(in, o);
	sr_puts(o, " |\n\n");
}
