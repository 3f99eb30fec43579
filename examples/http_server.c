/*
 * http_server.c - a keyed limiter in front of a tiny HTTP server: each API
 * key (the X-Api-Key header, else the client's address) may make 3
 * requests per minute; the 4th gets 429 Too Many Requests with the
 * RateLimit-Policy, RateLimit and Retry-After headers (ratelab/http.h).
 *
 *   ./http_server PORT [COUNT]   listen on 127.0.0.1:PORT (0: any free
 *                                port; the port is printed), answer COUNT
 *                                requests (default: forever), then exit
 *   curl -i -H 'X-Api-Key: alice' http://127.0.0.1:PORT/
 *
 * One connection at a time, for brevity; the limiter itself may be shared
 * by any number of threads (ratelab/limit.h).
 */
#define _POSIX_C_SOURCE 200809L

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <ratelab/http.h>
#include <ratelab/limit.h>

#define QUOTA 3
#define WINDOW_NS RL_M(1)

/* Reads the request head (up to a blank line) into buf; its length, or -1. */
static ssize_t read_head(int fd, char *buf, size_t len)
{
	size_t used = 0;

	while (used + 1 < len) {
		ssize_t n = read(fd, buf + used, len - 1 - used);

		if (n <= 0)
			return n < 0 && errno == EINTR ? -1 : (used ? (ssize_t)used : -1);
		used += (size_t)n;
		buf[used] = '\0';
		if (strstr(buf, "\r\n\r\n") || strstr(buf, "\n\n"))
			break;
	}
	buf[used] = '\0';
	return (ssize_t)used;
}

/* The X-Api-Key header's value in head (cut at the line's end), or NULL. */
static const char *api_key(char *head, size_t *len)
{
	for (char *line = strchr(head, '\n'); line; line = strchr(line, '\n')) {
		line++;
		if (strncasecmp(line, "X-Api-Key:", 10) == 0) {
			char *v = line + 10;

			v += strspn(v, " \t");
			*len = strcspn(v, "\r\n");
			return v;
		}
	}
	return NULL;
}

static int serve(int fd, const struct sockaddr_in *peer, struct rl_limit *l)
{
	static const struct rl_http_policy policy = { "per-key", QUOTA, WINDOW_NS };
	char head[4096], addr[INET_ADDRSTRLEN], headers[512], resp[1024];
	struct rl_decision d;
	const char *key;
	size_t key_len;
	int verdict, n;

	if (read_head(fd, head, sizeof(head)) < 0)
		return -1;
	key = api_key(head, &key_len);
	if (!key) {
		inet_ntop(AF_INET, &peer->sin_addr, addr, sizeof(addr));
		key = addr;
		key_len = strlen(addr);
	}
	verdict = rl_limit_allow_key_at(l, key, key_len, rl_now_ns(), &d);
	if (verdict < 0)
		verdict = RL_REJECTED; /* the store could not decide: refuse */
	if (rl_http_headers(headers, sizeof(headers), &policy, verdict, &d, 0) < 0)
		headers[0] = '\0';
	n = snprintf(resp, sizeof(resp),
		     "HTTP/1.1 %d %s\r\n%sContent-Type: text/plain\r\nContent-Length: %d\r\n"
		     "Connection: close\r\n\r\n%s",
		     rl_http_status(verdict), verdict == RL_ALLOWED ? "OK" : "Too Many Requests",
		     headers, verdict == RL_ALLOWED ? 6 : 18,
		     verdict == RL_ALLOWED ? "hello\n" : "too many requests\n");
	if (write(fd, resp, (size_t)n) != n)
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sa_len = sizeof(sa);
	long port, count = -1;
	struct rl_limit *l;
	int lfd, one = 1;

	if (argc < 2 || argc > 3 || (port = strtol(argv[1], NULL, 10)) < 0 || port > 65535 ||
	    (argc == 3 && (count = strtol(argv[2], NULL, 10)) < 1)) {
		fprintf(stderr, "usage: http_server PORT [COUNT]\n");
		return 2;
	}
	l = rl_limit_new("token_bucket", QUOTA, WINDOW_NS, 0);
	if (!l) {
		fprintf(stderr, "http_server: %s\n", rl_limit_error());
		return 1;
	}
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sa.sin_port = htons((uint16_t)port);
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(lfd, 16) < 0 ||
	    getsockname(lfd, (struct sockaddr *)&sa, &sa_len) < 0) {
		perror("http_server");
		rl_limit_free(l);
		return 1;
	}
	printf("listening on 127.0.0.1:%d\n", ntohs(sa.sin_port));
	fflush(stdout);
	while (count != 0) {
		struct sockaddr_in peer;
		socklen_t peer_len = sizeof(peer);
		struct timeval tv = { .tv_sec = 5 };
		int fd = accept(lfd, (struct sockaddr *)&peer, &peer_len);

		if (fd < 0)
			continue;
		/* A client that sends nothing cannot hold the loop for more than 5 s. */
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		if (serve(fd, &peer, l) == 0 && count > 0)
			count--;
		close(fd);
	}
	close(lfd);
	rl_limit_free(l);
	return 0;
}
