/* SPDX-License-Identifier: MIT */
/*
 * test_workingset.c - the page cache with shadow entries, the shadow-node
 * tracker on its memcg-aware list_lru, eviction and refault, the shadow budget
 * and its shrinker (src/workingset, include/memcgsim/workingset.h).
 */
#include <errno.h>

#include "unit_util.h"

#include <memcgsim/workingset.h>
#include <memcgsim/introspect.h>

struct ws_fixture {
	struct msim *m;
	struct msim_memcg *root, *p, *c;
	struct msim_address_space *file;
};

static void ws_setup(struct ws_fixture *f, enum msim_lru_kind kind, const char *settings)
{
	struct msim_config cfg = unit_config(4, 1);
	char err[256];

	cfg.lru = kind;
	if (settings)
		assert_int_equal(msim_variant_set(&cfg.variants, settings, err, sizeof(err)), 0);
	f->m = unit_host_cfg(&cfg);
	assert_int_equal(msim_workingset_attach(f->m, err, sizeof(err)), 0);
	f->root = msim_root_mem_cgroup(f->m);
	assert_int_equal(msim_memcg_create(f->root, "p", &f->p), 0);
	assert_int_equal(msim_memcg_create(f->p, "c", &f->c), 0);
	assert_int_equal(msim_address_space_create(f->m, "file", &f->file), 0);
}

static void ws_teardown(struct ws_fixture *f)
{
	msim_address_space_destroy(f->file);
	msim_destroy(f->m);
}

/* Read [first, first + n) of the file as c's. */
static void read_range(struct ws_fixture *f, unsigned long first, unsigned long n, int expect)
{
	for (unsigned long i = first; i < first + n; i++)
		assert_int_equal(msim_filemap_read(f->file, i, f->c, 0, false), expect);
}

static unsigned long c_shadow_nodes(struct ws_fixture *f)
{
	return msim_list_lru_count_one(msim_workingset_shadow_nodes(f->m), 0, f->c);
}

static void test_pack_unpack_roundtrip(void **state)
{
	struct msim_shadow sh;
	void *e;

	(void)state;
	e = msim_pack_shadow(65535, 63, MSIM_EVICTION_MASK, true);
	assert_true(msim_xa_is_value(e));
	assert_int_equal(msim_unpack_shadow(e, &sh), 0);
	assert_int_equal(sh.memcgid, 65535);
	assert_int_equal(sh.nid, 63);
	assert_true(sh.eviction == MSIM_EVICTION_MASK);
	assert_true(sh.workingset);
	/* the counter wraps at the mask: one more than it is 0 */
	assert_int_equal(msim_unpack_shadow(msim_pack_shadow(7, 1, MSIM_EVICTION_MASK + 1, false),
					    &sh), 0);
	assert_true(sh.eviction == 0);
	assert_int_equal(sh.memcgid, 7);
	assert_int_equal(sh.nid, 1);
	assert_false(sh.workingset);
	/* a pointer is no shadow */
	assert_int_equal(msim_unpack_shadow(&sh, &sh), -EINVAL);
	/* 40 bits of clock: buckets only past 2^40 pages of RAM */
	assert_int_equal(64 - MSIM_EVICTION_SHIFT, 40);
	assert_int_equal(msim_workingset_bucket_order_for(1UL << 22), 0);
	assert_int_equal(msim_workingset_bucket_order_for(1UL << 40), 0);
	assert_int_equal(msim_workingset_bucket_order_for((1UL << 40) + 1), 1);
	assert_int_equal(msim_workingset_bucket_order_for((1UL << 42) + 1), 3);
}

/*
 * 64 pages fill one leaf. Evicting them all makes it shadow-only: on c's
 * shadow_nodes list, WORKINGSET_NODES 1. A refault stores a folio there: off
 * the list again. The tree's root node above two leaves is never listed.
 */
static void shadow_node_tracking(enum msim_lru_kind kind)
{
	struct ws_fixture f;
	struct msim_workingset_counts n;

	ws_setup(&f, kind, NULL);
	read_range(&f, 0, 64, MSIM_FILEMAP_MISS);
	assert_int_equal(msim_mapping_nrpages(f.file), 64);
	assert_int_equal(c_shadow_nodes(&f), 0);
	assert_int_equal(msim_workingset_reclaim(f.c, 64, NULL), 64);
	assert_int_equal(msim_mapping_nrpages(f.file), 0);
	assert_int_equal(msim_mapping_nrshadows(f.file), 64);
	assert_int_equal(c_shadow_nodes(&f), 1);
	assert_int_equal(msim_workingset_nodes(f.m, 0), 1);
	/* a refault puts a folio in the node: not shadow-only any more */
	assert_true(msim_filemap_read(f.file, 5, f.c, 0, false) >= MSIM_FILEMAP_REFAULT);
	assert_int_equal(c_shadow_nodes(&f), 0);
	assert_int_equal(msim_workingset_nodes(f.m, 0), 0);
	/* a second leaf: two leaves under a root node, the inner node never listed */
	read_range(&f, 64, 64, MSIM_FILEMAP_MISS);
	assert_int_equal(msim_xa_nr_nodes(msim_mapping_i_pages(f.file)), 3);
	assert_int_equal(msim_workingset_reclaim(f.c, 65, NULL), 65);
	assert_int_equal(c_shadow_nodes(&f), 2);
	assert_int_equal(msim_workingset_nodes(f.m, 0), 2);
	msim_workingset_counts(f.m, &n);
	assert_int_equal(n.shadows_stored, 129);
	assert_int_equal(n.refaults, 1);
	assert_int_equal(n.node_records, 3);
	ws_teardown(&f);
}

static void test_shadow_nodes_classic(void **state)
{
	(void)state;
	shadow_node_tracking(MSIM_LRU_CLASSIC);
}

static void test_shadow_nodes_mglru(void **state)
{
	(void)state;
	shadow_node_tracking(MSIM_LRU_MGLRU);
}

/*
 * Classic: a page evicted and read back at once has refault distance 1, within
 * a workingset of one active page: activated; one evicted six evictions
 * earlier is not. The clock of c and of every ancestor advances by
 * one page per eviction.
 */
static void test_classic_refault_activation(void **state)
{
	struct ws_fixture f;
	struct msim_workingset_counts n;
	unsigned long age_p;

	(void)state;
	ws_setup(&f, MSIM_LRU_CLASSIC, NULL);
	read_range(&f, 0, 8, MSIM_FILEMAP_MISS);
	/* two reads of page 0 activate it (referenced, then active): workingset size 1 */
	read_range(&f, 0, 1, MSIM_FILEMAP_HIT);
	read_range(&f, 0, 1, MSIM_FILEMAP_HIT);
	assert_true(msim_folio_test_active(msim_xa_load(msim_mapping_i_pages(f.file), 0)));
	age_p = msim_workingset_nonresident_age(f.m, f.p, 0);
	/* one batch (SWAP_CLUSTER_MAX) takes the 7 inactive pages, oldest (1) first */
	assert_int_equal(msim_workingset_reclaim(f.c, 1, NULL), 7);
	assert_int_equal(msim_workingset_nonresident_age(f.m, f.p, 0), age_p + 7);
	assert_int_equal(msim_workingset_nonresident_age(f.m, f.c, 0), age_p + 7);
	/*
	 * The clock is read before it advances: page 7, evicted last, refaults at
	 * distance 1 <= 1 active page (the flushed statistics say so); page 1 at 7.
	 */
	msim_mem_cgroup_flush_stats_forced(f.root);
	assert_int_equal(msim_filemap_read(f.file, 7, f.c, 0, false),
			 MSIM_FILEMAP_REFAULT_ACTIVATED);
	assert_int_equal(msim_filemap_read(f.file, 1, f.c, 0, false), MSIM_FILEMAP_REFAULT);
	msim_mem_cgroup_flush_stats_forced(f.root);
	assert_int_equal(msim_memcg_page_state(f.c, MSIM_WORKINGSET_REFAULT_FILE), 2);
	assert_int_equal(msim_memcg_page_state(f.c, MSIM_WORKINGSET_ACTIVATE_FILE), 1);
	msim_workingset_counts(f.m, &n);
	assert_int_equal(n.refaults_activated, 1);
	ws_teardown(&f);
}

/*
 * MGLRU refaults per rule (lru_gen_refault). c reads 100 pages once through the
 * file and page 0 five more times (6.14: PG_referenced, the counter to 3, then
 * PG_workingset; 6.12: refs 4, always protected). One reclaim batch evicts 64
 * pages from the oldest generation (page 0 is protected), and pages 1 (in a
 * fault) and 2 refault while that generation is still the oldest; the rest
 * of it is evicted and page 3 refaults; then everything is evicted and page 0
 * refaults in a fault.
 *   newest: 1 and 2 are recent but were not in the workingset: no restore,
 *           and an activation only for 1 (in a fault, where folio_add_lru()
 *           makes every folio active); 0 was: an activation (in a fault) and a
 *           restore.
 *   6.12:   1 and 2 are recent (min_seq has not moved): both activations, 1 a
 *           restore (in a fault); 0's token names a generation min_seq has left:
 *           not recent.
 */
static void mglru_refaults(const char *rule, const int outcome[3], unsigned long activate,
			   unsigned long restore)
{
	struct msim_lru_gen_tier t;
	struct ws_fixture f;
	unsigned long seq;

	ws_setup(&f, MSIM_LRU_MGLRU, rule);
	read_range(&f, 0, 100, MSIM_FILEMAP_MISS);
	for (int i = 0; i < 5; i++)
		assert_int_equal(msim_filemap_read(f.file, 0, f.c, 0, false), MSIM_FILEMAP_HIT);
	assert_int_equal(msim_workingset_reclaim(f.c, 32, NULL), 64);
	assert_int_equal(msim_filemap_read(f.file, 1, f.c, 0, true), outcome[0]);
	assert_int_equal(msim_filemap_read(f.file, 2, f.c, 0, false), outcome[1]);
	/* both fed refaulted[] of the first tier (refs 1; 6.12: none beyond the first) */
	assert_int_equal(msim_lru_gen_tier_stats(msim_mem_cgroup_lruvec(f.m, f.c, 0), 1, 0, &t), 0);
	assert_int_equal(t.refaulted, 2);
	assert_int_equal(t.evicted, 64);
	/*
	 * The rest of the oldest generation goes and min_seq moves on: page 3's
	 * token is still within MAX_NR_GENS of max_seq (newest: recent, but not in
	 * the workingset: a plain refault), no longer min_seq (6.12: not recent).
	 */
	seq = msim_lru_gen_min_seq(msim_mem_cgroup_lruvec(f.m, f.c, 0), 1);
	assert_true(msim_workingset_reclaim(f.c, 32, NULL) >= 32);
	assert_true(msim_lru_gen_min_seq(msim_mem_cgroup_lruvec(f.m, f.c, 0), 1) > seq);
	assert_int_equal(msim_filemap_read(f.file, 3, f.c, 0, false), MSIM_FILEMAP_REFAULT);
	while (msim_mapping_nrpages(f.file))
		assert_true(msim_workingset_reclaim(f.c, 128, NULL) > 0);
	assert_int_equal(msim_filemap_read(f.file, 0, f.c, 0, true), outcome[2]);
	msim_mem_cgroup_flush_stats_forced(f.root);
	assert_int_equal(msim_memcg_page_state(f.c, MSIM_WORKINGSET_REFAULT_FILE), 4);
	assert_int_equal(msim_memcg_page_state(f.c, MSIM_WORKINGSET_ACTIVATE_FILE), activate);
	assert_int_equal(msim_memcg_page_state(f.c, MSIM_WORKINGSET_RESTORE_FILE), restore);
	ws_teardown(&f);
}

static void test_mglru_refault_activation(void **state)
{
	static const int newest[3] = { MSIM_FILEMAP_REFAULT_ACTIVATED, MSIM_FILEMAP_REFAULT,
				       MSIM_FILEMAP_REFAULT_ACTIVATED };
	static const int v6_12[3] = { MSIM_FILEMAP_REFAULT_ACTIVATED, MSIM_FILEMAP_REFAULT_ACTIVATED,
				      MSIM_FILEMAP_REFAULT };

	(void)state;
	mglru_refaults(NULL, newest, 2, 1);
	mglru_refaults("mglru-protection=6.12", v6_12, 2, 1);
}

/*
 * The budget of count_shadow_nodes for c, 128 resident pages: lru-size reads
 * lru_zone_size (128 under classic, 0 under MGLRU: only the slab of c's nodes
 * is left); page-state-local reads the statistics under both.
 */
static unsigned long budget_of(enum msim_lru_kind kind, const char *settings)
{
	struct ws_fixture f;
	unsigned long pages;

	ws_setup(&f, kind, settings);
	read_range(&f, 0, 128, MSIM_FILEMAP_MISS);
	msim_mem_cgroup_flush_stats_forced(f.root);
	pages = msim_shadow_budget_pages(f.m, f.c, 0);
	ws_teardown(&f);
	return pages;
}

/*
 * A driver-only experiment: without a flush or a clock past the ratelimit, the
 * page-state-local budget reads statistics nothing has flushed (0 LRU pages),
 * as lru-size does under MGLRU; msim_workingset_sync_stats() makes it read the
 * 128 pages, and count_shadow_nodes()'s own ratelimited flush does not.
 */
static void test_budget_needs_a_flush(void **state)
{
	struct msim_shrink_control sc = { .nid = 0 };
	struct ws_fixture f;
	unsigned long max_nodes;

	(void)state;
	ws_setup(&f, MSIM_LRU_CLASSIC, "shadow-budget=page-state-local");
	sc.memcg = f.c;
	read_range(&f, 0, 128, MSIM_FILEMAP_MISS);
	assert_int_equal(msim_shadow_budget_pages(f.m, f.c, 0), 0);
	msim_count_shadow_nodes_budget(f.m, &sc, &max_nodes);
	assert_int_equal(msim_shadow_budget_pages(f.m, f.c, 0), 0);  /* ratelimited: no flush */
	msim_workingset_sync_stats(f.m);
	assert_int_equal(msim_shadow_budget_pages(f.m, f.c, 0), 128);
	ws_teardown(&f);
}

static void test_shadow_budget_variants(void **state)
{
	(void)state;
	/* c's three xa_nodes are 3 x 592 bytes of reclaimable slab: 0 whole pages */
	assert_int_equal(budget_of(MSIM_LRU_CLASSIC, "shadow-budget=lru-size"), 128);
	assert_int_equal(budget_of(MSIM_LRU_MGLRU, "shadow-budget=lru-size"), 0);
	assert_int_equal(budget_of(MSIM_LRU_CLASSIC, "shadow-budget=page-state-local"), 128);
	assert_int_equal(budget_of(MSIM_LRU_MGLRU, "shadow-budget=page-state-local"), 128);
}

/*
 * Ten shadow-only nodes of c and a budget of 64 resident pages (8 nodes):
 * count_shadow_nodes reports 2 over the budget. do_shrink_slab's arithmetic
 * (seeks 0: delta = freeable / 2) scans nothing until the deferred work counts
 * (at a low priority); then every node scanned is freed, oldest first, with
 * WORKINGSET_NODERECLAIM, and their shadows read as plain misses.
 */
static void test_shrinker_frees_excess(void **state)
{
	struct msim_shrink_control sc = { .nid = 0 };
	struct ws_fixture f;
	struct msim_workingset_counts n;
	unsigned long max_nodes, excess;
	int id;

	(void)state;
	ws_setup(&f, MSIM_LRU_CLASSIC, NULL);
	read_range(&f, 0, 640, MSIM_FILEMAP_MISS);
	assert_int_equal(msim_workingset_reclaim(f.c, 640, NULL), 640);
	assert_int_equal(c_shadow_nodes(&f), 10);
	read_range(&f, 1000, 64, MSIM_FILEMAP_MISS);
	msim_mem_cgroup_flush_stats_forced(f.root);
	sc.memcg = f.c;
	excess = msim_count_shadow_nodes_budget(f.m, &sc, &max_nodes);
	assert_int_equal(max_nodes, 8);
	assert_int_equal(excess, 2);
	id = msim_workingset_shrinker(f.m)->id;
	/* the reclaim's shrink_slab (budget 0 then: 10 over) deferred 5 and scanned none */
	assert_int_equal(msim_shrinker_memcg_nr_deferred(f.c, 0, id), 5);
	/* DEF_PRIORITY: deferred >> 12 = 0, delta 1 < freeable 2: deferred again */
	assert_int_equal(msim_shrink_slab(f.m, 0, f.c, MSIM_DEF_PRIORITY), 0);
	/* next_deferred 5 + 1 - 0, capped at 2 x freeable */
	assert_int_equal(msim_shrinker_memcg_nr_deferred(f.c, 0, id), 4);
	/* priority 0: 4 + 1 capped at 2 x freeable = 4 nodes scanned, each freed */
	assert_int_equal(msim_shrink_slab(f.m, 0, f.c, 0), 4);
	assert_int_equal(c_shadow_nodes(&f), 6);
	msim_workingset_counts(f.m, &n);
	assert_int_equal(n.nodes_reclaimed, 4);
	assert_int_equal(n.shadows_reclaimed, 4 * 64);
	assert_int_equal(msim_mapping_nrshadows(f.file), 640 - 4 * 64);
	assert_int_equal(msim_workingset_nodes(f.m, 0), 6);
	msim_mem_cgroup_flush_stats_forced(f.root);
	assert_int_equal(msim_memcg_page_state(f.c, MSIM_WORKINGSET_NODERECLAIM), 4);
	/* the oldest nodes went first: page 0's shadow is gone, a plain miss */
	assert_int_equal(msim_filemap_read(f.file, 0, f.c, 0, false), MSIM_FILEMAP_MISS);
	assert_int_equal(msim_filemap_read(f.file, 639, f.c, 0, false), MSIM_FILEMAP_REFAULT);
	ws_teardown(&f);
}

/*
 * workingset_test_recent's flush: mainline flushes the eviction memcg's stats
 * whatever it is; thread 002 patch 3 (workingset-root-flush=skip) not when it
 * is the root. Pages of the root, evicted by root reclaim, then refaulted.
 */
static unsigned long root_refault_flushes(const char *settings, unsigned long *skipped)
{
	struct ws_fixture f;
	struct msim_workingset_counts n;

	ws_setup(&f, MSIM_LRU_CLASSIC, settings);
	for (unsigned long i = 0; i < 4; i++)
		assert_int_equal(msim_filemap_read(f.file, i, f.root, 0, false), MSIM_FILEMAP_MISS);
	assert_int_equal(msim_workingset_reclaim(f.root, 4, NULL), 4);
	for (unsigned long i = 0; i < 4; i++)
		assert_int_equal(msim_filemap_read(f.file, i, f.root, 0, false),
				 MSIM_FILEMAP_REFAULT);
	msim_workingset_counts(f.m, &n);
	*skipped = n.root_flushes_skipped;
	ws_teardown(&f);
	return n.test_recent_flushes;
}

static void test_root_flush_variant(void **state)
{
	unsigned long skipped;

	(void)state;
	assert_int_equal(root_refault_flushes("workingset-root-flush=flush", &skipped), 4);
	assert_int_equal(skipped, 0);
	assert_int_equal(root_refault_flushes("workingset-root-flush=skip", &skipped), 0);
	assert_int_equal(skipped, 4);
}

/*
 * A freed eviction memcg: c evicts page 7 (distance 1 at once would activate),
 * c is removed and its id freed; the refault finds no memcg by the id: not
 * recent, counted as such. Pages charged to p now.
 */
static void test_eviction_memcg_freed(void **state)
{
	struct ws_fixture f;
	struct msim_workingset_counts n;
	unsigned short id;

	(void)state;
	ws_setup(&f, MSIM_LRU_CLASSIC, NULL);
	read_range(&f, 0, 8, MSIM_FILEMAP_MISS);
	read_range(&f, 0, 1, MSIM_FILEMAP_HIT);
	read_range(&f, 0, 1, MSIM_FILEMAP_HIT);
	assert_int_equal(msim_workingset_reclaim(f.c, 1, NULL), 7);
	id = msim_mem_cgroup_private_id(f.c);
	assert_int_equal(msim_memcg_rmdir(f.c), 0);
	assert_null(msim_mem_cgroup_from_private_id(f.m, id));
	assert_int_equal(msim_filemap_read(f.file, 7, f.p, 0, false), MSIM_FILEMAP_REFAULT);
	msim_workingset_counts(f.m, &n);
	assert_int_equal(n.refaults_memcg_gone, 1);
	assert_int_equal(n.refaults_activated, 0);
	ws_teardown(&f);
}

/*
 * Reclaim through the LRU layer alone (msim_try_to_free_mem_cgroup_pages, no
 * evict callback) removes each page-cache folio it frees from its mapping, as
 * shrink_folio_list's __remove_mapping does: the file keeps 256 - got folios
 * and got shadows, each evicted index refaults, and destroying the file after
 * it frees every folio (it used to find freed folios in i_pages and crash).
 */
static void reclaim_through_lru_layer(enum msim_lru_kind kind)
{
	struct ws_fixture f;
	struct msim_workingset_counts n;
	struct msim_lru_counts lc;
	unsigned long got, hits = 0, refaults = 0;

	ws_setup(&f, kind, NULL);
	read_range(&f, 0, 256, MSIM_FILEMAP_MISS);
	got = msim_try_to_free_mem_cgroup_pages(f.c, 64, NULL);
	assert_true(got >= 64 && got < 256);
	assert_int_equal(msim_mapping_nrpages(f.file), 256 - got);
	assert_int_equal(msim_mapping_nrshadows(f.file), got);
	msim_workingset_counts(f.m, &n);
	assert_int_equal(n.shadows_stored, got);
	msim_lru_counts(f.m, &lc);
	assert_int_equal(lc.folios_live, 256 - got);
	for (unsigned long i = 0; i < 256; i++) {
		int r = msim_filemap_read(f.file, i, f.c, 0, false);

		assert_true(r >= 0);
		if (r == MSIM_FILEMAP_HIT)
			hits++;
		else if (r >= MSIM_FILEMAP_REFAULT)
			refaults++;
	}
	assert_int_equal(hits, 256 - got);
	assert_int_equal(refaults, got);
	msim_address_space_destroy(f.file);
	f.file = NULL;
	msim_lru_counts(f.m, &lc);
	assert_int_equal(lc.folios_live, 0);
	ws_teardown(&f);
}

static void test_lru_reclaim_removes_mapping_classic(void **state)
{
	(void)state;
	reclaim_through_lru_layer(MSIM_LRU_CLASSIC);
}

static void test_lru_reclaim_removes_mapping_mglru(void **state)
{
	(void)state;
	reclaim_through_lru_layer(MSIM_LRU_MGLRU);
}

static enum msim_reclaim_verdict keep_all(struct msim_folio *folio, struct msim_memcg *target,
					  void *arg)
{
	(void)folio;
	(void)target;
	(void)arg;
	return MSIM_RECLAIM_KEEP;
}

/* The page cache's hook is the workingset layer's: a second owner is refused. */
static void test_remove_mapping_hook_errors(void **state)
{
	struct ws_fixture f;

	(void)state;
	ws_setup(&f, MSIM_LRU_CLASSIC, NULL);
	assert_int_equal(msim_lru_set_remove_mapping(f.m, keep_all, NULL, false), -EBUSY);
	assert_int_equal(msim_lru_set_remove_mapping(f.m, msim_filemap_evict, NULL, true), 0);
	assert_int_equal(msim_lru_set_remove_mapping(NULL, keep_all, NULL, false), -ENODEV);
	ws_teardown(&f);
}

/* Misuse gives an error code, never a crash. */
static void test_misuse(void **state)
{
	struct msim *m = unit_host(2, 1);
	struct msim_address_space *as;

	(void)state;
	assert_int_equal(msim_address_space_create(m, "x", &as), -ENODEV);
	assert_int_equal(msim_address_space_create(m, "x", NULL), -EINVAL);
	assert_int_equal(msim_filemap_read(NULL, 0, NULL, 0, false), -EINVAL);
	assert_null(msim_workingset_shadow_nodes(m));
	assert_false(msim_workingset_test_recent(m, msim_pack_shadow(1, 0, 0, false), true, NULL,
						 true));
	msim_destroy(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pack_unpack_roundtrip),
		cmocka_unit_test(test_shadow_nodes_classic),
		cmocka_unit_test(test_shadow_nodes_mglru),
		cmocka_unit_test(test_classic_refault_activation),
		cmocka_unit_test(test_mglru_refault_activation),
		cmocka_unit_test(test_shadow_budget_variants),
		cmocka_unit_test(test_shrinker_frees_excess),
		cmocka_unit_test(test_root_flush_variant),
		cmocka_unit_test(test_budget_needs_a_flush),
		cmocka_unit_test(test_eviction_memcg_freed),
		cmocka_unit_test(test_misuse),
		cmocka_unit_test(test_lru_reclaim_removes_mapping_classic),
		cmocka_unit_test(test_lru_reclaim_removes_mapping_mglru),
		cmocka_unit_test(test_remove_mapping_hook_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
