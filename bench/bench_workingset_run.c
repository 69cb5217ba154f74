/* SPDX-License-Identifier: MIT */
/*
 * bench_workingset_run.c - the thrashing-protection workload (thread 000's
 * experiment behind patch 1, which the thread describes but does not tabulate)
 * and its verdicts. The bench (bench_thrashing.c) prints it; the bench-smoke
 * test asserts its deterministic counts.
 *
 * Why the sizes: do_shrink_slab gives the shadow shrinker (seeks 0) a share of
 * freeable / 2 per call and scans only whole batches of SHRINK_BATCH (128)
 * unless the share covers everything freeable, so at the priorities memory.high
 * reclaim reaches it frees nodes only once the excess over the budget reaches
 * 256 nodes. The hot set is sparse (stride 8: eight pages per node's worth of
 * index space) so that the 25% of it that does not fit spans 512 shadow-only
 * nodes, past that threshold, with a memcg of 64 MiB: a model run of seconds.
 *
 * Time: each read from backing storage advances the virtual clock by one jiffy
 * (1 ms, a rotating disk's seek), so the periodic 2 s rstat flush runs every
 * 2000 misses, as it would under the kernel; hits take no virtual time. The
 * budget of page-state-local reads those flushed statistics.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench_util.h"
#include "bench_workingset.h"

void msim_tp_opts_init(struct msim_tp_opts *o, enum msim_lru_kind lru,
		       enum msim_shadow_budget budget)
{
	memset(o, 0, sizeof(*o));
	msim_variants_init(&o->base);
	o->lru = lru;
	o->budget = budget;
	o->memcg_pages = 16384;     /* 64 MiB */
	o->hot_pages = 20480;       /* 25% more */
	o->stride = 8;
	o->rounds = 4;
}

struct tp_host {
	struct msim *m;
	struct msim_memcg *c;
	struct msim_address_space *file;
};

static int tp_host_create(const struct msim_tp_opts *o, struct tp_host *h, char *msg, size_t len)
{
	struct msim_config cfg;
	int ret;

	msim_config_init(&cfg);
	cfg.nr_cpus = 2;
	cfg.nr_nodes = 1;
	cfg.mode = MSIM_DETERMINISTIC;
	cfg.lru = o->lru;
	cfg.variants = o->base;
	cfg.variants.shadow_budget = o->budget;
	if ((ret = msim_create(&cfg, &h->m, msg, len)))
		return ret;
	msim_set_current_host(h->m);
	if ((ret = msim_workingset_attach(h->m, msg, len)))
		return ret;
	if ((ret = msim_memcg_create(msim_root_mem_cgroup(h->m), "c", &h->c)))
		return ret;
	return msim_address_space_create(h->m, "hot", &h->file);
}

static void tp_host_destroy(struct tp_host *h)
{
	if (!h->m)
		return;
	msim_set_current_host(h->m);
	msim_address_space_destroy(h->file);
	msim_destroy(h->m);
}

/* memory.high: reclaim c back under it (reclaim_high on return to user space). */
static void tp_reclaim_high(const struct msim_tp_opts *o, struct tp_host *h,
			    struct msim_tp_result *r)
{
	unsigned long pages = msim_mapping_nrpages(h->file), kept;

	if (pages <= o->memcg_pages)
		return;
	msim_workingset_reclaim(h->c, pages - o->memcg_pages, NULL);
	r->reclaims++;
	kept = msim_list_lru_count_one(msim_workingset_shadow_nodes(h->m), 0, h->c);
	if (kept > r->shadow_nodes_max)
		r->shadow_nodes_max = kept;
}

static int tp_round(const struct msim_tp_opts *o, struct tp_host *h, struct msim_tp_result *r)
{
	for (unsigned long i = 0; i < o->hot_pages; i++) {
		unsigned long index = i * o->stride;
		int ret = msim_filemap_read(h->file, index, h->c, 0, true);

		if (ret < 0)
			return ret;
		if (ret != MSIM_FILEMAP_HIT) {
			r->storage_reads++;
			/* a read from a rotating disk: 1 ms of virtual time (HZ 1000) */
			msim_clock_advance(h->m, 1);
		}
		/* the second read of the visit: a hit that marks it accessed */
		if ((ret = msim_filemap_read(h->file, index, h->c, 0, true)) < 0)
			return ret;
		r->reads += 2;
		tp_reclaim_high(o, h, r);
	}
	return 0;
}

static void tp_collect(struct tp_host *h, struct msim_tp_result *r)
{
	struct msim_shrink_control sc = { .nid = 0, .memcg = h->c };
	struct msim_workingset_counts n;

	msim_mem_cgroup_flush_stats_forced(msim_root_mem_cgroup(h->m));
	r->refaults = msim_memcg_page_state(h->c, MSIM_WORKINGSET_REFAULT_FILE);
	r->activations = msim_memcg_page_state(h->c, MSIM_WORKINGSET_ACTIVATE_FILE);
	r->nodes_reclaimed = msim_memcg_page_state(h->c, MSIM_WORKINGSET_NODERECLAIM);
	r->shadow_nodes_end = msim_list_lru_count_one(msim_workingset_shadow_nodes(h->m), 0, h->c);
	msim_count_shadow_nodes_budget(h->m, &sc, &r->budget_nodes);
	r->budget_pages = msim_shadow_budget_pages(h->m, h->c, 0);
	msim_workingset_counts(h->m, &n);
	r->shadows_reclaimed = n.shadows_reclaimed;
}

int msim_tp_run(const struct msim_tp_opts *o, struct msim_tp_result *r, char *msg, size_t len)
{
	struct tp_host h = { 0 };
	uint64_t t0 = msim_bench_now_ns();
	int ret;

	memset(r, 0, sizeof(*r));
	if (!o->memcg_pages || !o->hot_pages || !o->stride || !o->rounds) {
		snprintf(msg, len, "sizes and rounds must be positive");
		return -EINVAL;
	}
	ret = tp_host_create(o, &h, msg, len);
	for (unsigned long round = 0; !ret && round < o->rounds; round++) {
		unsigned long before = r->storage_reads;

		ret = tp_round(o, &h, r);
		r->last_round_storage_reads = r->storage_reads - before;
	}
	if (!ret)
		tp_collect(&h, r);
	else if (msg && !msg[0])
		snprintf(msg, len, "workload failed: %d", ret);
	tp_host_destroy(&h);
	r->seconds = (double)(msim_bench_now_ns() - t0) / 1e9;
	return ret;
}

/* ---- verdicts ---- */

static const char *const tp_fig_names[MSIM_TP_NFIGS] = {
	[MSIM_TP_F_MG_LRU_BUDGET] = "mglru_lru_size_budget_nodes",
	[MSIM_TP_F_MG_PSL_BUDGET] = "mglru_page_state_budget_nodes",
	[MSIM_TP_F_MG_LRU_KEPT] = "mglru_lru_size_shadow_nodes",
	[MSIM_TP_F_MG_PSL_KEPT] = "mglru_page_state_shadow_nodes",
	[MSIM_TP_F_MG_LRU_ACT] = "mglru_lru_size_activations",
	[MSIM_TP_F_MG_PSL_ACT] = "mglru_page_state_activations",
	[MSIM_TP_F_MG_LRU_REFAULTS] = "mglru_lru_size_refaults",
	[MSIM_TP_F_MG_PSL_REFAULTS] = "mglru_page_state_refaults",
	[MSIM_TP_F_CL_LRU_KEPT] = "classic_lru_size_shadow_nodes",
	[MSIM_TP_F_CL_PSL_KEPT] = "classic_page_state_shadow_nodes",
	[MSIM_TP_F_CL_LRU_ACT] = "classic_lru_size_activations",
	[MSIM_TP_F_CL_PSL_ACT] = "classic_page_state_activations",
	[MSIM_TP_F_CL_LRU_READS] = "classic_lru_size_storage_reads",
	[MSIM_TP_F_CL_PSL_READS] = "classic_page_state_storage_reads",
	[MSIM_TP_F_CL_LRU_BUDGET] = "classic_lru_size_budget_nodes",
	[MSIM_TP_F_CL_PSL_BUDGET] = "classic_page_state_budget_nodes",
};

static const struct msim_verdict_row tp_rows[] = {
	{
		.claim = "under MGLRU, lruvec_lru_size() reads lru_zone_size, which MGLRU never "
			 "maintains: the shadow budget collapses to about zero",
		.thread = { { "budget", 0, NAN, "" } },
		.ours = { { "lru-size budget", MSIM_TP_F_MG_LRU_BUDGET, 0, "nodes" },
			  { "page-state-local budget", MSIM_TP_F_MG_PSL_BUDGET, 0, "nodes" } },
		.holds_when = { { MSIM_TP_F_MG_LRU_BUDGET, MSIM_VOP_LT, 0.1,
				  MSIM_TP_F_MG_PSL_BUDGET } },
		.why = { [MSIM_VERDICT_HOLDS] = "what is left is the local slab of c's own xa_nodes" },
	},
	{
		.claim = "with the collapsed budget the shadow shrinker reclaims eviction tokens "
			 "and refault activations are lost; patch 1 restores them",
		.thread = { { "activations lost", 0, NAN, "" } },
		.ours = { { "shadow nodes kept (lru-size)", MSIM_TP_F_MG_LRU_KEPT, 0, "" },
			  { "shadow nodes kept (patch 1)", MSIM_TP_F_MG_PSL_KEPT, 0, "" },
			  { "activations (lru-size)", MSIM_TP_F_MG_LRU_ACT, 0, "" },
			  { "activations (patch 1)", MSIM_TP_F_MG_PSL_ACT, 0, "" },
			  { "refaults (lru-size)", MSIM_TP_F_MG_LRU_REFAULTS, 0, "" },
			  { "refaults (patch 1)", MSIM_TP_F_MG_PSL_REFAULTS, 0, "" } },
		.holds_when = { { MSIM_TP_F_MG_LRU_KEPT, MSIM_VOP_LT, 1, MSIM_TP_F_MG_PSL_KEPT },
				{ MSIM_TP_F_MG_LRU_ACT, MSIM_VOP_LT, 0.95, MSIM_TP_F_MG_PSL_ACT } },
		.why = { [MSIM_VERDICT_DOES_NOT_HOLD] = "the shrinker did not reach the hot set's "
							"shadows in this run" },
		.note = "the model has no MGLRU tiers or PID controller, so the lost tokens show in "
			"the refault counters, not in pages read from storage",
	},
	{
		.claim = "classic LRU maintains lru_zone_size: patch 1 makes no difference there",
		.thread = { { "difference", 0, NAN, "" } },
		.ours = { { "budget (lru-size)", MSIM_TP_F_CL_LRU_BUDGET, 0, "nodes" },
			  { "budget (patch 1)", MSIM_TP_F_CL_PSL_BUDGET, 0, "nodes" },
			  { "shadow nodes (lru-size)", MSIM_TP_F_CL_LRU_KEPT, 0, "" },
			  { "shadow nodes (patch 1)", MSIM_TP_F_CL_PSL_KEPT, 0, "" },
			  { "activations (lru-size)", MSIM_TP_F_CL_LRU_ACT, 0, "" },
			  { "activations (patch 1)", MSIM_TP_F_CL_PSL_ACT, 0, "" },
			  { "storage reads (lru-size)", MSIM_TP_F_CL_LRU_READS, 0, "" },
			  { "storage reads (patch 1)", MSIM_TP_F_CL_PSL_READS, 0, "" } },
		.holds_when = { { MSIM_TP_F_CL_LRU_KEPT, MSIM_VOP_EQ, 1, MSIM_TP_F_CL_PSL_KEPT },
				{ MSIM_TP_F_CL_LRU_ACT, MSIM_VOP_EQ, 1, MSIM_TP_F_CL_PSL_ACT },
				{ MSIM_TP_F_CL_LRU_READS, MSIM_VOP_EQ, 1, MSIM_TP_F_CL_PSL_READS } },
		.why = { [MSIM_VERDICT_DOES_NOT_HOLD] = "the two budgets differ on classic: the "
							"statistics lag the lists (ratelimited "
							"flush)" },
	},
};

void msim_tp_verdicts(const struct msim_tp_result r[MSIM_TP_NDESIGNS], struct msim_tp_verdicts *v)
{
	const struct msim_tp_result *ml = &r[MSIM_TP_DESIGN(1, 0)], *mp = &r[MSIM_TP_DESIGN(1, 1)];
	const struct msim_tp_result *cl = &r[MSIM_TP_DESIGN(0, 0)], *cp = &r[MSIM_TP_DESIGN(0, 1)];
	double *f = v->fig;

	f[MSIM_TP_F_NONE] = 0;
	f[MSIM_TP_F_MG_LRU_BUDGET] = (double)ml->budget_nodes;
	f[MSIM_TP_F_MG_PSL_BUDGET] = (double)mp->budget_nodes;
	f[MSIM_TP_F_MG_LRU_KEPT] = (double)ml->shadow_nodes_end;
	f[MSIM_TP_F_MG_PSL_KEPT] = (double)mp->shadow_nodes_end;
	f[MSIM_TP_F_MG_LRU_ACT] = (double)ml->activations;
	f[MSIM_TP_F_MG_PSL_ACT] = (double)mp->activations;
	f[MSIM_TP_F_MG_LRU_REFAULTS] = (double)ml->refaults;
	f[MSIM_TP_F_MG_PSL_REFAULTS] = (double)mp->refaults;
	f[MSIM_TP_F_CL_LRU_KEPT] = (double)cl->shadow_nodes_end;
	f[MSIM_TP_F_CL_PSL_KEPT] = (double)cp->shadow_nodes_end;
	f[MSIM_TP_F_CL_LRU_ACT] = (double)cl->activations;
	f[MSIM_TP_F_CL_PSL_ACT] = (double)cp->activations;
	f[MSIM_TP_F_CL_LRU_READS] = (double)cl->storage_reads;
	f[MSIM_TP_F_CL_PSL_READS] = (double)cp->storage_reads;
	f[MSIM_TP_F_CL_LRU_BUDGET] = (double)cl->budget_nodes;
	f[MSIM_TP_F_CL_PSL_BUDGET] = (double)cp->budget_nodes;
	v->table = (struct msim_verdict_table){
		.reference = "thread 000",
		.rows = tp_rows,
		.nrows = sizeof(tp_rows) / sizeof(tp_rows[0]),
		.fig_names = tp_fig_names,
		.fig = v->fig,
		.nfig = MSIM_TP_NFIGS,
	};
}
