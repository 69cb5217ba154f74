/* SPDX-License-Identifier: MIT */
/*
 * test_xarray_api.c - the xarray's API against the kernel's documented
 * behaviour, in the manner of the kernel's lib/test_xarray.c: every index pair
 * over a small range, 2^k boundaries, ULONG_MAX, marks (reserved slots and
 * allocation: test_xarray_alloc.c). Entries are value entries of their own index
 * (xa_mk_index() there), so a wrong slot shows as a wrong value.
 *
 *   load_every_pair        check_xa_load: 0..1023 stored in turn, then erased in turn
 *   mark_each_index        check_xa_mark_1 at every 4th index below 16384
 *   mark_many              check_xa_mark_2: 1000 marked entries, counted by for_each_marked
 *   marks_across_stores    marks kept by a store, cleared by erase, kept by a reservation
 *   marks_across_reshape   marks survive the tree growing and shrinking around them
 *   insert_boundaries      check_insert: 0..1023, 2^k and 2^k - 1 up to 2^63, ULONG_MAX
 *   cmpxchg                check_cmpxchg
 *   find_every_pair        check_find_1: xa_find from each k with entries at j < i
 *   find_marked_bounds     check_find_3: marked finds bounded by max, past max nothing
 *   find_after_ulong_max   check_find_4, and a failed find leaves *index alone
 *   marks_differential     seeded stores, erases and mark changes against a reference
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <string.h>

#include "xa_test_util.h"

static void load_every_pair(void **state)
{
	struct msim_xarray xa;

	msim_xa_init(*state, &xa, "test_xa");
	for (unsigned long i = 0; i < 1024; i++) {
		for (unsigned long j = 0; j < 1024; j++) {
			void *e = msim_xa_load(&xa, j);

			if (j < i ? e != mk_index(j) : e != NULL)
				fail_msg("stored 0..%lu: load(%lu) = %p", i, j, e);
		}
		store_index(&xa, i);
	}
	for (unsigned long i = 0; i < 1024; i++) {
		for (unsigned long j = 0; j < 1024; j++) {
			void *e = msim_xa_load(&xa, j);

			if (j >= i ? e != mk_index(j) : e != NULL)
				fail_msg("erased 0..%lu: load(%lu) = %p", i, j, e);
		}
		erase_index(&xa, i);
	}
	assert_true(msim_xa_empty(&xa));
	msim_xa_fini(&xa);
}

/* kernel test: check_xa_mark_1() without multi-index entries */
static void mark_1(struct msim_xarray *xa, unsigned long index)
{
	/* An empty index takes no mark. */
	assert_false(msim_xa_get_mark(xa, index, MSIM_XA_MARK_0));
	msim_xa_set_mark(xa, index, MSIM_XA_MARK_0);
	assert_false(msim_xa_get_mark(xa, index, MSIM_XA_MARK_0));
	/* Storing an entry does not make a mark appear. */
	store_index(xa, index);
	assert_false(msim_xa_get_mark(xa, index, MSIM_XA_MARK_0));
	msim_xa_set_mark(xa, index, MSIM_XA_MARK_0);
	assert_true(msim_xa_get_mark(xa, index, MSIM_XA_MARK_0));
	/* One mark sets no other, on no other index. */
	assert_false(msim_xa_get_mark(xa, index + 1, MSIM_XA_MARK_0));
	assert_false(msim_xa_get_mark(xa, index, MSIM_XA_MARK_1));
	assert_true(msim_xa_marked(xa, MSIM_XA_MARK_0));
	assert_false(msim_xa_marked(xa, MSIM_XA_MARK_1));
	/* Erasing clears the marks, and an empty index cannot take them again. */
	erase_index(xa, index);
	assert_true(msim_xa_empty(xa));
	assert_false(msim_xa_get_mark(xa, index, MSIM_XA_MARK_0));
	assert_false(msim_xa_marked(xa, MSIM_XA_MARK_0));
	msim_xa_set_mark(xa, index, MSIM_XA_MARK_0);
	assert_false(msim_xa_get_mark(xa, index, MSIM_XA_MARK_0));
}

static void mark_each_index(void **state)
{
	struct msim_xarray xa;

	msim_xa_init(*state, &xa, "test_xa");
	for (unsigned long index = 0; index < 16384; index += 4)
		mark_1(&xa, index);
	for (unsigned int k = 6; k < 64; k += 6)
		mark_1(&xa, 1UL << k);
	mark_1(&xa, ~0UL - 1);
	msim_xa_fini(&xa);
}

static void mark_many(void **state)
{
	struct msim_xarray xa;
	unsigned long index, count = 0, prev = 0;
	void *e;

	msim_xa_init(*state, &xa, "test_xa");
	store_index(&xa, 0);
	for (index = 3500; index < 4500; index++) {
		store_index(&xa, index);
		msim_xa_set_mark(&xa, index, MSIM_XA_MARK_0);
	}
	msim_xa_for_each_marked(&xa, index, e, MSIM_XA_MARK_0) {
		assert_ptr_equal(e, mk_index(index));
		assert_true(index >= 3500 && index < 4500);
		assert_true(count == 0 || index == prev + 1);
		prev = index;
		count++;
	}
	assert_int_equal(count, 1000);
	/* Unmark every other one: the marked walk sees exactly the rest. */
	for (index = 3500; index < 4500; index += 2)
		msim_xa_clear_mark(&xa, index, MSIM_XA_MARK_0);
	count = 0;
	msim_xa_for_each_marked(&xa, index, e, MSIM_XA_MARK_0) {
		assert_int_equal(index % 2, 1);
		count++;
	}
	assert_int_equal(count, 500);
	msim_xa_destroy(&xa);
	assert_false(msim_xa_marked(&xa, MSIM_XA_MARK_0));
	msim_xa_fini(&xa);
}

/*
 * kernel: xa_store() leaves the marks of index unaffected unless the entry is
 * NULL; xa_erase() clears them; in an allocating array a NULL store reserves
 * the slot (__xa_store() stores XA_ZERO_ENTRY), which keeps its marks.
 */
static void marks_across_stores(void **state)
{
	struct msim_xarray xa, axa;

	msim_xa_init(*state, &xa, "test_xa");
	store_index(&xa, 70);
	msim_xa_set_mark(&xa, 70, MSIM_XA_MARK_1);
	msim_xa_set_mark(&xa, 70, MSIM_XA_MARK_2);
	assert_ptr_equal(msim_xa_store(&xa, 70, mk_index(7), NULL), mk_index(70));
	assert_true(msim_xa_get_mark(&xa, 70, MSIM_XA_MARK_1));
	assert_true(msim_xa_get_mark(&xa, 70, MSIM_XA_MARK_2));
	msim_xa_clear_mark(&xa, 70, MSIM_XA_MARK_2);
	assert_true(msim_xa_get_mark(&xa, 70, MSIM_XA_MARK_1));
	assert_false(msim_xa_get_mark(&xa, 70, MSIM_XA_MARK_2));
	/* NULL store in a plain array erases: marks go. */
	assert_ptr_equal(msim_xa_store(&xa, 70, NULL, NULL), mk_index(7));
	assert_false(msim_xa_get_mark(&xa, 70, MSIM_XA_MARK_1));
	assert_false(msim_xa_marked(&xa, MSIM_XA_MARK_1));
	assert_true(msim_xa_empty(&xa));
	msim_xa_fini(&xa);

	msim_xa_init_flags(*state, &axa, "test_xa", MSIM_XA_FLAGS_ALLOC);
	alloc_index(&axa, 0);
	alloc_index(&axa, 1);
	msim_xa_set_mark(&axa, 1, MSIM_XA_MARK_1);
	assert_ptr_equal(msim_xa_store(&axa, 1, NULL, NULL), mk_index(1));
	assert_false(msim_xa_empty(&axa));
	assert_null(msim_xa_load(&axa, 1));
	assert_true(msim_xa_get_mark(&axa, 1, MSIM_XA_MARK_1));
	alloc_index(&axa, 2);                 /* 1 is still taken */
	assert_null(msim_xa_erase(&axa, 1));
	assert_false(msim_xa_get_mark(&axa, 1, MSIM_XA_MARK_1));
	alloc_index(&axa, 1);                 /* and now free again */
	erase_index(&axa, 0);
	erase_index(&axa, 1);
	erase_index(&axa, 2);
	assert_true(msim_xa_empty(&axa));
	msim_xa_fini(&axa);
}

/*
 * An entry at index 0 alone lives in the head, its marks in the array's flags;
 * storing far away grows the tree above it (kernel: xas_expand() carries the
 * marks into slot 0), erasing that shrinks it back (xas_shrink()).
 */
static void marks_across_reshape(void **state)
{
	struct msim_xarray xa;
	unsigned long idx;

	msim_xa_init(*state, &xa, "test_xa");
	store_index(&xa, 0);
	msim_xa_set_mark(&xa, 0, MSIM_XA_MARK_2);
	assert_int_equal(msim_xa_nr_nodes(&xa), 0);
	for (unsigned int k = 6; k < 64; k += 6) {
		store_index(&xa, 1UL << k);
		msim_xa_set_mark(&xa, 1UL << k, MSIM_XA_MARK_1);
	}
	store_index(&xa, ~0UL);
	assert_true(msim_xa_get_mark(&xa, 0, MSIM_XA_MARK_2));
	assert_false(msim_xa_get_mark(&xa, 0, MSIM_XA_MARK_1));
	assert_false(msim_xa_get_mark(&xa, ~0UL, MSIM_XA_MARK_1));
	idx = 0;
	assert_ptr_equal(msim_xa_find(&xa, &idx, ~0UL, MSIM_XA_MARK_2), mk_index(0));
	idx = 1;
	assert_null(msim_xa_find(&xa, &idx, ~0UL, MSIM_XA_MARK_2));
	assert_ptr_equal(msim_xa_find(&xa, &idx, ~0UL, MSIM_XA_MARK_1), mk_index(64));
	assert_int_equal(idx, 64);
	msim_xa_set_mark(&xa, ~0UL, MSIM_XA_MARK_0);
	idx = 1UL << 61;
	assert_ptr_equal(msim_xa_find(&xa, &idx, ~0UL, MSIM_XA_MARK_0), mk_index(~0UL));
	assert_int_equal(idx, ~0UL);
	erase_index(&xa, ~0UL);
	assert_false(msim_xa_marked(&xa, MSIM_XA_MARK_0));
	for (unsigned int k = 60; k >= 6; k -= 6)
		erase_index(&xa, 1UL << k);
	assert_int_equal(msim_xa_nr_nodes(&xa), 0);      /* back to the head alone */
	assert_false(msim_xa_marked(&xa, MSIM_XA_MARK_1));
	assert_true(msim_xa_get_mark(&xa, 0, MSIM_XA_MARK_2));
	erase_index(&xa, 0);
	assert_false(msim_xa_marked(&xa, MSIM_XA_MARK_2));
	msim_xa_fini(&xa);
}

static void insert_index(struct msim_xarray *xa, unsigned long index)
{
	assert_int_equal(msim_xa_insert(xa, index, mk_index(index)), 0);
}

/* kernel test: check_insert() */
static void insert_boundaries(void **state)
{
	struct msim_xarray xa;

	msim_xa_init(*state, &xa, "test_xa");
	for (unsigned long i = 0; i < 1024; i++) {
		insert_index(&xa, i);
		assert_null(msim_xa_load(&xa, i - 1));
		assert_null(msim_xa_load(&xa, i + 1));
		erase_index(&xa, i);
	}
	for (unsigned int k = 10; k < 64; k++) {
		insert_index(&xa, 1UL << k);
		assert_null(msim_xa_load(&xa, (1UL << k) - 1));
		assert_null(msim_xa_load(&xa, (1UL << k) + 1));
		erase_index(&xa, 1UL << k);
		insert_index(&xa, (1UL << k) - 1);
		assert_null(msim_xa_load(&xa, (1UL << k) - 2));
		assert_null(msim_xa_load(&xa, 1UL << k));
		erase_index(&xa, (1UL << k) - 1);
	}
	insert_index(&xa, ~0UL);
	assert_null(msim_xa_load(&xa, 0));
	assert_null(msim_xa_load(&xa, ~1UL));
	assert_int_equal(msim_xa_insert(&xa, ~0UL, mk_index(1)), -EBUSY);
	erase_index(&xa, ~0UL);
	assert_true(msim_xa_empty(&xa));
	msim_xa_fini(&xa);
}

/* kernel test: check_cmpxchg() */
static void cmpxchg(void **state)
{
	struct msim_xarray xa;
	void *five = msim_xa_mk_value(5), *six = msim_xa_mk_value(6);
	void *lots = msim_xa_mk_value(12345678);

	msim_xa_init(*state, &xa, "test_xa");
	store_index(&xa, 12345678);
	assert_int_equal(msim_xa_insert(&xa, 12345678, &xa), -EBUSY);
	assert_ptr_equal(msim_xa_cmpxchg(&xa, 12345678, six, five, NULL), lots);
	assert_ptr_equal(msim_xa_load(&xa, 12345678), lots);
	assert_ptr_equal(msim_xa_cmpxchg(&xa, 12345678, lots, five, NULL), lots);
	assert_ptr_equal(msim_xa_cmpxchg(&xa, 12345678, five, lots, NULL), five);
	assert_null(msim_xa_cmpxchg(&xa, 5, five, NULL, NULL));
	assert_null(msim_xa_cmpxchg(&xa, 5, NULL, five, NULL));
	assert_int_equal(msim_xa_insert(&xa, 5, five), -EBUSY);
	assert_ptr_equal(msim_xa_cmpxchg(&xa, 5, five, NULL, NULL), five);
	assert_int_equal(msim_xa_insert(&xa, 5, five), 0);
	erase_index(&xa, 12345678);
	erase_index(&xa, 5);
	assert_true(msim_xa_empty(&xa));
	msim_xa_fini(&xa);
}

/* kernel test: check_find_1(): entries at j < i, every start k. */
static void find_every_pair(void **state)
{
	struct msim_xarray xa;

	msim_xa_init(*state, &xa, "test_xa");
	for (unsigned long i = 0; i < 100; i++) {
		store_index(&xa, i);
		msim_xa_set_mark(&xa, i, MSIM_XA_MARK_0);
		for (unsigned long j = 0; j < i; j++) {
			store_index(&xa, j);
			msim_xa_set_mark(&xa, j, MSIM_XA_MARK_0);
			for (unsigned long k = 0; k < 100; k++) {
				for (msim_xa_mark_t f = MSIM_XA_MARK_0; f <= MSIM_XA_PRESENT;
				     f += MSIM_XA_PRESENT) {
					unsigned long index = k;
					void *e = msim_xa_find(&xa, &index, ~0UL, f);
					unsigned long want = k <= j ? j : i;

					if (k > i ? e != NULL : (e != mk_index(want) || index != want))
						fail_msg("i %lu j %lu find(%lu, filter %u) = %lu",
							 i, j, k, f, index);
				}
			}
			erase_index(&xa, j);
			assert_false(msim_xa_get_mark(&xa, j, MSIM_XA_MARK_0));
			assert_true(msim_xa_get_mark(&xa, i, MSIM_XA_MARK_0));
		}
		erase_index(&xa, i);
		assert_false(msim_xa_get_mark(&xa, i, MSIM_XA_MARK_0));
	}
	assert_true(msim_xa_empty(&xa));
	msim_xa_fini(&xa);
}

/* kernel test: check_find_3(): a marked find from j bounded by k. */
static void find_marked_bounds(void **state)
{
	struct msim_xarray xa;

	msim_xa_init(*state, &xa, "test_xa");
	for (unsigned long i = 0; i < 100; i++) {
		for (unsigned long j = 0; j < 100; j++) {
			for (unsigned long k = 0; k < 100; k++) {
				unsigned long index = j;
				void *e = msim_xa_find(&xa, &index, k, MSIM_XA_MARK_0);
				bool hit = j < i && j <= k;

				/* entries 0..i-1 are stored and marked */
				if (hit ? (e != mk_index(j) || index != j) : (e || index != j))
					fail_msg("i %lu: find(%lu, max %lu) = %p at %lu", i, j, k,
						 e, index);
			}
		}
		store_index(&xa, i);
		msim_xa_set_mark(&xa, i, MSIM_XA_MARK_0);
	}
	msim_xa_destroy(&xa);
	assert_true(msim_xa_empty(&xa));
	msim_xa_fini(&xa);
}

/* kernel test: check_find_4() */
static void find_after_ulong_max(void **state)
{
	struct msim_xarray xa;
	unsigned long index = 0;

	msim_xa_init(*state, &xa, "test_xa");
	store_index(&xa, ~0UL);
	assert_ptr_equal(msim_xa_find_after(&xa, &index, ~0UL, MSIM_XA_PRESENT),
			 mk_index(~0UL));
	assert_int_equal(index, ~0UL);
	assert_null(msim_xa_find_after(&xa, &index, ~0UL, MSIM_XA_PRESENT));
	assert_int_equal(index, ~0UL);
	/* After 0: the entry at ULONG_MAX, but not with max below it. */
	store_index(&xa, 0);
	index = 0;
	assert_null(msim_xa_find_after(&xa, &index, ~0UL - 1, MSIM_XA_PRESENT));
	assert_int_equal(index, 0);
	assert_ptr_equal(msim_xa_find_after(&xa, &index, ~0UL, MSIM_XA_PRESENT),
			 mk_index(~0UL));
	erase_index(&xa, ~0UL);
	erase_index(&xa, 0);
	msim_xa_fini(&xa);
}

/* ---- marks against a reference ---- */

#define REF_SLOTS 300
#define REF_OPS 30000

static uint64_t rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Clustered low indices, a mid range, and indices up to ULONG_MAX. */
static unsigned long ref_index(unsigned int i)
{
	if (i < 200)
		return i;
	if (i < 280)
		return 5000UL + (i - 200) * 4099UL;
	return ~0UL - (unsigned long)(REF_SLOTS - 1 - i) * (1UL << 40);
}

struct ref {
	bool present[REF_SLOTS];
	bool mark[REF_SLOTS][MSIM_XA_MAX_MARKS];
};

/* Every marked walk and every get_mark agrees with the reference. */
static void ref_check(struct msim_xarray *xa, const struct ref *r)
{
	for (msim_xa_mark_t m = 0; m < MSIM_XA_MAX_MARKS; m++) {
		unsigned long idx;
		unsigned int j = 0;
		bool any = false;
		void *e;

		msim_xa_for_each_marked(xa, idx, e, m) {
			while (j < REF_SLOTS && !r->mark[j][m])
				j++;
			if (j == REF_SLOTS || idx != ref_index(j) || e != mk_index(idx))
				fail_msg("mark %u: walk found %lu", m, idx);
			j++;
			any = true;
		}
		while (j < REF_SLOTS && !r->mark[j][m])
			j++;
		if (j != REF_SLOTS)
			fail_msg("mark %u: walk missed %lu", m, ref_index(j));
		assert_int_equal(msim_xa_marked(xa, m), any);
		for (unsigned int i = 0; i < REF_SLOTS; i++)
			if (msim_xa_get_mark(xa, ref_index(i), m) != r->mark[i][m])
				fail_msg("mark %u at %lu", m, ref_index(i));
	}
}

static void ref_step(struct msim_xarray *xa, struct ref *r, uint64_t *seed)
{
	unsigned int i = (unsigned int)(rng(seed) % REF_SLOTS);
	msim_xa_mark_t m = (msim_xa_mark_t)(rng(seed) % MSIM_XA_MAX_MARKS);
	unsigned long idx = ref_index(i);

	switch (rng(seed) % 4) {
	case 0: /* store keeps marks */
		msim_xa_store(xa, idx, mk_index(idx), NULL);
		r->present[i] = true;
		break;
	case 1: /* erase drops them */
		msim_xa_erase(xa, idx);
		r->present[i] = false;
		memset(r->mark[i], 0, sizeof(r->mark[i]));
		break;
	case 2:
		msim_xa_set_mark(xa, idx, m);
		r->mark[i][m] = r->present[i];
		break;
	default:
		msim_xa_clear_mark(xa, idx, m);
		r->mark[i][m] = false;
		break;
	}
}

static void marks_differential(void **state)
{
	struct msim_xarray xa;
	struct ref r;
	uint64_t seed = 0x9E3779B97F4A7C15ULL;

	memset(&r, 0, sizeof(r));
	msim_xa_init(*state, &xa, "test_xa");
	for (unsigned int op = 0; op < REF_OPS; op++) {
		ref_step(&xa, &r, &seed);
		if (op % 1500 == 1499)
			ref_check(&xa, &r);
	}
	ref_check(&xa, &r);
	for (unsigned int i = 0; i < REF_SLOTS; i++)
		msim_xa_erase(&xa, ref_index(i));
	for (msim_xa_mark_t m = 0; m < MSIM_XA_MAX_MARKS; m++)
		assert_false(msim_xa_marked(&xa, m));
	assert_true(msim_xa_empty(&xa));
	msim_xa_fini(&xa);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(load_every_pair, setup, teardown),
		cmocka_unit_test_setup_teardown(mark_each_index, setup, teardown),
		cmocka_unit_test_setup_teardown(mark_many, setup, teardown),
		cmocka_unit_test_setup_teardown(marks_across_stores, setup, teardown),
		cmocka_unit_test_setup_teardown(marks_across_reshape, setup, teardown),
		cmocka_unit_test_setup_teardown(insert_boundaries, setup, teardown),
		cmocka_unit_test_setup_teardown(cmpxchg, setup, teardown),
		cmocka_unit_test_setup_teardown(find_every_pair, setup, teardown),
		cmocka_unit_test_setup_teardown(find_marked_bounds, setup, teardown),
		cmocka_unit_test_setup_teardown(find_after_ulong_max, setup, teardown),
		cmocka_unit_test_setup_teardown(marks_differential, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
