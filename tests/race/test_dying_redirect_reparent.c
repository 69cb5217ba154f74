/* SPDX-License-Identifier: MIT */
/*
 * dying-redirect-reparent (thread 000 patches 2, 3): a stat update through a
 * stashed lruvec of c races with rmdir(c) and the reparenting of c's local stats.
 * c has 100 local file pages; the update adds 10.
 *
 *   CPU 0 (rmdir c)                    CPU 1 (update through c's lruvec)
 *   ---------------                    ---------------------------------
 *                                      get_non_dying_memcg_start(c): not dying
 *   set CSS_DYING
 *   synchronize_rcu()                  all: waits (updater inside RCU)
 *                                      all-rcu-on-dying: no RCU, no wait
 *   offline: move c.local 100 -> p
 *                                      this_cpu_add(c, +10)
 *
 *   variant (host)           p.local  c.local left  rmdir waited  violation
 *   v1 (cgroup v2)               0        110           no           yes
 *   v1 (cgroup v1)             110          0           yes          no
 *   all (v2)                   110          0           yes          no
 *   all-rcu-on-dying (v2)      100         10           no           yes
 *
 * Nothing is double counted: p's and root's hierarchical values are 110 in every
 * row. Budgets: PCT 500 runs depth 3; DFS 5000 schedules, preemption bound 2.
 */
#include "race_util.h"

static struct msim_race_result *run(enum msim_strategy strat, unsigned int runs,
				    const char *variant, enum msim_cgroup_version v)
{
	struct msim_race_opts o = { .strategy = strat, .runs = runs, .seed = 1,
				    .preemptions = (unsigned int)-1 };
	struct msim_race_result *r;
	struct msim_config cfg;
	char err[256];

	msim_config_init(&cfg);
	cfg.cgroup_version = v;
	assert_int_equal(msim_variant_set(&cfg.variants, variant, err, sizeof(err)), 0);
	r = race_run_cfg("dying-redirect-reparent", &cfg, &o);
	assert_true(r->behaved_as_expected);
	return r;
}

static void script(const char *variant, enum msim_cgroup_version v, long p_local,
		   long c_left, bool waited)
{
	struct msim_race_result *r = run(MSIM_STRAT_SCRIPT, 0, variant, v);

	assert_int_equal(r->rep.violated, p_local != 110);
	assert_int_equal(race_fig(r, "applied"), 110);
	assert_int_equal(race_fig(r, "p_local"), p_local);
	assert_int_equal(race_fig(r, "c_local_left"), c_left);
	assert_int_equal(race_fig(r, "lost_from_p_local"), 110 - p_local);
	assert_int_equal(race_fig(r, "rmdir_waited_for_updater"), waited);
	assert_int_equal(race_fig(r, "p_state"), 110);
	assert_int_equal(race_fig(r, "root_state"), 110);
	assert_int_equal(race_fig(r, "double_counted"), 0);
	free(r);
}

static void script_v1_on_v2(void **st) { script("dying-redirect=v1", MSIM_CGROUP_V2, 0, 110, false); }
static void script_v1_on_v1(void **st) { script("dying-redirect=v1", MSIM_CGROUP_V1, 110, 0, true); }
static void script_all(void **st) { script("dying-redirect=all", MSIM_CGROUP_V2, 110, 0, true); }
static void script_rcu_on_dying(void **st)
{
	script("dying-redirect=all-rcu-on-dying", MSIM_CGROUP_V2, 100, 10, false);
}

static void explore(enum msim_strategy strat, unsigned int budget, const char *variant,
		    enum msim_cgroup_version v, bool bad)
{
	struct msim_race_result *r = run(strat, budget, variant, v);

	if (bad) {
		assert_true(r->ex.violations > 0);
		assert_true((unsigned int)r->ex.first_violation_run < budget);
		assert_non_null(strstr(r->ex.why, "local stats lost"));
	} else {
		assert_int_equal(r->ex.violations, 0);
	}
	free(r);
}

static void pct_all_clean(void **st) { explore(MSIM_STRAT_PCT, 500, "dying-redirect=all", MSIM_CGROUP_V2, false); }
static void pct_rcu_on_dying_finds(void **st)
{
	explore(MSIM_STRAT_PCT, 500, "dying-redirect=all-rcu-on-dying", MSIM_CGROUP_V2, true);
}
static void dfs_all_clean(void **st) { explore(MSIM_STRAT_DFS, 5000, "dying-redirect=all", MSIM_CGROUP_V2, false); }
static void dfs_rcu_on_dying_finds(void **st)
{
	explore(MSIM_STRAT_DFS, 5000, "dying-redirect=all-rcu-on-dying", MSIM_CGROUP_V2, true);
}
static void pct_v1_on_v1_clean(void **st) { explore(MSIM_STRAT_PCT, 500, "dying-redirect=v1", MSIM_CGROUP_V1, false); }

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(script_v1_on_v2),
		cmocka_unit_test(script_v1_on_v1),
		cmocka_unit_test(script_all),
		cmocka_unit_test(script_rcu_on_dying),
		cmocka_unit_test(pct_all_clean),
		cmocka_unit_test(pct_rcu_on_dying_finds),
		cmocka_unit_test(dfs_all_clean),
		cmocka_unit_test(dfs_rcu_on_dying_finds),
		cmocka_unit_test(pct_v1_on_v1_clean),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
