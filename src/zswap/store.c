/* SPDX-License-Identifier: MIT */
/*
 * store.c - zswap_store, zswap_load, zswap_invalidate (kernel: mm/zswap.c;
 * docs/zswap.md).
 *
 * Order of a store (the kernel's): the folio's objcg (the root's for a
 * root-charged folio) with a reference; obj_cgroup_may_zswap, else one
 * shrink_memcg of the memcg before giving up; the pool limit; the memcg's list
 * on the zswap list_lru; compress (a draw here); the entry into the tree; the
 * objcg reference and charge and the counters; last the LRU, so that the
 * shrinker never sees a half-built entry. A rejected store while the pool is
 * full queues the global shrink_worker.
 *
 * Simplifications: order-0 folios only (a large folio is rejected and goes to
 * the device; the kernel stores it page by page); no same-filled pages; one
 * pool, no compressor or zsmalloc handle; the tree is one xarray for the device.
 */
#include <errno.h>
#include <stdlib.h>

#include "zswap/zswap_internal.h"

/* The stale entry of a slot being reused (kernel: the tail of zswap_store's reject path). */
static void erase_stale(struct msim__zswap *z, unsigned long slot)
{
	struct msim__zswap_entry *old = msim_xa_erase(&z->tree, slot);

	if (old)
		msim__zswap_entry_free(z, old);
}

/* kernel: obj_cgroup_may_zswap() failed: shrink_memcg() once, then reject unless it freed. */
static bool room_in_memcg(struct msim__zswap *z, struct msim_obj_cgroup *objcg)
{
	struct msim_memcg *memcg;
	int ret;

	if (msim__zswap_may_zswap(z, objcg))
		return true;
	memcg = msim_get_mem_cgroup_from_objcg(objcg);
	ret = msim__zswap_shrink_memcg(z, memcg);
	msim_css_put(memcg);
	if (ret) {
		msim__zswap_count(&z->reject_memcg_max, 1);
		return false;
	}
	return true;
}

/*
 * kernel: zswap_compress(): a length of PAGE_SIZE or more did not compress; it
 * is stored whole (to keep the LRU order of writeback) when the folio's memcg
 * may write back, else rejected (it would only add metadata).
 */
static bool compress(struct msim__zswap *z, struct msim_folio *folio, unsigned int *length)
{
	unsigned int dlen = msim__zswap_draw_length(z);
	struct msim_memcg *memcg;
	bool wb;

	if (dlen < MSIM_PAGE_SIZE) {
		*length = dlen;
		return true;
	}
	msim_rcu_read_lock();
	memcg = msim_folio_memcg(folio);
	wb = msim__zswap_writeback_enabled(z, memcg);
	msim_rcu_read_unlock();
	if (!wb) {
		msim__zswap_count(&z->reject_compress_fail, 1);
		return false;
	}
	*length = MSIM_PAGE_SIZE;
	return true;
}

/* kernel: zswap_store_page(): compress, tree, charge and counters, LRU. */
static bool store_page(struct msim__zswap *z, struct msim_folio *folio, unsigned long slot,
		       struct msim_obj_cgroup *objcg)
{
	struct msim__zswap_entry *e, *old;
	unsigned int length;
	int err = 0;

	if (!compress(z, folio, &length))
		return false;
	e = msim__zswap_entry_alloc();
	if (!e)
		return false;
	old = msim_xa_store(&z->tree, slot, e, &err);
	if (err) {
		free(e);
		return false;
	}
	if (old)
		msim__zswap_entry_free(z, old);
	e->swpentry = slot;
	e->length = length;
	e->nid = msim_folio_nid(folio);
	e->objcg = objcg;
	msim__zswap_entry_account(z, e);
	e->referenced = true;
	/* Then rcu_read_lock: the entry is read only by its owner until it is on the LRU. */
	msim_yield_access("zswap.store.lru_add", NULL, MSIM_ACCESS_NONE);
	msim__zswap_lru_add(z, e);
	return true;
}

static bool store_checks(struct msim__zswap *z, struct msim_folio *folio,
			 struct msim_obj_cgroup *objcg)
{
	struct msim_memcg *memcg;
	int ret = 0;

	if (msim_folio_order(folio) != 0)
		return false;
	if (objcg && !room_in_memcg(z, objcg))
		return false;
	if (msim__zswap_check_limits(z)) {
		msim__zswap_count(&z->reject_limit, 1);
		return false;
	}
	if (objcg) {
		memcg = msim_get_mem_cgroup_from_objcg(objcg);
		ret = msim_memcg_list_lru_alloc(memcg, &z->lru);
		msim_css_put(memcg);
	}
	return ret == 0;
}

/*
 * kernel: get_obj_cgroup_from_folio(): the folio's objcg plus a reference; a folio
 * that names its memcg instead (lru-reparent=off: 6.12, 7.0) gives that memcg's
 * objcg (__get_obj_cgroup_from_memcg), so its entries are charged to it.
 */
static struct msim_obj_cgroup *folio_objcg_get(struct msim_folio *folio)
{
	struct msim_obj_cgroup *objcg = msim_folio_objcg(folio);
	struct msim_memcg *memcg;

	if (objcg) {
		msim_obj_cgroup_get(objcg);
		return objcg;
	}
	msim_rcu_read_lock();
	memcg = msim_folio_memcg(folio);
	objcg = memcg ? msim_get_obj_cgroup_from_memcg(memcg, msim_folio_nid(folio)) : NULL;
	msim_rcu_read_unlock();
	return objcg;
}

bool msim__zswap_store(struct msim__zswap *z, struct msim_folio *folio, unsigned long slot)
{
	struct msim_obj_cgroup *objcg = folio_objcg_get(folio);
	bool stored = false;

	if (store_checks(z, folio, objcg))
		stored = store_page(z, folio, slot, objcg);
	if (stored) {
		msim__zswap_count(&z->zswpout, 1);
		msim_rcu_read_lock();
		msim_count_memcg_events(msim_folio_memcg(folio), MSIM_ZSWPOUT, 1);
		msim_rcu_read_unlock();
	} else {
		erase_stale(z, slot);
	}
	if (objcg)
		msim_obj_cgroup_put(objcg);
	if (stored)
		return true;
	msim__zswap_note(&z->pool_reached_full, MSIM_ACCESS_LOAD);
	if (msim_quiet_load(&z->pool_reached_full, MSIM_RELAXED)) {
		msim__zswap_note(&z->work_queued, MSIM_ACCESS_STORE);
		msim_quiet_store(&z->work_queued, true, MSIM_RELAXED);
	}
	return false;
}

/*
 * kernel: zswap_load(): the caller holds the slot's swap cache folio. The entry
 * is taken out of the tree and freed (the swap cache folio is exclusive here:
 * no page is shared, so the kernel's exclusive-load path is the one taken), the
 * folio is dirty from now on (its copy in zswap is gone). Counts ZSWPIN on the
 * entry's objcg.
 */
bool msim__zswap_load(struct msim__zswap *z, struct msim_folio *folio, unsigned long slot)
{
	struct msim__zswap_entry *e = msim_xa_erase(&z->tree, slot);

	(void)folio;
	if (!e)
		return false;
	msim__zswap_count(&z->zswpin, 1);
	if (e->objcg) {
		msim_rcu_read_lock();
		msim_count_memcg_events(msim_obj_cgroup_memcg(e->objcg), MSIM_ZSWPIN, 1);
		msim_rcu_read_unlock();
	}
	msim__zswap_entry_free(z, e);
	return true;
}

/* kernel: zswap_invalidate(): the slot is freed; its entry, if any, goes. */
void msim__zswap_invalidate(struct msim__zswap *z, unsigned long slot)
{
	erase_stale(z, slot);
}
