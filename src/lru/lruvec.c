/* SPDX-License-Identifier: MIT */
/*
 * lruvec.c - putting folios on and off an lruvec's lists, and finding (and
 * locking) the lruvec a folio is on (include/linux/mm_inline.h lruvec_add_folio,
 * lruvec_add_folio_tail, lruvec_del_folio, folio_lru_list; mm/memcontrol.c
 * folio_lruvec_lock and relock, newest).
 *
 * The invariant the add/del paths keep (classic): under lru_lock, the pages of
 * the folios on lists[lru] in zone z equal lru_zone_size[z][lru]
 * (LRU_UNEVICTABLE: the unevictable folios, which no list links, as in the
 * kernel where mlock_count overlays folio->lru). MGLRU keeps the same with
 * lrugen->nr_pages per generation (mglru.c).
 */
#include <errno.h>

#include "lru/lru_internal.h"

enum msim_lru_list msim__folio_lru_list(const struct msim_folio *folio)
{
	enum msim_lru_list lru;

	if (msim__folio_test(folio, MSIM__PG_UNEVICTABLE))
		return MSIM_LRU_UNEVICTABLE;
	lru = folio->type == MSIM_FOLIO_FILE ? MSIM_LRU_INACTIVE_FILE : MSIM_LRU_INACTIVE_ANON;
	if (msim__folio_test(folio, MSIM__PG_ACTIVE))
		lru += MSIM_LRU_ACTIVE;
	return lru;
}

/* kernel: lruvec_add_folio(): sizes first, then the list head (the young end). */
void msim__lruvec_add_folio(struct msim__lru_vec *lv, struct msim_folio *folio)
{
	enum msim_lru_list lru;

	if (msim__lru_gen_add_folio(lv, folio, false))
		return;
	lru = msim__folio_lru_list(folio);
	msim__update_lru_size(lv, lru, folio->zone, msim_folio_nr_pages(folio));
	if (lru != MSIM_LRU_UNEVICTABLE)
		msim_list_add(&folio->lru, &lv->lists[lru]);
}

/* kernel: lruvec_add_folio_tail(): the old end, next to be reclaimed. */
void msim__lruvec_add_folio_tail(struct msim__lru_vec *lv, struct msim_folio *folio)
{
	enum msim_lru_list lru;

	if (msim__lru_gen_add_folio(lv, folio, true))
		return;
	lru = msim__folio_lru_list(folio);
	msim__update_lru_size(lv, lru, folio->zone, msim_folio_nr_pages(folio));
	if (lru != MSIM_LRU_UNEVICTABLE)
		msim_list_add_tail(&folio->lru, &lv->lists[lru]);
}

/* kernel: lruvec_del_folio(): off the list, then the sizes. */
void msim__lruvec_del_folio(struct msim__lru_vec *lv, struct msim_folio *folio)
{
	enum msim_lru_list lru;

	if (msim__lru_gen_del_folio(lv, folio, false))
		return;
	lru = msim__folio_lru_list(folio);
	if (lru != MSIM_LRU_UNEVICTABLE)
		msim_list_del_init(&folio->lru);
	msim__update_lru_size(lv, lru, folio->zone, -msim_folio_nr_pages(folio));
}

/* folio_memcg(), the root's standing in for an uncharged folio (mem_cgroup_lruvec(NULL)). */
static struct msim_memcg *folio_lru_memcg(const struct msim_folio *folio)
{
	struct msim_memcg *memcg = msim_folio_memcg(folio);

	return memcg ? memcg : msim_root_mem_cgroup(folio->lh->m);
}

struct msim__lru_vec *msim__folio_lru_vec(const struct msim_folio *folio)
{
	return msim__lru_vec(folio->lh, folio_lru_memcg(folio), folio->nid);
}

/*
 * kernel: folio_lruvec_lock() (newest): an offline may move the folio between
 * the lookup and the lock; the mover holds this lock while it repoints the
 * objcg, so once locked, an unchanged folio_memcg() is stable. Variant
 * lruvec-recheck=off (a demonstration) returns the lruvec looked up unchecked.
 */
struct msim__lru_vec *msim__folio_lru_vec_lock(struct msim_folio *folio)
{
	struct msim__lru_vec *lv;

	msim_rcu_read_lock();
	for (;;) {
		lv = msim__folio_lru_vec(folio);
		msim_spin_lock(&lv->lru_lock);
		if (lv->memcg == folio_lru_memcg(folio) || !folio->lh->lruvec_recheck)
			return lv;
		msim_spin_unlock(&lv->lru_lock);
		MSIM__LRU_COUNT(folio->lh, lruvec_relock_retries, 1);
		/*
		 * The retry reads memcg_data, then the objcg's memcg through a shim
		 * (7.0: the memcg's slot, fixed while it lives) before the lock's.
		 * memcg_data changes only at charge and uncharge, ordered against
		 * this holder of a reference by the count's shims: no note.
		 */
		msim_yield_access("lru.lruvec.recheck", &folio->memcg_data, MSIM_ACCESS_LOAD);
	}
}

/*
 * kernel: folio_lruvec_relock_irq(): batch callers keep the lock across folios.
 * lruvec-recheck=off keeps it for any folio of the node (the memcg unchecked).
 */
struct msim__lru_vec *msim__folio_lru_vec_relock(struct msim_folio *folio,
						 struct msim__lru_vec *locked)
{
	if (locked) {
		if (locked->nid == folio->nid && (locked->memcg == folio_lru_memcg(folio) ||
						  !folio->lh->lruvec_recheck))
			return locked;
		msim__lru_vec_unlock(locked);
	}
	return msim__folio_lru_vec_lock(folio);
}

/* ---- public ---- */

struct msim_lruvec *msim_folio_lruvec(const struct msim_folio *folio)
{
	struct msim__lru_vec *lv = msim__folio_lru_vec(folio);

	return lv ? lv->stats : NULL;
}

struct msim_lruvec *msim_folio_lruvec_lock(struct msim_folio *folio)
{
	return msim__folio_lru_vec_lock(folio)->stats;
}

void msim_lruvec_lock(struct msim_lruvec *lruvec)
{
	msim__lru_vec_lock(msim__lru_vec_of(lruvec));
}

void msim_lruvec_unlock(struct msim_lruvec *lruvec)
{
	msim__lru_vec_unlock(msim__lru_vec_of(lruvec));
}

int msim_lruvec_add_folio(struct msim_lruvec *lruvec, struct msim_folio *folio)
{
	struct msim__lru_vec *lv = msim__lru_vec_of(lruvec);

	if (!lv || !folio)
		return -EINVAL;
	msim__lruvec_add_folio(lv, folio);
	return 0;
}

int msim_lruvec_add_folio_tail(struct msim_lruvec *lruvec, struct msim_folio *folio)
{
	struct msim__lru_vec *lv = msim__lru_vec_of(lruvec);

	if (!lv || !folio)
		return -EINVAL;
	msim__lruvec_add_folio_tail(lv, folio);
	return 0;
}

int msim_lruvec_del_folio(struct msim_lruvec *lruvec, struct msim_folio *folio)
{
	struct msim__lru_vec *lv = msim__lru_vec_of(lruvec);

	if (!lv || !folio)
		return -EINVAL;
	msim__lruvec_del_folio(lv, folio);
	return 0;
}

unsigned long msim_lruvec_for_each_folio(struct msim_lruvec *lruvec, enum msim_lru_list lru,
					 void (*fn)(struct msim_folio *folio, void *arg),
					 void *arg)
{
	struct msim__lru_vec *lv = msim__lru_vec_of(lruvec);
	struct msim_list_head *head, *p;
	unsigned long n = 0;

	if (!lv || (unsigned int)lru >= MSIM_NR_LRU_LISTS)
		return 0;
	head = &lv->lists[lru];
	msim__lru_vec_lock(lv);
	for (p = head->next; p != head; p = p->next, n++)
		if (fn)
			fn(msim_container_of(p, struct msim_folio, lru), arg);
	msim__lru_vec_unlock(lv);
	return n;
}

static void add_pages(struct msim_folio *folio, void *arg)
{
	*(unsigned long *)arg += (unsigned long)msim_folio_nr_pages(folio);
}

unsigned long msim_lruvec_nr_folios(struct msim_lruvec *lruvec, enum msim_lru_list lru,
				    unsigned long *nr_pages)
{
	unsigned long pages = 0;
	unsigned long n = msim_lruvec_for_each_folio(lruvec, lru, add_pages, &pages);

	if (nr_pages)
		*nr_pages = pages;
	return n;
}
