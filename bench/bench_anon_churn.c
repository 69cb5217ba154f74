/* SPDX-License-Identifier: MIT */
/*
 * bench_anon_churn.c - thread 000 w1-anon-churn: pages per second of an anon
 * fault / charge / stat / uncharge loop in one memcg, for base, patches 1-2 and
 * patches 1-3, classic LRU and MGLRU, shaped like the thread's table.
 *
 * One simulated fault, in the kernel's order (mm/memory.c do_anonymous_page):
 *   count_memcg_events(PGFAULT, 1)            handle_mm_fault -> mm_account_fault
 *   try_charge(memcg, 1 page)                 mem_cgroup_charge (stock, then counter)
 *   mod_lruvec_state(NR_ANON_MAPPED, +1)      folio_add_new_anon_rmap
 *   mod_lruvec_state(LRU item, +1)            folio_add_lru_vma -> update_lru_size
 * and one MADV_DONTNEED of the region:
 *   mod_lruvec_state(NR_ANON_MAPPED, -1)      zap_pte_range -> folio_remove_rmap
 *   mod_lruvec_state(LRU item, -1)            folios_put -> lruvec_del_folio
 *   memcg_uncharge(memcg, up to 31 pages)     mem_cgroup_uncharge_folios (per batch)
 * Classic LRU adds new anon pages to the inactive list; MGLRU puts faulted pages in
 * the youngest generation (counted as active). Patch 1 of the thread changes only
 * count_shadow_nodes (not on this path); patch 2 (dying-redirect=all) adds an
 * unconditional RCU read section and dying test to every memcg stat update;
 * patch 3 (all-rcu-on-dying) tests dying first and takes RCU only when dying.
 *
 * What the time measures: the model's own work for those calls on this machine
 * (C functions, atomics, RCU read sections of liburcu), single-threaded on the
 * driver (CPU 0) of a concurrent-mode host with 10 simulated CPUs, cgroup v2.
 * Not the kernel's page fault: no page allocation, zeroing, PTE or TLB work.
 * Timed as CPU time of the driver thread (CLOCK_THREAD_CPUTIME_ID), so other
 * processes on a shared machine do not count. The thread's absolute pages/s are
 * therefore not comparable; the ratios are.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/charge.h>
#include <memcgsim/memcgsim.h>
#include <memcgsim/rstat.h>

#include "bench_anon_churn.h"
#include "bench_table.h"
#include "bench_util.h"
#include "bench_registry.h"

#define NDESIGNS BENCH_AC_NDESIGNS
#define NLRU BENCH_AC_NLRU
#define UNCHARGE_BATCH 31   /* folio_batch size (PAGEVEC_SIZE) */

static const char *const design_names[NDESIGNS] = { "base", "patches 1-2", "patches 1-3" };
static const enum msim_dying_redirect design_variant[NDESIGNS] = {
	MSIM_DYING_REDIRECT_V1, MSIM_DYING_REDIRECT_ALL, MSIM_DYING_REDIRECT_ALL_RCU_ON_DYING,
};
static const char *const lru_names[NLRU] = { "classic LRU", "MGLRU" };

/* Thread 000 w1-anon-churn (pages/s), 10-vCPU QEMU guest, 7 runs, medians. */
static const double thread_pps[NDESIGNS][NLRU] = {
	{ 4393028, 4377122 },
	{ 4385996, 4352887 },
	{ 4381832, 4377053 },
};

struct churn_host {
	struct msim *m;
	struct msim_memcg *memcg;
	struct msim_lruvec *lruvec;
	enum msim_stat_item lru_item;
};

struct churn {
	unsigned int region;            /* pages faulted before each MADV_DONTNEED */
	unsigned int rounds;            /* regions per sample */
	unsigned int cpus;
	unsigned int lru;               /* column being measured */
	struct msim_variants base;      /* --preset/--variant; dying-redirect set per design */
	struct churn_host hosts[NDESIGNS][NLRU];
	uint64_t pages_done[NDESIGNS][NLRU];
};

static int host_setup(struct churn *c, unsigned int d, unsigned int l, uint64_t seed)
{
	struct churn_host *h = &c->hosts[d][l];
	struct msim_config cfg;
	char err[256];
	int ret;

	msim_config_init(&cfg);
	cfg.nr_cpus = c->cpus;
	cfg.nr_nodes = 1;
	cfg.cgroup_version = MSIM_CGROUP_V2;
	cfg.lru = l ? MSIM_LRU_MGLRU : MSIM_LRU_CLASSIC;
	cfg.mode = MSIM_CONCURRENT;
	cfg.variants = c->base;
	bench_variant_set(&cfg.variants, "dying-redirect", design_variant[d]);
	ret = msim_create(&cfg, &h->m, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "anon-churn: msim_create: %s\n", err);
		return ret;
	}
	msim_set_current_host(h->m);
	if ((ret = msim_rstat_init(h->m, NULL)) || (ret = msim_charge_init(h->m)))
		return ret;
	msim_charge_set_seed(h->m, seed);
	ret = msim_memcg_create(msim_root_mem_cgroup(h->m), "w1", &h->memcg);
	if (ret)
		return ret;
	h->lruvec = msim_mem_cgroup_lruvec(h->m, h->memcg, 0);
	h->lru_item = l ? MSIM_NR_ACTIVE_ANON : MSIM_NR_INACTIVE_ANON;
	return h->lruvec ? 0 : -ENOMEM;
}

/* One region: fault every page, then MADV_DONTNEED the region. */
static int churn_region(struct churn_host *h, unsigned int region)
{
	for (unsigned int i = 0; i < region; i++) {
		msim_count_memcg_events(h->memcg, MSIM_PGFAULT, 1);
		if (msim_try_charge(h->memcg, MSIM_GFP_KERNEL, 1))
			return -ENOMEM;
		msim_mod_lruvec_state(h->lruvec, MSIM_NR_ANON_MAPPED, 1);
		msim_mod_lruvec_state(h->lruvec, h->lru_item, 1);
	}
	for (unsigned int i = 0; i < region; i += UNCHARGE_BATCH) {
		unsigned int n = region - i < UNCHARGE_BATCH ? region - i : UNCHARGE_BATCH;

		for (unsigned int k = 0; k < n; k++) {
			msim_mod_lruvec_state(h->lruvec, MSIM_NR_ANON_MAPPED, -1);
			msim_mod_lruvec_state(h->lruvec, h->lru_item, -1);
		}
		msim_memcg_uncharge(h->memcg, n);
	}
	return 0;
}

static double churn_sample(unsigned int d, unsigned int rep, void *ctx)
{
	struct churn *c = ctx;
	struct churn_host *h = &c->hosts[d][c->lru];
	uint64_t t0, t1;

	(void)rep;
	msim_set_current_host(h->m);
	t0 = bench_cpu_ns();
	for (unsigned int r = 0; r < c->rounds; r++)
		if (churn_region(h, c->region))
			return NAN;
	t1 = bench_cpu_ns();
	c->pages_done[d][c->lru] += (uint64_t)c->rounds * c->region;
	return (double)c->rounds * c->region / ((double)(t1 - t0) / 1e9);
}

struct churn_result {
	double median[NDESIGNS][NLRU];
	double noise[NLRU];
	/* Deterministic figures per host after the run (checked by the smoke test). */
	unsigned long pgfault[NDESIGNS][NLRU];
	uint64_t current_bytes[NDESIGNS][NLRU];
	struct msim_charge_stats cs[NDESIGNS][NLRU];
	struct msim_rstat_counters rc[NDESIGNS][NLRU];
};

/* ---- the thread's comparisons ---- */

#define AC_NAMES(l, lru)                                                                     \
	[BENCH_AC_F(l, BENCH_AC_PCT12)] = lru "_p12_pct",                                    \
	[BENCH_AC_F(l, BENCH_AC_PCT13)] = lru "_p13_pct",                                    \
	[BENCH_AC_F(l, BENCH_AC_THREAD12)] = "thread_" lru "_p12_pct",                       \
	[BENCH_AC_F(l, BENCH_AC_THREAD13)] = "thread_" lru "_p13_pct",                       \
	[BENCH_AC_F(l, BENCH_AC_NOISE)] = lru "_noise_pct",                                  \
	[BENCH_AC_F(l, BENCH_AC_NS_PAGE)] = lru "_base_ns_per_page",                         \
	[BENCH_AC_F(l, BENCH_AC_TNS_PAGE)] = "thread_" lru "_base_ns_per_page",              \
	[BENCH_AC_F(l, BENCH_AC_ADD12)] = lru "_p12_added_ns_per_update",                    \
	[BENCH_AC_F(l, BENCH_AC_ADD13)] = lru "_p13_added_ns_per_update",                    \
	[BENCH_AC_F(l, BENCH_AC_TADD12)] = "thread_" lru "_p12_added_ns_per_update",         \
	[BENCH_AC_F(l, BENCH_AC_TADD13)] = "thread_" lru "_p13_added_ns_per_update",         \
	[BENCH_AC_F(l, BENCH_AC_NOISE_NS)] = lru "_noise_ns_per_update",                     \
	[BENCH_AC_F(l, BENCH_AC_DIFF12)] = "|" lru "_p12_added - thread's|",                 \
	[BENCH_AC_F(l, BENCH_AC_DIFF13)] = "|" lru "_p13_added - thread's|",                 \
	[BENCH_AC_F(l, BENCH_AC_TOL12)] = "max(" lru "_noise_ns, |thread's p12|)",           \
	[BENCH_AC_F(l, BENCH_AC_TOL13)] = "max(" lru "_noise_ns, |thread's p13|)",           \
	[BENCH_AC_F(l, BENCH_AC_HALF_ADD12)] = "half " lru "_p12_added_ns_per_update",       \
	[BENCH_AC_F(l, BENCH_AC_ABS_ADD13)] = "|" lru "_p13_added_ns_per_update|"

static const char *const ac_fig_names[BENCH_AC_NFIGS] = {
	AC_NAMES(0, "classic"),
	AC_NAMES(1, "mglru"),
};

#define AC_PATH_NOTE "per page, the model's path is the four memcg stat updates, the " \
		     "charge and the uncharge batch, without the kernel's page allocation, " \
		     "zeroing, PTE and TLB work: pages/s do not compare, the ns a design " \
		     "adds to each stat update does"

/* One cell of the thread's table: the ns a design adds per memcg stat update. */
#define AC_CELL_ROW(lru, l, design, k)                                                       \
	{                                                                                    \
		.claim = lru ", " design " vs base: adds the thread's nanoseconds per stat "   \
			 "update",                                                           \
		.thread = { { "added per update", BENCH_AC_F(l, BENCH_AC_TADD##k), 0, "ns" },  \
			    { "pages/s", BENCH_AC_F(l, BENCH_AC_THREAD##k), 0, "%" },          \
			    { "base per page", BENCH_AC_F(l, BENCH_AC_TNS_PAGE), 0, "ns" } },  \
		.ours = { { "added per update", BENCH_AC_F(l, BENCH_AC_ADD##k), 0, "ns" },     \
			  { "noise", BENCH_AC_F(l, BENCH_AC_NOISE_NS), 0, "ns" },              \
			  { "pages/s", BENCH_AC_F(l, BENCH_AC_PCT##k), 0, "%" },               \
			  { "base per page", BENCH_AC_F(l, BENCH_AC_NS_PAGE), 0, "ns" } },     \
		.holds_when = { { BENCH_AC_F(l, BENCH_AC_DIFF##k), BENCH_VOP_LE, 1,            \
				  BENCH_AC_F(l, BENCH_AC_TOL##k) } },                         \
		.why = { [BENCH_VERDICT_HOLDS] = "within our noise or a factor of 2 of the "   \
						"thread's",                                   \
			 [BENCH_VERDICT_DOES_NOT_HOLD] = "further from the thread's than our noise " \
							"and a factor of 2: the model's dying " \
							"test and liburcu read section cost "  \
							"more per update than the kernel's" },  \
		.note = AC_PATH_NOTE,                                                        \
	}

static const struct bench_verdict_row ac_rows[] = {
	AC_CELL_ROW("classic LRU", 0, "patches 1-2", 12),
	AC_CELL_ROW("classic LRU", 0, "patches 1-3", 13),
	AC_CELL_ROW("MGLRU", 1, "patches 1-2", 12),
	AC_CELL_ROW("MGLRU", 1, "patches 1-3", 13),
	{
		.claim = "\"patch 2 alone shows a small overhead\": patches 1-2 add time per stat "
			 "update beyond noise in both columns",
		.thread = { { "classic", BENCH_AC_F(0, BENCH_AC_TADD12), 0, "ns" },
			    { "MGLRU", BENCH_AC_F(1, BENCH_AC_TADD12), 0, "ns" } },
		.ours = { { "classic", BENCH_AC_F(0, BENCH_AC_ADD12), 0, "ns" },
			  { "MGLRU", BENCH_AC_F(1, BENCH_AC_ADD12), 0, "ns" } },
		.holds_when = { { BENCH_AC_F(0, BENCH_AC_ADD12), BENCH_VOP_GT, 1, BENCH_AC_F(0, BENCH_AC_NOISE_NS) },
				{ BENCH_AC_F(1, BENCH_AC_ADD12), BENCH_VOP_GT, 1, BENCH_AC_F(1, BENCH_AC_NOISE_NS) } },
		.why = { [BENCH_VERDICT_DOES_NOT_HOLD] = "not slower beyond noise in every column" },
	},
	{
		.claim = "\"patch 3 brings w1 back to the base level\": in each column patches 1-3 "
			 "add no time per update beyond noise, or under half of patch 2's",
		.thread = { { "classic", BENCH_AC_F(0, BENCH_AC_TADD13), 0, "ns" },
			    { "MGLRU", BENCH_AC_F(1, BENCH_AC_TADD13), 0, "ns" } },
		.ours = { { "classic", BENCH_AC_F(0, BENCH_AC_ADD13), 0, "ns" },
			  { "MGLRU", BENCH_AC_F(1, BENCH_AC_ADD13), 0, "ns" } },
		.holds_when = {
			{ BENCH_AC_F(0, BENCH_AC_ABS_ADD13), BENCH_VOP_LE, 1, BENCH_AC_F(0, BENCH_AC_NOISE_NS), true },
			{ BENCH_AC_F(0, BENCH_AC_ABS_ADD13), BENCH_VOP_LT, 1, BENCH_AC_F(0, BENCH_AC_HALF_ADD12) },
			{ BENCH_AC_F(1, BENCH_AC_ABS_ADD13), BENCH_VOP_LE, 1, BENCH_AC_F(1, BENCH_AC_NOISE_NS), true },
			{ BENCH_AC_F(1, BENCH_AC_ABS_ADD13), BENCH_VOP_LT, 1, BENCH_AC_F(1, BENCH_AC_HALF_ADD12) },
		},
		.why = { [BENCH_VERDICT_DOES_NOT_HOLD] = "not in every column" },
	},
	{
		.claim = "\"most visible under MGLRU\"",
		.thread = { { "words only", 0, NAN, "" } },
		.rule = BENCH_RULE_NONE,
		.why = { [BENCH_VERDICT_NOT_COMPARABLE] = "the model's classic and MGLRU paths differ "
							 "only in the LRU item updated (lru_gen "
							 "bookkeeping is not modelled)" },
	},
};

/* ns added per stat update by a design at pps against base at base_pps. */
static double added_ns_per_update(double pps, double base_pps)
{
	if (!(pps > 0) || !(base_pps > 0))
		return NAN;
	return (1e9 / pps - 1e9 / base_pps) / BENCH_AC_UPDATES_PER_PAGE;
}

static void ac_lru_figures(const struct bench_ac_summary *s, unsigned int l, double *f)
{
	f[BENCH_AC_PCT12] = bench_pct(s->median[1][l], s->median[0][l]);
	f[BENCH_AC_PCT13] = bench_pct(s->median[2][l], s->median[0][l]);
	f[BENCH_AC_THREAD12] = bench_pct(thread_pps[1][l], thread_pps[0][l]);
	f[BENCH_AC_THREAD13] = bench_pct(thread_pps[2][l], thread_pps[0][l]);
	f[BENCH_AC_NOISE] = s->noise[l];
	f[BENCH_AC_NS_PAGE] = s->median[0][l] > 0 ? 1e9 / s->median[0][l] : NAN;
	f[BENCH_AC_TNS_PAGE] = 1e9 / thread_pps[0][l];
	f[BENCH_AC_ADD12] = added_ns_per_update(s->median[1][l], s->median[0][l]);
	f[BENCH_AC_ADD13] = added_ns_per_update(s->median[2][l], s->median[0][l]);
	f[BENCH_AC_TADD12] = added_ns_per_update(thread_pps[1][l], thread_pps[0][l]);
	f[BENCH_AC_TADD13] = added_ns_per_update(thread_pps[2][l], thread_pps[0][l]);
	f[BENCH_AC_NOISE_NS] = s->noise[l] / 100 * f[BENCH_AC_NS_PAGE] / BENCH_AC_UPDATES_PER_PAGE;
	f[BENCH_AC_DIFF12] = fabs(f[BENCH_AC_ADD12] - f[BENCH_AC_TADD12]);
	f[BENCH_AC_DIFF13] = fabs(f[BENCH_AC_ADD13] - f[BENCH_AC_TADD13]);
	f[BENCH_AC_TOL12] = fmax(f[BENCH_AC_NOISE_NS], fabs(f[BENCH_AC_TADD12]));
	f[BENCH_AC_TOL13] = fmax(f[BENCH_AC_NOISE_NS], fabs(f[BENCH_AC_TADD13]));
	f[BENCH_AC_HALF_ADD12] = f[BENCH_AC_ADD12] / 2;
	f[BENCH_AC_ABS_ADD13] = fabs(f[BENCH_AC_ADD13]);
}

void bench_ac_verdicts(const struct bench_ac_summary *s, struct bench_ac_verdicts *v)
{
	v->fig[0] = 0;
	for (unsigned int l = 0; l < NLRU; l++)
		ac_lru_figures(s, l, &v->fig[BENCH_AC_F(l, 0)]);
	v->table = (struct bench_verdict_table){
		.reference = "thread 000",
		.rows = ac_rows,
		.nrows = sizeof(ac_rows) / sizeof(ac_rows[0]),
		.fig_names = ac_fig_names,
		.fig = v->fig,
		.nfig = BENCH_AC_NFIGS,
	};
}

static void ac_verdicts(const struct churn_result *r, struct bench_ac_verdicts *v)
{
	struct bench_ac_summary s;

	memcpy(s.median, r->median, sizeof(s.median));
	memcpy(s.noise, r->noise, sizeof(s.noise));
	bench_ac_verdicts(&s, v);
}

/* Pages per second per design and LRU kind, the change against base beside. */
static void print_pps(const double pps[NDESIGNS][NLRU])
{
	for (unsigned int d = 0; d < NDESIGNS; d++) {
		printf("%-16s", design_names[d]);
		for (unsigned int l = 0; l < NLRU; l++) {
			char cell[64];

			if (d)
				snprintf(cell, sizeof(cell), "%.0f (%+.1f%%)", pps[d][l],
					 bench_pct(pps[d][l], pps[0][l]));
			else
				snprintf(cell, sizeof(cell), "%.0f", pps[d][l]);
			printf(" %-24s", cell);
		}
		printf("\n");
	}
}

/*
 * One LRU's designs: the deterministic figures (text: a line each, after the
 * verdicts), with pages/s and the thread's beside them (JSON: the LRU's rows).
 */
static const struct bench_col ac_design_cols[] = {
	{ .fmt = "%-11s" },
	{ .fmt = " %-12s", .key = "design" },
	{ .key = "dying_redirect" },
	{ .key = "pages_per_s" },
	{ .key = "delta_pct" },
	{ .key = "thread_pages_per_s" },
	{ .key = "thread_delta_pct" },
	{ .fmt = " pgfault %llu", .key = "pgfault" },
	{ .fmt = ", memory.current %llu B", .key = "memory_current_bytes" },
	{ .fmt = ", counter charges %llu", .key = "counter_charges" },
	{ .fmt = ", stock hits %llu", .key = "stock_hits" },
	{ .key = "stock_misses" },
	{ .fmt = ", rstat batches %llu", .key = "rstat_batches" },
	{ .key = "rstat_updates" },
};
#define AC_DESIGN_COLS (sizeof(ac_design_cols) / sizeof(ac_design_cols[0]))

static void ac_designs_table(const struct churn *c, const struct churn_result *r, unsigned int l,
			     struct bench_cell *cells, struct bench_table *t)
{
	for (unsigned int d = 0; d < NDESIGNS; d++) {
		const struct msim_variants *v = &msim_config(c->hosts[d][l].m)->variants;
		const struct bench_cell row[AC_DESIGN_COLS] = {
			BENCH_STR(lru_names[l]), BENCH_STR(design_names[d]),
			BENCH_STR(msim_variant_get(v, "dying-redirect")),
			BENCH_DBL(r->median[d][l]),
			BENCH_DBL(bench_pct(r->median[d][l], r->median[0][l])),
			BENCH_DBL(thread_pps[d][l]),
			BENCH_DBL(bench_pct(thread_pps[d][l], thread_pps[0][l])),
			BENCH_UINT(r->pgfault[d][l]), BENCH_UINT(r->current_bytes[d][l]),
			BENCH_UINT(r->cs[d][l].counter_charges), BENCH_UINT(r->cs[d][l].stock_hits),
			BENCH_UINT(r->cs[d][l].stock_misses), BENCH_UINT(r->rc[d][l].batches),
			BENCH_UINT(r->rc[d][l].updates),
		};

		memcpy(&cells[d * AC_DESIGN_COLS], row, sizeof(row));
	}
	*t = (struct bench_table){ .indent = "  ", .cols = ac_design_cols, .ncols = AC_DESIGN_COLS,
				   .cells = cells, .nrows = NDESIGNS };
}

static void print_counts(const struct churn *c, const struct churn_result *r)
{
	struct bench_cell cells[NDESIGNS * AC_DESIGN_COLS];
	struct bench_table t;

	printf("\nDeterministic figures (per host, after the run):\n");
	for (unsigned int l = 0; l < NLRU; l++) {
		ac_designs_table(c, r, l, cells, &t);
		bench_table_print_text(stdout, &t);
	}
}

static void print_text(const struct churn *c, const struct churn_result *r,
		       const struct bench_opts *a)
{
	struct bench_ac_verdicts v;

	printf("w1-anon-churn (pages/s of the model): median of %u repetitions x %u pages,\n"
	       "%u simulated CPUs, cgroup v2, one memcg, region %u pages, designs alternated\n",
	       a->reps, c->rounds * c->region, c->cpus, c->region);
	bench_print_base_variants(a, "dying-redirect set per design");
	printf("%-16s %-24s %-24s\n", "", lru_names[0], lru_names[1]);
	print_pps(r->median);
	printf("\nthread 000 (10-vCPU QEMU guest, kernel, 7 runs, medians):\n");
	print_pps(thread_pps);
	printf("\nrun-to-run noise of base (median absolute deviation): classic %.2f%%, MGLRU %.2f%%\n",
	       r->noise[0], r->noise[1]);
	printf("\nWhat the time measures: the model's own code for these calls (stock, page_counter\n"
	       "atomics, per-CPU stat writes, the rstat enqueue and stats_updates walk, liburcu read\n"
	       "sections), not a kernel page fault (no page allocation, zeroing, PTE or TLB work),\n"
	       "as CPU time of the driver thread (other processes on this shared machine do not\n"
	       "count). Neither pages/s nor their changes compare with the thread's: the verdicts\n"
	       "compare the nanoseconds a design adds to each of the %d memcg stat updates per page.\n\n",
	       BENCH_AC_UPDATES_PER_PAGE);
	ac_verdicts(r, &v);
	bench_verdict_print_text(stdout, &v.table);
	print_counts(c, r);
}

static void print_json(const struct churn *c, const struct churn_result *r,
		       const struct bench_opts *a)
{
	struct bench_cell cells[NDESIGNS * AC_DESIGN_COLS];
	struct bench_table t;
	struct bench_ac_verdicts v;
	struct bench_json j;

	bench_json_begin(&j, stdout, "anon-churn", "000 w1-anon-churn",
			 "model work per fault/uncharge on the driver, not kernel time", a);
	bench_json_kuint(&j, "cpus", c->cpus);
	bench_json_kuint(&j, "region_pages", c->region);
	bench_json_kuint(&j, "pages_per_sample", (unsigned long long)c->rounds * c->region);
	bench_json_arr_begin(&j, "columns");
	for (unsigned int l = 0; l < NLRU; l++) {
		bench_json_obj_begin(&j, NULL);
		bench_json_kstr(&j, "lru", lru_names[l]);
		bench_json_kdbl(&j, "noise_pct", r->noise[l]);
		ac_designs_table(c, r, l, cells, &t);
		bench_table_print_json(&j, "rows", &t);
		bench_json_obj_end(&j);
	}
	bench_json_arr_end(&j);
	ac_verdicts(r, &v);
	bench_verdict_print_json(&j, "verdicts", &v.table);
	bench_json_obj_end(&j);
	bench_json_finish(&j);
}

static void collect(struct churn *c, struct churn_result *r)
{
	for (unsigned int d = 0; d < NDESIGNS; d++) {
		for (unsigned int l = 0; l < NLRU; l++) {
			struct churn_host *h = &c->hosts[d][l];

			msim_set_current_host(h->m);
			msim_mem_cgroup_flush_stats_forced(h->memcg);
			r->pgfault[d][l] = msim_memcg_events(h->memcg, MSIM_PGFAULT);
			r->current_bytes[d][l] = msim_memory_current_read(h->memcg);
			msim_charge_stats(h->m, &r->cs[d][l]);
			msim_rstat_counters(h->m, &r->rc[d][l]);
		}
	}
}

/* Options into c and a: 0 to run, 1 after --help, 2 on a usage error. */
static int churn_parse(struct churn *c, int argc, char **argv, struct bench_opts *a)
{
	const struct bench_arg opts[] = {
		BENCH_OPT_UINT("--region", "PAGES", &c->region, 1, 1UL << 20,
			       "pages faulted before each MADV_DONTNEED (default 256)"),
		BENCH_OPT_UINT("--rounds", "N", &c->rounds, 1, 1UL << 24,
			       "regions per measurement (default 2000; quick 50)"),
		BENCH_OPT_UINT("--cpus", "N", &c->cpus, 1, MSIM_MAX_CPUS,
			       "simulated CPUs (default 10, the thread's vCPUs)"),
		BENCH_OPT_END,
	};
	const struct bench_spec spec = {
		.name = "anon-churn",
		.summary = "thread 000 w1-anon-churn: anon fault/charge/stat/uncharge pages per second,\n"
			   "base vs patches 1-2 vs patches 1-3 (variant dying-redirect), classic and MGLRU.",
		.description = "Runs one concurrent-mode host per design and LRU kind, all in this\n"
			       "process, and alternates them within each repetition. Prints the\n"
			       "thread's table beside the model's, and which comparisons hold.",
		.default_reps = 7,
		.quick_reps = 2,
		.options = opts,
	};
	int ret;

	c->region = 256;
	c->rounds = 0;
	c->cpus = 10;
	ret = bench_parse_args(&spec, argc, argv, a);
	if (ret)
		return ret;
	c->base = a->variants;
	if (!c->rounds)
		c->rounds = a->quick ? 50 : 2000;
	return 0;
}

/* Every host built, then per LRU kind the repetitions, designs alternated. */
static int churn_measure(struct churn *c, const struct bench_opts *a,
			 struct churn_result *r)
{
	struct bench_progress prog;
	double *samples;

	for (unsigned int d = 0; d < NDESIGNS; d++)
		for (unsigned int l = 0; l < NLRU; l++)
			if (host_setup(c, d, l, a->seed)) {
				fprintf(stderr, "anon-churn: host setup failed\n");
				return -EINVAL;
			}
	samples = calloc((size_t)NDESIGNS * a->reps, sizeof(*samples));
	if (!samples)
		return -ENOMEM;
	bench_progress_init(&prog, "anon-churn", true);
	for (c->lru = 0; c->lru < NLRU; c->lru++) {
		bench_alternate(NDESIGNS, a->reps, churn_sample, c, samples, &prog);
		for (unsigned int d = 0; d < NDESIGNS; d++)
			r->median[d][c->lru] = bench_median(samples + d * a->reps, a->reps);
		r->noise[c->lru] = bench_noise_pct(samples, a->reps);
	}
	bench_progress_done(&prog);
	free(samples);
	collect(c, r);
	return 0;
}

static int anon_churn_main(int argc, char **argv)
{
	struct churn *c = calloc(1, sizeof(*c));
	struct churn_result *r = calloc(1, sizeof(*r));
	struct bench_opts a;
	int ret = 1;

	if (!c || !r)
		goto out;
	ret = churn_parse(c, argc, argv, &a);
	if (ret) {
		ret = bench_args_exit_status(ret);
		goto out;
	}
	ret = churn_measure(c, &a, r) ? 1 : 0;
	if (!ret && a.json)
		print_json(c, r, &a);
	else if (!ret)
		print_text(c, r, &a);
	for (unsigned int d = 0; d < NDESIGNS; d++)
		for (unsigned int l = 0; l < NLRU; l++)
			bench_host_destroy(c->hosts[d][l].m);
out:
	free(r);
	free(c);
	return ret;
}

static const struct bench_engine anon_churn_bench = {
	.name = "anon-churn",
	.summary = "thread 000 w1-anon-churn: pages/s of a fault-charge-stat-uncharge loop",
	.main = anon_churn_main,
};
BENCH_REGISTER(anon_churn_bench);
