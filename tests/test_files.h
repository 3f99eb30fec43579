/*
 * test_files.h - reading a test's output files whole (cmocka tests): one
 * copy for the tests that compare files a command wrote.
 */
#ifndef RATELAB_TESTS_TEST_FILES_H
#define RATELAB_TESTS_TEST_FILES_H

#include <stdio.h>
#include <stdlib.h>

/* dir/name's bytes, NUL-terminated, its length in *len (len may be NULL; 0 on failure); NULL when it cannot be
 * opened. */
static inline char *tf_slurp(const char *dir, const char *name, size_t *len)
{
	char path[512];
	if (len)
		*len = 0;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	char *b = malloc(cap);
	assert_non_null(b);
	for (size_t got; (got = fread(b + n, 1, cap - n - 1, f)) > 0;) {
		n += got;
		if (n + 1 == cap) {
			cap *= 2;
			b = realloc(b, cap);
			assert_non_null(b);
		}
	}
	assert_int_equal(fclose(f), 0);
	b[n] = '\0';
	if (len)
		*len = n;
	return b;
}

#endif
