/* SPDX-License-Identifier: MIT */
/*
 * test_xarray.c - the xarray model: shape, node counts and their kernel-memory
 * charge, ordered iteration, value entries, the update hook, and a differential
 * run against a plain reference.
 *
 *   single_entry_in_head     index 0 alone needs no node; index 1 needs one
 *   growth_and_shrink        0, 1, 64, ULONG_MAX: 3 -> 22 nodes and back, charged per node
 *   find_ordered_sparse      xa_find / xa_for_each over sparse indices up to ULONG_MAX
 *   find_respects_max        the max bound of xa_find
 *   insert_and_bad_entries   -EBUSY if occupied, -EINVAL for internal entries, NULL reserves
 *   value_entries_and_hook   count / nr_values as the hook sees them, 0 before a free
 *   node_index               the first index a node covers
 *   destroy_frees_nodes      destroy with entries: nodes leave the totals after a GP
 *   destroy_then_reuse       destroy leaves a usable empty array (kernel check_destroy)
 *   differential             20000 seeded stores/erases vs a reference: loads, finds, counts
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/kmem.h>
#include <memcgsim/sim.h>
#include <memcgsim/yield.h>
#include <memcgsim/explore.h>
#include <memcgsim/script.h>
#include <memcgsim/container_of.h>
#include <memcgsim/atomic.h>
#include <memcgsim/lock.h>
#include <memcgsim/rcu.h>
#include <memcgsim/percpu.h>
#include <memcgsim/xarray.h>

static int setup(void **state)
{
	struct msim_config cfg;
	struct msim *m = NULL;

	msim_config_init(&cfg);
	cfg.nr_cpus = 4;
	if (msim_create(&cfg, &m, NULL, 0))
		return -1;
	*state = m;
	return 0;
}

static int teardown(void **state)
{
	msim_destroy(*state);
	return 0;
}

/* A distinct pointer entry per index (aligned to 4, never internal). */
static void *ent(unsigned long index)
{
	return (void *)((index << 3) | 0x1000000000000000UL);
}

static uint64_t node_bytes(struct msim *m)
{
	return msim_kmem_owner_bytes(m, "test_xa");
}

static void single_entry_in_head(void **state)
{
	struct msim *m = *state;
	struct msim_xarray xa;
	int err = 1;

	msim_xa_init(m, &xa, "test_xa");
	assert_true(msim_xa_empty(&xa));
	assert_null(msim_xa_store(&xa, 0, ent(0), &err));
	assert_int_equal(err, 0);
	assert_int_equal(msim_xa_nr_nodes(&xa), 0);
	assert_ptr_equal(msim_xa_load(&xa, 0), ent(0));
	assert_null(msim_xa_load(&xa, 1));
	assert_ptr_equal(msim_xa_store(&xa, 0, ent(5), NULL), ent(0));
	assert_null(msim_xa_store(&xa, 1, ent(1), NULL));
	assert_int_equal(msim_xa_nr_nodes(&xa), 1);
	assert_ptr_equal(msim_xa_load(&xa, 0), ent(5));
	assert_ptr_equal(msim_xa_erase(&xa, 1), ent(1));
	/* Back to one entry at index 0: the node went (shrink). */
	assert_int_equal(msim_xa_nr_nodes(&xa), 0);
	assert_ptr_equal(msim_xa_load(&xa, 0), ent(5));
	assert_ptr_equal(msim_xa_erase(&xa, 0), ent(5));
	assert_true(msim_xa_empty(&xa));
	assert_int_equal(msim_xa_nr_entries(&xa), 0);
	msim_rcu_barrier();
	assert_int_equal(node_bytes(m), 0);
	msim_xa_fini(&xa);
}

/*
 * Levels: index 64 needs a shift-6 root over two leaves (3 nodes). ULONG_MAX
 * needs a shift-60 root: 9 more levels above the old root, and a 10-node path
 * below the new root down to its leaf: 22 nodes. Erasing it frees that path,
 * then the root holds only slot 0 and shrinks back to the shift-6 root.
 */
static void growth_and_shrink(void **state)
{
	struct msim *m = *state;
	struct msim_xarray xa;
	struct msim_kmem_totals t;

	msim_xa_init(m, &xa, "test_xa");
	msim_xa_store(&xa, 0, ent(0), NULL);
	msim_xa_store(&xa, 1, ent(1), NULL);
	msim_xa_store(&xa, 64, ent(64), NULL);
	assert_int_equal(msim_xa_nr_nodes(&xa), 3);
	/* 3 x 16384/28 = 1755.4 bytes of radix_tree_node, one slab. */
	assert_int_equal(node_bytes(m), 1755);
	msim_kmem_totals(m, &t);
	assert_int_equal(t.cache_bytes, 16384);

	msim_xa_store(&xa, ~0UL, ent(7), NULL);
	assert_int_equal(msim_xa_nr_nodes(&xa), 22);
	assert_int_equal(node_bytes(m), 12873); /* 22 x 585.14 */
	assert_ptr_equal(msim_xa_load(&xa, ~0UL), ent(7));
	assert_null(msim_xa_load(&xa, ~0UL - 1));
	assert_ptr_equal(msim_xa_load(&xa, 64), ent(64));
	assert_ptr_equal(msim_xa_load(&xa, 0), ent(0));
	assert_int_equal(msim_xa_nr_entries(&xa), 4);

	assert_ptr_equal(msim_xa_erase(&xa, ~0UL), ent(7));
	assert_int_equal(msim_xa_nr_nodes(&xa), 3);
	msim_kmem_totals(m, &t);
	assert_int_equal(t.rcu_pending_bytes, 19 * 585); /* 19 nodes, 585 each */
	msim_rcu_barrier();
	assert_int_equal(node_bytes(m), 1755);
	assert_ptr_equal(msim_xa_load(&xa, 64), ent(64));

	msim_xa_erase(&xa, 64);
	msim_xa_erase(&xa, 1);
	msim_xa_erase(&xa, 0);
	assert_int_equal(msim_xa_nr_nodes(&xa), 0);
	assert_true(msim_xa_empty(&xa));
	msim_rcu_barrier();
	assert_int_equal(node_bytes(m), 0);
	msim_kmem_totals(m, &t);
	assert_int_equal(t.cache_bytes, 0);
	msim_xa_fini(&xa);
}

static const unsigned long sparse[] = {
	0, 5, 63, 64, 1000, 4095, 4096, 1UL << 20, (1UL << 40) + 3, ~0UL - 1, ~0UL,
};
#define NSPARSE (sizeof(sparse) / sizeof(sparse[0]))

static void find_ordered_sparse(void **state)
{
	struct msim *m = *state;
	struct msim_xarray xa;
	unsigned long idx;
	unsigned int n = 0;
	void *e;

	msim_xa_init(m, &xa, "test_xa");
	for (int i = (int)NSPARSE - 1; i >= 0; i--)
		assert_int_equal(msim_xa_insert(&xa, sparse[i], ent(sparse[i])), 0);
	msim_rcu_read_lock();
	msim_xa_for_each(&xa, idx, e) {
		assert_true(n < NSPARSE);
		assert_int_equal(idx, sparse[n]);
		assert_ptr_equal(e, ent(sparse[n]));
		n++;
	}
	msim_rcu_read_unlock();
	assert_int_equal(n, NSPARSE);

	idx = 6;
	assert_ptr_equal(msim_xa_find(&xa, &idx, ~0UL, MSIM_XA_PRESENT), ent(63));
	assert_int_equal(idx, 63);
	idx = 4097;
	assert_ptr_equal(msim_xa_find(&xa, &idx, ~0UL, MSIM_XA_PRESENT), ent(1UL << 20));
	assert_int_equal(idx, 1UL << 20);
	idx = (1UL << 40) + 4;
	assert_ptr_equal(msim_xa_find(&xa, &idx, ~0UL, MSIM_XA_PRESENT), ent(~0UL - 1));

	for (unsigned int i = 0; i < NSPARSE; i++)
		assert_ptr_equal(msim_xa_erase(&xa, sparse[i]), ent(sparse[i]));
	assert_int_equal(msim_xa_nr_nodes(&xa), 0);
	idx = 0;
	assert_null(msim_xa_find(&xa, &idx, ~0UL, MSIM_XA_PRESENT));
	msim_xa_fini(&xa);
	msim_rcu_barrier();
	assert_int_equal(node_bytes(m), 0);
}

static void find_respects_max(void **state)
{
	struct msim *m = *state;
	struct msim_xarray xa;
	unsigned long idx;

	msim_xa_init(m, &xa, "test_xa");
	msim_xa_store(&xa, 100, ent(100), NULL);
	msim_xa_store(&xa, 200, ent(200), NULL);
	idx = 0;
	assert_null(msim_xa_find(&xa, &idx, 99, MSIM_XA_PRESENT));
	idx = 0;
	assert_ptr_equal(msim_xa_find(&xa, &idx, 100, MSIM_XA_PRESENT), ent(100));
	idx = 101;
	assert_null(msim_xa_find(&xa, &idx, 199, MSIM_XA_PRESENT));
	idx = 101;
	assert_ptr_equal(msim_xa_find(&xa, &idx, 200, MSIM_XA_PRESENT), ent(200));
	assert_int_equal(idx, 200);
	idx = 201;
	assert_null(msim_xa_find(&xa, &idx, ~0UL, MSIM_XA_PRESENT));
	msim_xa_fini(&xa);
	msim_rcu_barrier();
}

static void insert_and_bad_entries(void **state)
{
	struct msim *m = *state;
	struct msim_xarray xa;
	int err = 0;

	msim_xa_init(m, &xa, "test_xa");
	assert_int_equal(msim_xa_insert(&xa, 9, ent(9)), 0);
	assert_int_equal(msim_xa_insert(&xa, 9, ent(10)), -EBUSY);
	assert_ptr_equal(msim_xa_load(&xa, 9), ent(9));
	assert_int_equal(msim_xa_insert(&xa, 10, (void *)0x10002UL), -EINVAL);
	/* kernel: inserting NULL reserves the slot (a later insert is -EBUSY). */
	assert_int_equal(msim_xa_insert(&xa, 10, NULL), 0);
	assert_null(msim_xa_load(&xa, 10));
	assert_int_equal(msim_xa_insert(&xa, 10, ent(10)), -EBUSY);
	assert_null(msim_xa_erase(&xa, 10));
	assert_null(msim_xa_store(&xa, 11, (void *)0x10002UL, &err));
	assert_int_equal(err, -EINVAL);
	assert_null(msim_xa_load(&xa, 11));
	/* Storing NULL erases. */
	assert_ptr_equal(msim_xa_store(&xa, 9, NULL, &err), ent(9));
	assert_int_equal(err, 0);
	assert_true(msim_xa_empty(&xa));
	msim_xa_fini(&xa);
	msim_rcu_barrier();
}

struct hook_log {
	unsigned int calls;
	unsigned int last_count, last_values;
	unsigned int zero_calls;
	struct msim_xarray *xa;
};

static void hook(struct msim_xarray *xa, struct msim_xa_node *node, unsigned int count, void *arg)
{
	struct hook_log *log = arg;

	log->calls++;
	log->last_count = count;
	log->last_values = msim_xa_node_nr_values(node);
	log->zero_calls += count == 0;
	assert_int_equal(count, msim_xa_node_count(node));
	assert_ptr_equal(msim_xa_node_array(node), xa);
	assert_true(msim_lock_held_by_me(&xa->lock));
}

/* The workingset's view: a leaf whose entries are all values (shadows). */
static void value_entries_and_hook(void **state)
{
	struct msim *m = *state;
	struct msim_xarray xa;
	struct hook_log log = { 0 };

	msim_xa_init(m, &xa, "test_xa");
	msim_xa_set_update(&xa, hook, &log);
	msim_xa_store(&xa, 1, ent(1), NULL);      /* new leaf: count 1 */
	assert_int_equal(log.last_count, 1);
	assert_int_equal(log.last_values, 0);
	msim_xa_store(&xa, 2, msim_xa_mk_value(42), NULL);
	assert_int_equal(log.last_count, 2);
	assert_int_equal(log.last_values, 1);
	assert_true(msim_xa_is_value(msim_xa_load(&xa, 2)));
	assert_int_equal(msim_xa_to_value(msim_xa_load(&xa, 2)), 42);
	/* Page -> shadow at index 1: count unchanged, values 2: the hook runs. */
	unsigned int calls = log.calls;
	msim_xa_store(&xa, 1, msim_xa_mk_value(7), NULL);
	assert_int_equal(log.calls, calls + 1);
	assert_int_equal(log.last_count, 2);
	assert_int_equal(log.last_values, 2);
	/* Same kind replaced: no count change, no call. */
	msim_xa_store(&xa, 1, msim_xa_mk_value(8), NULL);
	assert_int_equal(log.calls, calls + 1);
	msim_xa_erase(&xa, 1);
	assert_int_equal(log.last_count, 1);
	msim_xa_erase(&xa, 2);
	assert_int_equal(log.zero_calls, 1);     /* the leaf, before its free */
	assert_int_equal(msim_xa_nr_nodes(&xa), 0);
	msim_xa_fini(&xa);
	msim_rcu_barrier();
}

static void grab(struct msim_xarray *x, struct msim_xa_node *n, unsigned int c, void *a)
{
	*(struct msim_xa_node **)a = n;
}

static void node_index(void **state)
{
	struct msim *m = *state;
	struct msim_xarray xa;
	struct msim_xa_node *seen = NULL;

	msim_xa_init(m, &xa, "test_xa");
	msim_xa_store(&xa, 5, ent(5), NULL);
	msim_xa_store(&xa, 3 * 4096 + 2 * 64 + 9, ent(1), NULL);
	/* Find the leaf of the second index through the hook. */
	msim_xa_set_update(&xa, grab, &seen);
	msim_xa_store(&xa, 3 * 4096 + 2 * 64 + 10, ent(2), NULL);
	assert_non_null(seen);
	assert_int_equal(msim_xa_node_shift(seen), 0);
	assert_int_equal(msim_xa_node_index(seen), 3 * 4096 + 2 * 64);
	msim_xa_set_update(&xa, NULL, NULL);
	msim_xa_fini(&xa);
	msim_rcu_barrier();
}

static void destroy_frees_nodes(void **state)
{
	struct msim *m = *state;
	struct msim_xarray xa;
	struct msim_kmem_totals t;

	msim_xa_init(m, &xa, "test_xa");
	for (unsigned long i = 0; i < 10000; i += 7)
		msim_xa_store(&xa, i, ent(i), NULL);
	/* 10000 / 64 = 157 leaves, 3 shift-6 nodes, 1 shift-12 root. */
	assert_int_equal(msim_xa_nr_nodes(&xa), 157 + 3 + 1);
	msim_xa_destroy(&xa);
	assert_int_equal(msim_xa_nr_nodes(&xa), 0);
	msim_rcu_barrier();
	assert_int_equal(node_bytes(m), 0);
	msim_kmem_totals(m, &t);
	assert_int_equal(t.cache_bytes, 0);
	assert_int_equal(t.allocations, 0);
	msim_xa_fini(&xa);
}

/*
 * kernel: xa_destroy() leaves an empty array that kernel code goes on using
 * (lib/test_xarray.c check_destroy() stores after each destroy). Destroy an
 * empty array, then one holding a single entry at each of 0..999 and at
 * ULONG_MAX, storing again after every destroy; the nodes follow each time.
 */
static void destroy_then_reuse(void **state)
{
	struct msim *m = *state;
	struct msim_xarray xa;
	int err = 1;

	msim_xa_init(m, &xa, "test_xa");
	msim_xa_destroy(&xa);
	assert_true(msim_xa_empty(&xa));
	for (unsigned long i = 0; i < 1000; i++) {
		assert_null(msim_xa_store(&xa, i, ent(i), &err));
		assert_int_equal(err, 0);
		assert_false(msim_xa_empty(&xa));
		assert_int_equal(msim_xa_nr_nodes(&xa), i ? (i < 64 ? 1 : 2) : 0);
		msim_xa_destroy(&xa);
		assert_true(msim_xa_empty(&xa));
		assert_null(msim_xa_load(&xa, i));
		assert_int_equal(msim_xa_nr_nodes(&xa), 0);
	}
	assert_null(msim_xa_store(&xa, ~0UL, ent(3), &err));
	assert_int_equal(err, 0);
	assert_int_equal(msim_xa_nr_nodes(&xa), 11); /* shift 60 down to 0 */
	msim_xa_destroy(&xa);
	assert_true(msim_xa_empty(&xa));
	/* Still a working array: insert and erase after the last destroy. */
	assert_int_equal(msim_xa_insert(&xa, 4096, ent(4096)), 0);
	assert_ptr_equal(msim_xa_load(&xa, 4096), ent(4096));
	assert_ptr_equal(msim_xa_erase(&xa, 4096), ent(4096));
	msim_rcu_barrier();
	assert_int_equal(node_bytes(m), 0);
	msim_xa_fini(&xa);
}

/* ---- differential run against a reference ---- */

#define DIFF_SLOTS 512
#define DIFF_OPS 20000

static uint64_t rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Index pool: clustered low indices, mid-range, and a few far ones. */
static unsigned long pool_index(unsigned int i)
{
	if (i < 256)
		return i * 3;
	if (i < 448)
		return 100000UL + (i - 256) * 977UL;
	return (1UL << 35) * (i - 447) + i;
}

static void differential(void **state)
{
	struct msim *m = *state;
	struct msim_xarray xa;
	bool present[DIFF_SLOTS] = { false };
	unsigned long nr = 0;
	uint64_t seed = 0x2545F4914F6CDD1DULL;

	msim_xa_init(m, &xa, "test_xa");
	for (unsigned int op = 0; op < DIFF_OPS; op++) {
		unsigned int i = (unsigned int)(rng(&seed) % DIFF_SLOTS);
		unsigned long idx = pool_index(i);

		if (rng(&seed) % 3) {
			void *old = msim_xa_store(&xa, idx, ent(idx), NULL);
			assert_ptr_equal(old, present[i] ? ent(idx) : NULL);
			nr += !present[i];
			present[i] = true;
		} else {
			void *old = msim_xa_erase(&xa, idx);
			assert_ptr_equal(old, present[i] ? ent(idx) : NULL);
			nr -= present[i];
			present[i] = false;
		}
		if (op % 1000 == 999) {
			unsigned long at = 0, seen = 0;
			void *e;
			unsigned int j = 0;

			msim_xa_for_each(&xa, at, e) {
				while (j < DIFF_SLOTS && !present[j])
					j++;
				assert_true(j < DIFF_SLOTS);
				assert_int_equal(at, pool_index(j));
				assert_ptr_equal(e, ent(at));
				j++;
				seen++;
			}
			assert_int_equal(seen, nr);
			for (j = 0; j < DIFF_SLOTS; j++)
				assert_ptr_equal(msim_xa_load(&xa, pool_index(j)),
						 present[j] ? ent(pool_index(j)) : NULL);
		}
	}
	assert_int_equal(msim_xa_nr_entries(&xa), nr);
	for (unsigned int i = 0; i < DIFF_SLOTS; i++)
		msim_xa_erase(&xa, pool_index(i));
	assert_int_equal(msim_xa_nr_nodes(&xa), 0);
	assert_true(msim_xa_empty(&xa));
	msim_rcu_barrier();
	assert_int_equal(node_bytes(m), 0);
	msim_xa_fini(&xa);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(single_entry_in_head, setup, teardown),
		cmocka_unit_test_setup_teardown(growth_and_shrink, setup, teardown),
		cmocka_unit_test_setup_teardown(find_ordered_sparse, setup, teardown),
		cmocka_unit_test_setup_teardown(find_respects_max, setup, teardown),
		cmocka_unit_test_setup_teardown(insert_and_bad_entries, setup, teardown),
		cmocka_unit_test_setup_teardown(value_entries_and_hook, setup, teardown),
		cmocka_unit_test_setup_teardown(node_index, setup, teardown),
		cmocka_unit_test_setup_teardown(destroy_frees_nodes, setup, teardown),
		cmocka_unit_test_setup_teardown(destroy_then_reuse, setup, teardown),
		cmocka_unit_test_setup_teardown(differential, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
