/*
 * cmd_sim.c - `ratelab sim [--out DIR] [--seed S] [--no-timing] [--quiet]
 * [SCENARIO.ini ...]`: runs each scenario (default: every sim/scenarios/
 * *.ini, in name order) through every chosen algorithm and the breaker and
 * writes DIR/summary.csv, DIR/breaker.csv, DIR/diverged.csv and DIR/series/. Every scenario
 * file is read and checked before anything runs or is written. With
 * --no-timing the output is a pure function of the scenarios and the seed.
 * Without --out, DIR is a directory made afresh in the working directory
 * (ratelab-sim-YYYYMMDD-HHMMSS, -2, -3 ... when taken). DIR is new, empty
 * or an earlier sim run's (out_dir.h): the run writes into a stage inside
 * it, then replaces exactly the files the earlier run wrote, so no stale
 * series outlives it and nothing else in DIR is touched.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "sim_llm_out.h"
#include "out_dir.h"
#include "sim_breaker_run.h"
#include "sim_decider.h"
#include "sim_run.h"

#ifndef CLI_SCENARIO_DIR
#define CLI_SCENARIO_DIR "sim/scenarios"
#endif

#define MAX_FILES 256 /* scenario files named on the command line */

static const char usage[] =
	"usage: ratelab sim [--out DIR] [--seed S] [--no-timing] [--quiet] [SCENARIO.ini ...]\n"
	"       ratelab sim --decider CMD [--decider-name NAME] [--decider-timeout D]\n"
	"                   [--decider-window N] [...]\n"
	"       ratelab sim --llm POLICY [--out DIR] [--seed S] [--quiet]\n"
	"\n"
	"Simulates each scenario (default: the set in sim/scenarios/) with every chosen\n"
	"algorithm against the exact sliding-log reference, and the circuit breaker.\n"
	"  --out DIR     output directory (default: a new directory in the working\n"
	"                directory, ratelab-sim-YYYYMMDD-HHMMSS[-N]): summary.csv,\n"
	"                breaker.csv, diverged.csv (vs an independent sliding_log),\n"
	"                series/<scenario>__<algo>.csv (t_ns,admitted,rejected\n"
	"                per bucket), series/breaker_<scenario>.csv (t_ns,state);\n"
	"                each series starts with '# seed=S scenario=NAME algo=A'.\n"
	"                DIR is new, empty, or an earlier sim run's: exactly the\n"
	"                files its manifest (.ratelab-manifest) lists are replaced;\n"
	"                a folder holding anything else is refused\n"
	"  --seed S      seed for every scenario (default: each scenario's seed, else 1)\n"
	"  --no-timing   decisions_per_sec is written as 0: same seed, identical files\n"
	"  --quiet       no progress lines on stderr\n"
	"  --decider CMD the decisions come from CMD (run by /bin/sh -c, once per\n"
	"                scenario, its rule in RATELAB_LIMIT, RATELAB_WINDOW_NS,\n"
	"                RATELAB_BURST; RATELAB_SCENARIO names the scenario)\n"
	"                instead of the built-in algorithms and the breaker: per\n"
	"                request it reads 'T KEY' (T: ns of simulated time; 'T KEY\n"
	"                COST' for a cost other than 1) and must answer one line\n"
	"                '1' or '0', optionally followed by the retry-after in ns\n"
	"                (or a field retry_after_ns=R), as `ratelab replay\n"
	"                --explain` does (its other fields are allowed, no others);\n"
	"                CMD must flush its answers before it waits for input;\n"
	"                rows are named peer_NAME\n"
	"  --decider-name NAME  [a-z0-9_], at most 32 (default: decider)\n"
	"  --decider-timeout D  the longest wait for one answer (default 10s)\n"
	"  --decider-window N   requests sent ahead of their answers, at most, when\n"
	"                no answer pending can change them (1 to 65536, default\n"
	"                4096; 1: one request per answer): the same run, fewer waits\n"
	"  --llm POLICY  the LLM API scenario instead of the scenarios: POLICY (rules\n"
	"                joined by '+', one ':units', e.g. 60/1m+90000/1m:units) per\n"
	"                key, 50 keys for 10 min at 120% of its first rule, log-normal\n"
	"                token counts known when the response ends, an estimate\n"
	"                (max_tokens) at or above them; every algorithm charging the\n"
	"                estimate, the real count up front (the ideal) and the\n"
	"                estimate settled at the response's end: DIR/llm.csv\n";

static const char summary_header[] =
	"scenario,algo,limit,window_ns,burst,seed,requests,admitted,false_allows,false_allow_pct,"
	"false_rejects,false_reject_pct,keys_over_admitted_pct,max_in_window,max_window_ratio,"
	"long_run_rate_ratio,jain_index,state_bytes_mean,state_bytes_max,decisions_per_sec,"
	"own_bound,beyond_bound,beyond_bound_pct,client_requests,client_served,client_gave_up_pct,"
	"client_wait_ms_mean,client_wait_ms_max,heavy_keys_pct,heavy_requests_pct,heavy_false_pct,estimate_diff_pct,"
	"would_reject\n";
static const char diverged_header[] =
	"scenario,algo,seed,requests,diverged_allows,diverged_allow_pct,diverged_rejects,diverged_reject_pct\n";
static const char breaker_header[] =
	"scenario,seed,requests,allowed,rejected_pct,openings,closed_ns,open_ns,half_open_ns,max_in_window,limit,"
	"window_ns\n";

struct sim_opts {
	const char *out;
	const char *decider;    /* NULL: the built-in algorithms */
	char decider_algo[48];  /* "peer_" NAME */
	int64_t decider_timeout_ns;
	int64_t decider_window; /* requests unanswered at once, at most */
	uint64_t seed;
	bool seed_given, timing, quiet;
	const char *files[MAX_FILES];
	size_t nfiles;
	const char *llm; /* --llm POLICY */
};

enum { O_OUT, O_SEED, O_NO_TIMING, O_QUIET, O_DECIDER, O_DECIDER_NAME, O_DECIDER_TIMEOUT, O_DECIDER_WINDOW, O_LLM,
       O_COUNT };

static const struct cli_option options[O_COUNT] = {
	[O_OUT] = { "out", CLI_VALUE },
	[O_SEED] = { "seed", CLI_VALUE },
	[O_NO_TIMING] = { "no-timing", CLI_FLAG },
	[O_QUIET] = { "quiet", CLI_FLAG },
	[O_DECIDER] = { "decider", CLI_VALUE },
	[O_DECIDER_NAME] = { "decider-name", CLI_VALUE },
	[O_DECIDER_TIMEOUT] = { "decider-timeout", CLI_VALUE },
	[O_DECIDER_WINDOW] = { "decider-window", CLI_VALUE },
	[O_LLM] = { "llm", CLI_VALUE },
};

static int parse_opts(int argc, char **argv, struct sim_opts *so)
{
	struct cli_args a;
	int64_t seed;
	int status = cli_parse("sim", argc, argv, options, O_COUNT, MAX_FILES, &a);

	if (status == CLI_HELP)
		fputs(usage, stdout);
	if (status)
		return status;
	if (a.value[O_OUT])
		so->out = a.value[O_OUT];
	if (a.value[O_SEED]) {
		if ((status = cli_int("sim", "--seed", a.value[O_SEED], 0, INT64_MAX, &seed)))
			return status;
		so->seed = (uint64_t)seed;
		so->seed_given = true;
	}
	if (a.value[O_NO_TIMING])
		so->timing = false;
	so->quiet = a.value[O_QUIET] != NULL;
	if (a.value[O_DECIDER]) {
		if (!a.value[O_DECIDER][strspn(a.value[O_DECIDER], " \t")])
			return cli_usage_error("sim", "--decider needs a command");
		so->decider = a.value[O_DECIDER];
	}
	if (a.value[O_DECIDER_NAME] &&
	    (status = cli_decider_name("sim", a.value[O_DECIDER_NAME], so->decider_algo, sizeof(so->decider_algo))))
		return status;
	if (a.value[O_DECIDER_TIMEOUT] && (status = cli_duration("sim", "--decider-timeout", a.value[O_DECIDER_TIMEOUT],
								   1000000, 3600000000000LL, &so->decider_timeout_ns)))
		return status;
	if (a.value[O_DECIDER_WINDOW] &&
	    (status = cli_int("sim", "--decider-window", a.value[O_DECIDER_WINDOW], 1, 65536, &so->decider_window)))
		return status;
	for (size_t i = 0; i < a.npos; i++)
		so->files[so->nfiles++] = a.pos[i];
	so->llm = a.value[O_LLM];
	if (so->llm && (so->nfiles || so->decider))
		return cli_usage_error("sim", "--llm runs the LLM API scenario alone: no %s with it",
				       so->decider ? "--decider" : "SCENARIO.ini");
	return CLI_EXIT_OK;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The default set's directory: beside the binary, in the source tree, installed, or compiled in. */
static bool find_default_dir(char *dir, size_t len)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	/* ... beside a built binary, or installed (PREFIX/bin, PREFIX/share/ratelab). */
	const char *rel[] = { "/scenarios", "/../sim/scenarios", "/sim/scenarios",
			      "/../share/ratelab/scenarios" };
	struct stat st;

	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash)
			*slash = '\0';
		for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
			snprintf(dir, len, "%s%s", exe, rel[i]);
			if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
				return true;
		}
	}
	snprintf(dir, len, "%s", CLI_SCENARIO_DIR);
	return stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
}

/*
 * Lists dir's *.ini files, sorted, into *names (malloc'd, *n of them), all
 * of them: out of memory or a directory read error fails the command.
 */
static int list_default(char ***names, size_t *n)
{
	char dir[PATH_MAX];
	DIR *d;
	struct dirent *e;
	size_t cap = 0;
	int status = CLI_EXIT_OK;

	*names = NULL;
	*n = 0;
	if (!find_default_dir(dir, sizeof(dir)) || !(d = opendir(dir)))
		return cli_usage_error("sim", "no scenario given and the default set (sim/scenarios) was not found");
	for (errno = 0; (e = readdir(d)); errno = 0) {
		size_t len = strlen(e->d_name);
		if (len < 5 || strcmp(e->d_name + len - 4, ".ini") != 0)
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 64;
			char **grown = realloc(*names, cap * sizeof(*grown));
			if (!grown)
				break;
			*names = grown;
		}
		size_t size = strlen(dir) + len + 2;
		if (!((*names)[*n] = malloc(size)))
			break;
		snprintf((*names)[(*n)++], size, "%s/%s", dir, e->d_name);
	}
	if (e || errno) {
		fprintf(stderr, "ratelab sim: listing %s: %s\n", dir, e ? "out of memory" : strerror(errno));
		status = CLI_EXIT_FAIL;
	}
	closedir(d);
	if (status == CLI_EXIT_OK && !*n)
		status = cli_usage_error("sim", "no .ini file in %s", dir);
	if (status == CLI_EXIT_OK)
		qsort(*names, *n, sizeof(**names), by_name);
	return status;
}

/*
 * A directory of its own in the working directory, made now (mkdir is
 * atomic: a name taken, even by a run started in the same second, is
 * skipped). Its name into buf; 0, or -1 with errno.
 */
static int fresh_dir(char *buf, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;
	char stamp[32];

	if (!localtime_r(&now, &tm) || !strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm))
		return -1;
	for (int n = 1; n <= 1000; n++) {
		if (n == 1)
			snprintf(buf, len, "ratelab-sim-%s", stamp);
		else
			snprintf(buf, len, "ratelab-sim-%s-%d", stamp, n);
		if (mkdir(buf, 0777) == 0)
			return 0;
		if (errno != EEXIST)
			return -1;
	}
	errno = EEXIST;
	return -1;
}

static FILE *open_out(const char *dir, const char *name, const char *header)
{
	char path[PATH_MAX], q[2 * PATH_MAX];
	FILE *f;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		fprintf(stderr, "ratelab sim: cannot write %s/%s: %s\n", sim_out_quote(q, sizeof(q), dir), name,
			strerror(errno));
		return NULL;
	}
	if (!(f = fopen(path, "w"))) {
		fprintf(stderr, "ratelab sim: cannot write %s: %s\n", sim_out_quote(q, sizeof(q), path), strerror(errno));
		return NULL;
	}
	fputs(header, f);
	return f;
}

/* A time series: a '# seed=S scenario=NAME algo=A' line first, so every output carries its seed. */
static FILE *open_series(const char *dir, const char *name, const char *scenario, const char *algo,
			 uint64_t seed, const char *header)
{
	FILE *f = open_out(dir, name, "");

	if (f)
		fprintf(f, "# seed=%llu scenario=%s algo=%s\n%s", (unsigned long long)seed, scenario, algo, header);
	return f;
}

/* Ends a file of dir: every write checked; the exit status. */
static int close_out(FILE *f, const char *dir, const char *name, int status)
{
	char path[PATH_MAX];

	if (f && snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path)) {
		fclose(f);
		fprintf(stderr, "ratelab sim: %s/%s: the path is too long\n", cli_quote(dir), name);
		return CLI_EXIT_FAIL;
	}
	if (f && status != CLI_EXIT_OK) { /* the run already failed, and said why: one message, not one a file */
		fclose(f);
		return status;
	}
	if (f && sim_out_close(f, path, "sim", stderr) != 0)
		return CLI_EXIT_FAIL;
	return f ? status : CLI_EXIT_FAIL;
}

static double pct(int64_t part, int64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void write_transition(void *arg, int64_t t, enum rl_breaker_state to)
{
	fprintf(arg, "%lld,%s\n", (long long)t, rl_breaker_state_name(to));
}

/* The polite clients' columns; empty when the scenario has none. */
static void write_clients(FILE *f, const struct sim_clients *c)
{
	if (!c->requests) {
		fputs(",,,,,", f);
		return;
	}
	fprintf(f, "%lld,%lld,%.6f,", (long long)c->requests, (long long)c->served, pct(c->gave_up, c->requests));
	if (c->served)
		fprintf(f, "%.6f,%.6f,", (double)c->wait_ns_sum / (double)c->served / 1e6, (double)c->wait_ns_max / 1e6);
	else
		fputs(",,", f);
}

/* The replayed lines left out over all sources: outside their [start, stop). */
static size_t left_out(const struct sim_traffic *tr)
{
	size_t n = 0;

	for (size_t i = 0; i < tr->nsources; i++)
		n += sim_source_left_out(&tr->src[i]);
	return n;
}

/* Says on stderr, per replay source, how many of its trace's lines are left out and why. */
static void warn_left_out(const struct sim_traffic *tr)
{
	for (size_t i = 0; i < tr->nsources; i++) {
		const struct sim_source *s = &tr->src[i];
		size_t before = s->trace_first, after = s->trace_len - s->trace_end;

		if (!sim_source_left_out(s))
			continue;
		fflush(stdout);
		fprintf(stderr, "ratelab sim: %s: [traffic %s]: left out %zu of the %zu requests of the trace %s:",
			tr->sc->name, s->spec->name, before + after, s->trace_len, cli_quote(s->spec->file));
		if (after)
			fprintf(stderr, " %zu at or past %s (%lld ns)", after,
				s->spec->stop_ns < tr->sc->duration_ns ? "its stop" : "the duration",
				(long long)s->spec->stop_ns);
		if (before)
			fprintf(stderr, "%s %zu before its start (%lld ns)", after ? "," : "", before,
				(long long)s->spec->start_ns);
		fputc('\n', stderr);
	}
}

struct outputs {
	const struct sim_opts *so;
	const char *dir; /* the stage the run writes into */
	FILE *summary, *breaker, *diverged;
};

/* One run: the built-in algo, or (algo NULL) the external decider. */
static int run_algo(struct outputs *o, struct sim_traffic *tr, const struct rl_algo *algo,
		    uint64_t seed)
{
	const char *aname = algo ? algo->name : o->so->decider_algo;
	struct sim_child *child = NULL;
	char msg[4800];
	const struct sim_scenario *sc = tr->sc;
	size_t nb = (size_t)((sc->duration_ns + sc->bucket_ns - 1) / sc->bucket_ns);
	struct sim_hooks h = { .series_admitted = calloc(nb, sizeof(int64_t)),
				  .series_rejected = calloc(nb, sizeof(int64_t)), .nbuckets = nb };
	struct sim_result r;
	char name[2 * SIM_NAME_MAX + 16];
	int rc = h.series_admitted && h.series_rejected ? RL_OK : RL_ENOMEM;
	FILE *f = NULL;

	if (rc == RL_OK && algo) {
		rc = sim_run(tr, algo, &h, &r);
	} else if (rc == RL_OK) {
		rc = sim_child_start(&child, o->so->decider, sc, o->so->decider_timeout_ns, msg, sizeof(msg));
		if (rc == RL_OK) {
			struct sim_decider d = { .decide = sim_child_decide, .ctx = child, .send = sim_child_send,
						 .answer = sim_child_answer, .window = (uint32_t)o->so->decider_window };
			rc = sim_run_external(tr, &d, aname, &h, &r);
			struct sim_child_counts n;
			sim_child_counts(child, &n);
			if (rc == RL_OK && !o->so->quiet)
				fprintf(stderr, "ratelab sim: %s/%s: %lld requests to the decider, %lld sent ahead of "
					"an answer, %lld waits for one\n", sc->name, aname, (long long)n.requests,
					(long long)n.ahead, (long long)n.waits);
			int end = sim_child_finish(child, msg, sizeof(msg));
			rc = rc ? rc : end;
		}
		if (rc && rc != RL_ENOMEM) {
			free(h.series_admitted);
			free(h.series_rejected);
			fflush(stdout);
			fprintf(stderr, "ratelab sim: %s\n", msg);
			return CLI_EXIT_FAIL;
		}
	}

	if (rc == RL_OK) {
		double dps = o->so->timing && r.cpu_s > 0 ? (double)r.requests / r.cpu_s : 0;
		fprintf(o->summary, "%s,%s,%lld,%lld,%lld,%llu,%lld,%lld,", sc->name, aname,
			(long long)sc->rule.limit, (long long)sc->rule.window_ns, (long long)sc->rule.burst,
			(unsigned long long)seed, (long long)r.requests, (long long)r.admitted);
		if (sc->compare)
			fprintf(o->summary, "%lld,%.6f,%lld,%.6f,%.6f,%lld,%.6f,", (long long)r.false_allows,
				pct(r.false_allows, r.requests), (long long)r.false_rejects,
				pct(r.false_rejects, r.requests), pct(r.keys_over, r.active_keys),
				(long long)r.max_in_window, (double)r.max_in_window / (double)sc->rule.limit);
		else
			fputs(",,,,,,,", o->summary); /* not measured: empty fields */
		if (sc->compare)
			fprintf(o->diverged, "%s,%s,%llu,%lld,%lld,%.6f,%lld,%.6f\n", sc->name, aname,
				(unsigned long long)seed, (long long)r.requests, (long long)r.diverged_allows,
				pct(r.diverged_allows, r.requests), (long long)r.diverged_rejects,
				pct(r.diverged_rejects, r.requests));
		fprintf(o->summary, "%.6f,", r.long_run_rate_ratio);
		if (!isnan(r.jain_index))
			fprintf(o->summary, "%.6f", r.jain_index);
		if (algo)
			fprintf(o->summary, ",%.1f,%lld,%.0f,", r.state_bytes_mean, (long long)r.state_bytes_max, dps);
		else /* a decider's memory is its own, and it states no bound: not measured here */
			fprintf(o->summary, ",,,%.0f,,,,", dps);
		if (sc->compare && algo && r.bound_measured)
			fprintf(o->summary, "%lld,%lld,%.6f,", (long long)r.own_bound, (long long)r.beyond_bound,
				pct(r.beyond_bound, r.admitted));
		else if (algo) /* not measured: shadow mode or settles (sim_run.h) */
			fputs(",,,", o->summary);
		write_clients(o->summary, &r.clients);
		fprintf(o->summary, "%.6f,%.6f,", pct(r.heavy_keys, r.active_keys), pct(r.heavy_requests, r.requests));
		if (sc->compare && r.false_allows + r.false_rejects)
			fprintf(o->summary, "%.6f", pct(r.heavy_false, r.false_allows + r.false_rejects));
		fputc(',', o->summary);
		if (r.estimate_n)
			fprintf(o->summary, "%.6f", 100 * r.estimate_diff_sum / (double)r.estimate_n);
		fputc(',', o->summary);
		if (r.would_reject >= 0) /* shadow mode; empty when enforcing */
			fprintf(o->summary, "%lld", (long long)r.would_reject);
		fputc('\n', o->summary);
		printf("%-16s %-16s seed=%llu requests=%lld admitted=%lld false_allow=%.4f%% "
		       "false_reject=%.4f%% max_in_window=%lld (%.3fN)", sc->name, aname,
		       (unsigned long long)seed, (long long)r.requests, (long long)r.admitted,
		       pct(r.false_allows, r.requests), pct(r.false_rejects, r.requests),
		       (long long)r.max_in_window, (double)r.max_in_window / (double)sc->rule.limit);
		if (r.would_reject >= 0)
			printf(" would_reject=%lld", (long long)r.would_reject);
		size_t left = left_out(tr);
		if (left)
			printf(" left_out=%zu", left);
		putchar('\n');
		snprintf(name, sizeof(name), "series/%s__%s.csv", sc->name, aname);
		if ((f = open_series(o->dir, name, sc->name, aname, seed, "t_ns,admitted,rejected\n"))) {
			for (size_t b = 0; b < nb; b++)
				fprintf(f, "%lld,%lld,%lld\n", (long long)b * sc->bucket_ns,
					(long long)h.series_admitted[b], (long long)h.series_rejected[b]);
		}
	}
	free(h.series_admitted);
	free(h.series_rejected);
	if (rc) {
		fprintf(stderr, "ratelab sim: %s/%s: %s\n", sc->name, aname, rl_strerror(rc));
		return CLI_EXIT_FAIL;
	}
	return close_out(f, o->dir, name, CLI_EXIT_OK);
}

static int run_breaker(struct outputs *o, struct sim_traffic *tr, uint64_t seed)
{
	const struct sim_scenario *sc = tr->sc;
	struct sim_breaker_result r;
	char name[SIM_NAME_MAX + 32];

	snprintf(name, sizeof(name), "series/breaker_%s.csv", sc->name);
	FILE *f = open_series(o->dir, name, sc->name, "breaker", seed, "t_ns,state\n");
	if (!f)
		return CLI_EXIT_FAIL;
	int rc = sim_run_breaker(tr, write_transition, f, &r);
	if (rc) {
		fclose(f);
		fprintf(stderr, "ratelab sim: %s/breaker: %s\n", sc->name, rl_strerror(rc));
		return CLI_EXIT_FAIL;
	}
	fprintf(o->breaker, "%s,%llu,%lld,%lld,%.6f,%lld,%lld,%lld,%lld,%lld,%lld,%lld\n", sc->name,
		(unsigned long long)seed, (long long)r.requests, (long long)r.allowed,
		pct(r.requests - r.allowed, r.requests), (long long)r.openings, (long long)r.state_ns[0],
		(long long)r.state_ns[1], (long long)r.state_ns[2], (long long)r.max_in_window,
		(long long)r.limit, (long long)r.window_ns);
	return close_out(f, o->dir, name, CLI_EXIT_OK);
}

static int run_scenario(struct outputs *o, struct sim_scenario *sc)
{
	struct sim_traffic tr;
	char msg[600];
	size_t n;
	const struct rl_algo *const *all = rl_algo_all(&n);
	uint64_t seed = o->so->seed_given ? o->so->seed : sc->seed;
	int status = CLI_EXIT_OK, rc = sim_traffic_create(&tr, sc, seed, msg, sizeof(msg));

	if (rc == RL_ENOMEM || rc == RL_EIO) {
		fprintf(stderr, "ratelab sim: %s\n", msg);
		return CLI_EXIT_FAIL;
	}
	if (rc)
		return cli_usage_error("sim", "%s", msg);
	sc->seed = seed;
	tr.progress = !o->so->quiet;
	warn_left_out(&tr);
	if (o->so->decider)
		status = run_algo(o, &tr, NULL, seed); /* only the decider: its rows alone */
	for (size_t i = 0; i < n && status == CLI_EXIT_OK && !o->so->decider; i++)
		if (sc->algo_mask & (1u << i))
			status = run_algo(o, &tr, all[i], seed);
	if (status == CLI_EXIT_OK && !o->so->decider)
		status = run_breaker(o, &tr, seed);
	sim_traffic_destroy(&tr);
	fflush(stdout);
	return status;
}

/* Loads every file (expanding sweeps) into *out; exit status. decider: --decider is given (one rule, no settle). */
static int load_all(char **files, size_t nfiles, bool decider, struct sim_scenario **out, size_t *count)
{
	struct sim_scenario base;
	size_t cap = 0;
	char msg[600];

	*out = NULL;
	*count = 0;
	for (size_t i = 0; i < nfiles; i++) {
		struct sim_traffic tr;
		int rc = sim_scenario_load(files[i], &base, msg, sizeof(msg));
		bool settles = false;
		if (rc == RL_OK && (rc = sim_traffic_create(&tr, &base, base.seed, msg, sizeof(msg))) == RL_OK) {
			settles = tr.settles;
			sim_traffic_destroy(&tr); /* traces checked before anything is written */
		}
		if (rc == RL_OK && decider && (settles || sim_scenario_policy(&base, NULL))) {
			return cli_usage_error("sim", "%s: --decider: %s", cli_quote(files[i]), settles ?
					       "a decider does not settle (a trace has settle lines 'T KEY COST ACTUAL "
					       "DONE_T')" : "a decider decides one rule, not a policy or mode = shadow");
		}
		if (rc == RL_ENOMEM || rc == RL_EIO) {
			fflush(stdout);
			fprintf(stderr, "ratelab sim: %s\n", msg);
			return CLI_EXIT_FAIL;
		}
		if (rc)
			return cli_usage_error("sim", "%s", msg);
		size_t add = base.nsweep ? base.nsweep : 1;
		if (*count + add > cap) {
			cap = (*count + add) * 2;
			struct sim_scenario *grown = realloc(*out, cap * sizeof(**out));
			if (!grown) {
				fputs("ratelab sim: out of memory\n", stderr);
				return CLI_EXIT_FAIL;
			}
			*out = grown;
		}
		if (!base.nsweep)
			(*out)[(*count)++] = base;
		for (size_t j = 0; j < base.nsweep; j++)
			sim_scenario_at_load(&base, base.sweep_pct[j], &(*out)[(*count)++]);
	}
	return CLI_EXIT_OK;
}

/* --llm P: DIR/llm.csv alone, through the output folder's manifest as the scenarios' files. */
static int run_llm(struct sim_opts *so)
{
	char fresh[64], why[2048];
	struct sim_out_dir d;

	if (so->out && sim_out_dir_check(so->out, "sim", NULL, 0, why, sizeof(why)))
		return cli_usage_error("sim", "--out %s %s", cli_quote(so->out), why);
	if (!so->out && fresh_dir(fresh, sizeof(fresh)) != 0) {
		fprintf(stderr, "ratelab sim: cannot create an output directory in the working directory: %s\n",
			strerror(errno));
		return CLI_EXIT_FAIL;
	}
	bool made = !so->out;
	if (!so->out)
		so->out = fresh;
	if (sim_out_dir_begin(&d, so->out, "sim", stderr)) {
		if (made)
			rmdir(fresh);
		return CLI_EXIT_FAIL;
	}
	d.made = d.made || made;
	int status = cli_sim_llm(d.stage, so->llm, so->seed_given ? so->seed : 1, so->quiet);
	if (status == CLI_EXIT_OK && sim_out_dir_commit(&d, stderr) != 0)
		status = CLI_EXIT_FAIL;
	if (status != CLI_EXIT_OK) {
		sim_out_dir_abort(&d);
		return status;
	}
	printf("ratelab sim: wrote %s/llm.csv\n", so->out);
	return status;
}

int cli_cmd_sim(int argc, char **argv)
{
	struct sim_opts so = { .timing = true, .decider_algo = "peer_decider",
			       .decider_timeout_ns = 10000000000LL, /* 10 s */
			       .decider_window = 4096 };
	char **defaults = NULL;
	size_t ndefaults = 0, nsc = 0;
	struct sim_scenario *scs = NULL;
	int status = parse_opts(argc, argv, &so);

	if (status)
		return status < 0 ? CLI_EXIT_OK : status;
	if (so.llm)
		return run_llm(&so);
	if (!so.nfiles)
		status = list_default(&defaults, &ndefaults);
	if (!status)
		status = so.nfiles ? load_all((char **)so.files, so.nfiles, so.decider != NULL, &scs, &nsc)
				   : load_all(defaults, ndefaults, so.decider != NULL, &scs, &nsc);
	for (size_t i = 0; i < ndefaults; i++)
		free(defaults[i]);
	free(defaults);
	if (status) {
		free(scs);
		return status;
	}

	char series[PATH_MAX], fresh[64], why[2048];
	struct sim_out_dir d;
	if (so.out && sim_out_dir_check(so.out, "sim", so.files, so.nfiles, why, sizeof(why))) {
		free(scs);
		return cli_usage_error("sim", "--out %s %s", cli_quote(so.out), why);
	}
	if (!so.out && fresh_dir(fresh, sizeof(fresh)) != 0) {
		fprintf(stderr, "ratelab sim: cannot create an output directory in the working directory: %s\n",
			strerror(errno));
		free(scs);
		return CLI_EXIT_FAIL;
	}
	bool made = !so.out;
	if (!so.out)
		so.out = fresh;
	if (sim_out_dir_begin(&d, so.out, "sim", stderr)) {
		if (made)
			rmdir(fresh);
		free(scs);
		return CLI_EXIT_FAIL;
	}
	d.made = d.made || made;
	struct outputs o = { .so = &so, .dir = d.stage };
	if (snprintf(series, sizeof(series), "%s/series", d.stage) >= (int)sizeof(series) || mkdir(series, 0777) != 0) {
		fprintf(stderr, "ratelab sim: cannot create %s: %s\n", cli_quote(series), strerror(errno));
		sim_out_dir_abort(&d);
		free(scs);
		return CLI_EXIT_FAIL;
	}
	o.summary = open_out(d.stage, "summary.csv", summary_header);
	o.breaker = open_out(d.stage, "breaker.csv", breaker_header);
	o.diverged = open_out(d.stage, "diverged.csv", diverged_header);
	status = o.summary && o.breaker && o.diverged ? CLI_EXIT_OK : CLI_EXIT_FAIL;
	if (status == CLI_EXIT_OK && so.seed_given)
		printf("ratelab sim: seed %llu\n", (unsigned long long)so.seed);
	for (size_t i = 0; i < nsc && status == CLI_EXIT_OK; i++)
		status = run_scenario(&o, &scs[i]);
	status = close_out(o.summary, d.stage, "summary.csv", status);
	status = close_out(o.breaker, d.stage, "breaker.csv", status);
	status = close_out(o.diverged, d.stage, "diverged.csv", status);
	free(scs);
	if (status == CLI_EXIT_OK && sim_out_dir_commit(&d, stderr) != 0)
		status = CLI_EXIT_FAIL;
	if (status != CLI_EXIT_OK) {
		sim_out_dir_abort(&d);
		return status;
	}
	printf("ratelab sim: wrote %s/summary.csv, %s/breaker.csv and %s/series/\n", so.out, so.out, so.out);
	return status;
}
