/* SPDX-License-Identifier: MIT */
/*
 * test_shrinker_info.c - per-memcg shrinker_info bytes in the four layouts,
 * against reference table 2.9 (64-bit, SLUB, 4 CPUs).
 *
 *   table_2_9_array          kmalloc_class(24 + 8U) + 1024 U per node, N = 0/64/65/200
 *   table_2_9_unit_cache     same header, U units from the 520-byte cache per node
 *   on_demand_empty          array-on-demand: the header only; xarray: nothing
 *   nr_max_steps             shrinker_nr_max = round_up(id + 1, 64), never shrinks
 *   expansion_shares_units   an expansion keeps the unit pointers (bits survive)
 *   root_keeps_units         root has every unit in every layout
 *   expansion_visits         array layouts reallocate every memcg x node; xarray none
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/memcgsim.h>
#include <memcgsim/introspect.h>

#include "unit_util.h"

/* N memcg-aware shrinkers, allocated (ids 0..N-1); returned for freeing. */
static struct msim_shrinker **alloc_n(struct msim *m, int n)
{
	struct msim_shrinker **v = calloc((size_t)n + 1, sizeof(*v));
	int i;

	for (i = 0; i < n; i++) {
		assert_int_equal(msim_shrinker_alloc(m, MSIM_SHRINKER_MEMCG_AWARE, "t", &v[i]), 0);
		assert_int_equal(v[i]->id, i);
	}
	return v;
}

static void free_n(struct msim_shrinker **v, int n)
{
	for (int i = 0; i < n; i++)
		assert_int_equal(msim_shrinker_free(v[i]), 0);
	free(v);
}

static const int table_n[] = { 0, 64, 65, 200 };

/* Expected per node in the array layout (table 2.9). */
static uint64_t table_array_per_node(int n)
{
	switch (n) {
	case 0: return 32;
	case 64: return 1056;
	case 65: return 2112;
	case 200: return 4160;
	}
	return 0;
}

static uint64_t header_per_node(int n)
{
	switch (n) {
	case 0: return 32;
	case 64: return 32;
	case 65: return 64;
	case 200: return 64;
	}
	return 0;
}

static unsigned long units_of(int n)
{
	return (unsigned long)((n + 63) / 64);
}

/* Bytes of one new empty cgroup, measured in the kernel-memory model by owner. */
static void measure_mkdir(struct msim *m, uint64_t *hdr, uint64_t *units,
			  struct msim_memcg **out)
{
	uint64_t h0 = msim_kmem_owner_bytes(m, "shrinker_info");
	uint64_t u0 = msim_kmem_owner_bytes(m, "shrinker_info_unit");

	assert_int_equal(msim_memcg_create(msim_root_mem_cgroup(m), "c", out), 0);
	*hdr = msim_kmem_owner_bytes(m, "shrinker_info") - h0;
	*units = msim_kmem_owner_bytes(m, "shrinker_info_unit") - u0;
}

static void table_2_9_array(void **state)
{
	for (unsigned int nodes = 1; nodes <= 2; nodes++) {
		for (size_t t = 0; t < 4; t++) {
			struct msim *m = unit_shrinker_host(MSIM_SHRINKER_INFO_ARRAY, nodes);
			struct msim_shrinker **v = alloc_n(m, table_n[t]);
			struct msim_shrinker_info_bytes b;
			struct msim_memcg *c;
			uint64_t hdr, units;

			measure_mkdir(m, &hdr, &units, &c);
			assert_int_equal(hdr + units, nodes * table_array_per_node(table_n[t]));
			assert_int_equal(hdr, nodes * header_per_node(table_n[t]));
			msim_shrinker_info_bytes(c, &b);
			assert_int_equal(b.container + b.units, nodes * table_array_per_node(table_n[t]));
			assert_int_equal(b.nr_units, nodes * units_of(table_n[t]));
			free_n(v, table_n[t]);
			assert_int_equal(msim_memcg_rmdir(c), 0);
			msim_destroy(m);
		}
	}
}

static void table_2_9_unit_cache(void **state)
{
	for (unsigned int nodes = 1; nodes <= 2; nodes++) {
		for (size_t t = 0; t < 4; t++) {
			struct msim *m = unit_shrinker_host(MSIM_SHRINKER_INFO_ARRAY_UNIT_CACHE, nodes);
			struct msim_shrinker **v = alloc_n(m, table_n[t]);
			struct msim_shrinker_info_bytes b;
			struct msim_memcg *c;
			uint64_t hdr, units;

			measure_mkdir(m, &hdr, &units, &c);
			assert_int_equal(hdr, nodes * header_per_node(table_n[t]));
			msim_shrinker_info_bytes(c, &b);
			assert_int_equal(b.container, hdr);
			assert_int_equal(b.nr_units, nodes * units_of(table_n[t]));
			/* 4 CPUs: order-2 slabs of 31 units, 16384 / 31 bytes each (packed share). */
			assert_int_equal(b.units, b.nr_units * 16384 / 31);
			free_n(v, table_n[t]);
			assert_int_equal(msim_memcg_rmdir(c), 0);
			msim_destroy(m);
		}
	}
}

static void on_demand_empty(void **state)
{
	for (unsigned int nodes = 1; nodes <= 2; nodes++) {
		for (size_t t = 0; t < 4; t++) {
			struct msim *m = unit_shrinker_host(MSIM_SHRINKER_INFO_ARRAY_ON_DEMAND, nodes);
			struct msim_shrinker **v = alloc_n(m, table_n[t]);
			struct msim_memcg *c;
			uint64_t hdr, units;

			measure_mkdir(m, &hdr, &units, &c);
			assert_int_equal(hdr, nodes * header_per_node(table_n[t]));
			assert_int_equal(units, 0);
			assert_int_equal(msim_shrinker_nr_units(c, 0), 0);
			free_n(v, table_n[t]);
			assert_int_equal(msim_memcg_rmdir(c), 0);
			msim_destroy(m);

			m = unit_shrinker_host(MSIM_SHRINKER_INFO_XARRAY, nodes);
			v = alloc_n(m, table_n[t]);
			uint64_t xa0 = msim_kmem_owner_bytes(m, "shrinker_info_xa");
			struct msim_shrinker_info_bytes b;

			measure_mkdir(m, &hdr, &units, &c);
			assert_int_equal(hdr, 0);
			assert_int_equal(units, 0);
			assert_int_equal(msim_kmem_owner_bytes(m, "shrinker_info_xa"), xa0);
			msim_shrinker_info_bytes(c, &b);
			assert_int_equal(b.container + b.units, 0);
			free_n(v, table_n[t]);
			assert_int_equal(msim_memcg_rmdir(c), 0);
			msim_destroy(m);
		}
	}
}

static void nr_max_steps(void **state)
{
	struct msim *m = unit_shrinker_host(MSIM_SHRINKER_INFO_XARRAY, 1);
	struct msim_shrinker **v = alloc_n(m, 65), *s;

	assert_int_equal(msim_shrinker_nr_max(m), 128);
	free_n(v, 65);
	assert_int_equal(msim_shrinker_nr_max(m), 128); /* never shrinks */
	assert_int_equal(msim_shrinker_alloc(m, MSIM_SHRINKER_MEMCG_AWARE, "x", &s), 0);
	assert_int_equal(s->id, 0); /* lowest free id */
	msim_shrinker_free(s);
	/* not memcg-aware: no id, no expansion */
	assert_int_equal(msim_shrinker_alloc(m, MSIM_SHRINKER_NUMA_AWARE, "g", &s), 0);
	assert_int_equal(s->id, -1);
	msim_shrinker_free(s);
	msim_destroy(m);
}

static void expansion_shares_units(void **state)
{
	for (int l = 0; l < 4; l++) {
		struct msim *m = unit_shrinker_host((enum msim_shrinker_info_layout)l, 1);
		struct msim_shrinker **v = alloc_n(m, 3);
		struct msim_memcg *c;

		assert_int_equal(msim_memcg_create(msim_root_mem_cgroup(m), "c", &c), 0);
		assert_int_equal(msim_shrinker_unit_install(c, 0, 2), 0);
		msim_set_shrinker_bit(c, 0, 2);
		assert_true(msim_shrinker_test_bit(c, 0, 2));
		struct msim_shrinker *more[130];
		for (int i = 0; i < 130; i++)
			assert_int_equal(msim_shrinker_alloc(m, MSIM_SHRINKER_MEMCG_AWARE, "y",
							     &more[i]), 0);
		assert_int_equal(msim_shrinker_nr_max(m), 192);
		assert_true(msim_shrinker_test_bit(c, 0, 2)); /* unit shared across the copy */
		for (int i = 0; i < 130; i++)
			msim_shrinker_free(more[i]);
		free_n(v, 3);
		assert_int_equal(msim_memcg_rmdir(c), 0);
		msim_destroy(m);
	}
}

static void root_keeps_units(void **state)
{
	for (int l = 0; l < 4; l++) {
		struct msim *m = unit_shrinker_host((enum msim_shrinker_info_layout)l, 2);
		struct msim_shrinker **v = alloc_n(m, 130);
		struct msim_memcg *root = msim_root_mem_cgroup(m);

		assert_int_equal(msim_shrinker_nr_units(root, 0), 3);
		assert_int_equal(msim_shrinker_nr_units(root, 1), 3);
		assert_true(msim_shrinker_has_unit(root, 1, 129));
		free_n(v, 130);
		msim_destroy(m);
	}
}

static void expansion_visits(void **state)
{
	for (int l = 0; l < 4; l++) {
		struct msim *m = unit_shrinker_host((enum msim_shrinker_info_layout)l, 2);
		struct msim_memcg *c[5];
		struct msim_shrinker_stats st;
		struct msim_shrinker **v;

		for (int i = 0; i < 5; i++)
			assert_int_equal(msim_memcg_create(msim_root_mem_cgroup(m), "c", &c[i]), 0);
		v = alloc_n(m, 65); /* two expansions: 0 -> 64 -> 128 */
		msim_shrinker_stats(m, &st);
		assert_int_equal(st.expansions, 2);
		/* array layouts: 6 memcgs x 2 nodes x 2 expansions; xarray: none per memcg */
		assert_int_equal(st.expand_memcg_visits, l == MSIM_SHRINKER_INFO_XARRAY ? 0 : 24);
		free_n(v, 65);
		for (int i = 0; i < 5; i++)
			assert_int_equal(msim_memcg_rmdir(c[i]), 0);
		msim_destroy(m);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(table_2_9_array),
		cmocka_unit_test(table_2_9_unit_cache),
		cmocka_unit_test(on_demand_empty),
		cmocka_unit_test(nr_max_steps),
		cmocka_unit_test(expansion_shares_units),
		cmocka_unit_test(root_keeps_units),
		cmocka_unit_test(expansion_visits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
