/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the NMI-safe memcg stats (variant nmi-stats, src/rstat/nmi*.c):
 * in NMI under nmi-stats=atomic the slab and kmem updates are staged in atomics
 * after the rstat enqueue and count nothing towards the flush threshold; the
 * next flush visit drains them into the aggregate, state_local, the memcg-level
 * vmstats and the parent's pending; under nmi-stats=percpu, and outside NMI,
 * they are the ordinary write paths. And window R10: a flush that pops the memcg
 * between the NMI's enqueue and its atomic_add leaves the delta staged until a
 * later ordinary update enqueues the memcg again.
 */
#include <errno.h>
#include <string.h>

#include <memcgsim/introspect.h>

#include "unit_util.h"

#define SLAB MSIM_NR_SLAB_UNRECLAIMABLE_B

struct nmi_test {
	struct msim *m;
	struct msim_memcg *root, *p, *c;
	struct msim_task *task, *nmi, *flusher;
	long nmi_slab;
};

static void nmi_fn(void *arg)
{
	struct nmi_test *t = arg;

	assert_int_equal(msim_account_slab_nmi_safe(t->c, 0, SLAB, t->nmi_slab), 0);
	assert_int_equal(msim_account_kmem_nmi_safe(t->c, 1), 0);
}

static void task_fn(void *arg)
{
	struct nmi_test *t = arg;

	assert_int_equal(msim_account_slab_nmi_safe(t->c, 0, SLAB, 4096), 0);
}

static void flusher_fn(void *arg)
{
	struct nmi_test *t = arg;

	msim_mem_cgroup_flush_stats_forced(t->c);
}

static void make(struct nmi_test *t, const char *nmi_stats)
{
	struct msim_config cfg = unit_config(2, 1);
	char err[256];

	assert_int_equal(msim_variant_set(&cfg.variants, nmi_stats, err, sizeof(err)), 0);
	memset(t, 0, sizeof(*t));
	t->m = unit_host_cfg(&cfg);
	assert_int_equal(msim_rstat_init(t->m, NULL), 0);
	msim_rstat_periodic_flush_enable(t->m, false);
	t->root = msim_root_mem_cgroup(t->m);
	t->p = unit_mkdir(t->root, "p");
	t->c = unit_mkdir(t->p, "c");
	t->nmi_slab = 512;
	t->task = msim_task_create(t->m, "task", 0, task_fn, t);
	t->nmi = msim_irq_source_create(t->m, "nmi", 0, MSIM_CTX_NMI, 2, nmi_fn, t);
	t->flusher = msim_task_create(t->m, "flusher", 1, flusher_fn, t);
	assert_non_null(t->task);
	assert_non_null(t->nmi);
	assert_non_null(t->flusher);
}

static long staged(struct nmi_test *t)
{
	return msim_memcg_nmi_staged(t->c, 0, SLAB);
}

/* The NMI lands at the task's first yield point and runs through. */
static void nmi_now(struct nmi_test *t)
{
	assert_int_equal(msim_run_until(t->m, t->task, "this_cpu_add", 1), 0);
	assert_int_equal(msim_irq_raise(t->m, t->nmi), 0);
	assert_int_equal(msim_run_task(t->m, t->nmi), 0);
}

static void test_atomic_stages_then_drains(void **state)
{
	struct nmi_test t;
	struct msim_lruvec *lv;

	make(&t, "nmi-stats=atomic");
	lv = msim_mem_cgroup_lruvec(t.m, t.c, 0);
	nmi_now(&t);
	assert_int_equal(staged(&t), 512);
	assert_int_equal(msim_memcg_nmi_staged(t.c, 0, MSIM_MEMCG_KMEM), 1);
	/* not in the per-CPU counters, no flush-threshold accounting */
	assert_int_equal(msim_memcg_state_cpu(t.c, 0, SLAB), 0);
	assert_int_equal(msim_memcg_stats_updates_cpu(t.c, 0), 0);
	assert_int_equal(msim_run(t.m), 0);
	assert_int_equal(staged(&t), 0);
	assert_int_equal(msim_memcg_nmi_staged(t.c, 0, MSIM_MEMCG_KMEM), 0);
	assert_int_equal(msim_lruvec_stat_raw(lv, MSIM_STAT_STATE, SLAB), 4608);
	assert_int_equal(msim_lruvec_stat_raw(lv, MSIM_STAT_LOCAL, SLAB), 4608);
	assert_int_equal(msim_memcg_stat_raw(t.c, MSIM_STAT_STATE, SLAB), 4608);
	assert_int_equal(msim_memcg_stat_raw(t.c, MSIM_STAT_LOCAL, MSIM_MEMCG_KMEM), 1);
	/* c's own flush leaves p's share pending (R8); p's flush folds it */
	assert_int_equal(msim_memcg_stat_raw(t.p, MSIM_STAT_PENDING, SLAB), 4608);
	msim_mem_cgroup_flush_stats_forced(t.p);
	assert_int_equal(msim_memcg_stat_raw(t.p, MSIM_STAT_STATE, SLAB), 4608);
	assert_int_equal(msim_memcg_stat_raw(t.p, MSIM_STAT_STATE, MSIM_MEMCG_KMEM), 1);
	msim_destroy(t.m);
}

static void test_percpu_is_the_ordinary_path(void **state)
{
	struct nmi_test t;

	make(&t, "nmi-stats=percpu");
	nmi_now(&t);
	assert_int_equal(staged(&t), 0);
	assert_int_equal(msim_memcg_state_cpu(t.c, 0, SLAB), 512);
	assert_int_equal(msim_memcg_state_cpu(t.c, 0, MSIM_MEMCG_KMEM), 1);
	assert_int_equal(msim_run(t.m), 0);
	assert_int_equal(msim_memcg_stat_raw(t.c, MSIM_STAT_STATE, SLAB), 4608);
	msim_destroy(t.m);
}

static bool at_atomic_add(const struct msim_task *task, const struct msim_task_where *w,
			  void *arg)
{
	return !strcmp(w->point, "rstat.nmi.atomic_add");
}

/* R10: the flush pops c between the NMI's enqueue and its atomic_add. */
static void test_r10_stranded_until_next_update(void **state)
{
	struct nmi_test t;

	make(&t, "nmi-stats=atomic");
	t.nmi_slab = 300;
	assert_int_equal(msim_run_until(t.m, t.task, "this_cpu_add", 1), 0);
	assert_int_equal(msim_irq_raise(t.m, t.nmi), 0);
	assert_int_equal(msim_run_until_fn(t.m, t.nmi, at_atomic_add, NULL), 0);
	assert_true(msim_rstat_updated_list_len(t.m, 0) == 1);  /* c queued by the NMI */
	assert_int_equal(msim_run_task(t.m, t.flusher), 0);      /* pops c, drains 0 */
	assert_int_equal(msim_rstat_updated_list_len(t.m, 0), 0);
	assert_int_equal(msim_run_task(t.m, t.nmi), 0);          /* adds 300, then kmem */
	/* the kmem part enqueued c again (the NMI's second update); slab and kmem wait */
	assert_int_equal(staged(&t), 300);
	/* the task's update and a flush: everything drains */
	assert_int_equal(msim_run_task(t.m, t.task), 0);
	msim_mem_cgroup_flush_stats_forced(t.root);
	assert_int_equal(staged(&t), 0);
	assert_int_equal(msim_memcg_stat_raw(t.c, MSIM_STAT_STATE, SLAB), 4396);
	msim_destroy(t.m);
}

/* With only the slab update, the stranded delta survives every flush until an update. */
static void slab_only_nmi(void *arg)
{
	struct nmi_test *t = arg;

	msim_account_slab_nmi_safe(t->c, 0, SLAB, 300);
}

static void test_r10_flush_alone_does_not_drain(void **state)
{
	struct nmi_test t;
	struct msim_task *nmi;

	make(&t, "nmi-stats=atomic");
	nmi = msim_irq_source_create(t.m, "nmi-slab", 0, MSIM_CTX_NMI, 1, slab_only_nmi, &t);
	assert_int_equal(msim_run_until(t.m, t.task, "this_cpu_add", 1), 0);
	assert_int_equal(msim_irq_raise(t.m, nmi), 0);
	assert_int_equal(msim_run_until_fn(t.m, nmi, at_atomic_add, NULL), 0);
	assert_int_equal(msim_run_task(t.m, t.flusher), 0);
	assert_int_equal(msim_run_task(t.m, nmi), 0);
	msim_mem_cgroup_flush_stats_forced(t.root);
	assert_int_equal(staged(&t), 300);                       /* stranded (R10) */
	assert_int_equal(msim_memcg_stat_raw(t.c, MSIM_STAT_STATE, SLAB), 0);
	assert_int_equal(msim_run_task(t.m, t.task), 0);         /* enqueues c */
	msim_mem_cgroup_flush_stats_forced(t.root);
	assert_int_equal(staged(&t), 0);
	assert_int_equal(msim_memcg_stat_raw(t.c, MSIM_STAT_STATE, SLAB), 4396);
	msim_destroy(t.m);
}

static void test_bad_arguments(void **state)
{
	struct nmi_test t;

	make(&t, "nmi-stats=atomic");
	assert_int_equal(msim_account_slab_nmi_safe(t.c, 0, MSIM_NR_FILE_PAGES, 1), -EINVAL);
	assert_int_equal(msim_account_slab_nmi_safe(t.c, 1, SLAB, 1), -EINVAL);
	assert_int_equal(msim_account_slab_nmi_safe(NULL, 0, SLAB, 1), -EINVAL);
	assert_int_equal(msim_account_kmem_nmi_safe(NULL, 1), -EINVAL);
	assert_int_equal(msim_rstat_updated_list_len(t.m, 2), -EINVAL);
	/* outside NMI: the ordinary path, from the driver too */
	assert_int_equal(msim_account_kmem_nmi_safe(t.c, 2), 0);
	assert_int_equal(msim_memcg_nmi_staged(t.c, 0, MSIM_MEMCG_KMEM), 0);
	assert_int_equal(msim_memcg_state_cpu(t.c, 0, MSIM_MEMCG_KMEM), 2);
	assert_int_equal(msim_run(t.m), 0);
	msim_destroy(t.m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_atomic_stages_then_drains),
		cmocka_unit_test(test_percpu_is_the_ordinary_path),
		cmocka_unit_test(test_r10_stranded_until_next_update),
		cmocka_unit_test(test_r10_flush_alone_does_not_drain),
		cmocka_unit_test(test_bad_arguments),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
