/*
 * cmd_study.c - `ratelab study --trace FILE [--format F] --rules R[,R...]
 * [--algos LIST] [--decider CMD ...] [--jobs J] [--shard I/K] --out DIR`
 * and `ratelab study --merge DIR ... --out DIR`: the study of one trace or
 * log (study.h) written into DIR, replacing exactly the files an earlier
 * study wrote there (out_dir.h), then the report (study_report.h) from
 * those files. Every option is checked, and DIR too, before the trace is
 * read.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "import.h"
#include "ratelab/settle.h"
#include "study.h"
#include "out_dir.h"
#include "study_report.h"

#define MAX_DECIDERS 16
#define MAX_RULES 64
#define MAX_JOBS 64
#define MAX_ALGOS 32
#define MAX_WINDOWS 64

static const char usage[] =
	"usage: ratelab study --trace FILE [--format F] [--key K] [--time-field F] [--key-field F]\n"
	"                     [--cost-field F] [--time-unit U] [--time-format F] [--tz +HH:MM]\n"
	"                     [--spread] --rules R[,R...] [--windows W[,W...]] [--target-keys P%]\n"
	"                     [--algos LIST]\n"
	"                     [--decider CMD [--decider CMD ...]] [--decider-name N[,N...]]\n"
	"                     [--decider-timeout D] [--jobs J] [--shard I/K] [--quiet] --out DIR\n"
	"       ratelab study --merge DIR [DIR ...] --out DIR\n"
	"\n"
	"Decides every request of a trace or access log with every algorithm (or\n"
	"those listed) and every decider, under every rule, and judges it from the\n"
	"clients' side against the exact sliding log: which keys stay within the\n"
	"rule, how many of them each algorithm hurts, how much of the excess it lets\n"
	"through. For every window, the exact sliding log at every limit and the\n"
	"limit to set (limits.csv), studied beside the given rules. Writes\n"
	"DIR/study.csv, clients.csv, traffic.csv, refused.csv, limits.csv,\n"
	"meta.csv, then DIR/REPORT.md and DIR/report.html. DIR is a new or empty\n"
	"folder, or an earlier study's (its manifest .ratelab-manifest lists what it\n"
	"wrote: exactly those files are replaced); anything else in it is refused.\n"
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
	"  --actual-field G, --duration-field D, --duration-unit U\n"
	"                   settles read from the log as `ratelab import` reads them,\n"
	"                   decided as replay decides 'T KEY COST ACTUAL DONE_T'\n"
	"  --spread         a log's requests of one tick placed evenly inside it\n"
	"                   (as `ratelab import --spread`; meta.csv says which)\n"
	"  --rules R,...    N/W with W a duration (10/1s, 60/1m, 1000/1h), or\n"
	"                   N/W:bB with a burst B for the buckets (60/1m:b120), or a\n"
	"                   policy: rules N/W[:bB][:units] joined by '+', decided\n"
	"                   together (10/1s+1000/1h, 60/1m+90000/1m:units; a rule\n"
	"                   marked :units counts the request's cost, the others\n"
	"                   count 1; a plain rule counts the cost)\n"
	"  --windows W,...  more windows for limits.csv and a suggested limit (1m,1h);\n"
	"                   with them --rules may be left out\n"
	"  --target-keys P% the suggested limit refuses no request of this share of\n"
	"                   the keys (default 99%; P up to two decimals, e.g. 99.5%)\n"
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
	O_TRACE, O_FORMAT, O_KEY, O_TIME_FIELD, O_KEY_FIELD, O_COST_FIELD, O_TIME_UNIT, O_SPREAD, O_RULES, O_WINDOWS, O_TARGET_KEYS, O_ALGOS, O_DECIDER_NAME, O_DECIDER_TIMEOUT, O_JOBS, O_SHARD, O_OUT,
	O_MERGE, O_QUIET, O_TIME_FORMAT, O_TZ, O_ACTUAL_FIELD, O_DURATION_FIELD, O_DURATION_UNIT, O_COUNT
};

static const struct cli_option options[O_COUNT] = {
	[O_TRACE] = { "trace", CLI_VALUE },	      [O_FORMAT] = { "format", CLI_VALUE },
	[O_KEY] = { "key", CLI_VALUE },		      [O_SPREAD] = { "spread", CLI_FLAG },
	[O_TIME_FIELD] = { "time-field", CLI_VALUE }, [O_KEY_FIELD] = { "key-field", CLI_VALUE },
	[O_COST_FIELD] = { "cost-field", CLI_VALUE }, [O_TIME_UNIT] = { "time-unit", CLI_VALUE },
	[O_RULES] = { "rules", CLI_VALUE },	      [O_ALGOS] = { "algos", CLI_VALUE },
	[O_WINDOWS] = { "windows", CLI_VALUE },	      [O_TARGET_KEYS] = { "target-keys", CLI_VALUE },
	[O_DECIDER_NAME] = { "decider-name", CLI_VALUE }, [O_DECIDER_TIMEOUT] = { "decider-timeout", CLI_VALUE },
	[O_JOBS] = { "jobs", CLI_VALUE },	      [O_SHARD] = { "shard", CLI_VALUE },
	[O_OUT] = { "out", CLI_VALUE },		      [O_MERGE] = { "merge", CLI_FLAG },
	[O_QUIET] = { "quiet", CLI_FLAG },	      [O_TIME_FORMAT] = { "time-format", CLI_VALUE },
	[O_TZ] = { "tz", CLI_VALUE },
	[O_ACTUAL_FIELD] = { "actual-field", CLI_VALUE }, [O_DURATION_FIELD] = { "duration-field", CLI_VALUE },
	[O_DURATION_UNIT] = { "duration-unit", CLI_VALUE },
};

struct study_cmd {
	struct sim_study_rule rules[MAX_RULES];
	const struct rl_algo *algos[MAX_ALGOS];
	struct sim_study_decider deciders[MAX_DECIDERS];
	struct sim_study_opts o;
	/* limits.csv's windows: those of the rules, then --windows; distinct */
	char wtext[MAX_WINDOWS][SIM_LIMITS_TEXT_MAX];
	const char *wtexts[MAX_WINDOWS];
	int64_t wns[MAX_WINDOWS];
	struct sim_limits_opts lo;
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

/* One rule through the library's one reader (rl_rule_parse), its words
 * after "--rules: " as every command puts them. */
static int parse_rule(const char *text, struct sim_study_rule *out)
{
	char why[1024];

	if (!sim_study_rule_parse(text, out, why, sizeof(why)))
		return cli_usage_error("study", "--rules: %s", why);
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

/* Adds window ns, written text, to limits.csv's windows unless a window of ns is there (a rule's). */
static int add_window(struct study_cmd *c, const char *text, size_t len, int64_t ns)
{
	for (size_t i = 0; i < c->lo.nwindows; i++)
		if (c->wns[i] == ns)
			return CLI_EXIT_OK;
	if (c->lo.nwindows == MAX_WINDOWS)
		return cli_usage_error("study", "more than %d windows (--rules and --windows)", MAX_WINDOWS);
	if (len >= SIM_LIMITS_TEXT_MAX)
		return cli_usage_error("study", "the window %s is longer than %d bytes", cli_quote(text),
				       SIM_LIMITS_TEXT_MAX - 1);
	memcpy(c->wtext[c->lo.nwindows], text, len);
	c->wtext[c->lo.nwindows][len] = '\0';
	c->wtexts[c->lo.nwindows] = c->wtext[c->lo.nwindows];
	c->wns[c->lo.nwindows++] = ns;
	return CLI_EXIT_OK;
}

/* --windows W[,W...]: durations as a rule's window takes them. */
static int parse_windows(const char *text, struct study_cmd *c)
{
	char buf[4096];
	int64_t ns, seen[MAX_WINDOWS];
	size_t nseen = 0;
	int status;

	if (snprintf(buf, sizeof(buf), "%s", text) >= (int)sizeof(buf))
		return cli_usage_error("study", "--windows %s is too long", cli_quote(text));
	if (!*text || text[0] == ',' || text[strlen(text) - 1] == ',' || strstr(text, ",,"))
		return cli_usage_error("study", "--windows %s is not a comma-separated list of durations "
				       "(e.g. 1m,1h)", cli_quote(text));
	for (char *save, *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		if ((status = cli_duration("study", "--windows: the window", w, 1, RL_WINDOW_MAX_NS, &ns)))
			return status;
		for (size_t i = 0; i < nseen; i++)
			if (seen[i] == ns)
				return cli_usage_error("study", "--windows: the window %s is given twice", cli_quote(w));
		if (nseen < MAX_WINDOWS)
			seen[nseen++] = ns;
		if ((status = add_window(c, w, strlen(w), ns)))
			return status;
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
		char name[sizeof(c->deciders[0].name)];
		int status = cli_decider_name("study", n, name, sizeof(name));
		if (status)
			return status;
		if (i == c->o.ndeciders)
			return cli_usage_error("study", "--decider-name %s names %zu deciders, but %zu --decider given",
					       cli_quote(text), i + 1, c->o.ndeciders);
		memcpy(c->deciders[i].name, name, sizeof(name));
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
						  O_TIME_UNIT, O_SPREAD, O_RULES, O_WINDOWS, O_TARGET_KEYS, O_ALGOS, O_DECIDER_NAME,
						  O_DECIDER_TIMEOUT, O_JOBS, O_SHARD, O_TIME_FORMAT, O_TZ, O_ACTUAL_FIELD,
						  O_DURATION_FIELD, O_DURATION_UNIT };
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
		.actual_field = a.value[O_ACTUAL_FIELD], .duration_field = a.value[O_DURATION_FIELD],
		.duration_unit = a.value[O_DURATION_UNIT],
		.cmd = "study",
	};
	if (!a.value[O_RULES] && !a.value[O_WINDOWS])
		return cli_usage_error("study", "--rules R[,R...] or --windows W[,W...] is required (e.g. --rules "
				       "10/1s,60/1m)");
	if ((a.value[O_RULES] && (status = parse_rules(a.value[O_RULES], c))) ||
	    (status = parse_algos(a.value[O_ALGOS], c)))
		return status;
	/* every rule of a policy gives its window: rule k is the k-th "N/W[:...]" of the text joined by '+' */
	for (size_t i = 0; i < c->o.nrules; i++) {
		const char *r = c->rules[i].text;
		for (size_t k = 0; k < c->rules[i].policy.count; k++, r = strchr(r, '+') + 1) {
			const char *w = strchr(r, '/') + 1;
			if ((status = add_window(c, w, strcspn(w, ":+ \t"), c->rules[i].policy.rules[k].window_ns)))
				return status;
		}
	}
	if (a.value[O_WINDOWS] && (status = parse_windows(a.value[O_WINDOWS], c)))
		return status;
	c->lo.target = SIM_LIMITS_TARGET_DEFAULT;
	if (a.value[O_TARGET_KEYS] && !sim_study_target_parse(a.value[O_TARGET_KEYS], &c->lo.target))
		return cli_usage_error("study", "--target-keys %s is not a share of keys P%% with 0 < P <= 100 and "
				       "at most two decimals (e.g. 99%%, 99.5%%)", cli_quote(a.value[O_TARGET_KEYS]));
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
	/* a shard sees only its keys: the suggested limit is the whole's, known after --merge */
	if (c->o.nshards > 1 && !c->o.nrules)
		return cli_usage_error("study", "--shard needs --rules: a shard cannot know the suggested limit "
				       "(merge the shards, then study the rule it suggests)");
	c->lo.texts = c->wtexts;
	c->lo.windows_ns = c->wns;
	c->lo.jobs = c->o.jobs;
	c->lo.shard = c->o.shard;
	c->lo.nshards = c->o.nshards;
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

/*
 * The peak resident set so far, bytes: this process's, or a waited-for
 * child's (gnuplot) when larger, as `/usr/bin/time -v` gives it (ru_maxrss
 * is in KiB on Linux).
 */
static int64_t peak_rss_bytes(void)
{
	struct rusage self, children;

	if (getrusage(RUSAGE_SELF, &self) != 0)
		return 0;
	if (getrusage(RUSAGE_CHILDREN, &children) != 0 || children.ru_maxrss < self.ru_maxrss)
		children.ru_maxrss = self.ru_maxrss;
	return (int64_t)children.ru_maxrss * 1024;
}

/* The study's files into a stage inside out, the report from them, then moved into place. */
static int write_out(struct sim_study *s, const char *out, double t0)
{
	struct sim_out_dir d;

	if (sim_out_dir_begin(&d, out, "study", stderr))
		return CLI_EXIT_FAIL;
	s->elapsed_s = wall_s() - t0;
	s->peak_rss_bytes = peak_rss_bytes();
	int status = sim_study_write(s, d.stage, stderr) ? CLI_EXIT_FAIL : CLI_EXIT_OK;
	/* a shard may hold no key of a small trace: its files are for --merge, a report would be empty */
	if (status == CLI_EXIT_OK && s->requests == 0)
		fprintf(stderr, "ratelab study: shard %s holds no request: no report written\n", s->shard);
	else if (status == CLI_EXIT_OK)
		status = sim_study_report(d.stage, stderr);
	/* the report's work may have raised the peak: the files and the report say the final figure */
	int64_t peak = peak_rss_bytes();
	if (status == CLI_EXIT_OK && s->requests && peak > s->peak_rss_bytes) {
		s->peak_rss_bytes = peak;
		status = sim_study_write(s, d.stage, stderr) ? CLI_EXIT_FAIL : sim_study_report(d.stage, stderr);
	}
	if (status == CLI_EXIT_OK && sim_out_dir_commit(&d, stderr))
		status = CLI_EXIT_FAIL;
	if (status != CLI_EXIT_OK)
		sim_out_dir_abort(&d);
	return status;
}

/*
 * Per window, the suggested limit N/W (study_limits.h) added to the rules
 * studied unless given; said on stderr. A shard's keys are not the whole's:
 * with --shard nothing is added.
 */
static int add_suggested(struct study_cmd *c, const struct sim_limits *l)
{
	char target[16], text[SIM_STUDY_RULE_MAX], why[256];

	sim_study_target_text(target, sizeof(target), c->lo.target);
	for (size_t w = 0; w < l->nwindows; w++) {
		const struct sim_limits_window *lw = &l->w[w];
		if (!lw->keys)
			continue;
		snprintf(text, sizeof(text), "%lld/%s", (long long)lw->suggested, lw->text);
		const char *studied = "studied beside the given rules";
		bool given = false;
		for (size_t r = 0; r < c->o.nrules && !given; r++)
			given = !strcmp(c->rules[r].text, text);
		if (given)
			studied = "one of the given rules";
		else if (c->o.nshards > 1)
			studied = "not studied in a shard: merge the shards for the whole's";
		else if (lw->suggested > RL_LIMIT_MAX)
			studied = "not studied: above the largest limit, 1000000";
		else if (c->o.nrules == MAX_RULES)
			studied = "not studied: the rules given are already 64";
		else if (!sim_study_rule_parse(text, &c->rules[c->o.nrules], why, sizeof(why)))
			return cli_usage_error("study", "the suggested rule %s: %s", cli_quote(text), why);
		else
			c->o.nrules++;
		fprintf(stderr, "ratelab study: window %s: the keys' peaks p50 %lld, p90 %lld, p99 %lld, max %lld; "
			"suggested limit %s (refuses no request of %s of the keys): %s\n", lw->text,
			(long long)lw->quoted[0], (long long)lw->quoted[1], (long long)lw->quoted[2],
			(long long)lw->max_peak, text, target, studied);
	}
	return CLI_EXIT_OK;
}

/*
 * The rules whose W/N is finer than the log's tick decided again with the
 * other tick placement (study.h's other), said on stderr. RL_OK or the
 * failure, with why.
 */
static int other_placement(struct study_cmd *c, const struct sim_trace *t, struct sim_study *s, char *why,
			   size_t why_len)
{
	static struct sim_study_rule coarse[MAX_RULES];
	struct sim_study_opts o = c->o;
	struct sim_trace other;
	size_t n = 0;

	for (size_t r = 0; r < c->o.nrules; r++)
		if (sim_study_coarse(&c->rules[r].rule, t->resolution_ns))
			coarse[n++] = c->rules[r];
	if (!n || !c->o.nalgos)
		return RL_OK;
	for (size_t r = 0; r < n; r++)
		fprintf(stderr, "ratelab study: rule %s: the log's time resolution, %lld ns, is coarser than W/N: "
			"decided both %s --spread (placement.csv); a verdict is robust only where both agree\n",
			coarse[r].text, (long long)t->resolution_ns, t->spread ? "with and without" : "without and with");
	o.rules = coarse;
	o.nrules = n;
	o.ndeciders = 0; /* a decider is run once per rule, on the log's own placement */
	o.quiet = true;
	if (!(s->other = calloc(1, sizeof(*s->other))) || sim_study_other_placement(t, &other) != RL_OK) {
		snprintf(why, why_len, "out of memory");
		return RL_ENOMEM;
	}
	int rc = sim_study_run(s->other, &other, &o, stderr, why, why_len);
	free(other.t_ns);
	return rc;
}

/*
 * What the trace allows of the items and algorithms: a rule counting units
 * (":units") needs costs (replay's words: "every line needs 'T KEY
 * COST'"); settle lines need algorithms that settle (settle.h); a decider
 * decides one rule, without settles.
 */
static int check_items(const struct study_cmd *c, const struct sim_trace *t)
{
	for (size_t i = 0; i < c->o.nrules; i++)
		for (size_t k = 0; c->rules[i].is_policy && k < c->rules[i].policy.count; k++)
			if (c->rules[i].policy.units[k] && !t->cost_read)
				return cli_usage_error("study", "--rules: %s: no COST in --trace %s, and rule %zu counts units "
						       "(':units'): every line needs 'T KEY COST' (a log: --cost-field F)",
						       cli_quote(c->rules[i].text), cli_quote(c->trace), k + 1);
	for (size_t a = 0; t->actual && a < c->o.nalgos; a++)
		if (!rl_algo_settles(c->algos[a])) {
			size_t n;
			const struct rl_algo *const *all = rl_algo_all(&n);
			char those[256] = "";
			for (size_t i = 0; i < n; i++)
				if (rl_algo_settles(all[i]))
					snprintf(those + strlen(those), sizeof(those) - strlen(those), "%s%s",
						 *those ? "," : "", all[i]->name);
			return cli_usage_error("study", "--trace %s has settle lines 'T KEY COST ACTUAL DONE_T', and %s "
					       "does not settle (settle.h): choose --algos among those that do: %s",
					       cli_quote(c->trace), c->algos[a]->name, those);
		}
	for (size_t i = 0; c->o.ndeciders && i < c->o.nrules; i++)
		if (c->rules[i].is_policy || t->actual)
			return cli_usage_error("study", "--decider: a decider decides one rule and settles nothing: %s%s",
					       t->actual ? "the trace has settle lines" : "--rules names the policy ",
					       t->actual ? "" : cli_quote(c->rules[i].text));
	return CLI_EXIT_OK;
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
	const char *const *inputs = c.merge ? c.dirs : &c.trace;
	if (sim_out_dir_check(c.out, "study", inputs, c.merge ? c.ndirs : 1, why, sizeof(why)))
		return cli_usage_error("study", "--out %s %s", cli_quote(c.out), why);
	if (c.merge) {
		if (sim_study_merge(&s, c.dirs, c.ndirs, why, sizeof(why)))
			return cli_usage_error("study", "--merge: %s", why);
		status = write_out(&s, c.out, t0);
		sim_study_free(&s);
		return status;
	}
	struct sim_import_stats stats;
	struct sim_limits lim = { 0 };
	c.io.stats = &stats;
	if ((status = sim_import(&c.io, &c.trace, 1, &t, stderr)))
		return status;
	if (t.n == 0) {
		sim_trace_free(&t);
		return cli_usage_error("study", "--trace %s holds no request", cli_quote(c.trace));
	}
	if ((status = check_items(&c, &t))) {
		sim_trace_free(&t);
		return status;
	}
	double l0 = wall_s();
	int rc = sim_study_limits(&lim, &t, &c.lo, why, sizeof(why));
	if (rc == RL_OK && !c.o.quiet)
		fprintf(stderr, "ratelab study: limits.csv: %zu windows in %.2f s\n", lim.nwindows, wall_s() - l0);
	if (rc == RL_OK && (status = add_suggested(&c, &lim))) {
		sim_limits_free(&lim);
		sim_trace_free(&t);
		return status;
	}
	if (rc == RL_OK)
		rc = sim_study_run(&s, &t, &c.o, stderr, why, sizeof(why));
	if (rc == RL_OK)
		rc = other_placement(&c, &t, &s, why, sizeof(why));
	if (rc == RL_OK) {
		s.limits = lim;
		memset(&lim, 0, sizeof(lim));
		s.import = stats;
		s.target_keys = c.lo.target;
		s.trace = strdup(c.trace);
		status = s.trace ? write_out(&s, c.out, t0) : CLI_EXIT_FAIL;
	} else {
		fflush(stdout);
		fprintf(stderr, "ratelab study: %s\n", why);
		status = rc == RL_EORDER ? CLI_EXIT_USAGE : CLI_EXIT_FAIL; /* bad input, or the machine or a decider */
	}
	sim_limits_free(&lim);
	sim_study_free(&s);
	sim_trace_free(&t);
	return status;
}
