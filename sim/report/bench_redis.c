/*
 * bench_redis.c - the bench report's Redis section, from
 * RESULTS/bench/redis.json (bench/redis/run.sh: ratelab_redis_bench) and
 * RESULTS/bench/redis_rlf.json (bench/peers/node/redis.js), all measured on
 * one redis-server in one run: ratelab's scripts, the module's
 * RATELAB.CHECK (when the server had it), the reference plain GCRA script
 * and rate-limiter-flexible's RateLimiterRedis. One table of speed
 * (decisions per second at 1, 10 and 100 in flight, the server's us and CPU
 * us per decision and their ratio to the plain script's, round trips
 * p50/p99, bytes per key in Redis), the targets checked against it
 * (scripts <= 1.5x the plain script's server time, sliding_log <= 2.5x; the
 * module <= 1 us and >= 3x the plain script's pipelined decisions per
 * second), and one table of exactness. Without redis.json the section says
 * "not run". It writes the chart's data, RESULTS/plots/data/redis.csv
 * (plots/redis.gp), empty when not run.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_report_int.h"

static const char redis_absent[] =
	"Redis: not run (redis-server, redis-benchmark or the Redis backend was missing; `make deps`).\n\n";
static const char redis_old[] =
	"Redis: not run by this version (results/bench/redis.json is of an older bench; `make bench`).\n\n";
static const char redis_intro[] =
	"One `redis-server` started for the run, every subject against it in the same run, one client "
	"(its own connection); rule %s"
	" on 1000 keys, the caller passing the time in epoch ns (ratelab's and the plain script's "
	"requests). *In flight* k: ratelab's and the plain script's requests keep k commands outstanding on "
	"the connection, one sent for each reply taken (ratelab's commands are the backend's own, "
	"scripts or module); rate-limiter-flexible has k `consume()` calls pending on its ioredis "
	"connection. A round trip runs from a request's command made to its reply taken. *Server us*: `INFO "
	"commandstats` usec per call of the decision's command (`EVALSHA`, "
	"whose time includes the calls its script makes; `RATELAB.CHECK`), measured at 100 in flight, "
	"the median of 5 runs with the subjects interleaved; *CPU us*: the server's `used_cpu_user + "
	"used_cpu_sys` over the same runs per decision (all its work for a decision: reading, parsing and "
	"answering the command too). On a busy machine the first counts the time the server waited for a "
	"core in the middle of a script; the second does not. *Ratio*: to the plain GCRA script's "
	"(bench/redis/plain_gcra.lua: doubles, one `GET` and one `SET`, as most published limiters are), "
	"the inexact ceiling the scripts' targets are set against. Bytes per key: `MEMORY USAGE` of the "
	"key's Redis keys after one admitted request, averaged over 200 keys. Ceiling: `redis-benchmark "
	"-c 1 -P k evalsha` of the script `return 1`: "
	"%s / %s / %s per second at 1 / 10 / 100.\n\n";
static const char redis_no_module[] = "The module (ratelab.so) was not in this build: no RATELAB.CHECK rows.\n\n";
static const char redis_no_rlf[] = "rate-limiter-flexible: not run (node or its packages missing; `make deps`).\n\n";
static const char redis_table[] =
	"| subject | decisions/s, 1 in flight | 10 | 100 | server us / decision | ratio to plain | CPU us / "
	"decision | ratio | round trip p50 / p99 us, 1 in flight | p50 / p99 us, 100 | bytes/key in Redis | "
	"target |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n";
static const char redis_targets[] =
	"\nTargets: each ratelab script's server time per decision at most 1.5x the plain script's "
	"(sliding_log 2.5x); the module's at most 1 us, with at least 3x the plain script's decisions per "
	"second at 100 in flight. A target not met is marked, and the reason is measured below.\n\n";
static const char redis_stages[] =
	"Where a script's server time goes. The same rounds timed two stages of a script, called with a "
	"script's arguments: `return 1`, %s us (what any `EVALSHA` of these arguments "
	"costs), and lib.lua followed by `return 1`, %s us (the functions every "
	"ratelab script makes anew on each call, which Redis cannot keep between calls, and its arguments "
	"read into exact (s, ns) pairs), before the algorithm starts. Each script's time split there; the "
	"plain script's after `return 1`:\n\n"
	"| subject | server us | before the algorithm | the algorithm: state read, decided, written, "
	"answered |\n|---|---|---|---|\n";
static const char redis_module[] =
	"The module: a decision of a fixed-size state costs the server %s to %s us, %s the script `return 1` "
	"(%s us). That time is mostly Redis's own work for a write command (its 8 arguments read, the key "
	"opened, the value and its expiry written, the effect `SET ... PXAT` propagated to replicas and "
	"the AOF, 5 fields answered) around the library's decision. sliding_log's value holds one 12-byte run "
	"per distinct admitted time in its window (at this rule and traffic up to 1000 per key), which every "
	"decision reads, checks and writes back: %s us.\n\n";
static const char redis_costs[] =
	"The primitives a script is made of, each run in a loop inside one `EVAL`, the server's CPU per "
	"iteration (the empty loop's subtracted), same server, same run.\n\n"
	"| primitive | CPU ns |\n|---|---|\n";
static const char redis_costs_end[] =
	"\nA ratelab script reads and writes a key's state as a hash whose TTL is set apart (`HMGET`, "
	"`HSET`, `PEXPIRE`: %s ns in these loops, against the plain script's `GET` "
	"and `SET PX`, %s ns), and decides in exact integers, reading the stored "
	"times and writing them and its answer as exact decimal strings, where the plain script rounds "
	"its doubles.\n\n";
static const char redis_exact[] =
	"Exactness: one seeded trace (3 keys, epoch-ns times, steps around the emission interval, a tenth "
	"of the requests of cost 2 to 4; 3000 requests, in batches of 10) through each subject, compared "
	"decision by decision with the in-process algorithm of the same rule (the plain script's is gcra). "
	"rate-limiter-flexible takes no time from its caller: its trace (150 requests on 3 keys, 5 per "
	"second) is played in real time, each request's send time kept and fed to the in-process "
	"fixed_window of the same rule; its window starts at a key's first request and ends when Redis "
	"expires the key, not on the epoch's multiples of W, and it gives no retry or reset in ns.\n\n"
	"| subject | in-process algorithm | requests | verdicts differ | answers differ (any field) | first "
	"difference |\n|---|---|---|---|---|---|\n";
static const char redis_chart[] =
	"\n![redis](plots/redis.png)\n\nDecisions per second against the requests in flight (log scales), "
	"every subject on the same server, beside the trivial script's ceiling.\n\n";

static const char *const batches[3] = { "batch_1", "batch_10", "batch_100" };

struct subject {
	const struct sim_json *j;
	const char *path; /* the file it came from */
};

static const char *label(struct br_in *in, const struct subject *s)
{
	const char *kind = br_jstr(in, s->path, s->j, "kind"), *name = br_jstr(in, s->path, s->j, "name");
	if (strcmp(kind, "script") == 0)
		return rp_str("ratelab script: %s", name);
	if (strcmp(kind, "module") == 0) {
		const char *sp = strchr(name, ' ');
		return rp_str("ratelab.so: %s", sp ? sp + 1 : name);
	}
	return name;
}

/* A subject's batch figure: s[batch][key]. */
static double bnum(struct br_in *in, const struct subject *s, const char *batch, const char *key)
{
	return br_jnum(in, s->path, br_jget(in, s->path, s->j, batch, SIM_JSON_OBJECT), key);
}

/* The target a subject is held to, as text, and whether it is met (ratio: server us / the plain script's). */
static const char *target(struct br_in *in, const struct subject *s, double ratio, double plain_rate)
{
	const char *kind = br_jstr(in, s->path, s->j, "kind"), *algo = br_jstr(in, s->path, s->j, "algo");
	if (strcmp(kind, "script") == 0) {
		/* a log's value (one run per admitted time) is read, checked and written back whole */
		double cap = rp_algo_of(algo).owns_heap ? 2.5 : 1.5;
		return rp_str("%s (<= %sx)", ratio <= cap ? "met" : "**not met**", rp_fmt(cap, 1));
	}
	if (strcmp(kind, "module") == 0) {
		double us = br_jnum(in, s->path, s->j, "server_us"), rate = bnum(in, s, "batch_100", "decisions_per_s");
		bool ok = us <= 1.0 && rate >= 3 * plain_rate;
		return rp_str("%s (<= 1 us: %s; >= 3x plain's decisions/s: %sx)", ok ? "met" : "**not met**",
			      rp_fmt(us, 2), rp_fmt(rate / plain_rate, 2));
	}
	return "";
}

void br_redis(struct br_in *in, struct sr_buf *o)
{
	char path[SR_PATH_MAX + 64], rlf_path[SR_PATH_MAX + 64];
	snprintf(path, sizeof(path), "%s/bench/redis.json", in->results);
	snprintf(rlf_path, sizeof(rlf_path), "%s/bench/redis_rlf.json", in->results);
	struct sim_json j, rj = { 0 };
	struct subject *sub = NULL;
	size_t n = 0;
	struct sr_buf *csv = br_data(in, "redis.csv"); /* empty when not run */
	sr_puts(o, "## Redis backend\n\n");
	int rc = br_json(in, path, &j);
	if (rc <= 0) {
		if (rc == 0)
			sr_puts(o, redis_absent);
		return;
	}
	const struct sim_json *subjects = sim_json_get(&j, "subjects");
	if (!subjects) {
		sr_puts(o, redis_old);
		goto done;
	}
	if (subjects->type != SIM_JSON_ARRAY) {
		br_error(in, SIM_CSV_BAD, "%s: \"subjects\" is not an array", path);
		goto done;
	}
	int rlf = br_json(in, rlf_path, &rj);
	if (rlf < 0)
		goto done;
	sub = malloc((subjects->n + 2) * sizeof(*sub));
	if (!sub) {
		br_error(in, SIM_CSV_FAIL, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < subjects->n; i++)
		sub[n++] = (struct subject){ &subjects->items[i], path };
	if (rlf)
		sub[n++] = (struct subject){ &rj, rlf_path };
	const struct sim_json *ceil = br_jget(in, path, &j, "ceiling_evalsha_per_s", SIM_JSON_OBJECT);
	const struct subject *plain = NULL;
	for (size_t i = 0; i < n && !plain; i++)
		if (strcmp(br_jstr(in, sub[i].path, sub[i].j, "kind"), "plain") == 0)
			plain = &sub[i];
	double plain_us = plain ? br_jnum(in, plain->path, plain->j, "server_us") : NAN;
	double plain_cpu = plain ? br_jnum(in, plain->path, plain->j, "server_cpu_us") : NAN;
	double plain_rate = plain ? bnum(in, plain, "batch_100", "decisions_per_s") : NAN;
	bool module = sim_json_true(sim_json_get(&j, "module"));

	sr_printf(o, redis_intro, br_jstr(in, path, &j, "rule"), rp_fmt(br_jnum(in, path, ceil, "batch_1"), 0),
		  rp_fmt(br_jnum(in, path, ceil, "batch_10"), 0), rp_fmt(br_jnum(in, path, ceil, "batch_100"), 0));
	if (!module)
		sr_puts(o, redis_no_module);
	if (!rlf)
		sr_puts(o, redis_no_rlf);
	sr_puts(o, redis_table);
	for (size_t i = 0; i < n; i++) {
		const struct subject *s = &sub[i];
		double us = br_jnum(in, s->path, s->j, "server_us"), cpu = br_jnum(in, s->path, s->j, "server_cpu_us");
		sr_printf(o, "| %s", label(in, s));
		for (size_t b = 0; b < 3; b++)
			sr_printf(o, " | %s", rp_fmt(bnum(in, s, batches[b], "decisions_per_s"), 0));
		sr_printf(o, " | %s | %sx | %s | %sx | %s / %s | %s / %s | %s | %s |\n", rp_fmt(us, 2),
			  rp_fmt(us / plain_us, 2), rp_fmt(cpu, 2), rp_fmt(cpu / plain_cpu, 2),
			  rp_fmt(bnum(in, s, "batch_1", "p50_us"), 1), rp_fmt(bnum(in, s, "batch_1", "p99_us"), 1),
			  rp_fmt(bnum(in, s, "batch_100", "p50_us"), 1), rp_fmt(bnum(in, s, "batch_100", "p99_us"), 1),
			  rp_fmt(br_jnum(in, s->path, s->j, "bytes_per_key"), 0), target(in, s, us / plain_us, plain_rate));
	}
	sr_puts(o, redis_targets);
	const struct sim_json *stages = sim_json_get(&j, "stages_us");
	if (stages && plain) {
		double base = br_jnum(in, path, stages, "return_1"), lib = br_jnum(in, path, stages, "lib");
		sr_printf(o, redis_stages, rp_fmt(base, 2), rp_fmt(lib, 2));
		for (size_t i = 0; i < n; i++) {
			const char *kind = br_jstr(in, sub[i].path, sub[i].j, "kind");
			bool script = strcmp(kind, "script") == 0;
			if (!script && strcmp(kind, "plain") != 0)
				continue;
			double us = br_jnum(in, sub[i].path, sub[i].j, "server_us"), before = script ? lib : base;
			sr_printf(o, "| %s | %s | %s | %s |\n", label(in, &sub[i]), rp_fmt(us, 2), rp_fmt(before, 2),
				  rp_fmt(us - before, 2));
		}
		sr_puts(o, "\n");
	}
	if (stages && module) {
		double lo = INFINITY, hi = 0, log_us = NAN, base = br_jnum(in, path, stages, "return_1");
		for (size_t i = 0; i < n; i++) {
			if (strcmp(br_jstr(in, sub[i].path, sub[i].j, "kind"), "module") != 0)
				continue;
			double us = br_jnum(in, sub[i].path, sub[i].j, "server_us");
			if (rp_algo_of(br_jstr(in, sub[i].path, sub[i].j, "algo")).owns_heap) { /* a log, not fixed-size */
				log_us = us;
			} else {
				lo = fmin(lo, us);
				hi = fmax(hi, us);
			}
		}
		sr_printf(o, redis_module, rp_fmt(lo, 2), rp_fmt(hi, 2), hi < base ? "less than" : "against",
			  rp_fmt(base, 2), rp_fmt(log_us, 2));
	}
	const struct sim_json *costs = sim_json_get(&j, "costs");
	if (costs) {
		/* the primitives by name (absent: 0), the last of a name kept */
		double hmget = 0, hset = 0, pexpire = 0, get = 0, set = 0;
		sr_puts(o, redis_costs);
		for (size_t i = 0; costs->type == SIM_JSON_ARRAY && i < costs->n; i++) {
			const char *what = br_jstr(in, path, &costs->items[i], "what");
			double ns = br_jnum(in, path, &costs->items[i], "ns");
			sr_printf(o, "| %s | %s |\n", what, rp_fmt(ns, 0));
			if (strcmp(what, "HMGET of 3 fields") == 0)
				hmget = ns;
			else if (strcmp(what, "HSET of 3 fields") == 0)
				hset = ns;
			else if (strcmp(what, "PEXPIRE") == 0)
				pexpire = ns;
			else if (strcmp(what, "GET of a string key") == 0)
				get = ns;
			else if (strcmp(what, "SET of a string key with PX") == 0)
				set = ns;
		}
		sr_printf(o, redis_costs_end, rp_fmt(hmget + hset + pexpire, 0), rp_fmt(get + set, 0));
	}
	sr_puts(o, redis_exact);
	for (size_t i = 0; i < n; i++) {
		const struct subject *s = &sub[i];
		const struct sim_json *x = br_jget(in, s->path, s->j, "exact", SIM_JSON_OBJECT);
		const char *ex = br_jstr(in, s->path, x, "example");
		sr_printf(o, "| %s | %s | %d | %d | %d | %s |\n", label(in, s), br_jstr(in, s->path, s->j, "algo"),
			  (int)br_jnum(in, s->path, x, "requests"), (int)br_jnum(in, s->path, x, "verdicts_differ"),
			  (int)br_jnum(in, s->path, x, "answers_differ"), *ex ? ex : "none");
	}
	sr_puts(o, redis_chart);

	if (csv) {
		sr_puts(csv, "in_flight,ceiling");
		for (size_t i = 0; i < n; i++)
			sr_printf(csv, ",%s", label(in, &sub[i]));
		sr_puts(csv, "\n");
		for (size_t b = 0; b < 3; b++) {
			sr_printf(csv, "%s,%g", batches[b] + 6, br_jnum(in, path, ceil, batches[b]));
			for (size_t i = 0; i < n; i++)
				sr_printf(csv, ",%g", bnum(in, &sub[i], batches[b], "decisions_per_s"));
			sr_puts(csv, "\n");
		}
	}
done:
	free(sub);
	sim_json_free(&rj);
	sim_json_free(&j);
}
