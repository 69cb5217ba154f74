/* SPDX-License-Identifier: MIT */
/*
 * mglru_evict.c - MGLRU's reclaim in the shape of mm/vmscan.c's lru_gen part:
 * lru_gen_shrink_lruvec (batches of one type, file first), evict_folios
 * (isolate_folios: sort_folio's protection, isolate_folio; the rejected
 * survivors made active), and lru_gen_set_refs for folio_check_references.
 *
 * A batch once isolated goes through the reclaim both LRU kinds share
 * (msim__reclaim_isolated, vmscan.c), which calls back here for the survivors;
 * the generations themselves (add, delete, aging, tiers) are mglru.c's.
 */
#include "lru/lru_internal.h"

/*
 * kernel 6.14: lru_gen_set_refs() for a mapped folio found young in eviction:
 * the first time PG_referenced (keep it), then PG_workingset with the other refs
 * flags cleared (activate).
 */
enum msim_reclaim_verdict msim__lru_gen_set_refs(struct msim_folio *folio)
{
	if (!msim__folio_test(folio, MSIM__PG_REFERENCED) &&
	    !msim__folio_test(folio, MSIM__PG_WORKINGSET)) {
		msim__folio_set_refs_counter(folio, 0);
		msim__folio_set(folio, MSIM__PG_REFERENCED);
		return MSIM_RECLAIM_KEEP;
	}
	msim__folio_set_refs_counter(folio, 0);
	msim__folio_clear(folio, MSIM__PG_REFERENCED);
	msim__folio_set(folio, MSIM__PG_WORKINGSET);
	return MSIM_RECLAIM_ACTIVATE;
}

static long lru_gen_type_pages(const struct msim__lru_vec *lv, unsigned int type)
{
	long pages = 0;

	for (unsigned int g = 0; g < MSIM_MAX_NR_GENS; g++)
		for (unsigned int z = 0; z < MSIM_MAX_NR_ZONES; z++)
			pages += lv->lrugen.nr_pages[g][type][z];
	return pages;
}

/*
 * kernel: sort_folio()'s protection (lock held): a folio whose tier is above
 * tier_idx, or whose refs are full (6.12: refs == BIT(LRU_REFS_WIDTH); 6.14:
 * every refs flag and PG_workingset, the workingset lazily promoted), moves to
 * the next generation (folio_inc_gen) and counts as protected at its tier
 * (6.14: not the lazy promotion).
 */
static bool lru_gen_sort_folio(struct msim__lru_vec *lv, struct msim_folio *folio, int tier_idx)
{
	bool v6_12 = lv->lh->mglru_6_12, ws = msim__folio_test(folio, MSIM__PG_WORKINGSET);
	int refs = msim__folio_lru_refs(folio), full = 1 << MSIM__LRU_REFS_WIDTH;
	unsigned int tier = msim__lru_tier_from_refs(lv->lh, refs, ws);
	bool lazy = !v6_12 && refs + ws == full + 1;

	if ((int)tier <= tier_idx && !(v6_12 && refs == full) && !lazy)
		return false;
	msim__lru_gen_inc_gen(lv, folio, !v6_12);
	if (!lazy)
		msim__lru_gen_count_protected(lv, msim__folio_type(folio), tier,
					      msim_folio_nr_pages(folio));
	return true;
}

/*
 * kernel: isolate_folio() (lock held): claimed off the LRU; refs without
 * PG_referenced are stale and cleared (6.12: folio_clear_lru_refs, PG_workingset
 * included; 6.14: the counter only); 6.12 then clears PG_referenced for
 * shrink_folio_list. A busy folio goes back to the head.
 */
static bool lru_gen_take(struct msim__lru_vec *lv, struct msim_folio *folio,
			 struct msim_list_head *src, struct msim_list_head *dst)
{
	if (!msim__isolate_claim(folio)) {
		msim_list_move(&folio->lru, src);
		return false;
	}
	if (!msim__folio_test(folio, MSIM__PG_REFERENCED)) {
		msim__folio_set_refs_counter(folio, 0);
		if (lv->lh->mglru_6_12)
			msim__folio_clear(folio, MSIM__PG_WORKINGSET);
	}
	if (lv->lh->mglru_6_12)
		msim__folio_clear(folio, MSIM__PG_REFERENCED);
	msim__lru_gen_del_folio(lv, folio, true);
	msim_list_add(&folio->lru, dst);
	return true;
}

#define MSIM__MAX_LRU_BATCH (MSIM__MIN_LRU_BATCH * 64)

/*
 * kernel: isolate_folios() -> get_tier_idx() + scan_folios() on the oldest
 * generation of type (lock held), zones from the highest: each folio is sorted
 * (protected) or isolated, until MIN_LRU_BATCH pages are isolated or
 * MAX_LRU_BATCH folios looked at; an empty oldest generation is then retired
 * (try_to_inc_min_seq). Aging comes first when only MIN_NR_GENS are left
 * (should_run_aging: both are active).
 */
static unsigned long lru_gen_isolate(struct msim__lru_vec *lv, unsigned int type,
				     struct msim_list_head *dst, unsigned long *nr_scanned)
{
	unsigned long scan = 0, taken = 0, remaining = MSIM__MAX_LRU_BATCH;
	unsigned int gen;
	int tier_idx;

	if (msim__get_nr_gens(lv, type) <= MSIM_MIN_NR_GENS)
		msim__lru_gen_inc_max_seq_locked(lv);
	tier_idx = msim__lru_gen_tier_idx(lv, type);
	gen = msim_lru_gen_from_seq(msim_quiet_load(&lv->lrugen.min_seq[type], MSIM_RELAXED));
	for (int z = MSIM_MAX_NR_ZONES - 1; z >= 0 && remaining && taken < MSIM__MIN_LRU_BATCH; z--) {
		struct msim_list_head *src = &lv->lrugen.folios[gen][type][z];

		while (remaining && taken < MSIM__MIN_LRU_BATCH && !msim_list_empty(src)) {
			struct msim_folio *folio = msim__lru_to_folio(src);
			long nr = msim_folio_nr_pages(folio);

			scan += (unsigned long)nr;
			remaining--;
			if (!lru_gen_sort_folio(lv, folio, tier_idx) &&
			    lru_gen_take(lv, folio, src, dst))
				taken += (unsigned long)nr;
		}
	}
	msim__lru_gen_try_inc_min_seq_locked(lv, type);
	*nr_scanned += scan;
	return taken;
}

/*
 * kernel: evict_folios() after shrink_folio_list(): the folios that were not
 * freed are not put back into the oldest generation. 6.12: each loses its refs
 * and PG_workingset and becomes active (the youngest generation). 6.14: each
 * whose lru_gen_folio_seq() (clamped to min_seq) is min_seq[type] loses its refs
 * and becomes active: a file folio neither active nor workingset always, and
 * with fewer than MAX_NR_GENS generations also a workingset, anon or active one
 * whose generation would be below the oldest. (The kernel first retries
 * once the clean, unmapped ones that may have missed
 * folio_rotate_reclaimable(); the model has no writeback, so a folio kept here
 * was kept by its owner, as it would be on the retry.)
 */
void msim__lru_gen_reject_survivors(struct msim__lru_vec *lv, struct msim_list_head *list)
{
	for (struct msim_list_head *p = list->next; p != list; p = p->next) {
		struct msim_folio *folio = msim_container_of(p, struct msim_folio, lru);
		unsigned int type = msim__folio_type(folio);

		/* 6.14: "don't add rejected folios to the oldest generation" */
		if (!lv->lh->mglru_6_12 && msim__lru_gen_folio_seq(lv, folio, false) !=
					       msim__lru_gen_min_seq(lv, type))
			continue;
		msim__folio_set_refs_counter(folio, 0);
		msim__folio_clear(folio, MSIM__PG_REFERENCED);
		if (lv->lh->mglru_6_12)
			msim__folio_clear(folio, MSIM__PG_WORKINGSET);
		msim__folio_set(folio, MSIM__PG_ACTIVE);
	}
}

/* kernel: evict_folios() for one batch of type. Returns the pages freed. */
static unsigned long lru_gen_evict(struct msim__lru_vec *lv, unsigned int type,
				   struct msim_scan_control *sc, unsigned long *nr_scanned)
{
	struct msim_list_head list, free;
	unsigned long scanned = 0, taken;

	msim_init_list_head(&list);
	msim_init_list_head(&free);
	msim__lru_vec_lock(lv);
	taken = lru_gen_isolate(lv, type, &list, &scanned);
	msim__lru_vec_unlock(lv);
	sc->nr_scanned += scanned;
	*nr_scanned += scanned;
	if (!taken)
		return 0;
	return msim__reclaim_isolated(lv, &list, &free, sc, type == 1, scanned);
}

/*
 * kernel: lru_gen_shrink_lruvec() with get_type_to_scan() reduced to "file
 * first, anon when file is empty and swap is allowed": batches until the target
 * is reached or lru size >> priority pages were looked at.
 */
unsigned long msim__lru_gen_shrink_lruvec(struct msim__lru_vec *lv, struct msim_scan_control *sc)
{
	unsigned long reclaimed = 0, scanned = 0, budget;
	long file, anon;

	msim__lru_vec_lock(lv);
	file = lru_gen_type_pages(lv, 1);
	anon = sc->may_swap ? lru_gen_type_pages(lv, 0) : 0;
	msim__lru_vec_unlock(lv);
	budget = (unsigned long)(file + anon) >> sc->priority;
	while (reclaimed < sc->nr_to_reclaim && scanned < budget) {
		unsigned int type;

		msim__lru_vec_lock(lv);
		file = lru_gen_type_pages(lv, 1);
		anon = sc->may_swap ? lru_gen_type_pages(lv, 0) : 0;
		msim__lru_vec_unlock(lv);
		if (file <= 0 && anon <= 0)
			break;
		type = file > 0 ? 1 : 0;
		reclaimed += lru_gen_evict(lv, type, sc, &scanned);
	}
	return reclaimed;
}
