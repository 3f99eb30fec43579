/*
 * redis_server.h - the Redis tests' real redis-server: started on a free
 * loopback port (127.0.0.1 only, no persistence), waited for until it
 * answers PING, stopped (SIGTERM, then SIGKILL) at the end. When
 * redis-server is not installed, rl_test_redis_start says so loudly and
 * returns false: the caller skips. The server dies with the test process
 * (PR_SET_PDEATHSIG), even when the test crashes. Include after <cmocka.h>, with
 * _POSIX_C_SOURCE 200809L defined before any header.
 */
#ifndef RATELAB_TEST_REDIS_SERVER_H
#define RATELAB_TEST_REDIS_SERVER_H



#include <arpa/inet.h>
#include <fcntl.h>
#include <hiredis/hiredis.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct rl_test_redis {
	pid_t pid;
	int port;
};

static inline void rl_test_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0)
		;
}

/* A port the kernel just handed out on 127.0.0.1 (free now, very likely still free). */
static inline int rl_test_free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port = 0;

	if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
	    getsockname(fd, (struct sockaddr *)&a, &len) == 0)
		port = ntohs(a.sin_port);
	if (fd >= 0)
		close(fd);
	return port;
}

static inline bool rl_test_redis_have(void)
{
	return system("command -v redis-server >/dev/null 2>&1") == 0;
}

/* Runs a command on a fresh connection; the reply or NULL. */
static inline redisReply *rl_test_redis_cmd(int port, const char *fmt, const char *arg)
{
	struct timeval tv = { 1, 0 };
	redisContext *c = redisConnectWithTimeout("127.0.0.1", port, tv);
	redisReply *rep = NULL;

	if (c && !c->err) {
		redisSetTimeout(c, tv);
		rep = redisCommand(c, fmt, arg);
	}
	if (c)
		redisFree(c);
	return rep;
}

/* True when the server on port answers and is process pid (not another test's). */
static inline bool rl_test_redis_ping(int port, pid_t pid)
{
	redisReply *rep = rl_test_redis_cmd(port, "INFO %s", "server");
	char want[48];
	bool ok;

	snprintf(want, sizeof(want), "process_id:%ld\r", (long)pid);
	ok = rep && rep->type == REDIS_REPLY_STRING && strstr(rep->str, want);
	if (rep)
		freeReplyObject(rep);
	return ok;
}

/* Starts redis-server on port (0: a free one); true once it answers as itself. */
static inline bool rl_test_redis_start_on(struct rl_test_redis *s, int port)
{
	for (int attempt = 0; attempt < 5; attempt++) {
		s->port = port ? port : rl_test_free_port();
		char portarg[16];
		snprintf(portarg, sizeof(portarg), "%d", s->port);
		s->pid = fork();
		if (s->pid == 0) {
			/* a test that crashes takes its server with it */
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			int devnull = open("/dev/null", O_WRONLY);
			if (devnull >= 0) {
				dup2(devnull, 1);
				dup2(devnull, 2);
			}
			execlp("redis-server", "redis-server", "--port", portarg, "--bind", "127.0.0.1",
			       "--save", "", "--appendonly", "no", "--dir", "/tmp", (char *)NULL);
			_exit(127);
		}
		for (int i = 0; i < 200; i++) {
			if (rl_test_redis_ping(s->port, s->pid))
				return true;
			int st;
			if (waitpid(s->pid, &st, WNOHANG) == s->pid)
				break; /* it died: the port was taken */
			rl_test_sleep_ms(10);
		}
		kill(s->pid, SIGKILL);
		waitpid(s->pid, NULL, 0);
		s->pid = 0;
	}
	return false;
}

static inline bool rl_test_redis_start(struct rl_test_redis *s)
{
	if (!rl_test_redis_have()) {
		fprintf(stderr, "\n*** SKIPPED: redis-server is not installed (make deps installs it) ***\n\n");
		return false;
	}
	return rl_test_redis_start_on(s, 0);
}

static inline void rl_test_redis_stop(struct rl_test_redis *s)
{
	if (s->pid <= 0)
		return;
	kill(s->pid, SIGCONT);
	kill(s->pid, SIGTERM);
	for (int i = 0; i < 200; i++) {
		if (waitpid(s->pid, NULL, WNOHANG) == s->pid) {
			s->pid = 0;
			return;
		}
		rl_test_sleep_ms(10);
	}
	kill(s->pid, SIGKILL);
	waitpid(s->pid, NULL, 0);
	s->pid = 0;
}

#endif
