/*
 * sim_decider.c - model: the child is a function from the request
 * sequence to answers, one answer line per request, in order. Requests go
 * out through a queue (out) and are remembered until answered (pend); the
 * answers come in through a buffer (in) holding ilines complete lines.
 * Invariant: pend holds exactly the requests sent and not yet answered,
 * oldest first, so the answer line at the front of in is the answer to
 * pend's first; every wait for an answer starts with the queue written
 * out (or the child's stdin gone), so the child always holds every
 * request the simulator waits on. In lockstep (sim_child_decide) at most
 * one request is unanswered, as with a built-in algorithm.
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

#define ANSWER_MAX 4096    /* longest answer line, bytes, its newline included */
#define REQUEST_MAX 64     /* longest request line `T KEY COST\n`, bytes */
#define READ_CHUNK 65536   /* answer bytes read at once, at most */
#define WRITE_AT 4096      /* queued request bytes written at once, without waiting */

/* A request sent and not yet answered. */
struct request {
	int64_t t_ns, cost;
	uint32_t key;
	uint64_t end; /* the end of its line in the stream of request bytes */
};

struct sim_child {
	pid_t pid;
	int to, from;         /* the child's stdin (we write), its stdout (we read): both O_NONBLOCK */
	int64_t timeout_ns;
	const char *cmd, *scenario;
	bool exited;
	int wstatus;          /* valid when exited */
	struct request *pend; /* unanswered, oldest first: a ring of pcap (a power of 2) */
	size_t pcap;
	uint64_t phead, ptail; /* pend holds [phead, ptail), index & (pcap - 1) */
	char *out;            /* request bytes queued, not yet written: [opos, olen) */
	size_t opos, olen, ocap;
	uint64_t written;     /* request bytes written so far */
	bool closed_in;       /* the child's stdin is gone (EPIPE): the rest is never written */
	bool eof;             /* its stdout has ended */
	char *in;             /* answer bytes read, not yet consumed: [ipos, ilen) */
	size_t ipos, ilen, icap;
	size_t ilines;        /* complete lines in [ipos, ilen) */
	size_t ipart;         /* where the partial line after them starts */
	int64_t answers;      /* answer lines consumed so far */
	struct sim_child_counts counts;
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

/* Request i's line without its newline, for messages. */
static const char *request_text(const struct sim_child *c, uint64_t i, char *buf, size_t len)
{
	const struct request *r = &c->pend[i & (c->pcap - 1)];

	if (r->cost == 1)
		snprintf(buf, len, "%lld %u", (long long)r->t_ns, r->key);
	else
		snprintf(buf, len, "%lld %u %lld", (long long)r->t_ns, r->key, (long long)r->cost);
	return buf;
}

/* The oldest request left unanswered (one is, whenever this is called). */
static const char *head_text(const struct sim_child *c, char buf[REQUEST_MAX])
{
	return request_text(c, c->phead, buf, REQUEST_MAX);
}

/* The child has gone (EOF or EPIPE): reap it and say how it ended, naming the oldest unanswered request. */
static int gone(struct sim_child *c, const char *what)
{
	char how[64] = "closed its output", req[REQUEST_MAX];

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
	return fail(c, "%s %s request '%s'", how, what, head_text(c, req));
}

static void free_child(struct sim_child *c)
{
	free(c->pend);
	free(c->out);
	free(c->in);
	free(c);
}

int sim_child_start(struct sim_child **out, const char *cmd, const struct sim_scenario *sc,
		       int64_t timeout_ns, char *msg, size_t msg_len)
{
	struct sim_child *c = calloc(1, sizeof(*c));
	int in[2], outp[2];
	char q[SIM_QUOTE_SIZE];

	*out = NULL;
	if (c) {
		c->pcap = 64;
		c->ocap = 2 * WRITE_AT;
		c->icap = READ_CHUNK;
		c->pend = malloc(c->pcap * sizeof(*c->pend));
		c->out = malloc(c->ocap);
		c->in = malloc(c->icap);
	}
	if (!c || !c->pend || !c->out || !c->in) {
		if (c)
			free_child(c);
		snprintf(msg, msg_len, "out of memory");
		return RL_ENOMEM;
	}
	if (pipe_cloexec(in) != 0) {
		snprintf(msg, msg_len, "decider %s: pipe: %s", sim_quote(q, cmd), strerror(errno));
		free_child(c);
		return RL_EINVAL;
	}
	if (pipe_cloexec(outp) != 0) {
		snprintf(msg, msg_len, "decider %s: pipe: %s", sim_quote(q, cmd), strerror(errno));
		close(in[0]);
		close(in[1]);
		free_child(c);
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
		free_child(c);
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
	/* our ends only (the child's are other open files): a full pipe is polled, never blocked on */
	fcntl(in[1], F_SETFL, fcntl(in[1], F_GETFL) | O_NONBLOCK);
	fcntl(outp[0], F_SETFL, fcntl(outp[0], F_GETFL) | O_NONBLOCK);
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

/*
 * Writes queued request bytes until the pipe is full or none is left. A
 * child whose stdin is gone (EPIPE) gets nothing more: its unanswered
 * requests are then reported when their answers are waited for.
 */
static int write_some(struct sim_child *c)
{
	while (c->opos < c->olen && !c->closed_in) {
		ssize_t w = write(c->to, c->out + c->opos, c->olen - c->opos);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (w < 0 && errno == EPIPE) {
			c->closed_in = true;
			break;
		}
		if (w < 0) {
			char req[REQUEST_MAX];
			return fail(c, "writing request '%s': %s", head_text(c, req), strerror(errno));
		}
		c->opos += (size_t)w;
		c->written += (uint64_t)w;
	}
	if (c->opos == c->olen || c->closed_in)
		c->opos = c->olen = 0;
	return RL_OK;
}

/*
 * Reads the answer bytes that have come (none: no wait), counting the
 * complete lines; a partial line longer than an answer may be fails.
 */
static int read_some(struct sim_child *c)
{
	if (c->ipos == c->ilen) /* all consumed: then ipart == ilen too */
		c->ipos = c->ilen = c->ipart = 0;
	if (c->icap - c->ilen < READ_CHUNK && c->ipos > 0) { /* keep the unconsumed bytes at the front */
		memmove(c->in, c->in + c->ipos, c->ilen - c->ipos);
		c->ilen -= c->ipos;
		c->ipart -= c->ipos;
		c->ipos = 0;
	}
	if (c->icap - c->ilen < READ_CHUNK) { /* answers of many requests not consumed yet */
		char *in = realloc(c->in, 2 * c->icap);
		if (!in)
			return fail(c, "out of memory for its answers");
		c->in = in;
		c->icap *= 2;
	}
	for (;;) {
		ssize_t n = read(c->from, c->in + c->ilen, READ_CHUNK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return RL_OK;
		if (n < 0) {
			char req[REQUEST_MAX];
			return fail(c, "reading the answer to request '%s': %s", head_text(c, req), strerror(errno));
		}
		if (n == 0) {
			c->eof = true;
			return RL_OK;
		}
		const char *p = c->in + c->ilen, *end = p + n, *nl;
		c->ilen += (size_t)n;
		while ((nl = memchr(p, '\n', (size_t)(end - p)))) {
			c->ilines++;
			p = nl + 1;
			c->ipart = (size_t)(p - c->in);
		}
		if (c->ilen - c->ipart >= ANSWER_MAX) {
			char req[REQUEST_MAX];
			uint64_t i = c->phead + c->ilines; /* the request this line answers, if any */
			return fail(c, "answered a line longer than %d bytes to request '%s'", ANSWER_MAX - 1,
				    request_text(c, i < c->ptail ? i : c->ptail - 1, req, sizeof(req)));
		}
		return RL_OK;
	}
}

/* The child owes answers not read yet: reading it cannot take what no request asked for. */
static bool owes(const struct sim_child *c)
{
	return !c->eof && c->ilines < c->ptail - c->phead;
}

int sim_child_send(void *ctx, int64_t t_ns, uint32_t key, int64_t cost)
{
	struct sim_child *c = ctx;

	if (c->failed)
		return RL_EINVAL;
	if (c->ptail - c->phead == c->pcap) { /* the ring full: twice as long, oldest first at 0 */
		struct request *p = malloc(2 * c->pcap * sizeof(*p));
		if (!p)
			return fail(c, "out of memory for its requests");
		for (uint64_t i = c->phead; i < c->ptail; i++)
			p[i - c->phead] = c->pend[i & (c->pcap - 1)];
		free(c->pend);
		c->pend = p;
		c->ptail -= c->phead;
		c->phead = 0;
		c->pcap *= 2;
	}
	if (c->ocap - c->olen < REQUEST_MAX) {
		char *o = realloc(c->out, 2 * c->ocap);
		if (!o)
			return fail(c, "out of memory for its requests");
		c->out = o;
		c->ocap *= 2;
	}
	int n = cost == 1 ? snprintf(c->out + c->olen, REQUEST_MAX, "%lld %u\n", (long long)t_ns, key)
			  : snprintf(c->out + c->olen, REQUEST_MAX, "%lld %u %lld\n", (long long)t_ns, key, (long long)cost);
	c->olen += (size_t)n;
	c->counts.requests++;
	c->counts.ahead += c->ptail > c->phead;
	c->pend[c->ptail++ & (c->pcap - 1)] = (struct request){ .t_ns = t_ns, .cost = cost, .key = key,
								.end = c->written + (c->olen - c->opos) };
	if (c->olen - c->opos < WRITE_AT)
		return RL_OK;
	int rc = write_some(c);
	/* the pipe full: the child may be blocked on a full stdout of answers, which we take */
	if (rc == RL_OK && c->olen > c->opos && owes(c))
		rc = read_some(c);
	return rc;
}

/* Waits until the oldest unanswered request's answer line has come (ilines > 0). */
static int wait_answer(struct sim_child *c)
{
	if (c->ilines) /* come already: what is queued waits for the next wait or WRITE_AT */
		return RL_OK;
	int rc = write_some(c);
	if (rc == RL_OK && owes(c))
		rc = read_some(c);
	if (rc || c->ilines)
		return rc;
	c->counts.waits++;
	int64_t deadline = mono_ns() + c->timeout_ns;
	char req[REQUEST_MAX];
	while (!c->ilines) {
		if (c->eof)
			return gone(c, c->ilen > c->ipos ? "in the middle of its answer to" : "without answering");
		if (c->closed_in && c->pend[c->phead & (c->pcap - 1)].end > c->written)
			return gone(c, "before reading");
		int64_t left = deadline - mono_ns();
		if (left <= 0)
			return fail(c, "gave no answer within %.3fs to request '%s'%s", (double)c->timeout_ns * 1e-9,
				    head_text(c, req),
				    c->answers ? ""
					       : " (its first: it may not be flushing its output; a decider must flush "
						 "each answer line, e.g. print(..., flush=True), fflush(stdout), or run it "
						 "under `stdbuf -oL`)");
		struct pollfd p[2] = { { .fd = c->from, .events = POLLIN }, { .fd = c->to, .events = POLLOUT } };
		nfds_t n = c->olen > c->opos ? 2 : 1;
		int r = poll(p, n, (int)((left + 999999) / 1000000));
		if (r < 0 && errno != EINTR)
			return fail(c, "waiting for the answer to request '%s': %s", head_text(c, req), strerror(errno));
		if (r <= 0)
			continue;
		if (n == 2 && p[1].revents && (rc = write_some(c)))
			return rc;
		if (p[0].revents && (rc = read_some(c)))
			return rc;
	}
	return RL_OK;
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

int sim_child_answer(void *ctx, int64_t t_ns, uint32_t key, int64_t cost, int64_t *retry_after_ns)
{
	struct sim_child *c = ctx;
	int verdict;
	int64_t retry;
	char req[REQUEST_MAX];

	(void)t_ns;
	(void)key;
	(void)cost;
	if (c->failed || wait_answer(c))
		return RL_EINVAL;
	char *line = c->in + c->ipos, *nl = memchr(line, '\n', c->ilen - c->ipos);
	if (nl - line >= ANSWER_MAX) /* came whole in one read: as long a line as read_some refuses */
		return fail(c, "answered a line longer than %d bytes to request '%s'", ANSWER_MAX - 1, head_text(c, req));
	*nl = '\0';
	c->ipos = (size_t)(nl - c->in) + 1;
	c->ilines--;
	c->answers++;
	if (nl > line && nl[-1] == '\r')
		nl[-1] = '\0';
	char reply[SIM_QUOTE_SIZE], why[2 * SIM_QUOTE_SIZE];
	sim_quote(reply, line);
	if (!parse_answer(line, &verdict, &retry, why, sizeof(why)))
		return fail(c, "answered %s to request '%s': %s; an answer is 'V [RETRY_NS] [NAME=VALUE ...]' "
			    "with V 1 or 0", reply, head_text(c, req), why);
	c->phead++;
	if (retry_after_ns)
		*retry_after_ns = verdict ? 0 : (retry > 0 ? retry : 1);
	return verdict;
}

int sim_child_decide(void *ctx, int64_t t_ns, uint32_t key, int64_t cost, int64_t *retry_after_ns)
{
	int rc = sim_child_send(ctx, t_ns, key, cost);

	return rc ? rc : sim_child_answer(ctx, t_ns, key, cost, retry_after_ns);
}

void sim_child_counts(const struct sim_child *c, struct sim_child_counts *out)
{
	*out = c->counts;
}

const char *sim_child_error(const struct sim_child *c)
{
	return c && c->failed ? c->err : NULL;
}

int sim_child_finish(struct sim_child *c, char *msg, size_t msg_len)
{
	int rc = c->failed ? RL_EINVAL : RL_OK;
	bool stopped = !c->failed && c->ptail > c->phead; /* the caller's own error: it wants no more */

	close(c->to);
	if (!c->exited && (c->failed || stopped))
		kill(-c->pid, SIGKILL); /* a failed child may be hung: no need to wait for it */
	if (!c->exited) {
		int64_t end = mono_ns() + c->timeout_ns;
		pid_t p;
		while ((p = waitpid(c->pid, &c->wstatus, WNOHANG)) == 0 && mono_ns() < end)
			nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
		if (p != c->pid) {
			kill(-c->pid, SIGKILL);
			waitpid(c->pid, &c->wstatus, 0);
			if (!c->failed && !stopped)
				fail(c, "did not exit within %.3fs after its input ended", (double)c->timeout_ns * 1e-9);
		}
		c->exited = true;
	}
	if (!c->failed && !stopped && !(WIFEXITED(c->wstatus) && WEXITSTATUS(c->wstatus) == 0)) {
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
	free_child(c);
	return rc;
}
