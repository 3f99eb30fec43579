/*
 * bench_fleet.c - the bench report's local-plus-global section: reads
 * RESULTS/sim/fleet.csv (`ratelab fleet`, bench/fleet/run.sh), writes
 * RESULTS/plots/data/fleet.dat for plots/fleet.gp and the section's
 * Markdown. fleet.csv is part of every make bench run (it needs no Redis),
 * so a missing or malformed file is an error.
 *
 *   fleet.dat   one line per sync interval: S (ms), then over % and false
 *               reject % for random k = 2, 4, 16 and sticky k = 2, 4, 16
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_report_int.h"

static const char *const fleet_columns[] = {
	"routing", "nodes", "sync_ns", "skew_ns", "outage_from_ns", "outage_to_ns", "keys", "limit",
	"window_ns", "load_pct", "duration_ns", "seed", "requests", "admitted", "central_admitted",
	"over_admitted", "false_rejects", "over_pct", "false_reject_pct", "round_trips", "sync_failures",
	"round_trips_per_1k", "round_trips_saved_pct", NULL
};

static const char fleet_intro[] =
	"## Local plus global (k nodes, local shares, a sync every S)\n\n"
	"`ratelab fleet` (sim/engine/sim_fleet.h, the model of ratelab/fleet.h): %s keys, each with N = %s per "
	"%s ms shared by k nodes, offered %s %% of N, %lld s simulated, seed %s. Each node admits from its part "
	"of what the store last said is left and writes its count every S; over-admission (admitted beyond N "
	"per key and window) and false rejects (short of min(offered, N)) are %% of what one exact central "
	"fixed window admits; round trips are per 1000 requests (a central limiter in Redis pays 1000).\n\n";
static const char fleet_extra_head[] =
	"| routing | k | S | clock skew | store down | over % | false rej % | round trips / 1000 req | failed "
	"syncs |\n|---|---:|---:|---:|---|---:|---:|---:|---:|\n";
static const char fleet_chart[] =
	"![fleet](plots/fleet.png)\n\nError against the sync interval (log x). Random routing keeps "
	"over-admission + false rejects under 1 % up to S = ";
static const char fleet_sticky[] =
	"; sticky routing leaves a busy key's node with its part of the rest at each sync, so at S = "
	"%s ms it falsely rejects %s %%, %s %% and %s %% (k = 2, 4, 16).\n\n";

static const int nodes[3] = { 2, 4, 16 };
static const char *const routings[2] = { "random", "sticky" };

struct point {
	bool set;
	double over, rej, rt_per_1k;
};

static const char *ms(long long ns)
{
	return rp_str("%g", (double)ns / 1e6);
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;
	return x < y ? -1 : x > y;
}

void br_fleet(struct br_in *in, struct sr_buf *o)
{
	char path[SR_PATH_MAX + 64];
	snprintf(path, sizeof(path), "%s/sim/fleet.csv", in->results);
	struct sim_csv c;
	br_csv(in, &c, path, fleet_columns);
	long long *sync = malloc((c.nrows + 1) * sizeof(*sync));
	struct point *sweep = calloc(2 * 3 * (c.nrows + 1), sizeof(*sweep)); /* [routing][k][sync index] */
	size_t nsync = 0;
	if (!sync || !sweep) {
		br_error(in, SIM_CSV_FAIL, "out of memory");
		goto done;
	}
	if (in->status)
		goto done;
	if (!c.nrows) {
		br_error(in, SIM_CSV_BAD, "%s: missing or empty (run: ratelab fleet --out %s)", path, path);
		goto done;
	}
	for (size_t i = 0; i < c.nrows; i++) {
		if (sim_csv_num(&c, i, "skew_ns") != 0 || sim_csv_num(&c, i, "outage_to_ns") != 0)
			continue;
		long long s = (long long)sim_csv_num(&c, i, "sync_ns");
		bool seen = false;
		for (size_t k = 0; k < nsync && !seen; k++)
			seen = sync[k] == s;
		if (!seen)
			sync[nsync++] = s;
	}
	if (!nsync) {
		br_error(in, SIM_CSV_BAD, "%s: no sweep row (one without clock skew or outage)", path);
		goto done;
	}
	qsort(sync, nsync, sizeof(*sync), cmp_ll);
#define AT(r, k, si) sweep[((r) * 3 + (k)) * (c.nrows + 1) + (si)]
	for (size_t i = 0; i < c.nrows; i++) {
		if (sim_csv_num(&c, i, "skew_ns") != 0 || sim_csv_num(&c, i, "outage_to_ns") != 0)
			continue;
		long long s = (long long)sim_csv_num(&c, i, "sync_ns");
		int nd = (int)sim_csv_num(&c, i, "nodes");
		const char *rt = sim_csv_at(&c, i, "routing");
		for (size_t r = 0; r < 2; r++)
			for (size_t k = 0; k < 3; k++)
				for (size_t si = 0; si < nsync; si++)
					if (strcmp(rt, routings[r]) == 0 && nd == nodes[k] && sync[si] == s)
						AT(r, k, si) = (struct point){ true, sim_csv_num(&c, i, "over_pct"),
									       sim_csv_num(&c, i, "false_reject_pct"),
									       sim_csv_num(&c, i, "round_trips_per_1k") };
	}
	for (size_t r = 0; r < 2; r++)
		for (size_t k = 0; k < 3; k++)
			for (size_t si = 0; si < nsync; si++)
				if (!AT(r, k, si).set) {
					br_error(in, SIM_CSV_BAD, "%s: no %s k=%d S=%s ms row (run: ratelab fleet --out %s)", path,
						 routings[r], nodes[k], ms(sync[si]), path);
					goto done;
				}

	/* chart data */
	struct sr_buf *f = br_data(in, "fleet.dat");
	if (!f)
		goto done;
	sr_puts(f, "# sync_ms");
	for (size_t r = 0; r < 2; r++)
		for (size_t k = 0; k < 3; k++)
			sr_printf(f, " %s%d_over %s%d_reject", routings[r], nodes[k], routings[r], nodes[k]);
	sr_puts(f, "\n");
	for (size_t si = 0; si < nsync; si++) {
		sr_puts(f, ms(sync[si]));
		for (size_t r = 0; r < 2; r++)
			for (size_t k = 0; k < 3; k++)
				sr_printf(f, " %g %g", AT(r, k, si).over, AT(r, k, si).rej);
		sr_puts(f, "\n");
	}

	sr_printf(o, fleet_intro, sim_csv_at(&c, 0, "keys"), sim_csv_at(&c, 0, "limit"),
		  ms((long long)sim_csv_num(&c, 0, "window_ns")), sim_csv_at(&c, 0, "load_pct"),
		  (long long)(sim_csv_num(&c, 0, "duration_ns") / 1e9), sim_csv_at(&c, 0, "seed"));
	for (size_t r = 0; r < 2; r++) {
		sr_printf(o, "| %s routing: S | ", routings[r]);
		for (size_t k = 0; k < 3; k++)
			sr_printf(o, "k=%d over %% | k=%d false rej %% | ", nodes[k], nodes[k]);
		sr_puts(o, "round trips / 1000 req (k=2, 4, 16) |\n|---|");
		for (size_t k = 0; k < 3; k++)
			sr_puts(o, "---:|---:|");
		sr_puts(o, "---:|\n");
		for (size_t si = 0; si < nsync; si++) {
			sr_printf(o, "| %s ms | ", ms(sync[si]));
			for (size_t k = 0; k < 3; k++)
				sr_printf(o, "%s | %s | ", rp_fmt(AT(r, k, si).over, 3), rp_fmt(AT(r, k, si).rej, 3));
			sr_printf(o, "%s, %s, %s |\n", rp_fmt(AT(r, 0, si).rt_per_1k, 1), rp_fmt(AT(r, 1, si).rt_per_1k, 1),
				  rp_fmt(AT(r, 2, si).rt_per_1k, 1));
		}
		sr_puts(o, "\n");
	}
	bool extra = false;
	for (size_t i = 0; i < c.nrows; i++) {
		if (sim_csv_num(&c, i, "skew_ns") == 0 && sim_csv_num(&c, i, "outage_to_ns") == 0)
			continue;
		if (!extra)
			sr_puts(o, fleet_extra_head);
		extra = true;
		long long from = (long long)sim_csv_num(&c, i, "outage_from_ns"), to = (long long)sim_csv_num(&c, i, "outage_to_ns");
		sr_printf(o, "| %s | %s | %s ms | ±%s ms | ", sim_csv_at(&c, i, "routing"), sim_csv_at(&c, i, "nodes"),
			  ms((long long)sim_csv_num(&c, i, "sync_ns")), ms((long long)sim_csv_num(&c, i, "skew_ns")));
		if (to > from)
			sr_printf(o, "%s to %s ms", ms(from), ms(to));
		else
			sr_puts(o, "-");
		sr_printf(o, " | %s | %s | %s | %s |\n", rp_fmt(sim_csv_num(&c, i, "over_pct"), 3),
			  rp_fmt(sim_csv_num(&c, i, "false_reject_pct"), 3), rp_fmt(sim_csv_num(&c, i, "round_trips_per_1k"), 1),
			  sim_csv_at(&c, i, "sync_failures"));
	}
	if (extra)
		sr_puts(o, "\n");
	/* the chart's reading: the largest S keeping random routing's error under 1 % per k,
	 * and sticky routing's false rejects at the largest S */
	sr_puts(o, fleet_chart);
	for (size_t k = 0; k < 3; k++) {
		long long best = -1;
		for (size_t si = 0; si < nsync; si++) {
			if (AT(0, k, si).over + AT(0, k, si).rej < 1.0)
				best = sync[si];
			else
				break;
		}
		if (best < 0)
			sr_puts(o, "none");
		else
			sr_printf(o, "%s ms", ms(best));
		sr_printf(o, " (k = %d)%s", nodes[k], k < 2 ? ", " : "");
	}
	size_t last = nsync - 1;
	sr_printf(o, fleet_sticky, ms(sync[last]), rp_fmt(AT(1, 0, last).rej, 1), rp_fmt(AT(1, 1, last).rej, 1),
		  rp_fmt(AT(1, 2, last).rej, 1));
#undef AT
done:
	free(sync);
	free(sweep);
	sim_csv_free(&c);
}
