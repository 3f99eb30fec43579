/*
 * import_sort.c - model: a stable bottom-up merge sort on the time, which
 * first insertion-sorts runs of 32, then merges runs of doubling width.
 * Each merge first trims what is already in place (the left run's
 * prefix no later than the right run's first time, the right run's suffix
 * no earlier than the left run's last, found by binary search), so a log
 * whose lines are only locally out of order costs about one pass per
 * level; stability: of equal times, the left run's come first.
 */
#include <stdlib.h>
#include <string.h>

#include "import_impl.h"

enum { RUN = 32 };

static void insertion(struct imp_rec *r, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct imp_rec x = r[i];
		size_t j = i;
		for (; j > 0 && r[j - 1].t_ns > x.t_ns; j--)
			r[j] = r[j - 1];
		r[j] = x;
	}
}

/* First index in r[lo..hi) with a time > t (upper bound). */
static size_t after(const struct imp_rec *r, size_t lo, size_t hi, int64_t t)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r[mid].t_ns > t)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* First index in r[lo..hi) with a time >= t (lower bound). */
static size_t not_before(const struct imp_rec *r, size_t lo, size_t hi, int64_t t)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r[mid].t_ns >= t)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/*
 * Merges the sorted runs r[lo..mid) and r[mid..hi) through tmp, which
 * holds the shorter of the two (at most half of the records).
 */
static void merge(struct imp_rec *r, size_t lo, size_t mid, size_t hi, struct imp_rec *tmp)
{
	if (r[mid - 1].t_ns <= r[mid].t_ns)
		return;
	lo = after(r, lo, mid, r[mid].t_ns);
	hi = not_before(r, mid, hi, r[mid - 1].t_ns);
	size_t nl = mid - lo, nr = hi - mid;
	if (nl <= nr) { /* forwards, the left run in tmp */
		size_t i = 0, j = mid, o = lo;
		memcpy(tmp, r + lo, nl * sizeof(*r));
		while (i < nl && j < hi)
			r[o++] = r[j].t_ns < tmp[i].t_ns ? r[j++] : tmp[i++];
		memcpy(r + o, tmp + i, (nl - i) * sizeof(*r));
	} else { /* backwards, the right run in tmp */
		size_t i = mid, j = nr, o = hi;
		memcpy(tmp, r + mid, nr * sizeof(*r));
		while (i > lo && j > 0)
			r[--o] = tmp[j - 1].t_ns >= r[i - 1].t_ns ? tmp[--j] : r[--i];
		memcpy(r + lo, tmp, j * sizeof(*r));
	}
}

bool imp_sort(struct imp_rec *r, size_t n)
{
	size_t i;

	for (i = 1; i < n && r[i - 1].t_ns <= r[i].t_ns; i++)
		;
	if (i >= n)
		return true;
	struct imp_rec *tmp = malloc((n / 2 + 1) * sizeof(*tmp));
	if (!tmp)
		return false;
	for (i = 0; i < n; i += RUN)
		insertion(r + i, n - i < RUN ? n - i : RUN);
	for (size_t w = RUN; w < n; w *= 2)
		for (i = 0; i + w < n; i += 2 * w)
			merge(r, i, i + w, n - i - w < w ? n : i + 2 * w, tmp);
	free(tmp);
	return true;
}

void imp_spread(struct imp_rec *r, size_t n, int64_t res_ns)
{
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && r[j].t_ns == r[i].t_ns; j++)
			;
		uint64_t m = j - i;
		for (size_t k = 1; k < m; k++)
			r[i + k].t_ns += (int64_t)((unsigned __int128)k * (uint64_t)res_ns / m);
	}
}
