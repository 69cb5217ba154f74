/* SPDX-License-Identifier: MIT */
/*
 * refault.c - eviction and refault (kernel: mm/workingset.c
 * workingset_age_nonresident, workingset_eviction, lru_gen_eviction,
 * workingset_test_recent, lru_gen_test_recent, workingset_refault,
 * lru_gen_refault, workingset_activation; docs/workingset.md).
 *
 * Classic LRU: each lruvec has a clock, nonresident_age, advanced by evictions
 * and activations there and in every descendant. An eviction stores the clock
 * of the reclaim target; a refault computes the refault distance (the clock
 * now minus then) on the eviction memcg's lruvec, found again by private id,
 * and activates the folio if the distance fits in that lruvec's workingset
 * (NR_ACTIVE_FILE, read from rstat: possibly stale, hence the flush).
 *
 * MGLRU: the shadow holds the oldest generation's sequence number of the
 * folio's own lruvec at eviction (min_seq[type] << LRU_REFS_WIDTH; refs and
 * tiers are not modelled, so its low bits are 0); the refault is recent when
 * the lruvec's max_seq is within MAX_NR_GENS of it. Statistics count only when
 * the eviction lruvec is the folio's; activation only in a fault.
 *
 * The decision is the eviction memcg's; the statistics are the new owner's.
 */
#include <stdlib.h>

#include <memcgsim/rcu.h>
#include <memcgsim/rstat.h>
#include <memcgsim/yield.h>

#include "workingset/ws_internal.h"

void msim_workingset_age_nonresident(struct msim *m, struct msim_memcg *memcg, unsigned int nid,
				     unsigned long nr_pages)
{
	struct msim__ws_host *wh = msim__ws_host(m);

	if (!wh)
		return;
	if (!memcg)
		memcg = msim_root_mem_cgroup(m);
	/* the lruvec and every ancestor's: a parent's LRU order is its children's combined */
	do {
		msim_atomic_long_t *age = msim__ws_nonresident_age(wh, memcg, nid);

		if (age)
			msim_atomic_long_add(age, (long)nr_pages);
	} while ((memcg = msim_parent_mem_cgroup(memcg)));
}

/* READ_ONCE of a clock; a memcg made before the layer was attached has none (0). */
static unsigned long age_read(msim_atomic_long_t *age)
{
	return age ? (unsigned long)msim_atomic_long_read_at(age, "workingset.nonresident_age.read")
		   : 0;
}

/* kernel: lru_gen_eviction(): the folio's own lruvec (RCU: the folio is isolated). */
static void *lru_gen_eviction(struct msim__ws_host *wh, struct msim_folio *folio)
{
	unsigned int nid = msim_folio_nid(folio), type = msim_folio_is_file_lru(folio);
	struct msim_memcg *memcg;
	unsigned long token;
	unsigned short id;

	msim_rcu_read_lock();
	memcg = msim_folio_memcg(folio);
	if (!memcg)
		memcg = msim_root_mem_cgroup(wh->m);
	id = msim_mem_cgroup_private_id(memcg);
	token = msim_lru_gen_min_seq(msim_mem_cgroup_lruvec(wh->m, memcg, nid), type)
		<< MSIM_LRU_REFS_WIDTH;
	msim_rcu_read_unlock();
	return msim_pack_shadow(id, nid, token, msim_folio_test_workingset(folio));
}

void *msim_workingset_eviction(struct msim_folio *folio, struct msim_memcg *target_memcg)
{
	struct msim__ws_host *wh = folio ? msim__ws_host(msim_folio_host(folio)) : NULL;
	unsigned int nid;
	msim_atomic_long_t *age;
	unsigned long eviction;
	struct msim_memcg *memcg;

	if (!wh)
		return NULL;
	if (wh->mglru)
		return lru_gen_eviction(wh, folio);
	nid = msim_folio_nid(folio);
	/* the reclaim target's lruvec; NULL target: the root's */
	memcg = target_memcg ? target_memcg : msim_root_mem_cgroup(wh->m);
	age = msim__ws_nonresident_age(wh, memcg, nid);
	eviction = age_read(age) >> wh->bucket_order;
	/* read before it is advanced */
	msim_workingset_age_nonresident(wh->m, memcg, nid, (unsigned long)msim_folio_nr_pages(folio));
	return msim_pack_shadow(msim_mem_cgroup_private_id(memcg), nid, eviction,
				msim_folio_test_workingset(folio));
}

/* kernel: lru_gen_test_recent() (RCU held); *lruvec: the eviction memcg's. */
static bool lru_gen_test_recent(struct msim__ws_host *wh, const struct msim_shadow *sh,
				struct msim_lruvec **lruvec)
{
	struct msim_memcg *memcg = msim_mem_cgroup_from_private_id(wh->m, sh->memcgid);
	unsigned long max_seq, seq = sh->eviction >> MSIM_LRU_REFS_WIDTH;

	/* mem_cgroup_lruvec(NULL, pgdat): an id nobody holds reads the root's */
	*lruvec = msim_mem_cgroup_lruvec(wh->m, memcg, sh->nid);
	max_seq = msim_lru_gen_max_seq(*lruvec) & (MSIM_EVICTION_MASK >> MSIM_LRU_REFS_WIDTH);
	return (max_seq > seq ? max_seq - seq : seq - max_seq) < MSIM_MAX_NR_GENS;
}

/* The eviction memcg by id, pinned (mem_cgroup_tryget), or NULL: freed, or never. */
static struct msim_memcg *eviction_memcg_get(struct msim__ws_host *wh, unsigned short id)
{
	struct msim_memcg *memcg;

	/* the lookup's first access is the RCU section's shim */
	msim_yield_access("workingset.test_recent.lookup", NULL, MSIM_ACCESS_NONE);
	msim_rcu_read_lock();
	memcg = msim_mem_cgroup_from_private_id(wh->m, id);
	if (memcg && !msim_css_tryget(memcg))
		memcg = NULL;
	msim_rcu_read_unlock();
	return memcg;
}

/* The flush before the workingset size is read; variant workingset-root-flush. */
static void test_recent_flush(struct msim__ws_host *wh, struct msim_memcg *memcg)
{
	if (wh->root_flush_skip && msim_mem_cgroup_is_root(memcg)) {
		MSIM__WS_COUNT(wh, root_flushes_skipped, 1);
		return;
	}
	MSIM__WS_COUNT(wh, test_recent_flushes, 1);
	msim_mem_cgroup_flush_stats_ratelimited(memcg);
}

/* kernel: workingset_test_recent() without the MGLRU branch. */
static bool classic_test_recent(struct msim__ws_host *wh, const struct msim_shadow *sh, bool file,
				bool flush)
{
	unsigned long eviction = sh->eviction << wh->bucket_order, refault, distance, size;
	struct msim_memcg *memcg = eviction_memcg_get(wh, sh->memcgid);
	struct msim_lruvec *lruvec;

	if (!memcg) {
		MSIM__WS_COUNT(wh, refaults_memcg_gone, 1);
		return false;
	}
	if (flush)
		test_recent_flush(wh, memcg);
	lruvec = msim_mem_cgroup_lruvec(wh->m, memcg, sh->nid);
	refault = age_read(msim__ws_nonresident_age(wh, memcg, sh->nid));
	/* unsigned: exact across the clock's overflow */
	distance = (refault - eviction) & MSIM_EVICTION_MASK;
	/* no swap is modelled: mem_cgroup_get_nr_swap_pages() is 0, anon never counts */
	size = msim_lruvec_page_state(lruvec, MSIM_NR_ACTIVE_FILE);
	if (!file)
		size += msim_lruvec_page_state(lruvec, MSIM_NR_INACTIVE_FILE);
	msim_css_put(memcg);
	return distance <= size;
}

bool msim_workingset_test_recent(struct msim *m, void *shadow, bool file, bool *workingset,
				 bool flush)
{
	struct msim__ws_host *wh = msim__ws_host(m);
	struct msim_lruvec *lruvec;
	struct msim_shadow sh;
	bool recent;

	if (!wh || msim_unpack_shadow(shadow, &sh) || sh.nid >= wh->nr_nodes)
		return false;
	if (workingset)
		*workingset = sh.workingset;
	if (!wh->mglru)
		return classic_test_recent(wh, &sh, file, flush);
	msim_rcu_read_lock();
	recent = lru_gen_test_recent(wh, &sh, &lruvec);
	msim_rcu_read_unlock();
	return recent;
}

/* kernel: lru_gen_refault(). */
static bool lru_gen_refault(struct msim__ws_host *wh, struct msim_folio *folio,
			    const struct msim_shadow *sh, bool in_fault)
{
	unsigned int file = msim_folio_is_file_lru(folio);
	long nr = msim_folio_nr_pages(folio);
	struct msim_lruvec *lruvec;
	bool recent, activated = false;

	msim_rcu_read_lock();
	recent = lru_gen_test_recent(wh, sh, &lruvec);
	if (lruvec != msim_folio_lruvec(folio)) {
		MSIM__WS_COUNT(wh, refaults_lruvec_mismatch, 1);
		goto unlock;
	}
	msim_mod_lruvec_state(lruvec, (enum msim_stat_item)(MSIM_WORKINGSET_REFAULT_ANON + file), nr);
	if (!recent)
		goto unlock;
	/* folio_add_lru() makes it active when lru_gen_in_fault() */
	if (in_fault) {
		msim_mod_lruvec_state(lruvec,
				      (enum msim_stat_item)(MSIM_WORKINGSET_ACTIVATE_ANON + file), nr);
		activated = true;
	}
	if (sh->workingset) {
		msim_folio_set_workingset(folio);
		msim_mod_lruvec_state(lruvec,
				      (enum msim_stat_item)(MSIM_WORKINGSET_RESTORE_ANON + file), nr);
	}
unlock:
	msim_rcu_read_unlock();
	return activated;
}

/* kernel: workingset_refault() for the classic LRU. */
static bool classic_refault(struct msim__ws_host *wh, struct msim_folio *folio,
			    const struct msim_shadow *sh, void *shadow)
{
	unsigned int file = msim_folio_is_file_lru(folio), nid = msim_folio_nid(folio);
	long nr = msim_folio_nr_pages(folio);
	struct msim_memcg *memcg = msim_get_mem_cgroup_from_folio(folio);
	struct msim_lruvec *lruvec = msim_mem_cgroup_lruvec(wh->m, memcg, nid);
	bool workingset, recent;

	(void)sh;
	msim_mod_lruvec_state(lruvec, (enum msim_stat_item)(MSIM_WORKINGSET_REFAULT_ANON + file), nr);
	recent = msim_workingset_test_recent(wh->m, shadow, file, &workingset, true);
	if (recent) {
		msim_folio_set_active(folio);
		msim_workingset_age_nonresident(wh->m, memcg, nid, (unsigned long)nr);
		msim_mod_lruvec_state(lruvec,
				      (enum msim_stat_item)(MSIM_WORKINGSET_ACTIVATE_ANON + file), nr);
		if (workingset) {
			msim_folio_set_workingset(folio);
			msim_mod_lruvec_state(
				lruvec, (enum msim_stat_item)(MSIM_WORKINGSET_RESTORE_ANON + file), nr);
		}
	}
	msim_css_put(memcg);
	return recent;
}

bool msim__ws_refault(struct msim__ws_host *wh, struct msim_folio *folio, void *shadow,
		      bool in_fault)
{
	struct msim_shadow sh;
	bool activated;

	if (msim_unpack_shadow(shadow, &sh) || sh.nid >= wh->nr_nodes)
		return false;
	MSIM__WS_COUNT(wh, refaults, 1);
	activated = wh->mglru ? lru_gen_refault(wh, folio, &sh, in_fault)
			      : classic_refault(wh, folio, &sh, shadow);
	if (activated)
		MSIM__WS_COUNT(wh, refaults_activated, 1);
	return activated;
}

bool msim_workingset_refault(struct msim_folio *folio, void *shadow, bool in_fault)
{
	struct msim__ws_host *wh = folio ? msim__ws_host(msim_folio_host(folio)) : NULL;

	return wh ? msim__ws_refault(wh, folio, shadow, in_fault) : false;
}

void msim_workingset_activation(struct msim_folio *folio)
{
	struct msim_memcg *memcg;
	struct msim *m;

	if (!folio || !msim__ws_host(m = msim_folio_host(folio)))
		return;
	/* only charged folios (kernel: folio_memcg_charged()) */
	msim_rcu_read_lock();
	memcg = msim_folio_memcg(folio);
	if (memcg)
		msim_workingset_age_nonresident(m, memcg, msim_folio_nid(folio),
						(unsigned long)msim_folio_nr_pages(folio));
	msim_rcu_read_unlock();
}
