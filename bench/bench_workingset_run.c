/* SPDX-License-Identifier: MIT */
/*
 * bench_workingset_run.c - the thrashing-protection workloads (thread 000's
 * experiment behind patch 1, which the thread describes but does not tabulate)
 * and their verdicts. The bench (bench_thrashing_protection.c) prints them; the bench-smoke
 * test asserts their deterministic counts.
 *
 * protectable: a hot set that fits in the memcg, read hot_reads times per
 * round through the file descriptor, against a cold stream read once. Sizes:
 * memcg 16384 pages, hot set 8192 pages (half), 2 cold pages after each hot
 * one (16384 per round): one round touches 24576 distinct pages, so a hot page
 * survives to its next visit only if reclaim prefers the stream. Three reads
 * per visit put a hot page in the second tier under both MGLRU rules (6.14:
 * PG_referenced and one count; 6.12: PG_referenced and PG_workingset), the
 * stream stays in the first. The hot set is sparse (stride 8) so that its
 * evicted pages leave shadow-only nodes of their own (1024 of them), which the
 * shrinker can take.
 *
 * cyclic: the old workload, a hot set of 20480 pages, 25% over the memcg, read
 * in a fault twice per visit: no replacement can keep a cyclic set larger than
 * memory, so every design reads every page from storage.
 *
 * The shrinker's arithmetic: do_shrink_slab gives the shadow shrinker (seeks 0)
 * freeable / 2 per call and scans only whole batches of SHRINK_BATCH (128)
 * unless the share covers everything freeable, so at the priorities memory.high
 * reclaim reaches it frees nodes only once the excess over the budget reaches
 * 256 nodes.
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

void bench_tp_opts_init(struct bench_tp_opts *o, enum bench_tp_workload workload,
			enum msim_lru_kind lru, enum msim_shadow_budget budget,
		       enum msim_mglru_protection protection)
{
	memset(o, 0, sizeof(*o));
	msim_variants_init(&o->base);
	o->workload = workload;
	o->lru = lru;
	o->budget = budget;
	o->protection = protection;
	o->memcg_pages = 16384;     /* 64 MiB */
	o->hot_stride = 8;
	if (workload == BENCH_TP_CYCLIC) {
		o->hot_pages = 20480;       /* 25% more than the memcg */
		o->rounds = 4;
		return;
	}
	o->hot_pages = 8192;
	o->hot_reads = 3;
	o->cold_per_hot = 2;
	o->rounds = 8;
}

static const char *const design_names[BENCH_TP_NDESIGNS] = {
	"classic, lru-size", "classic, page-state-local",
	"MGLRU 6.14, lru-size", "MGLRU 6.14, page-state-local",
	"classic (6.12), lru-size", "classic (6.12), page-state-local",
	"MGLRU 6.12, lru-size", "MGLRU 6.12, page-state-local",
};

const char *bench_tp_design_name(unsigned int design)
{
	return design < BENCH_TP_NDESIGNS ? design_names[design] : "?";
}

void bench_tp_design_opts(struct bench_tp_opts *o, enum bench_tp_workload workload,
			  unsigned int design)
{
	bench_tp_opts_init(o, workload, design & 2 ? MSIM_LRU_MGLRU : MSIM_LRU_CLASSIC,
			   design & 1 ? MSIM_SHADOW_BUDGET_PAGE_STATE_LOCAL : MSIM_SHADOW_BUDGET_LRU_SIZE,
			  design & 4 ? MSIM_MGLRU_PROTECTION_6_12 : MSIM_MGLRU_PROTECTION_6_14);
}

struct tp_host {
	struct msim *m;
	struct msim_memcg *c;
	struct msim_address_space *hot, *cold;
	unsigned long cold_next;
};

static int tp_host_create(const struct bench_tp_opts *o, struct tp_host *h, char *msg, size_t len)
{
	struct msim_config cfg;
	char high[32];
	int ret;

	msim_config_init(&cfg);
	cfg.nr_cpus = 2;
	cfg.nr_nodes = 1;
	cfg.mode = MSIM_DETERMINISTIC;
	cfg.lru = o->lru;
	cfg.variants = o->base;
	bench_variant_set(&cfg.variants, "shadow-budget", o->budget);
	bench_variant_set(&cfg.variants, "mglru-protection", o->protection);
	if ((ret = msim_create(&cfg, &h->m, msg, len)))
		return ret;
	msim_set_current_host(h->m);
	if ((ret = msim_workingset_attach(h->m, msg, len)))
		return ret;
	if ((ret = msim_memcg_create(msim_root_mem_cgroup(h->m), "c", &h->c)))
		return ret;
	snprintf(high, sizeof(high), "%lu", o->memcg_pages * MSIM_PAGE_SIZE);
	if ((ret = msim_memory_high_write(h->c, high)))
		return ret;
	if ((ret = msim_address_space_create(h->m, "hot", &h->hot)))
		return ret;
	return msim_address_space_create(h->m, "cold", &h->cold);
}

static void tp_host_destroy(struct tp_host *h)
{
	if (!h->m)
		return;
	msim_set_current_host(h->m);
	msim_address_space_destroy(h->hot);
	msim_address_space_destroy(h->cold);
	msim_destroy(h->m);
}

static unsigned long c_shadow_nodes(struct tp_host *h)
{
	return msim_list_lru_count_one(msim_workingset_shadow_nodes(h->m), 0, h->c);
}

/*
 * memory.high: the charges of c's reads count the pages over its high in
 * try_charge_memcg's batches (MEMCG_CHARGE_BATCH through the per-CPU stock),
 * and on the way back to user space the task reclaims them
 * (mem_cgroup_handle_over_high -> reclaim_high -> try_to_free_mem_cgroup_pages,
 * the workingset layer's reclaim: the LRU, then shrink_slab with the shadow
 * shrinker).
 */
static void tp_return_to_user(struct tp_host *h, struct bench_tp_result *r)
{
	unsigned long kept;

	msim_mem_cgroup_handle_over_high(h->c);
	kept = c_shadow_nodes(h);
	if (kept > r->shadow_nodes_max)
		r->shadow_nodes_max = kept;
}

/* One read; a miss is a read from backing storage: 1 ms of virtual time (HZ 1000). */
static int tp_read(struct tp_host *h, struct msim_address_space *f, unsigned long index,
		   bool in_fault, struct bench_tp_round *rr, bool hot, struct bench_tp_result *r)
{
	int ret = msim_filemap_read(f, index, h->c, 0, in_fault);

	if (ret < 0)
		return ret;
	tp_return_to_user(h, r);
	if (ret != MSIM_FILEMAP_HIT) {
		rr->storage_reads++;
		if (hot)
			rr->hot_storage_reads++;
		msim_clock_advance(h->m, 1);
	}
	return 0;
}

static int tp_visit(const struct bench_tp_opts *o, struct tp_host *h, unsigned long i,
		    struct bench_tp_result *r, struct bench_tp_round *rr)
{
	bool cyclic = o->workload == BENCH_TP_CYCLIC;
	unsigned long reads = cyclic ? 2 : o->hot_reads;
	int ret = 0;

	for (unsigned long k = 0; k < reads && !ret; k++)
		ret = tp_read(h, h->hot, i * o->hot_stride, cyclic, rr, true, r);
	r->reads += reads;
	for (unsigned long k = 0; !cyclic && k < o->cold_per_hot && !ret; k++) {
		ret = tp_read(h, h->cold, h->cold_next++, false, rr, false, r);
		r->reads++;
	}
	return ret;
}

static unsigned long hot_resident(const struct bench_tp_opts *o, struct tp_host *h)
{
	struct msim_xarray *xa = msim_mapping_i_pages(h->hot);
	unsigned long n = 0;

	for (unsigned long i = 0; i < o->hot_pages; i++) {
		void *e = msim_xa_load(xa, i * o->hot_stride);

		n += e && !msim_xa_is_value(e);
	}
	return n;
}

/*
 * The layer's own counters of refaults, activations and restores (one memcg,
 * one node: c's WORKINGSET_*_FILE), read without a flush, which would move the
 * ratelimit the page-state-local budget depends on.
 */
static void c_ws_counts(struct tp_host *h, unsigned long out[3])
{
	struct msim_workingset_counts n;

	msim_workingset_counts(h->m, &n);
	out[0] = n.refaults;
	out[1] = n.refaults_activated;
	out[2] = n.refaults_restored;
}

/* The round's end state; the budget as count_shadow_nodes would compute it, without its flush. */
static void tp_round_end(const struct bench_tp_opts *o, struct tp_host *h, struct bench_tp_round *rr,
			 const unsigned long before[3])
{
	unsigned long now[3];

	c_ws_counts(h, now);
	rr->refaults = now[0] - before[0];
	rr->activations = now[1] - before[1];
	rr->restores = now[2] - before[2];
	rr->hot_resident = hot_resident(o, h);
	rr->shadow_nodes = c_shadow_nodes(h);
	rr->budget_nodes = msim_shadow_budget_pages(h->m, h->c, 0) >> (MSIM_XA_CHUNK_SHIFT - 3);
}

static int tp_round(const struct bench_tp_opts *o, struct tp_host *h, struct bench_tp_result *r,
		    struct bench_tp_round *rr)
{
	unsigned long before[3];

	c_ws_counts(h, before);
	for (unsigned long i = 0; i < o->hot_pages; i++) {
		int ret = tp_visit(o, h, i, r, rr);

		if (ret)
			return ret;
	}
	tp_round_end(o, h, rr, before);
	return 0;
}

static void tp_collect(struct tp_host *h, struct bench_tp_result *r)
{
	struct msim_shrink_control sc = { .nid = 0, .memcg = h->c };
	struct msim_workingset_counts n;

	msim_mem_cgroup_flush_stats_forced(msim_root_mem_cgroup(h->m));
	r->refaults = msim_memcg_page_state(h->c, MSIM_WORKINGSET_REFAULT_FILE);
	r->activations = msim_memcg_page_state(h->c, MSIM_WORKINGSET_ACTIVATE_FILE);
	r->restores = msim_memcg_page_state(h->c, MSIM_WORKINGSET_RESTORE_FILE);
	r->nodes_reclaimed = msim_memcg_page_state(h->c, MSIM_WORKINGSET_NODERECLAIM);
	r->shadow_nodes_end = c_shadow_nodes(h);
	msim_count_shadow_nodes_budget(h->m, &sc, &r->budget_nodes);
	r->budget_pages = msim_shadow_budget_pages(h->m, h->c, 0);
	r->tier_idx_end = msim_lru_gen_tier_idx(msim_mem_cgroup_lruvec(h->m, h->c, 0), 1);
	msim_workingset_counts(h->m, &n);
	r->shadows_reclaimed = n.shadows_reclaimed;
}

int bench_tp_run(const struct bench_tp_opts *o, struct bench_tp_result *r, char *msg, size_t len)
{
	struct tp_host h = { 0 };
	uint64_t t0 = bench_now_ns();
	int ret;

	memset(r, 0, sizeof(*r));
	if (!o->memcg_pages || !o->hot_pages || !o->hot_stride || !o->rounds ||
	    o->rounds > BENCH_TP_MAX_ROUNDS ||
	    (o->workload == BENCH_TP_PROTECTABLE && !o->hot_reads)) {
		snprintf(msg, len, "sizes, reads and rounds must be positive, rounds at most %d",
			 BENCH_TP_MAX_ROUNDS);
		return -EINVAL;
	}
	ret = tp_host_create(o, &h, msg, len);
	for (unsigned long round = 0; !ret && round < o->rounds; round++) {
		struct bench_tp_round *rr = &r->round[round];

		ret = tp_round(o, &h, r, rr);
		r->storage_reads += rr->storage_reads;
		r->hot_storage_reads += rr->hot_storage_reads;
		r->last_round_storage_reads = rr->storage_reads;
		r->hot_resident_end = rr->hot_resident;
		r->nr_rounds = round + 1;
	}
	if (!ret)
		tp_collect(&h, r);
	else if (msg && !msg[0])
		snprintf(msg, len, "workload failed: %d", ret);
	tp_host_destroy(&h);
	r->seconds = (double)(bench_now_ns() - t0) / 1e9;
	return ret;
}

/* ---- verdicts ---- */

static const char *const tp_fig_names[BENCH_TP_NFIGS] = {
	[BENCH_TP_F_MG_LRU_BUDGET] = "mglru_lru_size_budget_nodes",
	[BENCH_TP_F_MG_PSL_BUDGET] = "mglru_page_state_budget_nodes",
	[BENCH_TP_F_MG_LRU_READS] = "mglru_lru_size_storage_reads",
	[BENCH_TP_F_MG_PSL_READS] = "mglru_page_state_storage_reads",
	[BENCH_TP_F_MG_LRU_REFAULTS] = "mglru_lru_size_refaults",
	[BENCH_TP_F_MG_PSL_REFAULTS] = "mglru_page_state_refaults",
	[BENCH_TP_F_MG12_LRU_READS] = "mglru_6_12_lru_size_storage_reads",
	[BENCH_TP_F_MG12_PSL_READS] = "mglru_6_12_page_state_storage_reads",
	[BENCH_TP_F_CL_LRU_READS] = "classic_lru_size_storage_reads",
	[BENCH_TP_F_CL_PSL_READS] = "classic_page_state_storage_reads",
	[BENCH_TP_F_CL_LRU_REFAULTS] = "classic_lru_size_refaults",
	[BENCH_TP_F_CL_PSL_REFAULTS] = "classic_page_state_refaults",
	[BENCH_TP_F_CY_MIN_READS] = "cyclic_fewest_storage_reads",
	[BENCH_TP_F_CY_MAX_READS] = "cyclic_most_storage_reads",
	[BENCH_TP_F_CY_MG_LRU_REFAULTS] = "cyclic_mglru_lru_size_refaults",
	[BENCH_TP_F_CY_MG_PSL_REFAULTS] = "cyclic_mglru_page_state_refaults",
};

/* Group 1: the cyclic workload's rows (judged only when it ran). */
#define TP_GROUP_CYCLIC 1U

static const struct bench_verdict_row tp_rows[] = {
	{
		.claim = "under MGLRU, lruvec_lru_size() reads lru_zone_size, which MGLRU never "
			 "maintains: the shadow budget collapses to about zero",
		.thread = { { "budget", 0, NAN, "" } },
		.ours = { { "lru-size budget", BENCH_TP_F_MG_LRU_BUDGET, 0, "nodes" },
			  { "page-state-local budget", BENCH_TP_F_MG_PSL_BUDGET, 0, "nodes" } },
		.holds_when = { { BENCH_TP_F_MG_LRU_BUDGET, BENCH_VOP_LT, 0.1,
				  BENCH_TP_F_MG_PSL_BUDGET } },
		.why = { [BENCH_VERDICT_HOLDS] = "what is left is the local slab of c's own xa_nodes" },
	},
	{
		.claim = "losing the budget loses thrashing protection: under MGLRU (6.14 rules) "
			 "the hot set is read from storage measurably more often with the lru-size "
			 "budget than with patch 1's",
		.thread = { { "protection lost", 0, NAN, "" } },
		.ours = { { "storage reads (lru-size)", BENCH_TP_F_MG_LRU_READS, 0, "pages" },
			  { "storage reads (patch 1)", BENCH_TP_F_MG_PSL_READS, 0, "pages" },
			  { "refaults detected (lru-size)", BENCH_TP_F_MG_LRU_REFAULTS, 0, "" },
			  { "refaults detected (patch 1)", BENCH_TP_F_MG_PSL_REFAULTS, 0, "" } },
		.holds_when = { { BENCH_TP_F_MG_LRU_READS, BENCH_VOP_GT, 1.05, BENCH_TP_F_MG_PSL_READS } },
		.why = { [BENCH_VERDICT_HOLDS] = "the shrinker takes the hot set's shadows before its "
						"refaults: the hot tier's refaulted[] stays low, the "
						"PID controller never protects it, and the stream "
						"evicts it every round",
			 [BENCH_VERDICT_DOES_NOT_HOLD] = "storage reads differ by 5% or less: the hot "
							"set is kept (or lost) without the refault "
							"feedback the shadows carry" },
	},
	{
		.claim = "the same under the 6.12 rules (before the 6.14 rework)",
		.thread = { { "protection lost", 0, NAN, "" } },
		.ours = { { "storage reads (lru-size)", BENCH_TP_F_MG12_LRU_READS, 0, "pages" },
			  { "storage reads (patch 1)", BENCH_TP_F_MG12_PSL_READS, 0, "pages" } },
		.holds_when = { { BENCH_TP_F_MG12_LRU_READS, BENCH_VOP_GT, 1.05,
				  BENCH_TP_F_MG12_PSL_READS } },
		.why = { [BENCH_VERDICT_DOES_NOT_HOLD] = "storage reads differ by 5% or less under "
							"6.12's rules" },
	},
	{
		.claim = "classic LRU maintains lru_zone_size: patch 1 makes no difference there",
		.thread = { { "difference", 0, NAN, "" } },
		.ours = { { "storage reads (lru-size)", BENCH_TP_F_CL_LRU_READS, 0, "pages" },
			  { "storage reads (patch 1)", BENCH_TP_F_CL_PSL_READS, 0, "pages" },
			  { "refaults (lru-size)", BENCH_TP_F_CL_LRU_REFAULTS, 0, "" },
			  { "refaults (patch 1)", BENCH_TP_F_CL_PSL_REFAULTS, 0, "" } },
		.holds_when = { { BENCH_TP_F_CL_LRU_READS, BENCH_VOP_EQ, 1, BENCH_TP_F_CL_PSL_READS },
				{ BENCH_TP_F_CL_LRU_REFAULTS, BENCH_VOP_EQ, 1, BENCH_TP_F_CL_PSL_REFAULTS } },
		.why = { [BENCH_VERDICT_DOES_NOT_HOLD] = "the two budgets differ on classic: the "
							"statistics lag the lists (ratelimited "
							"flush)" },
	},
	{
		.claim = "cyclic set 25% larger than the memcg: no design can help (every design "
			 "reads (nearly) every page from storage)",
		.group = TP_GROUP_CYCLIC,
		.thread = { { "no protection possible", 0, NAN, "" } },
		.ours = { { "fewest storage reads", BENCH_TP_F_CY_MIN_READS, 0, "pages" },
			  { "most storage reads", BENCH_TP_F_CY_MAX_READS, 0, "pages" } },
		.rule = BENCH_RULE_BY_CONSTRUCTION,
		.why = { [BENCH_VERDICT_BY_CONSTRUCTION] =
				 "the workload decides it: a cycle larger than memory evicts each "
				 "page before its next visit under any replacement that keeps "
				 "recent pages (mm/workingset.c), and its refault distance exceeds "
				 "the workingset, so no design activates it; the figures show how "
				 "close each design is (memory.high is not a hard limit: usage "
				 "overshoots it by the charge batches until the return to user "
				 "space, so a design may keep a page)" },
		.note = "the exact storage reads per design are checked by the bench-smoke tests, "
			"not judged here",
	},
	{
		.claim = "cyclic: with the collapsed budget the refaults go undetected (the "
			 "tokens are gone); patch 1 keeps them",
		.group = TP_GROUP_CYCLIC,
		.thread = { { "tokens reclaimed", 0, NAN, "" } },
		.ours = { { "refaults detected (lru-size)", BENCH_TP_F_CY_MG_LRU_REFAULTS, 0, "" },
			  { "refaults detected (patch 1)", BENCH_TP_F_CY_MG_PSL_REFAULTS, 0, "" } },
		.comparable_when = { { BENCH_TP_F_CY_MG_PSL_REFAULTS, BENCH_VOP_GT, 0, 0 } },
		.holds_when = { { BENCH_TP_F_CY_MG_LRU_REFAULTS, BENCH_VOP_LT, 0.5,
				  BENCH_TP_F_CY_MG_PSL_REFAULTS } },
		.why = { [BENCH_VERDICT_DOES_NOT_HOLD] = "the shrinker did not reach the hot set's "
							"shadows in this run",
			 [BENCH_VERDICT_NOT_COMPARABLE] = "no refault even with patch 1's budget (one "
							 "round: nothing has come back yet)" },
	},
};

static void cyclic_figs(const struct bench_tp_result c[BENCH_TP_NDESIGNS], double *f)
{
	double lo = INFINITY, hi = -INFINITY;

	for (unsigned int d = 0; c && d < BENCH_TP_NDESIGNS; d++) {
		lo = fmin(lo, (double)c[d].storage_reads);
		hi = fmax(hi, (double)c[d].storage_reads);
	}
	f[BENCH_TP_F_CY_MIN_READS] = c ? lo : NAN;
	f[BENCH_TP_F_CY_MAX_READS] = c ? hi : NAN;
	f[BENCH_TP_F_CY_MG_LRU_REFAULTS] = c ? (double)c[BENCH_TP_DESIGN(1, 0, 0)].refaults : NAN;
	f[BENCH_TP_F_CY_MG_PSL_REFAULTS] = c ? (double)c[BENCH_TP_DESIGN(1, 1, 0)].refaults : NAN;
}

void bench_tp_verdicts(const struct bench_tp_result p[BENCH_TP_NDESIGNS],
		       const struct bench_tp_result c[BENCH_TP_NDESIGNS], struct bench_tp_verdicts *v)
{
	const struct bench_tp_result *ml = &p[BENCH_TP_DESIGN(1, 0, 0)], *mp = &p[BENCH_TP_DESIGN(1, 1, 0)];
	const struct bench_tp_result *cl = &p[BENCH_TP_DESIGN(0, 0, 0)], *cp = &p[BENCH_TP_DESIGN(0, 1, 0)];
	double *f = v->fig;

	f[BENCH_TP_F_NONE] = 0;
	f[BENCH_TP_F_MG_LRU_BUDGET] = (double)ml->budget_nodes;
	f[BENCH_TP_F_MG_PSL_BUDGET] = (double)mp->budget_nodes;
	f[BENCH_TP_F_MG_LRU_READS] = (double)ml->storage_reads;
	f[BENCH_TP_F_MG_PSL_READS] = (double)mp->storage_reads;
	f[BENCH_TP_F_MG_LRU_REFAULTS] = (double)ml->refaults;
	f[BENCH_TP_F_MG_PSL_REFAULTS] = (double)mp->refaults;
	f[BENCH_TP_F_MG12_LRU_READS] = (double)p[BENCH_TP_DESIGN(1, 0, 1)].storage_reads;
	f[BENCH_TP_F_MG12_PSL_READS] = (double)p[BENCH_TP_DESIGN(1, 1, 1)].storage_reads;
	f[BENCH_TP_F_CL_LRU_READS] = (double)cl->storage_reads;
	f[BENCH_TP_F_CL_PSL_READS] = (double)cp->storage_reads;
	f[BENCH_TP_F_CL_LRU_REFAULTS] = (double)cl->refaults;
	f[BENCH_TP_F_CL_PSL_REFAULTS] = (double)cp->refaults;
	cyclic_figs(c, f);
	v->table = (struct bench_verdict_table){
		.reference = "thread 000",
		.rows = tp_rows,
		.nrows = sizeof(tp_rows) / sizeof(tp_rows[0]),
		.fig_names = tp_fig_names,
		.fig = v->fig,
		.nfig = BENCH_TP_NFIGS,
		.groups = c ? TP_GROUP_CYCLIC : 0,
	};
}
