/* SPDX-License-Identifier: MIT */
/*
 * test_shrinker_thread001_bytes.c - the shrinker part of thread 001's "slab per
 * empty cgroup" rows, exact in the kernel's arithmetic (reference 2.9), at the
 * thread's scales (4 CPUs: the 520-byte unit cache uses order-2 slabs of 31).
 *
 *   scale_20096_1_node   shrinker_nr_max 20096 (314 units), 1 node:
 *                          base (array-unit-cache): header kmalloc-4k (24 + 2512)
 *                            + 314 units at 16384/31 bytes = 170050 bytes
 *                          array-on-demand: the 4096-byte header only
 *                          xarray: 0 (the thread's 22 KB - 18 KB = 4 KB difference)
 *                          array (mainline, kmalloc-1k units): 4096 + 314 x 1024
 *   scale_50112_4_nodes  shrinker_nr_max 50112 (783 units), 4 nodes:
 *                          the per-cgroup container: kmalloc-8k (24 + 6264) x 4 =
 *                          32768 in both array layouts, 0 in xarray (thread: 32 KB /
 *                          32 KB / 0); base units 4 x 783 x 16384/31
 *
 * Ids are dense, allocated by memcg-aware shrinkers without superblocks (the
 * shrinker part depends only on shrinker_nr_max).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>

#include <memcgsim/memcgsim.h>

#include "unit/unit_util.h"

struct row {
	enum msim_shrinker_info_layout layout;
	uint64_t container;     /* all nodes */
	uint64_t units;         /* all nodes */
};

static void check_scale(int nr_max, unsigned int nodes, const struct row *rows, int nrows)
{
	for (int r = 0; r < nrows; r++) {
		struct msim_config cfg;
		struct msim *m;
		struct msim_shrinker **v = calloc((size_t)nr_max, sizeof(*v));
		struct msim_shrinker_info_bytes b;
		struct msim_memcg *c;

		assert_non_null(v);
		msim_config_init(&cfg);
		cfg.nr_cpus = 4;
		cfg.nr_nodes = nodes;
		cfg.mode = MSIM_CONCURRENT; /* no task runs: plain driver calls */
		cfg.variants.shrinker_info = rows[r].layout;
		m = unit_host_cfg(&cfg);
		assert_int_equal(msim_shrinker_init(m), 0);
		for (int i = 0; i < nr_max; i++)
			assert_int_equal(msim_shrinker_alloc(m, MSIM_SHRINKER_MEMCG_AWARE, "sb",
							     &v[i]), 0);
		assert_int_equal(msim_shrinker_nr_max(m), nr_max);
		assert_int_equal(msim_memcg_create(msim_root_mem_cgroup(m), "empty", &c), 0);
		msim_shrinker_info_bytes(c, &b);
		assert_int_equal(b.container, rows[r].container);
		assert_int_equal(b.units, rows[r].units);
		for (int i = 0; i < nr_max; i++)
			msim_shrinker_free(v[i]);
		free(v);
		assert_int_equal(msim_memcg_rmdir(c), 0);
		msim_destroy(m);
	}
}

static void scale_20096_1_node(void **state)
{
	const struct row rows[] = {
		{ MSIM_SHRINKER_INFO_ARRAY_UNIT_CACHE, 4096, 314ULL * 16384 / 31 },
		{ MSIM_SHRINKER_INFO_ARRAY_ON_DEMAND, 4096, 0 },
		{ MSIM_SHRINKER_INFO_XARRAY, 0, 0 },
		{ MSIM_SHRINKER_INFO_ARRAY, 4096, 314ULL * 1024 },
	};

	/* base's shrinker part: 4096 + 314 x 16384/31 = 170050 bytes, 166 KiB of the
	 * thread's 185 KB; check_scale compares the model's charges with these rows. */
	check_scale(20096, 1, rows, 4);
}

static void scale_50112_4_nodes(void **state)
{
	const struct row rows[] = {
		{ MSIM_SHRINKER_INFO_ARRAY_UNIT_CACHE, 32768, 4ULL * 783 * 16384 / 31 },
		{ MSIM_SHRINKER_INFO_ARRAY_ON_DEMAND, 32768, 0 },
		{ MSIM_SHRINKER_INFO_XARRAY, 0, 0 },
	};

	check_scale(50112, 4, rows, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(scale_20096_1_node),
		cmocka_unit_test(scale_50112_4_nodes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
