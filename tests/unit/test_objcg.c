/* SPDX-License-Identifier: MIT */
/*
 * test_objcg.c - object cgroups (objcg.h): one per memcg per node, the root's
 * included; the reference count through online, offline and free; offline
 * repointing a memcg's objcgs (and those it inherited) to the parent; the lookup
 * that walks up from a dying memcg; a release that finds objcg_lock held.
 */
#include "unit_util.h"

#include <memcgsim/objcg.h>
#include <memcgsim/introspect.h>

static struct msim *objcg_host(unsigned int nodes)
{
	struct msim *m = unit_host(4, nodes);
	char err[256];

	assert_int_equal(msim_subsys_attach(m, msim_subsys_find("objcg"), err, sizeof(err)), 0);
	return m;
}

static void rmdir_ok(struct msim_memcg *memcg)
{
	assert_int_equal(msim_memcg_rmdir(memcg), 0);
}

static void per_node_objcgs_root_included(void **st)
{
	struct msim *m = objcg_host(2);
	struct msim_memcg *root = msim_root_mem_cgroup(m);
	struct msim_memcg *c = unit_mkdir(root, "c");
	struct msim_memcg *memcgs[] = { root, c };
	struct msim_objcg_counts n;

	(void)st;
	for (unsigned int i = 0; i < 2; i++) {
		for (unsigned int nid = 0; nid < 2; nid++) {
			struct msim_obj_cgroup *objcg = msim_memcg_objcg(memcgs[i], nid);

			assert_non_null(objcg);
			assert_ptr_equal(objcg, msim_memcg_orig_objcg(memcgs[i], nid));
			assert_ptr_equal(msim_obj_cgroup_memcg(objcg), memcgs[i]);
			assert_int_equal(msim_obj_cgroup_is_root(objcg), memcgs[i] == root);
			assert_int_equal(msim_obj_cgroup_nid(objcg), nid);
			/* the initial reference and orig_objcg's */
			assert_int_equal(msim_obj_cgroup_refcount(objcg), 2);
			assert_false(msim_obj_cgroup_killed(objcg));
		}
	}
	assert_ptr_not_equal(msim_memcg_objcg(c, 0), msim_memcg_objcg(c, 1));
	msim_objcg_counts(m, &n);
	assert_int_equal(n.live, 4);
	assert_int_equal(n.allocated_total, 4);
	msim_destroy(m);
}

static void get_from_memcg_takes_a_reference(void **st)
{
	struct msim *m = objcg_host(1);
	struct msim_memcg *c = unit_mkdir(msim_root_mem_cgroup(m), "c");
	struct msim_obj_cgroup *objcg;

	(void)st;
	objcg = msim_get_obj_cgroup_from_memcg(c, 0);
	assert_ptr_equal(objcg, msim_memcg_objcg(c, 0));
	assert_int_equal(msim_obj_cgroup_refcount(objcg), 3);
	assert_true(msim_obj_cgroup_tryget(objcg));
	assert_int_equal(msim_obj_cgroup_refcount(objcg), 4);
	msim_obj_cgroup_put(objcg);
	msim_obj_cgroup_put(objcg);
	assert_int_equal(msim_obj_cgroup_refcount(objcg), 2);
	assert_null(msim_get_obj_cgroup_from_memcg(c, 1));   /* no node 1 */
	msim_destroy(m);
}

/*
 * root -> p -> c; a holder (a charged folio) keeps c's node objcgs. rmdir c: they
 * read p and sit on p's list; rmdir p: c's and p's read root and sit on root's.
 */
static void offline_repoints_to_the_parent_chain(void **st)
{
	struct msim *m = objcg_host(2);
	struct msim_memcg *root = msim_root_mem_cgroup(m);
	struct msim_memcg *p = unit_mkdir(root, "p");
	struct msim_memcg *c = unit_mkdir(p, "c");
	struct msim_obj_cgroup *held[2], *pobjcg[2], *walk;
	struct msim_objcg_counts n;

	(void)st;
	for (unsigned int nid = 0; nid < 2; nid++) {
		held[nid] = msim_get_obj_cgroup_from_memcg(c, nid);
		pobjcg[nid] = msim_memcg_objcg(p, nid);
	}
	rmdir_ok(c);
	for (unsigned int nid = 0; nid < 2; nid++) {
		assert_null(msim_memcg_objcg(c, nid));
		assert_ptr_equal(msim_obj_cgroup_memcg(held[nid]), p);
		assert_true(msim_obj_cgroup_killed(held[nid]));
		assert_int_equal(msim_memcg_objcg_list_count(p, nid), 1);
	}
	/* a dying memcg's lookup walks to the parent's objcg */
	walk = msim_get_obj_cgroup_from_memcg(c, 1);
	assert_ptr_equal(walk, pobjcg[1]);
	msim_obj_cgroup_put(walk);
	msim_memcg_drain(m);                /* c freed: orig_objcg put */
	assert_int_equal(msim_memcg_state(c), MSIM_MEMCG_FREED);
	assert_int_equal(msim_obj_cgroup_refcount(held[0]), 1);

	rmdir_ok(p);
	for (unsigned int nid = 0; nid < 2; nid++) {
		assert_ptr_equal(msim_obj_cgroup_memcg(held[nid]), root);
		assert_ptr_equal(msim_obj_cgroup_memcg(pobjcg[nid]), root);
		assert_int_equal(msim_memcg_objcg_list_count(root, nid), 2);
	}
	msim_objcg_counts(m, &n);
	assert_int_equal(n.reparented_total, 2 + 4);   /* c: 1 per node; p: its own + c's */
	msim_memcg_drain(m);
	for (unsigned int nid = 0; nid < 2; nid++) {
		assert_int_equal(msim_memcg_objcg_list_count(root, nid), 1);  /* p's released */
		msim_obj_cgroup_put(held[nid]);                               /* the last: released */
		assert_int_equal(msim_memcg_objcg_list_count(root, nid), 0);
	}
	msim_objcg_counts(m, &n);
	assert_int_equal(n.live, 2);                   /* the root's */
	assert_int_equal(n.released_total, 4);
	assert_int_equal(n.deferred_releases, 0);
	msim_destroy(m);
}

static struct msim_memcg *victim;

static void do_rmdir(void *arg)
{
	(void)arg;
	assert_int_equal(msim_memcg_rmdir(victim), 0);
}

/*
 * The driver drops the last reference of a reparented objcg while a task's
 * offline holds objcg_lock (parked mid-repoint): the release is deferred and the
 * task's unlock finishes it.
 */
static void release_deferred_while_objcg_lock_is_held(void **st)
{
	struct msim *m = objcg_host(1);
	struct msim_memcg *p = unit_mkdir(msim_root_mem_cgroup(m), "p");
	struct msim_memcg *d = unit_mkdir(p, "d");
	struct msim_obj_cgroup *dobjcg = msim_get_obj_cgroup_from_memcg(d, 0);
	struct msim_objcg_counts n;
	struct msim_task *t;

	(void)st;
	victim = unit_mkdir(p, "c");
	rmdir_ok(d);
	msim_memcg_drain(m);
	assert_int_equal(msim_obj_cgroup_refcount(dobjcg), 1);     /* ours alone */
	t = msim_task_create(m, "rmdir", 0, do_rmdir, NULL);
	msim_step(m, t, 1000);                                      /* blocks in synchronize_rcu */
	assert_true(msim_rcu_step(m));
	assert_int_equal(msim_run_until(m, t, "objcg.memcg.write", 1), 0);
	msim_obj_cgroup_put(dobjcg);
	msim_objcg_counts(m, &n);
	assert_int_equal(n.deferred_releases, 1);
	assert_int_equal(n.released_total, 1);
	assert_int_equal(msim_run_task(m, t), 0);
	/* d's objcg left p's list when the task unlocked; c's joined it */
	assert_int_equal(msim_memcg_objcg_list_count(p, 0), 1);
	assert_ptr_equal(msim_obj_cgroup_memcg(msim_memcg_orig_objcg(victim, 0)), p);
	msim_destroy(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(per_node_objcgs_root_included),
		cmocka_unit_test(get_from_memcg_takes_a_reference),
		cmocka_unit_test(offline_repoints_to_the_parent_chain),
		cmocka_unit_test(release_deferred_while_objcg_lock_is_held),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
