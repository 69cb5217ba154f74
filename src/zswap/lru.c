/* SPDX-License-Identifier: MIT */
/*
 * lru.c - the zswap LRU, writeback and the shrinker (kernel: mm/zswap.c
 * zswap_lru_add(), zswap_lru_del(), zswap_entry_free(), zswap_writeback_entry(),
 * shrink_memcg_cb(), zswap_shrinker_count(), zswap_shrinker_scan(),
 * shrink_memcg(); docs/zswap.md).
 *
 * One global memcg-aware list_lru: an entry sits on the list of the memcg its
 * objcg names (the root's for root-owned entries: the node's global list) on the
 * entry's node. The shrinker walks one (memcg, node) list per call. New entries
 * are referenced; the walk gives a referenced entry a second chance (clears the
 * bit, rotates it to the tail) and writes back an unreferenced one.
 */
#include <errno.h>
#include <stdlib.h>

#include <memcgsim/container_of.h>

#include "zswap/zswap_internal.h"

/* kernel: zswap_lru_add(): under RCU, the list of the memcg the objcg names now. */
void msim__zswap_lru_add(struct msim__zswap *z, struct msim__zswap_entry *e)
{
	struct msim_memcg *memcg;

	msim_rcu_read_lock();
	memcg = e->objcg ? msim_obj_cgroup_memcg(e->objcg) : NULL;
	msim_list_lru_add(&z->lru, &e->lru, e->nid, memcg);
	msim_rcu_read_unlock();
}

static void zswap_lru_del(struct msim__zswap *z, struct msim__zswap_entry *e)
{
	struct msim_memcg *memcg;

	msim_rcu_read_lock();
	memcg = e->objcg ? msim_obj_cgroup_memcg(e->objcg) : NULL;
	msim_list_lru_del(&z->lru, &e->lru, e->nid, memcg);
	msim_rcu_read_unlock();
}

/*
 * kernel: zswap_entry_free(): off the LRU, the compressed memory freed, the
 * objcg uncharged and put, the counters dropped. The caller took the entry out
 * of the tree.
 */
void msim__zswap_entry_free(struct msim__zswap *z, struct msim__zswap_entry *e)
{
	zswap_lru_del(z, e);
	msim_atomic_long_add(&z->pool_bytes, -(long)e->length);
	msim__zswap_zs_account(z, e->length, -1);
	if (e->objcg) {
		msim_obj_cgroup_uncharge_zswap(e->objcg, e->length);
		msim_obj_cgroup_put(e->objcg);
	}
	if (e->length == MSIM_PAGE_SIZE)
		msim_atomic_long_add(&z->stored_incomp, -1);
	free(e);
	msim_atomic_long_add(&z->stored_pages, -1);
}

/* kernel: count_objcg_events(objcg, idx, 1): the root's too (only the charge skips it). */
static void count_objcg_event(struct msim_obj_cgroup *objcg, enum msim_memcg_event ev)
{
	if (!objcg)
		return;
	msim_rcu_read_lock();
	msim_count_memcg_events(msim_obj_cgroup_memcg(objcg), ev, 1);
	msim_rcu_read_unlock();
}

/*
 * kernel: zswap_writeback_entry(entry, swpentry). The entry may have been freed
 * since the list lock was dropped: it is not touched until the swap cache claim
 * (swap_cache_alloc_folio) and the tree lookup prove it is still the slot's.
 * -EEXIST: the swap cache holds the slot (a swap-in is loading it); -ENOMEM:
 * the slot was freed or the entry replaced. Simplification: the page goes to the
 * device at once (no swap cache folio, no async write, no reclaim of it after).
 */
static int writeback_entry(struct msim__zswap *z, struct msim__zswap_entry *e, unsigned long slot)
{
	int ret = msim__swapdev_claim_cache(&z->dev, slot, "zswap.wb.claim");

	if (ret)
		return ret == -EEXIST ? -EEXIST : -ENOMEM;
	if (msim_xa_load(&z->tree, slot) != e) {
		msim__swapdev_release_cache(&z->dev, slot);
		return -ENOMEM;
	}
	msim_xa_erase(&z->tree, slot);
	msim__zswap_count(&z->zswpwb, 1);
	count_objcg_event(e->objcg, MSIM_ZSWPWB);
	msim__zswap_entry_free(z, e);
	msim__swapdev_set_disk(&z->dev, slot);
	msim__zswap_count(&z->pswpout, 1);
	msim__swapdev_release_cache(&z->dev, slot);
	return 0;
}

struct walk_arg {
	struct msim__zswap *z;
	bool shrinker;                   /* dynamic shrinker context: stop at -EEXIST */
	bool encountered_page_in_swapcache;
};

/* kernel: shrink_memcg_cb(). Called with list->lock held. */
static enum msim_lru_status shrink_memcg_cb(struct msim_list_head *item,
					    struct msim_list_lru_one *list, void *cb_arg)
{
	struct msim__zswap_entry *e = msim_container_of(item, struct msim__zswap_entry, lru);
	struct walk_arg *a = cb_arg;
	unsigned long slot;
	int ret;

	if (e->referenced) {             /* second chance */
		e->referenced = false;
		return MSIM_LRU_ROTATE;
	}
	/* Rotate before dropping the lock: concurrent walkers then see others first. */
	msim_list_move_tail(item, &list->list);
	slot = e->swpentry;
	msim_spin_unlock(&list->lock);
	ret = writeback_entry(a->z, e, slot);
	if (!ret) {
		msim__zswap_note(&a->z->written_back, MSIM_ACCESS_RMW); /* shrink_worker reads it */
		msim__zswap_count(&a->z->written_back, 1);
		return MSIM_LRU_REMOVED_RETRY;
	}
	msim__zswap_count(&a->z->reject_reclaim_fail, 1);
	if (ret == -EEXIST && a->shrinker) {
		a->encountered_page_in_swapcache = true;
		return MSIM_LRU_STOP;
	}
	return MSIM_LRU_RETRY;
}

static struct msim_memcg *sc_memcg(struct msim__zswap *z, struct msim_shrink_control *sc)
{
	return sc->memcg ? sc->memcg : msim_root_mem_cgroup(z->m);
}

/*
 * Where the compression ratio of zswap_shrinker_count comes from: the memcg's
 * hierarchical MEMCG_ZSWAP_B / MEMCG_ZSWAPPED after a flush (mainline), or, for
 * the root under thread 002 patch 1, the pool-wide counters. The flush is the
 * threshold-gated one or the ratelimited one (variant zswap-count-flush). The root's stats
 * never count the entries the root owns (obj_cgroup_charge_zswap skips the root
 * objcg), so with every entry root-owned mainline reads nr_stored 0.
 */
static void count_ratio(struct msim__zswap *z, struct msim_memcg *memcg,
			unsigned long *nr_backing, unsigned long *nr_stored)
{
	bool pool = z->root_count_pool && msim_mem_cgroup_is_root(memcg);

	if (pool) {
		*nr_backing = msim__zswap_total_pages(z);
		*nr_stored = (unsigned long)msim_atomic_long_read(&z->stored_pages);
		return;
	}
	if (z->count_flush_ratelimited)
		msim_mem_cgroup_flush_stats_ratelimited(memcg);
	else
		msim_mem_cgroup_flush_stats(memcg);
	*nr_backing = msim_memcg_page_state(memcg, MSIM_MEMCG_ZSWAP_B) / MSIM_PAGE_SIZE;
	*nr_stored = msim_memcg_page_state(memcg, MSIM_MEMCG_ZSWAPPED);
}

/*
 * kernel: the swap-in feedback of zswap_shrinker_count(): take up to
 * nr_freeable from the (memcg, nid) count of disk swap-ins with a cmpxchg loop,
 * so that pages written back and read back from disk protect as many entries.
 */
static unsigned long consume_disk_swapins(struct msim__zswap *z, struct msim_memcg *memcg,
					  unsigned int nid, unsigned long nr_freeable)
{
	struct msim__zswap_memcg *zm = msim__zswap_memcg(z, memcg);
	long swapins, consumed;

	if (!zm)
		return nr_freeable;
	swapins = msim_atomic_long_read(&zm->nr_disk_swapins[nid]);
	do {
		if (swapins <= 0)
			return nr_freeable;
		consumed = swapins < (long)nr_freeable ? swapins : (long)nr_freeable;
	} while (!msim_atomic_long_try_cmpxchg(&zm->nr_disk_swapins[nid], &swapins,
					       swapins - consumed));
	msim__zswap_count(&z->disk_swapins_consumed, (unsigned long)consumed);
	return nr_freeable - (unsigned long)consumed;
}

/* kernel: mult_frac(x, n, d) without overflow for the sizes here. */
static unsigned long mult_frac(unsigned long x, unsigned long n, unsigned long d)
{
	return (x / d) * n + ((x % d) * n) / d;
}

/*
 * kernel: zswap_shrinker_count(): freeable entries of this (memcg, node) list
 * scaled by the compression ratio. Never SHRINK_EMPTY (so shrink_slab_memcg()
 * in mm/shrinker.c never clears zswap's shrinker bit once set).
 */
unsigned long msim__zswap_shrinker_count(struct msim_shrinker *s, struct msim_shrink_control *sc)
{
	struct msim__zswap *z = s->private_data;
	struct msim_memcg *memcg = sc_memcg(z, sc);
	unsigned long nr_backing, nr_stored, nr_freeable;

	if (!z->p.shrinker_enabled || !msim__zswap_writeback_enabled(z, memcg))
		return 0;
	/*
	 * gfp_has_io_fs(): the shrinker writes back to swap, which enters the block
	 * layer and may enter the fs; a reclaim that may not do either counts 0.
	 */
	if (!msim_gfp_has_io_fs(msim_shrink_control_gfp(sc)))
		return 0;
	count_ratio(z, memcg, &nr_backing, &nr_stored);
	if (!nr_stored)
		return 0;
	nr_freeable = msim_list_lru_shrink_count(&z->lru, sc);
	if (!nr_freeable)
		return 0;
	nr_freeable = consume_disk_swapins(z, memcg, sc->nid, nr_freeable);
	if (!nr_freeable)
		return 0;
	return mult_frac(nr_freeable, nr_backing, nr_stored);
}

/* kernel: zswap_shrinker_scan(). */
unsigned long msim__zswap_shrinker_scan(struct msim_shrinker *s, struct msim_shrink_control *sc)
{
	struct msim__zswap *z = s->private_data;
	struct walk_arg a = { .z = z, .shrinker = true };
	unsigned long ret;

	if (!z->p.shrinker_enabled || !msim__zswap_writeback_enabled(z, sc_memcg(z, sc))) {
		sc->nr_scanned = 0;
		return MSIM_SHRINK_STOP;
	}
	ret = msim_list_lru_shrink_walk(&z->lru, sc, shrink_memcg_cb, &a);
	if (a.encountered_page_in_swapcache)
		return MSIM_SHRINK_STOP;
	return ret ? ret : MSIM_SHRINK_STOP;
}

/*
 * kernel: shrink_memcg(): one entry per node of memcg's own list. -ENOENT if
 * writeback is off, the memcg is offline (its lists went to the parent) or no
 * list had an entry; -EAGAIN if entries were seen but none written back.
 */
int msim__zswap_shrink_memcg(struct msim__zswap *z, struct msim_memcg *memcg)
{
	unsigned long scanned = 0, shrunk = 0;

	if (!msim__zswap_writeback_enabled(z, memcg))
		return -ENOENT;
	if (memcg && !msim_mem_cgroup_online(memcg))
		return -ENOENT;
	for (unsigned int nid = 0; nid < z->nr_nodes; nid++) {
		struct walk_arg a = { .z = z };
		unsigned long nr_to_walk = 1;

		shrunk += msim_list_lru_walk_one(&z->lru, nid, memcg, shrink_memcg_cb, &a,
						 &nr_to_walk);
		scanned += 1 - nr_to_walk;
	}
	if (!scanned)
		return -ENOENT;
	return shrunk ? 0 : -EAGAIN;
}
