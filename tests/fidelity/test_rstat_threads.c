/* SPDX-License-Identifier: MIT */
/*
 * Fidelity against the threads' published figures (deterministic ones only):
 *
 *   thread 004 trace   "root stayed at 6144 (the threshold)": a 96-CPU host,
 *                      threshold 64 x 96 = 6144; after the race root sits at
 *                      exactly 6144 and later updates break at the leaf,
 *                      the gated root flush skipping while unflushed pages grow
 *                      (the 2 GiB-at-1-GiB/s figure: bench rstat-staleness)
 *   thread 002         a root flush visits every CPU of an 80-CPU host; root
 *                      lruvec reads under root-lruvec-read=node come from the node
 *                      counters except the seven excluded kernel-memory stats
 *                      plus hugetlb
 *   reference 1.1      units: bytes, KiB, pages; memcg_state_val_in_pages()
 */
#include "race/race_util.h"
#include "unit/unit_util.h"

static void thread004_root_at_6144(void **st)
{
	struct msim_race_result *r = race_script_cpus("rstat-early-exit", 96);

	assert_true(r->rep.violated);
	assert_int_equal(race_fig(r, "threshold"), 6144);
	assert_int_equal(race_fig(r, "root_atomic"), 6144);
	assert_int_equal(race_fig(r, "root_atomic_later"), 6144);
	assert_int_equal(race_fig(r, "leaf_atomic"), 6144 + 64);
	assert_int_equal(race_fig(r, "next_batch_walk_breaks"), 64);
	assert_int_equal(race_fig(r, "root_flush_skipped"), 1);
	assert_int_equal(race_fig(r, "root_flush_skipped_later"), 1);
	/* 64 (race) + 96 batches + 64 + 96 more batches of one page */
	assert_int_equal(race_fig(r, "root_unflushed_later"), 64 * (96 + 2) + 64 * 96);
	free(r);
}

static void thread002_root_flush_visits_every_cpu(void **st)
{
	struct msim_config cfg;
	struct msim *m;
	struct msim_memcg *a;
	struct msim_rstat_counters c;

	msim_config_init(&cfg);
	cfg.nr_cpus = 80;
	cfg.variants.root_lruvec_read = MSIM_ROOT_LRUVEC_READ_NODE;
	m = unit_host_cfg(&cfg);
	assert_int_equal(msim_rstat_init(m, NULL), 0);
	assert_int_equal(msim_memcg_flush_threshold(m), 64 * 80);
	assert_int_equal(msim_memcg_create(msim_root_mem_cgroup(m), "a", &a), 0);
	msim_rstat_counters_reset(m);
	msim_mem_cgroup_flush_stats_forced(NULL);
	msim_rstat_counters(m, &c);
	assert_int_equal(c.cpu_visits, 80);
	assert_int_equal(c.memcg_flushes, 0); /* idle: nothing queued */
	for (int i = 0; i < MSIM_NR_NODE_STAT_ITEMS; i++) {
		struct msim_lruvec *ra = msim_mem_cgroup_lruvec(m, a, 0);
		long unit = msim_memcg_page_state_unit((enum msim_stat_item)i);

		msim_mod_lruvec_state(ra, (enum msim_stat_item)i, unit == 1 ? 4096 : 3);
		unsigned long root = msim_lruvec_page_state(
			msim_mem_cgroup_lruvec(m, msim_root_mem_cgroup(m), 0), (enum msim_stat_item)i);
		/* unflushed: only node-read stats show the update at root */
		assert_int_equal(root != 0, !msim_node_stat_includes_unaccounted((enum msim_stat_item)i));
	}
	msim_destroy(m);
}

static void units(void **st)
{
	int excluded = 0;

	for (int i = 0; i < MSIM_NR_NODE_STAT_ITEMS; i++)
		excluded += msim_node_stat_includes_unaccounted((enum msim_stat_item)i);
	assert_int_equal(excluded, 8);
	assert_int_equal(msim_memcg_state_val_in_pages(MSIM_MEMCG_ZSWAP_B, 4096 * 5 + 1), 5);
	assert_int_equal(msim_memcg_state_val_in_pages(MSIM_NR_KERNEL_STACK_KB, -1), -1);
	assert_int_equal(msim_memcg_page_state_output_unit(MSIM_PGDEMOTE_KSWAPD), 1);
	assert_int_equal(msim_memcg_page_state_output_unit(MSIM_MEMCG_KMEM), 4096);
	assert_int_equal(MSIM_MEMCG_NR_STAT, 47 + 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(thread004_root_at_6144),
		cmocka_unit_test(thread002_root_flush_visits_every_cpu),
		cmocka_unit_test(units),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
