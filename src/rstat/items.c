/* SPDX-License-Identifier: MIT */
/*
 * items.c - stat item and event tables: names and units.
 *
 * kernel: mm/memcontrol.c memcg_node_stat_items[], memcg_stat_items[],
 * memcg_vm_event_stat[], memcg_page_state_unit(), memcg_page_state_output_unit(),
 * memcg_state_val_in_pages(); include/linux/mmzone.h node_stat_name() spellings.
 */
#include <stdlib.h>

#include <memcgsim/kmem.h>
#include <memcgsim/rstat.h>

#include "rstat_internal.h"

static const char *const item_names[MSIM_MEMCG_NR_STAT] = {
	[MSIM_NR_INACTIVE_ANON] = "nr_inactive_anon",
	[MSIM_NR_ACTIVE_ANON] = "nr_active_anon",
	[MSIM_NR_INACTIVE_FILE] = "nr_inactive_file",
	[MSIM_NR_ACTIVE_FILE] = "nr_active_file",
	[MSIM_NR_UNEVICTABLE] = "nr_unevictable",
	[MSIM_NR_SLAB_RECLAIMABLE_B] = "nr_slab_reclaimable",
	[MSIM_NR_SLAB_UNRECLAIMABLE_B] = "nr_slab_unreclaimable",
	[MSIM_WORKINGSET_REFAULT_ANON] = "workingset_refault_anon",
	[MSIM_WORKINGSET_REFAULT_FILE] = "workingset_refault_file",
	[MSIM_WORKINGSET_ACTIVATE_ANON] = "workingset_activate_anon",
	[MSIM_WORKINGSET_ACTIVATE_FILE] = "workingset_activate_file",
	[MSIM_WORKINGSET_RESTORE_ANON] = "workingset_restore_anon",
	[MSIM_WORKINGSET_RESTORE_FILE] = "workingset_restore_file",
	[MSIM_WORKINGSET_NODERECLAIM] = "workingset_nodereclaim",
	[MSIM_NR_ANON_MAPPED] = "nr_anon_pages",
	[MSIM_NR_FILE_MAPPED] = "nr_mapped",
	[MSIM_NR_FILE_PAGES] = "nr_file_pages",
	[MSIM_NR_FILE_DIRTY] = "nr_dirty",
	[MSIM_NR_WRITEBACK] = "nr_writeback",
	[MSIM_NR_SHMEM] = "nr_shmem",
	[MSIM_NR_SHMEM_THPS] = "nr_shmem_hugepages",
	[MSIM_NR_FILE_THPS] = "nr_file_hugepages",
	[MSIM_NR_ANON_THPS] = "nr_anon_transparent_hugepages",
	[MSIM_NR_VMALLOC] = "nr_vmalloc",
	[MSIM_NR_KERNEL_STACK_KB] = "nr_kernel_stack",
	[MSIM_NR_PAGETABLE] = "nr_page_table_pages",
	[MSIM_NR_SECONDARY_PAGETABLE] = "nr_sec_page_table_pages",
	[MSIM_NR_SWAPCACHE] = "nr_swapcached",
	[MSIM_PGPROMOTE_SUCCESS] = "pgpromote_success",
	[MSIM_PGDEMOTE_KSWAPD] = "pgdemote_kswapd",
	[MSIM_PGDEMOTE_DIRECT] = "pgdemote_direct",
	[MSIM_PGDEMOTE_KHUGEPAGED] = "pgdemote_khugepaged",
	[MSIM_PGDEMOTE_PROACTIVE] = "pgdemote_proactive",
	[MSIM_PGSTEAL_KSWAPD] = "pgsteal_kswapd",
	[MSIM_PGSTEAL_DIRECT] = "pgsteal_direct",
	[MSIM_PGSTEAL_KHUGEPAGED] = "pgsteal_khugepaged",
	[MSIM_PGSTEAL_PROACTIVE] = "pgsteal_proactive",
	[MSIM_PGSTEAL_ANON] = "pgsteal_anon",
	[MSIM_PGSTEAL_FILE] = "pgsteal_file",
	[MSIM_PGSCAN_KSWAPD] = "pgscan_kswapd",
	[MSIM_PGSCAN_DIRECT] = "pgscan_direct",
	[MSIM_PGSCAN_KHUGEPAGED] = "pgscan_khugepaged",
	[MSIM_PGSCAN_PROACTIVE] = "pgscan_proactive",
	[MSIM_PGSCAN_ANON] = "pgscan_anon",
	[MSIM_PGSCAN_FILE] = "pgscan_file",
	[MSIM_PGREFILL] = "pgrefill",
	[MSIM_NR_HUGETLB] = "nr_hugetlb",
	[MSIM_MEMCG_SWAP] = "memcg_swap",
	[MSIM_MEMCG_SOCK] = "memcg_sock",
	[MSIM_MEMCG_PERCPU_B] = "memcg_percpu_b",
	[MSIM_MEMCG_KMEM] = "memcg_kmem",
	[MSIM_MEMCG_ZSWAP_B] = "memcg_zswap_b",
	[MSIM_MEMCG_ZSWAPPED] = "memcg_zswapped",
	[MSIM_MEMCG_ZSWAP_INCOMP] = "memcg_zswap_incomp",
};

static const char *const event_names[MSIM_NR_MEMCG_EVENTS] = {
	[MSIM_PGPGIN] = "pgpgin",
	[MSIM_PGPGOUT] = "pgpgout",
	[MSIM_PSWPIN] = "pswpin",
	[MSIM_PSWPOUT] = "pswpout",
	[MSIM_PGFAULT] = "pgfault",
	[MSIM_PGMAJFAULT] = "pgmajfault",
	[MSIM_PGACTIVATE] = "pgactivate",
	[MSIM_PGDEACTIVATE] = "pgdeactivate",
	[MSIM_PGLAZYFREE] = "pglazyfree",
	[MSIM_PGLAZYFREED] = "pglazyfreed",
	[MSIM_SWPIN_ZERO] = "swpin_zero",
	[MSIM_SWPOUT_ZERO] = "swpout_zero",
	[MSIM_ZSWPIN] = "zswpin",
	[MSIM_ZSWPOUT] = "zswpout",
	[MSIM_ZSWPWB] = "zswpwb",
	[MSIM_THP_FAULT_ALLOC] = "thp_fault_alloc",
	[MSIM_THP_COLLAPSE_ALLOC] = "thp_collapse_alloc",
	[MSIM_THP_SWPOUT] = "thp_swpout",
	[MSIM_THP_SWPOUT_FALLBACK] = "thp_swpout_fallback",
};

const char *msim_stat_item_name(enum msim_stat_item idx)
{
	if ((unsigned int)idx >= MSIM_MEMCG_NR_STAT)
		return NULL;
	return item_names[idx];
}

const char *msim_memcg_event_name(enum msim_memcg_event ev)
{
	if ((unsigned int)ev >= MSIM_NR_MEMCG_EVENTS)
		return NULL;
	return event_names[ev];
}

bool msim_stat_item_is_node(enum msim_stat_item idx)
{
	return (unsigned int)idx < MSIM_NR_NODE_STAT_ITEMS;
}

/* kernel: memcg_page_state_unit() (rstat_internal.h, inline for the write path) */
long msim_memcg_page_state_unit(enum msim_stat_item idx)
{
	return msim__page_state_unit(idx);
}

/* kernel: memcg_page_state_output_unit(): raw counts for workingset and demotion. */
long msim_memcg_page_state_output_unit(enum msim_stat_item idx)
{
	switch (idx) {
	case MSIM_WORKINGSET_REFAULT_ANON:
	case MSIM_WORKINGSET_REFAULT_FILE:
	case MSIM_WORKINGSET_ACTIVATE_ANON:
	case MSIM_WORKINGSET_ACTIVATE_FILE:
	case MSIM_WORKINGSET_RESTORE_ANON:
	case MSIM_WORKINGSET_RESTORE_FILE:
	case MSIM_WORKINGSET_NODERECLAIM:
	case MSIM_PGDEMOTE_KSWAPD:
	case MSIM_PGDEMOTE_DIRECT:
	case MSIM_PGDEMOTE_KHUGEPAGED:
	case MSIM_PGDEMOTE_PROACTIVE:
	case MSIM_PGPROMOTE_SUCCESS:
		return 1;
	default:
		return msim_memcg_page_state_unit(idx);
	}
}

/* kernel: memcg_state_val_in_pages() (rstat_internal.h, inline for the write path) */
long msim_memcg_state_val_in_pages(enum msim_stat_item idx, long val)
{
	return msim__state_val_in_pages(idx, val);
}

/* Thread 002 patch 2: node_stat_includes_unaccounted(). */
bool msim_node_stat_includes_unaccounted(enum msim_stat_item idx)
{
	switch (idx) {
	case MSIM_NR_SLAB_RECLAIMABLE_B:
	case MSIM_NR_SLAB_UNRECLAIMABLE_B:
	case MSIM_WORKINGSET_NODERECLAIM:
	case MSIM_NR_VMALLOC:
	case MSIM_NR_KERNEL_STACK_KB:
	case MSIM_NR_PAGETABLE:
	case MSIM_NR_SECONDARY_PAGETABLE:
	case MSIM_NR_HUGETLB:
		return true;
	default:
		return false;
	}
}
