/* SPDX-License-Identifier: MIT */
/*
 * test_zswap_departures.c - where the zswap model followed the kernel less
 * closely, each checked against the kernel's own rule:
 *
 *   zsmalloc_pages      with zsmalloc_pages, 1500-byte objects take a 1536-byte
 *                       slot (1508 with the handle, class 1520, merged into 1536:
 *                       3-page zspages of 8): 1 object 3 pages, 10 objects 6;
 *                       the byte count gives 1 and 4 (calculate_zspage_chain_size,
 *                       zs_create_pool's merge);
 *   cgroup_v1_no_charge obj_cgroup_charge_zswap() returns at once on cgroup v1: a
 *                       child's stored entries leave its MEMCG_ZSWAP_B and
 *                       MEMCG_ZSWAPPED at 0 (on v2 they count them);
 *   count_needs_io_fs   zswap_shrinker_count() counts 0 when the reclaim's gfp
 *                       lacks __GFP_IO or __GFP_FS (gfp_has_io_fs);
 *   count_flush         the count's flush (200 stores, past the threshold gate):
 *                       gated, it flushes the child's stores
 *                       and counts them; ratelimited (the base of thread 002), it
 *                       reads unflushed stats (0) until the periodic flusher is a
 *                       full cycle (4 s) late.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <memcgsim/charge.h>
#include <memcgsim/rstat.h>

#include "test_zswap_util.h"

#define N 10
#define NC 200    /* past the flush threshold (64 x 2 CPUs) of stat updates */

static unsigned long pool_pages_of(bool zsmalloc, unsigned int n)
{
	struct msim_zswap_params p;
	struct msim_swap_pte pte[N];
	struct msim_memcg *c;
	struct msim *m;
	unsigned long pages;

	msim_zswap_params_init(&p);
	p.min_bytes = p.max_bytes = 1500;
	p.zsmalloc_pages = zsmalloc;
	m = zt_host(&p, MSIM_ZSWAP_ROOT_COUNT_MEMCG_STATS, 1);
	c = unit_mkdir(msim_root_mem_cgroup(m), "c");
	zt_touch(pte, n, c, 0);
	msim_zswap_reclaim(c, n, -1);
	assert_int_equal(msim_zswap_stored_pages(m), n);
	pages = msim_zswap_total_pages(m);
	zt_free_all(m, pte, n);
	assert_int_equal(msim_zswap_total_pages(m), 0);
	msim_destroy(m);
	return pages;
}

static void zsmalloc_pages(void **st)
{
	(void)st;
	assert_int_equal(pool_pages_of(true, 1), 3);
	assert_int_equal(pool_pages_of(true, N), 6);
	assert_int_equal(pool_pages_of(false, 1), 1);
	assert_int_equal(pool_pages_of(false, N), 4);
}

/* A child's zswap stats after N stores, on cgroup version v. */
static void stored_stats(enum msim_cgroup_version v, unsigned long *bytes, unsigned long *stored)
{
	struct msim_config cfg = unit_config(2, 1);
	struct msim_swap_pte pte[N];
	struct msim_memcg *c;
	struct msim *m;
	char err[256] = "";

	cfg.cgroup_version = v;
	m = unit_host_cfg(&cfg);
	assert_int_equal(msim_zswap_attach(m, NULL, err, sizeof(err)), 0);
	c = unit_mkdir(msim_root_mem_cgroup(m), "c");
	zt_touch(pte, N, c, 0);
	msim_zswap_reclaim(c, N, -1);
	assert_int_equal(msim_zswap_stored_pages(m), N);
	*bytes = zt_stat(c, MSIM_MEMCG_ZSWAP_B);
	*stored = zt_stat(c, MSIM_MEMCG_ZSWAPPED);
	zt_free_all(m, pte, N);
	msim_destroy(m);
}

static void cgroup_v1_no_charge(void **st)
{
	unsigned long bytes, stored;

	(void)st;
	stored_stats(MSIM_CGROUP_V2, &bytes, &stored);
	assert_int_equal(stored, N);
	assert_true(bytes >= N * 1000 && bytes <= N * 3000);
	stored_stats(MSIM_CGROUP_V1, &bytes, &stored);
	assert_int_equal(stored, 0);
	assert_int_equal(bytes, 0);
}

/* A host with NC entries stored by child c; count variant f. */
static struct msim *counted_host(enum msim_zswap_count_flush f, struct msim_memcg **c,
				 struct msim_swap_pte *pte)
{
	struct msim_config cfg = unit_config(2, 1);
	struct msim *m;
	char err[256] = "";

	assert_int_equal(msim_variant_set_value(&cfg.variants, "zswap-count-flush", f), 0);
	m = unit_host_cfg(&cfg);
	assert_int_equal(msim_zswap_attach(m, NULL, err, sizeof(err)), 0);
	msim_rstat_periodic_flush_enable(m, false);
	*c = unit_mkdir(msim_root_mem_cgroup(m), "c");
	zt_touch(pte, NC, *c, 0);
	msim_zswap_reclaim(*c, NC, -1);
	return m;
}

static void count_needs_io_fs(void **st)
{
	struct msim_swap_pte pte[NC];
	struct msim_memcg *c;
	struct msim *m = counted_host(MSIM_ZSWAP_COUNT_FLUSH_GATED, &c, pte);
	struct msim_shrink_control sc = { .nid = 0, .memcg = c };
	struct msim_shrinker *zs = msim_zswap_shrinker(m);

	(void)st;
	assert_true(msim_zswap_shrinker_count(zs, &sc) > 0);     /* GFP_KERNEL */
	sc.gfp_mask = MSIM_GFP_NOFS;
	assert_int_equal(msim_zswap_shrinker_count(zs, &sc), 0);
	sc.gfp_mask = MSIM_GFP_NOIO;
	assert_int_equal(msim_zswap_shrinker_count(zs, &sc), 0);
	sc.gfp_mask = MSIM_GFP_NORETRY;                            /* may do I/O and fs */
	assert_true(msim_zswap_shrinker_count(zs, &sc) > 0);
	zt_free_all(m, pte, NC);
	msim_destroy(m);
}

static void count_flush(void **st)
{
	struct msim_swap_pte pte[NC];
	struct msim_memcg *c;
	struct msim *m;
	struct msim_shrink_control sc = { .nid = 0 };
	unsigned long count;

	(void)st;
	m = counted_host(MSIM_ZSWAP_COUNT_FLUSH_GATED, &c, pte);
	sc.memcg = c;
	assert_true(msim_zswap_shrinker_count(msim_zswap_shrinker(m), &sc) > 0);
	zt_free_all(m, pte, NC);
	msim_destroy(m);

	m = counted_host(MSIM_ZSWAP_COUNT_FLUSH_RATELIMITED, &c, pte);
	sc.memcg = c;
	assert_int_equal(msim_zswap_shrinker_count(msim_zswap_shrinker(m), &sc), 0);
	/* a full cycle late: jiffies past flush_last_time + 2 x FLUSH_TIME */
	msim_clock_advance(m, 4ULL * msim_config(m)->hz + 1);
	count = msim_zswap_shrinker_count(msim_zswap_shrinker(m), &sc);
	assert_true(count > 0);
	zt_free_all(m, pte, NC);
	msim_destroy(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(zsmalloc_pages),
		cmocka_unit_test(cgroup_v1_no_charge),
		cmocka_unit_test(count_needs_io_fs),
		cmocka_unit_test(count_flush),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
