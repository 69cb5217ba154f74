/* SPDX-License-Identifier: MIT */
/*
 * test_selftest_stat_bound.c - the stat-consistency bound of the cgroup selftest
 * (tools/testing/selftests/cgroup, test_kmem_memcg_deletion(): after the child
 * cgroups are removed, |memory.current - (anon + file + kernel)| of the parent
 * must stay below MAX_VMSTAT_ERROR, 64 pages x CPUs), checked the way the
 * selftest reads: memory.current and memory.stat only, no flush of the test's
 * own before either. memory.stat's own flush is the kernel's threshold-gated
 * mem_cgroup_flush_stats(), so the read may be stale by what the heuristic has
 * not counted past the threshold.
 *
 * The workload, on 8 CPUs (threshold 512): a parent with 10 children; on every
 * CPU each child charges anon, file and kernel pages (amounts vary by child and
 * CPU); the periodic flush runs (2 s of virtual time); then child 0 charges
 * `late` more file pages spread over the CPUs; every child is removed (each
 * still holds its charges); the parent is read.
 *
 *   within_bound       late 320: the gated flush skips (40 updates per CPU, no
 *                      batch pushed), memory.stat is 320 pages short, inside the
 *                      selftest's 512; a bound of one batch (64 pages, not x CPUs)
 *                      would fail on the same read
 *   flushed_exact      late 2000: the heuristic crosses the threshold, the gated
 *                      flush runs, the read is exact
 *   raised_threshold   planted: the same 2000 with the threshold raised to 1024
 *                      pages per CPU; the gated flush skips and the selftest's
 *                      bound fails (2000 > 512 pages)
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>

#include <memcgsim/charge.h>
#include <memcgsim/memcgsim.h>
#include <memcgsim/rstat.h>

#include "unit/unit_util.h"

#define CPUS 8
#define CHILDREN 10
#define BOUND_PAGES (64 * CPUS)       /* the selftest's MAX_VMSTAT_ERROR, in pages */

struct job {
	struct msim *m;
	struct msim_memcg *memcg;
	unsigned int anon, file, kernel;
};

static void charge_task(void *arg)
{
	struct job *j = arg;
	struct msim_lruvec *lv = msim_mem_cgroup_lruvec(j->m, j->memcg, 0);

	for (unsigned int i = 0; i < j->anon; i++) {
		assert_int_equal(msim_try_charge(j->memcg, MSIM_GFP_KERNEL, 1), 0);
		msim_mod_lruvec_state(lv, MSIM_NR_ANON_MAPPED, 1);
	}
	for (unsigned int i = 0; i < j->file; i++) {
		assert_int_equal(msim_try_charge(j->memcg, MSIM_GFP_KERNEL, 1), 0);
		msim_mod_lruvec_state(lv, MSIM_NR_FILE_PAGES, 1);
	}
	for (unsigned int i = 0; i < j->kernel; i++) {
		assert_int_equal(msim_try_charge(j->memcg, MSIM_GFP_KERNEL, 1), 0);
		msim_mod_memcg_state(j->memcg, MSIM_MEMCG_KMEM, 1);
	}
}

struct read {
	long long current, stat;      /* pages */
	long long discrepancy;        /* |current - stat| */
	unsigned long long gated_skipped, gated_ran;
};

static uint64_t stat_pages(const char *text, const char *key)
{
	uint64_t v = 0;

	assert_int_equal(msim_memory_stat_lookup(text, key, &v), 0);
	return v / 4096;
}

/* The selftest's read of parent: memory.current, then memory.stat, nothing else. */
static void selftest_read(struct msim *m, struct msim_memcg *parent, struct read *r)
{
	struct msim_rstat_counters c0, c1;
	char *text = malloc(16384);

	assert_non_null(text);
	msim_rstat_counters(m, &c0);
	r->current = (long long)(msim_memory_current_read(parent) / 4096);
	assert_true(msim_memory_stat_show(parent, text, 16384) > 0);
	msim_rstat_counters(m, &c1);
	r->stat = (long long)(stat_pages(text, "anon") + stat_pages(text, "file") +
			      stat_pages(text, "kernel"));
	r->discrepancy = llabs(r->current - r->stat);
	r->gated_skipped = c1.flush_skipped - c0.flush_skipped;
	r->gated_ran = c1.flushes - c0.flushes;
	free(text);
}

static void run_jobs(struct msim *m, struct job *jobs, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		assert_non_null(msim_task_create(m, "charge", i % CPUS, charge_task, &jobs[i]));
	assert_int_equal(msim_run(m), 0);
}

static void selftest(long threshold_per_cpu, unsigned int late, struct read *r)
{
	struct msim_config cfg;
	struct msim_rstat_params p;
	struct msim_memcg *parent, *child[CHILDREN];
	struct job *jobs = calloc(CHILDREN * CPUS, sizeof(*jobs));
	struct msim *m;

	assert_non_null(jobs);
	msim_config_init(&cfg);
	cfg.nr_cpus = CPUS;
	cfg.mode = MSIM_DETERMINISTIC;
	m = unit_host_cfg(&cfg);
	msim_rstat_params_init(&p);
	p.threshold_per_cpu = threshold_per_cpu;
	assert_int_equal(msim_rstat_init(m, &p), 0);
	assert_int_equal(msim_charge_init(m), 0);
	assert_int_equal(msim_memcg_create(msim_root_mem_cgroup(m), "parent", &parent), 0);
	for (unsigned int c = 0; c < CHILDREN; c++) {
		char name[16];

		snprintf(name, sizeof(name), "child%u", c);
		assert_int_equal(msim_memcg_create(parent, name, &child[c]), 0);
		for (unsigned int cpu = 0; cpu < CPUS; cpu++)
			jobs[c * CPUS + cpu] = (struct job){ m, child[c], 5 + (3 * c + cpu) % 7,
							     11 + (5 * c + 2 * cpu) % 13,
							     2 + (c + cpu) % 5 };
	}
	run_jobs(m, jobs, CHILDREN * CPUS);
	msim_clock_advance(m, 2ULL * cfg.hz);    /* the periodic flush */
	for (unsigned int cpu = 0; cpu < CPUS; cpu++)
		jobs[cpu] = (struct job){ m, child[0], 0, late / CPUS + (cpu < late % CPUS), 0 };
	run_jobs(m, jobs, CPUS);
	for (unsigned int c = 0; c < CHILDREN; c++)
		assert_int_equal(msim_memcg_rmdir(child[c]), 0);
	selftest_read(m, parent, r);
	free(jobs);
	msim_destroy(m);
}

static void within_bound(void **state)
{
	struct read r;

	(void)state;
	selftest(MSIM_MEMCG_CHARGE_BATCH, 320, &r);
	assert_int_equal(r.gated_skipped, 1);
	assert_int_equal(r.gated_ran, 0);
	assert_int_equal(r.discrepancy, 320);
	assert_true(r.discrepancy < BOUND_PAGES);           /* the selftest passes */
	assert_false(r.discrepancy < MSIM_MEMCG_CHARGE_BATCH); /* one batch: it would not */
}

static void flushed_exact(void **state)
{
	struct read r;

	(void)state;
	selftest(MSIM_MEMCG_CHARGE_BATCH, 2000, &r);
	assert_int_equal(r.gated_skipped, 0);
	assert_int_equal(r.discrepancy, 0);
}

static void raised_threshold(void **state)
{
	struct read r;

	(void)state;
	selftest(1024, 2000, &r);
	assert_int_equal(r.gated_skipped, 1);
	assert_int_equal(r.discrepancy, 2000);
	assert_false(r.discrepancy < BOUND_PAGES);          /* the selftest fails */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(within_bound),
		cmocka_unit_test(flushed_exact),
		cmocka_unit_test(raised_threshold),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
