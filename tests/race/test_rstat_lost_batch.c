/* SPDX-License-Identifier: MIT */
/*
 * rstat-lost-batch (R2, R3): a batch pushed into leaf's atomic stats_updates is
 * wiped by a flusher that did not fold the per-CPU pages behind it.
 *
 * R2 (read-then-set; leaf at 256 on CPU 1, forced flush of leaf):
 *
 *   CPU 0 (flush leaf)                 CPU 1 (leaf updates)
 *   ------------------                 --------------------
 *   visit CPU 1: fold 256 pages
 *   atomic_read(leaf) = 256
 *                                      64 updates: push 64, leaf = 320
 *   atomic_set(leaf, 0)
 *
 * R3 (leaf queued on CPU 1 and CPU 3):
 *
 *   CPU 0 (flush leaf)                 CPU 1 (leaf updates)
 *   ------------------                 --------------------
 *   visit CPU 0, CPU 1: leaf = 0
 *                                      64 updates: push 64, leaf = 64
 *   visit CPU 3: atomic_set(leaf, 0)
 *
 * Bad state (both): leaf's count 0, 64 pages unflushed. What holds: no stat value
 * is lost; a forced flush makes leaf exact. No variant closes the window, so
 * every explorer must find it: PCT 1000 runs depth 2, DFS 5000 schedules with
 * preemption bound 1; and over the same budgets, with the explorer checking
 * only that invariant (target arg msim_rstat_lost_batch_values_only), no
 * schedule loses a stat value.
 */
#include "race_util.h"

extern const int msim_rstat_lost_batch_values_only;

static void script(void **st)
{
	struct msim_race_result *r = race_run("rstat-lost-batch", MSIM_STRAT_SCRIPT, 0, 0, NULL, NULL);

	assert_true(r->rep.violated);
	assert_true(r->behaved_as_expected);
	assert_int_equal(race_fig(r, "r2_atomic_read_by_flusher"), 256);
	assert_int_equal(race_fig(r, "r2_atomic_before_set"), 320);
	assert_int_equal(race_fig(r, "r2_leaf_atomic"), 0);
	assert_int_equal(race_fig(r, "r2_leaf_count"), 0);
	assert_int_equal(race_fig(r, "r2_unflushed"), 64);
	assert_int_equal(race_fig(r, "r2_lost"), 1);
	assert_int_equal(race_fig(r, "r2_state_exact_after_forced"), 1);
	assert_int_equal(race_fig(r, "r3_atomic_after_cpu1"), 0);
	assert_int_equal(race_fig(r, "r3_atomic_after_push"), 64);
	assert_int_equal(race_fig(r, "r3_leaf_atomic"), 0);
	assert_int_equal(race_fig(r, "r3_leaf_count"), 0);
	assert_int_equal(race_fig(r, "r3_unflushed"), 64);
	assert_int_equal(race_fig(r, "r3_lost"), 1);
	assert_int_equal(race_fig(r, "r3_state_exact_after_forced"), 1);
	free(r);
}

static void explore(enum msim_strategy s, unsigned int budget)
{
	struct msim_race_result *r = race_explore("rstat-lost-batch", s, budget, NULL, true);

	assert_non_null(strstr(r->ex.why, "lost batch"));
	free(r);
}

static void pct_finds(void **st) { explore(MSIM_STRAT_PCT, 1000); }
static void dfs_finds(void **st) { explore(MSIM_STRAT_DFS, 5000); }

/* The same target and budget, checking only "a forced flush makes leaf exact". */
static void explore_values(enum msim_strategy strat, unsigned int budget)
{
	const struct msim_scenario *s = msim_scenario_find("rstat-lost-batch");
	struct msim_explore_target t;
	struct msim_explore_opts o = { .strategy = strat, .seed = 1, .runs = budget };
	struct msim_explore_result *r = calloc(1, sizeof(*r));
	struct msim_config cfg;

	assert_non_null(s);
	assert_non_null(r);
	t = s->target;
	t.arg = (void *)&msim_rstat_lost_batch_values_only;
	o.pct_depth = s->default_depth;
	o.preemptions = s->default_preemptions;
	msim_config_init(&cfg);
	assert_int_equal(msim_explore(&t, &cfg, &o, r), 0);
	assert_int_equal(r->runs > 0, 1);
	assert_int_equal(r->violations, 0);
	assert_int_equal(r->first_violation_run, -1);
	if (strat == MSIM_STRAT_DFS)
		assert_true(r->exhausted);
	free(r);
}

static void pct_values_exact(void **st) { explore_values(MSIM_STRAT_PCT, 1000); }
static void dfs_values_exact(void **st) { explore_values(MSIM_STRAT_DFS, 5000); }

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(script),
		cmocka_unit_test(pct_finds),
		cmocka_unit_test(dfs_finds),
		cmocka_unit_test(pct_values_exact),
		cmocka_unit_test(dfs_values_exact),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
