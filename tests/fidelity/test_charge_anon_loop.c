/* SPDX-License-Identifier: MIT */
/*
 * test_charge_anon_loop.c - the fault / charge / stat / uncharge loop of the
 * anon-churn bench, checked for exact figures on 4 CPUs (docs/charge.md, docs/rstat.md).
 *
 *   overcharge_by_stock   100 faults per CPU: 2 batches of 64 charged per CPU, so
 *                         memory.current is 512 pages for 400 pages in use, and
 *                         28 pages sit in each CPU's stock
 *   stats_after_flush     memory.stat shows 400 anon pages and 400 pgfault after a
 *                         forced flush (the gated flush of memory.stat itself
 *                         runs too: 4 CPUs, threshold 256, atomic above it)
 *   unmap_and_rmdir       unmapping every page leaves only the stocks charged;
 *                         rmdir's offline drain gives them back: 0 everywhere
 *   each_dying_variant    the same figures under dying-redirect v1, all and
 *                         all-rcu-on-dying (the variants change where updates to
 *                         a dying memcg go, not the live path's totals)
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>

#include <memcgsim/charge.h>
#include <memcgsim/memcgsim.h>
#include <memcgsim/rstat.h>

#include "unit/unit_util.h"

#define CPUS 4
#define FAULTS 100

struct loop {
	struct msim *m;
	struct msim_memcg *memcg;
	struct msim_lruvec *lruvec;
	int failures;
};

static void fault_task(void *arg)
{
	struct loop *l = arg;

	for (int i = 0; i < FAULTS; i++) {
		msim_count_memcg_events(l->memcg, MSIM_PGFAULT, 1);
		if (msim_try_charge(l->memcg, MSIM_GFP_KERNEL, 1))
			l->failures++;
		msim_mod_lruvec_state(l->lruvec, MSIM_NR_ANON_MAPPED, 1);
		msim_mod_lruvec_state(l->lruvec, MSIM_NR_INACTIVE_ANON, 1);
	}
}

static void unmap_task(void *arg)
{
	struct loop *l = arg;

	for (int i = 0; i < FAULTS; i++) {
		msim_mod_lruvec_state(l->lruvec, MSIM_NR_ANON_MAPPED, -1);
		msim_mod_lruvec_state(l->lruvec, MSIM_NR_INACTIVE_ANON, -1);
	}
	msim_memcg_uncharge(l->memcg, FAULTS);
}

static void run_on_every_cpu(struct loop *l, msim_task_fn fn)
{
	for (unsigned int cpu = 0; cpu < CPUS; cpu++)
		assert_non_null(msim_task_create(l->m, "loop", cpu, fn, l));
	assert_int_equal(msim_run(l->m), 0);
}

static void one_variant(enum msim_dying_redirect dr)
{
	struct msim_config cfg;
	struct loop l = { 0 };
	struct msim_memcg *root;
	char text[8192];
	uint64_t v;

	msim_config_init(&cfg);
	cfg.nr_cpus = CPUS;
	cfg.mode = MSIM_DETERMINISTIC;
	assert_int_equal(msim_variant_set_value(&cfg.variants, "dying-redirect", dr), 0);
	l.m = unit_host_cfg(&cfg);
	assert_int_equal(msim_rstat_init(l.m, NULL), 0);
	assert_int_equal(msim_charge_init(l.m), 0);
	msim_rstat_periodic_flush_enable(l.m, false);
	root = msim_root_mem_cgroup(l.m);
	assert_int_equal(msim_memcg_create(root, "w1", &l.memcg), 0);
	l.lruvec = msim_mem_cgroup_lruvec(l.m, l.memcg, 0);

	/* overcharge_by_stock */
	run_on_every_cpu(&l, fault_task);
	assert_int_equal(l.failures, 0);
	assert_int_equal(msim_memory_current_read(l.memcg), CPUS * 128 * 4096ULL);
	for (unsigned int cpu = 0; cpu < CPUS; cpu++)
		assert_int_equal(msim_stock_pages(l.m, cpu, l.memcg), 28);
	assert_int_equal(msim_page_counter_read(msim_memcg_page_counter(root)), CPUS * 128);

	/* stats_after_flush: 400 pages x 3 updates = 1200 > 256, memory.stat flushes. */
	assert_true(msim_memcg_stats_updates(l.memcg) > msim_memcg_flush_threshold(l.m));
	assert_true(msim_memory_stat_show(l.memcg, text, sizeof(text)) > 0);
	assert_int_equal(msim_memory_stat_lookup(text, "anon", &v), 0);
	assert_int_equal(v, CPUS * FAULTS * 4096ULL);
	assert_int_equal(msim_memory_stat_lookup(text, "inactive_anon", &v), 0);
	assert_int_equal(v, CPUS * FAULTS * 4096ULL);
	assert_int_equal(msim_memory_stat_lookup(text, "pgfault", &v), 0);
	assert_int_equal(v, CPUS * FAULTS);
	assert_int_equal(msim_node_page_state(l.m, 0, MSIM_NR_ANON_MAPPED), CPUS * FAULTS);

	/* unmap_and_rmdir */
	run_on_every_cpu(&l, unmap_task);
	assert_int_equal(msim_memory_current_read(l.memcg), CPUS * 28 * 4096ULL);
	msim_mem_cgroup_flush_stats_forced(NULL);
	assert_int_equal(msim_memcg_page_state(l.memcg, MSIM_NR_ANON_MAPPED), 0);
	assert_int_equal(msim_memcg_page_state(root, MSIM_NR_ANON_MAPPED), 0);
	assert_int_equal(msim_memcg_rmdir(l.memcg), 0);
	assert_int_equal(msim_page_counter_read(msim_memcg_page_counter(root)), 0);
	for (unsigned int cpu = 0; cpu < CPUS; cpu++)
		assert_null(msim_stock_slot(l.m, cpu, 0, NULL));
	msim_memcg_drain(l.m);
	msim_destroy(l.m);
}

static void each_dying_variant(void **state)
{
	(void)state;
	one_variant(MSIM_DYING_REDIRECT_V1);
	one_variant(MSIM_DYING_REDIRECT_ALL);
	one_variant(MSIM_DYING_REDIRECT_ALL_RCU_ON_DYING);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(each_dying_variant),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
