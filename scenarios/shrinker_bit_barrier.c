/* SPDX-License-Identifier: MIT */
/*
 * shrinker-bit-barrier (S1's barrier pair, docs/races.md):
 * are smp_mb__before_atomic() in set_shrinker_bit and smp_mb__after_atomic() in
 * shrink_slab_memcg needed, and under which memory model (docs/memory-model.md)?
 *
 * The setup is shrinker-bit-recount's: memcg C's list is empty and its bit still
 * set; CPU 0 runs shrink_slab_memcg(C), CPU 1 adds C's first dentry. The pairing
 * is the "2+2W"-like shape of store buffering:
 *
 *   CPU 1: nr_items = 1; [mb]; set_bit      CPU 0: clear_bit; [mb]; recount (nr_items)
 *
 * Bad state (the check of shrinker-bit-recount): at quiescence a non-empty list
 * whose bit is clear, so shrink_slab_memcg never visits C for this shrinker
 * until another list goes 0 -> 1. It needs CPU 1's set_bit before CPU 0's
 * clear_bit while the recount still reads nr_items 0.
 *
 *  - sc: the recount alone is enough; the barriers change nothing.
 *  - tso: x86's set_bit/clear_bit are locked instructions, full barriers of
 *    their own (smp_mb__{before,after}_atomic are compiler barriers there): the
 *    set_bit cannot become visible before nr_items. Not needed: DFS exhausts
 *    the "none" side's space under preemption bound 2 (early drains counted
 *    as preemptions) with no violation; unbounded DFS does not finish.
 *  - pso: a set_bit that returns nothing orders nothing, so nr_items can still
 *    sit in CPU 1's store buffer when its set_bit reaches memory: the barriers
 *    are needed. In this model the consumer's clear_bit reaches memory at once
 *    (only stores wait in buffers), so it is smp_mb__before_atomic that the bad
 *    state needs removed; on arm64 the recount's load could also pass the
 *    clear_bit, which smp_mb__after_atomic forbids and this model does not show.
 */
#include "shrinker_scn.h"

struct s1b {
	struct msim_super_block *sb;
	struct msim_memcg *c;
	struct msim_task *shrink, *add;
	unsigned int buffered;         /* CPU 1's store-buffer entries when its add ends */
};

static void shrink_fn(void *arg)
{
	struct s1b *s = arg;

	msim_shrink_slab(msim_current_host(), 0, s->c, MSIM_DEF_PRIORITY);
}

static void add_fn(void *arg)
{
	struct s1b *s = arg;

	msim_sb_alloc_objects(s->sb, s->c, 0, MSIM_SB_DENTRY, 1);
}

static int s1b_setup(struct msim *m, void **state, void *arg)
{
	struct s1b *s = calloc(1, sizeof(*s));
	int r;

	if (!s)
		return -ENOMEM;
	*state = s;
	if ((r = shr_scn_s1_stage(m, "s1b", &s->sb, &s->c)))
		return r;
	shr_scn_rcu_quiesce();
	s->shrink = msim_task_create(m, "shrink_slab_memcg", 0, shrink_fn, s);
	s->add = msim_task_create(m, "list_lru_add", 1, add_fn, s);
	return s->shrink && s->add ? 0 : -ENOMEM;
}

static void s1b_teardown(struct msim *m, void *state)
{
	struct s1b *s = state;

	if (!s)
		return;
	shr_scn_s1_unstage(s->sb, s->c);
	free(s);
}

/* The narrative: counted empty; the add runs whole; the clear, the recount; drains last. */
static int s1b_script(struct msim *m, void *state, struct msim_race_report *rep)
{
	const struct msim_config *cfg = msim_config(m);
	struct s1b *s = state;
	char why[256] = "";
	int id, ret = shr_scn_until(m, s->shrink, "shrink_slab_memcg.clear_bit", 1);

	if (!ret)
		ret = shr_scn_finish(m, s->add);
	s->buffered = msim_store_buffer_len(m, 1);
	if (!ret)
		ret = shr_scn_finish(m, s->shrink);
	if (!ret)
		ret = msim_run(m);   /* what is still buffered reaches memory */
	if (ret)
		return ret;
	id = msim_sb_shrinker(s->sb)->id;
	rep->violated = shr_scn_bits_check(m, s, why, sizeof(why));
	msim_race_note(rep, "%s", rep->violated ? why : "bit kept: the recount saw the new object");
	msim_race_fig_str(rep, "memory_model", msim_memory_model_name(cfg->memory_model));
	msim_race_fig_bool(rep, "barriers",
			   msim_variant_value(&cfg->variants, "shrinker-bit-barrier") ==
				   MSIM_SHRINKER_BIT_BARRIER_MB);
	msim_race_fig_int(rep, "buffered_after_add", s->buffered);
	msim_race_fig_int(rep, "list_items", (long long)msim_list_lru_count_one(
				  msim_sb_lru(s->sb, MSIM_SB_DENTRY), 0, s->c));
	msim_race_fig_bool(rep, "bit_set", msim_shrinker_test_bit(s->c, 0, id));
	return 0;
}

/* Reachable without the recount anywhere, and without the barriers under pso. */
static bool s1b_expect(const struct msim_config *cfg, const void *arg)
{
	return msim_variant_value(&cfg->variants, "shrinker-recount") == MSIM_OFF ||
	       (cfg->memory_model == MSIM_MEMORY_PSO &&
		msim_variant_value(&cfg->variants, "shrinker-bit-barrier") ==
			MSIM_SHRINKER_BIT_BARRIER_NONE);
}

#define S1B_FIGURES(mm, mb, buffered, bit)                                        \
	(const struct msim_race_expect[]){                                        \
		MSIM_RACE_EXPECT_STR("memory_model", mm),                         \
		MSIM_RACE_EXPECT("barriers", mb),                                 \
		MSIM_RACE_EXPECT("buffered_after_add", buffered),                 \
		MSIM_RACE_EXPECT("list_items", 1), MSIM_RACE_EXPECT("bit_set", bit), \
		{ NULL } }

static const struct msim_race shrinker_bit_barrier = {
	.name = "shrinker-bit-barrier",
	.summary = "S1's smp_mb__before/after_atomic pair: not needed under tso, needed under pso",
	.thread = "memory models",
	.windows = "S1",
	.min_cpus = 2,
	.diagram =
		"CPU 0 (shrink_slab_memcg(C))        CPU 1 (list_lru_add: C's first dentry)\n"
		"----------------------------        --------------------------------------\n"
		"bit set: do_shrink_slab\n"
		"  count = SHRINK_EMPTY\n"
		"                                    nr_items = 1   (pso: waits in the store buffer)\n"
		"                                    [smp_mb__before_atomic]\n"
		"                                    set_bit        (already set; pso: passes nr_items)\n"
		"clear_bit\n"
		"[smp_mb__after_atomic]\n"
		"recount: nr_items = 0 -> done\n"
		"                                    nr_items = 1 reaches memory\n"
		"pso, no barriers: 1 object on C's list, bit clear (never shrunk again until\n"
		"  another list of C goes 0 -> 1). With the barriers nr_items is in memory\n"
		"  before set_bit. Under tso set_bit is a locked instruction: it drains the\n"
		"  store buffer itself, so the barriers are not needed there.\n",
	/* drains and preemptions both count against the DFS bound (explore_dfs.c) */
	.budget = { .runs = 300, .pct_depth = 2, .preemptions = 2, .dfs_runs = 100000 },
	.configure = shr_scn_configure,
	.expect = s1b_expect,
	.target = { .name = "shrinker-bit-barrier", .setup = s1b_setup,
		    .check = shr_scn_bits_check,
		    .teardown = s1b_teardown },
	.script = s1b_script,
	.sides = (const struct msim_race_side[]){
		{ .name = "pso-none", .settings = "memory-model=pso,shrinker-bit-barrier=none",
		  .violation = true, .demo = true, .why = "bit clear",
		  .dfs_exhausts = true, .dfs_schedules = 5229, .dfs_first_violation = 696,
		  .dfs_schedule = "0*18.1*21.0*13.~1*2",
		  .summary = "pso without the barriers: set_bit passes nr_items, the bit is lost",
		  .figures = S1B_FIGURES("pso", 0, 2, 0) },
		{ .name = "pso-mb", .settings = "memory-model=pso", .demo = true,
		  .dfs_exhausts = true, .dfs_schedules = 1929,
		  .summary = "pso with the barriers: nr_items is visible before set_bit",
		  .figures = S1B_FIGURES("pso", 1, 0, 1) },
		{ .name = "tso-none", .settings = "memory-model=tso,shrinker-bit-barrier=none",
		  .demo = true, .dfs_exhausts = true, .dfs_schedules = 1811,
		  .summary = "tso without the barriers: x86's locked set_bit drains by itself",
		  .figures = S1B_FIGURES("tso", 0, 0, 1) },
		{ .name = "tso-mb", .settings = "memory-model=tso", .dfs_exhausts = true,
		  .dfs_schedules = 1929,
		  .summary = "tso with the barriers (mainline on x86)",
		  .figures = S1B_FIGURES("tso", 1, 0, 1) },
		{ .name = "sc-none", .settings = "shrinker-bit-barrier=none", .dfs_exhausts = true,
		  .dfs_schedules = 1236,
		  .summary = "sequential consistency without the barriers: the recount suffices",
		  .figures = S1B_FIGURES("sc", 0, 0, 1) },
		{ NULL } },
};
MSIM_RACE_REGISTER(shrinker_bit_barrier)
