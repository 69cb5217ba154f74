/* SPDX-License-Identifier: MIT */
/*
 * scripted_flush.c - thread 004's production trace, reproduced by a script,
 * written only against the installed libmemcgsim (sim.h, sched.h, memcg.h,
 * rstat.h, variants.h; sched.h brings script.h and yield.h).
 * docs/experiments.md walks through how it was written.
 *
 * The thread reports, on a 96-CPU machine with the flush threshold at
 * 64 x 96 = 6144 pages: "leaf stats_updates at 6656 while root stayed at 6144
 * (the threshold). Further updates stopped at the leaf, and root flush
 * requests were skipped." Here: root -> mid -> leaf on 96 CPUs, a task on CPU 1
 * charging 512-page THP file folios to leaf, and the periodic worker's forced
 * root flush on CPU 0, stopped by the script between its reset of leaf and its
 * reset of mid:
 *
 *   CPU 0 (forced root flush)          CPU 1 (THP updates of leaf)
 *   -------------------------          ---------------------------
 *                                      12 x 512: leaf, mid, root = 6144
 *   visit CPU 1: reset leaf            (parked before mid's fold)
 *                                      512 more: leaf 512, mid, root 6656
 *   reset mid, reset root
 *                                      12 x 512: leaf 6656, mid, root 6144
 *                                      next update: leaf > 6144: break,
 *                                        root stays at 6144 = threshold
 *   mem_cgroup_flush_stats(root) skips: 6144 is not above 6144
 *
 * Then the same script under rstat-propagate=continue (the thread's patch),
 * where the last update reaches root and the gated flush runs; and a replay of
 * the first run's schedule string on a fresh host, which must end in the same
 * state with the same trace hash.
 *
 * Every printed line is deterministic; the last is "result: PASS" when every
 * expectation held (exit status 0), else "result: FAIL" (status 1).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/memcg.h>
#include <memcgsim/rstat.h>
#include <memcgsim/yield.h>
#include <memcgsim/explore.h>
#include <memcgsim/script.h>
#include <memcgsim/sim.h>
#include <memcgsim/variants.h>

#define NR_CPUS 96
#define THP_PAGES 512               /* one 2 MiB folio */
#define UP_TO_THRESHOLD 12          /* 12 x 512 = 6144 = 64 x 96 */
#define NR_UPDATES (2 * UP_TO_THRESHOLD + 2)

static int failures;

static void expect(bool ok, const char *what)
{
	if (!ok) {
		printf("  FAILED: %s\n", what);
		failures++;
	}
}

struct exp {
	struct msim *m;
	struct msim_memcg *root, *mid, *leaf;
	struct msim_task *updater, *flusher;
	long charged;                   /* pages charged so far: the truth */
};

/* CPU 1: a page cache that grows by THP folios (kernel: __lruvec_stat_mod_folio). */
static void updater_fn(void *arg)
{
	struct exp *e = arg;

	for (int i = 0; i < NR_UPDATES; i++) {
		e->charged += THP_PAGES;
		msim_lruvec_stat_mod_page(e->m, e->leaf, 0, MSIM_NR_FILE_PAGES, THP_PAGES);
	}
}

/* CPU 0: the periodic worker's flush (forced: it does not look at the threshold). */
static void flusher_fn(void *arg)
{
	struct exp *e = arg;

	msim_mem_cgroup_flush_stats_forced(e->root);
}

/* A host with root -> mid -> leaf and the two tasks; variant "" is mainline. */
static int build(struct exp *e, const char *variant)
{
	struct msim_config cfg;
	char err[256];
	int ret;

	memset(e, 0, sizeof(*e));
	msim_config_init(&cfg);
	cfg.nr_cpus = NR_CPUS;
	if (*variant && (ret = msim_variant_set(&cfg.variants, variant, err, sizeof(err)))) {
		printf("variant %s: %s\n", variant, err);
		return ret;
	}
	if ((ret = msim_create(&cfg, &e->m, err, sizeof(err)))) {
		printf("msim_create: %s\n", err);
		return ret;
	}
	/* rstat first, then the cgroups (rstat.h: attach before creating children) */
	if ((ret = msim_rstat_init(e->m, NULL)))
		return ret;
	e->root = msim_root_mem_cgroup(e->m);
	if ((ret = msim_memcg_create(e->root, "mid", &e->mid)) ||
	    (ret = msim_memcg_create(e->mid, "leaf", &e->leaf)))
		return ret;
	/* Task numbers in schedule strings follow creation order: updater 0, flusher 1. */
	e->updater = msim_task_create(e->m, "thp-updater", 1, updater_fn, e);
	e->flusher = msim_task_create(e->m, "root-flusher", 0, flusher_fn, e);
	return e->updater && e->flusher ? 0 : -ENOMEM;
}

static void show(struct exp *e, const char *when)
{
	printf("  %-34s leaf %5ld  mid %5ld  root %5ld\n", when,
	       msim_memcg_stats_updates(e->leaf), msim_memcg_stats_updates(e->mid),
	       msim_memcg_stats_updates(e->root));
}

static bool at(struct exp *e, long leaf, long mid, long root)
{
	return msim_memcg_stats_updates(e->leaf) == leaf &&
	       msim_memcg_stats_updates(e->mid) == mid &&
	       msim_memcg_stats_updates(e->root) == root;
}

/* The updater charges n more folios and parks at the end of the nth. */
static int thp_updates(struct exp *e, unsigned int n)
{
	return msim_run_until(e->m, e->updater, "rstat.update.done", n);
}

/*
 * The script. Returns 0 or the first scheduler error. Expectations that hold
 * on both sides of the variant are checked here; the ending is the caller's.
 */
static int script(struct exp *e)
{
	const long thr = msim_memcg_flush_threshold(e->m);
	int ret;

	if ((ret = thp_updates(e, UP_TO_THRESHOLD)))
		return ret;
	show(e, "12 THP updates:");
	expect(at(e, thr, thr, thr), "12 x 512 pages put every level at the threshold");

	/*
	 * The flush folds CPU 1's updated memcgs children first: leaf, mid, root,
	 * each after a "rstat.flush.memcg" yield point whose context (yield.h) is
	 * the memcg and the CPU. Stopping at mid's on CPU 1 parks the flusher
	 * after leaf's reset and before mid's fold.
	 */
	struct msim_yield_ctx mid_on_cpu1 = { .object = e->mid, .cpu = 1, .nid = -1 };
	struct msim_task_where w;

	if ((ret = msim_run_until_ctx(e->m, e->flusher, "rstat.flush.memcg", &mid_on_cpu1, 1)))
		return ret;
	show(e, "flusher parked after leaf's reset:");
	expect(at(e, 0, thr, thr), "the flusher stopped between leaf and mid");
	expect(msim_task_where(e->flusher, &w) && w.ctx.object == e->mid && w.hits == 2,
	       "the flusher is parked at its 2nd rstat.flush.memcg, mid's");

	if ((ret = thp_updates(e, 1)))
		return ret;
	show(e, "one THP update meanwhile:");
	expect(at(e, THP_PAGES, thr + THP_PAGES, thr + THP_PAGES), "the update reached every level");

	if ((ret = msim_run_task(e->m, e->flusher)))
		return ret;
	show(e, "flush finished:");
	expect(at(e, THP_PAGES, 0, 0), "mid and root reset after the update");

	if ((ret = thp_updates(e, UP_TO_THRESHOLD)))
		return ret;
	show(e, "12 more THP updates:");
	expect(at(e, thr + THP_PAGES, thr, thr), "leaf 6656, root 6144: the thread's trace");
	expect(msim_memcg_vmstats_needs_flush(e->leaf) && !msim_memcg_vmstats_needs_flush(e->root),
	       "leaf flushable, root not");

	if ((ret = thp_updates(e, 1)))
		return ret;
	show(e, "one more THP update:");
	return msim_run_task(e->m, e->updater);
}

/* What root reports against the truth, before and after a gated flush. */
static bool report(struct exp *e)
{
	unsigned long before = msim_memcg_page_state(e->root, MSIM_NR_FILE_PAGES);
	bool flushed = msim_mem_cgroup_flush_stats(e->root);
	unsigned long after = msim_memcg_page_state(e->root, MSIM_NR_FILE_PAGES);

	printf("  root NR_FILE_PAGES: %lu reported, %ld charged; mem_cgroup_flush_stats(root) "
	       "%s; then %lu reported\n", before, e->charged, flushed ? "flushed" : "skipped",
	       after);
	return flushed;
}

static int run_mainline(char *schedule, size_t len, uint64_t *hash)
{
	struct exp e;
	const long thr = 64L * NR_CPUS;
	int ret = build(&e, "");

	printf("mainline (rstat-propagate=break), %d CPUs, threshold %ld:\n", NR_CPUS,
	       ret ? 0 : msim_memcg_flush_threshold(e.m));
	if (!ret)
		ret = script(&e);
	expect(ret == 0, "the script ran");
	if (!ret) {
		expect(at(&e, thr + THP_PAGES, thr, thr), "the last update stopped at leaf");
		expect(!report(&e), "the gated root flush skips while root sits at the threshold");
		expect(msim_memcg_page_state(e.root, MSIM_NR_FILE_PAGES) < (unsigned long)e.charged,
		       "root reports less than was charged");
		/* The periodic flush (forced) brings root back to the truth. */
		msim_mem_cgroup_flush_stats_forced(e.root);
		printf("  after the periodic (forced) flush: %lu reported\n",
		       msim_memcg_page_state(e.root, MSIM_NR_FILE_PAGES));
		expect(msim_memcg_page_state(e.root, MSIM_NR_FILE_PAGES) == (unsigned long)e.charged,
		       "the forced flush restores root");
		snprintf(schedule, len, "%s", msim_schedule_string(e.m));
		*hash = msim_sched_trace_hash(e.m);
		printf("  schedule %s (%llu steps)\n", schedule,
		       (unsigned long long)msim_sched_steps(e.m));
	}
	if (e.m)
		msim_destroy(e.m);
	return ret;
}

static void run_continue(void)
{
	struct exp e;
	const long thr = 64L * NR_CPUS;
	int ret = build(&e, "rstat-propagate=continue");

	printf("rstat-propagate=continue (thread 004's patch):\n");
	if (!ret)
		ret = script(&e);
	expect(ret == 0, "the script ran");
	if (!ret) {
		expect(at(&e, thr + THP_PAGES, thr + THP_PAGES, thr + THP_PAGES),
		       "the last update skipped leaf and reached mid and root");
		expect(report(&e), "the gated root flush runs");
		expect(msim_memcg_page_state(e.root, MSIM_NR_FILE_PAGES) == (unsigned long)e.charged,
		       "root reports what was charged");
	}
	if (e.m)
		msim_destroy(e.m);
}

/* The finding, replayed from its schedule string alone on a fresh host. */
static void replay(const char *schedule, uint64_t hash)
{
	struct msim_sched_opts so = { .strategy = MSIM_STRAT_REPLAY, .schedule = schedule };
	const long thr = 64L * NR_CPUS;
	struct exp e;
	int ret = build(&e, "");

	printf("replay of the mainline schedule:\n");
	if (!ret)
		ret = msim_sched_set(e.m, &so);
	if (!ret)
		ret = msim_run(e.m);
	expect(ret == 0, "the replay ran");
	if (!ret) {
		show(&e, "end of the replay:");
		expect(!msim_sched_replay_diverged(e.m), "the replay followed its string");
		expect(msim_sched_trace_hash(e.m) == hash, "the replay has the same trace hash");
		expect(at(&e, thr + THP_PAGES, thr, thr), "the replay ends in the same state");
		expect(!report(&e), "and root's flush skips again");
	}
	if (e.m)
		msim_destroy(e.m);
}

int main(void)
{
	static char schedule[8192];
	uint64_t hash = 0;

	if (run_mainline(schedule, sizeof(schedule), &hash) == 0)
		replay(schedule, hash);
	run_continue();
	printf("result: %s\n", failures ? "FAIL" : "PASS");
	return failures ? 1 : 0;
}
