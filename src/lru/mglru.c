/* SPDX-License-Identifier: MIT */
/*
 * mglru.c - the multi-gen LRU at the level the threads need (mm/vmscan.c
 * lru_gen_*, include/linux/mm_inline.h lru_gen_add_folio/del_folio/update_size).
 *
 * An lruvec has one max_seq and a min_seq per type (anon, file); generation seq
 * lives at index seq % MAX_NR_GENS of lrugen->folios[gen][type][zone], and
 * between MIN_NR_GENS and MAX_NR_GENS generations exist per type. The two
 * youngest are "active" for the statistics NR_ACTIVE_* (lru_gen_is_active).
 * Sizes go to lrugen->nr_pages and, through __update_lru_size(), to the lruvec
 * statistics, never to mz->lru_zone_size (lru_size.c).
 *
 * Refs and tiers (accesses through file descriptors, folio_mark_accessed) and
 * the PID controller that protects tiers refaulting more than the first are
 * modelled per variant mglru-protection (the 6.14 rework or 6.12); see the
 * "refs and tiers" section below.
 *
 * Left out: the page-table walk and bloom filters (an accessed bit is looked
 * at in eviction only, mglru_evict.c), the memcg LRU (per-node memcg generations),
 * timestamps, the type selection by refaults (file first). See docs/lru.md.
 */
#include <errno.h>

#include "lru/lru_internal.h"

unsigned int msim_lru_gen_from_seq(unsigned long seq)
{
	return (unsigned int)(seq % MSIM_MAX_NR_GENS);
}

/* The lock holder's view (no race window: it is the only writer). */
unsigned long msim__lru_gen_max_seq(const struct msim__lru_vec *lv)
{
	return msim_quiet_load(&lv->lrugen.max_seq, MSIM_RELAXED);
}

unsigned long msim__lru_gen_min_seq(const struct msim__lru_vec *lv, unsigned int type)
{
	return msim_quiet_load(&lv->lrugen.min_seq[type], MSIM_RELAXED);
}

/*
 * min_seq++ (lock held). msim_lru_gen_min_seq() reads it without the lock (the
 * MGLRU eviction's token), so the store is noted (yield.h's contract) and so is
 * that load; the lock holder's own loads are ordered by the lock.
 */
static void min_seq_inc(struct msim__lru_vec *lv, unsigned int type)
{
	msim_access_note(&lv->lrugen.min_seq[type], sizeof(lv->lrugen.min_seq[type]),
			 MSIM_ACCESS_STORE);
	msim_quiet_store(&lv->lrugen.min_seq[type], msim__lru_gen_min_seq(lv, type) + 1, MSIM_RELAXED);
}

unsigned int msim__get_nr_gens(const struct msim__lru_vec *lv, unsigned int type)
{
	return (unsigned int)(msim__lru_gen_max_seq(lv) - msim__lru_gen_min_seq(lv, type) + 1);
}

bool msim__lru_gen_is_active(const struct msim__lru_vec *lv, unsigned int gen)
{
	unsigned long max_seq = msim__lru_gen_max_seq(lv);

	return gen == msim_lru_gen_from_seq(max_seq) || gen == msim_lru_gen_from_seq(max_seq - 1);
}

static void nr_pages_add(struct msim__lru_vec *lv, unsigned int gen, unsigned int type,
			 enum msim_zone_type zone, long delta)
{
	long *p = &lv->lrugen.nr_pages[gen][type][zone];

	msim_store_at(p, msim_quiet_load(p, MSIM_RELAXED) + delta, MSIM_RELAXED,
		      "lru_gen.nr_pages");
}

/*
 * kernel: lru_gen_update_size(): addition and deletion count as inactive or
 * active by the generation; a move counts only inactive -> active (promotion;
 * demotion needs isolation, and the aging moves whole generations itself).
 */
static void lru_gen_update_size(struct msim__lru_vec *lv, struct msim_folio *folio,
				int old_gen, int new_gen)
{
	unsigned int type = msim__folio_type(folio);
	enum msim_zone_type zone = folio->zone;
	long delta = msim_folio_nr_pages(folio);
	enum msim_lru_list lru = (enum msim_lru_list)(type * MSIM_LRU_INACTIVE_FILE);

	if (old_gen >= 0)
		nr_pages_add(lv, (unsigned int)old_gen, type, zone, -delta);
	if (new_gen >= 0)
		nr_pages_add(lv, (unsigned int)new_gen, type, zone, delta);
	if (old_gen < 0) {
		if (msim__lru_gen_is_active(lv, (unsigned int)new_gen))
			lru += MSIM_LRU_ACTIVE;
		msim__update_lru_size_stats(lv, lru, zone, delta);
		return;
	}
	if (new_gen < 0) {
		if (msim__lru_gen_is_active(lv, (unsigned int)old_gen))
			lru += MSIM_LRU_ACTIVE;
		msim__update_lru_size_stats(lv, lru, zone, -delta);
		return;
	}
	if (!msim__lru_gen_is_active(lv, (unsigned int)old_gen) &&
	    msim__lru_gen_is_active(lv, (unsigned int)new_gen)) {
		msim__update_lru_size_stats(lv, lru, zone, -delta);
		msim__update_lru_size_stats(lv, lru + MSIM_LRU_ACTIVE, zone, delta);
	}
}

/*
 * kernel: lru_gen_folio_seq() (newest): active (a refault) -> the second youngest
 * (the youngest if workingset); reclaiming (put back) -> the oldest; anon -> the
 * second youngest; file -> the oldest (the second oldest if workingset). Never
 * below min_seq.
 */
unsigned long msim__lru_gen_folio_seq(const struct msim__lru_vec *lv,
				      const struct msim_folio *folio, bool reclaiming)
{
	unsigned int type = msim__folio_type(folio);
	unsigned long ws = msim__folio_test(folio, MSIM__PG_WORKINGSET);
	unsigned long gen, seq, lo = msim__lru_gen_min_seq(lv, type);

	if (msim__folio_test(folio, MSIM__PG_ACTIVE))
		gen = MSIM_MIN_NR_GENS - ws;
	else if (reclaiming)
		gen = MSIM_MAX_NR_GENS;
	else if (!type)
		gen = MSIM_MIN_NR_GENS;
	else
		gen = MSIM_MAX_NR_GENS - ws;
	seq = msim__lru_gen_max_seq(lv) + 1 - gen;
	return seq > lo ? seq : lo;
}

/*
 * kernel 6.12: lru_gen_add_folio()'s four cases: active (freshly faulted in, or
 * a refault made active) -> the youngest; anon -> the second youngest; put back
 * by reclaim, or only MIN_NR_GENS + 1 generations -> the oldest; else the
 * second oldest. PG_workingset does not place a folio in 6.12.
 */
static unsigned long lru_gen_folio_seq_6_12(const struct msim__lru_vec *lv,
					    const struct msim_folio *folio, bool reclaiming)
{
	unsigned int type = msim__folio_type(folio);
	unsigned long max_seq = msim__lru_gen_max_seq(lv), lo = msim__lru_gen_min_seq(lv, type);

	if (msim__folio_test(folio, MSIM__PG_ACTIVE))
		return max_seq;
	if (!type)
		return max_seq - 1;
	if (reclaiming || lo + MSIM_MIN_NR_GENS >= max_seq)
		return lo;
	return lo + 1;
}

static struct msim_list_head *gen_list(struct msim__lru_vec *lv, unsigned int gen,
				   unsigned int type, enum msim_zone_type zone)
{
	return &lv->lrugen.folios[gen][type][zone];
}

bool msim__lru_gen_add_folio(struct msim__lru_vec *lv, struct msim_folio *folio,
			     bool reclaiming)
{
	unsigned int gen, type = msim__folio_type(folio);

	if (msim__folio_test(folio, MSIM__PG_UNEVICTABLE) || !lv->lrugen.enabled)
		return false;
	gen = msim_lru_gen_from_seq(lv->lh->mglru_6_12 ? lru_gen_folio_seq_6_12(lv, folio, reclaiming)
						       : msim__lru_gen_folio_seq(lv, folio, reclaiming));
	msim_quiet_store(&folio->gen, (int)gen, MSIM_RELAXED);
	/* 6.12 also clears the refs of an active folio (PG_workingset stays: PSI) */
	if (lv->lh->mglru_6_12 && msim__folio_test(folio, MSIM__PG_ACTIVE)) {
		msim__folio_set_refs_counter(folio, 0);
		msim__folio_clear(folio, MSIM__PG_REFERENCED);
	}
	msim__folio_clear(folio, MSIM__PG_ACTIVE);
	lru_gen_update_size(lv, folio, -1, (int)gen);
	if (reclaiming)
		msim_list_add_tail(&folio->lru, gen_list(lv, gen, type, folio->zone));
	else
		msim_list_add(&folio->lru, gen_list(lv, gen, type, folio->zone));
	return true;
}

/* A folio deleted outside reclaim leaves with PG_active if its generation was active. */
bool msim__lru_gen_del_folio(struct msim__lru_vec *lv, struct msim_folio *folio,
			     bool reclaiming)
{
	int gen = msim_quiet_load(&folio->gen, MSIM_RELAXED);

	if (gen < 0)
		return false;
	msim_quiet_store(&folio->gen, -1, MSIM_RELAXED);
	if (!reclaiming && msim__lru_gen_is_active(lv, (unsigned int)gen))
		msim__folio_set(folio, MSIM__PG_ACTIVE);
	lru_gen_update_size(lv, folio, gen, -1);
	msim_list_del_init(&folio->lru);
	return true;
}

/*
 * kernel: folio_inc_gen(): a folio of the oldest generation moves to the next
 * one, its refs cleared so that counting starts over (6.12: LRU_REFS_MASK,
 * PG_referenced and PG_workingset; 6.14: LRU_REFS_MASK and PG_referenced,
 * PG_workingset staying until the folio is reclaimed). sort_folio() moves a
 * protected folio to the tail (6.12) or the head (6.14) of that generation,
 * inc_min_seq() to its tail.
 */
void msim__lru_gen_inc_gen(struct msim__lru_vec *lv, struct msim_folio *folio, bool head)
{
	unsigned int type = msim__folio_type(folio);
	int old_gen = msim_quiet_load(&folio->gen, MSIM_RELAXED);
	unsigned int new_gen = msim_lru_gen_from_seq(msim__lru_gen_min_seq(lv, type) + 1);
	struct msim_list_head *dst = gen_list(lv, new_gen, type, folio->zone);

	msim__folio_set_refs_counter(folio, 0);
	msim__folio_clear(folio, MSIM__PG_REFERENCED);
	if (lv->lh->mglru_6_12)
		msim__folio_clear(folio, MSIM__PG_WORKINGSET);
	msim_quiet_store(&folio->gen, (int)new_gen, MSIM_RELAXED);
	lru_gen_update_size(lv, folio, old_gen, (int)new_gen);
	if (head)
		msim_list_move(&folio->lru, dst);
	else
		msim_list_move_tail(&folio->lru, dst);
}

/*
 * kernel: reset_ctrl_pos(lruvec, type, carryover) with NR_HIST_GENS 1, when
 * min_seq[type] moves: the averages take half of themselves plus the oldest
 * generation's counts, which start again from 0. (The call from inc_max_seq
 * does nothing with one history generation.)
 */
static void reset_ctrl_pos(struct msim__lru_vec *lv, unsigned int type)
{
	struct msim__lru_gen *g = &lv->lrugen;

	for (unsigned int tier = 0; tier < MSIM_MAX_NR_TIERS; tier++) {
		unsigned long refaulted = msim_quiet_load(&g->refaulted[type][tier], MSIM_RELAXED);
		unsigned long total = msim_quiet_load(&g->evicted[type][tier], MSIM_RELAXED) +
				      g->protected_pages[type][tier];

		g->avg_refaulted[type][tier] = (g->avg_refaulted[type][tier] + refaulted) / 2;
		g->avg_total[type][tier] = (g->avg_total[type][tier] + total) / 2;
		msim_quiet_store(&g->refaulted[type][tier], 0, MSIM_RELAXED);
		msim_quiet_store(&g->evicted[type][tier], 0, MSIM_RELAXED);
		g->protected_pages[type][tier] = 0;
	}
}

/*
 * kernel: inc_min_seq(): fold the oldest generation of type into the next one,
 * each folio taken from the tail and appended to the next generation's tail
 * (folio_inc_gen), then min_seq++. Both generations are inactive here. 6.14
 * counts the folios it moves as protected at their tier, except the workingset
 * being lazily promoted (all of LRU_REFS_FLAGS and PG_workingset set).
 */
static void inc_min_seq(struct msim__lru_vec *lv, unsigned int type)
{
	unsigned int old_gen = msim_lru_gen_from_seq(msim__lru_gen_min_seq(lv, type));

	for (unsigned int z = 0; z < MSIM_MAX_NR_ZONES; z++) {
		struct msim_list_head *head = gen_list(lv, old_gen, type, (enum msim_zone_type)z);

		while (!msim_list_empty(head)) {
			struct msim_folio *folio = msim_container_of(head->prev, struct msim_folio, lru);
			int refs = msim__folio_lru_refs(folio);
			bool ws = msim__folio_test(folio, MSIM__PG_WORKINGSET);

			msim__lru_gen_inc_gen(lv, folio, false);
			if (!lv->lh->mglru_6_12 && refs + ws != (1 << MSIM__LRU_REFS_WIDTH) + 1)
				msim__lru_gen_count_protected(lv, type,
							      msim__lru_tier_from_refs(lv->lh, refs, ws),
							      msim_folio_nr_pages(folio));
		}
	}
	reset_ctrl_pos(lv, type);
	min_seq_inc(lv, type);
}

/*
 * kernel: inc_max_seq(): make room (inc_min_seq for a type at MAX_NR_GENS), move
 * the statistics of the generation that stops being active (max_seq - 1) from
 * active to inactive, then publish max_seq + 1.
 */
void msim__lru_gen_inc_max_seq_locked(struct msim__lru_vec *lv)
{
	unsigned long max_seq = msim__lru_gen_max_seq(lv);
	unsigned int prev = msim_lru_gen_from_seq(max_seq - 1);
	unsigned int next = msim_lru_gen_from_seq(max_seq + 1);

	for (int type = MSIM_ANON_AND_FILE - 1; type >= 0; type--)
		if (msim__get_nr_gens(lv, (unsigned int)type) == MSIM_MAX_NR_GENS)
			inc_min_seq(lv, (unsigned int)type);
	for (unsigned int type = 0; type < MSIM_ANON_AND_FILE; type++) {
		enum msim_lru_list lru = (enum msim_lru_list)(type * MSIM_LRU_INACTIVE_FILE);

		for (unsigned int z = 0; z < MSIM_MAX_NR_ZONES; z++) {
			long delta = lv->lrugen.nr_pages[prev][type][z] -
				     lv->lrugen.nr_pages[next][type][z];

			if (!delta)
				continue;
			msim__update_lru_size_stats(lv, lru, (enum msim_zone_type)z, delta);
			msim__update_lru_size_stats(lv, lru + MSIM_LRU_ACTIVE,
						    (enum msim_zone_type)z, -delta);
		}
	}
	msim_store_at(&lv->lrugen.max_seq, max_seq + 1, MSIM_RELEASE, "lru_gen.max_seq.inc");
}

static bool gen_empty(struct msim__lru_vec *lv, unsigned int gen, unsigned int type)
{
	for (unsigned int z = 0; z < MSIM_MAX_NR_ZONES; z++)
		if (!msim_list_empty(gen_list(lv, gen, type, (enum msim_zone_type)z)))
			return false;
	return true;
}

void msim__lru_gen_try_inc_min_seq_locked(struct msim__lru_vec *lv, unsigned int type)
{
	bool moved = false;

	while (msim__get_nr_gens(lv, type) > MSIM_MIN_NR_GENS &&
	       gen_empty(lv, msim_lru_gen_from_seq(msim__lru_gen_min_seq(lv, type)), type)) {
		min_seq_inc(lv, type);
		moved = true;
	}
	/* kernel: try_to_inc_min_seq() resets once per type whose min_seq moved */
	if (moved)
		reset_ctrl_pos(lv, type);
}

/*
 * kernel: max_lru_gen_memcg() for one node: age the parent until each type has
 * MAX_NR_GENS generations, so that every generation index of the child is a
 * live generation of the parent. The lock is taken per step (cond_resched in
 * between); eviction may undo it before reparenting locks: hence the recheck.
 */
void msim__max_lru_gen_memcg(struct msim__lru_vec *lv)
{
	for (unsigned int type = 0; type < MSIM_ANON_AND_FILE; type++) {
		for (;;) {
			msim__lru_vec_lock(lv);
			if (msim__get_nr_gens(lv, type) >= MSIM_MAX_NR_GENS) {
				msim__lru_vec_unlock(lv);
				break;
			}
			msim__lru_gen_inc_max_seq_locked(lv);
			msim__lru_vec_unlock(lv);
		}
	}
}

/* kernel: recheck_lru_gen_max_memcg() for one node, under the lock. */
bool msim__recheck_lru_gen_max_memcg(const struct msim__lru_vec *lv)
{
	for (unsigned int type = 0; type < MSIM_ANON_AND_FILE; type++)
		if (msim__get_nr_gens(lv, type) != MSIM_MAX_NR_GENS)
			return false;
	return true;
}

/* ---- refs and tiers (mm/swap.c, include/linux/mm_inline.h, mm/vmscan.c) ---- */

/*
 * The refs counter lives in folio->flags (LRU_REFS_MASK) and is changed with a
 * cmpxchg loop, as the kernel's, by accesses that hold no lock: each access
 * notes itself (the flags word's contract in lru_internal.h).
 */
unsigned int msim__folio_refs_counter(const struct msim_folio *folio)
{
	msim_access_note(&folio->flags, sizeof(folio->flags), MSIM_ACCESS_LOAD);
	return (unsigned int)((msim_quiet_load(&folio->flags, MSIM_RELAXED) & MSIM__LRU_REFS_MASK) >>
			      MSIM__PG_REFS_SHIFT);
}

/* kernel: set_mask_bits(&folio->flags, LRU_REFS_MASK, refs << LRU_REFS_PGOFF). */
void msim__folio_set_refs_counter(struct msim_folio *folio, unsigned int refs)
{
	unsigned long old = msim_quiet_load(&folio->flags, MSIM_RELAXED), new;

	msim_access_note(&folio->flags, sizeof(folio->flags), MSIM_ACCESS_RMW);
	do {
		new = (old & ~MSIM__LRU_REFS_MASK) |
		      (((unsigned long)refs << MSIM__PG_REFS_SHIFT) & MSIM__LRU_REFS_MASK);
	} while (!msim_quiet_try_cmpxchg(&folio->flags, &old, new, MSIM_SEQ_CST, MSIM_RELAXED));
}

/*
 * kernel: folio_lru_refs(). 6.12: the accesses beyond PG_referenced (the counter
 * plus PG_workingset). 6.14: every access including PG_referenced (the counter
 * + 1), 0 without PG_referenced (the counter is valid only with it).
 */
int msim__folio_lru_refs(const struct msim_folio *folio)
{
	unsigned int counter = msim__folio_refs_counter(folio);

	if (folio->lh->mglru_6_12)
		return (int)counter + msim__folio_test(folio, MSIM__PG_WORKINGSET);
	if (!msim__folio_test(folio, MSIM__PG_REFERENCED))
		return 0;
	return (int)counter + 1;
}

/* order_base_2(): ceil(log2(n)), 0 for n <= 1. */
static unsigned int order_base_2(unsigned int n)
{
	unsigned int order = 0;

	while ((1U << order) < n)
		order++;
	return order;
}

/*
 * kernel: lru_tier_from_refs(). 6.12: order_base_2(refs + 1) (refs counts the
 * accesses beyond the first). 6.14: PG_workingset is the last tier, else
 * order_base_2(refs).
 */
unsigned int msim__lru_tier_from_refs(const struct msim__lru_host *lh, int refs, bool workingset)
{
	if (refs < 0)
		refs = 0;
	if (lh->mglru_6_12)
		return order_base_2((unsigned int)refs + 1);
	return workingset ? MSIM_MAX_NR_TIERS - 1 : order_base_2((unsigned int)refs);
}

/*
 * kernel: 6.14 lru_gen_inc_refs(): PG_referenced (clearing a stale counter),
 * then the counter up to its maximum, then PG_workingset; nothing for a folio
 * off the LRU. 6.12 folio_inc_refs(): PG_referenced, then PG_workingset, then
 * the counter.
 */
void msim__lru_gen_inc_refs(struct msim_folio *folio)
{
	unsigned int max = (1U << MSIM__LRU_REFS_WIDTH) - 1, counter;

	if (msim__folio_test(folio, MSIM__PG_UNEVICTABLE))
		return;
	if (!folio->lh->mglru_6_12 && !msim__folio_test(folio, MSIM__PG_LRU))
		return;
	if (!msim__folio_test(folio, MSIM__PG_REFERENCED)) {
		if (!folio->lh->mglru_6_12)
			msim__folio_set_refs_counter(folio, 0);
		msim__folio_set(folio, MSIM__PG_REFERENCED);
		return;
	}
	if (folio->lh->mglru_6_12 && !msim__folio_test(folio, MSIM__PG_WORKINGSET)) {
		msim__folio_set(folio, MSIM__PG_WORKINGSET);
		return;
	}
	counter = msim__folio_refs_counter(folio);
	if (counter < max)
		msim__folio_set_refs_counter(folio, counter + 1);
	else if (!folio->lh->mglru_6_12)
		msim__folio_set(folio, MSIM__PG_WORKINGSET);
}

void msim__lru_gen_count_protected(struct msim__lru_vec *lv, unsigned int type,
				   unsigned int tier, long delta)
{
	if (tier < MSIM_MAX_NR_TIERS)
		lv->lrugen.protected_pages[type][tier] += (unsigned long)delta;
}

/* kernel: struct ctrl_pos and read_ctrl_pos() for one tier (NR_HIST_GENS 1). */
struct ctrl_pos {
	unsigned long refaulted, total;
	unsigned long gain;
};

static void read_ctrl_pos(const struct msim__lru_vec *lv, unsigned int type, unsigned int tier,
			  unsigned long gain, struct ctrl_pos *pos)
{
	const struct msim__lru_gen *g = &lv->lrugen;

	pos->refaulted = g->avg_refaulted[type][tier] +
			 msim_quiet_load(&g->refaulted[type][tier], MSIM_RELAXED);
	pos->total = g->avg_total[type][tier] +
		     msim_quiet_load(&g->evicted[type][tier], MSIM_RELAXED) +
		     g->protected_pages[type][tier];
	pos->gain = gain;
}

/*
 * kernel: positive_ctrl_err(): the process variable has few refaults (under
 * MIN_LRU_BATCH) or a refault rate, by the gains, no higher than the setpoint's.
 */
static bool positive_ctrl_err(const struct ctrl_pos *sp, const struct ctrl_pos *pv)
{
	return pv->refaulted < MSIM__MIN_LRU_BATCH ||
	       pv->refaulted * (sp->total + MSIM__MIN_LRU_BATCH) * sp->gain <=
		       (sp->refaulted + 1) * pv->total * pv->gain;
}

/*
 * kernel: get_tier_idx(): the setpoint is the first tier; the first higher tier
 * that refaults more (gains 1:2 in 6.12, 2:3 in 6.14) and every tier above it
 * are protected.
 */
int msim__lru_gen_tier_idx(const struct msim__lru_vec *lv, unsigned int type)
{
	unsigned long sp_gain = lv->lh->mglru_6_12 ? 1 : 2, pv_gain = sp_gain + 1;
	struct ctrl_pos sp, pv;
	unsigned int tier;

	read_ctrl_pos(lv, type, 0, sp_gain, &sp);
	for (tier = 1; tier < MSIM_MAX_NR_TIERS; tier++) {
		read_ctrl_pos(lv, type, tier, pv_gain, &pv);
		if (!positive_ctrl_err(&sp, &pv))
			break;
	}
	return (int)tier - 1;
}

/* ---- public ---- */

unsigned long msim_lru_gen_max_seq(struct msim_lruvec *lruvec)
{
	struct msim__lru_vec *lv = msim__lru_vec_of(lruvec);

	return lv ? msim_load_at(&lv->lrugen.max_seq, MSIM_ACQUIRE, "lru_gen.max_seq") : 0;
}

unsigned long msim_lru_gen_min_seq(struct msim_lruvec *lruvec, unsigned int type)
{
	struct msim__lru_vec *lv = msim__lru_vec_of(lruvec);

	if (!lv || type >= MSIM_ANON_AND_FILE)
		return 0;
	/* READ_ONCE without the lock: min_seq_inc() notes its store */
	msim_access_note(&lv->lrugen.min_seq[type], sizeof(lv->lrugen.min_seq[type]),
			 MSIM_ACCESS_LOAD);
	return msim__lru_gen_min_seq(lv, type);
}

long msim_lru_gen_nr_pages(struct msim_lruvec *lruvec, unsigned int gen, unsigned int type,
			   enum msim_zone_type zone)
{
	struct msim__lru_vec *lv = msim__lru_vec_of(lruvec);

	if (!lv || gen >= MSIM_MAX_NR_GENS || type >= MSIM_ANON_AND_FILE ||
	    (unsigned int)zone >= MSIM_MAX_NR_ZONES)
		return 0;
	return msim_load_at(&lv->lrugen.nr_pages[gen][type][zone], MSIM_RELAXED,
			    "lru_gen.nr_pages.read");
}

void msim_lru_gen_inc_max_seq(struct msim_lruvec *lruvec)
{
	struct msim__lru_vec *lv = msim__lru_vec_of(lruvec);

	if (!lv || !lv->lrugen.enabled)
		return;
	msim__lru_vec_lock(lv);
	msim__lru_gen_inc_max_seq_locked(lv);
	msim__lru_vec_unlock(lv);
}

unsigned long msim_lru_gen_nr_folios(struct msim_lruvec *lruvec, unsigned int gen,
				     unsigned int type, enum msim_zone_type zone,
				     unsigned long *nr_pages)
{
	struct msim__lru_vec *lv = msim__lru_vec_of(lruvec);
	unsigned long n = 0, pages = 0;

	if (lv && gen < MSIM_MAX_NR_GENS && type < MSIM_ANON_AND_FILE &&
	    (unsigned int)zone < MSIM_MAX_NR_ZONES) {
		struct msim_list_head *head = gen_list(lv, gen, type, zone), *p;

		msim__lru_vec_lock(lv);
		for (p = head->next; p != head; p = p->next, n++)
			pages += (unsigned long)msim_folio_nr_pages(
				msim_container_of(p, struct msim_folio, lru));
		msim__lru_vec_unlock(lv);
	}
	if (nr_pages)
		*nr_pages = pages;
	return n;
}

/* ---- public: refs, tiers and the controller ---- */

int msim_lru_gen_tier_stats(struct msim_lruvec *lruvec, unsigned int type, unsigned int tier,
			    struct msim_lru_gen_tier *out)
{
	struct msim__lru_vec *lv = msim__lru_vec_of(lruvec);
	const struct msim__lru_gen *g;

	if (!lv || !out || type >= MSIM_ANON_AND_FILE || tier >= MSIM_MAX_NR_TIERS)
		return -EINVAL;
	g = &lv->lrugen;
	msim__lru_vec_lock(lv);
	out->evicted = msim_quiet_load(&g->evicted[type][tier], MSIM_RELAXED);
	out->refaulted = msim_quiet_load(&g->refaulted[type][tier], MSIM_RELAXED);
	out->protected_pages = g->protected_pages[type][tier];
	out->avg_refaulted = g->avg_refaulted[type][tier];
	out->avg_total = g->avg_total[type][tier];
	msim__lru_vec_unlock(lv);
	return 0;
}

int msim_lru_gen_tier_idx(struct msim_lruvec *lruvec, unsigned int type)
{
	struct msim__lru_vec *lv = msim__lru_vec_of(lruvec);
	int idx;

	if (!lv || !lv->lrugen.enabled || type >= MSIM_ANON_AND_FILE)
		return -1;
	msim__lru_vec_lock(lv);
	idx = msim__lru_gen_tier_idx(lv, type);
	msim__lru_vec_unlock(lv);
	return idx;
}

int msim_folio_lru_refs(const struct msim_folio *folio)
{
	return msim__folio_lru_refs(folio);
}

unsigned int msim_folio_lru_tier(const struct msim_folio *folio)
{
	return msim__lru_tier_from_refs(folio->lh, msim__folio_lru_refs(folio),
					msim__folio_test(folio, MSIM__PG_WORKINGSET));
}

/* kernel: lru_gen_eviction()'s max(refs - 1, 0). */
unsigned long msim_lru_gen_eviction_refs(const struct msim_folio *folio)
{
	int refs = msim__folio_lru_refs(folio);

	return refs > 1 ? (unsigned long)(refs - 1) : 0;
}

/*
 * evicted[] and refaulted[] are atomic_long_t in the kernel, added to without
 * the lru_lock (eviction and refault hold RCU only): quiet atomics here. No
 * race's outcome reads them, so they note no access (their orders would only
 * multiply schedules).
 */
static void hist_add(struct msim_lruvec *lruvec, unsigned long (*arr)[MSIM_MAX_NR_TIERS],
		     unsigned int type, unsigned int tier, long nr_pages)
{
	if (type < MSIM_ANON_AND_FILE && tier < MSIM_MAX_NR_TIERS)
		msim_quiet_fetch_add(&arr[type][tier], (unsigned long)nr_pages, MSIM_RELAXED);
	(void)lruvec;
}

void msim_lru_gen_note_evicted(struct msim_lruvec *lruvec, unsigned int type, unsigned int tier,
			       long nr_pages)
{
	struct msim__lru_vec *lv = msim__lru_vec_of(lruvec);

	if (lv)
		hist_add(lruvec, lv->lrugen.evicted, type, tier, nr_pages);
}

void msim_lru_gen_note_refaulted(struct msim_lruvec *lruvec, unsigned int type, unsigned int tier,
				 long nr_pages)
{
	struct msim__lru_vec *lv = msim__lru_vec_of(lruvec);

	if (lv)
		hist_add(lruvec, lv->lrugen.refaulted, type, tier, nr_pages);
}

unsigned int msim_lru_gen_tier_from_refs(const struct msim *m, int refs, bool workingset)
{
	const struct msim__lru_host *lh = msim__lru_host(m);

	return lh ? msim__lru_tier_from_refs(lh, refs, workingset) : 0;
}

void msim_folio_set_lru_refs_counter(struct msim_folio *folio, unsigned int refs)
{
	msim__folio_set_refs_counter(folio, refs);
}
