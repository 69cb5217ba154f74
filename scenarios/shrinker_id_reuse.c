/* SPDX-License-Identifier: MIT */
/*
 * shrinker-id-reuse (S3, docs/races.md): shrinker_free
 * leaves the bits and deferred counts of its id in every memcg's unit; the next
 * memcg-aware shrinker takes the lowest free id, the same one, and inherits both.
 *
 * Setup: shrinker A (id 0, count 1000, scan stops) ran once on memcg C at
 * priority 0, leaving 2000 deferred objects and its bit in C.
 *
 * This is the kernel's behaviour (no fix): every strategy must reach it when the
 * free precedes the allocation; if B allocates first it gets id 1, clean.
 */
#include "shrinker_scn.h"

struct s3 {
	struct shr_scn_fake fa, fb;
	struct msim_shrinker *a, *b;
	struct msim_memcg *c;
	struct msim_task *freer, *alloc;
	int b_id;
};

static void free_fn(void *arg)
{
	struct s3 *s = arg;

	msim_shrinker_free(s->a);
	s->a = NULL;
}

static void alloc_fn(void *arg)
{
	struct s3 *s = arg;

	if (shr_scn_fake_new(msim_current_host(), &s->fb, &s->b) == 0)
		s->b_id = s->b->id;
}

static int s3_setup(struct msim *m, void **state, void *arg)
{
	struct s3 *s = calloc(1, sizeof(*s));
	struct msim_shrink_control sc = { 0 };
	int r;

	if (!s)
		return -ENOMEM;
	*state = s;
	s->b_id = -1;
	s->fa.count = 1000;
	s->fb.count = 0;
	if ((r = msim_shrinker_init(m)) || (r = shr_scn_fake_new(m, &s->fa, &s->a)) ||
	    (r = msim_memcg_create(msim_root_mem_cgroup(m), "C", &s->c)))
		return r;
	if ((r = msim_shrinker_unit_install(s->c, 0, s->a->id)))
		return r;
	msim_set_shrinker_bit(s->c, 0, s->a->id);
	sc.memcg = s->c;
	msim_do_shrink_slab(&sc, s->a, 0); /* 2000 deferred in C's unit */
	msim_rcu_barrier();
	s->freer = msim_task_create(m, "shrinker_free(A)", 0, free_fn, s);
	s->alloc = msim_task_create(m, "shrinker_alloc(B)", 1, alloc_fn, s);
	return s->freer && s->alloc ? 0 : -ENOMEM;
}

/* "Violation" = the kernel's inheritance happened: B has A's id, bit and counts. */
static bool s3_check(struct msim *m, void *state, char *why, size_t len)
{
	struct s3 *s = state;
	long d;

	if (s->b_id != 0)
		return false;
	d = msim_shrinker_memcg_nr_deferred(s->c, 0, 0);
	if (!msim_shrinker_test_bit(s->c, 0, 0) && !d)
		return false;
	snprintf(why, len, "new shrinker B reuses id 0: bit %s, %ld deferred objects of A",
		 msim_shrinker_test_bit(s->c, 0, 0) ? "set" : "clear", d);
	return true;
}

static void s3_teardown(struct msim *m, void *state)
{
	struct s3 *s = state;

	if (!s)
		return;
	msim_shrinker_free(s->a);
	msim_shrinker_free(s->b);
	if (s->c)
		msim_memcg_rmdir(s->c);
	free(s);
}

static int s3_script(struct msim *m, void *state, struct msim_race_report *rep)
{
	struct s3 *s = state;
	char why[256] = "";
	unsigned long before;
	int ret = shr_scn_finish(m, s->freer);

	if (!ret)
		ret = shr_scn_finish(m, s->alloc);
	if (!ret)
		ret = msim_run(m);
	if (!ret) {
		rep->violated = s3_check(m, s, why, sizeof(why));
		msim_race_note(rep, "%s", rep->violated ? why : "no inheritance");
		msim_race_fig_int(rep, "new_id", s->b_id);
		msim_race_fig_bool(rep, "inherited_bit", msim_shrinker_test_bit(s->c, 0, 0));
		msim_race_fig_int(rep, "inherited_deferred", msim_shrinker_memcg_nr_deferred(s->c, 0, 0));
		/* B's first shrink of C: called (bit set) although B has nothing there */
		before = s->fb.count_calls;
		msim_shrink_slab(m, 0, s->c, MSIM_DEF_PRIORITY);
		msim_race_fig_int(rep, "b_count_calls_on_c", (long long)(s->fb.count_calls - before));
		msim_race_fig_bool(rep, "bit_after_b_shrink", msim_shrinker_test_bit(s->c, 0, 0));
	}
	return ret;
}

/* The inherited state, in every layout. */
#define S3_FIGURES                                                                \
	(const struct msim_race_expect[]){                                        \
		MSIM_RACE_EXPECT("new_id", 0), MSIM_RACE_EXPECT("inherited_bit", 1), \
		MSIM_RACE_EXPECT("inherited_deferred", 2000),                     \
		MSIM_RACE_EXPECT("b_count_calls_on_c", 1),                        \
		/* B counts 0: the bit stays */                                   \
		MSIM_RACE_EXPECT("bit_after_b_shrink", 1), { NULL } }

#define S3_LAYOUT_SIDE(layout)                                                   \
	{ .name = layout, .settings = "shrinker-info=" layout, .violation = true, \
	  .clean_orders = true, .summary = "the same inheritance in the " layout " layout", \
	  .why = "reuses id 0", .figures = S3_FIGURES }

static const struct msim_race shrinker_id_reuse = {
	.name = "shrinker-id-reuse",
	.summary = "a new shrinker reusing a freed id inherits its bits and deferred counts (S3)",
	.thread = "001",
	.windows = "S3",
	.diagram =
		"CPU 0 (umount: shrinker_free(A))    CPU 1 (mount: shrinker_alloc(B))\n"
		"--------------------------------    --------------------------------\n"
		"put initial ref, wait for users\n"
		"list_del_rcu; idr_remove(0)\n"
		"                                    idr_alloc -> 0 (lowest free)\n"
		"                                    register B\n"
		"C's unit: bit 0 still set, nr_deferred[0] = 2000: B's first shrink of C is\n"
		"called for objects it never had, and takes 2000 deferred objects of A.\n",
	.budget = { .runs = 100, .pct_depth = 2, .preemptions = 1, .dfs_runs = 2000 },
	.configure = shr_scn_configure,
	.target = { .name = "shrinker-id-reuse", .setup = s3_setup, .check = s3_check,
		    .teardown = s3_teardown },
	.script = s3_script,
	.sides = (const struct msim_race_side[]){
		{ .name = "kernel", .settings = "", .violation = true, .clean_orders = true,
		  .demo = true,
		  .summary = "the kernel's behaviour (no fix): B gets id 0, A's bit and 2000 "
			     "deferred objects",
		  .why = "reuses id 0", .figures = S3_FIGURES },
		S3_LAYOUT_SIDE("array"),
		S3_LAYOUT_SIDE("array-unit-cache"),
		S3_LAYOUT_SIDE("array-on-demand"),
		S3_LAYOUT_SIDE("xarray"),
		{ NULL } },
};
MSIM_RACE_REGISTER(shrinker_id_reuse)
