/* SPDX-License-Identifier: MIT */
/*
 * nodes.c - shadow nodes: the xarray nodes of page caches that hold only shadow
 * entries, kept on the memcg-aware list_lru shadow_nodes, and the shrinker
 * "mm-shadow" that frees them beyond a budget (kernel: mm/workingset.c
 * workingset_update_node, count_shadow_nodes, scan_shadow_nodes,
 * shadow_lru_isolate, workingset_init; docs/workingset.md).
 *
 * Lock order, as in the kernel: the xa lock (i_pages), then the list_lru lock
 * (the update hook adds and deletes under the xa lock). The shrinker walks
 * under the list_lru lock, so it can only trylock the xa lock and the inode's
 * i_lock; when either is busy it drops the list lock and retries (LRU_RETRY).
 * A node is on the list exactly while it is shadow-only; the update hook runs
 * under the xa lock, so a node the walk finds and then locks is still
 * shadow-only unless the check below says otherwise.
 */
#include <errno.h>
#include <stdlib.h>

#include <memcgsim/container_of.h>
#include <memcgsim/kmem.h>
#include <memcgsim/rcu.h>
#include <memcgsim/rstat.h>
#include <memcgsim/yield.h>

#include "workingset/ws_internal.h"

/*
 * The bytes a node is charged to its memcg's slab statistics: kernel
 * obj_full_size(s) = s->size + sizeof(struct obj_cgroup *). radix_tree_node has a
 * constructor, so SLUB keeps the free pointer outside the object: s->size is
 * 584 for the 576-byte node (the kernel rig's /proc/slabinfo shows 584), and the
 * charge 592.
 */
static long xa_node_charge(struct msim__ws_host *wh)
{
	struct msim_kmem_cache_info ci;
	struct msim_kmem_cache *c;

	if (!wh->xa_node_charge) {
		/* the host's shared cache (lib/xarray.c creates it with these) */
		c = msim_kmem_cache_find_or_create(wh->m, "radix_tree_node", MSIM_XA_NODE_BYTES,
						   MSIM_SLAB_FREEPTR_OUTSIDE);
		if (!c)
			return MSIM_XA_NODE_BYTES;
		msim_kmem_cache_info(c, &ci);
		wh->xa_node_charge = (long)(ci.slot_size + sizeof(void *));
	}
	return wh->xa_node_charge;
}

/* kernel: mem_cgroup_from_slab_obj(node): the node's objcg's memcg now (RCU held). */
static struct msim_memcg *ws_node_memcg(const struct msim__ws_node *wn)
{
	return wn->objcg ? msim_obj_cgroup_memcg(wn->objcg) : NULL;
}

/*
 * Under kmem-stat=counted (the linux-6.12 preset) the node is charged to the page
 * counter too, through the obj stock, as __memcg_slab_post_alloc_hook() does with
 * obj_cgroup_charge() (whole pages, MEMCG_KMEM): where a host has no obj stock
 * (-ENODEV) only the statistics are kept, as before. The charge can take pages from
 * the CPU's charge stock, which decides whether that stock still pins its memcg
 * after an offline (drain_all_stock skips a slot with no pages).
 */
static void ws_node_objcg_charge(struct msim__ws_host *wh, struct msim__ws_node *wn, long sign)
{
	if (!wh->kmem_counted)
		return;
	/*
	 * Under i_pages' lock: xas_alloc() allocates with GFP_NOWAIT there and never
	 * reclaims (reclaim would take this lock again through the page cache's
	 * remove-mapping). The model forces the charge instead of failing and
	 * retrying outside the lock as xas_nomem() does: NOWAIT | NOFAIL.
	 */
	if (sign > 0)
		wn->objcg_charged = !msim_obj_cgroup_charge(wn->objcg,
							     MSIM_GFP_NOWAIT | MSIM_GFP_NOFAIL,
							     (size_t)wn->slab_charge);
	else if (wn->objcg_charged)
		msim_obj_cgroup_uncharge(wn->objcg, (size_t)wn->slab_charge);
}

/*
 * The node's slab charge (kernel: the radix_tree_node cache is
 * SLAB_RECLAIM_ACCOUNT and __GFP_ACCOUNT: mod_objcg_mlstate on
 * NR_SLAB_RECLAIMABLE_B of the objcg's memcg). count_shadow_nodes adds the
 * local slab into its budget, so the nodes count towards their own budget.
 * The root's objcg is not charged.
 */
static void ws_node_slab_account(struct msim__ws_host *wh, struct msim__ws_node *wn, long sign)
{
	struct msim_memcg *memcg;

	if (!wn->objcg || msim_obj_cgroup_is_root(wn->objcg))
		return;
	if (sign > 0)
		wn->slab_charge = xa_node_charge(wh);
	ws_node_objcg_charge(wh, wn, sign);
	msim_rcu_read_lock();
	memcg = ws_node_memcg(wn);
	if (memcg)
		msim_mod_memcg_lruvec_state(msim_mem_cgroup_lruvec(wh->m, memcg, wn->nid),
					    MSIM_NR_SLAB_RECLAIMABLE_B,
					    sign * wn->slab_charge);
	msim_rcu_read_unlock();
}

/* A new node: its owner is the memcg whose folio the store in progress adds. */
static struct msim__ws_node *ws_node_alloc(struct msim_address_space *mapping,
					   struct msim_xa_node *node)
{
	struct msim__ws_node *wn = calloc(1, sizeof(*wn));

	if (!wn)
		return NULL;
	msim_init_list_head(&wn->private_list);
	wn->node = node;
	wn->mapping = mapping;
	wn->nid = mapping->charge_nid;
	if (mapping->charge_memcg)
		wn->objcg = msim_get_obj_cgroup_from_memcg(mapping->charge_memcg, wn->nid);
	msim_xa_node_set_private(node, wn);
	MSIM__WS_COUNT(mapping->wh, node_records, 1);
	ws_node_slab_account(mapping->wh, wn, 1);
	return wn;
}

static void ws_node_free(struct msim__ws_host *wh, struct msim__ws_node *wn)
{
	ws_node_slab_account(wh, wn, -1);
	msim_xa_node_set_private(wn->node, NULL);
	if (wn->objcg)
		msim_obj_cgroup_put(wn->objcg);
	MSIM__WS_COUNT(wh, node_records, -1);
	free(wn);
}

/*
 * wn->listed is the xa lock's, but the demonstration's isolate clears it under
 * the list lock alone: every access notes itself (yield.h's contract), so the
 * two orders of that store and the update hook's read stay apart under DPOR.
 */
static bool ws_node_listed(const struct msim__ws_node *wn)
{
	msim_access_note(&wn->listed, sizeof(wn->listed), MSIM_ACCESS_LOAD);
	return wn->listed;
}

static void ws_node_set_listed(struct msim__ws_node *wn, bool listed)
{
	msim_access_note(&wn->listed, sizeof(wn->listed), MSIM_ACCESS_STORE);
	wn->listed = listed;
}

static void ws_node_list(struct msim__ws_host *wh, struct msim__ws_node *wn, bool add)
{
	msim_rcu_read_lock();
	if (add)
		msim_list_lru_add(&wh->shadow_nodes, &wn->private_list, wn->nid, ws_node_memcg(wn));
	else
		msim_list_lru_del(&wh->shadow_nodes, &wn->private_list, wn->nid, ws_node_memcg(wn));
	msim_rcu_read_unlock();
	ws_node_set_listed(wn, add);
	msim_quiet_fetch_add(&wh->workingset_nodes[wn->nid], add ? 1 : -1, MSIM_RELAXED);
}

/*
 * kernel: workingset_update_node(), called under the xa lock whenever a node's
 * count or its number of values changes, and with count 0 before it is freed.
 */
void msim__workingset_update_node(struct msim_xarray *xa, struct msim_xa_node *node,
				  unsigned int count, void *arg)
{
	struct msim_address_space *mapping = arg;
	struct msim__ws_host *wh = mapping->wh;
	struct msim__ws_node *wn = msim_xa_node_private(node);

	(void)xa;
	if (!wn) {
		if (!count || !(wn = ws_node_alloc(mapping, node)))
			return;
	}
	if (count && count == msim_xa_node_nr_values(node)) {
		if (!ws_node_listed(wn))
			ws_node_list(wh, wn, true);
	} else if (ws_node_listed(wn)) {
		ws_node_list(wh, wn, false);
	}
	if (!count)
		ws_node_free(wh, wn);
}

/* kernel: node_present_pages(nid): every populated zone of the node. */
static unsigned long node_present_pages(struct msim *m, unsigned int nid)
{
	const struct msim_config *cfg = msim_config(m);
	unsigned long pages = 0;

	for (unsigned int z = 0; z < MSIM_MAX_NR_ZONES; z++)
		if (nid == 0 || (z != MSIM_ZONE_DMA && z != MSIM_ZONE_DMA32))
			pages += cfg->zone_managed_pages[z];
	return pages;
}

/* The LRU pages count_shadow_nodes budgets by, per variant shadow-budget. */
static unsigned long budget_lru_pages(struct msim__ws_host *wh, struct msim_lruvec *lruvec)
{
	unsigned long pages = 0;

	for (unsigned int lru = 0; lru < MSIM_NR_LRU_LISTS; lru++) {
		if (wh->budget_page_state)
			pages += msim_lruvec_page_state_local(
				lruvec, (enum msim_stat_item)(MSIM_NR_INACTIVE_ANON + lru));
		else
			pages += msim_lruvec_lru_size(lruvec, (enum msim_lru_list)lru,
						      (enum msim_zone_type)(MSIM_MAX_NR_ZONES - 1));
	}
	return pages;
}

unsigned long msim_shadow_budget_pages(struct msim *m, struct msim_memcg *memcg, unsigned int nid)
{
	struct msim__ws_host *wh = msim__ws_host(m);
	struct msim_lruvec *lruvec;
	unsigned long pages;

	if (!wh || nid >= wh->nr_nodes)
		return 0;
	if (!memcg)
		return node_present_pages(m, nid);
	lruvec = msim_mem_cgroup_lruvec(m, memcg, nid);
	/* the budget's first read is a shim (lru_zone_size, or the local statistic) */
	msim_yield_access("workingset.count.read", NULL, MSIM_ACCESS_NONE);
	pages = budget_lru_pages(wh, lruvec);
	pages += msim_lruvec_page_state_local(lruvec, MSIM_NR_SLAB_RECLAIMABLE_B) / MSIM_PAGE_SIZE;
	pages += msim_lruvec_page_state_local(lruvec, MSIM_NR_SLAB_UNRECLAIMABLE_B) / MSIM_PAGE_SIZE;
	return pages;
}

void msim_workingset_sync_stats(struct msim *m)
{
	if (msim__ws_host(m))
		msim_mem_cgroup_flush_stats_forced(msim_root_mem_cgroup(m));
}

/* kernel: count_shadow_nodes(). */
unsigned long msim_count_shadow_nodes_budget(struct msim *m, struct msim_shrink_control *sc,
					     unsigned long *max_nodes_out)
{
	struct msim__ws_host *wh = msim__ws_host(m);
	unsigned long nodes, max_nodes;

	if (max_nodes_out)
		*max_nodes_out = 0;
	if (!wh || !sc || sc->nid >= wh->nr_nodes)
		return 0;
	MSIM__WS_COUNT(wh, count_calls, 1);
	nodes = msim_list_lru_shrink_count(&wh->shadow_nodes, sc);
	if (!nodes)
		return MSIM_SHRINK_EMPTY;
	if (sc->memcg)
		msim_mem_cgroup_flush_stats_ratelimited(sc->memcg);
	/* pages >> (XA_CHUNK_SHIFT - 3): a worst-case density of 1/8th */
	max_nodes = msim_shadow_budget_pages(m, sc->memcg, sc->nid) >> (MSIM_XA_CHUNK_SHIFT - 3);
	if (max_nodes_out)
		*max_nodes_out = max_nodes;
	return nodes > max_nodes ? nodes - max_nodes : 0;
}

static unsigned long count_shadow_nodes(struct msim_shrinker *s, struct msim_shrink_control *sc)
{
	return msim_count_shadow_nodes_budget(s->host, sc, NULL);
}

/* Free an isolated shadow-only node and its shadows (both locks of the mapping held). */
static void shadow_node_delete(struct msim__ws_host *wh, struct msim__ws_node *wn)
{
	struct msim_address_space *mapping = wn->mapping;
	struct msim_obj_cgroup *objcg = wn->objcg;
	unsigned int nid = wn->nid, shadows = msim_xa_node_count(wn->node);
	struct msim_memcg *memcg;

	if (objcg)
		msim_obj_cgroup_get(objcg);   /* the record goes with the node */
	if (msim_xa_delete_node_locked(&mapping->i_pages, wn->node)) {
		MSIM__WS_COUNT(wh, isolate_skipped, 1);
	} else {
		mapping->nrshadows -= shadows;
		MSIM__WS_COUNT(wh, nodes_reclaimed, 1);
		MSIM__WS_COUNT(wh, shadows_reclaimed, shadows);
		/* kernel: mod_lruvec_kmem_state(node, WORKINGSET_NODERECLAIM, 1) */
		msim_rcu_read_lock();
		memcg = objcg ? msim_obj_cgroup_memcg(objcg) : NULL;
		msim_mod_lruvec_state(memcg ? msim_mem_cgroup_lruvec(wh->m, memcg, nid)
					    : msim_node_lruvec(wh->m, nid),
				      MSIM_WORKINGSET_NODERECLAIM, 1);
		msim_rcu_read_unlock();
	}
	if (objcg)
		msim_obj_cgroup_put(objcg);
}

/*
 * The retry after a failed trylock. The kernel drops the list lock and walks
 * again; its queued spinlock hands the list lock to the waiter, the refault
 * that holds the xa lock and wants to take this node off the list. The model's
 * lock has no hand-off, so the walker waits for that holder here (it holds no
 * lock now) before it walks again: the order a fair lock gives, and no
 * livelock under an adversarial scheduler.
 */
static enum msim_lru_status shadow_isolate_retry(struct msim__ws_host *wh,
						 struct msim_list_lru_one *list,
						 struct msim_lock *busy)
{
	MSIM__WS_COUNT(wh, isolate_retries, 1);
	msim_spin_unlock(&list->lock);
	/* the wait for the holder starts with the lock's own shim */
	msim_cond_resched_access("workingset.shadow.retry", NULL, MSIM_ACCESS_NONE);
	msim_lock(busy);
	msim_unlock(busy);
	return MSIM_LRU_RETRY;
}

/*
 * Demonstration (shadow-isolate-trylock=off): take the node off the list, drop
 * the list lock, then wait for the xa lock and erase the node's entries
 * without checking that it still holds shadows alone. A refault that stored a
 * folio there meanwhile loses it: the page cache forgets a resident folio.
 */
static enum msim_lru_status shadow_isolate_unlocked(struct msim__ws_host *wh,
						    struct msim__ws_node *wn,
						    struct msim_list_lru_one *list)
{
	struct msim_address_space *mapping = wn->mapping;
	unsigned long first = msim_xa_node_index(wn->node);

	msim_list_lru_isolate(list, &wn->private_list);
	ws_node_set_listed(wn, false);
	msim_quiet_fetch_add(&wh->workingset_nodes[wn->nid], -1, MSIM_RELAXED);
	msim_spin_unlock(&list->lock);
	/* first was read before: the step goes straight to the xa lock's shim */
	msim_yield_access("workingset.shadow.delete", NULL, MSIM_ACCESS_NONE);
	msim_xa_lock(&mapping->i_pages);
	/* wn goes with the node once its last entry is erased: only first is used */
	for (unsigned long i = 0; i < MSIM_XA_CHUNK_SIZE; i++) {
		void *old = msim_xa_erase_locked(&mapping->i_pages, first + i);

		if (!old)
			continue;
		if (msim_xa_is_value(old)) {
			mapping->nrshadows--;
			MSIM__WS_COUNT(wh, shadows_reclaimed, 1);
		} else {
			mapping->nrpages--;
			mapping->nrlost++;
			msim_lruvec_stat_mod_folio(old, MSIM_NR_FILE_PAGES, -1);
			msim__ws_page_forget(old);
		}
	}
	msim_xa_unlock(&mapping->i_pages);
	MSIM__WS_COUNT(wh, nodes_reclaimed, 1);
	return MSIM_LRU_REMOVED_RETRY;
}

/* kernel: shadow_lru_isolate(), called with the list_lru lock held. */
static enum msim_lru_status shadow_lru_isolate(struct msim_list_head *item,
					       struct msim_list_lru_one *list, void *arg)
{
	struct msim__ws_host *wh = arg;
	struct msim__ws_node *wn = msim_container_of(item, struct msim__ws_node, private_list);
	struct msim_address_space *mapping = wn->mapping;

	/*
	 * Next: the xa trylock's shim, or (demonstration) the list's links under
	 * the list lock held here, then its nr_items through a shim.
	 */
	msim_yield_access("workingset.shadow.isolate", NULL, MSIM_ACCESS_NONE);
	if (!wh->isolate_trylock)
		return shadow_isolate_unlocked(wh, wn, list);
	if (!msim_xa_trylock(&mapping->i_pages))
		return shadow_isolate_retry(wh, list, &mapping->i_pages.lock);
	if (!msim_trylock(&mapping->i_lock)) {
		msim_xa_unlock(&mapping->i_pages);
		return shadow_isolate_retry(wh, list, &mapping->i_lock);
	}
	msim_list_lru_isolate(list, item);
	ws_node_set_listed(wn, false);
	msim_quiet_fetch_add(&wh->workingset_nodes[wn->nid], -1, MSIM_RELAXED);
	msim_spin_unlock(&list->lock);
	/*
	 * Both locks of the mapping are held: the node's counts, read next, change
	 * only under the xa lock; the next shared access past them is a shim (the
	 * objcg's reference, the xarray's delete) or the i_lock's release.
	 */
	msim_yield_access("workingset.shadow.delete", NULL, MSIM_ACCESS_NONE);
	/* kernel: WARN_ON_ONCE(!node->nr_values || node->count != node->nr_values) */
	if (!msim_xa_node_nr_values(wn->node) ||
	    msim_xa_node_count(wn->node) != msim_xa_node_nr_values(wn->node))
		MSIM__WS_COUNT(wh, isolate_skipped, 1);
	else
		shadow_node_delete(wh, wn);
	msim_unlock(&mapping->i_lock);
	msim_xa_unlock(&mapping->i_pages);
	return MSIM_LRU_REMOVED_RETRY;
}

/* kernel: scan_shadow_nodes(): list_lru_shrink_walk_irq(&shadow_nodes, sc, shadow_lru_isolate). */
static unsigned long scan_shadow_nodes(struct msim_shrinker *s, struct msim_shrink_control *sc)
{
	struct msim__ws_host *wh = s->private_data;

	MSIM__WS_COUNT(wh, scan_calls, 1);
	return msim_list_lru_shrink_walk(&wh->shadow_nodes, sc, shadow_lru_isolate, wh);
}

/*
 * kernel: workingset_init(): shrinker_alloc(SHRINKER_NUMA_AWARE |
 * SHRINKER_MEMCG_AWARE, "mm-shadow"), list_lru_init_memcg_key(&shadow_nodes,
 * shrinker), count/scan, seeks 0 (delta = freeable / 2), batch 0 (SHRINK_BATCH),
 * shrinker_register.
 */
int msim__ws_shadow_nodes_init(struct msim__ws_host *wh)
{
	int ret = msim_shrinker_alloc(wh->m, MSIM_SHRINKER_NUMA_AWARE | MSIM_SHRINKER_MEMCG_AWARE,
				      "mm-shadow", &wh->shrinker);

	if (ret)
		return ret;
	ret = msim_list_lru_init(wh->m, &wh->shadow_nodes, true, wh->shrinker);
	if (ret) {
		msim_shrinker_free(wh->shrinker);
		wh->shrinker = NULL;
		return ret;
	}
	wh->shadow_nodes_ready = true;
	wh->shrinker->count_objects = count_shadow_nodes;
	wh->shrinker->scan_objects = scan_shadow_nodes;
	wh->shrinker->seeks = 0;
	wh->shrinker->private_data = wh;
	return msim_shrinker_register(wh->shrinker);
}

void msim__ws_shadow_nodes_fini(struct msim__ws_host *wh)
{
	if (wh->shrinker)
		msim_shrinker_free(wh->shrinker);
	wh->shrinker = NULL;
	if (wh->shadow_nodes_ready)
		msim_list_lru_destroy(&wh->shadow_nodes);
	wh->shadow_nodes_ready = false;
}
