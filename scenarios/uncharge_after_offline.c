/* SPDX-License-Identifier: MIT */
/*
 * uncharge-after-offline: a page cache folio charged in c is freed after c was
 * removed (thread 000 patches 1 and 2; docs/rstat.md on where the updates to a
 * dying memcg go).
 *
 * p -> c on cgroup v2. p holds one file page of its own, c one file folio of 4
 * pages (order 2), each on its LRU with NR_FILE_PAGES counted
 * (lruvec_stat_mod_folio, as filemap_add_folio does). CPU 0 removes c; CPU 1
 * takes c's folio out of the page cache (NR_FILE_PAGES -4 through the folio) and
 * drops its last reference (off the LRU, uncharged, freed).
 *
 * What the free reaches, per side:
 *   off (7.0):        the folio names c, which it pins: it stays on the dead c's
 *                     lists, and its stat updates and uncharge land on c; p's
 *                     local view is its own page, exact.
 *   objcg (mainline): offline splices c's lists into p's and repoints the objcg,
 *                     so the free lands on p; on cgroup v2 nothing moves c's
 *                     local stats (reparent_state_local is v1 only): p's local
 *                     LRU and file counts go to 1 - 4 = -3, and read as 0
 *                     (clamped) while p's lists hold 1 page; c's 4 stay on the
 *                     dead c. That local sum is what count_shadow_nodes() reads
 *                     under thread 000 patch 1 (lruvec_page_state_local).
 *   objcg-all (patch 2): reparent_state_local on every hierarchy moves c's 4
 *                     local pages to p at offline, and updates that find c dying
 *                     are redirected to p: p's local reads 1, exact.
 * Under MGLRU the same, and lruvec_lru_size() (mz->lru_zone_size, the reading
 * thread 000 patch 1 moves away from) reads 0 on every side: MGLRU never keeps it.
 * Hierarchical values stay right on every side (p and root: 1 page).
 *
 * Violation: p's local LRU statistics (raw) differ from the pages on p's lists,
 * or p's local NR_FILE_PAGES from its file pages, after a forced flush.
 */
#include <memcgsim/introspect.h>

#include "lru_scn.h"

struct uao {
	struct msim *m;
	struct msim_memcg *root, *p, *c;
	struct msim_folio *pf, *cf;
	struct msim_task *rmdir, *free;
	char owner_at_free[16];
	bool cf_taken;   /* the free task took over cf's reference (teardown must not put it) */
	bool settled;
	long p_listed, p_zone_size, p_local_raw, p_local_read, p_file_local_raw;
	long p_file_local_read, c_local_left, p_file_state, root_file_state;
};

static void rmdir_fn(void *arg)
{
	struct uao *s = arg;

	msim_memcg_rmdir(s->c);
}

/* __filemap_remove_folio's stat update, then the last folio_put. */
static void free_fn(void *arg)
{
	struct uao *s = arg;
	struct msim_memcg *owner;
	long nr = msim_folio_nr_pages(s->cf);

	msim_rcu_read_lock();
	owner = msim_folio_memcg(s->cf);
	snprintf(s->owner_at_free, sizeof(s->owner_at_free), "%s",
		 owner ? msim_memcg_name(owner) : "none");
	msim_rcu_read_unlock();
	msim_lruvec_stat_mod_folio(s->cf, MSIM_NR_FILE_PAGES, -nr);
	s->cf_taken = true;
	msim_folio_put(s->cf);
}

/* A page cache folio: charged, on its LRU, counted in NR_FILE_PAGES. */
static struct msim_folio *cache_folio(struct msim_memcg *memcg, unsigned int order)
{
	struct msim_folio *f = lru_scn_folio(memcg, MSIM_FOLIO_FILE, order);

	if (f)
		msim_lruvec_stat_mod_folio(f, MSIM_NR_FILE_PAGES, msim_folio_nr_pages(f));
	return f;
}

static int uao_setup(struct msim *m, void **state, void *arg)
{
	struct uao *s = calloc(1, sizeof(*s));
	int ret;

	(void)arg;
	if (!s)
		return -ENOMEM;
	*state = s;
	s->m = m;
	s->root = msim_root_mem_cgroup(m);
	if ((ret = lru_scn_tree(m, &s->p, &s->c)))
		return ret;
	s->pf = cache_folio(s->p, 0);
	s->cf = cache_folio(s->c, 2);
	if (!s->pf || !s->cf)
		return -ENOMEM;
	msim_css_get(s->c);   /* the check reads the dead c's local stats */
	/* created first: DFS preempts it before its LRU deletion within 300 schedules */
	s->free = msim_task_create(m, "free", 1, free_fn, s);
	s->rmdir = msim_task_create(m, "rmdir", 0, rmdir_fn, s);
	return s->rmdir && s->free ? 0 : -ENOMEM;
}

static long file_local(struct msim_memcg *memcg)
{
	return msim_memcg_stat_raw(memcg, MSIM_STAT_LOCAL, MSIM_NR_FILE_PAGES);
}

/* Final state: a forced root flush, then p's local view against its lists. */
static void uao_settle(struct uao *s)
{
	if (s->settled)
		return;
	s->settled = true;
	msim_mem_cgroup_flush_stats_forced(s->root);
	s->p_listed = lru_scn_listed_pages(s->p);
	s->p_zone_size = lru_scn_zone_size(s->p);
	s->p_local_raw = lru_scn_local_raw(s->p);
	s->p_local_read = lru_scn_local_read(s->p);
	s->p_file_local_raw = file_local(s->p);
	s->p_file_local_read = (long)msim_memcg_page_state_local(s->p, MSIM_NR_FILE_PAGES);
	s->c_local_left = lru_scn_local_raw(s->c);
	s->p_file_state = (long)msim_memcg_page_state(s->p, MSIM_NR_FILE_PAGES);
	s->root_file_state = (long)msim_memcg_page_state(s->root, MSIM_NR_FILE_PAGES);
}

static bool uao_check(struct msim *m, void *state, char *why, size_t len)
{
	struct uao *s = state;
	long own = msim_folio_nr_pages(s->pf);

	(void)m;
	uao_settle(s);
	if (s->p_file_state != own || s->root_file_state != own) {
		snprintf(why, len, "hierarchical mismatch: p %ld, root %ld file pages of %ld",
			 s->p_file_state, s->root_file_state, own);
		return true;
	}
	if (s->p_local_raw == s->p_listed && s->p_file_local_raw == own)
		return false;
	snprintf(why, len, "p's local view is wrong after the free: LRU stats %ld (read %ld) for "
		 "%ld listed pages, NR_FILE_PAGES %ld (read %ld) of %ld; %ld left on the dead c",
		 s->p_local_raw, s->p_local_read, s->p_listed, s->p_file_local_raw,
		 s->p_file_local_read, own, s->c_local_left);
	return true;
}

static void uao_teardown(struct msim *m, void *state)
{
	struct uao *s = state;

	(void)m;
	if (!s)
		return;
	if (s->pf)
		msim_folio_put(s->pf);
	/* A run refused before the free task ran (a bad schedule) still holds c's folio. */
	if (s->cf && !s->cf_taken)
		msim_folio_put(s->cf);
	if (s->c)
		msim_css_put(s->c);
	free(s);
}

/* After the offline, before the free: what p's and c's lists and p's local stats hold. */
static void before_free(struct uao *s, struct msim_race_report *rep)
{
	msim_mem_cgroup_flush_stats_forced(s->root);
	msim_race_fig_int(rep, "p_listed_before_free", lru_scn_listed_pages(s->p));
	msim_race_fig_int(rep, "c_listed_before_free", lru_scn_listed_pages(s->c));
	msim_race_fig_int(rep, "p_local_before_free", lru_scn_local_raw(s->p));
}

static void report(struct uao *s, struct msim_race_report *rep)
{
	msim_race_note(rep, "c removed: p listed %lld pages, c %lld; p's local LRU stats %lld",
		       msim_race_fig_find(rep, "p_listed_before_free")->i,
		       msim_race_fig_find(rep, "c_listed_before_free")->i,
		       msim_race_fig_find(rep, "p_local_before_free")->i);
	msim_race_fig_str(rep, "lru", msim_lru_gen_enabled(s->m) ? "mglru" : "classic");
	msim_race_fig_str(rep, "owner_at_free", s->owner_at_free);
	msim_race_fig_int(rep, "p_listed", s->p_listed);
	msim_race_fig_int(rep, "p_lru_zone_size", s->p_zone_size);
	msim_race_fig_int(rep, "p_local_raw", s->p_local_raw);
	msim_race_fig_int(rep, "p_local_read", s->p_local_read);
	msim_race_fig_int(rep, "p_file_local_raw", s->p_file_local_raw);
	msim_race_fig_int(rep, "p_file_local_read", s->p_file_local_read);
	msim_race_fig_int(rep, "c_local_left", s->c_local_left);
	msim_race_fig_int(rep, "p_file_state", s->p_file_state);
	msim_race_fig_int(rep, "root_file_state", s->root_file_state);
	msim_race_note(rep, "the free landed on %s: p's local LRU stats %ld (read %ld), listed "
		       "%ld, lruvec_lru_size %ld; %ld local pages left on c", s->owner_at_free,
		       s->p_local_raw, s->p_local_read, s->p_listed, s->p_zone_size,
		       s->c_local_left);
}

/* The thread's order: c removed (offline done), then its folio freed. */
static int uao_script(struct msim *m, void *state, struct msim_race_report *rep)
{
	struct uao *s = state;
	char why[320] = "";
	int ret = lru_scn_run_with_rcu(m, s->rmdir);

	if (ret)
		return ret;
	before_free(s, rep);
	if ((ret = lru_scn_run_with_rcu(m, s->free)))
		return ret;
	rep->violated = uao_check(m, s, why, sizeof(why));
	msim_race_note(rep, "%s", rep->violated ? why : "p's local view matches its lists");
	report(s, rep);
	return 0;
}

/* Reachable wherever the free can land on p with c's local stats left behind. */
static bool uao_expect(const struct msim_config *cfg, const void *arg)
{
	(void)arg;
	if (msim_variant_value(&cfg->variants, "lru-reparent") == MSIM_LRU_REPARENT_OFF)
		return false;
	return msim_variant_value(&cfg->variants, "dying-redirect") == MSIM_DYING_REDIRECT_V1 &&
	       cfg->cgroup_version != MSIM_CGROUP_V1;
}

/* Every side: the hierarchical values are right (p's own page). */
#define UAO_FIGURES(lru, owner, p_before, c_before, local_before, zone, raw, read, c_left) \
	(const struct msim_race_expect[]){                                              \
		MSIM_RACE_EXPECT_STR("lru", lru), MSIM_RACE_EXPECT_STR("owner_at_free", owner), \
		MSIM_RACE_EXPECT("p_listed_before_free", p_before),                       \
		MSIM_RACE_EXPECT("c_listed_before_free", c_before),                       \
		MSIM_RACE_EXPECT("p_local_before_free", local_before),                    \
		MSIM_RACE_EXPECT("p_listed", 1), MSIM_RACE_EXPECT("p_lru_zone_size", zone), \
		MSIM_RACE_EXPECT("p_local_raw", raw), MSIM_RACE_EXPECT("p_local_read", read), \
		MSIM_RACE_EXPECT("p_file_local_raw", raw),                                \
		MSIM_RACE_EXPECT("p_file_local_read", read),                              \
		MSIM_RACE_EXPECT("c_local_left", c_left),                                 \
		MSIM_RACE_EXPECT("p_file_state", 1), MSIM_RACE_EXPECT("root_file_state", 1), \
		{ NULL } }

static const struct msim_race uncharge_after_offline = {
	.name = "uncharge-after-offline",
	.min_cpus = 2,
	.summary = "a folio charged in c and freed after c's offline: on the dead c (7.0), or "
		   "on p, whose local stats go negative and read 0 until patch 2 moves them "
		   "(thread 000)",
	.thread = "000",
	.diagram =
		"p: 1 own file page; c: 1 file folio of 4 pages; cgroup v2.\n"
		"\n"
		"CPU 0 (rmdir c)                    CPU 1 (c's folio leaves the page cache)\n"
		"---------------                    ----------------------------------------\n"
		"offline c:\n"
		"  memcg_reparent_objcgs:\n"
		"    c's lists spliced onto p's,\n"
		"    c's objcg->memcg = p\n"
		"  reparent_state_local(c)\n"
		"    (v1 only; patch 2: always)\n"
		"                                   lruvec_stat_mod_folio(NR_FILE_PAGES, -4)\n"
		"                                   folio_put: lruvec_del_folio, uncharge\n"
		"                                     folio_memcg() = objcg->memcg = p:\n"
		"                                     p.local -= 4: 1 - 4 = -3, reads 0\n"
		"                                     (c's +4 stays on the dead c;\n"
		"                                      patch 2 moved it: 5 - 4 = 1)\n",
	.budget = { .runs = 500, .pct_depth = 2, .preemptions = 1, .dfs_runs = 5000 },
	.expect = uao_expect,
	.target = { .name = "uncharge-after-offline", .setup = uao_setup, .check = uao_check,
		    .teardown = uao_teardown },
	.script = uao_script,
	.script_replays = true,
	.sides = (const struct msim_race_side[]){
		{ .name = "off", .settings = "lru-reparent=off", .demo = true,
		  .summary = "7.0: the folio names c and pins it; it is freed from the dead c's "
			     "lists and uncharged from c; p's local view stays exact",
		  .dfs_exhausts = true, .dfs_schedules = 2044, .dpor_schedules = 64,
		  .figures = UAO_FIGURES("classic", "c", 1, 4, 1, 1, 1, 1, 0) },
		{ .name = "objcg", .settings = "", .violation = true, .demo = true,
		  .clean_orders = true,
		  .summary = "mainline (objcg, no local reparenting on v2): the free lands on p, "
			     "whose local stats go to -3 and read 0 with 1 page listed",
		  .why = "p's local view is wrong",
		  .dfs_exhausts = true,
		  .figures = UAO_FIGURES("classic", "p", 5, 0, 1, 1, -3, 0, 4) },
		{ .name = "objcg-all", .settings = "dying-redirect=all", .demo = true,
		  .summary = "thread 000 patch 2: c's local stats move to p at offline; p reads 1",
		  .dfs_exhausts = true, .dfs_schedules = 2869, .dpor_schedules = 157,
		  .figures = UAO_FIGURES("classic", "p", 5, 0, 5, 1, 1, 1, 0) },
		{ .name = "mglru", .settings = "lru=mglru", .violation = true,
		  .clean_orders = true,
		  .summary = "mainline under MGLRU: the same -3 read as 0, and lruvec_lru_size() "
			     "reads 0 too",
		  .why = "p's local view is wrong",
		  .dfs_exhausts = true,
		  .figures = UAO_FIGURES("mglru", "p", 5, 0, 1, 0, -3, 0, 4) },
		{ .name = "mglru-all", .settings = "lru=mglru,dying-redirect=all",
		  .summary = "patch 2 under MGLRU: the local stats are exact, lruvec_lru_size() "
			     "still reads 0 (why patch 1 reads the local stats)",
		  .dfs_exhausts = true, .dfs_schedules = 2941, .dpor_schedules = 157,
		  .figures = UAO_FIGURES("mglru", "p", 5, 0, 5, 0, 1, 1, 0) },
		{ NULL } },
};
MSIM_RACE_REGISTER(uncharge_after_offline)
