/* SPDX-License-Identifier: MIT */
/*
 * test_memcg_iter.c - msim_mem_cgroup_iter (src/memcg/iter.c), deterministic mode.
 *
 *   preorder                      root, a, a1, a2, b, b1; a subtree alone
 *   rmdired_visible_until_released  an rmdir'ed memcg pinned by someone is returned
 *   stand_on_rmdired              the iterator's prev is rmdir'ed, its sibling freed
 *   stand_on_unlinked             prev unlinked (failed mkdir): serial order finds
 *                                 the sibling added after it; next_sibling would not
 *   iter_break_drops_ref          break puts prev: the memcg can be freed
 *   many_cgroups                  2000 memcgs, each once, in serial order
 *   explore_iter_vs_rmdir         random and PCT schedules of mkdir/rmdir against an
 *                                 iterator: never a freed memcg, stable ones always
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <memcgsim/memcgsim.h>

#include "memcg/memcg_internal.h"

#include "unit_util.h"

/* Names of a full walk from root, space separated. */
static const char *walk(struct msim_memcg *root)
{
	static char buf[1024];
	struct msim_memcg *pos = NULL;

	buf[0] = 0;
	while ((pos = msim_mem_cgroup_iter(root, pos))) {
		if (buf[0])
			strcat(buf, " ");
		strcat(buf, msim_memcg_name(pos));
	}
	return buf;
}

struct tree {
	struct msim_memcg *root, *a, *a1, *a2, *b, *b1;
};

static void tree_build(struct msim *m, struct tree *t)
{
	t->root = msim_root_mem_cgroup(m);
	t->a = unit_mkdir(t->root, "a");
	t->b = unit_mkdir(t->root, "b");
	t->a1 = unit_mkdir(t->a, "a1");
	t->b1 = unit_mkdir(t->b, "b1");
	t->a2 = unit_mkdir(t->a, "a2");
}

static void preorder(void **state)
{
	struct msim *m = unit_host(2, 1);
	struct tree t;

	tree_build(m, &t);
	assert_string_equal(walk(t.root), "/ a a1 a2 b b1");
	assert_string_equal(walk(t.a), "a a1 a2");
	assert_string_equal(walk(t.b1), "b1");
	msim_destroy(m);
}

static void rmdired_visible_until_released(void **state)
{
	struct msim *m = unit_host(2, 1);
	struct tree t;

	tree_build(m, &t);
	msim_css_get(t.a1);
	assert_int_equal(msim_memcg_rmdir(t.a1), 0);
	assert_int_equal(msim_memcg_state(t.a1), MSIM_MEMCG_OFFLINE);
	assert_string_equal(walk(t.root), "/ a a1 a2 b b1");
	msim_css_put(t.a1);
	/* Released: still linked until its release work runs, but tryget fails. */
	assert_int_equal(msim_memcg_state(t.a1), MSIM_MEMCG_RELEASED);
	assert_string_equal(walk(t.root), "/ a a2 b b1");
	msim_memcg_drain(m);
	assert_string_equal(walk(t.root), "/ a a2 b b1");
	msim_destroy(m);
}

static void stand_on_rmdired(void **state)
{
	struct msim *m = unit_host(2, 1);
	struct msim_memcg *pos;
	struct tree t;

	tree_build(m, &t);
	pos = msim_mem_cgroup_iter(t.root, NULL);
	pos = msim_mem_cgroup_iter(t.root, pos);
	pos = msim_mem_cgroup_iter(t.root, pos);
	assert_ptr_equal(pos, t.a1);
	assert_int_equal(msim_memcg_rmdir(t.a1), 0);
	assert_int_equal(msim_memcg_rmdir(t.a2), 0);
	msim_memcg_drain(m);
	assert_int_equal(msim_memcg_state(t.a1), MSIM_MEMCG_OFFLINE); /* we pin it */
	pos = msim_mem_cgroup_iter(t.root, pos); /* a2 is gone */
	assert_ptr_equal(pos, t.b);
	assert_int_equal(msim_memcg_state(t.a1), MSIM_MEMCG_RELEASED);
	pos = msim_mem_cgroup_iter(t.root, pos);
	assert_ptr_equal(pos, t.b1);
	assert_null(msim_mem_cgroup_iter(t.root, pos));
	msim_memcg_drain(m);
	assert_string_equal(walk(t.root), "/ a b b1");
	msim_destroy(m);
}

/* ---- prev unlinked under the iterator ---- */

static struct msim_memcg *pinned;
static bool pin_enabled;

/* css_online of a set that fails, after pinning the new memcg through the iterator. */
static int pin_then_fail(struct msim_memcg *memcg, void *priv)
{
	struct msim_memcg *root = priv, *pos = NULL;

	if (!pin_enabled)
		return 0;
	while ((pos = msim_mem_cgroup_iter(root, pos)) && pos != memcg)
		;
	pinned = pos; /* the walk stops here, holding a reference */
	return -EIO;
}

/*
 * The iterator stands on x when x leaves its parent's list:
 *
 *   iterator                           | mkdir
 *   pos = x (css_tryget)               |
 *                                      | x: css_online fails, list_del_rcu(x)
 *                                      | mkdir y (appended after a, serial > x)
 *   next = css_next_child(x, root)     |
 *
 * x->next_sibling was NULL when x left (x was last), so following it would end
 * the walk and miss y; the kernel's rule for a released pos (first child with a
 * higher serial) finds y.
 */
static void stand_on_unlinked(void **state)
{
	struct msim *m = unit_host(2, 1);
	struct msim_memcg *root = msim_root_mem_cgroup(m), *x = NULL, *y, *pos;
	struct msim_memcg_hooks hk = { .name = "pin", .order = 1, .css_online = pin_then_fail };

	hk.priv = root;
	assert_int_equal(msim_memcg_register_hooks(m, &hk), 0); /* runs on the root */
	unit_mkdir(root, "a");
	pin_enabled = true;
	assert_int_equal(msim_memcg_create(root, "x", &x), -EIO);
	assert_non_null(pinned);
	assert_string_equal(msim_memcg_name(pinned), "x");
	assert_false(pinned->linked);
	/* Bad side: the unlinked node's own next pointer leads nowhere. */
	assert_null(__atomic_load_n(&pinned->next_sibling, __ATOMIC_ACQUIRE));
	pin_enabled = false;
	y = unit_mkdir(root, "y");
	/* Fixed side: the serial order gives y. */
	pos = msim_mem_cgroup_iter(root, pinned);
	assert_ptr_equal(pos, y);
	msim_mem_cgroup_iter_break(root, pos);
	msim_memcg_drain(m);
	assert_string_equal(walk(root), "/ a y");
	msim_destroy(m);
}

static void iter_break_drops_ref(void **state)
{
	struct msim *m = unit_host(2, 1);
	struct msim_memcg_counts c;
	struct msim_memcg *pos;
	struct tree t;

	tree_build(m, &t);
	pos = msim_mem_cgroup_iter(t.root, NULL);
	pos = msim_mem_cgroup_iter(t.root, pos);
	assert_ptr_equal(pos, t.a);
	msim_mem_cgroup_iter_break(t.root, pos);
	assert_int_equal(msim_memcg_rmdir(t.a1), 0);
	assert_int_equal(msim_memcg_rmdir(t.a2), 0);
	assert_int_equal(msim_memcg_rmdir(t.a), 0);
	msim_memcg_drain(m);
	msim_memcg_counts(m, &c);
	assert_int_equal(c.freed_total, 3);
	assert_int_equal(c.online, 3);
	msim_destroy(m);
}

static void many_cgroups(void **state)
{
	struct msim *m = unit_host(2, 1);
	struct msim_memcg *root = msim_root_mem_cgroup(m), *pos = NULL, *parent = root;
	uint64_t expect = 0;
	unsigned int i, n = 0;

	/* 40 parents with 49 children each: 2000 memcgs below the root. */
	for (i = 0; i < 2000; i++) {
		struct msim_memcg *x = unit_mkdir(i % 50 ? parent : root, NULL);

		if (i % 50 == 0)
			parent = x;
	}
	/* Each parent's children come right after it: the walk is in serial order. */
	while ((pos = msim_mem_cgroup_iter(root, pos))) {
		assert_int_equal(msim_memcg_serial(pos), expect);
		expect++;
		n++;
	}
	assert_int_equal(n, 2001);
	msim_destroy(m);
}

/* ---- explored: mkdir/rmdir against an iterator ---- */

struct ex {
	struct msim_memcg *root, *p, *s1, *s3;
	unsigned int bad;       /* returned memcgs that failed the check */
	unsigned int missed;    /* passes that missed a stable memcg */
	unsigned int unordered; /* siblings out of serial order */
	unsigned int passes;
};

static struct ex ex;

static void ex_churn(void *arg)
{
	struct msim_memcg *x = NULL;
	int i;

	for (i = 0; i < 2; i++) {
		if (msim_memcg_create(ex.p, NULL, &x) == 0)
			msim_memcg_rmdir(x);
	}
}

static void ex_rmdir_s2(void *arg)
{
	msim_memcg_rmdir(arg);
}

static void ex_iter(void *arg)
{
	for (int pass = 0; pass < 2; pass++) {
		struct msim_memcg *pos = NULL;
		uint64_t last = 0;
		bool s1 = false, s3 = false;

		while ((pos = msim_mem_cgroup_iter(ex.p, pos))) {
			if (!msim__memcg_check(pos) || msim_memcg_state(pos) >= MSIM_MEMCG_RELEASED) {
				ex.bad++;
				continue;
			}
			if (pos != ex.p && msim_memcg_serial(pos) <= last)
				ex.unordered++;
			last = msim_memcg_serial(pos);
			s1 |= pos == ex.s1;
			s3 |= pos == ex.s3;
		}
		ex.missed += !(s1 && s3);
		ex.passes++;
	}
}

static int ex_setup(struct msim *m, void **state, void *arg)
{
	struct msim_memcg *s2 = NULL;

	memset(&ex, 0, sizeof(ex));
	ex.root = msim_root_mem_cgroup(m);
	if (msim_memcg_create(ex.root, "p", &ex.p) || msim_memcg_create(ex.p, "s1", &ex.s1) ||
	    msim_memcg_create(ex.p, "s2", &s2) || msim_memcg_create(ex.p, "s3", &ex.s3))
		return -ENOMEM;
	msim_task_create(m, "churn0", 0, ex_churn, NULL);
	msim_task_create(m, "rmdir-s2", 1, ex_rmdir_s2, s2);
	msim_task_create(m, "iter", 2, ex_iter, NULL);
	*state = &ex;
	return 0;
}

static bool ex_check(struct msim *m, void *state, char *why, size_t len)
{
	struct msim_memcg_counts c;

	msim_memcg_drain(m);
	msim_memcg_counts(m, &c);
	snprintf(why, len, "bad %u missed %u unordered %u passes %u online %lu freed %lu", ex.bad,
		 ex.missed, ex.unordered, ex.passes, c.online, c.freed_total);
	/* root, p, s1, s3 online; s2 and the two churned memcgs freed. */
	return ex.bad || ex.missed || ex.unordered || ex.passes != 2 || c.online != 4 ||
	       c.freed_total != 3;
}

static void explore_iter_vs_rmdir(void **state)
{
	struct msim_explore_target t = { .name = "iter-vs-rmdir", .setup = ex_setup,
					 .check = ex_check };
	enum msim_strategy s[] = { MSIM_STRAT_RANDOM, MSIM_STRAT_PCT };
	struct msim_explore_result r;
	struct msim_config cfg;

	msim_config_init(&cfg);
	cfg.nr_cpus = 3;
	for (int i = 0; i < 2; i++) {
		struct msim_explore_opts o = { .strategy = s[i], .seed = 11, .runs = 300,
					       .pct_depth = 3 };

		assert_int_equal(msim_explore(&t, &cfg, &o, &r), 0);
		if (r.violations)
			fprintf(stderr, "violation: %s\nschedule: %s\n", r.why, r.schedule);
		assert_int_equal(r.runs, 300);
		assert_int_equal(r.violations, 0);
		assert_false(r.deadlocked);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(preorder),
		cmocka_unit_test(rmdired_visible_until_released),
		cmocka_unit_test(stand_on_rmdired),
		cmocka_unit_test(stand_on_unlinked),
		cmocka_unit_test(iter_break_drops_ref),
		cmocka_unit_test(many_cgroups),
		cmocka_unit_test(explore_iter_vs_rmdir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
