/*
 * tiers_file.h - a scratch tiers file for the reload tests
 * (test_store_rerule, test_policy_reload): made by the group's setup
 * (mkstemp under /tmp), rewritten whole by tiers_write, removed by the
 * teardown. Include after <cmocka.h>.
 */
#ifndef RATELAB_TEST_TIERS_FILE_H
#define RATELAB_TEST_TIERS_FILE_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char g_path[64];

/* The file's text, replaced; every write and the close checked. */
static void tiers_write(const char *text)
{
	FILE *f = fopen(g_path, "w");

	assert_non_null(f);
	assert_true(fputs(text, f) >= 0);
	assert_int_equal(fclose(f), 0);
}

static int tiers_setup(void **unused)
{
	(void)unused;
	snprintf(g_path, sizeof(g_path), "/tmp/rl_tiers_XXXXXX");
	int fd = mkstemp(g_path);
	if (fd < 0)
		return -1;
	return close(fd);
}

static int tiers_teardown(void **unused)
{
	(void)unused;
	return unlink(g_path);
}

#endif
