/*
 * sim_scenario.c - model: the library's INI parser (ini_reader.h, shared
 * with the tier config) calls one handler per key and counts lines, so
 * every message names file and line, and refuses what it cannot read
 * whole (lines beyond RL_INI_LINE_MAX, NUL bytes, indentation). It also
 * reports section headers, so sources open and unknown names are refused
 * even for empty sections. The parser goes on after a handler's error;
 * the first message is kept.
 * Fields left unset hold -1 until finish() fills the defaults that depend
 * on other fields (N, W, duration). Invariant: a scenario that loads is
 * valid for the engine: a valid rule, 1 <= bucket, 1 <= duration <=
 * RL_TIME_MAX_NS, every source's numbers within their documented ranges.
 */
#include "sim_scenario.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compat.h"
#include "ini_reader.h"
#include "lines.h"
#include "sim_queue.h"
#include "ratelab/algo.h"
#include "ratelab/breaker.h"
#include "ratelab/parse.h"
#include "trace_load.h"

#define UNSET (-1)
#define MAX_KEYS 10000000LL /* keys per source */
#define MAX_PCT 100000LL    /* load, percent of the limit */
#define MAX_SEEN 256        /* distinct keys in one file: 10 + 3 + 8 sources x 18 fit */
#define NAME_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-."

struct parse {
	struct sim_scenario *sc;
	struct rl__ini_reader rd;   /* its lineno is the line being handled */
	const char *path;
	char dir[SIM_PATH_MAX]; /* the file's directory, for replay paths */
	char section[128];         /* the section last seen */
	int scenario_line;
	bool named;                /* name = given */
	bool keyless;              /* the last source opened has no key yet */
	size_t nseen;              /* keys given so far, as "SOURCE/SECTION/KEY" */
	char seen[MAX_SEEN][SIM_NAME_MAX + 160];
	int sweep_line;            /* line of sweep =; 0: none */
	int rule_line[3];          /* line of limit, window, burst =; 0: not given */
	int policy_line;           /* line of policy =; 0: none */
	int key_line[SIM_MAX_TRAFFIC][16]; /* per source, line of each key of type_keys; 0: not given */
	int fail_line;             /* line of the first error; 0: none yet */
	bool span_duration;        /* no duration given: it is the traces' span */
	char *msg;
	size_t msg_len;
};

static const char *const type_names[] = { "constant", "poisson",   "onoff", "boundary",
					  "adversary", "diurnal", "replay" };

const char *sim_traffic_type_name(enum sim_traffic_type t)
{
	return t >= 0 && (size_t)t < sizeof(type_names) / sizeof(type_names[0]) ? type_names[t] : "unset";
}

static int fail(struct parse *p, int line, const char *fmt, ...) RL_PRINTF(3, 4);
static int fail(struct parse *p, int line, const char *fmt, ...)
{
	va_list ap;

	if (p->fail_line)
		return 0; /* the first error is the one to fix first */
	p->fail_line = line > 0 ? line : 1;
	int n = snprintf(p->msg, p->msg_len, "%s:%d: ", p->path, line);

	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < p->msg_len)
		vsnprintf(p->msg + n, p->msg_len - (size_t)n, fmt, ap);
	va_end(ap);
	return 0;
}

static struct sim_traffic_spec blank_traffic(int line);

/* The line being handled (scenario files are far below 2^31 lines: the work cap). */
static int line_of(const struct parse *p)
{
	return (int)p->rd.lineno;
}

static bool is_traffic_section(const char *section)
{
	return strncmp(section, "traffic", 7) == 0 && (section[7] == '\0' || section[7] == ' ' || section[7] == '.');
}

/* A section header: opens a source for [traffic NAME]; refuses unknown names, keys or not. */
static void section_start(struct parse *p, const char *section)
{
	struct sim_scenario *sc = p->sc;

	snprintf(p->section, sizeof(p->section), "%s", section);
	if (strcmp(section, "scenario") == 0 || strcmp(section, "breaker") == 0)
		return;
	if (!is_traffic_section(section)) {
		fail(p, line_of(p), "unknown section [%s] (expected [scenario], [breaker] or [traffic NAME])", section);
		return;
	}
	const char *n = section[7] ? section + 8 : "";
	n = *n ? n : "traffic";
	if (strlen(n) >= sizeof(sc->traffic[0].name)) {
		fail(p, line_of(p), "[%s]: a source name of at most %zu characters", section,
		     sizeof(sc->traffic[0].name) - 1);
		return;
	}
	for (size_t i = 0; i < sc->ntraffic; i++)
		if (strcmp(sc->traffic[i].name, n) == 0) {
			fail(p, line_of(p), "[%s] given twice", section);
			return;
		}
	if (sc->ntraffic == SIM_MAX_TRAFFIC) {
		fail(p, line_of(p), "more than %d [traffic] sections", SIM_MAX_TRAFFIC);
		return;
	}
	struct sim_traffic_spec *t = &sc->traffic[sc->ntraffic++];
	*t = blank_traffic(line_of(p));
	snprintf(t->name, sizeof(t->name), "%.*s", (int)sizeof(t->name) - 1, n);
	p->keyless = true;
}

/* The shared INI reader's on_section: opens the section (refusals are kept in p). */
static bool on_section(void *arg, const char *name, long line)
{
	struct parse *p = arg;

	(void)line; /* p->rd.lineno */
	section_start(p, name);
	return true;
}

static struct sim_traffic_spec blank_traffic(int line)
{
	return (struct sim_traffic_spec){
		.type = SIM_TRAFFIC_UNSET, .load_pct = 100, .keys = 1, .start_ns = 0, .stop_ns = UNSET,
		.on_ns = UNSET, .off_ns = UNSET, .period_ns = UNSET, .amplitude_pct = 50,
		.count = UNSET, .gap_ns = 1, .every = 2, .rounds = 6, .client = SIM_CLIENT_NONE,
		.max_retries = 3, .retry_gap_ns = UNSET, .cost_kind = SIM_COST_CONSTANT,
		.cost_min = 1, .cost_max = 1, .line = line,
	};
}

static int set_int(struct parse *p, const char *name, const char *v, int64_t lo, int64_t hi, int64_t *out)
{
	if (!rl_parse_i64(v, out) || *out < lo || *out > hi)
		return fail(p, line_of(p), "%s = '%s': expected an integer in [%lld, %lld]", name, v,
			    (long long)lo, (long long)hi);
	return 1;
}

static int set_dur(struct parse *p, const char *name, const char *v, int64_t lo, int64_t *out)
{
	/* a bare integer is refused, as in tier configs */
	if (!rl_parse_duration(v, 0, out) || *out < lo || *out > RL_TIME_MAX_NS)
		return fail(p, line_of(p), "%s = '%s': expected a duration of at least %lld ns (an integer "
			    "with unit ns, us, ms, s, m or h)", name, v, (long long)lo);
	return 1;
}

/* A writable copy of a list value, for strtok_r; NULL when out of memory. */
static char *list_copy(const char *v)
{
	size_t n = strlen(v) + 1;
	char *buf = malloc(n);

	return buf ? memcpy(buf, v, n) : NULL;
}

static int set_algos(struct parse *p, const char *v)
{
	char *buf, *save = NULL;
	size_t n;
	const struct rl_algo *const *all = rl_algo_all(&n);
	int ok = 1;

	if (strcmp(v, "all") == 0) {
		p->sc->algo_mask = (1u << n) - 1;
		return 1;
	}
	if (!(buf = list_copy(v)))
		return fail(p, line_of(p), "out of memory");
	p->sc->algo_mask = 0;
	for (char *tok = strtok_r(buf, ", ", &save); ok && tok; tok = strtok_r(NULL, ", ", &save)) {
		size_t i = 0;
		while (i < n && strcmp(all[i]->name, tok) != 0)
			i++;
		if (i == n)
			ok = fail(p, line_of(p), "algos: unknown algorithm '%s'", tok);
		else
			p->sc->algo_mask |= 1u << i;
	}
	free(buf);
	if (ok && !p->sc->algo_mask)
		return fail(p, line_of(p), "algos: no algorithm named");
	return ok;
}

static int set_sweep(struct parse *p, const char *v)
{
	char *buf, *save = NULL;
	int ok = 1;

	if (!(buf = list_copy(v)))
		return fail(p, line_of(p), "out of memory");
	p->sc->nsweep = 0;
	for (char *tok = strtok_r(buf, ", ", &save); ok && tok; tok = strtok_r(NULL, ", ", &save)) {
		if (p->sc->nsweep == SIM_MAX_SWEEP)
			ok = fail(p, line_of(p), "sweep: more than %d loads", SIM_MAX_SWEEP);
		else
			ok = set_int(p, "sweep", tok, 1, MAX_PCT, &p->sc->sweep_pct[p->sc->nsweep++]);
	}
	free(buf);
	return ok;
}

/*
 * policy = stands for limit, window and burst: either is refused at the
 * second one's line, in the tiers file's words (registry_load.c).
 */
static int policy_apart(struct parse *p, const char *name)
{
	static const char *const rule_keys[] = { "limit", "window", "burst" };
	size_t k = 0;

	while (k < 3 && strcmp(name, rule_keys[k]) != 0)
		k++;
	if (k < 3 && p->policy_line)
		return fail(p, line_of(p), "'%s' with 'policy' in [scenario]: policy = RULES replaces limit, "
			    "window and burst", name);
	if (k < 3) {
		p->rule_line[k] = line_of(p);
		return 1;
	}
	if (strcmp(name, "policy") != 0)
		return 1;
	for (k = 0; k < 3; k++)
		if (p->rule_line[k])
			return fail(p, line_of(p), "'policy' with '%s' in [scenario]: policy = RULES replaces "
				    "limit, window and burst", rule_keys[k]);
	p->policy_line = line_of(p);
	return 1;
}

/* policy = RULES (policy.h), in the tiers file's words: "policy: 'TEXT' has 9 rules (at most 8)". */
static int set_policy(struct parse *p, const char *v)
{
	char msg[2 * RL_QUOTE_SIZE + 300];

	if (rl_policy_parse(v, &p->sc->policy, msg, sizeof(msg)) != RL_OK)
		return fail(p, line_of(p), "policy: %s", msg);
	p->sc->rule = p->sc->policy.rules[0];
	return 1;
}

static int scenario_key(struct parse *p, const char *name, const char *v)
{
	struct sim_scenario *sc = p->sc;
	int64_t seed;

	if (!p->scenario_line)
		p->scenario_line = line_of(p);
	if (strcmp(name, "name") == 0) {
		if (!*v || strlen(v) >= sizeof(sc->name) || strspn(v, NAME_CHARS) != strlen(v))
			return fail(p, line_of(p), "name = '%s': expected 1-%zu letters, digits, '_', '-' or '.'",
				    v, sizeof(sc->name) - 1);
		snprintf(sc->name, sizeof(sc->name), "%s", v);
		p->named = true;
		return 1;
	}
	if (!policy_apart(p, name))
		return 0;
	if (strcmp(name, "limit") == 0)
		return set_int(p, name, v, 1, RL_LIMIT_MAX, &sc->rule.limit);
	if (strcmp(name, "window") == 0)
		return set_dur(p, name, v, 1, &sc->rule.window_ns);
	if (strcmp(name, "burst") == 0)
		return set_int(p, name, v, 1, RL_BURST_MAX, &sc->rule.burst);
	if (strcmp(name, "policy") == 0)
		return set_policy(p, v);
	if (strcmp(name, "mode") == 0) {
		/* the tiers file's words (registry_load.c) */
		if (strcmp(v, "enforce") != 0 && strcmp(v, "shadow") != 0)
			return fail(p, line_of(p), "mode '%s' is not enforce or shadow", v);
		sc->shadow = strcmp(v, "shadow") == 0;
		return 1;
	}
	if (strcmp(name, "duration") == 0)
		return set_dur(p, name, v, 1, &sc->duration_ns);
	if (strcmp(name, "bucket") == 0)
		return set_dur(p, name, v, 1, &sc->bucket_ns);
	if (strcmp(name, "seed") == 0) {
		if (!set_int(p, name, v, 0, INT64_MAX, &seed))
			return 0;
		sc->seed = (uint64_t)seed;
		return 1;
	}
	if (strcmp(name, "compare") == 0) {
		if (strcmp(v, "on") != 0 && strcmp(v, "off") != 0)
			return fail(p, line_of(p), "compare = '%s': expected on or off", v);
		sc->compare = strcmp(v, "on") == 0;
		return 1;
	}
	if (strcmp(name, "algos") == 0)
		return set_algos(p, v);
	if (strcmp(name, "sweep") == 0) {
		p->sweep_line = line_of(p);
		return set_sweep(p, v);
	}
	return fail(p, line_of(p), "[scenario]: unknown key '%s'", name);
}

static int breaker_key(struct parse *p, const char *name, const char *v)
{
	struct sim_scenario *sc = p->sc;

	if (strcmp(name, "limit") == 0)
		return set_int(p, name, v, 1, RL_BREAKER_LIMIT_MAX, &sc->breaker_limit);
	if (strcmp(name, "window") == 0)
		return set_dur(p, name, v, 1, &sc->breaker_window_ns);
	if (strcmp(name, "open") == 0)
		return set_dur(p, name, v, 1, &sc->breaker_open_ns);
	return fail(p, line_of(p), "[breaker]: unknown key '%s'", name);
}

static int set_type(struct parse *p, struct sim_traffic_spec *t, const char *v)
{
	for (size_t i = 0; i < sizeof(type_names) / sizeof(type_names[0]); i++)
		if (strcmp(v, type_names[i]) == 0) {
			t->type = (enum sim_traffic_type)i;
			return 1;
		}
	return fail(p, line_of(p), "type = '%s': expected constant, poisson, onoff, boundary, adversary, "
		    "diurnal or replay", v);
}

static int set_client(struct parse *p, struct sim_traffic_spec *t, const char *v)
{
	if (strcmp(v, "none") == 0)
		t->client = SIM_CLIENT_NONE;
	else if (strcmp(v, "polite") == 0)
		t->client = SIM_CLIENT_POLITE;
	else if (strcmp(v, "abusive") == 0)
		t->client = SIM_CLIENT_ABUSIVE;
	else
		return fail(p, line_of(p), "client = '%s': expected none, polite or abusive", v);
	return 1;
}

static int set_zipf(struct parse *p, struct sim_traffic_spec *t, const char *v)
{
	char *end;
	double z = strtod(v, &end);

	if (!*v || *end || !(z >= 0 && z <= 10))
		return fail(p, line_of(p), "zipf = '%s': expected a number in [0, 10]", v);
	t->zipf = z;
	return 1;
}

/* One integer cost bound, 1..SIM_COST_MAX (sim_queue.h). */
static int cost_int(const char *tok, int64_t *out)
{
	return tok && rl_parse_i64(tok, out) && *out >= 1 && *out <= SIM_COST_MAX;
}

/* cost = constant C | uniform LO HI | pareto ALPHA MIN MAX (sim_scenario.h) */
static int set_cost(struct parse *p, struct sim_traffic_spec *t, const char *v)
{
	char buf[128], *tok[5] = { 0 }, *save = NULL, *end;
	int n = 0;

	if (snprintf(buf, sizeof(buf), "%s", v) >= (int)sizeof(buf))
		return fail(p, line_of(p), "cost = '%s': too long", v);
	for (char *w = strtok_r(buf, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
		if (n < 5)
			tok[n++] = w;
		else
			n = 6;
	if (n == 2 && strcmp(tok[0], "constant") == 0 && cost_int(tok[1], &t->cost_min)) {
		t->cost_kind = SIM_COST_CONSTANT;
		t->cost_max = t->cost_min;
		return 1;
	}
	if (n == 3 && strcmp(tok[0], "uniform") == 0 && cost_int(tok[1], &t->cost_min) &&
	    cost_int(tok[2], &t->cost_max) && t->cost_min <= t->cost_max) {
		t->cost_kind = SIM_COST_UNIFORM;
		return 1;
	}
	if (n == 4 && strcmp(tok[0], "pareto") == 0 && cost_int(tok[2], &t->cost_min) &&
	    cost_int(tok[3], &t->cost_max) && t->cost_min <= t->cost_max) {
		double a = strtod(tok[1], &end);
		if (*tok[1] && !*end && a > 0 && a <= 10) {
			t->cost_kind = SIM_COST_PARETO;
			t->cost_alpha = a;
			return 1;
		}
	}
	return fail(p, line_of(p),
		    "cost = '%s': expected 'constant C', 'uniform LO HI' or 'pareto ALPHA MIN MAX' "
		    "(integers in [1, %lld], LO <= HI, MIN <= MAX, ALPHA in (0, 10])",
		    v, SIM_COST_MAX);
}

static int set_file(struct parse *p, struct sim_traffic_spec *t, const char *v)
{
	int n = v[0] == '/' ? snprintf(t->file, sizeof(t->file), "%s", v)
			    : snprintf(t->file, sizeof(t->file), "%s/%s", p->dir, v);

	if (!*v || n < 0 || (size_t)n >= sizeof(t->file))
		return fail(p, line_of(p), "file = '%s': empty or too long a path", v);
	return 1;
}

/*
 * The [traffic] keys that apply to some source types only (bit 1 << type);
 * the others (type, start, stop, cost) apply to every source. What each
 * type reads, in the engine: rates (load) and key popularity (zipf) the
 * Poisson-like and constant sources; keys all but the adversary (one key
 * per round) and replay (the trace's keys); clients all but the adversary
 * (it probes at once or at its retry-after, whatever client says).
 */
#define TYPE(x) (1u << SIM_TRAFFIC_##x)
#define RATED (TYPE(CONSTANT) | TYPE(POISSON) | TYPE(ONOFF) | TYPE(DIURNAL))
#define REACTS (RATED | TYPE(BOUNDARY) | TYPE(REPLAY))
static const struct {
	const char *name;
	unsigned types;
} type_keys[] = {
	{ "load", RATED },          { "zipf", RATED },           { "keys", RATED | TYPE(BOUNDARY) },
	{ "on", TYPE(ONOFF) },      { "off", TYPE(ONOFF) },      { "period", TYPE(DIURNAL) },
	{ "amplitude", TYPE(DIURNAL) }, { "count", TYPE(BOUNDARY) }, { "gap", TYPE(BOUNDARY) },
	{ "every", TYPE(BOUNDARY) }, { "rounds", TYPE(ADVERSARY) }, { "file", TYPE(REPLAY) },
	{ "client", REACTS },       { "max_retries", REACTS },   { "retry_gap", REACTS },
};
_Static_assert(sizeof(type_keys) / sizeof(type_keys[0]) <= 16, "key_line holds every type key");

/* Records where a type key was given, for the check once the type is known. */
static void note_type_key(struct parse *p, const char *name)
{
	for (size_t i = 0; i < sizeof(type_keys) / sizeof(type_keys[0]); i++)
		if (strcmp(name, type_keys[i].name) == 0)
			p->key_line[p->sc->ntraffic - 1][i] = line_of(p);
}

/* The types a key applies to, as "a, b or c". */
static void type_list(unsigned types, char *out, size_t len)
{
	size_t n = 0, left = (size_t)__builtin_popcount(types);

	out[0] = '\0';
	for (size_t i = 0; i < sizeof(type_names) / sizeof(type_names[0]) && n < len; i++) {
		if (!(types & (1u << i)))
			continue;
		left--;
		n += (size_t)snprintf(out + n, len - n, "%s%s", type_names[i], left > 1 ? ", " : left ? " or " : "");
	}
}

/* Refuses a key given to a source that would ignore it: by type, then by client. */
static int check_type_keys(struct parse *p, size_t src)
{
	const struct sim_traffic_spec *t = &p->sc->traffic[src];
	const int *line = p->key_line[src];
	char types[160];

	for (size_t i = 0; i < sizeof(type_keys) / sizeof(type_keys[0]); i++) {
		if (!line[i] || (type_keys[i].types & (1u << t->type)))
			continue;
		type_list(type_keys[i].types, types, sizeof(types));
		return fail(p, line[i], "[traffic %s]: '%s' does not apply to type %s (only to %s)", t->name,
			    type_keys[i].name, type_names[t->type], types);
	}
	for (size_t i = 0; i < sizeof(type_keys) / sizeof(type_keys[0]); i++) {
		bool retries = strcmp(type_keys[i].name, "max_retries") == 0;
		if (!line[i] || !(retries || strcmp(type_keys[i].name, "retry_gap") == 0))
			continue;
		if (retries && t->client == SIM_CLIENT_NONE)
			return fail(p, line[i], "[traffic %s]: 'max_retries' applies only with client = polite "
				    "or abusive (client = none never retries)", t->name);
		if (!retries && t->client != SIM_CLIENT_ABUSIVE)
			return fail(p, line[i], "[traffic %s]: 'retry_gap' applies only with client = abusive "
				    "(a polite client waits its retry-after)", t->name);
	}
	return 1;
}

/* sweep sets every source's load: refused when a source has none to set. */
static int check_sweep(struct parse *p)
{
	const struct sim_scenario *sc = p->sc;
	bool any = false;

	if (!sc->nsweep)
		return 1;
	for (size_t i = 0; i < sc->ntraffic; i++) {
		const struct sim_traffic_spec *t = &sc->traffic[i];
		if (t->type == SIM_TRAFFIC_REPLAY)
			return fail(p, p->sweep_line, "[scenario]: sweep sets each source's load, which "
				    "[traffic %s] cannot change: a replay source's requests are its trace's", t->name);
		any = any || (RATED & (1u << t->type));
	}
	if (!any)
		return fail(p, p->sweep_line, "[scenario]: sweep sets each source's load, and no source has one "
			    "(boundary and adversary sources send what count and rounds say)");
	return 1;
}

static int traffic_key(struct parse *p, struct sim_traffic_spec *t, const char *name, const char *v)
{
	static const struct {
		const char *name;
		size_t off;
		int64_t lo, hi;
		int dur;
	} nums[] = {
		{ "load", offsetof(struct sim_traffic_spec, load_pct), 1, MAX_PCT, 0 },
		{ "keys", offsetof(struct sim_traffic_spec, keys), 1, MAX_KEYS, 0 },
		{ "start", offsetof(struct sim_traffic_spec, start_ns), 0, 0, 1 },
		{ "stop", offsetof(struct sim_traffic_spec, stop_ns), 1, 0, 1 },
		{ "on", offsetof(struct sim_traffic_spec, on_ns), 1, 0, 1 },
		{ "off", offsetof(struct sim_traffic_spec, off_ns), 1, 0, 1 },
		{ "period", offsetof(struct sim_traffic_spec, period_ns), 1, 0, 1 },
		{ "amplitude", offsetof(struct sim_traffic_spec, amplitude_pct), 0, 100, 0 },
		{ "count", offsetof(struct sim_traffic_spec, count), 1, RL_LIMIT_MAX * 10, 0 },
		{ "gap", offsetof(struct sim_traffic_spec, gap_ns), 1, 0, 1 },
		{ "every", offsetof(struct sim_traffic_spec, every), 1, 1000000, 0 },
		{ "rounds", offsetof(struct sim_traffic_spec, rounds), 1, 1000, 0 },
		{ "max_retries", offsetof(struct sim_traffic_spec, max_retries), 0, 1000, 0 },
		{ "retry_gap", offsetof(struct sim_traffic_spec, retry_gap_ns), 1, 0, 1 },
	};

	if (strcmp(name, "type") == 0)
		return set_type(p, t, v);
	if (strcmp(name, "client") == 0)
		return set_client(p, t, v);
	if (strcmp(name, "zipf") == 0)
		return set_zipf(p, t, v);
	if (strcmp(name, "file") == 0)
		return set_file(p, t, v);
	if (strcmp(name, "cost") == 0) {
		t->cost_given = true;
		return set_cost(p, t, v);
	}
	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
		if (strcmp(name, nums[i].name) != 0)
			continue;
		int64_t *dst = (int64_t *)((char *)t + nums[i].off);
		return nums[i].dur ? set_dur(p, name, v, nums[i].lo, dst)
				   : set_int(p, name, v, nums[i].lo, nums[i].hi, dst);
	}
	return fail(p, line_of(p), "[traffic]: unknown key '%s'", name);
}

/* Refuses a key given twice in one section (the last would silently win). */
static int first_time(struct parse *p, const char *section, const char *name)
{
	char id[sizeof(p->seen[0])];
	int n = snprintf(id, sizeof(id), "%zu/%s/%s", is_traffic_section(section) ? p->sc->ntraffic : 0,
			 section, name);

	if (n < 0 || (size_t)n >= sizeof(id))
		return fail(p, line_of(p), "key '%s' too long", name);
	for (size_t i = 0; i < p->nseen; i++)
		if (strcmp(p->seen[i], id) == 0)
			return fail(p, line_of(p), "[%s]: '%s' given twice", section, name);
	if (p->nseen == MAX_SEEN)
		return fail(p, line_of(p), "more than %d keys", MAX_SEEN);
	memcpy(p->seen[p->nseen++], id, (size_t)n + 1);
	return 1;
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
	struct parse *p = user;
	struct sim_scenario *sc = p->sc;

	/* the reader opened the section and refused a bad one; later keys only repeat that */
	if (p->fail_line || !first_time(p, section, name))
		return 0;
	if (strcmp(section, "scenario") == 0)
		return scenario_key(p, name, value);
	if (strcmp(section, "breaker") == 0)
		return breaker_key(p, name, value);
	if (!is_traffic_section(section))
		return fail(p, line_of(p), "'%s' before any section", name);
	struct sim_traffic_spec *t = &sc->traffic[sc->ntraffic - 1];
	if (p->keyless) {
		t->line = line_of(p);
		p->keyless = false;
	}
	note_type_key(p, name);
	return traffic_key(p, t, name, value);
}

static int finish_traffic(struct parse *p, struct sim_traffic_spec *t)
{
	const struct sim_scenario *sc = p->sc;
	int64_t w = sc->rule.window_ns;

	if (t->type == SIM_TRAFFIC_UNSET)
		return fail(p, t->line, "[traffic %s]: no type given", t->name);
	if (t->type == SIM_TRAFFIC_REPLAY && !t->file[0])
		return fail(p, t->line, "[traffic %s]: type replay needs file = PATH", t->name);
	if (t->stop_ns == UNSET || t->stop_ns > sc->duration_ns)
		t->stop_ns = sc->duration_ns;
	if (t->start_ns >= t->stop_ns)
		return fail(p, t->line, "[traffic %s]: start is not before stop (or the duration)", t->name);
	if (t->on_ns == UNSET)
		t->on_ns = w;
	if (t->off_ns == UNSET)
		t->off_ns = w;
	if (t->period_ns == UNSET)
		t->period_ns = sc->duration_ns;
	if (t->count == UNSET)
		t->count = sc->rule.limit;
	if (t->retry_gap_ns == UNSET)
		t->retry_gap_ns = w / 100 > 0 ? w / 100 : 1;
	if (t->type == SIM_TRAFFIC_ADVERSARY && t->keys < t->rounds)
		t->keys = t->rounds;
	if (t->type == SIM_TRAFFIC_BOUNDARY && t->gap_ns >= w)
		return fail(p, t->line, "[traffic %s]: gap must be shorter than the window", t->name);
	/* the engine steps boundary attacks by every * W ns; past RL_TIME_MAX_NS it would overflow */
	int64_t span;
	if (t->type == SIM_TRAFFIC_BOUNDARY && (rl__mul_overflow(t->every, w, &span) || span > RL_TIME_MAX_NS))
		return fail(p, t->line, "[traffic %s]: every * window exceeds %lld ns", t->name,
			    (long long)RL_TIME_MAX_NS);
	return 1;
}

/*
 * A ':units' rule counts costs: a source must give them (replay's words:
 * "rule K ... counts units"). A replay source's lines are checked when
 * the engine reads them (sim_traffic.c): a line without COST then needs
 * the source's cost =.
 */
static int check_units(struct parse *p, size_t src)
{
	const struct sim_traffic_spec *t = &p->sc->traffic[src];
	const struct rl_policy *pol = &p->sc->policy;
	size_t k = 0;

	while (k < pol->count && !pol->units[k])
		k++;
	if (k == pol->count || t->cost_given || t->type == SIM_TRAFFIC_REPLAY)
		return 1;
	return fail(p, t->line, "[traffic %s]: no cost, and rule %zu of policy counts units (':units'): give "
		    "cost = (constant C, uniform LO HI or pareto ALPHA MIN MAX)", t->name, k + 1);
}

/*
 * An upper estimate of the requests one run of source t offers, retries
 * included: Poisson-like sources keys * N * load% * active / W (diurnal at
 * its peak), boundary 2 * count * keys per attack, adversary B + 2N per
 * round doubled for its rejected probes. 128-bit: with every factor at its
 * largest the estimate stays below 10^38 < 2^128.
 * Replay traces are already bounded by their file.
 */
static rl__u128 requests_of(const struct sim_scenario *sc, const struct sim_traffic_spec *t, int64_t load_pct)
{
	const struct rl_rule *r = &sc->rule;
	rl__u128 active = (rl__u128)(t->stop_ns - t->start_ns), n;

	switch (t->type) {
	case SIM_TRAFFIC_BOUNDARY:
		n = (rl__u128)2 * (rl__u128)t->count * (rl__u128)t->keys *
		    (active / ((rl__u128)t->every * (rl__u128)r->window_ns) + 1);
		break;
	case SIM_TRAFFIC_ADVERSARY:
		n = (rl__u128)t->rounds * 2 * ((rl__u128)r->burst + 2 * (rl__u128)r->limit);
		break;
	case SIM_TRAFFIC_REPLAY:
		n = 0;
		break;
	default:
		n = (rl__u128)t->keys * (rl__u128)r->limit * (rl__u128)load_pct * active /
		    ((rl__u128)100 * (rl__u128)r->window_ns);
		if (t->type == SIM_TRAFFIC_DIURNAL)
			n = n * (rl__u128)(100 + t->amplitude_pct) / 100;
		break;
	}
	if (t->client != SIM_CLIENT_NONE)
		n *= (rl__u128)(1 + t->max_retries);
	return n;
}

/* Refuses scenarios whose work would outgrow memory or any sensible run time. */
static int check_work(struct parse *p)
{
	const struct sim_scenario *sc = p->sc;
	rl__u128 requests = 0;
	int64_t keys = 0, load_pct;

	for (size_t i = 0; i < sc->ntraffic; i++) {
		const struct sim_traffic_spec *t = &sc->traffic[i];
		load_pct = t->load_pct;
		for (size_t j = 0; j < sc->nsweep; j++)
			if (sc->sweep_pct[j] > load_pct)
				load_pct = sc->sweep_pct[j];
		rl__u128 n = requests_of(sc, t, load_pct);
		/* clamped, so eight sources cannot wrap the sum */
		requests += n > (rl__u128)SIM_MAX_REQUESTS ? (rl__u128)SIM_MAX_REQUESTS + 1 : n;
		keys += t->keys;
	}
	if (keys > SIM_MAX_KEYS_ALL)
		return fail(p, p->scenario_line, "[scenario]: %lld keys in all, more than %lld", (long long)keys,
			    (long long)SIM_MAX_KEYS_ALL);
	if (requests > (rl__u128)SIM_MAX_REQUESTS)
		return fail(p, p->scenario_line, "[scenario]: about %.3g requests per run, more than %lld "
			    "(lower limit, load, keys or duration, or raise window)", (double)requests,
			    (long long)SIM_MAX_REQUESTS);
	return 1;
}

/*
 * The latest time of the trace at path, ns, into *max (-1: no line), and
 * its time 0 into *origin (its origin_ns, or its earliest time if
 * earlier); the trace is read as the engine reads it (trace_load.h). 1, or
 * 0 after the message of the first bad line.
 */
static int trace_max(struct parse *p, const struct sim_traffic_spec *t, int64_t *max, int64_t *origin)
{
	FILE *in = fopen(t->file, "r");
	char msg[2 * SIM_QUOTE_SIZE + 200], path[SIM_QUOTE_SIZE];
	struct sim_trace tr;
	struct stat st;

	*max = -1;
	*origin = 0;
	sim_quote(path, t->file);
	if (!in)
		return fail(p, t->line, "[traffic %s]: cannot open the trace %s", t->name, path);
	/* read twice (here, then by the engine): a pipe or a device cannot be */
	if (fstat(fileno(in), &st) != 0 || !S_ISREG(st.st_mode)) {
		fclose(in);
		return fail(p, t->line, "[traffic %s]: the trace %s is not a regular file: give duration (without "
			    "it, the trace is read once for its span before the run)", t->name, path);
	}
	int rc = sim_trace_load(in, t->file, &tr, msg, sizeof(msg));
	fclose(in);
	if (rc == RL_EINVAL)
		return fail(p, t->line, "[traffic %s]: %s", t->name, msg);
	if (rc)
		return fail(p, t->line, "[traffic %s]: cannot read the trace %s%s", t->name, path,
			    rc == RL_ENOMEM ? ": out of memory" : "");
	*origin = tr.origin_ns;
	for (size_t i = 0; i < tr.n; i++) {
		*max = tr.t_ns[i] > *max ? tr.t_ns[i] : *max;
		*origin = tr.t_ns[i] < *origin ? tr.t_ns[i] : *origin;
	}
	sim_trace_free(&tr);
	return 1;
}

/*
 * No duration given: with replay sources, the traces' span, the latest
 * time + 1 ns, so that the last line is replayed (at most RL_TIME_MAX_NS).
 */
static int default_duration(struct parse *p)
{
	struct sim_scenario *sc = p->sc;
	int64_t last = -1, first = 0, max, origin; /* over the traces: the latest time, the earliest origin */
	bool replay = false;

	for (size_t i = 0; i < sc->ntraffic; i++) {
		const struct sim_traffic_spec *t = &sc->traffic[i];
		if (t->type != SIM_TRAFFIC_REPLAY)
			continue;
		if (!t->file[0])
			return fail(p, t->line, "[traffic %s]: type replay needs file = PATH", t->name);
		if (!trace_max(p, t, &max, &origin))
			return 0;
		if (max >= 0) /* a trace with a request */
			first = last < 0 || origin < first ? origin : first;
		last = max > last ? max : last;
		replay = true;
	}
	/* the run counts from the earliest origin (sim_traffic.h's origin_ns) */
	int64_t span = last < 0 ? -1 : last - first < RL_TIME_MAX_NS ? last - first + 1 : RL_TIME_MAX_NS;
	if (!replay)
		return fail(p, p->scenario_line, "[scenario] needs limit, window and duration (without "
			    "duration only when a source replays a trace: the duration is then its span)");
	if (span <= 0)
		return fail(p, p->scenario_line, "[scenario]: no duration given, and the traces replayed have no "
			    "request to take it from");
	sc->duration_ns = span;
	p->span_duration = true;
	return 1;
}

static int finish(struct parse *p)
{
	struct sim_scenario *sc = p->sc;
	char why[160];

	if (sc->rule.limit == UNSET || sc->rule.window_ns == UNSET)
		return fail(p, p->scenario_line, "[scenario] needs limit, window and duration (or policy = RULES "
			    "for limit and window)");
	if (sc->duration_ns == UNSET && !default_duration(p))
		return 0;
	/* the name goes into CSV rows and file names: a file name's base must pass as name = would */
	if (!p->named && (!sc->name[0] || strspn(sc->name, NAME_CHARS) != strlen(sc->name)))
		return fail(p, p->scenario_line, "[scenario]: the file's base name '%s' is no scenario name "
			    "(letters, digits, '_', '-' or '.'); give name =", sc->name);
	if (sc->rule.burst == UNSET)
		sc->rule.burst = sc->rule.limit;
	if (rl_rule_validate(&sc->rule, why, sizeof(why)))
		return fail(p, p->scenario_line, "[scenario]: %s", why);
	if (sc->bucket_ns == UNSET)
		sc->bucket_ns = sc->rule.window_ns / 10 > 0 ? sc->rule.window_ns / 10 : 1;
	if (sc->duration_ns / sc->bucket_ns > 10000000 && p->span_duration)
		return fail(p, p->scenario_line, "[scenario]: more than 10^7 time-series buckets over the "
			    "duration, which is the traces' span (%lld ns, no duration given): if the trace's "
			    "times are absolute (epoch) ns, `ratelab import --relative --format trace` makes them relative "
			    "to the first request; else give duration or a coarser bucket",
			    (long long)sc->duration_ns);
	if (sc->duration_ns / sc->bucket_ns > 10000000)
		return fail(p, p->scenario_line, "[scenario]: more than 10^7 time-series buckets");
	if (sc->breaker_limit == UNSET)
		sc->breaker_limit = 0; /* the engine's N * keys, known once traces are read */
	if (sc->breaker_window_ns == UNSET)
		sc->breaker_window_ns = sc->rule.window_ns;
	if (sc->breaker_open_ns == UNSET)
		sc->breaker_open_ns = sc->rule.window_ns;
	if (sc->ntraffic == 0)
		return fail(p, line_of(p), "no [traffic NAME] section");
	for (size_t i = 0; i < sc->ntraffic; i++)
		if (!finish_traffic(p, &sc->traffic[i]) || !check_type_keys(p, i) || !check_units(p, i))
			return 0;
	return check_sweep(p) && check_work(p);
}

static void default_name(struct sim_scenario *sc, const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t len = strcspn(base, ".");
	if (len >= sizeof(sc->name))
		len = sizeof(sc->name) - 1;
	memcpy(sc->name, base, len);
	sc->name[len] = '\0';
}

int sim_scenario_load(const char *path, struct sim_scenario *sc, char *msg, size_t msg_len)
{
	size_t nalgos;
	struct parse p = { .sc = sc, .path = path, .msg = msg, .msg_len = msg_len };

	rl_algo_all(&nalgos);
	*sc = (struct sim_scenario){
		.rule = { UNSET, UNSET, UNSET }, .duration_ns = UNSET, .bucket_ns = UNSET, .seed = 1, .compare = true,
		.algo_mask = (1u << nalgos) - 1, .breaker_limit = UNSET, .breaker_window_ns = UNSET,
		.breaker_open_ns = UNSET,
	};
	snprintf(sc->file, sizeof(sc->file), "%s", path);
	default_name(sc, path);
	const char *slash = strrchr(path, '/');
	if (slash)
		snprintf(p.dir, sizeof(p.dir), "%.*s", (int)(slash - path), path);
	else
		snprintf(p.dir, sizeof(p.dir), ".");

	if (!(p.rd.f = fopen(path, "r"))) {
		snprintf(msg, msg_len, "%s:0: cannot open", path);
		return RL_EINVAL;
	}
	msg[0] = '\0';
	p.rd.on_section = on_section;
	p.rd.arg = &p;
	int rc = rl__ini_parse(&p.rd, handler, &p);
	fclose(p.rd.f);
	/* the reader stops at the first line it refuses: any other error is on an earlier line */
	if (p.rd.error_line && !p.fail_line && (rc <= 0 || rc >= p.rd.error_line))
		fail(&p, (int)p.rd.error_line, "%s", p.rd.error);
	if (rc > 0 && (!p.fail_line || rc < p.fail_line)) {
		/* the parser's first error line is before ours (or ours is none): a line it could not parse */
		p.fail_line = 0;
		fail(&p, rc, "malformed line (expected [section], key = value or a ; comment)");
	} else if (rc < 0 && !p.fail_line) {
		fail(&p, 0, "cannot read");
	}
	if (p.fail_line)
		return RL_EINVAL;
	return finish(&p) ? RL_OK : RL_EINVAL;
}

bool sim_scenario_policy(const struct sim_scenario *sc, struct rl_policy *out)
{
	struct rl_policy one = { .count = 1 };

	if (sc->policy.count) {
		one = sc->policy;
	} else {
		one.rules[0] = sc->rule;
		one.units[0] = true; /* the scenario's rule counts costs */
	}
	if (out)
		*out = one;
	return sc->policy.count || sc->shadow;
}

void sim_scenario_at_load(const struct sim_scenario *base, int64_t load_pct, struct sim_scenario *out)
{
	*out = *base;
	snprintf(out->name, sizeof(out->name), "%.*s_%03lld", (int)(sizeof(out->name) - 12), base->name,
		 (long long)load_pct);
	out->nsweep = 0;
	for (size_t i = 0; i < out->ntraffic; i++)
		out->traffic[i].load_pct = load_pct;
}
