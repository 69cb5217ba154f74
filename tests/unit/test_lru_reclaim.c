/* SPDX-License-Identifier: MIT */
/*
 * test_lru_reclaim.c - the minimal reclaim (lru.h): shrink_lruvec evicts from
 * the old end in LRU order in batches of SWAP_CLUSTER_MAX (classic and MGLRU),
 * referenced folios are activated, the owner's verdict is obeyed, the active
 * list is deactivated when the inactive one is low, MGLRU ages when only two
 * generations are left, and try_to_free_mem_cgroup_pages walks priorities over
 * a subtree; evicted folios are uncharged.
 */
#include "test_lru_util.h"

#define NR 40
#define NR_EVICTED 128

struct evicted {
	struct msim_folio *folio[NR_EVICTED];
	unsigned int n;
	enum msim_reclaim_verdict verdict;   /* returned for every folio */
};

/* The owner's part: record, and on FREE drop the owner's reference. */
static enum msim_reclaim_verdict record_evict(struct msim_folio *folio,
					      struct msim_memcg *target, void *arg)
{
	struct evicted *ev = arg;

	(void)target;
	ev->folio[ev->n++] = folio;
	if (ev->verdict == MSIM_RECLAIM_FREE)
		msim_folio_put(folio);
	return ev->verdict;
}

static void scan_control(struct msim_scan_control *sc, struct evicted *ev,
			 unsigned long nr_to_reclaim)
{
	msim_scan_control_init(sc);
	sc->priority = 0;
	sc->may_swap = false;
	sc->nr_to_reclaim = nr_to_reclaim;
	sc->evict = record_evict;
	sc->evict_arg = ev;
}

/*
 * f[0] is added first: the tail; the first batch takes f[0..31] in that order
 * (classic: SWAP_CLUSTER_MAX per list; MGLRU's scan_folios isolates up to
 * MIN_LRU_BATCH, 64, so all 40 here).
 */
static void evicts_in_lru_order(void **st)
{
	for (int kind = MSIM_LRU_CLASSIC; kind <= MSIM_LRU_MGLRU; kind++) {
		struct msim *m = lru_host(1, kind, MSIM_LRU_REPARENT_OBJCG);
		struct msim_memcg *c = unit_mkdir(msim_root_mem_cgroup(m), "c");
		struct msim_lruvec *lv = lru_lruvec(c, 0);
		struct msim_page_counter *pc = msim_memcg_page_counter(c);
		struct msim_folio *f[NR];
		struct evicted ev = { .verdict = MSIM_RECLAIM_FREE };
		struct msim_scan_control sc;
		unsigned long usage;

		(void)st;
		for (unsigned int i = 0; i < NR; i++)
			f[i] = lru_folio(c, MSIM_FOLIO_FILE, 0, 0);
		unsigned int batch = kind == MSIM_LRU_MGLRU ? NR : MSIM_SWAP_CLUSTER_MAX;

		usage = msim_page_counter_read(pc);
		scan_control(&sc, &ev, 10);
		assert_int_equal(msim_shrink_lruvec(lv, &sc), batch);
		assert_int_equal(ev.n, batch);
		for (unsigned int i = 0; i < ev.n; i++)
			assert_ptr_equal(ev.folio[i], f[i]);
		assert_int_equal(sc.nr_reclaimed, batch);
		assert_int_equal(sc.nr_scanned, batch);
		/* evicted folios were uncharged and freed */
		assert_int_equal(msim_page_counter_read(pc), usage - batch);
		struct msim_lru_counts n;
		msim_lru_counts(m, &n);
		assert_int_equal(n.folios_live, NR - batch);
		assert_int_equal(lru_stat(lv, MSIM_NR_INACTIVE_FILE), NR - batch);
		assert_int_equal(lru_stat(lv, MSIM_PGSTEAL_FILE), batch);
		if (kind == MSIM_LRU_CLASSIC)
			assert_lists_match_sizes(lv);
		else
			assert_int_equal(assert_gens_match_nr_pages(lv), NR - batch);
		for (unsigned int i = batch; i < NR; i++)
			msim_folio_put(f[i]);
		msim_destroy(m);
	}
}

/*
 * folio_check_references(): a mapped folio that is young and was referenced
 * before is activated; KEEP goes back inactive; a pinned folio stays.
 */
static void verdicts_referenced_keep_and_pins(void **st)
{
	struct msim *m = lru_host(1, MSIM_LRU_CLASSIC, MSIM_LRU_REPARENT_OBJCG);
	struct msim_memcg *c = unit_mkdir(msim_root_mem_cgroup(m), "c");
	struct msim_lruvec *lv = lru_lruvec(c, 0);
	struct msim_folio *f[4];
	struct evicted ev = { .verdict = MSIM_RECLAIM_KEEP };
	struct msim_scan_control sc;

	(void)st;
	for (unsigned int i = 0; i < 4; i++)
		f[i] = lru_folio(c, MSIM_FOLIO_FILE, 0, 0);
	msim_folio_map(f[1], false);
	msim_folio_set_referenced(f[1]);
	scan_control(&sc, &ev, 4);
	assert_int_equal(msim_shrink_lruvec(lv, &sc), 0);
	assert_int_equal(ev.n, 3);                      /* the referenced one was not offered */
	assert_int_equal(sc.nr_activated, 1);
	assert_true(msim_folio_test_active(f[1]));
	assert_int_equal(msim_lruvec_lru_size(lv, MSIM_LRU_ACTIVE_FILE, MSIM_ZONE_MOVABLE), 1);
	assert_int_equal(msim_lruvec_lru_size(lv, MSIM_LRU_INACTIVE_FILE, MSIM_ZONE_MOVABLE), 3);
	assert_lists_match_sizes(lv);
	/* FREE while another holder pins f[0]: the freeze fails, the folio stays */
	msim_folio_get(f[0]);
	ev = (struct evicted){ .verdict = MSIM_RECLAIM_FREE };
	scan_control(&sc, &ev, 4);
	sc.nr_to_reclaim = 1;
	msim_shrink_lruvec(lv, &sc);
	assert_int_equal(sc.nr_reclaimed, 2);           /* f[2], f[3]; f[0] kept */
	assert_true(msim_folio_test_lru(f[0]));
	assert_int_equal(msim_folio_ref_count(f[0]), 1);
	assert_lists_match_sizes(lv);
	msim_folio_put(f[0]);
	msim_folio_put(f[1]);
	msim_destroy(m);
}

/*
 * folio_check_references() splits mapped and unmapped folios: PG_referenced
 * alone does not save an unmapped folio at the inactive tail (RECLAIM_CLEAN);
 * a young mapped one is kept once with PG_referenced set, activated the next
 * time it is found young.
 */
static void references_mapped_and_unmapped(void **st)
{
	struct msim *m = lru_host(1, MSIM_LRU_CLASSIC, MSIM_LRU_REPARENT_OBJCG);
	struct msim_memcg *c = unit_mkdir(msim_root_mem_cgroup(m), "c");
	struct msim_lruvec *lv = lru_lruvec(c, 0);
	struct msim_folio *unmapped = lru_folio(c, MSIM_FOLIO_FILE, 0, 0);
	struct msim_folio *mapped = lru_folio(c, MSIM_FOLIO_FILE, 0, 0);
	struct evicted ev = { .verdict = MSIM_RECLAIM_KEEP };
	struct msim_scan_control sc;

	(void)st;
	msim_folio_set_referenced(unmapped);
	msim_folio_map(mapped, false);
	scan_control(&sc, &ev, 2);
	msim_shrink_lruvec(lv, &sc);
	assert_int_equal(ev.n, 1);                       /* only the unmapped one offered */
	assert_ptr_equal(ev.folio[0], unmapped);
	assert_false(msim_folio_test_active(mapped));    /* kept: one more trip */
	assert_true(msim_folio_test_referenced(mapped));
	assert_false(msim_folio_test_young(mapped));     /* rmap cleared the accessed bit */
	assert_int_equal(sc.nr_activated, 0);
	msim_folio_mark_young(mapped);
	ev.n = 0;
	scan_control(&sc, &ev, 2);
	msim_shrink_lruvec(lv, &sc);
	assert_true(msim_folio_test_active(mapped));
	assert_int_equal(sc.nr_activated, 1);
	msim_folio_put(unmapped);
	msim_folio_put(mapped);
	msim_destroy(m);
}

/*
 * shrink_active_list(): a young folio rotates back only from a VM_EXEC file
 * mapping; a young one of a plain mapping is deactivated all the same.
 */
static void active_rotates_only_exec(void **st)
{
	struct msim *m = lru_host(1, MSIM_LRU_CLASSIC, MSIM_LRU_REPARENT_OBJCG);
	struct msim_memcg *c = unit_mkdir(msim_root_mem_cgroup(m), "c");
	struct msim_lruvec *lv = lru_lruvec(c, 0);
	struct msim_folio *f[3];
	struct evicted ev = { .verdict = MSIM_RECLAIM_KEEP };
	struct msim_scan_control sc;

	(void)st;
	for (unsigned int i = 0; i < 3; i++) {
		f[i] = msim_folio_alloc(m, MSIM_FOLIO_FILE, 0, 0, MSIM_ZONE_NORMAL);
		assert_int_equal(msim_mem_cgroup_charge(f[i], c, MSIM_GFP_KERNEL), 0);
		msim_folio_set_active(f[i]);
		msim_folio_add_lru(f[i]);
	}
	msim_folio_map(f[0], true);                      /* young, executable */
	msim_folio_map(f[1], false);                     /* young, not executable */
	msim_mem_cgroup_flush_stats_forced(NULL);        /* inactive_is_low() reads these */
	scan_control(&sc, &ev, 1);
	msim_shrink_lruvec(lv, &sc);
	assert_true(msim_folio_test_active(f[0]));
	assert_false(msim_folio_test_active(f[1]));
	assert_true(msim_folio_test_workingset(f[1]));
	assert_false(msim_folio_test_active(f[2]));
	for (unsigned int i = 0; i < 3; i++)
		msim_folio_put(f[i]);
	msim_destroy(m);
}

/*
 * The inactive anon list is low: the active one is deactivated (PG_workingset
 * set). inactive_is_low() reads the lruvec's flushed statistics, not its
 * lists: before a flush they say 0 and 0, and the active list is left alone
 * (skipped_deactivate); after one the same reclaim ages it.
 */
static void deactivates_when_inactive_is_low(void **st)
{
	struct msim *m = lru_host(1, MSIM_LRU_CLASSIC, MSIM_LRU_REPARENT_OBJCG);
	struct msim_memcg *c = unit_mkdir(msim_root_mem_cgroup(m), "c");
	struct msim_lruvec *lv = lru_lruvec(c, 0);
	struct msim_folio *active[10];
	struct msim_scan_control sc;

	(void)st;
	for (unsigned int i = 0; i < 10; i++) {
		active[i] = msim_folio_alloc(m, MSIM_FOLIO_ANON, 0, 0, MSIM_ZONE_NORMAL);
		assert_int_equal(msim_mem_cgroup_charge(active[i], c, MSIM_GFP_KERNEL), 0);
		msim_folio_set_active(active[i]);
		msim_folio_add_lru(active[i]);
	}
	for (unsigned int i = 0; i < 2; i++)
		lru_folio(c, MSIM_FOLIO_ANON, 0, 0);     /* reclaim frees these: no callback */
	msim_scan_control_init(&sc);
	sc.priority = 0;
	sc.nr_to_reclaim = 2;
	assert_int_equal(msim_shrink_lruvec(lv, &sc), 2);
	assert_int_equal(sc.nr_deactivated, 0);
	assert_true(sc.skipped_deactivate);
	/* flushed: 0 inactive against 10 active; the scan counts were taken before the aging */
	msim_mem_cgroup_flush_stats_forced(NULL);
	msim_scan_control_init(&sc);
	sc.priority = 0;
	sc.nr_to_reclaim = 2;
	assert_int_equal(msim_shrink_lruvec(lv, &sc), 0);
	assert_int_equal(sc.nr_deactivated, 10);
	assert_int_equal(msim_lruvec_lru_size(lv, MSIM_LRU_ACTIVE_ANON, MSIM_ZONE_MOVABLE), 0);
	assert_int_equal(msim_lruvec_lru_size(lv, MSIM_LRU_INACTIVE_ANON, MSIM_ZONE_MOVABLE), 10);
	assert_lists_match_sizes(lv);
	for (unsigned int i = 0; i < 10; i++) {
		assert_false(msim_folio_test_active(active[i]));
		assert_true(msim_folio_test_workingset(active[i]));
		msim_folio_put(active[i]);
	}
	msim_mem_cgroup_flush_stats_forced(NULL);
	assert_int_equal(msim_memcg_events(c, MSIM_PGDEACTIVATE), 10);
	assert_int_equal(lru_stat(lv, MSIM_PGREFILL), 10);
	msim_destroy(m);
}

/* MGLRU: anon folios sit in active generations; eviction ages first. */
static void mglru_ages_before_evicting_active_generations(void **st)
{
	struct msim *m = lru_host(1, MSIM_LRU_MGLRU, MSIM_LRU_REPARENT_OBJCG);
	struct msim_memcg *c = unit_mkdir(msim_root_mem_cgroup(m), "c");
	struct msim_lruvec *lv = lru_lruvec(c, 0);
	struct msim_scan_control sc;

	(void)st;
	for (unsigned int i = 0; i < 8; i++)
		lru_folio(c, MSIM_FOLIO_ANON, 0, 0);
	assert_int_equal(lru_stat(lv, MSIM_NR_ACTIVE_ANON), 8);
	msim_scan_control_init(&sc);
	sc.priority = 0;
	sc.nr_to_reclaim = 8;
	assert_int_equal(msim_shrink_lruvec(lv, &sc), 8);
	assert_int_equal(msim_lru_gen_max_seq(lv), 4);         /* one aging step */
	/* the emptied oldest generations are retired down to MIN_NR_GENS */
	assert_int_equal(msim_lru_gen_min_seq(lv, 0), 3);
	assert_int_equal(assert_gens_match_nr_pages(lv), 0);
	assert_int_equal(lru_stat(lv, MSIM_NR_ACTIVE_ANON), 0);
	assert_int_equal(lru_stat(lv, MSIM_NR_INACTIVE_ANON), 0);
	msim_destroy(m);
}

/*
 * evict_folios(): "don't add rejected folios to the oldest generation". Eight
 * file folios in the workingset start at max_seq - 2 (lru_gen_folio_seq); the
 * empty generation below them is retired, so that is min_seq when reclaim
 * offers them and the owner keeps them. 6.14 compares lru_gen_folio_seq()
 * (clamped to min_seq) with min_seq: equal, so each is made active and goes
 * back to the youngest generation (a workingset folio is not kept out of the
 * oldest by its flag alone once fewer than MAX_NR_GENS generations are left).
 * 6.12 makes every survivor active and clears PG_workingset.
 */
static void mglru_rejected_folio_leaves_the_oldest(const char *rule, bool workingset_after)
{
	struct msim_config cfg = unit_config(4, 1);
	struct msim *m;
	struct msim_memcg *c;
	struct msim_lruvec *lv;
	struct msim_folio *f[8];
	struct evicted ev = { .verdict = MSIM_RECLAIM_KEEP };
	struct msim_scan_control sc;
	char err[256];
	unsigned long youngest, pages;

	cfg.lru = MSIM_LRU_MGLRU;
	if (rule)
		assert_int_equal(msim_variant_set(&cfg.variants, rule, err, sizeof(err)), 0);
	m = unit_host_cfg(&cfg);
	assert_int_equal(msim_lru_attach(m, err, sizeof(err)), 0);
	c = unit_mkdir(msim_root_mem_cgroup(m), "c");
	lv = lru_lruvec(c, 0);
	for (unsigned int i = 0; i < 8; i++) {
		f[i] = msim_folio_alloc(m, MSIM_FOLIO_FILE, 0, 0, MSIM_ZONE_NORMAL);
		assert_non_null(f[i]);
		assert_int_equal(msim_mem_cgroup_charge(f[i], c, MSIM_GFP_KERNEL), 0);
		msim_folio_set_workingset(f[i]);
		msim_folio_add_lru(f[i]);
	}
	scan_control(&sc, &ev, 8);
	assert_int_equal(msim_shrink_lruvec(lv, &sc), 0);
	assert_int_equal(ev.n, 8);
	youngest = msim_lru_gen_max_seq(lv);
	msim_lru_gen_nr_folios(lv, msim_lru_gen_from_seq(youngest), 1, MSIM_ZONE_NORMAL, &pages);
	assert_int_equal(pages, 8);
	assert_int_equal(msim_folio_test_workingset(f[0]), workingset_after);
	assert_int_equal(assert_gens_match_nr_pages(lv), 8);
	for (unsigned int i = 0; i < 8; i++)
		msim_folio_put(f[i]);
	msim_destroy(m);
}

static void mglru_rejected_workingset_folio(void **st)
{
	(void)st;
	mglru_rejected_folio_leaves_the_oldest(NULL, true);
	mglru_rejected_folio_leaves_the_oldest("mglru-protection=6.12", false);
}

static bool was_evicted(const struct evicted *ev, const struct msim_folio *f)
{
	for (unsigned int i = 0; i < ev->n; i++)
		if (ev->folio[i] == f)
			return true;
	return false;
}

/*
 * Priorities DEF_PRIORITY..0 over p's subtree in pre-order (p, c1, c2), each
 * lruvec giving size >> priority, until the target (raised to SWAP_CLUSTER_MAX)
 * is reached: the last level stops after c1, so c1 gives more than c2.
 */
static void try_to_free_walks_priorities_over_the_subtree(void **st)
{
	struct msim *m = lru_host(1, MSIM_LRU_CLASSIC, MSIM_LRU_REPARENT_OBJCG);
	struct msim_memcg *p = unit_mkdir(msim_root_mem_cgroup(m), "p");
	struct msim_memcg *c1 = unit_mkdir(p, "c1"), *c2 = unit_mkdir(p, "c2");
	struct msim_lruvec *l1 = lru_lruvec(c1, 0), *l2 = lru_lruvec(c2, 0);
	static struct msim_folio *f[2][64];
	static struct evicted ev;
	struct msim_scan_control sc;
	unsigned long got, lost1, lost2;

	(void)st;
	for (unsigned int i = 0; i < 64; i++) {
		f[0][i] = lru_folio(c1, MSIM_FOLIO_FILE, 0, 0);
		f[1][i] = lru_folio(c2, MSIM_FOLIO_FILE, 0, 0);
	}
	ev = (struct evicted){ .verdict = MSIM_RECLAIM_FREE };
	msim_scan_control_init(&sc);
	sc.evict = record_evict;
	sc.evict_arg = &ev;
	got = msim_try_to_free_mem_cgroup_pages(p, 20, &sc);
	lost1 = 64 - msim_lruvec_lru_size(l1, MSIM_LRU_INACTIVE_FILE, MSIM_ZONE_MOVABLE);
	lost2 = 64 - msim_lruvec_lru_size(l2, MSIM_LRU_INACTIVE_FILE, MSIM_ZONE_MOVABLE);
	assert_true(got >= MSIM_SWAP_CLUSTER_MAX);
	assert_int_equal(got, lost1 + lost2);
	assert_int_equal(got, ev.n);
	assert_true(lost1 > lost2 && lost2 > 0);
	assert_ptr_equal(sc.target_mem_cgroup, p);
	assert_int_equal(sc.priority, 2);        /* 64 >> 2 per lruvec is where it ends */
	for (unsigned int j = 0; j < 2; j++)
		for (unsigned int i = 0; i < 64; i++)
			if (!was_evicted(&ev, f[j][i]))
				msim_folio_put(f[j][i]);
	msim_destroy(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(evicts_in_lru_order),
		cmocka_unit_test(verdicts_referenced_keep_and_pins),
		cmocka_unit_test(references_mapped_and_unmapped),
		cmocka_unit_test(active_rotates_only_exec),
		cmocka_unit_test(deactivates_when_inactive_is_low),
		cmocka_unit_test(mglru_ages_before_evicting_active_generations),
		cmocka_unit_test(mglru_rejected_workingset_folio),
		cmocka_unit_test(try_to_free_walks_priorities_over_the_subtree),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
