/* SPDX-License-Identifier: MIT */
/*
 * test_lru_util.h - shared by the LRU tests: hosts with the lru layer, charged
 * folios on their LRU, and the accounting invariants checked exactly.
 */
#ifndef MSIM_TESTS_LRU_UTIL_H
#define MSIM_TESTS_LRU_UTIL_H

#include "unit_util.h"

#include <memcgsim/lru.h>
#include <memcgsim/introspect.h>

/* A deterministic host (4 CPUs) of the LRU kind and variant given, with the lru layer. */
static inline struct msim *lru_host(unsigned int nodes, enum msim_lru_kind kind,
				    enum msim_lru_reparent reparent)
{
	struct msim_config cfg = unit_config(4, nodes);
	struct msim *m;
	char err[256];

	cfg.lru = kind;
	assert_int_equal(msim_variant_set_value(&cfg.variants, "lru-reparent", reparent), 0);
	m = unit_host_cfg(&cfg);
	assert_int_equal(msim_lru_attach(m, err, sizeof(err)), 0);
	return m;
}

/* A folio charged to memcg and added to its LRU; NORMAL zone. */
static inline struct msim_folio *lru_folio(struct msim_memcg *memcg, enum msim_folio_type type,
					   unsigned int order, unsigned int nid)
{
	struct msim_folio *f = msim_folio_alloc(msim_memcg_host(memcg), type, order, nid,
						MSIM_ZONE_NORMAL);

	assert_non_null(f);
	assert_int_equal(msim_mem_cgroup_charge(f, memcg, MSIM_GFP_KERNEL), 0);
	msim_folio_add_lru(f);
	return f;
}

static inline struct msim_lruvec *lru_lruvec(struct msim_memcg *memcg, unsigned int nid)
{
	struct msim_lruvec *lruvec = msim_mem_cgroup_lruvec(msim_memcg_host(memcg), memcg, nid);

	assert_non_null(lruvec);
	return lruvec;
}

/* Classic: the pages listed on each evictable list equal its lru_zone_size sum. */
static inline void assert_lists_match_sizes(struct msim_lruvec *lruvec)
{
	for (unsigned int lru = 0; lru < MSIM_LRU_UNEVICTABLE; lru++) {
		unsigned long pages;

		msim_lruvec_nr_folios(lruvec, lru, &pages);
		assert_int_equal(pages, msim_lruvec_lru_size(lruvec, lru, MSIM_MAX_NR_ZONES - 1));
	}
}

/* MGLRU: the pages listed in every generation equal lrugen->nr_pages. */
static inline unsigned long assert_gens_match_nr_pages(struct msim_lruvec *lruvec)
{
	unsigned long total = 0;

	for (unsigned int gen = 0; gen < MSIM_MAX_NR_GENS; gen++)
		for (unsigned int type = 0; type < MSIM_ANON_AND_FILE; type++)
			for (unsigned int z = 0; z < MSIM_MAX_NR_ZONES; z++) {
				unsigned long pages;

				msim_lru_gen_nr_folios(lruvec, gen, type, z, &pages);
				assert_int_equal((long)pages,
						 msim_lru_gen_nr_pages(lruvec, gen, type, z));
				total += pages;
			}
	return total;
}

/* The lruvec's hierarchical statistic after a forced flush of everything. */
static inline unsigned long lru_stat(struct msim_lruvec *lruvec, enum msim_stat_item idx)
{
	msim_mem_cgroup_flush_stats_forced(NULL);
	return msim_lruvec_page_state(lruvec, idx);
}

#endif /* MSIM_TESTS_LRU_UTIL_H */
