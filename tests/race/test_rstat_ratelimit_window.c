/* SPDX-License-Identifier: MIT */
/*
 * rstat-ratelimit-window (R7): flush_last_time is published before the root
 * flush runs, so a ratelimited reader inside the flush skips its own flush and
 * reads half-flushed data. 4 CPUs, 100 pages of a on each; jiffies 5000,
 * flush_last_time 0 (the periodic flusher is late).
 *
 *   CPU 0 (periodic root flush)        CPU 2 (ratelimited reader)
 *   ---------------------------        --------------------------
 *   WRITE_ONCE(flush_last_time, 5000)
 *   visit CPU 0: fold 100
 *                                      5000 > 5000 + 4000? no: skip the flush
 *                                      lruvec_page_state(root) = 100 of 400
 *   visit CPUs 1..3                    (node variant: 400, the node counter)
 *
 * Counterfactual: the reader before the timestamp write flushes and reads 400.
 * Budgets: PCT 500 runs depth 2, DFS 2000 schedules, preemption bound 1.
 */
#include "race_util.h"

static void script(const char *variant, bool bad)
{
	struct msim_race_result *r = race_run("rstat-ratelimit-window", MSIM_STRAT_SCRIPT, 0, 0,
					      variant, NULL);

	assert_true(r->behaved_as_expected);
	assert_int_equal(r->rep.violated, bad);
	assert_int_equal(race_fig(r, "reader_first_flushed"), 1);
	assert_int_equal(race_fig(r, "reader_first_value"), 400);
	assert_int_equal(race_fig(r, "flush_last_time"), 5000);
	assert_int_equal(race_fig(r, "jiffies"), 5000);
	assert_int_equal(race_fig(r, "reader_flushed"), 0);
	assert_int_equal(race_fig(r, "reader_value"), bad ? 100 : 400);
	assert_int_equal(race_fig(r, "root_memcg_state_in_window"), 100);
	assert_int_equal(race_fig(r, "true_pages"), 400);
	assert_int_equal(race_fig(r, "root_after_flush"), 400);
	free(r);
}

static void script_rstat(void **st) { script("root-lruvec-read=rstat", true); }
static void script_node(void **st) { script("root-lruvec-read=node", false); }

static void explore(enum msim_strategy s, unsigned int budget, const char *variant, bool bad)
{
	free(race_explore("rstat-ratelimit-window", s, budget, variant, bad));
}

static void pct_rstat(void **st) { explore(MSIM_STRAT_PCT, 500, "root-lruvec-read=rstat", true); }
static void pct_node(void **st) { explore(MSIM_STRAT_PCT, 500, "root-lruvec-read=node", false); }
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
