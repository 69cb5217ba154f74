/* SPDX-License-Identifier: MIT */
/*
 * shrinker-offline-deferred (S4): a shrink that passed the online check adds its
 * deferred remainder to the child after offline's reparent_shrinker_deferred read
 * the child's counts: the work is lost.
 *
 *   CPU 0 (shrink_slab(C), priority 0)    CPU 1 (rmdir C)
 *   ----------------------------------    ---------------
 *   mem_cgroup_online(C): yes
 *   count 1000; nr = xchg(C, 0) = 0
 *   delta 2000; scan -> SHRINK_STOP
 *                                         CSS_DYING; synchronize_rcu
 *                                         offline: P.nr_deferred += C's (0)
 *   add_nr_deferred(C, 2000)
 *   => P: 0, offline C: 2000 (never shrunk again)
 *
 * No fix exists: the script reaches exactly this; every explorer finds it; the
 * orderings where the shrink finishes first give the parent its 2000.
 */
#include "race_util.h"

static void script_loses_work(void **st)
{
	struct msim_race_result *r = race_run("shrinker-offline-deferred", MSIM_STRAT_SCRIPT, 0, 0,
					      NULL, NULL);

	assert_true(r->rep.violated);
	assert_int_equal(race_fig(r, "parent_nr_deferred"), 0);
	assert_int_equal(race_fig(r, "child_nr_deferred"), 2000);
	assert_int_equal(race_fig(r, "child_online"), 0);
	assert_true(r->behaved_as_expected);
	free(r);
}

static void explorers_find_it(void **st)
{
	enum msim_strategy s[] = { MSIM_STRAT_RANDOM, MSIM_STRAT_PCT, MSIM_STRAT_DFS };
	unsigned int budget[] = { 200, 200, 3000 };

	for (int k = 0; k < 3; k++) {
		struct msim_race_result *r =
			race_run("shrinker-offline-deferred", s[k], budget[k], 1, NULL, NULL);

		assert_true(r->ex.violations > 0);
		assert_true(r->ex.violations < r->ex.runs); /* other orders are clean */
		assert_true(r->behaved_as_expected);
		assert_replays("shrinker-offline-deferred", r, NULL);
		free(r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(script_loses_work),
		cmocka_unit_test(explorers_find_it),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
