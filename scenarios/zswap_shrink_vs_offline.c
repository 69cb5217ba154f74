/* SPDX-License-Identifier: MIT */
/*
 * zswap-shrink-vs-offline: zswap's global shrink_worker cursor against
 * zswap_memcg_offline_cleanup() (the 2024 upstream fix "mm: zswap: fix
 * global shrinker memcg iteration").
 *
 * root -> a, b (pre-order: root, a, b). a holds 10 one-page entries with their
 * referenced bits cleared; the pool's max is 10 pages, its accept threshold 9,
 * so the worker writes back one entry and stops with its cursor
 * (zswap_next_shrink, which holds a css reference) on a. b stays a zombie after
 * its removal (something pins it: in the kernel, for example, the swap records
 * of its swapped-out pages).
 *
 * CPU 0 runs shrink_worker; CPU 1 removes b, then a. At a's offline the cleanup
 * finds the cursor on a and moves it:
 *   old (before the fix): one step, mem_cgroup_iter(a) = b, which is offline
 *     already; b's own cleanup ran before, so nothing will ever move the cursor
 *     off b until the worker runs again: b is held by the cursor's reference.
 *   fixed: the cleanup keeps stepping past memcgs that are not online: the end
 *     of the tree (NULL).
 *
 * Violation: right after a removal returns, the cursor names an offline memcg.
 */
#include "zswap_scn.h"

#define ZSO_ENTRIES 10

struct zso {
	struct msim *m;
	struct msim_memcg *root, *a, *b;
	struct msim_swap_pte pte[ZSO_ENTRIES];
	struct msim_task *worker, *rmdir;
	unsigned long written_back;
	int offline_cursor_after;        /* removals after which the cursor was offline */
	char cursor_after_a[8];
};

static void worker_fn(void *arg)
{
	struct zso *s = arg;

	s->written_back = msim_zswap_shrink_worker(s->m);
}

static const char *name_of(struct zso *s, struct msim_memcg *memcg)
{
	if (!memcg)
		return "none";
	return memcg == s->root ? "root" : memcg == s->a ? "a" : memcg == s->b ? "b" : "?";
}

static void after_removal(struct zso *s, char *where, size_t len)
{
	struct msim_memcg *cursor = msim_zswap_shrink_cursor(s->m);

	if (cursor && !msim_mem_cgroup_online(cursor))
		s->offline_cursor_after++;
	if (where)
		snprintf(where, len, "%s", name_of(s, cursor));
}

static void rmdir_fn(void *arg)
{
	struct zso *s = arg;

	msim_memcg_rmdir(s->b);
	after_removal(s, NULL, 0);
	msim_memcg_rmdir(s->a);
	after_removal(s, s->cursor_after_a, sizeof(s->cursor_after_a));
}

static int zso_tree(struct zso *s)
{
	struct msim_zswap_params p;
	int ret;

	msim_zswap_params_init(&p);
	p.total_ram_pages = 50;                  /* max 10 pages, accept threshold 9 */
	p.min_bytes = p.max_bytes = 4096;        /* one page per entry */
	if ((ret = zswap_scn_init(s->m, &p)) ||
	    (ret = msim_memcg_create(s->root, "a", &s->a)) ||
	    (ret = msim_memcg_create(s->root, "b", &s->b)))
		return ret;
	msim_css_get(s->a);                      /* the check reads both after removal */
	msim_css_get(s->b);                      /* b's pin: it stays a zombie */
	return zswap_scn_touch(s->pte, ZSO_ENTRIES, s->a);
}

static int zso_setup(struct msim *m, void **state, void *arg)
{
	struct zso *s = calloc(1, sizeof(*s));
	int ret;

	(void)arg;
	if (!s)
		return -ENOMEM;
	*state = s;
	s->m = m;
	s->root = msim_root_mem_cgroup(m);
	if ((ret = zso_tree(s)))
		return ret;
	msim_zswap_reclaim(s->a, ZSO_ENTRIES, -1);
	/* One look at each entry clears its referenced bit (second chance). */
	for (unsigned int i = 0; i < ZSO_ENTRIES; i++)
		msim_zswap_shrink_memcg(m, s->a);
	snprintf(s->cursor_after_a, sizeof(s->cursor_after_a), "-");
	shr_scn_rcu_quiesce();
	/* created first: DFS's first schedules run the removals before the worker */
	s->rmdir = msim_task_create(m, "rmdir(b, a)", 1, rmdir_fn, s);
	s->worker = msim_task_create(m, "shrink_worker", 0, worker_fn, s);
	return s->worker && s->rmdir ? 0 : -ENOMEM;
}

static bool zso_check(struct msim *m, void *state, char *why, size_t len)
{
	struct zso *s = state;

	(void)m;
	if (!s->offline_cursor_after)
		return false;
	snprintf(why, len, "cursor on an offline memcg after cleanup (%d removal(s)); it holds "
		 "its reference until the worker runs again", s->offline_cursor_after);
	return true;
}

static void zso_teardown(struct msim *m, void *state)
{
	struct zso *s = state;

	if (!s)
		return;
	zswap_scn_free(m, s->pte, ZSO_ENTRIES);
	if (s->a)
		msim_css_put(s->a);
	if (s->b)
		msim_css_put(s->b);
	free(s);
}

/* The story: the worker first (its cursor stays on a), then b and a removed. */
static int zso_script(struct msim *m, void *state, struct msim_race_report *rep)
{
	struct zso *s = state;
	char why[256] = "";
	int ret = lru_scn_run_with_rcu(m, s->worker);

	if (ret)
		return ret;
	msim_race_fig_str(rep, "cursor_after_worker", name_of(s, msim_zswap_shrink_cursor(m)));
	if ((ret = lru_scn_run_with_rcu(m, s->rmdir)) || (ret = msim_run(m)))
		return ret;
	rep->violated = zso_check(m, s, why, sizeof(why));
	msim_race_note(rep, "%s", rep->violated ? why : "the cursor never named an offline memcg");
	msim_race_fig_int(rep, "written_back", (long long)s->written_back);
	msim_race_fig_str(rep, "cursor_after_rmdir_a", s->cursor_after_a);
	msim_race_fig_int(rep, "offline_cursor_after", s->offline_cursor_after);
	msim_race_note(rep, "after rmdir a the cursor names %s", s->cursor_after_a);
	return 0;
}

static bool zso_expect(const struct msim_config *cfg, const void *arg)
{
	(void)arg;
	return msim_variant_value(&cfg->variants, "zswap-shrink-iter") ==
	       MSIM_ZSWAP_SHRINK_ITER_OLD;
}

static const struct msim_race zswap_shrink_vs_offline = {
	.name = "zswap-shrink-vs-offline",
	.summary = "zswap's shrink_worker cursor and zswap_memcg_offline_cleanup: before the "
		   "2024 fix the cleanup could leave the cursor on an offline memcg",
	.thread = "zswap 2024",
	.diagram =
		"root -> a (10 entries), b (zombie after rmdir); cursor holds a css ref.\n"
		"\n"
		"CPU 0 (shrink_worker)                CPU 1 (rmdir b, then rmdir a)\n"
		"---------------------                -----------------------------\n"
		"lock zswap_shrink_lock\n"
		"  cursor = iter(root) = root, ...\n"
		"  cursor = iter(root) = a (online)\n"
		"unlock; shrink_memcg(a): 1 written\n"
		"pool at threshold: stop (cursor = a)\n"
		"                                     rmdir b: offline cleanup(b):\n"
		"                                       cursor is a: nothing to do\n"
		"                                     rmdir a: offline cleanup(a):\n"
		"                                       cursor == a:\n"
		"                                       old:   cursor = iter(a) = b\n"
		"                                              (offline, its cleanup done:\n"
		"                                               held until the next run)\n"
		"                                       fixed: iter past b (not online)\n"
		"                                              -> NULL\n",
	/* DPOR at bound 1 exhausts fixed in 169576 schedules (about 40 s of CPU in a
	 * release build), once a grace period's end stopped racing with sections its
	 * snapshot did not record and with sleep sets under the bound (docs/explore.md) */
	.budget = { .runs = 200, .pct_depth = 2, .preemptions = 1, .dfs_runs = 3000,
		    .dpor_runs = 540000 },
	.configure = shr_scn_configure,
	.expect = zso_expect,
	.target = { .name = "zswap-shrink-vs-offline", .setup = zso_setup, .check = zso_check,
		    .teardown = zso_teardown },
	.script = zso_script,
	.script_replays = true,
	.sides = (const struct msim_race_side[]){
		/*
		 * Clean orders exist (the removals' offline before the worker picks a:
		 * PCT meets about one in four) but not within DFS's first schedules:
		 * rmdir blocks in synchronize_rcu and DFS runs the worker there, leaving
		 * the choice to end the grace period first for last. So the side does
		 * not claim clean_orders, which every explorer would have to show.
		 */
		{ .name = "old", .settings = "zswap-shrink-iter=old", .violation = true,
		  .demo = true,
		  .summary = "before the fix: the cleanup steps onto b, already offline",
		  .why = "cursor on an offline memcg",
		  .figures = (const struct msim_race_expect[]){
			  MSIM_RACE_EXPECT_STR("cursor_after_worker", "a"),
			  MSIM_RACE_EXPECT("written_back", 1),
			  MSIM_RACE_EXPECT_STR("cursor_after_rmdir_a", "b"),
			  MSIM_RACE_EXPECT("offline_cursor_after", 1), { NULL } } },
		{ .name = "fixed", .settings = "", .demo = true,
		  .summary = "mainline: the cleanup skips memcgs that are not online",
		  .dpor_schedules = 169576,
		  .figures = (const struct msim_race_expect[]){
			  MSIM_RACE_EXPECT_STR("cursor_after_worker", "a"),
			  MSIM_RACE_EXPECT("written_back", 1),
			  MSIM_RACE_EXPECT_STR("cursor_after_rmdir_a", "none"),
			  MSIM_RACE_EXPECT("offline_cursor_after", 0), { NULL } } },
		{ NULL } },
};
MSIM_RACE_REGISTER(zswap_shrink_vs_offline)
