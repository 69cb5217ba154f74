/* SPDX-License-Identifier: MIT */
/*
 * test_shrinker_units.c - the shrinker-units bench (thread 001's tables) in its
 * quick mode: runs the engine's two quick scales and checks the figures that are
 * deterministic, exactly as the kernel's arithmetic gives them (docs/kmem.md).
 * Times are printed by the bench, never asserted here.
 *
 *   layout             bytes per empty cgroup (shrinker part), U = nr_max / 64
 *   array              nodes x (kmalloc(24 + 8U) + U x 1024)
 *   array-unit-cache   nodes x (kmalloc(24 + 8U) + U x slab / objects_per_slab)
 *   array-on-demand    nodes x kmalloc(24 + 8U)
 *   xarray             0 (no container, no unit until a list is made)
 *
 *   quick table 1: 1000 + 64 mounts -> nr_max 1088 (U 17), 50 cgroups, 1 node, 4 CPUs
 *   quick table 2: 2000 + 64 mounts -> nr_max 2112 (U 33), 100 cgroups, 4 nodes,
 *                  48 CPUs, layouts in turn (as the full table 2)
 *
 * The bytes asserted are the literal figures the bench measured (the kmem
 * report's charges, which it also checks against the layout's own count:
 * info_bytes_agree); the thread's full scales are measured the same way in
 * tests/fidelity/test_shrinker_thread001_bytes.c. Every layout gets every
 * cgroup (no cap, nothing extrapolated), and the figures
 * do not depend on where the kernel-memory model keeps its objects: the quick
 * scales run again with MSIM_KMEM_BACKING=heap and must agree to the byte.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include <memcgsim/memcgsim.h>
#include <memcgsim/kmem.h>
#include <memcgsim/shrinker.h>

#include "bench_shrinker_units.h"

static struct bench_shu_result results[2];

static void run_quick(unsigned int which, struct bench_shu_result *r)
{
	struct bench_shu_config c;

	bench_shu_config_thread(&c, which, true);
	c.progress = false;
	assert_int_equal(bench_shu_run(&c, r), 0);
}

static int setup(void **state)
{
	(void)state;
	run_quick(0, &results[0]);
	run_quick(1, &results[1]);
	return 0;
}

/* What one layout charged per empty cgroup (all nodes): measured by the bench. */
struct want {
	uint64_t container, unit_bytes, units;
};

static void check_layout_bytes(const struct bench_shu_layout_result *lr, const struct want *w)
{
	assert_int_equal(lr->container_bytes, w->container);
	assert_int_equal(lr->unit_bytes, w->unit_bytes);
	assert_int_equal(lr->units, w->units);
}

static void check_scale(const struct bench_shu_result *r, int nr_max, const struct want *want)
{
	const struct bench_shu_config *c = &r->cfg;
	uint64_t u = (uint64_t)nr_max / 64, nodes = c->nodes;

	for (unsigned int l = 0; l < BENCH_SHU_NLAYOUTS; l++) {
		const struct bench_shu_layout_result *lr = &r->lay[l];
		unsigned int used = c->cgroups;

		assert_true(lr->ran);
		assert_int_equal(lr->nr_max, nr_max);
		assert_int_equal(lr->cgroups_used, used);
		assert_true(lr->info_bytes_agree);
		/* The 640 mounts grow nr_max by exactly 10 units of 64 ids. */
		assert_int_equal(lr->nr_max_after, nr_max + BENCH_SHU_REG_MOUNTS);
		check_layout_bytes(lr, &want[l]);
		assert_int_equal(lr->shrinker_bytes, lr->container_bytes + lr->unit_bytes);
		assert_int_equal(lr->slab_per_cgroup, lr->shrinker_bytes + r->rest.slab);
		/*
		 * Header copies: root grew alone while the mounts were made (one visit
		 * per unit and node), then each of the 10 boundaries of the 640 mounts
		 * copied the header of root, every empty cgroup and the busy one, on
		 * every node. The xarray layout copies nothing.
		 */
		if (l == MSIM_SHRINKER_INFO_XARRAY)
			assert_int_equal(lr->expand_visits, 0);
		else
			assert_int_equal(lr->expand_visits,
					 nodes * u + 10 * c->reps * nodes * (used + 2));
		/* one drop_slab pass: root, the empty cgroups and the busy one, per node */
		assert_int_equal(lr->walk_visits, nodes * (used + 2));
	}
	assert_int_equal(r->rest.slab, r->rest.mem_cgroup + r->rest.mem_cgroup_per_node +
					       r->rest.memcg_vmstats + r->rest.other_slab);
	assert_true(r->rest.mem_cgroup > 0 && r->rest.mem_cgroup_per_node > 0);
}

/*
 * 1000 + 64 mounts: ids 0..1063, nr_max round_up(1064, 64) = 1088, 17 units; 1 node.
 * The header, 24 + 17 x 8 = 160 bytes, is kmalloc-192; units are kmalloc-1k, or
 * 528.5 bytes each in the 520-byte cache (order-2 slabs of 31 on 4 CPUs).
 */
static void test_table1_quick_bytes(void **state)
{
	static const struct want want[BENCH_SHU_NLAYOUTS] = {
		[MSIM_SHRINKER_INFO_ARRAY] = { 192, 17 * 1024, 17 },
		[MSIM_SHRINKER_INFO_ARRAY_UNIT_CACHE] = { 192, 8984, 17 },
		[MSIM_SHRINKER_INFO_ARRAY_ON_DEMAND] = { 192, 0, 0 },
		[MSIM_SHRINKER_INFO_XARRAY] = { 0, 0, 0 },
	};

	(void)state;
	assert_int_equal(results[0].cfg.nodes, 1);
	assert_false(results[0].cfg.in_turn);
	check_scale(&results[0], 1088, want);
}

/*
 * 2000 + 64 mounts: nr_max 2112, 33 units per node; 4 nodes; layouts in turn. The
 * header, 24 + 264 = 288 bytes, is kmalloc-512 on each node; 132 units.
 */
static void test_table2_quick_bytes(void **state)
{
	static const struct want want[BENCH_SHU_NLAYOUTS] = {
		[MSIM_SHRINKER_INFO_ARRAY] = { 4 * 512, 132 * 1024, 132 },
		[MSIM_SHRINKER_INFO_ARRAY_UNIT_CACHE] = { 4 * 512, 69764, 132 },
		[MSIM_SHRINKER_INFO_ARRAY_ON_DEMAND] = { 4 * 512, 0, 0 },
		[MSIM_SHRINKER_INFO_XARRAY] = { 0, 0, 0 },
	};

	(void)state;
	assert_int_equal(results[1].cfg.nodes, 4);
	assert_true(results[1].cfg.in_turn);
	check_scale(&results[1], 2112, want);
}

/* Every deterministic figure of one layout, the same whatever the backing store. */
static void check_same_figures(const struct bench_shu_layout_result *a,
			       const struct bench_shu_layout_result *b)
{
	assert_int_equal(a->nr_max, b->nr_max);
	assert_int_equal(a->cgroups_used, b->cgroups_used);
	assert_int_equal(a->shrinker_bytes, b->shrinker_bytes);
	assert_int_equal(a->container_bytes, b->container_bytes);
	assert_int_equal(a->unit_bytes, b->unit_bytes);
	assert_int_equal(a->units, b->units);
	assert_int_equal(a->slab_per_cgroup, b->slab_per_cgroup);
	assert_int_equal(a->info_bytes_agree, b->info_bytes_agree);
	assert_int_equal(a->walk_visits, b->walk_visits);
	assert_int_equal(a->nr_max_after, b->nr_max_after);
	assert_int_equal(a->expand_visits, b->expand_visits);
}

/*
 * The arena (objects committed only where written) and the heap (a calloc per
 * object) charge the same bytes: run both quick scales on the heap and compare.
 * Sanitizer builds use the heap for both runs; the comparison still holds.
 */
static void test_backings_agree(void **state)
{
	struct bench_shu_result *heap = calloc(2, sizeof(*heap));

	(void)state;
	assert_non_null(heap);
	assert_int_equal(setenv("MSIM_KMEM_BACKING", "heap", 1), 0);
	run_quick(0, &heap[0]);
	run_quick(1, &heap[1]);
	unsetenv("MSIM_KMEM_BACKING");
	for (unsigned int t = 0; t < 2; t++) {
		assert_memory_equal(&heap[t].rest, &results[t].rest, sizeof(heap[t].rest));
		assert_int_equal(heap[t].unit_slot_share, results[t].unit_slot_share);
		for (unsigned int l = 0; l < BENCH_SHU_NLAYOUTS; l++)
			check_same_figures(&heap[t].lay[l], &results[t].lay[l]);
	}
	free(heap);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table1_quick_bytes),
		cmocka_unit_test(test_table2_quick_bytes),
		cmocka_unit_test(test_backings_agree),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
