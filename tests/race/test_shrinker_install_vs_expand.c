/* SPDX-License-Identifier: MIT */
/*
 * shrinker-install-vs-expand (thread 001): array-on-demand installs a unit into
 * the memcg's pointer array while a mount crossing a unit boundary copies it.
 *
 *   CPU 1 (C gets its lists on A)       CPU 0 (mount: shrinker id 64)
 *   -----------------------------       -----------------------------
 *   memcg_list_lru_alloc -> unit install:
 *     [lock on: spin_lock(info_lock)]
 *     info = C's array (64 ids)
 *                                       expand_shrinker_info:
 *                                         [lock on: waits for info_lock]
 *                                         new = copy of info (unit[0] NULL)
 *                                         publish new; kvfree_rcu(info)
 *     info->unit[0] = unit              <- into the old copy: lost
 *   lists published
 *   (script, later) first dentry: list_lru_add 0 -> 1: set_shrinker_bit finds no unit
 *   => [lock off] 1 dentry on C's list, no unit, no bit: never shrunk
 *   => [lock on] the copy happens after the install; [xarray] no copy at all
 *
 * Bug side (array-on-demand, on-demand-lock=off): the script reaches the state
 * (unit lost, counted when C is freed); random and PCT find it within 300 runs,
 * DFS (1 preemption) at schedule 531 (the schedule '0*11.1*24.0*5.R*2' above:
 * installer to its store, the whole expansion, the store), and each schedule
 * replays. Fix sides (lock on; xarray): no violation in random and PCT budgets,
 * and DFS with the same 1-preemption budget (12000) exhausts the whole bounded
 * space without one: 10539 schedules with the lock, 21 in xarray.
 */
#include "race_util.h"

static void script_lock_off_loses_install(void **st)
{
	struct msim_race_result *r = race_run("shrinker-install-vs-expand", MSIM_STRAT_SCRIPT, 0,
					      0, "on-demand-lock=off", NULL);

	assert_true(r->rep.violated);
	assert_int_equal(race_fig(r, "shrinker_nr_max"), 128);
	assert_int_equal(race_fig(r, "unit_present"), 0);
	assert_int_equal(race_fig(r, "bit_set"), 0);
	assert_int_equal(race_fig(r, "list_items"), 1);
	assert_int_equal(race_fig(r, "units_lost"), 1);
	assert_true(r->behaved_as_expected);
	free(r);
}

static void script_fixed_sides(void **st)
{
	struct msim_race_result *r = race_run("shrinker-install-vs-expand", MSIM_STRAT_SCRIPT, 0,
					      0, NULL, NULL);

	assert_false(r->rep.violated);
	assert_int_equal(race_fig(r, "expansion_waited_for_lock"), 1);
	assert_int_equal(race_fig(r, "unit_present"), 1);
	assert_int_equal(race_fig(r, "bit_set"), 1);
	assert_int_equal(race_fig(r, "units_lost"), 0);
	free(r);
	r = race_run("shrinker-install-vs-expand", MSIM_STRAT_SCRIPT, 0, 0, "shrinker-info=xarray",
		     NULL);
	assert_false(r->rep.violated);
	assert_int_equal(race_fig(r, "unit_present"), 1);
	assert_int_equal(race_fig(r, "bit_set"), 1);
	free(r);
}

static void explorers_find_loss(enum msim_strategy s)
{
	free(race_explore("shrinker-install-vs-expand", s, 300, "on-demand-lock=off", true));
}

static void random_finds_loss(void **st) { explorers_find_loss(MSIM_STRAT_RANDOM); }

/* DFS, the scenario's budget (12000, 1 preemption): the loss at schedule 531. */
static void dfs_finds_loss(void **st)
{
	struct msim_race_result *r = race_run("shrinker-install-vs-expand", MSIM_STRAT_DFS, 0, 0,
					      "on-demand-lock=off", NULL);

	assert_true(r->ex.violations > 0);
	assert_int_equal(r->ex.first_violation_run, 530);
	assert_string_equal(r->ex.schedule, "0*11.1*24.0*5.R*2");
	assert_true(r->behaved_as_expected);
	assert_replays("shrinker-install-vs-expand", r, "on-demand-lock=off");
	free(r);
}
static void pct_finds_loss(void **st) { explorers_find_loss(MSIM_STRAT_PCT); }

static void fixed_sides_clean(void **st)
{
	const char *fixed[] = { "on-demand-lock=on", "shrinker-info=xarray" };
	enum msim_strategy strat[] = { MSIM_STRAT_RANDOM, MSIM_STRAT_PCT, MSIM_STRAT_DFS };

	for (int v = 0; v < 2; v++) {
		for (int k = 0; k < 3; k++) {
			/* DFS: the budget that finds the loss (scenario default, 12000) */
			struct msim_race_result *r = race_run("shrinker-install-vs-expand", strat[k],
							      k == 2 ? 0 : 300, 1, fixed[v], NULL);
			assert_int_equal(r->ex.violations, 0);
			assert_true(r->behaved_as_expected);
			if (k == 2) { /* the whole bounded space, no violation in it */
				assert_true(r->ex.exhausted);
				assert_int_equal(r->ex.runs, v == 0 ? 10539 : 21);
			}
			free(r);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(script_lock_off_loses_install),
		cmocka_unit_test(script_fixed_sides),
		cmocka_unit_test(random_finds_loss),
		cmocka_unit_test(pct_finds_loss),
		cmocka_unit_test(dfs_finds_loss),
		cmocka_unit_test(fixed_sides_clean),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
