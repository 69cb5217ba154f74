/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of node and zone vmstat (vmstat.h), deterministic hosts.
 *
 *   thresholds_by_hand          calculate_normal/pressure_threshold against values
 *                               worked out from mm/vmstat.c for concrete machines
 *   host_thresholds             per zone, and a node's = its largest zone's
 *   fold_at_threshold_plus_one  both update forms keep threshold in the diff and
 *                               fold at threshold + 1
 *   inc_dec_overstep            a fold by inc/dec leaves -/+ threshold/2 behind
 *   periodic_fold               shepherd at 1 s, the CPU's work one jiffy later;
 *                               works stop when nothing is left
 *   periodic_off                no fold without the works
 *   negative_global_clamps      node_page_state reads 0, the snapshot the truth
 *   byte_items                  slab bytes stored as pages; rstat's numbering
 *   zone_counters               zones fold at their own threshold; unpopulated
 *                               zones refuse updates
 *   not_attached                hosts without vmstat, attach by hand, bad config
 *   percpu_memory_charged       per-CPU structs in the kernel-memory model
 */
#include <errno.h>
#include <string.h>

#include <memcgsim/introspect.h>

#include "test_vmstat_util.h"

#define ITEM MSIM_NR_FILE_PAGES

/*
 * Expected values worked out by hand from calculate_normal_threshold() in
 * mm/vmstat.c; where its comment table has the row, the row is named.
 */
static void thresholds_by_hand(void **st)
{
	/* Table row "48  4 CPUs  8-16 GB": 13 GiB is 104 units of 128 MiB. */
	assert_int_equal(msim_vmstat_calculate_normal_threshold(4, GIB_PAGES(13)), 48);
	/* Table row "20  2 CPUs  1-2 GB": 1.5 GiB is 12 units. */
	assert_int_equal(msim_vmstat_calculate_normal_threshold(2, MIB_PAGES(1536)), 20);
	/* Table row "4  2 CPUs  <128M": a 15 MiB DMA zone is 0 units. */
	assert_int_equal(msim_vmstat_calculate_normal_threshold(2, MIB_PAGES(15)), 4);
	/*
	 * Thread 002's 80-CPU machine with a 16 GiB zone: 128 units, the highest bit
	 * is the 8th; 80 CPUs, the 7th; 2 x 7 x (1 + 8) = 126, capped at 125.
	 */
	assert_int_equal(msim_vmstat_calculate_normal_threshold(80, GIB_PAGES(16)), 125);
	/* 80 CPUs, 2976 MiB DMA32: 23 units (5th bit), 2 x 7 x 6 = 84. */
	assert_int_equal(msim_vmstat_calculate_normal_threshold(80, MIB_PAGES(2976)), 84);
	/* 1 CPU, an empty zone: 2 x 1 x 1. */
	assert_int_equal(msim_vmstat_calculate_normal_threshold(1, 0), 2);
	/* 1024 CPUs (11th bit), 127 MiB: 0 units, 2 x 11 x 1 = 22. */
	assert_int_equal(msim_vmstat_calculate_normal_threshold(1024, MIB_PAGES(127)), 22);

	/* calculate_pressure_threshold(): watermark distance shared by the CPUs. */
	assert_int_equal(msim_vmstat_calculate_pressure_threshold(80, 8000), 100);
	assert_int_equal(msim_vmstat_calculate_pressure_threshold(80, 40), 1);    /* at least 1 */
	assert_int_equal(msim_vmstat_calculate_pressure_threshold(4, 1000), 125); /* 250, capped */
}

static void host_thresholds(void **st)
{
	struct msim_config cfg = unit_config(4, 2);
	struct msim *m = vm_host_cfg(&cfg);

	/* Default zones, 4 CPUs: DMA 15 MiB (6), DMA32 2976 MiB (2 x 3 x 6 = 36), NORMAL 48. */
	assert_int_equal(msim_vmstat_zone_stat_threshold(m, 0, MSIM_ZONE_DMA, 3), 6);
	assert_int_equal(msim_vmstat_zone_stat_threshold(m, 0, MSIM_ZONE_DMA32, 3), 36);
	assert_int_equal(msim_vmstat_zone_stat_threshold(m, 0, MSIM_ZONE_NORMAL, 3), 48);
	assert_int_equal(msim_vmstat_zone_stat_threshold(m, 0, MSIM_ZONE_MOVABLE, 3), 0);
	assert_int_equal(msim_vmstat_node_stat_threshold(m, 0, 0), 48);
	/* Node 1 has no low memory: NORMAL alone. */
	assert_int_equal(msim_vmstat_zone_managed_pages(m, 1, MSIM_ZONE_DMA32), 0);
	assert_int_equal(msim_vmstat_zone_managed_pages(m, 1, MSIM_ZONE_NORMAL), GIB_PAGES(13));
	assert_int_equal(msim_vmstat_node_stat_threshold(m, 1, 2), 48);
	msim_destroy(m);

	/* A node of one 512 MiB MOVABLE zone on 4 CPUs: 4 units, 2 x 3 x 4 = 24. */
	cfg = unit_config(4, 2);
	cfg.zone_managed_pages[MSIM_ZONE_NORMAL] = 0;
	cfg.zone_managed_pages[MSIM_ZONE_MOVABLE] = MIB_PAGES(512);
	m = vm_host_cfg(&cfg);
	assert_int_equal(msim_vmstat_node_stat_threshold(m, 1, 0), 24);
	assert_int_equal(msim_vmstat_node_stat_threshold(m, 0, 0), 36); /* DMA32 is larger */
	/* An override, undone by a refresh. */
	assert_int_equal(msim_vmstat_set_node_stat_threshold(m, 1, 5), 0);
	assert_int_equal(msim_vmstat_node_stat_threshold(m, 1, 3), 5);
	assert_int_equal(msim_vmstat_set_node_stat_threshold(m, 1, 126), -EINVAL);
	msim_vmstat_refresh_zone_stat_thresholds(m);
	assert_int_equal(msim_vmstat_node_stat_threshold(m, 1, 3), 24);
	msim_destroy(m);
}

/* Default host: node 0's threshold on every CPU is 48 (host_thresholds). */
static void fold_at_threshold_plus_one(void **st)
{
	static const enum vm_op_kind forms[] = { VM_MOD, VM_MOD_IRQOFF };

	for (unsigned int f = 0; f < 2; f++) {
		struct msim *m = vm_host(4, 1);

		assert_int_equal(msim_vmstat_node_stat_threshold(m, 0, 1), 48);
		/* 48 single pages stay in CPU 1's diff. */
		assert_int_equal(vm_on_cpu(m, 1, (struct vm_op){ .item = ITEM, .delta = 1,
								 .kind = forms[f], .times = 48 }), 0);
		assert_int_equal(msim_vmstat_node_diff(m, 0, 1, ITEM), 48);
		assert_int_equal(msim_vmstat_node_page_state(m, 0, ITEM), 0);
		assert_int_equal(msim_vmstat_node_page_state_snapshot(m, 0, ITEM), 48);
		/* The 49th folds all 49 and empties the diff. */
		assert_int_equal(vm_on_cpu(m, 1, (struct vm_op){ .item = ITEM, .delta = 1,
								 .kind = forms[f] }), 0);
		assert_int_equal(msim_vmstat_node_diff(m, 0, 1, ITEM), 0);
		assert_int_equal(msim_vmstat_node_page_state(m, 0, ITEM), 49);
		assert_int_equal(msim_vmstat_global_node_page_state(m, ITEM), 49);
		/* One update of -48 stays, of -49 folds. */
		assert_int_equal(vm_on_cpu(m, 2, (struct vm_op){ .item = ITEM, .delta = -48,
								 .kind = forms[f] }), 0);
		assert_int_equal(msim_vmstat_node_page_state(m, 0, ITEM), 49);
		assert_int_equal(vm_on_cpu(m, 3, (struct vm_op){ .item = ITEM, .delta = -49,
								 .kind = forms[f] }), 0);
		assert_int_equal(msim_vmstat_node_stat_raw(m, 0, ITEM), 0);
		assert_int_equal(msim_vmstat_node_diff(m, 0, 2, ITEM), -48);
		msim_destroy(m);
	}
}

/* inc/dec: fold at 49 (threshold 48) with 24 left on the other side. */
static void inc_dec_overstep(void **st)
{
	static const enum vm_op_kind incs[] = { VM_INC, VM_INC_IRQOFF };
	static const enum vm_op_kind decs[] = { VM_DEC, VM_DEC_IRQOFF };

	for (unsigned int f = 0; f < 2; f++) {
		struct msim *m = vm_host(4, 1);
		struct vm_op inc = { .item = ITEM, .kind = incs[f], .times = 49 };

		assert_int_equal(vm_on_cpu(m, 1, inc), 0);
		assert_int_equal(msim_vmstat_node_stat_raw(m, 0, ITEM), 49 + 24);
		assert_int_equal(msim_vmstat_node_diff(m, 0, 1, ITEM), -24);
		assert_int_equal(msim_vmstat_node_page_state_snapshot(m, 0, ITEM), 49);
		/* From -24 the next fold needs 73 more: 1.5 x threshold + 1. */
		inc.times = 72;
		assert_int_equal(vm_on_cpu(m, 1, inc), 0);
		assert_int_equal(msim_vmstat_node_stat_raw(m, 0, ITEM), 73);
		inc.times = 1;
		assert_int_equal(vm_on_cpu(m, 1, inc), 0);
		assert_int_equal(msim_vmstat_node_stat_raw(m, 0, ITEM), 2 * 73);
		assert_int_equal(msim_vmstat_node_page_state_snapshot(m, 0, ITEM), 49 + 73);

		/* dec on CPU 2: the mirror image. */
		assert_int_equal(vm_on_cpu(m, 2, (struct vm_op){ .item = ITEM, .kind = decs[f],
								 .times = 49 }), 0);
		assert_int_equal(msim_vmstat_node_stat_raw(m, 0, ITEM), 2 * 73 - 73);
		assert_int_equal(msim_vmstat_node_diff(m, 0, 2, ITEM), 24);
		assert_int_equal(msim_vmstat_node_page_state_snapshot(m, 0, ITEM), 49 + 73 - 49);
		msim_destroy(m);
	}
}

static void periodic_fold(void **st)
{
	struct msim *m = vm_host(4, 1);
	struct msim_vmstat_counters c;

	for (unsigned int cpu = 1; cpu < 4; cpu++)
		assert_int_equal(vm_on_cpu(m, cpu, (struct vm_op){ .item = ITEM, .delta = 10,
								   .kind = VM_MOD }), 0);
	assert_int_equal(msim_vmstat_node_page_state(m, 0, ITEM), 0);
	msim_clock_advance(m, 999);
	assert_int_equal(msim_vmstat_node_page_state(m, 0, ITEM), 0);
	/* jiffy 1000: the shepherd queues the three CPUs' works for the next tick. */
	msim_clock_advance(m, 1);
	msim_vmstat_counters(m, &c);
	assert_int_equal(c.shepherd_runs, 1);
	assert_int_equal(c.cpu_folds, 0);
	assert_int_equal(msim_vmstat_node_page_state(m, 0, ITEM), 0);
	msim_clock_advance(m, 1);
	assert_int_equal(msim_vmstat_node_page_state(m, 0, ITEM), 30);
	for (unsigned int cpu = 0; cpu < 4; cpu++)
		assert_int_equal(msim_vmstat_node_diff(m, 0, cpu, ITEM), 0);
	msim_vmstat_counters(m, &c);
	assert_int_equal(c.cpu_folds, 3);
	/* Each work found something, so it ran once more (jiffy 2001), found nothing, stopped. */
	msim_clock_advance(m, 5000);
	msim_vmstat_counters(m, &c);
	assert_int_equal(c.cpu_folds, 6);
	assert_int_equal(c.shepherd_runs, 6);
	assert_int_equal(msim_jiffies(m), 6001);
	msim_destroy(m);
}

static void periodic_off(void **st)
{
	struct msim *m = vm_host(4, 1);

	msim_vmstat_periodic_enable(m, false);
	assert_int_equal(vm_on_cpu(m, 1, (struct vm_op){ .item = ITEM, .delta = 7,
							 .kind = VM_MOD_IRQOFF }), 0);
	msim_clock_advance(m, 10000);
	assert_int_equal(msim_vmstat_node_page_state(m, 0, ITEM), 0);
	msim_vmstat_periodic_enable(m, true);
	msim_clock_advance(m, 1001);
	assert_int_equal(msim_vmstat_node_page_state(m, 0, ITEM), 7);
	msim_destroy(m);
}

/* The truth is 30 while the atomic is -60: a plain read gives 0, a snapshot 30. */
static void negative_global_clamps(void **st)
{
	struct msim *m = vm_host(4, 1);

	assert_int_equal(vm_on_cpu(m, 1, (struct vm_op){ .item = ITEM, .delta = 45,
							 .kind = VM_MOD }), 0);
	assert_int_equal(vm_on_cpu(m, 3, (struct vm_op){ .item = ITEM, .delta = 45,
							 .kind = VM_MOD_IRQOFF }), 0);
	assert_int_equal(vm_on_cpu(m, 2, (struct vm_op){ .item = ITEM, .delta = -60,
							 .kind = VM_MOD }), 0);
	assert_int_equal(msim_vmstat_node_stat_raw(m, 0, ITEM), -60);
	assert_int_equal(msim_vmstat_node_page_state(m, 0, ITEM), 0);
	assert_int_equal(msim_vmstat_global_node_page_state(m, ITEM), 0);
	assert_int_equal(msim_vmstat_node_page_state_snapshot(m, 0, ITEM), 30);
	/* A fold makes the plain read exact (CPUs 1 and 3 each change the host-wide counter). */
	assert_int_equal(msim_vmstat_refresh(m), 2);
	assert_int_equal(msim_vmstat_node_page_state(m, 0, ITEM), 30);
	assert_int_equal(msim_vmstat_refresh(m), 0);
	msim_destroy(m);
}

static void byte_items(void **st)
{
	struct msim *m = vm_host(4, 1);
	const int slab = MSIM_NR_SLAB_RECLAIMABLE_B;

	/* rstat's numbering of the memcg-tracked node items is vmstat's. */
	assert_int_equal(MSIM_VMSTAT_NR_MEMCG_NODE_ITEMS, MSIM_NR_NODE_STAT_ITEMS);
	for (int i = 0; i < MSIM_VMSTAT_NR_MEMCG_NODE_ITEMS; i++)
		assert_int_equal(msim_vmstat_item_in_bytes(i), msim_memcg_page_state_unit(i) == 1);

	/* Three slab pages, given in bytes, are three pages in the diff. */
	assert_int_equal(msim_vmstat_mod_node_page_state(m, 0, slab, 3 * 4096), 0);
	assert_int_equal(msim_vmstat_node_diff(m, 0, 0, slab), 3);
	assert_int_equal(msim_vmstat_mod_node_page_state_irqoff(m, 0, slab, -4096), 0);
	assert_int_equal(msim_vmstat_node_page_state_snapshot(m, 0, slab), 2);
	/* What the kernel warns about is refused and changes nothing. */
	assert_int_equal(msim_vmstat_mod_node_page_state(m, 0, slab, 100), -EINVAL);
	assert_int_equal(msim_vmstat_inc_node_state(m, 0, slab), -EINVAL);
	assert_int_equal(msim_vmstat_dec_node_state_irqoff(m, 0, slab), -EINVAL);
	assert_int_equal(msim_vmstat_node_page_state_snapshot(m, 0, slab), 2);
	/* Node-only items follow the shared ones. */
	assert_int_equal(msim_vmstat_inc_node_state(m, 0, MSIM_WORKINGSET_NODES), 0);
	assert_int_equal(msim_vmstat_node_diff(m, 0, 0, MSIM_WORKINGSET_NODES), 1);
	assert_int_equal(msim_vmstat_inc_node_state(m, 0, MSIM_NR_VM_NODE_STAT_ITEMS), -EINVAL);
	assert_int_equal(msim_vmstat_inc_node_state(m, 0, -1), -EINVAL);
	assert_int_equal(msim_vmstat_inc_node_state(m, 1, ITEM), -EINVAL); /* no node 1 */
	msim_destroy(m);
}

static void zone_counters(void **st)
{
	struct msim_config cfg = unit_config(4, 2);
	struct msim *m;
	const int lru = MSIM_NR_ZONE_INACTIVE_FILE;

	cfg.zone_managed_pages[MSIM_ZONE_MOVABLE] = MIB_PAGES(512);
	m = vm_host_cfg(&cfg);
	/* DMA's threshold is 6 (host_thresholds): 6 stay, the 7th folds all 7. */
	for (int i = 0; i < 6; i++)
		assert_int_equal(msim_vmstat_mod_zone_page_state(m, 0, MSIM_ZONE_DMA, lru, 1), 0);
	assert_int_equal(msim_vmstat_zone_page_state(m, 0, MSIM_ZONE_DMA, lru), 0);
	assert_int_equal(msim_vmstat_inc_zone_state_irqoff(m, 0, MSIM_ZONE_DMA, lru), 0);
	/* __inc_zone_state oversteps: 7 + 3 in the atomic, -3 in the diff. */
	assert_int_equal(msim_vmstat_zone_page_state(m, 0, MSIM_ZONE_DMA, lru), 10);
	assert_int_equal(msim_vmstat_zone_diff(m, 0, MSIM_ZONE_DMA, 0, lru), -3);
	assert_int_equal(msim_vmstat_zone_page_state_snapshot(m, 0, MSIM_ZONE_DMA, lru), 7);
	/* NORMAL (48) keeps 40; node 1's MOVABLE folds 100; zones add up host-wide. */
	assert_int_equal(msim_vmstat_mod_zone_page_state(m, 0, MSIM_ZONE_NORMAL, lru, 40), 0);
	assert_int_equal(msim_vmstat_mod_zone_page_state_irqoff(m, 1, MSIM_ZONE_MOVABLE, lru,
								100), 0);
	assert_int_equal(msim_vmstat_zone_page_state(m, 0, MSIM_ZONE_NORMAL, lru), 0);
	assert_int_equal(msim_vmstat_zone_page_state(m, 1, MSIM_ZONE_MOVABLE, lru), 100);
	assert_int_equal(msim_vmstat_global_zone_page_state(m, lru), 110);
	assert_int_equal(msim_vmstat_refresh(m), 1);
	assert_int_equal(msim_vmstat_global_zone_page_state(m, lru), 147);
	/* Node 1 has no DMA32; no zone item past the last; zone counters are not node ones. */
	assert_int_equal(msim_vmstat_inc_zone_state(m, 1, MSIM_ZONE_DMA32, lru), -EINVAL);
	assert_int_equal(msim_vmstat_dec_zone_state(m, 0, MSIM_ZONE_NORMAL,
						    MSIM_NR_VM_ZONE_STAT_ITEMS), -EINVAL);
	assert_int_equal(msim_vmstat_mod_zone_page_state(m, 0, MSIM_MAX_NR_ZONES, lru, 1), -EINVAL);
	assert_int_equal(msim_vmstat_node_page_state_snapshot(m, 0, lru), 0);
	msim_destroy(m);
}

static void not_attached(void **st)
{
	struct msim_config cfg = unit_config(4, 1);
	struct msim *m = unit_host_cfg(&cfg);
	char err[256];

	assert_false(msim_subsys_attached(m, msim_subsys_find("vmstat")));
	assert_int_equal(msim_vmstat_mod_node_page_state(m, 0, ITEM, 1), -EINVAL);
	assert_int_equal(msim_vmstat_node_page_state_snapshot(m, 0, ITEM), 0);
	assert_int_equal(msim_vmstat_node_stat_threshold(m, 0, 0), 0);
	assert_int_equal(msim_vmstat_refresh(m), 0);
	/* Attached by hand, it works as if configured. */
	assert_int_equal(msim_subsys_attach(m, msim_subsys_find("vmstat"), err, sizeof(err)), 0);
	assert_int_equal(msim_vmstat_node_stat_threshold(m, 0, 0), 48);
	assert_int_equal(msim_vmstat_mod_node_page_state(m, 0, ITEM, 100), 0);
	assert_int_equal(msim_vmstat_node_page_state(m, 0, ITEM), 100);
	msim_destroy(m);

	cfg.zone_managed_pages[MSIM_ZONE_NORMAL] = MSIM_MAX_ZONE_MANAGED_PAGES + 1;
	assert_int_equal(msim_config_validate(&cfg, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "zone_managed_pages[2]"));
}

/*
 * kernel: alloc_percpu(struct per_cpu_nodestat) per node, one per populated
 * zone of struct per_cpu_zonestat: a threshold byte and one s8 per item each.
 */
static void percpu_memory_charged(void **st)
{
	struct msim *m = vm_host(4, 2);
	struct msim_kmem_totals t;
	uint64_t node_pcp = 1 + MSIM_NR_VM_NODE_STAT_ITEMS;
	uint64_t zone_pcp = 1 + MSIM_NR_VM_ZONE_STAT_ITEMS;

	/* 2 nodes; node 0 has DMA, DMA32 and NORMAL, node 1 NORMAL only. */
	assert_int_equal(msim_kmem_owner_percpu_bytes(m, "per_cpu_nodestats"), 2 * 4 * node_pcp);
	assert_int_equal(msim_kmem_owner_percpu_bytes(m, "per_cpu_zonestats"), 4 * 4 * zone_pcp);
	msim_destroy(m);

	m = unit_host(4, 2);
	msim_kmem_totals(m, &t);
	assert_int_equal(t.percpu_bytes, 0);
	msim_destroy(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(thresholds_by_hand),
		cmocka_unit_test(host_thresholds),
		cmocka_unit_test(fold_at_threshold_plus_one),
		cmocka_unit_test(inc_dec_overstep),
		cmocka_unit_test(periodic_fold),
		cmocka_unit_test(periodic_off),
		cmocka_unit_test(negative_global_clamps),
		cmocka_unit_test(byte_items),
		cmocka_unit_test(zone_counters),
		cmocka_unit_test(not_attached),
		cmocka_unit_test(percpu_memory_charged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
