/* SPDX-License-Identifier: MIT */
/*
 * info_entry.c - the entry points of shrinker_info that take a memcg or a host:
 * each finds the host's shrinker state (msim__shr_host, a plain load) and works
 * through info.c and the layout ops. set_shrinker_bit, the on-demand unit
 * install, the bit and unit introspection, the deferred-count slot of a shrink
 * and reparent_shrinker_deferred's entry point.
 *
 * kernel: mm/shrinker.c set_shrinker_bit, xchg_nr_deferred / add_nr_deferred
 * (the slot), reparent_shrinker_deferred; thread 001's shrinker_unit_install.
 *
 * Above attach.c: the lookup reads the subsystem attach.c defines, and attach.c
 * calls info.c, never this file. On a host without the shrinker subsystem a
 * memcg has no shrinker_info: the bits read clear, setting one does nothing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "shrinker/internal.h"

enum msim_shrinker_info_layout msim_shrinker_layout(struct msim *m)
{
	struct msim__shr_host *h = msim__shr_host(m);

	return h ? h->layout : msim_config(m)->variants.shrinker_info;
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
