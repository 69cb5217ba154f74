/* SPDX-License-Identifier: MIT */
/*
 * test_xarray_alloc.c - reserved slots and id allocation in the xarray, against
 * the kernel's documented behaviour, in the manner of lib/test_xarray.c
 * (check_reserve(), check_xa_alloc_1/2/3()).
 *
 *   reserve_plain          check_reserve on a plain array
 *   reserve_alloc          check_reserve on an allocating array (reserved slots free again)
 *   alloc_from_base        check_xa_alloc_1: lowest free, erase, destroy, 32-bit limit
 *   alloc_null_entries     check_xa_alloc_2: NULL allocations reserve, xa_empty follows
 *   alloc_cyclic           check_xa_alloc_3: cyclic allocation, wrap-around and its return
 *   alloc_refused          -EINVAL without MSIM_XA_FLAGS_ALLOC or for an internal entry
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>

#include "xa_test_util.h"

/* kernel test: check_reserve() */
static void reserve_common(struct msim_xarray *xa)
{
	unsigned long index;
	unsigned int count = 0;
	void *e;

	/* An array with a reserved slot is not empty; the slot reads NULL. */
	assert_true(msim_xa_empty(xa));
	assert_int_equal(msim_xa_reserve(xa, 12345678), 0);
	assert_false(msim_xa_empty(xa));
	assert_int_equal(msim_xa_nr_entries(xa), 1);
	assert_null(msim_xa_load(xa, 12345678));
	msim_xa_release(xa, 12345678);
	assert_true(msim_xa_empty(xa));
	/* Releasing a slot stored into since does nothing. */
	assert_int_equal(msim_xa_reserve(xa, 12345678), 0);
	store_index(xa, 12345678);
	msim_xa_release(xa, 12345678);
	erase_index(xa, 12345678);
	assert_true(msim_xa_empty(xa));
	/* cmpxchg sees a reserved slot as the zero entry, and returns NULL for it. */
	assert_int_equal(msim_xa_reserve(xa, 12345678), 0);
	assert_null(msim_xa_cmpxchg(xa, 12345678, NULL, mk_index(1), NULL));
	assert_null(msim_xa_load(xa, 12345678));
	assert_null(msim_xa_cmpxchg(xa, 12345678, MSIM_XA_ZERO_ENTRY, mk_index(12345678), NULL));
	assert_ptr_equal(msim_xa_load(xa, 12345678), mk_index(12345678));
	msim_xa_release(xa, 12345678);
	erase_index(xa, 12345678);
	assert_true(msim_xa_empty(xa));
	/* Insert treats it as busy; erase frees it and returns NULL. */
	assert_int_equal(msim_xa_reserve(xa, 12345678), 0);
	assert_int_equal(msim_xa_insert(xa, 12345678, mk_index(12345678)), -EBUSY);
	assert_false(msim_xa_empty(xa));
	assert_null(msim_xa_erase(xa, 12345678));
	assert_true(msim_xa_empty(xa));
	/* Iteration passes over a reserved slot. */
	store_index(xa, 5);
	assert_int_equal(msim_xa_reserve(xa, 6), 0);
	store_index(xa, 7);
	msim_xa_for_each(xa, index, e) {
		assert_true(index == 5 || index == 7);
		assert_ptr_equal(e, mk_index(index));
		count++;
	}
	assert_int_equal(count, 2);
	/* Reserving index 0 of an empty array takes a node (kernel: xas_create()). */
	erase_index(xa, 5);
	erase_index(xa, 7);
	msim_xa_release(xa, 6);
	assert_int_equal(msim_xa_reserve(xa, 0), 0);
	assert_int_equal(msim_xa_nr_nodes(xa), 1);
	assert_null(msim_xa_load(xa, 0));
	index = 0;
	assert_null(msim_xa_find(xa, &index, ~0UL, MSIM_XA_PRESENT));
	msim_xa_release(xa, 0);
	assert_true(msim_xa_empty(xa));
}

static void reserve_plain(void **state)
{
	struct msim_xarray xa;

	msim_xa_init(*state, &xa, "test_xa");
	reserve_common(&xa);
	msim_xa_fini(&xa);
}

static void reserve_alloc(void **state)
{
	struct msim_xarray xa;
	uint32_t id = 0;

	msim_xa_init_flags(*state, &xa, "test_xa", MSIM_XA_FLAGS_ALLOC);
	reserve_common(&xa);
	/* A released reservation can be allocated again. */
	store_index(&xa, 5);
	assert_int_equal(msim_xa_reserve(&xa, 6), 0);
	store_index(&xa, 7);
	assert_int_equal(msim_xa_alloc(&xa, &id, mk_index(8), MSIM_XA_LIMIT(5, 10)), 0);
	assert_int_equal(id, 8);
	msim_xa_release(&xa, 6);
	assert_int_equal(msim_xa_alloc(&xa, &id, mk_index(6), MSIM_XA_LIMIT(5, 10)), 0);
	assert_int_equal(id, 6);
	msim_xa_destroy(&xa);
	assert_true(msim_xa_empty(&xa));
	msim_xa_fini(&xa);
}

/* kernel test: check_xa_alloc_1(xa0, 0) */
static void alloc_from_base(void **state)
{
	struct msim_xarray xa;
	uint32_t id;

	msim_xa_init_flags(*state, &xa, "test_xa", MSIM_XA_FLAGS_ALLOC);
	alloc_index(&xa, 0);
	erase_index(&xa, 0);
	assert_true(msim_xa_empty(&xa));
	alloc_index(&xa, 0);
	for (unsigned long i = 1; i < 2 * MSIM_XA_CHUNK_SIZE; i++)
		alloc_index(&xa, i);
	for (unsigned long i = 0; i < 2 * MSIM_XA_CHUNK_SIZE; i++)
		erase_index(&xa, i);
	alloc_index(&xa, 0);
	msim_xa_destroy(&xa);               /* does what erasing does */
	alloc_index(&xa, 0);
	alloc_index(&xa, 1);
	erase_index(&xa, 1);
	store_index(&xa, 1);                /* a store takes the index */
	alloc_index(&xa, 2);
	erase_index(&xa, 0);
	alloc_index(&xa, 0);
	erase_index(&xa, 1);
	erase_index(&xa, 2);
	for (unsigned long i = 1; i < 5000; i++)
		alloc_index(&xa, i);
	msim_xa_destroy(&xa);
	/* The top of the 32-bit space, then nothing left: *id stays as it was. */
	assert_int_equal(msim_xa_alloc(&xa, &id, mk_index(1), MSIM_XA_LIMIT(UINT_MAX - 1, UINT_MAX)),
			 0);
	assert_int_equal(id, 0xfffffffeU);
	assert_int_equal(msim_xa_alloc(&xa, &id, mk_index(2), MSIM_XA_LIMIT(UINT_MAX - 1, UINT_MAX)),
			 0);
	assert_int_equal(id, 0xffffffffU);
	id = 3;
	assert_int_equal(msim_xa_alloc(&xa, &id, mk_index(3), MSIM_XA_LIMIT(UINT_MAX - 1, UINT_MAX)),
			 -EBUSY);
	assert_int_equal(id, 3);
	msim_xa_destroy(&xa);
	/* An empty limit finds nothing, whatever the array holds. */
	assert_int_equal(msim_xa_alloc(&xa, &id, mk_index(10), MSIM_XA_LIMIT(10, 5)), -EBUSY);
	store_index(&xa, 3);
	assert_int_equal(msim_xa_alloc(&xa, &id, mk_index(10), MSIM_XA_LIMIT(10, 5)), -EBUSY);
	erase_index(&xa, 3);
	assert_true(msim_xa_empty(&xa));
	msim_xa_fini(&xa);
}

/* kernel test: check_xa_alloc_2(xa0, 0) */
static void alloc_null_entries(void **state)
{
	struct msim_xarray xa;
	unsigned long index;
	uint32_t id;
	void *e;

	msim_xa_init_flags(*state, &xa, "test_xa", MSIM_XA_FLAGS_ALLOC);
	assert_int_equal(msim_xa_alloc(&xa, &id, NULL, MSIM_XA_LIMIT_32B), 0);
	assert_int_equal(id, 0);
	assert_false(msim_xa_empty(&xa));
	assert_null(msim_xa_erase(&xa, id));
	assert_true(msim_xa_empty(&xa));
	assert_int_equal(msim_xa_alloc(&xa, &id, NULL, MSIM_XA_LIMIT_32B), 0);
	assert_int_equal(id, 0);
	msim_xa_destroy(&xa);
	assert_true(msim_xa_empty(&xa));
	for (uint32_t i = 0; i < 10; i++) {
		assert_int_equal(msim_xa_alloc(&xa, &id, NULL, MSIM_XA_LIMIT_32B), 0);
		assert_int_equal(id, i);
	}
	assert_null(msim_xa_store(&xa, 3, mk_index(3), NULL));
	assert_null(msim_xa_store(&xa, 4, mk_index(4), NULL));
	assert_ptr_equal(msim_xa_store(&xa, 4, NULL, NULL), mk_index(4)); /* reserves 4 */
	assert_null(msim_xa_erase(&xa, 5));
	assert_int_equal(msim_xa_alloc(&xa, &id, NULL, MSIM_XA_LIMIT_32B), 0);
	assert_int_equal(id, 5);
	msim_xa_for_each(&xa, index, e)
		erase_index(&xa, index);     /* only 3 is present */
	for (unsigned long i = 0; i < 9; i++) {
		assert_null(msim_xa_erase(&xa, i));
		assert_false(msim_xa_empty(&xa));
	}
	assert_null(msim_xa_erase(&xa, 8));
	assert_false(msim_xa_empty(&xa));
	assert_null(msim_xa_erase(&xa, 9));
	assert_true(msim_xa_empty(&xa));
	msim_xa_fini(&xa);
}

/* kernel test: check_xa_alloc_3(xa0, 0) */
static void alloc_cyclic(void **state)
{
	struct msim_xarray xa;
	struct msim_xa_limit limit = MSIM_XA_LIMIT(1, 0x3fff);
	uint32_t next = 0, id;
	unsigned long index;
	void *e;

	msim_xa_init_flags(*state, &xa, "test_xa", MSIM_XA_FLAGS_ALLOC);
	assert_int_equal(msim_xa_alloc_cyclic(&xa, &id, mk_index(1), limit, &next), 0);
	assert_int_equal(id, 1);
	next = 0x3ffd;
	assert_int_equal(msim_xa_alloc_cyclic(&xa, &id, mk_index(0x3ffd), limit, &next), 0);
	assert_int_equal(id, 0x3ffd);
	erase_index(&xa, 0x3ffd);
	erase_index(&xa, 1);
	assert_true(msim_xa_empty(&xa));
	/* 0x3ffe, 0x3fff, then around to 1, 2, 3. */
	for (uint32_t i = 0x3ffe; i < 0x4003; i++) {
		void *want = mk_index(i < 0x4000 ? i : i - 0x3fff);

		assert_int_equal(msim_xa_alloc_cyclic(&xa, &id, want, limit, &next), 0);
		assert_ptr_equal(mk_index(id), want);
	}
	/* Wrap-around of the 32-bit cursor itself. */
	erase_index(&xa, 1);
	next = UINT_MAX;
	assert_int_equal(msim_xa_alloc_cyclic(&xa, &id, mk_index(UINT_MAX), MSIM_XA_LIMIT_32B,
					      &next), 0);
	assert_int_equal(id, UINT_MAX);
	assert_int_equal(next, 0);
	assert_int_equal(msim_xa_alloc_cyclic(&xa, &id, mk_index(0), MSIM_XA_LIMIT_32B, &next), 0);
	assert_int_equal(id, 0);
	assert_int_equal(msim_xa_alloc_cyclic(&xa, &id, mk_index(1), MSIM_XA_LIMIT_32B, &next), 0);
	assert_int_equal(id, 1);
	msim_xa_for_each(&xa, index, e)
		erase_index(&xa, index);
	assert_true(msim_xa_empty(&xa));
	/* The __xa_alloc_cyclic() form reports the wrap, once. */
	next = UINT_MAX;
	assert_int_equal(msim_xa_alloc_cyclic(&xa, &id, mk_index(UINT_MAX), MSIM_XA_LIMIT_32B,
					      &next), 0);
	msim_xa_lock(&xa);
	assert_int_equal(msim_xa_alloc_cyclic_locked(&xa, &id, mk_index(0), MSIM_XA_LIMIT_32B,
						     &next), 1);
	assert_int_equal(msim_xa_alloc_cyclic_locked(&xa, &id, mk_index(1), MSIM_XA_LIMIT_32B,
						     &next), 0);
	/* A search that goes back to limit.min is a wrap too. */
	next = 5;
	assert_int_equal(msim_xa_alloc_cyclic_locked(&xa, &id, mk_index(2), MSIM_XA_LIMIT(0, 4),
						     &next), 1);
	assert_int_equal(id, 2);
	msim_xa_unlock(&xa);
	msim_xa_for_each(&xa, index, e)
		erase_index(&xa, index);
	assert_true(msim_xa_empty(&xa));
	msim_xa_fini(&xa);
}

static void alloc_refused(void **state)
{
	struct msim_xarray xa;
	uint32_t id = 77;

	msim_xa_init(*state, &xa, "test_xa");
	assert_int_equal(msim_xa_alloc(&xa, &id, mk_index(0), MSIM_XA_LIMIT_32B), -EINVAL);
	assert_int_equal(id, 77);
	assert_true(msim_xa_empty(&xa));
	msim_xa_fini(&xa);
	msim_xa_init_flags(*state, &xa, "test_xa", MSIM_XA_FLAGS_ALLOC);
	assert_int_equal(msim_xa_alloc(&xa, &id, (void *)0x1002UL, MSIM_XA_LIMIT_32B), -EINVAL);
	assert_int_equal(id, 77);
	assert_true(msim_xa_empty(&xa));
	msim_xa_fini(&xa);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(reserve_plain, setup, teardown),
		cmocka_unit_test_setup_teardown(reserve_alloc, setup, teardown),
		cmocka_unit_test_setup_teardown(alloc_from_base, setup, teardown),
		cmocka_unit_test_setup_teardown(alloc_null_entries, setup, teardown),
		cmocka_unit_test_setup_teardown(alloc_cyclic, setup, teardown),
		cmocka_unit_test_setup_teardown(alloc_refused, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
