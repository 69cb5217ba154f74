/* SPDX-License-Identifier: MIT */
/*
 * test_xarray_concurrent.c - RCU readers against a writer that stores, erases,
 * grows and shrinks the tree, in concurrent mode (real threads; TSan checks the
 * publication order) and in deterministic mode (the explorer picks where the
 * writer's erases and the grace periods land between the readers' loads).
 *
 * The window every reader crosses:
 *
 *   CPU 1 (reader)                          | CPU 0 (writer)
 *   rcu_read_lock()                         |
 *   node = rcu_dereference(parent->slot[k]) |
 *                                           | xa_erase(idx): the leaf empties,
 *                                           |   parent->slot[k] = NULL,
 *                                           |   kfree_rcu(node)   (not freed yet)
 *   e = node->slots[off]    (still valid)   |
 *   rcu_read_unlock()                       |
 *                                           | grace period ends: node freed
 *
 * The writer also sets a mark on entries and reserves empty slots. Invariant: a
 * load returns NULL (empty or reserved) or the one entry ever stored at that
 * index; a find, of present or of marked entries, returns strictly increasing
 * indices, each with its own entry, never a reserved slot; no reader
 * touches freed memory (ASan/TSan); afterwards every node has left the totals.
 * The model has no variant that frees nodes early, so there is no "bad side" to
 * show here: the kernel has none either (xa_node_free() is call_rcu()). Under a
 * broken free, ASan would report the reader's load as a use after free.
 *
 *   concurrent_readers_vs_writer   1 writer + 3 readers on 4 CPUs, real threads
 *   deterministic_random_schedules 40 seeded schedules, 1 writer + 2 readers
 *
 * ctest-labels: concurrent
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <memcgsim/kmem.h>
#include <memcgsim/yield.h>
#include <memcgsim/explore.h>
#include <memcgsim/script.h>
#include <memcgsim/sim.h>
#include <memcgsim/container_of.h>
#include <memcgsim/atomic.h>
#include <memcgsim/lock.h>
#include <memcgsim/rcu.h>
#include <memcgsim/percpu.h>
#include <memcgsim/xarray.h>

#define POOL 160

/* Clustered low indices, a mid band and far indices (the tree grows to shift 42). */
static unsigned long pool_index(unsigned int i)
{
	if (i < 96)
		return i;
	if (i < 144)
		return 5000UL + (i - 96) * 131UL;
	return (1UL << 40) + (i - 144) * 70001UL;
}

/* The only entry ever stored at index: a value entry or a (never dereferenced) pointer. */
static void *expected(unsigned long index)
{
	if (index % 2)
		return msim_xa_mk_value(index);
	return (void *)((index << 3) | 0x2000000000000000UL);
}

struct shared {
	struct msim_xarray xa;
	int writer_done;
	unsigned int writer_ops;
	unsigned int reader_rounds;
};

struct reader {
	struct shared *sh;
	uint64_t seed;
	unsigned long loads, hits, finds, errors;
};

static uint64_t rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void writer_task(void *arg)
{
	struct shared *sh = arg;
	uint64_t seed = 0x9E3779B97F4A7C15ULL;

	for (unsigned int op = 0; op < sh->writer_ops; op++) {
		unsigned long idx = pool_index((unsigned int)(rng(&seed) % POOL));

		switch (rng(&seed) % 4) {
		case 0:
		case 1:
			msim_xa_store(&sh->xa, idx, expected(idx), NULL);
			break;
		case 2:
			msim_xa_erase(&sh->xa, idx);
			break;
		default: /* marks and reservations move under the readers too */
			if (rng(&seed) % 2)
				msim_xa_set_mark(&sh->xa, idx, MSIM_XA_MARK_1);
			else
				msim_xa_reserve(&sh->xa, idx);
			break;
		}
	}
	__atomic_store_n(&sh->writer_done, 1, __ATOMIC_RELEASE);
}

static void check_find(struct reader *r, unsigned long start, msim_xa_mark_t filter)
{
	unsigned long idx = start, prev = 0;
	bool first = true;
	void *e;

	for (int n = 0; n < 8; n++) {
		e = msim_xa_find(&r->sh->xa, &idx, ~0UL, filter);
		if (!e)
			break;
		r->finds++;
		if (e != expected(idx) || idx < start || (!first && idx <= prev))
			r->errors++;
		first = false;
		prev = idx;
		if (idx == ~0UL)
			break;
		idx++;
	}
}

static void reader_task(void *arg)
{
	struct reader *r = arg;
	unsigned int round = 0;

	while (round < r->sh->reader_rounds ||
	       !__atomic_load_n(&r->sh->writer_done, __ATOMIC_ACQUIRE)) {
		unsigned long idx = pool_index((unsigned int)(rng(&r->seed) % POOL));
		void *e;

		msim_rcu_read_lock();
		e = msim_xa_load(&r->sh->xa, idx);
		r->loads++;
		if (e) {
			r->hits++;
			if (e != expected(idx))
				r->errors++;
		}
		if (round % 16 == 0)
			check_find(r, idx, MSIM_XA_PRESENT);
		if (round % 16 == 8)
			check_find(r, idx, MSIM_XA_MARK_1);
		msim_rcu_read_unlock();
		round++;
		if (round > 50 * r->sh->reader_rounds)
			break; /* the writer never finishing is reported below */
	}
}

static struct msim *make_host(enum msim_run_mode mode, unsigned int cpus)
{
	struct msim_config cfg;
	struct msim *m = NULL;

	msim_config_init(&cfg);
	cfg.nr_cpus = cpus;
	cfg.mode = mode;
	assert_int_equal(msim_create(&cfg, &m, NULL, 0), 0);
	return m;
}

/* Empty the xarray and check every node left the totals after a grace period. */
static void drain_and_check(struct msim *m, struct shared *sh)
{
	for (unsigned int i = 0; i < POOL; i++)
		msim_xa_erase(&sh->xa, pool_index(i));
	assert_int_equal(msim_xa_nr_nodes(&sh->xa), 0);
	assert_true(msim_xa_empty(&sh->xa));
	msim_xa_fini(&sh->xa);
	msim_rcu_barrier();
	assert_int_equal(msim_kmem_owner_bytes(m, "xa_conc"), 0);
}

static void concurrent_readers_vs_writer(void **state)
{
	struct msim *m = make_host(MSIM_CONCURRENT, 4);
	struct shared sh = { .writer_ops = 30000, .reader_rounds = 3000 };
	struct reader rd[3];

	msim_xa_init(m, &sh.xa, "xa_conc");
	assert_non_null(msim_task_create(m, "writer", 0, writer_task, &sh));
	for (unsigned int i = 0; i < 3; i++) {
		rd[i] = (struct reader){ .sh = &sh, .seed = 0x1234567ULL * (i + 1) };
		assert_non_null(msim_task_create(m, "reader", i + 1, reader_task, &rd[i]));
	}
	assert_int_equal(msim_run(m), 0);
	assert_int_equal(sh.writer_done, 1);
	for (unsigned int i = 0; i < 3; i++) {
		print_message("reader %u: %lu loads, %lu hits, %lu find steps\n", i, rd[i].loads,
			      rd[i].hits, rd[i].finds);
		assert_int_equal(rd[i].errors, 0);
		assert_true(rd[i].loads >= sh.reader_rounds);
	}
	drain_and_check(m, &sh);
	msim_destroy(m);
}

static void deterministic_random_schedules(void **state)
{
	for (uint64_t seed = 1; seed <= 40; seed++) {
		struct msim *m = make_host(MSIM_DETERMINISTIC, 3);
		struct shared sh = { .writer_ops = 300, .reader_rounds = 100 };
		struct msim_sched_opts opts = { .strategy = MSIM_STRAT_RANDOM, .seed = seed };
		struct reader rd[2];

		assert_int_equal(msim_sched_set(m, &opts), 0);
		msim_xa_init(m, &sh.xa, "xa_conc");
		assert_non_null(msim_task_create(m, "writer", 0, writer_task, &sh));
		for (unsigned int i = 0; i < 2; i++) {
			rd[i] = (struct reader){ .sh = &sh, .seed = seed * 7919 + i };
			assert_non_null(msim_task_create(m, "reader", i + 1, reader_task, &rd[i]));
		}
		assert_int_equal(msim_run(m), 0);
		for (unsigned int i = 0; i < 2; i++)
			if (rd[i].errors)
				fail_msg("seed %llu: reader %u saw %lu wrong entries (schedule %s)",
					 (unsigned long long)seed, i, rd[i].errors,
					 msim_schedule_string(m));
		drain_and_check(m, &sh);
		msim_destroy(m);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(concurrent_readers_vs_writer),
		cmocka_unit_test(deterministic_random_schedules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
