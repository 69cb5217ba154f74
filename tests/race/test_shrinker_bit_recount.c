/* SPDX-License-Identifier: MIT */
/*
 * shrinker-bit-recount (S1): a memcg's list gains its first object while
 * shrink_slab_memcg clears the bit after counting the list empty.
 *
 *   CPU 0 (shrink_slab_memcg(C))        CPU 1 (create a dentry in C)
 *   ----------------------------        ---------------------------
 *   count = SHRINK_EMPTY
 *                                       list_lru_add: nr_items 0 -> 1
 *                                       smp_mb; set_bit (already set)
 *   clear_bit
 *   [recount on]  smp_mb; count = 1: set_shrinker_bit again      -> bit set
 *   [recount off] return                                          -> 1 item, bit clear
 *
 * Bug side (shrinker-recount=off): the script reaches "1 item, bit clear"; random,
 * PCT and DFS (1 preemption) find it within the scenario's budgets, and the printed
 * schedule replays. Fix side (mainline): no violation in the same budgets, and DFS
 * with 1 preemption exhausts its space.
 */
#include "race_util.h"

static void script_both_sides(void **st)
{
	struct msim_race_result *r = race_run("shrinker-bit-recount", MSIM_STRAT_SCRIPT, 0, 0,
					      "shrinker-recount=off", NULL);

	assert_true(r->rep.violated);
	assert_int_equal(race_fig(r, "list_items"), 1);
	assert_int_equal(race_fig(r, "bit_set"), 0);
	assert_true(r->behaved_as_expected);
	free(r);
	r = race_run("shrinker-bit-recount", MSIM_STRAT_SCRIPT, 0, 0, NULL, NULL);
	assert_false(r->rep.violated);
	assert_int_equal(race_fig(r, "list_items"), 1);
	assert_int_equal(race_fig(r, "bit_set"), 1);
	assert_true(r->behaved_as_expected);
	free(r);
}

/* Script under the layout given and recount on or off. */
static struct msim_race_result *script_in(const char *layout, bool recount)
{
	struct msim_race_opts o = { .strategy = MSIM_STRAT_SCRIPT, .preemptions = (unsigned int)-1 };
	struct msim_config cfg;
	char err[256];

	msim_config_init(&cfg);
	assert_int_equal(msim_variant_set(&cfg.variants, layout, err, sizeof(err)), 0);
	if (!recount)
		assert_int_equal(msim_variant_set(&cfg.variants, "shrinker-recount=off", err,
						  sizeof(err)), 0);
	return race_run_cfg("shrinker-bit-recount", &cfg, &o);
}

/* The window is the same in every layout (units exist once the list does). */
static void script_every_layout(void **st)
{
	const char *l[] = { "shrinker-info=array-unit-cache", "shrinker-info=array-on-demand",
			    "shrinker-info=xarray" };

	for (int i = 0; i < 3; i++) {
		struct msim_race_result *r = script_in(l[i], false);

		assert_true(r->rep.violated);
		assert_int_equal(race_fig(r, "bit_set"), 0);
		assert_true(r->behaved_as_expected);
		free(r);
		r = script_in(l[i], true);
		assert_false(r->rep.violated);
		assert_int_equal(race_fig(r, "bit_set"), 1);
		assert_true(r->behaved_as_expected);
		free(r);
	}
}

static void explorers(enum msim_strategy s, unsigned int budget)
{
	struct msim_race_result *r;

	free(race_explore("shrinker-bit-recount", s, budget, "shrinker-recount=off", true));
	r = race_explore("shrinker-bit-recount", s, budget, NULL, false);
	if (s == MSIM_STRAT_DFS)
		assert_true(r->ex.exhausted);
	free(r);
}

static void random_both_sides(void **st) { explorers(MSIM_STRAT_RANDOM, 300); }
static void pct_both_sides(void **st) { explorers(MSIM_STRAT_PCT, 300); }
static void dfs_both_sides(void **st) { explorers(MSIM_STRAT_DFS, 5000); }

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(script_both_sides),
		cmocka_unit_test(script_every_layout),
		cmocka_unit_test(random_both_sides),
		cmocka_unit_test(pct_both_sides),
		cmocka_unit_test(dfs_both_sides),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
