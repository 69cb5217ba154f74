/* SPDX-License-Identifier: MIT */
/*
 * test_lru_reparent.c - LRU reparenting at offline (lru.h, objcg.h): with
 * lru-reparent=objcg every folio of the dying memcg moves to the parent's
 * lists, the parent's lru_zone_size grows by the child's per list and zone (the
 * child's is left as it was), MGLRU splices per generation after aging the
 * parent (and retries when eviction undid that), and an uncharge after the
 * offline lands on the parent, whose local statistics then go negative; with
 * lru-reparent=off the folios stay on the dead memcg, which they keep alive.
 * A reclaim that isolated the child's folios before the offline puts them back
 * on the parent's lists, scripted and under explored schedules.
 */
#include <memcgsim/introspect.h>

#include "test_lru_util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

static void rmdir_ok(struct msim_memcg *memcg)
{
	assert_int_equal(msim_memcg_rmdir(memcg), 0);
}

static struct msim_folio *lru_folio_flags(struct msim_memcg *memcg, enum msim_folio_type type,
					  unsigned int order, unsigned int nid, bool active,
					  bool mlocked)
{
	struct msim_folio *f = msim_folio_alloc(msim_memcg_host(memcg), type, order, nid,
						MSIM_ZONE_NORMAL);

	assert_int_equal(msim_mem_cgroup_charge(f, memcg, MSIM_GFP_KERNEL), 0);
	if (active)
		msim_folio_set_active(f);
	if (mlocked)
		msim_folio_set_mlocked(f);
	msim_folio_add_lru(f);
	return f;
}

static struct msim_memcg *folio_memcg_rcu(const struct msim_folio *f)
{
	struct msim_memcg *memcg;

	msim_rcu_read_lock();
	memcg = msim_folio_memcg(f);
	msim_rcu_read_unlock();
	return memcg;
}

static unsigned long sizes[2][2][MSIM_NR_LRU_LISTS];   /* [node][child/parent][lru] */

static void record_sizes(struct msim_memcg *c, struct msim_memcg *p, unsigned int nodes)
{
	for (unsigned int nid = 0; nid < nodes; nid++)
		for (unsigned int lru = 0; lru < MSIM_NR_LRU_LISTS; lru++) {
			sizes[nid][0][lru] = msim_lruvec_lru_size(lru_lruvec(c, nid), lru,
								  MSIM_MAX_NR_ZONES - 1);
			sizes[nid][1][lru] = msim_lruvec_lru_size(lru_lruvec(p, nid), lru,
								  MSIM_MAX_NR_ZONES - 1);
		}
}

static struct msim_folio *seen[8];
static unsigned int nr_seen;

static void record(struct msim_folio *folio, void *arg)
{
	(void)arg;
	if (nr_seen < 8)
		seen[nr_seen] = folio;
	nr_seen++;
}

/* Classic, two nodes: c's folios (THP, active, unevictable) move to p. */
static void classic_moves_every_folio_and_size(void **st)
{
	struct msim *m = lru_host(2, MSIM_LRU_CLASSIC, MSIM_LRU_REPARENT_OBJCG);
	struct msim_memcg *p = unit_mkdir(msim_root_mem_cgroup(m), "p");
	struct msim_memcg *c = unit_mkdir(p, "c");
	struct msim_folio *pf[2], *cf[10];
	struct msim_lruvec *p0 = lru_lruvec(p, 0);
	unsigned long p_usage, c_usage, c_pages = 0;
	struct msim_lru_counts n;

	(void)st;
	pf[0] = lru_folio(p, MSIM_FOLIO_FILE, 0, 0);
	pf[1] = lru_folio(p, MSIM_FOLIO_FILE, 0, 0);
	cf[0] = lru_folio(c, MSIM_FOLIO_FILE, 0, 0);
	cf[1] = lru_folio(c, MSIM_FOLIO_FILE, 0, 0);
	cf[2] = lru_folio(c, MSIM_FOLIO_ANON, 0, 0);
	cf[3] = lru_folio(c, MSIM_FOLIO_ANON, MSIM_HPAGE_PMD_ORDER, 0);
	cf[4] = lru_folio_flags(c, MSIM_FOLIO_FILE, 0, 0, true, false);
	cf[5] = lru_folio_flags(c, MSIM_FOLIO_FILE, 0, 0, true, false);
	cf[6] = lru_folio_flags(c, MSIM_FOLIO_FILE, 0, 0, false, true);
	cf[7] = lru_folio(c, MSIM_FOLIO_ANON, 0, 1);
	cf[8] = lru_folio(c, MSIM_FOLIO_ANON, 0, 1);
	cf[9] = lru_folio(c, MSIM_FOLIO_FILE, 0, 1);
	for (unsigned int i = 0; i < 10; i++)
		c_pages += (unsigned long)msim_folio_nr_pages(cf[i]);
	record_sizes(c, p, 2);
	rmdir_ok(c);

	for (unsigned int nid = 0; nid < 2; nid++) {
		struct msim_lruvec *cl = lru_lruvec(c, nid), *pl = lru_lruvec(p, nid);

		for (unsigned int lru = 0; lru < MSIM_NR_LRU_LISTS; lru++) {
			/* the parent's size is the sum; the child's array is left as it was */
			assert_int_equal(msim_lruvec_lru_size(pl, lru, MSIM_MAX_NR_ZONES - 1),
					 sizes[nid][0][lru] + sizes[nid][1][lru]);
			assert_int_equal(msim_lruvec_lru_size(cl, lru, MSIM_MAX_NR_ZONES - 1),
					 sizes[nid][0][lru]);
			assert_int_equal(msim_lruvec_nr_folios(cl, lru, NULL), 0);
		}
		assert_lists_match_sizes(pl);
	}
	assert_int_equal(msim_lruvec_lru_size(p0, MSIM_LRU_UNEVICTABLE, MSIM_ZONE_NORMAL), 1);
	/* the child's folios went to the tail, in their order: older than p's own */
	nr_seen = 0;
	msim_lruvec_for_each_folio(p0, MSIM_LRU_INACTIVE_FILE, record, NULL);
	assert_int_equal(nr_seen, 4);
	assert_ptr_equal(seen[0], pf[1]);
	assert_ptr_equal(seen[1], pf[0]);
	assert_ptr_equal(seen[2], cf[1]);
	assert_ptr_equal(seen[3], cf[0]);
	for (unsigned int i = 0; i < 10; i++) {
		assert_ptr_equal(folio_memcg_rcu(cf[i]), p);
		assert_ptr_equal(msim_folio_lruvec(cf[i]), lru_lruvec(p, msim_folio_nid(cf[i])));
	}
	msim_lru_counts(m, &n);
	assert_int_equal(n.reparented_pages, c_pages - 1);      /* the unevictable is not listed */

	/* uncharge after offline: p's counter goes down, the dead c's does not */
	p_usage = msim_page_counter_read(msim_memcg_page_counter(p));
	c_usage = msim_page_counter_read(msim_memcg_page_counter(c));
	for (unsigned int i = 0; i < 10; i++)
		msim_folio_put(cf[i]);
	assert_int_equal(msim_page_counter_read(msim_memcg_page_counter(p)), p_usage - c_pages);
	assert_int_equal(msim_page_counter_read(msim_memcg_page_counter(c)), c_usage);
	/* ... and the stat updates of the frees hit p's local counters (thread 000) */
	msim_folio_put(pf[0]);
	msim_folio_put(pf[1]);
	msim_mem_cgroup_flush_stats_forced(NULL);
	assert_int_equal(msim_lruvec_stat_raw(p0, MSIM_STAT_LOCAL, MSIM_NR_INACTIVE_FILE), -2);
	assert_int_equal(msim_lruvec_stat_raw(p0, MSIM_STAT_LOCAL, MSIM_NR_ACTIVE_FILE), -2);
	assert_int_equal(msim_lruvec_page_state_local(p0, MSIM_NR_INACTIVE_FILE), 0);
	assert_int_equal(msim_lruvec_stat_raw(p0, MSIM_STAT_STATE, MSIM_NR_INACTIVE_FILE), 0);
	assert_lists_match_sizes(p0);
	assert_int_equal(msim_lruvec_lru_size(p0, MSIM_LRU_UNEVICTABLE, MSIM_ZONE_NORMAL), 0);
	msim_memcg_drain(m);
	msim_lru_counts(m, &n);
	assert_int_equal(n.lru_size_underflows, 0);
	assert_int_equal(n.freed_nonempty, 0);
	assert_int_equal(n.folios_live, 0);
	assert_int_equal(msim_memcg_state(c), MSIM_MEMCG_FREED);
	msim_destroy(m);
}

/* c directly under the root: the uncharge after offline leaves the root's counter. */
static void uncharge_after_offline_reaches_the_root_counter(void **st)
{
	struct msim *m = lru_host(1, MSIM_LRU_CLASSIC, MSIM_LRU_REPARENT_OBJCG);
	struct msim_memcg *root = msim_root_mem_cgroup(m);
	struct msim_page_counter *rc = msim_memcg_page_counter(root);
	unsigned long before = msim_page_counter_read(rc);
	struct msim_memcg *c = unit_mkdir(root, "c");
	struct msim_folio *f = lru_folio(c, MSIM_FOLIO_ANON, MSIM_HPAGE_PMD_ORDER, 0);

	(void)st;
	rmdir_ok(c);                                        /* drains c's stock too */
	assert_int_equal(msim_page_counter_read(rc), before + 512);
	assert_ptr_equal(folio_memcg_rcu(f), root);
	assert_false(msim_obj_cgroup_is_root(msim_folio_objcg(f)));
	msim_folio_put(f);
	assert_int_equal(msim_page_counter_read(rc), before);
	msim_destroy(m);
}

/* lru-reparent=off (7.0): the folios stay on the dead memcg and pin it. */
static void off_leaves_folios_on_the_dead_memcg(void **st)
{
	struct msim *m = lru_host(1, MSIM_LRU_CLASSIC, MSIM_LRU_REPARENT_OFF);
	struct msim_memcg *p = unit_mkdir(msim_root_mem_cgroup(m), "p");
	struct msim_memcg *c = unit_mkdir(p, "c");
	struct msim_folio *f[3];
	struct msim_lruvec *cl = lru_lruvec(c, 0), *pl = lru_lruvec(p, 0);

	(void)st;
	for (unsigned int i = 0; i < 3; i++)
		f[i] = lru_folio(c, MSIM_FOLIO_FILE, 0, 0);
	assert_null(msim_folio_objcg(f[0]));
	rmdir_ok(c);
	msim_memcg_drain(m);
	assert_int_equal(msim_memcg_state(c), MSIM_MEMCG_OFFLINE);     /* pinned */
	assert_int_equal(msim_lruvec_nr_folios(cl, MSIM_LRU_INACTIVE_FILE, NULL), 3);
	assert_int_equal(msim_lruvec_lru_size(cl, MSIM_LRU_INACTIVE_FILE, MSIM_ZONE_MOVABLE), 3);
	assert_int_equal(msim_lruvec_lru_size(pl, MSIM_LRU_INACTIVE_FILE, MSIM_ZONE_MOVABLE), 0);
	assert_ptr_equal(folio_memcg_rcu(f[0]), c);
	assert_ptr_equal(msim_folio_lruvec(f[0]), cl);
	/* the uncharge hits the dead c */
	assert_int_equal(msim_page_counter_read(msim_memcg_page_counter(c)), 3);
	for (unsigned int i = 0; i < 3; i++)
		msim_folio_put(f[i]);
	assert_int_equal(msim_page_counter_read(msim_memcg_page_counter(c)), 0);
	assert_int_equal(msim_lruvec_lru_size(cl, MSIM_LRU_INACTIVE_FILE, MSIM_ZONE_MOVABLE), 0);
	msim_memcg_drain(m);
	assert_int_equal(msim_memcg_state(c), MSIM_MEMCG_FREED);        /* the last folio let go */
	msim_destroy(m);
}

/*
 * MGLRU: the parent aged twice (seqs 2..5) still has four generations, so the
 * child's generation indices splice onto the same indices of the parent.
 */
static void mglru_splices_per_generation(void **st)
{
	struct msim *m = lru_host(1, MSIM_LRU_MGLRU, MSIM_LRU_REPARENT_OBJCG);
	struct msim_memcg *p = unit_mkdir(msim_root_mem_cgroup(m), "p");
	struct msim_memcg *c = unit_mkdir(p, "c");
	struct msim_lruvec *cl = lru_lruvec(c, 0), *pl = lru_lruvec(p, 0);
	struct msim_folio *f[6];
	struct msim_objcg_counts oc;

	(void)st;
	msim_lru_gen_inc_max_seq(pl);
	msim_lru_gen_inc_max_seq(pl);
	assert_int_equal(msim_lru_gen_max_seq(pl), 5);
	for (unsigned int i = 0; i < 3; i++)
		f[i] = lru_folio(c, MSIM_FOLIO_FILE, 0, 0);          /* c's seq 0: gen 0 */
	f[3] = lru_folio(c, MSIM_FOLIO_ANON, 0, 0);               /* c's seq 2: gen 2 */
	f[4] = lru_folio(c, MSIM_FOLIO_ANON, 0, 0);
	f[5] = lru_folio_flags(c, MSIM_FOLIO_FILE, 0, 0, false, true);
	rmdir_ok(c);
	assert_int_equal(msim_lru_gen_nr_pages(pl, 0, 1, MSIM_ZONE_NORMAL), 3);
	assert_int_equal(msim_lru_gen_nr_pages(pl, 2, 0, MSIM_ZONE_NORMAL), 2);
	assert_int_equal(assert_gens_match_nr_pages(pl), 5);
	assert_int_equal(assert_gens_match_nr_pages(cl), 0);
	assert_int_equal(msim_folio_lru_gen(f[0]), 0);
	assert_int_equal(msim_folio_lru_gen(f[3]), 2);
	assert_ptr_equal(folio_memcg_rcu(f[0]), p);
	/* lru_zone_size copied: only the unevictable folio is in it */
	assert_int_equal(msim_lruvec_lru_size(pl, MSIM_LRU_UNEVICTABLE, MSIM_ZONE_MOVABLE), 1);
	assert_int_equal(msim_lruvec_lru_size(pl, MSIM_LRU_INACTIVE_FILE, MSIM_ZONE_MOVABLE), 0);
	msim_objcg_counts(m, &oc);
	assert_int_equal(oc.reparent_retries, 0);
	for (unsigned int i = 0; i < 6; i++)
		msim_folio_put(f[i]);
	assert_int_equal(assert_gens_match_nr_pages(pl), 0);
	/*
	 * c's gen 0 was inactive and p's gen 0 (seq 4) is active; c's gen 2 was
	 * active and p's (seq 2) is not. Reparenting moves those pages' statistics
	 * between the items on c's lruvec (the v4 form), so freeing them through p
	 * brings every item of p's hierarchical split back to 0, not only each
	 * type's total (before the fix: NR_ACTIVE_FILE -3, NR_INACTIVE_FILE +3).
	 */
	msim_mem_cgroup_flush_stats_forced(NULL);
	assert_int_equal(msim_lruvec_stat_raw(pl, MSIM_STAT_STATE, MSIM_NR_ACTIVE_FILE), 0);
	assert_int_equal(msim_lruvec_stat_raw(pl, MSIM_STAT_STATE, MSIM_NR_INACTIVE_FILE), 0);
	assert_int_equal(msim_lruvec_stat_raw(pl, MSIM_STAT_STATE, MSIM_NR_ACTIVE_ANON), 0);
	assert_int_equal(msim_lruvec_stat_raw(pl, MSIM_STAT_STATE, MSIM_NR_INACTIVE_ANON), 0);
	msim_destroy(m);
}

static struct msim_memcg *victim;

static void do_rmdir(void *arg)
{
	(void)arg;
	assert_int_equal(msim_memcg_rmdir(victim), 0);
}

/* Step an rmdir task through its grace period and stop it at point. */
static void rmdir_until(struct msim *m, struct msim_task *t, const char *point)
{
	msim_step(m, t, 1000);                          /* blocks in synchronize_rcu */
	assert_true(msim_rcu_step(m));
	assert_int_equal(msim_run_until(m, t, point, 1), 0);
}

/*
 * MGLRU: between max_lru_gen_memcg and the locks, eviction retires the parent's
 * oldest file generation; the recheck under the locks fails and the offline
 * ages the parent again before splicing.
 */
static void mglru_recheck_retries_after_eviction(void **st)
{
	struct msim *m = lru_host(1, MSIM_LRU_MGLRU, MSIM_LRU_REPARENT_OBJCG);
	struct msim_memcg *p = unit_mkdir(msim_root_mem_cgroup(m), "p");
	struct msim_lruvec *pl = lru_lruvec(p, 0);
	struct msim_folio *cf;
	struct msim_scan_control sc;
	struct msim_objcg_counts oc;
	struct msim_task *t;

	(void)st;
	victim = unit_mkdir(p, "c");
	lru_folio(p, MSIM_FOLIO_FILE, 0, 0);              /* p's oldest generation; reclaim frees it */
	cf = lru_folio(victim, MSIM_FOLIO_FILE, 0, 0);
	t = msim_task_create(m, "rmdir", 0, do_rmdir, NULL);
	rmdir_until(m, t, "objcg.reparent.lock");
	msim_scan_control_init(&sc);
	sc.priority = 0;
	sc.nr_to_reclaim = 1;
	assert_int_equal(msim_shrink_lruvec(pl, &sc), 1);
	assert_int_equal(msim_lru_gen_min_seq(pl, 1), 2);  /* two generations left */
	assert_int_equal(msim_run_task(m, t), 0);
	msim_objcg_counts(m, &oc);
	assert_int_equal(oc.reparent_retries, 1);
	assert_int_equal(msim_lru_gen_max_seq(pl) - msim_lru_gen_min_seq(pl, 1) + 1,
			 MSIM_MAX_NR_GENS);
	assert_int_equal(assert_gens_match_nr_pages(pl), 1);
	assert_ptr_equal(folio_memcg_rcu(cf), p);
	msim_folio_put(cf);
	msim_destroy(m);
}

static enum msim_reclaim_verdict keep_all(struct msim_folio *folio, struct msim_memcg *target,
					  void *arg)
{
	(void)folio;
	(void)target;
	(void)arg;
	return MSIM_RECLAIM_KEEP;
}

static struct msim_lruvec *shrink_target;

static void do_shrink(void *arg)
{
	struct msim_scan_control sc;

	(void)arg;
	msim_scan_control_init(&sc);
	sc.priority = 0;
	sc.nr_to_reclaim = 8;
	sc.evict = keep_all;
	msim_shrink_lruvec(shrink_target, &sc);
}

/*
 *   CPU 1 (reclaim of c)                  CPU 0 (rmdir c)
 *   isolate c's 8 folios, sizes down
 *   [lru.shrink.isolated]
 *                                         offline: c's lists (empty) and sizes (0)
 *                                         spliced, objcgs repointed to p
 *   putback: folio_lruvec() is p's now:
 *   relock, add there
 * No folio lost, none counted twice, none left on c.
 */
static void isolated_folios_come_back_to_the_parent(void **st)
{
	struct msim *m = lru_host(1, MSIM_LRU_CLASSIC, MSIM_LRU_REPARENT_OBJCG);
	struct msim_memcg *p = unit_mkdir(msim_root_mem_cgroup(m), "p");
	struct msim_folio *f[8];
	struct msim_task *r, *t;
	struct msim_lru_counts n;

	(void)st;
	victim = unit_mkdir(p, "c");
	for (unsigned int i = 0; i < 8; i++)
		f[i] = lru_folio(victim, MSIM_FOLIO_FILE, 0, 0);
	shrink_target = lru_lruvec(victim, 0);
	r = msim_task_create(m, "reclaim", 1, do_shrink, NULL);
	t = msim_task_create(m, "rmdir", 0, do_rmdir, NULL);
	assert_int_equal(msim_run_until(m, r, "lru.shrink.isolated", 1), 0);
	assert_int_equal(msim_lruvec_lru_size(shrink_target, MSIM_LRU_INACTIVE_FILE,
					      MSIM_ZONE_MOVABLE), 0);
	msim_step(m, t, 1000);
	assert_true(msim_rcu_step(m));
	assert_int_equal(msim_run_task(m, t), 0);
	assert_int_equal(msim_run_task(m, r), 0);
	assert_int_equal(msim_lruvec_nr_folios(lru_lruvec(p, 0), MSIM_LRU_INACTIVE_FILE, NULL), 8);
	assert_lists_match_sizes(lru_lruvec(p, 0));
	assert_int_equal(msim_lruvec_nr_folios(shrink_target, MSIM_LRU_INACTIVE_FILE, NULL), 0);
	assert_int_equal(msim_lruvec_lru_size(lru_lruvec(p, 0), MSIM_LRU_INACTIVE_FILE,
					      MSIM_ZONE_MOVABLE), 8);
	for (unsigned int i = 0; i < 8; i++) {
		assert_true(msim_folio_test_lru(f[i]));
		assert_ptr_equal(folio_memcg_rcu(f[i]), p);
		msim_folio_put(f[i]);
	}
	msim_lru_counts(m, &n);
	assert_int_equal(n.lru_size_underflows, 0);
	msim_destroy(m);
}

/* ---- explored: reclaim, an LRU mover and rmdir on three CPUs ---- */

#define XN 8

struct race {
	struct msim_memcg *p, *c;
	struct msim_folio *f[XN];
	bool freed[XN];
	bool mglru, objcg;
};

/* Odd folios from 3 up are freed by reclaim; 0 and 1 are pinned by the mover. */
static enum msim_reclaim_verdict race_evict(struct msim_folio *folio, struct msim_memcg *target,
					    void *arg)
{
	struct race *r = arg;
	unsigned int i = (unsigned int)(uintptr_t)msim_folio_private(folio) - 1;

	(void)target;
	if (i < 3 || !(i & 1))
		return MSIM_RECLAIM_KEEP;
	r->freed[i] = true;
	msim_folio_put(folio);
	return MSIM_RECLAIM_FREE;
}

static void race_reclaim(void *arg)
{
	struct race *r = arg;
	struct msim_scan_control sc;

	msim_scan_control_init(&sc);
	sc.priority = 0;
	sc.nr_to_reclaim = XN;
	sc.evict = race_evict;
	sc.evict_arg = r;
	msim_shrink_lruvec(msim_mem_cgroup_lruvec(msim_memcg_host(r->c), r->c, 0), &sc);
}

static void race_mover(void *arg)
{
	struct race *r = arg;

	msim_folio_activate(r->f[0]);
	msim_folio_rotate_reclaimable(r->f[1]);
	msim_folio_deactivate(r->f[0]);
	msim_folio_put(r->f[0]);
	msim_folio_put(r->f[1]);
}

static void race_rmdir(void *arg)
{
	struct race *r = arg;

	msim_memcg_rmdir(r->c);
}

static int race_setup(struct msim *m, void **state, void *arg)
{
	struct race *r = calloc(1, sizeof(*r));
	char err[128];

	(void)arg;
	if (!r || msim_lru_attach(m, err, sizeof(err)))
		return -ENOMEM;
	r->mglru = msim_lru_gen_enabled(m);
	r->objcg = msim_variant_value(&msim_config(m)->variants, "lru-reparent") ==
		   MSIM_LRU_REPARENT_OBJCG;
	if (msim_memcg_create(msim_root_mem_cgroup(m), "p", &r->p) ||
	    msim_memcg_create(r->p, "c", &r->c))
		return -ENOMEM;
	for (unsigned int i = 0; i < XN; i++) {
		r->f[i] = msim_folio_alloc(m, i < XN / 2 ? MSIM_FOLIO_FILE : MSIM_FOLIO_ANON, 0, 0,
					   MSIM_ZONE_NORMAL);
		msim_folio_set_private(r->f[i], (void *)(uintptr_t)(i + 1));
		msim_mem_cgroup_charge(r->f[i], r->c, MSIM_GFP_KERNEL);
		msim_folio_add_lru(r->f[i]);
	}
	msim_css_get(r->c);            /* the check looks at c's lists after its offline */
	msim_folio_get(r->f[0]);       /* the mover's references */
	msim_folio_get(r->f[1]);
	msim_task_create(m, "rmdir", 0, race_rmdir, r);
	msim_task_create(m, "reclaim", 1, race_reclaim, r);
	msim_task_create(m, "mover", 2, race_mover, r);
	*state = r;
	return 0;
}

/* Pages on the lists of (memcg, 0), or -1 when they differ from the sizes. */
static long race_listed_pages(struct msim_memcg *memcg, bool mglru)
{
	struct msim_lruvec *lv = msim_mem_cgroup_lruvec(msim_memcg_host(memcg), memcg, 0);
	unsigned long pages;
	long total = 0;

	if (!mglru) {
		for (unsigned int lru = 0; lru < MSIM_LRU_UNEVICTABLE; lru++) {
			msim_lruvec_nr_folios(lv, lru, &pages);
			if (pages != msim_lruvec_lru_size(lv, lru, MSIM_MAX_NR_ZONES - 1))
				return -1;
			total += (long)pages;
		}
		return total;
	}
	for (unsigned int gen = 0; gen < MSIM_MAX_NR_GENS; gen++)
		for (unsigned int type = 0; type < MSIM_ANON_AND_FILE; type++) {
			msim_lru_gen_nr_folios(lv, gen, type, MSIM_ZONE_NORMAL, &pages);
			if ((long)pages != msim_lru_gen_nr_pages(lv, gen, type, MSIM_ZONE_NORMAL))
				return -1;
			total += (long)pages;
		}
	return total;
}

/*
 * Folios listed on (memcg, 0), sizes not compared: a reparented child keeps its
 * lru_zone_size array as the kernel leaves it.
 */
static long race_listed_folios(struct msim_memcg *memcg)
{
	struct msim_lruvec *lv = msim_mem_cgroup_lruvec(msim_memcg_host(memcg), memcg, 0);
	long n = 0;

	for (unsigned int lru = 0; lru < MSIM_LRU_UNEVICTABLE; lru++)
		n += (long)msim_lruvec_nr_folios(lv, lru, NULL);
	for (unsigned int gen = 0; gen < MSIM_MAX_NR_GENS; gen++)
		for (unsigned int type = 0; type < MSIM_ANON_AND_FILE; type++)
			n += (long)msim_lru_gen_nr_folios(lv, gen, type, MSIM_ZONE_NORMAL, NULL);
	return n;
}

static bool race_check(struct msim *m, void *state, char *why, size_t len)
{
	struct race *r = state;
	struct msim_memcg *owner = r->objcg ? r->p : r->c;
	long survivors = 0, on_owner = race_listed_pages(owner, r->mglru);
	long on_other = race_listed_folios(r->objcg ? r->c : r->p);
	struct msim_lru_counts n;

	for (unsigned int i = 0; i < XN; i++) {
		if (r->freed[i])
			continue;
		survivors++;
		if (!msim_folio_test_lru(r->f[i]) || folio_memcg_rcu(r->f[i]) != owner) {
			snprintf(why, len, "folio %u off the LRU or not owned by %s", i,
				 msim_memcg_name(owner));
			return true;
		}
	}
	msim_lru_counts(m, &n);
	if (on_owner != survivors || on_other != 0 || n.lru_size_underflows) {
		snprintf(why, len, "%ld pages listed on %s for %ld folios, %ld folios elsewhere, "
			 "%lu underflows", on_owner, msim_memcg_name(owner), survivors, on_other,
			 n.lru_size_underflows);
		return true;
	}
	return false;
}

static void race_teardown(struct msim *m, void *state)
{
	struct race *r = state;

	(void)m;
	if (!r)
		return;
	for (unsigned int i = 0; i < XN; i++)
		if (r->f[i] && !r->freed[i])
			msim_folio_put(r->f[i]);
	if (r->c)
		msim_css_put(r->c);
	free(r);
}

static void explored_reclaim_vs_offline(void **st)
{
	static const struct msim_explore_target target = {
		.name = "lru-reparent-vs-isolate",
		.setup = race_setup,
		.check = race_check,
		.teardown = race_teardown,
	};
	const enum msim_strategy strategies[] = { MSIM_STRAT_RANDOM, MSIM_STRAT_PCT };

	(void)st;
	for (int kind = MSIM_LRU_CLASSIC; kind <= MSIM_LRU_MGLRU; kind++)
		for (int rep = MSIM_LRU_REPARENT_OBJCG; rep <= MSIM_LRU_REPARENT_OFF; rep++)
			for (unsigned int s = 0; s < 2; s++) {
				struct msim_config cfg = unit_config(4, 1);
				struct msim_explore_opts opts = {
					.strategy = strategies[s], .seed = 1, .runs = 150,
					.pct_depth = 3,
				};
				struct msim_explore_result res;

				cfg.lru = kind;
				assert_int_equal(
					msim_variant_set_value(&cfg.variants, "lru-reparent", rep),
					0);
				assert_int_equal(msim_explore(&target, &cfg, &opts, &res), 0);
				if (res.violations)
					fail_msg("kind %d reparent %d %s: %s (schedule %s)", kind, rep,
						 msim_strategy_name(strategies[s]), res.why,
						 res.schedule);
				assert_int_equal(res.runs, 150);
				assert_false(res.deadlocked);
			}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(classic_moves_every_folio_and_size),
		cmocka_unit_test(uncharge_after_offline_reaches_the_root_counter),
		cmocka_unit_test(off_leaves_folios_on_the_dead_memcg),
		cmocka_unit_test(mglru_splices_per_generation),
		cmocka_unit_test(mglru_recheck_retries_after_eviction),
		cmocka_unit_test(isolated_folios_come_back_to_the_parent),
		cmocka_unit_test(explored_reclaim_vs_offline),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
