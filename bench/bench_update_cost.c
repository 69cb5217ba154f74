/* SPDX-License-Identifier: MIT */
/*
 * update-cost (goal: a depth-2 leaf update under 15 ns concurrent, 25 ns
 * deterministic): nanoseconds per memcg stat update of a leaf two levels deep
 * (root -> leaf, 8 CPUs, mainline variants), measured three ways, alternated in
 * one process, medians:
 *
 *  - concurrent: msim_mod_memcg_state() on the driver thread of a concurrent
 *    mode host: the model's lookups, dying redirect and rstat walk, its yield
 *    points costing one branch each;
 *  - det: the same call inside the only task of a deterministic host driven by
 *    msim_run_task: every yield point is a scheduler step, which the fast step
 *    records in place, its decision (this task again) foretold (src/sim/sched.c
 *    fast_step);
 *  - det, the decision in the task: the same with the task taking the driver's
 *    decision itself at every yield point and, picked again, going on with no
 *    stack switch (decide_in_task: how every step ran before the fast step);
 *  - det, a switch every step: the same with the task parking at every yield
 *    point, the scheduler deciding and switching back (how every step ran
 *    before; the runs are the same);
 *  - raw: a plain loop of the same counter writes, what the update would cost
 *    without the model: the per-CPU state add, the llist on-list test, per level
 *    the flushable test, the per-CPU count and, every 64, the atomic add.
 *
 * No flush runs, in any of them, so after the first 512 pages the leaf is
 * flushable and every update stops its walk there (rstat-propagate=break),
 * the steady state between two periodic flushes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/memcgsim.h>
#include <memcgsim/rstat.h>
#include <memcgsim/script.h>

#include "bench_update_cost.h"
#include "bench_util.h"
#include "bench_registry.h"
#include "sim/sched.h"

#define CPUS 8
#define BATCH 64                         /* MEMCG_CHARGE_BATCH */
#define THRESHOLD (BATCH * CPUS)         /* memcg_vmstats_needs_flush() */

struct uc_ctx {
	unsigned long updates;
	struct msim_variants base;
	struct msim_memcg *leaf;         /* of the host being timed */
	double det_ns;
	unsigned long steps_per_update;
	double resumes_per_update[3];    /* by enum det_path */
	double fast_per_update;          /* steps the fast step took, per update */
};

/* How a deterministic step runs: its bench column. */
enum det_path { DET_FAST, DET_SWITCH, DET_DECIDE };

/* ---- the model ---- */

static struct msim *host_new(const struct msim_variants *base, enum msim_run_mode mode,
			     struct msim_memcg **leaf)
{
	struct msim_config cfg;
	struct msim *m;
	char err[256];

	msim_config_init(&cfg);
	cfg.nr_cpus = CPUS;
	cfg.mode = mode;
	cfg.variants = *base;
	if (msim_create(&cfg, &m, err, sizeof(err))) {
		fprintf(stderr, "update-cost: msim_create: %s\n", err);
		return NULL;
	}
	msim_set_current_host(m);
	if (msim_rstat_init(m, NULL) ||
	    msim_memcg_create(msim_root_mem_cgroup(m), "leaf", leaf)) {
		bench_host_destroy(m);
		return NULL;
	}
	return m;
}

static void update_loop(struct msim_memcg *leaf, unsigned long n)
{
	for (unsigned long i = 1; i <= n; i++)
		msim_mod_memcg_state(leaf, MSIM_MEMCG_SOCK, (i & 1) ? 1 : -1);
}

static double concurrent_ns(struct uc_ctx *c)
{
	struct msim *m = host_new(&c->base, MSIM_CONCURRENT, &c->leaf);
	uint64_t t0;
	double ns;

	if (!m)
		return -1;
	t0 = bench_cpu_ns();
	update_loop(c->leaf, c->updates);
	ns = (double)(bench_cpu_ns() - t0) / (double)c->updates;
	bench_host_destroy(m);
	return ns;
}

/* The only task of a deterministic host: times its own updates. */
static void det_task(void *arg)
{
	struct uc_ctx *c = arg;
	unsigned long n = c->updates / 10;   /* each yield is a scheduler step */
	uint64_t t0 = bench_cpu_ns();

	update_loop(c->leaf, n);
	c->det_ns = (double)(bench_cpu_ns() - t0) / (double)n;
}

static double det_ns(struct uc_ctx *c, enum det_path path)
{
	struct msim *m = host_new(&c->base, MSIM_DETERMINISTIC, &c->leaf);
	struct msim_task *t;
	int ret;

	if (!m)
		return -1;
	c->det_ns = -1;
	t = msim_task_create(m, "update", 0, det_task, c);
	msim__sched_always_switch = path == DET_SWITCH;
	msim__sched_no_fast_step = path == DET_DECIDE;
	ret = t ? msim_run_task(m, t) : -1;
	msim__sched_always_switch = false;
	msim__sched_no_fast_step = false;
	if (ret) {
		c->det_ns = -1;
	} else {
		c->steps_per_update = (unsigned long)(msim_sched_steps(m) / (c->updates / 10));
		/* beyond the one that starts the task */
		c->resumes_per_update[path] =
			(double)(msim__sched_resumes(m) - 1) / (double)(c->updates / 10);
		if (path == DET_FAST)
			c->fast_per_update = (double)msim__sched_fast_steps(m) /
					     (double)(c->updates / 10);
	}
	bench_host_destroy(m);
	return c->det_ns;
}

/* ---- the same counter writes, plain ---- */

struct raw_level {
	long stats_updates;                              /* the level's atomic */
	long pcpu_updates[CPUS];                         /* statc->stats_updates */
	long pcpu_state[CPUS][64];                       /* statc->state[] */
};

static double raw_ns(struct uc_ctx *c)
{
	static struct raw_level lvl[2];                  /* leaf, root */
	static long lnode;                               /* the leaf's llist node, CPU 0 */
	const unsigned int cpu = 0, idx = 7;
	uint64_t t0;
	double ns;

	memset(lvl, 0, sizeof(lvl));
	lnode = 0;
	t0 = bench_cpu_ns();
	for (unsigned long i = 1; i <= c->updates; i++) {
		long v = (i & 1) ? 1 : -1;

		lvl[0].pcpu_state[cpu][idx] += v;                     /* this_cpu_add */
		if (msim_quiet_load(&lnode, MSIM_RELAXED) == 0)       /* llist_on_list */
			msim_quiet_store(&lnode, 1, MSIM_RELAXED);    /* claim + llist_add */
		for (unsigned int l = 0; l < 2; l++) {
			long n;

			if (msim_quiet_load(&lvl[l].stats_updates, MSIM_RELAXED) > THRESHOLD)
				break;
			n = ++lvl[l].pcpu_updates[cpu];
			if (n < BATCH)
				continue;
			lvl[l].pcpu_updates[cpu] = 0;
			msim_quiet_fetch_add(&lvl[l].stats_updates, n, MSIM_SEQ_CST);
		}
		__asm__ volatile("" ::: "memory");   /* one update at a time, as the model does */
	}
	ns = (double)(bench_cpu_ns() - t0) / (double)c->updates;
	return ns;
}

static double sample(unsigned int design, unsigned int rep, void *arg)
{
	struct uc_ctx *c = arg;

	(void)rep;
	if (design == 0)
		return concurrent_ns(c);
	if (design == 1)
		return raw_ns(c);
	return det_ns(c, design == 2 ? DET_FAST : design == 3 ? DET_SWITCH : DET_DECIDE);
}

/* ---- the goal ---- */

static const char *const uc_fig_names[BENCH_UC_NFIGS] = {
	[BENCH_UC_F_CONCURRENT] = "concurrent_ns",
	[BENCH_UC_F_DET] = "det_ns",
	[BENCH_UC_F_RAW] = "raw_ns",
	[BENCH_UC_F_CONC_PER_RAW] = "concurrent_per_raw",
	[BENCH_UC_F_DET_PER_RAW] = "det_per_raw",
	[BENCH_UC_F_DET_RESUMES] = "det_switches_per_update",
	[BENCH_UC_F_DET_SWITCH] = "det_switch_every_step_ns",
	[BENCH_UC_F_DET_DECIDE] = "det_decision_in_task_ns",
};

static const struct bench_verdict_row uc_rows[] = {
	{
		.claim = "a depth-2 update costs under 15 ns in concurrent mode",
		.thread = { { "update", 0, 15, "ns" } },
		.ours = { { "update", BENCH_UC_F_CONCURRENT, 0, "ns" },
			  { "of the plain loop", BENCH_UC_F_CONC_PER_RAW, 0, "x" } },
		.holds_when = { { BENCH_UC_F_CONCURRENT, BENCH_VOP_LT, 15 } },
		.note = "the lookups, dying redirect and walk inlined across files (release "
			"builds link with LTO); per-CPU counters of the update path; outside a "
			"deterministic task the walk runs its plain form (no yield checks)",
	},
	{
		.claim = "a depth-2 update costs under 25 ns in deterministic mode, no task "
			 "switch taken",
		.thread = { { "update", 0, 25, "ns" } },
		.ours = { { "update", BENCH_UC_F_DET, 0, "ns" },
			  { "of the plain loop", BENCH_UC_F_DET_PER_RAW, 0, "x" },
			  { "stack switches per update", BENCH_UC_F_DET_RESUMES, 0, "" },
			  { "with a switch every step", BENCH_UC_F_DET_SWITCH, 0, "ns" },
			  { "deciding in the task", BENCH_UC_F_DET_DECIDE, 0, "ns" } },
		.holds_when = { { BENCH_UC_F_DET, BENCH_VOP_LT, 25 },
				{ BENCH_UC_F_DET_RESUMES, BENCH_VOP_LT, 0.001 } },
		.note = "every yield point of the update is a scheduler step; the fast step "
			"foretells the decision (this task again) and records the step in place, "
			"no stack switch: the point's hit count, the trace hash, the step count "
			"and the schedule string's run (docs/benches.md has the profile)",
	},
};

void bench_uc_verdicts(const struct bench_uc_summary *s, struct bench_uc_verdicts *v)
{
	v->fig[BENCH_UC_F_NONE] = 0;
	v->fig[BENCH_UC_F_CONCURRENT] = s->concurrent;
	v->fig[BENCH_UC_F_DET] = s->det;
	v->fig[BENCH_UC_F_RAW] = s->raw;
	v->fig[BENCH_UC_F_CONC_PER_RAW] = bench_ratio(s->concurrent, s->raw);
	v->fig[BENCH_UC_F_DET_PER_RAW] = bench_ratio(s->det, s->raw);
	v->fig[BENCH_UC_F_DET_RESUMES] = s->det_resumes;
	v->fig[BENCH_UC_F_DET_SWITCH] = s->det_switch;
	v->fig[BENCH_UC_F_DET_DECIDE] = s->det_decide;
	v->table = (struct bench_verdict_table){
		.reference = "the scale and speed goals (docs/benches.md)",
		.rows = uc_rows,
		.nrows = sizeof(uc_rows) / sizeof(uc_rows[0]),
		.fig_names = uc_fig_names,
		.fig = v->fig,
		.nfig = BENCH_UC_NFIGS,
	};
}

/* ---- printing ---- */

static void print_text(const struct bench_opts *a, const struct bench_uc_summary *s)
{
	struct bench_uc_verdicts v;

	printf("update-cost: one memcg stat update, root -> leaf, %u CPUs, no flush (median of "
	       "%u; this machine's CPU time)\n", CPUS, a->reps);
	printf("  model, concurrent mode           %8.1f ns   (%.1fx the plain loop)\n",
	       s->concurrent, bench_ratio(s->concurrent, s->raw));
	printf("  model, deterministic, one task   %8.1f ns   (%.1fx; %lu scheduler steps per "
	       "update, %.3f fast, %.3f stack switches)\n", s->det,
	       bench_ratio(s->det, s->raw), s->steps_per_update, s->det_fast_steps,
	       s->det_resumes);
	printf("    the same, deciding in the task %8.1f ns   (%.1fx; %.3f stack switches per "
	       "update)\n", s->det_decide, bench_ratio(s->det_decide, s->raw),
	       s->det_decide_resumes);
	printf("    the same, a switch every step  %8.1f ns   (%.1fx; %.3f stack switches per "
	       "update)\n", s->det_switch, bench_ratio(s->det_switch, s->raw),
	       s->det_switch_resumes);
	printf("  plain loop of the same writes    %8.1f ns\n\n", s->raw);
	bench_uc_verdicts(s, &v);
	bench_verdict_print_text(stdout, &v.table);
}

static void print_json(const struct bench_opts *a, const struct bench_uc_summary *s)
{
	struct bench_uc_verdicts v;
	struct bench_json j;

	bench_json_init(&j, stdout);
	bench_json_obj_begin(&j, NULL);
	bench_json_kstr(&j, "bench", "update-cost");
	bench_json_kuint(&j, "reps", a->reps);
	bench_json_kuint(&j, "cpus", CPUS);
	bench_json_kdbl(&j, "concurrent_ns", s->concurrent);
	bench_json_kdbl(&j, "det_ns", s->det);
	bench_json_kdbl(&j, "raw_ns", s->raw);
	bench_json_kuint(&j, "det_steps_per_update", s->steps_per_update);
	bench_json_kdbl(&j, "det_switches_per_update", s->det_resumes);
	bench_json_kdbl(&j, "det_fast_steps_per_update", s->det_fast_steps);
	bench_json_kdbl(&j, "det_decision_in_task_ns", s->det_decide);
	bench_json_kdbl(&j, "det_decision_in_task_switches_per_update", s->det_decide_resumes);
	bench_json_kdbl(&j, "det_switch_every_step_ns", s->det_switch);
	bench_json_kdbl(&j, "det_switch_every_step_switches_per_update", s->det_switch_resumes);
	bench_uc_verdicts(s, &v);
	bench_verdict_print_json(&j, "verdicts", &v.table);
	bench_json_obj_end(&j);
	bench_json_finish(&j);
}

static int update_cost_main(int argc, char **argv)
{
	static const struct bench_spec spec = {
		.name = "update-cost",
		.summary = "ns per memcg stat update: concurrent, deterministic, plain loop",
		.description = "One memcg stat update of a depth-2 leaf, in concurrent mode, in a\n"
			       "deterministic task (the fast step, the decision in the task, and a\n"
			       "stack switch every step as before), and as a plain loop of the same\n"
			       "counter writes, alternated in one process. Figures are this\n"
			       "machine's CPU time.",
		.default_reps = 5,
		.quick_reps = 1,
	};
	struct bench_opts a;
	struct bench_progress pr;
	struct uc_ctx c;
	double *samples;
	int ret = bench_parse_args(&spec, argc, argv, &a);

	if (ret)
		return bench_args_exit_status(ret);
	c = (struct uc_ctx){ .updates = a.quick ? 200000 : 5000000, .base = a.variants };
	samples = calloc(5 * (size_t)a.reps, sizeof(double));
	if (!samples)
		return 1;
	bench_progress_init(&pr, spec.name, true);
	bench_alternate(5, a.reps, sample, &c, samples, &pr);
	bench_progress_done(&pr);
	struct bench_uc_summary s = {
		.concurrent = bench_median(samples, a.reps),
		.raw = bench_median(samples + a.reps, a.reps),
		.det = bench_median(samples + 2 * a.reps, a.reps),
		.steps_per_update = c.steps_per_update,
		.det_switch = bench_median(samples + 3 * a.reps, a.reps),
		.det_resumes = c.resumes_per_update[DET_FAST],
		.det_switch_resumes = c.resumes_per_update[DET_SWITCH],
		.det_decide = bench_median(samples + 4 * a.reps, a.reps),
		.det_decide_resumes = c.resumes_per_update[DET_DECIDE],
		.det_fast_steps = c.fast_per_update,
	};
	if (a.json)
		print_json(&a, &s);
	else
		print_text(&a, &s);
	free(samples);
	return 0;
}

static const struct bench_engine update_cost_bench = {
	.name = "update-cost",
	.summary = "ns per memcg stat update: concurrent, deterministic, a plain loop beside",
	.main = update_cost_main,
};
BENCH_REGISTER(update_cost_bench);
