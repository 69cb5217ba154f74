/* SPDX-License-Identifier: MIT */
/*
 * folio.c - folios: allocation, references, flags, and the memcg charge
 * (folio.h). kernel: include/linux/mm.h, page-flags.h, memcontrol.h
 * (folio_memcg, folio_objcg), mm/memcontrol.c (charge_memcg, commit_charge,
 * uncharge_folio, uncharge_batch), newest mainline; variant lru-reparent=off
 * gives the 7.0 form, where memcg_data is the memcg and pins its css.
 */
#include <errno.h>
#include <stdlib.h>

#include <memcgsim/sim.h>
#include <memcgsim/introspect/objcg.h>
#include "lru/lru_internal.h"

/*
 * A zone with pages on node nid: its managed pages configured, and DMA and DMA32
 * only on node 0 (the low 4 GiB of physical memory, as vmstat counts them).
 */
static bool zone_populated(const struct msim *m, unsigned int nid, enum msim_zone_type zone)
{
	if (nid && (zone == MSIM_ZONE_DMA || zone == MSIM_ZONE_DMA32))
		return false;
	return msim_config(m)->zone_managed_pages[zone] != 0;
}

struct msim_folio *msim_folio_alloc(struct msim *m, enum msim_folio_type type,
				    unsigned int order, unsigned int nid,
				    enum msim_zone_type zone)
{
	struct msim__lru_host *lh = msim__lru_host(m);
	struct msim_folio *folio;

	if (!lh) {
		errno = ENODEV;
		return NULL;
	}
	if (order > MSIM_MAX_FOLIO_ORDER || nid >= lh->nr_nodes ||
	    (unsigned int)zone >= MSIM_MAX_NR_ZONES || !zone_populated(m, nid, zone) ||
	    (type != MSIM_FOLIO_ANON && type != MSIM_FOLIO_FILE)) {
		errno = EINVAL;
		return NULL;
	}
	folio = calloc(1, sizeof(*folio));
	if (!folio) {
		errno = ENOMEM;
		return NULL;
	}
	msim_init_list_head(&folio->lru);
	msim_init_list_head(&folio->releasing);
	folio->refcount.counter = 1;
	folio->gen = -1;
	folio->order = order;
	folio->nid = nid;
	folio->zone = zone;
	folio->type = type;
	folio->lh = lh;
	MSIM__LRU_COUNT(lh, folios_live, 1);
	MSIM__LRU_COUNT(lh, folios_allocated_total, 1);
	return folio;
}

static void release_end(struct msim_folio *folio);

void msim__folio_release(struct msim_folio *folio)
{
	struct msim__lru_host *lh = folio->lh;
	unsigned long i;

	msim_mem_cgroup_uncharge(folio);
	release_end(folio);
	msim_quiet_fetch_sub(&lh->folios_live, 1, MSIM_RELAXED);
	/* torn down: the quarantine is freed at the lru layer's fini, so no more in it */
	if (msim_tasks_abandoned(lh->m)) {
		free(folio);
		return;
	}
	/* refcount stays 0: a later put is caught (msim__folio_put_testzero) */
	i = msim_quiet_fetch_add(&lh->quarantine_next, 1, MSIM_RELAXED);
	free(msim_quiet_xchg(&lh->quarantine[i % MSIM__FOLIO_QUARANTINE], folio,
			      MSIM_ACQ_REL));
}

/*
 * The charge reference a parked release still owes. objcg: the put had not run
 * while the objcg still counts a reference (a put that ran and reached 0 parks
 * only inside obj_cgroup_release, with nothing left to count). 7.0: the memcg
 * reference is dropped only while memcg_data still names it (past
 * commit_charge the one step left is the css_put itself).
 */
static void release_drop_owed(struct msim_folio *folio)
{
	void *owed = folio->charge_owed;

	if (!owed)
		return;
	if (folio->lh->reparent_objcg) {
		if (msim_obj_cgroup_refcount(owed) > 0)
			msim_obj_cgroup_put(owed);
	} else if (folio->memcg_data == owed) {
		msim_css_put(owed);
	}
	folio->memcg_data = NULL;
	folio->charge_owed = NULL;
}

/*
 * Host teardown (lru_host_fini, before the memcgs are freed): finish the
 * releases a stopped run's parked tasks left in flight. The kernel has no
 * abandoned task; this is the simulator's cleanup, after the run was judged.
 */
void msim__folio_releases_abandon(struct msim__lru_host *lh)
{
	while (!msim_list_empty(&lh->releasing)) {
		struct msim_folio *folio = msim_container_of(lh->releasing.next,
							     struct msim_folio, releasing);

		msim_list_del_init(&folio->releasing);
		/* parked before the LRU deletion, or on a reclaimer's free list */
		if (!msim_list_empty(&folio->lru))
			msim_list_del_init(&folio->lru);
		release_drop_owed(folio);
		msim_quiet_fetch_sub(&lh->folios_live, 1, MSIM_RELAXED);
		free(folio);
	}
}

void msim__folio_quarantine_free(struct msim__lru_host *lh)
{
	for (unsigned int i = 0; i < MSIM__FOLIO_QUARANTINE; i++) {
		free(lh->quarantine[i]);
		lh->quarantine[i] = NULL;
	}
}

static void release_begin(struct msim_folio *folio);

/* A frozen folio is on its way to the free (reclaim's free_folios): in flight as after a last put. */
bool msim__folio_ref_freeze(struct msim_folio *folio, long expected)
{
	if (!msim_try_cmpxchg_at(&folio->refcount.counter, &expected, 0, MSIM_SEQ_CST,
				 MSIM_RELAXED, "folio.ref.freeze"))
		return false;
	release_begin(folio);
	return true;
}

/*
 * Deterministic mode: a release's task can be parked for good between the last
 * put and the free (an explorer's pruned or cut run: on the lru_lock, in
 * lruvec_del_folio, inside the uncharge) with the folio's count at 0 and its
 * objcg or memcg reference not yet dropped. The release is noted from the put
 * (plain stores, no access: no schedule changes) so the host's teardown can
 * finish it (msim__folio_releases_abandon). Concurrent runs end with every task
 * done.
 */
static bool release_tracked(const struct msim__lru_host *lh)
{
	return msim_config(lh->m)->mode != MSIM_CONCURRENT;
}

/* The last reference is gone: the release is in flight until msim__folio_release ends. */
static void release_begin(struct msim_folio *folio)
{
	struct msim__lru_host *lh = folio->lh;

	if (!release_tracked(lh))
		return;
	folio->charge_owed = folio->memcg_data;
	msim_list_add(&folio->releasing, &lh->releasing);
}

static void release_end(struct msim_folio *folio)
{
	if (!release_tracked(folio->lh))
		return;
	msim_list_del_init(&folio->releasing);
	folio->charge_owed = NULL;
}

/*
 * kernel: folio_put_testzero(), whose VM_BUG_ON_FOLIO stops a put on a folio
 * with no reference left: a put after the last one, or on a folio freed
 * already (still readable while quarantined: msim__folio_release).
 */
bool msim__folio_put_testzero(struct msim_folio *folio)
{
	long n = msim_atomic_long_add_return_at(&folio->refcount, -1, "folio.ref.put");

	if (n < 0)
		msim_misuse("msim_folio_put", "folio %p has no reference left (a put after the "
			     "last one, or on a freed folio)", (void *)folio);
	if (n == 0)
		release_begin(folio);
	return n == 0;
}

/*
 * kernel: folio_get(), whose VM_BUG_ON_FOLIO stops a get on a folio with no
 * reference: the caller must hold one. A get on a freed (quarantined) folio
 * would bring it back to 1, and its next put would free it a second time.
 */
void msim_folio_get(struct msim_folio *folio)
{
	if (msim_atomic_long_add_return_at(&folio->refcount, 1, "folio.ref.get") <= 1)
		msim_misuse("msim_folio_get", "folio %p has no reference to take another "
			     "from (a get on a freed folio)", (void *)folio);
}

/* kernel: folio_try_get(): fails once the count reached 0 (the folio is being freed). */
bool msim_folio_try_get(struct msim_folio *folio)
{
	long old = msim_atomic_long_read_at(&folio->refcount, "folio.ref.tryget");

	/* the point announced the read; the increment is in the same step */
	msim_access_note(&folio->refcount.counter, sizeof(folio->refcount.counter),
			 MSIM_ACCESS_RMW);
	while (old > 0)
		if (msim_quiet_try_cmpxchg(&folio->refcount.counter, &old, old + 1, MSIM_SEQ_CST,
					   MSIM_RELAXED))
			return true;
	return false;
}

long msim_folio_ref_count(const struct msim_folio *folio)
{
	/* quiet, but the count changes through shims outside any lock */
	msim_access_note(&folio->refcount.counter, sizeof(folio->refcount.counter),
			 MSIM_ACCESS_LOAD);
	return msim_quiet_load(&folio->refcount.counter, MSIM_RELAXED);
}

/* ---- flags ---- */

bool msim__folio_test_clear_lru(struct msim_folio *folio)
{
	unsigned long old = msim_fetch_and_at(&folio->flags, ~(1UL << MSIM__PG_LRU),
					      MSIM_SEQ_CST, "folio.lru.test_clear");

	return (old >> MSIM__PG_LRU) & 1;
}

void msim__folio_set_lru(struct msim_folio *folio)
{
	msim_fetch_or_at(&folio->flags, 1UL << MSIM__PG_LRU, MSIM_SEQ_CST, "folio.lru.set");
}

bool msim_folio_test_lru(const struct msim_folio *folio)
{
	return msim__folio_test(folio, MSIM__PG_LRU);
}

bool msim_folio_test_active(const struct msim_folio *folio)
{
	return msim__folio_test(folio, MSIM__PG_ACTIVE);
}

bool msim_folio_test_referenced(const struct msim_folio *folio)
{
	return msim__folio_test(folio, MSIM__PG_REFERENCED);
}

bool msim_folio_test_workingset(const struct msim_folio *folio)
{
	return msim__folio_test(folio, MSIM__PG_WORKINGSET);
}

bool msim_folio_test_unevictable(const struct msim_folio *folio)
{
	return msim__folio_test(folio, MSIM__PG_UNEVICTABLE);
}

bool msim_folio_test_mlocked(const struct msim_folio *folio)
{
	return msim__folio_test(folio, MSIM__PG_MLOCKED);
}

void msim_folio_set_referenced(struct msim_folio *folio)
{
	msim__folio_set(folio, MSIM__PG_REFERENCED);
}

void msim_folio_set_active(struct msim_folio *folio)
{
	msim__folio_set(folio, MSIM__PG_ACTIVE);
}

void msim_folio_set_workingset(struct msim_folio *folio)
{
	msim__folio_set(folio, MSIM__PG_WORKINGSET);
}

void msim_folio_set_mlocked(struct msim_folio *folio)
{
	msim__folio_set(folio, MSIM__PG_MLOCKED);
}

/*
 * A fault maps the folio with its accessed bit set (the PTE is made young);
 * the mapping stays until the folio is freed (no unmap is modelled).
 */
void msim_folio_map(struct msim_folio *folio, bool exec)
{
	msim__folio_set(folio, MSIM__PG_MAPPED);
	if (exec)
		msim__folio_set(folio, MSIM__PG_VM_EXEC);
	msim__folio_set(folio, MSIM__PG_YOUNG);
}

void msim_folio_mark_young(struct msim_folio *folio)
{
	msim__folio_set(folio, MSIM__PG_YOUNG);
}

bool msim_folio_mapped(const struct msim_folio *folio)
{
	return msim__folio_test(folio, MSIM__PG_MAPPED);
}

bool msim_folio_test_young(const struct msim_folio *folio)
{
	return msim__folio_test(folio, MSIM__PG_YOUNG);
}

int msim_folio_lru_gen(const struct msim_folio *folio)
{
	return msim_quiet_load(&folio->gen, MSIM_RELAXED);
}

/* ---- plain accessors ---- */

struct msim *msim_folio_host(const struct msim_folio *folio)
{
	return folio->lh->m;
}

unsigned int msim_folio_order(const struct msim_folio *folio)
{
	return folio->order;
}

long msim_folio_nr_pages(const struct msim_folio *folio)
{
	return 1L << folio->order;
}

unsigned int msim_folio_nid(const struct msim_folio *folio)
{
	return folio->nid;
}

enum msim_zone_type msim_folio_zonenum(const struct msim_folio *folio)
{
	return folio->zone;
}

bool msim_folio_is_file_lru(const struct msim_folio *folio)
{
	return folio->type == MSIM_FOLIO_FILE;
}

/*
 * The owner's field (page cache record, swap pte): plain, and not ordered by
 * any lock this layer knows, so both accesses note themselves (yield.h).
 */
void *msim_folio_private(const struct msim_folio *folio)
{
	msim_access_note(&folio->private_data, sizeof(folio->private_data), MSIM_ACCESS_LOAD);
	return folio->private_data;
}

void msim_folio_set_private(struct msim_folio *folio, void *private_data)
{
	msim_access_note(&folio->private_data, sizeof(folio->private_data), MSIM_ACCESS_STORE);
	folio->private_data = private_data;
}

/* ---- memcg_data ---- */

/* memcg_data is written at charge and uncharge, when nobody else looks at it. */
static void *folio_memcg_data(const struct msim_folio *folio)
{
	return msim_quiet_load(&folio->memcg_data, MSIM_ACQUIRE);
}

struct msim_obj_cgroup *msim_folio_objcg(const struct msim_folio *folio)
{
	return folio->lh->reparent_objcg ? folio_memcg_data(folio) : NULL;
}

struct msim_memcg *msim_folio_memcg(const struct msim_folio *folio)
{
	void *data = folio_memcg_data(folio);

	if (!data || !folio->lh->reparent_objcg)
		return data;
	return msim_obj_cgroup_memcg(data);
}

struct msim_memcg *msim_get_mem_cgroup_from_folio(const struct msim_folio *folio)
{
	struct msim_obj_cgroup *objcg = msim_folio_objcg(folio);
	struct msim_memcg *memcg;

	if (objcg)
		return msim_get_mem_cgroup_from_objcg(objcg);
	msim_rcu_read_lock();
	memcg = msim_folio_memcg(folio);
	if (!memcg)
		memcg = msim_root_mem_cgroup(folio->lh->m);
	msim_css_get(memcg);
	msim_rcu_read_unlock();
	return memcg;
}

/* kernel: commit_charge(). */
static void commit_charge(struct msim_folio *folio, void *owner)
{
	msim_quiet_store(&folio->memcg_data, owner, MSIM_RELEASE);
}

static int charge_objcg(struct msim_folio *folio, struct msim_memcg *memcg, unsigned int gfp)
{
	struct msim_obj_cgroup *objcg = msim_get_obj_cgroup_from_memcg(memcg, folio->nid);
	int ret = 0;

	if (!objcg)
		return -EINVAL;
	/* Do not account at the root objcg level. */
	if (!msim_obj_cgroup_is_root(objcg))
		ret = msim_try_charge_memcg(memcg, gfp, (unsigned int)msim_folio_nr_pages(folio));
	if (ret) {
		msim_obj_cgroup_put(objcg);
		return ret;
	}
	commit_charge(folio, objcg);   /* the folio keeps the objcg reference */
	return 0;
}

/* 7.0: try_charge(), then css_get() for memcg_data. */
static int charge_memcg_7_0(struct msim_folio *folio, struct msim_memcg *memcg,
			    unsigned int gfp)
{
	int ret = msim_try_charge(memcg, gfp, (unsigned int)msim_folio_nr_pages(folio));

	if (ret)
		return ret;
	msim_css_get(memcg);
	commit_charge(folio, memcg);
	return 0;
}

int msim_mem_cgroup_charge(struct msim_folio *folio, struct msim_memcg *memcg, unsigned int gfp)
{
	if (!folio || !memcg)
		return -EINVAL;
	if (folio_memcg_data(folio))
		return -EBUSY;
	if (folio->lh->reparent_objcg)
		return charge_objcg(folio, memcg, gfp);
	return charge_memcg_7_0(folio, memcg, gfp);
}

/*
 * kernel: memcg_uncharge(), which has no root test of its own: its callers skip
 * the root objcg. A child's objcg reparented to the root is not the root's, and
 * its pages sit in the root's hierarchical counter: uncharge them there
 * (msim_memcg_uncharge() skips the root, as the model's callers expected).
 */
static void memcg_uncharge_counter(struct msim_memcg *memcg, unsigned int nr)
{
	struct msim_page_counter *c;

	if (!msim_mem_cgroup_is_root(memcg)) {
		msim_memcg_uncharge(memcg, nr);
		return;
	}
	c = msim_memcg_page_counter(memcg);
	if (c)
		msim_page_counter_uncharge(c, nr);
}

/*
 * kernel: uncharge_folio() + uncharge_batch() for one folio: the memcg is read
 * from the objcg under RCU at uncharge time, so after an offline it is the
 * parent; LRU pages are not accounted at the root objcg level.
 */
static void uncharge_objcg(struct msim_folio *folio, struct msim_obj_cgroup *objcg)
{
	unsigned int nr = (unsigned int)msim_folio_nr_pages(folio);

	msim_rcu_read_lock();
	if (!msim_obj_cgroup_is_root(objcg))
		memcg_uncharge_counter(msim_obj_cgroup_memcg(objcg), nr);
	msim_rcu_read_unlock();
	commit_charge(folio, NULL);
	msim_obj_cgroup_put(objcg);
}

void msim_mem_cgroup_uncharge(struct msim_folio *folio)
{
	void *data = folio ? folio_memcg_data(folio) : NULL;
	struct msim_memcg *memcg;

	if (!data)
		return;
	if (folio->lh->reparent_objcg) {
		uncharge_objcg(folio, data);
		return;
	}
	memcg = data;
	msim_memcg_uncharge(memcg, (unsigned int)msim_folio_nr_pages(folio));
	commit_charge(folio, NULL);
	msim_css_put(memcg);
}

int msim_lruvec_stat_mod_folio(struct msim_folio *folio, enum msim_stat_item idx, long val)
{
	struct msim *m = folio->lh->m;
	struct msim_memcg *memcg;
	int ret;

	msim_rcu_read_lock();
	memcg = msim_folio_memcg(folio);
	if (!memcg)
		ret = msim_mod_node_page_state(m, folio->nid, idx, val);
	else
		ret = msim_mod_lruvec_state(msim_mem_cgroup_lruvec(m, memcg, folio->nid), idx, val);
	msim_rcu_read_unlock();
	return ret;
}
