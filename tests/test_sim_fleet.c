/*
 * test_sim_fleet.c - the simulated local-plus-global fleet (sim_fleet.h):
 * one node is the central limiter; the accounting identity; one seed's
 * arrivals shared by every mode; a store down all along never
 * over-admits; the error grows with the sync interval the way the model
 * says; every field's range.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ratelab/status.h"
#include "sim_fleet.h"

#define MS 1000000LL

static struct sim_fleet_result run(const struct sim_fleet_config *c)
{
	struct sim_fleet_result r;
	char msg[160];

	if (sim_fleet_run(c, &r, msg, sizeof(msg)) != RL_OK)
		fail_msg("sim_fleet_run: %s", msg);
	/* per window: admitted - over + false_rejects = min(offered, N) */
	assert_int_equal(r.admitted - r.over_admitted + r.false_rejects, r.central_admitted);
	return r;
}

static struct sim_fleet_config small(void)
{
	struct sim_fleet_config c = sim_fleet_defaults();
	c.duration_ns = 20000 * MS;
	return c;
}

/* k = 1 decides exactly as the central fixed window, whatever S and the
 * routing; every sync that has keys is one round trip. */
static void test_one_node_is_central(void **state)
{
	(void)state;
	struct sim_fleet_config c = small();

	c.nodes = 1;
	for (int64_t s = 1; s <= 1000; s *= 10) {
		c.sync_ns = s * MS;
		c.routing = s % 2 ? SIM_FLEET_RANDOM : SIM_FLEET_STICKY;
		struct sim_fleet_result r = run(&c);
		assert_int_equal(r.over_admitted, 0);
		assert_int_equal(r.false_rejects, 0);
		assert_int_equal(r.admitted, r.central_admitted);
		assert_true(r.round_trips > 0 && r.round_trips <= (uint64_t)(20000 / s + 1));
	}
}

/* One seed: the same arrivals (requests, central_admitted) whatever k, S,
 * routing, skew or outage; the same config twice: the same result. */
static void test_arrivals_shared_and_deterministic(void **state)
{
	(void)state;
	struct sim_fleet_config c = small();
	struct sim_fleet_result base = run(&c), again = run(&c);

	assert_memory_equal(&base, &again, sizeof(base));
	c.nodes = 16;
	c.sync_ns = 300 * MS;
	c.routing = SIM_FLEET_STICKY;
	c.skew_ns = 20 * MS;
	c.outage_from_ns = 1000 * MS;
	c.outage_to_ns = 3000 * MS;
	struct sim_fleet_result other = run(&c);
	assert_int_equal(other.requests, base.requests);
	assert_int_equal(other.central_admitted, base.central_admitted);
	assert_true(other.admitted != base.admitted);
	c.seed = 2;
	assert_true(run(&c).requests != base.requests);
}

/* The store down for the whole run, clocks in step: every window starts
 * with fresh parts summing to N, so the fleet never over-admits; no
 * round trip succeeds; every sync with keys is a failure. */
static void test_store_down_never_over(void **state)
{
	(void)state;
	struct sim_fleet_config c = small();

	for (int k = 2; k <= 16; k *= 2) {
		c.nodes = k;
		c.load_pct = 400;
		c.outage_from_ns = 0;
		c.outage_to_ns = c.duration_ns;
		struct sim_fleet_result r = run(&c);
		assert_int_equal(r.over_admitted, 0);
		assert_int_equal(r.round_trips, 0);
		assert_true(r.sync_failures > 0);
		/* random routing at 4x the quota fills every part: exact */
		assert_int_equal(r.false_rejects, 0);
	}
}

/* Random routing: over-admission grows with S (shares computed from
 * older totals); sticky routing: false rejects grow with S (a lone node
 * gets its part of what is left per sync) and it never over-admits with
 * clocks in step. */
static void test_error_grows_with_sync(void **state)
{
	(void)state;
	struct sim_fleet_config c = small();
	double prev_over = -1, prev_rej = -1;

	c.nodes = 4;
	for (int64_t s = 1; s <= 1000; s *= 10) {
		c.sync_ns = s * MS;
		c.routing = SIM_FLEET_RANDOM;
		struct sim_fleet_result r = run(&c);
		double over = (double)r.over_admitted / (double)r.central_admitted;
		assert_true(over >= prev_over);
		prev_over = over;
		c.routing = SIM_FLEET_STICKY;
		r = run(&c);
		double rej = (double)r.false_rejects / (double)r.central_admitted;
		assert_int_equal(r.over_admitted, 0);
		assert_true(rej >= prev_rej);
		prev_rej = rej;
	}
	assert_true(prev_over > 0.05); /* S = W: several % over */
	assert_true(prev_rej > 0.30);
}

/* Clock skew alone (store down, no sync to blame) moves windows: nodes a
 * window ahead admit from fresh parts early, over-admitting. */
static void test_skew_over_admits(void **state)
{
	(void)state;
	struct sim_fleet_config c = small();

	c.nodes = 4;
	c.load_pct = 400;
	c.skew_ns = 100 * MS;
	c.outage_from_ns = 0;
	c.outage_to_ns = c.duration_ns;
	assert_true(run(&c).over_admitted > 0);
}

static void expect_invalid(const struct sim_fleet_config *c, const char *field)
{
	struct sim_fleet_result r;
	char msg[160] = "";

	assert_false(sim_fleet_valid(c, msg, sizeof(msg)));
	assert_int_equal(sim_fleet_run(c, &r, msg, sizeof(msg)), RL_EINVAL);
	if (!strstr(msg, field))
		fail_msg("message '%s' does not name '%s'", msg, field);
}

/* Each field one past its range: refused, the message names the field. */
#define BAD(assign, field)                  \
	do {                                \
		c = small();                \
		assign;                     \
		expect_invalid(&c, field);  \
	} while (0)

static void test_ranges(void **state)
{
	(void)state;
	struct sim_fleet_config c;

	BAD(c.limit = 0, "limit 0");
	BAD(c.window_ns = 0, "window_ns 0");
	BAD(c.nodes = 0, "nodes");
	BAD(c.nodes = 101, "nodes"); /* more nodes than N: a part of 0 */
	BAD(c.sync_ns = 0, "sync_ns 0");
	BAD(c.skew_ns = c.window_ns, "skew_ns");
	BAD(c.skew_ns = -1, "skew_ns");
	BAD(c.keys = 0, "keys 0");
	BAD(c.load_pct = 0, "load_pct 0");
	BAD(c.duration_ns = c.window_ns - 1, "duration_ns");
	BAD((c.outage_from_ns = 5, c.outage_to_ns = 4), "outage");
	BAD((c.keys = 100000, c.load_pct = 10000), "expected requests");
	BAD(c.sync_ns = 1, "syncs");
	c = small();
	assert_true(sim_fleet_valid(&c, NULL, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_node_is_central),
		cmocka_unit_test(test_arrivals_shared_and_deterministic),
		cmocka_unit_test(test_store_down_never_over),
		cmocka_unit_test(test_error_grows_with_sync),
		cmocka_unit_test(test_skew_over_admits),
		cmocka_unit_test(test_ranges),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
