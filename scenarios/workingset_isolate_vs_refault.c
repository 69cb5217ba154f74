/* SPDX-License-Identifier: MIT */
/*
 * workingset-isolate-vs-refault: the shadow shrinker frees a shadow-only node
 * while a refault stores a folio into that same node (mm/workingset.c
 * shadow_lru_isolate and workingset_update_node).
 *
 * c read pages 0-63 of a file (one xa_node) and reclaim evicted them all: the
 * node holds 64 shadows and sits on c's shadow_nodes list. CPU 0 runs the
 * shadow shrinker's scan for c (one node); CPU 1 reads page 5 back (a refault:
 * the folio goes into the node, in place of the shadow).
 *
 * Lock order is the xa lock, then the list_lru lock: the refault's store runs
 * the update hook under the xa lock, which takes the node off the list under
 * the list lock. The shrinker holds the list lock when it finds the node, so
 * it may only trylock the xa lock; when that fails it drops the list lock and
 * retries, and once it holds both the node is still shadow-only (else the hook
 * would have taken it off the list). Variant shadow-isolate-trylock=off (a
 * demonstration switch) takes the node off the list, drops the list lock, then
 * waits for the xa lock and erases the node's entries without looking again:
 * the refault's folio goes with them, and page 5, just read, is no longer in
 * the page cache.
 *
 * Invariant after every task: page 5 is resident (a read of it hits); what is
 * not resident of pages 0-63 is either a shadow or was freed with its node.
 */
#include "ws_scn.h"

#define IVR_PAGE 5UL

struct ivr {
	struct msim *m;
	struct msim_memcg *c;
	struct msim_address_space *file;
	struct msim_task *shrink, *refault;
	bool trylock, settled, reread_hit, violated;
	int refault_ret;
	unsigned long isolated;
	long shadows_left, nodes_left;
	struct msim_workingset_counts n;
	char why[200];
};

/* do_shrink_slab's call of the shadow shrinker's scan_objects, one node. */
static void shrink_fn(void *arg)
{
	struct ivr *s = arg;
	struct msim_shrinker *sh = msim_workingset_shrinker(s->m);
	struct msim_shrink_control sc = { .nid = 0, .memcg = s->c, .nr_to_scan = 1 };

	s->isolated = sh->scan_objects(sh, &sc);
}

static void refault_fn(void *arg)
{
	struct ivr *s = arg;

	s->refault_ret = msim_filemap_read(s->file, IVR_PAGE, s->c, 0, false);
}

static int ivr_setup(struct msim *m, void **state, void *arg)
{
	struct ivr *s = calloc(1, sizeof(*s));
	int ret;

	(void)arg;
	if (!s)
		return -ENOMEM;
	*state = s;
	s->m = m;
	s->trylock = msim_variant_value(&msim_config(m)->variants, "shadow-isolate-trylock") ==
		     MSIM_ON;
	if ((ret = ws_scn_init(m)) ||
	    (ret = msim_memcg_create(msim_root_mem_cgroup(m), "c", &s->c)) ||
	    (ret = msim_address_space_create(m, "file", &s->file)) ||
	    (ret = ws_scn_read(s->file, 0, 64, s->c)))
		return ret;
	if (msim_workingset_reclaim(s->c, 64, NULL) != 64 || ws_scn_shadow_nodes(m, s->c) != 1)
		return -EIO;
	msim_rcu_barrier(); /* no callback pending: R steps only for the run's own */
	s->shrink = msim_task_create(m, "shrink", 0, shrink_fn, s);
	s->refault = msim_task_create(m, "refault", 1, refault_fn, s);
	return s->shrink && s->refault ? 0 : -ENOMEM;
}

static bool ivr_check(struct msim *m, void *state, char *why, size_t len)
{
	struct ivr *s = state;

	if (!s->settled) {
		s->settled = true;
		msim_workingset_counts(m, &s->n);
		s->shadows_left = (long)msim_mapping_nrshadows(s->file);
		s->nodes_left = ws_scn_shadow_nodes(m, s->c);
		s->reread_hit = msim_filemap_read(s->file, IVR_PAGE, s->c, 0, false) ==
				MSIM_FILEMAP_HIT;
		s->violated = !s->reread_hit;
		if (s->violated)
			snprintf(s->why, sizeof(s->why), "a resident folio vanished: page %lu, just "
				 "read in by the refault, is gone from the page cache (freed with "
				 "the node)", IVR_PAGE);
	}
	snprintf(why, len, "%s", s->why);
	return s->violated;
}

static void ivr_teardown(struct msim *m, void *state)
{
	struct ivr *s = state;

	(void)m;
	if (s && s->file)
		msim_address_space_destroy(s->file);
	free(s);
}

static void ivr_report(struct ivr *s, struct msim_race_report *rep)
{
	msim_race_fig_int(rep, "refault_outcome", s->refault_ret);
	msim_race_fig_int(rep, "isolated", (long long)s->isolated);
	msim_race_fig_int(rep, "isolate_retries", (long long)s->n.isolate_retries);
	msim_race_fig_int(rep, "nodes_reclaimed", (long long)s->n.nodes_reclaimed);
	msim_race_fig_int(rep, "shadows_left", s->shadows_left);
	msim_race_fig_int(rep, "shadow_nodes_left", s->nodes_left);
	msim_race_fig_bool(rep, "reread_hit", s->reread_hit);
	msim_race_note(rep, "%s", s->violated ? s->why : "page 5 stays resident; the node left "
		       "the list with the refault, and its 63 shadows stay");
}

/*
 * trylock: the shrinker holds the list lock at the node; the refault stores
 * its folio and blocks on the list lock in the update hook; the trylock
 * fails, the shrinker retries (waiting for the xa lock); the refault takes the
 * node off the list; the walk's budget is spent. off: the shrinker has taken
 * the node and dropped the list lock; the refault runs through; the shrinker
 * erases the node, folio and all.
 */
static int ivr_script(struct msim *m, void *state, struct msim_race_report *rep)
{
	struct ivr *s = state;
	char why[200];
	int ret;

	if (s->trylock) {
		if ((ret = msim_run_until(m, s->shrink, "workingset.shadow.isolate", 1)))
			return ret;
		if ((ret = msim_run_task(m, s->refault)) != -EDEADLK ||
		    (ret = msim_run_task(m, s->shrink)) != -EDEADLK)
			return ret ? ret : -EPROTO;
	} else if ((ret = msim_run_until(m, s->shrink, "workingset.shadow.delete", 1))) {
		return ret;
	}
	if ((ret = msim_run_task(m, s->refault)) || (ret = msim_run_task(m, s->shrink)))
		return ret;
	while (msim_rcu_step(m))   /* the frees the run queued, as a replay's engine does */
		;
	rep->violated = ivr_check(m, s, why, sizeof(why));
	ivr_report(s, rep);
	return 0;
}

static bool ivr_expect(const struct msim_config *cfg, const void *arg)
{
	(void)arg;
	return msim_variant_value(&cfg->variants, "shadow-isolate-trylock") == MSIM_OFF;
}

#define IVR_FIGURES(retries, reclaimed, shadows, nodes, hit)                                 \
	(const struct msim_race_expect[]){                                                   \
		MSIM_RACE_EXPECT("refault_outcome", MSIM_FILEMAP_REFAULT),                   \
		MSIM_RACE_EXPECT("isolated", reclaimed),                                     \
		MSIM_RACE_EXPECT("isolate_retries", retries),                                \
		MSIM_RACE_EXPECT("nodes_reclaimed", reclaimed),                              \
		MSIM_RACE_EXPECT("shadows_left", shadows),                                   \
		MSIM_RACE_EXPECT("shadow_nodes_left", nodes),                                \
		MSIM_RACE_EXPECT("reread_hit", hit), { NULL } }

static const struct msim_race workingset_isolate_vs_refault = {
	.name = "workingset-isolate-vs-refault",
	.min_cpus = 2,
	.summary = "the shadow shrinker frees a shadow-only node while a refault stores a folio "
		   "in it: the xa trylock under the list lock, and the node leaving the list "
		   "under the xa lock, keep the folio",
	.thread = "000",
	.diagram =
		"c's node N: 64 shadows (pages 0-63), on c's shadow_nodes list.\n"
		"\n"
		"CPU 0 (shadow shrinker, c)          CPU 1 (read page 5: refault)\n"
		"--------------------------          ---------------------------\n"
		"lock list; walk: N\n"
		"                                    xa_lock; store folio in N;\n"
		"                                    update_node: N not shadow-only:\n"
		"                                      list_lru_del: lock list ... waits\n"
		"xa_trylock fails: unlock list,\n"
		"  LRU_RETRY\n"
		"                                      N off the list; unlock list\n"
		"                                    xa_unlock; folio on the LRU\n"
		"walk: budget spent, N kept\n"
		"\n"
		"shadow-isolate-trylock=off:\n"
		"lock list; take N off the list;\n"
		"unlock list\n"
		"                                    xa_lock; store folio in N;\n"
		"                                    update_node: N not listed;\n"
		"                                    xa_unlock\n"
		"xa_lock; erase N's 64 entries:\n"
		"  the folio too; free N\n",
	.budget = { .runs = 300, .pct_depth = 3, .preemptions = 1, .dfs_runs = 5000 },
	.expect = ivr_expect,
	.target = { .name = "workingset-isolate-vs-refault", .setup = ivr_setup,
		    .check = ivr_check, .teardown = ivr_teardown },
	.script = ivr_script,
	.script_replays = true,
	.sides = (const struct msim_race_side[]){
		{ .name = "bug", .settings = "shadow-isolate-trylock=off", .violation = true,
		  .demo = true, .clean_orders = true,
		  .summary = "no trylock, no recheck: the node is erased with the refault's folio",
		  .why = "a resident folio vanished",
		  .figures = IVR_FIGURES(0, 1, 0, 0, 0) },
		{ .name = "fix", .settings = "", .demo = true,
		  .summary = "mainline: trylock fails, retry; the refault takes the node off the list",
		  .figures = IVR_FIGURES(1, 0, 63, 0, 1) },
		{ NULL } },
};
MSIM_RACE_REGISTER(workingset_isolate_vs_refault)
