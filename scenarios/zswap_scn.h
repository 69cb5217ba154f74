/* SPDX-License-Identifier: MIT */
/*
 * zswap_scn.h - helpers shared by the zswap race scenarios (scenarios/zswap_*.c):
 * a host with zswap attached, workload pages, and runs that let grace periods end.
 */
#ifndef MSIM_ZSWAP_SCN_H
#define MSIM_ZSWAP_SCN_H

#include "lru_scn.h"
#include "shrinker_scn.h"

/* rstat without the periodic flush, then zswap with params p (NULL: defaults). */
static inline int zswap_scn_init(struct msim *m, const struct msim_zswap_params *p)
{
	char err[256];
	int ret = rstat_scn_init(m);

	return ret ? ret : msim_zswap_attach(m, p, err, sizeof(err));
}

/* n pages touched in memcg on node 0; 0 or the first fault's error. */
static inline int zswap_scn_touch(struct msim_swap_pte *pte, unsigned int n,
				  struct msim_memcg *memcg)
{
	for (unsigned int i = 0; i < n; i++) {
		int ret;

		msim_swap_pte_init(&pte[i]);
		if ((ret = msim_zswap_anon_fault(&pte[i], memcg, 0)))
			return ret;
	}
	return 0;
}

static inline void zswap_scn_free(struct msim *m, struct msim_swap_pte *pte, unsigned int n)
{
	for (unsigned int i = 0; pte && i < n; i++)
		msim_zswap_pte_free(m, &pte[i]);
}

static inline struct msim_zswap_stats zswap_scn_stats(struct msim *m)
{
	struct msim_zswap_stats st;

	msim_zswap_stats(m, &st);
	return st;
}

#endif
