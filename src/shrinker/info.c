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
 * attach.c (the subsystem) hands its hooks the host state as priv; the entry
 * points at the end, which take a memcg or a host, find the host's shrinker
 * state (msim__shr_host, a plain load). On a host without the shrinker
 * subsystem a memcg has no shrinker_info: the bits read clear, setting one
 * does nothing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "shrinker/shrinker_internal.h"

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
	.css_online = shr_css_online,
	.css_free = shr_css_free,
	.teardown_noted = true,    /* the mutex's shims, the frees noted */
};

const struct msim_memcg_hooks msim__shr_deferred_hooks = {
	.name = "shrinker_deferred",
	.css_offline = shr_css_offline,
};

/*
 * ---- entry points that take a memcg or a host ----
 * set_shrinker_bit, the on-demand unit install, the bit and unit introspection,
 * the deferred-count slot of a shrink and reparent_shrinker_deferred's entry.
 */

enum msim_shrinker_info_layout msim_shrinker_layout(struct msim *m)
{
	struct msim__shr_host *h = msim__shr_host(m);

	return h ? h->layout : msim__shr_variant_layout(msim_config(m));
}

static struct msim__shr_memcg *memcg_data(struct msim_memcg *memcg, struct msim__shr_host **hp)
{
	struct msim__shr_host *h;

	if (!memcg)
		return NULL;
	h = msim__shr_host(msim_memcg_host(memcg));
	if (hp)
		*hp = h;
	return msim__shr_memcg(h, memcg);
}

/* ---- bits and units ---- */

/* kernel: mm/shrinker.c set_shrinker_bit() */
void msim_set_shrinker_bit(struct msim_memcg *memcg, unsigned int nid, int id)
{
	struct msim__shr_host *h;
	struct msim__shr_memcg *sm;
	struct msim__unit *unit;

	if (id < 0 || !memcg || msim_mem_cgroup_is_root(memcg))
		return;
	sm = memcg_data(memcg, &h);
	if (!sm || msim__shr_bad_nid(sm, nid))
		return;
	msim_rcu_read_lock();
	unit = h->ops->unit(h, sm, nid, MSIM__UNIT_INDEX(id));
	if (unit) {
		if (h->bit_barrier) /* smp_mb__before_atomic: the list add is visible first */
			msim_smp_mb();
		msim_set_bit(MSIM__UNIT_OFFSET(id), unit->map);
	}
	msim_rcu_read_unlock();
}

/* thread 001: the unit is installed with the memcg's first list on the lru. */
int msim_shrinker_unit_install(struct msim_memcg *memcg, unsigned int nid, int id)
{
	struct msim__shr_host *h;
	struct msim__shr_memcg *sm;

	if (id < 0 || !memcg || msim_mem_cgroup_is_root(memcg))
		return 0;
	sm = memcg_data(memcg, &h);
	if (!sm || !h->ops->on_demand)
		return 0;
	if (msim__shr_bad_nid(sm, nid) || id >= msim__nr_max_read(h))
		return -EINVAL;
	return h->ops->install(h, sm, nid, MSIM__UNIT_INDEX(id));
}

static struct msim__unit *unit_of(struct msim_memcg *memcg, unsigned int nid, int id)
{
	struct msim__shr_host *h;
	struct msim__shr_memcg *sm = memcg_data(memcg, &h);
	struct msim__unit *u;

	if (!sm || id < 0 || nid >= sm->nr_nodes)
		return NULL;
	msim_rcu_read_lock();
	u = h->ops->unit(h, sm, nid, MSIM__UNIT_INDEX(id));
	msim_rcu_read_unlock();
	return u; /* units live as long as the memcg */
}

bool msim_shrinker_test_bit(struct msim_memcg *memcg, unsigned int nid, int id)
{
	struct msim__unit *u = unit_of(memcg, nid, id);

	return u && msim_test_bit(MSIM__UNIT_OFFSET(id), u->map);
}

bool msim_shrinker_has_unit(struct msim_memcg *memcg, unsigned int nid, int id)
{
	return unit_of(memcg, nid, id) != NULL;
}

unsigned long msim_shrinker_nr_units(struct msim_memcg *memcg, unsigned int nid)
{
	struct msim__shr_memcg *sm = memcg_data(memcg, NULL);

	if (!sm || nid >= sm->nr_nodes)
		return 0;
	return msim_quiet_load(&sm->pn[nid].nr_units, MSIM_RELAXED);
}

size_t msim_shrinker_set_bits(struct msim_memcg *memcg, unsigned int nid, int *ids, size_t max)
{
	struct msim__shr_host *h;
	struct msim__shr_memcg *sm = memcg_data(memcg, &h);
	unsigned long index = 0, w;
	struct msim__unit *u;
	size_t n = 0;

	if (!sm || nid >= sm->nr_nodes)
		return 0;
	msim_rcu_read_lock();
	while ((u = msim__shr_next_present(h, sm, nid, &index)) != NULL) {
		w = msim_quiet_load(&u->map[0], MSIM_RELAXED);  /* introspection */
		while (w && n < max) {
			ids[n++] = (int)(index * MSIM_SHRINKER_UNIT_BITS) + __builtin_ctzl(w);
			w &= w - 1;
		}
		index++;
	}
	msim_rcu_read_unlock();
	return n;
}

void msim_shrinker_info_bytes(struct msim_memcg *memcg, struct msim_shrinker_info_bytes *out)
{
	struct msim__shr_host *h;
	struct msim__shr_memcg *sm = memcg_data(memcg, &h);
	unsigned int nid;

	memset(out, 0, sizeof(*out));
	if (!sm)
		return;
	for (nid = 0; nid < sm->nr_nodes; nid++) {
		out->container += h->ops->container_bytes(h, sm, nid);
		out->nr_units += msim_quiet_load(&sm->pn[nid].nr_units, MSIM_RELAXED);
	}
	out->units = msim__unit_bytes(h, out->nr_units);
}

/* ---- deferred counts ---- */

long msim_shrinker_memcg_nr_deferred(struct msim_memcg *memcg, unsigned int nid, int id)
{
	struct msim__unit *u = unit_of(memcg, nid, id);

	return u ? msim_atomic_long_read(&u->nr_deferred[MSIM__UNIT_OFFSET(id)]) : 0;
}

/*
 * kernel: the slot xchg_nr_deferred() / add_nr_deferred() work on: the memcg's
 * unit (memcg-aware shrinkers) or the shrinker's own per-node array.
 */
msim_atomic_long_t *msim__shr_deferred_slot(struct msim_shrink_control *sc,
					     struct msim_shrinker *s, struct msim__unit **unit)
{
	unsigned int nid = (s->flags & MSIM_SHRINKER_NUMA_AWARE) ? sc->nid : 0;
	struct msim__shr_host *h;
	struct msim__shr_memcg *sm;

	if (!(s->flags & MSIM_SHRINKER_MEMCG_AWARE))
		return s->nr_deferred ? &s->nr_deferred[nid] : NULL;
	sm = memcg_data(sc->memcg, &h);
	if (!sm || nid >= sm->nr_nodes)
		return NULL;
	msim_rcu_read_lock();
	*unit = h->ops->unit(h, sm, nid, MSIM__UNIT_INDEX(s->id));
	msim_rcu_read_unlock();
	return *unit ? &(*unit)->nr_deferred[MSIM__UNIT_OFFSET(s->id)] : NULL;
}

void msim_reparent_shrinker_deferred(struct msim_memcg *memcg)
{
	struct msim__shr_host *h = memcg ? msim__shr_host(msim_memcg_host(memcg)) : NULL;

	if (h)
		msim__reparent_shrinker_deferred(h, memcg);
}
