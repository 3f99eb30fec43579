/*
 * access_log.c - a sample nginx access log (combined format), the same
 * bytes for the same seed on every machine: about 10,000 requests over 10
 * minutes from 60 ordinary clients (a few requests a minute each, now and
 * then a page load of a few at once) and 3 heavy ones (bursts of 15 to 35
 * requests in about a second, every few seconds), IPv4 and a few IPv6.
 * Each line carries the request's arrival time (whole seconds) but lines
 * are written when requests complete, so the log is slightly out of order
 * as real logs are.
 *
 *   access_log [--seed N] [--duration S] > access.log
 *
 * Integer arithmetic only (splitmix64), so that no libm differs.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct req {
	int64_t arrival_ms, done_ms;
	uint32_t seq;
	uint16_t client, path;
	uint16_t status;
	uint32_t bytes;
};

static uint64_t rng_state;

static uint64_t next(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, n). */
static uint64_t below(uint64_t n)
{
	return next() % n;
}

enum { ORDINARY = 60, HEAVY = 3, CLIENTS = ORDINARY + HEAVY };

static const char *const paths[] = { "/", "/api/users", "/api/orders", "/api/search?q=shoes",
				     "/static/app.js", "/static/style.css", "/login", "/api/cart" };
enum { NPATHS = sizeof(paths) / sizeof(paths[0]) };

static const char *const agents[] = {
	"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36",
	"Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148",
	"curl/8.4.0",
	"python-requests/2.31.0",
	"okhttp/4.12.0 \\\"beta\\\"",
};

static void client_addr(int c, char *buf, size_t len)
{
	if (c >= ORDINARY)
		snprintf(buf, len, c == ORDINARY + 2 ? "2001:db8:beef::%x" : "203.0.113.%d", c - ORDINARY + 7);
	else if (c % 15 == 14)
		snprintf(buf, len, "2001:db8:%x::%x", c, c * 7 + 1);
	else
		snprintf(buf, len, "%d.%d.%d.%d", 10 + c % 3, c / 7, (c * 37) % 251, 1 + (c * 101) % 253);
}

/* y-m-d of days since 1970-01-01 (the inverse of days-from-civil). */
static void civil(int64_t z, int *y, int *m, int *d)
{
	z += 719468;
	int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	int64_t doe = z - era * 146097;
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	int64_t mp = (5 * doy + 2) / 153;
	*d = (int)(doy - (153 * mp + 2) / 5 + 1);
	*m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = (int)(yoe + era * 400 + (*m <= 2));
}

static int by_completion(const void *a, const void *b)
{
	const struct req *x = a, *y = b;
	if (x->done_ms != y->done_ms)
		return x->done_ms < y->done_ms ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static struct req *reqs;
static size_t nreqs, cap;

static void add(int64_t at_ms, int client)
{
	if (nreqs == cap) {
		cap = cap ? 2 * cap : 1 << 14;
		if (!(reqs = realloc(reqs, cap * sizeof(*reqs)))) {
			fputs("access_log: out of memory\n", stderr);
			exit(1);
		}
	}
	struct req *r = &reqs[nreqs];
	r->arrival_ms = at_ms;
	/* most requests take tens of ms, a few several seconds */
	r->done_ms = at_ms + 5 + (int64_t)below(80) + (below(50) == 0 ? (int64_t)below(4000) : 0);
	r->seq = (uint32_t)nreqs++;
	r->client = (uint16_t)client;
	r->path = (uint16_t)below(NPATHS);
	uint64_t s = below(100);
	r->status = s < 88 ? 200 : s < 93 ? 304 : s < 97 ? 404 : s < 99 ? 429 : 500;
	r->bytes = r->status == 304 ? 0 : 200 + (uint32_t)below(20000);
}

int main(int argc, char **argv)
{
	uint64_t seed = 1;
	int64_t duration_s = 600;

	for (int i = 1; i < argc; i++) {
		char *end;
		if (i + 1 < argc && strcmp(argv[i], "--seed") == 0) {
			seed = strtoull(argv[++i], &end, 10);
		} else if (i + 1 < argc && strcmp(argv[i], "--duration") == 0) {
			duration_s = strtoll(argv[++i], &end, 10);
			if (duration_s < 1 || duration_s > 10000000)
				end = argv[i];
		} else {
			end = argv[i];
		}
		if (*end) {
			fprintf(stderr, "usage: access_log [--seed N] [--duration S (1..10^7)]\n");
			return 2;
		}
	}
	rng_state = seed;
	int64_t span_ms = duration_s * 1000;
	for (int c = 0; c < ORDINARY; c++) {
		/* mean gap 5 to 34 s; one visit in 8 is a page load of 3 to 8 requests */
		int64_t gap = 5000 + (int64_t)below(30000);
		for (int64_t t = (int64_t)below((uint64_t)gap); t < span_ms; t += 1 + (int64_t)below((uint64_t)(2 * gap))) {
			int k = below(8) == 0 ? 3 + (int)below(6) : 1;
			for (int j = 0; j < k; j++)
				add(t + (int64_t)below(900), c);
		}
	}
	for (int c = ORDINARY; c < CLIENTS; c++) {
		for (int64_t t = (int64_t)below(3000); t < span_ms; t += 2500 + (int64_t)below(9000)) {
			int k = 15 + (int)below(21);
			for (int j = 0; j < k; j++)
				add(t + (int64_t)below(1500), c);
		}
	}
	qsort(reqs, nreqs, sizeof(*reqs), by_completion);

	const int64_t start_s = 1791665700; /* 2026-10-10 13:55:00 -0700 */
	static const char *const mon[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
					   "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
	for (size_t i = 0; i < nreqs; i++) {
		const struct req *r = &reqs[i];
		char addr[48];
		int64_t local = start_s + r->arrival_ms / 1000 - 7 * 3600;
		int y, m, d;
		civil(local / 86400, &y, &m, &d);
		int64_t sod = local % 86400;
		client_addr(r->client, addr, sizeof(addr));
		const char *user = r->client % 20 == 3 ? "alice" : "-";
		printf("%s - %s [%02d/%s/%04d:%02d:%02d:%02d -0700] \"%s %s HTTP/1.1\" %u %" PRIu32
		       " \"-\" \"%s\"\n",
		       addr, user, d, mon[m - 1], y, (int)(sod / 3600), (int)(sod / 60 % 60), (int)(sod % 60),
		       r->path % 3 == 2 ? "POST" : "GET", paths[r->path], r->status, r->bytes,
		       agents[(r->client + r->path) % 5]);
	}
	free(reqs);
	return fflush(stdout) == 0 ? 0 : 1;
}
