/* SPDX-License-Identifier: MIT */
/*
 * shrink_slab.c - set_shrinker_bit, do_shrink_slab's deferred arithmetic,
 * shrink_slab / shrink_slab_memcg, and the drop_caches walk.
 * kernel: mm/shrinker.c, mm/vmscan.c drop_slab(), drop_slab_node().
 *
 * Order of operations kept from the kernel where the races depend on it:
 *  - set_shrinker_bit: full barrier, then set_bit (pairs with the clear, barrier,
 *    recount in shrink_slab_memcg; S1);
 *  - shrink_slab_memcg checks mem_cgroup_online only at entry (S4), re-reads the
 *    info after each unit (S2), clears the bit of a shrinker it cannot get (S3);
 *  - do_shrink_slab takes the deferred count with xchg and adds the remainder
 *    back at the end (the window reparent_shrinker_deferred can miss, S4).
 */
#include <errno.h>
#include <string.h>

#include "shrinker/internal.h"

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

static bool bad_nid(struct msim__shr_memcg *sm, unsigned int nid)
{
	if (nid < sm->nr_nodes)
		return false;
	msim__shrinker_misuse("node id out of range");
	return true;
}

/* kernel: mm/shrinker.c set_shrinker_bit() */
void msim_set_shrinker_bit(struct msim_memcg *memcg, unsigned int nid, int id)
{
	struct msim__shr_host *h;
	struct msim__shr_memcg *sm;
	struct msim__unit *unit;

	if (id < 0 || !memcg || msim_mem_cgroup_is_root(memcg))
		return;
	sm = memcg_data(memcg, &h);
	if (!sm || bad_nid(sm, nid))
		return;
	msim_rcu_read_lock();
	unit = h->ops->unit(h, sm, nid, MSIM__UNIT_INDEX(id));
	if (unit) {
		msim_smp_mb(); /* smp_mb__before_atomic: the list add is visible first */
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
	if (bad_nid(sm, nid) || id >= msim__nr_max_read(h))
		return -EINVAL;
	return h->ops->install(h, sm, nid, MSIM__UNIT_INDEX(id));
}

/* The next present unit at or after *index (RCU held), skipping holes. */
static struct msim__unit *next_present(struct msim__shr_host *h, struct msim__shr_memcg *sm,
				       unsigned int nid, unsigned long *index)
{
	struct msim__unit *u;

	while ((u = h->ops->next_unit(h, sm, nid, index)) == MSIM__UNIT_HOLE)
		(*index)++;
	return u;
}

/* ---- inspection ---- */

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

long msim_shrinker_memcg_nr_deferred(struct msim_memcg *memcg, unsigned int nid, int id)
{
	struct msim__unit *u = unit_of(memcg, nid, id);

	return u ? msim_atomic_long_read(&u->nr_deferred[MSIM__UNIT_OFFSET(id)]) : 0;
}

long msim_shrinker_nr_deferred(struct msim_shrinker *s, unsigned int nid)
{
	if (!s || !s->nr_deferred)
		return 0;
	if (!(s->flags & MSIM_SHRINKER_NUMA_AWARE))
		nid = 0;
	return msim_atomic_long_read(&s->nr_deferred[nid]);
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
	return __atomic_load_n(&sm->pn[nid].nr_units, __ATOMIC_RELAXED);
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
	while ((u = next_present(h, sm, nid, &index)) != NULL) {
		w = __atomic_load_n(&u->map[0], __ATOMIC_RELAXED);
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
		out->nr_units += __atomic_load_n(&sm->pn[nid].nr_units, __ATOMIC_RELAXED);
	}
	out->units = msim__unit_bytes(h, out->nr_units);
}

/* ---- do_shrink_slab ---- */

static msim_atomic_long_t *deferred_slot(struct msim_shrink_control *sc, struct msim_shrinker *s,
					 struct msim__unit **unit)
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

/* kernel: mm/shrinker.c do_shrink_slab() (reference 2.5) */
unsigned long msim_do_shrink_slab(struct msim_shrink_control *sc, struct msim_shrinker *s,
				  int priority)
{
	struct msim__shr_host *h = msim__shr_host(s->host);
	long batch_size = s->batch ? s->batch : MSIM_SHRINK_BATCH;
	unsigned long freeable, freed = 0, total_scan, scanned = 0, ret;
	struct msim__unit *unit = NULL;
	msim_atomic_long_t *slot;
	long nr, delta, next_deferred;

	__atomic_fetch_add(&s->count_calls, 1, __ATOMIC_RELAXED);
	msim__stat_inc(&h->count_calls);
	freeable = s->count_objects(s, sc);
	if (freeable == 0 || freeable == MSIM_SHRINK_EMPTY)
		return freeable;

	/* xchg_nr_deferred: take this shrinker's deferred work on the node. */
	slot = deferred_slot(sc, s, &unit);
	nr = slot ? msim_atomic_long_xchg(slot, 0) : 0;

	if (s->seeks)
		delta = (long)((freeable >> priority) * 4 / (unsigned long)s->seeks);
	else
		delta = (long)(freeable / 2);

	total_scan = ((unsigned long)nr >> priority) + (unsigned long)delta;
	if (total_scan > 2 * freeable)
		total_scan = 2 * freeable;

	while (total_scan >= (unsigned long)batch_size || total_scan >= freeable) {
		unsigned long nr_to_scan = total_scan < (unsigned long)batch_size ?
						   total_scan : (unsigned long)batch_size;

		sc->nr_to_scan = nr_to_scan;
		sc->nr_scanned = nr_to_scan;
		__atomic_fetch_add(&s->scan_calls, 1, __ATOMIC_RELAXED);
		msim__stat_inc(&h->scan_calls);
		ret = s->scan_objects(s, sc);
		if (ret == MSIM_SHRINK_STOP)
			break;
		freed += ret;
		total_scan -= sc->nr_scanned < total_scan ? sc->nr_scanned : total_scan;
		scanned += sc->nr_scanned;
		if (!sc->nr_scanned)
			break; /* the kernel would cond_resched and loop; avoid spinning */
	}

	/* Give back what was not scanned, bounded by twice the freeable objects. */
	next_deferred = nr + delta - (long)scanned;
	if (next_deferred < 0)
		next_deferred = 0;
	if ((unsigned long)next_deferred > 2 * freeable)
		next_deferred = (long)(2 * freeable);
	/*
	 * add_nr_deferred: S4 window, offline may have read the child's counts already.
	 * The kernel re-reads the info to find the unit; we add through the slot taken
	 * at the xchg. Same unit: units are shared by old and new headers and live as
	 * long as the memcg (and the memcg-aware paths only reach present units).
	 */
	msim_yield("do_shrink_slab.add_deferred");
	if (slot)
		msim_atomic_long_add_return(slot, next_deferred);
	return freed;
}

/* ---- shrink_slab ---- */

static bool shrinker_stale(struct msim__shr_host *h, int id, struct msim_shrinker **out)
{
	struct msim_shrinker *s;

	msim_rcu_read_lock();
	s = msim_idr_find(&h->idr, (unsigned long)id);
	if (!s || !msim_shrinker_try_get(s)) {
		msim_rcu_read_unlock();
		return true;
	}
	msim_rcu_read_unlock();
	*out = s;
	return false;
}

/* One set bit of a unit: call the shrinker, and on SHRINK_EMPTY clear and recount. */
static unsigned long shrink_one_bit(struct msim__shr_host *h, struct msim_memcg *memcg,
				    unsigned int nid, struct msim__unit *unit, unsigned long index,
				    unsigned int offset, int priority)
{
	struct msim_shrink_control sc = { .nid = nid, .memcg = memcg };
	int id = (int)(index * MSIM_SHRINKER_UNIT_BITS + offset);
	struct msim_shrinker *s;
	unsigned long ret;

	if (shrinker_stale(h, id, &s)) {
		msim_clear_bit(offset, unit->map); /* freed or unregistered id (S3) */
		return 0;
	}
	ret = msim_do_shrink_slab(&sc, s, priority);
	if (ret == MSIM_SHRINK_EMPTY) {
		msim_yield("shrink_slab_memcg.clear_bit");
		msim_clear_bit(offset, unit->map);
		msim__stat_inc(&h->bits_cleared);
		if (h->recount) {
			/*
			 * After the shrinker reports empty, a concurrent list_lru_add may
			 * have set the bit before we cleared it: the barrier pairs with
			 * the one in set_shrinker_bit, so the recount sees the new object
			 * or the producer's set_bit comes after our clear.
			 */
			msim_smp_mb();
			ret = msim_do_shrink_slab(&sc, s, priority);
			if (ret == MSIM_SHRINK_EMPTY) {
				ret = 0;
			} else {
				msim_set_shrinker_bit(memcg, nid, id);
				msim__stat_inc(&h->bits_reset);
			}
		} else {
			ret = 0; /* demo: no recount, a racing first add loses its bit */
		}
	}
	msim_shrinker_put(s);
	return ret;
}

/* kernel: mm/shrinker.c shrink_slab_memcg() */
unsigned long msim_shrink_slab_memcg(struct msim *m, unsigned int nid, struct msim_memcg *memcg,
				     int priority)
{
	struct msim__shr_host *h = msim__shr_host(m);
	struct msim__shr_memcg *sm;
	struct msim__unit *unit;
	unsigned long index = 0, freed = 0, w;
	unsigned int offset;

	if (!h || !memcg || !msim_mem_cgroup_online(memcg))
		return 0;
	sm = msim__shr_memcg(h, memcg);
	if (!sm || bad_nid(sm, nid))
		return 0;
	for (;;) {
		/* Re-read the info for every unit: an expansion may have replaced it. */
		msim_rcu_read_lock();
		unit = h->ops->next_unit(h, sm, nid, &index);
		msim_rcu_read_unlock();
		if (!unit)
			break;
		if (unit == MSIM__UNIT_HOLE) { /* array on demand: no unit at this index */
			index++;
			continue;
		}
		for (offset = 0; offset < MSIM_SHRINKER_UNIT_BITS; offset++) {
			msim_yield("shrink_slab_memcg.find_bit");
			w = __atomic_load_n(&unit->map[0], __ATOMIC_ACQUIRE) & (~0UL << offset);
			if (!w)
				break;
			offset = (unsigned int)__builtin_ctzl(w);
			freed += shrink_one_bit(h, memcg, nid, unit, index, offset, priority);
		}
		index++;
	}
	return freed;
}

/* kernel: mm/shrinker.c shrink_slab() */
unsigned long msim_shrink_slab(struct msim *m, unsigned int nid, struct msim_memcg *memcg,
			       int priority)
{
	struct msim__shr_host *h = msim__shr_host(m);
	struct msim_shrink_control sc = { .nid = nid };
	struct msim_shrinker *s;
	unsigned long freed = 0, ret;

	if (!h || nid >= h->nr_nodes)
		return 0;
	if (memcg && !msim_mem_cgroup_is_root(memcg))
		return msim_shrink_slab_memcg(m, nid, memcg, priority);
	/* Root: memcg-aware shrinkers act on root's lists and root's deferred counts. */
	sc.memcg = h->root;
	msim_rcu_read_lock();
	for (s = msim_rcu_dereference((void *const *)&h->list.next); s != &h->list;
	     s = msim_rcu_dereference((void *const *)&s->next)) {
		if (!msim_shrinker_try_get(s))
			continue;
		msim_rcu_read_unlock();
		ret = msim_do_shrink_slab(&sc, s, priority);
		if (ret == MSIM_SHRINK_EMPTY)
			ret = 0;
		freed += ret;
		msim_rcu_read_lock();
		msim_shrinker_put(s); /* s stays readable until our read section ends */
	}
	msim_rcu_read_unlock();
	return freed;
}

/*
 * kernel: mm/shrinker.c reparent_shrinker_deferred(), from offline under
 * shrinker_mutex: the child's counts are read and added to the parent's, not
 * zeroed. A shrink in flight adds to the child after this read: lost (S4).
 */
void msim_reparent_shrinker_deferred(struct msim_memcg *memcg)
{
	struct msim__shr_host *h;
	struct msim__shr_memcg *sm = memcg_data(memcg, &h), *psm;
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
			cu = next_present(h, sm, nid, &index);
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

/*
 * kernel: mm/vmscan.c drop_slab() / drop_slab_node(): per node, shrink_slab for
 * every memcg from mem_cgroup_iter (offline ones return at once), repeated while
 * (freed >> shift++) > 1.
 */
unsigned long msim_drop_slab(struct msim *m, unsigned int max_passes,
			     struct msim_drop_slab_stats *st)
{
	struct msim__shr_host *h = msim__shr_host(m);
	struct msim_drop_slab_stats local = { 0 };
	struct msim_memcg *memcg;
	unsigned long freed, total = 0;
	unsigned int nid, shift, passes;

	if (!st)
		st = &local;
	memset(st, 0, sizeof(*st));
	if (!h)
		return 0;
	for (nid = 0; nid < h->nr_nodes; nid++) {
		shift = 0;
		passes = 0;
		do {
			freed = 0;
			memcg = NULL;
			while ((memcg = msim_mem_cgroup_iter(h->root, memcg)) != NULL) {
				freed += msim_shrink_slab(m, nid, memcg, 0);
				st->memcg_node_visits++;
			}
			total += freed;
			st->passes++;
			passes++;
		} while ((freed >> shift++) > 1 && (!max_passes || passes < max_passes));
	}
	st->freed = total;
	return total;
}
