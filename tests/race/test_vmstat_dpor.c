/* SPDX-License-Identifier: MIT */
/*
 * test_vmstat_dpor.c - what vmstat's steps say they touch (yield.h's contract),
 * checked on toys where DPOR's count or outcomes depend on it:
 *  - updates of two CPUs touch two CPUs' diffs and section words: one trace, so
 *    DPOR runs one schedule (with "vmstat.update" touching anything it ran more)
 *    and sees what DFS sees;
 *  - a fold of CPU 1 from a task on CPU 0 (stat_refresh) and an update on CPU 1
 *    both touch CPU 1's diff: the fold finds it or not, and DPOR must see both
 *    (the update's diff store and the fold's scan are noted: without either the
 *    steps look independent and one outcome is lost);
 *  - the same with an update that passes the threshold, whose section spans the
 *    atomics' points, so the fold may meet the section and hand the fold over
 *    (the section word is noted by every function that touches it).
 * An outcome is a run's fingerprint mixed with the end state (node atomic, CPU
 * 1's diff, folds deferred), which the check writes as its reason.
 */
#include <errno.h>

#include <memcgsim/introspect.h>
#include <memcgsim/vmstat.h>

#include "outcome_util.h"

#define ITEM MSIM_NR_FILE_PAGES

struct vm_toy {
	struct msim *m;
	long delta[2][2];       /* each CPU's task's updates, 0-ended (none: it folds) */
	bool irqoff;            /* __mod_node_page_state() form, else mod_node_page_state() */
};

struct vm_task_arg {
	struct vm_toy *s;
	unsigned int cpu;
};

static struct vm_task_arg task_args[2];

static void update_or_fold(void *arg)
{
	struct vm_task_arg *a = arg;
	struct vm_toy *s = a->s;
	const long *delta = s->delta[a->cpu];

	if (!delta[0])
		msim_vmstat_refresh(s->m);   /* stat_refresh: every CPU's fold, here */
	for (unsigned int i = 0; i < 2 && delta[i]; i++) {
		if (s->irqoff)
			msim_vmstat_mod_node_page_state_irqoff(s->m, 0, ITEM, delta[i]);
		else
			msim_vmstat_mod_node_page_state(s->m, 0, ITEM, delta[i]);
	}
}

static int toy_setup(struct msim *m, void **state, void *arg)
{
	struct vm_toy *s = malloc(sizeof(*s));

	if (!s)
		return -ENOMEM;
	*s = *(const struct vm_toy *)arg;
	s->m = m;
	*state = s;
	msim_vmstat_periodic_enable(m, false);
	for (unsigned int cpu = 0; cpu < 2; cpu++) {
		task_args[cpu] = (struct vm_task_arg){ .s = s, .cpu = cpu };
		if (!msim_task_create(m, "vm", cpu, update_or_fold, &task_args[cpu]))
			return -ENOMEM;
	}
	return 0;
}

/* Every run "violates": the reason is the end state, which outcomes compare. */
static bool end_state(struct msim *m, void *state, char *why, size_t len)
{
	struct msim_vmstat_counters c;

	(void)state;
	msim_vmstat_counters(m, &c);
	snprintf(why, len, "atomic %ld diff1 %ld deferred %llu",
		 msim_vmstat_node_stat_raw(m, 0, ITEM),
		 msim_vmstat_node_diff(m, 0, 1, ITEM), (unsigned long long)c.deferred_folds);
	return true;
}

static void toy_teardown(struct msim *m, void *state)
{
	(void)m;
	free(state);
}

/* Explore the toy to exhaustion with no bound on a 2-CPU vmstat host. */
static void explore_toy(struct vm_toy *toy, enum msim_strategy strategy, struct outcome_set *out,
			struct msim_explore_result *res)
{
	struct msim_explore_target t = {
		.name = "vmstat-toy", .setup = toy_setup, .check = end_state,
		.teardown = toy_teardown, .arg = toy,
	};
	struct msim_explore_opts o = {
		.strategy = strategy, .runs = 20000, .preemptions = MSIM_EXPLORE_UNBOUNDED,
		.fingerprint = true, .on_run = outcome_collect, .on_run_arg = out,
	};
	struct msim_config cfg;

	msim_config_init(&cfg);
	cfg.mode = MSIM_DETERMINISTIC;
	cfg.nr_cpus = 2;
	cfg.vmstat = true;
	out->n = 0;
	assert_int_equal(msim_explore(&t, &cfg, &o, res), 0);
	assert_true(res->exhausted);
}

/* DFS and DPOR on toy: DPOR sees every outcome DFS sees; returns DPOR's schedules. */
static unsigned int dpor_against_dfs(struct vm_toy *toy, unsigned int *dfs_runs,
				     size_t *outcomes)
{
	struct outcome_set dfs = { 0 }, dpor = { 0 };
	struct msim_explore_result res;

	explore_toy(toy, MSIM_STRAT_DFS, &dfs, &res);
	*dfs_runs = res.runs;
	explore_toy(toy, MSIM_STRAT_DPOR, &dpor, &res);
	print_message("    DFS %u schedules, %zu outcomes; DPOR %u schedules (%u pruned), "
		      "%zu outcomes\n", *dfs_runs, dfs.n, res.runs, res.pruned, dpor.n);
	assert_int_equal(outcomes_missing(&dfs, &dpor), 0);
	*outcomes = dfs.n;
	free(dfs.v);
	free(dpor.v);
	return res.runs;
}

static void updates_of_two_cpus_commute(void **unused)
{
	struct vm_toy irqoff = { .delta = { { 5 }, { 7 } }, .irqoff = true };
	struct vm_toy mod = { .delta = { { 5 }, { 7 } } };
	unsigned int dfs_runs;
	size_t outcomes;

	(void)unused;
	assert_int_equal(dpor_against_dfs(&irqoff, &dfs_runs, &outcomes), 1);
	assert_true(dfs_runs > 1);
	assert_int_equal(outcomes, 1);
	assert_int_equal(dpor_against_dfs(&mod, &dfs_runs, &outcomes), 1);
	assert_true(dfs_runs > 1);
	assert_int_equal(outcomes, 1);
}

static void fold_and_update_stay_ordered(void **unused)
{
	/* CPU 0 folds every CPU; CPU 1 adds 5 (below the threshold: it stays a diff) */
	struct vm_toy irqoff = { .delta = { { 0 }, { 5 } }, .irqoff = true };
	struct vm_toy mod = { .delta = { { 0 }, { 5 } } };
	unsigned int dfs_runs;
	size_t outcomes;

	(void)unused;
	/* both outcomes: folded 5, or found 0 */
	assert_int_equal(dpor_against_dfs(&irqoff, &dfs_runs, &outcomes), 2);
	assert_int_equal(dfs_runs, 3);
	assert_int_equal(outcomes, 2);
	assert_int_equal(dpor_against_dfs(&mod, &dfs_runs, &outcomes), 2);
	assert_int_equal(dfs_runs, 4);
	assert_int_equal(outcomes, 2);
}

static void fold_meets_the_section(void **unused)
{
	/* CPU 1 leaves 5 in its diff, then 100 passes its threshold: that section
	 * spans the atomics' points, and a fold of the 5 in it is handed over */
	struct vm_toy irqoff = { .delta = { { 0 }, { 5, 100 } }, .irqoff = true };
	unsigned int dfs_runs;
	size_t outcomes;

	(void)unused;
	/* folded before, handed over, found nothing, in 7 outcomes; DPOR 12 of DFS's 31 */
	assert_int_equal(dpor_against_dfs(&irqoff, &dfs_runs, &outcomes), 12);
	assert_int_equal(dfs_runs, 31);
	assert_int_equal(outcomes, 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(updates_of_two_cpus_commute),
		cmocka_unit_test(fold_and_update_stay_ordered),
		cmocka_unit_test(fold_meets_the_section),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
