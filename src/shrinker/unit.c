/* SPDX-License-Identifier: MIT */
/*
 * unit.c - where shrinker_info units come from (the 520-byte cache of thread
 * 001's kernels, or kmalloc-1k) and what they and an array header cost. The
 * bottom of the shrinker_info files: the layouts (info_*.c) and info.c call it.
 * kernel: mm/shrinker.c shrinker_unit_alloc() / shrinker_unit_free().
 */
#include "shrinker/shrinker_internal.h"

/* kernel: mm/shrinker.c shrinker_unit_alloc() (one unit; thread 001 patch 1/2 cache) */
struct msim__unit *msim__unit_alloc(struct msim__shr_host *h)
{
	if (h->unit_cache)
		return msim_kmem_cache_alloc(h->m, h->unit_cache, "shrinker_info_unit");
	return msim_kmalloc(h->m, sizeof(struct msim__unit), "shrinker_info_unit");
}

void msim__unit_free(struct msim__shr_host *h, struct msim__unit *u)
{
	if (!u)
		return;
	if (h->unit_cache)
		msim_kmem_cache_free(h->m, h->unit_cache, u);
	else
		msim_kfree(h->m, u);
}

uint64_t msim__unit_bytes(struct msim__shr_host *h, unsigned long nr_units)
{
	struct msim_kmem_cache_info ci;

	if (!h->unit_cache)
		return (uint64_t)nr_units * msim_kmalloc_size(sizeof(struct msim__unit));
	msim_kmem_cache_info(h->unit_cache, &ci);
	if (!ci.objects_per_slab)
		return (uint64_t)nr_units * MSIM_SHRINKER_UNIT_BYTES;
	return (uint64_t)nr_units * ci.slab_bytes / ci.objects_per_slab;
}

size_t msim__info_array_size(int nr_max)
{
	return MSIM_SHRINKER_INFO_HEADER_BYTES +
	       sizeof(void *) * ((size_t)nr_max / MSIM_SHRINKER_UNIT_BITS);
}
