/* SPDX-License-Identifier: MIT */
/*
 * shrinker-id-reuse (S3): the bits and deferred counts of a freed shrinker's id
 * stay in every memcg's unit; the next memcg-aware shrinker gets the same (lowest
 * free) id and inherits them, as the kernel does.
 *
 *   CPU 0 (umount: shrinker_free(A))    CPU 1 (mount: shrinker_alloc(B))
 *   --------------------------------    --------------------------------
 *   drop initial ref, wait for users
 *   list_del_rcu; idr_remove(0)
 *                                       idr_alloc -> 0
 *                                       register B
 *   C's unit: bit 0 set, nr_deferred[0] = 2000 (left by A at priority 0)
 *   B's first shrink_slab_memcg(C) calls B for C (bit set) though B has nothing.
 *
 * No fix exists: the script shows the exact inherited state, every explorer finds
 * it, and the one ordering without it (B allocates first, gets id 1) is also seen.
 */
#include "race_util.h"

static void script_inherits(void **st)
{
	struct msim_race_result *r = race_run("shrinker-id-reuse", MSIM_STRAT_SCRIPT, 0, 0, NULL,
					      NULL);

	assert_true(r->rep.violated);
	assert_int_equal(race_fig(r, "new_id"), 0);
	assert_int_equal(race_fig(r, "inherited_bit"), 1);
	assert_int_equal(race_fig(r, "inherited_deferred"), 2000);
	assert_int_equal(race_fig(r, "b_count_calls_on_c"), 1);
	assert_int_equal(race_fig(r, "bit_after_b_shrink"), 1); /* B counts 0: the bit stays */
	free(r);
}

static void explorers_find_it(void **st)
{
	enum msim_strategy s[] = { MSIM_STRAT_RANDOM, MSIM_STRAT_PCT, MSIM_STRAT_DFS };

	for (int k = 0; k < 3; k++) {
		struct msim_race_result *r = race_run("shrinker-id-reuse", s[k], 100, 1, NULL, NULL);

		assert_true(r->ex.violations > 0);
		if (s[k] != MSIM_STRAT_DFS) /* B first: id 1, no inheritance */
			assert_true(r->ex.violations < r->ex.runs);
		assert_true(r->behaved_as_expected);
		assert_replays("shrinker-id-reuse", r, NULL);
		free(r);
	}
}

static void every_layout(void **st)
{
	const char *l[] = { "shrinker-info=array", "shrinker-info=array-unit-cache",
			    "shrinker-info=array-on-demand", "shrinker-info=xarray" };

	for (int i = 0; i < 4; i++) {
		struct msim_race_result *r = race_run("shrinker-id-reuse", MSIM_STRAT_SCRIPT, 0, 0,
						      l[i], NULL);
		assert_true(r->rep.violated);
		assert_int_equal(race_fig(r, "inherited_deferred"), 2000);
		free(r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(script_inherits),
		cmocka_unit_test(explorers_find_it),
		cmocka_unit_test(every_layout),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
