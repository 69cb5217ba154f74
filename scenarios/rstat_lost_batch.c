/* SPDX-License-Identifier: MIT */
/*
 * rstat-lost-batch: races R2 and R3 (docs/races.md). A batch
 * pushed into a memcg's atomic stats_updates is wiped by a flusher that did not
 * fold the per-CPU deltas behind it, so the heuristic under-counts pending work
 * until a forced or periodic flush. Stat values are never lost: that is the
 * invariant that holds.
 *
 * R2, the atomic reset is read-then-set (root -> leaf, 4 CPUs, threshold 256;
 * leaf has 256 pages on CPU 1; a forced flush of leaf). R3, resets continue
 * after the CPUs already walked (leaf queued on CPUs 1 and 3). Both end with
 * leaf's whole count (atomic plus per-CPU counts) at 0 while 64 pages are
 * unflushed. The explorer's check: after the run, the count is below the
 * unflushed volume (a batch was lost); the state values are then checked exact
 * after a forced flush. Side "values" checks only that invariant.
 */
#include <memcgsim/introspect.h>

#include "rstat_scn.h"

/* Address used as the explorer target's arg: check stat values only. */
const int msim_rstat_lost_batch_values_only = 1;

struct lb {
	struct msim *m;
	struct msim_memcg *root, *leaf;
	struct msim_task *flusher, *updater, *other;
	long upd_val;
	int upd_calls;
	long applied;
	bool forced;
	bool values_only;       /* check only the invariant that holds (target arg) */
};

static void updater_fn(void *arg)
{
	struct lb *s = arg;

	for (int i = 0; i < s->upd_calls; i++) {
		s->applied += s->upd_val;
		msim_mod_memcg_state(s->leaf, MSIM_NR_FILE_PAGES, s->upd_val);
	}
}

/* A few pages on the last CPU, so leaf is queued there too (R3). */
static void other_fn(void *arg)
{
	struct lb *s = arg;

	s->applied += 3;
	msim_mod_memcg_state(s->leaf, MSIM_NR_FILE_PAGES, 3);
}

static void flusher_fn(void *arg)
{
	struct lb *s = arg;

	if (s->forced)
		msim_mem_cgroup_flush_stats_forced(s->leaf);
	else
		msim_mem_cgroup_flush_stats(s->leaf);
}

static int lb_build(struct msim *m, struct lb *s, long val, int calls)
{
	int ret;

	s->m = m;
	s->upd_val = val;
	s->upd_calls = calls;
	if ((ret = rstat_scn_init(m)))
		return ret;
	s->root = msim_root_mem_cgroup(m);
	if ((ret = msim_memcg_create(s->root, "leaf", &s->leaf)))
		return ret;
	s->other = msim_task_create(m, "other", msim_nr_cpus(m) - 1, other_fn, s);
	s->updater = msim_task_create(m, "updater", 1, updater_fn, s);
	s->flusher = msim_task_create(m, "flusher", 0, flusher_fn, s);
	return s->other && s->updater && s->flusher ? 0 : -ENOMEM;
}

/* leaf's whole heuristic count: atomic plus per-CPU counts. */
static long leaf_count(struct lb *s)
{
	long sum = msim_memcg_stats_updates(s->leaf);

	for (unsigned int c = 0; c < msim_nr_cpus(s->m); c++)
		sum += msim_memcg_stats_updates_cpu(s->leaf, c);
	return sum;
}

static bool lb_lost(struct lb *s, char *why, size_t len)
{
	long count = leaf_count(s), unflushed = msim_memcg_unflushed(s->leaf);

	if (count >= unflushed)
		return false;
	snprintf(why, len, "lost batch: leaf counts %ld pending updates but %ld pages are "
		 "unflushed", count, unflushed);
	return true;
}

/* The invariant that holds: a forced flush makes leaf's state exact. */
static bool lb_state_exact(struct lb *s)
{
	msim_mem_cgroup_flush_stats_forced(s->leaf);
	return (long)msim_memcg_page_state(s->leaf, MSIM_NR_FILE_PAGES) == s->applied;
}

static int lb_setup(struct msim *m, void **state, void *arg)
{
	struct lb *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	*state = s;
	s->forced = true;
	/*
	 * Target arg &msim_rstat_lost_batch_values_only: the run's check is only
	 * the invariant that holds (stat values exact after a forced flush), so
	 * the same exploration budget shows no schedule loses a value.
	 */
	s->values_only = arg == &msim_rstat_lost_batch_values_only;
	return lb_build(m, s, 64, 3);
}

static bool lb_check(struct msim *m, void *state, char *why, size_t len)
{
	struct lb *s = state;
	bool lost = !s->values_only && lb_lost(s, why, len);

	if (!lb_state_exact(s)) {
		snprintf(why, len, "stat value lost: leaf reports %lu of %ld pages",
			 msim_memcg_page_state(s->leaf, MSIM_NR_FILE_PAGES), s->applied);
		return true;
	}
	return lost;
}

static int new_host(const struct msim_config *cfg, struct msim **m, struct lb *s, long val,
		    int calls)
{
	int ret = scn_host_new(cfg, m);

	if (ret)
		return ret;
	memset(s, 0, sizeof(*s));
	return lb_build(*m, s, val, calls);
}

/*
 * R2: 4 batches on CPU 1 (256: at the threshold, so the updater still counts at
 * leaf); the forced leaf flush parked between its read and its set.
 */
static int script_r2(const struct msim_config *cfg, struct msim_race_report *rep)
{
	struct msim *m;
	struct lb s;
	char why[256] = "";
	int ret = new_host(cfg, &m, &s, 1, 5 * MSIM_MEMCG_CHARGE_BATCH);

	s.forced = true;
	if (!ret)
		ret = msim_run_until(m, s.updater, "rstat.update.done", 4 * MSIM_MEMCG_CHARGE_BATCH);
	if (!ret)
		ret = msim_run_until(m, s.flusher, "rstat.flush.atomic_set", 1);
	if (!ret) {
		msim_race_fig_int(rep, "r2_atomic_read_by_flusher", msim_memcg_stats_updates(s.leaf));
		ret = msim_run_until(m, s.updater, "rstat.update.done", MSIM_MEMCG_CHARGE_BATCH);
	}
	if (!ret) {
		msim_race_fig_int(rep, "r2_atomic_before_set", msim_memcg_stats_updates(s.leaf));
		ret = msim_run_task(m, s.flusher);
	}
	if (!ret) {
		bool lost = lb_lost(&s, why, sizeof(why));

		msim_race_fig_int(rep, "r2_leaf_atomic", msim_memcg_stats_updates(s.leaf));
		msim_race_fig_int(rep, "r2_leaf_count", leaf_count(&s));
		msim_race_fig_int(rep, "r2_unflushed", msim_memcg_unflushed(s.leaf));
		msim_race_fig_bool(rep, "r2_lost", lost);
		msim_race_note(rep, "R2: %s", lost ? why : "no batch lost");
		rep->violated |= lost;
		ret = msim_run(m);
	}
	if (!ret)
		msim_race_fig_bool(rep, "r2_state_exact_after_forced", lb_state_exact(&s));
	msim_destroy(m);
	return ret;
}

/* R3: leaf queued on CPU 1 and CPU N-1; a batch pushed after CPU 1's visit. */
static int script_r3(const struct msim_config *cfg, struct msim_race_report *rep)
{
	struct msim *m;
	struct lb s;
	char why[256] = "";
	int ret = new_host(cfg, &m, &s, 1, 2 * MSIM_MEMCG_CHARGE_BATCH);

	s.forced = true;
	if (!ret)
		ret = msim_run_task(m, s.other);
	if (!ret)
		ret = msim_run_until(m, s.updater, "rstat.update.done", MSIM_MEMCG_CHARGE_BATCH);
	if (!ret)
		ret = msim_run_until(m, s.flusher, "rstat.flush.cpu_start", 3);
	if (!ret) {
		msim_race_fig_int(rep, "r3_atomic_after_cpu1", msim_memcg_stats_updates(s.leaf));
		ret = msim_run_until(m, s.updater, "rstat.update.done", MSIM_MEMCG_CHARGE_BATCH);
	}
	if (!ret) {
		msim_race_fig_int(rep, "r3_atomic_after_push", msim_memcg_stats_updates(s.leaf));
		ret = msim_run_task(m, s.flusher);
	}
	if (!ret) {
		bool lost = lb_lost(&s, why, sizeof(why));

		msim_race_fig_int(rep, "r3_leaf_atomic", msim_memcg_stats_updates(s.leaf));
		msim_race_fig_int(rep, "r3_leaf_count", leaf_count(&s));
		msim_race_fig_int(rep, "r3_unflushed", msim_memcg_unflushed(s.leaf));
		msim_race_fig_bool(rep, "r3_lost", lost);
		msim_race_note(rep, "R3: %s", lost ? why : "no batch lost");
		rep->violated |= lost;
		ret = msim_run(m);
	}
	if (!ret)
		msim_race_fig_bool(rep, "r3_state_exact_after_forced", lb_state_exact(&s));
	/* the R3 host's schedule (the R2 host's is not kept) */
	snprintf(rep->schedule, sizeof(rep->schedule), "%s", msim_schedule_string(m));
	msim_destroy(m);
	return ret;
}

static bool fig_true(const struct msim_race_report *rep, const char *key)
{
	const struct msim_race_fig *f = msim_race_fig_find(rep, key);

	return f && f->i;
}

static int lb_script(const struct msim_config *cfg, void *arg, struct msim_race_report *rep)
{
	int ret = script_r2(cfg, rep);

	if (!ret)
		ret = script_r3(cfg, rep);
	/* Side "values" judges only what holds: each forced flush made leaf exact. */
	if (!ret && arg == &msim_rstat_lost_batch_values_only)
		rep->violated = !fig_true(rep, "r2_state_exact_after_forced") ||
				!fig_true(rep, "r3_state_exact_after_forced");
	return ret;
}

static int lb_configure(struct msim_config *cfg, char *err, size_t len)
{
	return scn_need_cpus(cfg, 3, "rstat-lost-batch", err, len);
}

/* No variant closes R2/R3 (the heuristic is lossy by design); stat values hold. */
static bool lb_expect(const struct msim_config *cfg, const void *arg)
{
	return arg != &msim_rstat_lost_batch_values_only;
}

static const struct msim_race rstat_lost_batch = {
	.name = "rstat-lost-batch",
	.summary = "a batch pushed into stats_updates is wiped by a flusher's read-then-set "
		   "(R2) or by its reset at a later CPU (R3); stat values stay exact",
	.thread = "R2, R3",
	.windows = "R2 R3",
	.diagram =
		"R2, the atomic reset is read-then-set (leaf at 256 on CPU 1):\n"
		"\n"
		"CPU 0 (flush leaf)                 CPU 1 (leaf updates)\n"
		"------------------                 --------------------\n"
		"visit CPU 1: fold 256 pages\n"
		"atomic_read(leaf) = 256\n"
		"                                   64 updates: push 64, leaf = 320\n"
		"atomic_set(leaf, 0)                (the 64 pages were not folded)\n"
		"\n"
		"R3, resets continue after the CPUs already walked (leaf queued on CPUs 1, 3):\n"
		"\n"
		"CPU 0 (flush leaf)                 CPU 1 (leaf updates)\n"
		"------------------                 --------------------\n"
		"visit CPU 0, CPU 1: leaf = 0\n"
		"                                   64 updates: push 64, leaf = 64\n"
		"visit CPU 3: fold CPU 3's pages\n"
		"atomic_set(leaf, 0)                (CPU 1's 64 pages not folded)\n",
	.budget = { .runs = 1000, .pct_depth = 2, .preemptions = 1, .dfs_runs = 5000 },
	.configure = lb_configure,
	.expect = lb_expect,
	.target = { .name = "rstat-lost-batch", .setup = lb_setup, .check = lb_check,
		    .teardown = rstat_scn_teardown },
	.script_hosts = lb_script,
	.sides = (const struct msim_race_side[]){
		{ .name = "bug", .settings = "", .violation = true, .demo = true,
		  .summary = "no variant closes R2/R3: leaf counts 0 while 64 pages are unflushed",
		  .why = "lost batch",
		  .figures = (const struct msim_race_expect[]){
			  MSIM_RACE_EXPECT("r2_atomic_read_by_flusher", 256),
			  MSIM_RACE_EXPECT("r2_atomic_before_set", 320),
			  MSIM_RACE_EXPECT("r2_leaf_atomic", 0), MSIM_RACE_EXPECT("r2_leaf_count", 0),
			  MSIM_RACE_EXPECT("r2_unflushed", 64), MSIM_RACE_EXPECT("r2_lost", 1),
			  MSIM_RACE_EXPECT("r2_state_exact_after_forced", 1),
			  MSIM_RACE_EXPECT("r3_atomic_after_cpu1", 0),
			  MSIM_RACE_EXPECT("r3_atomic_after_push", 64),
			  MSIM_RACE_EXPECT("r3_leaf_atomic", 0), MSIM_RACE_EXPECT("r3_leaf_count", 0),
			  MSIM_RACE_EXPECT("r3_unflushed", 64), MSIM_RACE_EXPECT("r3_lost", 1),
			  MSIM_RACE_EXPECT("r3_state_exact_after_forced", 1), { NULL } } },
		{ .name = "values", .settings = "",
		  .arg = (void *)&msim_rstat_lost_batch_values_only,
		  .summary = "what holds: checking only the stat values (exact after a forced "
			     "flush), no schedule loses one",
		  .dfs_exhausts = true, .dfs_schedules = 535, .dpor_schedules = 146,
		  .figures = (const struct msim_race_expect[]){
			  MSIM_RACE_EXPECT("r2_lost", 1), MSIM_RACE_EXPECT("r3_lost", 1),
			  MSIM_RACE_EXPECT("r2_state_exact_after_forced", 1),
			  MSIM_RACE_EXPECT("r3_state_exact_after_forced", 1), { NULL } } },
		{ NULL } },
};
MSIM_RACE_REGISTER(rstat_lost_batch)
