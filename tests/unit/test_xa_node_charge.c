/* SPDX-License-Identifier: MIT */
/*
 * test_xa_node_charge.c - what a page-cache xa_node costs its memcg: the
 * radix_tree_node cache has a constructor, so SLUB keeps the free pointer outside
 * the 576-byte object (slot 584, what Linux 6.12's /proc/slabinfo shows for the
 * cache in the kernel rig), and the memcg is charged obj_full_size() = slot + the
 * objcg pointer = 592 bytes of NR_SLAB_RECLAIMABLE_B per node (the model charged 576).
 */
#include "unit_util.h"

#include <memcgsim/workingset.h>

static void test_node_slot_and_charge(void **state)
{
	struct msim_config cfg = unit_config(2, 1);
	struct msim_kmem_cache_info ci;
	struct msim_address_space *file;
	struct msim_memcg *c;
	struct msim *m;
	char err[256];
	unsigned long nodes;

	(void)state;
	m = unit_host_cfg(&cfg);
	assert_int_equal(msim_workingset_attach(m, err, sizeof(err)), 0);
	assert_int_equal(msim_memcg_create(msim_root_mem_cgroup(m), "c", &c), 0);
	assert_int_equal(msim_address_space_create(m, "file", &file), 0);
	/* 200 pages: index 1 needs a node, 64 two (a new top level), 128 and 192 one each */
	for (unsigned long i = 0; i < 200; i++)
		assert_int_equal(msim_filemap_read(file, i, c, 0, false), MSIM_FILEMAP_MISS);
	msim_kmem_cache_info(msim_mapping_i_pages(file)->node_cache, &ci);
	assert_int_equal(ci.object_size, 576);
	assert_int_equal(ci.slot_size, 584);
	nodes = msim_xa_nr_nodes(msim_mapping_i_pages(file));
	assert_int_equal(nodes, 5);
	msim_mem_cgroup_flush_stats_forced(msim_root_mem_cgroup(m));
	assert_int_equal(msim_memcg_page_state_local(c, MSIM_NR_SLAB_RECLAIMABLE_B), 5 * 592);
	/* truncation frees the nodes and their charge */
	msim_address_space_destroy(file);
	msim_mem_cgroup_flush_stats_forced(msim_root_mem_cgroup(m));
	assert_int_equal(msim_memcg_page_state_local(c, MSIM_NR_SLAB_RECLAIMABLE_B), 0);
	msim_destroy(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_node_slot_and_charge),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
