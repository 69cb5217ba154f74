/* SPDX-License-Identifier: MIT */
/*
 * test_stock.c - the per-CPU charge cache and try_charge_memcg (src/memcg/stock.c,
 * charge.c; kernel: mm/memcontrol.c consume_stock, refill_stock, drain_all_stock,
 * try_charge_memcg).
 *
 *   first_charge_batches    1 page charges 64 at the counter, 63 stay in the stock
 *   stock_hits              the next 63 one-page charges touch no counter
 *   large_bypasses_stock    > 64 pages: charged exactly, nothing stocked
 *   root_never_charged      try_charge(root) charges nothing
 *   seven_slots_evict       an 8th memcg evicts a slot chosen by the seeded PRNG;
 *                           the same seed evicts the same slot, the pages go back
 *   refill_overflow_drains  a slot pushed past 64 pages is drained whole
 *   other_cpu_stock         a task's charge stocks on its CPU; drain_all empties it
 *   rmdir_drains            offline (order 90) gives the stocked pages back
 *   limit_retry_exact       batch 64 refused, the exact size retried and charged
 *   limit_enomem_events     over max: -ENOMEM, MEMCG_MAX and MEMCG_OOM raised;
 *                           NOWAIT fails before the MAX event; NOFAIL forces
 *   reclaim_callback        the reclaim stand-in frees pages and the charge fits
 *   high_throttle           over memory.high: throttling after 64 pages over,
 *                           penalty jiffies as the kernel's formula gives
 *   interface_files         memory.current/max/high show and write parsing
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <memcgsim/charge.h>
#include <memcgsim/memcgsim.h>

#include "unit_util.h"

#define PAGE 4096ULL

static struct msim *host_new(unsigned int cpus)
{
	struct msim *m = unit_host(cpus, 1);

	assert_int_equal(msim_charge_init(m), 0);
	assert_int_equal(msim_charge_init(m), 0); /* idempotent */
	return m;
}

static unsigned long usage(struct msim_memcg *memcg)
{
	return msim_page_counter_read(msim_memcg_page_counter(memcg));
}

static void first_charge_batches(void **state)
{
	struct msim *m = host_new(2);
	struct msim_memcg *a = unit_mkdir(msim_root_mem_cgroup(m), "a");
	struct msim_charge_stats cs;

	(void)state;
	assert_int_equal(msim_try_charge(a, MSIM_GFP_KERNEL, 1), 0);
	assert_int_equal(usage(a), 64);
	assert_int_equal(usage(msim_root_mem_cgroup(m)), 64);
	assert_int_equal(msim_stock_pages(m, 0, a), 63);
	assert_int_equal(msim_memory_current_read(a), 64 * PAGE);
	msim_charge_stats(m, &cs);
	assert_int_equal(cs.stock_misses, 1);
	assert_int_equal(cs.counter_charges, 1);
	assert_int_equal(cs.stock_refills, 1);
	msim_destroy(m);
}

static void stock_hits(void **state)
{
	struct msim *m = host_new(2);
	struct msim_memcg *a = unit_mkdir(msim_root_mem_cgroup(m), "a");
	struct msim_charge_stats cs;

	(void)state;
	for (int i = 0; i < 64; i++)
		assert_int_equal(msim_try_charge(a, MSIM_GFP_KERNEL, 1), 0);
	assert_int_equal(usage(a), 64);
	assert_int_equal(msim_stock_pages(m, 0, a), 0);
	/* The 65th page needs the counter again. */
	assert_int_equal(msim_try_charge(a, MSIM_GFP_KERNEL, 1), 0);
	assert_int_equal(usage(a), 128);
	msim_charge_stats(m, &cs);
	assert_int_equal(cs.stock_hits, 63);
	assert_int_equal(cs.stock_misses, 2);
	assert_int_equal(cs.counter_charges, 2);
	/* Uncharge goes to the counter directly (memcg_uncharge). */
	msim_memcg_uncharge(a, 65);
	assert_int_equal(usage(a), 63);
	assert_int_equal(msim_stock_pages(m, 0, a), 63);
	msim_destroy(m);
}

static void large_bypasses_stock(void **state)
{
	struct msim *m = host_new(2);
	struct msim_memcg *a = unit_mkdir(msim_root_mem_cgroup(m), "a");

	(void)state;
	assert_int_equal(msim_try_charge(a, MSIM_GFP_KERNEL, 65), 0);
	assert_int_equal(usage(a), 65);
	assert_int_equal(msim_stock_pages(m, 0, a), 0);
	assert_null(msim_stock_slot(m, 0, 0, NULL));
	assert_int_equal(msim_try_charge(a, MSIM_GFP_KERNEL, 0), -EINVAL);
	msim_destroy(m);
}

static void root_never_charged(void **state)
{
	struct msim *m = host_new(2);
	struct msim_memcg *root = msim_root_mem_cgroup(m);

	(void)state;
	assert_int_equal(msim_try_charge(root, MSIM_GFP_KERNEL, 10), 0);
	assert_int_equal(usage(root), 0);
	msim_memcg_uncharge(root, 10);
	assert_int_equal(usage(root), 0);
	assert_int_equal(msim_memcg_page_counter(root)->underflows, 0);
	msim_destroy(m);
}

/* Fill 7 slots, then an 8th memcg; returns the slot that was evicted. */
static int evicted_slot(uint64_t seed)
{
	struct msim *m = host_new(1);
	struct msim_memcg *g[8];
	struct msim_charge_stats cs;
	unsigned long before;
	int victim = -1;

	msim_charge_set_seed(m, seed);
	for (int i = 0; i < 8; i++) {
		char name[8];

		snprintf(name, sizeof(name), "g%d", i);
		g[i] = unit_mkdir(msim_root_mem_cgroup(m), name);
	}
	for (int i = 0; i < 7; i++)
		assert_int_equal(msim_try_charge(g[i], MSIM_GFP_KERNEL, 1), 0);
	for (unsigned int s = 0; s < 7; s++) {
		unsigned int pages;

		assert_ptr_equal(msim_stock_slot(m, 0, s, &pages), g[s]);
		assert_int_equal(pages, 63);
	}
	before = usage(msim_root_mem_cgroup(m));
	assert_int_equal(before, 7 * 64);
	assert_int_equal(msim_try_charge(g[7], MSIM_GFP_KERNEL, 1), 0);
	for (int i = 0; i < 7; i++)
		if (msim_stock_pages(m, 0, g[i]) == 0 && usage(g[i]) == 1)
			victim = i;
	assert_true(victim >= 0);
	/* The victim's 63 pages went back; the newcomer took its slot. */
	assert_ptr_equal(msim_stock_slot(m, 0, (unsigned int)victim, NULL), g[7]);
	assert_int_equal(usage(msim_root_mem_cgroup(m)), before + 64 - 63);
	msim_charge_stats(m, &cs);
	assert_int_equal(cs.stock_evictions, 1);
	msim_destroy(m);
	return victim;
}

static void seven_slots_evict(void **state)
{
	int a, b, differs = 0;

	(void)state;
	a = evicted_slot(42);
	b = evicted_slot(42);
	assert_int_equal(a, b);
	/* Different seeds pick different slots at least sometimes. */
	for (uint64_t s = 1; s <= 8; s++)
		differs |= evicted_slot(s) != a;
	assert_true(differs);
}

static void refill_overflow_drains(void **state)
{
	struct msim *m = host_new(1);
	struct msim_memcg *a = unit_mkdir(msim_root_mem_cgroup(m), "a");

	(void)state;
	assert_int_equal(msim_try_charge(a, MSIM_GFP_KERNEL, 1), 0); /* 63 stocked */
	assert_int_equal(usage(a), 64);
	/* A caller hands back 2 charged pages: 63 + 2 = 65 > 64 drains the slot whole. */
	msim_page_counter_charge(msim_memcg_page_counter(a), 2);
	msim_refill_stock(a, 2);
	assert_int_equal(msim_stock_pages(m, 0, a), 0);
	assert_null(msim_stock_slot(m, 0, 0, NULL));
	assert_int_equal(usage(a), 1);
	assert_int_equal(msim_memcg_page_counter(a)->underflows, 0);
	msim_destroy(m);
}

struct cpu_charge {
	struct msim_memcg *memcg;
	int ret;
};

static void charge_task(void *arg)
{
	struct cpu_charge *cc = arg;

	cc->ret = msim_try_charge(cc->memcg, MSIM_GFP_KERNEL, 1);
}

static void other_cpu_stock(void **state)
{
	struct msim *m = host_new(4);
	struct msim_memcg *a = unit_mkdir(msim_root_mem_cgroup(m), "a");
	struct cpu_charge cc[3] = { { a, -1 }, { a, -1 }, { a, -1 } };

	(void)state;
	for (unsigned int cpu = 1; cpu <= 3; cpu++)
		assert_non_null(msim_task_create(m, "charge", cpu, charge_task, &cc[cpu - 1]));
	assert_int_equal(msim_run(m), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(cc[i].ret, 0);
	/* 3 pages in use, 3 x 64 charged: each CPU keeps its own 63. */
	assert_int_equal(usage(a), 192);
	for (unsigned int cpu = 1; cpu <= 3; cpu++)
		assert_int_equal(msim_stock_pages(m, cpu, a), 63);
	assert_int_equal(msim_stock_pages(m, 0, a), 0);
	msim_drain_all_stock(msim_root_mem_cgroup(m));
	assert_int_equal(usage(a), 3);
	for (unsigned int cpu = 1; cpu <= 3; cpu++)
		assert_null(msim_stock_slot(m, cpu, 0, NULL));
	msim_destroy(m);
}

static void rmdir_drains(void **state)
{
	struct msim *m = host_new(2);
	struct msim_memcg *root = msim_root_mem_cgroup(m);
	struct msim_memcg *p = unit_mkdir(root, "p");
	struct msim_memcg *c = unit_mkdir(p, "c");

	(void)state;
	assert_int_equal(msim_try_charge(c, MSIM_GFP_KERNEL, 1), 0);
	assert_int_equal(usage(p), 64);
	msim_memcg_uncharge(c, 1);
	assert_int_equal(usage(p), 63);
	assert_int_equal(msim_memcg_rmdir(c), 0);
	/* css_offline order 90 ran drain_all_stock(c): the 63 pages are back. */
	assert_int_equal(usage(p), 0);
	assert_int_equal(usage(root), 0);
	assert_null(msim_stock_slot(m, 0, 0, NULL));
	msim_memcg_drain(m);
	msim_destroy(m);
}

static void limit_retry_exact(void **state)
{
	struct msim *m = host_new(2);
	struct msim_memcg *a = unit_mkdir(msim_root_mem_cgroup(m), "a");
	struct msim_charge_stats cs;

	(void)state;
	assert_int_equal(msim_memory_max_write(a, "40960"), 0); /* 10 pages */
	assert_int_equal(msim_try_charge(a, MSIM_GFP_KERNEL, 1), 0);
	assert_int_equal(usage(a), 1);
	assert_int_equal(msim_stock_pages(m, 0, a), 0); /* batch == nr_pages: no refill */
	msim_charge_stats(m, &cs);
	assert_int_equal(cs.counter_charges, 2);
	assert_int_equal(cs.counter_failures, 1);
	assert_int_equal(cs.batch_retries, 1);
	assert_int_equal(msim_memcg_page_counter(a)->failcnt, 1);
	/* The batch failure is not a limit event. */
	assert_int_equal(msim_memory_events(a, MSIM_MEMCG_MAX), 0);
	msim_destroy(m);
}

static void limit_enomem_events(void **state)
{
	struct msim *m = host_new(2);
	struct msim_memcg *p = unit_mkdir(msim_root_mem_cgroup(m), "p");
	struct msim_memcg *a = unit_mkdir(p, "a");
	struct msim_charge_stats cs;

	(void)state;
	assert_int_equal(msim_memory_max_write(a, "8192"), 0); /* 2 pages */
	assert_int_equal(msim_try_charge(a, MSIM_GFP_KERNEL, 2), 0);
	assert_int_equal(msim_try_charge(a, MSIM_GFP_NOWAIT, 1), -ENOMEM);
	assert_int_equal(msim_memory_events(a, MSIM_MEMCG_MAX), 0);
	assert_int_equal(msim_try_charge(a, MSIM_GFP_KERNEL, 1), -ENOMEM);
	/* first try, the drain retry, then 16 retries */
	assert_int_equal(msim_memory_events(a, MSIM_MEMCG_MAX), 18);
	assert_int_equal(msim_memory_events(a, MSIM_MEMCG_OOM), 1);
	/* memory.events is hierarchical up to (not including) the root. */
	assert_int_equal(msim_memory_events(p, MSIM_MEMCG_MAX), 18);
	assert_int_equal(msim_memory_events(msim_root_mem_cgroup(m), MSIM_MEMCG_MAX), 0);
	assert_int_equal(msim_try_charge(a, MSIM_GFP_NOFAIL, 1), 0);
	assert_int_equal(usage(a), 3);
	msim_charge_stats(m, &cs);
	assert_int_equal(cs.nomem, 2);
	assert_int_equal(cs.forced, 1);
	msim_destroy(m);
}

static unsigned long reclaim_calls;

static unsigned long free_some(struct msim_memcg *memcg, unsigned long nr_pages, void *arg)
{
	unsigned long *owned = arg;
	unsigned long n = *owned < 4 ? *owned : 4;

	reclaim_calls++;
	*owned -= n;
	msim_memcg_uncharge(memcg, (unsigned int)n);
	return n;
}

static void reclaim_callback(void **state)
{
	struct msim *m = host_new(2);
	struct msim_memcg *a = unit_mkdir(msim_root_mem_cgroup(m), "a");
	unsigned long owned = 8;

	(void)state;
	msim_charge_set_reclaim(m, free_some, &owned);
	assert_int_equal(msim_memory_max_write(a, "32768"), 0); /* 8 pages */
	assert_int_equal(msim_try_charge(a, MSIM_GFP_KERNEL, 8), 0);
	reclaim_calls = 0;
	assert_int_equal(msim_try_charge(a, MSIM_GFP_KERNEL, 2), 0);
	assert_int_equal(reclaim_calls, 1);
	assert_int_equal(owned, 4);
	assert_int_equal(usage(a), 6);
	assert_int_equal(msim_memory_events(a, MSIM_MEMCG_MAX), 1);
	msim_destroy(m);
}

static void high_throttle(void **state)
{
	struct msim *m = host_new(2);
	struct msim_memcg *a = unit_mkdir(msim_root_mem_cgroup(m), "a");
	struct msim_charge_stats cs;
	uint64_t overage, penalty;

	(void)state;
	assert_int_equal(msim_memory_high_write(a, "65536"), 0); /* 16 pages */
	/* First charge: 64 > 16 over high: nr_pages_over_high = 64, not > 64. */
	assert_int_equal(msim_try_charge(a, MSIM_GFP_KERNEL, 1), 0);
	msim_charge_stats(m, &cs);
	assert_int_equal(cs.high_throttles, 0);
	/* Drain the stock, charge again: over_high 128 > 64 -> synchronous throttle. */
	msim_drain_all_stock(a);
	assert_int_equal(msim_try_charge(a, MSIM_GFP_KERNEL, 1), 0);
	msim_charge_stats(m, &cs);
	assert_int_equal(cs.high_throttles, 1);
	assert_int_equal(msim_memory_events(a, MSIM_MEMCG_HIGH), 1 + 16);
	/* usage 65 pages (1 + 64), high 16: the kernel's penalty, nr_pages = 128. */
	overage = ((uint64_t)(65 - 16) << 20) / 16;
	penalty = ((overage * overage * 1000) >> 20 >> 14) * 128 / 64;
	if (penalty > 2000)
		penalty = 2000;
	assert_int_equal(cs.high_penalty_jiffies, penalty);
	msim_destroy(m);
}

static void interface_files(void **state)
{
	struct msim *m = host_new(2);
	struct msim_memcg *a = unit_mkdir(msim_root_mem_cgroup(m), "a");
	char buf[64];

	(void)state;
	assert_int_equal(msim_memory_max_show(a, buf, sizeof(buf)), 4);
	assert_string_equal(buf, "max\n");
	assert_int_equal(msim_memory_max_write(a, "1G\n"), 0);
	msim_memory_max_show(a, buf, sizeof(buf));
	assert_string_equal(buf, "1073741824\n");
	assert_int_equal(msim_memcg_page_counter(a)->max, 262144);
	assert_int_equal(msim_memory_max_write(a, "4097"), 0); /* rounded down */
	assert_int_equal(msim_memcg_page_counter(a)->max, 1);
	assert_int_equal(msim_memory_max_write(a, " max "), 0);
	assert_int_equal(msim_memcg_page_counter(a)->max, (unsigned long)MSIM_PAGE_COUNTER_MAX);
	assert_int_equal(msim_memory_max_write(a, "abc"), -EINVAL);
	assert_int_equal(msim_memory_max_write(a, "12q"), -EINVAL);
	assert_int_equal(msim_memory_max_write(a, ""), -EINVAL);
	assert_int_equal(msim_memory_high_write(a, "64k"), 0);
	msim_memory_high_show(a, buf, sizeof(buf));
	assert_string_equal(buf, "65536\n");
	assert_int_equal(msim_memory_max_show(NULL, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(msim_try_charge(a, MSIM_GFP_KERNEL, 3), 0);
	assert_int_equal(msim_memory_current_read(a), 64 * PAGE);
	assert_int_equal(msim_memory_peak_read(a), 64 * PAGE);
	msim_destroy(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(first_charge_batches),
		cmocka_unit_test(stock_hits),
		cmocka_unit_test(large_bypasses_stock),
		cmocka_unit_test(root_never_charged),
		cmocka_unit_test(seven_slots_evict),
		cmocka_unit_test(refill_overflow_drains),
		cmocka_unit_test(other_cpu_stock),
		cmocka_unit_test(rmdir_drains),
		cmocka_unit_test(limit_retry_exact),
		cmocka_unit_test(limit_enomem_events),
		cmocka_unit_test(reclaim_callback),
		cmocka_unit_test(high_throttle),
		cmocka_unit_test(interface_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
