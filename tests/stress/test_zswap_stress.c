/* SPDX-License-Identifier: MIT */
/* ctest-labels: concurrent */
/*
 * test_zswap_stress.c - zswap conservation under concurrent reclaim, faults,
 * writeback and the global worker.
 *
 *   CPU 0..3: each owns memcg cK (c2 with zswap.max of 8 pages, c3 with
 *             writeback off) and NPTE pages of it; a seeded mix of first
 *             touches, frees (resident or swapped out), reclaim of its memcg (the LRU pass, sometimes with
 *             shrink_slab at priority 0: the zswap shrinker), swap-ins (zswap
 *             loads or disk reads; -EAGAIN when writeback holds the slot),
 *             frees, shrink_memcg, and (CPU 0) the global shrink_worker. The pool
 *             is small (max 40 pages), so the limit, its hysteresis and the
 *             worker are all reached.
 *
 * At quiescence: every swapped-out page holds a slot (slots used = swapped
 * ptes); every entry is on a zswap list (the lists' counts add up to
 * zswap_stored_pages); root's hierarchical MEMCG_ZSWAP_B and MEMCG_ZSWAPPED equal
 * the pool's bytes and entries (every entry is a child's); with every stock
 * drained, each memcg's memory.current is its resident pages plus its
 * compressed bytes rounded up to pages (the obj stock's identity). Then every
 * page is freed: the pool, the device and every memcg's usage are back to 0.
 * The run must have written back, loaded from zswap and read from disk.
 *
 * Deterministic mode runs a seeded random schedule; concurrent mode runs real
 * threads, for TSan (the tsan preset).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>

#include <memcgsim/memcgsim.h>

#define NCPU 4
#define NPTE 48

struct task_arg {
	struct msim *m;
	struct msim_memcg *memcg;
	struct msim_swap_pte pte[NPTE];
	unsigned int cpu, iters;
	uint64_t rng;
	unsigned long eagain;
};

static unsigned int next_rand(struct task_arg *a, unsigned int n)
{
	a->rng ^= a->rng << 13;
	a->rng ^= a->rng >> 7;
	a->rng ^= a->rng << 17;
	return (unsigned int)(a->rng % n);
}

static void op_page(struct task_arg *a)
{
	struct msim_swap_pte *pte = &a->pte[next_rand(a, NPTE)];
	int ret;

	if (!pte->folio && pte->slot < 0) {
		assert_int_equal(msim_zswap_anon_fault(pte, a->memcg, 0), 0);
	} else if (pte->slot >= 0 && !next_rand(a, 5)) {
		msim_zswap_pte_free(a->m, pte);         /* munmap of a swapped-out page */
	} else if (pte->slot >= 0) {
		ret = msim_zswap_swapin(pte, a->memcg);
		if (ret == -EAGAIN)
			a->eagain++;
		else
			assert_int_equal(ret, 0);
	} else if (!next_rand(a, 4)) {
		msim_zswap_pte_free(a->m, pte);
	}
}

static void task_fn(void *arg)
{
	struct task_arg *a = arg;

	for (unsigned int i = 0; i < a->iters; i++) {
		unsigned int op = next_rand(a, 16);

		if (op < 9)
			op_page(a);
		else if (op < 13)
			msim_zswap_reclaim(a->memcg, 1 + next_rand(a, 8), -1);
		else if (op == 13)
			msim_zswap_reclaim(a->memcg, 4, 0);
		else if (op == 14)
			msim_zswap_shrink_memcg(a->m, a->memcg);
		else if (a->cpu == 0)
			msim_zswap_shrink_worker(a->m);
		else
			msim_zswap_run_queued_work(a->m);
	}
}

static struct msim *host_new(enum msim_run_mode mode, struct task_arg *args)
{
	struct msim_zswap_params p;
	struct msim_config cfg;
	struct msim *m;
	char err[256] = "";

	msim_config_init(&cfg);
	cfg.nr_cpus = NCPU;
	cfg.mode = mode;
	assert_int_equal(msim_create(&cfg, &m, err, sizeof(err)), 0);
	msim_set_current_host(m);
	msim_zswap_params_init(&p);
	p.total_ram_pages = 200;                /* max 40 pages, threshold 36 */
	p.incompressible_pct = 10;
	assert_int_equal(msim_zswap_attach(m, &p, err, sizeof(err)), 0);
	for (unsigned int c = 0; c < NCPU; c++) {
		args[c].m = m;
		args[c].cpu = c;
		assert_int_equal(msim_memcg_create(msim_root_mem_cgroup(m), NULL, &args[c].memcg),
				 0);
		for (unsigned int i = 0; i < NPTE; i++)
			msim_swap_pte_init(&args[c].pte[i]);
	}
	assert_int_equal(msim_memory_zswap_max_write(args[2].memcg, "32768"), 0);
	assert_int_equal(msim_memory_zswap_writeback_write(args[3].memcg, 0), 0);
	return m;
}

static unsigned long usage(struct msim *m, struct msim_memcg *memcg)
{
	msim_obj_stock_drain_all(m);
	msim_drain_all_stock(msim_root_mem_cgroup(m));
	return msim_page_counter_read(msim_memcg_page_counter(memcg));
}

static void check_quiescent(struct msim *m, struct task_arg *args)
{
	struct msim_memcg *root = msim_root_mem_cgroup(m);
	struct msim_zswap_stats st;
	unsigned long swapped = 0, listed = msim_zswap_lru_count(root, 0);

	msim_zswap_stats(m, &st);
	for (unsigned int c = 0; c < NCPU; c++) {
		unsigned long resident = 0, bytes;

		for (unsigned int i = 0; i < NPTE; i++) {
			swapped += args[c].pte[i].slot >= 0;
			resident += args[c].pte[i].folio != NULL;
		}
		listed += msim_zswap_lru_count(args[c].memcg, 0);
		bytes = msim_memory_zswap_current_read(args[c].memcg);
		assert_int_equal(usage(m, args[c].memcg), resident + (bytes + 4095) / 4096);
	}
	assert_int_equal(st.swap_slots_used, swapped);
	assert_int_equal(listed, st.stored_pages);
	msim_do_mem_cgroup_flush_stats(root, true);
	assert_int_equal(msim_memcg_page_state(root, MSIM_MEMCG_ZSWAP_B), st.pool_bytes);
	assert_int_equal(msim_memcg_page_state(root, MSIM_MEMCG_ZSWAPPED), st.stored_pages);
	assert_int_equal(msim_memcg_page_state(root, MSIM_MEMCG_ZSWAP_INCOMP),
			 st.stored_incompressible_pages);
}

static void check_empty(struct msim *m, struct task_arg *args)
{
	struct msim_zswap_stats st;

	for (unsigned int c = 0; c < NCPU; c++)
		for (unsigned int i = 0; i < NPTE; i++)
			msim_zswap_pte_free(m, &args[c].pte[i]);
	msim_zswap_stats(m, &st);
	assert_int_equal(st.stored_pages, 0);
	assert_int_equal(st.pool_bytes, 0);
	assert_int_equal(st.swap_slots_used, 0);
	for (unsigned int c = 0; c < NCPU; c++) {
		assert_int_equal(usage(m, args[c].memcg), 0);
		assert_int_equal(msim_memory_zswap_current_read(args[c].memcg), 0);
	}
}

static void stress_run(enum msim_run_mode mode, unsigned int iters, uint64_t seed)
{
	struct task_arg *args = calloc(NCPU, sizeof(*args));
	struct msim_zswap_stats st;
	unsigned long eagain = 0;
	struct msim *m;

	assert_non_null(args);
	m = host_new(mode, args);
	for (unsigned int c = 0; c < NCPU; c++) {
		args[c].iters = iters;
		args[c].rng = 0x9e3779b97f4a7c15ULL * (c + 1) ^ seed;
		assert_non_null(msim_task_create(m, "zswap-stress", c, task_fn, &args[c]));
	}
	if (mode == MSIM_DETERMINISTIC) {
		struct msim_sched_opts so = { .strategy = MSIM_STRAT_RANDOM, .seed = seed };

		assert_int_equal(msim_sched_set(m, &so), 0);
	}
	assert_int_equal(msim_run(m), 0);
	check_quiescent(m, args);
	msim_zswap_stats(m, &st);
	for (unsigned int c = 0; c < NCPU; c++)
		eagain += args[c].eagain;
	/* the run did what it is for */
	assert_true(st.zswpwb > 0 && st.zswpin > 0 && st.pswpin > 0 && st.zswpout > 0);
	print_message("%s seed %llu: zswpout %lu, zswpin %lu, zswpwb %lu, pswpout %lu, "
		      "pswpin %lu, limit rejects %lu, memcg-max rejects %lu, kept (no "
		      "writeback) %lu, worker runs %lu, swap-ins refused (writeback held "
		      "the slot) %lu\n",
		      mode == MSIM_DETERMINISTIC ? "deterministic" : "concurrent",
		      (unsigned long long)seed, st.zswpout, st.zswpin, st.zswpwb, st.pswpout,
		      st.pswpin, st.reject_limit, st.reject_memcg_max, st.kept_no_writeback,
		      st.shrink_worker_runs, eagain);
	check_empty(m, args);
	msim_destroy(m);
	free(args);
}

static void det_seed1(void **st)
{
	(void)st;
	stress_run(MSIM_DETERMINISTIC, 400, 1);
}

static void det_seed2(void **st)
{
	(void)st;
	stress_run(MSIM_DETERMINISTIC, 400, 2);
}

static void concurrent(void **st)
{
	(void)st;
	stress_run(MSIM_CONCURRENT, 1500, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(det_seed1),
		cmocka_unit_test(det_seed2),
		cmocka_unit_test(concurrent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
