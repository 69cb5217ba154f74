/* SPDX-License-Identifier: MIT */
/*
 * bench_rstat_staleness.c - "page cache grows at 1 GiB/s" (thread 004): root's
 * reported NR_FILE_PAGES against the true sum over virtual time, under
 * rstat-propagate=break and =continue: options, verdicts and output. The runs
 * (measured under concurrent updaters, or scripted) are in
 * bench_rstat_staleness_run.c, whose comment says what each does.
 *
 * Deterministic: no wall time is measured; every figure is exact for its seeds.
 * Output: a table, --csv (the first seed's time series), --json.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/memcgsim.h>

#include "bench_rstat_staleness.h"
#include "bench_table.h"
#include "bench_util.h"
#include "bench_registry.h"

struct st_cli {
	struct bench_st_opts o;
	bool csv, json;
	char variants[MSIM_VARIANTS_STRLEN];
};

/* Returns 0 to run, 1 after --help, 2 on a usage error (bench_util's convention). */
static int st_parse(int argc, char **argv, struct st_cli *c)
{
	struct bench_st_opts *o = &c->o;
	unsigned int folio_pages = 0;
	struct bench_opts a;
	const struct bench_arg opts[] = {
		BENCH_OPT_UINT("--cpus", "N", &o->cpus, 3, MSIM_MAX_CPUS,
			       "simulated CPUs (default 8; threshold 64 x N)"),
		BENCH_OPT_UINT("--updaters", "U", &o->updaters, 1, 64,
			       "updater tasks on CPUs 1..U, fewer than --cpus (default 4)"),
		BENCH_OPT_DOUBLE("--seconds", "S", &o->seconds, 0, 60,
				 "virtual seconds of growth (default 4; quick 2.2)"),
		BENCH_OPT_DOUBLE("--rate-gib", "R", &o->rate_gib, 0, 1024,
				 "page cache growth in GiB/s (default 1)"),
		BENCH_OPT_UINT("--folio-pages", "P", &folio_pages, 1, 1UL << 18,
			       "pages per NR_FILE_PAGES update (default 16)"),
		BENCH_OPT_UINT("--sample-ms", "MS", &o->sample_ms, 1, 60000,
			       "the reader's period in virtual ms (default 10)"),
		BENCH_OPT_UINT("--seeds", "N", &o->seeds, 1, 10000,
			       "seeded schedules per design (default 3; quick 1)"),
		BENCH_OPT_FLAG("--leaf-only", &o->leaf_only,
			       "measured: the leaf alone, read at root only (default: a sibling\n"
			      "and root's own pages grow too, and a reader flushes the leaf)"),
		BENCH_OPT_FLAG("--scripted", &o->scripted,
			       "the old run: the race scripted at t = 0, then the driver alone\n"
			      "(the gap follows from the script: printed, not judged)"),
		BENCH_OPT_FLAG("--csv", &c->csv, "the time series as CSV instead of the table"),
		BENCH_OPT_END,
	};
	const struct bench_spec spec = {
		.name = "rstat-staleness",
		.summary = "thread 004: root's reported NR_FILE_PAGES vs the truth while page cache "
			   "grows, rstat-propagate break vs continue (virtual time, exact)",
		.description = "Concurrent updaters and a gated reader under a seeded random\n"
			       "scheduler (--seed is the first seed); no wall time is measured.\n"
			       "The designs set rstat-propagate; every other variant comes from\n"
			       "--preset/--variant.",
		.default_reps = 1,
		.quick_reps = 1,
		.options = opts,
	};
	struct bench_st_opts def;
	int ret;

	memset(o, 0, sizeof(*o));
	ret = bench_parse_args(&spec, argc, argv, &a);
	if (ret)
		return ret;
	bench_st_opts_init(&def, a.quick);
	o->cpus = o->cpus ? o->cpus : def.cpus;
	o->updaters = o->updaters ? o->updaters : def.updaters;
	o->seconds = o->seconds > 0 ? o->seconds : def.seconds;
	o->rate_gib = o->rate_gib > 0 ? o->rate_gib : def.rate_gib;
	o->folio_pages = folio_pages ? folio_pages : def.folio_pages;
	o->sample_ms = o->sample_ms ? o->sample_ms : def.sample_ms;
	o->seeds = o->seeds ? o->seeds : def.seeds;
	o->seed = a.seed;
	o->progress = true;
	o->base = a.variants;
	c->json = a.json;
	msim_variants_format(&o->base, c->variants, sizeof(c->variants));
	if (!o->scripted && o->updaters >= o->cpus) {
		fprintf(stderr, "rstat-staleness: --updaters %u needs at least %u CPUs (CPU 0 is "
			"the reader's); --cpus is %u\n", o->updaters, o->updaters + 1, o->cpus);
		return 2;
	}
	return 0;
}

/* ---- the thread's claims ---- */

static const char *const st_fig_names[BENCH_ST_NFIGS] = {
	[BENCH_ST_F_GAP_BREAK] = "break_max_gap_bytes",
	[BENCH_ST_F_WANT] = "rate_x_window_bytes",
	[BENCH_ST_F_GAP_BREAK_MIB] = "break_max_gap_mib",
	[BENCH_ST_F_WANT_MIB] = "rate_x_window_mib",
	[BENCH_ST_F_WINDOW_S] = "window_s",
	[BENCH_ST_F_GAP_CONT_MIB] = "continue_max_gap_mib",
	[BENCH_ST_F_BEYOND_BREAK] = "break_reads_beyond_bound",
	[BENCH_ST_F_BEYOND_CONT] = "continue_reads_beyond_bound",
	[BENCH_ST_F_READS] = "reads_per_design",
	[BENCH_ST_F_SEEDS] = "seeds",
	[BENCH_ST_F_SEEDS_BEYOND_BREAK] = "break_seeds_beyond_bound",
	[BENCH_ST_F_THRESHOLD_PAGES] = "threshold_pages",
	[BENCH_ST_F_SLACK_PAGES] = "pending_slack_pages",
	[BENCH_ST_F_INFLIGHT_PAGES] = "max_inflight_pages",
	[BENCH_ST_F_SCRIPTED_GAP_MIB] = "scripted_break_max_gap_mib",
};

/* What the measured rows assume; the figures hold for this tree and these readers only. */
#define ST_ASSUME "assumes " BENCH_ST_TREE "; the periodic flush every 2 s on time; "  \
		  "readers every --sample-ms on the same seeded schedule"
#define BENCH_ST_TREE "the tree and traffic printed above the table (default: root -> "  \
		     "{leaf, sibling}, 70 % of the rate to the leaf, 20 % to the sibling, 10 % " \
		     "to root's own pages, a gated root reader and a gated leaf reader; "       \
		     "--leaf-only: the leaf alone, read at root only)"

#define ST_REACH "reachability under a seeded random scheduler (every interleaving equally " \
		 "likely at each step), not a frequency in production"

static const struct bench_verdict_row st_rows[] = {
	{
		.claim = "break: \"a two-second wait can leave the reported usage about 2 GiB "
			 "below the actual usage\" (the largest gap a gated reader saw, within 10% "
			 "of rate x the periodic flush's 2 s)",
		.group = BENCH_ST_G_MEASURED,
		.thread = { { "gap", BENCH_ST_F_WANT_MIB, 0, "MiB" },
			    { "rate x", BENCH_ST_F_WINDOW_S, 0, "s" } },
		.ours = { { "max gap", BENCH_ST_F_GAP_BREAK_MIB, 0, "MiB" },
			  { "seeds stuck", BENCH_ST_F_SEEDS_BEYOND_BREAK, 0, "" },
			  { "of", BENCH_ST_F_SEEDS, 0, "" } },
		.holds_when = { { BENCH_ST_F_GAP_BREAK, BENCH_VOP_GE, 0.9, BENCH_ST_F_WANT },
				{ BENCH_ST_F_GAP_BREAK, BENCH_VOP_LE, 1.1, BENCH_ST_F_WANT } },
		.why = { [BENCH_VERDICT_HOLDS] = "root got stuck soon after a periodic flush and "
						"stayed stuck until the next one while the page "
						"cache grew",
			 [BENCH_VERDICT_DOES_NOT_HOLD] = "root got stuck late in a 2 s window, or "
							"never, in these schedules" },
		.note = "measured: whether and when root gets stuck is the schedule's, not the "
			"bench's; " ST_ASSUME,
	},
	{
		.claim = "break: concurrent flushes leave root's count behind its subtree "
			 "(reads whose gap exceeds threshold + per-CPU counts + in-flight "
			 "charges)",
		.group = BENCH_ST_G_MEASURED,
		.thread = { { "\"root remains at the threshold\"", 0, NAN, "" } },
		.ours = { { "reads beyond the bound", BENCH_ST_F_BEYOND_BREAK, 0, "" },
			  { "of", BENCH_ST_F_READS, 0, "" } },
		.holds_when = { { BENCH_ST_F_BEYOND_BREAK, BENCH_VOP_GT, 0 } },
		.note = ST_REACH "; " ST_ASSUME,
	},
	{
		.claim = "continue keeps root within the threshold (plus per-CPU counts not yet "
			 "pushed and charges in flight during the read)",
		.group = BENCH_ST_G_MEASURED,
		.thread = { { "threshold", BENCH_ST_F_THRESHOLD_PAGES, 0, "pages" } },
		.ours = { { "reads beyond the bound", BENCH_ST_F_BEYOND_CONT, 0, "" },
			  { "of", BENCH_ST_F_READS, 0, "" },
			  { "max gap", BENCH_ST_F_GAP_CONT_MIB, 0, "MiB" },
			  { "largest in flight", BENCH_ST_F_INFLIGHT_PAGES, 0, "pages" } },
		.holds_when = { { BENCH_ST_F_BEYOND_CONT, BENCH_VOP_EQ, 0 } },
		.note = ST_ASSUME,
	},
	{
		.claim = "scripted: the gap after the scripted race is rate x the window",
		.group = BENCH_ST_G_SCRIPTED,
		.thread = { { "gap", BENCH_ST_F_WANT_MIB, 0, "MiB" } },
		.ours = { { "max gap", BENCH_ST_F_SCRIPTED_GAP_MIB, 0, "MiB" } },
		.rule = BENCH_RULE_NONE,
		.why = { [BENCH_VERDICT_NOT_COMPARABLE] =
				 "by construction: after the scripted race only the driver updates, "
				 "every gated flush skips, and the gap is rate x the window by "
				 "arithmetic; run without --scripted for a measurement" },
	},
};

void bench_st_verdicts(const struct bench_st_result *r, struct bench_st_verdicts *v)
{
	const struct bench_st_opts *o = &r->opts;
	double secs = o->seconds < MSIM_FLUSH_TIME_SECONDS ? o->seconds : MSIM_FLUSH_TIME_SECONDS;
	double want = o->rate_gib * secs * (double)(1ULL << 30);
	double *f = v->fig;

	for (int i = 0; i < BENCH_ST_NFIGS; i++)
		f[i] = NAN;
	f[BENCH_ST_F_NONE] = 0;
	f[BENCH_ST_F_WANT] = want;
	f[BENCH_ST_F_WANT_MIB] = want / 1048576.0;
	f[BENCH_ST_F_WINDOW_S] = secs;
	f[BENCH_ST_F_THRESHOLD_PAGES] = (double)r->threshold;
	f[BENCH_ST_F_SLACK_PAGES] = (double)r->pending_slack;
	if (o->scripted) {
		f[BENCH_ST_F_SCRIPTED_GAP_MIB] = (double)r->d[0].max_gap / 1048576.0;
	} else {
		f[BENCH_ST_F_GAP_BREAK] = (double)r->d[0].max_gap;
		f[BENCH_ST_F_GAP_BREAK_MIB] = (double)r->d[0].max_gap / 1048576.0;
		f[BENCH_ST_F_GAP_CONT_MIB] = (double)r->d[1].max_gap / 1048576.0;
		f[BENCH_ST_F_BEYOND_BREAK] = (double)r->d[0].beyond;
		f[BENCH_ST_F_BEYOND_CONT] = (double)r->d[1].beyond;
		f[BENCH_ST_F_READS] = (double)r->d[0].reads;
		f[BENCH_ST_F_SEEDS] = o->seeds;
		f[BENCH_ST_F_SEEDS_BEYOND_BREAK] = r->d[0].seeds_beyond;
		f[BENCH_ST_F_INFLIGHT_PAGES] = (double)(r->d[0].max_inflight > r->d[1].max_inflight
							       ? r->d[0].max_inflight
							       : r->d[1].max_inflight);
	}
	v->table = (struct bench_verdict_table){
		.reference = "thread 004",
		.rows = st_rows,
		.nrows = sizeof(st_rows) / sizeof(st_rows[0]),
		.fig_names = st_fig_names,
		.fig = v->fig,
		.nfig = BENCH_ST_NFIGS,
		.groups = o->scripted ? BENCH_ST_G_SCRIPTED : BENCH_ST_G_MEASURED,
	};
}

/* ---- output ---- */

/*
 * Both designs: the text's table (no mean gap: it averages the schedules' luck,
 * and is in --json only), the JSON's figures with each design's time series.
 */
static const struct bench_col st_design_cols[] = {
	{ .head = { "design" }, .fmt = "%-10s", .key = "design" },
	{ .head = { "max gap MiB" }, .fmt = " %12.1f" },
	{ .key = "max_gap_bytes" },
	{ .key = "mean_gap_bytes" },
	{ .head = { "reads" }, .fmt = " %8llu", .key = "reads" },
	{ .head = { "beyond bound" }, .fmt = " %14llu", .key = "reads_beyond_bound" },
	{ .key = "seeds_beyond_bound" },
	{ .key = "max_inflight_pages" },
	{ .head = { "skipped" }, .fmt = " %9llu", .key = "gated_flushes_skipped" },
	{ .head = { "flushes" }, .fmt = " %8llu", .key = "flushes" },
	{ .head = { "periodic" }, .fmt = " %9llu", .key = "periodic_flushes" },
};
#define ST_DESIGN_COLS (sizeof(st_design_cols) / sizeof(st_design_cols[0]))

/* Design row's series: [t_ms, true_bytes, reported_bytes] per read. */
static void st_json_series(struct bench_json *j, size_t row, const void *ctx)
{
	const struct bench_st_design *d = (const struct bench_st_design *)ctx + row;

	bench_json_arr_begin(j, "series");
	for (unsigned int i = 0; i < d->n; i++) {
		bench_json_arr_begin(j, NULL);
		bench_json_kint(j, NULL, d->t_ms[i]);
		bench_json_kint(j, NULL, d->true_b[i]);
		bench_json_kint(j, NULL, d->reported_b[i]);
		bench_json_arr_end(j);
	}
	bench_json_arr_end(j);
}

static void st_designs_table(const struct bench_st_result *r, struct bench_cell *cells,
			     struct bench_table *t)
{
	for (int k = 0; k < 2; k++) {
		const struct bench_st_design *d = &r->d[k];
		const struct bench_cell row[ST_DESIGN_COLS] = {
			BENCH_STR(d->design), BENCH_DBL(d->max_gap / 1048576.0),
			BENCH_INT(d->max_gap), BENCH_DBL(d->mean_gap), BENCH_UINT(d->reads),
			BENCH_UINT(d->beyond), BENCH_UINT(d->seeds_beyond),
			BENCH_INT(d->max_inflight), BENCH_UINT(d->skipped), BENCH_UINT(d->flushed),
			BENCH_UINT(d->periodic),
		};

		memcpy(&cells[k * ST_DESIGN_COLS], row, sizeof(row));
	}
	*t = (struct bench_table){ .head_rows = 1, .cols = st_design_cols, .ncols = ST_DESIGN_COLS,
				   .cells = cells, .nrows = 2, .row_json = st_json_series,
				   .ctx = r->d };
}

static void st_print_json(const struct st_cli *c, const struct bench_st_result *r)
{
	const struct bench_st_opts *o = &r->opts;
	struct bench_cell cells[2 * ST_DESIGN_COLS];
	struct bench_table t;
	struct bench_st_verdicts v;
	struct bench_json j;

	bench_json_init(&j, stdout);
	bench_json_obj_begin(&j, NULL);
	bench_json_kstr(&j, "bench", "rstat-staleness");
	bench_json_kstr(&j, "mode", o->scripted ? "scripted (by construction)" : "measured");
	bench_json_kstr(&j, "tree", o->scripted || o->leaf_only ? "root -> leaf, root reader"
				   : "root -> {leaf, sibling} + root's own pages, root and leaf readers");
	bench_json_kstr(&j, "base_variants", c->variants);
	bench_json_kuint(&j, "cpus", o->cpus);
	bench_json_kuint(&j, "updaters", o->scripted ? 0 : o->updaters);
	bench_json_kdbl(&j, "seconds", o->seconds);
	bench_json_kdbl(&j, "rate_gib_s", o->rate_gib);
	bench_json_kint(&j, "folio_pages", o->folio_pages);
	bench_json_kuint(&j, "sample_ms", o->sample_ms);
	bench_json_kuint(&j, "seeds", o->scripted ? 1 : o->seeds);
	bench_json_kint(&j, "threshold_pages", r->threshold);
	st_designs_table(r, cells, &t);
	bench_table_print_json(&j, "designs", &t);
	bench_st_verdicts(r, &v);
	bench_verdict_print_json(&j, "verdicts", &v.table);
	bench_json_arr_begin(&j, "series_columns");
	bench_json_kstr(&j, NULL, "t_ms");
	bench_json_kstr(&j, NULL, "true_bytes");
	bench_json_kstr(&j, NULL, "reported_bytes");
	bench_json_arr_end(&j);
	bench_json_obj_end(&j);
	bench_json_finish(&j);
}

static void st_print_csv(const struct bench_st_result *r)
{
	printf("design,t_ms,true_bytes,reported_bytes,gap_bytes\n");
	for (int d = 0; d < 2; d++)
		for (unsigned int i = 0; i < r->d[d].n; i++)
			printf("%s,%ld,%lld,%lld,%lld\n", r->d[d].design, r->d[d].t_ms[i],
			       r->d[d].true_b[i], r->d[d].reported_b[i],
			       r->d[d].true_b[i] - r->d[d].reported_b[i]);
}

static void st_print_text(const struct st_cli *c, const struct bench_st_result *r)
{
	const struct bench_st_opts *o = &r->opts;
	struct bench_cell cells[2 * ST_DESIGN_COLS];
	struct bench_table t;
	struct bench_st_verdicts v;

	if (o->scripted)
		printf("rstat-staleness --scripted: leaf's page cache grows %.2f GiB/s from the "
		       "driver alone for %.1f s of virtual time, %u CPUs (threshold %ld), after "
		       "the scripted early-exit race: the gap follows from the script\n",
		       o->rate_gib, o->seconds, o->cpus, r->threshold);
	else if (o->leaf_only)
		printf("rstat-staleness --leaf-only: root -> leaf; leaf's page cache grows %.2f "
		       "GiB/s from %u updaters for %.1f s of virtual time, %u CPUs (threshold %ld); "
		       "a gated root reader every %u ms; %u seeded random schedules per design, "
		       "designs alternated\n", o->rate_gib, o->updaters, o->seconds, o->cpus,
		       r->threshold, o->sample_ms, o->seeds);
	else
		printf("rstat-staleness: root -> {leaf, sibling}; root's page cache grows %.2f GiB/s "
		       "for %.1f s of virtual time, 70 %% in the leaf from %u updaters, 20 %% in the "
		       "sibling, 10 %% in root's own pages; %u CPUs (threshold %ld); a gated root "
		       "reader and a gated leaf reader (memory.stat) every %u ms; %u seeded random "
		       "schedules per design, designs alternated\n", o->rate_gib, o->seconds,
		       o->updaters, o->cpus, r->threshold, o->sample_ms, o->seeds);
	printf("base variants (rstat-propagate set per design): %s\n", c->variants);
	st_designs_table(r, cells, &t);
	bench_table_print_text(stdout, &t);
	printf("thread 004: \"about 2 GiB below\" at 1 GiB/s over a 2 s wait\n");
	printf("What the figures are: virtual time and exact page counts of the model, no wall "
	       "time; the schedules are seeded random interleavings, not production timing.\n\n");
	bench_st_verdicts(r, &v);
	bench_verdict_print_text(stdout, &v.table);
}

static int st_main(int argc, char **argv)
{
	struct st_cli c = { 0 };   /* --csv is set only when given */
	struct bench_st_result r;
	int ret = st_parse(argc, argv, &c);

	if (ret)
		return bench_args_exit_status(ret);
	if ((ret = bench_st_run(&c.o, &r))) {
		fprintf(stderr, "rstat-staleness: run failed (%d)\n", ret);
		return 1;
	}
	if (c.json)
		st_print_json(&c, &r);
	else if (c.csv)
		st_print_csv(&r);
	else
		st_print_text(&c, &r);
	bench_st_result_free(&r);
	return 0;
}

static const struct bench_engine rstat_staleness = {
	.name = "rstat-staleness",
	.summary = "thread 004: root's reported NR_FILE_PAGES vs the truth while page cache "
		   "grows at 1 GiB/s under concurrent updaters, break vs continue (virtual time)",
	.main = st_main,
};
BENCH_REGISTER(rstat_staleness)
