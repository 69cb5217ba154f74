/* SPDX-License-Identifier: MIT */
/*
 * test_rstat_unaccounted.c - kernel stacks, page tables and hugetlb folios that no
 * memcg is charged for (src/rstat/kernel_pages.c) update the node counters only,
 * so for those items the node counter exceeds the root memcg's rstat value, and
 * thread 002 patch 2 (root-lruvec-read=node) must read root's rstat value for
 * them (its exclusion list, node_stat_includes_unaccounted()) while it reads the
 * node counter for an item only charged memory updates.
 *
 * The traffic, on node 0 of a 2-CPU host, root -> c:
 *   kernel stacks (16 KiB each): 3 of c's tasks, 2 of root's tasks, 5 kernel
 *     threads, then one kernel thread exits: node 144 KiB, charged 48 KiB;
 *   page tables: 7 of c's mm, 4 of a root mm's, 9 kernel tables, then one kernel
 *     table freed: node 19, charged 7;
 *   hugetlb: 2 folios of 512 pages faulted by c (hugetlb accounting off: never
 *     charged): node 1024, charged 0;
 *   then, after a root flush, 40 active anon pages charged to c (not flushed).
 * Either wrong choice changes an exact count: reading an excluded item from the
 * node counter gives 144 / 19 / 1024 instead of 48 / 7 / 0; reading the anon item
 * from rstat gives 0 instead of 40.
 */
#include <errno.h>

#include "unit_util.h"

struct excl_case {
	enum msim_stat_item idx;
	unsigned long node, charged;
};

static const struct excl_case excl_cases[] = {
	{ MSIM_NR_KERNEL_STACK_KB, 144, 48 },
	{ MSIM_NR_PAGETABLE, 19, 7 },
	{ MSIM_NR_HUGETLB, 1024, 0 },
};

/* A 2-CPU, 1-node host: root-lruvec-read=node when patch2, node-stat=percpu when percpu. */
static struct msim *excl_host(bool patch2, bool percpu)
{
	struct msim_config cfg = unit_config(2, 1);

	cfg.rstat = true;
	assert_int_equal(msim_variant_set_value(&cfg.variants, "root-lruvec-read",
						patch2 ? MSIM_ROOT_LRUVEC_READ_NODE
						       : MSIM_ROOT_LRUVEC_READ_RSTAT),
			 0);
	assert_int_equal(
		msim_variant_set_value(&cfg.variants, "node-stat",
				       percpu ? MSIM_NODE_STAT_PERCPU : MSIM_NODE_STAT_EXACT),
		0);
	return unit_host_cfg(&cfg);
}

static void repeat(int (*fn)(struct msim *, struct msim_memcg *, unsigned int, int),
		   struct msim *m, struct msim_memcg *memcg, int times, int account)
{
	for (int i = 0; i < times; i++)
		assert_int_equal(fn(m, memcg, 0, account), 0);
}

static void pagetables(struct msim *m, struct msim_memcg *memcg, bool user, int times,
		       int account)
{
	for (int i = 0; i < times; i++)
		assert_int_equal(msim_account_pagetable(m, memcg, user, 0, account), 0);
}

static void kernel_traffic(struct msim *m, struct msim_memcg *c)
{
	struct msim_memcg *root = msim_root_mem_cgroup(m);

	repeat(msim_account_kernel_stack, m, c, 3, 1);
	repeat(msim_account_kernel_stack, m, root, 2, 1);
	repeat(msim_account_kernel_stack, m, NULL, 5, 1);
	repeat(msim_account_kernel_stack, m, NULL, 1, -1);
	pagetables(m, c, true, 7, 1);
	pagetables(m, root, true, 4, 1);
	pagetables(m, c, false, 9, 1); /* kernel tables: a task's memcg does not matter */
	pagetables(m, NULL, false, 1, -1);
	for (int i = 0; i < 2; i++)
		assert_int_equal(msim_account_hugetlb_folio(m, c, 0, 512), 0);
}

/* Node counters as a reader sees them once every CPU's diff has folded. */
static unsigned long node_read(struct msim *m, enum msim_stat_item idx)
{
	if (msim_variant_value(&msim_config(m)->variants, "node-stat") == MSIM_NODE_STAT_PERCPU)
		msim_vmstat_refresh(m);
	return msim_node_page_state(m, 0, idx);
}

static void check_host(bool patch2, bool percpu)
{
	struct msim *m = excl_host(patch2, percpu);
	struct msim_memcg *root = msim_root_mem_cgroup(m);
	struct msim_memcg *c = unit_mkdir(root, "c");
	struct msim_lruvec *root_lruvec = msim_mem_cgroup_lruvec(m, root, 0);

	kernel_traffic(m, c);
	msim_mem_cgroup_flush_stats_forced(root);
	for (size_t i = 0; i < sizeof(excl_cases) / sizeof(excl_cases[0]); i++) {
		const struct excl_case *e = &excl_cases[i];

		assert_int_equal(node_read(m, e->idx), e->node);
		assert_int_equal(msim_memcg_page_state(root, e->idx), e->charged);
		assert_int_equal(msim_memcg_page_state(c, e->idx), e->charged);
		/* mainline and patch 2 alike: root's lruvec is root's charged figure */
		assert_int_equal(msim_lruvec_page_state(root_lruvec, e->idx), e->charged);
	}
	/* an item only charged memory updates: patch 2 reads the current node counter */
	assert_int_equal(msim_lruvec_stat_mod_page(m, c, 0, MSIM_NR_ACTIVE_ANON, 40), 0);
	assert_int_equal(node_read(m, MSIM_NR_ACTIVE_ANON), 40);
	assert_int_equal(msim_lruvec_page_state(root_lruvec, MSIM_NR_ACTIVE_ANON),
			 patch2 ? 40 : 0);
	msim_destroy(m);
}

static void mainline_exact(void **st)
{
	check_host(false, false);
}

static void patch2_exact(void **st)
{
	check_host(true, false);
}

static void patch2_percpu(void **st)
{
	check_host(true, true);
}

/* A stack is 4 pages of 4 KiB (THREAD_SIZE on x86-64); bad arguments change nothing. */
static void units_and_errors(void **st)
{
	struct msim *m = excl_host(false, false);

	assert_int_equal(MSIM_THREAD_SIZE / MSIM_PAGE_SIZE, 4);
	assert_int_equal(msim_account_kernel_stack(m, NULL, 0, 1), 0);
	assert_int_equal(msim_node_page_state(m, 0, MSIM_NR_KERNEL_STACK_KB), 16);
	assert_int_equal(msim_account_kernel_stack(m, NULL, 0, 2), -EINVAL);
	assert_int_equal(msim_account_kernel_stack(m, NULL, 1, 1), -EINVAL);
	assert_int_equal(msim_account_pagetable(m, NULL, false, 0, 0), -EINVAL);
	assert_int_equal(msim_account_hugetlb_folio(m, NULL, 0, 0), -EINVAL);
	assert_int_equal(msim_node_page_state(m, 0, MSIM_NR_KERNEL_STACK_KB), 16);
	assert_int_equal(msim_node_page_state(m, 0, MSIM_NR_PAGETABLE), 0);
	assert_int_equal(msim_node_page_state(m, 0, MSIM_NR_HUGETLB), 0);
	msim_destroy(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(mainline_exact),
		cmocka_unit_test(patch2_exact),
		cmocka_unit_test(patch2_percpu),
		cmocka_unit_test(units_and_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
