/* SPDX-License-Identifier: MIT */
/*
 * rstat-stale-parent: race R8 (docs/races.md). A flush of a
 * subtree folds the subtree's deltas into its root, whose own delta waits in its
 * parent's state_pending: the parent's (and every ancestor's) aggregate stays
 * stale until a flush visits it. Root reads are the exception under
 * root-lruvec-read=node (thread 002 patch 2): the node counters, current only
 * as far as vmstat has folded each CPU's diff. Under node-stat=exact (the model's
 * old simplification) they always are, so the fix side holds by construction; the
 * fix-percpu side runs the kernel's per-CPU node counters and ends c's update with
 * a 30-page tail below the threshold on the default zones (48 on 4 CPUs, 32 on 2:
 * calculate_normal_threshold): that tail stays in CPU 1's diff, and root's lruvec
 * read, from the node counter, misses it as the rstat read misses everything.
 *
 * root -> p -> c, 2 CPUs; c's file pages are on node 0.
 *
 * Violation: after c's flush, root's lruvec read of NR_FILE_PAGES differs from
 * the pages charged under it. Expected under rstat, and under node when a
 * sub-threshold tail is left in a CPU's vmstat diff (node-stat=percpu). p's
 * staleness is reported as a figure on every side (no variant changes it).
 */
#include <memcgsim/introspect.h>

#include "rstat_scn.h"

struct sp {
	struct msim *m;
	struct msim_memcg *root, *p, *c;
	struct msim_task *updater, *reader;
	long applied;
	long tail;          /* pages of the update in a second, last mod (the side's arg) */
	long read_c, read_p, read_root_lruvec;
	bool c_flushed;
};

static void updater_fn(void *arg)
{
	struct sp *s = arg;

	struct msim_lruvec *lruvec = msim_mem_cgroup_lruvec(s->m, s->c, 0);

	s->applied += 100;
	msim_mod_lruvec_state(lruvec, MSIM_NR_FILE_PAGES, 100 - s->tail);
	if (s->tail)
		msim_mod_lruvec_state(lruvec, MSIM_NR_FILE_PAGES, s->tail);
}

static void reader_fn(void *arg)
{
	struct sp *s = arg;

	msim_mem_cgroup_flush_stats_forced(s->c);
	s->c_flushed = true;
	s->read_c = (long)msim_memcg_page_state(s->c, MSIM_NR_FILE_PAGES);
	s->read_p = (long)msim_memcg_page_state(s->p, MSIM_NR_FILE_PAGES);
	s->read_root_lruvec = (long)msim_lruvec_page_state(
		msim_mem_cgroup_lruvec(s->m, s->root, 0), MSIM_NR_FILE_PAGES);
}

static int sp_setup(struct msim *m, void **state, void *arg)
{
	struct sp *s = calloc(1, sizeof(*s));
	int ret;

	if (!s)
		return -ENOMEM;
	*state = s;
	s->m = m;
	s->tail = arg ? *(const long *)arg : 0;
	if ((ret = rstat_scn_tree(m, &s->root, &s->p, &s->c)))
		return ret;
	s->updater = msim_task_create(m, "c-updater", 1, updater_fn, s);
	s->reader = msim_task_create(m, "reader", 0, reader_fn, s);
	return s->updater && s->reader ? 0 : -ENOMEM;
}

/* Only runs where c's flush saw the whole update are meaningful. */
static bool sp_check(struct msim *m, void *state, char *why, size_t len)
{
	struct sp *s = state;

	if (s->read_c != s->applied || s->read_root_lruvec == s->applied)
		return false;
	snprintf(why, len, "stale root: after flushing c (%ld pages), root's lruvec reads %ld, "
		 "p reads %ld", s->read_c, s->read_root_lruvec, s->read_p);
	return true;
}

static int sp_script(struct msim *m, void *state, struct msim_race_report *rep)
{
	struct sp *s = state;
	char why[256] = "";
	int ret = msim_run_task(m, s->updater);

	if (!ret)
		ret = msim_run_task(m, s->reader);
	if (!ret) {
		rep->violated = sp_check(m, s, why, sizeof(why));
		msim_race_note(rep, "%s", rep->violated ? why :
			       "root's lruvec read is current (node counters)");
		if (s->tail)
			msim_race_note(rep, "c's update ended with %ld pages on CPU 1 (node "
				       "threshold %d): node_page_state reads %lu", s->tail,
				       msim_vmstat_node_stat_threshold(m, 0, 1),
				       msim_node_page_state(m, 0, MSIM_NR_FILE_PAGES));
		msim_race_fig_int(rep, "c_after_c_flush", s->read_c);
		msim_race_fig_int(rep, "p_after_c_flush", s->read_p);
		long pending = msim_memcg_stat_raw(s->p, MSIM_STAT_PENDING, MSIM_NR_FILE_PAGES);

		msim_race_fig_int(rep, "p_pending_after_c_flush", pending);
		msim_race_fig_int(rep, "root_lruvec_after_c_flush", s->read_root_lruvec);
		msim_race_fig_int(rep, "node_counter", (long long)msim_node_page_state(m, 0,
							MSIM_NR_FILE_PAGES));
		msim_mem_cgroup_flush_stats_forced(s->p);
		msim_race_fig_int(rep, "p_after_p_flush",
				 (long long)msim_memcg_page_state(s->p, MSIM_NR_FILE_PAGES));
		msim_race_fig_int(rep, "root_after_p_flush",
				 (long long)msim_memcg_page_state(s->root, MSIM_NR_FILE_PAGES));
		msim_mem_cgroup_flush_stats_forced(s->root);
		msim_race_fig_int(rep, "root_after_root_flush",
				 (long long)msim_memcg_page_state(s->root, MSIM_NR_FILE_PAGES));
		msim_race_note(rep, "p reads %ld after c's flush (%ld pending), %lu after its own",
			       s->read_p, pending, msim_memcg_page_state(s->p, MSIM_NR_FILE_PAGES));
	}
	return ret;
}

static bool sp_expect(const struct msim_config *cfg, const void *arg)
{
	return msim_variant_value(&cfg->variants, "root-lruvec-read") ==
		       MSIM_ROOT_LRUVEC_READ_RSTAT ||
	       rstat_scn_node_tail_unfolded(cfg, arg);
}

/* fix-percpu: c's update is 70 pages, then 30 (at most the threshold from 2 CPUs up, 32) */
static long sp_percpu_tail = 30;

/* Every side: p stays stale until its own flush; only root's lruvec read differs. */
#define SP_FIGURES(root_lruvec, node)                                             \
	(const struct msim_race_expect[]){                                        \
		MSIM_RACE_EXPECT("c_after_c_flush", 100),                         \
		MSIM_RACE_EXPECT("p_after_c_flush", 0),                           \
		MSIM_RACE_EXPECT("p_pending_after_c_flush", 100),                 \
		MSIM_RACE_EXPECT("root_lruvec_after_c_flush", root_lruvec),       \
		MSIM_RACE_EXPECT("node_counter", node),                           \
		MSIM_RACE_EXPECT("p_after_p_flush", 100),                         \
		MSIM_RACE_EXPECT("root_after_p_flush", 0),                        \
		MSIM_RACE_EXPECT("root_after_root_flush", 100), { NULL } }

static const struct msim_race rstat_stale_parent = {
	.name = "rstat-stale-parent",
	.min_cpus = 2,
	.summary = "a subtree flush leaves the parent's and root's aggregates stale (R8); "
		   "root lruvec reads from node counters do not depend on it",
	.thread = "R8, 002 patch 2",
	.windows = "R8",
	.diagram =
		"CPU 0 (reader)                     CPU 1 (c)\n"
		"--------------                     ---------\n"
		"                                   mod_lruvec_state(c, NR_FILE_PAGES, +100)\n"
		"mem_cgroup_flush_stats_forced(c)   (css_rstat_flush of c's subtree)\n"
		"  c.state = 100, p.pending = 100\n"
		"memcg_page_state(c)   = 100\n"
		"memcg_page_state(p)   = 0          <- stale (R8)\n"
		"lruvec_page_state(root, node 0):\n"
		"  rstat: 0 (stale)     node: 100 (node counter)\n"
		"                       node-stat=percpu: 70, CPU 1's\n"
		"                       30-page diff not folded\n"
		"mem_cgroup_flush_stats_forced(p)\n"
		"memcg_page_state(p)   = 100        the invariant after a covering flush\n",
	.budget = { .runs = 200, .pct_depth = 2, .preemptions = 1, .dfs_runs = 2000 },
	.expect = sp_expect,
	.target = { .name = "rstat-stale-parent", .setup = sp_setup, .check = sp_check,
		    .teardown = rstat_scn_teardown },
	.script = sp_script,
	.sides = (const struct msim_race_side[]){
		{ .name = "bug", .settings = "", .violation = true, .demo = true,
		  .summary = "mainline: root's lruvec reads the stale rstat aggregate, 0 of 100",
		  .why = "stale root", .figures = SP_FIGURES(0, 100) },
		{ .name = "fix", .settings = "root-lruvec-read=node", .demo = true,
		  .dfs_exhausts = true, .dfs_schedules = 54, .dpor_schedules = 12,
		  .summary = "thread 002 patch 2 on exact node counters (node-stat=exact): the "
			     "node counter answers, 100, by construction",
		  .figures = SP_FIGURES(100, 100) },
		{ .name = "fix-percpu", .settings = "root-lruvec-read=node,node-stat=percpu",
		  .arg = &sp_percpu_tail, .violation = true,
		  .summary = "thread 002 patch 2 on the kernel's per-CPU node counters: c's last "
			     "30 pages stay in CPU 1's diff (threshold 48), root's lruvec reads 70",
		  .why = "stale root", .figures = SP_FIGURES(70, 70) },
		{ NULL } },
};
MSIM_RACE_REGISTER(rstat_stale_parent)
