/* SPDX-License-Identifier: MIT */
/*
 * test_memcg_slab.c - the per-node slab a cgroup costs, charged to the
 * kernel-memory model under its kernel owner.
 *
 * The kernel allocates, per memcg and per node, a struct lruvec_stats (1128 B,
 * from kmalloc-2k: alloc_mem_cgroup_per_node_info) and, in the per-node objcg
 * world, an obj_cgroup and its percpu_ref data (kmalloc-64 each) plus a per-CPU
 * counter. The model keeps no data in these objects, but charges them: these
 * tests pin the bytes per owner on hosts of 1 and 4 nodes and check that every
 * byte comes back at the kernel's free time.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <memcgsim/memcgsim.h>

#include "unit_util.h"

/* Owner bytes one mkdir adds on a host of nodes nodes, and what rmdir leaves. */
struct owner_cost {
	uint64_t per_mkdir, after_free, percpu_per_mkdir;
};

static struct owner_cost mkdir_cost(unsigned int nodes, const char *owner, bool lru)
{
	struct msim *m = unit_host(4, nodes);
	struct owner_cost c;
	char err[256];
	uint64_t before, percpu_before;
	struct msim_memcg *child;

	assert_int_equal(msim_rstat_init(m, NULL), 0);
	if (lru)
		assert_int_equal(msim_lru_attach(m, err, sizeof(err)), 0);
	msim_root_mem_cgroup(m);
	before = msim_kmem_owner_bytes(m, owner);
	percpu_before = msim_kmem_owner_percpu_bytes(m, owner);
	child = unit_mkdir(msim_root_mem_cgroup(m), "c");
	c.per_mkdir = msim_kmem_owner_bytes(m, owner) - before;
	c.percpu_per_mkdir = msim_kmem_owner_percpu_bytes(m, owner) - percpu_before;
	assert_int_equal(msim_memcg_rmdir(child), 0);
	msim_memcg_drain(m);
	msim_rcu_barrier(); /* the objcg goes by kfree_rcu after the memcg's free */
	c.after_free = msim_kmem_owner_bytes(m, owner) - before;
	msim_destroy(m);
	return c;
}

/* lruvec_stats: one kmalloc-2k object per node, gone when the memcg is freed. */
static void lruvec_stats_per_node(void **state)
{
	struct owner_cost one = mkdir_cost(1, "lruvec_stats", false);
	struct owner_cost four = mkdir_cost(4, "lruvec_stats", false);

	(void)state;
	assert_int_equal(one.per_mkdir, 2048);
	assert_int_equal(four.per_mkdir, 4 * 2048);
	assert_int_equal(one.after_free, 0);
	assert_int_equal(four.after_free, 0);
}

/*
 * obj_cgroup: per node, the objcg and its percpu_ref data (two kmalloc-64) and
 * an 8-byte per-CPU counter; only hosts with the objcg layer charge them.
 */
static void objcg_per_node(void **state)
{
	struct owner_cost none = mkdir_cost(2, "obj_cgroup", false);
	struct owner_cost one = mkdir_cost(1, "obj_cgroup", true);
	struct owner_cost four = mkdir_cost(4, "obj_cgroup", true);

	(void)state;
	assert_int_equal(none.per_mkdir, 0);
	assert_int_equal(one.per_mkdir, 2 * 64);
	assert_int_equal(four.per_mkdir, 4 * 2 * 64);
	assert_int_equal(one.percpu_per_mkdir, 4 * 8);
	assert_int_equal(four.percpu_per_mkdir, 4 * 4 * 8);
	assert_int_equal(four.after_free, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lruvec_stats_per_node),
		cmocka_unit_test(objcg_per_node),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
