/* SPDX-License-Identifier: MIT */
/*
 * ws_scn.h - helpers shared by the workingset race scenarios
 * (scenarios/workingset_*.c): a host with the workingset layer, pages read
 * into a page cache as a memcg, and evictions that leave shadow entries.
 */
#ifndef MSIM_WS_SCN_H
#define MSIM_WS_SCN_H

#include "lru_scn.h"

/* rstat without the periodic flush, then the workingset layer (lru, list_lru with it). */
static inline int ws_scn_init(struct msim *m)
{
	char err[256];
	int ret = rstat_scn_init(m);

	return ret ? ret : msim_workingset_attach(m, err, sizeof(err));
}

/* Read pages [first, first + n) of file as memcg's, on node 0; 0 or the first error. */
static inline int ws_scn_read(struct msim_address_space *file, unsigned long first,
			      unsigned long n, struct msim_memcg *memcg)
{
	for (unsigned long i = first; i < first + n; i++) {
		int ret = msim_filemap_read(file, i, memcg, 0, false);

		if (ret < 0)
			return ret;
	}
	return 0;
}

/* The folio resident at index of file, or NULL (a shadow, or nothing). */
static inline struct msim_folio *ws_scn_folio(struct msim_address_space *file, unsigned long index)
{
	void *e;

	msim_rcu_read_lock();
	e = msim_xa_load(msim_mapping_i_pages(file), index);
	msim_rcu_read_unlock();
	return e && !msim_xa_is_value(e) ? e : NULL;
}

/* memcg's shadow nodes on node 0 (list_lru_count_one). */
static inline long ws_scn_shadow_nodes(struct msim *m, struct msim_memcg *memcg)
{
	return (long)msim_list_lru_count_one(msim_workingset_shadow_nodes(m), 0, memcg);
}

#endif
