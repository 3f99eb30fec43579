/*
 * test_import_sort.c - the importer's stable sort and spread
 * (import_impl.h) against slow, obviously correct models: an insertion
 * sort that moves a record only past strictly later ones, and the spread
 * written from its definition. Seeded random inputs of every shape the
 * sort has a path for (sorted, reversed, locally out of order like a log
 * written at completion, many equal times, fully random), of sizes around
 * the sort's run length and powers of two; the seed is printed on failure.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "import_impl.h"

static uint64_t rng(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void model_sort(struct imp_rec *r, size_t n)
{
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && r[j - 1].t_ns > r[j].t_ns; j--) {
			struct imp_rec x = r[j];
			r[j] = r[j - 1];
			r[j - 1] = x;
		}
}

/* shape 0 sorted, 1 reversed, 2 locally out of order, 3 few distinct times, 4 random */
static void fill(struct imp_rec *r, size_t n, int shape, uint64_t *s)
{
	for (size_t i = 0; i < n; i++) {
		int64_t t;
		switch (shape) {
		case 0: t = (int64_t)i * 3; break;
		case 1: t = (int64_t)(n - i); break;
		case 2: t = (int64_t)i * 10 + (int64_t)(rng(s) % 200); break;
		case 3: t = (int64_t)(rng(s) % 5); break;
		default: t = (int64_t)(rng(s) % 1000000); break;
		}
		r[i] = (struct imp_rec){ t, (uint32_t)i, 1 };
	}
}

static void sort_against_model(void **u)
{
	(void)u;
	static const size_t sizes[] = { 0, 1, 2, 31, 32, 33, 63, 64, 65, 97, 128, 129, 200, 1000, 4097 };
	uint64_t seed = (uint64_t)time(NULL), s = seed;

	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++)
		for (int shape = 0; shape < 5; shape++)
			for (int rep = 0; rep < (sizes[k] > 1000 ? 2 : 20); rep++) {
				size_t n = sizes[k];
				struct imp_rec *a = malloc((n + 1) * sizeof(*a)), *b = malloc((n + 1) * sizeof(*b));
				assert_non_null(a);
				assert_non_null(b);
				fill(a, n, shape, &s);
				memcpy(b, a, n * sizeof(*a));
				assert_true(imp_sort(a, n));
				model_sort(b, n);
				for (size_t i = 0; i < n; i++)
					if (a[i].t_ns != b[i].t_ns || a[i].key != b[i].key) {
						printf("seed %llu: n %zu shape %d: at %zu got (%lld, #%u) want (%lld, #%u)\n",
						       (unsigned long long)seed, n, shape, i, (long long)a[i].t_ns, a[i].key,
						       (long long)b[i].t_ns, b[i].key);
						fail();
					}
				free(a);
				free(b);
			}
}

static void spread_against_definition(void **u)
{
	(void)u;
	uint64_t seed = (uint64_t)time(NULL), s = seed;

	for (int rep = 0; rep < 200; rep++) {
		size_t n = 1 + rng(&s) % 300;
		int64_t res = (int64_t)1000 * (1 + (int64_t)(rng(&s) % 3));
		struct imp_rec *a = malloc(n * sizeof(*a)), *b = malloc(n * sizeof(*b));
		assert_non_null(a);
		assert_non_null(b);
		int64_t t = 0;
		for (size_t i = 0; i < n; i++) {
			t += rng(&s) % 3 == 0 ? res * (int64_t)(1 + rng(&s) % 2) : 0;
			a[i] = (struct imp_rec){ t, (uint32_t)i, 1 };
		}
		memcpy(b, a, n * sizeof(*a));
		imp_spread(a, n, res);
		for (size_t i = 0; i < n; i++) {
			size_t first = i, last = i, k;
			while (first > 0 && b[first - 1].t_ns == b[i].t_ns)
				first--;
			while (last + 1 < n && b[last + 1].t_ns == b[i].t_ns)
				last++;
			k = i - first;
			int64_t want = b[i].t_ns + (int64_t)k * res / (int64_t)(last - first + 1);
			if (a[i].t_ns != want) {
				printf("seed %llu: at %zu got %lld want %lld\n", (unsigned long long)seed, i,
				       (long long)a[i].t_ns, (long long)want);
				fail();
			}
			assert_true(a[i].t_ns < b[i].t_ns + res); /* inside its tick */
		}
		free(a);
		free(b);
	}
}

/* Three requests in one second: at 0, 1/3 and 2/3 of it, rounded down. */
static void spread_thirds(void **u)
{
	(void)u;
	struct imp_rec r[4] = { { 0, 0, 1 }, { 0, 1, 1 }, { 0, 2, 1 }, { 1000000000, 3, 1 } };

	imp_spread(r, 4, 1000000000);
	assert_int_equal(r[0].t_ns, 0);
	assert_int_equal(r[1].t_ns, 333333333);
	assert_int_equal(r[2].t_ns, 666666666);
	assert_int_equal(r[3].t_ns, 1000000000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sort_against_model),
		cmocka_unit_test(spread_against_definition),
		cmocka_unit_test(spread_thirds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
