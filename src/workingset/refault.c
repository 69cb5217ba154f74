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
 * folio's own lruvec at eviction (min_seq[type] << LRU_REFS_WIDTH) and the
 * folio's refs beyond the first in the low bits; the refault feeds its tier's
 * refaulted[] history back to the PID controller (lru.h). Recent, which refaults
 * count as activations and restores, and what the folio gets back differ
 * before and after the 6.14 rework (variant mglru-protection). Statistics count
 * only when the eviction lruvec is the folio's.
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

/*
 * kernel: lru_gen_eviction(): the folio's own lruvec (RCU: the folio is
 * isolated). The token is min_seq[type] << LRU_REFS_WIDTH with the folio's refs
 * beyond the first in the low bits; its pages count as evicted from its tier.
 * The shadow's workingset bit is PG_workingset (6.14) or "refs beyond the first"
 * (6.12 passes refs to pack_shadow's bool).
 */
static void *lru_gen_eviction(struct msim__ws_host *wh, struct msim_folio *folio)
{
	unsigned int nid = msim_folio_nid(folio), type = msim_folio_is_file_lru(folio);
	int refs = msim_folio_lru_refs(folio);
	bool ws = msim_folio_test_workingset(folio);
	unsigned int tier = msim_lru_gen_tier_from_refs(wh->m, refs, ws);
	struct msim_lruvec *lruvec;
	struct msim_memcg *memcg;
	unsigned long token;
	unsigned short id;

	msim_rcu_read_lock();
	memcg = msim_folio_memcg(folio);
	if (!memcg)
		memcg = msim_root_mem_cgroup(wh->m);
	id = msim_mem_cgroup_private_id(memcg);
	lruvec = msim_mem_cgroup_lruvec(wh->m, memcg, nid);
	token = msim_lru_gen_min_seq(lruvec, type) << MSIM_LRU_REFS_WIDTH |
		msim_lru_gen_eviction_refs(folio);
	msim_lru_gen_note_evicted(lruvec, type, tier, msim_folio_nr_pages(folio));
	msim_rcu_read_unlock();
	return msim_pack_shadow(id, nid, token, wh->mglru_6_12 ? refs != 0 : ws);
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

/*
 * kernel: lru_gen_test_recent() (RCU held); *lruvec: the eviction memcg's.
 * 6.14: recent while the lruvec's max_seq is within MAX_NR_GENS of the token's
 * sequence. 6.12: only while the token's sequence is still min_seq[type], the
 * oldest generation the folio was evicted from.
 */
static bool lru_gen_test_recent(struct msim__ws_host *wh, const struct msim_shadow *sh, bool file,
				struct msim_lruvec **lruvec)
{
	struct msim_memcg *memcg = msim_mem_cgroup_from_private_id(wh->m, sh->memcgid);
	unsigned long mask = MSIM_EVICTION_MASK >> MSIM_LRU_REFS_WIDTH;
	unsigned long seq = sh->eviction >> MSIM_LRU_REFS_WIDTH, max_seq;

	/* mem_cgroup_lruvec(NULL, pgdat): an id nobody holds reads the root's */
	*lruvec = msim_mem_cgroup_lruvec(wh->m, memcg, sh->nid);
	if (wh->mglru_6_12)
		return seq == (msim_lru_gen_min_seq(*lruvec, file) & mask);
	max_seq = msim_lru_gen_max_seq(*lruvec) & mask;
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
	recent = lru_gen_test_recent(wh, &sh, file, &lruvec);
	msim_rcu_read_unlock();
	return recent;
}

/*
 * kernel 6.12 lru_gen_refault() after the recent test: refs = the token's refs
 * plus the workingset bit, its tier's refaulted[] feeds the PID controller, and
 * every recent refault counts as an activation. A refault in a fault, or of a
 * folio read three or more times, counts as a stall: it comes back with full
 * refs and PG_workingset (sort_folio then protects it) and a restore.
 */
static bool lru_gen_refault_6_12(struct msim__ws_host *wh, struct msim_folio *folio,
				 struct msim_lruvec *lruvec, const struct msim_shadow *sh,
				 bool in_fault)
{
	unsigned int file = msim_folio_is_file_lru(folio);
	long nr = msim_folio_nr_pages(folio);
	int refs = (int)(sh->eviction & ((1UL << MSIM_LRU_REFS_WIDTH) - 1)) + sh->workingset;

	msim_lru_gen_note_refaulted(lruvec, file, msim_lru_gen_tier_from_refs(wh->m, refs, false),
				    nr);
	msim_mod_lruvec_state(lruvec, (enum msim_stat_item)(MSIM_WORKINGSET_ACTIVATE_ANON + file), nr);
	if (in_fault || refs >= (1 << MSIM_LRU_REFS_WIDTH) - 1) {
		msim_folio_set_lru_refs_counter(folio, (1U << MSIM_LRU_REFS_WIDTH) - 1);
		msim_folio_set_workingset(folio);
		MSIM__WS_COUNT(wh, refaults_restored, 1);
		msim_mod_lruvec_state(lruvec,
				      (enum msim_stat_item)(MSIM_WORKINGSET_RESTORE_ANON + file), nr);
	}
	return true;
}

/*
 * kernel (6.14 and newer) lru_gen_refault() after the recent test: refs = the
 * token's refs plus the first access; the tier (the last one for a workingset
 * folio) feeds refaulted[]. Every recent refault in a fault counts as an
 * activation, workingset or not, because folio_add_lru() makes every folio
 * added in a fault active (filemap_miss does the same); a folio that was in
 * the workingset gets PG_workingset back and counts as a restore, any other
 * gets its refs counter back.
 */
static bool lru_gen_refault_6_14(struct msim__ws_host *wh, struct msim_folio *folio,
				 struct msim_lruvec *lruvec, const struct msim_shadow *sh,
				 bool in_fault)
{
	unsigned int file = msim_folio_is_file_lru(folio);
	long nr = msim_folio_nr_pages(folio);
	int refs = (int)(sh->eviction & ((1UL << MSIM_LRU_REFS_WIDTH) - 1)) + 1;

	msim_lru_gen_note_refaulted(lruvec, file,
				    msim_lru_gen_tier_from_refs(wh->m, refs, sh->workingset), nr);
	if (in_fault)
		msim_mod_lruvec_state(lruvec,
				      (enum msim_stat_item)(MSIM_WORKINGSET_ACTIVATE_ANON + file), nr);
	if (!sh->workingset) {
		msim_folio_set_lru_refs_counter(folio, (unsigned int)refs - 1);
		return in_fault;
	}
	msim_folio_set_workingset(folio);
	MSIM__WS_COUNT(wh, refaults_restored, 1);
	msim_mod_lruvec_state(lruvec, (enum msim_stat_item)(MSIM_WORKINGSET_RESTORE_ANON + file), nr);
	return in_fault;
}

/*
 * kernel: lru_gen_refault(): counted only when the eviction lruvec is the
 * folio's; WORKINGSET_REFAULT for every such refault, the rest per version.
 * Returns whether WORKINGSET_ACTIVATE was counted.
 */
static bool lru_gen_refault(struct msim__ws_host *wh, struct msim_folio *folio,
			    const struct msim_shadow *sh, bool in_fault)
{
	unsigned int file = msim_folio_is_file_lru(folio);
	long nr = msim_folio_nr_pages(folio);
	struct msim_lruvec *lruvec;
	bool recent, activated = false;

	msim_rcu_read_lock();
	recent = lru_gen_test_recent(wh, sh, file, &lruvec);
	if (lruvec != msim_folio_lruvec(folio)) {
		MSIM__WS_COUNT(wh, refaults_lruvec_mismatch, 1);
		goto unlock;
	}
	msim_mod_lruvec_state(lruvec, (enum msim_stat_item)(MSIM_WORKINGSET_REFAULT_ANON + file), nr);
	if (!recent)
		goto unlock;
	MSIM__WS_COUNT(wh, refaults_recent, 1);
	activated = wh->mglru_6_12 ? lru_gen_refault_6_12(wh, folio, lruvec, sh, in_fault)
				   : lru_gen_refault_6_14(wh, folio, lruvec, sh, in_fault);
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
			MSIM__WS_COUNT(wh, refaults_restored, 1);
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
