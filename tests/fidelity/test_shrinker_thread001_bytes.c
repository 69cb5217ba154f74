/* SPDX-License-Identifier: MIT */
/*
 * test_shrinker_thread001_bytes.c - the shrinker part of thread 001's "slab per
 * empty cgroup" rows, measured: the bytes the kernel-memory model charged while
 * an empty cgroup was created (and gave back when it went), owner by owner, read
 * from the kmem report (msim_kmem_owners), at the thread's scales. Nothing here
 * asks the layout what it would cost: what is asserted is what was allocated.
 *
 *   scale_20096_1_node   shrinker_nr_max 20096 (314 units), 1 node, 4 CPUs:
 *                          base (array-unit-cache): the header, 24 + 314 x 8 =
 *                            2536 bytes in kmalloc-4k, plus 314 units of the
 *                            520-byte cache (order-2 slabs of 31 objects):
 *                            4096 + 165954 bytes
 *                          array-on-demand: the 4096-byte header only
 *                          xarray: nothing (the thread's 22 KB - 18 KB = 4 KB)
 *                          array (mainline): 4096 + 314 x kmalloc-1k
 *                        every other owner charges the same in every layout
 *   scale_50112_4_nodes  shrinker_nr_max 50112 (783 units), 4 nodes: the
 *                        per-cgroup container, 24 + 6264 bytes in kmalloc-8k on
 *                        each node, 32768 in both array layouts, 0 in xarray
 *                        (the thread: 32 KB / 32 KB / 0)
 *   on_demand_one_unit   a cgroup that gets a list on one shrinker pays one unit
 *                        (and, in the xarray, the two nodes above it), nothing
 *                        for the other 313 units; rmdir gives everything back
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
#include <string.h>

#include <memcgsim/memcgsim.h>

#include "unit/unit_util.h"

#define MAX_OWNERS 256

/* Every owner's charge on m now (bytes; a missing owner holds 0). */
struct owners {
	size_t n;
	struct msim_kmem_owner_info o[MAX_OWNERS];
};

static void owners_snap(struct msim *m, struct owners *s)
{
	s->n = msim_kmem_owners(m, s->o, MAX_OWNERS);
	assert_true(s->n <= MAX_OWNERS);
}

static int64_t owner_of(const struct owners *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->o[i].owner, name))
			return (int64_t)s->o[i].bytes;
	return 0;
}

/* after - before for owner name. */
static int64_t delta(const struct owners *before, const struct owners *after, const char *name)
{
	return owner_of(after, name) - owner_of(before, name);
}

/* Sum of the deltas of every owner not named shrinker_info*. */
static int64_t delta_rest(const struct owners *before, const struct owners *after)
{
	int64_t sum = 0;

	for (size_t i = 0; i < after->n; i++)
		if (strncmp(after->o[i].owner, "shrinker_info", 13))
			sum += (int64_t)after->o[i].bytes;
	for (size_t i = 0; i < before->n; i++)
		if (strncmp(before->o[i].owner, "shrinker_info", 13))
			sum -= (int64_t)before->o[i].bytes;
	return sum;
}

struct host {
	struct msim *m;
	struct msim_shrinker **v;
	int nr;
};

static void host_new(struct host *h, enum msim_shrinker_info_layout layout, int nr_max,
		     unsigned int nodes)
{
	struct msim_config cfg;

	msim_config_init(&cfg);
	cfg.nr_cpus = 4;
	cfg.nr_nodes = nodes;
	cfg.mode = MSIM_CONCURRENT; /* no task runs: plain driver calls */
	assert_int_equal(msim_variant_set_value(&cfg.variants, "shrinker-info", layout), 0);
	h->m = unit_host_cfg(&cfg);
	h->nr = nr_max;
	h->v = calloc((size_t)nr_max, sizeof(*h->v));
	assert_non_null(h->v);
	assert_int_equal(msim_shrinker_init(h->m), 0);
	for (int i = 0; i < nr_max; i++)
		assert_int_equal(msim_shrinker_alloc(h->m, MSIM_SHRINKER_MEMCG_AWARE, "sb", &h->v[i]),
				 0);
	assert_int_equal(msim_shrinker_nr_max(h->m), nr_max);
}

static void host_free(struct host *h)
{
	for (int i = 0; i < h->nr; i++)
		msim_shrinker_free(h->v[i]);
	free(h->v);
	msim_destroy(h->m);
}

struct measured {
	int64_t header, units, xa, rest;
	int64_t left_after_rmdir;   /* every owner, after rmdir and a grace period */
};

/* Create one empty cgroup and remove it; what each owner was charged for it. */
static void measure_empty(struct host *h, int install_id, struct measured *out)
{
	struct owners *before = calloc(3, sizeof(*before)), *after = before + 1, *gone = before + 2;
	struct msim_memcg *c;

	assert_non_null(before);
	/* the registrations' kvfree_rcu of outgrown containers: not the cgroup's */
	msim_memcg_drain(h->m);
	msim_rcu_barrier();
	owners_snap(h->m, before);
	assert_int_equal(msim_memcg_create(msim_root_mem_cgroup(h->m), "empty", &c), 0);
	if (install_id >= 0)
		assert_int_equal(msim_shrinker_unit_install(c, 0, install_id), 0);
	owners_snap(h->m, after);
	out->header = delta(before, after, "shrinker_info");
	out->units = delta(before, after, "shrinker_info_unit");
	out->xa = delta(before, after, "shrinker_info_xa");
	out->rest = delta_rest(before, after);
	assert_int_equal(msim_memcg_rmdir(c), 0);
	msim_memcg_drain(h->m);
	msim_rcu_barrier();
	owners_snap(h->m, gone);
	out->left_after_rmdir = delta(before, gone, "shrinker_info") +
				delta(before, gone, "shrinker_info_unit") +
				delta(before, gone, "shrinker_info_xa") + delta_rest(before, gone);
	free(before);
}

static void scale_20096_1_node(void **state)
{
	static const struct {
		enum msim_shrinker_info_layout layout;
		int64_t header, units;
	} rows[] = {
		{ MSIM_SHRINKER_INFO_ARRAY_UNIT_CACHE, 4096, 165954 },
		{ MSIM_SHRINKER_INFO_ARRAY_ON_DEMAND, 4096, 0 },
		{ MSIM_SHRINKER_INFO_XARRAY, 0, 0 },
		{ MSIM_SHRINKER_INFO_ARRAY, 4096, 314 * 1024 },
	};
	int64_t rest = -1;

	(void)state;
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		struct host h;
		struct measured got;

		host_new(&h, rows[r].layout, 20096, 1);
		measure_empty(&h, -1, &got);
		assert_int_equal(got.header, rows[r].header);
		assert_int_equal(got.units, rows[r].units);
		assert_int_equal(got.xa, 0);
		/* the rest of an empty cgroup does not depend on the layout */
		if (rest < 0)
			rest = got.rest;
		assert_int_equal(got.rest, rest);
		assert_true(rest > 0);
		assert_int_equal(got.left_after_rmdir, 0);
		host_free(&h);
	}
}

static void scale_50112_4_nodes(void **state)
{
	static const struct {
		enum msim_shrinker_info_layout layout;
		int64_t header;
	} rows[] = {
		{ MSIM_SHRINKER_INFO_ARRAY_ON_DEMAND, 32768 },
		{ MSIM_SHRINKER_INFO_XARRAY, 0 },
	};

	(void)state;
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		struct host h;
		struct measured got;

		host_new(&h, rows[r].layout, 50112, 4);
		measure_empty(&h, -1, &got);
		assert_int_equal(got.header, rows[r].header);
		assert_int_equal(got.units, 0);
		assert_int_equal(got.left_after_rmdir, 0);
		host_free(&h);
	}
}

/*
 * On demand: one list on shrinker 5000 costs one unit (529 bytes: its share of an
 * order-2 slab of 31), not 314.
 */
static void on_demand_one_unit(void **state)
{
	static const struct {
		enum msim_shrinker_info_layout layout;
		int64_t header, units, xa;
	} rows[] = {
		{ MSIM_SHRINKER_INFO_ARRAY_ON_DEMAND, 4096, 529, 0 },
		/* unit 78 (id 5000 / 64) sits below a two-level xarray: two radix_tree_nodes
		 * (576 bytes, 584-byte slots, 585 bytes each at their slab share) */
		{ MSIM_SHRINKER_INFO_XARRAY, 0, 529, 1170 },
	};

	(void)state;
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		struct host h;
		struct measured got;

		host_new(&h, rows[r].layout, 20096, 1);
		measure_empty(&h, 5000, &got);
		assert_int_equal(got.header, rows[r].header);
		assert_int_equal(got.units, rows[r].units);
		assert_int_equal(got.xa, rows[r].xa);
		assert_int_equal(got.left_after_rmdir, 0);
		host_free(&h);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(scale_20096_1_node),
		cmocka_unit_test(scale_50112_4_nodes),
		cmocka_unit_test(on_demand_one_unit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
