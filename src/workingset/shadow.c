/* SPDX-License-Identifier: MIT */
/*
 * shadow.c - shadow entries: what an evicted page cache folio leaves in its
 * slot (kernel: mm/workingset.c pack_shadow, unpack_shadow, workingset_init's
 * bucket_order; docs/workingset.md).
 *
 * Layout of the value, low bits first: the workingset bit (WORKINGSET_SHIFT),
 * the node (NODES_SHIFT), the memcg private id (MEM_CGROUP_ID_SHIFT), then the
 * eviction counter masked to EVICTION_MASK; xa_mk_value shifts the whole left
 * by one. With 64 nodes at most the model's NODES_SHIFT is 6, so 40 bits are
 * left for the eviction counter.
 */
#include <errno.h>

#include "workingset/ws_internal.h"

void *msim_pack_shadow(unsigned short memcgid, unsigned int nid, unsigned long eviction,
		       bool workingset)
{
	eviction &= MSIM_EVICTION_MASK;
	eviction = (eviction << MSIM_MEM_CGROUP_ID_SHIFT) | memcgid;
	eviction = (eviction << MSIM_NODES_SHIFT) | (nid & ((1U << MSIM_NODES_SHIFT) - 1));
	eviction = (eviction << MSIM_WORKINGSET_SHIFT) | (workingset ? 1UL : 0UL);
	return msim_xa_mk_value(eviction);
}

int msim_unpack_shadow(const void *shadow, struct msim_shadow *out)
{
	unsigned long entry;

	if (!shadow || !msim_xa_is_value(shadow) || !out)
		return -EINVAL;
	entry = msim_xa_to_value(shadow);
	out->workingset = entry & ((1UL << MSIM_WORKINGSET_SHIFT) - 1);
	entry >>= MSIM_WORKINGSET_SHIFT;
	out->nid = (unsigned int)(entry & ((1UL << MSIM_NODES_SHIFT) - 1));
	entry >>= MSIM_NODES_SHIFT;
	out->memcgid = (unsigned short)(entry & ((1UL << MSIM_MEM_CGROUP_ID_SHIFT) - 1));
	entry >>= MSIM_MEM_CGROUP_ID_SHIFT;
	out->eviction = entry;
	return 0;
}

/* kernel: fls_long(): the 1-based index of the highest set bit, 0 for 0. */
static unsigned int fls_long(unsigned long x)
{
	return x ? 64U - (unsigned int)__builtin_clzl(x) : 0U;
}

unsigned int msim_workingset_bucket_order_for(unsigned long totalram_pages)
{
	unsigned int timestamp_bits = 64U - MSIM_EVICTION_SHIFT;
	unsigned int max_order = fls_long(totalram_pages ? totalram_pages - 1 : 0);

	return max_order > timestamp_bits ? max_order - timestamp_bits : 0U;
}
