/*
 * cmd_study.c - `ratelab study --trace FILE [--format F] --rules R[,R...]
 * [--algos LIST] [--decider CMD ...] [--jobs J] [--shard I/K] --out DIR`
 * and `ratelab study --merge DIR ... --out DIR`: the study of one trace or
 * log (study.h) written into DIR, replacing an earlier study whole
 * (study_dir.h), then the report (study_report.h) from those files. Every
 * option is checked, and DIR too, before the trace is read.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "import.h"
#include "study.h"
#include "study_dir.h"
#include "study_report.h"

#define MAX_DECIDERS 16
#define MAX_RULES 64
#define MAX_JOBS 64
#define MAX_ALGOS 32

static const char usage[] =
	"usage: ratelab study --trace FILE [--format F] [--key K] [--time-field F] [--key-field F]\n"
	"                     [--cost-field F] [--time-unit U] [--time-format F] [--tz +HH:MM]\n"
	"                     [--spread] --rules R[,R...] [--algos LIST]\n"
	"                     [--decider CMD [--decider CMD ...]] [--decider-name N[,N...]]\n"
	"                     [--decider-timeout D] [--jobs J] [--shard I/K] [--quiet] --out DIR\n"
	"       ratelab study --merge DIR [DIR ...] --out DIR\n"
	"\n"
	"Decides every request of a trace or access log with every algorithm (or\n"
	"those listed) and every decider, under every rule, and judges it from the\n"
	"clients' side against the exact sliding log: which keys stay within the\n"
	"rule, how many of them each algorithm hurts, how much of the excess it lets\n"
	"through. Writes DIR/study.csv, clients.csv, traffic.csv, refused.csv,\n"
	"meta.csv, then DIR/REPORT.md and DIR/report.html; an earlier study in DIR\n"
	"is replaced whole, a directory that holds something else is refused.\n"
	"  --trace FILE     the log or 'T KEY [COST]' trace ('-': standard input),\n"
	"                   read as `ratelab import` reads it\n"
	"  --format F       combined, vhost_combined, alb, haproxy, caddy, jsonl, csv\n"
	"                   or trace (default: detected)\n"
	"  --key K          combined, vhost_combined: ip (default), user, path or\n"
	"                   ip+path; alb, haproxy: ip, path or ip+path\n"
	"  --time-field F, --key-field F, --cost-field F, --time-unit U,\n"
	"  --time-format F, --tz +HH:MM\n"
	"                   as `ratelab import` takes them (a cost field makes every\n"
	"                   figure count units)\n"
	"  --spread         a log's requests of one tick placed evenly inside it\n"
	"                   (as `ratelab import --spread`; meta.csv says which)\n"
	"  --rules R,...    N/W with W a duration (10/1s, 60/1m, 1000/1h), or\n"
	"                   N/W:bB with a burst B for the buckets (60/1m:b120)\n"
	"  --algos LIST     comma-separated algorithms (default: all of them)\n"
	"  --decider CMD    also decide with CMD, a process speaking the decider\n"
	"                   protocol of `ratelab sim --decider` (once per rule; its\n"
	"                   KEY is the key's id); may be given several times\n"
	"  --decider-name N,...  the deciders' names, in order ([a-z0-9_], at most\n"
	"                   32; default decider, decider2, ...); rows are peer_NAME\n"
	"  --decider-timeout D  the longest wait for one answer (default 10s)\n"
	"  --jobs J         worker threads (default: the number of cores)\n"
	"  --shard I/K      only the keys whose hash (64-bit FNV-1a of the key's\n"
	"                   bytes) modulo K is I; merge the K shards with --merge\n"
	"  --merge DIR ...  combine the shard studies DIR ... (every I of one K)\n"
	"  --out DIR        the study's directory (required)\n"
	"  --quiet          no progress lines on stderr\n";

enum {
	O_TRACE, O_FORMAT, O_KEY, O_TIME_FIELD, O_KEY_FIELD, O_COST_FIELD, O_TIME_UNIT, O_SPREAD, O_RULES, O_ALGOS, O_DECIDER_NAME, O_DECIDER_TIMEOUT, O_JOBS, O_SHARD, O_OUT,
	O_MERGE, O_QUIET, O_TIME_FORMAT, O_TZ, O_COUNT
};

static const struct cli_option options[O_COUNT] = {
	[O_TRACE] = { "trace", CLI_VALUE },	      [O_FORMAT] = { "format", CLI_VALUE },
	[O_KEY] = { "key", CLI_VALUE },		      [O_SPREAD] = { "spread", CLI_FLAG },
	[O_TIME_FIELD] = { "time-field", CLI_VALUE }, [O_KEY_FIELD] = { "key-field", CLI_VALUE },
	[O_COST_FIELD] = { "cost-field", CLI_VALUE }, [O_TIME_UNIT] = { "time-unit", CLI_VALUE },
	[O_RULES] = { "rules", CLI_VALUE },	      [O_ALGOS] = { "algos", CLI_VALUE },
	[O_DECIDER_NAME] = { "decider-name", CLI_VALUE }, [O_DECIDER_TIMEOUT] = { "decider-timeout", CLI_VALUE },
	[O_JOBS] = { "jobs", CLI_VALUE },	      [O_SHARD] = { "shard", CLI_VALUE },
	[O_OUT] = { "out", CLI_VALUE },		      [O_MERGE] = { "merge", CLI_FLAG },
	[O_QUIET] = { "quiet", CLI_FLAG },	      [O_TIME_FORMAT] = { "time-format", CLI_VALUE },
	[O_TZ] = { "tz", CLI_VALUE },
};

struct study_cmd {
	struct sim_study_rule rules[MAX_RULES];
	const struct rl_algo *algos[MAX_ALGOS];
	struct sim_study_decider deciders[MAX_DECIDERS];
	struct sim_study_opts o;
	const char *trace, *out;
	struct sim_import_opts io; /* how the trace or log is read */
	bool merge;
	const char *dirs[CLI_MAX_POS];
	size_t ndirs;
};

/*
 * Takes every --decider CMD (or --decider=CMD) out of argv, in order,
 * before the one-value-per-option parse: it is the option that repeats.
 */
static int take_deciders(int *argc, char **argv, struct study_cmd *c)
{
	int w = 0;

	for (int i = 0; i < *argc; i++) {
		const char *a = argv[i], *v = NULL;
		if (!strcmp(a, "--")) {
			while (i < *argc)
				argv[w++] = argv[i++];
			break;
		}
		if (!strcmp(a, "--decider")) {
			if (i + 1 == *argc)
				return cli_usage_error("study", "option %s needs a value", cli_quote(a));
			v = argv[++i];
		} else if (!strncmp(a, "--decider=", 10)) {
			v = a + 10;
		} else {
			argv[w++] = argv[i];
			continue;
		}
		if (!v[strspn(v, " \t")])
			return cli_usage_error("study", "--decider needs a command");
		if (c->o.ndeciders == MAX_DECIDERS)
			return cli_usage_error("study", "more than %d --decider options", MAX_DECIDERS);
		struct sim_study_decider *d = &c->deciders[c->o.ndeciders++];
		d->cmd = v;
		d->timeout_ns = 10000000000LL;
		if (c->o.ndeciders == 1)
			snprintf(d->name, sizeof(d->name), "peer_decider");
		else
			snprintf(d->name, sizeof(d->name), "peer_decider%zu", c->o.ndeciders);
	}
	*argc = w;
	return CLI_EXIT_OK;
}

/*
 * One rule "N/W" or "N/W:bB", its parts checked by cli_int and cli_duration
 * as `ratelab theory --rule` checks them, so that the same mistake gets the
 * same words, prefixed with the rule it came from.
 */
static int parse_rule(const char *text, struct sim_study_rule *out)
{
	static const char form[] = "(N/W or N/W:bB, e.g. 10/1s or 60/1m:b120)";
	char buf[SIM_STUDY_RULE_MAX], what[SIM_STUDY_RULE_MAX + 96], why[256];
	struct rl_rule r;
	int status;

	if (strlen(text) >= sizeof(buf))
		return cli_usage_error("study", "--rules: rule %s is too long", cli_quote(text));
	memcpy(buf, text, strlen(text) + 1);
	char *window = strchr(buf, '/'), *burst = window ? strchr(window, ':') : NULL, *colon = strchr(buf, ':');
	if (!window || (colon && colon < window))
		return cli_usage_error("study", "--rules: %s is not a rule %s", cli_quote(text), form);
	*window++ = '\0';
	if (burst) {
		*burst++ = '\0';
		if (*burst++ != 'b')
			return cli_usage_error("study", "--rules: %s: the burst %s is not bB %s", cli_quote(text),
					       cli_quote(burst - 1), form);
	}
	snprintf(what, sizeof(what), "--rules: %s: the limit", cli_quote(text));
	if ((status = cli_int("study", what, buf, 1, RL_LIMIT_MAX, &r.limit)))
		return status;
	snprintf(what, sizeof(what), "--rules: %s: the window", cli_quote(text));
	if ((status = cli_duration("study", what, window, 1, RL_WINDOW_MAX_NS, &r.window_ns)))
		return status;
	r.burst = r.limit;
	snprintf(what, sizeof(what), "--rules: %s: the burst", cli_quote(text));
	if (burst && (status = cli_int("study", what, burst, 1, RL_BURST_MAX, &r.burst)))
		return status;
	if (rl_rule_validate(&r, why, sizeof(why)) || !sim_study_rule_parse(text, out, why, sizeof(why)))
		return cli_usage_error("study", "--rules: %s: %s", cli_quote(text), why);
	return CLI_EXIT_OK;
}

static int parse_rules(const char *text, struct study_cmd *c)
{
	char buf[4096];
	int status;

	if (snprintf(buf, sizeof(buf), "%s", text) >= (int)sizeof(buf))
		return cli_usage_error("study", "--rules %s is too long", cli_quote(text));
	if (!*text || text[0] == ',' || text[strlen(text) - 1] == ',' || strstr(text, ",,"))
		return cli_usage_error("study", "--rules %s is not a comma-separated list of rules N/W[:bB] "
				       "(e.g. 10/1s,60/1m:b120)", cli_quote(text));
	for (char *save, *r = strtok_r(buf, ",", &save); r; r = strtok_r(NULL, ",", &save)) {
		if (c->o.nrules == MAX_RULES)
			return cli_usage_error("study", "--rules: more than %d rules", MAX_RULES);
		if ((status = parse_rule(r, &c->rules[c->o.nrules])))
			return status;
		for (size_t i = 0; i < c->o.nrules; i++)
			if (!strcmp(c->rules[i].text, r))
				return cli_usage_error("study", "--rules: rule %s is given twice", cli_quote(r));
		c->o.nrules++;
	}
	return CLI_EXIT_OK;
}

/* The listed algorithms, in rl_algo_all()'s order. */
static int parse_algos(const char *text, struct study_cmd *c)
{
	size_t n;
	const struct rl_algo *const *all = rl_algo_all(&n);
	bool want[MAX_ALGOS] = { false };
	char buf[1024];

	if (n > MAX_ALGOS)
		n = MAX_ALGOS;

	if (!text) {
		for (size_t i = 0; i < n; i++)
			c->algos[c->o.nalgos++] = all[i];
		return CLI_EXIT_OK;
	}
	if (snprintf(buf, sizeof(buf), "%s", text) >= (int)sizeof(buf) || !*text || text[0] == ',' ||
	    text[strlen(text) - 1] == ',' || strstr(text, ",,"))
		return cli_usage_error("study", "--algos %s is not a comma-separated list of algorithms (%s)",
				       cli_quote(text), rl_algo_names());
	for (char *save, *a = strtok_r(buf, ",", &save); a; a = strtok_r(NULL, ",", &save)) {
		size_t i = 0;
		while (i < n && strcmp(all[i]->name, a))
			i++;
		if (i == n)
			return cli_usage_error("study", "--algos: unknown algorithm %s (one of %s)", cli_quote(a),
					       rl_algo_names());
		if (want[i])
			return cli_usage_error("study", "--algos: %s is given twice", cli_quote(a));
		want[i] = true;
	}
	for (size_t i = 0; i < n; i++)
		if (want[i])
			c->algos[c->o.nalgos++] = all[i];
	return CLI_EXIT_OK;
}

static bool valid_peer_name(const char *name)
{
	size_t len = strlen(name);

	return len >= 1 && len <= 32 && strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_") == len;
}

static int parse_decider_names(const char *text, struct study_cmd *c)
{
	char buf[1024];
	size_t i = 0;

	if (!c->o.ndeciders)
		return cli_usage_error("study", "--decider-name is given without --decider");
	if (snprintf(buf, sizeof(buf), "%s", text) >= (int)sizeof(buf) || !*text || text[0] == ',' ||
	    text[strlen(text) - 1] == ',' || strstr(text, ",,"))
		return cli_usage_error("study", "--decider-name %s is not a comma-separated list of names",
				       cli_quote(text));
	for (char *save, *n = strtok_r(buf, ",", &save); n; n = strtok_r(NULL, ",", &save), i++) {
		if (!valid_peer_name(n))
			return cli_usage_error("study", "--decider-name %s: 1 to 32 of a-z, 0-9 and _", cli_quote(n));
		if (i == c->o.ndeciders)
			return cli_usage_error("study", "--decider-name %s names %zu deciders, but %zu --decider given",
					       cli_quote(text), i + 1, c->o.ndeciders);
		snprintf(c->deciders[i].name, sizeof(c->deciders[i].name), "peer_%s", n);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(c->deciders[j].name, c->deciders[i].name))
				return cli_usage_error("study", "--decider-name: %s is given twice", cli_quote(n));
	}
	if (i != c->o.ndeciders)
		return cli_usage_error("study", "--decider-name %s names %zu deciders, but %zu --decider given",
				       cli_quote(text), i, c->o.ndeciders);
	return CLI_EXIT_OK;
}

static int parse_shard(const char *text, struct study_cmd *c)
{
	const char *slash = strchr(text, '/');
	char i_text[32];
	int64_t i, k;

	if (!slash || (size_t)(slash - text) >= sizeof(i_text))
		return cli_usage_error("study", "--shard %s is not I/K (e.g. 0/4)", cli_quote(text));
	memcpy(i_text, text, (size_t)(slash - text));
	i_text[slash - text] = '\0';
	if (strspn(i_text, "0123456789") != strlen(i_text) || strspn(slash + 1, "0123456789") != strlen(slash + 1) ||
	    !rl_parse_i64(i_text, &i) || !rl_parse_i64(slash + 1, &k))
		return cli_usage_error("study", "--shard %s is not I/K (e.g. 0/4)", cli_quote(text));
	if (k < 1 || k > 1000000 || i >= k)
		return cli_usage_error("study", "--shard %s is out of range: 0 <= I < K, 1 <= K <= 1000000",
				       cli_quote(text));
	c->o.shard = (uint32_t)i;
	c->o.nshards = (uint32_t)k;
	return CLI_EXIT_OK;
}

static int parse(int argc, char **argv, struct study_cmd *c)
{
	struct cli_args a;
	int64_t v;
	int status = take_deciders(&argc, argv, c);

	if (status)
		return status;
	status = cli_parse("study", argc, argv, options, O_COUNT, CLI_MAX_POS, &a);
	if (status == CLI_HELP)
		fputs(usage, stdout);
	if (status)
		return status;
	c->merge = a.value[O_MERGE] != NULL;
	c->o.quiet = a.value[O_QUIET] != NULL;
	if (!(c->out = a.value[O_OUT]))
		return cli_usage_error("study", "--out DIR is required");
	if (c->merge) {
		static const int only_study[] = { O_TRACE, O_FORMAT, O_KEY, O_TIME_FIELD, O_KEY_FIELD, O_COST_FIELD,
						  O_TIME_UNIT, O_SPREAD, O_RULES, O_ALGOS, O_DECIDER_NAME,
						  O_DECIDER_TIMEOUT, O_JOBS, O_SHARD, O_TIME_FORMAT, O_TZ };
		for (size_t i = 0; i < sizeof(only_study) / sizeof(only_study[0]); i++)
			if (a.value[only_study[i]])
				return cli_usage_error("study", "--merge takes the shard directories and --out only, "
						       "not --%s", options[only_study[i]].name);
		if (c->o.ndeciders)
			return cli_usage_error("study", "--merge takes the shard directories and --out only, not --decider");
		if (!a.npos)
			return cli_usage_error("study", "--merge needs the shard directories (DIR ...)");
		for (size_t i = 0; i < a.npos; i++)
			c->dirs[c->ndirs++] = a.pos[i];
		return CLI_EXIT_OK;
	}
	if (a.npos)
		return cli_usage_error("study", "unexpected argument %s (directories are for --merge; see --help)",
				       cli_quote(a.pos[0]));
	if (!(c->trace = a.value[O_TRACE]))
		return cli_usage_error("study", "--trace FILE is required (or --merge DIR ...)");
	/* times as the source has them (epoch ns for a log): fixed windows then align as a
	 * deployed limiter's would, and a trace is decided as replay and sim decide it */
	c->io = (struct sim_import_opts){
		.format = a.value[O_FORMAT], .key = a.value[O_KEY], .time_field = a.value[O_TIME_FIELD],
		.key_field = a.value[O_KEY_FIELD], .cost_field = a.value[O_COST_FIELD],
		.time_unit = a.value[O_TIME_UNIT], .spread = a.value[O_SPREAD] != NULL, .absolute = true,
		.time_format = a.value[O_TIME_FORMAT], .tz = a.value[O_TZ],
		.cmd = "study",
	};
	if (!a.value[O_RULES])
		return cli_usage_error("study", "--rules R[,R...] is required (e.g. --rules 10/1s,60/1m)");
	if ((status = parse_rules(a.value[O_RULES], c)) || (status = parse_algos(a.value[O_ALGOS], c)))
		return status;
	if (a.value[O_DECIDER_NAME] && (status = parse_decider_names(a.value[O_DECIDER_NAME], c)))
		return status;
	if (a.value[O_DECIDER_TIMEOUT]) {
		if (!c->o.ndeciders)
			return cli_usage_error("study", "--decider-timeout is given without --decider");
		if ((status = cli_duration("study", "--decider-timeout", a.value[O_DECIDER_TIMEOUT], 1000000,
					   3600000000000LL, &v)))
			return status;
		for (size_t i = 0; i < c->o.ndeciders; i++)
			c->deciders[i].timeout_ns = v;
	}
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	c->o.jobs = cores < 1 ? 1 : cores > MAX_JOBS ? MAX_JOBS : (unsigned)cores;
	if (a.value[O_JOBS]) {
		if ((status = cli_int("study", "--jobs", a.value[O_JOBS], 1, MAX_JOBS, &v)))
			return status;
		c->o.jobs = (unsigned)v;
	}
	c->o.nshards = 1;
	if (a.value[O_SHARD] && (status = parse_shard(a.value[O_SHARD], c)))
		return status;
	c->o.rules = c->rules;
	c->o.algos = c->algos;
	c->o.deciders = c->deciders;
	return CLI_EXIT_OK;
}

static double wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int64_t peak_rss_bytes(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_SELF, &ru) == 0 ? (int64_t)ru.ru_maxrss * 1024 : 0;
}

/* The study's files into a fresh directory beside out, the report from them, then swapped in. */
static int write_out(struct sim_study *s, const char *out, double t0)
{
	char tmp[4096];

	if (sim_study_dir_begin(out, tmp, sizeof(tmp), stderr))
		return CLI_EXIT_FAIL;
	s->elapsed_s = wall_s() - t0;
	s->peak_rss_bytes = peak_rss_bytes();
	int status = sim_study_write(s, tmp, stderr) ? CLI_EXIT_FAIL : CLI_EXIT_OK;
	/* a shard may hold no key of a small trace: its files are for --merge, a report would be empty */
	if (status == CLI_EXIT_OK && s->requests == 0)
		fprintf(stderr, "ratelab study: shard %s holds no request: no report written\n", s->shard);
	else if (status == CLI_EXIT_OK)
		status = sim_study_report(tmp, stderr);
	if (status == CLI_EXIT_OK && sim_study_dir_commit(out, tmp, stderr))
		status = CLI_EXIT_FAIL;
	if (status != CLI_EXIT_OK)
		sim_study_dir_remove(tmp);
	return status;
}

int cli_cmd_study(int argc, char **argv)
{
	static struct study_cmd c; /* large: off the stack */
	struct sim_study s = { 0 };
	struct sim_trace t = { 0 };
	char why[1024];
	double t0 = wall_s();
	int status;

	memset(&c, 0, sizeof(c));
	if ((status = parse(argc, argv, &c)))
		return status == CLI_HELP ? cli_output_end("study", CLI_EXIT_OK) : status;
	if (sim_study_dir_check(c.out, why, sizeof(why)))
		return cli_usage_error("study", "--out %s %s", cli_quote(c.out), why);
	if (c.merge) {
		if (sim_study_merge(&s, c.dirs, c.ndirs, why, sizeof(why)))
			return cli_usage_error("study", "--merge: %s", why);
		status = write_out(&s, c.out, t0);
		sim_study_free(&s);
		return status;
	}
	if ((status = sim_import(&c.io, &c.trace, 1, &t, stderr)))
		return status;
	if (t.n == 0) {
		sim_trace_free(&t);
		return cli_usage_error("study", "--trace %s holds no request", cli_quote(c.trace));
	}
	int rc = sim_study_run(&s, &t, &c.o, stderr, why, sizeof(why));
	if (rc == RL_OK) {
		s.trace = strdup(c.trace);
		status = s.trace ? write_out(&s, c.out, t0) : CLI_EXIT_FAIL;
	} else {
		fflush(stdout);
		fprintf(stderr, "ratelab study: %s\n", why);
		status = rc == RL_EORDER ? CLI_EXIT_USAGE : CLI_EXIT_FAIL; /* bad input, or the machine or a decider */
	}
	sim_study_free(&s);
	sim_trace_free(&t);
	return status;
}
