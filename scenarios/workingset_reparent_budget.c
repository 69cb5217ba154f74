/* SPDX-License-Identifier: MIT */
/*
 * workingset-reparent-budget: count_shadow_nodes() reads the parent's budget
 * while the offline of its child moves the child's folios and local stats to
 * it (thread 000 patches 1 and 2, variants shadow-budget and dying-redirect;
 * memcg_reparent_objcgs() and mm/workingset.c count_shadow_nodes()).
 *
 * p -> c on cgroup v2, objcg LRU reparenting (mainline). p read 8 pages of one
 * file; c read 64 of another, reclaim evicted them (one shadow-only node on
 * c's list), then c read 8 more (resident). CPU 0 removes c: list_lru moves c's
 * shadow node to p's list (step 4); the LRU splice moves c's 8 folios and adds
 * c's lru_zone_size into p's (step 5); reparent_state_local then moves c's
 * local statistics into p's, but only where the dying redirect is active
 * (cgroup v1, or dying-redirect=all: patch 2). CPU 1 is the shadow shrinker
 * on p: count_shadow_nodes() reads p's budget pages.
 *
 *   lru-size (mainline, commit 7404bd37cfbe): lruvec_lru_size() reads
 *       lru_zone_size, which moves with the lists under the lru locks: p's
 *       budget counts c's folios as soon as they are p's. (Under MGLRU it
 *       reads 0: thrashing-protection.)
 *   page-state-local, dying-redirect=v1 (patch 1 alone): on cgroup v2 nothing
 *       moves c's local statistics: p's budget misses c's 8 folios for good,
 *       and when they are freed their uncharge comes off p's local (objcg).
 *   page-state-local + dying-redirect=all (patches 1-2) or all-rcu-on-dying
 *       (the thread-000 preset): reparent_state_local moves them at offline;
 *       a count between the splice and that move still reads the old value
 *       (shown by the script: a window the patches narrow to the offline,
 *       not close), and every count after the offline is exact.
 *
 * Invariant after every task: the LRU part of p's budget, read as
 * count_shadow_nodes() reads it after a forced flush, equals the pages listed
 * on p's LRU lists.
 */
#include "ws_scn.h"

struct wrb {
	struct msim *m;
	struct msim_memcg *root, *p, *c;
	struct msim_address_space *pfile, *cfile;
	struct msim_task *rmdir, *count;
	bool settled, violated;
	unsigned long reclaimed;
	long count_pages, budget_pages, listed, c_local, p_nodes;
	char why[200];
};

static void rmdir_fn(void *arg)
{
	struct wrb *s = arg;

	msim_memcg_rmdir(s->c);
}

/* count_shadow_nodes(p): the flush, then the budget's page read. */
static void count_fn(void *arg)
{
	struct wrb *s = arg;

	msim_mem_cgroup_flush_stats_ratelimited(s->p);
	s->count_pages = (long)msim_shadow_budget_pages(s->m, s->p, 0);
}

static int wrb_populate(struct wrb *s)
{
	int ret;

	if ((ret = msim_address_space_create(s->m, "p-file", &s->pfile)) ||
	    (ret = msim_address_space_create(s->m, "c-file", &s->cfile)) ||
	    (ret = ws_scn_read(s->pfile, 0, 8, s->p)) || (ret = ws_scn_read(s->cfile, 0, 64, s->c)))
		return ret;
	s->reclaimed = msim_workingset_reclaim(s->c, 64, NULL);
	if ((ret = ws_scn_read(s->cfile, 64, 8, s->c)))
		return ret;
	msim_mem_cgroup_flush_stats_forced(s->root);
	return s->reclaimed == 64 && ws_scn_shadow_nodes(s->m, s->c) == 1 ? 0 : -EIO;
}

static int wrb_setup(struct msim *m, void **state, void *arg)
{
	struct wrb *s = calloc(1, sizeof(*s));
	int ret;

	(void)arg;
	if (!s)
		return -ENOMEM;
	*state = s;
	s->m = m;
	if ((ret = ws_scn_init(m)))
		return ret;
	s->root = msim_root_mem_cgroup(m);
	if ((ret = msim_memcg_create(s->root, "p", &s->p)) ||
	    (ret = msim_memcg_create(s->p, "c", &s->c)) || (ret = wrb_populate(s)))
		return ret;
	msim_css_get(s->c);   /* the check reads the dead c's local statistics */
	msim_rcu_barrier();   /* no callback pending: R steps only for the run's own */
	s->rmdir = msim_task_create(m, "rmdir", 0, rmdir_fn, s);
	s->count = msim_task_create(m, "count", 1, count_fn, s);
	return s->rmdir && s->count ? 0 : -ENOMEM;
}

static bool wrb_check(struct msim *m, void *state, char *why, size_t len)
{
	struct wrb *s = state;

	if (!s->settled) {
		s->settled = true;
		msim_mem_cgroup_flush_stats_forced(s->root);
		s->budget_pages = (long)msim_shadow_budget_pages(m, s->p, 0);
		s->listed = lru_scn_listed_pages(s->p);
		s->c_local = lru_scn_local_raw(s->c);
		s->p_nodes = ws_scn_shadow_nodes(m, s->p);
		s->violated = s->budget_pages != s->listed;
		if (s->violated)
			snprintf(s->why, sizeof(s->why), "p's shadow budget misses reparented "
				 "pages: it reads %ld LRU pages, p lists %ld (%ld left in the dead "
				 "c's local statistics)", s->budget_pages, s->listed, s->c_local);
	}
	snprintf(why, len, "%s", s->why);
	return s->violated;
}

static void wrb_teardown(struct msim *m, void *state)
{
	struct wrb *s = state;

	(void)m;
	if (!s)
		return;
	if (s->pfile)
		msim_address_space_destroy(s->pfile);
	if (s->cfile)
		msim_address_space_destroy(s->cfile);
	if (s->rmdir)
		msim_css_put(s->c);
	free(s);
}

static void wrb_report(struct wrb *s, struct msim_race_report *rep)
{
	msim_race_fig_int(rep, "count_read_pages", s->count_pages);
	msim_race_fig_int(rep, "budget_pages", s->budget_pages);
	msim_race_fig_int(rep, "p_listed_pages", s->listed);
	msim_race_fig_int(rep, "c_local_left", s->c_local);
	msim_race_fig_int(rep, "p_shadow_nodes", s->p_nodes);
	msim_race_note(rep, "%s", s->violated ? s->why : "p's budget counts every page p lists");
}

/* Run t until point (or its end: -ESRCH is fine), ending grace periods it waits for. */
static int wrb_run_until_rcu(struct msim *m, struct msim_task *t, const char *point)
{
	int ret;

	while ((ret = msim_run_until(m, t, point, 1)) == -EDEADLK)
		if (!msim_rcu_step(m))
			return -EDEADLK;
	return ret == -ESRCH ? 0 : ret;
}

/*
 * The offline runs up to its local-stat move (reached only where the redirect
 * is active; elsewhere it runs to its end), the shrinker counts p, the offline
 * finishes.
 */
static int wrb_script(struct msim *m, void *state, struct msim_race_report *rep)
{
	struct wrb *s = state;
	char why[200];
	int ret;

	if ((ret = wrb_run_until_rcu(m, s->rmdir, "rstat.reparent.local")) ||
	    (ret = msim_run_task(m, s->count)) || (ret = lru_scn_run_with_rcu(m, s->rmdir)))
		return ret;
	while (msim_rcu_step(m))
		;
	rep->violated = wrb_check(m, s, why, sizeof(why));
	wrb_report(s, rep);
	return 0;
}

static bool wrb_expect(const struct msim_config *cfg, const void *arg)
{
	(void)arg;
	return msim_variant_value(&cfg->variants, "shadow-budget") ==
		       MSIM_SHADOW_BUDGET_PAGE_STATE_LOCAL &&
	       cfg->cgroup_version == MSIM_CGROUP_V2 &&
	       msim_variant_value(&cfg->variants, "dying-redirect") == MSIM_DYING_REDIRECT_V1;
}

#define WRB_FIGURES(count, budget, c_left)                                                   \
	(const struct msim_race_expect[]){                                                   \
		MSIM_RACE_EXPECT("count_read_pages", count),                                 \
		MSIM_RACE_EXPECT("budget_pages", budget),                                    \
		MSIM_RACE_EXPECT("p_listed_pages", 16),                                      \
		MSIM_RACE_EXPECT("c_local_left", c_left),                                    \
		MSIM_RACE_EXPECT("p_shadow_nodes", 1), { NULL } }

static const struct msim_race workingset_reparent_budget = {
	.name = "workingset-reparent-budget",
	.min_cpus = 2,
	.summary = "count_shadow_nodes reads the parent's budget while its child's offline "
		   "moves folios and local stats to it: page-state-local needs the dying "
		   "redirect on every hierarchy (thread 000 patches 1-2)",
	.thread = "000",
	.diagram =
		"p: 8 file pages; c: 8 file pages and one shadow-only node. cgroup v2.\n"
		"\n"
		"CPU 0 (rmdir c)                      CPU 1 (shadow shrinker on p)\n"
		"---------------                      ----------------------------\n"
		"list_lru: c's node -> p's list\n"
		"LRU splice: c's 8 folios -> p;\n"
		"  lru_zone_size(p) += c's\n"
		"                                     count_shadow_nodes(p):\n"
		"                                       lru-size: 16 pages\n"
		"                                       page-state-local: 8\n"
		"reparent_state_local (v1 hosts, or\n"
		"  dying-redirect=all): c's local\n"
		"  stats -> p (else they stay on c)\n"
		"                                     every later count:\n"
		"                                       redirect on: 16; v1 on v2: 8\n",
	.budget = { .runs = 200, .pct_depth = 3, .preemptions = 1, .dfs_runs = 2000 },
	.expect = wrb_expect,
	.target = { .name = "workingset-reparent-budget", .setup = wrb_setup, .check = wrb_check,
		    .teardown = wrb_teardown },
	.script = wrb_script,
	.script_replays = true,
	.sides = (const struct msim_race_side[]){
		{ .name = "v1", .settings = "shadow-budget=page-state-local", .violation = true,
		  .demo = true,
		  .summary = "patch 1 alone: on cgroup v2 c's local stats stay on c; p's budget "
			     "misses its 8 folios",
		  .why = "p's shadow budget misses reparented pages",
		  .figures = WRB_FIGURES(8, 8, 8) },
		{ .name = "all", .settings = "shadow-budget=page-state-local,dying-redirect=all",
		  .demo = true,
		  .summary = "patches 1-2: reparent_state_local on every hierarchy; only a count "
			     "inside the offline reads the old value",
		  .figures = WRB_FIGURES(8, 16, 0) },
		{ .name = "thread-000",
		  .settings = "shadow-budget=page-state-local,dying-redirect=all-rcu-on-dying",
		  .summary = "the thread-000 preset (patches 1-3): the same",
		  .figures = WRB_FIGURES(8, 16, 0) },
		{ .name = "lru-size", .settings = "", .demo = true,
		  .summary = "mainline (7404bd37cfbe): lru_zone_size moves with the lists",
		  .figures = WRB_FIGURES(16, 16, 8) },
		{ NULL } },
};
MSIM_RACE_REGISTER(workingset_reparent_budget)
