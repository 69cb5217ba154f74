/* SPDX-License-Identifier: MIT */
/*
 * reclaim.c - reclaim of a memcg whose page cache this layer owns (kernel:
 * reclaim_high -> try_to_free_mem_cgroup_pages -> shrink_node_memcgs, which
 * runs shrink_lruvec and then shrink_slab for each memcg of the subtree).
 *
 * Simplification: the LRU layer's msim_try_to_free_mem_cgroup_pages() has no
 * shrink_slab of its own (the LRU layer does not call the shrinker layer), so
 * this runs the LRU part first and then one shrink_slab per memcg of the
 * subtree and per node, at DEF_PRIORITY. The shadow shrinker's seeks are 0, so
 * its share (freeable / 2) does not depend on the priority.
 */
#include <memcgsim/memcg.h>

#include "workingset/ws_internal.h"

unsigned long msim_workingset_reclaim(struct msim_memcg *memcg, unsigned long nr_pages,
				      unsigned long *slab_freed)
{
	struct msim_scan_control sc;
	struct msim_memcg *iter = NULL;
	unsigned long reclaimed, freed = 0;
	struct msim *m;

	if (slab_freed)
		*slab_freed = 0;
	if (!memcg || !msim__ws_host(m = msim_memcg_host(memcg)))
		return 0;
	msim_scan_control_init(&sc);
	sc.may_swap = false;
	sc.evict = msim_filemap_evict;
	sc.evict_notes = true;   /* its quiet accesses note themselves (filemap.c) */
	reclaimed = msim_try_to_free_mem_cgroup_pages(memcg, nr_pages, &sc);
	while ((iter = msim_mem_cgroup_iter(memcg, iter)))
		for (unsigned int nid = 0; nid < msim_nr_nodes(m); nid++)
			freed += msim_shrink_slab(m, nid, iter, MSIM_DEF_PRIORITY);
	if (slab_freed)
		*slab_freed = freed;
	return reclaimed;
}
