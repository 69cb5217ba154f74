/* SPDX-License-Identifier: MIT */
/*
 * reclaim.c - reclaim of a memcg whose page cache this layer owns (kernel:
 * reclaim_high -> try_to_free_mem_cgroup_pages -> shrink_node_memcgs, which
 * runs shrink_lruvec and then shrink_slab for each memcg of the subtree).
 *
 * shrink_slab runs after each memcg's lruvec at the priority reclaim is at
 * (scan_control.shrink_slab, which the LRU layer calls: it cannot call the
 * shrinker layer itself), at every priority reclaim reaches. The shadow
 * shrinker's seeks are 0, so its share (freeable / 2) does not depend on the
 * priority, but the number of calls does.
 */
#include <memcgsim/charge.h>
#include <memcgsim/memcg.h>

#include "workingset/ws_internal.h"

static void ws_shrink_slab(struct msim_memcg *memcg, unsigned int nid, int priority, void *arg)
{
	unsigned long *freed = arg;

	*freed += msim_shrink_slab(msim_memcg_host(memcg), nid, memcg, priority);
}

unsigned long msim_workingset_reclaim(struct msim_memcg *memcg, unsigned long nr_pages,
				      unsigned long *slab_freed)
{
	struct msim_scan_control sc;
	unsigned long reclaimed, freed = 0;

	if (slab_freed)
		*slab_freed = 0;
	if (!memcg || !msim__ws_host(msim_memcg_host(memcg)))
		return 0;
	msim_scan_control_init(&sc);
	sc.may_swap = false;
	sc.evict = msim_filemap_evict;
	sc.evict_notes = true;   /* its quiet accesses note themselves (filemap.c) */
	sc.shrink_slab = ws_shrink_slab;
	sc.shrink_slab_arg = &freed;
	reclaimed = msim_try_to_free_mem_cgroup_pages(memcg, nr_pages, &sc);
	if (slab_freed)
		*slab_freed = freed;
	return reclaimed;
}

/* The charge path's try_to_free_mem_cgroup_pages() (memory.max, memory.high). */
unsigned long msim__ws_charge_reclaim(struct msim_memcg *memcg, unsigned long nr_pages, void *arg)
{
	(void)arg;
	return msim_workingset_reclaim(memcg, nr_pages, NULL);
}
