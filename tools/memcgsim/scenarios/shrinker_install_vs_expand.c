/* SPDX-License-Identifier: MIT */
/*
 * shrinker-install-vs-expand (thread 001): in array-on-demand, a memcg's first
 * list on a superblock installs the shrinker unit into the memcg's pointer array
 * while a new mount crosses a unit boundary and expands (copies) every memcg's
 * array.
 *
 * Setup: superblock A (shrinker id 0) and 63 more memcg-aware shrinkers, so
 * shrinker_nr_max is 64; memcg C, empty (no unit: on demand).
 *
 *   CPU 0 (mount: shrinker id 64)       CPU 1 (C gets its lists on A)
 *   -----------------------------       ----------------------------
 *                                       memcg_list_lru_alloc -> unit install:
 *                                         [lock on: spin_lock(info_lock)]
 *                                         info = C's array (64 ids)
 *   expand_shrinker_info(64):
 *     [lock on: spin_lock waits]
 *     new = kmalloc(24 + 16)
 *     copy unit[0] = NULL
 *     publish new; kvfree_rcu(old)
 *                                         old->unit[0] = unit      <- lost
 *                                       lists published
 *                                       (later) list_lru_add: 0 -> 1
 *                                         set_shrinker_bit: new->unit[0] is NULL
 *   [lock off]: C has its lists on A's lru but no unit; the script then adds a
 *               dentry: one object on C's list and no bit, so no
 *               shrink_slab_memcg will ever visit it. [lock on]: the expansion
 *               copies after the install; [xarray]: an insert, nothing to copy.
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

static int s2_script(const struct msim_config *cfg, struct msim_scn_report *rep)
{
	struct msim *m;
	void *state = NULL;
	struct s2 *s;
	struct msim_shrinker_stats st;
	char why[256] = "";
	bool waited = false;
	int ret = shr_scn_host(cfg, &m);

	if (!ret)
		ret = s2_setup(m, &state, NULL);
	s = state;
	/* The installer has loaded C's header (array) or is about to insert (xarray). */
	if (!ret && msim_shrinker_layout(m) == MSIM_SHRINKER_INFO_ARRAY_ON_DEMAND)
		ret = shr_scn_until(m, s->install, "shrinker.install.store", 1);
	else if (!ret)
		ret = shr_scn_until(m, s->install, "xa_load", 1);
	if (!ret) {
		ret = shr_scn_finish(m, s->expand);
		if (ret == -EDEADLK) { /* the expansion waits for the install lock */
			waited = true;
			ret = 0;
		}
	}
	if (!ret)
		ret = shr_scn_finish(m, s->install);
	if (!ret)
		ret = msim_run(m);
	if (!ret) {
		msim_shrinker_stats(m, &st);
		rep->violated = s2_check(m, s, why, sizeof(why));
		/* the first dentry of A in C: its set_shrinker_bit finds the unit, or not */
		msim_sb_alloc_objects(s->sb, s->c, 0, MSIM_SB_DENTRY, 1);
		msim_scn_trace(rep, "%s", rep->violated ? why : "install kept: the unit and bit are there");
		msim_scn_fig_str(rep, "layout", msim_shrinker_layout_name(msim_shrinker_layout(m)));
		msim_scn_fig_int(rep, "shrinker_nr_max", msim_shrinker_nr_max(m));
		msim_scn_fig_bool(rep, "expansion_waited_for_lock", waited);
		msim_scn_fig_bool(rep, "unit_present", msim_shrinker_has_unit(s->c, 0, 0));
		msim_scn_fig_bool(rep, "bit_set", msim_shrinker_test_bit(s->c, 0, 0));
		msim_scn_fig_int(rep, "list_items", (long long)msim_list_lru_count_one(
				 msim_sb_lru(s->sb, MSIM_SB_DENTRY), 0, s->c));
		snprintf(rep->schedule, sizeof(rep->schedule), "%s", msim_schedule_string(m));
	}
	s2_teardown(m, state);
	for (int i = 0; i < 4; i++) /* C freed: its lost units are found and counted */
		msim_rcu_barrier();
	if (!ret) {
		msim_shrinker_stats(m, &st);
		msim_scn_fig_int(rep, "units_lost", (long long)st.units_lost);
	}
	msim_destroy(m);
	return ret;
}

static int s2_configure(struct msim_config *cfg, char *err, size_t len)
{
	shr_scn_configure(cfg, err, len);
	cfg->nr_nodes = 1;
	if (cfg->variants.shrinker_info == MSIM_SHRINKER_INFO_ARRAY)
		cfg->variants.shrinker_info = MSIM_SHRINKER_INFO_ARRAY_ON_DEMAND;
	return 0;
}

static bool s2_expect(const struct msim_config *cfg)
{
	return cfg->variants.shrinker_info == MSIM_SHRINKER_INFO_ARRAY_ON_DEMAND &&
	       cfg->variants.on_demand_lock == MSIM_OFF;
}

static const struct msim_scenario shrinker_install_vs_expand = {
	.name = "shrinker-install-vs-expand",
	.demo_sides = { "on-demand-lock=off", "", "shrinker-info=xarray", NULL },
	.summary = "on-demand unit install races an expansion copy (array-on-demand lock)",
	.thread = "001",
	.default_runs = 300,
	.default_depth = 2,
	.default_preemptions = 1,
	.default_dfs_runs = 12000, /* lock on: the bounded space is 10539 */
	.configure = s2_configure,
	.expect_violation = s2_expect,
	.target = { .name = "shrinker-install-vs-expand", .setup = s2_setup, .check = s2_check,
		    .teardown = s2_teardown },
	.script = s2_script,
};
MSIM_SCENARIO(shrinker_install_vs_expand)
