/* SPDX-License-Identifier: MIT */
/*
 * info.c - shrinker_info, in one place: per memcg and node, the shrinker bits,
 * the units that hold them and the deferred counts, behind the layout ops
 * (info_array.c, info_array_unit_cache.c, info_array_on_demand.c,
 * info_xarray.c). Its life (alloc at css_online, expansion when an id grows
 * shrinker_nr_max, free at css_free), set_shrinker_bit, the unit install of
 * the on-demand layouts, the deferred counts and their reparenting at offline.
 *
 * kernel: mm/shrinker.c alloc_shrinker_info, expand_shrinker_info,
 * free_shrinker_info, set_shrinker_bit, reparent_shrinker_deferred,
 * xchg_nr_deferred / add_nr_deferred (the slot), and thread 001's
 * shrinker_unit_install.
 *
 * attach.c (the subsystem) and the files above it call it; it calls none of
 * them (the offline hook that reparents the deferred counts is its own). It
 * works on the host state it is given, or its hooks' priv, and never looks it
 * up: the entry points that take a memcg or a host are info_entry.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "shrinker/internal.h"

/* ---- layouts ---- */

const struct msim__info_ops *msim__shr_layout_ops(enum msim_shrinker_info_layout l)
{
	switch (l) {
	case MSIM_SHRINKER_INFO_ARRAY_UNIT_CACHE:
		return &msim__info_array_unit_cache_ops;
	case MSIM_SHRINKER_INFO_ARRAY_ON_DEMAND:
		return &msim__info_array_on_demand_ops;
	case MSIM_SHRINKER_INFO_XARRAY:
		return &msim__info_xarray_ops;
	case MSIM_SHRINKER_INFO_ARRAY:
	default:
		return &msim__info_array_ops;
	}
}

const char *msim_shrinker_layout_name(enum msim_shrinker_info_layout l)
{
	return msim__shr_layout_ops(l)->name;
}

bool msim_shrinker_layout_on_demand(enum msim_shrinker_info_layout l)
{
	return msim__shr_layout_ops(l)->on_demand;
}

/* ---- a memcg's info on the host state ---- */

struct msim__shr_memcg *msim__shr_memcg(struct msim__shr_host *h, struct msim_memcg *memcg)
{
	if (!h || !memcg || h->memcg_slot < 0)
		return NULL;
	/* No yield: the info is published at online, before any user can reach memcg. */
	return msim_quiet_load((struct msim__shr_memcg **)msim_memcg_slot(memcg, h->memcg_slot),
			       MSIM_ACQUIRE);
}

/* A node id beyond sm's is a caller's bug: counted as misuse. */
bool msim__shr_bad_nid(struct msim__shr_memcg *sm, unsigned int nid)
{
	if (nid < sm->nr_nodes)
		return false;
	msim__shrinker_misuse("node id out of range");
	return true;
}

/* ---- per-memcg info: alloc at online, free at css_free ---- */

/* kernel: free_shrinker_info(), shrinker_mutex held: unpublish, free every node. */
void msim__shr_free_info_locked(struct msim__shr_host *h, struct msim_memcg *memcg,
				struct msim__shr_memcg *sm)
{
	unsigned int nid;

	/* DPOR (yield.h): the slot and sm are stored over (units and headers: kmem notes) */
	msim_access_note(msim_memcg_slot(memcg, h->memcg_slot), sizeof(void *), MSIM_ACCESS_STORE);
	msim_access_note(sm, sizeof(*sm) + sm->nr_nodes * sizeof(sm->pn[0]), MSIM_ACCESS_STORE);
	msim_quiet_store((struct msim__shr_memcg **)msim_memcg_slot(memcg, h->memcg_slot), NULL,
			 MSIM_RELEASE);
	for (nid = 0; nid < sm->nr_nodes; nid++)
		h->ops->free_node(h, sm, nid);
	free(sm);
}

/* kernel: mm/shrinker.c alloc_shrinker_info() (from mem_cgroup_css_online) */
static int shr_css_online(struct msim_memcg *memcg, void *priv)
{
	struct msim__shr_host *h = priv;
	struct msim__shr_memcg *sm;
	unsigned int nid;
	int r = 0;

	sm = calloc(1, sizeof(*sm) + h->nr_nodes * sizeof(sm->pn[0]));
	if (!sm)
		return -ENOMEM;
	sm->memcg = memcg;
	sm->is_root = msim_mem_cgroup_is_root(memcg);
	sm->nr_nodes = h->nr_nodes;
	msim_mutex_lock(&h->mutex);
	for (nid = 0; nid < h->nr_nodes && !r; nid++)
		r = h->ops->alloc_node(h, sm, nid, msim__nr_max_read(h));
	if (r) {
		sm->nr_nodes = nid; /* free what was set up */
		for (nid = 0; nid < sm->nr_nodes; nid++)
			h->ops->free_node(h, sm, nid);
		free(sm);
	} else if (h->memcg_slot < 0) {
		h->root_sm = sm; /* root, during our registration: slot not known yet */
	} else {
		msim_quiet_store((struct msim__shr_memcg **)msim_memcg_slot(memcg, h->memcg_slot),
				 sm, MSIM_RELEASE);
	}
	msim_mutex_unlock(&h->mutex);
	return r;
}

/* kernel: mm/shrinker.c free_shrinker_info() (from mem_cgroup_css_free) */
static void shr_css_free(struct msim_memcg *memcg, void *priv)
{
	/* The memcg layer's teardown comes after ours: then every info is gone already. */
	struct msim__shr_host *h = priv;
	struct msim__shr_memcg *sm;

	if (h->detached)
		return;
	msim_mutex_lock(&h->mutex);
	sm = msim__shr_memcg(h, memcg);
	if (sm)
		msim__shr_free_info_locked(h, memcg, sm);
	msim_mutex_unlock(&h->mutex);
}

/* ---- expansion ---- */

/*
 * kernel: mm/shrinker.c expand_shrinker_info(), shrinker_mutex held. Array
 * layouts: every memcg (mem_cgroup_iter includes offline ones not yet freed), every
 * node, one reallocation and copy each. xarray: only root gets units.
 */
int msim__expand_shrinker_info(struct msim__shr_host *h, int new_id)
{
	int new_nr_max = (new_id / MSIM_SHRINKER_UNIT_BITS + 1) * MSIM_SHRINKER_UNIT_BITS;
	struct msim_memcg *memcg = NULL;
	struct msim__shr_memcg *sm;
	unsigned int nid;
	int r;

	if (h->ops->expand_root_only) {
		sm = msim__shr_memcg(h, h->root);
		for (nid = 0; sm && nid < sm->nr_nodes; nid++) {
			r = h->ops->expand_node(h, sm, nid, new_nr_max);
			if (r < 0 && r != -ENOENT)
				return r;
		}
		goto done;
	}
	while ((memcg = msim_mem_cgroup_iter(h->root, memcg)) != NULL) {
		sm = msim__shr_memcg(h, memcg);
		if (!sm)
			continue;
		for (nid = 0; nid < sm->nr_nodes; nid++) {
			r = h->ops->expand_node(h, sm, nid, new_nr_max);
			if (r == -ENOENT)
				break;
			if (r < 0) {
				msim_mem_cgroup_iter_break(h->root, memcg);
				return r;
			}
			if (r > 0)
				msim__stat_inc(&h->expand_memcg_visits);
		}
	}
done:
	/* shrinker_nr_max, under the mutex (msim__nr_max_read() says why no yield) */
	msim_quiet_store(&h->nr_max, new_nr_max, MSIM_RELEASE);
	msim__stat_inc(&h->expansions);
	return 0;
}

/* ---- walking the units ---- */

struct msim__unit *msim__shr_next_present(struct msim__shr_host *h, struct msim__shr_memcg *sm,
					  unsigned int nid, unsigned long *index)
{
	struct msim__unit *u;

	while ((u = h->ops->next_unit(h, sm, nid, index)) == MSIM__UNIT_HOLE)
		(*index)++;
	return u;
}

/*
 * shrink_slab_memcg's step (kernel: one rcu_read_lock, info reload and unit load
 * per index): the unit at *index or after, MSIM__UNIT_HOLE, or NULL at the end.
 */
struct msim__unit *msim__shr_next_unit(struct msim__shr_host *h, struct msim__shr_memcg *sm,
				       unsigned int nid, unsigned long *index)
{
	struct msim__unit *unit;

	msim_rcu_read_lock();
	unit = h->ops->next_unit(h, sm, nid, index);
	msim_rcu_read_unlock();
	return unit;
}

/* ---- deferred counts ---- */

long msim_shrinker_nr_deferred(struct msim_shrinker *s, unsigned int nid)
{
	if (!s || !s->nr_deferred)
		return 0;
	if (!(s->flags & MSIM_SHRINKER_NUMA_AWARE))
		nid = 0;
	return msim_atomic_long_read(&s->nr_deferred[nid]);
}

/*
 * kernel: mm/shrinker.c reparent_shrinker_deferred(), from offline under
 * shrinker_mutex: the child's counts are read and added to the parent's, not
 * zeroed. A shrink in flight adds to the child after this read: lost (S4).
 */
void msim__reparent_shrinker_deferred(struct msim__shr_host *h, struct msim_memcg *memcg)
{
	struct msim__shr_memcg *sm = msim__shr_memcg(h, memcg), *psm;
	struct msim_memcg *parent = msim_parent_mem_cgroup(memcg);
	struct msim__unit *cu, *pu;
	unsigned long index;
	unsigned int nid, off;
	long v;

	if (!sm)
		return;
	if (!parent)
		parent = h->root;
	psm = msim__shr_memcg(h, parent);
	if (!psm)
		return;
	msim_mutex_lock(&h->mutex);
	for (nid = 0; nid < sm->nr_nodes; nid++) {
		for (index = 0;; index++) {
			msim_rcu_read_lock();
			cu = msim__shr_next_present(h, sm, nid, &index);
			pu = cu ? h->ops->unit(h, psm, nid, index) : NULL;
			msim_rcu_read_unlock();
			if (!cu)
				break;
			if (!pu && h->ops->on_demand && !psm->is_root) {
				h->ops->install(h, psm, nid, index);
				msim_rcu_read_lock();
				pu = h->ops->unit(h, psm, nid, index);
				msim_rcu_read_unlock();
			}
			if (!pu)
				continue;
			for (off = 0; off < MSIM_SHRINKER_UNIT_BITS; off++) {
				v = msim_atomic_long_read(&cu->nr_deferred[off]);
				if (v)
					msim_atomic_long_add(&pu->nr_deferred[off], v);
			}
		}
	}
	msim_mutex_unlock(&h->mutex);
}

/* ---- the memcg hook sets (attach.c registers them, priv: the host state) ---- */

static void shr_css_offline(struct msim_memcg *memcg, void *priv)
{
	msim__reparent_shrinker_deferred(priv, memcg);
}

const struct msim_memcg_hooks msim__shr_info_hooks = {
	.name = "shrinker_info",
	.order = MSIM_HOOK_ORDER_SHRINKER_INFO,
	.css_online = shr_css_online,
	.css_free = shr_css_free,
	.teardown_noted = true,    /* the mutex's shims, the frees noted */
};

const struct msim_memcg_hooks msim__shr_deferred_hooks = {
	.name = "shrinker_deferred",
	.order = MSIM_HOOK_ORDER_SHRINKER_DEFERRED,
	.css_offline = shr_css_offline,
};
