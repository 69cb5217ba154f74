/* SPDX-License-Identifier: MIT */
/*
 * bench_rstat_staleness.c - "page cache grows at 1 GiB/s" (thread 004): root's
 * reported NR_FILE_PAGES against the true sum over virtual time, under
 * rstat-propagate=break and =continue, after the early-exit race of
 * rstat-early-exit has left root at the threshold.
 *
 * Each design gets its own host (N CPUs, HZ 1000, root -> leaf):
 *  1. the race, scripted as in scenario rstat-early-exit at t = 0: a forced root
 *     flush resets leaf, a batch lands, the flush resets root at a later CPU;
 *     then N batches leave leaf = 64(N+1), root = 64N;
 *  2. growth: every jiffy, leaf's page cache grows by rate/HZ bytes in folios of
 *     --folio-pages pages (mod_lruvec_state(NR_FILE_PAGES) on node 0, from the
 *     driver, CPU 0); the periodic forced root flush runs every 2 s of virtual
 *     time (first at t = 2 s);
 *  3. every --sample-ms a reader does what a threshold-gated consumer does:
 *     mem_cgroup_flush_stats(root), then memcg_page_state(root, NR_FILE_PAGES).
 *     gap = true - reported.
 *
 * Deterministic: no wall time is measured; every figure is exact and repeatable.
 * Output: a table (max and mean gap per design), --csv (time series), --json.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/memcgsim.h>

#include "bench_rstat_staleness.h"
#include "bench_util.h"
#include "scenario.h"

struct st_opts {
	unsigned int cpus;
	double seconds;
	double rate_gib;
	long folio_pages;
	unsigned int sample_ms;
	bool csv, json;
	struct msim_variants base;   /* --preset/--variant; rstat-propagate per design */
};

struct st_series {
	const char *design;
	unsigned int n;
	long *t_ms;
	long long *true_b, *reported_b;
	long long max_gap, sum_gap;
	unsigned long long skipped, flushed, periodic;
};

struct st_race {
	struct msim_memcg *root, *leaf;
	long applied;
	int calls;
};

static void st_updater(void *arg)
{
	struct st_race *r = arg;

	for (int i = 0; i < r->calls; i++) {
		r->applied += 1;
		msim_mod_memcg_state(r->leaf, MSIM_NR_FILE_PAGES, 1);
	}
}

static void st_rootupd(void *arg)
{
	struct st_race *r = arg;

	r->applied += 1;
	msim_mod_memcg_state(r->root, MSIM_NR_FILE_PAGES, 1);
}

static void st_flusher(void *arg)
{
	struct st_race *r = arg;

	msim_mem_cgroup_flush_stats_forced(r->root);
}

/* Phase 1: the early-exit race of rstat-early-exit (see its comment). */
static int st_race(struct msim *m, struct st_race *r)
{
	const int b = MSIM_MEMCG_CHARGE_BATCH, n = (int)msim_nr_cpus(m);
	struct msim_task *u, *ru, *f;
	int ret;

	r->calls = (2 * n + 1) * b;
	u = msim_task_create(m, "updater", 1, st_updater, r);
	ru = msim_task_create(m, "rootupd", (unsigned int)n - 1, st_rootupd, r);
	f = msim_task_create(m, "flusher", 0, st_flusher, r);
	if (!u || !ru || !f)
		return -ENOMEM;
	if ((ret = msim_run_task(m, ru)) ||
	    (ret = msim_run_until(m, u, "rstat.update.done", (unsigned int)(n * b))) ||
	    (ret = msim_run_until(m, f, "rstat.flush.cpu_start", 3)) ||
	    (ret = msim_run_until(m, u, "rstat.update.done", (unsigned int)b)) ||
	    (ret = msim_run_task(m, f)))
		return ret;
	return msim_run(m);
}

/* The reader at virtual time t: a gated root flush, then root's NR_FILE_PAGES. */
static void st_sample(struct st_series *s, struct msim_memcg *root, uint64_t t, unsigned int hz,
		      long long total_pages)
{
	long long rep, gap;

	msim_mem_cgroup_flush_stats(root);
	rep = (long long)msim_memcg_page_state(root, MSIM_NR_FILE_PAGES);
	gap = (total_pages - rep) * (long long)MSIM_PAGE_SIZE;
	s->t_ms[s->n] = (long)(t * 1000 / hz);
	s->true_b[s->n] = total_pages * (long long)MSIM_PAGE_SIZE;
	s->reported_b[s->n] = rep * (long long)MSIM_PAGE_SIZE;
	s->n++;
	s->sum_gap += gap;
	if (gap > s->max_gap)
		s->max_gap = gap;
}

/* Phase 2 and 3: leaf's page cache grows every jiffy; the reader samples. */
static void st_grow(const struct st_opts *o, struct msim *m, unsigned int hz,
		    const struct st_race *r, struct st_series *s)
{
	uint64_t ticks = (uint64_t)(o->seconds * hz);
	long per_sample = (long)o->sample_ms * (long)hz / 1000;
	long long total_pages = r->applied, target;

	if (per_sample < 1)
		per_sample = 1;
	s->n = 0;
	for (uint64_t t = 1; t <= ticks; t++) {
		struct msim_lruvec *lv = msim_mem_cgroup_lruvec(m, r->leaf, 0);

		msim_clock_advance(m, 1);
		/* growth since t = 0: rate * t, in folios */
		target = r->applied + (long long)(o->rate_gib * (1ULL << 30) / MSIM_PAGE_SIZE *
						  (double)t / hz);
		while (total_pages + o->folio_pages <= target) {
			msim_mod_lruvec_state(lv, MSIM_NR_FILE_PAGES, o->folio_pages);
			total_pages += o->folio_pages;
		}
		if (t % (uint64_t)per_sample == 0)
			st_sample(s, r->root, t, hz, total_pages);
	}
}

static int st_run(const struct st_opts *o, enum msim_rstat_propagate design,
		  struct st_series *s)
{
	struct msim_config cfg;
	struct msim *m;
	struct st_race r = { 0 };
	struct msim_rstat_counters c;
	char err[256];
	int ret;

	msim_config_init(&cfg);
	cfg.nr_cpus = o->cpus;
	cfg.variants = o->base;
	cfg.variants.rstat_propagate = design;
	if ((ret = msim_create(&cfg, &m, err, sizeof(err)))) {
		fprintf(stderr, "rstat-staleness: %s\n", err);
		return ret;
	}
	msim_set_current_host(m);
	if ((ret = msim_rstat_init(m, NULL)))
		goto out;
	r.root = msim_root_mem_cgroup(m);
	if ((ret = msim_memcg_create(r.root, "leaf", &r.leaf)) || (ret = st_race(m, &r)))
		goto out;
	msim_rstat_counters_reset(m);
	st_grow(o, m, cfg.hz, &r, s);
	msim_rstat_counters(m, &c);
	s->skipped = c.flush_skipped;
	s->flushed = c.flushes - c.periodic_flushes;
	s->periodic = c.periodic_flushes;
out:
	msim_destroy(m);
	return ret;
}

/* Returns 0 to run, 1 after --help, 2 on a usage error (bench_util's convention). */
static int st_parse(int argc, char **argv, struct st_opts *o, struct msim_bench_args *a)
{
	unsigned int folio_pages = 16;
	const struct msim_arg opts[] = {
		MSIM_OPT_UINT("--cpus", "N", &o->cpus, 3, MSIM_MAX_CPUS,
			      "simulated CPUs, at least 3 (default 4; threshold 64 x N)"),
		MSIM_OPT_DOUBLE("--seconds", "S", &o->seconds, 0, 60,
				"virtual seconds of growth (default 4, at most 60)"),
		MSIM_OPT_DOUBLE("--rate-gib", "R", &o->rate_gib, 0, 1024,
				"page cache growth in GiB/s (default 1)"),
		MSIM_OPT_UINT("--folio-pages", "P", &folio_pages, 1, 1UL << 18,
			      "pages per NR_FILE_PAGES update (default 16)"),
		MSIM_OPT_UINT("--sample-ms", "MS", &o->sample_ms, 1, 60000,
			      "reader period in virtual ms (default 10)"),
		MSIM_OPT_FLAG("--csv", &o->csv, "the time series as CSV instead of the table"),
		MSIM_OPT_END,
	};
	const struct msim_bench_spec spec = {
		.name = "rstat-staleness",
		.summary = "thread 004: root's reported NR_FILE_PAGES vs the truth while page cache "
			   "grows, rstat-propagate break vs continue (virtual time, exact)",
		.description = "Deterministic: no wall time is measured, --reps and --seed have no\n"
			       "effect. The designs set rstat-propagate; every other variant comes\n"
			       "from --preset/--variant.",
		.default_reps = 1,
		.quick_reps = 1,
		.options = opts,
	};
	int ret;

	*o = (struct st_opts){ .cpus = 4, .seconds = 4.0, .rate_gib = 1.0, .sample_ms = 10 };
	ret = msim_bench_parse_args(&spec, argc, argv, a);
	o->folio_pages = folio_pages;
	o->json = a->json;
	o->base = a->variants;
	return ret;
}

/* ---- the thread's two claims ---- */

static const char *const st_fig_names[MSIM_ST_NFIGS] = {
	[MSIM_ST_F_GAP_BREAK] = "break_max_gap_bytes",
	[MSIM_ST_F_WANT] = "rate_x_window_bytes",
	[MSIM_ST_F_GAP_BREAK_MIB] = "break_max_gap_mib",
	[MSIM_ST_F_WANT_MIB] = "rate_x_window_mib",
	[MSIM_ST_F_GAP_CONT] = "continue_max_gap_bytes",
	[MSIM_ST_F_BOUND] = "threshold_plus_one_update_bytes",
	[MSIM_ST_F_GAP_CONT_PAGES] = "continue_max_gap_pages",
	[MSIM_ST_F_THRESHOLD_PAGES] = "threshold_pages",
	[MSIM_ST_F_FOLIO_PAGES] = "folio_pages",
	[MSIM_ST_F_WINDOW_S] = "window_s",
};

/*
 * break: "a two-second wait can leave the reported usage about 2 GiB below the
 * actual usage" at 1 GiB/s, i.e. a gap of rate x FLUSH_TIME (or x the run, if
 * shorter), within 10 %. continue: root stays within the threshold, give or take
 * the one update (folio) that crosses it.
 */
static const struct msim_verdict_row st_rows[] = {
	{
		.claim = "break: \"a two-second wait can leave the reported usage about 2 GiB "
			 "below the actual usage\" (rate x the periodic flush's 2 s, within 10%)",
		.thread = { { "gap", MSIM_ST_F_WANT_MIB, 0, "MiB" },
			    { "rate x", MSIM_ST_F_WINDOW_S, 0, "s" } },
		.ours = { { "max gap", MSIM_ST_F_GAP_BREAK_MIB, 0, "MiB" } },
		.holds_when = { { MSIM_ST_F_GAP_BREAK, MSIM_VOP_GE, 0.9, MSIM_ST_F_WANT },
				{ MSIM_ST_F_GAP_BREAK, MSIM_VOP_LE, 1.1, MSIM_ST_F_WANT } },
		.why = { [MSIM_VERDICT_HOLDS] = "root stays stuck from the race until the periodic "
						"flush, while the page cache grows" },
	},
	{
		.claim = "continue keeps root within the threshold (give or take the one update "
			 "that crosses it)",
		.thread = { { "threshold", MSIM_ST_F_THRESHOLD_PAGES, 0, "pages" } },
		.ours = { { "max gap", MSIM_ST_F_GAP_CONT_PAGES, 0, "pages" },
			  { "one update", MSIM_ST_F_FOLIO_PAGES, 0, "pages" } },
		.holds_when = { { MSIM_ST_F_GAP_CONT, MSIM_VOP_LE, 1, MSIM_ST_F_BOUND } },
	},
};

void msim_st_verdicts(const struct msim_st_summary *s, struct msim_st_verdicts *v)
{
	double secs = s->seconds < MSIM_FLUSH_TIME_SECONDS ? s->seconds : MSIM_FLUSH_TIME_SECONDS;
	double want = s->rate_gib * secs * (double)(1ULL << 30);
	long long thr = (long long)s->cpus * MSIM_MEMCG_CHARGE_BATCH;
	double *f = v->fig;

	f[MSIM_ST_F_NONE] = 0;
	f[MSIM_ST_F_GAP_BREAK] = (double)s->max_gap_break;
	f[MSIM_ST_F_WANT] = want;
	f[MSIM_ST_F_GAP_BREAK_MIB] = s->max_gap_break / 1048576.0;
	f[MSIM_ST_F_WANT_MIB] = want / 1048576.0;
	f[MSIM_ST_F_GAP_CONT] = (double)s->max_gap_continue;
	f[MSIM_ST_F_BOUND] = (double)((thr + s->folio_pages) * (long long)MSIM_PAGE_SIZE);
	f[MSIM_ST_F_GAP_CONT_PAGES] = (double)s->max_gap_continue / MSIM_PAGE_SIZE;
	f[MSIM_ST_F_THRESHOLD_PAGES] = (double)thr;
	f[MSIM_ST_F_FOLIO_PAGES] = (double)s->folio_pages;
	f[MSIM_ST_F_WINDOW_S] = secs;
	v->table = (struct msim_verdict_table){
		.reference = "thread 004",
		.rows = st_rows,
		.nrows = sizeof(st_rows) / sizeof(st_rows[0]),
		.fig_names = st_fig_names,
		.fig = v->fig,
		.nfig = MSIM_ST_NFIGS,
	};
}

static void st_judge(const struct st_opts *o, const struct st_series *s,
		     struct msim_st_verdicts *v)
{
	const struct msim_st_summary sum = {
		.cpus = o->cpus, .seconds = o->seconds, .rate_gib = o->rate_gib,
		.folio_pages = o->folio_pages, .max_gap_break = s[0].max_gap,
		.max_gap_continue = s[1].max_gap,
	};

	msim_st_verdicts(&sum, v);
}

/* ---- output ---- */

static void st_json_design(struct msim_json *j, const struct st_series *s)
{
	msim_json_obj_begin(j, NULL);
	msim_json_kstr(j, "design", s->design);
	msim_json_kint(j, "max_gap_bytes", s->max_gap);
	msim_json_kint(j, "mean_gap_bytes", s->n ? s->sum_gap / s->n : 0);
	msim_json_kuint(j, "gated_flushes_skipped", s->skipped);
	msim_json_kuint(j, "flushes", s->flushed);
	msim_json_kuint(j, "periodic_flushes", s->periodic);
	msim_json_arr_begin(j, "series");
	for (unsigned int i = 0; i < s->n; i++) {
		msim_json_arr_begin(j, NULL);
		msim_json_kint(j, NULL, s->t_ms[i]);
		msim_json_kint(j, NULL, s->true_b[i]);
		msim_json_kint(j, NULL, s->reported_b[i]);
		msim_json_arr_end(j);
	}
	msim_json_arr_end(j);
	msim_json_obj_end(j);
}

static void st_print_json(const struct st_opts *o, const char *variants,
			  const struct st_series *s, int n)
{
	struct msim_st_verdicts v;
	struct msim_json j;

	msim_json_init(&j, stdout);
	msim_json_obj_begin(&j, NULL);
	msim_json_kstr(&j, "bench", "rstat-staleness");
	msim_json_kstr(&j, "base_variants", variants);
	msim_json_kuint(&j, "cpus", o->cpus);
	msim_json_kdbl(&j, "seconds", o->seconds);
	msim_json_kdbl(&j, "rate_gib_s", o->rate_gib);
	msim_json_kint(&j, "folio_pages", o->folio_pages);
	msim_json_kuint(&j, "sample_ms", o->sample_ms);
	msim_json_arr_begin(&j, "designs");
	for (int d = 0; d < n; d++)
		st_json_design(&j, &s[d]);
	msim_json_arr_end(&j);
	st_judge(o, s, &v);
	msim_verdict_print_json(&j, "verdicts", &v.table);
	msim_json_arr_begin(&j, "series_columns");
	msim_json_kstr(&j, NULL, "t_ms");
	msim_json_kstr(&j, NULL, "true_bytes");
	msim_json_kstr(&j, NULL, "reported_bytes");
	msim_json_arr_end(&j);
	msim_json_obj_end(&j);
	msim_json_finish(&j);
}

static void st_print_csv(const struct st_series *s, int n)
{
	printf("design,t_ms,true_bytes,reported_bytes,gap_bytes\n");
	for (int d = 0; d < n; d++)
		for (unsigned int i = 0; i < s[d].n; i++)
			printf("%s,%ld,%lld,%lld,%lld\n", s[d].design, s[d].t_ms[i], s[d].true_b[i],
			       s[d].reported_b[i], s[d].true_b[i] - s[d].reported_b[i]);
}

static void st_print_text(const struct st_opts *o, const char *variants,
			  const struct st_series *s, int n)
{
	struct msim_st_verdicts v;

	printf("rstat-staleness: page cache of leaf grows %.2f GiB/s for %.1f s of virtual "
	       "time, %u CPUs (threshold %u), after the early-exit race\n", o->rate_gib,
	       o->seconds, o->cpus, o->cpus * MSIM_MEMCG_CHARGE_BATCH);
	printf("base variants (rstat-propagate set per design): %s\n", variants);
	printf("%-10s %14s %14s %10s %8s %9s\n", "design", "max gap MiB", "mean gap MiB",
	       "skipped", "flushes", "periodic");
	for (int d = 0; d < n; d++)
		printf("%-10s %14.1f %14.1f %10llu %8llu %9llu\n", s[d].design,
		       s[d].max_gap / 1048576.0,
		       s[d].n ? (double)s[d].sum_gap / s[d].n / 1048576.0 : 0.0, s[d].skipped,
		       s[d].flushed, s[d].periodic);
	printf("\n");
	st_judge(o, s, &v);
	msim_verdict_print_text(stdout, &v.table);
}

static int st_main(int argc, char **argv)
{
	static const enum msim_rstat_propagate designs[2] = { MSIM_RSTAT_PROPAGATE_BREAK,
							      MSIM_RSTAT_PROPAGATE_CONTINUE };
	struct st_series s[2];
	struct st_opts o;
	struct msim_bench_args a;
	unsigned int cap;
	char vbuf[512];
	int ret;

	ret = st_parse(argc, argv, &o, &a);
	if (ret)
		return msim_args_exit_status(ret);
	msim_variants_format(&o.base, vbuf, sizeof(vbuf));
	cap = (unsigned int)(o.seconds * 1000 / o.sample_ms) + 2;
	memset(s, 0, sizeof(s));
	for (int d = 0; d < 2 && !ret; d++) {
		s[d].design = d ? "continue" : "break";
		s[d].t_ms = calloc(cap, sizeof(long));
		s[d].true_b = calloc(cap, sizeof(long long));
		s[d].reported_b = calloc(cap, sizeof(long long));
		ret = s[d].t_ms && s[d].true_b && s[d].reported_b ? st_run(&o, designs[d], &s[d])
								  : -ENOMEM;
	}
	if (!ret && o.json)
		st_print_json(&o, vbuf, s, 2);
	else if (!ret && o.csv)
		st_print_csv(s, 2);
	else if (!ret)
		st_print_text(&o, vbuf, s, 2);
	for (int d = 0; d < 2; d++) {
		free(s[d].t_ms);
		free(s[d].true_b);
		free(s[d].reported_b);
	}
	return ret ? 1 : 0;
}

static const struct msim_bench rstat_staleness = {
	.name = "rstat-staleness",
	.summary = "thread 004: root's reported NR_FILE_PAGES vs the truth while page cache "
		   "grows at 1 GiB/s, break vs continue (virtual time, exact)",
	.main = st_main,
};
MSIM_BENCH(rstat_staleness)
