/* SPDX-License-Identifier: MIT */
/*
 * reparent.c - the LRU part of memcg_reparent_objcgs() (objcg.h): per node,
 * with objcg_lock, the dying memcg's lru_lock and its parent's held, the lists
 * and sizes move to the parent (mm/folio.c lru_reparent_memcg, mm/vmscan.c
 * lru_gen_reparent_memcg, max_lru_gen_memcg, recheck_lru_gen_max_memcg; newest).
 *
 * Classic: each list but LRU_UNEVICTABLE (which links nothing) is spliced onto
 * the parent's tail (the child's folios count as older), and every
 * lru_zone_size[zone][lru] of the child is added into the parent's through
 * mem_cgroup_update_lru_size(); the child's own array is left as it was, as in
 * the kernel. The lruvec statistics do not move: the parent's hierarchical
 * ones already include the child's (reparent_state_local moves the local ones
 * on cgroup v1).
 *
 * MGLRU: the parent was aged to MAX_NR_GENS generations before the locks
 * (prepare) and rechecked under them, so each live generation index of the
 * child is a live one of the parent: lrugen->folios[gen][type][zone] is spliced
 * onto the parent's list of the same index (its head: "child pages are colder"
 * is the kernel's comment; the index keeps folio->gen valid), nr_pages moves
 * with it, and lru_zone_size is copied as in the classic case.
 */
#include "lru/lru_internal.h"

static struct msim__lru_vec *node_lv(void *arg, struct msim_memcg *memcg, unsigned int nid)
{
	return msim__lru_vec(arg, memcg, nid);
}

/* kernel: max_lru_gen_memcg(parent, nid), before any lock. */
static void lru_reparent_prepare(struct msim_memcg *memcg, struct msim_memcg *parent,
				 unsigned int nid, void *arg)
{
	struct msim__lru_host *lh = arg;

	(void)memcg;
	if (lh->mglru)
		msim__max_lru_gen_memcg(node_lv(arg, parent, nid));
}

/*
 * kernel: reparent_locks(): the child's lru_lock (nested 1), then the parent's
 * (nested 2): two locks of one class, which the lock-order checker (lockdep.h)
 * accepts only with the kernel's nesting annotation.
 */
static void lru_reparent_lock(struct msim_memcg *memcg, struct msim_memcg *parent,
			      unsigned int nid, void *arg)
{
	msim_spin_lock_nested(&node_lv(arg, memcg, nid)->lru_lock, 1);
	msim_spin_lock_nested(&node_lv(arg, parent, nid)->lru_lock, 2);
}

static void lru_reparent_unlock(struct msim_memcg *memcg, struct msim_memcg *parent,
				unsigned int nid, void *arg)
{
	msim_spin_unlock(&node_lv(arg, parent, nid)->lru_lock);
	msim_spin_unlock(&node_lv(arg, memcg, nid)->lru_lock);
}

/* kernel: recheck_lru_gen_max_memcg(parent, nid): eviction may have retired one. */
static bool lru_reparent_recheck(struct msim_memcg *parent, unsigned int nid, void *arg)
{
	struct msim__lru_host *lh = arg;

	return !lh->mglru || msim__recheck_lru_gen_max_memcg(node_lv(arg, parent, nid));
}

/* Every lru_zone_size of child added into parent's (lruvec_reparent_lru's loop). */
static void lru_zone_sizes_add(struct msim__lru_vec *child, struct msim__lru_vec *parent)
{
	for (unsigned int lru = 0; lru < MSIM_NR_LRU_LISTS; lru++)
		for (unsigned int z = 0; z < MSIM_MAX_NR_ZONES; z++) {
			long size = msim__lru_zone_size_read(child, lru, (enum msim_zone_type)z);

			msim__mem_cgroup_update_lru_size(parent, lru, (enum msim_zone_type)z, size);
		}
}

static unsigned long list_pages(const struct msim_list_head *head)
{
	unsigned long pages = 0;

	for (const struct msim_list_head *p = head->next; p != head; p = p->next)
		pages += (unsigned long)msim_folio_nr_pages(
			msim_container_of(p, const struct msim_folio, lru));
	return pages;
}

/* kernel: lru_reparent_memcg(). */
static void lru_reparent_classic(struct msim__lru_vec *child, struct msim__lru_vec *parent)
{
	for (unsigned int lru = 0; lru < MSIM_LRU_UNEVICTABLE; lru++) {
		MSIM__LRU_COUNT(child->lh, reparented_pages, list_pages(&child->lists[lru]));
		msim_list_splice_tail_init(&child->lists[lru], &parent->lists[lru]);
	}
	lru_zone_sizes_add(child, parent);
}

/*
 * kernel: __lru_gen_reparent_memcg() for one (zone, type), in its v4 form: each
 * live generation of the child is spliced onto the tail of the parent's list
 * of the same index (the child's folios are taken to be colder than the
 * parent's), nr_pages moved with it. Where that index is active in one and not
 * the other (lru_gen_is_active), the pages' statistics move between
 * NR_ACTIVE_* and NR_INACTIVE_* on the child's lruvec, so that the parent's
 * hierarchical split matches the generation they now sit in and later
 * deletions from the parent count them out of the right item.
 */
static void lru_gen_reparent_one(struct msim__lru_vec *child, struct msim__lru_vec *parent,
				 enum msim_zone_type zone, unsigned int type)
{
	struct msim__lru_gen *c = &child->lrugen, *p = &parent->lrugen;
	unsigned int nr_gens = msim__get_nr_gens(child, type);
	enum msim_lru_list lru = (enum msim_lru_list)(type * MSIM_LRU_INACTIVE_FILE);

	for (unsigned int i = 0; i < nr_gens; i++) {
		unsigned int gen = msim_lru_gen_from_seq(msim__lru_gen_max_seq(child) - i);
		long nr = msim_quiet_load(&c->nr_pages[gen][type][zone], MSIM_RELAXED);
		bool c_active = msim__lru_gen_is_active(child, gen);

		msim_list_splice_tail_init(&c->folios[gen][type][zone], &p->folios[gen][type][zone]);
		msim_store_at(&c->nr_pages[gen][type][zone], 0, MSIM_RELAXED, "lru_gen.nr_pages");
		msim_store_at(&p->nr_pages[gen][type][zone],
			      msim_quiet_load(&p->nr_pages[gen][type][zone], MSIM_RELAXED) + nr,
			      MSIM_RELAXED, "lru_gen.nr_pages");
		if (nr && c_active != msim__lru_gen_is_active(parent, gen)) {
			msim__update_lru_size_stats(child, lru + (c_active ? MSIM_LRU_ACTIVE : 0), zone,
						    -nr);
			msim__update_lru_size_stats(child, lru + (c_active ? 0 : MSIM_LRU_ACTIVE), zone,
						    nr);
		}
		MSIM__LRU_COUNT(child->lh, reparented_pages, (unsigned long)nr);
	}
}

/* kernel: lru_gen_reparent_memcg(). */
static void lru_gen_reparent(struct msim__lru_vec *child, struct msim__lru_vec *parent)
{
	for (unsigned int z = 0; z < MSIM_MAX_NR_ZONES; z++)
		for (unsigned int type = 0; type < MSIM_ANON_AND_FILE; type++)
			lru_gen_reparent_one(child, parent, (enum msim_zone_type)z, type);
	lru_zone_sizes_add(child, parent);
}

static void lru_reparent(struct msim_memcg *memcg, struct msim_memcg *parent, unsigned int nid,
			 void *arg)
{
	struct msim__lru_host *lh = arg;
	struct msim__lru_vec *child = node_lv(arg, memcg, nid);
	struct msim__lru_vec *plv = node_lv(arg, parent, nid);

	if (lh->mglru)
		lru_gen_reparent(child, plv);
	else
		lru_reparent_classic(child, plv);
}

const struct msim_objcg_reparent_ops msim__lru_reparent_ops = {
	.prepare = lru_reparent_prepare,
	.lock = lru_reparent_lock,
	.recheck = lru_reparent_recheck,
	.reparent = lru_reparent,
	.unlock = lru_reparent_unlock,
};
