/* SPDX-License-Identifier: MIT */
/*
 * zswap-root-count: thread 002 patch 1 ("mm: zswap: fix shrinker count for the
 * root memcg"), the workload run in the root memcg with the zswap shrinker on.
 *
 * CPU 0 is the workload's reclaim: it touches ZRC_PAGES anon pages in the root
 * memcg and reclaims them, so each is stored in zswap under the root's objcg,
 * which obj_cgroup_charge_zswap() skips: the root's MEMCG_ZSWAP_B and
 * MEMCG_ZSWAPPED stay 0 while its zswap list holds every entry. Its reclaim then
 * goes on to shrink_slab(node 0, root, priority 0), up to ZRC_DIRECT_ROUNDS
 * times, each first probing zswap_shrinker_count() the way shrink_slab will call
 * it. CPU 1 is kswapd: ZRC_ROUNDS such rounds, at any time, the workload done or
 * not.
 *
 *   memcg-stats (mainline): the count scales the root's freeable entries by
 *     ZSWAP_B / ZSWAPPED of the root = 0 / 0: nr_stored 0, the count is 0,
 *     do_shrink_slab never scans, nothing is written back (the thread: zswpwb
 *     stayed 0).
 *   pool (patch 1): the root reads zswap_total_pages() / zswap_stored_pages:
 *     the first rounds clear the referenced bits (second chance), the next ones
 *     write the pool back (the thread: 1016 pages, "drained the whole pool").
 *
 * Violation, the thread's measure: the workload's reclaim found entries on the
 * root's list after its stores, and the run wrote nothing back. One round whose
 * count is 0 is not it: under patch 1 too the count rounds to 0 while one
 * entry is listed and two are stored (mult_frac(1, 1, 2)), which DPOR reaches
 * when kswapd probes between zswap_store's zswap_stored_pages increment and its
 * zswap_lru_add; the kernel orders the two the same way. Rounds whose count was
 * 0 with entries listed are a figure (bad_rounds), not the verdict.
 *
 * What sets our figures: the pool the workload filled (ZRC_PAGES entries, an
 * exploration size: DPOR exhausts the pool side) is drained whole once the bits
 * are clear; the pages written back are that pool, by construction, not a
 * property of the fix. The thread's 1016 is its pool; `memcgsim bench
 * zswap-root-count` runs the thread's sizes.
 */
#include "zswap_scn.h"

#define ZRC_PAGES 2
#define ZRC_DIRECT_ROUNDS 8
#define ZRC_ROUNDS 4

struct zrc {
	struct msim *m;
	struct msim_memcg *root;
	struct msim_swap_pte pte[ZRC_PAGES];
	struct msim_task *reclaim, *kswapd;
	unsigned long bad_rounds, first_count, first_freeable, listed_after_workload;
	bool probed;
	bool reclaim_done;               /* kswapd's loop reads it: noted, no yield point */
};

/*
 * One probe: what shrink_slab's do_shrink_slab is about to see for the root.
 * Only the workload's own probes (own) record the first count and what was
 * listed after the workload: which task probes first is an order DPOR may
 * take for independent, so a figure kswapd could set first would differ
 * between explorers. Both tasks count the rounds whose count was 0 with
 * entries listed (a sum, whatever the order).
 */
static void probe(struct zrc *s, bool after_workload, bool own)
{
	struct msim_shrink_control sc = { .nid = 0, .memcg = s->root };
	unsigned long freeable = msim_zswap_lru_count(s->root, 0);
	unsigned long count = msim_zswap_shrinker_count(msim_zswap_shrinker(s->m), &sc);

	if (own && !s->probed && freeable) {
		s->probed = true;
		s->first_count = count;
		s->first_freeable = freeable;
	}
	if (own && after_workload && freeable && !s->listed_after_workload)
		s->listed_after_workload = freeable;
	if (freeable && !count)
		s->bad_rounds++;
}

/* One round of pressure; false when the workload is done and the pool empty. */
static bool pressure_round(struct zrc *s, bool after_workload, bool own)
{
	if (after_workload && !msim_zswap_stored_pages(s->m))
		return false;
	probe(s, after_workload, own);
	msim_shrink_slab(s->m, 0, s->root, 0);
	return true;
}

static void reclaim_fn(void *arg)
{
	struct zrc *s = arg;

	msim_zswap_reclaim(s->root, ZRC_PAGES, -1);
	/* kswapd's loop reads this flag (yield.h's contract). */
	msim_access_note(&s->reclaim_done, sizeof(s->reclaim_done), MSIM_ACCESS_STORE);
	s->reclaim_done = true;
	for (unsigned int r = 0; r < ZRC_DIRECT_ROUNDS && pressure_round(s, true, true); r++)
		;
}

static void kswapd_fn(void *arg)
{
	struct zrc *s = arg;

	for (unsigned int r = 0; r < ZRC_ROUNDS; r++) {
		/*
		 * The flag, not msim_task_done(): a task's state is no access DPOR
		 * sees, the noted flag is.
		 */
		msim_access_note(&s->reclaim_done, sizeof(s->reclaim_done), MSIM_ACCESS_LOAD);
		if (!pressure_round(s, s->reclaim_done, false))
			return;
	}
}

static int zrc_setup(struct msim *m, void **state, void *arg)
{
	struct zrc *s = calloc(1, sizeof(*s));
	int ret;

	(void)arg;
	if (!s)
		return -ENOMEM;
	*state = s;
	s->m = m;
	s->root = msim_root_mem_cgroup(m);
	if ((ret = zswap_scn_init(m, NULL)) || (ret = zswap_scn_touch(s->pte, ZRC_PAGES, s->root)))
		return ret;
	s->reclaim = msim_task_create(m, "reclaim(root)", 0, reclaim_fn, s);
	s->kswapd = msim_task_create(m, "shrink_slab(root)", 1, kswapd_fn, s);
	return s->reclaim && s->kswapd ? 0 : -ENOMEM;
}

static bool zrc_check(struct msim *m, void *state, char *why, size_t len)
{
	struct zrc *s = state;
	struct msim_zswap_stats st = zswap_scn_stats(m);

	if (!s->listed_after_workload || st.zswpwb)
		return false;
	snprintf(why, len, "root count 0: %lu entries on the root's zswap list after the "
		 "workload, nothing written back (%lu rounds counted 0 with entries listed)",
		 s->listed_after_workload, s->bad_rounds);
	return true;
}

static void zrc_teardown(struct msim *m, void *state)
{
	struct zrc *s = state;

	if (!s)
		return;
	zswap_scn_free(m, s->pte, ZRC_PAGES);
	free(s);
}

static void report(struct zrc *s, struct msim_race_report *rep)
{
	struct msim_zswap_stats after = zswap_scn_stats(s->m);

	msim_race_fig_int(rep, "first_listed", (long long)s->first_freeable);
	msim_race_fig_int(rep, "root_zswapped", (long long)msim_memcg_page_state(s->root,
								MSIM_MEMCG_ZSWAPPED));
	msim_race_fig_int(rep, "first_count", (long long)s->first_count);
	msim_race_fig_int(rep, "zswpwb", (long long)after.zswpwb);
	msim_race_fig_int(rep, "left_in_pool", (long long)after.stored_pages);
	msim_race_fig_int(rep, "bad_rounds", (long long)s->bad_rounds);
	msim_race_note(rep, "pages written back: ours %lu (pool of %lu entries), thread 002 "
		       "patch 1: 0 before the fix, 1016 after (\"drained the whole pool\")",
		       after.zswpwb, s->first_freeable);
	msim_race_note(rep, "the size is the pool the workload filled, drained whole once the "
		       "referenced bits are clear: set by the workload, not by the fix");
}

static int zrc_script(struct msim *m, void *state, struct msim_race_report *rep)
{
	struct zrc *s = state;
	char why[256] = "";
	int ret = lru_scn_run_with_rcu(m, s->reclaim);

	if (ret || (ret = lru_scn_run_with_rcu(m, s->kswapd)) || (ret = msim_run(m)))
		return ret;
	msim_do_mem_cgroup_flush_stats(s->root, true);
	rep->violated = zrc_check(m, s, why, sizeof(why));
	msim_race_note(rep, "%s", rep->violated ? why : "the root's entries were counted");
	report(s, rep);
	return 0;
}

static bool zrc_expect(const struct msim_config *cfg, const void *arg)
{
	(void)arg;
	return msim_variant_value(&cfg->variants, "zswap-root-count") ==
	       MSIM_ZSWAP_ROOT_COUNT_MEMCG_STATS;
}

#define ZRC_FIGURES(wb, count, left, bad)                                                 \
	(const struct msim_race_expect[]){                                                \
		MSIM_RACE_EXPECT("first_listed", ZRC_PAGES),                              \
		MSIM_RACE_EXPECT("root_zswapped", 0), MSIM_RACE_EXPECT("first_count", count), \
		MSIM_RACE_EXPECT("zswpwb", wb), MSIM_RACE_EXPECT("left_in_pool", left),   \
		MSIM_RACE_EXPECT("bad_rounds", bad), { NULL } }

/* The pool's pages for seed 1's draws (1000..3000 bytes): measured, deterministic. */
#define ZRC_POOL_PAGES 1

static const struct msim_race zswap_root_count = {
	.name = "zswap-root-count",
	.min_cpus = 2,
	.summary = "zswap_shrinker_count() for the root memcg reads the root's zswap stats, "
		   "which never count root-owned entries: nothing written back until patch 1 "
		   "(thread 002)",
	.thread = "002",
	.diagram =
		"root memcg only; zswap shrinker on; 2 anon pages.\n"
		"\n"
		"CPU 0 (the workload's reclaim, root) CPU 1 (kswapd: 4 rounds, any time)\n"
		"------------------------------------ -------------------------------\n"
		"zswap_store(folio) x 2:\n"
		"  objcg = root's objcg\n"
		"  obj_cgroup_charge_zswap(root objcg)\n"
		"    -> skipped: ZSWAP_B, ZSWAPPED\n"
		"       of root stay 0\n"
		"  zswap_stored_pages++\n"
		"  zswap_lru_add: root's list\n"
		"shrink_slab(root, 0), up to 8 rounds: shrink_slab(root, 0):\n"
		"  zswap_shrinker_count(root):          zswap_shrinker_count(root): as CPU 0\n"
		"    memcg-stats: flush; nr_stored =\n"
		"      ZSWAPPED(root) = 0 -> return 0\n"
		"      (no scan: zswpwb stays 0)\n"
		"    pool (patch 1): nr_stored =\n"
		"      zswap_stored_pages = 2 ->\n"
		"      freeable x pool ratio\n"
		"  zswap_shrinker_scan: second chance,\n"
		"    then writeback: the pool drains\n",
	.budget = { .runs = 20, .pct_depth = 2, .preemptions = 1, .dfs_runs = 200,
		    .dpor_runs = 20000 },
	.expect = zrc_expect,
	.target = { .name = "zswap-root-count", .setup = zrc_setup, .check = zrc_check,
		    .teardown = zrc_teardown },
	.script = zrc_script,
	.script_replays = true,
	.sides = (const struct msim_race_side[]){
		/* Every order: nothing can make the root's stats count its entries. */
		{ .name = "memcg-stats", .settings = "", .violation = true,
		  .summary = "mainline: the root's count is 0, nothing is written back (thread: 0)",
		  .why = "root count 0",
		  .figures = ZRC_FIGURES(0, 0, ZRC_PAGES, ZRC_DIRECT_ROUNDS + ZRC_ROUNDS) },
		{ .name = "pool", .settings = "zswap-root-count=pool",
		  .summary = "thread 002 patch 1: the pool-wide counters; the pool is drained "
			     "(thread: 1016 pages)",
		  .figures = ZRC_FIGURES(ZRC_PAGES, ZRC_POOL_PAGES, 0, 0), .dpor_schedules = 11495 },
		{ NULL } },
};
MSIM_RACE_REGISTER(zswap_root_count)
