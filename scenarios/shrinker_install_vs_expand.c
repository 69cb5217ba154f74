/* SPDX-License-Identifier: MIT */
/*
 * shrinker-install-vs-expand (thread 001; docs/races.md): in array-on-demand, a memcg's first
 * list on a superblock installs the shrinker unit into the memcg's pointer array
 * while a new mount crosses a unit boundary and expands (copies) every memcg's
 * array.
 *
 * Setup: superblock A (shrinker id 0) and 63 more memcg-aware shrinkers, so
 * shrinker_nr_max is 64; memcg C, empty (no unit: on demand).
 *
 * [lock off] (the bug side): C has its lists on A's lru but no unit; the script
 * then adds a dentry: one object on C's list and no bit, so no shrink_slab_memcg
 * will ever visit it. [lock on]: the expansion copies after the install;
 * [xarray]: an insert, nothing to copy. Related to S2 (docs/races.md), which is
 * safe in the kernel because units are shared between the old and new info.
 *
 * Invariant checked by the explorers: a memcg with lists on a shrinker's lru has
 * that shrinker's unit (and every non-empty list has its bit).
 *
 * Configuration: the layout stays as given unless it is the mainline `array`
 * (which installs nothing); then array-on-demand is used.
 *
 * Shaped for DFS (1 preemption): the loss needs one preemption, in the
 * installer between its header load and its store, and DFS tries the deepest
 * alternatives first, so everything the installer does after the window and
 * every free 'R' step multiplies what DFS explores before it gets there. The run
 * has two memcgs (root and C), one node, the installer's tail is the kernel's
 * (rcu_read_unlock, xas_lock, insert-if-empty, xas_unlock: no second lock or
 * extra load), no grace period is left running from setup, and the RCU engine
 * starts no grace period that nobody waits for. The only R
 * steps are then the two the expansion's kvfree_rcu calls need. DFS finds the
 * loss at schedule 531; with the lock on it exhausts the whole bounded space
 * (10539 schedules) and in xarray 21, both without a violation. (Before: an idle
 * grace period from setup, another after the last callback and a longer
 * installer tail put it at schedule 700452.)
 */
#include "shrinker_scn.h"

#define S2_PRE 63

struct s2 {
	struct msim_super_block *sb;
	struct msim_shrinker *pre[S2_PRE];
	struct msim_shrinker *mount;
	struct msim_memcg *c;
	struct msim_task *expand, *install;
};

static void expand_fn(void *arg)
{
	struct s2 *s = arg;

	msim_shrinker_alloc(msim_current_host(), MSIM_SHRINKER_MEMCG_AWARE, "new-mount",
			    &s->mount);
}

/* The slab hook's memcg_list_lru_alloc: installs the unit, publishes the lists. */
static void install_fn(void *arg)
{
	struct s2 *s = arg;

	msim_memcg_list_lru_alloc(s->c, msim_sb_lru(s->sb, MSIM_SB_DENTRY));
}

static int s2_setup(struct msim *m, void **state, void *arg)
{
	struct s2 *s = calloc(1, sizeof(*s));
	int r, i;

	if (!s)
		return -ENOMEM;
	*state = s;
	if ((r = msim_shrinker_init(m)) || (r = msim_sb_mount(m, "A", &s->sb)))
		return r;
	for (i = 0; i < S2_PRE; i++)
		if ((r = msim_shrinker_alloc(m, MSIM_SHRINKER_MEMCG_AWARE, "pre", &s->pre[i])))
			return r;
	if ((r = msim_memcg_create(msim_root_mem_cgroup(m), "C", &s->c)))
		return r;
	shr_scn_rcu_quiesce(); /* R steps only for the run's own grace periods */
	s->install = msim_task_create(m, "install", 1, install_fn, s);
	s->expand = msim_task_create(m, "expand", 0, expand_fn, s);
	return s->expand && s->install ? 0 : -ENOMEM;
}

/*
 * Violated when C has its lists on A's lru but no unit for A: the first object's
 * set_shrinker_bit will find nothing (the script adds it and shows the lost bit).
 */
static bool s2_check(struct msim *m, void *state, char *why, size_t len)
{
	struct s2 *s = state;

	if (!msim_memcg_list_lru_allocated(s->c, msim_sb_lru(s->sb, MSIM_SB_DENTRY)) ||
	    msim_shrinker_has_unit(s->c, 0, 0))
		return msim_list_lru_check_bits(m, why, len) > 0;
	snprintf(why, len, "memcg C has its list on shrinker 0's lru but no unit (install lost)");
	return true;
}

static void s2_teardown(struct msim *m, void *state)
{
	struct s2 *s = state;

	if (!s)
		return;
	for (int i = 0; i < S2_PRE; i++)
		msim_shrinker_free(s->pre[i]);
	msim_shrinker_free(s->mount);
	if (s->sb)
		msim_sb_umount(s->sb);
	if (s->c)
		msim_memcg_rmdir(s->c);
	free(s);
}

/*
 * The installer parked at its window (after loading C's header in the array, at
 * xa_load in the xarray), the whole expansion, then the install's store. Sets
 * *waited when the expansion had to wait for the install lock.
 */
static int s2_interleave(struct msim *m, struct s2 *s, bool *waited)
{
	int ret;

	if (msim_shrinker_layout(m) == MSIM_SHRINKER_INFO_ARRAY_ON_DEMAND)
		ret = shr_scn_until(m, s->install, "shrinker.install.store", 1);
	else
		ret = shr_scn_until(m, s->install, "xa_load", 1);
	if (!ret) {
		ret = shr_scn_finish(m, s->expand);
		if (ret == -EDEADLK) { /* the expansion waits for the install lock */
			*waited = true;
			ret = 0;
		}
	}
	if (!ret)
		ret = shr_scn_finish(m, s->install);
	return ret ? ret : msim_run(m);
}

/* The verdict, then the first dentry of A in C: its set_shrinker_bit finds the unit, or not. */
static void s2_report(struct msim *m, struct s2 *s, bool waited, struct msim_race_report *rep)
{
	char why[256] = "";

	rep->violated = s2_check(m, s, why, sizeof(why));
	msim_sb_alloc_objects(s->sb, s->c, 0, MSIM_SB_DENTRY, 1);
	msim_race_note(rep, "%s", rep->violated ? why : "install kept: the unit and bit are there");
	msim_race_fig_str(rep, "layout", msim_shrinker_layout_name(msim_shrinker_layout(m)));
	msim_race_fig_int(rep, "shrinker_nr_max", msim_shrinker_nr_max(m));
	msim_race_fig_bool(rep, "expansion_waited_for_lock", waited);
	msim_race_fig_bool(rep, "unit_present", msim_shrinker_has_unit(s->c, 0, 0));
	msim_race_fig_bool(rep, "bit_set", msim_shrinker_test_bit(s->c, 0, 0));
	msim_race_fig_int(rep, "list_items", (long long)msim_list_lru_count_one(
			  msim_sb_lru(s->sb, MSIM_SB_DENTRY), 0, s->c));
	snprintf(rep->schedule, sizeof(rep->schedule), "%s", msim_schedule_string(m));
}

/* Its own host: C is freed before the host goes, so its lost units are counted. */
static int s2_script(const struct msim_config *cfg, void *arg, struct msim_race_report *rep)
{
	struct msim *m;
	void *state = NULL;
	struct msim_shrinker_stats st;
	bool waited = false;
	int ret = shr_scn_host(cfg, &m);

	if (!ret)
		ret = s2_setup(m, &state, NULL);
	if (!ret)
		ret = s2_interleave(m, state, &waited);
	if (!ret)
		s2_report(m, state, waited, rep);
	s2_teardown(m, state);
	for (int i = 0; i < 4; i++) /* C freed: its lost units are found and counted */
		msim_rcu_barrier();
	if (!ret) {
		msim_shrinker_stats(m, &st);
		msim_race_fig_int(rep, "units_lost", (long long)st.units_lost);
	}
	msim_destroy(m);
	return ret;
}

static int s2_configure(struct msim_config *cfg, char *err, size_t len)
{
	shr_scn_configure(cfg, err, len);
	cfg->nr_nodes = 1;
	if (msim_variant_value(&cfg->variants, "shrinker-info") == MSIM_SHRINKER_INFO_ARRAY)
		return msim_variant_set(&cfg->variants, "shrinker-info=array-on-demand", err, len);
	return 0;
}

static bool s2_expect(const struct msim_config *cfg, const void *arg)
{
	return msim_variant_value(&cfg->variants, "shrinker-info") ==
		       MSIM_SHRINKER_INFO_ARRAY_ON_DEMAND &&
	       msim_variant_value(&cfg->variants, "on-demand-lock") == MSIM_OFF;
}

static const struct msim_race shrinker_install_vs_expand = {
	.name = "shrinker-install-vs-expand",
	.summary = "on-demand unit install races an expansion copy (array-on-demand lock)",
	.thread = "001",
	.windows = "S2",
	.diagram =
		"CPU 0 (mount: shrinker id 64)       CPU 1 (C gets its lists on A)\n"
		"-----------------------------       ----------------------------\n"
		"                                    memcg_list_lru_alloc -> unit install:\n"
		"                                      [lock on: spin_lock(info_lock)]\n"
		"                                      info = C's array (64 ids)\n"
		"expand_shrinker_info(64):\n"
		"  [lock on: spin_lock waits]\n"
		"  new = kmalloc(24 + 16)\n"
		"  copy unit[0] = NULL\n"
		"  publish new; kvfree_rcu(old)\n"
		"                                      old->unit[0] = unit      <- lost\n"
		"                                    lists published\n"
		"                                    (later) list_lru_add: 0 -> 1\n"
		"                                      set_shrinker_bit: new->unit[0] is NULL\n",
	.budget = { .runs = 300, .pct_depth = 2, .preemptions = 1,
		    .dfs_runs = 12000 /* lock on: the bounded space is 10539 */ },
	.configure = s2_configure,
	.expect = s2_expect,
	.target = { .name = "shrinker-install-vs-expand", .setup = s2_setup, .check = s2_check,
		    .teardown = s2_teardown },
	.script_hosts = s2_script,
	.sides = (const struct msim_race_side[]){
		{ .name = "bug", .settings = "on-demand-lock=off", .violation = true, .demo = true,
		  .summary = "array-on-demand without the install lock: the unit goes into the "
			     "old copy",
		  .why = "no unit (install lost)",
		  /* installer to its store, the whole expansion, the store */
		  .dfs_schedule = "0*11.1*24.0*5.R*2", .dfs_first_violation = 530,
		  .figures = (const struct msim_race_expect[]){
			  MSIM_RACE_EXPECT("shrinker_nr_max", 128),
			  MSIM_RACE_EXPECT("unit_present", 0), MSIM_RACE_EXPECT("bit_set", 0),
			  MSIM_RACE_EXPECT("list_items", 1), MSIM_RACE_EXPECT("units_lost", 1),
			  { NULL } } },
		{ .name = "lock", .settings = "", .demo = true,
		  .summary = "array-on-demand with the lock: the expansion copies after the install",
		  .dfs_exhausts = true, .dfs_schedules = 10539, .dpor_schedules = 111,
		  .figures = (const struct msim_race_expect[]){
			  MSIM_RACE_EXPECT("expansion_waited_for_lock", 1),
			  MSIM_RACE_EXPECT("unit_present", 1), MSIM_RACE_EXPECT("bit_set", 1),
			  MSIM_RACE_EXPECT("units_lost", 0), { NULL } } },
		{ .name = "xarray", .settings = "shrinker-info=xarray", .demo = true,
		  .summary = "the thread's xarray: an insert, nothing to copy",
		  .dfs_exhausts = true, .dfs_schedules = 21, .dpor_schedules = 1,
		  .figures = (const struct msim_race_expect[]){
			  MSIM_RACE_EXPECT_STR("layout", "xarray"),
			  MSIM_RACE_EXPECT("unit_present", 1), MSIM_RACE_EXPECT("bit_set", 1),
			  { NULL } } },
		{ NULL } },
};
MSIM_RACE_REGISTER(shrinker_install_vs_expand)
