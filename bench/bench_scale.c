/* SPDX-License-Identifier: MIT */
/*
 * bench_scale.c - `memcgsim bench scale` (1024 CPUs x 20000 cgroups x 4
 * nodes): the memcg statistics on many CPUs and many cgroups. Prints, per host
 * size: the bytes per memcg per CPU the kernel-memory model charges and those
 * the simulator holds; the periodic (forced) root flush against how many
 * (cgroup, CPU) pairs were updated before it; and the simulator's own build
 * time and memory, with their growth ratios as CPUs and cgroups double. The measuring is in bench_scale_run.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_scale.h"
#include "bench_table.h"
#include "bench_util.h"
#include "bench_registry.h"

#define MEASURES "the simulator's own work on this machine (driver CPU time), not the kernel's"

/* ---- verdicts ---- */

static const char *const sc_fig_names[BENCH_SC_NFIGS] = {
	[BENCH_SC_F_FLUSH_SAME] = "flush_work_same_across_cgroups",
	[BENCH_SC_F_FLUSH_GROWTH_G] = "flush_time_4x_cgroups",
	[BENCH_SC_F_FLUSH_GROWTH_U] = "flush_time_top_per_first_load",
	[BENCH_SC_F_LOAD_RATIO] = "top_per_first_load",
	[BENCH_SC_F_RSS_GROWTH_C] = "rss_2x_cpus",
	[BENCH_SC_F_RSS_GROWTH_G] = "rss_2x_cgroups",
	[BENCH_SC_F_ISSUE_RAN] = "issue_size_ran",
	[BENCH_SC_F_ISSUE_RSS_GIB] = "peak_rss_gib",
};

static const struct bench_verdict_row sc_rows[] = {
	{
		.claim = "the root flush grows with what was updated, not with all cgroups",
		.thread = { { "4x the cgroups, the same updates: flush work", 0, 1, "x" } },
		.ours = { { "memcg flushes the same at every size", BENCH_SC_F_FLUSH_SAME, 0, "" },
			  { "flush time, 4x the cgroups", BENCH_SC_F_FLUSH_GROWTH_G, 0, "x" } },
		.holds_when = { { BENCH_SC_F_FLUSH_SAME, BENCH_VOP_EQ, 1 },
				{ BENCH_SC_F_FLUSH_GROWTH_G, BENCH_VOP_LT, 2 } },
		.note = "rstat keeps a per-CPU list of the cgroups updated since the last flush; "
			"a flush walks those lists and their ancestors, one visit per CPU",
	},
	{
		.claim = "the root flush grows with the updates before it",
		.thread = { { "more updated pairs, a longer flush", 0, NAN, "" } },
		.ours = { { "flush time, top load / first load", BENCH_SC_F_FLUSH_GROWTH_U, 0, "x" },
			  { "updates per CPU, top / first", BENCH_SC_F_LOAD_RATIO, 0, "x" } },
		.holds_when = { { BENCH_SC_F_FLUSH_GROWTH_U, BENCH_VOP_GT, 2 } },
		.note = "with few updates the flush is its per-CPU visits; it grows as the "
			"updated pairs grow",
	},
	{
		.claim = "an idle (cgroup, CPU) pair costs the simulator no memory: a host's "
			 "memory grows with its cgroups, not with its CPUs",
		.thread = { { "2x CPUs: memory x1; 2x cgroups: memory", 0, 2, "x" } },
		.ours = { { "RSS of the build, 2x CPUs", BENCH_SC_F_RSS_GROWTH_C, 0, "x" },
			  { "RSS of the build, 2x cgroups", BENCH_SC_F_RSS_GROWTH_G, 0, "x" } },
		.holds_when = { { BENCH_SC_F_RSS_GROWTH_C, BENCH_VOP_LT, 1.5 },
				{ BENCH_SC_F_RSS_GROWTH_G, BENCH_VOP_LT, 2.5 },
				{ BENCH_SC_F_RSS_GROWTH_G, BENCH_VOP_GT, 1.5 } },
		.note = "the kernel-memory model charges every CPU's copy (the kernel writes "
			"them at creation); the model leaves them zeroed in lazily committed "
			"memory until a CPU updates the cgroup (docs/benches.md)",
	},
	{
		.claim = "the scale goal's size runs whole, every CPU updating, under 2 GiB",
		.thread = { { "1024 CPUs x 20000 cgroups x 4 nodes, no extrapolation", 0, NAN,
			      "" } },
		.ours = { { "ran (1 yes, 0 no)", BENCH_SC_F_ISSUE_RAN, 0, "" },
			  { "peak RSS of the whole bench", BENCH_SC_F_ISSUE_RSS_GIB, 0, "GiB" } },
		.holds_when = { { BENCH_SC_F_ISSUE_RAN, BENCH_VOP_EQ, 1 },
				{ BENCH_SC_F_ISSUE_RSS_GIB, BENCH_VOP_LT, 2 } },
		.note = "built, updated from every CPU at every load and flushed from the root, "
			"like the series' hosts",
	},
};

static const struct bench_sc_point *top(const struct bench_sc_point *s)
{
	return &s[BENCH_SC_SERIES - 1];
}

void bench_sc_verdicts(const struct bench_sc_result *r, struct bench_sc_verdicts *v)
{
	const struct bench_sc_point *g = r->cgroup_series, *c = r->cpu_series;
	unsigned int u = r->cfg.nloads ? r->cfg.nloads - 1 : 0;
	bool same = g[0].ran && top(g)->ran;

	for (unsigned int i = 0; i < BENCH_SC_NFIGS; i++)
		v->fig[i] = NAN;
	for (unsigned int i = 1; i < BENCH_SC_SERIES && same; i++)
		same = !g[i].ran || g[i].load[u].memcg_flushes == g[0].load[u].memcg_flushes;
	if (g[0].ran && top(g)->ran) {
		v->fig[BENCH_SC_F_FLUSH_SAME] = same;
		v->fig[BENCH_SC_F_FLUSH_GROWTH_G] = bench_ratio(top(g)->load[u].flush_us,
								g[0].load[u].flush_us);
	}
	if (top(g)->ran && r->cfg.nloads > 1) {
		v->fig[BENCH_SC_F_FLUSH_GROWTH_U] = bench_ratio(top(g)->load[u].flush_us,
								top(g)->load[0].flush_us);
		v->fig[BENCH_SC_F_LOAD_RATIO] = bench_ratio(r->cfg.loads[u], r->cfg.loads[0]);
	}
	if (c[1].ran && top(c)->ran)
		v->fig[BENCH_SC_F_RSS_GROWTH_C] = bench_ratio(top(c)->rss_bytes, c[1].rss_bytes);
	if (g[1].ran && top(g)->ran)
		v->fig[BENCH_SC_F_RSS_GROWTH_G] = bench_ratio(top(g)->rss_bytes, g[1].rss_bytes);
	v->fig[BENCH_SC_F_ISSUE_RAN] = r->issue.ran;
	v->fig[BENCH_SC_F_ISSUE_RSS_GIB] = r->peak_rss / 1073741824.0;
	v->fig[BENCH_SC_F_NONE] = 0;
	v->table = (struct bench_verdict_table){
		.reference = "the scale and speed goals (docs/benches.md)",
		.rows = sc_rows,
		.nrows = sizeof(sc_rows) / sizeof(sc_rows[0]),
		.fig_names = sc_fig_names,
		.fig = v->fig,
		.nfig = BENCH_SC_NFIGS,
	};
}

/* ---- text ---- */

/* A point's flush after each load (text: a line each; JSON: its loads array). */
static const struct bench_col sc_load_cols[] = {
	{ .fmt = "%3llu updates per CPU:", .key = "updates_per_cpu" },
	{ .fmt = " %7llu pairs updated", .key = "updated_pairs" },
	{ .fmt = " -> flush %9.1f us", .key = "flush_us" },
	{ .fmt = ", %7llu memcg flushes", .key = "memcg_flushes" },
	{ .key = "cpu_visits" },
	{ .fmt = "; update %.0f ns", .key = "update_ns" },
};
#define SC_LOAD_COLS (sizeof(sc_load_cols) / sizeof(sc_load_cols[0]))

static void sc_loads_table(const struct bench_sc_result *r, const struct bench_sc_point *p,
			   struct bench_cell *cells, struct bench_table *t)
{
	for (unsigned int u = 0; u < r->cfg.nloads; u++) {
		const struct bench_sc_load *l = &p->load[u];
		const struct bench_cell row[SC_LOAD_COLS] = {
			BENCH_UINT(l->per_cpu), BENCH_UINT(l->updated_pairs), BENCH_DBL(l->flush_us),
			BENCH_UINT(l->memcg_flushes), BENCH_UINT(l->cpu_visits),
			BENCH_DBL(l->update_ns),
		};

		memcpy(&cells[u * SC_LOAD_COLS], row, sizeof(row));
	}
	*t = (struct bench_table){ .indent = "      ", .cols = sc_load_cols, .ncols = SC_LOAD_COLS,
				   .cells = cells, .nrows = r->cfg.nloads };
}

static void print_point(const struct bench_sc_result *r, const struct bench_sc_point *p,
			const struct bench_sc_point *prev)
{
	struct bench_cell cells[BENCH_SC_MAX_U * SC_LOAD_COLS];
	struct bench_table t;

	printf("%5u CPUs x %5u cgroups: ", p->cpus, p->cgroups);
	if (!p->ran) {
		printf("not run: needs ~%.1f GiB resident (budget %.1f GiB)\n",
		       p->estimate_bytes / 1073741824.0, r->cfg.max_rss / 1073741824.0);
		return;
	}
	printf("build %.2f s, +%.0f MiB RSS (page tables %.0f MiB)", p->build_s,
	       p->rss_bytes / 1048576.0, p->page_tables / 1048576.0);
	if (prev && prev->ran)
		printf("; growth x%.2f time, x%.2f RSS", bench_ratio(p->build_s, prev->build_s),
		       bench_ratio(p->rss_bytes, prev->rss_bytes));
	printf("\n    per memcg per CPU: charged %.0f B per-CPU (+ %.0f B slab per memcg), held "
	       "%.0f B by the simulator\n", p->charged_pcpu_per_memcg_cpu,
	       p->charged_slab_per_memcg, p->resident_per_memcg_cpu);
	printf("    root flush: idle %.1f us (%llu CPU visits, %llu memcg flushes)\n",
	       p->idle_flush_us, (unsigned long long)p->idle_cpu_visits,
	       (unsigned long long)p->idle_memcg_flushes);
	sc_loads_table(r, p, cells, &t);
	bench_table_print_text(stdout, &t);
}

static void print_target(const struct bench_sc_result *r)
{
	const struct bench_sc_point *p = &r->issue;
	double pairs = (double)p->cpus * (p->cgroups + BENCH_SC_PARENTS + 1);

	printf("\nThe issue's size, %u nodes (updates among the first %u leaves):\n",
	       r->cfg.nodes, r->cfg.top_cgroups / 4);
	print_point(r, p, NULL);
	if (p->ran)
		printf("    the kernel-memory model charges %.1f GiB of per-CPU statistics (every "
		       "CPU's copy, as the kernel\n    writes them); the simulator holds %.2f GiB "
		       "after building it.\n", p->charged_pcpu_per_memcg_cpu * pairs / 1073741824.0,
		       p->rss_bytes / 1073741824.0);
	printf("Probes (512 cgroups on 64 and on 512 CPUs, before updates): the simulator holds "
	       "%.0f B per memcg\nand %.2f B per (memcg, CPU) pair besides: every CPU's copy of "
	       "a cgroup's per-CPU statistics\nstays zeroed in lazily committed memory until "
	       "that CPU updates the cgroup. Sizes whose estimate\nexceeds --max-rss-mib are "
	       "not run.\n", r->probe_per_memcg, r->probe_per_pair);
}

static void print_text(const struct bench_sc_result *r)
{
	struct bench_sc_verdicts v;

	printf("scale: memcg statistics at many CPUs and cgroups (%u nodes; root -> %u parents "
	       "-> leaves)\n", r->cfg.nodes, BENCH_SC_PARENTS);
	printf("Time: %s; medians of %u.\n\n", MEASURES, r->cfg.reps);
	printf("CPUs doubling, %u cgroups:\n", r->cfg.cpu_series_cgroups);
	for (unsigned int i = 0; i < BENCH_SC_SERIES; i++)
		print_point(r, &r->cpu_series[i], i ? &r->cpu_series[i - 1] : NULL);
	printf("\ncgroups doubling, %u CPUs (updates among the first %u leaves at every size):\n",
	       r->cfg.cgroup_series_cpus, r->cfg.top_cgroups / 4);
	for (unsigned int i = 0; i < BENCH_SC_SERIES; i++)
		print_point(r, &r->cgroup_series[i], i ? &r->cgroup_series[i - 1] : NULL);
	print_target(r);
	printf("\nsimulator: %.1f s wall, %.1f s CPU, peak RSS %.0f MiB\n\n", r->wall_s, r->cpu_s,
	       r->peak_rss / 1048576.0);
	bench_sc_verdicts(r, &v);
	bench_verdict_print_text(stdout, &v.table);
}

/* ---- JSON ---- */

static void json_point(struct bench_json *j, const char *key, const struct bench_sc_result *r,
		       const struct bench_sc_point *p)
{
	struct bench_cell cells[BENCH_SC_MAX_U * SC_LOAD_COLS];
	struct bench_table t;

	bench_json_obj_begin(j, key);
	bench_json_kuint(j, "cpus", p->cpus);
	bench_json_kuint(j, "cgroups", p->cgroups);
	bench_json_kbool(j, "ran", p->ran);
	bench_json_kuint(j, "estimate_bytes", p->estimate_bytes);
	bench_json_kdbl(j, "sim_build_s", p->build_s);
	bench_json_kuint(j, "sim_rss_bytes", p->rss_bytes);
	bench_json_kuint(j, "sim_page_tables_bytes", p->page_tables);
	bench_json_kdbl(j, "charged_percpu_bytes_per_memcg_cpu", p->charged_pcpu_per_memcg_cpu);
	bench_json_kdbl(j, "charged_slab_bytes_per_memcg", p->charged_slab_per_memcg);
	bench_json_kdbl(j, "sim_bytes_per_memcg_cpu", p->resident_per_memcg_cpu);
	bench_json_kdbl(j, "idle_flush_us", p->idle_flush_us);
	bench_json_kuint(j, "idle_cpu_visits", p->idle_cpu_visits);
	bench_json_kuint(j, "idle_memcg_flushes", p->idle_memcg_flushes);
	sc_loads_table(r, p, cells, &t);
	bench_table_print_json(j, "loads", &t);
	bench_json_obj_end(j);
}

static void print_json(const struct bench_sc_result *r)
{
	struct bench_sc_verdicts v;
	struct bench_json j;

	bench_json_init(&j, stdout);
	bench_json_obj_begin(&j, NULL);
	bench_json_kstr(&j, "bench", "scale");
	bench_json_kstr(&j, "measures", MEASURES);
	bench_json_kuint(&j, "nodes", r->cfg.nodes);
	bench_json_kuint(&j, "reps", r->cfg.reps);
	bench_json_kdbl(&j, "sim_bytes_per_memcg_probe", r->probe_per_memcg);
	bench_json_kdbl(&j, "sim_bytes_per_memcg_cpu_probe", r->probe_per_pair);
	bench_json_kdbl(&j, "sim_wall_s", r->wall_s);
	bench_json_kdbl(&j, "sim_cpu_s", r->cpu_s);
	bench_json_kuint(&j, "sim_peak_rss_bytes", r->peak_rss);
	bench_json_arr_begin(&j, "cpu_series");
	for (unsigned int i = 0; i < BENCH_SC_SERIES; i++)
		json_point(&j, NULL, r, &r->cpu_series[i]);
	bench_json_arr_end(&j);
	bench_json_arr_begin(&j, "cgroup_series");
	for (unsigned int i = 0; i < BENCH_SC_SERIES; i++)
		json_point(&j, NULL, r, &r->cgroup_series[i]);
	bench_json_arr_end(&j);
	json_point(&j, "issue_size", r, &r->issue);
	bench_sc_verdicts(r, &v);
	bench_verdict_print_json(&j, "verdicts", &v.table);
	bench_json_obj_end(&j);
	bench_json_finish(&j);
}

/* ---- main ---- */

static const struct bench_spec scale_spec = {
	.name = "scale",
	.summary = "memcg statistics at scale: bytes per memcg per CPU, flush against "
		   "updates, growth",
	.description = "Two series of hosts (CPUs doubling, cgroups doubling), 4 nodes, the "
		       "memcg and rstat layers,\nroot -> 16 parents -> leaves, then the scale goal's "
		       "size whole (1024 CPUs x 20000 cgroups).\nEvery CPU updates 1, 4, 16, 64 "
		       "leaves, then a forced root flush is timed.\nFigures are " MEASURES ".",
	.default_reps = 3,
	.quick_reps = 1,
};

/* An option given (non-zero) replaces the default. */
static void pick_uint(unsigned int *dst, unsigned int given)
{
	if (given)
		*dst = given;
}

static int scale_main(int argc, char **argv)
{
	struct bench_sc_config c;
	unsigned int cpus = 0, cgroups = 0, cpu_series_cgroups = 0, cgroup_series_cpus = 0;
	unsigned int nodes = 0;
	unsigned long max_mib = 0;
	const struct bench_arg opts[] = {
		BENCH_OPT_UINT("--cpus", "N", &cpus, 4, MSIM_MAX_CPUS,
			       "top of the CPU series: N/4, N/2, N CPUs (default 1024)"),
		BENCH_OPT_UINT("--cgroups", "N", &cgroups, 4, 10000000,
			       "top of the cgroup series: N/4, N/2, N cgroups (default 20000)"),
		BENCH_OPT_UINT("--series-cgroups", "N", &cpu_series_cgroups, 1, 10000000,
			       "cgroups of the CPU series (default 256)"),
		BENCH_OPT_UINT("--series-cpus", "N", &cgroup_series_cpus, 1, MSIM_MAX_CPUS,
			       "CPUs of the cgroup series (default 16)"),
		BENCH_OPT_UINT("--nodes", "N", &nodes, 1, MSIM_MAX_NODES, "NUMA nodes (default 4)"),
		BENCH_OPT_ULONG("--max-rss-mib", "N", &max_mib, 16, 1UL << 24,
				"skip a size whose estimated memory exceeds this (default 1536)"),
		BENCH_OPT_END,
	};
	struct bench_spec spec = scale_spec;
	struct bench_opts a;
	struct bench_sc_result *r;
	int ret;

	spec.options = opts;
	ret = bench_parse_args(&spec, argc, argv, &a);
	if (ret)
		return bench_args_exit_status(ret);
	bench_sc_config_default(&c, a.quick);
	pick_uint(&c.top_cpus, cpus);
	pick_uint(&c.top_cgroups, cgroups);
	pick_uint(&c.cpu_series_cgroups, cpu_series_cgroups);
	pick_uint(&c.cgroup_series_cpus, cgroup_series_cpus);
	pick_uint(&c.nodes, nodes);
	c.max_rss = max_mib ? (uint64_t)max_mib << 20 : c.max_rss;
	c.reps = a.reps;
	c.base = a.variants;
	r = calloc(1, sizeof(*r));
	if (!r || bench_sc_run(&c, r)) {
		fprintf(stderr, "scale: failed (a series needs --cgroups / 4 >= the first leaves "
			"updated; see --help)\n");
		free(r);
		return 1;
	}
	if (a.json)
		print_json(r);
	else
		print_text(r);
	free(r);
	return 0;
}

static const struct bench_engine scale_bench = {
	.name = "scale",
	.summary = "memcg statistics at scale: bytes per memcg per CPU, flush vs updates, growth",
	.main = scale_main,
};
BENCH_REGISTER(scale_bench);
