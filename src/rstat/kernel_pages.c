/* SPDX-License-Identifier: MIT */
/*
 * kernel_pages.c - the stat accounting of pages the kernel allocates for itself:
 * task stacks (kernel/fork.c account_kernel_stack()), page tables
 * (include/linux/mm.h pagetable_pte_ctor()/pagetable_pte_dtor()) and hugetlb folios
 * (mm/hugetlb.c, NR_HUGETLB). Each goes through lruvec_stat_mod_folio() or
 * mod_lruvec_page_state() with the page's memcg, and a page no memcg was charged
 * for updates the node counter only (__lruvec_stat_mod_folio: "Untracked pages
 * have no memcg, no lruvec"). Which pages have none:
 *  - a kernel thread's stack, and a stack of a task in the root cgroup:
 *    memcg_charge_kernel_stack() charges through memcg_kmem_charge_page(), whose
 *    current_obj_cgroup() is NULL for kernel threads and for the root memcg
 *    (memcg_online_kmem() gives root no objcg);
 *  - kernel page tables (GFP_PGTABLE_KERNEL has no __GFP_ACCOUNT), and user page
 *    tables of an mm in the root cgroup (GFP_PGTABLE_USER is accounted, the root
 *    memcg is not charged);
 *  - every hugetlb folio here: mem_cgroup_hugetlb_try_charge() refuses unless
 *    cgroup v2 is mounted with memory_hugetlb_accounting, which the model leaves
 *    off (memory.stat prints no "hugetlb" line, src/rstat/memory_stat.c).
 * These are the node counters that count more than the root memcg's rstat value,
 * and why thread 002 patch 2 keeps them on its exclusion list
 * (node_stat_includes_unaccounted()).
 *
 * Only the statistics are modelled: the page_counter and MEMCG_KMEM charge that
 * the accounted pages also carry is left out (docs/kernel-map.md).
 */
#include <errno.h>

#include <memcgsim/kmem.h>
#include <memcgsim/memcg.h>
#include <memcgsim/rstat.h>

/* current_obj_cgroup()'s memcg: NULL for a kernel thread and for the root memcg. */
static struct msim_memcg *kmem_charged_memcg(struct msim_memcg *memcg)
{
	return memcg && !msim_mem_cgroup_is_root(memcg) ? memcg : NULL;
}

/* kernel: account_kernel_stack() with CONFIG_VMAP_STACK, per page of the stack. */
int msim_account_kernel_stack(struct msim *m, struct msim_memcg *memcg, unsigned int nid,
			      int account)
{
	struct msim_memcg *owner = kmem_charged_memcg(memcg);
	int ret = 0;

	if (account != 1 && account != -1)
		return -EINVAL;
	for (unsigned int i = 0; !ret && i < MSIM_THREAD_SIZE / MSIM_PAGE_SIZE; i++)
		ret = msim_lruvec_stat_mod_page(m, owner, nid, MSIM_NR_KERNEL_STACK_KB,
						account * (long)(MSIM_PAGE_SIZE / 1024));
	return ret;
}

/* kernel: pagetable_pte_ctor() (+1) / pagetable_pte_dtor() (-1) of one page-table page. */
int msim_account_pagetable(struct msim *m, struct msim_memcg *mm_memcg, bool user,
			   unsigned int nid, int account)
{
	struct msim_memcg *owner = user ? kmem_charged_memcg(mm_memcg) : NULL;

	if (account != 1 && account != -1)
		return -EINVAL;
	return msim_lruvec_stat_mod_page(m, owner, nid, MSIM_NR_PAGETABLE, account);
}

/*
 * kernel: alloc_hugetlb_folio() / free_huge_folio(): NR_HUGETLB by the folio's
 * pages, on a folio mem_cgroup_hugetlb_try_charge() left uncharged.
 */
int msim_account_hugetlb_folio(struct msim *m, struct msim_memcg *memcg, unsigned int nid,
			       long nr_pages)
{
	(void)memcg; /* no memory_hugetlb_accounting: never charged */
	if (!nr_pages)
		return -EINVAL;
	return msim_lruvec_stat_mod_page(m, NULL, nid, MSIM_NR_HUGETLB, nr_pages);
}
