/* SPDX-License-Identifier: MIT */
/*
 * rstat-thp-trace: thread 004's production trace on 96 CPUs, "leaf stats_updates
 * at 6656 while root stayed at 6144 (the threshold)", reached by the race and by
 * the kernel's arithmetic, not by a count the script chooses (race R3/R4 shape,
 * docs/races.md).
 *
 * root -> leaf, threshold 64 x N (6144 on 96 CPUs). Four updaters on CPUs 1-4
 * charge 2 MiB THP file folios to leaf (512 pages an update, each one moving
 * straight into the atomics since 512 >= the batch of 64), far more than the
 * threshold needs; the periodic worker's forced root flush runs on CPU 0.
 *
 * The script sets no pre-state and counts no batches:
 *  1. the updaters take turns until leaf is flushable (the first multiple of
 *     512 above the threshold: 6656; root went along with it);
 *  2. the forced flush runs until the window: leaf's last fold is done (it
 *     reset leaf's atomic), root's fold on that CPU is not;
 *  3. the race: `window` updates land (the side's arg: 1 on the bug side);
 *  4. the flush finishes (it resets root), and the updaters run to completion.
 * Root ends at 512 x (13 - window): 6144 = the threshold only when exactly one
 * update fell in the window, which is the thread's figure; two give 5632 (side
 * "two-in-window"). Leaf ends at 6656 whatever the updaters' count: once above
 * the threshold every later update breaks at leaf.
 *
 * Violation ("stuck ancestor"): leaf flushable, root not, and root's subtree
 * holds more than the threshold unflushed, so mem_cgroup_flush_stats(root)
 * skips until the periodic flush.
 */
#include <memcgsim/introspect.h>

#include "rstat_scn.h"

#define THP_PAGES 512
#define MAX_UPDATERS 4
#define THP_ALL (-1L)           /* window: every update left lands in it */

/*
 * A side's workload and what it judges (its target arg; NULL: the thread's).
 * The thread's: four updaters on CPUs 1-4, 16 updates each (64 updates, 32768
 * pages: far past the threshold), one update in the window, the consumer's
 * flush gated. The exploration shape of the *-small sides (8 CPUs, two
 * updaters, two updates each) is what DFS and DPOR can exhaust in the race's
 * budget; there task 0 runs on the highest updater CPU (high_first), so the
 * explorers' first run (lowest task first) starts on the CPU the flush walks
 * last: the same space, searched from the end the window lies at.
 */
struct thp_shape {
	unsigned int updaters;  /* on CPUs 1..updaters */
	unsigned int per_updater;
	long window;            /* updates the script lands in the flush's window, or THP_ALL */
	bool forced_read;       /* the consumer flushes forced (the thread's bpf proposal) */
	bool high_first;        /* updater i on CPU updaters - i, not i + 1 */
};

static const struct thp_shape thread_shape = { .updaters = 4, .per_updater = 16, .window = 1 };

struct thp {
	struct msim *m;
	struct msim_memcg *root, *leaf;
	struct msim_task *upd[MAX_UPDATERS], *flusher;
	struct thp_shape shape;
	long applied;           /* pages charged: the truth */
};

static void updater_fn(void *arg)
{
	struct thp *s = arg;

	for (unsigned int i = 0; i < s->shape.per_updater; i++) {
		s->applied += THP_PAGES;
		msim_lruvec_stat_mod_page(s->m, s->leaf, 0, MSIM_NR_FILE_PAGES, THP_PAGES);
	}
}

/* The periodic worker's flush: forced, on CPU 0. */
static void flusher_fn(void *arg)
{
	struct thp *s = arg;

	msim_mem_cgroup_flush_stats_forced(s->root);
}

static unsigned int upd_cpu(const struct thp_shape *sh, unsigned int i)
{
	return sh->high_first ? sh->updaters - i : i + 1;
}

static int thp_setup(struct msim *m, void **state, void *arg)
{
	struct thp *s = calloc(1, sizeof(*s));
	int ret;

	if (!s)
		return -ENOMEM;
	*state = s;
	s->m = m;
	s->shape = arg ? *(const struct thp_shape *)arg : thread_shape;
	if ((ret = rstat_scn_init(m)))
		return ret;
	s->root = msim_root_mem_cgroup(m);
	if ((ret = msim_memcg_create(s->root, "leaf", &s->leaf)))
		return ret;
	/* task numbers: updaters 0..n-1 (CPUs 1..n), the flusher n (CPU 0) */
	for (unsigned int i = 0; i < s->shape.updaters; i++)
		if (!(s->upd[i] = msim_task_create(m, "thp-updater", upd_cpu(&s->shape, i),
						   updater_fn, s)))
			return -ENOMEM;
	s->flusher = msim_task_create(m, "root-flusher", 0, flusher_fn, s);
	return s->flusher ? 0 : -ENOMEM;
}

static bool thp_stuck(struct thp *s, char *why, size_t len)
{
	long thr = msim_memcg_flush_threshold(s->m), unflushed = msim_memcg_unflushed(s->root);

	if (!msim_memcg_vmstats_needs_flush(s->leaf) || msim_memcg_vmstats_needs_flush(s->root) ||
	    unflushed <= thr)
		return false;
	snprintf(why, len, "stuck ancestor: leaf atomic %ld > %ld, root atomic %ld with %ld "
		 "unflushed pages", msim_memcg_stats_updates(s->leaf), thr,
		 msim_memcg_stats_updates(s->root), unflushed);
	return true;
}

/*
 * The consumer's read (thread 004: flush root, then read its file pages): the
 * flush gated on mainline, forced on the proposal's side. True when the read
 * misses more than the threshold's pages.
 */
static bool thp_read_misses(struct thp *s, bool *flushed, char *why, size_t len)
{
	long thr = msim_memcg_flush_threshold(s->m), read;

	*flushed = s->shape.forced_read ? msim_mem_cgroup_flush_stats_forced(s->root) :
					  msim_mem_cgroup_flush_stats(s->root);
	read = (long)msim_memcg_page_state(s->root, MSIM_NR_FILE_PAGES);
	if (s->applied - read <= thr)
		return false;
	snprintf(why, len, "stale read: root reports %ld of %ld pages after its %s flush", read,
		 s->applied, s->shape.forced_read ? "forced" : "gated");
	return true;
}

/*
 * The bad state each side judges: the stuck ancestor (the counters: what
 * break and continue are about), or, with the forced consumer flush (what the
 * proposal changes), the consumer's read.
 */
static bool thp_check(struct msim *m, void *state, char *why, size_t len)
{
	struct thp *s = state;
	bool flushed;

	(void)m;
	return s->shape.forced_read ? thp_read_misses(s, &flushed, why, len) :
				      thp_stuck(s, why, len);
}

/* Updater i's next update; -ESRCH once it has made all of its. */
static int upd(struct thp *s, unsigned int i)
{
	return msim_run_until(s->m, s->upd[i], "rstat.update.done", 1);
}

/*
 * 1: the updaters take turns until leaf's atomic is above the threshold. Sets
 * *last_cpu: the highest CPU an update came from, the last one the flush walks
 * with leaf on its list.
 */
static int thp_first_crossing(struct thp *s, unsigned int *last_cpu, struct msim_race_report *rep)
{
	int ret = 0, n = 0;

	*last_cpu = 0;
	while (!ret && !msim_memcg_vmstats_needs_flush(s->leaf)) {
		unsigned int i = (unsigned int)n++ % s->shape.updaters;

		if (upd_cpu(&s->shape, i) > *last_cpu)
			*last_cpu = upd_cpu(&s->shape, i);
		ret = upd(s, i);
	}
	if (ret)
		return ret;
	msim_race_fig_int(rep, "updates_to_first_crossing", n);
	msim_race_fig_int(rep, "leaf_atomic_first", msim_memcg_stats_updates(s->leaf));
	msim_race_fig_int(rep, "root_atomic_first", msim_memcg_stats_updates(s->root));
	msim_race_note(rep, "%d THP updates: leaf %ld, root %ld (threshold %ld)", n,
		       msim_memcg_stats_updates(s->leaf), msim_memcg_stats_updates(s->root),
		       msim_memcg_flush_threshold(s->m));
	return 0;
}

/* 3: window updates land, round robin; THP_ALL: every updater runs to its end. */
static int thp_land(struct thp *s, long *landed)
{
	long before = s->applied;
	int ret = 0;

	if (s->shape.window == THP_ALL) {
		for (unsigned int i = 0; !ret && i < s->shape.updaters; i++)
			ret = msim_run_task(s->m, s->upd[i]);
	} else {
		for (long i = 0; !ret && i < s->shape.window; i++)
			ret = upd(s, (unsigned int)i % s->shape.updaters);
	}
	*landed = (s->applied - before) / THP_PAGES;
	return ret;
}

/*
 * 2-4: the flush parks before root's fold on cpu, the last updater CPU (leaf's
 * last fold is done there), the window's updates land, the flush finishes.
 */
static int thp_flush_race(struct thp *s, unsigned int cpu, struct msim_race_report *rep)
{
	const struct msim_yield_ctx at = { .object = s->root, .cpu = (int)cpu, .nid = -1 };
	int ret = msim_run_until_ctx(s->m, s->flusher, "rstat.flush.memcg", &at, 1);
	long landed;

	if (ret)
		return ret;
	msim_race_fig_int(rep, "leaf_atomic_in_window", msim_memcg_stats_updates(s->leaf));
	if ((ret = thp_land(s, &landed)))
		return ret;
	msim_race_fig_int(rep, "window_updates", landed);
	msim_race_note(rep, "flush parked before root's fold on CPU %u; %ld update(s) land: "
		       "leaf %ld, root %ld", cpu, landed,
		       msim_memcg_stats_updates(s->leaf), msim_memcg_stats_updates(s->root));
	if ((ret = msim_run_task(s->m, s->flusher)))
		return ret;
	msim_race_fig_int(rep, "leaf_atomic_after_race", msim_memcg_stats_updates(s->leaf));
	msim_race_fig_int(rep, "root_atomic_after_race", msim_memcg_stats_updates(s->root));
	msim_race_note(rep, "after the flush: leaf %ld, root %ld",
		       msim_memcg_stats_updates(s->leaf), msim_memcg_stats_updates(s->root));
	return 0;
}

/* The consumer's read after every update, and its verdict (the side's bad state). */
static void thp_consumer(struct thp *s, struct msim_race_report *rep)
{
	char why[256], read_why[256];
	bool stuck = thp_stuck(s, why, sizeof(why)), flushed, misses;

	misses = thp_read_misses(s, &flushed, read_why, sizeof(read_why));
	msim_race_fig_bool(rep, "root_flush_skipped", !flushed);
	msim_race_fig_int(rep, "root_reported_pages",
			  (long long)msim_memcg_page_state(s->root, MSIM_NR_FILE_PAGES));
	msim_race_fig_int(rep, "true_pages", s->applied);
	if (s->shape.forced_read)
		msim_race_fig_bool(rep, "root_stuck", stuck);
	msim_race_note(rep, "all %u updates done: leaf %ld, root %ld; mem_cgroup_flush_stats%s(root) "
		       "%s; root reports %lu of %ld pages", s->shape.updaters * s->shape.per_updater,
		       msim_memcg_stats_updates(s->leaf), msim_memcg_stats_updates(s->root),
		       s->shape.forced_read ? "_forced" : "", flushed ? "flushed" : "skipped",
		       msim_memcg_page_state(s->root, MSIM_NR_FILE_PAGES), s->applied);
	rep->violated = s->shape.forced_read ? misses : stuck;
	/* the verdict first: the first note is the run's one-line "why" */
	if (s->shape.forced_read)
		rstat_scn_prepend_line(rep, misses ? read_why : stuck ?
				       "root stuck, but the forced flush read it exact" :
				       "the forced flush read root exact");
	else
		rstat_scn_prepend_line(rep, stuck ? why : "root not stuck: the gated root flush ran");
}

/* 5: every updater runs to completion; then what the trace shows, and the read. */
static int thp_after(struct thp *s, struct msim_race_report *rep)
{
	struct msim_rstat_counters c0, c1;
	int ret;

	msim_rstat_counters(s->m, &c0);
	for (unsigned int i = 0; i < s->shape.updaters; i++)
		if ((ret = msim_run_task(s->m, s->upd[i])))
			return ret;
	msim_rstat_counters(s->m, &c1);
	msim_race_fig_int(rep, "walk_breaks_after_race", (long long)(c1.walk_breaks - c0.walk_breaks));
	msim_race_fig_int(rep, "leaf_atomic", msim_memcg_stats_updates(s->leaf));
	msim_race_fig_int(rep, "root_atomic", msim_memcg_stats_updates(s->root));
	msim_race_fig_int(rep, "root_unflushed", msim_memcg_unflushed(s->root));
	thp_consumer(s, rep);
	return msim_run(s->m);
}

static int thp_script(struct msim *m, void *state, struct msim_race_report *rep)
{
	struct thp *s = state;
	unsigned int cpu;
	int ret;

	(void)m;
	msim_race_fig_int(rep, "threshold", msim_memcg_flush_threshold(s->m));
	msim_race_fig_int(rep, "window_updates", s->shape.window);
	ret = thp_first_crossing(s, &cpu, rep);
	if (!ret)
		ret = thp_flush_race(s, cpu, rep);
	return ret ? ret : thp_after(s, rep);
}

/*
 * Without --cpus the race runs on the thread's 96 (default_cpus); a count below
 * 8 is refused: the threshold must hold at least one THP update (so that leaf
 * crosses it after the window), and CPUs 1-4 host the updaters.
 */
static int thp_configure(struct msim_config *cfg, char *err, size_t len)
{
	if (cfg->nr_cpus < 8) {
		snprintf(err, len, "rstat-thp-trace needs at least 8 CPUs (its threshold, 64 x "
			 "CPUs, must hold a 512-page update); the default runs the thread's 96");
		return -EINVAL;
	}
	return 0;
}

/* Stuck counters under break and continue alike (R3); the forced read is never stale. */
static bool thp_expect(const struct msim_config *cfg, const void *arg)
{
	(void)cfg;
	return !(arg && ((const struct thp_shape *)arg)->forced_read);
}

static const struct thp_shape two_in_window = { .updaters = 4, .per_updater = 16, .window = 2 };
static const struct thp_shape all_in_window = { .updaters = 4, .per_updater = 16,
						.window = THP_ALL };
static const struct thp_shape forced_read = { .updaters = 4, .per_updater = 16, .window = 1,
					      .forced_read = true };
/* The exploration shape: 2 updaters x 2 THP updates on 8 CPUs (threshold 512). */
static const struct thp_shape small = { .updaters = 2, .per_updater = 2, .window = 1,
					.high_first = true };
static const struct thp_shape small_forced = { .updaters = 2, .per_updater = 2, .window = 1,
					       .forced_read = true, .high_first = true };

static const struct msim_race rstat_thp_trace = {
	.name = "rstat-thp-trace",
	.summary = "thread 004's 96-CPU trace, leaf 6656 and root 6144, reached by THP updates "
		   "racing a forced flush (R3, R4); continue closes R4's break, not R3",
	.thread = "004",
	.windows = "R3 R4",
	.diagram =
		"96 CPUs, threshold 64 x 96 = 6144; 512-page (THP) updates of leaf from CPUs 1-4.\n"
		"\n"
		"bug (break), the thread's trace:\n"
		"CPU 0 (forced root flush)          CPUs 1-4 (THP updates of leaf)\n"
		"-------------------------          ------------------------------\n"
		"                                   13 updates: leaf = root = 6656\n"
		"                                     (the first multiple of 512 above 6144)\n"
		"visit CPUs 1-4, each:\n"
		"  fold leaf, clear leaf->stats_updates\n"
		"  fold root, clear root->stats_updates\n"
		"  (CPU 4: leaf cleared, root not yet)\n"
		"                                   one update: leaf = 512, root = 512\n"
		"  fold root, clear root->stats_updates\n"
		"finish flush\n"
		"                                   12 updates: leaf = 6656, root = 6144\n"
		"                                   every later update:\n"
		"                                     leaf > 6144: break; root is not updated\n"
		"mem_cgroup_flush_stats(root) skips: 6144 is not above 6144\n"
		"\n"
		"continue (thread 004's patch), R3: root's reset erases what walked CPUs pushed:\n"
		"CPU 0 (forced root flush)          CPUs 1-4 (THP updates of leaf)\n"
		"-------------------------          ------------------------------\n"
		"                                   13 updates: leaf = root = 6656\n"
		"visit CPU 1: fold and clear leaf, root\n"
		"visit CPUs 2-3: fold (both already 0)\n"
		"visit CPU 4: fold leaf; root not yet\n"
		"                                   the other 51 updates, from CPUs 1-4:\n"
		"                                     leaf = root = 6656, then both skip\n"
		"  fold root, clear root->stats_updates   (root = 0)\n"
		"finish flush                       (no update follows)\n"
		"mem_cgroup_flush_stats(root) skips: 0 with 26112 pages unflushed\n"
		"\n"
		"bpf-forced (the thread's proposal: bpf_mem_cgroup_flush_stats forced):\n"
		"CPU 0 (forced root flush)          CPUs 1-4 (THP updates of leaf)\n"
		"-------------------------          ------------------------------\n"
		"  ... as on bug: root stuck at 6144 ...\n"
		"consumer: mem_cgroup_flush_stats_forced(root): flushes; root exact\n"
		"\n"
		"*-small, the exploration shape: 8 CPUs, threshold 512, task 0 on CPU 2, task 1 on\n"
		"CPU 1, two updates each; continue-small (bug-small alike, bpf-forced-small reads\n"
		"forced):\n"
		"CPU 0 (forced root flush)          CPUs 2, 1 (THP updates of leaf)\n"
		"-------------------------          -------------------------------\n"
		"                                   2 updates: leaf = root = 1024\n"
		"visit CPU 1: fold and clear leaf, root\n"
		"visit CPU 2: fold leaf; root not yet\n"
		"                                   one update: leaf = root = 512\n"
		"  fold root, clear root (root = 0)\n"
		"                                   the last update: leaf = 1024, root = 512\n"
		"mem_cgroup_flush_stats(root) skips: 512 is not above 512 (R3: no update follows)\n",
	/* random finds the window (10 of 300 runs, seed 1: reachability, not a frequency);
	 * PCT needs depth 3. On the thread's 96 CPUs and 64 updates DFS at bound 1
	 * does not exhaust bpf-forced in 300000 schedules (36 s) nor find the bug in
	 * 300: its budget stays small, and the *-small sides are its exploration
	 * shape. DPOR at bound 1 finds the bug sides in 370 to 450 schedules and
	 * exhausts bpf-forced in 93024 (122736 before sleep sets under the bound). */
	.budget = { .runs = 300, .pct_depth = 3, .preemptions = 1, .dfs_runs = 300,
		    .dpor_runs = 125000 },
	.configure = thp_configure,
	.default_cpus = 96,
	.expect = thp_expect,
	.target = { .name = "rstat-thp-trace", .setup = thp_setup, .check = thp_check,
		    .teardown = rstat_scn_teardown },
	.script = thp_script,
	.script_replays = true,
	.sides = (const struct msim_race_side[]){
		{ .name = "bug", .settings = "cpus=96", .violation = true, .clean_orders = true,
		  .summary = "mainline's break: one update in the flush's window leaves root at "
			     "6144 = the threshold, leaf at 6656, as the thread traced",
		  .why = "stuck ancestor",
		  .figures = (const struct msim_race_expect[]){
			  MSIM_RACE_EXPECT("threshold", 6144),
			  MSIM_RACE_EXPECT("updates_to_first_crossing", 13),
			  MSIM_RACE_EXPECT("leaf_atomic_first", 6656),
			  MSIM_RACE_EXPECT("root_atomic_first", 6656),
			  MSIM_RACE_EXPECT("leaf_atomic_in_window", 0),
			  MSIM_RACE_EXPECT("leaf_atomic_after_race", 512),
			  MSIM_RACE_EXPECT("root_atomic_after_race", 0),
			  MSIM_RACE_EXPECT("leaf_atomic", 6656),
			  MSIM_RACE_EXPECT("root_atomic", 6144),
			  MSIM_RACE_EXPECT("walk_breaks_after_race", 64 - 13 - 1 - 12),
			  MSIM_RACE_EXPECT("root_flush_skipped", 1),
			  MSIM_RACE_EXPECT("root_reported_pages", 6656),
			  MSIM_RACE_EXPECT("true_pages", 64 * 512), { NULL } } },
		{ .name = "continue", .settings = "cpus=96,rstat-propagate=continue",
		  .arg = (void *)&all_in_window, .violation = true, .clean_orders = true,
		  .summary = "thread 004's continue closes R4's break (with one update in the "
			     "window, as on bug, the 13th later update takes root above the "
			     "threshold), not R3: when every other update lands in the window "
			     "(CPUs 1-3 already walked), root's reset at CPU 4 erases their "
			     "batches and no update follows to raise it again",
		  .why = "stuck ancestor",
		  .figures = (const struct msim_race_expect[]){
			  MSIM_RACE_EXPECT("threshold", 6144),
			  MSIM_RACE_EXPECT("updates_to_first_crossing", 13),
			  MSIM_RACE_EXPECT("window_updates", 64 - 13),
			  MSIM_RACE_EXPECT("leaf_atomic_after_race", 6656),
			  MSIM_RACE_EXPECT("root_atomic_after_race", 0),
			  MSIM_RACE_EXPECT("walk_breaks_after_race", 0),
			  MSIM_RACE_EXPECT("root_unflushed", (64 - 13) * 512),
			  MSIM_RACE_EXPECT("root_flush_skipped", 1),
			  MSIM_RACE_EXPECT("root_reported_pages", 13 * 512),
			  MSIM_RACE_EXPECT("true_pages", 64 * 512), { NULL } } },
		{ .name = "two-in-window", .settings = "cpus=96", .arg = (void *)&two_in_window,
		  .violation = true, .clean_orders = true,
		  .summary = "two updates in the window: root stuck at 5632, below the threshold; "
			     "6144 is the one-update case, not a constant of the script",
		  .why = "stuck ancestor",
		  .figures = (const struct msim_race_expect[]){
			  MSIM_RACE_EXPECT("window_updates", 2),
			  MSIM_RACE_EXPECT("leaf_atomic_after_race", 1024),
			  MSIM_RACE_EXPECT("leaf_atomic", 6656),
			  MSIM_RACE_EXPECT("root_atomic", 5632),
			  MSIM_RACE_EXPECT("root_flush_skipped", 1), { NULL } } },
		{ .name = "bpf-forced", .settings = "cpus=96", .arg = (void *)&forced_read,
		  .summary = "the thread's proposal, not merged: bpf_mem_cgroup_flush_stats() "
			     "forced. Upstream closed neither R3 nor R4; a "
			     "forced flush does not read the counter, so the consumer's read is "
			     "exact whatever R3 or R4 left there (by construction); root's "
			     "counter stays stuck at 6144 for every gated reader",
		  .figures = (const struct msim_race_expect[]){
			  MSIM_RACE_EXPECT("leaf_atomic", 6656),
			  MSIM_RACE_EXPECT("root_atomic", 6144),
			  MSIM_RACE_EXPECT("root_stuck", 1),
			  MSIM_RACE_EXPECT("root_flush_skipped", 0),
			  MSIM_RACE_EXPECT_SAME("root_reported_pages", "true_pages"), { NULL } },
		  .dpor_schedules = 93024 },
		{ .name = "bug-small", .settings = "cpus=8", .arg = (void *)&small,
		  .violation = true, .clean_orders = true,
		  .summary = "the exploration shape DFS and DPOR search in the race's budget (8 "
			     "CPUs: threshold 512; 2 updaters x 2 THP updates, task 0 on CPU 2), "
			     "break: the thread's pair scaled, leaf 1024, root 512 = the threshold",
		  .why = "stuck ancestor", .dfs_first_violation = 51,
		  .dfs_schedule = "0*44.2*26.1*34.2*29", .dpor_schedules = 238,
		  .figures = (const struct msim_race_expect[]){
			  MSIM_RACE_EXPECT("threshold", 512),
			  MSIM_RACE_EXPECT("updates_to_first_crossing", 2),
			  MSIM_RACE_EXPECT("leaf_atomic_after_race", 512),
			  MSIM_RACE_EXPECT("root_atomic_after_race", 0),
			  MSIM_RACE_EXPECT("leaf_atomic", 1024),
			  MSIM_RACE_EXPECT("root_atomic", 512),
			  MSIM_RACE_EXPECT("root_unflushed", 1024),
			  MSIM_RACE_EXPECT("root_flush_skipped", 1), { NULL } } },
		{ .name = "continue-small", .settings = "cpus=8,rstat-propagate=continue",
		  .arg = (void *)&small, .violation = true, .clean_orders = true,
		  .summary = "the exploration shape under continue: the same schedule ends at leaf "
			     "1024, root 512, stuck: root's reset at CPU 2 erased the window's "
			     "update (R3) and no update follows leaf's crossing to raise root",
		  .why = "stuck ancestor", .dfs_first_violation = 53,
		  .dfs_schedule = "0*44.2*26.1*34.2*29", .dpor_schedules = 250,
		  .figures = (const struct msim_race_expect[]){
			  MSIM_RACE_EXPECT("threshold", 512),
			  MSIM_RACE_EXPECT("leaf_atomic", 1024),
			  MSIM_RACE_EXPECT("root_atomic", 512),
			  MSIM_RACE_EXPECT("walk_breaks_after_race", 0),
			  MSIM_RACE_EXPECT("root_flush_skipped", 1), { NULL } } },
		{ .name = "bpf-forced-small", .settings = "cpus=8", .arg = (void *)&small_forced,
		  .summary = "the exploration shape with the forced consumer flush: the read is "
			     "exact in every schedule (by construction); root's counter is stuck "
			     "on the script's",
		  .dpor_schedules = 238,
		  .figures = (const struct msim_race_expect[]){
			  MSIM_RACE_EXPECT("root_atomic", 512),
			  MSIM_RACE_EXPECT("root_stuck", 1),
			  MSIM_RACE_EXPECT("root_flush_skipped", 0),
			  MSIM_RACE_EXPECT_SAME("root_reported_pages", "true_pages"), { NULL } } },
		{ NULL } },
};
MSIM_RACE_REGISTER(rstat_thp_trace)
