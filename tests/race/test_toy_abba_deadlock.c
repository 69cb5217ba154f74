/* SPDX-License-Identifier: MIT */
/*
 * toy-abba-deadlock: two tasks take two locks in opposite orders.
 *
 *   CPU 0 (ab)                      CPU 1 (ba)
 *   ----------                      ----------
 *   lock(A)
 *                                   lock(B)
 *   lock(B)   ... blocks
 *                                   lock(A)   ... blocks: deadlock
 *
 * The scheduler must report it naming both tasks, their CPUs, both locks and
 * their holders; every explorer finds it; the orders where one task finishes
 * first complete without a report.
 */
#include "race_util.h"

static void script_reports_both_tasks_and_locks(void **st)
{
	struct msim_race_result *r = race_run("toy-abba-deadlock", MSIM_STRAT_SCRIPT, 0, 0, NULL, NULL);

	assert_true(r->rep.violated);
	assert_non_null(strstr(r->rep.trace, "task ab (cpu 0) waits for lock B held by ba"));
	assert_non_null(strstr(r->rep.trace, "task ba (cpu 1) waits for lock A held by ab"));
	free(r);
}

static void explorers_find_deadlock(void **st)
{
	enum msim_strategy s[] = { MSIM_STRAT_RANDOM, MSIM_STRAT_PCT, MSIM_STRAT_DFS };

	for (int i = 0; i < 3; i++) {
		struct msim_race_result *r = race_run("toy-abba-deadlock", s[i], 200, 1, NULL, NULL);
		assert_true(r->ex.violations > 0);
		assert_true(r->ex.deadlocked);
		assert_non_null(strstr(r->ex.why, "waits for lock"));
		assert_replays("toy-abba-deadlock", r, NULL);
		free(r);
	}
}

/* Serial orders complete: DFS with no preemption explores exactly those two. */
static void serial_orders_complete(void **st)
{
	race_dfs_serial_clean("toy-abba-deadlock");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(script_reports_both_tasks_and_locks),
		cmocka_unit_test(explorers_find_deadlock),
		cmocka_unit_test(serial_orders_complete),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
