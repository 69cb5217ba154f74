/* SPDX-License-Identifier: MIT */
/*
 * shrinker-bit-recount (S1, docs/races.md): a memcg's
 * list gains its first object while shrink_slab_memcg, having counted it empty,
 * clears its bit.
 *
 * Setup: one superblock; memcg C had one dentry which was freed, so its list is
 * empty and its bit still set (list_lru_del never clears a bit).
 *
 * Invariant: at quiescence every non-empty per-memcg list has its bit set.
 * Variant shrinker-recount=off removes the clear-barrier-recount (the bug side);
 * the window is the same in every layout (units exist once the list does).
 */
#include "shrinker_scn.h"

struct s1 {
	struct msim_super_block *sb;
	struct msim_memcg *c;
	struct msim_task *shrink, *add;
	unsigned long freed;
};

static void shrink_fn(void *arg)
{
	struct s1 *s = arg;

	s->freed = msim_shrink_slab(msim_current_host(), 0, s->c, MSIM_DEF_PRIORITY);
}

static void add_fn(void *arg)
{
	struct s1 *s = arg;

	msim_sb_alloc_objects(s->sb, s->c, 0, MSIM_SB_DENTRY, 1);
}

static int s1_setup(struct msim *m, void **state, void *arg)
{
	struct s1 *s = calloc(1, sizeof(*s));
	int r;

	if (!s)
		return -ENOMEM;
	*state = s;
	if ((r = shr_scn_s1_stage(m, "s1", &s->sb, &s->c)))
		return r;
	msim_rcu_barrier(); /* no callback pending: R steps only for the run's own */
	s->shrink = msim_task_create(m, "shrink_slab_memcg", 0, shrink_fn, s);
	s->add = msim_task_create(m, "list_lru_add", 1, add_fn, s);
	return s->shrink && s->add ? 0 : -ENOMEM;
}

static void s1_teardown(struct msim *m, void *state)
{
	struct s1 *s = state;

	if (!s)
		return;
	shr_scn_s1_unstage(s->sb, s->c);
	free(s);
}

static int s1_script(struct msim *m, void *state, struct msim_race_report *rep)
{
	const struct msim_config *cfg = msim_config(m);
	struct s1 *s = state;
	char why[256] = "";
	int id, ret = shr_scn_until(m, s->shrink, "shrink_slab_memcg.clear_bit", 1);

	if (!ret)
		ret = shr_scn_finish(m, s->add);
	if (!ret)
		ret = shr_scn_finish(m, s->shrink);
	if (!ret)
		ret = msim_run(m);
	if (!ret) {
		id = msim_sb_shrinker(s->sb)->id;
		rep->violated = shr_scn_bits_check(m, s, why, sizeof(why));
		msim_race_note(rep, "%s", rep->violated ? why : "bit kept: the recount saw the new object");
		msim_race_fig_int(rep, "list_items", (long long)msim_list_lru_count_one(
				 msim_sb_lru(s->sb, MSIM_SB_DENTRY), 0, s->c));
		msim_race_fig_bool(rep, "bit_set", msim_shrinker_test_bit(s->c, 0, id));
		msim_race_fig_bool(rep, "recount",
				   msim_variant_value(&cfg->variants, "shrinker-recount") ==
					   MSIM_ON);
	}
	return ret;
}

static bool s1_expect(const struct msim_config *cfg, const void *arg)
{
	return msim_variant_value(&cfg->variants, "shrinker-recount") == MSIM_OFF;
}

/* The script's end state: one object on C's list; its bit kept, or lost. */
#define S1_FIGURES(bit)                                                           \
	(const struct msim_race_expect[]){                                        \
		MSIM_RACE_EXPECT("list_items", 1), MSIM_RACE_EXPECT("bit_set", bit), \
		MSIM_RACE_EXPECT("recount", bit), { NULL } }

#define S1_LAYOUT_SIDES(layout)                                                  \
	{ .name = "bug-" layout, .settings = "shrinker-info=" layout ",shrinker-recount=off", \
	  .violation = true, .summary = "the bug side in the " layout " layout",  \
	  .figures = S1_FIGURES(0) },                                            \
	{ .name = "fix-" layout, .settings = "shrinker-info=" layout,            \
	  .summary = "the fix side in the " layout " layout", .figures = S1_FIGURES(1) }

static const struct msim_race shrinker_bit_recount = {
	.name = "shrinker-bit-recount",
	.summary = "first list_lru_add races shrink_slab_memcg's clear_bit (S1)",
	.thread = "001",
	.windows = "S1",
	.diagram =
		"CPU 0 (shrink_slab_memcg(C))        CPU 1 (create a dentry in C)\n"
		"----------------------------        ---------------------------\n"
		"bit set: do_shrink_slab\n"
		"  count = SHRINK_EMPTY\n"
		"                                    list_lru_add: nr_items 0 -> 1\n"
		"                                    smp_mb; set_bit  (already set)\n"
		"clear_bit\n"
		"[recount on]  smp_mb; count = 1 -> set_shrinker_bit again: kept\n"
		"[recount off] done: 1 object on C's list, bit clear; no shrink_slab_memcg\n"
		"              visits C for this superblock until another list goes 0 -> 1\n",
	.budget = { .runs = 300, .pct_depth = 2, .preemptions = 1, .dfs_runs = 5000 },
	.configure = shr_scn_configure,
	.expect = s1_expect,
	.target = { .name = "shrinker-bit-recount", .setup = s1_setup,
		    .check = shr_scn_bits_check,
		    .teardown = s1_teardown },
	.script = s1_script,
	.sides = (const struct msim_race_side[]){
		{ .name = "bug", .settings = "shrinker-recount=off", .violation = true,
		  .demo = true,
		  .summary = "without the recount: 1 object on C's list and its bit clear",
		  .why = "bit clear", .figures = S1_FIGURES(0) },
		{ .name = "fix", .settings = "", .demo = true, .dfs_exhausts = true,
		  .dfs_schedules = 54, .dpor_schedules = 9,
		  .summary = "mainline: clear_bit, smp_mb, recount; the bit is set again",
		  .figures = S1_FIGURES(1) },
		S1_LAYOUT_SIDES("array-unit-cache"),
		S1_LAYOUT_SIDES("array-on-demand"),
		S1_LAYOUT_SIDES("xarray"),
		{ NULL } },
};
MSIM_RACE_REGISTER(shrinker_bit_recount)
