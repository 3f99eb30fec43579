/*
 * redis_bench.c - the Redis backend measured against a local redis-server
 * (bench/redis/run.sh starts it): for every algorithm, one client deciding
 * requests on 1000 keys (caller-passed time, advancing 1 us per request)
 * in pipelined batches of 1, 10 and 100: decisions per second, and the
 * latency of each round trip (p50, p99; per decision for batch 1); then
 * the bytes one key holds inside Redis (MEMORY USAGE of its hash, plus its
 * list for sliding_log, after one admitted request), averaged over 200
 * keys. Writes one JSON object to stdout.
 *
 *   ratelab_redis_bench PORT SECONDS_PER_RUN CEIL_1 CEIL_10 CEIL_100
 *
 * CEIL_k: redis-benchmark's EVALSHA rate of a trivial script with
 * pipeline k in the same run (one client), copied into the JSON.
 */
#define _POSIX_C_SOURCE 200809L

#include <hiredis/hiredis.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ratelab/redis.h"

enum { KEYS = 1000, MEM_KEYS = 200, MAX_BATCH = 100 };

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

/* One run: batches of size batch for about secs seconds. */
static void run(struct rl_redis *r, const struct rl_redis_rule *rule, const char *algo, int batch,
		double secs, int64_t *t)
{
	static struct rl_redis_req q[MAX_BATCH];
	static struct rl_redis_answer a[MAX_BATCH];
	static char keys[KEYS][32];
	size_t cap = 1 << 20, n = 0, decisions = 0, fallbacks = 0;
	double *lat = malloc(cap * sizeof(*lat));

	for (int k = 0; k < KEYS; k++)
		snprintf(keys[k], sizeof(keys[k]), "b%d:%s:%d", batch, algo, k);
	double start = now_s(), end = start + secs, t1 = start;
	while (t1 < end && lat) {
		for (int i = 0; i < batch; i++) {
			const char *key = keys[(decisions + (size_t)i) % KEYS];
			*t += 1000;
			q[i] = (struct rl_redis_req){ rule, key, strlen(key), *t };
		}
		double t0 = now_s();
		if (rl_redis_check_batch(r, q, (size_t)batch, a) != RL_OK)
			break;
		t1 = now_s();
		for (int i = 0; i < batch; i++)
			fallbacks += a[i].fallback || a[i].rc < 0;
		if (n < cap)
			lat[n++] = (t1 - t0) * 1e6;
		decisions += (size_t)batch;
	}
	qsort(lat, n, sizeof(*lat), cmp_double);
	printf("\"batch_%d\": {\"decisions_per_s\": %.1f, \"round_trips\": %zu, \"p50_us\": %.2f, "
	       "\"p99_us\": %.2f, \"not_decided\": %zu}",
	       batch, (double)decisions / (t1 - start), n, pct(lat, n, 0.5), pct(lat, n, 0.99), fallbacks);
	free(lat);
}

static double bytes_per_key(redisContext *c, const char *algo)
{
	double sum = 0;

	for (int k = 0; k < MEM_KEYS; k++) {
		char key[64];
		snprintf(key, sizeof(key), "rl:{mem:%s:%d}", algo, k);
		for (int part = 0; part < 2; part++) {
			redisReply *rep = redisCommand(c, part ? "MEMORY USAGE %s:l SAMPLES 0" : "MEMORY USAGE %s SAMPLES 0", key);
			if (rep && rep->type == REDIS_REPLY_INTEGER)
				sum += (double)rep->integer;
			if (rep)
				freeReplyObject(rep);
		}
	}
	return sum / MEM_KEYS;
}

int main(int argc, char **argv)
{
	if (argc != 6) {
		fputs("usage: ratelab_redis_bench PORT SECONDS CEIL_1 CEIL_10 CEIL_100\n", stderr);
		return 2;
	}
	int port = atoi(argv[1]);
	double secs = atof(argv[2]);
	struct rl_redis_config cfg = { .port = port, .command_timeout_ms = 10000, .ttl_grace_ms = 3600000 };
	struct rl_redis *r;
	struct timeval tv = { 10, 0 };
	redisContext *c = redisConnectWithTimeout("127.0.0.1", port, tv);
	size_t count;
	const struct rl_algo *const *all = rl_algo_all(&count);
	int64_t t = 1000000000000LL;

	if (!c || c->err || rl_redis_create(&r, &cfg, NULL, 0)) {
		fprintf(stderr, "ratelab_redis_bench: cannot connect to 127.0.0.1:%d\n", port);
		return 1;
	}
	printf("{\"ceiling_evalsha_per_s\": {\"batch_1\": %s, \"batch_10\": %s, \"batch_100\": %s},\n \"algos\": [",
	       argv[3], argv[4], argv[5]);
	for (size_t i = 0; i < count; i++) {
		struct rl_limiter lim;
		struct rl_rule rule = { 1000, 1000000000, 1000 }; /* 1000 per second */
		rl_limiter_init(&lim, all[i], &rule, NULL, 0);
		struct rl_redis_rule rr = { &lim, false, 0 };
		printf("%s\n  {\"name\": \"%s\", ", i ? "," : "", all[i]->name);
		run(r, &rr, all[i]->name, 1, secs, &t);
		printf(", ");
		run(r, &rr, all[i]->name, 10, secs, &t);
		printf(", ");
		run(r, &rr, all[i]->name, 100, secs, &t);
		for (int k = 0; k < MEM_KEYS; k++) {
			char key[64];
			snprintf(key, sizeof(key), "mem:%s:%d", all[i]->name, k);
			rl_redis_check(r, &rr, key, strlen(key), t, NULL);
		}
		printf(", \"bytes_per_key\": %.1f}", bytes_per_key(c, all[i]->name));
	}
	printf("\n ]}\n");
	rl_redis_destroy(r);
	redisFree(c);
	return 0;
}
