/* SPDX-License-Identifier: MIT */
/*
 * swap.c - folio LRU operations (mm/folio.c, formerly mm/swap.c): add,
 * activate, deactivate, rotate, mark_accessed, isolate, putback, and folio_put.
 *
 * The kernel queues most of these in per-CPU folio batches and applies them in
 * folio_batch_move_lru(); here each is applied at once, as if the batch were
 * drained right away (lru_add_drain). The claim protocol is the kernel's: a mover
 * other than lru_add first clears PG_lru (folio_test_clear_lru), which isolation
 * also needs, so a folio is moved by one party at a time; it holds a reference
 * meanwhile (the batch's), so a concurrent last folio_put cannot free it.
 */
#include <assert.h>

#include "lru/lru_internal.h"

typedef void (*lru_move_fn)(struct msim__lru_vec *lv, struct msim_folio *folio);

/*
 * kernel: lru_add(): an mlocked folio is not evictable (folio_evictable()) and
 * goes to LRU_UNEVICTABLE without PG_active; an evictable one loses a stale
 * PG_unevictable.
 */
void msim__lru_add(struct msim__lru_vec *lv, struct msim_folio *folio)
{
	msim__folio_clear(folio, MSIM__PG_UNEVICTABLE);
	if (msim__folio_test(folio, MSIM__PG_MLOCKED)) {
		msim__folio_clear(folio, MSIM__PG_ACTIVE);
		msim__folio_set(folio, MSIM__PG_UNEVICTABLE);
	}
	msim__lruvec_add_folio(lv, folio);
}

void msim_folio_add_lru(struct msim_folio *folio)
{
	struct msim__lru_vec *lv;

	assert(!msim_folio_test_lru(folio) && "folio_add_lru of a folio on an LRU");
	lv = msim__folio_lru_vec_lock(folio);
	msim__lru_add(lv, folio);
	msim__folio_set_lru(folio);
	msim__lru_vec_unlock(lv);
}

/* kernel: folio_batch_move_lru() for one folio that is not being added. */
static void folio_move_lru(struct msim_folio *folio, lru_move_fn move)
{
	struct msim__lru_vec *lv;

	msim_folio_get(folio);
	if (msim__folio_test_clear_lru(folio)) {
		lv = msim__folio_lru_vec_lock(folio);
		move(lv, folio);
		msim__folio_set_lru(folio);
		msim__lru_vec_unlock(lv);
	}
	msim_folio_put(folio);
}

/* kernel: lru_activate(). */
static void lru_activate(struct msim__lru_vec *lv, struct msim_folio *folio)
{
	long nr = msim_folio_nr_pages(folio);

	if (msim__folio_test(folio, MSIM__PG_ACTIVE) || msim__folio_test(folio, MSIM__PG_UNEVICTABLE))
		return;
	msim__lruvec_del_folio(lv, folio);
	msim__folio_set(folio, MSIM__PG_ACTIVE);
	msim__lruvec_add_folio(lv, folio);
	msim_count_memcg_events(lv->memcg, MSIM_PGACTIVATE, nr);
}

void msim_folio_activate(struct msim_folio *folio)
{
	if (msim_folio_test_active(folio) || msim_folio_test_unevictable(folio) ||
	    !msim_folio_test_lru(folio))
		return;
	folio_move_lru(folio, lru_activate);
}

/* kernel: lru_deactivate(): to the inactive head (MGLRU: the generation of a new folio). */
static void lru_deactivate(struct msim__lru_vec *lv, struct msim_folio *folio)
{
	long nr = msim_folio_nr_pages(folio);

	if (msim__folio_test(folio, MSIM__PG_UNEVICTABLE) ||
	    !(msim__folio_test(folio, MSIM__PG_ACTIVE) || lv->lrugen.enabled))
		return;
	msim__lruvec_del_folio(lv, folio);
	msim__folio_clear(folio, MSIM__PG_ACTIVE);
	msim__folio_clear(folio, MSIM__PG_REFERENCED);
	msim__lruvec_add_folio(lv, folio);
	msim_count_memcg_events(lv->memcg, MSIM_PGDEACTIVATE, nr);
}

void msim_folio_deactivate(struct msim_folio *folio)
{
	if (msim_folio_test_unevictable(folio) ||
	    !(msim_folio_test_active(folio) || folio->lh->mglru))
		return;
	folio_move_lru(folio, lru_deactivate);
}

/* kernel: lru_move_tail(). */
static void lru_move_tail(struct msim__lru_vec *lv, struct msim_folio *folio)
{
	if (msim__folio_test(folio, MSIM__PG_UNEVICTABLE))
		return;
	msim__lruvec_del_folio(lv, folio);
	msim__folio_clear(folio, MSIM__PG_ACTIVE);
	msim__lruvec_add_folio_tail(lv, folio);
}

void msim_folio_rotate_reclaimable(struct msim_folio *folio)
{
	if (msim_folio_test_unevictable(folio) || !msim_folio_test_lru(folio))
		return;
	folio_move_lru(folio, lru_move_tail);
}

void msim_folio_mark_accessed(struct msim_folio *folio)
{
	if (folio->lh->mglru) {
		msim__lru_gen_inc_refs(folio);
		return;
	}
	if (!msim_folio_test_referenced(folio)) {
		msim__folio_set(folio, MSIM__PG_REFERENCED);
		return;
	}
	if (msim_folio_test_unevictable(folio) || msim_folio_test_active(folio))
		return;
	if (msim_folio_test_lru(folio))
		msim_folio_activate(folio);
	else
		msim__folio_set(folio, MSIM__PG_ACTIVE);  /* not listed yet: activated when added */
	msim__folio_clear(folio, MSIM__PG_REFERENCED);
}

bool msim_folio_isolate_lru(struct msim_folio *folio)
{
	struct msim__lru_vec *lv;

	if (!msim__folio_test_clear_lru(folio))
		return false;
	msim_folio_get(folio);
	lv = msim__folio_lru_vec_lock(folio);
	msim__lruvec_del_folio(lv, folio);
	msim__lru_vec_unlock(lv);
	return true;
}

void msim_folio_putback_lru(struct msim_folio *folio)
{
	msim_folio_add_lru(folio);
	msim_folio_put(folio);
}

/*
 * kernel: folio_put() -> __folio_put(): page_cache_release() takes a folio still
 * on an LRU off it (nobody else can claim it: every claimer holds a reference),
 * then mem_cgroup_uncharge() and the free.
 */
void msim_folio_put(struct msim_folio *folio)
{
	struct msim__lru_vec *lv;

	if (!msim__folio_put_testzero(folio))
		return;
	if (msim_folio_test_lru(folio)) {
		lv = msim__folio_lru_vec_lock(folio);
		msim__lruvec_del_folio(lv, folio);
		msim__folio_clear(folio, MSIM__PG_LRU);
		msim__lru_vec_unlock(lv);
	}
	msim__folio_release(folio);
}
