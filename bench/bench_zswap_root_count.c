/* SPDX-License-Identifier: MIT */
/*
 * bench_zswap_root_count.c - thread 002 patch 1: "With a workload running in the
 * root cgroup, the shrinker wrote back 0 pages before the fix and drained the
 * whole pool after it" (zswpwb 0, then 1016 pages).
 *
 * One deterministic host per run (2 CPUs, zswap with its shrinker on, default
 * compressibility 1000..3000 bytes per page, seed from --seed, the pool's pages
 * counted in zsmalloc's size classes and zspages). The workload
 * runs in the root memcg: --pages anon pages touched and reclaimed (each stored
 * in zswap under the root's objcg, which obj_cgroup_charge_zswap() skips), then
 * memory pressure: rounds of shrink_slab(node 0, root, priority 0) until the
 * pool is empty or --rounds have run. The two designs (variant
 * zswap-root-count: memcg-stats, mainline; pool, patch 1) alternate in one
 * process, --reps times each.
 *
 * The mixed workload (designs "+children"): root stores --pages pages and a child
 * memcg --pages more, the same pressure on root. Root's count then reads root's own
 * list (its entries) scaled by a ratio: under mainline the root's hierarchical
 * stats, which hold the child's entries only (the descendants' ratio); under
 * patch 1 the pool's, which include root's. The bench reads both ratios apart
 * (the child's own stats, the pool's counters) and checks the count against each.
 *
 * Figures: pages written back (zswpwb), the pool at the start of the pressure,
 * the root's first shrinker count, what is left. They are deterministic (the
 * same in every repetition; a difference is reported as an error). What sets the
 * size of "written back" under pool is the pool the workload filled: it is
 * drained whole, as in the thread, so ours equals --pages by construction of the
 * workload and the thread's 1016 is its own pool. The time printed is the
 * model's wall time for one run (host set-up, workload and pressure): what the
 * simulator costs, not a kernel figure.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/memcgsim.h>

#include "bench_table.h"
#include "bench_util.h"
#include "bench_zswap_root_count.h"
#include "bench_registry.h"

static const char *const zrc_design_names[BENCH_ZRC_NDESIGNS] = {
	"memcg-stats", "pool", "memcg-stats+children", "pool+children",
};

struct zrc {
	unsigned int pages, rounds;
	uint64_t seed;
	struct msim_variants base;
	struct bench_zrc_summary s;
	bool have[BENCH_ZRC_NDESIGNS];
	bool mismatch;                  /* a repetition's figures differed */
	double *samples;                /* [BENCH_ZRC_NDESIGNS * reps] run wall ms */
	unsigned int reps;
};

static struct msim *zrc_host(struct zrc *r, unsigned int design)
{
	struct msim_zswap_params p;
	struct msim_config cfg;
	struct msim *m = NULL;
	char err[256] = "";

	msim_config_init(&cfg);
	cfg.nr_cpus = 2;
	cfg.mode = MSIM_DETERMINISTIC;
	cfg.variants = r->base;
	bench_variant_set(&cfg.variants, "zswap-root-count",
			  design % 2 ? MSIM_ZSWAP_ROOT_COUNT_POOL
				     : MSIM_ZSWAP_ROOT_COUNT_MEMCG_STATS);
	msim_zswap_params_init(&p);
	p.seed = r->seed;
	/* the pool-wide ratio of patch 1 reads zswap_total_pages: zsmalloc's pages */
	p.zsmalloc_pages = true;
	if (msim_create(&cfg, &m, err, sizeof(err))) {
		fprintf(stderr, "zswap-root-count: msim_create: %s\n", err);
		return NULL;
	}
	msim_set_current_host(m);
	/* rstat without the periodic flush: the count's flushes are the only ones */
	if (msim_rstat_init(m, NULL) || msim_zswap_attach(m, &p, err, sizeof(err))) {
		fprintf(stderr, "zswap-root-count: zswap: %s\n", err);
		bench_host_destroy(m);
		return NULL;
	}
	msim_rstat_periodic_flush_enable(m, false);
	return m;
}

/*
 * The pressure: rounds of shrink_slab(root, 0) while root's own list holds
 * entries (a child's are not root's to shrink), the root's count probed first.
 */
static void pressure(struct zrc *r, struct msim *m, struct bench_zrc_design *d)
{
	struct msim_memcg *root = msim_root_mem_cgroup(m);
	struct msim_shrink_control sc = { .nid = 0, .memcg = root };
	unsigned int i;

	for (i = 0; i < r->rounds && msim_zswap_lru_count(root, 0); i++) {
		unsigned long count = msim_zswap_shrinker_count(msim_zswap_shrinker(m), &sc);

		if (!i)
			d->first_count = (double)count;
		msim_shrink_slab(m, 0, root, 0);
	}
	d->rounds = i;
}

/* The two ratios root's count may use, read apart from the count. */
static void read_mixed(struct msim *m, struct msim_memcg *child, struct bench_zrc_mixed *x)
{
	x->root_entries = (double)msim_zswap_lru_count(msim_root_mem_cgroup(m), 0);
	x->child_backing = (double)(msim_memcg_page_state(child, MSIM_MEMCG_ZSWAP_B) /
				    MSIM_PAGE_SIZE);
	x->child_stored = (double)msim_memcg_page_state(child, MSIM_MEMCG_ZSWAPPED);
	x->pool_backing = (double)msim_zswap_total_pages(m);
	x->pool_stored = (double)msim_zswap_stored_pages(m);
}

/* Fault n pages into memcg's ptes. */
static int touch(struct msim_swap_pte *pte, unsigned int n, struct msim_memcg *memcg)
{
	int ret = 0;

	for (unsigned int i = 0; !ret && i < n; i++) {
		msim_swap_pte_init(&pte[i]);
		ret = msim_zswap_anon_fault(&pte[i], memcg, 0);
	}
	return ret;
}

/* One run of design: the figures into *d (and *x when mixed); returns 0 or an errno. */
static int zrc_run(struct zrc *r, unsigned int design, struct bench_zrc_design *d,
		   struct bench_zrc_mixed *x)
{
	bool mixed = design >= BENCH_ZRC_MIXED;
	unsigned int npte = mixed ? 2 * r->pages : r->pages;
	struct msim *m = zrc_host(r, design);
	struct msim_swap_pte *pte = calloc(npte, sizeof(*pte));
	struct msim_memcg *child = NULL;
	struct msim_zswap_stats st;
	int ret = m && pte ? 0 : -ENOMEM;

	if (!ret && mixed)
		ret = msim_memcg_create(msim_root_mem_cgroup(m), "child", &child);
	if (!ret)
		ret = touch(pte, r->pages, msim_root_mem_cgroup(m));
	if (!ret && mixed)
		ret = touch(pte + r->pages, r->pages, child);
	if (!ret) {
		msim_zswap_reclaim(msim_root_mem_cgroup(m), npte, -1);
		msim_zswap_stats(m, &st);
		d->pool_entries = (double)st.stored_pages;
		d->pool_pages = (double)st.pool_pages;
		/*
		 * Mixed: a forced root flush first, so that the first count reads the
		 * stats the ratios are read from (its own flush is gated: the shape of
		 * the count is checked here, not the gate's staleness).
		 */
		if (mixed) {
			msim_mem_cgroup_flush_stats_forced(msim_root_mem_cgroup(m));
			read_mixed(m, child, x);
		}
		pressure(r, m, d);
		msim_zswap_stats(m, &st);
		d->written_back = (double)st.zswpwb;
		d->left_in_pool = (double)st.stored_pages;
	}
	for (unsigned int i = 0; m && pte && i < npte; i++)
		msim_zswap_pte_free(m, &pte[i]);
	free(pte);
	bench_host_destroy(m);
	return ret;
}

static bool same_figures(const struct bench_zrc_design *a, const struct bench_zrc_design *b)
{
	return a->pool_entries == b->pool_entries && a->pool_pages == b->pool_pages &&
	       a->first_count == b->first_count && a->written_back == b->written_back &&
	       a->left_in_pool == b->left_in_pool && a->rounds == b->rounds;
}

static double zrc_sample(unsigned int design, unsigned int rep, void *ctx)
{
	struct zrc *r = ctx;
	struct bench_zrc_design d = { 0 };
	struct bench_zrc_mixed x = { 0 };
	uint64_t t0 = bench_now_ns();

	(void)rep;
	if (zrc_run(r, design, &d, &x)) {
		r->mismatch = true;
		return NAN;
	}
	if (r->have[design] && !same_figures(&r->s.d[design], &d))
		r->mismatch = true;
	r->s.d[design] = d;
	if (design >= BENCH_ZRC_MIXED)
		r->s.mixed[design - BENCH_ZRC_MIXED] = x;
	r->have[design] = true;
	return (double)(bench_now_ns() - t0) / 1e6;
}

/* ---- verdicts ---- */

static const char *const zrc_fig_names[BENCH_ZRC_NFIGS] = {
	[BENCH_ZRC_F_WB_STATS] = "written_back(memcg-stats)",
	[BENCH_ZRC_F_WB_POOL] = "written_back(pool)",
	[BENCH_ZRC_F_COUNT_STATS] = "first_count(memcg-stats)",
	[BENCH_ZRC_F_COUNT_POOL] = "first_count(pool)",
	[BENCH_ZRC_F_ENTRIES_STATS] = "pool_entries(memcg-stats)",
	[BENCH_ZRC_F_ENTRIES_POOL] = "pool_entries(pool)",
	[BENCH_ZRC_F_LEFT_POOL] = "left_in_pool(pool)",
	[BENCH_ZRC_F_MIX_ROOT_ENTRIES] = "root_entries(memcg-stats+children)",
	[BENCH_ZRC_F_MIX_ROOT_ENTRIES_POOL] = "root_entries(pool+children)",
	[BENCH_ZRC_F_MIX_CHILD_STORED] = "child_stored(memcg-stats+children)",
	[BENCH_ZRC_F_MIX_COUNT_STATS] = "first_count(memcg-stats+children)",
	[BENCH_ZRC_F_MIX_WANT_STATS] = "root_entries x child_backing / child_stored",
	[BENCH_ZRC_F_MIX_COUNT_POOL] = "first_count(pool+children)",
	[BENCH_ZRC_F_MIX_WANT_POOL] = "root_entries x pool_backing / pool_stored",
	[BENCH_ZRC_F_MIX_WB_STATS] = "written_back(memcg-stats+children)",
};

static const struct bench_verdict_row zrc_rows[] = {
	{
		.claim = "before the fix, the shrinker wrote back no pages of the root's pool",
		.thread = { { "zswpwb", 0, BENCH_ZRC_THREAD_BEFORE, "pages" } },
		.ours = { { "zswpwb", BENCH_ZRC_F_WB_STATS, 0, "pages" },
			  { "root's count", BENCH_ZRC_F_COUNT_STATS, 0, "" } },
		.comparable_when = { { BENCH_ZRC_F_ENTRIES_STATS, BENCH_VOP_GT, 0 } },
		.holds_when = { { BENCH_ZRC_F_WB_STATS, BENCH_VOP_EQ, 0 } },
		.note = "by construction once the root stored entries: root-owned entries are "
			"never charged, so the count the shrinker asks is 0 (the row checks the "
			"model keeps that order of operations)",
		.why = { [BENCH_VERDICT_HOLDS] = "the root's MEMCG_ZSWAPPED is 0 (root-owned "
						"entries are never charged): the count is 0",
			 [BENCH_VERDICT_NOT_COMPARABLE] = "the workload stored nothing in zswap" },
	},
	{
		.claim = "with the fix, the shrinker writes the root's entries back",
		.thread = { { "zswpwb", 0, BENCH_ZRC_THREAD_AFTER, "pages" } },
		.ours = { { "zswpwb", BENCH_ZRC_F_WB_POOL, 0, "pages" },
			  { "root's count", BENCH_ZRC_F_COUNT_POOL, 0, "" } },
		.comparable_when = { { BENCH_ZRC_F_ENTRIES_POOL, BENCH_VOP_GT, 0 } },
		.holds_when = { { BENCH_ZRC_F_WB_POOL, BENCH_VOP_GT, 0 } },
		.why = { [BENCH_VERDICT_NOT_COMPARABLE] = "the workload stored nothing in zswap" },
	},
	{
		.claim = "with the fix, the shrinker drains the whole pool",
		.thread = { { "\"drained the whole pool\"", 0, NAN, "" },
			    { "pages", 0, BENCH_ZRC_THREAD_AFTER, "" } },
		.ours = { { "pool", BENCH_ZRC_F_ENTRIES_POOL, 0, "pages" },
			  { "written back", BENCH_ZRC_F_WB_POOL, 0, "pages" },
			  { "left", BENCH_ZRC_F_LEFT_POOL, 0, "pages" } },
		.rule = BENCH_RULE_BY_CONSTRUCTION,
		.why = { [BENCH_VERDICT_BY_CONSTRUCTION] =
				 "written back = --pages follows from the pressure: shrink_slab at "
				 "priority 0 scans 4 / seeks = 2 x the count each round "
				 "(do_shrink_slab: freeable >> 0), and the rounds go on while root's "
				 "list holds entries, so any non-zero count drains the pool; the "
				 "thread's 1016 is its own pool" },
	},
	{
		.claim = "with descendants' entries beside root's, mainline's root count is root's "
			 "entries scaled by the descendants' ratio",
		.thread = { { "\"scaled by the descendants' compression ratio\"", 0, NAN, "" } },
		.ours = { { "count", BENCH_ZRC_F_MIX_COUNT_STATS, 0, "" },
			  { "root's entries x the child's ratio", BENCH_ZRC_F_MIX_WANT_STATS, 0, "" },
			  { "root's entries", BENCH_ZRC_F_MIX_ROOT_ENTRIES, 0, "" } },
		.comparable_when = { { BENCH_ZRC_F_MIX_ROOT_ENTRIES, BENCH_VOP_GT, 0 },
				     { BENCH_ZRC_F_MIX_CHILD_STORED, BENCH_VOP_GT, 0 } },
		.holds_when = { { BENCH_ZRC_F_MIX_COUNT_STATS, BENCH_VOP_EQ, 1,
				  BENCH_ZRC_F_MIX_WANT_STATS } },
		.why = { [BENCH_VERDICT_DOES_NOT_HOLD] = "the count is not root's entries times the "
							"child's MEMCG_ZSWAP_B / MEMCG_ZSWAPPED",
			 [BENCH_VERDICT_NOT_COMPARABLE] = "root or the child stored nothing" },
		.note = "the ratio read from the child's own stats, apart from the root's "
			"hierarchical ones the count reads; mult_frac rounding",
	},
	{
		.claim = "with the fix, root's count scales its entries by the pool-wide ratio, "
			 "which includes them",
		.thread = { { "\"the zswap pool-wide counters cover every zswap entry\"", 0, NAN,
			      "" } },
		.ours = { { "count", BENCH_ZRC_F_MIX_COUNT_POOL, 0, "" },
			  { "root's entries x the pool's ratio", BENCH_ZRC_F_MIX_WANT_POOL, 0, "" } },
		.comparable_when = { { BENCH_ZRC_F_MIX_ROOT_ENTRIES_POOL, BENCH_VOP_GT, 0 } },
		.holds_when = { { BENCH_ZRC_F_MIX_COUNT_POOL, BENCH_VOP_EQ, 1,
				  BENCH_ZRC_F_MIX_WANT_POOL } },
		.why = { [BENCH_VERDICT_NOT_COMPARABLE] = "root stored nothing" },
	},
	{
		.claim = "with descendants' entries, mainline's shrinker does write root's back",
		.thread = { { "(the bug writes nothing back only when descendants have none)", 0,
			      NAN, "" } },
		.ours = { { "zswpwb", BENCH_ZRC_F_MIX_WB_STATS, 0, "pages" },
			  { "root's entries", BENCH_ZRC_F_MIX_ROOT_ENTRIES, 0, "" } },
		.comparable_when = { { BENCH_ZRC_F_MIX_ROOT_ENTRIES, BENCH_VOP_GT, 0 },
				     { BENCH_ZRC_F_MIX_CHILD_STORED, BENCH_VOP_GT, 0 } },
		.holds_when = { { BENCH_ZRC_F_MIX_WB_STATS, BENCH_VOP_GT, 0 } },
		.why = { [BENCH_VERDICT_NOT_COMPARABLE] = "root or the child stored nothing" },
	},
};

/* kernel: mult_frac(x, n, d), as zswap_shrinker_count() scales; NAN without d. */
static double scaled(double x, double n, double d)
{
	unsigned long ux = (unsigned long)x, un = (unsigned long)n, ud = (unsigned long)d;

	if (!ud)
		return NAN;
	return (double)((ux / ud) * un + ((ux % ud) * un) / ud);
}

void bench_zrc_verdicts(const struct bench_zrc_summary *s, struct bench_zrc_verdicts *v)
{
	double *f = v->fig;

	f[BENCH_ZRC_F_NONE] = 0;
	f[BENCH_ZRC_F_WB_STATS] = s->d[0].written_back;
	f[BENCH_ZRC_F_WB_POOL] = s->d[1].written_back;
	f[BENCH_ZRC_F_COUNT_STATS] = s->d[0].first_count;
	f[BENCH_ZRC_F_COUNT_POOL] = s->d[1].first_count;
	f[BENCH_ZRC_F_ENTRIES_STATS] = s->d[0].pool_entries;
	f[BENCH_ZRC_F_ENTRIES_POOL] = s->d[1].pool_entries;
	f[BENCH_ZRC_F_LEFT_POOL] = s->d[1].left_in_pool;
	f[BENCH_ZRC_F_MIX_ROOT_ENTRIES] = s->mixed[0].root_entries;
	f[BENCH_ZRC_F_MIX_ROOT_ENTRIES_POOL] = s->mixed[1].root_entries;
	f[BENCH_ZRC_F_MIX_CHILD_STORED] = s->mixed[0].child_stored;
	f[BENCH_ZRC_F_MIX_COUNT_STATS] = s->d[BENCH_ZRC_MIXED].first_count;
	f[BENCH_ZRC_F_MIX_WANT_STATS] = scaled(s->mixed[0].root_entries, s->mixed[0].child_backing,
					       s->mixed[0].child_stored);
	f[BENCH_ZRC_F_MIX_COUNT_POOL] = s->d[BENCH_ZRC_MIXED + 1].first_count;
	f[BENCH_ZRC_F_MIX_WANT_POOL] = scaled(s->mixed[1].root_entries, s->mixed[1].pool_backing,
					      s->mixed[1].pool_stored);
	f[BENCH_ZRC_F_MIX_WB_STATS] = s->d[BENCH_ZRC_MIXED].written_back;
	v->table = (struct bench_verdict_table){
		.reference = "thread 002 patch 1",
		.rows = zrc_rows,
		.nrows = sizeof(zrc_rows) / sizeof(zrc_rows[0]),
		.fig_names = zrc_fig_names,
		.fig = v->fig,
		.nfig = BENCH_ZRC_NFIGS,
	};
}

/* ---- output ---- */

static const struct bench_col zrc_design_cols[] = {
	{ .head = { "design" }, .fmt = "%-20s", .key = "design" },
	{ .head = { "pool", "entries" }, .fmt = " %8.0f", .key = "pool_entries" },
	{ .head = { "pool", "pages" }, .fmt = " %8.0f", .key = "pool_pages" },
	{ .head = { "root's", "count" }, .fmt = " %10.0f", .key = "first_count" },
	{ .head = { "written back", "(zswpwb)" }, .fmt = " %12.0f", .key = "written_back" },
	{ .head = { "left" }, .fmt = " %8.0f", .key = "left_in_pool" },
	{ .head = { "rounds" }, .fmt = " %8.0f", .key = "rounds" },
	{ .head = { "thread's", "zswpwb" }, .fmt = " %12lld", .key = "thread_written_back" },
	{ .key = "run_ms" },
};
#define ZRC_DESIGN_COLS (sizeof(zrc_design_cols) / sizeof(zrc_design_cols[0]))

/* Each design's pool, count and writeback (the thread's beside), and its run time. */
static void zrc_designs_table(const struct zrc *r, struct bench_cell *cells,
			      struct bench_table *t)
{
	for (unsigned int d = 0; d < BENCH_ZRC_NDESIGNS; d++) {
		const struct bench_zrc_design *x = &r->s.d[d];
		struct bench_cell *c = &cells[d * ZRC_DESIGN_COLS];

		c[0] = BENCH_STR(zrc_design_names[d]);
		c[1] = BENCH_DBL(x->pool_entries);
		c[2] = BENCH_DBL(x->pool_pages);
		c[3] = BENCH_DBL(x->first_count);
		c[4] = BENCH_DBL(x->written_back);
		c[5] = BENCH_DBL(x->left_in_pool);
		c[6] = BENCH_DBL(x->rounds);
		c[7] = BENCH_INT(d % 2 ? BENCH_ZRC_THREAD_AFTER : BENCH_ZRC_THREAD_BEFORE);
		c[8] = BENCH_DBL(x->run_ms);
	}
	*t = (struct bench_table){ .indent = "  ", .head_rows = 2, .cols = zrc_design_cols,
				   .ncols = ZRC_DESIGN_COLS, .cells = cells,
				   .nrows = BENCH_ZRC_NDESIGNS };
}

static void print_text(const struct zrc *r, const struct bench_opts *a)
{
	struct bench_cell cells[BENCH_ZRC_NDESIGNS * ZRC_DESIGN_COLS];
	struct bench_zrc_verdicts v;
	struct bench_table t;

	printf("zswap root count (thread 002 patch 1): %u pages in the root memcg, pressure "
	       "rounds of shrink_slab(root, priority 0) up to %u, %u repetitions\n",
	       r->pages, r->rounds, r->reps);
	bench_print_base_variants(a, "zswap-root-count set per design");
	zrc_designs_table(r, cells, &t);
	bench_table_print_text(stdout, &t);
	for (unsigned int d = 0; d < 2; d++) {
		const struct bench_zrc_mixed *x = &r->s.mixed[d];

		printf("  %s: root's entries %.0f; child: %.0f pages backing %.0f stored; pool: "
		       "%.0f pages backing %.0f stored\n", zrc_design_names[BENCH_ZRC_MIXED + d],
		       x->root_entries, x->child_backing, x->child_stored, x->pool_backing,
		       x->pool_stored);
	}
	printf("  what sets the size: the pool the workload filled (%u pages stored), drained\n"
	       "  whole under pool; the thread's 1016 is its pool. Pages and counts are\n"
	       "  deterministic (identical in every repetition%s).\n",
	       r->pages, r->mismatch ? ": NOT SO in this run, see stderr" : "");
	printf("  model's wall time per run (set-up, workload, pressure; the simulator's cost, "
	       "not the kernel's), medians:");
	for (unsigned int d = 0; d < BENCH_ZRC_NDESIGNS; d++)
		printf("%s %s %.2f ms", d ? "," : "", zrc_design_names[d], r->s.d[d].run_ms);
	printf("\n\n");
	bench_zrc_verdicts(&r->s, &v);
	bench_verdict_print_text(stdout, &v.table);
}

static void print_json(const struct zrc *r, const struct bench_opts *a)
{
	struct bench_cell cells[BENCH_ZRC_NDESIGNS * ZRC_DESIGN_COLS];
	struct bench_zrc_verdicts v;
	struct bench_table t;
	struct bench_json j;

	bench_json_begin(&j, stdout, "zswap-root-count", "002 patch 1",
			 "pages and counts, deterministic; run_ms is the model's wall time", a);
	bench_json_kuint(&j, "pages", r->pages);
	bench_json_kuint(&j, "rounds_max", r->rounds);
	bench_json_kbool(&j, "deterministic", !r->mismatch);
	zrc_designs_table(r, cells, &t);
	bench_table_print_json(&j, "designs", &t);
	bench_json_arr_begin(&j, "mixed");
	for (unsigned int d = 0; d < 2; d++) {
		const struct bench_zrc_mixed *x = &r->s.mixed[d];

		bench_json_obj_begin(&j, NULL);
		bench_json_kstr(&j, "design", zrc_design_names[BENCH_ZRC_MIXED + d]);
		bench_json_kdbl(&j, "root_entries", x->root_entries);
		bench_json_kdbl(&j, "child_backing_pages", x->child_backing);
		bench_json_kdbl(&j, "child_stored", x->child_stored);
		bench_json_kdbl(&j, "pool_backing_pages", x->pool_backing);
		bench_json_kdbl(&j, "pool_stored", x->pool_stored);
		bench_json_obj_end(&j);
	}
	bench_json_arr_end(&j);
	bench_zrc_verdicts(&r->s, &v);
	bench_verdict_print_json(&j, "verdicts", &v.table);
	bench_json_obj_end(&j);
	bench_json_finish(&j);
}

static int zrc_parse(struct zrc *r, int argc, char **argv, struct bench_opts *a)
{
	const struct bench_arg opts[] = {
		BENCH_OPT_UINT("--pages", "N", &r->pages, 1, 1U << 20,
			       "anon pages the root workload stores in zswap (default 1024; quick 256)"),
		BENCH_OPT_UINT("--rounds", "N", &r->rounds, 1, 100000,
			       "most rounds of shrink_slab(root, 0) (default 64)"),
		BENCH_OPT_END,
	};
	const struct bench_spec spec = {
		.name = "zswap-root-count",
		.summary = "thread 002 patch 1: pages the zswap shrinker writes back from a pool\n"
			   "owned by the root memcg, per design (memcg-stats, pool).",
		.description = "A root-cgroup workload stores --pages pages in zswap, then rounds of\n"
			       "shrink_slab(root, 0) apply pressure. Pages, deterministic; the\n"
			       "designs alternate in one process.",
		.default_reps = 3,
		.quick_reps = 1,
		.options = opts,
	};
	int ret;

	r->rounds = 64;
	ret = bench_parse_args(&spec, argc, argv, a);
	if (ret)
		return ret;
	r->base = a->variants;
	r->reps = a->reps;
	r->seed = a->seed ? a->seed : 1;
	if (!r->pages)
		r->pages = a->quick ? 256 : 1024;
	return 0;
}

static int zswap_root_count_main(int argc, char **argv)
{
	struct zrc *r = calloc(1, sizeof(*r));
	struct bench_progress prog;
	struct bench_opts a;
	int ret;

	if (!r)
		return 1;
	ret = zrc_parse(r, argc, argv, &a);
	if (ret) {
		free(r);
		return bench_args_exit_status(ret);
	}
	r->samples = calloc(BENCH_ZRC_NDESIGNS * (size_t)r->reps, sizeof(double));
	if (!r->samples) {
		free(r);
		return 1;
	}
	bench_progress_init(&prog, "zswap-root-count", true);
	bench_alternate(BENCH_ZRC_NDESIGNS, r->reps, zrc_sample, r, r->samples, &prog);
	bench_progress_done(&prog);
	for (unsigned int d = 0; d < BENCH_ZRC_NDESIGNS; d++)
		r->s.d[d].run_ms = bench_median(r->samples + d * r->reps, r->reps);
	if (r->mismatch)
		fprintf(stderr, "zswap-root-count: a run failed or its figures differed between "
			"repetitions\n");
	if (a.json)
		print_json(r, &a);
	else
		print_text(r, &a);
	ret = r->mismatch ? 1 : 0;
	for (unsigned int d = 0; d < BENCH_ZRC_NDESIGNS; d++)
		ret |= !r->have[d];
	free(r->samples);
	free(r);
	return ret;
}

static const struct bench_engine zswap_root_count_bench = {
	.name = "zswap-root-count",
	.summary = "thread 002 patch 1: zswap shrinker writeback from a root-owned pool, per design",
	.main = zswap_root_count_main,
};
BENCH_REGISTER(zswap_root_count_bench);
