/* SPDX-License-Identifier: MIT */
/*
 * test_zswap_selftest.c - the invariants of the kernel's cgroup zswap selftests
 * (tools/testing/selftests/cgroup/test_zswap.c), re-expressed on the model:
 *
 *   test_zswap_usage            zswapped memory is charged to its memcg: its
 *                               memory.zswap.current is the pool's bytes and its
 *                               memory.current counts them (and its parent's);
 *   test_swapin_nozswap         zswap.max = 0: nothing goes to zswap, all to disk;
 *   test_zswap_writeback_*      zswpwb > 0 if and only if memory.zswap.writeback
 *                               is on (writeback forced by lowering zswap.max);
 *   test_no_invasive_cgroup_shrink
 *                               only the memcg over its zswap.max is written back;
 *                               the other memcg keeps its zswapped pages.
 *
 * The workloads follow the selftests' shape (allocate, memory.reclaim, touch
 * again, reclaim again), scaled to 64 pages.
 */
#include "test_zswap_util.h"

#define NP 64

/* memory.reclaim of everything memcg has (the LRU pass only). */
static void reclaim_all(struct msim_memcg *memcg)
{
	msim_zswap_reclaim(memcg, NP, -1);
}

static void swapin_all(struct msim_swap_pte *pte, unsigned int n, struct msim_memcg *memcg)
{
	for (unsigned int i = 0; i < n; i++)
		if (pte[i].slot >= 0)
			assert_int_equal(msim_zswap_swapin(&pte[i], memcg), 0);
}

/* test_zswap_usage: the compressed bytes are the memcg's, in its memory.current too. */
static void zswapped_memory_is_charged(void **st)
{
	struct msim *m = zt_host(NULL, MSIM_ZSWAP_ROOT_COUNT_MEMCG_STATS, 1);
	struct msim_memcg *p = unit_mkdir(msim_root_mem_cgroup(m), "p");
	struct msim_memcg *c = unit_mkdir(p, "c");
	struct msim_swap_pte pte[NP];
	unsigned long bytes;

	(void)st;
	zt_touch(pte, NP, c, 0);
	reclaim_all(c);
	bytes = msim_memory_zswap_current_read(c);
	assert_true(bytes > 0);
	assert_int_equal(bytes, zt_stats(m).pool_bytes);
	assert_int_equal(msim_memory_zswap_current_read(p), bytes);
	assert_int_equal(zt_usage(c), (bytes + ZT_PAGE - 1) / ZT_PAGE);
	assert_int_equal(zt_usage(p), zt_usage(c));
	zt_free_all(m, pte, NP);
	msim_destroy(m);
}

/* test_swapin_nozswap: zswap.max 0 refuses every store; the pages go to the device. */
static void zswap_max_zero_goes_to_disk(void **st)
{
	struct msim *m = zt_host(NULL, MSIM_ZSWAP_ROOT_COUNT_MEMCG_STATS, 1);
	struct msim_memcg *c = unit_mkdir(msim_root_mem_cgroup(m), "c");
	struct msim_swap_pte pte[NP];
	struct msim_zswap_stats s;

	(void)st;
	assert_int_equal(msim_memory_zswap_max_write(c, "0"), 0);
	zt_touch(pte, NP, c, 0);
	reclaim_all(c);
	swapin_all(pte, NP, c);
	s = zt_stats(m);
	assert_int_equal(s.zswpout, 0);
	assert_int_equal(s.pswpout, NP);
	assert_int_equal(s.pswpin, NP);
	assert_int_equal(s.zswpin, 0);
	assert_int_equal(msim_memory_zswap_current_read(c), 0);
	zt_free_all(m, pte, NP);
	msim_destroy(m);
}

/*
 * test_zswap_writeback: fill zswap, set zswap.max to half of what it holds,
 * fault everything back in and reclaim again: the stores past the max shrink the
 * memcg, which writes back only if memory.zswap.writeback allows.
 */
static struct msim_zswap_stats writeback_run(int writeback, unsigned long *memcg_zswpwb)
{
	struct msim *m = zt_host(NULL, MSIM_ZSWAP_ROOT_COUNT_MEMCG_STATS, 1);
	struct msim_memcg *c = unit_mkdir(msim_root_mem_cgroup(m), "c");
	struct msim_swap_pte pte[NP];
	struct msim_zswap_stats s;
	char max[32];

	assert_int_equal(msim_memory_zswap_writeback_write(c, writeback), 0);
	zt_touch(pte, NP, c, 0);
	reclaim_all(c);
	snprintf(max, sizeof(max), "%lu", (unsigned long)msim_memory_zswap_current_read(c) / 2);
	assert_int_equal(msim_memory_zswap_max_write(c, max), 0);
	swapin_all(pte, NP, c);
	reclaim_all(c);
	s = zt_stats(m);
	*memcg_zswpwb = zt_events(c, MSIM_ZSWPWB);
	zt_free_all(m, pte, NP);
	msim_destroy(m);
	return s;
}

static void zswpwb_iff_writeback_enabled(void **st)
{
	unsigned long on_events, off_events;
	struct msim_zswap_stats on = writeback_run(1, &on_events);
	struct msim_zswap_stats off = writeback_run(0, &off_events);

	(void)st;
	assert_true(on.zswpwb > 0);
	assert_int_equal(on_events, on.zswpwb);
	assert_int_equal(off.zswpwb, 0);
	assert_int_equal(off_events, 0);
	/* with writeback off nothing reaches the device: refused pages stay resident */
	assert_int_equal(off.pswpout, 0);
	assert_true(off.kept_no_writeback > 0);
	assert_true(on.pswpout >= on.zswpwb);
}

/*
 * test_no_invasive_cgroup_shrink: zw's pages sit in zswap; wb, with zswap.max of
 * one page, reclaims: its stores over the max write back its own entries only.
 */
static void only_the_memcg_over_its_max_is_written_back(void **st)
{
	struct msim *m = zt_host(NULL, MSIM_ZSWAP_ROOT_COUNT_MEMCG_STATS, 1);
	struct msim_memcg *root = msim_root_mem_cgroup(m);
	struct msim_memcg *wb = unit_mkdir(root, "wb"), *zw = unit_mkdir(root, "zw");
	struct msim_swap_pte zpte[NP], wpte[NP];
	unsigned long zw_zswapped;

	(void)st;
	zt_touch(zpte, NP, zw, 0);
	reclaim_all(zw);
	zw_zswapped = zt_stat(zw, MSIM_MEMCG_ZSWAPPED);
	assert_int_equal(zw_zswapped, NP);
	assert_int_equal(msim_memory_zswap_max_write(wb, "4096"), 0);
	zt_touch(wpte, NP, wb, 0);
	reclaim_all(wb);
	assert_true(zt_events(wb, MSIM_ZSWPWB) > 0);
	assert_int_equal(zt_events(zw, MSIM_ZSWPWB), 0);
	assert_int_equal(zt_stat(zw, MSIM_MEMCG_ZSWAPPED), zw_zswapped);
	assert_int_equal(zt_stats(m).zswpwb, zt_events(wb, MSIM_ZSWPWB));
	/* wb stays at or just past its one page (a store that fits may end past it) */
	assert_true(zt_stat(wb, MSIM_MEMCG_ZSWAP_B) < 2 * ZT_PAGE);
	zt_free_all(m, zpte, NP);
	zt_free_all(m, wpte, NP);
	msim_destroy(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(zswapped_memory_is_charged),
		cmocka_unit_test(zswap_max_zero_goes_to_disk),
		cmocka_unit_test(zswpwb_iff_writeback_enabled),
		cmocka_unit_test(only_the_memcg_over_its_max_is_written_back),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
