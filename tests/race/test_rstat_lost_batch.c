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
 * preemption bound 1.
 */
#include "race_util.h"

static long long fig(const struct msim_race_result *r, const char *key)
{
	for (unsigned int i = 0; i < r->rep.nr_figs; i++)
		if (!strcmp(r->rep.figs[i].key, key))
			return r->rep.figs[i].i;
	fail_msg("figure %s missing", key);
	return -1;
}

static void script(void **st)
{
	struct msim_race_result *r = race_run("rstat-lost-batch", MSIM_STRAT_SCRIPT, 0, 0, NULL, NULL);

	assert_true(r->rep.violated);
	assert_true(r->behaved_as_expected);
	assert_int_equal(fig(r, "r2_atomic_read_by_flusher"), 256);
	assert_int_equal(fig(r, "r2_atomic_before_set"), 320);
	assert_int_equal(fig(r, "r2_leaf_atomic"), 0);
	assert_int_equal(fig(r, "r2_leaf_count"), 0);
	assert_int_equal(fig(r, "r2_unflushed"), 64);
	assert_int_equal(fig(r, "r2_lost"), 1);
	assert_int_equal(fig(r, "r2_state_exact_after_forced"), 1);
	assert_int_equal(fig(r, "r3_atomic_after_cpu1"), 0);
	assert_int_equal(fig(r, "r3_atomic_after_push"), 64);
	assert_int_equal(fig(r, "r3_leaf_atomic"), 0);
	assert_int_equal(fig(r, "r3_leaf_count"), 0);
	assert_int_equal(fig(r, "r3_unflushed"), 64);
	assert_int_equal(fig(r, "r3_lost"), 1);
	assert_int_equal(fig(r, "r3_state_exact_after_forced"), 1);
	free(r);
}

static void explore(enum msim_strategy s, unsigned int budget)
{
	struct msim_race_result *r = race_run("rstat-lost-batch", s, budget, 1, NULL, NULL);

	assert_true(r->behaved_as_expected);
	assert_true(r->ex.violations > 0);
	assert_true((unsigned int)r->ex.first_violation_run < budget);
	assert_non_null(strstr(r->ex.why, "lost batch"));
	assert_replays("rstat-lost-batch", r, NULL);
	free(r);
}

static void pct_finds(void **st) { explore(MSIM_STRAT_PCT, 1000); }
static void dfs_finds(void **st) { explore(MSIM_STRAT_DFS, 5000); }

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(script),
		cmocka_unit_test(pct_finds),
		cmocka_unit_test(dfs_finds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
