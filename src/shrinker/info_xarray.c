/* SPDX-License-Identifier: MIT */
/*
 * info_xarray.c - the xarray shrinker_info layout (thread 001's series): one
 * xarray of units per memcg and node, no container. A unit is inserted when the
 * memcg first gets a list on the shrinker's list_lru (an xarray insert, so there
 * is nothing to copy and no lock of its own); readers use load and ordered
 * iteration. The root memcg keeps every unit (the deferred counts of global
 * reclaim) and is the only memcg a registration visits.
 * kernel (thread 001 patches 1-2): mm/shrinker.c alloc/expand/free_shrinker_info,
 * shrinker_unit_install.
 *
 * Bytes: the xarray lives in mem_cgroup_per_node (nothing allocated for an empty
 * cgroup); its xa_nodes (576 bytes each) are charged by the xarray model.
 */
#include <errno.h>
#include <stdlib.h>

#include "shrinker/shrinker_internal.h"

static int xa_fill(struct msim__shr_host *h, struct msim__shr_pn *pn, unsigned long from,
		   unsigned long to)
{
	struct msim__unit *u;
	unsigned long i;
	int err = 0;

	for (i = from; i < to; i++) {
		u = msim__unit_alloc(h);
		if (!u)
			return -ENOMEM;
		msim_xa_store(&pn->xa, i, u, &err);
		if (err) {
			msim__unit_free(h, u);
			return err;
		}
		msim_quiet_fetch_add(&pn->nr_units, 1, MSIM_RELAXED);
	}
	return 0;
}

/* kernel (thread 001 patch 1): alloc_shrinker_info(), xa_init per node */
static int xa_alloc_node(struct msim__shr_host *h, struct msim__shr_memcg *sm, unsigned int nid,
			 int nr_max)
{
	struct msim__shr_pn *pn = &sm->pn[nid];

	msim_xa_init(h->m, &pn->xa, "shrinker_info_xa");
	if (!sm->is_root)
		return 0;
	pn->root_nr_max = nr_max;
	return xa_fill(h, pn, 0, (unsigned long)nr_max / MSIM_SHRINKER_UNIT_BITS);
}

/* kernel (thread 001 patch 1): free_shrinker_info(), units then xa_destroy */
static void xa_free_node(struct msim__shr_host *h, struct msim__shr_memcg *sm, unsigned int nid)
{
	struct msim__shr_pn *pn = &sm->pn[nid];
	unsigned long idx;
	void *u;

	msim_xa_for_each(&pn->xa, idx, u)
		msim__unit_free(h, u);
	msim_xa_fini(&pn->xa);
}

/* kernel (thread 001 patch 2): expand_shrinker_info(), root only.
 * Registration: only root grows (the caller skips every other memcg). */
static int xa_expand_node(struct msim__shr_host *h, struct msim__shr_memcg *sm, unsigned int nid,
			  int new_nr_max)
{
	struct msim__shr_pn *pn = &sm->pn[nid];
	int r;

	if (!sm->is_root || new_nr_max <= pn->root_nr_max)
		return 0;
	r = xa_fill(h, pn, (unsigned long)pn->root_nr_max / MSIM_SHRINKER_UNIT_BITS,
		    (unsigned long)new_nr_max / MSIM_SHRINKER_UNIT_BITS);
	if (!r)
		pn->root_nr_max = new_nr_max;
	return r ? r : 1;
}

static struct msim__unit *xa_unit(struct msim__shr_host *h, struct msim__shr_memcg *sm,
				  unsigned int nid, unsigned long index)
{
	return msim_xa_load(&sm->pn[nid].xa, index);
}

static struct msim__unit *xa_next_unit(struct msim__shr_host *h, struct msim__shr_memcg *sm,
				       unsigned int nid, unsigned long *index)
{
	return msim_xa_find(&sm->pn[nid].xa, index, ~0UL, MSIM_XA_PRESENT);
}

/* kernel (thread 001 patch 2): the unit install at list allocation.
 * Insert the unit where it belongs; a racing install of the same index wins. */
static int xa_install(struct msim__shr_host *h, struct msim__shr_memcg *sm, unsigned int nid,
		      unsigned long index)
{
	struct msim__shr_pn *pn = &sm->pn[nid];
	struct msim__unit *u;
	int r;

	msim_rcu_read_lock();
	u = msim_xa_load(&pn->xa, index);
	msim_rcu_read_unlock();
	if (u)
		return 0;
	u = msim__unit_alloc(h);
	if (!u)
		return -ENOMEM;
	r = msim_xa_insert(&pn->xa, index, u);
	if (r) {
		msim__unit_free(h, u);
		return r == -EBUSY ? 0 : r;
	}
	msim_quiet_fetch_add(&pn->nr_units, 1, MSIM_RELAXED);
	msim__stat_inc(&h->units_installed);
	return 0;
}

static uint64_t xa_container_bytes(struct msim__shr_host *h, struct msim__shr_memcg *sm,
				   unsigned int nid)
{
	return (uint64_t)msim_xa_nr_nodes(&sm->pn[nid].xa) * MSIM_XA_NODE_BYTES;
}

const struct msim__info_ops msim__info_xarray_ops = {
	.name = "xarray",
	.on_demand = true,
	.expand_root_only = true,
	.unit_cache = true,
	.alloc_node = xa_alloc_node,
	.free_node = xa_free_node,
	.expand_node = xa_expand_node,
	.unit = xa_unit,
	.next_unit = xa_next_unit,
	.install = xa_install,
	.container_bytes = xa_container_bytes,
};
