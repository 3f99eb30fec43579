/*
 * test_fleet.c - the local-plus-global model (fleet.h)
 * without a store: shares, windows, the sync halves, the clamp, costs;
 * one node equals an exact fixed window; nodes that sync in step never
 * admit more than N per window. Random traces print their seed on
 * failure (RL_SEED replays one).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "ratelab/fleet.h"
#include "test_rng.h"

#define W 1000000000LL /* 1 s */

static struct rl_fleet make_lg(int64_t n, int64_t w, int64_t k, int64_t j)
{
	struct rl_fleet lg;
	char msg[128];

	if (rl_fleet_init(&lg, n, w, k, j, msg, sizeof(msg)) != RL_OK)
		fail_msg("rl_fleet_init(%lld, %lld, %lld, %lld): %s", (long long)n, (long long)w, (long long)k,
			 (long long)j, msg);
	return lg;
}

static void test_init_ranges(void **state)
{
	(void)state;
	struct rl_fleet lg;
	char msg[128];

	assert_int_equal(rl_fleet_init(&lg, 10, W, 0, 0, msg, sizeof(msg)), RL_EINVAL);
	assert_non_null(strstr(msg, "nodes 0"));
	assert_int_equal(rl_fleet_init(&lg, 10, W, 11, 0, msg, sizeof(msg)), RL_EINVAL);
	assert_non_null(strstr(msg, "nodes 11"));
	assert_int_equal(rl_fleet_init(&lg, RL_LIMIT_MAX, W, RL_FLEET_NODES_MAX + 1, 0, NULL, 0), RL_EINVAL);
	assert_int_equal(rl_fleet_init(&lg, 0, W, 1, 0, msg, sizeof(msg)), RL_EINVAL);
	assert_int_equal(rl_fleet_init(&lg, 10, 0, 1, 0, NULL, 0), RL_EINVAL);
	assert_int_equal(rl_fleet_init(&lg, 10, W, 3, 3, msg, sizeof(msg)), RL_EINVAL);
	assert_non_null(strstr(msg, "node index 3"));
	assert_int_equal(rl_fleet_init(&lg, 10, W, 3, -1, NULL, 0), RL_EINVAL);
	assert_int_equal(rl_fleet_init(&lg, 10, W, 10, 9, NULL, 0), RL_OK);
	assert_int_equal(lg.fresh_share, 1);
	/* 10 over 3 nodes: 4 + 3 + 3 */
	int64_t want[3] = { 4, 3, 3 };
	for (int j = 0; j < 3; j++) {
		assert_int_equal(rl_fleet_init(&lg, 10, W, 3, j, NULL, 0), RL_OK);
		assert_int_equal(lg.fresh_share, want[j]);
	}
}

/* The k parts of any x, read as shares after a sync, sum to exactly x. */
static void test_parts_sum(void **state)
{
	(void)state;
	for (int64_t k = 1; k <= 17; k++)
		for (int64_t left = 0; left <= 3 * k + 1; left++) {
			int64_t n = left + k, sum = 0;
			for (int64_t j = 0; j < k; j++) {
				struct rl_fleet lg = make_lg(n, W, k, j);
				struct rl_fleet_state st = { 0 };
				int64_t w, mine;
				assert_int_equal(rl_fleet_check(&lg, &st, 0, 1, NULL), RL_ALLOWED);
				assert_true(rl_fleet_sync_take(&lg, &st, 0, &w, &mine));
				rl_fleet_sync_apply(&lg, &st, w, mine, n - left);
				sum += st.share;
			}
			if (sum != left)
				fail_msg("k %lld: shares of %lld sum to %lld", (long long)k, (long long)left,
					 (long long)sum);
		}
}

/* A fresh window gives part_j(N); the share's last unit is admitted,
 * one more is rejected until the window's end; a cost above part_j(N)
 * is never admissible. */
static void test_fresh_share(void **state)
{
	(void)state;
	struct rl_fleet lg = make_lg(10, W, 3, 2);
	struct rl_fleet_state st = { 0 };
	struct rl_decision d;

	for (int i = 0; i < 3; i++) {
		assert_int_equal(rl_fleet_check(&lg, &st, 100 + i, 1, &d), RL_ALLOWED);
		assert_int_equal(d.remaining, 2 - i);
		assert_int_equal(d.retry_after_ns, 0);
		assert_int_equal(d.reset_ns, W - 100 - i);
	}
	assert_int_equal(rl_fleet_check(&lg, &st, 200, 1, &d), RL_REJECTED);
	assert_int_equal(d.remaining, 0);
	assert_int_equal(d.retry_after_ns, W - 200);
	assert_int_equal(st.pending, 3);

	struct rl_fleet_state fresh = { 0 };
	assert_int_equal(rl_fleet_check(&lg, &fresh, 5, 4, &d), RL_REJECTED);
	assert_int_equal(d.retry_after_ns, RL_DURATION_MAX_NS);
	assert_int_equal(d.remaining, 3);
	assert_int_equal(rl_fleet_check(&lg, &fresh, 5, 3, &d), RL_ALLOWED);
	assert_int_equal(d.remaining, 0);
}

/* [wW, (w+1)W): W - 1 is the old window, W the new one. */
static void test_window_boundary(void **state)
{
	(void)state;
	struct rl_fleet lg = make_lg(4, W, 2, 0);
	struct rl_fleet_state st = { 0 };

	assert_int_equal(rl_fleet_check(&lg, &st, 0, 2, NULL), RL_ALLOWED);
	assert_int_equal(rl_fleet_check(&lg, &st, W - 1, 1, NULL), RL_REJECTED);
	assert_int_equal(rl_fleet_check(&lg, &st, W, 2, NULL), RL_ALLOWED);
	assert_int_equal(st.epoch, 2);
	assert_int_equal(st.pending, 2); /* window 0's pending dropped */
}

/* A time before the last seen one counts as it (algo.h). */
static void test_clock_clamp(void **state)
{
	(void)state;
	struct rl_fleet lg = make_lg(4, W, 2, 0);
	struct rl_fleet_state st = { 0 };
	struct rl_decision d;

	assert_int_equal(rl_fleet_check(&lg, &st, W + 10, 1, NULL), RL_ALLOWED);
	assert_int_equal(rl_fleet_check(&lg, &st, W - 1, 1, &d), RL_ALLOWED);
	assert_int_equal(st.epoch, 2);
	assert_int_equal(d.reset_ns, W - 10);
	assert_int_equal(rl_fleet_check(&lg, &st, 5, 1, NULL), RL_REJECTED);
	assert_int_equal(st.last_ns, W + 10);
}

static void test_bad_cost_and_time(void **state)
{
	(void)state;
	struct rl_fleet lg = make_lg(4, W, 2, 0);
	struct rl_fleet_state st = { 0 }, before;

	assert_int_equal(rl_fleet_check(&lg, &st, 7, 1, NULL), RL_ALLOWED);
	before = st;
	assert_int_equal(rl_fleet_check(&lg, &st, 8, 0, NULL), RL_EINVAL);
	assert_int_equal(rl_fleet_check(&lg, &st, 8, -1, NULL), RL_EINVAL);
	assert_int_equal(rl_fleet_check(&lg, &st, 8, RL_COST_MAX + 1, NULL), RL_EINVAL);
	assert_int_equal(rl_fleet_check(&lg, &st, -1, 1, NULL), RL_ERANGE);
	assert_int_equal(rl_fleet_check(&lg, &st, RL_TIME_MAX_NS + 1, 1, NULL), RL_ERANGE);
	assert_memory_equal(&st, &before, sizeof(st));
	assert_int_equal(rl_fleet_check(&lg, &st, RL_TIME_MAX_NS, RL_COST_MAX, NULL), RL_REJECTED);
}

/* take hands out this node's units (pushed + pending) and empties
 * pending; apply acknowledges them and sets share = part_j(N - G - p)
 * with p admitted meanwhile; failed makes the unacknowledged units pending
 * again; a value sent twice counts once; an ended window takes nothing. */
static void test_sync_halves(void **state)
{
	(void)state;
	struct rl_fleet lg = make_lg(100, W, 4, 3);
	struct rl_fleet_state st = { 0 };
	int64_t w, mine;

	assert_false(rl_fleet_sync_take(&lg, &st, 0, &w, &mine)); /* fresh: nothing */
	for (int i = 0; i < 20; i++)
		assert_int_equal(rl_fleet_check(&lg, &st, 10, 1, NULL), RL_ALLOWED);
	assert_true(rl_fleet_sync_take(&lg, &st, 11, &w, &mine));
	assert_int_equal(w, 0);
	assert_int_equal(mine, 20);
	assert_int_equal(st.pending, 0);
	assert_int_equal(rl_fleet_check(&lg, &st, 12, 3, NULL), RL_ALLOWED); /* while in flight */
	rl_fleet_sync_apply(&lg, &st, 0, mine, 57);
	assert_int_equal(st.global, 57);
	assert_int_equal(st.pushed, 20);
	assert_int_equal(st.share, (100 - 57 - 3) / 4);

	assert_true(rl_fleet_sync_take(&lg, &st, 13, &w, &mine));
	assert_int_equal(mine, 23);
	rl_fleet_sync_failed(&st, w, mine);
	assert_int_equal(st.pending, 3);
	assert_int_equal(st.pushed, 20);
	assert_true(rl_fleet_sync_take(&lg, &st, 14, &w, &mine));
	assert_int_equal(mine, 23); /* the same value again: idempotent */
	rl_fleet_sync_apply(&lg, &st, 0, mine, 99);
	assert_int_equal(st.share, 0); /* left 1: node 3's part is 0 */
	assert_int_equal(st.pending, 0);
	rl_fleet_sync_failed(&st, w + 1, 50); /* another window's: ignored */
	rl_fleet_sync_apply(&lg, &st, w + 1, 50, 0);
	assert_int_equal(st.pending, 0);
	assert_int_equal(st.global, 99);
	assert_false(rl_fleet_sync_take(&lg, &st, W, &w, &mine)); /* window 0 is over */
}

/* k = 1 is an exact fixed window whatever the syncs (the store only
 * echoes the node's own units): admit iff (units in window) + c <= N. */
static void test_one_node_is_fixed_window(void **state)
{
	(void)state;
	uint64_t s0 = t_seed_from_env((uint64_t)time(NULL)), s = s0;

	for (int trace = 0; trace < 200; trace++) {
		int64_t n = 1 + (int64_t)(t_splitmix(&s) % 50), w = 1 + (int64_t)(t_splitmix(&s) % 1000);
		struct rl_fleet lg = make_lg(n, w, 1, 0);
		struct rl_fleet_state st = { 0 };
		int64_t t = 0, used = 0, used_win = -1;

		for (int i = 0; i < 500; i++) {
			t += (int64_t)(t_splitmix(&s) % (uint64_t)(w / 4 + 1));
			int64_t c = 1 + (int64_t)(t_splitmix(&s) % 4), win = t / w;
			if (t_splitmix(&s) % 5 == 0) {
				int64_t sw, mine;
				if (rl_fleet_sync_take(&lg, &st, t, &sw, &mine))
					rl_fleet_sync_apply(&lg, &st, sw, mine, mine);
			}
			if (win != used_win)
				used = 0;
			used_win = win;
			int want = used + c <= n ? RL_ALLOWED : RL_REJECTED;
			int got = rl_fleet_check(&lg, &st, t, c, NULL);
			if (got != want)
				fail_msg("seed %llu trace %d request %d: t %lld c %lld used %lld N %lld: got %d want %d",
					 (unsigned long long)s0, trace, i, (long long)t, (long long)c,
					 (long long)used, (long long)n, got, want);
			used += want ? c : 0;
		}
	}
}

/* k nodes syncing in step (every node pushes, then every node reads the
 * same total) with traffic routed at random: never more than N units
 * admitted in a window, whatever the costs and sync times. A node that
 * has not decided in the window yet first enters it (a never-admissible
 * cost): a node entering a window after its syncs starts from a fresh
 * share, which the in-step bound does not cover (fleet.h). */
static void test_in_step_never_over(void **state)
{
	(void)state;
	uint64_t s0 = t_seed_from_env((uint64_t)time(NULL)), s = s0;

	for (int trace = 0; trace < 300; trace++) {
		int64_t k = 1 + (int64_t)(t_splitmix(&s) % 16);
		int64_t n = k + (int64_t)(t_splitmix(&s) % 200), w = 1000;
		struct rl_fleet lg[16];
		struct rl_fleet_state st[16];
		int64_t t = 0, admitted = 0, adm_win = -1;

		memset(st, 0, sizeof(st));
		for (int j = 0; j < k; j++)
			lg[j] = make_lg(n, w, k, j);
		for (int i = 0; i < 2000; i++) {
			t += (int64_t)(t_splitmix(&s) % 20);
			if (t_splitmix(&s) % 8 == 0) {
				int64_t sw, mine[16], total = 0;
				for (int j = 0; j < k; j++) {
					if (st[j].epoch != t / w + 1)
						assert_int_equal(rl_fleet_check(&lg[j], &st[j], t, RL_COST_MAX, NULL),
								 RL_REJECTED);
					assert_true(rl_fleet_sync_take(&lg[j], &st[j], t, &sw, &mine[j]));
					total += mine[j];
				}
				for (int j = 0; j < k; j++)
					rl_fleet_sync_apply(&lg[j], &st[j], t / w, mine[j], total);
			}
			int j = (int)(t_splitmix(&s) % (uint64_t)k);
			int64_t c = 1 + (int64_t)(t_splitmix(&s) % 3);
			if (t / w != adm_win)
				admitted = 0;
			adm_win = t / w;
			if (rl_fleet_check(&lg[j], &st[j], t, c, NULL) == RL_ALLOWED)
				admitted += c;
			if (admitted > n)
				fail_msg("seed %llu trace %d: %lld units admitted in window %lld, N %lld, k %lld",
					 (unsigned long long)s0, trace, (long long)admitted, (long long)adm_win,
					 (long long)n, (long long)k);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_ranges),
		cmocka_unit_test(test_parts_sum),
		cmocka_unit_test(test_fresh_share),
		cmocka_unit_test(test_window_boundary),
		cmocka_unit_test(test_clock_clamp),
		cmocka_unit_test(test_bad_cost_and_time),
		cmocka_unit_test(test_sync_halves),
		cmocka_unit_test(test_one_node_is_fixed_window),
		cmocka_unit_test(test_in_step_never_over),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
