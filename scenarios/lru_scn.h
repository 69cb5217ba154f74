/* SPDX-License-Identifier: MIT */
/*
 * lru_scn.h - helpers shared by the LRU race scenarios (uncharge_after_offline.c,
 * lru_reparent_vs_isolate.c): a host with the LRU layer, charged folios on an
 * LRU, and what is listed on an lruvec counted by walking its lists (not read
 * from the sizes the lists are checked against).
 */
#ifndef MSIM_LRU_SCN_H
#define MSIM_LRU_SCN_H

#include <memcgsim/introspect.h>

#include "rstat_scn.h"

/* rstat without the periodic flush, then the lru layer (objcg with it). */
static inline int lru_scn_init(struct msim *m)
{
	char err[256];
	int ret = rstat_scn_init(m);

	return ret ? ret : msim_lru_attach(m, err, sizeof(err));
}

/* lru_scn_init, then root -> p -> c. */
static inline int lru_scn_tree(struct msim *m, struct msim_memcg **p, struct msim_memcg **c)
{
	int ret = lru_scn_init(m);

	if (!ret)
		ret = msim_memcg_create(msim_root_mem_cgroup(m), "p", p);
	return ret ? ret : msim_memcg_create(*p, "c", c);
}

/* A folio of node 0, zone NORMAL, charged to memcg and added to its LRU; NULL on error. */
static inline struct msim_folio *lru_scn_folio(struct msim_memcg *memcg,
					       enum msim_folio_type type, unsigned int order)
{
	struct msim_folio *f = msim_folio_alloc(msim_memcg_host(memcg), type, order, 0,
						MSIM_ZONE_NORMAL);

	if (!f)
		return NULL;
	if (msim_mem_cgroup_charge(f, memcg, MSIM_GFP_KERNEL)) {
		msim_folio_put(f);
		return NULL;
	}
	msim_folio_add_lru(f);
	return f;
}

static inline struct msim_lruvec *lru_scn_lruvec(struct msim_memcg *memcg)
{
	return msim_mem_cgroup_lruvec(msim_memcg_host(memcg), memcg, 0);
}

/* Pages on the evictable lists of (memcg, node 0), counted by walking them. */
static inline long lru_scn_listed_pages(struct msim_memcg *memcg)
{
	struct msim_lruvec *lv = lru_scn_lruvec(memcg);
	unsigned long pages;
	long total = 0;

	for (unsigned int lru = 0; lru < MSIM_LRU_UNEVICTABLE; lru++) {
		msim_lruvec_nr_folios(lv, (enum msim_lru_list)lru, &pages);
		total += (long)pages;
	}
	for (unsigned int gen = 0; gen < MSIM_MAX_NR_GENS; gen++)
		for (unsigned int type = 0; type < MSIM_ANON_AND_FILE; type++)
			for (unsigned int z = 0; z < MSIM_MAX_NR_ZONES; z++) {
				msim_lru_gen_nr_folios(lv, gen, type, (enum msim_zone_type)z,
						       &pages);
				total += (long)pages;
			}
	return total;
}

/* lruvec_lru_size() over the evictable lists and every zone (mz->lru_zone_size). */
static inline long lru_scn_zone_size(struct msim_memcg *memcg)
{
	long total = 0;

	for (unsigned int lru = 0; lru < MSIM_LRU_UNEVICTABLE; lru++)
		total += (long)msim_lruvec_lru_size(lru_scn_lruvec(memcg), (enum msim_lru_list)lru,
						    MSIM_MAX_NR_ZONES - 1);
	return total;
}

/* lrugen->nr_pages over every generation, type and zone (MGLRU's own size). */
static inline long lru_scn_gen_pages(struct msim_memcg *memcg)
{
	long total = 0;

	for (unsigned int gen = 0; gen < MSIM_MAX_NR_GENS; gen++)
		for (unsigned int type = 0; type < MSIM_ANON_AND_FILE; type++)
			for (unsigned int z = 0; z < MSIM_MAX_NR_ZONES; z++)
				total += msim_lru_gen_nr_pages(lru_scn_lruvec(memcg), gen, type,
							       (enum msim_zone_type)z);
	return total;
}

/*
 * The LRU statistics NR_INACTIVE_ANON .. NR_UNEVICTABLE of (memcg, node 0), local
 * (this memcg's own): raw, and as lruvec_page_state_local() reads each (clamped
 * at 0), which is what count_shadow_nodes() adds up under thread 000 patch 1.
 */
static inline long lru_scn_local_raw(struct msim_memcg *memcg)
{
	long sum = 0;

	for (unsigned int lru = 0; lru < MSIM_NR_LRU_LISTS; lru++)
		sum += msim_lruvec_stat_raw(lru_scn_lruvec(memcg), MSIM_STAT_LOCAL,
					    (enum msim_stat_item)(MSIM_NR_INACTIVE_ANON + lru));
	return sum;
}

static inline long lru_scn_local_read(struct msim_memcg *memcg)
{
	long sum = 0;

	for (unsigned int lru = 0; lru < MSIM_NR_LRU_LISTS; lru++)
		sum += (long)msim_lruvec_page_state_local(
			lru_scn_lruvec(memcg), (enum msim_stat_item)(MSIM_NR_INACTIVE_ANON + lru));
	return sum;
}

/* Run t, letting grace periods end whenever it waits for one (rmdir's synchronize_rcu). */
static inline int lru_scn_run_with_rcu(struct msim *m, struct msim_task *t)
{
	int ret;

	while ((ret = msim_run_task(m, t)) == -EDEADLK)
		if (!msim_rcu_step(m))
			return -EDEADLK;
	return ret;
}

#endif
