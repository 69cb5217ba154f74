/* SPDX-License-Identifier: MIT */
/*
 * shrink_slab.c - do_shrink_slab's deferred arithmetic, shrink_slab /
 * shrink_slab_memcg, and the drop_caches walk. The bits, units and deferred
 * counts they read and write are info.c's.
 * kernel: mm/shrinker.c, mm/vmscan.c drop_slab(), drop_slab_node().
 *
 * Order of operations kept from the kernel where the races depend on it:
 *  - set_shrinker_bit (info.c): full barrier, then set_bit (pairs with the clear,
 *    barrier, recount in shrink_slab_memcg; S1);
 *  - shrink_slab_memcg checks mem_cgroup_online only at entry (S4), re-reads the
 *    info after each unit (S2), clears the bit of a shrinker it cannot get (S3);
 *  - do_shrink_slab takes the deferred count with xchg and adds the remainder
 *    back at the end (the window reparent_shrinker_deferred can miss, S4).
 */
#include <errno.h>
#include <string.h>

#include "shrinker/shrinker_internal.h"

/* ---- do_shrink_slab ---- */

/*
 * do_shrink_slab's scan loop: scan_objects in batches while total_scan covers a
 * batch or the whole freeable count. Returns the objects freed; *scanned adds up
 * what the shrinker reported scanning.
 */
static unsigned long scan_batches(struct msim__shr_host *h, struct msim_shrink_control *sc,
				  struct msim_shrinker *s, unsigned long total_scan,
				  unsigned long freeable, unsigned long *scanned)
{
	long batch_size = s->batch ? s->batch : MSIM_SHRINK_BATCH;
	unsigned long freed = 0, ret;

	while (total_scan >= (unsigned long)batch_size || total_scan >= freeable) {
		unsigned long nr_to_scan = total_scan < (unsigned long)batch_size ?
						   total_scan : (unsigned long)batch_size;

		sc->nr_to_scan = nr_to_scan;
		sc->nr_scanned = nr_to_scan;
		msim_quiet_fetch_add(&s->scan_calls, 1, MSIM_RELAXED);
		msim__stat_inc(&h->scan_calls);
		ret = s->scan_objects(s, sc);
		if (ret == MSIM_SHRINK_STOP)
			break;
		freed += ret;
		total_scan -= sc->nr_scanned < total_scan ? sc->nr_scanned : total_scan;
		*scanned += sc->nr_scanned;
		if (!sc->nr_scanned)
			break; /* the kernel would cond_resched and loop; avoid spinning */
	}
	return freed;
}

/* kernel: mm/shrinker.c do_shrink_slab(), its nr_deferred arithmetic included */
unsigned long msim_do_shrink_slab(struct msim_shrink_control *sc, struct msim_shrinker *s,
				  int priority)
{
	struct msim__shr_host *h = msim__shr_host(s->host);
	unsigned long freeable, freed, total_scan, scanned = 0;
	struct msim__unit *unit = NULL;
	msim_atomic_long_t *slot;
	long nr, delta, next_deferred;

	msim_quiet_fetch_add(&s->count_calls, 1, MSIM_RELAXED);
	msim__stat_inc(&h->count_calls);
	freeable = s->count_objects(s, sc);
	if (freeable == 0 || freeable == MSIM_SHRINK_EMPTY)
		return freeable;

	/* xchg_nr_deferred: take this shrinker's deferred work on the node. */
	slot = msim__shr_deferred_slot(sc, s, &unit);
	nr = slot ? msim_atomic_long_xchg(slot, 0) : 0;

	if (s->seeks)
		delta = (long)((freeable >> priority) * 4 / (unsigned long)s->seeks);
	else
		delta = (long)(freeable / 2);

	total_scan = ((unsigned long)nr >> priority) + (unsigned long)delta;
	if (total_scan > 2 * freeable)
		total_scan = 2 * freeable;

	freed = scan_batches(h, sc, s, total_scan, freeable, &scanned);

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
	/* then the atomic, or back to a caller whose next access is a shim */
	msim_yield_access("do_shrink_slab.add_deferred", NULL, MSIM_ACCESS_NONE);
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
		msim_yield_access("shrink_slab_memcg.clear_bit", NULL, MSIM_ACCESS_NONE); /* clear_bit */
		msim_clear_bit(offset, unit->map);
		msim__stat_inc(&h->bits_cleared);
		if (h->recount) {
			/*
			 * After the shrinker reports empty, a concurrent list_lru_add may
			 * have set the bit before we cleared it: the barrier pairs with
			 * the one in set_shrinker_bit, so the recount sees the new object
			 * or the producer's set_bit comes after our clear
			 * (smp_mb__after_atomic; shrinker-bit-barrier=none removes it).
			 */
			if (h->bit_barrier)
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
	if (!sm || msim__shr_bad_nid(sm, nid))
		return 0;
	for (;;) {
		/* Re-read the info for every unit: an expansion may have replaced it. */
		unit = msim__shr_next_unit(h, sm, nid, &index);
		if (!unit)
			break;
		if (unit == MSIM__UNIT_HOLE) { /* array on demand: no unit at this index */
			index++;
			continue;
		}
		for (offset = 0; offset < MSIM_SHRINKER_UNIT_BITS; offset++) {
			w = msim_load_at(&unit->map[0], MSIM_ACQUIRE, "shrink_slab_memcg.find_bit") &
			    (~0UL << offset);
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
