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
 * Left out: tiers and refs (PG_referenced stands for "accessed since the last
 * look"), the page-table walk and bloom filters, the memcg LRU (per-node memcg
 * generations), timestamps, the PID controller. See docs/lru.md.
 */
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

static unsigned long min_seq(const struct msim__lru_vec *lv, unsigned int type)
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
	msim_quiet_store(&lv->lrugen.min_seq[type], min_seq(lv, type) + 1, MSIM_RELAXED);
}

unsigned int msim__get_nr_gens(const struct msim__lru_vec *lv, unsigned int type)
{
	return (unsigned int)(msim__lru_gen_max_seq(lv) - min_seq(lv, type) + 1);
}

static bool lru_gen_is_active(const struct msim__lru_vec *lv, unsigned int gen)
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
		if (lru_gen_is_active(lv, (unsigned int)new_gen))
			lru += MSIM_LRU_ACTIVE;
		msim__update_lru_size_stats(lv, lru, zone, delta);
		return;
	}
	if (new_gen < 0) {
		if (lru_gen_is_active(lv, (unsigned int)old_gen))
			lru += MSIM_LRU_ACTIVE;
		msim__update_lru_size_stats(lv, lru, zone, -delta);
		return;
	}
	if (!lru_gen_is_active(lv, (unsigned int)old_gen) &&
	    lru_gen_is_active(lv, (unsigned int)new_gen)) {
		msim__update_lru_size_stats(lv, lru, zone, -delta);
		msim__update_lru_size_stats(lv, lru + MSIM_LRU_ACTIVE, zone, delta);
	}
}

/*
 * kernel: lru_gen_folio_seq(): active (a refault) -> the second youngest (the
 * youngest if workingset); reclaiming (put back) -> the oldest; anon -> the
 * second youngest; file -> the oldest (the second oldest if workingset). Never
 * below min_seq.
 */
static unsigned long lru_gen_folio_seq(const struct msim__lru_vec *lv,
				       const struct msim_folio *folio, bool reclaiming)
{
	unsigned int type = msim__folio_type(folio);
	unsigned long ws = msim__folio_test(folio, MSIM__PG_WORKINGSET);
	unsigned long gen, seq, lo = min_seq(lv, type);

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
	gen = msim_lru_gen_from_seq(lru_gen_folio_seq(lv, folio, reclaiming));
	msim_quiet_store(&folio->gen, (int)gen, MSIM_RELAXED);
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
	if (!reclaiming && lru_gen_is_active(lv, (unsigned int)gen))
		msim__folio_set(folio, MSIM__PG_ACTIVE);
	lru_gen_update_size(lv, folio, gen, -1);
	msim_list_del_init(&folio->lru);
	return true;
}

/*
 * kernel: folio_inc_gen() from sort_folio(): a folio of the oldest generation
 * that was referenced moves to the next generation's head (protected).
 */
void msim__lru_gen_protect_folio(struct msim__lru_vec *lv, struct msim_folio *folio)
{
	unsigned int type = msim__folio_type(folio);
	int old_gen = msim_quiet_load(&folio->gen, MSIM_RELAXED);
	unsigned int new_gen = msim_lru_gen_from_seq(min_seq(lv, type) + 1);

	msim_quiet_store(&folio->gen, (int)new_gen, MSIM_RELAXED);
	lru_gen_update_size(lv, folio, old_gen, (int)new_gen);
	msim_list_move(&folio->lru, gen_list(lv, new_gen, type, folio->zone));
}

/*
 * kernel: inc_min_seq(): fold the oldest generation of type into the next one,
 * each folio taken from the tail and appended to the next generation's tail
 * (folio_inc_gen), then min_seq++. Both generations are inactive here.
 */
static void inc_min_seq(struct msim__lru_vec *lv, unsigned int type)
{
	unsigned int old_gen = msim_lru_gen_from_seq(min_seq(lv, type));
	unsigned int new_gen = msim_lru_gen_from_seq(min_seq(lv, type) + 1);

	for (unsigned int z = 0; z < MSIM_MAX_NR_ZONES; z++) {
		struct msim_list_head *head = gen_list(lv, old_gen, type, (enum msim_zone_type)z);

		while (!msim_list_empty(head)) {
			struct msim_folio *folio = msim_container_of(head->prev, struct msim_folio, lru);

			msim_quiet_store(&folio->gen, (int)new_gen, MSIM_RELAXED);
			lru_gen_update_size(lv, folio, (int)old_gen, (int)new_gen);
			msim_list_move_tail(&folio->lru, gen_list(lv, new_gen, type, folio->zone));
		}
	}
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
	while (msim__get_nr_gens(lv, type) > MSIM_MIN_NR_GENS &&
	       gen_empty(lv, msim_lru_gen_from_seq(min_seq(lv, type)), type))
		min_seq_inc(lv, type);
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
	return min_seq(lv, type);
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
