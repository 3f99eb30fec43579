/*
 * model.h - slow, obviously correct reference models of every limiter
 * algorithm and of the rate-limit circuit breaker, written from the issue's
 * and the spec's words, not from the implementation. The property tests
 * compare the implementation with these on random traces.
 *
 * The models keep the most literal state the words suggest:
 *   token_bucket     the tokens, as an exact fraction with denominator W
 *                    (tok_w = tokens * W), refilled by N/W per ns = N per ns
 *                    in those units, capped at B; admit iff tokens >= 1.
 *   gcra             not modelled apart: the issue says it decides as
 *                    token_bucket does (T = W / N exactly, for every N
 *                    and W, while its tolerance is not capped).
 *   leaky_bucket     when the last admitted request's service ends,
 *                    exactly: e = s + c * W/N with s = max(t, e_prev), kept
 *                    times N so it is an integer; admit iff the last unit's
 *                    wait s + (c - 1) * W/N - t <= B * W / N and c <= B.
 *   fixed_window,    a plain array of every accepted request's timestamp
 *   sliding_log,     with its units (a request of cost c adds (t, c)), scanned in
 *   sliding_counter  full for each decision: fixed_window counts those with
 *                    floor(x/W) == floor(t/W); sliding_log those with
 *                    t - W < x <= t; sliding_counter recomputes prev and
 *                    curr from the list and admits iff
 *                    prev * (W - e) + (curr + c - 1) * W < N * W.
 * A request costs c units (cost.md's rules): token_bucket admits iff
 * tokens >= c and takes c; fixed_window and sliding_log iff count + c <= N;
 * a cost above B (buckets) or N (windows) is never admitted and leaves the
 * key exactly as it was.
 *   breaker          a plain array of accepted timestamps plus the state
 *                    and the time it opened, per the spec's rules.
 *
 * The answers are found by brute force on copies of the model:
 *   remaining   how many more cost-1 requests a copy admits at the same
 *               instant (whole units): the least k for which k of them in
 *               a row are not all admitted, less one, found by bisection
 *               (k in a row are admitted iff the kth is: monotone in k),
 *               so that N, B up to 10^12 are searched in 40 probes;
 *   retry_after the smallest d >= 1 such that a copy admits a request of
 *               the same cost at t + d
 *               (admission is monotone in d when nothing else arrives, so
 *               doubling then bisection finds it; d - 1 is checked too);
 *   reset       the smallest d >= 0 at which a copy's remaining (before any
 *               request) is its maximum (B, B + 1 or N);
 *   delay       the admitted request's s_i - t_i, rounded up to whole ns.
 * Durations above INT64_MAX saturate at INT64_MAX, as the library's do.
 * Model times are 128-bit so that probes past 4 * 10^18 cannot overflow.
 *
 * Header-only, every function static inline (the tests' CMake glob makes
 * one program per test_*.c). No floating point anywhere.
 */
#ifndef RATELAB_TESTS_MODEL_H
#define RATELAB_TESTS_MODEL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "test_rng.h"

typedef __int128 m_i128;
typedef unsigned __int128 m_u128;

#define M_TIME_MAX 4000000000000000000LL
#define M_EINVAL (-1)
#define M_ERANGE (-3)
#define M_COST_MAX 1000000000000LL

/* ------------------------------------------------------------------ */
/* A tiny deterministic PRNG (splitmix64) for the random traces.       */

struct m_rng {
	uint64_t s;
};

static inline uint64_t m_rng_next(struct m_rng *r)
{
	return t_splitmix(&r->s);
}

/* Uniform in [lo, hi] (inclusive); modulo bias is irrelevant here. */
static inline int64_t m_rng_range(struct m_rng *r, int64_t lo, int64_t hi)
{
	uint64_t span = (uint64_t)hi - (uint64_t)lo + 1;
	return span == 0 ? (int64_t)m_rng_next(r) : (int64_t)((uint64_t)lo + m_rng_next(r) % span);
}

/* The seed: RL_SEED from the environment when set, else def. */
static inline uint64_t m_seed_from_env(uint64_t def)
{
	return t_seed_from_env(def);
}

/* ------------------------------------------------------------------ */
/* The limiter models.                                                 */

enum m_kind { M_TOKEN_BUCKET, M_LEAKY_BUCKET, M_FIXED_WINDOW, M_SLIDING_LOG, M_SLIDING_COUNTER };

struct m_lim {
	enum m_kind kind;
	int64_t n; /* requests per window */
	int64_t w; /* window, ns */
	int64_t b; /* burst */
};

struct m_key {
	int seen;
	m_i128 last; /* last seen time: earlier times are clamped to it */
	/* token_bucket: tokens * W at time tb_at (meaningful once tb_any);
	 * negative after a settle's charge: tokens owed */
	int tb_any;
	m_i128 tok_w;
	m_i128 tb_at;
	/* leaky_bucket: when the last admitted request's service ends, times N */
	int lb_any;
	m_i128 lb_end_n;
	/* the cost m_admits_at asks about (the last request's) */
	int64_t probe_cost;
	/* window algorithms: every accepted request's timestamp and its
	 * units (acc[i], units[i]), oldest first */
	m_i128 *acc;
	int64_t *units;
	size_t len, cap;
	int is_copy; /* a copy shares acc and must never reallocate it */
};

struct m_answer {
	int verdict; /* 1 allowed, 0 rejected, M_ERANGE */
	int64_t t_eff; /* the time the request was decided at (after the clamp) */
	int64_t remaining, retry_after_ns, reset_ns, delay_ns;
};

static inline void m_key_free(struct m_key *k)
{
	if (!k->is_copy) {
		free(k->acc);
		free(k->units);
	}
	memset(k, 0, sizeof(*k));
}

static inline void m_reserve(struct m_key *k, size_t want)
{
	if (k->cap >= want)
		return;
	if (k->is_copy) {
		fprintf(stderr, "model.h: a copy must not grow\n");
		abort();
	}
	size_t cap = k->cap ? k->cap : 16;
	while (cap < want)
		cap *= 2;
	k->acc = realloc(k->acc, cap * sizeof(*k->acc));
	k->units = realloc(k->units, cap * sizeof(*k->units));
	if (!k->acc || !k->units)
		abort();
	k->cap = cap;
}

/* Records units (>= 1) accepted at t. */
static inline void m_push_n(struct m_key *k, m_i128 t, int64_t units)
{
	m_reserve(k, k->len + 1);
	k->acc[k->len] = t;
	k->units[k->len++] = units;
}

static inline void m_push(struct m_key *k, m_i128 t)
{
	m_push_n(k, t, 1);
}

/* The most requests a key can make at one instant: a fresh key's. */
static inline int64_t m_max_capacity(const struct m_lim *m)
{
	switch (m->kind) {
	case M_TOKEN_BUCKET:
		return m->b;
	case M_LEAKY_BUCKET:
		return m->b + 1; /* one in service, B waiting */
	default:
		return m->n;
	}
}

/* The largest cost one request can ever have admitted (cost.md): B for the
 * buckets, N for the windows; a larger one is rejected and changes nothing. */
static inline int64_t m_cost_cap(const struct m_lim *m)
{
	return m->kind == M_TOKEN_BUCKET || m->kind == M_LEAKY_BUCKET ? m->b : m->n;
}

/* floor(a / b) for b > 0 (times are never negative here; be literal anyway) */
static inline m_i128 m_floor_div(m_i128 a, int64_t b)
{
	m_i128 q = a / b;
	if (a % b != 0 && a < 0)
		q--;
	return q;
}

/* The window algorithms' counts at t over the list of accepted timestamps. */
struct m_counts {
	m_i128 in_window; /* fixed_window: floor(x/W) == floor(t/W); sliding_log: t - W < x <= t */
	m_i128 prev, curr; /* sliding_counter: in window floor(t/W) - 1, and floor(t/W) */
};

static inline struct m_counts m_count(const struct m_lim *m, const struct m_key *k, m_i128 t)
{
	struct m_counts c = { 0, 0, 0 };
	m_i128 start = m_floor_div(t, m->w) * m->w; /* t's window is [start, start + W) */

	for (size_t i = 0; i < k->len; i++) {
		m_i128 x = k->acc[i], u = k->units[i];
		if (m->kind == M_SLIDING_LOG) {
			c.in_window += (t - m->w < x && x <= t) * u;
		} else {
			c.in_window += (start <= x && x < start + m->w) * u;
			c.curr += (start <= x && x < start + m->w) * u;
			c.prev += (start - m->w <= x && x < start) * u;
		}
	}
	return c;
}

/* The window algorithms' rules for a request of cost units, on the counts at t. */
static inline int m_window_ok(const struct m_lim *m, m_i128 t, struct m_counts c, int64_t cost)
{
	if (m->kind == M_SLIDING_COUNTER) {
		m_u128 n = (m_u128)m->n, w = (m_u128)m->w;
		m_u128 e = (m_u128)(t - m_floor_div(t, m->w) * m->w);
		return (m_u128)c.prev * (w - e) + ((m_u128)c.curr + (m_u128)cost - 1) * w < n * w;
	}
	return c.in_window + cost <= m->n;
}

/*
 * Decides a request of cost units at t (t >= the key's last seen time);
 * with commit the request is recorded. *delay_n receives leaky_bucket's
 * delay times N.
 */
static inline int m_decide(const struct m_lim *m, struct m_key *k, m_i128 t, int64_t cost,
			   int commit, m_i128 *delay_n)
{
	m_u128 c = (m_u128)cost;
	m_u128 n = (m_u128)m->n, w = (m_u128)m->w, b = (m_u128)m->b;

	switch (m->kind) {
	case M_TOKEN_BUCKET: {
		m_i128 full = (m_i128)(b * w);
		m_i128 tok = full; /* a new key starts full */
		if (k->tb_any) {
			tok = k->tok_w + (t - k->tb_at) * (m_i128)n;
			if (tok > full)
				tok = full;
		}
		int ok = tok >= (m_i128)(c * w); /* at least c whole tokens */
		if (commit) {
			k->tb_any = 1;
			k->tok_w = ok ? tok - (m_i128)(c * w) : tok;
			k->tb_at = t;
		}
		return ok;
	}
	case M_LEAKY_BUCKET: {
		m_i128 arrive_n = t * (m_i128)n;
		m_i128 serve_n = arrive_n;
		if (k->lb_any && k->lb_end_n > serve_n)
			serve_n = k->lb_end_n;
		m_i128 last_wait_n = serve_n + (m_i128)((c - 1) * w) - arrive_n;
		/* cost.md: a cost above B is never admitted */
		int ok = last_wait_n <= (m_i128)(b * w) && c <= b;
		if (delay_n)
			*delay_n = serve_n - arrive_n;
		if (commit && ok) {
			k->lb_end_n = serve_n + (m_i128)(c * w);
			k->lb_any = 1;
		}
		return ok;
	}
	case M_FIXED_WINDOW:
	case M_SLIDING_LOG:
	case M_SLIDING_COUNTER: {
		int ok = m_window_ok(m, t, m_count(m, k, t), cost);
		if (commit && ok)
			m_push_n(k, t, cost);
		return ok;
	}
	}
	abort();
}

/* A copy of k (its timestamp list shared, never grown) for the buckets. */
static inline struct m_key m_copy(const struct m_key *k)
{
	struct m_key c = *k;
	c.is_copy = 1;
	return c;
}

static inline int m_is_window(const struct m_lim *m)
{
	return m->kind == M_FIXED_WINDOW || m->kind == M_SLIDING_LOG ||
	       m->kind == M_SLIDING_COUNTER;
}

/* Are `units` cost-1 requests in a row at t all admitted (k in a row are
 * iff the kth is)? The buckets: the kth unit finds k * W of tokens, or
 * waits (k - 1) * W / N behind the queue at most B * W / N (no cost cap:
 * these are k requests of 1); the windows: the counts plus k - 1 leave
 * room for one. */
static inline int m_units_fit(const struct m_lim *m, const struct m_key *k, m_i128 t, int64_t units)
{
	if (units == 0)
		return 1;
	if (m->kind == M_TOKEN_BUCKET) {
		struct m_key c = m_copy(k);
		return m_decide(m, &c, t, units, 0, NULL);
	}
	if (m->kind == M_LEAKY_BUCKET) {
		m_i128 n = m->n, w = m->w, arrive_n = t * n, serve_n = arrive_n;
		if (k->lb_any && k->lb_end_n > serve_n)
			serve_n = k->lb_end_n;
		return serve_n + (m_i128)(units - 1) * w - arrive_n <= (m_i128)m->b * w;
	}
	struct m_counts now = m_count(m, k, t);
	now.in_window += units - 1;
	now.curr += units - 1;
	return m_window_ok(m, t, now, 1);
}

/* How many requests a copy of k admits, one after another, at t: at most
 * the fresh key's capacity plus one, by bisection on m_units_fit. */
static inline int64_t m_capacity(const struct m_lim *m, const struct m_key *k, m_i128 t)
{
	int64_t lo = 0, hi = m_max_capacity(m) + 1; /* lo fits, hi is the cut */

	if (m_units_fit(m, k, t, hi))
		return hi;
	while (hi - lo > 1) {
		int64_t mid = lo + (hi - lo) / 2;
		if (m_units_fit(m, k, t, mid))
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* Would a copy of k admit a request of k->probe_cost at t? */
static inline int m_admits_at(const struct m_lim *m, struct m_key *k, m_i128 t)
{
	return m_decide(m, k, t, k->probe_cost, 0, NULL);
}

static inline int m_full_at(const struct m_lim *m, struct m_key *k, m_i128 t)
{
	return m_capacity(m, k, t) == m_max_capacity(m);
}

/*
 * The smallest d >= from, d <= INT64_MAX, with pred(m, k, t + d); INT64_MAX
 * when there is none (saturation). pred must be monotone in d.
 */
static inline int64_t m_search(const struct m_lim *m, struct m_key *k, m_i128 t, int64_t from,
			       int (*pred)(const struct m_lim *, struct m_key *, m_i128))
{
	if (pred(m, k, t + from))
		return from;
	if (!pred(m, k, t + (m_i128)INT64_MAX))
		return INT64_MAX;
	/* bracket the answer: lo false, hi true; double while the wait is
	 * small, else bisect all of [2^32, INT64_MAX] (fewer probes) */
	m_i128 lo = from, hi = from + 1;
	const m_i128 big = (m_i128)1 << 32;
	if (!pred(m, k, t + big)) {
		lo = big;
		hi = INT64_MAX;
	}
	while (hi < big && !pred(m, k, t + hi)) {
		lo = hi;
		hi *= 2;
	}
	while (hi - lo > 1) {
		m_i128 mid = lo + (hi - lo) / 2;
		if (pred(m, k, t + mid))
			hi = mid;
		else
			lo = mid;
	}
	/* the defining property, checked literally */
	if (!pred(m, k, t + hi) || (hi > from && pred(m, k, t + hi - 1))) {
		fprintf(stderr, "model.h: a predicate is not monotone\n");
		abort();
	}
	return (int64_t)hi;
}

/* One request of cost units at t for key k: the model's decision and its answers. */
static inline int m_check_n(const struct m_lim *m, struct m_key *k, int64_t t, int64_t cost,
			    struct m_answer *a)
{
	memset(a, 0, sizeof(*a));
	if (t < 0 || t > M_TIME_MAX)
		return a->verdict = M_ERANGE;
	if (cost < 1 || cost > M_COST_MAX)
		return a->verdict = M_EINVAL;

	m_i128 now = t;
	if (k->seen && now < k->last)
		now = k->last; /* a time going backwards counts as the last seen one */

	m_i128 wait_n = 0;
	struct m_key before = *k; /* a cost above the cap leaves the key as it was */
	int ok = m_decide(m, k, now, cost, 1, &wait_n);

	k->seen = 1;
	k->last = now;
	a->verdict = ok;
	a->t_eff = (int64_t)now;
	a->remaining = m_capacity(m, k, now);
	k->probe_cost = cost;
	a->retry_after_ns = ok ? 0 : m_search(m, k, now, 1, m_admits_at);
	a->reset_ns = m_search(m, k, now, 0, m_full_at);
	if (m->kind == M_LEAKY_BUCKET && ok) {
		m_i128 d = (wait_n + m->n - 1) / m->n; /* whole ns, rounded up */
		a->delay_ns = d > INT64_MAX ? INT64_MAX : (int64_t)d;
	}
	if (cost > m_cost_cap(m))
		*k = before; /* not even the last seen time moves */
	return ok;
}

/* One request of cost 1. */
static inline int m_check(const struct m_lim *m, struct m_key *k, int64_t t, struct m_answer *a)
{
	return m_check_n(m, k, t, 1, a);
}

/* ------------------------------------------------------------------ */
/* A rule change on a live key (algo.h, each algorithm's header), as   */
/* the words state it, on the model's own state.                       */

/* ceil(a * b / c) for a < 2^128, b, c < 2^64, c > 0, the quotient below
 * 2^128: the product as two 128-bit words, divided bit by bit. */
static inline m_u128 m_muldiv_ceil(m_u128 a, uint64_t b, uint64_t c)
{
	m_u128 x = (m_u128)(uint64_t)a * b, y = (m_u128)(uint64_t)(a >> 64) * b;
	m_u128 lo = x + (y << 64), hi = (y >> 64) + (lo < x);
	m_u128 q = 0, rem = 0;

	for (int i = 255; i >= 0; i--) {
		uint64_t bit = (uint64_t)((i >= 128 ? hi >> (i - 128) : lo >> i) & 1);
		rem = rem * 2 + bit;
		q <<= 1;
		if (rem >= c) {
			rem -= c;
			q |= 1;
		}
	}
	return q + (rem != 0);
}

/* The units used in the key's current window list at now, dropped and
 * replaced by units entries at now (and prev_units at before_ns). */
static inline void m_refill(struct m_key *k, m_i128 now, int64_t units, m_i128 before_ns, int64_t prev_units)
{
	k->len = 0;
	if (prev_units > 0)
		m_push_n(k, before_ns, prev_units);
	if (units > 0)
		m_push_n(k, now, units);
}

static inline int64_t m_min64(m_i128 a, int64_t b)
{
	return a < b ? (int64_t)a : b;
}

/*
 * The state written under `from` converted for a check under `to` at t
 * (clamped to the key's last seen time): the quota used so far, in the
 * new rule's terms, clamped to its capacity. gcra is modelled as its token
 * bucket (N per W, burst B), where the used quota is gcra's debt.
 */
static inline void m_rerule(const struct m_lim *from, const struct m_lim *to, struct m_key *k, int64_t t)
{
	m_i128 now = k->seen && t < k->last ? k->last : t;
	m_u128 w0 = (m_u128)from->w, w1 = (m_u128)to->w;

	switch (from->kind) {
	case M_TOKEN_BUCKET: {
		m_i128 full0 = (m_i128)((m_u128)from->b * w0), tok = full0;
		if (k->tb_any) {
			tok = k->tok_w + (now - k->tb_at) * (m_i128)from->n;
			tok = tok > full0 ? full0 : tok;
		}
		m_u128 used = m_muldiv_ceil((m_u128)(full0 - tok), (uint64_t)w1, (uint64_t)w0), full1 = (m_u128)to->b * w1;
		used = used > full1 ? full1 : used;
		k->tok_w = (m_i128)(full1 - used);
		k->tb_at = now;
		k->tb_any = 1;
		break;
	}
	case M_LEAKY_BUCKET: {
		m_i128 queued = k->lb_any ? k->lb_end_n - now * from->n : 0;
		m_u128 used = queued > 0 ? m_muldiv_ceil((m_u128)queued, (uint64_t)w1, (uint64_t)w0) : 0;
		m_u128 full1 = (m_u128)to->b * w1;
		used = used > full1 ? full1 : used;
		k->lb_end_n = now * to->n + (m_i128)used;
		k->lb_any = 1;
		break;
	}
	case M_FIXED_WINDOW: {
		struct m_counts c = m_count(from, k, now);
		m_refill(k, now, m_min64(c.in_window, to->n), 0, 0);
		break;
	}
	case M_SLIDING_COUNTER: {
		struct m_counts c = m_count(from, k, now);
		m_i128 start = m_floor_div(now, from->w) * from->w;
		if (to->w == from->w) {
			m_refill(k, now, m_min64(c.curr, to->n), start - 1, m_min64(c.prev, to->n));
		} else {
			m_u128 left = (m_u128)(start + from->w - now); /* W0 - e */
			m_u128 u = (m_u128)c.curr + m_muldiv_ceil((m_u128)c.prev, (uint64_t)left, (uint64_t)from->w);
			m_refill(k, now, m_min64((m_i128)u, to->n), 0, 0);
		}
		break;
	}
	case M_SLIDING_LOG: {
		/* admissions at or before now - min(W0, W1) have left a window */
		int64_t w = from->w < to->w ? from->w : to->w;
		size_t kept = 0;
		for (size_t i = 0; i < k->len; i++)
			if (k->acc[i] > now - w) {
				k->units[kept] = k->units[i];
				k->acc[kept++] = k->acc[i];
			}
		k->len = kept;
		break;
	}
	}
	k->seen = 1;
	k->last = now;
}

/* ------------------------------------------------------------------ */
/* A settle on a bucket (settle.h, each bucket's header), as the words  */
/* state it, on the model's own state: the tokens or the queue at t     */
/* (clamped to the key's last seen time), moved by delta units and      */
/* kept within [the debt, full]; the key's time moves to t. gcra is its */
/* token bucket (1 per T ns, burst B), where 2 * (tau + T) = 2 * B * T. */

static inline void m_settle_bucket(const struct m_lim *m, struct m_key *k, int64_t delta, int64_t t)
{
	m_i128 now = k->seen && t < k->last ? k->last : t;
	m_i128 n = m->n, w = m->w, b = m->b, d = (m_i128)delta * w;

	if (m->kind == M_TOKEN_BUCKET) {
		m_i128 full = b * w, tok = full; /* tokens * W, at most B, at least -B: B owed */
		if (k->tb_any) {
			tok = k->tok_w + (now - k->tb_at) * n;
			tok = tok > full ? full : tok;
		}
		tok -= d;
		k->tok_w = tok > full ? full : tok < -full ? -full : tok;
		k->tb_at = now;
		k->tb_any = 1;
	} else if (m->kind == M_LEAKY_BUCKET) {
		/* the units queued, times W: at least 0, at most 2 * B + 1 */
		m_i128 queued = k->lb_any && k->lb_end_n > now * n ? k->lb_end_n - now * n : 0;
		queued += d;
		queued = queued < 0 ? 0 : queued > (2 * b + 1) * w ? (2 * b + 1) * w : queued;
		k->lb_end_n = now * n + queued;
		k->lb_any = 1;
	} else {
		abort(); /* the windows' settles are test_settle.c's, on the list */
	}
	k->seen = 1;
	k->last = now;
}

/* ------------------------------------------------------------------ */
/* The rate-limit circuit breaker, per the spec's rules.               */

enum m_bstate { M_CLOSED, M_OPEN, M_HALF_OPEN };

struct m_breaker {
	int64_t limit, window, open_for;
	enum m_bstate state;
	int64_t opened_at;
	int64_t *acc; /* accepted timestamps of the current request window */
	size_t len, cap;
};

static inline void m_breaker_init(struct m_breaker *b, int64_t limit, int64_t window,
				  int64_t open_for)
{
	memset(b, 0, sizeof(*b));
	b->limit = limit;
	b->window = window;
	b->open_for = open_for;
	b->state = M_CLOSED;
}

static inline void m_breaker_free(struct m_breaker *b)
{
	free(b->acc);
	memset(b, 0, sizeof(*b));
}

/* "Before processing any public method call, the breaker first computes
 * the effective state": OPEN turns HALF_OPEN once open_for has passed. */
static inline void m_breaker_effective(struct m_breaker *b, int64_t t)
{
	if (b->state == M_OPEN && t - b->opened_at >= b->open_for)
		b->state = M_HALF_OPEN;
}

static inline enum m_bstate m_breaker_state(struct m_breaker *b, int64_t t)
{
	m_breaker_effective(b, t);
	return b->state;
}

/* 1 accepted, 0 rejected; *before is the effective state before it. */
static inline int m_breaker_handle(struct m_breaker *b, int64_t t, enum m_bstate *before)
{
	m_breaker_effective(b, t);
	*before = b->state;
	if (b->state == M_OPEN)
		return 0;
	if (b->state == M_HALF_OPEN) {
		/* the probe; a new window containing only it */
		b->len = 0;
		if (b->cap == 0) {
			b->cap = 16;
			b->acc = malloc(b->cap * sizeof(*b->acc));
			if (!b->acc)
				abort();
		}
		b->acc[b->len++] = t;
		b->state = M_CLOSED;
		return 1;
	}
	int64_t in_window = 0;
	for (size_t i = 0; i < b->len; i++)
		if (t - b->window < b->acc[i] && b->acc[i] <= t)
			in_window++;
	if (in_window < b->limit) {
		if (b->len == b->cap) {
			b->cap = b->cap ? b->cap * 2 : 16;
			b->acc = realloc(b->acc, b->cap * sizeof(*b->acc));
			if (!b->acc)
				abort();
		}
		b->acc[b->len++] = t;
		return 1;
	}
	b->state = M_OPEN;
	b->opened_at = t;
	return 0;
}

static inline const char *m_bstate_name(enum m_bstate s)
{
	return s == M_CLOSED ? "CLOSED" : s == M_OPEN ? "OPEN" : "HALF_OPEN";
}

#endif
