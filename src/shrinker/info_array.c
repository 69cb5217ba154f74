/* SPDX-License-Identifier: MIT */
/*
 * info_array.c - the pointer-array shrinker_info machinery shared by the three
 * array layouts, and the mainline `array` layout's ops (every unit up front,
 * units from kmalloc-1k). `array-unit-cache` (info_array_unit_cache.c) differs
 * only in where units come from; `array-on-demand` (info_array_on_demand.c)
 * installs units on demand and guards the expansion copy with a lock.
 * kernel: mm/shrinker.c alloc_shrinker_info, expand_one_shrinker_info,
 * free_shrinker_info, shrinker_unit_alloc.
 *
 * The header is charged at the kernel's 24 + 8 * (nr_max / 64) bytes, in its
 * kmalloc class (kvzalloc_node: vmalloc never needed below 8 KiB pointers).
 * Units are shared between the old and the new header of an expansion; the old
 * header is freed after a grace period (kvfree_rcu), the units only with the memcg.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "shrinker/shrinker_internal.h"

static struct msim__info_array *info_alloc(struct msim__shr_host *h, int nr_max)
{
	struct msim__info_array *info;

	info = msim_kmalloc(h->m, msim__info_array_size(nr_max), "shrinker_info");
	if (info)
		info->map_nr_max = nr_max;
	return info;
}

unsigned long msim__info_units(const struct msim__info_array *info)
{
	return (unsigned long)info->map_nr_max / MSIM_SHRINKER_UNIT_BITS;
}

/*
 * Units [from, to) of a header, up front (upfront layouts, and root always). The
 * count is added once for the run: no yield point lies between the allocations,
 * and one atomic add per unit was 62 million of them per table-2 host.
 */
static int units_fill(struct msim__shr_host *h, struct msim__shr_pn *pn,
		      struct msim__info_array *info, unsigned long from, unsigned long to)
{
	unsigned long i;

	for (i = from; i < to; i++) {
		info->unit[i] = msim__unit_alloc(h);
		if (!info->unit[i])
			break;
	}
	msim_quiet_fetch_add(&pn->nr_units, i - from, MSIM_RELAXED);
	return i < to ? -ENOMEM : 0;
}

static bool upfront(struct msim__shr_host *h, struct msim__shr_memcg *sm)
{
	return !h->ops->on_demand || sm->is_root;
}

/* kernel: alloc_shrinker_info() for one node (shrinker_mutex held) */
int msim__array_alloc_node(struct msim__shr_host *h, struct msim__shr_memcg *sm,
			   unsigned int nid, int nr_max)
{
	struct msim__shr_pn *pn = &sm->pn[nid];
	struct msim__info_array *info = info_alloc(h, nr_max);

	if (!info)
		return -ENOMEM;
	pn->info = info; /* freed by free_node even on a partial fill */
	if (upfront(h, sm))
		return units_fill(h, pn, info, 0, msim__info_units(info));
	return 0;
}

/* kernel: free_shrinker_info() for one node */
void msim__array_free_node(struct msim__shr_host *h, struct msim__shr_memcg *sm,
			   unsigned int nid)
{
	struct msim__shr_pn *pn = &sm->pn[nid];
	struct msim__info_array *info = pn->info;
	unsigned long i;

	if (!info)
		return;
	for (i = 0; i < msim__info_units(info); i++)
		msim__unit_free(h, info->unit[i]);
	pn->info = NULL;
	msim_kfree(h->m, info);
}

/*
 * kernel: expand_one_shrinker_info() for one node, shrinker_mutex held: a new
 * header, the unit pointers copied (units shared), extra units for the upfront
 * layouts, publish, free the old header after a grace period.
 */
int msim__array_expand_node(struct msim__shr_host *h, struct msim__shr_memcg *sm,
			    unsigned int nid, int new_nr_max)
{
	struct msim__shr_pn *pn = &sm->pn[nid];
	struct msim__info_array *old = pn->info, *new;
	bool lock = h->ops->on_demand && h->install_lock;
	unsigned long i, old_units;
	int r;

	if (!old)
		return -ENOENT; /* not yet online: it will allocate at the new size */
	if (new_nr_max <= old->map_nr_max)
		return 0;
	new = info_alloc(h, new_nr_max);
	if (!new)
		return -ENOMEM;
	old_units = msim__info_units(old);
	if (lock)
		msim_spin_lock(&h->info_lock);
	/* The kernel's memcpy: no yield per unit; the lost-install window is the point below.
	 * The copy reads the unit pointers an install stores: noted for DPOR. */
	msim_access_note(old->unit, old_units * sizeof(old->unit[0]), MSIM_ACCESS_LOAD);
	for (i = 0; i < old_units; i++)
		new->unit[i] = msim_quiet_load(&old->unit[i], MSIM_ACQUIRE);
	/*
	 * Window: an install into old after this copy is lost without the lock.
	 * What follows touches only new (private until published: units_fill, the
	 * count of units read by inspection after the run) up to the shims below.
	 */
	msim_yield_access("shrinker.expand.copied", NULL, MSIM_ACCESS_NONE);
	r = upfront(h, sm) ? units_fill(h, pn, new, old_units, msim__info_units(new)) : 0;
	if (r) {
		for (i = old_units; i < msim__info_units(new); i++)
			msim__unit_free(h, new->unit[i]);
		if (lock)
			msim_spin_unlock(&h->info_lock);
		msim_kfree(h->m, new);
		return r;
	}
	msim_rcu_assign_pointer((void **)&pn->info, new);
	if (lock)
		msim_spin_unlock(&h->info_lock);
	msim_kfree_rcu(h->m, old);
	return 1;
}

struct msim__unit *msim__array_unit(struct msim__shr_host *h, struct msim__shr_memcg *sm,
				    unsigned int nid, unsigned long index)
{
	struct msim__info_array *info = msim_rcu_dereference((void *const *)&sm->pn[nid].info);

	if (!info || index >= msim__info_units(info))
		return NULL;
	return msim_rcu_dereference((void *const *)&info->unit[index]);
}

/*
 * shrink_slab_memcg's index loop (kernel: one rcu_read_lock, info reload and
 * unit load per index below map_nr_max / 64). On demand an absent unit is a hole:
 * the walk still costs every index, as thread 001 measured (1.6 us either way).
 */
struct msim__unit *msim__array_next_unit(struct msim__shr_host *h, struct msim__shr_memcg *sm,
					 unsigned int nid, unsigned long *index)
{
	struct msim__info_array *info = msim_rcu_dereference((void *const *)&sm->pn[nid].info);
	struct msim__unit *u;

	if (!info || *index >= msim__info_units(info))
		return NULL;
	/* No yield of its own: the rcu_dereference of info just above is the window. */
	u = msim_quiet_load(&info->unit[*index], MSIM_ACQUIRE);
	return u ? u : MSIM__UNIT_HOLE;
}

uint64_t msim__array_container_bytes(struct msim__shr_host *h, struct msim__shr_memcg *sm,
				     unsigned int nid)
{
	struct msim__info_array *info = msim_quiet_load(&sm->pn[nid].info, MSIM_ACQUIRE);

	return info ? msim_kmalloc_size(msim__info_array_size(info->map_nr_max)) : 0;
}

const struct msim__info_ops msim__info_array_ops = {
	.name = "array",
	.on_demand = false,
	.unit_cache = false, /* mainline: kmalloc-1k */
	.alloc_node = msim__array_alloc_node,
	.free_node = msim__array_free_node,
	.expand_node = msim__array_expand_node,
	.unit = msim__array_unit,
	.next_unit = msim__array_next_unit,
	.install = msim__no_install,
	.container_bytes = msim__array_container_bytes,
};

/* Upfront layouts install nothing: every unit exists from online on. */
int msim__no_install(struct msim__shr_host *h, struct msim__shr_memcg *sm, unsigned int nid,
		     unsigned long index)
{
	return 0;
}
