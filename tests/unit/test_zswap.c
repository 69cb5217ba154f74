/* SPDX-License-Identifier: MIT */
/*
 * test_zswap.c - the zswap layer (zswap.h): stores charge their compressed bytes
 * to the objcg through the obj stock and count MEMCG_ZSWAP_B / ZSWAPPED, the
 * root's are not charged, loads and invalidations give everything back, the
 * referenced bit gives a second chance, the pool limit and its hysteresis, the
 * root count of thread 002 patch 1 per variant, writeback and the disk swap-in
 * feedback, and bad input.
 */
#include "test_zswap_util.h"

#define N 40

/* Every entry of the pool is c's: the bytes charged add up to the pool's bytes. */
static void store_charges_compressed_bytes(void **st)
{
	struct msim *m = zt_host(NULL, MSIM_ZSWAP_ROOT_COUNT_MEMCG_STATS, 1);
	struct msim_memcg *c = unit_mkdir(msim_root_mem_cgroup(m), "c");
	struct msim_swap_pte pte[N];
	struct msim_zswap_stats s;

	(void)st;
	zt_touch(pte, N, c, 0);
	assert_int_equal(zt_usage(c), N);
	assert_int_equal(msim_zswap_reclaim(c, N, -1), N);
	assert_int_equal(zt_count_swapped(pte, N), N);
	s = zt_stats(m);
	assert_int_equal(s.zswpout, N);
	assert_int_equal(s.stored_pages, N);
	assert_true(s.pool_bytes > N * 1000 - 1 && s.pool_bytes < N * 3000 + 1);
	assert_int_equal(zt_stat(c, MSIM_MEMCG_ZSWAP_B), s.pool_bytes);
	assert_int_equal(zt_stat(c, MSIM_MEMCG_ZSWAPPED), N);
	assert_int_equal(msim_memory_zswap_current_read(c), s.pool_bytes);
	assert_int_equal(zt_events(c, MSIM_ZSWPOUT), N);
	/* The folios' pages went; the compressed bytes came, whole pages after the drain. */
	assert_int_equal(zt_usage(c), (s.pool_bytes + ZT_PAGE - 1) / ZT_PAGE);
	zt_free_all(m, pte, N);
	assert_int_equal(zt_stat(c, MSIM_MEMCG_ZSWAP_B), 0);
	assert_int_equal(zt_usage(c), 0);
	assert_int_equal(zt_stats(m).stored_pages, 0);
	msim_destroy(m);
}

/* obj_cgroup_charge_zswap skips the root objcg: the pool holds them, root's stats do not. */
static void root_entries_are_not_charged(void **st)
{
	struct msim *m = zt_host(NULL, MSIM_ZSWAP_ROOT_COUNT_MEMCG_STATS, 1);
	struct msim_memcg *root = msim_root_mem_cgroup(m);
	struct msim_swap_pte pte[N];

	(void)st;
	zt_touch(pte, N, root, 0);
	assert_int_equal(msim_zswap_reclaim(root, N, -1), N);
	assert_int_equal(zt_stats(m).stored_pages, N);
	assert_int_equal(msim_zswap_lru_count(root, 0), N);
	assert_int_equal(zt_stat(root, MSIM_MEMCG_ZSWAP_B), 0);
	assert_int_equal(zt_stat(root, MSIM_MEMCG_ZSWAPPED), 0);
	/* the event is counted on the root all the same (count_objcg_events) */
	assert_int_equal(zt_events(root, MSIM_ZSWPOUT), N);
	zt_free_all(m, pte, N);
	msim_destroy(m);
}

/* A fault loads from zswap: the entry is freed and uncharged, the folio charged again. */
static void swapin_loads_and_uncharges(void **st)
{
	struct msim *m = zt_host(NULL, MSIM_ZSWAP_ROOT_COUNT_MEMCG_STATS, 1);
	struct msim_memcg *c = unit_mkdir(msim_root_mem_cgroup(m), "c");
	struct msim_swap_pte pte[N];

	(void)st;
	zt_touch(pte, N, c, 0);
	msim_zswap_reclaim(c, N, -1);
	for (unsigned int i = 0; i < N; i++)
		assert_int_equal(msim_zswap_swapin(&pte[i], c), 0);
	assert_int_equal(zt_count_swapped(pte, N), 0);
	assert_int_equal(zt_stats(m).zswpin, N);
	assert_int_equal(zt_stats(m).pswpin, 0);
	assert_int_equal(zt_stats(m).swap_slots_used, 0);
	assert_int_equal(zt_stat(c, MSIM_MEMCG_ZSWAP_B), 0);
	assert_int_equal(zt_events(c, MSIM_ZSWPIN), N);
	assert_int_equal(zt_usage(c), N);
	/* a second swap-in of a resident page is misuse */
	assert_int_equal(msim_zswap_swapin(&pte[0], c), -EINVAL);
	zt_free_all(m, pte, N);
	msim_destroy(m);
}

/* shrink_memcg walks one entry: referenced (new) ones rotate first, then go. */
static void second_chance(void **st)
{
	struct msim *m = zt_host(NULL, MSIM_ZSWAP_ROOT_COUNT_MEMCG_STATS, 1);
	struct msim_memcg *c = unit_mkdir(msim_root_mem_cgroup(m), "c");
	struct msim_swap_pte pte[2];

	(void)st;
	zt_touch(pte, 2, c, 0);
	msim_zswap_reclaim(c, 2, -1);
	assert_int_equal(msim_zswap_shrink_memcg(m, c), -EAGAIN);   /* rotates entry 0 */
	assert_int_equal(msim_zswap_shrink_memcg(m, c), -EAGAIN);   /* rotates entry 1 */
	assert_int_equal(msim_zswap_shrink_memcg(m, c), 0);         /* writes entry 0 back */
	assert_int_equal(zt_stats(m).zswpwb, 1);
	assert_int_equal(zt_stats(m).pswpout, 1);
	assert_int_equal(zt_events(c, MSIM_ZSWPWB), 1);
	assert_int_equal(msim_zswap_lru_count(c, 0), 1);
	assert_int_equal(zt_stat(c, MSIM_MEMCG_ZSWAPPED), 1);
	/* the written-back page comes back from disk and feeds the count's protection */
	assert_int_equal(msim_zswap_swapin(&pte[0], c), 0);
	assert_int_equal(zt_stats(m).pswpin, 1);
	assert_int_equal(msim_zswap_nr_disk_swapins(c, 0), 1);
	zt_free_all(m, pte, 2);
	msim_destroy(m);
}

/*
 * A memcg removed with entries in zswap: its list goes to the parent (list_lru
 * reparenting) and its objcg names the parent, so the parent writes them back
 * and their uncharges land on it.
 */
static void offline_entries_go_to_parent(void **st)
{
	struct msim *m = zt_host(NULL, MSIM_ZSWAP_ROOT_COUNT_MEMCG_STATS, 1);
	struct msim_memcg *p = unit_mkdir(msim_root_mem_cgroup(m), "p");
	struct msim_memcg *c = unit_mkdir(p, "c");
	struct msim_swap_pte pte[10];
	unsigned long bytes;

	(void)st;
	zt_touch(pte, 10, c, 0);
	msim_zswap_reclaim(c, 10, -1);
	bytes = zt_stats(m).pool_bytes;
	assert_int_equal(msim_memcg_rmdir(c), 0);
	assert_int_equal(msim_zswap_lru_count(p, 0), 10);
	assert_int_equal(zt_stat(p, MSIM_MEMCG_ZSWAP_B), bytes);
	for (unsigned int i = 0; i < 11; i++)       /* ten rotations, then a writeback */
		msim_zswap_shrink_memcg(m, p);
	assert_int_equal(zt_stats(m).zswpwb, 1);
	assert_int_equal(zt_events(p, MSIM_ZSWPWB), 1);
	assert_int_equal(msim_zswap_lru_count(p, 0), 9);
	zt_free_all(m, pte, 10);
	assert_int_equal(zt_stat(p, MSIM_MEMCG_ZSWAP_B), 0);
	assert_int_equal(zt_usage(p), 0);
	msim_destroy(m);
}

/* NUMA-aware: an entry is listed on its folio's node; the count and walk are per node. */
static void entries_per_node(void **st)
{
	struct msim *m = zt_host(NULL, MSIM_ZSWAP_ROOT_COUNT_MEMCG_STATS, 2);
	struct msim_memcg *c = unit_mkdir(msim_root_mem_cgroup(m), "c");
	struct msim_shrink_control sc0 = { .nid = 0, .memcg = c }, sc1 = { .nid = 1, .memcg = c };
	struct msim_swap_pte pte[12];

	(void)st;
	zt_touch(pte, 4, c, 0);
	zt_touch(pte + 4, 8, c, 1);
	msim_zswap_reclaim(c, 12, -1);
	assert_int_equal(msim_zswap_lru_count(c, 0), 4);
	assert_int_equal(msim_zswap_lru_count(c, 1), 8);
	/* node 1's count is twice node 0's: same ratio, twice the freeable */
	assert_int_equal(msim_zswap_shrinker_count(msim_zswap_shrinker(m), &sc1),
			 2 * msim_zswap_shrinker_count(msim_zswap_shrinker(m), &sc0));
	/*
	 * shrink_memcg walks one entry per node: four calls rotate node 0's four
	 * entries and four of node 1's eight; the next four write node 0's back while
	 * node 1 still rotates; then node 1's go, one per call.
	 */
	assert_int_equal(msim_zswap_shrink_memcg(m, c), -EAGAIN);
	for (unsigned int i = 0; i < 7; i++)
		msim_zswap_shrink_memcg(m, c);
	assert_int_equal(zt_stats(m).zswpwb, 4);
	assert_int_equal(msim_zswap_lru_count(c, 0), 0);
	assert_int_equal(msim_zswap_lru_count(c, 1), 8);
	assert_int_equal(msim_zswap_shrink_memcg(m, c), 0);
	assert_int_equal(zt_stats(m).zswpwb, 5);
	assert_int_equal(msim_zswap_lru_count(c, 1), 7);
	zt_free_all(m, pte, 12);
	msim_destroy(m);
}

/* zswap_shrinker_count for the root: 0 under memcg-stats, the pool's ratio under pool. */
static void root_count_per_variant(void **st)
{
	for (int rc = MSIM_ZSWAP_ROOT_COUNT_MEMCG_STATS; rc <= MSIM_ZSWAP_ROOT_COUNT_POOL; rc++) {
		struct msim *m = zt_host(NULL, (enum msim_zswap_root_count)rc, 1);
		struct msim_memcg *root = msim_root_mem_cgroup(m);
		struct msim_shrink_control sc = { .nid = 0, .memcg = root };
		struct msim_swap_pte pte[N];
		struct msim_zswap_stats s;
		unsigned long count;

		(void)st;
		zt_touch(pte, N, root, 0);
		msim_zswap_reclaim(root, N, -1);
		s = zt_stats(m);
		count = msim_zswap_shrinker_count(msim_zswap_shrinker(m), &sc);
		if (rc == MSIM_ZSWAP_ROOT_COUNT_MEMCG_STATS)
			assert_int_equal(count, 0);
		else    /* N freeable scaled by pool pages / stored pages */
			assert_int_equal(count, N * s.pool_pages / s.stored_pages);
		zt_free_all(m, pte, N);
		msim_destroy(m);
	}
}

static void reclaim_two(void *arg)
{
	msim_zswap_reclaim(arg, 2, -1);
}

/*
 * Under patch 1 the root's count rounds to 0 while a store is half done:
 * zswap_store_page() increments zswap_stored_pages before zswap_lru_add(), so
 * a count between the two reads 1 listed, 2 stored, 1 pool page, and
 * mult_frac(1, 1, 2) is 0 (the race's violation is therefore the thread's
 * measure, nothing written back, not one round's count). Fails if the model
 * lists the entry before counting it stored.
 */
static void pool_count_rounds_to_zero_mid_store(void **st)
{
	struct msim *m = zt_host(NULL, MSIM_ZSWAP_ROOT_COUNT_POOL, 1);
	struct msim_memcg *root = msim_root_mem_cgroup(m);
	struct msim_shrink_control sc = { .nid = 0, .memcg = root };
	struct msim_shrinker *zs = msim_zswap_shrinker(m);
	struct msim_swap_pte pte[2];
	struct msim_task *t;
	struct msim_zswap_stats s;

	(void)st;
	zt_touch(pte, 2, root, 0);
	t = msim_task_create(m, "reclaim(root)", 0, reclaim_two, root);
	assert_non_null(t);
	assert_int_equal(msim_run_until(m, t, "zswap.store.lru_add", 2), 0);
	s = zt_stats(m);
	assert_int_equal(s.stored_pages, 2);
	assert_int_equal(s.pool_pages, 1);
	assert_int_equal(msim_zswap_lru_count(root, 0), 1);
	assert_int_equal(msim_zswap_shrinker_count(zs, &sc), 0);
	assert_int_equal(msim_run_task(m, t), 0);
	assert_int_equal(msim_zswap_lru_count(root, 0), 2);
	assert_int_equal(msim_zswap_shrinker_count(zs, &sc), 1);
	zt_free_all(m, pte, 2);
	msim_destroy(m);
}

/* The pool stops accepting at max and accepts again only below the accept threshold. */
static void pool_limit_hysteresis(void **st)
{
	struct msim_zswap_params p;
	struct msim *m;
	struct msim_memcg *c;
	struct msim_swap_pte pte[16];
	struct msim_zswap_stats s;

	(void)st;
	msim_zswap_params_init(&p);
	p.total_ram_pages = 50;          /* max 10 pages, accept threshold 9 */
	p.min_bytes = p.max_bytes = 4096;
	m = zt_host(&p, MSIM_ZSWAP_ROOT_COUNT_MEMCG_STATS, 1);
	c = unit_mkdir(msim_root_mem_cgroup(m), "c");
	assert_int_equal(msim_zswap_max_pages(m), 10);
	assert_int_equal(msim_zswap_accept_thr_pages(m), 9);
	zt_touch(pte, 16, c, 0);
	msim_zswap_reclaim(c, 16, -1);
	s = zt_stats(m);
	assert_int_equal(s.stored_pages, 10);
	assert_int_equal(s.stored_incompressible_pages, 10);
	assert_int_equal(s.reject_limit, 6);
	assert_int_equal(s.pswpout, 6);           /* rejected pages went to the device */
	/* the worker queued by the rejects writes back to the threshold */
	assert_int_equal(msim_zswap_run_queued_work(m), 1);
	assert_int_equal(msim_zswap_total_pages(m), 9);
	assert_int_equal(msim_zswap_run_queued_work(m), 0);
	zt_free_all(m, pte, 16);
	msim_destroy(m);
}

/*
 * shrink_worker with a zombie memcg in the tree (the 2024 fix): the old worker
 * counts the zombie (and the empty root) as failures and gives up after
 * MAX_RECLAIM_RETRIES with the pool still above the threshold; the fixed one
 * skips them and writes back down to the threshold.
 */
static unsigned long worker_run(enum msim_zswap_shrink_iter iter, unsigned long *left)
{
	struct msim_zswap_params p;
	struct msim_config cfg = unit_config(2, 1);
	struct msim_swap_pte pte[20];
	struct msim_memcg *a, *zombie;
	struct msim *m;
	unsigned long wb;
	char err[128];

	msim_zswap_params_init(&p);
	p.total_ram_pages = 100;          /* max 20 pages */
	p.accept_thr_percent = 50;        /* threshold 10 */
	p.min_bytes = p.max_bytes = 4096;
	assert_int_equal(msim_variant_set_value(&cfg.variants, "zswap-shrink-iter", iter), 0);
	m = unit_host_cfg(&cfg);
	assert_int_equal(msim_zswap_attach(m, &p, err, sizeof(err)), 0);
	a = unit_mkdir(msim_root_mem_cgroup(m), "a");
	zombie = unit_mkdir(msim_root_mem_cgroup(m), "z");
	msim_css_get(zombie);
	assert_int_equal(msim_memcg_rmdir(zombie), 0);
	zt_touch(pte, 20, a, 0);
	msim_zswap_reclaim(a, 20, -1);
	assert_int_equal(msim_zswap_total_pages(m), 20);
	for (unsigned int i = 0; i < 20; i++)     /* clear the referenced bits */
		msim_zswap_shrink_memcg(m, a);
	wb = msim_zswap_shrink_worker(m);
	*left = msim_zswap_total_pages(m);
	zt_free_all(m, pte, 20);
	msim_css_put(zombie);
	msim_destroy(m);
	return wb;
}

static void worker_skips_offline_memcgs(void **st)
{
	unsigned long left_fixed, left_old;
	unsigned long fixed = worker_run(MSIM_ZSWAP_SHRINK_ITER_FIXED, &left_fixed);
	unsigned long old = worker_run(MSIM_ZSWAP_SHRINK_ITER_OLD, &left_old);

	(void)st;
	assert_int_equal(left_fixed, 10);       /* down to the threshold */
	assert_int_equal(fixed, 10);
	assert_true(left_old > 10);             /* gave up above it */
	assert_int_equal(old, 20 - left_old);
	print_message("shrink_worker with a zombie memcg: fixed wrote back %lu (pool %lu), "
		      "old %lu (pool %lu)\n", fixed, left_fixed, old, left_old);
}

/*
 * The swap device's slot arrays grow as slots are first used (src/zswap/swapdev.c):
 * a device of 600 slots hands out every one of them, in order, past the first
 * chunk and its doubling (clamped to the device), then none; a freed slot above
 * the first chunk is handed out again, and a swap-in from it charges its owner.
 */
#define DEV_SLOTS 600
#define DEV_PAGES 700
static void swap_device_grows_to_its_size(void **st)
{
	static struct msim_swap_pte pte[DEV_PAGES];
	struct msim_zswap_params p;
	struct msim *m;
	struct msim_memcg *c;
	bool seen[DEV_SLOTS] = { false };
	unsigned int swapped = 0, high = DEV_PAGES;

	(void)st;
	msim_zswap_params_init(&p);
	p.swap_slots = DEV_SLOTS;
	m = zt_host(&p, MSIM_ZSWAP_ROOT_COUNT_MEMCG_STATS, 1);
	c = unit_mkdir(msim_root_mem_cgroup(m), "c");
	zt_touch(pte, DEV_PAGES, c, 0);
	msim_zswap_reclaim(c, DEV_PAGES, -1);
	for (unsigned int i = 0; i < DEV_PAGES; i++) {
		if (pte[i].slot < 0)
			continue;
		assert_true(pte[i].slot < DEV_SLOTS);
		assert_false(seen[pte[i].slot]);
		seen[pte[i].slot] = true;
		swapped++;
		if (pte[i].slot == 400)
			high = i;
	}
	assert_int_equal(swapped, DEV_SLOTS);
	assert_int_equal(zt_stats(m).swap_slots_used, DEV_SLOTS);
	assert_true(high < DEV_PAGES);
	/* slot 400 comes back: its owner is charged, and the slot is free again */
	assert_int_equal(msim_zswap_swapin(&pte[high], c), 0);
	assert_int_equal(zt_stats(m).swap_slots_used, DEV_SLOTS - 1);
	msim_zswap_reclaim(c, DEV_PAGES, -1);
	assert_int_equal(pte[high].slot, 400);
	assert_int_equal(zt_stats(m).swap_slots_used, DEV_SLOTS);
	zt_free_all(m, pte, DEV_PAGES);
	assert_int_equal(zt_stats(m).swap_slots_used, 0);
	msim_destroy(m);
}

static void bad_input(void **st)
{
	struct msim_zswap_params p;
	struct msim *m = unit_host(2, 1);
	struct msim_memcg *c;
	char err[128] = "";

	(void)st;
	msim_zswap_params_init(&p);
	p.min_bytes = 0;
	assert_int_equal(msim_zswap_attach(m, &p, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "min_bytes"));
	msim_zswap_params_init(&p);
	p.max_pool_percent = 101;
	assert_int_equal(msim_zswap_attach(m, &p, err, sizeof(err)), -EINVAL);
	assert_false(msim_zswap_attached(m));
	assert_int_equal(msim_zswap_attach(m, NULL, err, sizeof(err)), 0);
	assert_int_equal(msim_zswap_attach(m, NULL, err, sizeof(err)), -EBUSY);
	c = unit_mkdir(msim_root_mem_cgroup(m), "c");
	assert_int_equal(msim_memory_zswap_max_write(c, "12k"), -EINVAL);
	assert_int_equal(msim_memory_zswap_max_write(c, "-1"), -EINVAL);
	assert_int_equal(msim_memory_zswap_max_write(msim_root_mem_cgroup(m), "0"), -EINVAL);
	assert_int_equal(msim_memory_zswap_max_write(c, "8191"), 0);
	assert_int_equal(msim_memory_zswap_max_pages(c), 1);
	assert_int_equal(msim_memory_zswap_writeback_write(c, 2), -EINVAL);
	assert_int_equal(msim_zswap_swapin(NULL, c), -EINVAL);
	assert_int_equal(msim_zswap_shrinker_count(NULL, NULL), 0);
	msim_destroy(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(store_charges_compressed_bytes),
		cmocka_unit_test(root_entries_are_not_charged),
		cmocka_unit_test(swapin_loads_and_uncharges),
		cmocka_unit_test(second_chance),
		cmocka_unit_test(offline_entries_go_to_parent),
		cmocka_unit_test(entries_per_node),
		cmocka_unit_test(root_count_per_variant),
		cmocka_unit_test(pool_count_rounds_to_zero_mid_store),
		cmocka_unit_test(pool_limit_hysteresis),
		cmocka_unit_test(worker_skips_offline_memcgs),
		cmocka_unit_test(swap_device_grows_to_its_size),
		cmocka_unit_test(bad_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
