/* SPDX-License-Identifier: MIT */
/*
 * rstat-stale-parent (R8): a subtree flush leaves its parent's aggregate stale.
 *
 *   CPU 0 (reader)                     CPU 1 (c)
 *   --------------                     ---------
 *                                      mod_lruvec_state(c, NR_FILE_PAGES, +100)
 *   mem_cgroup_flush_stats_forced(c)
 *     c.state = 100, p.pending = 100
 *   memcg_page_state(p)   = 0          <- stale
 *   lruvec_page_state(root, node 0):
 *     rstat: 0              node: 100
 *   mem_cgroup_flush_stats_forced(p)   -> p = 100, root still 0
 *   mem_cgroup_flush_stats_forced(root) -> root = 100
 *
 * Bad state under root-lruvec-read=rstat: root's lruvec reads 0 of 100. Fix
 * (thread 002 patch 2, root-lruvec-read=node): the node counter answers, 100.
 * p's own staleness is the same under both. Budgets: PCT 200 runs, DFS 2000.
 */
#include "race_util.h"

static void script(const char *variant, bool bad)
{
	struct msim_race_result *r = race_run("rstat-stale-parent", MSIM_STRAT_SCRIPT, 0, 0,
					      variant, NULL);

	assert_true(r->behaved_as_expected);
	assert_int_equal(r->rep.violated, bad);
	assert_int_equal(race_fig(r, "c_after_c_flush"), 100);
	assert_int_equal(race_fig(r, "p_after_c_flush"), 0);
	assert_int_equal(race_fig(r, "p_pending_after_c_flush"), 100);
	assert_int_equal(race_fig(r, "root_lruvec_after_c_flush"), bad ? 0 : 100);
	assert_int_equal(race_fig(r, "node_counter"), 100);
	assert_int_equal(race_fig(r, "p_after_p_flush"), 100);
	assert_int_equal(race_fig(r, "root_after_p_flush"), 0);
	assert_int_equal(race_fig(r, "root_after_root_flush"), 100);
	free(r);
}

static void script_rstat(void **st) { script("root-lruvec-read=rstat", true); }
static void script_node(void **st) { script("root-lruvec-read=node", false); }

static void explore(enum msim_strategy s, unsigned int budget, const char *variant, bool bad)
{
	free(race_explore("rstat-stale-parent", s, budget, variant, bad));
}

static void pct_rstat(void **st) { explore(MSIM_STRAT_PCT, 200, "root-lruvec-read=rstat", true); }
static void pct_node(void **st) { explore(MSIM_STRAT_PCT, 200, "root-lruvec-read=node", false); }
static void dfs_rstat(void **st) { explore(MSIM_STRAT_DFS, 2000, "root-lruvec-read=rstat", true); }
static void dfs_node(void **st) { explore(MSIM_STRAT_DFS, 2000, "root-lruvec-read=node", false); }

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(script_rstat),
		cmocka_unit_test(script_node),
		cmocka_unit_test(pct_rstat),
		cmocka_unit_test(pct_node),
		cmocka_unit_test(dfs_rstat),
		cmocka_unit_test(dfs_node),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
