/* SPDX-License-Identifier: MIT */
/*
 * vmscan.c - a minimal reclaim in the shape of mm/vmscan.c: shrink_lruvec
 * (get_scan_count, shrink_list in batches), shrink_inactive_list
 * (isolate_lru_folios, shrink_folio_list, move_folios_to_lru),
 * shrink_active_list (deactivation), prepare_scan_control, and
 * try_to_free_mem_cgroup_pages (priorities over the subtree). MGLRU's
 * lru_gen_shrink_lruvec (evict the oldest generation, aging first when only
 * MIN_NR_GENS are left) is mglru_evict.c's; the batch it isolates comes back
 * through msim__reclaim_isolated, which both LRU kinds share.
 *
 * The owner of a folio (the page cache, swap, zswap) is not modelled here: the
 * scan_control's evict callback plays shrink_folio_list's owner part, and the
 * layers above supply it (workingset leaves a shadow entry, zswap stores).
 *
 * Order that races depend on (shrink_inactive_list):
 *   lock; isolate a batch from the tail (PG_lru claimed, sizes down); unlock
 *   "lru.shrink.isolated": the batch is off every list, its sizes are gone from
 *       the lruvec it came from, and an offline may now move that lruvec's lists
 *   evict / keep / activate each folio without the lock
 *   "lru.shrink.putback": each survivor goes back to folio_lruvec() *now*
 *       (relocked: after an offline that is the parent's)
 *   freed folios are uncharged (through their objcg: the parent after an offline)
 */
#include <string.h>

#include "lru/lru_internal.h"

void msim_scan_control_init(struct msim_scan_control *sc)
{
	memset(sc, 0, sizeof(*sc));
	sc->priority = MSIM_DEF_PRIORITY;
	sc->may_swap = true;
}

/* Claim one folio for isolation (kernel: folio_try_get + folio_test_clear_lru). */
bool msim__isolate_claim(struct msim_folio *folio)
{
	if (!msim_folio_try_get(folio))
		return false;
	if (msim__folio_test_clear_lru(folio))
		return true;
	msim_folio_put(folio);
	return false;
}

/*
 * kernel: isolate_lru_folios() (lock held): from the tail of lists[lru], up to
 * nr_to_scan pages; folios another party holds go back to the head. The sizes
 * go down per zone (update_lru_sizes).
 */
static unsigned long isolate_lru_folios(struct msim__lru_vec *lv, unsigned long nr_to_scan,
					enum msim_lru_list lru, struct msim_list_head *dst,
					unsigned long *nr_scanned)
{
	long nr_zone_taken[MSIM_MAX_NR_ZONES] = { 0 };
	struct msim_list_head *src = &lv->lists[lru];
	unsigned long scan = 0, taken = 0;

	while (scan < nr_to_scan && !msim_list_empty(src)) {
		struct msim_folio *folio = msim__lru_to_folio(src);
		long nr = msim_folio_nr_pages(folio);

		scan += (unsigned long)nr;
		if (!msim__isolate_claim(folio)) {
			msim_list_move(&folio->lru, src);
			continue;
		}
		msim_list_move(&folio->lru, dst);
		nr_zone_taken[folio->zone] += nr;
		taken += (unsigned long)nr;
	}
	for (unsigned int z = 0; z < MSIM_MAX_NR_ZONES; z++)
		if (nr_zone_taken[z])
			msim__update_lru_size(lv, lru, (enum msim_zone_type)z, -nr_zone_taken[z]);
	*nr_scanned += scan;
	return taken;
}

/*
 * The owner's callback runs in this step; one that does not say it notes its
 * accesses (scan_control.evict_notes) may touch anything before its first
 * yield point, and so does the step (yield.h's contract).
 */
static enum msim_reclaim_verdict call_evict(struct msim_folio *folio,
					    struct msim_scan_control *sc)
{
	if (!sc->evict_notes)
		msim_access_note(folio, 1, MSIM_ACCESS_ANY);
	return sc->evict(folio, sc->target_mem_cgroup, sc->evict_arg);
}

/*
 * Without a callback: a file folio leaves its page cache through the host's
 * remove_mapping hook (kernel: __remove_mapping through folio->mapping), as
 * the kernel's reclaim never frees a folio the page cache still points to;
 * with no page cache registered, and for anon folios, the owner is "the
 * mapping" and reclaim drops its reference.
 */
static enum msim_reclaim_verdict evict_default(struct msim_folio *folio,
					       struct msim_scan_control *sc)
{
	struct msim__lru_host *lh = folio->lh;

	if (lh->remove_mapping && msim_folio_is_file_lru(folio)) {
		if (!lh->remove_mapping_notes)
			msim_access_note(folio, 1, MSIM_ACCESS_ANY);
		return lh->remove_mapping(folio, sc->target_mem_cgroup, lh->remove_mapping_arg);
	}
	msim_folio_put(folio);
	return MSIM_RECLAIM_FREE;
}

/*
 * kernel: folio_referenced() as reclaim sees it: the accessed bits of the
 * folio's PTEs, tested and cleared (rmap); 0 for an unmapped folio. *exec: a
 * VM_EXEC mapping was among them.
 */
static bool folio_referenced_ptes(struct msim_folio *folio, bool *exec)
{
	bool young;

	*exec = false;
	if (!msim__folio_test(folio, MSIM__PG_MAPPED))
		return false;
	young = msim__folio_test(folio, MSIM__PG_YOUNG);
	if (young) {
		msim__folio_clear(folio, MSIM__PG_YOUNG);
		*exec = msim__folio_test(folio, MSIM__PG_VM_EXEC);
	}
	return young;
}

/*
 * kernel: folio_check_references() (no VM_LOCKED, no dirty or writeback
 * folios). A mapped folio whose PTEs were young is referenced: activated if it
 * was referenced before (or is executable file), else kept with PG_referenced
 * set for one more trip. An unmapped one is reclaimed whatever PG_referenced
 * says (RECLAIM_CLEAN: its protection came from folio_mark_accessed()'s
 * activation). MGLRU 6.14 takes its own branch (lru_gen_set_refs); 6.12 takes
 * the classic one, its isolate having cleared PG_referenced.
 */
static enum msim_reclaim_verdict folio_check_references(struct msim_folio *folio, bool mglru_6_14)
{
	bool exec, referenced_ptes = folio_referenced_ptes(folio, &exec), referenced_folio;

	if (mglru_6_14)
		return referenced_ptes ? msim__lru_gen_set_refs(folio) : MSIM_RECLAIM_FREE;
	referenced_folio = msim__folio_test(folio, MSIM__PG_REFERENCED);
	msim__folio_clear(folio, MSIM__PG_REFERENCED);
	if (!referenced_ptes)
		return MSIM_RECLAIM_FREE;
	msim__folio_set(folio, MSIM__PG_REFERENCED);
	if (referenced_folio || (exec && msim_folio_is_file_lru(folio)))
		return MSIM_RECLAIM_ACTIVATE;
	return MSIM_RECLAIM_KEEP;
}

static enum msim_reclaim_verdict folio_verdict(struct msim_folio *folio,
					       struct msim_scan_control *sc)
{
	bool mglru_6_14 = folio->lh->mglru && !folio->lh->mglru_6_12;
	enum msim_reclaim_verdict v = folio_check_references(folio, mglru_6_14);

	if (v == MSIM_RECLAIM_FREE)
		v = sc->evict ? call_evict(folio, sc) : evict_default(folio, sc);
	/* __remove_mapping()'s freeze: only the isolation reference may be left */
	if (v == MSIM_RECLAIM_FREE && !msim__folio_ref_freeze(folio, 1))
		v = MSIM_RECLAIM_KEEP;
	return v;
}

/*
 * kernel: shrink_folio_list(), the part this model has: each folio is activated,
 * kept or freed (folio_verdict). Freed folios (reference count frozen at 0) move
 * to free; the rest stay on list, activated ones with PG_active. Returns the
 * pages freed.
 */
static unsigned long shrink_folio_list(struct msim_list_head *list, struct msim_list_head *free,
				       struct msim_scan_control *sc)
{
	struct msim_list_head *p, *next;
	unsigned long freed = 0;

	/* from the tail: the folio isolated first is looked at first */
	for (p = list->prev; p != list; p = next) {
		struct msim_folio *folio = msim_container_of(p, struct msim_folio, lru);
		enum msim_reclaim_verdict v = folio_verdict(folio, sc);
		long nr = msim_folio_nr_pages(folio);

		next = p->prev;
		if (v == MSIM_RECLAIM_FREE) {
			msim_list_move(&folio->lru, free);
			freed += (unsigned long)nr;
		} else if (v == MSIM_RECLAIM_ACTIVATE) {
			msim__folio_set(folio, MSIM__PG_ACTIVE);
			sc->nr_activated += (unsigned long)nr;
		}
	}
	return freed;
}

/*
 * kernel: move_folios_to_lru(): each folio back on the lruvec it belongs to now,
 * relocking when that changes (an offline moved it to the parent), dropping the
 * isolation reference; a folio whose last other holder let go meanwhile goes to
 * to_free instead. Called and returns with *locked held (maybe another lruvec).
 */
static struct msim__lru_vec *move_folios_to_lru(struct msim__lru_vec *locked,
						struct msim_list_head *list,
						struct msim_list_head *to_free)
{
	while (!msim_list_empty(list)) {
		struct msim_folio *folio = msim__lru_to_folio(list);

		msim_list_del_init(&folio->lru);
		locked = msim__folio_lru_vec_relock(folio, locked);
		msim__folio_set_lru(folio);
		if (msim__folio_put_testzero(folio)) {
			msim__folio_clear(folio, MSIM__PG_LRU);
			msim_list_add(&folio->lru, to_free);
			continue;
		}
		msim__lruvec_add_folio(locked, folio);
	}
	return locked;
}

/* Uncharge and free folios whose last reference is gone (mem_cgroup_uncharge_folios). */
static void free_folios(struct msim_list_head *to_free)
{
	while (!msim_list_empty(to_free)) {
		struct msim_folio *folio = msim_container_of(to_free->next, struct msim_folio, lru);

		msim_list_del_init(&folio->lru);
		msim__folio_release(folio);
	}
}

/*
 * Put the survivors back, then uncharge and free the evicted ones, whose
 * isolation reference is the last (kernel order: putback under the lock, the
 * uncharge after it).
 */
static void putback_and_free(struct msim__lru_vec *lv, struct msim_list_head *list,
			     struct msim_list_head *evicted)
{
	struct msim__lru_vec *locked;

	/* nothing shared before the lock's RCU section, whose shim has its own point */
	msim_yield_access("lru.shrink.putback", NULL, MSIM_ACCESS_NONE);
	msim__lru_vec_lock(lv);
	locked = move_folios_to_lru(lv, list, evicted);
	msim__lru_vec_unlock(locked);
	free_folios(evicted);
}

/* PGSCAN_* / PGSTEAL_* (node items in newest) for one batch. */
static void count_scan(struct msim__lru_vec *lv, bool file, unsigned long scanned,
		       unsigned long reclaimed)
{
	msim_mod_lruvec_state(lv->stats, MSIM_PGSCAN_DIRECT, (long)scanned);
	msim_mod_lruvec_state(lv->stats, file ? MSIM_PGSCAN_FILE : MSIM_PGSCAN_ANON, (long)scanned);
	msim_mod_lruvec_state(lv->stats, MSIM_PGSTEAL_DIRECT, (long)reclaimed);
	msim_mod_lruvec_state(lv->stats, file ? MSIM_PGSTEAL_FILE : MSIM_PGSTEAL_ANON,
			      (long)reclaimed);
}

/*
 * What both LRU kinds do with a batch they isolated (the lock dropped): decide and
 * evict, put the survivors back, count the scan. The window after isolation is
 * the one reparenting races (lru-reparent-vs-isolate).
 */
unsigned long msim__reclaim_isolated(struct msim__lru_vec *lv, struct msim_list_head *list,
				     struct msim_list_head *free, struct msim_scan_control *sc,
				     bool file, unsigned long scanned)
{
	unsigned long reclaimed;

	/*
	 * The step from here walks the batch (task-local: off every list, PG_lru
	 * claimed) testing and clearing flags, which note themselves (lru_internal.h),
	 * up to the first callback's or freeze's shim; it starts at the oldest's flags.
	 */
	msim_yield_access("lru.shrink.isolated", &msim__lru_to_folio(list)->flags, MSIM_ACCESS_LOAD);
	reclaimed = shrink_folio_list(list, free, sc);
	if (lv->lrugen.enabled)
		msim__lru_gen_reject_survivors(lv, list);
	putback_and_free(lv, list, free);
	count_scan(lv, file, scanned, reclaimed);
	return reclaimed;
}

/* kernel: shrink_inactive_list(). */
static unsigned long shrink_inactive_list(struct msim__lru_vec *lv, unsigned long nr_to_scan,
					  struct msim_scan_control *sc, enum msim_lru_list lru)
{
	struct msim_list_head list, free;
	unsigned long scanned = 0, taken;

	msim_init_list_head(&list);
	msim_init_list_head(&free);
	msim__lru_vec_lock(lv);
	taken = isolate_lru_folios(lv, nr_to_scan, lru, &list, &scanned);
	msim__lru_vec_unlock(lv);
	sc->nr_scanned += scanned;
	if (!taken)
		return 0;
	return msim__reclaim_isolated(lv, &list, &free, sc, lru == MSIM_LRU_INACTIVE_FILE, scanned);
}

/*
 * kernel: shrink_active_list(): a batch off the active tail; rmap clears each
 * folio's accessed bits (folio_referenced), and only a young folio of an
 * executable file mapping rotates back to the active list; the rest lose
 * PG_active, gain PG_workingset and go to the inactive list. PG_referenced is
 * left as it was.
 */
static void shrink_active_list(struct msim__lru_vec *lv, unsigned long nr_to_scan,
			       struct msim_scan_control *sc, enum msim_lru_list lru)
{
	struct msim_list_head list, l_active, l_inactive;
	unsigned long scanned = 0, deactivated = 0;
	struct msim__lru_vec *locked;

	msim_init_list_head(&list);
	msim_init_list_head(&l_active);
	msim_init_list_head(&l_inactive);
	msim__lru_vec_lock(lv);
	isolate_lru_folios(lv, nr_to_scan, lru, &list, &scanned);
	msim__lru_vec_unlock(lv);
	while (!msim_list_empty(&list)) {
		struct msim_folio *folio = msim__lru_to_folio(&list);
		bool exec, young = folio_referenced_ptes(folio, &exec);

		if (young && exec && lru == MSIM_LRU_ACTIVE_FILE) {
			msim_list_move(&folio->lru, &l_active);
			continue;
		}
		msim__folio_clear(folio, MSIM__PG_ACTIVE);
		msim__folio_set(folio, MSIM__PG_WORKINGSET);
		deactivated += (unsigned long)msim_folio_nr_pages(folio);
		msim_list_move(&folio->lru, &l_inactive);
	}
	msim__lru_vec_lock(lv);
	locked = move_folios_to_lru(lv, &l_active, &list);
	locked = move_folios_to_lru(locked, &l_inactive, &list);
	msim__lru_vec_unlock(locked);
	free_folios(&list);
	sc->nr_deactivated += deactivated;
	msim_count_memcg_events(lv->memcg, MSIM_PGDEACTIVATE, (long)deactivated);
	msim_mod_lruvec_state(lv->stats, MSIM_PGREFILL, (long)scanned);
}

/* ---- classic: shrink_lruvec ---- */

static unsigned long lv_lru_size(const struct msim__lru_vec *lv, enum msim_lru_list lru)
{
	unsigned long size = 0;

	for (unsigned int z = 0; z < MSIM_MAX_NR_ZONES; z++)
		size += (unsigned long)msim__lru_zone_size_read(lv, lru, (enum msim_zone_type)z);
	return size;
}

static unsigned long int_sqrt(unsigned long x)
{
	unsigned long r = 0;

	while ((r + 1) * (r + 1) <= x)
		r++;
	return r;
}

/*
 * kernel: inactive_is_low(): inactive * inactive_ratio < active, the ratio
 * int_sqrt(10 * size in GiB), 1 below a GiB. The sizes are the lruvec's
 * statistics (lruvec_page_state: hierarchical, as last flushed), not its
 * lists: they lag the lists until something flushes, so reclaim may keep
 * aging an active list past the balance, or leave one alone that grew.
 */
static bool inactive_is_low(struct msim_lruvec *lruvec, enum msim_lru_list inactive_lru)
{
	unsigned long inactive = msim_lruvec_page_state(lruvec, (enum msim_stat_item)inactive_lru);
	unsigned long active =
		msim_lruvec_page_state(lruvec, (enum msim_stat_item)(inactive_lru + MSIM_LRU_ACTIVE));
	unsigned long gb = (inactive + active) >> (30 - 12);
	unsigned long ratio = gb ? int_sqrt(10 * gb) : 1;

	return inactive * ratio < active;
}

/*
 * kernel: prepare_scan_control()'s may_deactivate, per node (shrink_node), on
 * the target's lruvec after a ratelimited flush: age an active list when it is
 * too large for its inactive one, or when WORKINGSET_ACTIVATE moved since the
 * last reclaim's snapshot (a new workingset forming); force_deactivate ages
 * both. MGLRU has no active lists to age (the kernel returns first).
 */
static void prepare_scan_control(struct msim__lru_vec *target, struct msim_scan_control *sc)
{
	static const enum msim_lru_list inactive[2] = { MSIM_LRU_INACTIVE_ANON,
							MSIM_LRU_INACTIVE_FILE };
	static const unsigned int bit[2] = { MSIM_DEACTIVATE_ANON, MSIM_DEACTIVATE_FILE };

	if (target->lrugen.enabled)
		return;
	if (sc->force_deactivate) {
		sc->may_deactivate = MSIM_DEACTIVATE_ANON | MSIM_DEACTIVATE_FILE;
		return;
	}
	msim_mem_cgroup_flush_stats_ratelimited(target->memcg);
	for (unsigned int file = 0; file < 2; file++) {
		unsigned long refaults = msim_lruvec_page_state(
			target->stats, (enum msim_stat_item)(MSIM_WORKINGSET_ACTIVATE_ANON + file));

		if (refaults != msim_quiet_load(&target->refaults[file], MSIM_RELAXED) ||
		    inactive_is_low(target->stats, inactive[file]))
			sc->may_deactivate |= bit[file];
		else
			sc->may_deactivate &= ~bit[file];
	}
}

/*
 * kernel: snapshot_refaults(): the target's activations, for the next
 * prepare_scan_control(). Two reclaimers of one target write and read it with
 * no lock, as the kernel's plain accesses do: relaxed, last writer wins.
 */
static void snapshot_refaults(struct msim__lru_vec *target)
{
	for (unsigned int file = 0; file < 2; file++)
		msim_quiet_store(&target->refaults[file],
				 msim_lruvec_page_state(target->stats,
							(enum msim_stat_item)(MSIM_WORKINGSET_ACTIVATE_ANON + file)),
				 MSIM_RELAXED);
}

/* kernel: shrink_list(): active lists are only aged (when sc->may_deactivate says so). */
static unsigned long shrink_list(struct msim__lru_vec *lv, enum msim_lru_list lru,
				 unsigned long nr_to_scan, struct msim_scan_control *sc)
{
	if (lru == MSIM_LRU_ACTIVE_ANON || lru == MSIM_LRU_ACTIVE_FILE) {
		unsigned int bit = lru == MSIM_LRU_ACTIVE_FILE ? MSIM_DEACTIVATE_FILE
							       : MSIM_DEACTIVATE_ANON;

		if (sc->may_deactivate & bit)
			shrink_active_list(lv, nr_to_scan, sc, lru);
		else
			sc->skipped_deactivate = true;
		return 0;
	}
	return shrink_inactive_list(lv, nr_to_scan, sc, lru);
}

/*
 * kernel: shrink_lruvec() with get_scan_count() reduced to "lru size >>
 * priority, anon only with swap", the active lists aged as prepare_scan_control()
 * decided (sc->may_deactivate); the proportional scan after the target is
 * reached is left out (the loop stops).
 */
static unsigned long classic_shrink_lruvec(struct msim__lru_vec *lv, struct msim_scan_control *sc)
{
	unsigned long nr[MSIM_LRU_UNEVICTABLE], reclaimed = 0;

	for (unsigned int lru = 0; lru < MSIM_LRU_UNEVICTABLE; lru++) {
		bool anon = lru < MSIM_LRU_INACTIVE_FILE;

		nr[lru] = anon && !sc->may_swap ? 0 : lv_lru_size(lv, lru) >> sc->priority;
	}
	while (nr[MSIM_LRU_INACTIVE_ANON] || nr[MSIM_LRU_ACTIVE_FILE] ||
	       nr[MSIM_LRU_INACTIVE_FILE]) {
		for (unsigned int lru = 0; lru < MSIM_LRU_UNEVICTABLE; lru++) {
			unsigned long n = nr[lru] < MSIM_SWAP_CLUSTER_MAX ? nr[lru]
									  : MSIM_SWAP_CLUSTER_MAX;

			if (!n)
				continue;
			nr[lru] -= n;
			reclaimed += shrink_list(lv, lru, n, sc);
		}
		if (reclaimed >= sc->nr_to_reclaim)
			break;
	}
	/* can_age_anon_pages(): the anon balance is kept for the next reclaim */
	if (sc->may_swap && inactive_is_low(lv->stats, MSIM_LRU_INACTIVE_ANON))
		shrink_active_list(lv, MSIM_SWAP_CLUSTER_MAX, sc, MSIM_LRU_ACTIVE_ANON);
	return reclaimed;
}

/* ---- entry points ---- */

static unsigned long shrink_lru_vec(struct msim__lru_vec *lv, struct msim_scan_control *sc)
{
	unsigned long reclaimed = lv->lrugen.enabled ? msim__lru_gen_shrink_lruvec(lv, sc)
						     : classic_shrink_lruvec(lv, sc);

	sc->nr_reclaimed += reclaimed;
	return reclaimed;
}

/* One shrink_node() of this lruvec alone: prepared on the target (NULL: its own memcg). */
unsigned long msim_shrink_lruvec(struct msim_lruvec *lruvec, struct msim_scan_control *sc)
{
	struct msim__lru_vec *lv = msim__lru_vec_of(lruvec), *target;

	if (!lv || !sc)
		return 0;
	target = sc->target_mem_cgroup ? msim__lru_vec(lv->lh, sc->target_mem_cgroup, lv->nid) : lv;
	prepare_scan_control(target ? target : lv, sc);
	return shrink_lru_vec(lv, sc);
}

/*
 * One priority level over memcg's subtree (shrink_node_memcgs per node: each
 * memcg's lruvec, then its slab); true once the target is reached. The
 * deactivation is decided per node on memcg's lruvec first (shrink_node's
 * prepare_scan_control), before the walk.
 */
static bool shrink_subtree(struct msim__lru_host *lh, struct msim_memcg *memcg,
			   struct msim_scan_control *sc, unsigned long start)
{
	unsigned int may_deactivate[MSIM_MAX_NODES];
	struct msim_memcg *iter;

	for (unsigned int nid = 0; nid < lh->nr_nodes; nid++) {
		struct msim__lru_vec *target = msim__lru_vec(lh, memcg, nid);

		if (target)
			prepare_scan_control(target, sc);
		may_deactivate[nid] = sc->may_deactivate;
	}
	for (iter = msim_mem_cgroup_iter(memcg, NULL); iter;
	     iter = msim_mem_cgroup_iter(memcg, iter)) {
		for (unsigned int nid = 0; nid < lh->nr_nodes; nid++) {
			struct msim__lru_vec *lv = msim__lru_vec(lh, iter, nid);

			sc->may_deactivate = may_deactivate[nid];
			if (lv)
				shrink_lru_vec(lv, sc);
			if (sc->shrink_slab)
				sc->shrink_slab(iter, nid, sc->priority, sc->shrink_slab_arg);
		}
		if (sc->nr_reclaimed - start >= sc->nr_to_reclaim) {
			msim_mem_cgroup_iter_break(memcg, iter);
			return true;
		}
	}
	return false;
}

/*
 * kernel: do_try_to_free_pages(): priorities DEF_PRIORITY..0 until the target is
 * reached, then snapshot_refaults() per node; when nothing was reclaimed and an
 * active list was left alone (its statistics said it was small enough), once
 * more from DEF_PRIORITY with force_deactivate (a cgroup may have all its pages
 * on one list).
 */
static void do_try_to_free_pages(struct msim__lru_host *lh, struct msim_memcg *memcg,
				 struct msim_scan_control *sc, unsigned long start)
{
	for (;;) {
		for (int prio = MSIM_DEF_PRIORITY; prio >= 0; prio--) {
			sc->priority = prio;
			if (shrink_subtree(lh, memcg, sc, start))
				break;
		}
		for (unsigned int nid = 0; nid < lh->nr_nodes; nid++) {
			struct msim__lru_vec *target = msim__lru_vec(lh, memcg, nid);

			if (target)
				snapshot_refaults(target);
		}
		if (sc->nr_reclaimed != start || !sc->skipped_deactivate)
			return;
		sc->force_deactivate = true;
		sc->skipped_deactivate = false;
	}
}

unsigned long msim_try_to_free_mem_cgroup_pages(struct msim_memcg *memcg, unsigned long nr_pages,
						struct msim_scan_control *sc)
{
	struct msim__lru_host *lh = memcg ? msim__lru_host(msim_memcg_host(memcg)) : NULL;
	struct msim_scan_control local;
	unsigned long start;

	if (!lh)
		return 0;
	if (!sc) {
		msim_scan_control_init(&local);
		sc = &local;
	}
	sc->nr_to_reclaim = nr_pages > MSIM_SWAP_CLUSTER_MAX ? nr_pages : MSIM_SWAP_CLUSTER_MAX;
	sc->target_mem_cgroup = memcg;
	sc->force_deactivate = false;
	sc->skipped_deactivate = false;
	start = sc->nr_reclaimed;
	do_try_to_free_pages(lh, memcg, sc, start);
	return sc->nr_reclaimed - start;
}
