/* SPDX-License-Identifier: MIT */
/*
 * toy-percpu-reset (R1 in miniature): a per-CPU counter bumped with a
 * non-atomic read-modify-write on its own CPU while another CPU reads, folds and
 * resets it remotely.
 *
 *   CPU 0 (flusher)                 CPU 1 (updater)
 *   ---------------                 ---------------
 *                                   3 increments: slot = 3
 *   v = READ_ONCE(slot)      (3)
 *   total += v               (3)
 *                                   n = slot + 1   (4)
 *                                   slot = n       (4)
 *   WRITE_ONCE(slot, 0)                              <- increment 4 lost
 *                                   1 more increment: slot = 1
 *
 * Conservation (total + slot == increments) is the invariant; the toy has no fix,
 * so every strategy must reach the bad state within its budget, and each printed
 * schedule must replay to the same trace.
 */
#include "race_util.h"

static void script_loses_an_update(void **st)
{
	struct msim_race_result *r = race_run("toy-percpu-reset", MSIM_STRAT_SCRIPT, 0, 0, NULL, NULL);

	assert_true(r->rep.violated);
	assert_int_equal(race_fig(r, "increments"), 5);
	assert_int_equal(race_fig(r, "total"), 3);
	assert_int_equal(race_fig(r, "slot"), 1);
	assert_true(r->behaved_as_expected);
	/* The script's schedule replays to the same verdict. */
	struct msim_race_result *again =
		race_run("toy-percpu-reset", MSIM_STRAT_REPLAY, 1, 0, NULL, r->ex.schedule);
	assert_int_equal(again->ex.violations, 1);
	assert_string_equal(again->ex.schedule, r->ex.schedule);
	free(again);
	free(r);
}

/* Budgets: random 200 runs, PCT 200 runs (depth 2), DFS 2000 schedules (2 preemptions). */
static void explorer_finds_loss(enum msim_strategy s, unsigned int budget)
{
	free(race_explore("toy-percpu-reset", s, budget, NULL, true));
}

static void random_finds_loss(void **st) { explorer_finds_loss(MSIM_STRAT_RANDOM, 200); }
static void pct_finds_loss(void **st) { explorer_finds_loss(MSIM_STRAT_PCT, 200); }
static void dfs_finds_loss(void **st) { explorer_finds_loss(MSIM_STRAT_DFS, 2000); }

/* DFS with no preemption allowed runs each task to the end: no loss is possible. */
static void dfs_without_preemption_is_clean(void **st)
{
	/* flusher first, or updater first */
	assert_int_equal(race_dfs_serial_clean("toy-percpu-reset"), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(script_loses_an_update),
		cmocka_unit_test(random_finds_loss),
		cmocka_unit_test(pct_finds_loss),
		cmocka_unit_test(dfs_finds_loss),
		cmocka_unit_test(dfs_without_preemption_is_clean),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
