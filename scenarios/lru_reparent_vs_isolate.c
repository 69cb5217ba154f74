/* SPDX-License-Identifier: MIT */
/*
 * lru-reparent-vs-isolate: reclaim and migration isolate folios of c while c's
 * offline moves its LRU lists to p (mem_cgroup_css_offline()
 * step 5, memcg_reparent_objcgs; the objcg LRU series' folio_lruvec_lock).
 *
 * p -> c. p holds one file page; c holds three file folios (1, 4 and 1 pages)
 * and one anon page. CPU 0 removes c. CPU 1 reclaims c's lruvec (file lists
 * only: may_swap off): it isolates the three file folios, evicts the 4-page one
 * and puts the two others back (move_folios_to_lru). CPU 2 migrates the anon
 * page: folio_isolate_lru, then folio_putback_lru.
 *
 * Two safeguards keep a folio's list and its lruvec together when an offline
 * moves the folio between the lookup of its lruvec and the use of it:
 *  - move_folios_to_lru relocks when the folio's lruvec is no longer the one
 *    held (reclaim took c's lock, the folio now belongs to p);
 *  - folio_lruvec_lock rechecks folio_memcg() after locking and retries (the
 *    migration looked up c's lruvec, the offline spliced the folio onto p's).
 * Variant lruvec-recheck=off (a demonstration switch) removes both: reclaim puts
 * its two survivors back on the dead c's lists (left on a dead lruvec: lost to
 * p's reclaim, and c's lruvec freed with folios on it), and migration takes the
 * anon page off p's list while counting it out of c's sizes (p's size still
 * counts it: counted twice after the putback). MGLRU the same with
 * lrugen->nr_pages (c's, zeroed by the splice, goes negative).
 *
 * Invariant after every task (folios freed by reclaim excepted): each survivor
 * is on an LRU (PG_lru); the pages listed on p's lists (walked) are p's own plus
 * c's survivors (objcg; 7.0: c keeps its own), none on the dead c; p's sizes
 * (classic: lru_zone_size; MGLRU: nr_pages) equal what p's lists hold; no size
 * underflowed; p's hierarchical LRU statistics equal the pages listed in its
 * subtree. The dead c's lru_zone_size is left as it was at the splice, as the
 * kernel leaves it (reported, not checked).
 */
#include <stdarg.h>
#include <stdint.h>

#include <memcgsim/introspect.h>

#include "lru_scn.h"

#define RVI_NR 4                  /* c's folios: file 1, file 4 (evicted), file 1, anon 1 */
#define RVI_EVICTED 1
#define RVI_MIGRATED 3

struct rvi {
	struct msim *m;
	struct msim_memcg *root, *p, *c;
	struct msim_folio *pf, *f[RVI_NR];
	struct msim_task *rmdir, *reclaim, *migrate;
	bool freed[RVI_NR], objcg, mglru, settled, migrated;
	unsigned long scanned, reclaimed;
	long p_listed, c_listed, p_size, c_size, c_zone_size, p_lru_stat;
	long survivors_pages, lost;
	char why[320];
	bool violated;
};

static enum msim_reclaim_verdict rvi_evict(struct msim_folio *folio, struct msim_memcg *target,
					   void *arg)
{
	struct rvi *s = arg;
	unsigned int i = (unsigned int)(uintptr_t)msim_folio_private(folio);

	(void)target;
	if (i != RVI_EVICTED)
		return MSIM_RECLAIM_KEEP;
	s->freed[i] = true;
	msim_folio_put(folio);     /* the page cache's reference */
	return MSIM_RECLAIM_FREE;
}

static void reclaim_fn(void *arg)
{
	struct rvi *s = arg;
	struct msim_scan_control sc;

	msim_scan_control_init(&sc);
	sc.priority = 0;
	sc.may_swap = false;
	sc.nr_to_reclaim = 32;
	sc.evict = rvi_evict;
	sc.evict_arg = s;
	sc.evict_notes = true;   /* rvi_evict: freed[] is read after the run; the put is a shim */
	s->reclaimed = msim_shrink_lruvec(lru_scn_lruvec(s->c), &sc);
	s->scanned = sc.nr_scanned;
}

static void migrate_fn(void *arg)
{
	struct rvi *s = arg;

	s->migrated = msim_folio_isolate_lru(s->f[RVI_MIGRATED]);
	if (s->migrated)
		msim_folio_putback_lru(s->f[RVI_MIGRATED]);
}

static void rmdir_fn(void *arg)
{
	struct rvi *s = arg;

	msim_memcg_rmdir(s->c);
}

static int rvi_folios(struct rvi *s)
{
	static const unsigned int order[RVI_NR] = { 0, 2, 0, 0 };

	if (!(s->pf = lru_scn_folio(s->p, MSIM_FOLIO_FILE, 0)))
		return -ENOMEM;
	for (unsigned int i = 0; i < RVI_NR; i++) {
		s->f[i] = lru_scn_folio(s->c, i == RVI_MIGRATED ? MSIM_FOLIO_ANON : MSIM_FOLIO_FILE,
					order[i]);
		if (!s->f[i])
			return -ENOMEM;
		msim_folio_set_private(s->f[i], (void *)(uintptr_t)i);
	}
	return 0;
}

static int rvi_setup(struct msim *m, void **state, void *arg)
{
	struct rvi *s = calloc(1, sizeof(*s));
	int ret;

	(void)arg;
	if (!s)
		return -ENOMEM;
	*state = s;
	s->m = m;
	s->root = msim_root_mem_cgroup(m);
	s->objcg = msim_variant_value(&msim_config(m)->variants, "lru-reparent") ==
		   MSIM_LRU_REPARENT_OBJCG;
	if ((ret = lru_scn_tree(m, &s->p, &s->c)) || (ret = rvi_folios(s)))
		return ret;
	s->mglru = msim_lru_gen_enabled(m);
	msim_css_get(s->c);   /* the check walks the dead c's lists */
	s->rmdir = msim_task_create(m, "rmdir", 0, rmdir_fn, s);
	s->reclaim = msim_task_create(m, "reclaim", 1, reclaim_fn, s);
	s->migrate = msim_task_create(m, "migrate", 2, migrate_fn, s);
	return s->rmdir && s->reclaim && s->migrate ? 0 : -ENOMEM;
}

/* The size p's (or c's) lists are counted by: lru_zone_size, or MGLRU's nr_pages. */
static long lru_size(struct rvi *s, struct msim_memcg *memcg)
{
	return s->mglru ? lru_scn_gen_pages(memcg) + lru_scn_zone_size(memcg)
			: lru_scn_zone_size(memcg);
}

static long lru_stat(struct msim_memcg *memcg)
{
	long sum = 0;

	for (unsigned int lru = 0; lru < MSIM_NR_LRU_LISTS; lru++)
		sum += msim_lruvec_stat_raw(lru_scn_lruvec(memcg), MSIM_STAT_STATE,
					    (enum msim_stat_item)(MSIM_NR_INACTIVE_ANON + lru));
	return sum;
}

static void rvi_measure(struct rvi *s)
{
	msim_mem_cgroup_flush_stats_forced(s->root);
	for (unsigned int i = 0; i < RVI_NR; i++) {
		if (s->freed[i])
			continue;
		s->survivors_pages += msim_folio_nr_pages(s->f[i]);
		s->lost += !msim_folio_test_lru(s->f[i]);
	}
	s->p_listed = lru_scn_listed_pages(s->p);
	s->c_listed = lru_scn_listed_pages(s->c);
	s->p_size = lru_size(s, s->p);
	s->c_size = lru_size(s, s->c);
	s->c_zone_size = lru_scn_zone_size(s->c);
	s->p_lru_stat = lru_stat(s->p);
}

/* Append one broken part of the invariant to s->why. */
static void rvi_why(struct rvi *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void rvi_why(struct rvi *s, const char *fmt, ...)
{
	size_t n = strlen(s->why);
	va_list ap;

	n += (size_t)snprintf(s->why + n, sizeof(s->why) - n, n ? "; " : "lists and sizes "
			      "disagree: ");
	va_start(ap, fmt);
	if (n < sizeof(s->why))
		vsnprintf(s->why + n, sizeof(s->why) - n, fmt, ap);
	va_end(ap);
	s->violated = true;
}

/* Every broken part of the invariant, into s->why. */
static void rvi_judge(struct rvi *s, long underflows)
{
	long own = msim_folio_nr_pages(s->pf);
	long want_p = own + (s->objcg ? s->survivors_pages : 0);
	long want_c = s->objcg ? 0 : s->survivors_pages;

	if (s->lost)
		rvi_why(s, "%ld folios lost: off every LRU", s->lost);
	if (s->objcg && s->c_listed)
		rvi_why(s, "%ld pages left on the dead c's lists", s->c_listed);
	if (s->p_listed != want_p || s->c_listed != want_c)
		rvi_why(s, "p lists %ld pages, c %ld: %ld and %ld expected", s->p_listed,
			s->c_listed, want_p, want_c);
	if (s->p_size != s->p_listed)
		rvi_why(s, "p's sizes count %ld pages for %ld listed%s", s->p_size, s->p_listed,
			s->p_size > s->p_listed ? " (counted twice)" : "");
	if (!s->objcg && s->c_size != s->c_listed)
		rvi_why(s, "c's sizes count %ld pages for %ld listed", s->c_size, s->c_listed);
	if (underflows)
		rvi_why(s, "%ld lru_zone_size underflows", underflows);
	if (s->p_lru_stat != s->p_listed + s->c_listed)
		rvi_why(s, "p's LRU statistics %ld for %ld pages listed in its subtree",
			s->p_lru_stat, s->p_listed + s->c_listed);
}

static bool rvi_check(struct msim *m, void *state, char *why, size_t len)
{
	struct rvi *s = state;
	struct msim_lru_counts n;

	if (!s->settled) {
		s->settled = true;
		rvi_measure(s);
		msim_lru_counts(m, &n);
		rvi_judge(s, (long)n.lru_size_underflows);
	}
	snprintf(why, len, "%s", s->why);
	return s->violated;
}

/*
 * The references to put on c's folio i at teardown: after a completed run, the
 * page cache's on each survivor. A stopped run (a pruned DPOR run) leaves
 * reclaim or migration parked holding the isolation references they took
 * (isolate_lru_folios' folio_try_get, folio_isolate_lru's folio_get) and had not
 * put back: reclaim's batch (the evicted folio's too, its page cache reference
 * put by rvi_evict), migration's anon page. Every reference still counted is
 * then put, the last freeing the folio. A count of 0: freed (quarantined until
 * the lru layer's fini) or its release in flight, which that fini finishes.
 * Read before any put: a release during teardown frees the folio at once.
 */
static long rvi_refs_left(struct msim *m, struct rvi *s, unsigned int i)
{
	if (!s->f[i])
		return 0;
	if (msim_tasks_abandoned(m))
		return msim_folio_ref_count(s->f[i]);
	return s->freed[i] ? 0 : 1;
}

static void rvi_teardown(struct msim *m, void *state)
{
	struct rvi *s = state;

	if (!s)
		return;
	for (unsigned int i = 0; i < RVI_NR; i++)
		for (long n = rvi_refs_left(m, s, i); n > 0; n--)
			msim_folio_put(s->f[i]);
	if (s->pf)
		msim_folio_put(s->pf);
	if (s->c)
		msim_css_put(s->c);
	free(s);
}

static void rvi_report(struct rvi *s, struct msim_race_report *rep)
{
	struct msim_lru_counts n;

	msim_lru_counts(s->m, &n);
	msim_race_fig_str(rep, "lru", s->mglru ? "mglru" : "classic");
	msim_race_fig_int(rep, "reclaim_scanned_pages", (long long)s->scanned);
	msim_race_fig_int(rep, "reclaim_freed_pages", (long long)s->reclaimed);
	msim_race_fig_bool(rep, "migrated", s->migrated);
	msim_race_fig_int(rep, "survivors_pages", s->survivors_pages);
	msim_race_fig_int(rep, "lost", s->lost);
	msim_race_fig_int(rep, "p_listed", s->p_listed);
	msim_race_fig_int(rep, "p_size", s->p_size);
	msim_race_fig_int(rep, "c_listed", s->c_listed);
	msim_race_fig_int(rep, "c_size", s->c_size);
	msim_race_fig_int(rep, "c_zone_size", s->c_zone_size);
	msim_race_fig_int(rep, "p_lru_stat", s->p_lru_stat);
	msim_race_fig_int(rep, "relock_retries", (long long)n.lruvec_relock_retries);
	msim_race_fig_int(rep, "underflows", (long long)n.lru_size_underflows);
	msim_race_note(rep, "p lists %ld pages (sizes %ld), the dead c %ld (sizes %ld; "
		       "lru_zone_size %ld%s); p's LRU statistics %ld", s->p_listed, s->p_size,
		       s->c_listed, s->c_size, s->c_zone_size,
		       s->objcg ? ", the splice leaves it" : "", s->p_lru_stat);
}

/*
 * The diagram's order: reclaim isolates its batch, the offline passes its grace
 * period, migration looks up c's lruvec, the offline moves c's lists, then
 * reclaim puts back and migration locks what it looked up.
 */
static int rvi_script(struct msim *m, void *state, struct msim_race_report *rep)
{
	struct rvi *s = state;
	char why[320];
	int ret;

	if ((ret = msim_run_until(m, s->reclaim, "lru.shrink.isolated", 1)))
		return ret;
	msim_step(m, s->rmdir, 1000);              /* to synchronize_rcu */
	if (!msim_rcu_step(m))
		return -EDEADLK;
	if ((ret = msim_run_until(m, s->rmdir, "objcg.reparent.lock", 1)) ||
	    (ret = msim_run_until(m, s->migrate, "lock", 1)))
		return ret;
	if ((ret = lru_scn_run_with_rcu(m, s->rmdir)) ||
	    (ret = msim_run_task(m, s->reclaim)) || (ret = msim_run_task(m, s->migrate)))
		return ret;
	rep->violated = rvi_check(m, s, why, sizeof(why));
	msim_race_note(rep, "%s", rep->violated ? why : "every folio is on its owner's lists, "
		       "counted once");
	rvi_report(s, rep);
	return 0;
}

static int rvi_configure(struct msim_config *cfg, char *err, size_t len)
{
	return scn_need_cpus(cfg, 3, "lru-reparent-vs-isolate", err, len);
}

static bool rvi_expect(const struct msim_config *cfg, const void *arg)
{
	(void)arg;
	return msim_variant_value(&cfg->variants, "lru-reparent") == MSIM_LRU_REPARENT_OBJCG &&
	       msim_variant_value(&cfg->variants, "lruvec-recheck") == MSIM_OFF;
}

#define RVI_FIGURES(lru, p_listed, p_size, c_listed, c_size, c_zone, retries)            \
	(const struct msim_race_expect[]){                                                   \
		MSIM_RACE_EXPECT_STR("lru", lru),                                            \
		MSIM_RACE_EXPECT("reclaim_scanned_pages", 6),                                \
		MSIM_RACE_EXPECT("reclaim_freed_pages", 4), MSIM_RACE_EXPECT("migrated", 1), \
		MSIM_RACE_EXPECT("survivors_pages", 3), MSIM_RACE_EXPECT("lost", 0),         \
		MSIM_RACE_EXPECT("p_listed", p_listed), MSIM_RACE_EXPECT("p_size", p_size),  \
		MSIM_RACE_EXPECT("c_listed", c_listed), MSIM_RACE_EXPECT("c_size", c_size),  \
		MSIM_RACE_EXPECT("c_zone_size", c_zone), MSIM_RACE_EXPECT("p_lru_stat", 4),  \
		MSIM_RACE_EXPECT("relock_retries", retries),                                 \
		MSIM_RACE_EXPECT("underflows", 0), { NULL } }

static const struct msim_race lru_reparent_vs_isolate = {
	.name = "lru-reparent-vs-isolate",
	.summary = "reclaim and migration isolate folios of c while its offline moves c's LRU "
		   "lists to p: the relock at putback and the folio_lruvec_lock recheck keep "
		   "every folio on the lruvec it is counted in",
	.thread = "000",
	.diagram =
		"p: 1 file page; c: file folios of 1, 4, 1 pages and 1 anon page.\n"
		"\n"
		"CPU 0 (rmdir c)            CPU 1 (reclaim c)          CPU 2 (migrate c's anon)\n"
		"---------------            -----------------          ------------------------\n"
		"                           lock c; isolate 3 file\n"
		"                           folios; unlock\n"
		"synchronize_rcu()\n"
		"                                                      folio_isolate_lru:\n"
		"                                                        lruvec = c's\n"
		"offline: lock objcg, c, p\n"
		"  splice c's lists onto\n"
		"  p's (the anon page too),\n"
		"  add the sizes;\n"
		"  objcg->memcg = p; unlock\n"
		"                           evict the 4-page folio;\n"
		"                           lock c; putback 2:\n"
		"                             relock: p's now\n"
		"                             (no relock: onto the\n"
		"                             dead c's lists)\n"
		"                                                        lock c; recheck: p's\n"
		"                                                        now: lock p, del\n"
		"                                                        (no recheck: del from\n"
		"                                                        p's list, counted out\n"
		"                                                        of c's sizes)\n"
		"                                                      folio_putback_lru -> p\n",
	.budget = { .runs = 500, .pct_depth = 3, .preemptions = 1, .dfs_runs = 10000 },
	.configure = rvi_configure,
	.expect = rvi_expect,
	.target = { .name = "lru-reparent-vs-isolate", .setup = rvi_setup, .check = rvi_check,
		    .teardown = rvi_teardown },
	.script = rvi_script,
	.script_replays = true,
	.sides = (const struct msim_race_side[]){
		{ .name = "bug", .settings = "lruvec-recheck=off", .violation = true, .demo = true,
		  .clean_orders = true,
		  .summary = "no relock, no recheck: 2 folios left on the dead c, the anon page "
			     "counted twice in p's sizes",
		  .why = "lists and sizes disagree",
		  .figures = RVI_FIGURES("classic", 2, 3, 2, 2, 2, 0) },
		{ .name = "fix", .settings = "", .demo = true,
		  .summary = "mainline: reclaim relocks to p; migration rechecks, retries on p",
		  .figures = RVI_FIGURES("classic", 4, 4, 0, 1, 1, 1) },
		{ .name = "mglru-bug", .settings = "lru=mglru,lruvec-recheck=off",
		  .violation = true, .demo = true, .clean_orders = true,
		  .summary = "the same under MGLRU: the survivors on c's generations, the anon "
			     "page counted out of c's nr_pages",
		  .why = "lists and sizes disagree",
		  .figures = RVI_FIGURES("mglru", 2, 3, 2, 1, 0, 0) },
		{ .name = "mglru-fix", .settings = "lru=mglru", .demo = true,
		  .summary = "mainline under MGLRU: every folio on p's generations",
		  .figures = RVI_FIGURES("mglru", 4, 4, 0, 0, 0, 1) },
		{ .name = "off", .settings = "lru-reparent=off",
		  .summary = "7.0: nothing moves at offline; the folios stay on the dead c",
		  .figures = RVI_FIGURES("classic", 1, 1, 3, 3, 3, 0) },
		{ NULL } },
};
MSIM_RACE_REGISTER(lru_reparent_vs_isolate)
