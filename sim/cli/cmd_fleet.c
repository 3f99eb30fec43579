/*
 * cmd_fleet.c - `ratelab fleet`: the local-plus-global mode simulated
 * (sim_fleet.h), one CSV row per run. Without any of --nodes, --sync,
 * --routing, --skew, --outage it runs the report's grid: k = 2, 4, 16 x
 * S = 1 ms .. 1 s x random, sticky (no skew, no outage), then k = 4,
 * S = 10 ms with skew 5 ms and 50 ms, and with the store down for the
 * run's middle sixth (from 1/3 to 1/2 of the duration); with any of them,
 * exactly one run with the given values and defaults for the rest.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "out_file.h"
#include "ratelab/rule.h"
#include "ratelab/status.h"
#include "sim_fleet.h"

static const char usage[] =
	"usage: ratelab fleet [--out FILE] [--seed S] [--duration D] [--keys K] [--limit N]\n"
	"                     [--window D] [--load PCT] [--nodes K] [--sync D]\n"
	"                     [--routing random|sticky] [--skew D] [--outage FROM+LEN]\n"
	"\n"
	"Simulates k nodes sharing each key's quota of N per window: each decides from\n"
	"a local share and syncs its counts with a store (Redis) every S (ratelab/\n"
	"fleet.h); counts over-admission and false rejects against one exact\n"
	"central fixed window (per key and window: admitted beyond N, and short of\n"
	"min(offered, N); in % of what the central limiter admits), and the store\n"
	"round trips (per 1000 requests; saved: vs one per request). Durations take a unit\n"
	"(ns, us, ms, s, m, h). Defaults: N 100 per 1s, 20 keys, load 125 (% of N),\n"
	"60s, seed 1, k 4, S 10ms, random routing, no skew, no outage.\n"
	"Without --nodes, --sync, --routing, --skew or --outage: the grid of k = 2, 4, 16\n"
	"x S = 1ms .. 1s x both routings, then skew 5ms and 50ms and an outage for k = 4,\n"
	"S = 10ms; with any of them, one run.\n"
	"  --out FILE   write the CSV there, whole or not at all (default: stdout)\n"
	"  --skew D     each node's clock is off by a uniform amount in [-D, +D]\n"
	"  --outage FROM+LEN  the store is down from FROM after the start for LEN\n"
	"Columns: routing,nodes,sync_ns,skew_ns,outage_from_ns,outage_to_ns,keys,limit,\n"
	"window_ns,load_pct,duration_ns,seed,requests,admitted,central_admitted,\n"
	"over_admitted,false_rejects,over_pct,false_reject_pct,round_trips,\n"
	"sync_failures,round_trips_per_1k,round_trips_saved_pct\n";

static const char header[] =
	"routing,nodes,sync_ns,skew_ns,outage_from_ns,outage_to_ns,keys,limit,window_ns,load_pct,"
	"duration_ns,seed,requests,admitted,central_admitted,over_admitted,false_rejects,"
	"over_pct,false_reject_pct,round_trips,sync_failures,round_trips_per_1k,"
	"round_trips_saved_pct\n";

static void row(FILE *f, const struct sim_fleet_config *c, const struct sim_fleet_result *r)
{
	double req = r->requests ? (double)r->requests : 1.0;
	double cen = r->central_admitted ? (double)r->central_admitted : 1.0;

	fprintf(f, "%s,%d,%lld,%lld,%lld,%lld,%d,%lld,%lld,%lld,%lld,%llu,%llu,%llu,%llu,%llu,%llu,"
		   "%.4f,%.4f,%llu,%llu,%.4f,%.4f\n",
		c->routing == SIM_FLEET_STICKY ? "sticky" : "random", c->nodes, (long long)c->sync_ns,
		(long long)c->skew_ns, (long long)c->outage_from_ns, (long long)c->outage_to_ns, c->keys,
		(long long)c->limit, (long long)c->window_ns, (long long)c->load_pct,
		(long long)c->duration_ns, (unsigned long long)c->seed,
		(unsigned long long)r->requests, (unsigned long long)r->admitted,
		(unsigned long long)r->central_admitted, (unsigned long long)r->over_admitted,
		(unsigned long long)r->false_rejects, 100.0 * (double)r->over_admitted / cen,
		100.0 * (double)r->false_rejects / cen, (unsigned long long)r->round_trips,
		(unsigned long long)r->sync_failures, 1000.0 * (double)r->round_trips / req,
		100.0 * (1.0 - (double)r->round_trips / req));
}

/* The grid (see the file comment) into cs; returns the count. */
static size_t grid(const struct sim_fleet_config *base, struct sim_fleet_config *cs)
{
	static const int ks[] = { 2, 4, 16 };
	static const int64_t sync_ms[] = { 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000 };
	size_t n = 0;

	for (int routing = 0; routing < 2; routing++)
		for (size_t a = 0; a < sizeof(ks) / sizeof(ks[0]); a++)
			for (size_t b = 0; b < sizeof(sync_ms) / sizeof(sync_ms[0]); b++) {
				cs[n] = *base;
				cs[n].routing = (enum sim_fleet_routing)routing;
				cs[n].nodes = ks[a];
				cs[n++].sync_ns = sync_ms[b] * 1000000;
			}
	for (int routing = 0; routing < 2; routing++) {
		for (int64_t skew_ms = 5; skew_ms <= 50; skew_ms += 45) {
			cs[n] = *base;
			cs[n].routing = (enum sim_fleet_routing)routing;
			cs[n++].skew_ns = skew_ms * 1000000;
		}
		cs[n] = *base;
		cs[n].routing = (enum sim_fleet_routing)routing;
		cs[n].outage_from_ns = base->duration_ns / 3;
		cs[n++].outage_to_ns = base->duration_ns / 2;
	}
	return n;
}

enum { GRID_MAX = 66 };

enum {
	O_OUT,
	O_SEED,
	O_DURATION,
	O_KEYS,
	O_LIMIT,
	O_WINDOW,
	O_LOAD,
	O_NODES,
	O_SYNC,
	O_ROUTING,
	O_SKEW,
	O_OUTAGE,
	O_COUNT
};

static const struct cli_option options[O_COUNT] = {
	[O_OUT] = { "out", CLI_VALUE },	      [O_SEED] = { "seed", CLI_VALUE },
	[O_DURATION] = { "duration", CLI_VALUE }, [O_KEYS] = { "keys", CLI_VALUE },
	[O_LIMIT] = { "limit", CLI_VALUE },	      [O_WINDOW] = { "window", CLI_VALUE },
	[O_LOAD] = { "load", CLI_VALUE },	      [O_NODES] = { "nodes", CLI_VALUE },
	[O_SYNC] = { "sync", CLI_VALUE },	      [O_ROUTING] = { "routing", CLI_VALUE },
	[O_SKEW] = { "skew", CLI_VALUE },	      [O_OUTAGE] = { "outage", CLI_VALUE },
};

/* --outage FROM+LEN: two durations with units. */
static int parse_outage(const char *text, struct sim_fleet_config *c)
{
	const char *plus = strchr(text, '+');
	char from[32];
	size_t fl = plus ? (size_t)(plus - text) : sizeof(from);
	int64_t len;

	if (fl < sizeof(from)) {
		memcpy(from, text, fl);
		from[fl] = '\0';
	}
	if (fl >= sizeof(from) || !rl_parse_duration(from, 0, &c->outage_from_ns) ||
	    !rl_parse_duration(plus + 1, 0, &len) || len > INT64_MAX - c->outage_from_ns)
		return cli_usage_error("fleet", "--outage %s is not FROM+LEN, two durations with units "
				       "(e.g. 20s+10s)", cli_quote(text));
	c->outage_to_ns = c->outage_from_ns + len;
	return CLI_EXIT_OK;
}

/* The options' values into c; *single when one of the mode options is given. */
static int read_options(const struct cli_args *a, struct sim_fleet_config *c, bool *single)
{
	const char *const *v = a->value;
	int64_t x;
	int s = CLI_EXIT_OK;

	if (!s && v[O_SEED] && !(s = cli_int("fleet", "--seed", v[O_SEED], 0, INT64_MAX, &x)))
		c->seed = (uint64_t)x;
	if (!s && v[O_DURATION])
		s = cli_duration("fleet", "--duration", v[O_DURATION], 1, INT64_MAX, &c->duration_ns);
	if (!s && v[O_KEYS] && !(s = cli_int("fleet", "--keys", v[O_KEYS], 1, SIM_FLEET_KEYS_MAX, &x)))
		c->keys = (int)x;
	if (!s && v[O_LIMIT])
		s = cli_int("fleet", "--limit", v[O_LIMIT], 1, RL_LIMIT_MAX, &c->limit);
	if (!s && v[O_WINDOW])
		s = cli_duration("fleet", "--window", v[O_WINDOW], 1, RL_WINDOW_MAX_NS, &c->window_ns);
	if (!s && v[O_LOAD])
		s = cli_int("fleet", "--load", v[O_LOAD], 1, 10000, &c->load_pct);
	if (!s && v[O_NODES] && !(s = cli_int("fleet", "--nodes", v[O_NODES], 1, SIM_FLEET_NODES_MAX, &x)))
		c->nodes = (int)x;
	if (!s && v[O_SYNC])
		s = cli_duration("fleet", "--sync", v[O_SYNC], 1, RL_TIME_MAX_NS, &c->sync_ns);
	if (!s && v[O_ROUTING]) {
		if (strcmp(v[O_ROUTING], "random") == 0)
			c->routing = SIM_FLEET_RANDOM;
		else if (strcmp(v[O_ROUTING], "sticky") == 0)
			c->routing = SIM_FLEET_STICKY;
		else
			s = cli_usage_error("fleet", "--routing %s is not random or sticky",
					    cli_quote(v[O_ROUTING]));
	}
	if (!s && v[O_SKEW])
		s = cli_duration("fleet", "--skew", v[O_SKEW], 0, INT64_MAX, &c->skew_ns);
	if (!s && v[O_OUTAGE])
		s = parse_outage(v[O_OUTAGE], c);
	*single = v[O_NODES] || v[O_SYNC] || v[O_ROUTING] || v[O_SKEW] || v[O_OUTAGE];
	return s;
}

int cli_cmd_fleet(int argc, char **argv)
{
	struct sim_fleet_config c = sim_fleet_defaults();
	struct cli_args a;
	bool single;
	int status = cli_parse("fleet", argc, argv, options, O_COUNT, 0, &a);

	if (status == CLI_HELP) {
		fputs(usage, stdout);
		return cli_output_end("fleet", CLI_EXIT_OK);
	}
	if (status || (status = read_options(&a, &c, &single)))
		return status;
	const char *out = a.value[O_OUT];

	struct sim_fleet_config cs[GRID_MAX];
	size_t n = single ? 1 : grid(&c, cs);
	char msg[160];
	if (single)
		cs[0] = c;
	/* Check every run before writing anything. */
	for (size_t i = 0; i < n; i++)
		if (!sim_fleet_valid(&cs[i], msg, sizeof(msg)))
			return cli_usage_error("fleet", "%s", msg);
	FILE *f = stdout;
	char tmp[SIM_OUT_PATH_MAX];
	if (out && !(f = sim_out_file_begin(out, tmp, "fleet", stderr)))
		return CLI_EXIT_FAIL;
	fputs(header, f);
	for (size_t i = 0; i < n; i++) {
		struct sim_fleet_result r;
		int s = sim_fleet_run(&cs[i], &r, msg, sizeof(msg));
		if (s != RL_OK) {
			if (f != stdout) {
				fclose(f);
				unlink(tmp);
			}
			if (s == RL_EINVAL)
				return cli_usage_error("fleet", "%s", msg);
			fprintf(stderr, "ratelab fleet: %s\n", msg);
			return CLI_EXIT_FAIL;
		}
		row(f, &cs[i], &r);
	}
	if (f != stdout && sim_out_file_commit(f, tmp, out, "fleet", stderr) != 0)
		return CLI_EXIT_FAIL;
	return cli_output_end("fleet", CLI_EXIT_OK);
}
