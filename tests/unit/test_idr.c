/* SPDX-License-Identifier: MIT */
/*
 * test_idr.c - the id allocator hands out the lowest free id, like idr_alloc(),
 * on an xarray whose memory follows the ids in use.
 *
 *   lowest_free_reused     0, 1, 2; remove 1; the next id is 1 again (shrinker ids)
 *   range_and_enospc       [1, 65535] (memcg ids) fills, then -ENOSPC; -EINVAL for bad ranges
 *   start_above_bitmap     a start far past the allocated ids
 *   reserve_then_replace   a NULL reservation finds NULL until replaced (memcg's xa_alloc)
 *   replace_and_remove     replace returns the old pointer; remove of unknown ids gives NULL
 *   replace_unused_enoent  replace: ERR_PTR(-ENOENT) for a free id, NULL for one reserved with NULL
 *   ids_above_int_max      ids up to LONG_MAX; -EINVAL only for start > end or end > LONG_MAX
 *   memory_follows_ids     four ids near INT_MAX cost six nodes, none once removed
 *   get_next_and_for_each  idr_get_next_ul / idr_for_each / for_each_entry skip reserved ids
 *   alloc_cyclic           the cursor, the wrap to start, -ENOSPC, set/get cursor
 *   destroy_then_reuse     destroy frees every id; the idr works on, lowest id first
 *   churn_65535            full range, remove every third id, refill in lowest-first order
 *   rcu_find_vs_churn      RCU readers find while a writer reserves, publishes, removes
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>

#include <memcgsim/idr.h>
#include <memcgsim/yield.h>
#include <memcgsim/explore.h>
#include <memcgsim/script.h>
#include <memcgsim/kmem.h>
#include <memcgsim/sim.h>
#include <memcgsim/container_of.h>
#include <memcgsim/atomic.h>
#include <memcgsim/lock.h>
#include <memcgsim/rcu.h>
#include <memcgsim/percpu.h>

static int setup(void **state)
{
	struct msim_config cfg;
	struct msim *m = NULL;

	msim_config_init(&cfg);
	if (msim_create(&cfg, &m, NULL, 0))
		return -1;
	*state = m;
	return 0;
}

static int teardown(void **state)
{
	struct msim *m = *state;
	struct msim_kmem_totals t;

	/* Every test destroys its idr: the nodes have left the totals. */
	msim_rcu_barrier();
	msim_kmem_totals(m, &t);
	msim_destroy(m);
	return t.allocations == 0 && t.cache_bytes == 0 ? 0 : -1;
}

static void *ptr(unsigned long id)
{
	return (void *)(0x10000UL + id * 16);
}

static void lowest_free_reused(void **state)
{
	struct msim_idr idr;

	msim_idr_init(*state, &idr, "shrinker_idr");
	assert_int_equal(msim_idr_alloc(&idr, ptr(0), 0, INT_MAX), 0);
	assert_int_equal(msim_idr_alloc(&idr, ptr(1), 0, INT_MAX), 1);
	assert_int_equal(msim_idr_alloc(&idr, ptr(2), 0, INT_MAX), 2);
	assert_ptr_equal(msim_idr_remove(&idr, 1), ptr(1));
	assert_null(msim_idr_find(&idr, 1));
	assert_false(msim_idr_allocated(&idr, 1));
	assert_int_equal(msim_idr_alloc(&idr, ptr(9), 0, INT_MAX), 1);
	assert_ptr_equal(msim_idr_find(&idr, 1), ptr(9));
	assert_int_equal(msim_idr_alloc(&idr, ptr(3), 0, INT_MAX), 3);
	assert_int_equal(msim_idr_count(&idr), 4);
	/* start above the lowest free id */
	assert_ptr_equal(msim_idr_remove(&idr, 0), ptr(0));
	assert_int_equal(msim_idr_alloc(&idr, ptr(5), 2, INT_MAX), 4);
	assert_int_equal(msim_idr_alloc(&idr, ptr(0), 0, INT_MAX), 0);
	for (unsigned long id = 0; id <= 4; id++)
		msim_idr_remove(&idr, id);
	assert_int_equal(msim_idr_count(&idr), 0);
	msim_idr_fini(&idr);
}

static void range_and_enospc(void **state)
{
	struct msim_idr idr;

	msim_idr_init(*state, &idr, "mem_cgroup_idr");
	for (long id = 1; id <= 65535; id++)
		if (msim_idr_alloc(&idr, ptr((unsigned long)id), 1, 65535) != id)
			fail_msg("id %ld not handed out in order", id);
	assert_int_equal(msim_idr_alloc(&idr, ptr(0), 1, 65535), -ENOSPC);
	assert_int_equal(msim_idr_alloc(&idr, ptr(0), 0, 0), 0);
	assert_int_equal(msim_idr_alloc(&idr, ptr(0), 0, 0), -ENOSPC);
	assert_int_equal(msim_idr_alloc(&idr, ptr(0), 5, 4), -EINVAL);
	assert_int_equal(msim_idr_alloc(&idr, ptr(0), (unsigned long)INT_MAX + 1, ~0UL), -EINVAL);
	assert_ptr_equal(msim_idr_remove(&idr, 40000), ptr(40000));
	assert_int_equal(msim_idr_alloc(&idr, ptr(1), 1, 65535), 40000);
	assert_int_equal(msim_idr_count(&idr), 65536);
	msim_idr_fini(&idr);
}

static void start_above_bitmap(void **state)
{
	struct msim_idr idr;

	msim_idr_init(*state, &idr, "idr");
	assert_int_equal(msim_idr_alloc(&idr, ptr(1), 100000, 200000), 100000);
	assert_int_equal(msim_idr_alloc(&idr, ptr(2), 100000, 200000), 100001);
	assert_int_equal(msim_idr_alloc(&idr, ptr(3), 0, 10), 0);
	assert_int_equal(msim_idr_alloc(&idr, ptr(4), 150000, 150000), 150000);
	assert_int_equal(msim_idr_alloc(&idr, ptr(4), 150000, 150000), -ENOSPC);
	assert_ptr_equal(msim_idr_find(&idr, 100001), ptr(2));
	assert_ptr_equal(msim_idr_find(&idr, 150000), ptr(4));
	msim_idr_fini(&idr);
}

/* mem_cgroup_alloc(): xa_alloc(NULL) reserves the id, xa_store publishes it later. */
static void reserve_then_replace(void **state)
{
	struct msim_idr idr;

	msim_idr_init(*state, &idr, "mem_cgroup_ids");
	assert_int_equal(msim_idr_alloc(&idr, NULL, 1, 65535), 1);
	assert_true(msim_idr_allocated(&idr, 1));
	assert_null(msim_idr_find(&idr, 1));
	assert_int_equal(msim_idr_alloc(&idr, ptr(2), 1, 65535), 2);
	assert_null(msim_idr_replace(&idr, ptr(1), 1));
	assert_ptr_equal(msim_idr_find(&idr, 1), ptr(1));
	assert_null(msim_idr_remove(&idr, 3));
	assert_ptr_equal(msim_idr_remove(&idr, 1), ptr(1));
	assert_ptr_equal(msim_idr_remove(&idr, 2), ptr(2));
	msim_idr_fini(&idr);
}

static void replace_and_remove(void **state)
{
	struct msim_idr idr;

	msim_idr_init(*state, &idr, "idr");
	assert_ptr_equal(msim_idr_replace(&idr, ptr(1), 7), msim_err_ptr(-ENOENT));
	assert_false(msim_idr_allocated(&idr, 7));
	assert_int_equal(msim_idr_alloc(&idr, ptr(1), 7, 7), 7);
	assert_ptr_equal(msim_idr_replace(&idr, ptr(2), 7), ptr(1));
	assert_ptr_equal(msim_idr_find(&idr, 7), ptr(2));
	assert_null(msim_idr_remove(&idr, 6));
	assert_ptr_equal(msim_idr_remove(&idr, 7), ptr(2));
	assert_null(msim_idr_remove(&idr, 7));
	assert_null(msim_idr_find(&idr, 7));
	msim_idr_fini(&idr);
}

/*
 * kernel: idr_replace() returns ERR_PTR(-ENOENT) for an id that is not
 * allocated, and the old pointer (NULL) for an id reserved with NULL.
 */
static void replace_unused_enoent(void **state)
{
	struct msim_idr idr;
	void *r;

	msim_idr_init(*state, &idr, "idr");
	r = msim_idr_replace(&idr, ptr(1), 3);
	assert_true(msim_is_err(r));
	assert_int_equal(msim_ptr_err(r), -ENOENT);
	assert_false(msim_idr_allocated(&idr, 3));
	assert_int_equal(msim_idr_alloc(&idr, NULL, 3, 3), 3);
	r = msim_idr_replace(&idr, ptr(1), 3);
	assert_false(msim_is_err(r));
	assert_null(r);
	/* Replacing with NULL keeps the id allocated (reserved again). */
	assert_ptr_equal(msim_idr_replace(&idr, NULL, 3), ptr(1));
	assert_true(msim_idr_allocated(&idr, 3));
	assert_null(msim_idr_find(&idr, 3));
	assert_int_equal(msim_idr_alloc(&idr, ptr(2), 3, 4), 4);
	assert_null(msim_idr_remove(&idr, 3));
	assert_int_equal(msim_ptr_err(msim_idr_replace(&idr, ptr(1), 3)), -ENOENT);
	assert_false(msim_is_err(ptr(1)));
	assert_false(msim_is_err(NULL));
	assert_ptr_equal(msim_idr_remove(&idr, 4), ptr(2));
	assert_true(msim_idr_is_empty(&idr));
	msim_idr_fini(&idr);
}

/*
 * idr.h documents -EINVAL only for start > end or end above LONG_MAX: ids
 * above INT_MAX are handed out (the kernel's idr_alloc_u32() range).
 */
static void ids_above_int_max(void **state)
{
	struct msim_idr idr;
	const unsigned long big = (unsigned long)INT_MAX + 1;

	msim_idr_init(*state, &idr, "idr");
	assert_int_equal(msim_idr_alloc(&idr, ptr(1), big, LONG_MAX), (long)big);
	assert_int_equal(msim_idr_alloc(&idr, ptr(2), big, LONG_MAX), (long)big + 1);
	assert_int_equal(msim_idr_alloc(&idr, ptr(3), LONG_MAX, LONG_MAX), LONG_MAX);
	assert_int_equal(msim_idr_alloc(&idr, ptr(4), LONG_MAX, LONG_MAX), -ENOSPC);
	assert_int_equal(msim_idr_alloc(&idr, ptr(4), 0, (unsigned long)LONG_MAX + 1), -EINVAL);
	assert_int_equal(msim_idr_alloc(&idr, ptr(4), big + 5, big + 4), -EINVAL);
	assert_ptr_equal(msim_idr_find(&idr, big + 1), ptr(2));
	assert_ptr_equal(msim_idr_find(&idr, LONG_MAX), ptr(3));
	assert_null(msim_idr_find(&idr, big + 2));
	assert_ptr_equal(msim_idr_remove(&idr, LONG_MAX), ptr(3));
	assert_ptr_equal(msim_idr_remove(&idr, big), ptr(1));
	assert_ptr_equal(msim_idr_remove(&idr, big + 1), ptr(2));
	assert_int_equal(msim_idr_count(&idr), 0);
	msim_idr_fini(&idr);
}

/*
 * Memory follows the ids in use. Four ids at INT_MAX - 3 .. INT_MAX share one
 * leaf; a 31-bit id needs levels at shifts 0, 6, 12, 18, 24 and 30: 6 nodes of
 * the radix_tree_node cache, 16384 / 28 bytes each on a 4-CPU host (a bitmap
 * up to the highest id would be 256 MiB). Removing them frees every node.
 */
static void memory_follows_ids(void **state)
{
	struct msim *m = *state;
	struct msim_idr idr;
	uint64_t rss0 = msim_kmem_process_rss();

	msim_idr_init(m, &idr, "idr_high");
	for (long k = 3; k >= 0; k--)
		assert_int_equal(msim_idr_alloc(&idr, ptr(1), (unsigned long)INT_MAX - 3, INT_MAX),
				 (long)INT_MAX - k);
	assert_int_equal(msim_idr_count(&idr), 4);
	assert_int_equal(msim_xa_nr_nodes(&idr.xa), 6);
	assert_int_equal(msim_kmem_owner_bytes(m, "idr_high"), (6 * 16384 + 14) / 28);
	/* Nor does the process pay for the ids below: far less than 256 MiB. */
	assert_true(msim_kmem_process_rss() < rss0 + (64UL << 20));
	/* A fifth id far below them adds its own path under the same root. */
	assert_int_equal(msim_idr_alloc(&idr, ptr(2), 0, INT_MAX), 0);
	assert_int_equal(msim_xa_nr_nodes(&idr.xa), 11);
	for (unsigned long id = (unsigned long)INT_MAX - 3; id <= (unsigned long)INT_MAX; id++)
		assert_ptr_equal(msim_idr_remove(&idr, id), ptr(1));
	assert_ptr_equal(msim_idr_remove(&idr, 0), ptr(2));
	assert_int_equal(msim_xa_nr_nodes(&idr.xa), 0);
	msim_rcu_barrier();
	assert_int_equal(msim_kmem_owner_bytes(m, "idr_high"), 0);
	msim_idr_fini(&idr);
}

struct walk {
	unsigned long ids[8];
	unsigned int n, stop_after;
};

static int collect(unsigned long id, void *p, void *data)
{
	struct walk *w = data;

	assert_ptr_equal(p, ptr(id));
	w->ids[w->n++] = id;
	return w->n == w->stop_after ? 42 : 0;
}

/* kernel: idr_get_next_ul(), idr_for_each(), idr_for_each_entry(): ids with a pointer, in order. */
static void get_next_and_for_each(void **state)
{
	static const unsigned long ids[] = { 0, 63, 64, 100000, (unsigned long)INT_MAX + 10 };
	struct msim_idr idr;
	struct walk w = { .n = 0, .stop_after = 0 };
	unsigned long id;
	unsigned int n = 0;
	void *p;

	msim_idr_init(*state, &idr, "idr");
	for (unsigned int i = 0; i < 5; i++)
		assert_int_equal(msim_idr_alloc(&idr, ptr(ids[i]), ids[i], LONG_MAX), (long)ids[i]);
	assert_int_equal(msim_idr_alloc(&idr, NULL, 5, 5), 5);   /* reserved: skipped */
	id = 1;
	assert_ptr_equal(msim_idr_get_next(&idr, &id), ptr(63));
	assert_int_equal(id, 63);
	id = 100001;
	assert_ptr_equal(msim_idr_get_next(&idr, &id), ptr((unsigned long)INT_MAX + 10));
	id = (unsigned long)INT_MAX + 11;
	assert_null(msim_idr_get_next(&idr, &id));
	assert_int_equal(msim_idr_for_each(&idr, collect, &w), 0);
	assert_int_equal(w.n, 5);
	for (unsigned int i = 0; i < 5; i++)
		assert_int_equal(w.ids[i], ids[i]);
	w.n = 0;
	w.stop_after = 2;
	assert_int_equal(msim_idr_for_each(&idr, collect, &w), 42);
	assert_int_equal(w.n, 2);
	msim_idr_for_each_entry(&idr, p, id) {
		assert_int_equal(id, ids[n]);
		assert_ptr_equal(p, ptr(id));
		n++;
	}
	assert_int_equal(n, 5);
	msim_idr_destroy(&idr);
	assert_true(msim_idr_is_empty(&idr));
	msim_idr_fini(&idr);
}

/*
 * kernel: idr_alloc_cyclic(): from the cursor (the last id + 1) to end, then
 * from start; -ENOSPC when the range is full.
 */
static void alloc_cyclic(void **state)
{
	struct msim_idr idr;

	msim_idr_init(*state, &idr, "idr");
	assert_int_equal(msim_idr_alloc_cyclic(&idr, ptr(1), 1, 4), 1);
	assert_int_equal(msim_idr_alloc_cyclic(&idr, ptr(2), 1, 4), 2);
	assert_ptr_equal(msim_idr_remove(&idr, 1), ptr(1));
	/* Not the freed 1: the cursor is at 3. */
	assert_int_equal(msim_idr_alloc_cyclic(&idr, ptr(3), 1, 4), 3);
	assert_int_equal(msim_idr_get_cursor(&idr), 4);
	assert_int_equal(msim_idr_alloc_cyclic(&idr, ptr(4), 1, 4), 4);
	/* Past end: around to start, where 1 is free. */
	assert_int_equal(msim_idr_alloc_cyclic(&idr, ptr(1), 1, 4), 1);
	assert_int_equal(msim_idr_alloc_cyclic(&idr, ptr(5), 1, 4), -ENOSPC);
	assert_int_equal(msim_idr_get_cursor(&idr), 2);
	/* The plain allocator ignores the cursor: lowest free first. */
	assert_ptr_equal(msim_idr_remove(&idr, 4), ptr(4));
	assert_ptr_equal(msim_idr_remove(&idr, 2), ptr(2));
	assert_int_equal(msim_idr_alloc(&idr, ptr(2), 1, 4), 2);
	msim_idr_set_cursor(&idr, 0);
	assert_int_equal(msim_idr_alloc_cyclic(&idr, ptr(4), 1, 4), 4);
	assert_int_equal(msim_idr_alloc_cyclic(&idr, ptr(9), 1, 4), -ENOSPC);
	assert_int_equal(msim_idr_alloc_cyclic(&idr, ptr(9), 9, 8), -EINVAL);
	for (unsigned long id = 1; id <= 4; id++)
		assert_ptr_equal(msim_idr_remove(&idr, id), ptr(id));
	msim_idr_fini(&idr);
}

/* kernel: idr_destroy() frees every id and leaves an idr that can be used again. */
static void destroy_then_reuse(void **state)
{
	struct msim_idr idr;

	msim_idr_init(*state, &idr, "idr");
	for (unsigned long id = 0; id < 100; id++)
		assert_int_equal(msim_idr_alloc(&idr, ptr(id), 0, INT_MAX), (long)id);
	assert_true(msim_xa_nr_nodes(&idr.xa) > 0);
	msim_idr_destroy(&idr);
	assert_int_equal(msim_idr_count(&idr), 0);
	assert_int_equal(msim_xa_nr_nodes(&idr.xa), 0);
	assert_null(msim_idr_find(&idr, 5));
	assert_false(msim_idr_allocated(&idr, 5));
	/* Ids start over from the lowest. */
	assert_int_equal(msim_idr_alloc(&idr, ptr(7), 0, INT_MAX), 0);
	assert_ptr_equal(msim_idr_find(&idr, 0), ptr(7));
	msim_idr_fini(&idr);
}

/* Remove every third id of a full 16-bit range; refills come back lowest first. */
static void churn_65535(void **state)
{
	struct msim_idr idr;

	msim_idr_init(*state, &idr, "idr");
	for (unsigned long id = 0; id < 65535; id++)
		msim_idr_alloc(&idr, ptr(id), 0, 65534);
	for (unsigned long id = 2; id < 65535; id += 3)
		assert_ptr_equal(msim_idr_remove(&idr, id), ptr(id));
	for (unsigned long id = 2; id < 65535; id += 3)
		if (msim_idr_alloc(&idr, ptr(id), 0, 65534) != (long)id)
			fail_msg("refill did not return %lu", id);
	assert_int_equal(msim_idr_alloc(&idr, ptr(0), 0, 65534), -ENOSPC);
	assert_int_equal(msim_idr_count(&idr), 65535);
	/* 65535 ids: 1024 leaves, 16 shift-6 nodes, 1 root */
	assert_int_equal(msim_xa_nr_nodes(&idr.xa), 1024 + 16 + 1);
	msim_idr_fini(&idr);
}

/*
 * idr_find() under RCU against the memcg-id life cycle (reserve with NULL,
 * publish with replace, remove):
 *
 *   CPU 1 (reader)                 | CPU 0 (writer)
 *   rcu_read_lock()                | id = idr_alloc(NULL)      find: NULL
 *   p = idr_find(id)               | idr_replace(ptr(id), id)  find: ptr(id)
 *     NULL or ptr(id), never other | idr_remove(id)            leaf may be freed
 *   rcu_read_unlock()              |   (after the reader's grace period)
 *
 * 30 seeded random schedules; afterwards every node has left the totals.
 */
struct idr_shared {
	struct msim_idr idr;
	int done;
	unsigned long errors[2], hits[2];
};

static void idr_writer(void *arg)
{
	struct idr_shared *sh = arg;
	long held[64];
	unsigned int n = 0;

	for (unsigned int op = 0; op < 400; op++) {
		if (n < 64 && (op % 5 != 4 || n == 0)) {
			long id = msim_idr_alloc(&sh->idr, NULL, 0, 200);

			if (id < 0)
				continue;
			msim_idr_replace(&sh->idr, ptr((unsigned long)id), (unsigned long)id);
			held[n++] = id;
		} else {
			unsigned int victim = op % n;

			msim_idr_remove(&sh->idr, (unsigned long)held[victim]);
			held[victim] = held[--n];
		}
	}
	while (n)
		msim_idr_remove(&sh->idr, (unsigned long)held[--n]);
	__atomic_store_n(&sh->done, 1, __ATOMIC_RELEASE);
}

struct idr_reader_arg {
	struct idr_shared *sh;
	unsigned int who;
};

static void idr_reader(void *arg)
{
	struct idr_reader_arg *ra = arg;
	struct idr_shared *sh = ra->sh;

	for (unsigned long round = 0; round < 3000; round++) {
		unsigned long id = (round * 37 + ra->who) % 70;
		void *p;

		msim_rcu_read_lock();
		p = msim_idr_find(&sh->idr, id);
		if (p && p != ptr(id))
			sh->errors[ra->who]++;
		sh->hits[ra->who] += p != NULL;
		msim_rcu_read_unlock();
		if (__atomic_load_n(&sh->done, __ATOMIC_ACQUIRE) && round > 200)
			break;
	}
}

static void rcu_find_vs_churn(void **state)
{
	unsigned long hits = 0;

	for (uint64_t seed = 1; seed <= 30; seed++) {
		struct msim_config cfg;
		struct msim *m = NULL;
		struct idr_shared sh = { 0 };
		struct idr_reader_arg ra[2] = { { &sh, 0 }, { &sh, 1 } };
		struct msim_sched_opts opts = { .strategy = MSIM_STRAT_RANDOM, .seed = seed };
		struct msim_kmem_totals t;

		msim_config_init(&cfg);
		cfg.nr_cpus = 3;
		assert_int_equal(msim_create(&cfg, &m, NULL, 0), 0);
		assert_int_equal(msim_sched_set(m, &opts), 0);
		msim_idr_init(m, &sh.idr, "idr_rcu");
		assert_non_null(msim_task_create(m, "writer", 0, idr_writer, &sh));
		assert_non_null(msim_task_create(m, "reader0", 1, idr_reader, &ra[0]));
		assert_non_null(msim_task_create(m, "reader1", 2, idr_reader, &ra[1]));
		assert_int_equal(msim_run(m), 0);
		if (sh.errors[0] || sh.errors[1])
			fail_msg("seed %llu: wrong pointer found (schedule %s)",
				 (unsigned long long)seed, msim_schedule_string(m));
		hits += sh.hits[0] + sh.hits[1];
		assert_int_equal(msim_idr_count(&sh.idr), 0);
		msim_idr_fini(&sh.idr);
		msim_rcu_barrier();
		msim_kmem_totals(m, &t);
		assert_int_equal(t.allocations, 0);
		msim_destroy(m);
	}
	assert_true(hits > 0); /* the readers did see published ids */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(lowest_free_reused, setup, teardown),
		cmocka_unit_test_setup_teardown(range_and_enospc, setup, teardown),
		cmocka_unit_test_setup_teardown(start_above_bitmap, setup, teardown),
		cmocka_unit_test_setup_teardown(reserve_then_replace, setup, teardown),
		cmocka_unit_test_setup_teardown(replace_and_remove, setup, teardown),
		cmocka_unit_test_setup_teardown(replace_unused_enoent, setup, teardown),
		cmocka_unit_test_setup_teardown(ids_above_int_max, setup, teardown),
		cmocka_unit_test_setup_teardown(memory_follows_ids, setup, teardown),
		cmocka_unit_test_setup_teardown(get_next_and_for_each, setup, teardown),
		cmocka_unit_test_setup_teardown(alloc_cyclic, setup, teardown),
		cmocka_unit_test_setup_teardown(destroy_then_reuse, setup, teardown),
		cmocka_unit_test_setup_teardown(churn_65535, setup, teardown),
		cmocka_unit_test(rcu_find_vs_churn),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
