/*
 * sim_decider.c - model: the child is a function from the request
 * sequence to answers, called in lockstep: one `T KEY` line out, one
 * answer line in, before the engine takes the next event. Invariant: at
 * most one request is ever unanswered, so a closed-loop client sees the
 * answer to its request before its retry is scheduled, exactly as with a
 * built-in algorithm.
 */
#include "sim_decider.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "compat.h"
#include "lines.h"
#include "ratelab/parse.h"
#include "ratelab/status.h"

#define ANSWER_MAX 4096

struct sim_child {
	pid_t pid;
	int to, from;         /* the child's stdin (we write), its stdout (we read) */
	int64_t timeout_ns;
	const char *cmd, *scenario;
	bool exited;
	int wstatus;          /* valid when exited */
	char buf[ANSWER_MAX]; /* bytes read, not yet consumed: [pos, len) */
	size_t pos, len;
	char req[64];         /* the request in progress, for messages */
	int64_t answers;      /* answer lines read so far */
	char err[ANSWER_MAX + 512];
	bool failed;
	void (*old_pipe)(int);
};

/* pipe2(O_CLOEXEC) is not POSIX: the same with fcntl (single-threaded, so no race with exec). */
static int pipe_cloexec(int fd[2])
{
	if (pipe(fd) != 0)
		return -1;
	fcntl(fd[0], F_SETFD, FD_CLOEXEC);
	fcntl(fd[1], F_SETFD, FD_CLOEXEC);
	return 0;
}

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Records the first failure: "decider 'CMD' (scenario S): " and the message. */
static int fail(struct sim_child *c, const char *fmt, ...) RL_PRINTF(2, 3);
static int fail(struct sim_child *c, const char *fmt, ...)
{
	va_list ap;

	if (!c->failed) {
		char q[SIM_QUOTE_SIZE];
		int n = snprintf(c->err, sizeof(c->err), "decider %s (scenario %s): ", sim_quote(q, c->cmd), c->scenario);
		va_start(ap, fmt);
		vsnprintf(c->err + n, sizeof(c->err) - (size_t)n, fmt, ap);
		va_end(ap);
		c->failed = true;
	}
	return RL_EINVAL;
}

static void describe_exit(int wstatus, char *out, size_t len)
{
	if (WIFEXITED(wstatus))
		snprintf(out, len, "exited with status %d", WEXITSTATUS(wstatus));
	else if (WIFSIGNALED(wstatus))
		snprintf(out, len, "was killed by signal %d", WTERMSIG(wstatus));
	else
		snprintf(out, len, "stopped");
}

/* The child has gone (EOF or EPIPE): reap it and say how it ended. */
static int gone(struct sim_child *c, const char *what)
{
	char how[64] = "closed its output";

	if (!c->exited) {
		/* it closed the pipe: give it the timeout to finish exiting */
		int64_t end = mono_ns() + c->timeout_ns;
		pid_t p;
		while ((p = waitpid(c->pid, &c->wstatus, WNOHANG)) == 0 && mono_ns() < end)
			nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
		c->exited = p == c->pid;
	}
	if (c->exited)
		describe_exit(c->wstatus, how, sizeof(how));
	return fail(c, "%s %s request '%s'", how, what, c->req);
}

int sim_child_start(struct sim_child **out, const char *cmd, const struct sim_scenario *sc,
		       int64_t timeout_ns, char *msg, size_t msg_len)
{
	struct sim_child *c = calloc(1, sizeof(*c));
	int in[2], outp[2];
	char q[SIM_QUOTE_SIZE];

	*out = NULL;
	if (!c) {
		snprintf(msg, msg_len, "out of memory");
		return RL_ENOMEM;
	}
	if (pipe_cloexec(in) != 0) {
		snprintf(msg, msg_len, "decider %s: pipe: %s", sim_quote(q, cmd), strerror(errno));
		free(c);
		return RL_EINVAL;
	}
	if (pipe_cloexec(outp) != 0) {
		snprintf(msg, msg_len, "decider %s: pipe: %s", sim_quote(q, cmd), strerror(errno));
		close(in[0]);
		close(in[1]);
		free(c);
		return RL_EINVAL;
	}
	fflush(NULL); /* the child must not inherit unwritten output */
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(msg, msg_len, "decider %s: fork: %s", sim_quote(q, cmd), strerror(errno));
		close(in[0]);
		close(in[1]);
		close(outp[0]);
		close(outp[1]);
		free(c);
		return RL_EINVAL;
	}
	if (pid == 0) {
		char v[3][24];
		snprintf(v[0], sizeof(v[0]), "%lld", (long long)sc->rule.limit);
		snprintf(v[1], sizeof(v[1]), "%lld", (long long)sc->rule.window_ns);
		snprintf(v[2], sizeof(v[2]), "%lld", (long long)sc->rule.burst);
		if (dup2(in[0], 0) < 0 || dup2(outp[1], 1) < 0 || setenv("RATELAB_LIMIT", v[0], 1) ||
		    setenv("RATELAB_WINDOW_NS", v[1], 1) || setenv("RATELAB_BURST", v[2], 1) ||
		    setenv("RATELAB_SCENARIO", sc->name, 1))
			_exit(126);
		signal(SIGPIPE, SIG_DFL);
		setpgid(0, 0); /* its own group: a failed decider is killed with whatever it started */
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	setpgid(pid, pid); /* as the child does: whichever runs first (EACCES after its exec is fine) */
	close(in[0]);
	close(outp[1]);
	c->pid = pid;
	c->to = in[1];
	c->from = outp[0];
	c->timeout_ns = timeout_ns;
	c->cmd = cmd;
	c->scenario = sc->name;
	c->old_pipe = signal(SIGPIPE, SIG_IGN); /* a child gone is an EPIPE to report, not a signal */
	*out = c;
	return RL_OK;
}

static int send_request(struct sim_child *c, int64_t t, uint32_t key, int64_t cost)
{
	int n = cost == 1 ? snprintf(c->req, sizeof(c->req), "%lld %u", (long long)t, key)
			  : snprintf(c->req, sizeof(c->req), "%lld %u %lld", (long long)t, key, (long long)cost);
	char line[sizeof(c->req) + 1];

	memcpy(line, c->req, (size_t)n);
	line[n++] = '\n';
	for (int off = 0; off < n;) {
		ssize_t w = write(c->to, line + off, (size_t)(n - off));
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EPIPE)
			return gone(c, "before reading");
		if (w < 0)
			return fail(c, "writing request '%s': %s", c->req, strerror(errno));
		off += (int)w;
	}
	return RL_OK;
}

/* The next answer line, NUL-terminated, without its line ending; NULL on failure. */
static char *read_answer(struct sim_child *c)
{
	int64_t deadline = mono_ns() + c->timeout_ns;

	for (;;) {
		char *nl = memchr(c->buf + c->pos, '\n', c->len - c->pos);
		if (nl) {
			char *line = c->buf + c->pos;
			*nl = '\0';
			c->pos = (size_t)(nl - c->buf) + 1;
			if (nl > line && nl[-1] == '\r')
				nl[-1] = '\0';
			c->answers++;
			return line;
		}
		if (c->pos > 0) { /* keep the partial line at the front */
			memmove(c->buf, c->buf + c->pos, c->len - c->pos);
			c->len -= c->pos;
			c->pos = 0;
		}
		if (c->len == sizeof(c->buf)) {
			fail(c, "answered a line longer than %d bytes to request '%s'", ANSWER_MAX - 1, c->req);
			return NULL;
		}
		int64_t left = deadline - mono_ns();
		if (left <= 0) {
			fail(c, "gave no answer within %.3fs to request '%s'%s", (double)c->timeout_ns * 1e-9, c->req,
			     c->answers ? ""
					: " (its first: it may not be flushing its output; a decider must flush "
					  "each answer line, e.g. print(..., flush=True), fflush(stdout), or run it "
					  "under `stdbuf -oL`)");
			return NULL;
		}
		struct pollfd p = { .fd = c->from, .events = POLLIN };
		int ms = (int)((left + 999999) / 1000000);
		int r = poll(&p, 1, ms);
		if (r < 0 && errno != EINTR) {
			fail(c, "waiting for the answer to request '%s': %s", c->req, strerror(errno));
			return NULL;
		}
		if (r <= 0)
			continue;
		ssize_t n = read(c->from, c->buf + c->len, sizeof(c->buf) - c->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fail(c, "reading the answer to request '%s': %s", c->req, strerror(errno));
			return NULL;
		}
		if (n == 0) {
			gone(c, c->len ? "in the middle of its answer to" : "without answering");
			return NULL;
		}
		c->len += (size_t)n;
	}
}

/*
 * The fields an answer may carry after V: those `ratelab replay --explain`
 * writes. Any other name is refused, so that a misnamed retry-after
 * ("retry=5") is not silently read as none.
 */
static const char *const fields[] = { "retry_after_ns", "remaining", "reset_ns", "delay_ns", "tier" };

/*
 * Parses "V [R] [NAME=VALUE ...]" into the verdict and the retry-after
 * (-1: none); false with the reason in why.
 */
static bool parse_answer(char *line, int *verdict, int64_t *retry, char *why, size_t why_len)
{
	char *save = NULL, *tok = strtok_r(line, " \t", &save), q[SIM_QUOTE_SIZE];
	bool first = true;

	*retry = -1;
	if (!tok || (strcmp(tok, "0") != 0 && strcmp(tok, "1") != 0)) {
		snprintf(why, why_len, "the verdict %s is not 1 or 0", tok ? sim_quote(q, tok) : "(none)");
		return false;
	}
	*verdict = tok[0] == '1';
	for (; (tok = strtok_r(NULL, " \t", &save)); first = false) {
		char *eq = strchr(tok, '=');
		int64_t v;
		size_t i = 0;
		if (!eq) {
			if (!first || !rl_parse_i64(tok, &v) || v < 0) {
				snprintf(why, why_len, "%s is %s", sim_quote(q, tok),
					 first ? "not a retry-after (an integer number of ns >= 0)"
					       : "neither the retry-after (right after V) nor NAME=VALUE");
				return false;
			}
			*retry = v;
			continue;
		}
		*eq = '\0';
		while (i < sizeof(fields) / sizeof(fields[0]) && strcmp(tok, fields[i]) != 0)
			i++;
		if (i == sizeof(fields) / sizeof(fields[0])) {
			snprintf(why, why_len, "unknown field %s (the fields are retry_after_ns, remaining, reset_ns, "
				 "delay_ns and tier)", sim_quote(q, tok));
			return false;
		}
		if (i < 4 && (!rl_parse_i64(eq + 1, &v) || (i != 1 && v < 0))) {
			snprintf(why, why_len, "%s=%s is not an integer%s", tok, sim_quote(q, eq + 1), i != 1 ? " >= 0" : "");
			return false;
		}
		if (i == 0)
			*retry = v;
	}
	return true;
}

int sim_child_decide(void *ctx, int64_t t_ns, uint32_t key, int64_t cost, int64_t *retry_after_ns)
{
	struct sim_child *c = ctx;
	int verdict, rc;
	int64_t retry;

	if (c->failed)
		return RL_EINVAL;
	if ((rc = send_request(c, t_ns, key, cost)))
		return rc;
	char *line = read_answer(c);
	if (!line)
		return RL_EINVAL;
	char reply[SIM_QUOTE_SIZE], why[2 * SIM_QUOTE_SIZE];
	sim_quote(reply, line);
	if (!parse_answer(line, &verdict, &retry, why, sizeof(why)))
		return fail(c, "answered %s to request '%s': %s; an answer is 'V [RETRY_NS] [NAME=VALUE ...]' "
			    "with V 1 or 0", reply, c->req, why);
	if (retry_after_ns)
		*retry_after_ns = verdict ? 0 : (retry > 0 ? retry : 1);
	return verdict;
}

const char *sim_child_error(const struct sim_child *c)
{
	return c && c->failed ? c->err : NULL;
}

int sim_child_finish(struct sim_child *c, char *msg, size_t msg_len)
{
	int rc = c->failed ? RL_EINVAL : RL_OK;

	close(c->to);
	if (!c->exited && c->failed)
		kill(-c->pid, SIGKILL); /* a failed child may be hung: no need to wait for it */
	if (!c->exited) {
		int64_t end = mono_ns() + c->timeout_ns;
		pid_t p;
		while ((p = waitpid(c->pid, &c->wstatus, WNOHANG)) == 0 && mono_ns() < end)
			nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
		if (p != c->pid) {
			kill(-c->pid, SIGKILL);
			waitpid(c->pid, &c->wstatus, 0);
			if (!c->failed)
				fail(c, "did not exit within %.3fs after its input ended", (double)c->timeout_ns * 1e-9);
		}
		c->exited = true;
	}
	if (!c->failed && !(WIFEXITED(c->wstatus) && WEXITSTATUS(c->wstatus) == 0)) {
		char how[64];
		describe_exit(c->wstatus, how, sizeof(how));
		fail(c, "%s at the end of its input", how);
	}
	if (c->failed) {
		snprintf(msg, msg_len, "%s", c->err);
		rc = RL_EINVAL;
	}
	close(c->from);
	signal(SIGPIPE, c->old_pipe);
	free(c);
	return rc;
}
