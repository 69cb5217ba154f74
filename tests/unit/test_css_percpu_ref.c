/* SPDX-License-Identifier: MIT */
/*
 * test_css_percpu_ref.c - css and obj_cgroup references as percpu_refs
 * (src/memcg/pcpu_ref.c): per-CPU counting while online, where no put
 * releases; the kill folds the CPUs' counters into one atomic count, and the
 * release comes exactly at the put that brings that count to 0; the root's css
 * (CSS_NO_REF) counts nothing.
 *
 * Each reference is taken or put by a task pinned to a CPU (msim_run_task), so
 * the per-CPU counters the kernel would touch are the ones checked.
 */
#include "unit_util.h"

#include <memcgsim/objcg.h>
#include <memcgsim/introspect.h>

#include "memcg/memcg_internal.h"
#include "memcg/objcg_internal.h"

enum ref_op { CSS_GET, CSS_PUT, CSS_TRYGET };

struct ref_task {
	struct msim_memcg *memcg;
	enum ref_op op;
	bool got;
};

static void ref_task_fn(void *arg)
{
	struct ref_task *t = arg;

	switch (t->op) {
	case CSS_GET: msim_css_get(t->memcg); break;
	case CSS_PUT: msim_css_put(t->memcg); break;
	case CSS_TRYGET: t->got = msim_css_tryget(t->memcg); break;
	}
}

/* One css operation, run to completion by a task on cpu. */
static bool css_op_on(struct msim *m, struct msim_memcg *memcg, enum ref_op op, unsigned int cpu)
{
	struct ref_task t = { .memcg = memcg, .op = op };
	struct msim_task *task = msim_task_create(m, "css_ref", cpu, ref_task_fn, &t);

	assert_non_null(task);
	assert_int_equal(msim_run_task(m, task), 0);
	return t.got;
}

static void assert_pcpu(const struct msim_memcg *memcg, const long *want, unsigned int n)
{
	assert_non_null(memcg->css_ref.pcpu);
	for (unsigned int cpu = 0; cpu < n; cpu++)
		assert_int_equal(memcg->css_ref.pcpu[cpu], want[cpu]);
}

/*
 * mkdir's get for the private id runs on the driver (CPU 0). Gets on CPUs 0-2,
 * one of them put on CPU 3: the counters read 2 1 1 -1 and the shared word keeps
 * the base reference alone. rmdir: offline puts the id's reference (CPU 0's
 * counter, still percpu), then the kill folds the counters (1 + 2) and puts the
 * base reference (2 left); the puts on CPUs 1 and 2 release at the second, not
 * before.
 */
static void kill_folds_and_last_put_releases(void **st)
{
	struct msim *m = unit_host(4, 1);
	struct msim_memcg *c = unit_mkdir(msim_root_mem_cgroup(m), "c");

	(void)st;
	assert_pcpu(c, (const long[]){ 1, 0, 0, 0 }, 4);
	css_op_on(m, c, CSS_GET, 0);
	css_op_on(m, c, CSS_GET, 1);
	css_op_on(m, c, CSS_GET, 2);
	css_op_on(m, c, CSS_PUT, 3);
	assert_pcpu(c, (const long[]){ 2, 1, 1, -1 }, 4);
	assert_int_equal(c->css_ref.count, 1 | MSIM__PCPU_REF_PERCPU);
	assert_int_equal(msim__pcpu_ref_total(&c->css_ref), 4);

	assert_int_equal(msim_memcg_rmdir(c), 0);
	assert_true(msim__pcpu_ref_is_atomic(&c->css_ref));
	assert_int_equal(c->css_ref.count, 2);
	assert_int_equal(msim_memcg_state(c), MSIM_MEMCG_OFFLINE);
	css_op_on(m, c, CSS_PUT, 1);
	assert_int_equal(c->css_ref.count, 1);
	assert_int_equal(msim_memcg_state(c), MSIM_MEMCG_OFFLINE);
	css_op_on(m, c, CSS_PUT, 2);
	assert_int_equal(msim_memcg_state(c), MSIM_MEMCG_RELEASED);
	msim_memcg_drain(m);
	assert_int_equal(msim_memcg_state(c), MSIM_MEMCG_FREED);
	msim_destroy(m);
}

/* In percpu mode no put releases, even one that leaves its CPU's counter below 0. */
static void percpu_puts_never_release(void **st)
{
	struct msim *m = unit_host(2, 1);
	struct msim_memcg *c = unit_mkdir(msim_root_mem_cgroup(m), "c");

	(void)st;
	css_op_on(m, c, CSS_GET, 0);
	css_op_on(m, c, CSS_PUT, 1);
	css_op_on(m, c, CSS_GET, 0);
	css_op_on(m, c, CSS_PUT, 1);
	assert_int_equal(c->css_ref.pcpu[1], -2);
	assert_int_equal(msim_memcg_state(c), MSIM_MEMCG_ONLINE);
	assert_true(css_op_on(m, c, CSS_TRYGET, 1));
	assert_int_equal(msim__pcpu_ref_total(&c->css_ref), 3); /* base, id, the tryget */
	css_op_on(m, c, CSS_PUT, 0);
	assert_int_equal(msim_memcg_rmdir(c), 0);
	msim_memcg_drain(m);
	assert_int_equal(msim_memcg_state(c), MSIM_MEMCG_FREED);
	msim_destroy(m);
}

/* The root's css is CSS_NO_REF: gets, trygets and puts write nothing, release nothing. */
static void root_css_refs_change_nothing(void **st)
{
	struct msim *m = unit_host(2, 1);
	struct msim_memcg *root = msim_root_mem_cgroup(m);
	const long word = root->css_ref.count;

	(void)st;
	assert_int_equal(word, 1 | MSIM__PCPU_REF_NOREF);
	assert_null(root->css_ref.pcpu);
	for (unsigned int cpu = 0; cpu < 2; cpu++) {
		css_op_on(m, root, CSS_GET, cpu);
		assert_true(css_op_on(m, root, CSS_TRYGET, cpu));
		css_op_on(m, root, CSS_PUT, cpu);
		css_op_on(m, root, CSS_PUT, cpu); /* more puts than gets: still nothing */
		css_op_on(m, root, CSS_PUT, cpu);
	}
	assert_true(msim_css_tryget_online(root));
	assert_int_equal(root->css_ref.count, word);
	assert_int_equal(msim_memcg_state(root), MSIM_MEMCG_ONLINE);
	msim_destroy(m);
}

/* An objcg: per-CPU counting until offline kills it; the last put releases it. */
static void objcg_kill_folds(void **st)
{
	struct msim *m = unit_host(2, 1);
	struct msim_memcg *c;
	struct msim_obj_cgroup *objcg;
	struct msim_objcg_counts n;
	char err[256];

	(void)st;
	assert_int_equal(msim_subsys_attach(m, msim_subsys_find("objcg"), err, sizeof(err)), 0);
	c = unit_mkdir(msim_root_mem_cgroup(m), "c");
	objcg = msim_memcg_objcg(c, 0);
	msim_obj_cgroup_get(objcg);                  /* driver: CPU 0 */
	assert_true(msim_obj_cgroup_tryget(objcg));
	assert_int_equal(objcg->refcnt.count, 1 | MSIM__PCPU_REF_PERCPU);
	assert_int_equal(objcg->refcnt.pcpu[0], 3); /* orig_objcg's get ran here too */
	assert_int_equal(msim_obj_cgroup_refcount(objcg), 4); /* + orig_objcg's */
	assert_int_equal(msim_memcg_rmdir(c), 0);
	assert_true(msim_obj_cgroup_killed(objcg));
	/* folded (1 + 3), the initial reference dropped */
	assert_int_equal(objcg->refcnt.count, 3);
	msim_obj_cgroup_put(objcg);
	msim_obj_cgroup_put(objcg);
	assert_int_equal(msim_obj_cgroup_refcount(objcg), 1); /* orig_objcg's */
	msim_objcg_counts(m, &n);
	assert_int_equal(n.released_total, 0);
	msim_destroy(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(kill_folds_and_last_put_releases),
		cmocka_unit_test(percpu_puts_never_release),
		cmocka_unit_test(root_css_refs_change_nothing),
		cmocka_unit_test(objcg_kill_folds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
