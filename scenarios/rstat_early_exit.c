/* SPDX-License-Identifier: MIT */
/*
 * rstat-early-exit: thread 004, the early exit of memcg_rstat_updated() leaves an
 * ancestor stuck below the flush threshold (races R3 and R4, docs/races.md).
 *
 * root -> leaf on N CPUs (N >= 3; the thread's narrative has N = 4), threshold
 * 64 x N. Before the race leaf and root hold N batches (= the threshold, not
 * flushable); a task on CPU N-1 updated root itself, so root is queued on CPU N-1.
 * The diagram is the thread's, with the CPU N-1 visit that makes it R3.
 *
 * mem_cgroup_flush_stats(root) then skips (64N is not > 64N) while root's subtree
 * holds 64(N+2) unflushed pages, and keeps skipping as updates continue; the
 * periodic forced flush (2 s) restores it. Under rstat-propagate=continue the
 * next batch reaches root (64(N+1) > 64N) and the gated flush runs.
 *
 * The explorer's runs use the same tree with 64-page updates (one batch per
 * update, so a run is short), a forced root flush on CPU 0, N+2 updates on CPU 1
 * and one root update on CPU N-1. Violation ("stuck ancestor"): leaf flushable,
 * root not, root's subtree holds more than the threshold unflushed, and two more
 * 64-page updates of leaf leave root's counters unchanged.
 */
#include <memcgsim/introspect.h>

#include "rstat_scn.h"

struct ee {
	struct msim *m;
	struct msim_memcg *root, *leaf;
	struct msim_task *flusher, *updater, *rootupd;
	unsigned int ncpu;
	long upd_val;           /* pages per leaf update */
	int upd_calls;          /* leaf updates of the updater task */
	long applied;           /* pages applied (true NR_FILE_PAGES of root) */
};

static void updater_fn(void *arg)
{
	struct ee *s = arg;

	/* counted first: the script parks the task inside the update */
	for (int i = 0; i < s->upd_calls; i++) {
		s->applied += s->upd_val;
		msim_mod_memcg_state(s->leaf, MSIM_NR_FILE_PAGES, s->upd_val);
	}
}

static void rootupd_fn(void *arg)
{
	struct ee *s = arg;

	s->applied += 1;
	msim_mod_memcg_state(s->root, MSIM_NR_FILE_PAGES, 1);
}

/* The periodic worker's flush: forced, on CPU 0. */
static void flusher_fn(void *arg)
{
	struct ee *s = arg;

	msim_mem_cgroup_flush_stats_forced(s->root);
}

/* Tree and tasks; pre-state: leaf and root at N batches, from CPU 1 or CPU 0. */
static int ee_build(struct msim *m, struct ee *s, long upd_val, int upd_calls)
{
	struct msim_rstat_params p;
	int ret;

	msim_rstat_params_init(&p);
	s->m = m;
	s->ncpu = msim_nr_cpus(m);
	s->upd_val = upd_val;
	s->upd_calls = upd_calls;
	if ((ret = msim_rstat_init(m, &p)))
		return ret;
	s->root = msim_root_mem_cgroup(m);
	if ((ret = msim_memcg_create(s->root, "leaf", &s->leaf)))
		return ret;
	s->rootupd = msim_task_create(m, "rootupd", s->ncpu - 1, rootupd_fn, s);
	s->updater = msim_task_create(m, "updater", 1, updater_fn, s);
	s->flusher = msim_task_create(m, "flusher", 0, flusher_fn, s);
	/* what the check reads, as counter tracks of a trace */
	rstat_scn_trace_memcg(m, s->root);
	rstat_scn_trace_memcg(m, s->leaf);
	return s->rootupd && s->updater && s->flusher ? 0 : -ENOMEM;
}

static int ee_setup(struct msim *m, void **state, void *arg)
{
	struct ee *s = calloc(1, sizeof(*s));
	int ret;

	if (!s)
		return -ENOMEM;
	*state = s;
	ret = ee_build(m, s, 64, (int)msim_nr_cpus(m) + 2);
	/* pre-state from the driver (CPU 0): N batches, exactly the threshold */
	for (unsigned int i = 0; !ret && i < s->ncpu; i++) {
		msim_mod_memcg_state(s->leaf, MSIM_NR_FILE_PAGES, 64);
		s->applied += 64;
	}
	return ret;
}

/* Root's whole heuristic count: its atomic plus every CPU's pending count. */
static long root_count(struct ee *s)
{
	long sum = msim_memcg_stats_updates(s->root);

	for (unsigned int c = 0; c < s->ncpu; c++)
		sum += msim_memcg_stats_updates_cpu(s->root, c);
	return sum;
}

/*
 * Stuck ancestor: leaf flushable, root not, more than the threshold unflushed
 * under root, and further leaf updates do not move root's count.
 */
static bool ee_stuck(struct ee *s, char *why, size_t len)
{
	long thr = msim_memcg_flush_threshold(s->m), before, after, unflushed;
	bool leaf_fl = msim_memcg_vmstats_needs_flush(s->leaf);
	bool root_fl = msim_memcg_vmstats_needs_flush(s->root);

	unflushed = msim_memcg_unflushed(s->root);
	before = root_count(s);
	for (int i = 0; i < 2; i++) {
		msim_mod_memcg_state(s->leaf, MSIM_NR_FILE_PAGES, 64);
		s->applied += 64;
	}
	after = root_count(s);
	if (!leaf_fl || root_fl || unflushed <= thr || after != before)
		return false;
	snprintf(why, len, "stuck ancestor: leaf atomic %ld > %ld, root atomic %ld with %ld "
		 "unflushed pages; root count unchanged by 128 more pages",
		 msim_memcg_stats_updates(s->leaf), thr, msim_memcg_stats_updates(s->root),
		 unflushed);
	return true;
}

static bool ee_check(struct msim *m, void *state, char *why, size_t len)
{
	return ee_stuck(state, why, len);
}

/* Run the updater for n more leaf updates (it parks after the nth). */
static int upd(struct ee *s, int n)
{
	return msim_run_until(s->m, s->updater, "rstat.update.done", (unsigned int)n);
}

/* The thread's race: CPU 0 flushes CPUs 0 and 1, CPU 1 pushes a batch, CPU 0 goes on. */
static int ee_flush_race(struct ee *s, struct msim_race_report *rep)
{
	const int b = MSIM_MEMCG_CHARGE_BATCH;
	const int n = (int)s->ncpu;
	const long thr = msim_memcg_flush_threshold(s->m);
	int ret;

	msim_race_fig_int(rep, "threshold", thr);
	if ((ret = msim_run_task(s->m, s->rootupd)) || (ret = upd(s, n * b)))
		return ret;
	msim_race_note(rep, "before: leaf %ld, root %ld (threshold %ld)",
		       msim_memcg_stats_updates(s->leaf), msim_memcg_stats_updates(s->root), thr);
	if ((ret = msim_run_until(s->m, s->flusher, "rstat.flush.cpu_start", 3)) ||
	    (ret = upd(s, b)) || (ret = msim_run_task(s->m, s->flusher)))
		return ret;
	msim_race_fig_int(rep, "leaf_atomic_after_race", msim_memcg_stats_updates(s->leaf));
	msim_race_fig_int(rep, "root_atomic_after_race", msim_memcg_stats_updates(s->root));
	msim_race_note(rep, "after the flush race: leaf %ld, root %ld",
		       msim_memcg_stats_updates(s->leaf), msim_memcg_stats_updates(s->root));
	if ((ret = upd(s, n * b)))
		return ret;
	msim_race_fig_int(rep, "leaf_atomic_after_batches", msim_memcg_stats_updates(s->leaf));
	msim_race_fig_int(rep, "root_atomic_after_batches", msim_memcg_stats_updates(s->root));
	msim_race_note(rep, "%d more batches: leaf %ld, root %ld", n,
		       msim_memcg_stats_updates(s->leaf), msim_memcg_stats_updates(s->root));
	return 0;
}

/* The next batch: does its walk break at leaf, and does the gated root flush skip? */
static int ee_next_batch(struct ee *s, struct msim_race_report *rep)
{
	const int b = MSIM_MEMCG_CHARGE_BATCH;
	struct msim_rstat_counters c0, c1;
	int ret;

	msim_rstat_counters(s->m, &c0);
	if ((ret = upd(s, b)))
		return ret;
	msim_rstat_counters(s->m, &c1);
	msim_race_fig_int(rep, "next_batch_walk_breaks", (long long)(c1.walk_breaks - c0.walk_breaks));
	msim_race_fig_int(rep, "next_batch_walk_skips", (long long)(c1.walk_skips - c0.walk_skips));
	msim_race_fig_int(rep, "leaf_atomic", msim_memcg_stats_updates(s->leaf));
	msim_race_fig_int(rep, "root_atomic", msim_memcg_stats_updates(s->root));
	msim_race_fig_int(rep, "root_unflushed", msim_memcg_unflushed(s->root));
	bool flushed = msim_mem_cgroup_flush_stats(s->root);
	msim_race_fig_bool(rep, "root_flush_skipped", !flushed);
	msim_race_note(rep, "next %d updates: %llu walks broke at leaf, %llu skipped it; "
		       "mem_cgroup_flush_stats(root) %s", b,
		       (unsigned long long)(c1.walk_breaks - c0.walk_breaks),
		       (unsigned long long)(c1.walk_skips - c0.walk_skips),
		       flushed ? "flushed" : "skipped");
	msim_race_fig_int(rep, "root_reported_pages",
			 (long long)msim_memcg_page_state(s->root, MSIM_NR_FILE_PAGES));
	msim_race_fig_int(rep, "true_pages", s->applied);
	return 0;
}

/* Keep updating: does root stay stuck until the periodic flush, 2 s later? */
static int ee_stays_stuck(struct ee *s, struct msim_race_report *rep)
{
	char why[256];
	int ret;

	if ((ret = upd(s, (int)s->ncpu * MSIM_MEMCG_CHARGE_BATCH)))
		return ret;
	bool flushed = msim_mem_cgroup_flush_stats(s->root);
	msim_race_fig_bool(rep, "root_flush_skipped_later", !flushed);
	msim_race_fig_int(rep, "root_unflushed_later", msim_memcg_unflushed(s->root));
	msim_race_fig_int(rep, "root_atomic_later", msim_memcg_stats_updates(s->root));
	rep->violated = !flushed && ee_stuck(s, why, sizeof(why));
	rstat_scn_prepend_line(rep, rep->violated ? why : "root not stuck: the gated root flush ran");
	msim_clock_advance(s->m, 2ULL * msim_config(s->m)->hz);
	msim_race_fig_int(rep, "root_pages_after_periodic",
			 (long long)msim_memcg_page_state(s->root, MSIM_NR_FILE_PAGES));
	msim_race_fig_int(rep, "true_pages_at_periodic", s->applied);
	msim_race_fig_int(rep, "root_unflushed_after_periodic", msim_memcg_unflushed(s->root));
	msim_race_note(rep, "periodic flush: root reports %lu pages of %ld",
		       msim_memcg_page_state(s->root, MSIM_NR_FILE_PAGES), s->applied);
	return msim_run(s->m);
}

static int ee_narrative(struct ee *s, struct msim_race_report *rep)
{
	int ret = ee_flush_race(s, rep);

	if (!ret)
		ret = ee_next_batch(s, rep);
	return ret ? ret : ee_stays_stuck(s, rep);
}

static int ee_script(const struct msim_config *cfg, void *arg, struct msim_race_report *rep)
{
	struct msim *m;
	struct ee *s = calloc(1, sizeof(*s));
	int ret;

	if (!s)
		return -ENOMEM;
	ret = scn_host_new(cfg, &m);
	if (ret) {
		free(s);
		return ret;
	}
	/* leaf updates of one page: (3N + 3) batches in all */
	ret = ee_build(m, s, 1, (int)(3 * cfg->nr_cpus + 3) * MSIM_MEMCG_CHARGE_BATCH);
	if (!ret)
		ret = ee_narrative(s, rep);
	snprintf(rep->schedule, sizeof(rep->schedule), "%s", msim_schedule_string(m));
	msim_destroy(m);
	free(s);
	return ret;
}

static int ee_configure(struct msim_config *cfg, char *err, size_t len)
{
	if (cfg->nr_cpus < 3) {
		snprintf(err, len, "rstat-early-exit needs at least 3 CPUs: its narrative (thread "
			 "004's, race R3) has a flusher, an updater, and a later CPU where root is "
			 "queued; on 2 CPUs the same stuck ancestor is reachable through R4's "
			 "child-before-parent order, which this scenario does not script");
		return -EINVAL;
	}
	return 0;
}

static bool ee_expect(const struct msim_config *cfg, const void *arg)
{
	return msim_variant_value(&cfg->variants, "rstat-propagate") == MSIM_RSTAT_PROPAGATE_BREAK;
}

static const struct msim_race rstat_early_exit = {
	.name = "rstat-early-exit",
	.summary = "a concurrent flush leaves root below the threshold while the early exit "
		   "at the flushable leaf stops its updates (thread 004; R3, R4)",
	.thread = "004",
	.windows = "R3 R4",
	.diagram =
		"4 CPUs, threshold 256; before: leaf = root = 256; root queued on CPU 3.\n"
		"\n"
		"CPU 0 (root flush)                 CPU 1 (leaf updates)\n"
		"------------------                 --------------------\n"
		"visit CPU 0, CPU 1:\n"
		"  clear leaf->stats_updates\n"
		"  clear root->stats_updates\n"
		"                                   add 64 to leaf and root\n"
		"visit CPU 3 (root queued there):\n"
		"  clear root->stats_updates        (R3: a CPU already walked is not re-read)\n"
		"finish flush\n"
		"                                   leaf = 64, root = 0\n"
		"                                   4 more batches of 64:\n"
		"                                     leaf = 320, root = 256\n"
		"                                   next update:\n"
		"                                     leaf > threshold\n"
		"                                     break; root is not updated\n",
	.budget = { .runs = 1000, .pct_depth = 2, .preemptions = 1, .dfs_runs = 5000 },
	.configure = ee_configure,
	.expect = ee_expect,
	.target = { .name = "rstat-early-exit", .setup = ee_setup, .check = ee_check,
		    .teardown = rstat_scn_teardown },
	.script_hosts = ee_script,
	.sides = (const struct msim_race_side[]){
		{ .name = "bug", .settings = "", .violation = true, .demo = true,
		  .summary = "mainline's break: root's gated flush skips with 384 unflushed pages "
			     "until the periodic flush",
		  .why = "stuck ancestor",
		  .figures = (const struct msim_race_expect[]){
			  MSIM_RACE_EXPECT("threshold", 256),
			  MSIM_RACE_EXPECT("leaf_atomic_after_race", 64),
			  MSIM_RACE_EXPECT("root_atomic_after_race", 0),
			  MSIM_RACE_EXPECT("leaf_atomic_after_batches", 320),
			  MSIM_RACE_EXPECT("root_atomic_after_batches", 256),
			  MSIM_RACE_EXPECT("next_batch_walk_breaks", 64),
			  MSIM_RACE_EXPECT("next_batch_walk_skips", 0),
			  MSIM_RACE_EXPECT("leaf_atomic", 320), MSIM_RACE_EXPECT("root_atomic", 256),
			  MSIM_RACE_EXPECT("root_flush_skipped", 1),
			  MSIM_RACE_EXPECT("root_unflushed", 384),
			  MSIM_RACE_EXPECT("root_reported_pages", 257),
			  MSIM_RACE_EXPECT("true_pages", 641),
			  MSIM_RACE_EXPECT("root_flush_skipped_later", 1),
			  MSIM_RACE_EXPECT("root_unflushed_later", 640),
			  MSIM_RACE_EXPECT("root_atomic_later", 256),
			  MSIM_RACE_EXPECT_SAME("root_pages_after_periodic", "true_pages_at_periodic"),
			  MSIM_RACE_EXPECT("root_unflushed_after_periodic", 0), { NULL } } },
		{ .name = "fix", .settings = "rstat-propagate=continue", .demo = true,
		  .summary = "thread 004's continue: the next batch reaches root and the gated "
			     "flush runs",
		  .dfs_exhausts = true, .dfs_schedules = 617, .dpor_schedules = 190,
		  .figures = (const struct msim_race_expect[]){
			  MSIM_RACE_EXPECT("leaf_atomic_after_race", 64),
			  MSIM_RACE_EXPECT("root_atomic_after_race", 0),
			  MSIM_RACE_EXPECT("leaf_atomic_after_batches", 320),
			  MSIM_RACE_EXPECT("root_atomic_after_batches", 256),
			  MSIM_RACE_EXPECT("next_batch_walk_breaks", 0),
			  MSIM_RACE_EXPECT("next_batch_walk_skips", 64),
			  MSIM_RACE_EXPECT("root_atomic", 320),
			  MSIM_RACE_EXPECT("root_flush_skipped", 0),
			  MSIM_RACE_EXPECT_SAME("root_reported_pages", "true_pages"), { NULL } } },
		{ .name = "8-cpus", .settings = "cpus=8", .violation = true,
		  .summary = "the bug side on 8 CPUs: threshold 512, the same shape with 8 batches",
		  .why = "stuck ancestor",
		  .figures = (const struct msim_race_expect[]){
			  MSIM_RACE_EXPECT("threshold", 512),
			  MSIM_RACE_EXPECT("leaf_atomic_after_race", 64),
			  MSIM_RACE_EXPECT("root_atomic_after_race", 0),
			  MSIM_RACE_EXPECT("leaf_atomic", 576), MSIM_RACE_EXPECT("root_atomic", 512),
			  MSIM_RACE_EXPECT("root_unflushed", 640),
			  MSIM_RACE_EXPECT("root_flush_skipped", 1), { NULL } } },
		{ NULL } },
};
MSIM_RACE_REGISTER(rstat_early_exit)
