/*
 * redis_harness.h - real redis-server processes for the Redis tests: one
 * plain node or a cluster of masters, on free loopback ports
 * (127.0.0.1), in a fresh temporary directory, stopped and removed by
 * rh_stop(). Each server is started with PR_SET_PDEATHSIG, so it dies
 * with the test even when the test crashes or is killed before rh_stop.
 *
 * rh_available() is false only when redis-server (or, for a cluster,
 * redis-cli) is not on PATH; the tests then skip with a loud message. A
 * node counts as up once it answers as itself (INFO's process_id), not as
 * another test's server that took the port first.
 * Needs POSIX 2008 (fork, kill, mkdtemp): _POSIX_C_SOURCE >= 200809L.
 *
 * Built with RH_MODULE defined (the path of ratelab.so), every server
 * loads the module; RH_PRELOAD (a sanitizer runtime, for an instrumented
 * module, or "") is then preloaded into the servers. h->extra: more
 * arguments for every server started after rh_init (NULL-terminated).
 */
#ifndef RATELAB_TEST_REDIS_HARNESS_H
#define RATELAB_TEST_REDIS_HARNESS_H

#include <arpa/inet.h>
#include <fcntl.h>
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

#include <hiredis/hiredis.h>

enum { RH_MAX_NODES = 8 };

/* Whether the servers load ratelab.so, so the backend must use it. */
#ifdef RH_MODULE
#define RH_WANT_MODULE true
#else
#define RH_WANT_MODULE false
#endif

struct rh_node {
	pid_t pid;
	int port, bus_port;
	char id[48]; /* CLUSTER MYID, cluster nodes only */
};

struct rh {
	char dir[64];
	int n;
	const char *extra[8];
	struct rh_node nodes[RH_MAX_NODES];
};

static inline bool rh_on_path(const char *prog)
{
	const char *path = getenv("PATH");
	char buf[4096];

	while (path && *path) {
		size_t len = strcspn(path, ":");
		snprintf(buf, sizeof(buf), "%.*s/%s", (int)len, path, prog);
		if (access(buf, X_OK) == 0)
			return true;
		path += len + (path[len] == ':');
	}
	return false;
}

static inline bool rh_available(bool cluster)
{
	if (rh_on_path("redis-server") && (!cluster || rh_on_path("redis-cli")))
		return true;
	fprintf(stderr, "\n*** SKIPPING: redis-server%s not found on PATH; install redis-server "
			"redis-tools (make deps) ***\n\n",
		cluster ? "/redis-cli" : "");
	return false;
}

static inline double rh_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A loopback port nobody listens on now (the kernel's pick). */
static inline int rh_free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = 0 };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port = -1;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
	    getsockname(fd, (struct sockaddr *)&a, &len) == 0)
		port = ntohs(a.sin_port);
	if (fd >= 0)
		close(fd);
	return port;
}

static inline redisContext *rh_connect(int port)
{
	struct timeval tv = { 2, 0 };
	redisContext *c = redisConnectWithTimeout("127.0.0.1", port, tv);

	if (c && !c->err && redisSetTimeout(c, tv) == REDIS_OK)
		return c;
	if (c)
		redisFree(c);
	return NULL;
}

static inline void rh_sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) != 0)
		;
}

/* One command (fmt with one %s argument) on a fresh connection to port:
 * the reply, or NULL. */
static inline redisReply *rh_cmd(int port, const char *fmt, const char *arg)
{
	redisContext *c = rh_connect(port);
	redisReply *r = c ? redisCommand(c, fmt, arg) : NULL;

	if (c)
		redisFree(c);
	return r;
}

/* True when the server on port answers and is process pid. */
static inline bool rh_is(int port, pid_t pid)
{
	redisReply *r = rh_cmd(port, "INFO %s", "server");
	char want[48];
	bool ok;

	snprintf(want, sizeof(want), "process_id:%ld\r", (long)pid);
	ok = r && r->type == REDIS_REPLY_STRING && strstr(r->str, want);
	if (r)
		freeReplyObject(r);
	return ok;
}

/* Starts argv (stdout and stderr appended to dir/log); its pid or -1. */
static inline pid_t rh_spawn(const struct rh *h, char *const argv[])
{
	pid_t pid = fork();

	if (pid == 0) {
		char log[128];
		snprintf(log, sizeof(log), "%s/log", h->dir);
		int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() == 1)
			_exit(127);
		execvp(argv[0], argv);
		_exit(127);
	}
	return pid;
}

/* Launches node i's redis-server on its ports; waits until it answers as
 * itself (10 s). False (and the process reaped) if it exits or stays mute. */
static inline bool rh_launch(struct rh *h, int i, bool cluster)
{
	struct rh_node *nd = &h->nodes[i];
	char port[16], bus[16], conf[96];

	snprintf(port, sizeof(port), "%d", nd->port);
	snprintf(bus, sizeof(bus), "%d", nd->bus_port);
	snprintf(conf, sizeof(conf), "nodes-%d.conf", nd->port);
	char *argv[40] = { "redis-server", "--port", port, "--bind", "127.0.0.1", "--save", "",
			   "--appendonly", "no", "--dir", h->dir };
	int a = 11;
	if (cluster) {
		char *clus[] = { "--cluster-enabled", "yes", "--cluster-port", bus, "--cluster-config-file", conf,
				 "--cluster-node-timeout", "5000" };
		memcpy(argv + a, clus, sizeof(clus));
		a += 8;
	}
#ifdef RH_MODULE
	argv[a++] = "--loadmodule";
	argv[a++] = RH_MODULE;
#endif
	for (int e = 0; h->extra[e] && a < 39; e++)
		argv[a++] = (char *)h->extra[e];
	argv[a] = NULL;
	nd->pid = rh_spawn(h, argv);
	if (nd->pid < 0)
		return false;
	double deadline = rh_now_s() + 10;
	int st;
	while (rh_now_s() < deadline && waitpid(nd->pid, &st, WNOHANG) == 0) {
		bool up = rh_is(nd->port, nd->pid);

		if (up && cluster) {
			redisReply *r = rh_cmd(nd->port, "CLUSTER %s", "MYID");
			up = r && r->type == REDIS_REPLY_STRING && r->len < sizeof(nd->id);
			if (up)
				memcpy(nd->id, r->str, r->len + 1);
			if (r)
				freeReplyObject(r);
		}
		if (up)
			return true;
		rh_sleep_ms(20);
	}
	kill(nd->pid, SIGKILL);
	waitpid(nd->pid, &st, 0);
	nd->pid = -1;
	return false;
}

/* Starts one more redis-server on fresh free ports (5 tries, in case a
 * port is taken between the pick and the bind). */
static inline bool rh_start_node(struct rh *h, bool cluster)
{
	if (h->n >= RH_MAX_NODES)
		return false;
	for (int attempt = 0; attempt < 5; attempt++) {
		struct rh_node *nd = &h->nodes[h->n];

		nd->port = rh_free_port();
		nd->bus_port = rh_free_port();
		if (nd->port < 0 || nd->bus_port < 0 || nd->port == nd->bus_port)
			continue;
		if (rh_launch(h, h->n, cluster)) {
			h->n++;
			return true;
		}
	}
	return false;
}

/* SIGKILLs node i (the fault tests) and reaps it. */
static inline void rh_kill(struct rh *h, int i)
{
	int st;

	if (h->nodes[i].pid > 0) {
		kill(h->nodes[i].pid, SIGKILL);
		waitpid(h->nodes[i].pid, &st, 0);
		h->nodes[i].pid = -1;
	}
}

/* Starts a killed plain node again on its port (empty: no persistence). */
static inline bool rh_restart(struct rh *h, int i)
{
	return rh_launch(h, i, false);
}

static inline void rh_stop(struct rh *h)
{
	for (int i = 0; i < h->n; i++)
		rh_kill(h, i);
	h->n = 0;
	if (h->dir[0]) {
		char cmd[128];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", h->dir);
		if (system(cmd) != 0)
			fprintf(stderr, "redis_harness: could not remove %s\n", h->dir);
		h->dir[0] = '\0';
	}
}

static inline bool rh_init(struct rh *h)
{
#if defined(RH_MODULE) && defined(RH_PRELOAD)
	/* the servers (not this process, already started) get the runtime */
	if (RH_PRELOAD[0]) {
		setenv("LD_PRELOAD", RH_PRELOAD, 1);
		setenv("ASAN_OPTIONS", "detect_leaks=0", 1);
	}
#endif
	memset(h, 0, sizeof(*h));
	snprintf(h->dir, sizeof(h->dir), "/tmp/rl-redis-XXXXXX");
	return mkdtemp(h->dir) != NULL;
}

/* One plain redis-server. */
static inline bool rh_start_single(struct rh *h)
{
	if (!rh_init(h))
		return false;
	if (rh_start_node(h, false))
		return true;
	rh_stop(h);
	return false;
}

/* True when node i says the cluster is ok, all slots assigned, n known. */
static inline bool rh_node_ok(const struct rh *h, int i)
{
	redisContext *c = rh_connect(h->nodes[i].port);
	redisReply *r = c ? redisCommand(c, "CLUSTER INFO") : NULL;
	char want[48];
	bool ok;

	snprintf(want, sizeof(want), "cluster_known_nodes:%d\r", h->n);
	ok = r && r->type == REDIS_REPLY_STRING && strstr(r->str, "cluster_state:ok") &&
	     strstr(r->str, "cluster_slots_ok:16384") && strstr(r->str, want);
	if (r)
		freeReplyObject(r);
	if (c)
		redisFree(c);
	return ok;
}

/* masters cluster nodes joined by redis-cli --cluster create (no
 * replicas); waits (30 s) until every node reports the cluster ok. */
static inline bool rh_start_cluster(struct rh *h, int masters)
{
	char addrs[RH_MAX_NODES][32];
	char *argv[RH_MAX_NODES + 8];
	int a = 0, st;

	if (masters < 3 || masters > RH_MAX_NODES || !rh_init(h))
		return false;
	for (int i = 0; i < masters; i++)
		if (!rh_start_node(h, true))
			goto fail;
	argv[a++] = "redis-cli";
	argv[a++] = "--cluster";
	argv[a++] = "create";
	for (int i = 0; i < masters; i++) {
		snprintf(addrs[i], sizeof(addrs[i]), "127.0.0.1:%d", h->nodes[i].port);
		argv[a++] = addrs[i];
	}
	argv[a++] = "--cluster-replicas";
	argv[a++] = "0";
	argv[a++] = "--cluster-yes";
	argv[a] = NULL;
	pid_t pid = rh_spawn(h, argv);
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "redis_harness: redis-cli --cluster create failed (log in %s)\n", h->dir);
		goto fail;
	}
	double deadline = rh_now_s() + 30;
	while (rh_now_s() < deadline) {
		bool all = true;
		for (int i = 0; i < h->n && all; i++)
			all = rh_node_ok(h, i);
		if (all)
			return true;
		rh_sleep_ms(50);
	}
	fprintf(stderr, "redis_harness: cluster not ok after 30 s\n");
fail:
	rh_stop(h);
	return false;
}

#endif
