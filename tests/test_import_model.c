/*
 * test_import_model.c - the importer end to end (import.h) against a slow,
 * obviously correct model, on seeded random combined logs: random
 * instants written in random UTC offsets (gmtime() of the local time, an
 * independent calendar), IPv4 and IPv6 clients, users, paths with query
 * strings, sizes or '-', lines out of order with many ties, some garbage
 * lines; random --key, --spread, --absolute. The model: the good lines'
 * (time, input position, key), sorted by qsort on both, spread from the
 * definition, made relative. The seed is printed on failure.
 */
#define _DEFAULT_SOURCE /* gmtime_r */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "import.h"

static uint64_t rng(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

struct want {
	int64_t t_ns;
	size_t at; /* input position: the tie-break of a stable sort */
	char key[96];
};

static int by_time_then_position(const void *a, const void *b)
{
	const struct want *x = a, *y = b;
	if (x->t_ns != y->t_ns)
		return x->t_ns < y->t_ns ? -1 : 1;
	return x->at < y->at ? -1 : x->at > y->at;
}

static void random_logs_against_model(void **u)
{
	(void)u;
	static const char *const months[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
					      "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
	static const char *const hosts[] = { "10.0.0.1", "192.168.7.42", "2001:db8::1", "::1",
					     "fe80::1:2:3:4", "203.0.113.9" };
	static const char *const users[] = { "-", "alice", "bob" };
	static const char *const paths[] = { "/", "/api/users", "/api/users?id=7", "/static/a.js?v=1&x=2" };
	static const char *const keys[] = { "ip", "user", "path", "ip+path" };
	uint64_t seed = (uint64_t)time(NULL), s = seed;
	char path[64];
	FILE *err = fopen("/dev/null", "w");

	assert_non_null(err);
	snprintf(path, sizeof(path), "/tmp/test_import_model_%ld.log", (long)getpid());
	for (int rep = 0; rep < 60; rep++) {
		size_t n = 1 + rng(&s) % 1500, good = 0;
		struct want *w = calloc(n, sizeof(*w));
		int64_t base = 946684800 + (int64_t)(rng(&s) % 2800000000u); /* 2000 .. 2088 */
		struct sim_import_opts o = { .key = keys[rng(&s) % 4], .spread = rng(&s) % 2,
					     .absolute = rng(&s) % 2, .format = rng(&s) % 2 ? "combined" : NULL };
		FILE *f = fopen(path, "w");

		assert_non_null(w);
		assert_non_null(f);
		for (size_t i = 0; i < n; i++) {
			if (i > 0 && rng(&s) % 20 == 0) { /* garbage, never the first line */
				fprintf(f, "%s\n", rng(&s) % 2 ? "garbage line" : "1.2.3.4 - - [99/Oct/2026:13:55:36 +0000] \"GET / HTTP/1.1\" 200 1");
				continue;
			}
			int64_t epoch = base + (int64_t)(rng(&s) % 30); /* about 50 lines a second: ties */
			int offset_min = ((int)(rng(&s) % 53) - 24) * 30;
			time_t local = (time_t)(epoch + offset_min * 60);
			struct tm tm;
			gmtime_r(&local, &tm);
			const char *host = hosts[rng(&s) % 6], *user = users[rng(&s) % 3], *p = paths[rng(&s) % 4];
			int am = abs(offset_min);
			fprintf(f, "%s - %s [%02d/%s/%04d:%02d:%02d:%02d %c%02d%02d] \"GET %s HTTP/1.1\" 200 %s%s\n",
				host, user, tm.tm_mday, months[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min,
				tm.tm_sec, offset_min < 0 ? '-' : '+', am / 60, am % 60, p, rng(&s) % 2 ? "-" : "512",
				rng(&s) % 2 ? " \"-\" \"agent \\\"x\\\"\"" : "");
			struct want *x = &w[good++];
			x->t_ns = epoch * 1000000000LL;
			x->at = i;
			size_t plen = strcspn(p, "?");
			if (!strcmp(o.key, "ip"))
				snprintf(x->key, sizeof(x->key), "%s", host);
			else if (!strcmp(o.key, "user")) /* no user: keyed by the address */
				snprintf(x->key, sizeof(x->key), "%s", strcmp(user, "-") ? user : host);
			else if (!strcmp(o.key, "path"))
				snprintf(x->key, sizeof(x->key), "%.*s", (int)plen, p);
			else
				snprintf(x->key, sizeof(x->key), "%s%.*s", host, (int)plen, p);
		}
		assert_int_equal(fclose(f), 0);
		qsort(w, good, sizeof(*w), by_time_then_position);
		if (o.spread)
			for (size_t i = 0, j; i < good; i = j) {
				for (j = i; j < good && w[j].t_ns == w[i].t_ns; j++)
					;
				int64_t t = w[i].t_ns;
				for (size_t k = i; k < j; k++)
					w[k].t_ns = t + (int64_t)(k - i) * 1000000000LL / (int64_t)(j - i);
			}
		int64_t origin = o.absolute ? 0 : w[0].t_ns;

		const char *paths_in[] = { path };
		struct sim_trace t;
		int status = sim_import(&o, paths_in, 1, &t, err);
		if (status != 0 || t.n != good) {
			printf("seed %llu rep %d: status %d, %zu requests, want %zu\n", (unsigned long long)seed, rep,
			       status, t.n, good);
			fail();
		}
		for (size_t i = 0; i < good; i++)
			if (t.t_ns[i] != w[i].t_ns - origin || strcmp(t.key_name[t.key[i]], w[i].key) != 0) {
				printf("seed %llu rep %d (--key %s%s%s): request %zu: got %lld %s, want %lld %s\n",
				       (unsigned long long)seed, rep, o.key, o.spread ? " --spread" : "",
				       o.absolute ? " --absolute" : "", i, (long long)t.t_ns[i],
				       t.key_name[t.key[i]], (long long)(w[i].t_ns - origin), w[i].key);
				fail();
			}
		assert_int_equal(t.resolution_ns, 1000000000);
		assert_int_equal(t.origin_ns, origin);
		assert_true(t.spread == o.spread);
		assert_string_equal(t.format, "combined");
		sim_trace_free(&t);
		free(w);
	}
	unlink(path);
	fclose(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(random_logs_against_model),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
