/* SPDX-License-Identifier: MIT */
/*
 * fault.c - the pages of a workload: first touch, swap-out from reclaim, swap-in
 * on a fault (kernel: do_anonymous_page(), shrink_folio_list()'s anon part with
 * folio_alloc_swap() and swap_writeout(), do_swap_page() with swap_read_folio()).
 *
 * The LRU layer's reclaim knows nothing of swap: for each folio it wants to
 * free it calls the scan_control's evict callback, here msim_zswap_evict(). A
 * workload page is a struct msim_swap_pte; the folio's private points to it
 * (the reverse map), so swap-out can rewrite it to the swap slot.
 */
#include <errno.h>

#include "zswap/zswap_internal.h"

static struct msim__zswap *zswap_of(const struct msim *m)
{
	return msim__zswap_of(m);
}

/*
 * A pte is plain memory no lock of the model orders: the fault paths and
 * reclaim's evict callback (through the folio's private) read and rewrite it
 * between shims, so each access says so (yield.h's contract).
 */
static void pte_note(const struct msim_swap_pte *pte, int kind)
{
	msim_access_note(pte, sizeof(*pte), kind);
}

void msim_swap_pte_init(struct msim_swap_pte *pte)
{
	pte->folio = NULL;
	pte->slot = -1;
}

/* An anon folio charged to memcg, mapped by pte, on its LRU. */
static int map_new_folio(struct msim_swap_pte *pte, struct msim_memcg *memcg, unsigned int nid,
			 struct msim_folio **out)
{
	struct msim_folio *f = msim_folio_alloc(msim_memcg_host(memcg), MSIM_FOLIO_ANON, 0, nid,
						MSIM_ZONE_NORMAL);

	if (!f)
		return -ENOMEM;
	if (msim_mem_cgroup_charge(f, memcg, MSIM_GFP_KERNEL)) {
		msim_folio_put(f);
		return -ENOMEM;
	}
	msim_folio_set_private(f, pte);
	*out = f;
	return 0;
}

int msim_zswap_anon_fault(struct msim_swap_pte *pte, struct msim_memcg *memcg, unsigned int nid)
{
	struct msim_folio *f;
	int ret;

	if (!pte || !memcg)
		return -EINVAL;
	pte_note(pte, MSIM_ACCESS_LOAD);
	if (pte->folio || pte->slot >= 0)
		return -EBUSY;
	if ((ret = map_new_folio(pte, memcg, nid, &f)))
		return ret;
	pte_note(pte, MSIM_ACCESS_STORE);
	pte->folio = f;
	msim_folio_add_lru(f);
	return 0;
}

/* mem_cgroup_swapin_charge_folio(): the memcg recorded for the slot, if it is still there. */
static struct msim_memcg *swapin_memcg(struct msim__zswap *z, unsigned long slot,
				       struct msim_memcg *fallback)
{
	unsigned short id = msim__swapdev_memcg_id(&z->dev, slot);
	struct msim_memcg *memcg = NULL;

	msim_rcu_read_lock();
	if (id)
		memcg = msim_mem_cgroup_from_private_id(z->m, id);
	if (memcg && !msim_css_tryget(memcg))
		memcg = NULL;
	msim_rcu_read_unlock();
	if (!memcg) {
		memcg = fallback;
		msim_css_get(memcg);
	}
	return memcg;
}

/* kernel: zswap_folio_swapin(): a disk swap-in of the folio's (memcg, node). */
static void folio_swapin_feedback(struct msim__zswap *z, struct msim_folio *folio)
{
	struct msim__zswap_memcg *zm;

	msim_rcu_read_lock();
	zm = msim__zswap_memcg(z, msim_folio_memcg(folio));
	if (zm)
		msim_atomic_long_add(&zm->nr_disk_swapins[msim_folio_nid(folio)], 1);
	msim_rcu_read_unlock();
}

/* swap_read_folio(): zswap first, else the device. */
static void read_folio(struct msim__zswap *z, struct msim_folio *f, unsigned long slot)
{
	struct msim_memcg *memcg;

	if (msim__zswap_load(z, f, slot))
		return;
	msim__zswap_count(&z->pswpin, 1);
	msim_rcu_read_lock();
	memcg = msim_folio_memcg(f);
	msim_count_memcg_events(memcg, MSIM_PSWPIN, 1);
	msim_rcu_read_unlock();
	folio_swapin_feedback(z, f);
}

int msim_zswap_swapin(struct msim_swap_pte *pte, struct msim_memcg *memcg)
{
	struct msim__zswap *z = memcg ? zswap_of(msim_memcg_host(memcg)) : NULL;
	struct msim_memcg *owner;
	struct msim_folio *f;
	unsigned long slot;
	int ret;

	if (!z || !pte)
		return -EINVAL;
	pte_note(pte, MSIM_ACCESS_LOAD);
	if (pte->folio || !msim__swapdev_valid(&z->dev, pte->slot))
		return -EINVAL;
	slot = (unsigned long)pte->slot;
	if ((ret = msim__swapdev_claim_cache(&z->dev, slot, "zswap.load.claim")))
		return ret == -EEXIST ? -EAGAIN : -EINVAL;
	owner = swapin_memcg(z, slot, memcg);
	ret = map_new_folio(pte, owner, 0, &f);
	msim_css_put(owner);
	if (ret) {
		msim__swapdev_release_cache(&z->dev, slot);
		return ret;
	}
	read_folio(z, f, slot);
	/* swap_free(): the pte maps the folio now; the slot and its record go. */
	msim__swapdev_release_cache(&z->dev, slot);
	msim__swapdev_free(&z->dev, slot);
	pte_note(pte, MSIM_ACCESS_STORE);
	pte->slot = -1;
	pte->folio = f;
	msim_folio_add_lru(f);
	return 0;
}

/*
 * kernel: free_swap_and_cache() -> swap_entry_free() -> zswap_invalidate(): a
 * slot whose swap cache is held (a swap-in or a writeback in flight) is not
 * freed under its holder, which has checked the tree and is using the entry;
 * the kernel leaves the free to the holder, the model waits for it (each try is
 * a yield point, so the holder runs). A teardown after a stopped run (an
 * explorer's pruned or cut run, msim_tasks_abandoned()) does not wait: the
 * holder is parked for good, and outside a task the wait would spin forever.
 */
static void free_swap_slot(struct msim__zswap *z, unsigned long slot)
{
	while (msim__swapdev_claim_cache(&z->dev, slot, "zswap.free.claim") == -EEXIST)
		if (msim_tasks_abandoned(z->m))
			break;
	msim__zswap_invalidate(z, slot);
	msim__swapdev_free(&z->dev, slot);
}

void msim_zswap_pte_free(struct msim *m, struct msim_swap_pte *pte)
{
	struct msim__zswap *z = zswap_of(m);

	if (!pte)
		return;
	pte_note(pte, MSIM_ACCESS_RMW);
	if (pte->folio) {
		msim_folio_set_private(pte->folio, NULL);
		msim_folio_put(pte->folio);
		pte_note(pte, MSIM_ACCESS_STORE);  /* after the put's yield point */
		pte->folio = NULL;
	}
	if (z && msim__swapdev_valid(&z->dev, pte->slot))
		free_swap_slot(z, (unsigned long)pte->slot);
	pte_note(pte, MSIM_ACCESS_STORE);
	pte->slot = -1;
}

/* The disk write of swap_writeout(), counted on the folio's memcg. */
static void write_to_disk(struct msim__zswap *z, struct msim_folio *folio, unsigned long slot)
{
	msim__swapdev_set_disk(&z->dev, slot);
	msim__zswap_count(&z->pswpout, 1);
	msim_rcu_read_lock();
	msim_count_memcg_events(msim_folio_memcg(folio), MSIM_PSWPOUT, 1);
	msim_rcu_read_unlock();
}

/*
 * kernel: the anon part of shrink_folio_list(): folio_alloc_swap() (no slot:
 * activate), swap_writeout(): zswap_store(), else if the memcg may write back a
 * disk write, else the folio is kept, activated and its slot given back
 * (AOP_WRITEPAGE_ACTIVATE). On success the pte names the slot and the folio's
 * last mapping reference goes, so reclaim frees it (uncharging its memcg).
 *
 * It runs in reclaim's step up to its first shim (the RCU read lock) and notes
 * what it touches there and after its later shims (scan_control.evict_notes):
 * the folio's private (its accessor notes), the pte, the quiet counters that
 * note themselves; the swap device's bytes are read and written under its lock.
 */
enum msim_reclaim_verdict msim_zswap_evict(struct msim_folio *folio,
					   struct msim_memcg *target_memcg, void *arg)
{
	struct msim__zswap *z = zswap_of(arg);
	struct msim_swap_pte *pte = msim_folio_private(folio);
	struct msim_memcg *memcg;
	unsigned short id;
	bool wb;
	long slot;

	(void)target_memcg;
	if (!z || !pte || msim_folio_is_file_lru(folio))
		return MSIM_RECLAIM_KEEP;
	pte_note(pte, MSIM_ACCESS_LOAD);
	if (pte->folio != folio)
		return MSIM_RECLAIM_KEEP;
	msim_rcu_read_lock();
	memcg = msim_folio_memcg(folio);
	id = memcg ? msim_mem_cgroup_private_id(memcg) : 0;
	wb = msim__zswap_writeback_enabled(z, memcg);
	msim_rcu_read_unlock();
	slot = msim__swapdev_alloc(&z->dev, id);
	if (slot < 0)
		return MSIM_RECLAIM_ACTIVATE;
	if (!msim__zswap_store(z, folio, (unsigned long)slot)) {
		if (!wb) {
			msim__swapdev_free(&z->dev, (unsigned long)slot);
			msim__zswap_count(&z->kept_no_writeback, 1);
			return MSIM_RECLAIM_ACTIVATE;
		}
		write_to_disk(z, folio, (unsigned long)slot);
	}
	pte_note(pte, MSIM_ACCESS_STORE);
	pte->folio = NULL;
	pte->slot = slot;
	msim_folio_set_private(folio, NULL);
	msim_folio_put(folio);
	return MSIM_RECLAIM_FREE;
}

/* shrink_slab() for every memcg of memcg's subtree on every node (shrink_node's slab part). */
static void shrink_slab_tree(struct msim_memcg *memcg, int priority)
{
	struct msim *m = msim_memcg_host(memcg);
	struct msim_memcg *iter = NULL;

	while ((iter = msim_mem_cgroup_iter(memcg, iter)))
		for (unsigned int nid = 0; nid < msim_nr_nodes(m); nid++)
			msim_shrink_slab(m, nid, iter, priority);
}

unsigned long msim_zswap_reclaim(struct msim_memcg *memcg, unsigned long nr_pages,
				 int shrink_priority)
{
	struct msim_scan_control sc;
	unsigned long reclaimed;

	if (!memcg || !zswap_of(msim_memcg_host(memcg)))
		return 0;
	msim_scan_control_init(&sc);
	sc.evict = msim_zswap_evict;
	sc.evict_arg = msim_memcg_host(memcg);
	sc.evict_notes = true;   /* msim_zswap_evict notes what it touches */
	reclaimed = msim_try_to_free_mem_cgroup_pages(memcg, nr_pages, &sc);
	if (shrink_priority >= 0)
		shrink_slab_tree(memcg, shrink_priority);
	return reclaimed;
}
