/* SPDX-License-Identifier: MIT */
/*
 * bench_shrinker_units.c - thread 001: per-memcg shrinker units in a pointer
 * array or in an xarray allocated on demand. `memcgsim bench shrinker-units`
 * (and the program shrinker_units) reproduces the thread's two tables: slab per
 * empty cgroup, the per-cgroup container, shrink_slab_memcg on an empty and on a
 * busy cgroup, 640 mounts crossing 10 unit boundaries with and without cgroups,
 * and the drop_caches walk, for the four shrinker-info layouts:
 *   array             mainline: every unit up front, units from kmalloc-1k
 *   array-unit-cache  the thread's "base": the same, units from a 520-byte cache
 *   array-on-demand   the thread's "old array on demand"
 *   xarray            the thread's series
 * Measuring is in bench_shrinker_units_run.c, the thread's comparisons in
 * bench_shrinker_units_verdicts.c; this file parses the options and prints the
 * tables (ours beside the thread's), the verdicts and the JSON.
 * docs/shrinker-bench.md explains every figure.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/kmem.h>

#include "bench_shrinker_units.h"
#include "bench_util.h"
#include "bench_registry.h"

enum { R_SLAB, R_CONT, R_EMPTY, R_BUSY, R_REG, R_REG_NONE, R_WALK, R_VISIT, NROWS };

static const char *const row_name[NROWS] = {
	"slab per empty cgroup (KiB)",
	"  of it, the per-cgroup container (KiB)",
	"shrink_slab_memcg(), empty cgroup (us)",
	"same, cgroup with objects on 100 sb (us)",
	"640 mounts, cgroups alive (s)",
	"the same 640 mounts, no cgroups (s)",
	"drop_caches walk, one pass (s)",
	"  per cgroup and node (us)",
};

/*
 * The thread's published figures in the units of row_name (KiB read as the
 * thread's KB), per table and layout; NAN where the thread has none (mainline
 * array is not one of its kernels; table 1 has no registration or walk rows).
 */
#define N NAN
static const double thread_fig[2][NROWS][BENCH_SHU_NLAYOUTS] = {
	/* array, array-unit-cache (base), array-on-demand, xarray */
	{
		{ N, 185, 22, 18 },
		{ N, N, N, N },
		{ N, 1.6, 1.6, 0.2 },
		{ N, 1.9, 1.7, 0.9 },
		{ N, N, N, N },
		{ N, N, N, N },
		{ N, N, N, N },
		{ N, N, N, N },
	},
	{
		{ N, 1.6 * 1024, 65, 34 },
		{ N, 32, 32, 0 },
		{ N, N, N, N },
		{ N, N, N, N },
		{ N, 1.41, 1.31, 0.10 },
		{ N, 0.08, 0.08, 0.07 },
		{ N, 23, 11.3, 1.3 },
		{ N, 22.8, 10.7, 0.5 },
	},
};
#undef N

static const char *const col_name[BENCH_SHU_NLAYOUTS] = {
	"array (mainline)", "array-unit-cache (base)", "array-on-demand (old)", "xarray (series)",
};

#define MEASURES "the model's work on this machine (one thread, deterministic host, no tasks), " \
		 "not the kernel's: compare ratios and orders of magnitude only"

struct shu_opts {
	bool custom;
	struct bench_shu_config c;
	int only_scale;       /* -1: both */
	unsigned int mask;    /* 0: all */
	bool in_turn, alternate;
	bool reps_given;      /* --reps on the command line: every scale uses it */
};

static double fig(const struct bench_shu_layout_result *lr, int row)
{
	switch (row) {
	case R_SLAB: return (double)lr->slab_per_cgroup / 1024;
	case R_CONT: return (double)lr->container_bytes / 1024;
	case R_EMPTY: return lr->empty_ns / 1e3;
	case R_BUSY: return lr->busy_ns / 1e3;
	case R_REG: return lr->reg_s;
	case R_REG_NONE: return lr->reg_none_s;
	case R_WALK: return lr->walk_s;
	case R_VISIT: return lr->walk_visit_us;
	default: return NAN;
	}
}

/* --layout NAME: adds the layout to the mask of those to run. */
static int layout_opt(const char *value, void *dest, char *err, size_t errlen)
{
	unsigned int *mask = dest;

	for (unsigned int l = 0; l < BENCH_SHU_NLAYOUTS; l++)
		if (!strcmp(value, msim_shrinker_layout_name(l))) {
			*mask |= 1u << l;
			return 0;
		}
	snprintf(err, errlen, "one of array, array-unit-cache, array-on-demand, xarray (got '%s')",
		 value);
	return -EINVAL;
}

/* ---- text ---- */

/* Where the kernel-memory model kept its objects (docs/kmem.md section 2). */
static const char *backing_name(void)
{
	struct msim_config cfg;
	struct msim *m;
	const char *name = "?";

	msim_config_init(&cfg);
	if (!msim_create(&cfg, &m, NULL, 0)) {
		name = msim_kmem_lazy_backing(m) ? "in the lazily committed arena" : "on the heap";
		msim_destroy(m);
	}
	return name;
}

static void print_cell(double ours, double thr)
{
	char b[40];

	if (isnan(ours))
		snprintf(b, sizeof(b), "-");
	else if (isnan(thr))
		snprintf(b, sizeof(b), "%.3g", ours);
	else
		snprintf(b, sizeof(b), "%.3g (%.3g)", ours, thr);
	printf(" %-23s", b);
}

/* The thread's rows: ours per layout, the thread's figure in brackets. */
static void print_rows(const struct bench_shu_result *r, int scale)
{
	const struct bench_shu_config *c = &r->cfg;
	int nr_max = 0;

	for (unsigned int l = 0; l < BENCH_SHU_NLAYOUTS; l++)
		if (r->lay[l].ran)
			nr_max = r->lay[l].nr_max;
	printf("\n%s: %u mounts + %u host filesystems (shrinker_nr_max %d), %u cgroups, "
	       "%u node(s), %u CPUs\n", c->name, c->mounts, c->boot_mounts, nr_max, c->cgroups,
	       c->nodes, c->cpus);
	printf("ours (thread's figure in brackets), every layout with all %u cgroups; layouts %s, "
	       "medians of %u repetitions\n", c->cgroups,
	       c->in_turn ? "measured in turn" : "alternated", c->reps);
	printf("%-42s", "");
	for (unsigned int l = 0; l < BENCH_SHU_NLAYOUTS; l++)
		if (r->lay[l].ran)
			printf(" %-23s", col_name[l]);
	printf("\n");
	for (int row = 0; row < NROWS; row++) {
		printf("%-42s", row_name[row]);
		for (unsigned int l = 0; l < BENCH_SHU_NLAYOUTS; l++) {
			const struct bench_shu_layout_result *lr = &r->lay[l];

			if (!lr->ran)
				continue;
			print_cell(fig(lr, row), scale >= 0 ? thread_fig[scale][row][l] : NAN);
		}
		printf("\n");
	}
}

/* The counts below the table: what was measured and what the simulator cost. */
enum { C_USED, C_SHRINKER_BYTES, C_UNITS, C_COPIES, C_SIM, NCOUNTS };

static const char *const count_name[NCOUNTS] = {
	"cgroups created (empty)", "shrinker bytes per cgroup (exact)",
	"units per cgroup (all nodes)", "header copies by the 640-mount rounds",
	"simulator: setup (s) / RSS added (MiB)",
};

static void count_cell(const struct bench_shu_layout_result *lr, int k, char *b, size_t n)
{
	switch (k) {
	case C_USED: snprintf(b, n, "%u", lr->cgroups_used); break;
	case C_SHRINKER_BYTES: snprintf(b, n, "%llu", (unsigned long long)lr->shrinker_bytes); break;
	case C_UNITS: snprintf(b, n, "%llu", (unsigned long long)lr->units); break;
	case C_COPIES: snprintf(b, n, "%llu", (unsigned long long)lr->expand_visits); break;
	default:
		snprintf(b, n, "%.2f / %.0f", lr->setup_s, lr->rss_bytes / 1048576.0);
		break;
	}
}

static void print_table(const struct bench_shu_result *r, int scale)
{
	char b[40];

	print_rows(r, scale);
	for (int k = 0; k < NCOUNTS; k++) {
		printf("%-42s", count_name[k]);
		for (unsigned int l = 0; l < BENCH_SHU_NLAYOUTS; l++)
			if (r->lay[l].ran) {
				count_cell(&r->lay[l], k, b, sizeof(b));
				printf(" %-23s", b);
			}
		printf("\n");
	}
	printf("rest of a cgroup (estimate, per cgroup, from %u cgroups with the memcg and rstat "
	       "layers): mem_cgroup %llu + mem_cgroup_per_node %llu + memcg_vmstats %llu + other "
	       "slab %llu = %llu B; per-CPU (not slab, not counted) %llu B\n",
	       r->rest.cgroups, (unsigned long long)r->rest.mem_cgroup,
	       (unsigned long long)r->rest.mem_cgroup_per_node,
	       (unsigned long long)r->rest.memcg_vmstats, (unsigned long long)r->rest.other_slab,
	       (unsigned long long)r->rest.slab, (unsigned long long)r->rest.percpu);
	printf("520-byte unit cache: %llu B per unit (slab share); kmalloc-1k: 1024 B\n",
	       (unsigned long long)r->unit_slot_share);
	printf("simulator, this scale: %.1f s wall, %.1f s CPU; RSS with the hosts built %.0f MiB "
	       "(page tables %.0f MiB); peak RSS so far %.0f MiB\n", r->wall_s, r->cpu_s,
	       r->rss_after_build / 1048576.0, r->page_tables_after_build / 1048576.0,
	       r->peak_rss / 1048576.0);
}

static void print_text(const struct bench_shu_result *res, const int *scale, size_t nres,
		       const struct bench_verdict_table *v, double wall, uint64_t peak)
{
	printf("shrinker units in a pointer array or an xarray on demand (thread 001)\n");
	printf("Memory: the shrinker part is exact (kernel-memory model, owners shrinker_info,\n"
	       "shrinker_info_unit, shrinker_info_xa); the rest of a cgroup is an estimate.\n");
	printf("Time: %s; medians of the repetitions each table names.\n", MEASURES);
	for (size_t i = 0; i < nres; i++)
		print_table(&res[i], scale[i]);
	if (v->groups) {
		printf("\n");
		bench_verdict_print_text(stdout, v);
	}
	printf("\nwhole run: %.1f s wall, %.1f s CPU, peak RSS %.0f MiB (kernel memory %s)\n",
	       wall, bench_shu_cpu_ns() / 1e9, peak / 1048576.0, backing_name());
}

/* ---- JSON ---- */

static void json_layout(struct bench_json *j, const struct bench_shu_result *r,
			const struct bench_shu_layout_result *lr, int scale)
{
	bench_json_obj_begin(j, NULL);
	bench_json_kstr(j, "layout", msim_shrinker_layout_name(lr->layout));
	bench_json_kuint(j, "mounts", r->cfg.mounts);
	bench_json_kuint(j, "boot_mounts", r->cfg.boot_mounts);
	bench_json_kuint(j, "cgroups", r->cfg.cgroups);
	bench_json_kuint(j, "cgroups_used", lr->cgroups_used);
	bench_json_kuint(j, "nodes", r->cfg.nodes);
	bench_json_kuint(j, "cpus", r->cfg.cpus);
	bench_json_kint(j, "shrinker_nr_max", lr->nr_max);
	bench_json_kuint(j, "slab_bytes_per_empty_cgroup", lr->slab_per_cgroup);
	bench_json_kuint(j, "shrinker_bytes_per_cgroup", lr->shrinker_bytes);
	bench_json_kuint(j, "container_bytes_per_cgroup", lr->container_bytes);
	bench_json_kuint(j, "unit_bytes_per_cgroup", lr->unit_bytes);
	bench_json_kuint(j, "units_per_cgroup", lr->units);
	bench_json_kuint(j, "rest_bytes_per_cgroup", r->rest.slab);
	bench_json_kbool(j, "info_bytes_agree", lr->info_bytes_agree);
	bench_json_kdbl(j, "shrink_slab_memcg_empty_ns", lr->empty_ns);
	bench_json_kdbl(j, "shrink_slab_memcg_100sb_ns", lr->busy_ns);
	bench_json_kdbl(j, "register_640_mounts_s", lr->reg_s);
	bench_json_kdbl(j, "register_640_mounts_no_cgroups_s", lr->reg_none_s);
	bench_json_kdbl(j, "drop_caches_walk_s", lr->walk_s);
	bench_json_kuint(j, "drop_caches_walk_visits", lr->walk_visits);
	bench_json_kdbl(j, "shrink_slab_memcg_per_cgroup_node_us", lr->walk_visit_us);
	bench_json_kint(j, "shrinker_nr_max_after", lr->nr_max_after);
	bench_json_kuint(j, "expand_header_copies", lr->expand_visits);
	bench_json_kdbl(j, "sim_setup_s", lr->setup_s);
	bench_json_kuint(j, "sim_rss_bytes", lr->rss_bytes);
	if (scale >= 0) {
		bench_json_obj_begin(j, "thread");
		for (int row = 0; row < NROWS; row++) {
			static const char *const key[NROWS] = {
				"slab_kb_per_empty_cgroup", "container_kb_per_cgroup",
				"shrink_slab_memcg_empty_us", "shrink_slab_memcg_100sb_us",
				"register_640_mounts_s", "register_640_mounts_no_cgroups_s",
				"drop_caches_walk_s", "shrink_slab_memcg_per_cgroup_node_us",
			};
			double t = thread_fig[scale][row][lr->layout];

			if (!isnan(t))
				bench_json_kdbl(j, key[row], t);
		}
		bench_json_obj_end(j);
	}
	bench_json_obj_end(j);
}

static void print_json(const struct bench_shu_result *res, const int *scale, size_t nres,
		       const struct bench_verdict_table *v, bool quick, double wall,
		       uint64_t peak)
{
	struct bench_json j;

	bench_json_init(&j, stdout);
	bench_json_obj_begin(&j, NULL);
	bench_json_kstr(&j, "bench", "shrinker-units");
	bench_json_kstr(&j, "thread", "001");
	bench_json_kstr(&j, "measures", MEASURES);
	bench_json_kbool(&j, "quick", quick);
	bench_json_kdbl(&j, "sim_wall_s", wall);
	bench_json_kdbl(&j, "sim_cpu_s", bench_shu_cpu_ns() / 1e9);
	bench_json_kuint(&j, "sim_peak_rss_bytes", peak);
	bench_json_kstr(&j, "kernel_memory_backing", backing_name());
	bench_json_arr_begin(&j, "scales");
	for (size_t i = 0; i < nres; i++) {
		const struct bench_shu_result *r = &res[i];

		bench_json_obj_begin(&j, NULL);
		bench_json_kstr(&j, "name", r->cfg.name);
		bench_json_kuint(&j, "reps", r->cfg.reps);
		bench_json_kuint(&j, "unit_cache_bytes_per_unit", r->unit_slot_share);
		bench_json_obj_begin(&j, "rest_per_cgroup");
		bench_json_kuint(&j, "mem_cgroup", r->rest.mem_cgroup);
		bench_json_kuint(&j, "mem_cgroup_per_node", r->rest.mem_cgroup_per_node);
		bench_json_kuint(&j, "memcg_vmstats", r->rest.memcg_vmstats);
		bench_json_kuint(&j, "other_slab", r->rest.other_slab);
		bench_json_kuint(&j, "slab", r->rest.slab);
		bench_json_kuint(&j, "percpu_not_counted", r->rest.percpu);
		bench_json_kuint(&j, "cgroups", r->rest.cgroups);
		bench_json_obj_end(&j);
		bench_json_kbool(&j, "layouts_in_turn", r->cfg.in_turn);
		bench_json_kdbl(&j, "sim_wall_s", r->wall_s);
		bench_json_kdbl(&j, "sim_cpu_s", r->cpu_s);
		bench_json_kuint(&j, "sim_rss_after_build_bytes", r->rss_after_build);
		bench_json_kuint(&j, "sim_page_tables_after_build_bytes",
				 r->page_tables_after_build);
		bench_json_kuint(&j, "sim_peak_rss_bytes", r->peak_rss);
		bench_json_arr_begin(&j, "layouts");
		for (unsigned int l = 0; l < BENCH_SHU_NLAYOUTS; l++)
			if (r->lay[l].ran)
				json_layout(&j, r, &r->lay[l], scale[i]);
		bench_json_arr_end(&j);
		bench_json_obj_end(&j);
	}
	bench_json_arr_end(&j);
	bench_verdict_print_json(&j, "verdicts", v);
	bench_json_obj_end(&j);
	bench_json_finish(&j);
}

/* ---- main ---- */

/* The configuration of scale s (0, 1: the thread's tables) after the options. */
static void scale_config(const struct shu_opts *o, const struct bench_opts *a, int s,
			 struct bench_shu_config *c)
{
	bench_shu_config_thread(c, o->custom ? 0 : (unsigned int)s, a->quick);
	if (o->custom) {
		c->name = "custom";
		c->mounts = o->c.mounts ? o->c.mounts : c->mounts;
		c->cgroups = o->c.cgroups != ~0u ? o->c.cgroups : c->cgroups;
		c->nodes = o->c.nodes ? o->c.nodes : c->nodes;
		c->cpus = o->c.cpus ? o->c.cpus : c->cpus;
	}
	if (o->c.boot_mounts != ~0u)
		c->boot_mounts = o->c.boot_mounts;
	if (o->mask)
		c->layout_mask = o->mask;
	if (o->in_turn || o->alternate)
		c->in_turn = o->in_turn;
	if (o->reps_given || o->custom)
		c->reps = a->reps;
	c->base = a->variants;
	c->progress = true;
}

/* The scales asked for (one custom configuration runs alone); scale[i] -1 for custom. */
static int run_scales(const struct shu_opts *o, const struct bench_opts *a,
		      struct bench_shu_result *res, int scale[2], size_t *nres)
{
	int ret = 0;

	*nres = 0;
	for (int s = 0; s < 2 && !ret; s++) {
		struct bench_shu_config c;

		if (o->only_scale >= 0 && o->only_scale != s)
			continue;
		if (o->custom && s > 0)
			break;
		scale_config(o, a, s, &c);
		ret = bench_shu_run(&c, &res[*nres]);
		scale[*nres] = o->custom ? -1 : s;
		(*nres)++;
	}
	return ret;
}

static int run(const struct shu_opts *o, const struct bench_opts *a)
{
	struct bench_shu_result *res = calloc(2, sizeof(*res));
	struct bench_shu_verdicts *v = calloc(1, sizeof(*v));
	const struct bench_shu_result *t[2] = { NULL, NULL };
	int scale[2] = { -1, -1 };
	size_t nres = 0;
	uint64_t t0 = bench_now_ns();
	int ret = res && v ? run_scales(o, a, res, scale, &nres) : -ENOMEM;
	double wall = (double)(bench_now_ns() - t0) / 1e9;

	if (ret) {
		fprintf(stderr, "shrinker-units: failed: %s\n", strerror(-ret));
		free(res);
		free(v);
		return 1;
	}
	for (size_t i = 0; i < nres; i++)
		if (scale[i] >= 0)
			t[scale[i]] = &res[i];
	bench_shu_verdicts(t[0], t[1], v);
	if (a->json)
		print_json(res, scale, nres, &v->table, a->quick, wall, bench_shu_peak_rss());
	else
		print_text(res, scale, nres, &v->table, wall, bench_shu_peak_rss());
	free(res);
	free(v);
	return 0;
}

/* Options into o and a: 0 to run, 1 after --help, 2 on a usage error. */
static int shu_parse(struct shu_opts *o, int argc, char **argv, struct bench_opts *a)
{
	unsigned int table = 0;
	const struct bench_arg opts[] = {
		BENCH_OPT_UINT("--mounts", "N", &o->c.mounts, 1, 1000000,
			       "one configuration: tmpfs superblocks (default 20000)"),
		BENCH_OPT_UINT("--cgroups", "N", &o->c.cgroups, 0, 1000000,
			       "one configuration: empty cgroups (default 2000)"),
		BENCH_OPT_UINT("--nodes", "N", &o->c.nodes, 1, MSIM_MAX_NODES,
			       "one configuration: NUMA nodes (default 1)"),
		BENCH_OPT_UINT("--cpus", "N", &o->c.cpus, 1, MSIM_MAX_CPUS,
			       "one configuration: CPUs (default 4)"),
		BENCH_OPT_CALL("--layout", "L", layout_opt, &o->mask,
			       "array, array-unit-cache, array-on-demand or xarray (repeatable; "
			      "default all four)"),
		BENCH_OPT_UINT("--table", "N", &table, 1, 2, "only the thread's table 1 or 2"),
		BENCH_OPT_UINT("--boot-mounts", "N", &o->c.boot_mounts, 0, 1000000,
			       "host filesystems mounted first (default 64: nr_max 20096 and "
			      "50112 as in the thread)"),
		BENCH_OPT_FLAG("--in-turn", &o->in_turn,
			       "build, measure and tear down one layout after another (table 2's "
			      "default: all layouts at once would need ~2.4 GB)"),
		BENCH_OPT_FLAG("--alternate", &o->alternate,
			       "every layout built at once, repetitions alternated (table 1's "
			      "default)"),
		BENCH_OPT_END,
	};
	const struct bench_spec spec = {
		.name = "shrinker-units",
		.summary = "thread 001: shrinker units in a pointer array or an xarray on demand:\n"
			   "slab per empty cgroup, shrink_slab_memcg, 640 mounts, drop_caches walk.",
		.description = "With no option, both of the thread's scales, whole: 20000 mounts,\n"
			       "2000 cgroups, 1 node, 4 CPUs (layouts alternated); and 50000 mounts,\n"
			       "20000 cgroups, 4 nodes, 48 CPUs (layouts in turn, 3 repetitions\n"
			       "unless --reps says otherwise: each is ~12 s). --mounts/--cgroups/\n"
			       "--nodes/--cpus/--boot-mounts run one configuration. Layouts are the\n"
			       "variant shrinker-info. Times are " MEASURES ".",
		.default_reps = 5,
		.quick_reps = 1,
		.options = opts,
	};
	int ret;

	memset(o, 0, sizeof(*o));
	o->c.cgroups = ~0u;      /* ~0u: not given (0 is a valid count) */
	o->c.boot_mounts = ~0u;
	ret = bench_parse_args(&spec, argc, argv, a);
	for (int i = 1; i < argc; i++)
		o->reps_given |= !strcmp(argv[i], "--reps") || !strncmp(argv[i], "--reps=", 7);
	o->only_scale = table ? (int)table - 1 : -1;
	/* Any size option makes one custom configuration (as --boot-mounts always did). */
	o->custom = o->c.mounts || o->c.cgroups != ~0u || o->c.nodes || o->c.cpus ||
		    o->c.boot_mounts != ~0u;
	if (!ret && o->in_turn && o->alternate) {
		fprintf(stderr, "shrinker-units: --in-turn and --alternate exclude each other\n");
		ret = 2;
	}
	return ret;
}

static int shrinker_units_main(int argc, char **argv)
{
	struct shu_opts o;
	struct bench_opts a;
	int ret = shu_parse(&o, argc, argv, &a);

	return ret ? bench_args_exit_status(ret) : run(&o, &a);
}

static const struct bench_engine shrinker_units_bench = {
	.name = "shrinker-units",
	.summary = "thread 001: shrinker units, array vs xarray on demand (memory, shrink, "
		   "mounts, drop_caches)",
	.main = shrinker_units_main,
};
BENCH_REGISTER(shrinker_units_bench);
