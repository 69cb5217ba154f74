/* SPDX-License-Identifier: MIT */
/*
 * shrinker-offline-deferred (S4, docs/races.md):
 * shrink_slab_memcg checks mem_cgroup_online only at entry;
 * reparent_shrinker_deferred at offline reads the child's deferred counts and
 * adds them to the parent. A shrink already running adds its remainder to the
 * child after that read: the work is lost (the child is offline and never shrunk
 * again).
 *
 * Setup: shrinker S (count 1000, scan stops at once); memcgs P/C; C has S's bit.
 * The kernel's behaviour (no fix): the bad state is expected in every variant;
 * the orderings where the shrink finishes first give the parent its 2000.
 */
#include "shrinker_scn.h"

#define S4_DEFERRED 2000

struct s4 {
	struct shr_scn_fake f;
	struct msim_shrinker *s;
	struct msim_memcg *p, *c;
	struct msim_task *shrink, *rmdir;
};

static void shrink_fn(void *arg)
{
	struct s4 *s = arg;

	msim_shrink_slab(msim_current_host(), 0, s->c, 0);
}

static void rmdir_fn(void *arg)
{
	struct s4 *s = arg;

	msim_memcg_rmdir(s->c);
}

static int s4_setup(struct msim *m, void **state, void *arg)
{
	struct s4 *s = calloc(1, sizeof(*s));
	int r;

	if (!s)
		return -ENOMEM;
	*state = s;
	s->f.count = 1000;
	if ((r = msim_shrinker_init(m)) || (r = shr_scn_fake_new(m, &s->f, &s->s)) ||
	    (r = msim_memcg_create(msim_root_mem_cgroup(m), "P", &s->p)) ||
	    (r = msim_memcg_create(s->p, "C", &s->c)))
		return r;
	msim_css_get(s->c); /* keep C readable after its offline */
	if ((r = msim_shrinker_unit_install(s->c, 0, s->s->id)) ||
	    (r = msim_shrinker_unit_install(s->p, 0, s->s->id)))
		return r;
	msim_set_shrinker_bit(s->c, 0, s->s->id);
	msim_rcu_barrier();
	s->shrink = msim_task_create(m, "shrink_slab(C)", 0, shrink_fn, s);
	s->rmdir = msim_task_create(m, "rmdir(C)", 1, rmdir_fn, s);
	return s->shrink && s->rmdir ? 0 : -ENOMEM;
}

/* Lost: the shrink ran (it saw C online) but the parent did not get its deferral. */
static bool s4_check(struct msim *m, void *state, char *why, size_t len)
{
	struct s4 *s = state;
	long p = msim_shrinker_memcg_nr_deferred(s->p, 0, s->s->id);
	long c = msim_shrinker_memcg_nr_deferred(s->c, 0, s->s->id);

	if (!s->f.count_calls || p == S4_DEFERRED)
		return false;
	snprintf(why, len, "deferred work lost: parent %ld, offline child %ld (of %d)", p, c,
		 S4_DEFERRED);
	return true;
}

static void s4_teardown(struct msim *m, void *state)
{
	struct s4 *s = state;

	if (!s)
		return;
	msim_shrinker_free(s->s);
	if (s->c) {
		if (msim_mem_cgroup_online(s->c))
			msim_memcg_rmdir(s->c);
		msim_css_put(s->c);
	}
	if (s->p)
		msim_memcg_rmdir(s->p);
	free(s);
}

static int s4_script(struct msim *m, void *state, struct msim_race_report *rep)
{
	struct s4 *s = state;
	char why[256] = "";
	int ret = shr_scn_until(m, s->shrink, "do_shrink_slab.add_deferred", 1);

	if (!ret)
		ret = shr_scn_finish(m, s->rmdir);
	if (!ret)
		ret = shr_scn_finish(m, s->shrink);
	if (!ret)
		ret = msim_run(m);
	if (!ret) {
		rep->violated = s4_check(m, s, why, sizeof(why));
		msim_race_note(rep, "%s", rep->violated ? why : "deferred work reached the parent");
		msim_race_fig_int(rep, "parent_nr_deferred",
				 msim_shrinker_memcg_nr_deferred(s->p, 0, s->s->id));
		msim_race_fig_int(rep, "child_nr_deferred",
				 msim_shrinker_memcg_nr_deferred(s->c, 0, s->s->id));
		msim_race_fig_bool(rep, "child_online", msim_mem_cgroup_online(s->c));
	}
	return ret;
}

static const struct msim_race shrinker_offline_deferred = {
	.name = "shrinker-offline-deferred",
	.summary = "deferred work added by an in-flight shrink after offline moved the counts (S4)",
	.thread = "001",
	.windows = "S4",
	.diagram =
		"CPU 0 (shrink_slab(C), priority 0)    CPU 1 (rmdir C)\n"
		"----------------------------------    ---------------\n"
		"mem_cgroup_online(C): yes\n"
		"do_shrink_slab: count 1000\n"
		"  nr = xchg(C.nr_deferred, 0) = 0\n"
		"  delta 2000, scan -> SHRINK_STOP\n"
		"                                      CSS_DYING; synchronize_rcu\n"
		"                                      offline: reparent_shrinker_deferred:\n"
		"                                        P.nr_deferred += C.nr_deferred (0)\n"
		"  add_nr_deferred(C, 2000)      <- after the read: lost\n"
		"P.nr_deferred = 0, C (offline) holds 2000 nobody will use.\n",
	.budget = { .runs = 200, .pct_depth = 2, .preemptions = 1, .dfs_runs = 3000 },
	.configure = shr_scn_configure,
	.target = { .name = "shrinker-offline-deferred", .setup = s4_setup,
		    .check = s4_check, .teardown = s4_teardown },
	.script = s4_script,
	.sides = (const struct msim_race_side[]){
		{ .name = "kernel", .settings = "", .violation = true, .clean_orders = true,
		  .demo = true,
		  .summary = "the kernel's behaviour (no fix): the parent gets 0, the offline "
			     "child keeps 2000",
		  .why = "deferred work lost",
		  .figures = (const struct msim_race_expect[]){
			  MSIM_RACE_EXPECT("parent_nr_deferred", 0),
			  MSIM_RACE_EXPECT("child_nr_deferred", 2000),
			  MSIM_RACE_EXPECT("child_online", 0), { NULL } } },
		{ NULL } },
};
MSIM_RACE_REGISTER(shrinker_offline_deferred)
