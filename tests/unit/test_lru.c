/* SPDX-License-Identifier: MIT */
/*
 * test_lru.c - lruvecs (lru.h) and folios (folio.h): add, delete, rotate,
 * activate, deactivate, isolate and putback keep the list lengths equal to
 * lru_zone_size (classic) or lrugen->nr_pages (MGLRU) exactly; THP counts 512;
 * MGLRU leaves lru_zone_size at 0 for the evictable lists (thread 000) while the
 * lruvec statistics follow both; the aging moves the active statistics.
 */
#include "test_lru_util.h"

#include <errno.h>

static void classic_sizes_per_zone_and_thp(void **st)
{
	struct msim_config cfg = unit_config(4, 1);
	struct msim *m;

	/* movablecore=1G: msim_folio_alloc() refuses a zone without pages */
	cfg.zone_managed_pages[MSIM_ZONE_MOVABLE] = 262144;
	cfg.lru = MSIM_LRU_CLASSIC;
	assert_int_equal(
		msim_variant_set_value(&cfg.variants, "lru-reparent", MSIM_LRU_REPARENT_OBJCG), 0);
	m = unit_host_cfg(&cfg);
	assert_int_equal(msim_lru_attach(m, NULL, 0), 0);
	struct msim_memcg *c = unit_mkdir(msim_root_mem_cgroup(m), "c");
	struct msim_lruvec *lv = lru_lruvec(c, 0);
	struct msim_folio *f[5];
	unsigned long pages;

	(void)st;
	f[0] = lru_folio(c, MSIM_FOLIO_ANON, 0, 0);
	f[1] = lru_folio(c, MSIM_FOLIO_ANON, 0, 0);
	f[2] = lru_folio(c, MSIM_FOLIO_ANON, MSIM_HPAGE_PMD_ORDER, 0);
	f[3] = msim_folio_alloc(m, MSIM_FOLIO_FILE, 0, 0, MSIM_ZONE_DMA32);
	f[4] = msim_folio_alloc(m, MSIM_FOLIO_FILE, MSIM_HPAGE_PMD_ORDER, 0, MSIM_ZONE_MOVABLE);
	for (unsigned int i = 3; i < 5; i++) {
		assert_int_equal(msim_mem_cgroup_charge(f[i], c, MSIM_GFP_KERNEL), 0);
		msim_folio_add_lru(f[i]);
	}
	assert_int_equal(msim_folio_nr_pages(f[2]), 512);
	assert_int_equal(msim_mem_cgroup_get_zone_lru_size(lv, MSIM_LRU_INACTIVE_ANON,
							   MSIM_ZONE_NORMAL), 514);
	assert_int_equal(msim_mem_cgroup_get_zone_lru_size(lv, MSIM_LRU_INACTIVE_FILE,
							   MSIM_ZONE_DMA32), 1);
	assert_int_equal(msim_mem_cgroup_get_zone_lru_size(lv, MSIM_LRU_INACTIVE_FILE,
							   MSIM_ZONE_MOVABLE), 512);
	/* lruvec_lru_size sums the zones up to zone_idx */
	assert_int_equal(msim_lruvec_lru_size(lv, MSIM_LRU_INACTIVE_FILE, MSIM_ZONE_NORMAL), 1);
	assert_int_equal(msim_lruvec_lru_size(lv, MSIM_LRU_INACTIVE_FILE, MSIM_ZONE_MOVABLE), 513);
	assert_int_equal(msim_lruvec_nr_folios(lv, MSIM_LRU_INACTIVE_ANON, &pages), 3);
	assert_int_equal(pages, 514);
	assert_lists_match_sizes(lv);
	/* the statistics (rstat) and the node counter follow */
	assert_int_equal(lru_stat(lv, MSIM_NR_INACTIVE_ANON), 514);
	assert_int_equal(lru_stat(lv, MSIM_NR_INACTIVE_FILE), 513);
	assert_int_equal(msim_node_page_state(m, 0, MSIM_NR_INACTIVE_FILE), 513);
	/* memory.stat shows the LRU items from these lists (bytes) */
	char text[8192];
	uint64_t v;
	assert_true(msim_memory_stat_show(c, text, sizeof(text)) > 0);
	assert_int_equal(msim_memory_stat_lookup(text, "inactive_anon", &v), 0);
	assert_int_equal(v, 514 * 4096);
	assert_int_equal(msim_memory_stat_lookup(text, "inactive_file", &v), 0);
	assert_int_equal(v, 513 * 4096);
	assert_true(msim_folio_test_lru(f[0]));
	for (unsigned int i = 0; i < 5; i++)
		msim_folio_put(f[i]);
	assert_lists_match_sizes(lv);
	assert_int_equal(msim_lruvec_lru_size(lv, MSIM_LRU_INACTIVE_ANON, MSIM_ZONE_MOVABLE), 0);
	assert_int_equal(lru_stat(lv, MSIM_NR_INACTIVE_FILE), 0);
	struct msim_lru_counts n;
	msim_lru_counts(m, &n);
	assert_int_equal(n.folios_live, 0);
	assert_int_equal(n.lru_size_underflows, 0);
	msim_destroy(m);
}

static struct msim_folio *order_seen[8];
static unsigned int nr_seen;

static void record(struct msim_folio *folio, void *arg)
{
	(void)arg;
	order_seen[nr_seen++] = folio;
}

static void assert_list_is(struct msim_lruvec *lv, enum msim_lru_list lru,
			   struct msim_folio *const *want, unsigned int n)
{
	nr_seen = 0;
	assert_int_equal(msim_lruvec_for_each_folio(lv, lru, record, NULL), n);
	for (unsigned int i = 0; i < n; i++)
		assert_ptr_equal(order_seen[i], want[i]);
}

/* Head-to-tail order through activate, rotate and deactivate (A added first). */
static void classic_activate_rotate_deactivate(void **st)
{
	struct msim *m = lru_host(1, MSIM_LRU_CLASSIC, MSIM_LRU_REPARENT_OBJCG);
	struct msim_memcg *c = unit_mkdir(msim_root_mem_cgroup(m), "c");
	struct msim_lruvec *lv = lru_lruvec(c, 0);
	struct msim_folio *a = lru_folio(c, MSIM_FOLIO_FILE, 0, 0);
	struct msim_folio *b = lru_folio(c, MSIM_FOLIO_FILE, 0, 0);
	struct msim_folio *cc = lru_folio(c, MSIM_FOLIO_FILE, 0, 0);
	struct msim_folio *d = lru_folio(c, MSIM_FOLIO_FILE, 0, 0);

	(void)st;
	assert_list_is(lv, MSIM_LRU_INACTIVE_FILE, (struct msim_folio *[]){ d, cc, b, a }, 4);
	msim_folio_activate(b);
	assert_true(msim_folio_test_active(b));
	assert_list_is(lv, MSIM_LRU_INACTIVE_FILE, (struct msim_folio *[]){ d, cc, a }, 3);
	assert_list_is(lv, MSIM_LRU_ACTIVE_FILE, (struct msim_folio *[]){ b }, 1);
	assert_lists_match_sizes(lv);
	msim_folio_rotate_reclaimable(cc);
	assert_list_is(lv, MSIM_LRU_INACTIVE_FILE, (struct msim_folio *[]){ d, a, cc }, 3);
	msim_folio_deactivate(b);
	assert_false(msim_folio_test_active(b));
	assert_list_is(lv, MSIM_LRU_INACTIVE_FILE, (struct msim_folio *[]){ b, d, a, cc }, 4);
	assert_lists_match_sizes(lv);
	assert_int_equal(msim_lruvec_lru_size(lv, MSIM_LRU_ACTIVE_FILE, MSIM_ZONE_MOVABLE), 0);
	msim_mem_cgroup_flush_stats_forced(NULL);
	assert_int_equal(msim_memcg_events(c, MSIM_PGACTIVATE), 1);
	assert_int_equal(msim_memcg_events(c, MSIM_PGDEACTIVATE), 1);
	/* mark_accessed: referenced first, active on the second access */
	msim_folio_mark_accessed(a);
	assert_true(msim_folio_test_referenced(a));
	assert_false(msim_folio_test_active(a));
	msim_folio_mark_accessed(a);
	assert_true(msim_folio_test_active(a));
	assert_false(msim_folio_test_referenced(a));
	assert_list_is(lv, MSIM_LRU_ACTIVE_FILE, (struct msim_folio *[]){ a }, 1);
	assert_lists_match_sizes(lv);
	msim_folio_put(a);
	msim_folio_put(b);
	msim_folio_put(cc);
	msim_folio_put(d);
	msim_destroy(m);
}

static void isolate_and_putback(void **st)
{
	struct msim *m = lru_host(1, MSIM_LRU_CLASSIC, MSIM_LRU_REPARENT_OBJCG);
	struct msim_memcg *c = unit_mkdir(msim_root_mem_cgroup(m), "c");
	struct msim_lruvec *lv = lru_lruvec(c, 0);
	struct msim_folio *thp = lru_folio(c, MSIM_FOLIO_ANON, MSIM_HPAGE_PMD_ORDER, 0);
	struct msim_folio *small = lru_folio(c, MSIM_FOLIO_ANON, 0, 0);

	(void)st;
	assert_true(msim_folio_isolate_lru(thp));
	assert_false(msim_folio_test_lru(thp));
	assert_int_equal(msim_folio_ref_count(thp), 2);
	assert_false(msim_folio_isolate_lru(thp));          /* already claimed */
	assert_int_equal(msim_lruvec_lru_size(lv, MSIM_LRU_INACTIVE_ANON, MSIM_ZONE_MOVABLE), 1);
	assert_lists_match_sizes(lv);
	assert_int_equal(lru_stat(lv, MSIM_NR_INACTIVE_ANON), 1);
	msim_folio_putback_lru(thp);
	assert_true(msim_folio_test_lru(thp));
	assert_int_equal(msim_folio_ref_count(thp), 1);
	assert_int_equal(msim_lruvec_lru_size(lv, MSIM_LRU_INACTIVE_ANON, MSIM_ZONE_MOVABLE), 513);
	assert_list_is(lv, MSIM_LRU_INACTIVE_ANON, (struct msim_folio *[]){ thp, small }, 2);
	assert_int_equal(lru_stat(lv, MSIM_NR_INACTIVE_ANON), 513);
	msim_folio_put(thp);
	msim_folio_put(small);
	msim_destroy(m);
}

/* An mlocked folio is counted on LRU_UNEVICTABLE, which links nothing (both kinds). */
static void unevictable_counted_not_listed(void **st)
{
	for (int kind = MSIM_LRU_CLASSIC; kind <= MSIM_LRU_MGLRU; kind++) {
		struct msim *m = lru_host(1, kind, MSIM_LRU_REPARENT_OBJCG);
		struct msim_memcg *c = unit_mkdir(msim_root_mem_cgroup(m), "c");
		struct msim_lruvec *lv = lru_lruvec(c, 0);
		struct msim_folio *f = msim_folio_alloc(m, MSIM_FOLIO_FILE, 0, 0, MSIM_ZONE_NORMAL);

		(void)st;
		assert_int_equal(msim_mem_cgroup_charge(f, c, MSIM_GFP_KERNEL), 0);
		msim_folio_set_mlocked(f);
		msim_folio_add_lru(f);
		assert_true(msim_folio_test_unevictable(f));
		assert_int_equal(msim_lruvec_lru_size(lv, MSIM_LRU_UNEVICTABLE, MSIM_ZONE_NORMAL), 1);
		assert_int_equal(msim_lruvec_nr_folios(lv, MSIM_LRU_UNEVICTABLE, NULL), 0);
		assert_int_equal(msim_folio_lru_gen(f), -1);
		assert_int_equal(lru_stat(lv, MSIM_NR_UNEVICTABLE), 1);
		msim_folio_activate(f);                       /* no effect */
		assert_false(msim_folio_test_active(f));
		msim_folio_put(f);
		assert_int_equal(msim_lruvec_lru_size(lv, MSIM_LRU_UNEVICTABLE, MSIM_ZONE_NORMAL), 0);
		msim_destroy(m);
	}
}

/*
 * MGLRU: a file folio goes to the oldest generation (inactive), an anon one to
 * the second youngest (active); lruvec_lru_size reads 0 for every evictable
 * list while lrugen->nr_pages and the statistics count them.
 */
static void mglru_sizes_and_zero_lru_zone_size(void **st)
{
	struct msim *m = lru_host(1, MSIM_LRU_MGLRU, MSIM_LRU_REPARENT_OBJCG);
	struct msim_memcg *c = unit_mkdir(msim_root_mem_cgroup(m), "c");
	struct msim_lruvec *lv = lru_lruvec(c, 0);
	struct msim_folio *f[6];

	(void)st;
	assert_true(msim_lru_gen_enabled(m));
	assert_int_equal(msim_lru_gen_max_seq(lv), 3);
	assert_int_equal(msim_lru_gen_min_seq(lv, 1), 0);
	for (unsigned int i = 0; i < 3; i++)
		f[i] = lru_folio(c, MSIM_FOLIO_FILE, 0, 0);
	f[3] = lru_folio(c, MSIM_FOLIO_ANON, 0, 0);
	f[4] = lru_folio(c, MSIM_FOLIO_ANON, 0, 0);
	f[5] = lru_folio(c, MSIM_FOLIO_ANON, MSIM_HPAGE_PMD_ORDER, 0);
	assert_int_equal(msim_folio_lru_gen(f[0]), 0);
	assert_int_equal(msim_folio_lru_gen(f[3]), 2);
	assert_int_equal(msim_lru_gen_nr_pages(lv, 0, 1, MSIM_ZONE_NORMAL), 3);
	assert_int_equal(msim_lru_gen_nr_pages(lv, 2, 0, MSIM_ZONE_NORMAL), 514);
	assert_int_equal(assert_gens_match_nr_pages(lv), 517);
	for (unsigned int lru = 0; lru < MSIM_LRU_UNEVICTABLE; lru++)
		assert_int_equal(msim_lruvec_lru_size(lv, lru, MSIM_ZONE_MOVABLE), 0);
	assert_int_equal(msim_lruvec_nr_folios(lv, MSIM_LRU_INACTIVE_FILE, NULL), 0);
	assert_int_equal(lru_stat(lv, MSIM_NR_INACTIVE_FILE), 3);
	assert_int_equal(lru_stat(lv, MSIM_NR_ACTIVE_ANON), 514);
	assert_int_equal(lru_stat(lv, MSIM_NR_INACTIVE_ANON), 0);
	/* activation moves a file folio to the second youngest generation */
	msim_folio_activate(f[1]);
	assert_int_equal(msim_folio_lru_gen(f[1]), 2);
	assert_false(msim_folio_test_active(f[1]));     /* MGLRU keeps no PG_active on a list */
	assert_int_equal(lru_stat(lv, MSIM_NR_ACTIVE_FILE), 1);
	assert_int_equal(assert_gens_match_nr_pages(lv), 517);
	/* isolation and putback keep the generations exact */
	assert_true(msim_folio_isolate_lru(f[5]));
	assert_int_equal(assert_gens_match_nr_pages(lv), 5);
	msim_folio_putback_lru(f[5]);
	assert_int_equal(assert_gens_match_nr_pages(lv), 517);
	for (unsigned int i = 0; i < 6; i++)
		msim_folio_put(f[i]);
	assert_int_equal(assert_gens_match_nr_pages(lv), 0);
	assert_int_equal(lru_stat(lv, MSIM_NR_ACTIVE_ANON), 0);
	assert_int_equal(lru_stat(lv, MSIM_NR_ACTIVE_FILE), 0);
	msim_destroy(m);
}

/*
 * Aging with four generations: inc_min_seq folds the oldest into the next, and
 * the generation that stops being active moves its pages to the inactive
 * statistics.
 */
static void mglru_aging_moves_generations_and_stats(void **st)
{
	struct msim *m = lru_host(1, MSIM_LRU_MGLRU, MSIM_LRU_REPARENT_OBJCG);
	struct msim_memcg *c = unit_mkdir(msim_root_mem_cgroup(m), "c");
	struct msim_lruvec *lv = lru_lruvec(c, 0);
	struct msim_folio *file = lru_folio(c, MSIM_FOLIO_FILE, 0, 0);
	struct msim_folio *anon = lru_folio(c, MSIM_FOLIO_ANON, MSIM_HPAGE_PMD_ORDER, 0);

	(void)st;
	msim_lru_gen_inc_max_seq(lv);
	assert_int_equal(msim_lru_gen_max_seq(lv), 4);
	assert_int_equal(msim_lru_gen_min_seq(lv, 0), 1);
	assert_int_equal(msim_lru_gen_min_seq(lv, 1), 1);
	assert_int_equal(msim_folio_lru_gen(file), 1);  /* folded from generation 0 */
	assert_int_equal(msim_folio_lru_gen(anon), 2);  /* seq 2: no longer among the two youngest */
	assert_int_equal(lru_stat(lv, MSIM_NR_ACTIVE_ANON), 0);
	assert_int_equal(lru_stat(lv, MSIM_NR_INACTIVE_ANON), 512);
	assert_int_equal(lru_stat(lv, MSIM_NR_INACTIVE_FILE), 1);
	assert_int_equal(assert_gens_match_nr_pages(lv), 513);
	msim_folio_put(file);
	msim_folio_put(anon);
	assert_int_equal(lru_stat(lv, MSIM_NR_INACTIVE_ANON), 0);
	msim_destroy(m);
}

static void folio_alloc_checks(void **st)
{
	struct msim *plain = unit_host(2, 1);
	struct msim *m = lru_host(1, MSIM_LRU_CLASSIC, MSIM_LRU_REPARENT_OBJCG);

	(void)st;
	assert_false(msim_lru_attached(plain));
	assert_null(msim_folio_alloc(plain, MSIM_FOLIO_ANON, 0, 0, MSIM_ZONE_NORMAL));
	assert_int_equal(errno, ENODEV);
	assert_null(msim_folio_alloc(m, MSIM_FOLIO_ANON, 0, 1, MSIM_ZONE_NORMAL));
	assert_int_equal(errno, EINVAL);
	assert_null(msim_folio_alloc(m, MSIM_FOLIO_ANON, MSIM_MAX_FOLIO_ORDER + 1, 0,
				     MSIM_ZONE_NORMAL));
	/* the bare node lruvec has no LRU lists */
	assert_null(msim_lruvec_memcg(msim_node_lruvec(m, 0)));
	assert_int_equal(msim_lruvec_lru_size(msim_node_lruvec(m, 0), MSIM_LRU_INACTIVE_ANON,
					      MSIM_ZONE_MOVABLE), 0);
	/* too late once a child exists: its offline could not move anything */
	char err[256];
	unit_mkdir(msim_root_mem_cgroup(plain), "early");
	assert_int_equal(msim_lru_attach(plain, err, sizeof(err)), -EBUSY);
	assert_false(msim_lru_attached(plain));
	msim_destroy(m);
	msim_destroy(plain);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(classic_sizes_per_zone_and_thp),
		cmocka_unit_test(classic_activate_rotate_deactivate),
		cmocka_unit_test(isolate_and_putback),
		cmocka_unit_test(unevictable_counted_not_listed),
		cmocka_unit_test(mglru_sizes_and_zero_lru_zone_size),
		cmocka_unit_test(mglru_aging_moves_generations_and_stats),
		cmocka_unit_test(folio_alloc_checks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
