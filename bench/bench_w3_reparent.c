/* SPDX-License-Identifier: MIT */
/*
 * bench_w3_reparent.c - `memcgsim bench w3-reparent` (thread 000): the
 * reparent accounting sanity check, pass/fail per design, classic LRU and
 * MGLRU, base / patches 1-2 / patches 1-3. The thread: "w3-reparent passed on
 * all kernels" (no script or figures given).
 *
 * The workload, cgroup v2 (the thread's), objcg LRU reparenting: p with four
 * children c1-c4 under memory.high of 512 pages on p (reclaim of p's subtree,
 * page cache as owner, shadow shrinker after). Each child reads its own
 * 256-page file twice; then, one child at a time, the child is removed and p
 * and the remaining children read their files again (the churn goes on in
 * the driver between the removals: the interleavings are the races', not this
 * check's). After a forced flush, for p:
 *  - hierarchical: NR_ACTIVE_FILE + NR_INACTIVE_FILE equal the pages on p's
 *    lists (and on the dead children's, none with objcg), and NR_FILE_PAGES
 *    the pages resident in every file;
 *  - local: the same of p's local statistics, and the dead children's local
 *    LRU statistics sum to 0;
 *  - LRU sizes: lru_zone_size (classic) or lrugen->nr_pages (MGLRU) equal the
 *    pages on p's lists;
 *  - shadow nodes: p's shadow_nodes count equals WORKINGSET_NODES (every
 *    shadow-only node belongs to p's subtree, and the children's lists moved
 *    to p).
 * Everything is deterministic; the time printed is the model's.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/introspect.h>

#include "bench_w2_file_churn.h"
#include "bench_w3_reparent.h"
#include "bench_table.h"
#include "bench_util.h"
#include "bench_registry.h"

#define NCHILD 4
#define CHILD_PAGES 256UL
#define P_PAGES 128UL
#define HIGH_PAGES 512UL

struct w3_host {
	struct msim *m;
	struct msim_memcg *p, *c[NCHILD];
	struct msim_address_space *pfile, *file[NCHILD];
	bool removed[NCHILD];
};

static unsigned long w3_resident(const struct w3_host *h)
{
	unsigned long n = msim_mapping_nrpages(h->pfile);

	for (unsigned int i = 0; i < NCHILD; i++)
		n += msim_mapping_nrpages(h->file[i]);
	return n;
}

static int w3_read(struct w3_host *h, struct msim_address_space *f, unsigned long pages,
		   struct msim_memcg *memcg)
{
	for (unsigned long i = 0; i < pages; i++) {
		int ret = msim_filemap_read(f, i, memcg, 0, false);

		if (ret < 0)
			return ret;
		if (ret != MSIM_FILEMAP_HIT)
			msim_clock_advance(h->m, 1);
		if (w3_resident(h) > HIGH_PAGES)
			msim_workingset_reclaim(h->p, w3_resident(h) - HIGH_PAGES, NULL);
	}
	return 0;
}

static int w3_host_create(enum msim_lru_kind lru, const struct msim_variants *v, struct w3_host *h)
{
	struct msim_config cfg;
	char err[256], name[8];
	int ret;

	msim_config_init(&cfg);
	cfg.nr_cpus = 2;
	cfg.nr_nodes = 1;
	cfg.mode = MSIM_DETERMINISTIC;
	cfg.lru = lru;
	cfg.variants = *v;
	if ((ret = msim_create(&cfg, &h->m, err, sizeof(err))))
		return ret;
	msim_set_current_host(h->m);
	if ((ret = msim_workingset_attach(h->m, err, sizeof(err))) ||
	    (ret = msim_memcg_create(msim_root_mem_cgroup(h->m), "p", &h->p)) ||
	    (ret = msim_address_space_create(h->m, "p-file", &h->pfile)))
		return ret;
	for (unsigned int i = 0; i < NCHILD; i++) {
		snprintf(name, sizeof(name), "c%u", i + 1);
		if ((ret = msim_memcg_create(h->p, name, &h->c[i])) ||
		    (ret = msim_address_space_create(h->m, name, &h->file[i])))
			return ret;
		msim_css_get(h->c[i]);   /* the check reads the dead children */
	}
	return 0;
}

static void w3_host_destroy(struct w3_host *h)
{
	if (!h->m)
		return;
	msim_set_current_host(h->m);
	msim_address_space_destroy(h->pfile);
	for (unsigned int i = 0; i < NCHILD; i++) {
		msim_address_space_destroy(h->file[i]);
		if (h->c[i])
			msim_css_put(h->c[i]);
	}
	msim_destroy(h->m);
}

/* Churn, then remove the children one by one with churn after each removal. */
static int w3_churn(struct w3_host *h)
{
	int ret = 0;

	for (unsigned int round = 0; round < 2 && !ret; round++)
		for (unsigned int i = 0; i < NCHILD && !ret; i++)
			ret = w3_read(h, h->file[i], CHILD_PAGES, h->c[i]);
	for (unsigned int k = 0; k < NCHILD && !ret; k++) {
		if ((ret = msim_memcg_rmdir(h->c[k])))
			return ret;
		h->removed[k] = true;
		ret = w3_read(h, h->pfile, P_PAGES, h->p);
		for (unsigned int i = k + 1; i < NCHILD && !ret; i++)
			ret = w3_read(h, h->file[i], CHILD_PAGES, h->c[i]);
	}
	return ret;
}

static long lruvec_lru_stats(struct msim_lruvec *lv, bool local)
{
	long sum = 0;

	for (unsigned int lru = 0; lru < MSIM_NR_LRU_LISTS; lru++)
		sum += msim_lruvec_stat_raw(lv, local ? MSIM_STAT_LOCAL : MSIM_STAT_STATE,
					    (enum msim_stat_item)(MSIM_NR_INACTIVE_ANON + lru));
	return sum;
}

static long listed_pages(struct msim_lruvec *lv)
{
	unsigned long pages;
	long total = 0;

	for (unsigned int lru = 0; lru < MSIM_LRU_UNEVICTABLE; lru++) {
		msim_lruvec_nr_folios(lv, (enum msim_lru_list)lru, &pages);
		total += (long)pages;
	}
	for (unsigned int g = 0; g < MSIM_MAX_NR_GENS; g++)
		for (unsigned int t = 0; t < MSIM_ANON_AND_FILE; t++)
			for (unsigned int z = 0; z < MSIM_MAX_NR_ZONES; z++) {
				msim_lru_gen_nr_folios(lv, g, t, (enum msim_zone_type)z, &pages);
				total += (long)pages;
			}
	return total;
}

static long lru_sizes(struct msim_lruvec *lv, bool mglru)
{
	long total = 0;

	for (unsigned int lru = 0; lru < MSIM_LRU_UNEVICTABLE; lru++)
		total += (long)msim_lruvec_lru_size(lv, (enum msim_lru_list)lru,
						    MSIM_MAX_NR_ZONES - 1);
	if (!mglru)
		return total;
	for (unsigned int g = 0; g < MSIM_MAX_NR_GENS; g++)
		for (unsigned int t = 0; t < MSIM_ANON_AND_FILE; t++)
			for (unsigned int z = 0; z < MSIM_MAX_NR_ZONES; z++)
				total += msim_lru_gen_nr_pages(lv, g, t, (enum msim_zone_type)z);
	return total;
}

static void w3_measure(struct w3_host *h, bool mglru, struct bench_w3_result *r)
{
	struct msim_lruvec *lv = msim_mem_cgroup_lruvec(h->m, h->p, 0);

	msim_mem_cgroup_flush_stats_forced(msim_root_mem_cgroup(h->m));
	r->listed = listed_pages(lv);
	r->file_pages = (long)w3_resident(h);
	r->hier_lru = lruvec_lru_stats(lv, false);
	r->local_lru = lruvec_lru_stats(lv, true);
	r->hier_file = msim_lruvec_stat_raw(lv, MSIM_STAT_STATE, MSIM_NR_FILE_PAGES);
	r->local_file = msim_lruvec_stat_raw(lv, MSIM_STAT_LOCAL, MSIM_NR_FILE_PAGES);
	for (unsigned int i = 0; i < NCHILD; i++) {
		struct msim_lruvec *cl = msim_mem_cgroup_lruvec(h->m, h->c[i], 0);

		r->dead_listed += listed_pages(cl);
		r->dead_local_lru += lruvec_lru_stats(cl, true);
	}
	r->lru_size = lru_sizes(lv, mglru);
	r->shadow_nodes_p = (long)msim_list_lru_count_one(msim_workingset_shadow_nodes(h->m), 0,
							    h->p);
	r->shadow_nodes_all = (long)msim_workingset_nodes(h->m, 0);
	r->hier_ok = r->hier_lru == r->listed + r->dead_listed && r->hier_file == r->file_pages;
	r->local_ok = r->local_lru == r->listed && r->local_file == r->file_pages &&
		      r->dead_local_lru == 0;
	r->sizes_ok = r->lru_size == r->listed && r->dead_listed == 0;
	r->shadows_ok = r->shadow_nodes_p == r->shadow_nodes_all;
}

int bench_w3_run(enum msim_lru_kind lru, const struct msim_variants *v, struct bench_w3_result *r)
{
	struct w3_host h = { 0 };
	uint64_t t0 = bench_cpu_ns();
	int ret;

	memset(r, 0, sizeof(*r));
	ret = w3_host_create(lru, v, &h);
	if (!ret)
		ret = w3_churn(&h);
	if (!ret)
		w3_measure(&h, lru == MSIM_LRU_MGLRU, r);
	w3_host_destroy(&h);
	r->seconds = (double)(bench_cpu_ns() - t0) / 1e9;
	return ret;
}

/* ---- verdicts ---- */

static const char *const w3_fig_names[BENCH_W3_NFIGS] = {
	[BENCH_W3_F_HIER_FAILS] = "designs_hierarchical_failing",
	[BENCH_W3_F_SIZES_FAILS] = "designs_lru_sizes_failing",
	[BENCH_W3_F_SHADOWS_FAILS] = "designs_shadow_nodes_failing",
	[BENCH_W3_F_LOCAL_FAILS] = "designs_local_failing",
	[BENCH_W3_F_LOCAL_FAILS_PATCHED] = "designs_local_failing_with_patch_2",
};

static const struct bench_verdict_row w3_rows[] = {
	{
		.claim = "\"w3-reparent passed on all kernels\": hierarchical statistics, LRU "
			 "sizes and shadow nodes add up after reparenting, every design",
		.thread = { { "passed", 0, NAN, "" } },
		.ours = { { "designs failing: hierarchical", BENCH_W3_F_HIER_FAILS, 0, "" },
			  { "LRU sizes", BENCH_W3_F_SIZES_FAILS, 0, "" },
			  { "shadow nodes", BENCH_W3_F_SHADOWS_FAILS, 0, "" } },
		.holds_when = { { BENCH_W3_F_HIER_FAILS, BENCH_VOP_EQ, 0 },
				{ BENCH_W3_F_SIZES_FAILS, BENCH_VOP_EQ, 0 },
				{ BENCH_W3_F_SHADOWS_FAILS, BENCH_VOP_EQ, 0 } },
	},
	{
		.claim = "local statistics add up after reparenting with patch 2 (every hierarchy "
			 "moves them)",
		.thread = { { "patch 2's purpose", 0, NAN, "" } },
		.ours = { { "designs failing with patch 2", BENCH_W3_F_LOCAL_FAILS_PATCHED, 0, "" },
			  { "designs failing, all", BENCH_W3_F_LOCAL_FAILS, 0, "" } },
		.holds_when = { { BENCH_W3_F_LOCAL_FAILS_PATCHED, BENCH_VOP_EQ, 0 } },
		.note = "base on cgroup v2 leaves a dead child's local statistics behind (no "
			"reparent_state_local): if its local counters fail here, the thread's w3 "
			"cannot have compared them on base",
	},
};

void bench_w3_verdicts(const struct bench_w3_result r[BENCH_W3_NDESIGNS][BENCH_W3_NLRU],
		       struct bench_w3_verdicts *v)
{
	memset(v->fig, 0, sizeof(v->fig));
	for (unsigned int d = 0; d < BENCH_W3_NDESIGNS; d++)
		for (unsigned int l = 0; l < BENCH_W3_NLRU; l++) {
			v->fig[BENCH_W3_F_HIER_FAILS] += !r[d][l].hier_ok;
			v->fig[BENCH_W3_F_SIZES_FAILS] += !r[d][l].sizes_ok;
			v->fig[BENCH_W3_F_SHADOWS_FAILS] += !r[d][l].shadows_ok;
			v->fig[BENCH_W3_F_LOCAL_FAILS] += !r[d][l].local_ok;
			v->fig[BENCH_W3_F_LOCAL_FAILS_PATCHED] += d > 0 && !r[d][l].local_ok;
		}
	v->table = (struct bench_verdict_table){
		.reference = "thread 000",
		.rows = w3_rows,
		.nrows = sizeof(w3_rows) / sizeof(w3_rows[0]),
		.fig_names = w3_fig_names,
		.fig = v->fig,
		.nfig = BENCH_W3_NFIGS,
	};
}

/* ---- the engine ---- */

static const char *const w3_design_names[BENCH_W3_NDESIGNS] = { "base", "patches 1-2",
							       "patches 1-3" };
static const char *const w3_lru_names[BENCH_W3_NLRU] = { "classic LRU", "MGLRU" };

/*
 * Each LRU and design: the four checks, then the counts behind them. The text
 * prints dead-local last, the JSON after lru_size: two columns of one cell.
 */
static const struct bench_col w3_design_cols[] = {
	{ .fmt = "%-11s", .key = "lru" },
	{ .fmt = " %-11s", .key = "design" },
	{ .head = { "hier" }, .fmt = " %-6s", .key = "hierarchical_ok" },
	{ .head = { "local" }, .fmt = " %-6s", .key = "local_ok" },
	{ .head = { "sizes" }, .fmt = " %-6s", .key = "lru_sizes_ok" },
	{ .head = { "shadows" }, .fmt = " %-7s", .key = "shadow_nodes_ok" },
	{ .head = { "  listed" }, .head_fmt = "%s", .fmt = "  %6lld", .key = "listed" },
	{ .head = { " hier" }, .head_fmt = "%s", .fmt = " %4lld", .key = "hier_lru" },
	{ .head = { " local" }, .head_fmt = "%s", .fmt = " %5lld", .key = "local_lru" },
	{ .head = { " size" }, .head_fmt = "%s", .fmt = " %4lld", .key = "lru_size" },
	{ .key = "dead_local_lru" },
	{ .head = { " shadows(p/all)" }, .head_fmt = "%s", .fmt = " %6lld",
	  .key = "shadow_nodes_p" },
	{ .head_fmt = "", .fmt = "/%-6lld", .key = "shadow_nodes_all" },
	{ .head = { " dead-local" }, .head_fmt = "%s", .fmt = " %lld" },
};
#define W3_DESIGN_COLS (sizeof(w3_design_cols) / sizeof(w3_design_cols[0]))

static void w3_designs_table(const struct bench_w3_result r[BENCH_W3_NDESIGNS][BENCH_W3_NLRU],
			     struct bench_cell *cells, struct bench_table *t)
{
	struct bench_cell *c = cells;

	for (unsigned int l = 0; l < BENCH_W3_NLRU; l++)
		for (unsigned int d = 0; d < BENCH_W3_NDESIGNS; d++, c += W3_DESIGN_COLS) {
			const struct bench_w3_result *x = &r[d][l];
			const struct bench_cell row[W3_DESIGN_COLS] = {
				BENCH_STR(w3_lru_names[l]), BENCH_STR(w3_design_names[d]),
				BENCH_BOOL(x->hier_ok, "pass", "FAIL"),
				BENCH_BOOL(x->local_ok, "pass", "FAIL"),
				BENCH_BOOL(x->sizes_ok, "pass", "FAIL"),
				BENCH_BOOL(x->shadows_ok, "pass", "FAIL"),
				BENCH_INT(x->listed), BENCH_INT(x->hier_lru), BENCH_INT(x->local_lru),
				BENCH_INT(x->lru_size), BENCH_INT(x->dead_local_lru),
				BENCH_INT(x->shadow_nodes_p), BENCH_INT(x->shadow_nodes_all),
				BENCH_INT(x->dead_local_lru),
			};

			memcpy(c, row, sizeof(row));
		}
	*t = (struct bench_table){ .head_rows = 1, .cols = w3_design_cols, .ncols = W3_DESIGN_COLS,
				   .cells = cells, .nrows = BENCH_W3_NLRU * BENCH_W3_NDESIGNS };
}

static void print_text(const struct bench_opts *a,
		       const struct bench_w3_result r[BENCH_W3_NDESIGNS][BENCH_W3_NLRU])
{
	struct bench_cell cells[BENCH_W3_NLRU * BENCH_W3_NDESIGNS * W3_DESIGN_COLS];
	struct bench_table t;
	struct bench_w3_verdicts v;

	printf("w3-reparent (thread 000): p with %u children under memory.high %lu pages; "
	       "children removed one by one under churn; cgroup v2\n", NCHILD, HIGH_PAGES);
	bench_print_base_variants(a, "shadow-budget and dying-redirect set per design");
	w3_designs_table(r, cells, &t);
	bench_table_print_text(stdout, &t);
	printf("(deterministic counts; the model's time is not a figure here)\n\n");
	bench_w3_verdicts(r, &v);
	bench_verdict_print_text(stdout, &v.table);
}

static void print_json(const struct bench_opts *a,
		       const struct bench_w3_result r[BENCH_W3_NDESIGNS][BENCH_W3_NLRU])
{
	struct bench_cell cells[BENCH_W3_NLRU * BENCH_W3_NDESIGNS * W3_DESIGN_COLS];
	struct bench_table t;
	struct bench_w3_verdicts v;
	struct bench_json j;

	bench_json_begin(&j, stdout, "w3-reparent", "000", "deterministic counts", a);
	w3_designs_table(r, cells, &t);
	bench_table_print_json(&j, "designs", &t);
	bench_w3_verdicts(r, &v);
	bench_verdict_print_json(&j, "verdicts", &v.table);
	bench_json_obj_end(&j);
	bench_json_finish(&j);
}

static int reparent_check_main(int argc, char **argv)
{
	static const struct bench_spec spec = {
		.name = "w3-reparent",
		.summary = "thread 000 w3: reparent accounting sanity check, pass/fail per design",
		.description = "Four children of p read their files under p's memory.high and are "
			       "removed one by one while p and the rest keep reading; then p's "
			       "hierarchical and local statistics, LRU sizes and shadow nodes are "
			       "compared with what its lists and page caches hold. Deterministic.",
		.default_reps = 1,
		.quick_reps = 1,
	};
	static struct bench_w3_result r[BENCH_W3_NDESIGNS][BENCH_W3_NLRU];
	struct bench_opts a;
	int ret;

	if ((ret = bench_parse_args(&spec, argc, argv, &a)))
		return bench_args_exit_status(ret);
	for (unsigned int d = 0; d < BENCH_W3_NDESIGNS; d++)
		for (unsigned int l = 0; l < BENCH_W3_NLRU; l++) {
			struct msim_variants v = a.variants;

			bench_fc_design_variants(d, &v);
			if (bench_w3_run(l ? MSIM_LRU_MGLRU : MSIM_LRU_CLASSIC, &v, &r[d][l])) {
				fprintf(stderr, "w3-reparent: the %s %s run failed\n",
					w3_lru_names[l], w3_design_names[d]);
				return 1;
			}
		}
	if (a.json)
		print_json(&a, r);
	else
		print_text(&a, r);
	return 0;
}

static const struct bench_engine w3_reparent_bench = {
	.name = "w3-reparent",
	.summary = "thread 000 w3: reparent accounting sanity check, pass/fail per design",
	.main = reparent_check_main,
};
BENCH_REGISTER(w3_reparent_bench);
