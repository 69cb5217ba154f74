/* SPDX-License-Identifier: MIT */
/*
 * bench_node_read_drift.c - thread 002: "Global counters are always up to date",
 * so root reads move from the rstat aggregate onto node counters. How far is
 * each read from the truth, over virtual time, with updaters on every CPU?
 *
 * One host, --cpus CPUs (80: the thread's machine), one node of 64 GiB (so the
 * vmstat threshold reaches its cap, 125), variant node-stat=percpu (the kernel's
 * per-CPU node counters), the periodic works on: vmstat's 1 s fold, rstat's 2 s
 * flush. Each step (--step-ms of virtual time) runs one task per CPU that makes
 * --ops updates of NR_ACTIVE_ANON on the lruvecs of --memcgs memcgs (deltas in
 * -3..+4 pages from a fixed generator: deterministic), then the driver reads at a
 * quiescent point, and the clock advances by the step (the periodic works run).
 *
 * Reads, against the truth (the sum of every delta written):
 *  - node: node_page_state (the atomic; what thread 002 reads for root);
 *  - rstat: mem_cgroup_flush_stats(root) (threshold-gated), then
 *    memcg_page_state(root) (the flushed aggregate, mainline's root read);
 *  - snapshot: node_page_state_snapshot, exact on a quiescent host (the check).
 * Bounds: node, stat_threshold x CPUs (every CPU holds at most its threshold);
 * rstat, 64 x CPUs (the flush threshold) + 63 per CPU not yet batched, and when
 * the walk breaks below root (a child's atomic is past the threshold) the root's
 * gate stays shut until the 2 s periodic flush: the volume written in one
 * periodic-flush window (2 s plus a step) is added.
 * Schedules (--schedules N): the figures above come from the default schedule
 * (tasks in creation order). The same workload then runs again on a fresh host
 * under N seeded schedules, odd ones random, even ones PCT (depth 3), each step's
 * seed derived from (schedule, step). At a quiescent point the errors do not
 * depend on the order (each CPU's diff is its own updates'), so these runs add a
 * reader task on CPU 0 that reads both ways NRD_MID_READS times in the middle of
 * the step, wherever the schedule puts it. A read in the middle may also miss
 * the update each other CPU has in flight (the truth counts an update once it
 * returns): at most NRD_MAX_DELTA pages per CPU, added to both bounds for these
 * reads. The worst error of each reader over the default and the N schedules is
 * reported beside those bounds (the volume per step does not depend on the order).
 * All figures are pages and deterministic; no time is measured.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/memcgsim.h>
#include <memcgsim/rstat.h>
#include <memcgsim/vmstat.h>

#include "bench_node_read_drift.h"
#include "bench_util.h"
#include "bench_registry.h"

#define NRD_ITEM MSIM_NR_ACTIVE_ANON
#define NRD_NODE_GIB 64UL
#define NRD_MAX_DELTA 4        /* |delta| of one update: -3..+4 */
#define NRD_MID_READS 4        /* reads per step by the reader task (seeded schedules) */

struct nrd {
	unsigned int cpus, nmemcgs, ops, step_ms, seconds, schedules;
	unsigned int schedule;           /* 0: the default; k >= 1: seeded schedule k */
	struct msim_variants base;
	struct msim *m;
	struct msim_memcg **memcgs;
	struct msim_lruvec **lruvecs;
	unsigned int step;               /* the step the tasks run in */
	long truth;                      /* sum of every delta (tasks write in turn) */
	long *volume;                    /* [steps]: sum of |delta| per step */
	unsigned int steps, threshold;
	unsigned long rstat_flushes;     /* gated flushes the reader got through */
	double mid_node_err, mid_rstat_err; /* worst of the reader task's reads */
	/* [steps][2]: the node and rstat read errors of the default schedule's checks,
	 * the series `memcgsim report` plots */
	double *series;
	struct bench_nrd_summary s;
};

/* A fixed generator per (step, cpu, op): the figures never depend on a seed. */
static unsigned int nrd_hash(unsigned int a, unsigned int b, unsigned int c)
{
	uint64_t x = ((uint64_t)a * 0x9E3779B1u) ^ ((uint64_t)b << 20) ^ ((uint64_t)c << 40);

	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return (unsigned int)x;
}

static void updater(void *arg)
{
	struct nrd *r = arg;
	unsigned int cpu = msim_this_cpu();

	for (unsigned int i = 0; i < r->ops; i++) {
		unsigned int h = nrd_hash(r->step, cpu, i);
		long delta = (long)(h % 8) - 3;

		msim_mod_lruvec_state(r->lruvecs[(h >> 8) % r->nmemcgs], NRD_ITEM, delta);
		r->truth += delta;             /* deterministic: one task runs at a time */
		r->volume[r->step] += labs(delta);
	}
}

static int nrd_host(struct nrd *r)
{
	struct msim_config cfg;
	char err[256], name[32];
	int ret;

	msim_config_init(&cfg);
	cfg.nr_cpus = r->cpus;
	cfg.nr_nodes = 1;
	cfg.mode = MSIM_DETERMINISTIC;
	cfg.variants = r->base;
	bench_variant_set(&cfg.variants, "node-stat", MSIM_NODE_STAT_PERCPU);
	cfg.zone_managed_pages[MSIM_ZONE_NORMAL] = NRD_NODE_GIB << 18;
	ret = msim_create(&cfg, &r->m, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "node-read-drift: msim_create: %s\n", err);
		return ret;
	}
	msim_set_current_host(r->m);
	ret = msim_rstat_init(r->m, NULL);
	if (ret)
		return ret;
	r->memcgs = calloc(r->nmemcgs, sizeof(*r->memcgs));
	r->lruvecs = calloc(r->nmemcgs, sizeof(*r->lruvecs));
	if (!r->memcgs || !r->lruvecs)
		return -ENOMEM;
	for (unsigned int i = 0; i < r->nmemcgs; i++) {
		snprintf(name, sizeof(name), "job%u", i);
		ret = msim_memcg_create(msim_root_mem_cgroup(r->m), name, &r->memcgs[i]);
		if (ret)
			return ret;
		r->lruvecs[i] = msim_mem_cgroup_lruvec(r->m, r->memcgs[i], 0);
	}
	r->threshold = (unsigned int)msim_vmstat_node_stat_threshold(r->m, 0, 0);
	return 0;
}

static double abs_err(long truth, unsigned long read)
{
	return fabs((double)truth - (double)read);
}

/* The driver's reads at a quiescent point: each error against the truth. */
static void nrd_check(struct nrd *r)
{
	struct msim_memcg *root = msim_root_mem_cgroup(r->m);
	double e;

	e = abs_err(r->truth, msim_node_page_state(r->m, 0, NRD_ITEM));
	r->s.node_err_max = fmax(r->s.node_err_max, e);
	if (r->series && !r->schedule)
		r->series[2 * r->step] = e;
	e = abs_err(r->truth, msim_vmstat_node_page_state_snapshot(r->m, 0, NRD_ITEM));
	r->s.snapshot_err_max = fmax(r->s.snapshot_err_max, e);
	r->rstat_flushes += msim_mem_cgroup_flush_stats(root);
	e = abs_err(r->truth, msim_memcg_page_state(root, NRD_ITEM));
	r->s.rstat_err_max = fmax(r->s.rstat_err_max, e);
	if (r->series && !r->schedule)
		r->series[2 * r->step + 1] = e;
}

/* The largest volume written in any window of w steps. */
static double max_window(const struct nrd *r, unsigned int w)
{
	long best = 0;

	for (unsigned int i = 0; i < r->steps; i++) {
		long sum = 0;

		for (unsigned int j = i; j < r->steps && j < i + w; j++)
			sum += r->volume[j];
		if (sum > best)
			best = sum;
	}
	return (double)best;
}

/* Seeded schedules: reads in the middle of a step, wherever the schedule runs them. */
static void mid_reader(void *arg)
{
	struct nrd *r = arg;
	struct msim_memcg *root = msim_root_mem_cgroup(r->m);

	for (unsigned int i = 0; i < NRD_MID_READS; i++) {
		double e = abs_err(r->truth, msim_node_page_state(r->m, 0, NRD_ITEM));

		r->mid_node_err = fmax(r->mid_node_err, e);
		r->rstat_flushes += msim_mem_cgroup_flush_stats(root);
		e = abs_err(r->truth, msim_memcg_page_state(root, NRD_ITEM));
		r->mid_rstat_err = fmax(r->mid_rstat_err, e);
	}
}

/* Seeded schedule r->schedule for this step: odd ones random, even ones PCT. */
static int nrd_sched_set(struct nrd *r)
{
	struct msim_sched_opts so = {
		.strategy = r->schedule % 2 ? MSIM_STRAT_RANDOM : MSIM_STRAT_PCT,
		.seed = (uint64_t)r->schedule * 1000003u + r->step,
		.pct_depth = 3,
		.pct_steps_hint = r->cpus * r->ops,
	};

	return msim_sched_set(r->m, &so);
}

static int nrd_run(struct nrd *r)
{
	unsigned int hz = msim_config(r->m)->hz;
	uint64_t step_jiffies = (uint64_t)r->step_ms * hz / 1000;
	unsigned int window;

	if (!step_jiffies)
		step_jiffies = 1;
	for (r->step = 0; r->step < r->steps; r->step++) {
		for (unsigned int cpu = 0; cpu < r->cpus; cpu++)
			if (!msim_task_create(r->m, "updater", cpu, updater, r))
				return -ENOMEM;
		if (r->schedule && !msim_task_create(r->m, "reader", 0, mid_reader, r))
			return -ENOMEM;
		if (r->schedule && nrd_sched_set(r))
			return -EINVAL;
		if (msim_run(r->m))
			return -EINVAL;
		nrd_check(r);
		msim_clock_advance(r->m, step_jiffies);
	}
	/* 2 s of rstat's periodic flush plus the step in which it lands */
	window = (unsigned int)((2ULL * hz + step_jiffies - 1) / step_jiffies) + 1;
	r->s.node_bound = (double)r->threshold * r->cpus;
	r->s.rstat_bound = (double)(2 * MSIM_MEMCG_CHARGE_BATCH - 1) * r->cpus +
			   max_window(r, window);
	return 0;
}

/* ---- the thread's claim, judged ---- */

static const char *const nrd_fig_names[BENCH_NRD_NFIGS] = {
	[BENCH_NRD_F_NODE_ERR] = "node_err_max",
	[BENCH_NRD_F_NODE_BOUND] = "node_bound",
	[BENCH_NRD_F_RSTAT_ERR] = "rstat_err_max",
	[BENCH_NRD_F_RSTAT_BOUND] = "rstat_bound",
	[BENCH_NRD_F_SNAPSHOT_ERR] = "snapshot_err_max",
	[BENCH_NRD_F_SCHEDULES] = "schedules",
	[BENCH_NRD_F_SCHED_NODE_ERR] = "sched_node_err_max",
	[BENCH_NRD_F_SCHED_RSTAT_ERR] = "sched_rstat_err_max",
	[BENCH_NRD_F_SCHED_SNAPSHOT_ERR] = "sched_snapshot_err_max",
	[BENCH_NRD_F_SCHED_NODE_BOUND] = "sched_node_bound",
	[BENCH_NRD_F_SCHED_RSTAT_BOUND] = "sched_rstat_bound",
};

static const struct bench_verdict_row nrd_rows[] = {
	{
		.claim = "node counters are always up to date (a root read by them is exact)",
		.thread = { { "\"always up to date\"", 0, NAN, "" } },
		.ours = { { "worst node read error", BENCH_NRD_F_NODE_ERR, 0, "pages" } },
		.comparable_when = { { BENCH_NRD_F_SNAPSHOT_ERR, BENCH_VOP_EQ, 0 } },
		.holds_when = { { BENCH_NRD_F_NODE_ERR, BENCH_VOP_EQ, 0 } },
		.why = { [BENCH_VERDICT_DOES_NOT_HOLD] = "node_page_state reads the node atomic; "
							"up to stat_threshold per CPU waits in "
							"per-CPU diffs until a fold",
			 [BENCH_VERDICT_NOT_COMPARABLE] = "the snapshot is not exact: the truth "
							 "itself is in doubt" },
	},
	{
		.claim = "a node read stays within stat_threshold x CPUs of the truth",
		.thread = { { "(the kernel's bound, not the thread's)", 0, NAN, "" } },
		.ours = { { "worst", BENCH_NRD_F_NODE_ERR, 0, "pages" },
			  { "bound", BENCH_NRD_F_NODE_BOUND, 0, "pages" } },
		.comparable_when = { { BENCH_NRD_F_SNAPSHOT_ERR, BENCH_VOP_EQ, 0 } },
		.holds_when = { { BENCH_NRD_F_NODE_ERR, BENCH_VOP_LE, 1, BENCH_NRD_F_NODE_BOUND } },
	},
	{
		.claim = "a flushed rstat read stays within 127 x CPUs plus one periodic-flush "
			 "window of updates",
		.thread = { { "\"can be stale for seconds\"", 0, NAN, "" } },
		.ours = { { "worst", BENCH_NRD_F_RSTAT_ERR, 0, "pages" },
			  { "bound", BENCH_NRD_F_RSTAT_BOUND, 0, "pages" } },
		.holds_when = { { BENCH_NRD_F_RSTAT_ERR, BENCH_VOP_LE, 1, BENCH_NRD_F_RSTAT_BOUND } },
	},
	{
		.claim = "reading node counters makes root's stats more accurate than rstat",
		.thread = { { "\"more accurate\"", 0, NAN, "" } },
		.ours = { { "node worst", BENCH_NRD_F_NODE_ERR, 0, "pages" },
			  { "rstat worst", BENCH_NRD_F_RSTAT_ERR, 0, "pages" } },
		.comparable_when = { { BENCH_NRD_F_SNAPSHOT_ERR, BENCH_VOP_EQ, 0 } },
		.holds_when = { { BENCH_NRD_F_NODE_ERR, BENCH_VOP_LT, 1, BENCH_NRD_F_RSTAT_ERR } },
		.why = { [BENCH_VERDICT_HOLDS] = "in the worst case over this run; both lag, "
						"node by at most 1 s (the fold), rstat by up "
						"to 2 s (the periodic flush)",
			 [BENCH_VERDICT_DOES_NOT_HOLD] = "strictly more accurate or not at all: equal "
							"worst errors are no difference, a larger "
							"one is less accurate" },
	},
	{
		.claim = "over every schedule, a node read stays within (stat_threshold + the "
			 "update in flight) x CPUs",
		.thread = { { "(the kernel's bound, not the thread's)", 0, NAN, "" } },
		.ours = { { "schedules", BENCH_NRD_F_SCHEDULES, 0, "" },
			  { "worst", BENCH_NRD_F_SCHED_NODE_ERR, 0, "pages" },
			  { "bound", BENCH_NRD_F_SCHED_NODE_BOUND, 0, "pages" } },
		.comparable_when = { { BENCH_NRD_F_SCHEDULES, BENCH_VOP_GE, 1 },
				     { BENCH_NRD_F_SCHED_SNAPSHOT_ERR, BENCH_VOP_EQ, 0 } },
		.holds_when = { { BENCH_NRD_F_SCHED_NODE_ERR, BENCH_VOP_LE, 1,
				  BENCH_NRD_F_SCHED_NODE_BOUND } },
		.why = { [BENCH_VERDICT_NOT_COMPARABLE] = "no seeded schedule ran, or a snapshot "
							 "was not exact" },
	},
	{
		.claim = "over every schedule, a flushed rstat read stays within its bound plus "
			 "the updates in flight",
		.thread = { { "\"can be stale for seconds\"", 0, NAN, "" } },
		.ours = { { "schedules", BENCH_NRD_F_SCHEDULES, 0, "" },
			  { "worst", BENCH_NRD_F_SCHED_RSTAT_ERR, 0, "pages" },
			  { "bound", BENCH_NRD_F_SCHED_RSTAT_BOUND, 0, "pages" } },
		.comparable_when = { { BENCH_NRD_F_SCHEDULES, BENCH_VOP_GE, 1 } },
		.holds_when = { { BENCH_NRD_F_SCHED_RSTAT_ERR, BENCH_VOP_LE, 1,
				  BENCH_NRD_F_SCHED_RSTAT_BOUND } },
		.why = { [BENCH_VERDICT_NOT_COMPARABLE] = "no seeded schedule ran" },
	},
};

void bench_nrd_verdicts(const struct bench_nrd_summary *s, struct bench_nrd_verdicts *v)
{
	double *f = v->fig;

	f[BENCH_NRD_F_NONE] = 0;
	f[BENCH_NRD_F_NODE_ERR] = s->node_err_max;
	f[BENCH_NRD_F_NODE_BOUND] = s->node_bound;
	f[BENCH_NRD_F_RSTAT_ERR] = s->rstat_err_max;
	f[BENCH_NRD_F_RSTAT_BOUND] = s->rstat_bound;
	f[BENCH_NRD_F_SNAPSHOT_ERR] = s->snapshot_err_max;
	f[BENCH_NRD_F_SCHEDULES] = s->schedules;
	f[BENCH_NRD_F_SCHED_NODE_ERR] = s->sched_node_err_max;
	f[BENCH_NRD_F_SCHED_RSTAT_ERR] = s->sched_rstat_err_max;
	f[BENCH_NRD_F_SCHED_SNAPSHOT_ERR] = s->sched_snapshot_err_max;
	f[BENCH_NRD_F_SCHED_NODE_BOUND] = s->sched_node_bound;
	f[BENCH_NRD_F_SCHED_RSTAT_BOUND] = s->sched_rstat_bound;
	v->table = (struct bench_verdict_table){
		.reference = "thread 002",
		.rows = nrd_rows,
		.nrows = sizeof(nrd_rows) / sizeof(nrd_rows[0]),
		.fig_names = nrd_fig_names,
		.fig = v->fig,
		.nfig = BENCH_NRD_NFIGS,
	};
}

static void print_text(const struct nrd *r, const struct bench_opts *a)
{
	struct bench_nrd_verdicts v;

	printf("node-read drift (thread 002): %u simulated CPUs, %u memcgs, %u steps of %u ms, "
	       "%u updates per CPU per step\n", r->cpus, r->nmemcgs, r->steps, r->step_ms, r->ops);
	bench_print_base_variants(a, "node-stat=percpu forced");
	printf("  node stat_threshold %u; truth at the end %ld pages; gated root flushes %lu\n",
	       r->threshold, r->truth, r->rstat_flushes);
	printf("  %-34s %10s %10s\n", "root read of NR_ACTIVE_ANON", "worst", "bound");
	printf("  %-34s %10.0f %10.0f\n", "node counter (thread 002)", r->s.node_err_max,
	       r->s.node_bound);
	printf("  %-34s %10.0f %10.0f\n", "flushed rstat (mainline)", r->s.rstat_err_max,
	       r->s.rstat_bound);
	printf("  %-34s %10.0f %10s\n", "node snapshot (check)", r->s.snapshot_err_max, "0");
	printf("  over the default and %u seeded random/PCT schedules (with reads mid-step; "
	       "bounds + %d x CPUs in flight):\n", r->schedules, NRD_MAX_DELTA);
	printf("  %-34s %10.0f %10.0f\n", "node counter, worst", r->s.sched_node_err_max,
	       r->s.sched_node_bound);
	printf("  %-34s %10.0f %10.0f\n", "flushed rstat, worst", r->s.sched_rstat_err_max,
	       r->s.sched_rstat_bound);
	printf("  %-34s %10.0f %10s\n\n", "node snapshot, worst", r->s.sched_snapshot_err_max,
	       "0");
	bench_nrd_verdicts(&r->s, &v);
	bench_verdict_print_text(stdout, &v.table);
}

static void print_json(const struct nrd *r, const struct bench_opts *a)
{
	struct bench_nrd_verdicts v;
	struct bench_json j;

	bench_json_begin(&j, stdout, "node-read-drift", "002",
			 "pages, deterministic; no time is measured", a);
	bench_json_kuint(&j, "cpus", r->cpus);
	bench_json_kuint(&j, "memcgs", r->nmemcgs);
	bench_json_kuint(&j, "steps", r->steps);
	bench_json_kuint(&j, "threshold", r->threshold);
	bench_json_kint(&j, "truth", r->truth);
	bench_json_kuint(&j, "rstat_flushes", r->rstat_flushes);
	bench_json_kuint(&j, "node_err_max", (unsigned long long)r->s.node_err_max);
	bench_json_kuint(&j, "node_bound", (unsigned long long)r->s.node_bound);
	bench_json_kuint(&j, "rstat_err_max", (unsigned long long)r->s.rstat_err_max);
	bench_json_kuint(&j, "rstat_bound", (unsigned long long)r->s.rstat_bound);
	bench_json_kuint(&j, "snapshot_err_max", (unsigned long long)r->s.snapshot_err_max);
	bench_json_kuint(&j, "schedules", r->schedules);
	bench_json_kuint(&j, "sched_node_err_max", (unsigned long long)r->s.sched_node_err_max);
	bench_json_kuint(&j, "sched_rstat_err_max", (unsigned long long)r->s.sched_rstat_err_max);
	bench_json_kuint(&j, "sched_snapshot_err_max",
			 (unsigned long long)r->s.sched_snapshot_err_max);
	bench_json_kuint(&j, "sched_node_bound", (unsigned long long)r->s.sched_node_bound);
	bench_json_kuint(&j, "sched_rstat_bound", (unsigned long long)r->s.sched_rstat_bound);
	bench_nrd_verdicts(&r->s, &v);
	bench_verdict_print_json(&j, "verdicts", &v.table);
	/* the default schedule's error at each step's check, over virtual time */
	bench_json_arr_begin(&j, "series_columns");
	bench_json_kstr(&j, NULL, "t_ms");
	bench_json_kstr(&j, NULL, "node_err_pages");
	bench_json_kstr(&j, NULL, "rstat_err_pages");
	bench_json_arr_end(&j);
	bench_json_arr_begin(&j, "series");
	for (unsigned int i = 0; r->series && i < r->steps; i++) {
		bench_json_arr_begin(&j, NULL);
		bench_json_kuint(&j, NULL, (unsigned long long)i * r->step_ms);
		bench_json_kdbl(&j, NULL, r->series[2 * i]);
		bench_json_kdbl(&j, NULL, r->series[2 * i + 1]);
		bench_json_arr_end(&j);
	}
	bench_json_arr_end(&j);
	bench_json_obj_end(&j);
	bench_json_finish(&j);
}

static int nrd_parse(struct nrd *r, int argc, char **argv, struct bench_opts *a)
{
	const struct bench_arg opts[] = {
		BENCH_OPT_UINT("--cpus", "N", &r->cpus, 1, MSIM_MAX_CPUS,
			       "simulated CPUs (default 80, the thread's machine)"),
		BENCH_OPT_UINT("--memcgs", "N", &r->nmemcgs, 1, 4096, "memcgs under root (default 8)"),
		BENCH_OPT_UINT("--ops", "N", &r->ops, 1, 100000,
			       "updates per CPU per step (default 64)"),
		BENCH_OPT_UINT("--step-ms", "MS", &r->step_ms, 1, 10000,
			       "virtual time per step (default 100)"),
		BENCH_OPT_UINT("--seconds", "S", &r->seconds, 1, 3600,
			       "virtual seconds (default 10; quick 3)"),
		BENCH_OPT_UINT("--schedules", "N", &r->schedules, 0, 1000,
			       "seeded random/PCT schedules after the default one (default 1; "
			      "quick 1; PCT runs are slower)"),
		BENCH_OPT_END,
	};
	const struct bench_spec spec = {
		.name = "node-read-drift",
		.summary = "thread 002: the error of a root read by node counters (per-CPU vmstat)\n"
			   "and by flushed rstat, against the truth, over virtual time.",
		.description = "One host with node-stat=percpu; one updater task per CPU per step;\n"
			       "the driver reads at each quiescent point. Pages, deterministic.",
		.default_reps = 1,
		.quick_reps = 1,
		.options = opts,
	};
	int ret;

	r->cpus = 80;
	r->nmemcgs = 8;
	r->ops = 64;
	r->step_ms = 100;
	r->schedules = UINT32_MAX;
	ret = bench_parse_args(&spec, argc, argv, a);
	if (ret)
		return ret;
	r->base = a->variants;
	if (!r->seconds)
		r->seconds = a->quick ? 3 : 10;
	if (r->schedules == UINT32_MAX)
		r->schedules = 1;
	r->steps = (unsigned int)((uint64_t)r->seconds * 1000 / r->step_ms);
	if (!r->steps)
		r->steps = 1;
	return 0;
}

/* The host and its memcgs gone, the counts of a run back to 0: ready for another. */
static void nrd_reset(struct nrd *r)
{
	bench_host_destroy(r->m);
	free(r->memcgs);
	free(r->lruvecs);
	r->m = NULL;
	r->memcgs = NULL;
	r->lruvecs = NULL;
	r->truth = 0;
	r->rstat_flushes = 0;
	r->mid_node_err = 0;
	r->mid_rstat_err = 0;
	memset(r->volume, 0, r->steps * sizeof(long));
}

static void nrd_free(struct nrd *r)
{
	if (r->volume)
		nrd_reset(r);
	free(r->volume);
	free(r->series);
	free(r);
}

/*
 * The N seeded schedules, each on a fresh host; the default run's figures (r->s)
 * stay, and the worst of each reader over every run goes into r->s.sched_*.
 */
static int nrd_schedules(struct nrd *r)
{
	struct bench_nrd_summary def = r->s;
	unsigned long flushes = r->rstat_flushes;
	long truth = r->truth;
	double node = def.node_err_max, rstat = def.rstat_err_max, snap = def.snapshot_err_max;

	for (r->schedule = 1; r->schedule <= r->schedules; r->schedule++) {
		nrd_reset(r);
		memset(&r->s, 0, sizeof(r->s));
		if (nrd_host(r) || nrd_run(r))
			return 1;
		node = fmax(node, fmax(r->s.node_err_max, r->mid_node_err));
		rstat = fmax(rstat, fmax(r->s.rstat_err_max, r->mid_rstat_err));
		snap = fmax(snap, r->s.snapshot_err_max);
	}
	r->s = def;
	r->rstat_flushes = flushes;
	r->truth = truth;
	r->s.schedules = r->schedules;
	r->s.sched_node_err_max = node;
	r->s.sched_rstat_err_max = rstat;
	r->s.sched_snapshot_err_max = snap;
	r->s.sched_node_bound = r->s.node_bound + (double)NRD_MAX_DELTA * r->cpus;
	r->s.sched_rstat_bound = r->s.rstat_bound + (double)NRD_MAX_DELTA * r->cpus;
	return 0;
}

static int node_read_drift_main(int argc, char **argv)
{
	struct nrd *r = calloc(1, sizeof(*r));
	struct bench_opts a;
	int ret;

	if (!r)
		return 1;
	ret = nrd_parse(r, argc, argv, &a);
	if (ret) {
		free(r);
		return bench_args_exit_status(ret);
	}
	r->volume = calloc(r->steps, sizeof(long));
	r->series = calloc(2 * (size_t)r->steps, sizeof(double));
	ret = !r->volume || !r->series || nrd_host(r) || nrd_run(r) || nrd_schedules(r) ? 1 : 0;
	if (!ret && a.json)
		print_json(r, &a);
	else if (!ret)
		print_text(r, &a);
	nrd_free(r);
	return ret;
}

static const struct bench_engine node_read_drift_bench = {
	.name = "node-read-drift",
	.summary = "thread 002: node-counter vs flushed-rstat root read error over time, 80 CPUs",
	.main = node_read_drift_main,
};
BENCH_REGISTER(node_read_drift_bench);
