/* SPDX-License-Identifier: MIT */
/*
 * lru_size.c - the two LRU size accounts of an lruvec (include/linux/mm_inline.h
 * update_lru_size, __update_lru_size; mm/memcontrol.c mem_cgroup_update_lru_size,
 * mem_cgroup_get_zone_lru_size; mm/vmscan.c lruvec_lru_size).
 *
 *  - The lruvec statistics NR_INACTIVE_ANON .. NR_UNEVICTABLE (rstat: per-CPU,
 *    flushed), kept by both LRU implementations through __update_lru_size().
 *  - mz->lru_zone_size[zone][lru], exact and unflushed, kept only by
 *    update_lru_size(), i.e. by the classic add/del paths: MGLRU calls
 *    __update_lru_size() alone, so its evictable folios never reach it.
 *    lruvec_lru_size() reads this one (thread 000).
 * The zone counters NR_ZONE_LRU_BASE + lru that __update_lru_size() also updates
 * belong to the vmstat layer and are left out until it exists.
 */
#include "lru/lru_internal.h"

void msim__update_lru_size_stats(struct msim__lru_vec *lv, enum msim_lru_list lru,
				 enum msim_zone_type zid, long nr_pages)
{
	(void)zid;
	msim_mod_lruvec_state(lv->stats, (enum msim_stat_item)(MSIM_NR_INACTIVE_ANON + lru),
			      nr_pages);
}

long msim__lru_zone_size_read(const struct msim__lru_vec *lv, enum msim_lru_list lru,
			      enum msim_zone_type zid)
{
	return msim_load_at(&lv->lru_zone_size[zid][lru], MSIM_RELAXED, "lru.zone_size.read");
}

/*
 * kernel: mem_cgroup_update_lru_size(). Negative updates are applied before the
 * check and positive ones after it, so an add never hides an underflow; an
 * underflow WARNs and is reset to 0 (counted here). The caller holds the lock.
 */
void msim__mem_cgroup_update_lru_size(struct msim__lru_vec *lv, enum msim_lru_list lru,
				      enum msim_zone_type zid, long nr_pages)
{
	long *lru_size = &lv->lru_zone_size[zid][lru];
	long size = msim_quiet_load(lru_size, MSIM_RELAXED);

	if (nr_pages < 0)
		size += nr_pages;
	if (size < 0) {
		MSIM__LRU_COUNT(lv->lh, lru_size_underflows, 1);
		size = 0;
	}
	if (nr_pages > 0)
		size += nr_pages;
	msim_store_at(lru_size, size, MSIM_RELAXED, "lru.zone_size.write");
}

void msim__update_lru_size(struct msim__lru_vec *lv, enum msim_lru_list lru,
			   enum msim_zone_type zid, long nr_pages)
{
	msim__update_lru_size_stats(lv, lru, zid, nr_pages);
	msim__mem_cgroup_update_lru_size(lv, lru, zid, nr_pages);
}

unsigned long msim_mem_cgroup_get_zone_lru_size(struct msim_lruvec *lruvec,
						enum msim_lru_list lru, enum msim_zone_type zid)
{
	struct msim__lru_vec *lv = msim__lru_vec_of(lruvec);

	if (!lv || (unsigned int)lru >= MSIM_NR_LRU_LISTS || (unsigned int)zid >= MSIM_MAX_NR_ZONES)
		return 0;
	return (unsigned long)msim__lru_zone_size_read(lv, lru, zid);
}

/*
 * kernel: lruvec_lru_size(): over the (managed) zones up to zone_idx. Every zone
 * counts: which are managed is vmstat's configuration, and an unmanaged zone
 * holds no folios anyway.
 */
unsigned long msim_lruvec_lru_size(struct msim_lruvec *lruvec, enum msim_lru_list lru,
				   enum msim_zone_type zone_idx)
{
	struct msim__lru_vec *lv = msim__lru_vec_of(lruvec);
	unsigned long size = 0;

	if (!lv || (unsigned int)lru >= MSIM_NR_LRU_LISTS ||
	    (unsigned int)zone_idx >= MSIM_MAX_NR_ZONES)
		return 0;
	for (unsigned int zid = 0; zid <= (unsigned int)zone_idx; zid++)
		size += (unsigned long)msim__lru_zone_size_read(lv, lru, (enum msim_zone_type)zid);
	return size;
}
