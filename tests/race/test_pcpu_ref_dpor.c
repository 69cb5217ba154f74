/* SPDX-License-Identifier: MIT */
/*
 * test_pcpu_ref_dpor.c - what DPOR sees of css and obj_cgroup references, the
 * kernel's percpu_refs (src/memcg/pcpu_ref.c), on toys explored with no
 * preemption bound to exhaustion by DFS and by DPOR:
 *
 *  - two tasks on CPUs 0 and 1 each take and drop a reference. Online (percpu
 *    mode) each writes its own CPU's counter: the steps commute, DPOR runs one
 *    schedule. Killed (atomic mode) all four steps write the one count: the
 *    Mazurkiewicz traces of two 2-step sequences on one word, C(4,2) = 6
 *    schedules. The root's css (CSS_NO_REF) touches nothing: one schedule.
 *  - a tryget racing with the kill (rmdir on the other CPU): before the kill it
 *    counts per CPU, after it in the atomic count. DPOR must see every outcome
 *    DFS sees (the oracle's rule, test_dpor_oracle.c). On a lookup
 *    (rcu_dereference, css_tryget_online) the state and RCU order the steps as
 *    well; on a plain tryget of a held memcg only the kill's write of the word
 *    every tryget loads does: without it DPOR misses one of DFS's 3 outcomes.
 */
#include <errno.h>

#include <memcgsim/objcg.h>

#include "outcome_util.h"

enum toy_ref { REF_CSS, REF_ROOT_CSS, REF_OBJCG };

struct ref_toy {
	enum toy_ref kind;
	bool killed;
	struct msim_memcg *c;            /* REF_CSS: the memcg; REF_ROOT_CSS: the root */
	struct msim_obj_cgroup *objcg;   /* REF_OBJCG: c's node-0 objcg */
};

struct toy_arg { enum toy_ref kind; bool killed; };

static void ref_get_put(void *arg)
{
	struct ref_toy *s = arg;

	if (s->kind == REF_OBJCG) {
		msim_obj_cgroup_get(s->objcg);
		msim_obj_cgroup_put(s->objcg);
	} else {
		msim_css_get(s->c);
		msim_css_put(s->c);
	}
}

/* The toy holds one reference across rmdir, so the killed count never reaches 0. */
static int kill_holding(struct ref_toy *s)
{
	/* the css reference keeps c unreleased (no RCU callbacks in the toy's runs) */
	msim_css_get(s->c);
	if (s->kind == REF_OBJCG)
		msim_obj_cgroup_get(s->objcg);
	return msim_memcg_rmdir(s->c);
}

static int ref_setup(struct msim *m, void **state, void *arg)
{
	const struct toy_arg *a = arg;
	struct ref_toy *s = calloc(1, sizeof(*s));
	char err[128];
	int ret;

	if (!s)
		return -ENOMEM;
	*state = s;
	s->kind = a->kind;
	s->killed = a->killed;
	if (a->kind == REF_OBJCG &&
	    (ret = msim_subsys_attach(m, msim_subsys_find("objcg"), err, sizeof(err))))
		return ret;
	if (a->kind == REF_ROOT_CSS)
		s->c = msim_root_mem_cgroup(m);
	else if ((ret = msim_memcg_create(msim_root_mem_cgroup(m), "c", &s->c)))
		return ret;
	if (a->kind == REF_OBJCG)
		s->objcg = msim_memcg_objcg(s->c, 0);
	if (a->killed && (ret = kill_holding(s)))
		return ret;
	for (unsigned int cpu = 0; cpu < 2; cpu++)
		if (!msim_task_create(m, "get_put", cpu, ref_get_put, s))
			return -ENOMEM;
	return 0;
}

static bool no_check(struct msim *m, void *state, char *why, size_t len)
{
	(void)m, (void)state, (void)why, (void)len;
	return false;
}

static void ref_teardown(struct msim *m, void *state)
{
	struct ref_toy *s = state;

	(void)m;
	if (s->killed && s->kind == REF_OBJCG)
		msim_obj_cgroup_put(s->objcg);
	if (s->killed)
		msim_css_put(s->c);
	free(s); /* the host's destruction frees the rest */
}

/* Explore the toy: DPOR runs want_dpor schedules and misses no DFS outcome. */
static void get_put_toy(enum toy_ref kind, bool killed, unsigned int want_dpor)
{
	struct toy_arg a = { kind, killed };
	const struct msim_explore_target t = {
		.name = "two-get-put", .setup = ref_setup, .check = no_check,
		.teardown = ref_teardown, .arg = &a,
	};
	struct outcome_set dfs = { 0 }, dpor = { 0 };
	struct msim_explore_result r;

	outcome_explore(&t, MSIM_STRAT_DFS, &dfs, &r);
	outcome_explore(&t, MSIM_STRAT_DPOR, &dpor, &r);
	print_message("get+put on two CPUs (%s, %s): dfs %zu outcomes, dpor %u schedules\n",
		      kind == REF_OBJCG ? "objcg" : kind == REF_ROOT_CSS ? "root css" : "css",
		      killed ? "killed" : "online", dfs.n, r.runs);
	assert_int_equal(r.runs, want_dpor);
	assert_int_equal(r.pruned, 0);
	assert_int_equal(outcomes_missing(&dfs, &dpor), 0);
	free(dfs.v);
	free(dpor.v);
}

static void css_refs_commute_while_online(void **unused)
{
	(void)unused;
	get_put_toy(REF_CSS, false, 1);
}

static void css_refs_conflict_once_killed(void **unused)
{
	(void)unused;
	get_put_toy(REF_CSS, true, 6);
}

static void root_css_refs_touch_nothing(void **unused)
{
	(void)unused;
	get_put_toy(REF_ROOT_CSS, false, 1);
}

static void objcg_refs_commute_while_online(void **unused)
{
	(void)unused;
	get_put_toy(REF_OBJCG, false, 1);
}

static void objcg_refs_conflict_once_killed(void **unused)
{
	(void)unused;
	get_put_toy(REF_OBJCG, true, 6);
}

/* ---- a tryget racing with the kill ---- */

struct kill_toy {
	struct msim_memcg *c;
	void *pub;                       /* c while published (the lookup's pointer) */
	int seen;                        /* 0 not found, 1 got it, -1 the tryget failed */
	bool held;                       /* the toy holds c: a plain tryget, no lookup */
};

/* A plain css_tryget of a memcg the toy holds: it reads the mode, or the count. */
static void held_tryget_fn(void *arg)
{
	struct kill_toy *s = arg;

	s->seen = msim_css_tryget(s->c) ? 1 : -1;
	if (s->seen > 0)
		msim_css_put(s->c);
}

/* rcu_read_lock, find c, css_tryget_online: the kernel's lookup of a memcg. */
static void tryget_fn(void *arg)
{
	struct kill_toy *s = arg;
	struct msim_memcg *c;

	msim_rcu_read_lock();
	c = msim_rcu_dereference(&s->pub);
	if (c)
		s->seen = msim_css_tryget_online(c) ? 1 : -1;
	msim_rcu_read_unlock();
	if (s->seen > 0)
		msim_css_put(c);
}

/* Unpublish, then rmdir: its grace period waits for a reader that found c. */
static void rmdir_fn(void *arg)
{
	struct kill_toy *s = arg;

	msim_rcu_assign_pointer(&s->pub, NULL);
	msim_memcg_rmdir(s->c);
}

static int kill_setup(struct msim *m, void **state, void *arg)
{
	struct kill_toy *s = calloc(1, sizeof(*s));
	int ret;

	if (!s)
		return -ENOMEM;
	*state = s;
	if ((ret = msim_memcg_create(msim_root_mem_cgroup(m), "c", &s->c)))
		return ret;
	s->pub = s->c;
	s->held = arg != NULL;
	if (s->held)
		msim_css_get(s->c);
	if (!msim_task_create(m, "tryget", 0, s->held ? held_tryget_fn : tryget_fn, s) ||
	    !msim_task_create(m, "rmdir", 1, rmdir_fn, s))
		return -ENOMEM;
	return 0;
}

/* Not a violation: the verdict tells the orders apart in the outcome. */
static bool kill_check(struct msim *m, void *state, char *why, size_t len)
{
	struct kill_toy *s = state;

	(void)m;
	snprintf(why, len, "%s", s->seen > 0 ? "got it" : s->seen < 0 ? "tryget failed" : "not found");
	return false;
}

static void kill_teardown(struct msim *m, void *state)
{
	struct kill_toy *s = state;

	(void)m;
	if (s->held)
		msim_css_put(s->c);
	free(s);
}

/* Explore the toy (held: the plain tryget); DFS's outcomes and DPOR's schedules. */
static void tryget_vs_kill(bool held, size_t want_dfs, unsigned int want_dpor)
{
	const struct msim_explore_target t = {
		.name = "tryget-vs-kill", .setup = kill_setup, .check = kill_check,
		.teardown = kill_teardown, .arg = held ? (void *)1 : NULL,
	};
	struct outcome_set dfs = { 0 }, dpor = { 0 };
	struct msim_explore_result r;
	unsigned int dfs_runs;

	outcome_explore_within(&t, MSIM_STRAT_DFS, 20000, &dfs, &r); /* rmdir's grace period */
	dfs_runs = r.runs;
	outcome_explore_within(&t, MSIM_STRAT_DPOR, 20000, &dpor, &r);
	print_message("tryget vs kill (%s): dfs %u schedules %zu outcomes, dpor %u schedules "
		      "%zu outcomes\n", held ? "held" : "lookup", dfs_runs, dfs.n, r.runs, dpor.n);
	assert_int_equal(outcomes_missing(&dfs, &dpor), 0);
	assert_int_equal(dfs.n, want_dfs);
	assert_int_equal(r.runs, want_dpor);
	free(dfs.v);
	free(dpor.v);
}

/* The lookup: not found, or got it while online (tryget_online fails once DYING). */
static void lookup_vs_kill(void **unused)
{
	(void)unused;
	tryget_vs_kill(false, 4, 18);
}

/*
 * The plain tryget reads the mode word (percpu) or, after the kill, the count
 * (the toy's reference): the kill's step must write the word it loads, or DPOR
 * takes a tryget before the kill for one after it.
 */
static void held_tryget_vs_kill(void **unused)
{
	(void)unused;
	tryget_vs_kill(true, 3, 9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(css_refs_commute_while_online),
		cmocka_unit_test(css_refs_conflict_once_killed),
		cmocka_unit_test(root_css_refs_touch_nothing),
		cmocka_unit_test(objcg_refs_commute_while_online),
		cmocka_unit_test(objcg_refs_conflict_once_killed),
		cmocka_unit_test(lookup_vs_kill),
		cmocka_unit_test(held_tryget_vs_kill),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
