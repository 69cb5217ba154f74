/* SPDX-License-Identifier: MIT */
/*
 * rstat-early-exit (thread 004; R3 and R4): a concurrent root flush resets root
 * after the leaf's reset and a batch in between, then the early exit at the
 * flushable leaf keeps root from ever crossing the threshold.
 *
 * 4 CPUs, threshold 256; before: leaf = root = 256; root queued on CPU 3.
 *
 *   CPU 0 (root flush)                 CPU 1 (leaf updates)
 *   ------------------                 --------------------
 *   visit CPU 0, CPU 1:
 *     clear leaf->stats_updates
 *     clear root->stats_updates
 *                                      add 64 to leaf and root
 *   visit CPU 3 (root queued there):
 *     clear root->stats_updates
 *   finish flush
 *                                      leaf = 64, root = 0
 *                                      4 more batches of 64:
 *                                        leaf = 320, root = 256
 *                                      next update:
 *                                        leaf > threshold
 *                                        break; root is not updated
 *
 * break (mainline): mem_cgroup_flush_stats(root) skips with 384 unflushed pages,
 * and still skips 256 updates later (640 unflushed); the periodic flush restores.
 * continue (thread 004): the next 64 updates skip the leaf and reach root (320),
 * and the gated root flush runs.
 *
 * Explorer budgets (stated): PCT 1000 runs depth 2 from seed 1; DFS 5000
 * schedules with preemption bound 1 (the bounded space is exhausted within it).
 */
#include <errno.h>

#include "race_util.h"

static void script_break(void **st)
{
	struct msim_race_result *r = race_run("rstat-early-exit", MSIM_STRAT_SCRIPT, 0, 0,
					      "rstat-propagate=break", NULL);

	assert_true(r->rep.violated);
	assert_true(r->behaved_as_expected);
	assert_int_equal(race_fig(r, "threshold"), 256);
	assert_int_equal(race_fig(r, "leaf_atomic_after_race"), 64);
	assert_int_equal(race_fig(r, "root_atomic_after_race"), 0);
	assert_int_equal(race_fig(r, "leaf_atomic_after_batches"), 320);
	assert_int_equal(race_fig(r, "root_atomic_after_batches"), 256);
	assert_int_equal(race_fig(r, "next_batch_walk_breaks"), 64);
	assert_int_equal(race_fig(r, "next_batch_walk_skips"), 0);
	assert_int_equal(race_fig(r, "leaf_atomic"), 320);
	assert_int_equal(race_fig(r, "root_atomic"), 256);
	assert_int_equal(race_fig(r, "root_flush_skipped"), 1);
	assert_int_equal(race_fig(r, "root_unflushed"), 384);
	assert_int_equal(race_fig(r, "root_reported_pages"), 257);
	assert_int_equal(race_fig(r, "true_pages"), 641);
	assert_int_equal(race_fig(r, "root_flush_skipped_later"), 1);
	assert_int_equal(race_fig(r, "root_unflushed_later"), 640);
	assert_int_equal(race_fig(r, "root_atomic_later"), 256);
	/* the periodic flush restores progress */
	assert_int_equal(race_fig(r, "root_pages_after_periodic"), race_fig(r, "true_pages_at_periodic"));
	assert_int_equal(race_fig(r, "root_unflushed_after_periodic"), 0);
	free(r);
}

static void script_continue(void **st)
{
	struct msim_race_result *r = race_run("rstat-early-exit", MSIM_STRAT_SCRIPT, 0, 0,
					      "rstat-propagate=continue", NULL);

	assert_false(r->rep.violated);
	assert_true(r->behaved_as_expected);
	assert_int_equal(race_fig(r, "leaf_atomic_after_race"), 64);
	assert_int_equal(race_fig(r, "root_atomic_after_race"), 0);
	assert_int_equal(race_fig(r, "leaf_atomic_after_batches"), 320);
	assert_int_equal(race_fig(r, "root_atomic_after_batches"), 256);
	assert_int_equal(race_fig(r, "next_batch_walk_breaks"), 0);
	assert_int_equal(race_fig(r, "next_batch_walk_skips"), 64);
	assert_int_equal(race_fig(r, "root_atomic"), 320);
	assert_int_equal(race_fig(r, "root_flush_skipped"), 0);
	assert_int_equal(race_fig(r, "root_reported_pages"), race_fig(r, "true_pages"));
	free(r);
}

/* --cpus 8: threshold 512, the same shape with 8 batches. */
static void script_scales_with_cpus(void **st)
{
	const struct msim_scenario *s = msim_scenario_find("rstat-early-exit");
	struct msim_race_opts o = { .strategy = MSIM_STRAT_SCRIPT, .cpus = 2,
				    .preemptions = (unsigned int)-1 };
	struct msim_race_result *r = race_script_cpus("rstat-early-exit", 8);
	struct msim_config cfg;
	char err[256];

	assert_true(r->rep.violated);
	assert_int_equal(race_fig(r, "threshold"), 512);
	assert_int_equal(race_fig(r, "leaf_atomic_after_race"), 64);
	assert_int_equal(race_fig(r, "root_atomic_after_race"), 0);
	assert_int_equal(race_fig(r, "leaf_atomic"), 576);
	assert_int_equal(race_fig(r, "root_atomic"), 512);
	assert_int_equal(race_fig(r, "root_unflushed"), 640);
	assert_int_equal(race_fig(r, "root_flush_skipped"), 1);
	/* fewer than 3 CPUs is a usage error */
	msim_config_init(&cfg);
	assert_int_equal(msim_race_run(s, &cfg, &o, r, err, sizeof(err)), -EINVAL);
	free(r);
}

/*
 * `memcgsim race rstat-early-exit --json` (msim_race_print_json): the key figures
 * join the object under their names: the leaf's and root's atomic stats_updates
 * after the script, the threshold, whether the gated root flush was skipped and
 * root's unflushed pages at that moment; --cpus 8 scales them.
 */
static void json_figures(unsigned int cpus, const char *const *want)
{
	struct msim_race_result *r = race_script_cpus("rstat-early-exit", cpus);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	msim_race_print_json(f, r);
	fclose(f);
	for (const char *const *w = want; *w; w++)
		if (!strstr(buf, *w))
			fail_msg("'%s' missing from %s", *w, buf);
	free(buf);
	free(r);
}

static void json_key_figures(void **st)
{
	static const char *const four[] = {
		"\"race\": \"rstat-early-exit\"", "\"threshold\": 256,",
		"\"leaf_atomic\": 320,", "\"root_atomic\": 256,",
		"\"root_flush_skipped\": true,", "\"root_unflushed\": 384,", NULL
	};
	static const char *const eight[] = {
		"\"threshold\": 512,", "\"leaf_atomic\": 576,", "\"root_atomic\": 512,",
		"\"root_flush_skipped\": true,", "\"root_unflushed\": 640,", NULL
	};

	json_figures(0, four);
	json_figures(8, eight);
}

static void explore(enum msim_strategy strat, unsigned int budget, const char *variant,
		    bool expect)
{
	struct msim_race_result *r = race_explore("rstat-early-exit", strat, budget, variant,
						  expect);

	if (!expect && strat == MSIM_STRAT_DFS)
		assert_true(r->ex.exhausted);
	free(r);
}

static void pct_break_finds(void **st) { explore(MSIM_STRAT_PCT, 1000, "rstat-propagate=break", true); }
static void pct_continue_none(void **st) { explore(MSIM_STRAT_PCT, 1000, "rstat-propagate=continue", false); }
static void dfs_break_finds(void **st) { explore(MSIM_STRAT_DFS, 5000, "rstat-propagate=break", true); }
static void dfs_continue_none(void **st) { explore(MSIM_STRAT_DFS, 5000, "rstat-propagate=continue", false); }

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(script_break),
		cmocka_unit_test(script_continue),
		cmocka_unit_test(script_scales_with_cpus),
		cmocka_unit_test(json_key_figures),
		cmocka_unit_test(pct_break_finds),
		cmocka_unit_test(pct_continue_none),
		cmocka_unit_test(dfs_break_finds),
		cmocka_unit_test(dfs_continue_none),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
