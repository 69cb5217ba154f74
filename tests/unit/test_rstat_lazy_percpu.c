/* SPDX-License-Identifier: MIT */
/*
 * Per-CPU statistics cost the process memory only where a CPU updated them
 * (rstat core.h, stats.c): the kernel-memory model charges every CPU's copy of
 * every cgroup's per-CPU statistics, as the kernel allocates and writes them,
 * while the simulator's resident memory for a host of 1024 CPUs stays that of
 * its cgroups. Written eagerly, as before, the same host would add ~1.7 GiB.
 * And the statistics read the same as ever: a zeroed copy is the kernel's
 * initial state, and updates from every CPU flush to exact totals.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>

#include <memcgsim/memcgsim.h>
#include <memcgsim/kmem.h>
#include <memcgsim/rstat.h>
#include <memcgsim/script.h>

#define CPUS 1024
#define CGROUPS 500

static struct msim *host_new(unsigned int cpus)
{
	struct msim_config cfg;
	struct msim *m;
	char err[256];

	msim_config_init(&cfg);
	cfg.nr_cpus = cpus;
	cfg.nr_nodes = 2;
	cfg.mode = MSIM_DETERMINISTIC;
	if (msim_create(&cfg, &m, err, sizeof(err)))
		fail_msg("msim_create: %s", err);
	msim_set_current_host(m);
	assert_int_equal(msim_rstat_init(m, NULL), 0);
	return m;
}

static void idle_pairs_are_charged_but_not_resident(void **st)
{
	struct msim_kmem_totals t;
	struct msim_memcg *cg;
	struct msim *m;
	uint64_t rss0, held;

	msim_kmem_trim();
	rss0 = msim_kmem_process_rss();
	m = host_new(CPUS);
	for (unsigned int i = 0; i < CGROUPS; i++)
		assert_int_equal(msim_memcg_create(msim_root_mem_cgroup(m), NULL, &cg), 0);
	held = msim_kmem_process_rss() - rss0;
	msim_kmem_totals(m, &t);
	/* every CPU's copy is charged: ~3.5 KB per cgroup per CPU with 2 nodes ... */
	assert_true(t.percpu_bytes > (uint64_t)CGROUPS * CPUS * 2048);
	/* ... and not held: written at creation, those copies would be resident (> 1 GiB) */
	assert_true(held < 256ULL << 20);
	msim_destroy(m);
}

struct upd {
	struct msim_memcg *cg[4];
};

static void update_task(void *arg)
{
	struct upd *u = arg;

	for (unsigned int i = 0; i < 4; i++)
		msim_mod_memcg_state(u->cg[i], MSIM_NR_SHMEM, (long)i + 1);
}

/* Updates from every CPU of zeroed copies: exact totals after a flush. */
static void zeroed_copies_flush_exactly(void **st)
{
	struct msim *m = host_new(64);
	struct msim_memcg *parent;
	struct upd u;

	assert_int_equal(msim_memcg_create(msim_root_mem_cgroup(m), "p", &parent), 0);
	for (unsigned int i = 0; i < 4; i++)
		assert_int_equal(msim_memcg_create(parent, NULL, &u.cg[i]), 0);
	for (unsigned int cpu = 0; cpu < 64; cpu++) {
		struct msim_task *t = msim_task_create(m, "upd", cpu, update_task, &u);

		assert_non_null(t);
		assert_int_equal(msim_run_task(m, t), 0);
	}
	msim_mem_cgroup_flush_stats_forced(msim_root_mem_cgroup(m));
	for (unsigned int i = 0; i < 4; i++)
		assert_int_equal(msim_memcg_page_state(u.cg[i], MSIM_NR_SHMEM), 64 * ((long)i + 1));
	assert_int_equal(msim_memcg_page_state(parent, MSIM_NR_SHMEM), 64 * (1 + 2 + 3 + 4));
	msim_destroy(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(idle_pairs_are_charged_but_not_resident),
		cmocka_unit_test(zeroed_copies_flush_exactly),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
