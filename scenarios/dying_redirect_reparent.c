/* SPDX-License-Identifier: MIT */
/*
 * dying-redirect-reparent: a stat update to a memcg that is going offline races
 * with the reparenting of its local stats (reparent_state_local(); thread 000 patches 2
 * and 3, variant dying-redirect).
 *
 * p -> c on cgroup v2 (the host's cgroup version; v1 hosts too). c holds 100 file
 * pages of local stats; an updater on CPU 1 holds a stashed reference to c's
 * lruvec and adds 10 more; CPU 0 removes c. After the release of c and a forced
 * root flush, per variant (the sides below):
 *   v1 on v2 (mainline):  no redirect, no local reparenting: p.local 0, the 110
 *                         local pages stay with the dead c (lost to p's local view)
 *   v1 on a v1 host:      redirect and reparenting under RCU: p.local 110, exact
 *   all (patch 2):        RCU always: rmdir waits for the updater; p.local 110
 *   all-rcu-on-dying (3): the window of the diagram: 10 pages land on c after the
 *                         move; p.local 100, c.local 10 stranded. Only under full
 *                         preemption (preempt=full, below)
 *   the same, preempt=none: rmdir waits for the updater; p.local 110
 * Nothing is double counted in any variant: p's and root's hierarchical values
 * are 110 (the release flush pushes c's remainder into p).
 *
 * Which preemption patch 3's window needs (sim.h: the host's preemption model).
 * The updater takes no RCU between the dying check and the per-CPU update, so
 * rmdir's synchronize_rcu() waits for it only if that stretch is a read-side
 * section of another kind. Under CONFIG_PREEMPT_NONE (and VOLUNTARY: there is no
 * might_sleep() in between) it is: the stretch has no scheduling point, so CPU 1
 * passes no quiescent state until the update is done, and the grace period, which
 * began after the check, cannot end before it (consolidated RCU). The window
 * exists only where the updater can be preempted between the check and get_cpu(),
 * that is under CONFIG_PREEMPT (full, and PREEMPT_DYNAMIC booted as full or lazy).
 * So side all-rcu-on-dying runs with preempt=full and all-rcu-on-dying-none with
 * preempt=none, where every explorer comes back clean. Under the model's default
 * (preempt=unmodelled, no side) the window is found as under full: the default
 * over-reports it.
 *
 * Violation: after offline, c's local stats did not all reach p's local.
 */
#include <memcgsim/introspect.h>

#include "rstat_scn.h"

struct dr {
	struct msim *m;
	struct msim_memcg *root, *p, *c;
	struct msim_task *rmdir, *updater;
	struct msim_lruvec *stashed;
	long applied;
	int rmdir_ret;
	bool flushed;
	long p_local, c_local, p_state, root_state;
};

static void updater_fn(void *arg)
{
	struct dr *s = arg;

	s->applied += 10;
	msim_mod_lruvec_state(s->stashed, MSIM_NR_FILE_PAGES, 10);
}

static void rmdir_fn(void *arg)
{
	struct dr *s = arg;

	s->rmdir_ret = msim_memcg_rmdir(s->c);
}

static int dr_setup(struct msim *m, void **state, void *arg)
{
	struct dr *s = calloc(1, sizeof(*s));
	int ret;

	if (!s)
		return -ENOMEM;
	*state = s;
	s->m = m;
	if ((ret = rstat_scn_tree(m, &s->root, &s->p, &s->c)))
		return ret;
	msim_css_get(s->c);   /* the updater's stashed reference */
	s->stashed = msim_mem_cgroup_lruvec(m, s->c, 0);
	s->applied = 100;
	msim_mod_lruvec_state(s->stashed, MSIM_NR_FILE_PAGES, 100);
	s->updater = msim_task_create(m, "updater", 1, updater_fn, s);
	s->rmdir = msim_task_create(m, "rmdir", 0, rmdir_fn, s);
	return s->updater && s->rmdir ? 0 : -ENOMEM;
}

/* Final state: forced root flush (c still referenced), then c's release. */
static void dr_settle(struct dr *s)
{
	if (s->flushed)
		return;
	s->flushed = true;
	msim_mem_cgroup_flush_stats_forced(s->root);
	s->c_local = msim_memcg_stat_raw(s->c, MSIM_STAT_LOCAL, MSIM_NR_FILE_PAGES);
	msim_css_put(s->c);
	msim_memcg_drain(s->m);
	msim_mem_cgroup_flush_stats_forced(s->root);
	s->p_local = msim_memcg_stat_raw(s->p, MSIM_STAT_LOCAL, MSIM_NR_FILE_PAGES);
	s->p_state = msim_memcg_stat_raw(s->p, MSIM_STAT_STATE, MSIM_NR_FILE_PAGES);
	s->root_state = msim_memcg_stat_raw(s->root, MSIM_STAT_STATE, MSIM_NR_FILE_PAGES);
}

static bool dr_check(struct msim *m, void *state, char *why, size_t len)
{
	struct dr *s = state;

	dr_settle(s);
	if (s->p_state != s->applied || s->root_state != s->applied) {
		snprintf(why, len, "hierarchical mismatch: p %ld, root %ld, applied %ld",
			 s->p_state, s->root_state, s->applied);
		return true;
	}
	if (s->p_local == s->applied)
		return false;
	snprintf(why, len, "local stats lost at offline: p.local %ld of %ld, %ld left on the "
		 "dead c", s->p_local, s->applied, s->c_local);
	return true;
}

/* Run t, letting grace periods end whenever it waits for one. */
static int run_with_rcu(struct msim *m, struct msim_task *t)
{
	int ret;

	while ((ret = msim_run_task(m, t)) == -EDEADLK)
		if (!msim_rcu_step(m))
			return -EDEADLK;
	return ret;
}

static int dr_script(struct msim *m, void *state, struct msim_race_report *rep)
{
	struct dr *s = state;
	char why[256] = "";
	bool waited = false;
	/* the updater has decided where its update goes, and stops there */
	int ret = msim_run_until(m, s->updater, "rstat.dying.checked", 1);

	if (!ret) {
		ret = run_with_rcu(m, s->rmdir);
		if (ret == -EDEADLK) {   /* rmdir waits for the updater's RCU section */
			waited = true;
			ret = msim_run_task(m, s->updater);
			if (!ret)
				ret = run_with_rcu(m, s->rmdir);
		}
	}
	if (!ret)
		ret = run_with_rcu(m, s->updater);
	if (!ret) {
		rep->violated = dr_check(m, s, why, sizeof(why));
		msim_race_note(rep, "%s", rep->violated ? why : "every local page reached p");
		msim_race_fig_bool(rep, "redirect_active", msim_rstat_dying_redirect_active(m));
		msim_race_fig_bool(rep, "rmdir_waited_for_updater", waited);
		msim_race_fig_int(rep, "applied", s->applied);
		msim_race_fig_int(rep, "p_local", s->p_local);
		msim_race_fig_int(rep, "c_local_left", s->c_local);
		msim_race_fig_int(rep, "lost_from_p_local", s->applied - s->p_local);
		msim_race_fig_int(rep, "p_state", s->p_state);
		msim_race_fig_int(rep, "root_state", s->root_state);
		msim_race_fig_bool(rep, "double_counted", s->p_state > s->applied ||
				  s->root_state > s->applied);
	}
	return ret;
}

static bool dr_expect(const struct msim_config *cfg, const void *arg)
{
	switch (msim_variant_value(&cfg->variants, "dying-redirect")) {
	case MSIM_DYING_REDIRECT_V1:
		return cfg->cgroup_version != MSIM_CGROUP_V1;
	case MSIM_DYING_REDIRECT_ALL:
		return false;
	default:
		/* patch 3: the updater must be preempted between check and update */
		return cfg->preempt != MSIM_PREEMPT_NONE;
	}
}

/* What every side shares: 110 pages applied, none double counted. */
#define DR_FIGURES(p_local, c_left, waited)                                        \
	(const struct msim_race_expect[]){                                         \
		MSIM_RACE_EXPECT("applied", 110), MSIM_RACE_EXPECT("p_local", p_local), \
		MSIM_RACE_EXPECT("c_local_left", c_left),                          \
		MSIM_RACE_EXPECT("lost_from_p_local", 110 - (p_local)),            \
		MSIM_RACE_EXPECT("rmdir_waited_for_updater", waited),              \
		MSIM_RACE_EXPECT("p_state", 110), MSIM_RACE_EXPECT("root_state", 110), \
		MSIM_RACE_EXPECT("double_counted", 0), { NULL } }

static const struct msim_race dying_redirect_reparent = {
	.name = "dying-redirect-reparent",
	.min_cpus = 2,
	.summary = "a stat update to a memcg going offline races with the reparenting of its "
		   "local stats (thread 000 patches 2, 3)",
	.thread = "000",
	.diagram =
		"CPU 0 (rmdir c)                    CPU 1 (stat update through c's lruvec)\n"
		"---------------                    --------------------------------------\n"
		"                                   get_non_dying_memcg_start(c):\n"
		"                                     c is not dying\n"
		"                                   <preempted here (preempt=full)>\n"
		"set CSS_DYING\n"
		"synchronize_rcu()                  (all: the updater is inside RCU, so this\n"
		"                                    waits for it; all-rcu-on-dying: it took\n"
		"                                    no RCU, so this does not wait, unless\n"
		"                                    preempt=none: CPU 1 has passed no\n"
		"                                    quiescent state since the check)\n"
		"offline: reparent_state_local(c)\n"
		"  move c.local 100 -> p.local\n"
		"                                   this_cpu_add(c, +10)   <- after the move\n",
	.budget = { .runs = 500, .pct_depth = 3, .preemptions = 2, .dfs_runs = 5000 },
	.expect = dr_expect,
	.target = { .name = "dying-redirect-reparent", .setup = dr_setup, .check = dr_check,
		    .teardown = rstat_scn_teardown },
	.script = dr_script,
	.sides = (const struct msim_race_side[]){
		{ .name = "v1-on-v2", .settings = "", .violation = true, .demo = true,
		  .summary = "mainline on cgroup v2: no redirect, c's 110 local pages stay on the "
			     "dead c",
		  .why = "local stats lost", .figures = DR_FIGURES(0, 110, 0) },
		{ .name = "all", .settings = "dying-redirect=all", .demo = true,
		  .summary = "patch 2: RCU always taken, rmdir waits for the updater",
		  .figures = DR_FIGURES(110, 0, 1) },
		{ .name = "all-rcu-on-dying",
		  .settings = "dying-redirect=all-rcu-on-dying,preempt=full",
		  .violation = true, .demo = true,
		  .summary = "patch 3 under full preemption: RCU only on the dying path, the "
			     "updater preempted after the check; 10 pages land on c after the move",
		  .why = "local stats lost", .figures = DR_FIGURES(100, 10, 0) },
		{ .name = "all-rcu-on-dying-none",
		  .settings = "dying-redirect=all-rcu-on-dying,preempt=none", .demo = true,
		  .summary = "patch 3 under preempt=none (or voluntary): no scheduling point "
			     "between check and update, so rmdir's grace period waits for the "
			     "updater",
		  .figures = DR_FIGURES(110, 0, 1) },
		{ .name = "v1-host", .settings = "cgroup=v1",
		  .summary = "mainline on a cgroup v1 host: redirect and reparenting under RCU",
		  .figures = DR_FIGURES(110, 0, 1) },
		{ NULL } },
};
MSIM_RACE_REGISTER(dying_redirect_reparent)
