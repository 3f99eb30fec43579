/*
 * redis_bench.c - the Redis backend measured against a local redis-server
 * (bench/redis/run.sh starts it), beside what it is compared with on the
 * same server in the same run: every algorithm's ratelab script, the
 * reference plain GCRA script (bench/redis/plain_gcra.lua: doubles, one GET
 * and one SET), and, when the server has the ratelab module loaded,
 * RATELAB.CHECK for every algorithm. A ratelab subject's commands are the
 * backend's own (rl__redis_request_argv of a backend kept to the scripts,
 * and of one using the module).
 *
 * For each subject: one client deciding requests on 1000 keys, the time
 * passed by the caller in epoch ns (CLOCK_REALTIME at the start, advancing
 * 1 us per request), with 1, 10 and 100 requests in flight on one
 * connection (a request sent for each reply taken, so that the client
 * makes its next commands while the server works): decisions per second
 * and the round trip's p50/p99 (us, a request's command made to its reply
 * taken); the server's time per decision (us) at 100 in flight, from INFO
 * commandstats (the top-level command's usec per call: a script's time
 * includes the calls it makes), and its CPU (used_cpu_user + used_cpu_sys)
 * per decision; both are the median of ROUNDS runs, the subjects
 * interleaved, so that a neighbour's load on the machine falls on all of
 * them alike. The same rounds time two stages of a script: the script
 * "return 1" and lib.lua followed by "return 1" (the functions every
 * ratelab script makes and its arguments read), called with a script's
 * arguments. Then the bytes one key holds in Redis (MEMORY USAGE of its
 * keys after one admitted request, averaged over 200 keys), and exactness:
 * one seeded trace (3 keys, epoch-ns times, steps around the rule's
 * emission interval, a tenth of the requests of cost 2 to 4) replayed
 * through the subject (through rl_redis_check_batch for ratelab's) and
 * compared decision by decision with the in-process algorithm of the same
 * rule: the decisions whose verdict differs, those where any field
 * (remaining, retry_after_ns, reset_ns, delay_ns) differs, and the first
 * such as an example. Last, the CPU cost of each primitive a script is
 * made of (a redis.call of each command the scripts use, string and number
 * conversions, a closure, a table), each timed in a loop inside one EVAL.
 * Writes one JSON object to stdout.
 *
 *   ratelab_redis_bench PORT SECONDS_PER_RUN PLAIN_LUA LIB_LUA CEIL_1 CEIL_10 CEIL_100
 *
 * CEIL_k: redis-benchmark's EVALSHA rate of a trivial script with
 * pipeline k in the same run (one client), copied into the JSON.
 */
#define _POSIX_C_SOURCE 200809L

#include <hiredis/hiredis.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ratelab/redis.h"
#include "redis_argv.h"

enum { KEYS = 1000, MEM_KEYS = 200, MAX_BATCH = 100, ROUNDS = 5, TRACE = 3000, TRACE_KEYS = 3 };
enum kind { SCRIPT, PLAIN, MODULE };

static const char *const kind_name[] = { "script", "plain", "module" };

struct subject {
	char name[64];
	enum kind kind;
	const struct rl_algo *algo; /* the in-process algorithm of the same rule */
	struct rl_limiter lim;
	struct rl_redis_rule rr;
	char sha[41]; /* the script a PLAIN subject runs */
	double server_us[ROUNDS], cpu_us[ROUNDS];
};

struct bench {
	redisContext *c;
	struct rl_redis *r;  /* the scripts */
	struct rl_redis *rm; /* the module, when the server has it (else NULL) */
	int run_id;          /* a fresh key prefix per run */
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double pct(double *v, size_t n, double p)
{
	size_t i = (size_t)(p * (double)(n - 1) + 0.5);

	return n ? v[i] : 0;
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n ? v[n / 2] : 0;
}

static int64_t parse_i64(const redisReply *e)
{
	if (e->type == REDIS_REPLY_INTEGER)
		return e->integer;
	if (e->type == REDIS_REPLY_STRING)
		return strtoll(e->str, NULL, 10);
	return 0;
}

/* One answer in the scripts' shape {verdict, remaining, retry, reset, delay}. */
static void take(const redisReply *rep, struct rl_redis_answer *a)
{
	memset(a, 0, sizeof(*a));
	if (!rep || rep->type != REDIS_REPLY_ARRAY || rep->elements != 5) {
		a->rc = RL_EREDIS;
		if (rep && rep->type == REDIS_REPLY_ERROR)
			fprintf(stderr, "ratelab_redis_bench: %s\n", rep->str);
		return;
	}
	a->rc = parse_i64(rep->element[0]) ? RL_ALLOWED : RL_REJECTED;
	a->d.remaining = parse_i64(rep->element[1]);
	a->d.retry_after_ns = parse_i64(rep->element[2]);
	a->d.reset_ns = parse_i64(rep->element[3]);
	a->d.delay_ns = parse_i64(rep->element[4]);
}

/* One request's command for subject s, as the backend (or the plain script's caller) sends it. */
static void command(struct bench *b, const struct subject *s, const struct rl_redis_req *q, struct rl__redis_cmd *c)
{
	if (s->kind != PLAIN) {
		rl__redis_request_argv(s->kind == MODULE ? b->rm : b->r, q, c);
		return;
	}
	const struct rl_rule *rule = &s->lim.rule;
	const int64_t num[5] = { q->now_ns, rule->limit, rule->window_ns, rule->burst, q->cost ? q->cost : 1 };

	c->argc = 0;
	c->argv[c->argc] = "EVALSHA", c->len[c->argc++] = 7;
	c->argv[c->argc] = s->sha, c->len[c->argc++] = 40;
	c->argv[c->argc] = "1", c->len[c->argc++] = 1;
	c->argv[c->argc] = q->key, c->len[c->argc++] = q->key_len;
	for (int i = 0; i < 5; i++) {
		c->len[c->argc] = rl__redis_decimal(c->num[i], num[i]); /* as the backend writes its numbers */
		c->argv[c->argc++] = c->num[i];
		if (i == 3)
			c->argv[c->argc] = "3600000", c->len[c->argc++] = 7; /* the TTL grace, ms */
	}
	c->key = 3;
}

/* One pipelined round trip deciding q[0..n) through s (keys under prefix); false on a broken connection. */
static bool decide(struct bench *b, struct subject *s, const char *prefix, struct rl_redis_req *q, size_t n,
		   struct rl_redis_answer *a)
{
	char keys[MAX_BATCH][96];
	struct rl_redis_req p[MAX_BATCH];

	for (size_t i = 0; i < n; i++) {
		p[i] = q[i];
		p[i].key = keys[i];
		p[i].key_len = (size_t)snprintf(keys[i], sizeof(keys[i]), "%s%.*s", prefix, (int)q[i].key_len, q[i].key);
	}
	if (s->kind != PLAIN)
		return rl_redis_check_batch(s->kind == MODULE ? b->rm : b->r, p, n, a) == RL_OK;
	for (size_t i = 0; i < n; i++) {
		struct rl__redis_cmd c;
		command(b, s, &p[i], &c);
		if (rl__redis_append(b->c, c.argc, c.argv, c.len) != REDIS_OK)
			return false;
	}
	for (size_t i = 0; i < n; i++) {
		redisReply *rep;
		if (redisGetReply(b->c, (void **)&rep) != REDIS_OK)
			return false;
		take(rep, &a[i]);
		freeReplyObject(rep);
	}
	return true;
}

static redisReply *cmd(struct bench *b, const char *fmt, const char *arg)
{
	redisReply *rep = redisCommand(b->c, fmt, arg);
	if (!rep) {
		fprintf(stderr, "ratelab_redis_bench: the connection broke\n");
		exit(1);
	}
	return rep;
}

/* The value after "name:" (or "name=" inside a line) in an INFO reply, or 0. */
static double info_field(const char *info, const char *name)
{
	const char *p = strstr(info, name);
	return p ? atof(p + strlen(name)) : 0;
}

struct server_clock {
	double calls, usec, cpu;
};

/* The server's counters for s's top-level command. */
static struct server_clock server_clock(struct bench *b, const struct subject *s)
{
	redisReply *st = cmd(b, "INFO %s", "commandstats"), *cpu = cmd(b, "INFO %s", "cpu");
	const char *line = s->kind == MODULE ? "cmdstat_ratelab.check:" : "cmdstat_evalsha:";
	struct server_clock k = { 0, 0, 0 };
	const char *p = st->str ? strstr(st->str, line) : NULL;

	if (p) {
		k.calls = info_field(p, "calls=");
		k.usec = info_field(p, "usec=");
	}
	if (cpu->str)
		k.cpu = info_field(cpu->str, "used_cpu_user:") + info_field(cpu->str, "used_cpu_sys:");
	freeReplyObject(st);
	freeReplyObject(cpu);
	return k;
}

/*
 * Appends subject s's command for one request on key (the time advanced
 * 1 us) to the bench's connection.
 */
static void append(struct bench *b, const struct subject *s, const char *key, int64_t *t)
{
	struct rl__redis_cmd c;

	*t += 1000;
	const struct rl_redis_req q = { &s->rr, key, strlen(key), *t, 1 };
	command(b, s, &q, &c);
	if (rl__redis_append(b->c, c.argc, c.argv, c.len) != REDIS_OK) {
		fprintf(stderr, "ratelab_redis_bench: %s: out of memory\n", s->name);
		exit(1);
	}
}

/*
 * One run of about secs seconds with k requests in flight: k commands
 * sent, then one more for each reply taken (hiredis writes what is queued
 * before it waits to read), so the client makes the next commands while
 * the server works on the earlier ones. The round trip of a request runs
 * from its command made to its reply taken.
 */
static void run(struct bench *b, struct subject *s, int k, double secs, int64_t *t, int round, bool print)
{
	static char keys[KEYS][96];
	size_t cap = 1 << 22, n = 0, sent = 0, undecided = 0;
	double *lat = malloc(cap * sizeof(*lat)), at[MAX_BATCH];

	if (!lat) {
		fputs("ratelab_redis_bench: out of memory\n", stderr);
		exit(1);
	}
	for (int i = 0; i < KEYS; i++)
		snprintf(keys[i], sizeof(keys[i]), "b%d:%s:%d", b->run_id, s->name, i);
	b->run_id++;
	freeReplyObject(cmd(b, "CONFIG RESETSTAT%s", ""));
	struct server_clock k0 = server_clock(b, s);
	double start = now_s(), end = start + secs, t1 = start;
	for (; sent < (size_t)k; sent++) {
		at[sent % (size_t)k] = now_s();
		append(b, s, keys[sent % KEYS], t);
	}
	for (size_t got = 0; got < sent; got++) {
		redisReply *rep;
		struct rl_redis_answer a;
		if (redisGetReply(b->c, (void **)&rep) != REDIS_OK) {
			fprintf(stderr, "ratelab_redis_bench: %s: the connection broke\n", s->name);
			exit(1);
		}
		t1 = now_s();
		take(rep, &a);
		freeReplyObject(rep);
		undecided += a.rc < 0;
		if (n < cap)
			lat[n++] = (t1 - at[got % (size_t)k]) * 1e6;
		if (t1 < end) {
			at[sent % (size_t)k] = t1;
			append(b, s, keys[sent % KEYS], t);
			sent++;
		}
	}
	struct server_clock k1 = server_clock(b, s);
	double calls = k1.calls - k0.calls;
	if (round >= 0) {
		s->server_us[round] = calls > 0 ? (k1.usec - k0.usec) / calls : 0;
		s->cpu_us[round] = sent ? (k1.cpu - k0.cpu) * 1e6 / (double)sent : 0;
	}
	qsort(lat, n, sizeof(*lat), cmp_double);
	if (print)
		printf("\"batch_%d\": {\"decisions_per_s\": %.1f, \"round_trips\": %zu, \"p50_us\": %.2f, "
		       "\"p99_us\": %.2f, \"not_decided\": %zu}, ",
		       k, (double)sent / (t1 - start), n, pct(lat, n, 0.5), pct(lat, n, 0.99), undecided);
	free(lat);
}

static double bytes_per_key(struct bench *b, struct subject *s, int64_t t)
{
	char prefix[80];
	double sum = 0;

	snprintf(prefix, sizeof(prefix), "mem:%s:", s->name);
	for (int k = 0; k < MEM_KEYS; k++) {
		char key[16];
		struct rl_redis_req q = { &s->rr, key, (size_t)snprintf(key, sizeof(key), "%d", k), t, 1 };
		struct rl_redis_answer a;
		if (!decide(b, s, prefix, &q, 1, &a))
			return 0;
	}
	/* every key the run made: the scripts' hash (and list), the plain script's and the module's string */
	redisReply *ks = cmd(b, "KEYS *mem:%s:*", s->name);
	for (size_t i = 0; ks->type == REDIS_REPLY_ARRAY && i < ks->elements; i++) {
		redisReply *rep = redisCommand(b->c, "MEMORY USAGE %s SAMPLES 0", ks->element[i]->str);
		if (rep && rep->type == REDIS_REPLY_INTEGER)
			sum += (double)rep->integer;
		if (rep)
			freeReplyObject(rep);
	}
	freeReplyObject(ks);
	return sum / MEM_KEYS;
}

static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++)
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else
			putchar(*s);
	putchar('"');
}

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/*
 * The seeded trace replayed through s in batches of 10 and compared with
 * the in-process algorithm of s's rule: prints the "exact" object.
 */
static void exactness(struct bench *b, struct subject *s, int64_t t0)
{
	static const char *const keys[TRACE_KEYS] = { "a", "b", "c" };
	void *st[TRACE_KEYS];
	uint64_t seed = 0x5eed33;
	int64_t t = t0, gap = s->lim.rule.window_ns / s->lim.rule.limit;
	size_t verdicts = 0, fields = 0;
	char example[512] = "";
	char prefix[80];

	snprintf(prefix, sizeof(prefix), "x%d:%s:", b->run_id++, s->name);
	for (int k = 0; k < TRACE_KEYS; k++)
		st[k] = calloc(1, s->algo->state_size);
	for (int done = 0; done < TRACE; done += 10) {
		struct rl_redis_req q[10];
		struct rl_redis_answer a[10];
		struct rl_decision want[10];
		int wrc[10];
		for (int i = 0; i < 10; i++) {
			t += (int64_t)(splitmix(&seed) % (uint64_t)(2 * gap + 2)) / TRACE_KEYS;
			int k = (int)(splitmix(&seed) % TRACE_KEYS);
			int64_t cost = splitmix(&seed) % 10 == 0 ? 2 + (int64_t)(splitmix(&seed) % 3) : 1;
			q[i] = (struct rl_redis_req){ &s->rr, keys[k], 1, t, cost };
			memset(&want[i], 0, sizeof(want[i]));
			wrc[i] = rl_limiter_check_n(&s->lim, st[k], t, cost, &want[i]);
		}
		if (!decide(b, s, prefix, q, 10, a))
			break;
		for (int i = 0; i < 10; i++) {
			const struct rl_decision *g = &a[i].d, *w = &want[i];
			bool verdict = a[i].rc != wrc[i];
			bool field = g->remaining != w->remaining || g->retry_after_ns != w->retry_after_ns ||
				     g->reset_ns != w->reset_ns || g->delay_ns != w->delay_ns;
			verdicts += verdict;
			fields += verdict || field;
			if ((verdict || field) && !example[0])
				snprintf(example, sizeof(example),
					 "request %d, key %s, t=%" PRId64 " ns, cost %" PRId64 ": got verdict %d remaining %" PRId64
					 " retry_after_ns %" PRId64 " reset_ns %" PRId64 ", in-process verdict %d remaining %" PRId64
					 " retry_after_ns %" PRId64 " reset_ns %" PRId64,
					 done + i, q[i].key, q[i].now_ns, q[i].cost, a[i].rc, g->remaining, g->retry_after_ns,
					 g->reset_ns, wrc[i], w->remaining, w->retry_after_ns, w->reset_ns);
		}
	}
	for (int k = 0; k < TRACE_KEYS; k++) {
		rl_limiter_release(&s->lim, st[k]);
		free(st[k]);
	}
	printf("\"exact\": {\"requests\": %d, \"verdicts_differ\": %zu, \"answers_differ\": %zu, \"example\": ", TRACE,
	       verdicts, fields);
	json_str(example);
	printf("}");
}

/*
 * Where a script's time goes: each primitive run PROBE_LOOP times inside one
 * EVAL (KEYS[1] a string key, KEYS[2] a hash key, ARGV[1] an epoch-ns
 * time), the server's CPU (INFO cpu) per iteration in ns, the empty loop's
 * subtracted. Prints the "costs" array.
 */
static void probes(struct bench *b, int64_t t)
{
	static const char *const what[][2] = {
		{ "GET of a string key", "redis.call('GET', KEYS[1])" },
		{ "SET of a string key with PX", "redis.call('SET', KEYS[1], ARGV[1], 'PX', 60000)" },
		{ "HMGET of 3 fields", "redis.call('HMGET', KEYS[2], 'alg', 'last', 'tat')" },
		{ "HSET of 3 fields", "redis.call('HSET', KEYS[2], 'alg', 'gcra', 'last', ARGV[1], 'tat', ARGV[1])" },
		{ "PEXPIRE", "redis.call('PEXPIRE', KEYS[2], 60000)" },
		{ "a 19-digit string to a number (s + 0)", "local x = ARGV[1] + 0" },
		{ "a number to a string (string.format '%d')", "local s = string.format('%d', i)" },
		{ "a closure made (one upvalue)", "local f = function() return i end" },
		{ "a table of 5", "local v = { i, 'a', 'b', 'c', 'd' }" },
	};
	enum { PROBE_LOOP = 20000 };
	char tbuf[24], script[512];
	double base = 0;

	snprintf(tbuf, sizeof(tbuf), "%lld", (long long)t);
	printf(",\n \"costs\": [");
	for (int i = -1; i < (int)(sizeof(what) / sizeof(what[0])); i++) {
		snprintf(script, sizeof(script), "for i = 1, %d do %s end return 1", PROBE_LOOP, i < 0 ? "" : what[i][1]);
		redisReply *c0 = cmd(b, "INFO %s", "cpu");
		redisReply *rep = redisCommand(b->c, "EVAL %s 2 probe:s probe:h %s", script, tbuf);
		redisReply *c1 = cmd(b, "INFO %s", "cpu");
		double cpu0 = info_field(c0->str, "used_cpu_user:") + info_field(c0->str, "used_cpu_sys:");
		double cpu1 = info_field(c1->str, "used_cpu_user:") + info_field(c1->str, "used_cpu_sys:");
		double ns = (cpu1 - cpu0) * 1e9 / PROBE_LOOP;
		if (rep)
			freeReplyObject(rep);
		freeReplyObject(c0);
		freeReplyObject(c1);
		if (i < 0) {
			base = ns;
			continue;
		}
		printf("%s\n  {\"what\": ", i ? "," : "");
		json_str(what[i][0]);
		printf(", \"ns\": %.0f}", ns - base);
	}
	printf("\n ]");
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	static char buf[1 << 16];
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

	if (f)
		fclose(f);
	buf[n] = '\0';
	return n ? buf : NULL;
}

/*
 * Loads the script made of path's text (none when NULL) and then tail
 * into the server's script cache, its SHA1 into sha; false after saying
 * why.
 */
static bool load(struct bench *b, const char *path, const char *tail, char sha[41])
{
	const char *text = path ? slurp(path) : "";
	if (!text) {
		fprintf(stderr, "ratelab_redis_bench: cannot read %s\n", path);
		return false;
	}
	redisReply *rep = redisCommand(b->c, "SCRIPT LOAD %s%s", text, tail);
	bool ok = rep && rep->type == REDIS_REPLY_STRING && rep->len == 40;
	if (ok)
		memcpy(sha, rep->str, 41);
	else
		fprintf(stderr, "ratelab_redis_bench: SCRIPT LOAD of %s failed\n", path ? path : tail);
	if (rep)
		freeReplyObject(rep);
	return ok;
}

static bool has_module(struct bench *b)
{
	redisReply *rep = redisCommand(b->c, "COMMAND INFO ratelab.check");
	bool yes = rep && rep->type == REDIS_REPLY_ARRAY && rep->elements == 1 &&
		   rep->element[0]->type == REDIS_REPLY_ARRAY;
	if (rep)
		freeReplyObject(rep);
	return yes;
}

int main(int argc, char **argv)
{
	if (argc != 8) {
		fputs("usage: ratelab_redis_bench PORT SECONDS PLAIN_LUA LIB_LUA CEIL_1 CEIL_10 CEIL_100\n", stderr);
		return 2;
	}
	int port = atoi(argv[1]);
	double secs = atof(argv[2]);
	struct rl_redis_config cfg = {
		.port = port, .command_timeout_ms = 10000, .ttl_grace_ms = 3600000, .scripts_only = true
	};
	struct timeval tv = { 10, 0 };
	struct bench b = { redisConnectWithTimeout("127.0.0.1", port, tv), NULL, NULL, 0 };
	size_t count;
	const struct rl_algo *const *all = rl_algo_all(&count);
	struct timespec rt;
	static struct subject subj[32], stage[2];
	size_t ns = 0;

	if (!b.c || b.c->err || rl_redis_create(&b.r, &cfg, NULL, 0)) {
		fprintf(stderr, "ratelab_redis_bench: cannot connect to 127.0.0.1:%d\n", port);
		return 1;
	}
	subj[ns] = (struct subject){ .name = "plain GCRA script", .kind = PLAIN, .algo = &rl_gcra_algo };
	stage[0] = (struct subject){ .name = "return 1", .kind = PLAIN, .algo = &rl_gcra_algo };
	stage[1] = (struct subject){ .name = "lib.lua, return 1", .kind = PLAIN, .algo = &rl_gcra_algo };
	if (!load(&b, argv[3], "", subj[ns].sha) || !load(&b, NULL, "return 1", stage[0].sha) ||
	    !load(&b, argv[4], "return 1", stage[1].sha))
		return 1;
	struct subject plain_subject = subj[ns];
	bool module = has_module(&b);
	if (module) {
		cfg.scripts_only = false;
		if (rl_redis_create(&b.rm, &cfg, NULL, 0) != RL_OK) {
			fprintf(stderr, "ratelab_redis_bench: cannot connect to 127.0.0.1:%d\n", port);
			return 1;
		}
	}
	for (int k = 0; k < (module ? 2 : 1); k++)
		for (size_t i = 0; i < count; i++) {
			struct subject *s = &subj[ns++];
			snprintf(s->name, sizeof(s->name), "%s%s", k ? "module " : "", all[i]->name);
			s->kind = k ? MODULE : SCRIPT;
			s->algo = all[i];
		}
	subj[ns++] = plain_subject;
	for (size_t i = 0; i < ns + 2; i++) {
		struct subject *s = i < ns ? &subj[i] : &stage[i - ns];
		struct rl_rule rule = { 1000, 1000000000, 1000 }; /* 1000 per second */
		rl_limiter_init(&s->lim, s->algo, &rule, NULL, 0);
		s->rr = (struct rl_redis_rule){ &s->lim, false, 0 };
	}
	clock_gettime(CLOCK_REALTIME, &rt);
	int64_t t = (int64_t)rt.tv_sec * 1000000000 + rt.tv_nsec, t0 = t;
	/* one decision each first: the backends connect (scripts loaded, the module found) on first use */
	for (size_t i = 0; i < ns; i++) {
		struct rl_redis_req q = { &subj[i].rr, subj[i].name, strlen(subj[i].name), t, 1 };
		struct rl_redis_answer a;
		if (!decide(&b, &subj[i], "warm:", &q, 1, &a) || a.rc < 0) {
			fprintf(stderr, "ratelab_redis_bench: %s: no decision (%s)\n", subj[i].name,
				rl_redis_error(subj[i].kind == MODULE ? b.rm : b.r));
			return 1;
		}
	}
	struct rl_redis_stats st;
	if (b.rm && (rl_redis_stats(b.rm, &st), !st.module)) {
		fputs("ratelab_redis_bench: the module's subjects were decided by the scripts\n", stderr);
		return 1;
	}
	/* the server's time per decision: rounds of 100 in flight, the subjects (and stages) interleaved */
	for (int round = 0; round < ROUNDS; round++)
		for (size_t i = 0; i < ns + 2; i++)
			run(&b, i < ns ? &subj[i] : &stage[i - ns], 100, secs / 2, &t, round, false);
	printf("{\"ceiling_evalsha_per_s\": {\"batch_1\": %s, \"batch_10\": %s, \"batch_100\": %s},\n"
	       " \"module\": %s, \"rule\": \"1000 per second, burst 1000\",\n"
	       " \"stages_us\": {\"return_1\": %.3f, \"lib\": %.3f},\n \"subjects\": [",
	       argv[5], argv[6], argv[7], module ? "true" : "false", median(stage[0].server_us, ROUNDS),
	       median(stage[1].server_us, ROUNDS));
	for (size_t i = 0; i < ns; i++) {
		struct subject *s = &subj[i];
		printf("%s\n  {\"name\": ", i ? "," : "");
		json_str(s->name);
		printf(", \"kind\": \"%s\", \"algo\": \"%s\", ", kind_name[s->kind], s->algo->name);
		for (int batch = 1; batch <= 100; batch *= 10)
			run(&b, s, batch, secs, &t, -1, true);
		printf("\"server_us\": %.3f, \"server_cpu_us\": %.3f, ", median(s->server_us, ROUNDS),
		       median(s->cpu_us, ROUNDS));
		printf("\"bytes_per_key\": %.1f, ", bytes_per_key(&b, s, t));
		exactness(&b, s, t0);
		printf("}");
	}
	printf("\n ]");
	probes(&b, t);
	printf("}\n");
	rl_redis_destroy(b.r);
	rl_redis_destroy(b.rm);
	redisFree(b.c);
	return 0;
}
