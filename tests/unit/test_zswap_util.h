/* SPDX-License-Identifier: MIT */
/*
 * test_zswap_util.h - shared by the zswap tests: a host with zswap attached, a
 * workload of anon pages (struct msim_swap_pte), and reads of what the pool
 * and the memcg statistics hold.
 */
#ifndef MSIM_TESTS_ZSWAP_UTIL_H
#define MSIM_TESTS_ZSWAP_UTIL_H

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "unit_util.h"

#include <memcgsim/zswap.h>

#define ZT_PAGE 4096UL

/* A deterministic 2-CPU host with zswap (params p, or defaults), root count variant rc. */
static inline struct msim *zt_host(const struct msim_zswap_params *p,
				   enum msim_zswap_root_count rc, unsigned int nodes)
{
	struct msim_config cfg = unit_config(2, nodes);
	struct msim *m;
	char err[256] = "";

	assert_int_equal(msim_variant_set_value(&cfg.variants, "zswap-root-count", rc), 0);
	m = unit_host_cfg(&cfg);
	if (msim_zswap_attach(m, p, err, sizeof(err)))
		fail_msg("zswap attach: %s", err);
	return m;
}

/* n pages touched in memcg on node nid. */
static inline void zt_touch(struct msim_swap_pte *pte, unsigned int n, struct msim_memcg *memcg,
			    unsigned int nid)
{
	for (unsigned int i = 0; i < n; i++) {
		msim_swap_pte_init(&pte[i]);
		assert_int_equal(msim_zswap_anon_fault(&pte[i], memcg, nid), 0);
	}
}

static inline unsigned int zt_count_swapped(const struct msim_swap_pte *pte, unsigned int n)
{
	unsigned int k = 0;

	for (unsigned int i = 0; i < n; i++)
		k += pte[i].slot >= 0;
	return k;
}

static inline void zt_free_all(struct msim *m, struct msim_swap_pte *pte, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		msim_zswap_pte_free(m, &pte[i]);
}

/* Every stock drained (obj stocks, then the page stocks): page counters read exactly. */
static inline void zt_drain(struct msim *m)
{
	msim_obj_stock_drain_all(m);
	msim_drain_all_stock(msim_root_mem_cgroup(m));
}

/* memcg's memory.current in pages, stocks drained. */
static inline unsigned long zt_usage(struct msim_memcg *memcg)
{
	zt_drain(msim_memcg_host(memcg));
	return msim_page_counter_read(msim_memcg_page_counter(memcg));
}

/* A memcg statistic after a forced flush. */
static inline unsigned long zt_stat(struct msim_memcg *memcg, enum msim_stat_item idx)
{
	msim_do_mem_cgroup_flush_stats(memcg, true);
	return msim_memcg_page_state(memcg, idx);
}

/* A memcg event count after a forced flush. */
static inline unsigned long zt_events(struct msim_memcg *memcg, enum msim_memcg_event ev)
{
	msim_do_mem_cgroup_flush_stats(memcg, true);
	return msim_memcg_events(memcg, ev);
}

static inline struct msim_zswap_stats zt_stats(struct msim *m)
{
	struct msim_zswap_stats st;

	msim_zswap_stats(m, &st);
	return st;
}

#endif
