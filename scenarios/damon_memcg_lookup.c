/* SPDX-License-Identifier: MIT */
/*
 * damon-memcg-lookup: DAMON's node_memcg_used_bp goal reader looks its memcg up
 * by id, leaves RCU and then uses it, while the memcg is removed and freed
 * (the December 2025 fix "mm/damon/core: get memcg
 * reference before access", which added mem_cgroup_tryget to b74a120bcf507).
 *
 * Node 0 has 40000 pages (configure); c holds 4000 LRU pages on it. CPU 0 runs
 * the goal reader (msim_damos_get_node_memcg_used_bp_info, src/damon/goal.c);
 * CPU 1 removes c. Without the reference nothing holds c once the reader has
 * left RCU: rmdir's offline drops the private id and the online reference, the
 * last css_put releases c, and two grace periods later css_free frees it. The
 * reader's use then touches a freed memcg. The model's freed-memcg check
 * catches it (the damon layer's watch, fed by its css_free hook, asked under a
 * read-side section of the model's own: damon.h), counts it and reads nothing,
 * so the model itself never reads freed memory in any build. With the
 * reference, c stays OFFLINE until the reader's mem_cgroup_put, which frees it.
 *
 * Violation: the reader used c after its last reference was gone (freed, or
 * released with the free queued: the free can land in the middle of the use).
 */
#include "rstat_scn.h"

#define DML_NODE_PAGES 40000UL
#define DML_C_PAGES 4000L

struct dml {
	struct msim *m;
	struct msim_memcg *c;
	struct msim_damos_quota_goal goal;
	struct msim_damos_read_info info;
	unsigned long bp;
	struct msim_task *reader, *rmdir;
};

static void reader_fn(void *arg)
{
	struct dml *s = arg;

	s->bp = msim_damos_get_node_memcg_used_bp_info(s->m, &s->goal, &s->info);
}

static void rmdir_fn(void *arg)
{
	struct dml *s = arg;

	msim_memcg_rmdir(s->c);
}

/* One node of 40000 pages, so that c's 4000 pages are 1000 bp. */
static int dml_configure(struct msim_config *cfg, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	cfg->zone_managed_pages[MSIM_ZONE_DMA] = 0;
	cfg->zone_managed_pages[MSIM_ZONE_DMA32] = 0;
	cfg->zone_managed_pages[MSIM_ZONE_NORMAL] = DML_NODE_PAGES;
	cfg->zone_managed_pages[MSIM_ZONE_MOVABLE] = 0;
	return scn_need_cpus(cfg, 2, "damon-memcg-lookup", err, errlen);
}

static int dml_setup(struct msim *m, void **state, void *arg)
{
	struct dml *s = calloc(1, sizeof(*s));
	char err[160];
	int ret;

	(void)arg;
	if (!s)
		return -ENOMEM;
	*state = s;
	s->m = m;
	if ((ret = rstat_scn_init(m)) || (ret = msim_damon_attach(m, err, sizeof(err))))
		return ret;
	if ((ret = msim_memcg_create(msim_root_mem_cgroup(m), "c", &s->c)))
		return ret;
	ret = msim_mod_lruvec_state(msim_mem_cgroup_lruvec(m, s->c, 0), MSIM_NR_INACTIVE_FILE,
				    DML_C_PAGES);
	if (ret)
		return ret;
	s->goal = (struct msim_damos_quota_goal){
		.metric = MSIM_DAMOS_QUOTA_NODE_MEMCG_USED_BP, .target_value = 1000, .nid = 0,
		.memcg_id = msim_mem_cgroup_private_id(s->c) };
	s->reader = msim_task_create(m, "damon", 0, reader_fn, s);
	s->rmdir = msim_task_create(m, "rmdir", 1, rmdir_fn, s);
	return s->reader && s->rmdir ? 0 : -ENOMEM;
}

static bool dml_check(struct msim *m, void *state, char *why, size_t len)
{
	struct dml *s = state;

	(void)m;
	if (s->info.use_after_free) {
		snprintf(why, len, "the goal reader used memcg c after its last reference was "
			 "dropped: c was freed (caught by the freed-memcg check)");
		return true;
	}
	if (s->info.use_after_release) {
		snprintf(why, len, "the goal reader used memcg c after its last reference was "
			 "dropped: c was released, its free queued");
		return true;
	}
	return false;
}

static const char *const state_names[] = {
	[MSIM_MEMCG_ALLOCATED] = "allocated", [MSIM_MEMCG_ONLINE] = "online",
	[MSIM_MEMCG_DYING] = "dying",         [MSIM_MEMCG_OFFLINE] = "offline",
	[MSIM_MEMCG_RELEASED] = "released",   [MSIM_MEMCG_FREED] = "freed",
};

static long freed_total(struct msim *m)
{
	struct msim_memcg_counts c;

	msim_memcg_counts(m, &c);
	return (long)c.freed_total;
}

/* Run t, ending grace periods whenever it waits for one. */
static int run_with_rcu(struct msim *m, struct msim_task *t)
{
	int ret;

	while ((ret = msim_run_task(m, t)) == -EDEADLK)
		if (!msim_rcu_step(m))
			return -EDEADLK;
	return ret;
}

/* End grace periods until nothing is left to do (recorded: the script replays). */
static void rcu_settle(struct msim *m)
{
	while (msim_rcu_step(m))
		;
}

static void report(struct dml *s, struct msim_race_report *rep, long freed_before_use)
{
	struct msim_damon_counts c;

	msim_damon_counts(s->m, &c);
	msim_race_fig_bool(rep, "found", s->info.found);
	msim_race_fig_int(rep, "freed_before_use", freed_before_use);
	msim_race_fig_str(rep, "state_at_use", state_names[s->info.state_at_use]);
	msim_race_fig_bool(rep, "use_after_free", s->info.use_after_free);
	msim_race_fig_int(rep, "used_pages", (long long)s->info.used_pages);
	msim_race_fig_int(rep, "bp", (long long)s->bp);
	msim_race_fig_int(rep, "freed_at_end", freed_total(s->m));
	msim_race_fig_int(rep, "uaf_counted", (long long)c.use_after_free);
}

/* The diagram's order: lookup, out of RCU; rmdir, both grace periods; the use. */
static int dml_script(struct msim *m, void *state, struct msim_race_report *rep)
{
	struct dml *s = state;
	char why[200] = "";
	long freed_before_use;
	int ret = msim_run_until(m, s->reader, "damos.memcg_used_bp.use", 1);

	if (ret || (ret = run_with_rcu(m, s->rmdir)))
		return ret;
	rcu_settle(m);                   /* every release and free that can run, runs */
	freed_before_use = freed_total(m);
	if ((ret = run_with_rcu(m, s->reader)))
		return ret;
	rcu_settle(m);
	rep->violated = dml_check(m, s, why, sizeof(why));
	msim_race_note(rep, "%s", rep->violated ? why : "the reference kept c until the read "
			"was done; c was freed at mem_cgroup_put");
	msim_race_note(rep, "c removed while the reader was out of RCU: %ld memcg freed "
		       "before its use", freed_before_use);
	report(s, rep, freed_before_use);
	return 0;
}

static bool dml_expect(const struct msim_config *cfg, const void *arg)
{
	(void)arg;
	return msim_variant_value(&cfg->variants, "damon-memcg-tryget") == MSIM_OFF;
}

#define DML_FIGURES(before, state, uaf, pages, bp, counted)                                 \
	(const struct msim_race_expect[]){                                                  \
		MSIM_RACE_EXPECT("found", 1), MSIM_RACE_EXPECT("freed_before_use", before), \
		MSIM_RACE_EXPECT_STR("state_at_use", state),                                \
		MSIM_RACE_EXPECT("use_after_free", uaf), MSIM_RACE_EXPECT("used_pages", pages), \
		MSIM_RACE_EXPECT("bp", bp), MSIM_RACE_EXPECT("freed_at_end", 1),            \
		MSIM_RACE_EXPECT("uaf_counted", counted), { NULL } }

static const struct msim_race damon_memcg_lookup = {
	.name = "damon-memcg-lookup",
	.summary = "DAMON's memcg goal reader uses the memcg it looked up by id after leaving "
		   "RCU: freed under it without a reference, kept with mem_cgroup_tryget",
	.thread = "002 (DAMON goal), Dec 2025 fix",
	.diagram =
		"c: 4000 LRU pages of node 0's 40000; goal: node_memcg_used_bp of c on node 0.\n"
		"\n"
		"CPU 0 (kdamond: damos_get_node_memcg_used_bp)  CPU 1 (rmdir c)\n"
		"---------------------------------------------  ---------------\n"
		"rcu_read_lock()\n"
		"memcg = mem_cgroup_from_id(goal->memcg_id)\n"
		"  [fix: mem_cgroup_tryget(memcg)]\n"
		"rcu_read_unlock()\n"
		"                                               offline c: private id erased,\n"
		"                                               online reference put:\n"
		"                                               last css_put -> css_release\n"
		"                                               (grace period) release work\n"
		"                                               (grace period) css_free: c freed\n"
		"mem_cgroup_flush_stats(memcg)\n"
		"lruvec_page_state(mem_cgroup_lruvec(memcg))\n"
		"  c is freed: use-after-free\n"
		"  [fix: c is offline, held by the reader;\n"
		"   mem_cgroup_put(memcg) frees it after]\n",
	.budget = { .runs = 500, .pct_depth = 3, .preemptions = 1, .dfs_runs = 5000 },
	.configure = dml_configure,
	.expect = dml_expect,
	.target = { .name = "damon-memcg-lookup", .setup = dml_setup, .check = dml_check,
		    .teardown = rstat_scn_teardown },
	.script = dml_script,
	.script_replays = true,
	.sides = (const struct msim_race_side[]){
		{ .name = "tryget", .settings = "", .demo = true,
		  .summary = "mainline: mem_cgroup_tryget before rcu_read_unlock; c stays offline "
			     "until the reader's put, which frees it",
		  .dfs_exhausts = true, .dfs_schedules = 1687,
		  .figures = DML_FIGURES(0, "offline", 0, 4000, 1000, 0) },
		{ .name = "no-tryget", .settings = "damon-memcg-tryget=off", .violation = true,
		  .demo = true, .clean_orders = true,
		  .summary = "the first version (b74a120bcf507): no reference; c is freed between "
			     "rcu_read_unlock and its use; the freed-memcg check catches the use",
		  .why = "used memcg c after its last reference was dropped",
		  .dfs_exhausts = true, .dfs_schedules = 2785,
		  .dfs_schedule = "0*5.1*2.R.1*9.0*2.R*2", .dfs_first_violation = 106,
		  .figures = DML_FIGURES(1, "freed", 1, 0, 0, 1) },
		{ NULL } },
};
MSIM_RACE_REGISTER(damon_memcg_lookup)
