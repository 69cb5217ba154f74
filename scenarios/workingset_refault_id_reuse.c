/* SPDX-License-Identifier: MIT */
/*
 * workingset-refault-id-reuse: a refault whose eviction memcg was removed and
 * whose private id was given to a new memcg (mm/workingset.c
 * workingset_test_recent; mem_cgroup_private_id_put() at offline drops the id
 * reference, and a freed id is reused at once, lowest first).
 *
 * p -> c1, classic LRU. c1 read pages 0-7 of a file and reclaim (target c1)
 * evicted them: each shadow holds c1's private id and c1's nonresident clock
 * at its eviction (page 0: 0; c1's clock is 8 afterwards). Then c1 is removed
 * (setup). CPU 0 makes c2 under p; CPU 1 reads page 0 back as p.
 *
 * workingset_test_recent() finds the eviction memcg by id. Before the mkdir
 * the id is free: "not recent" (had c1 been alive: distance 8 - 0 = 8 > its
 * workingset of no active page, not activated either). After the mkdir the id
 * is c2's: the distance is read off c2's fresh clock,
 * 0 - 0 = 0 <= 0, and the refault is activated by the history of a memcg that
 * never saw the page. The kernel knows (its comment: "rare and limited
 * disturbance ... activations are always speculative anyway") and has no fix.
 * Side held shows the invariant where the id cannot be reused: a reference on
 * it (as each swap entry holds on its memcg's id) keeps it c1's, and the dying
 * c1's clock decides.
 *
 * Invariant after every task: the refault is judged by c1's history (or not
 * at all): page 0 is not activated.
 */
#include "ws_scn.h"

struct rir_arg {
	bool hold_id;             /* a reference on c1's private id, as a swap entry's */
};

static const struct rir_arg rir_reused = { .hold_id = false };
static const struct rir_arg rir_held = { .hold_id = true };

struct rir {
	struct msim *m;
	struct msim_memcg *p, *c1, *c2;
	struct msim_address_space *file;
	struct msim_task *replace, *refault;
	bool hold_id, settled, violated;
	int refault_ret, mkdir_ret;
	unsigned short c1_id, c2_id;
	char why[200];
};

static void mkdir_fn(void *arg)
{
	struct rir *s = arg;

	s->mkdir_ret = msim_memcg_create(s->p, "c2", &s->c2);
	if (!s->mkdir_ret)
		s->c2_id = msim_mem_cgroup_private_id(s->c2);
}

static void refault_fn(void *arg)
{
	struct rir *s = arg;

	s->refault_ret = msim_filemap_read(s->file, 0, s->p, 0, false);
}

static int rir_setup(struct msim *m, void **state, void *arg)
{
	const struct rir_arg *a = arg ? arg : &rir_reused;
	struct rir *s = calloc(1, sizeof(*s));
	int ret;

	if (!s)
		return -ENOMEM;
	*state = s;
	s->m = m;
	s->hold_id = a->hold_id;
	if ((ret = ws_scn_init(m)) ||
	    (ret = msim_memcg_create(msim_root_mem_cgroup(m), "p", &s->p)) ||
	    (ret = msim_memcg_create(s->p, "c1", &s->c1)) ||
	    (ret = msim_address_space_create(m, "file", &s->file)) ||
	    (ret = ws_scn_read(s->file, 0, 8, s->c1)))
		return ret;
	if (msim_workingset_reclaim(s->c1, 8, NULL) != 8)
		return -EIO;
	s->c1_id = msim_mem_cgroup_private_id(s->c1);
	if (s->hold_id)
		msim_mem_cgroup_private_id_get(s->c1);
	msim_mem_cgroup_flush_stats_forced(msim_root_mem_cgroup(m));
	/* rmdir c1: offline drops the online id reference (the last, unless held) */
	if ((ret = msim_memcg_rmdir(s->c1)))
		return ret;
	msim_rcu_barrier();
	s->replace = msim_task_create(m, "mkdir", 0, mkdir_fn, s);
	s->refault = msim_task_create(m, "refault", 1, refault_fn, s);
	return s->replace && s->refault ? 0 : -ENOMEM;
}

static bool rir_check(struct msim *m, void *state, char *why, size_t len)
{
	struct rir *s = state;

	(void)m;
	if (!s->settled) {
		s->settled = true;
		s->violated = s->refault_ret == MSIM_FILEMAP_REFAULT_ACTIVATED;
		if (s->violated)
			snprintf(s->why, sizeof(s->why), "refault judged by another memcg: page 0 "
				 "was activated by c2's clock, c2 having taken c1's id %u",
				 (unsigned int)s->c1_id);
	}
	snprintf(why, len, "%s", s->why);
	return s->violated;
}

static void rir_teardown(struct msim *m, void *state)
{
	struct rir *s = state;

	(void)m;
	if (!s)
		return;
	if (s->file)
		msim_address_space_destroy(s->file);
	if (s->hold_id && s->c1_id)
		msim_mem_cgroup_private_id_put(s->c1);
	free(s);
}

static void rir_report(struct rir *s, struct msim_race_report *rep)
{
	msim_race_fig_int(rep, "refault_outcome", s->refault_ret);
	msim_race_fig_bool(rep, "activated", s->refault_ret == MSIM_FILEMAP_REFAULT_ACTIVATED);
	msim_race_fig_bool(rep, "c2_took_c1_id", s->c2 && s->c2_id == s->c1_id);
	msim_race_fig_int(rep, "mkdir", s->mkdir_ret);
	msim_race_note(rep, "%s", s->violated ? s->why : "page 0 is judged by c1's history: "
		       "not activated");
}

/* The refault unpacks the shadow; c2 comes; the refault looks the id up. */
static int rir_script(struct msim *m, void *state, struct msim_race_report *rep)
{
	struct rir *s = state;
	char why[200];
	int ret;

	if ((ret = msim_run_until(m, s->refault, "workingset.test_recent.lookup", 1)) ||
	    (ret = msim_run_task(m, s->replace)) || (ret = msim_run_task(m, s->refault)))
		return ret;
	while (msim_rcu_step(m))
		;
	rep->violated = rir_check(m, s, why, sizeof(why));
	rir_report(s, rep);
	return 0;
}

static int rir_configure(struct msim_config *cfg, char *err, size_t len)
{
	(void)err;
	(void)len;
	cfg->lru = MSIM_LRU_CLASSIC;   /* the MGLRU refault reads max_seq, not a clock */
	return 0;
}

static bool rir_expect(const struct msim_config *cfg, const void *arg)
{
	const struct rir_arg *a = arg ? arg : &rir_reused;

	(void)cfg;
	return !a->hold_id;
}

#define RIR_FIGURES(activated, took)                                                         \
	(const struct msim_race_expect[]){                                                   \
		MSIM_RACE_EXPECT("refault_outcome", (activated) ? MSIM_FILEMAP_REFAULT_ACTIVATED \
								: MSIM_FILEMAP_REFAULT),    \
		MSIM_RACE_EXPECT("activated", activated),                                    \
		MSIM_RACE_EXPECT("c2_took_c1_id", took), MSIM_RACE_EXPECT("mkdir", 0),       \
		{ NULL } }

static const struct msim_race workingset_refault_id_reuse = {
	.name = "workingset-refault-id-reuse",
	.summary = "a refault whose eviction memcg was removed and its private id reused is "
		   "judged by the new memcg's clock (no upstream fix; side held: the id "
		   "pinned, as swap entries pin theirs)",
	.thread = "000",
	.diagram =
		"c1 evicted pages 0-7: shadows (c1's id, c1's clock 0..7); c1's clock 8.\n"
		"\n"
		"rmdir c1: offline drops the id's last reference: the id is free.\n"
		"\n"
		"CPU 0                                CPU 1 (read page 0 as p)\n"
		"-----                                ------------------------\n"
		"                                     store folio; unpack the shadow:\n"
		"                                       id = c1's, eviction 0\n"
		"mkdir c2: the lowest free id,\n"
		"  c1's; c2's clock 0\n"
		"                                     mem_cgroup_from_private_id: c2\n"
		"                                     distance 0 - 0 = 0 <= 0 active:\n"
		"                                       activated (c1 would say 8 > 0)\n"
		"\n"
		"held: the id keeps a reference: c2 gets another id; the lookup\n"
		"finds the dying c1: 8 > 0, not activated.\n",
	.budget = { .runs = 200, .pct_depth = 3, .preemptions = 1, .dfs_runs = 1000 },
	.configure = rir_configure,
	.min_cpus = 2,
	.expect = rir_expect,
	.target = { .name = "workingset-refault-id-reuse", .setup = rir_setup, .check = rir_check,
		    .teardown = rir_teardown },
	.script = rir_script,
	.script_replays = true,
	.sides = (const struct msim_race_side[]){
		/*
		 * A refault that looks the id up before the mkdir is judged "not recent"
		 * (clean), but the mkdir is 17 steps and the refault's lookup 60 in: the
		 * random explorer almost never sees that order, so it is not claimed.
		 */
		{ .name = "reused", .settings = "", .arg = (void *)&rir_reused, .violation = true,
		  .demo = true,
		  .summary = "mainline: the freed id goes to c2, whose clock judges the refault",
		  .why = "refault judged by another memcg",
		  .figures = RIR_FIGURES(1, 1) },
		{ .name = "held", .settings = "", .arg = (void *)&rir_held, .demo = true,
		  .summary = "the id pinned (as a swap entry pins it): c2 gets another id, the "
			     "dying c1 judges",
		  .figures = RIR_FIGURES(0, 0) },
		{ NULL } },
};
MSIM_RACE_REGISTER(workingset_refault_id_reuse)
