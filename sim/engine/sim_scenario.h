/*
 * sim_scenario.h - a simulation scenario, read from an INI file:
 *
 *   [scenario]
 *   name     = boundary      ; default: the file's base name
 *   limit    = 100           ; N, requests per window (per key)
 *   window   = 1s            ; W (durations: integer with ns, us, ms, s, m, h;
 *                            ; the unit is required)
 *   burst    = 100           ; B, bucket algorithms (default N)
 *   policy   = 10/1s+1000/1h ; instead of limit, window and burst: rules
 *                            ; N/W[:bB][:units] joined by '+' (policy.h), up
 *                            ; to RL_POLICY_MAX_RULES; every algorithm then
 *                            ; decides the policy (a request admitted iff
 *                            ; every rule admits its share: its cost on a
 *                            ; ':units' rule, else 1). The first rule is the
 *                            ; scenario's rule: load, bucket, count and the
 *                            ; breaker's defaults are of it. A ':units' rule
 *                            ; needs costs: every source gives cost = (a
 *                            ; replay source: cost =, or a COST on each of
 *                            ; its trace's lines)
 *   mode     = enforce       ; or shadow: each algorithm decides and keeps
 *                            ; its state exactly as enforcing, but every
 *                            ; request is admitted; the requests it would
 *                            ; have refused are counted (summary.csv's
 *                            ; would_reject, its last column). A rule with
 *                            ; no policy = is then a policy of that one rule
 *                            ; counting costs, decided as the rule alone
 *   duration = 20s           ; virtual time simulated, [0, duration); may be
 *                            ; left out when a source replays a trace: it is
 *                            ; then the traces' span (latest time + 1 ns)
 *   bucket   = 100ms         ; time-series bucket (default W / 10)
 *   seed     = 1             ; default 1; `ratelab sim --seed` overrides it
 *   algos    = all           ; or a comma list of algorithm names
 *   sweep    = 50,100,150    ; optional: one scenario NAME_050, NAME_100, ...
 *                            ; per value, each source's load set to it
 *   compare  = on            ; off: only the algorithm decides (no reference,
 *                            ; no per-key window tracking), for speed runs;
 *                            ; the comparison columns are then left empty
 *   [breaker]                ; the rate-limit circuit breaker run
 *   limit = 100  window = 1s  open = 1s      ; defaults N * keys (the sum of
 *                            ; the per-key quotas, at most 10^6), W, W
 *   [traffic NAME]           ; one section per source (up to SIM_MAX_TRAFFIC)
 *   type = constant | poisson | onoff | boundary | adversary | diurnal | replay
 *   load = 100               ; offered rate per key, percent of N per W
 *   keys = 1                 ; keys this source drives (its own, disjoint)
 *   zipf = 0                 ; Zipf exponent of key popularity; 0 = uniform
 *   start = 0s  stop = ...   ; active interval (default the whole run)
 *   on = 1s  off = 1s        ; onoff: mean ON and OFF sojourns
 *   period = 1m  amplitude = 50  ; diurnal: rate * (1 + amplitude% sin(2 pi t / period))
 *   count = N  gap = 1ns  every = 2  ; boundary: count per key at kW - gap
 *                            ; and count at kW, for k = every, 2 every, ...
 *   rounds = 6               ; adversary: attack rounds, one fresh key each
 *   file = trace.txt         ; replay: 'T KEY [COST]' lines (trace_line.h),
 *                            ; or settle lines 'T KEY COST ACTUAL DONE_T'
 *                            ; (sim_traffic.h: settled at DONE_T),
 *                            ; T ns, requests in the order they reach the
 *                            ; limiter (a time may go back: the limiter
 *                            ; clamps it per key); relative to the INI
 *                            ; file's directory; a line's COST (units,
 *                            ; 1..10^9) overrides the source's cost; lines
 *                            ; outside [start, stop) are left out and
 *                            ; counted (sim_traffic.h); none inside is an
 *                            ; error
 *   cost = constant 1        ; each request's cost in units (algo.h), drawn
 *                            ; per arrival from the source's own stream:
 *                            ;   constant C          every request costs C
 *                            ;   uniform LO HI       uniform integer in [LO, HI]
 *                            ;   pareto ALPHA MIN MAX  heavy-tailed: a Pareto
 *                            ;     of shape ALPHA (a decimal in (0, 10])
 *                            ;     truncated to [MIN, MAX], rounded down;
 *                            ;     P(cost >= x) ~ (MIN / x)^ALPHA
 *                            ; 1 <= C, LO <= HI, MIN <= MAX <= 10^9. The
 *                            ; rule then counts units (N units per W); load
 *                            ; still sets the rate of requests, so the
 *                            ; offered units are load% * N * the mean cost
 *                            ; per W. A retry costs what its request did.
 *                            ; The breaker counts requests, not units.
 *   client = none | polite | abusive ; what a rejected client does:
 *                            ; polite retries after retry_after_ns, abusive
 *                            ; after retry_gap, ignoring it
 *   max_retries = 3  retry_gap = W/100
 *
 * Work is capped so that a scenario that loads runs in bounded time and
 * memory: at most SIM_MAX_KEYS_ALL keys over all sources, and at most
 * SIM_MAX_REQUESTS requests per run (per algorithm), estimated from
 * the numbers above (keys * N * load% * active time / W per source, the
 * largest sweep load, diurnal at its peak, boundary 2 * count * keys per
 * attack, adversary 2 (B + 2N) per round, times 1 + max_retries for
 * clients that retry; replay traces count as read).
 *
 * A [traffic] key that its source's type does not read (load, keys or
 * zipf on a replay source, file on a poisson source, on / off but on
 * onoff, ... : the table in sim_scenario.c), max_retries without a
 * client, retry_gap but for an abusive client, and sweep with a replay
 * source (or no source with a load) are refused at the key's line.
 * A policy given with limit, window or burst (the tiers file's words:
 * "'policy' with 'limit' in [scenario]: policy = RULES replaces limit,
 * window and burst"), a bad policy ("policy: " and rl_policy_parse's
 * words: 9 rules, a bad rule), a ':units' rule with a source that gives
 * no cost = (but a replay source: its lines are checked when read) and
 * a mode other than enforce or shadow are refused at the key's line.
 * A key given twice in one section, a section other than [scenario],
 * [breaker] and [traffic NAME] (even with no keys), two sources of one
 * name, and a file whose base name (up to its first '.') is no valid
 * name when there is no `name =` are refused.
 *
 * Errors name the file and line: "FILE:LINE: message", the first error's.
 */
#ifndef RATELAB_SIM_SCENARIO_H
#define RATELAB_SIM_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ratelab/policy.h"
#include "ratelab/rule.h"

#define SIM_MAX_TRAFFIC 8
#define SIM_MAX_SWEEP 32
#define SIM_NAME_MAX 64
#define SIM_PATH_MAX 512
#define SIM_MAX_KEYS_ALL 20000000LL    /* keys over all sources */
#define SIM_MAX_REQUESTS 2000000000LL  /* estimated requests per run */

enum sim_traffic_type {
	SIM_TRAFFIC_UNSET = -1, /* not given: only while loading (a loaded source has a type) */
	SIM_TRAFFIC_CONSTANT,
	SIM_TRAFFIC_POISSON,
	SIM_TRAFFIC_ONOFF,
	SIM_TRAFFIC_BOUNDARY,
	SIM_TRAFFIC_ADVERSARY,
	SIM_TRAFFIC_DIURNAL,
	SIM_TRAFFIC_REPLAY,
};

enum sim_client { SIM_CLIENT_NONE, SIM_CLIENT_POLITE, SIM_CLIENT_ABUSIVE };

enum sim_cost_kind { SIM_COST_CONSTANT, SIM_COST_UNIFORM, SIM_COST_PARETO };

struct sim_traffic_spec {
	char name[SIM_NAME_MAX];
	enum sim_traffic_type type;
	int64_t load_pct;      /* offered rate per key, percent of N per W */
	int64_t keys;          /* keys driven by this source */
	double zipf;           /* key popularity exponent; 0 = uniform */
	int64_t start_ns;      /* first instant the source may send, ns */
	int64_t stop_ns;       /* sends only before this, ns (<= duration) */
	int64_t on_ns, off_ns; /* onoff: mean sojourns, ns */
	int64_t period_ns;     /* diurnal: period, ns */
	int64_t amplitude_pct; /* diurnal: 0..100 */
	int64_t count;         /* boundary: requests per key per side */
	int64_t gap_ns;        /* boundary: how far before kW the first side is, ns */
	int64_t every;         /* boundary: windows between attacks */
	int64_t rounds;        /* adversary: attack rounds */
	char file[SIM_PATH_MAX]; /* replay: resolved path */
	enum sim_client client;
	int64_t max_retries;   /* retries per rejected request */
	int64_t retry_gap_ns;  /* abusive: wait before retrying, ns */
	enum sim_cost_kind cost_kind;
	int64_t cost_min;      /* units: constant C, uniform LO, pareto MIN */
	int64_t cost_max;      /* units: constant C, uniform HI, pareto MAX */
	double cost_alpha;     /* pareto: shape */
	bool cost_given;       /* cost = was given (a ':units' policy rule needs costs) */
	int line;              /* line of the section's first key (its header if none), for messages */
};

struct sim_scenario {
	char name[SIM_NAME_MAX];
	char file[SIM_PATH_MAX];
	struct rl_rule rule;   /* the rule, or the policy's first rule */
	/* policy = P (policy.count >= 1), or count 0: the one rule decides. With
	 * shadow and no policy =, the rule as a policy of one ':units' rule
	 * (sim_scenario_policy) */
	struct rl_policy policy;
	bool shadow;           /* mode = shadow */
	int64_t duration_ns;
	int64_t bucket_ns;
	uint64_t seed;
	bool compare;          /* measure against the reference (default); false: verdicts only */
	unsigned algo_mask;    /* bit i: rl_algo_all()[i] is simulated */
	int64_t breaker_limit;  /* 0: N * keys, capped at RL_BREAKER_LIMIT_MAX */
	int64_t breaker_window_ns;
	int64_t breaker_open_ns;
	size_t ntraffic;
	struct sim_traffic_spec traffic[SIM_MAX_TRAFFIC];
	size_t nsweep;
	int64_t sweep_pct[SIM_MAX_SWEEP];
};

/*
 * Reads and validates a scenario. RL_OK, or RL_EINVAL with "FILE:LINE:
 * message" in msg (line 0 when the file cannot be opened).
 */
int sim_scenario_load(const char *path, struct sim_scenario *sc, char *msg, size_t msg_len);

/*
 * The scenario's sweep expanded: *out receives base with every source's
 * load set to load_pct, named "NAME_%03d", and no sweep.
 */
void sim_scenario_at_load(const struct sim_scenario *base, int64_t load_pct, struct sim_scenario *out);

const char *sim_traffic_type_name(enum sim_traffic_type t);

/*
 * Whether the algorithms decide through a policy limiter (policy.h): a
 * policy = was given, or mode = shadow. *out (may be NULL) receives the
 * policy: policy =, or the one rule counting costs (decided exactly as
 * the rule alone, policy.h).
 */
bool sim_scenario_policy(const struct sim_scenario *sc, struct rl_policy *out);

#endif
