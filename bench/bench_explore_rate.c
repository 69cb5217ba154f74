/* SPDX-License-Identifier: MIT */
/*
 * explore-rate: how many schedules a second the explorer runs, per strategy
 * (random, PCT, DFS), on rstat-early-exit or any race (--race NAME). Each run is
 * the explorer's whole cycle: a fresh host, the race's setup, the run under the
 * strategy, the check, the teardown.
 *
 * Three paths, alternated in one process: the explorer's (tasks start on stacks
 * that finished tasks left in a pool, src/sim/ctx.c; a park whose next
 * decision is foretold takes the fast step, src/sim/sched.c), the same with
 * every decision listed (msim__sched_no_fast_step: the decision in the task, as
 * before the fast step) and its old one (a stack mapped, guarded, faulted in
 * and unmapped per task: msim_explore_opts fresh_stacks). All must find the same
 * runs: the bench checks the violation count, the first violation and its trace
 * hash (tests/race/test_explore_paths.c checks every run's hash). On the
 * explorer's path the runs' host part (create and setup, teardown and destroy) is
 * timed inside the runs too (src/sim/explore.h): what a host reset would remove,
 * from the same runs as the rate it is set against. Times are the driver
 * thread's CPU time, so other processes on a shared machine do not count; the
 * goals are 20000 schedules a second with random and PCT, then 200000 with PCT.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/race.h>

#include "bench_explore_rate.h"
#include "bench_util.h"
#include "bench_registry.h"
#include "sim/explore.h"
#include "sim/sched.h"

static const enum msim_strategy strat[BENCH_ER_NSTRATS] = {
	MSIM_STRAT_RANDOM, MSIM_STRAT_PCT, MSIM_STRAT_DFS,
};

/* The paths of one strategy: its designs d = ER_PATHS * strategy + path. */
enum { ER_POOLED, ER_FRESH, ER_NO_FAST, ER_PATHS };
#define ER_NDESIGNS (ER_PATHS * BENCH_ER_NSTRATS)

static const char *const path_name[ER_PATHS] = {
	[ER_POOLED] = "pooled stacks", [ER_FRESH] = "fresh stacks",
	[ER_NO_FAST] = "no fast step",
};

struct er_run {
	const struct bench_er_config *c;
	struct bench_er_result *r;
	const struct msim_race *race;
	struct msim_race_result *res;
	double rate[ER_NDESIGNS][BENCH_ER_MAX_REPS];
	double host_share[ER_NDESIGNS][BENCH_ER_MAX_REPS]; /* pooled: the host part of the wall time */
	bool seen[ER_NDESIGNS];
	struct bench_er_strategy first[ER_PATHS * BENCH_ER_NSTRATS]; /* what each path found */
	struct bench_progress prog;
	int error;                    /* the first exploration that failed: no figures */
};

/*
 * One exploration of the race under strategy s on a path: 0 and its schedules
 * per CPU second in *rate, or an error, said on stderr: the exploration failed,
 * or ran something else than asked (MSIM_SCHEDULE turns it into one replay).
 */
static int explore_once(struct er_run *e, unsigned int s, bool fresh, struct bench_er_strategy *out,
			double *rate)
{
	struct msim_race_opts o;
	struct msim_config cfg;
	char err[512] = "";
	uint64_t t0;
	int ret;

	msim_race_opts_init(&o, strat[s]);
	o.runs = e->c->runs;
	o.seed = e->c->seed;
	o.fresh_stacks = fresh;
	msim_config_init(&cfg);
	t0 = bench_cpu_ns();
	if (e->race->sides && e->race->sides[0].name)
		ret = msim_race_run_side(e->race, e->race->sides[0].name, &o, e->res, err,
					 sizeof(err));
	else
		ret = msim_race_run(e->race, &cfg, &o, e->res, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "explore-rate: %s\n", err);
		return ret;
	}
	if (e->res->no_verdict) {
		fprintf(stderr, "explore-rate: %s %s: %s\n", e->race->name,
			msim_strategy_name(strat[s]), e->res->outcome);
		return -EINVAL;
	}
	*out = (struct bench_er_strategy){
		.strategy = strat[s],
		.runs = e->res->ex.runs,
		.violations = e->res->ex.violations,
		.first_violation_run = e->res->ex.first_violation_run,
		.first_trace_hash = e->res->ex.trace_hash,
	};
	*rate = (double)e->res->ex.runs / ((double)(bench_cpu_ns() - t0) / 1e9);
	return 0;
}

/* Design d: strategy d / ER_PATHS on path d % ER_PATHS. */
static double sample(unsigned int d, unsigned int rep, void *ctx)
{
	struct er_run *e = ctx;
	struct bench_er_strategy found;
	unsigned int path = d % ER_PATHS;
	uint64_t t0;
	int ret;

	e->rate[d][rep] = 0;
	if (e->error)
		return 0;   /* one failure is enough: no figure will be printed */
	msim__sched_no_fast_step = path == ER_NO_FAST;
	msim__explore_time_host = path == ER_POOLED;
	msim__explore_host_ns = 0;
	t0 = bench_now_ns();
	ret = explore_once(e, d / ER_PATHS, path == ER_FRESH, &found, &e->rate[d][rep]);
	e->host_share[d][rep] = (double)msim__explore_host_ns / (double)(bench_now_ns() - t0);
	msim__sched_no_fast_step = false;
	msim__explore_time_host = false;
	if (ret) {
		e->error = ret;
		return 0;
	}
	if (!e->seen[d]) {
		e->first[d] = found;
		e->seen[d] = true;
	}
	bench_progress(&e->prog, "%s %s, repetition %u",
			    msim_strategy_name(strat[d / ER_PATHS]), path_name[path], rep + 1);
	return e->rate[d][rep];
}

static bool same_finding(const struct bench_er_strategy *a, const struct bench_er_strategy *b)
{
	return a->runs == b->runs && a->violations == b->violations &&
	       a->first_violation_run == b->first_violation_run &&
	       a->first_trace_hash == b->first_trace_hash;
}

int bench_er_run(const struct bench_er_config *c, struct bench_er_result *r)
{
	struct er_run *e = calloc(1, sizeof(*e));
	double *dummy = NULL;
	uint64_t t0 = bench_now_ns(), cpu0 = bench_cpu_ns();

	memset(r, 0, sizeof(*r));
	r->cfg = *c;
	if (r->cfg.reps > BENCH_ER_MAX_REPS)
		r->cfg.reps = BENCH_ER_MAX_REPS;
	if (!r->cfg.reps)
		r->cfg.reps = 1;
	if (!e || !(e->res = calloc(1, sizeof(*e->res))) ||
	    !(dummy = calloc(ER_NDESIGNS * (size_t)r->cfg.reps, sizeof(double)))) {
		free(dummy);
		free(e ? e->res : NULL);
		free(e);
		return -ENOMEM;
	}
	e->c = &r->cfg;
	e->r = r;
	e->race = msim_race_find(c->race);
	if (!e->race) {
		fprintf(stderr, "explore-rate: no race named %s (memcgsim list)\n", c->race);
		free(dummy);
		free(e->res);
		free(e);
		return -EINVAL;
	}
	bench_progress_init(&e->prog, "explore-rate", c->progress);
	bench_alternate(ER_NDESIGNS, r->cfg.reps, sample, e, dummy, &e->prog);
	bench_progress_done(&e->prog);
	if (e->error) {
		int ret = e->error;

		free(dummy);
		free(e->res);
		free(e);
		return ret;
	}
	for (unsigned int s = 0; s < BENCH_ER_NSTRATS; s++) {
		unsigned int d = ER_PATHS * s;

		r->s[s] = e->first[d + ER_POOLED];
		r->s[s].pooled_per_s = bench_median(e->rate[d + ER_POOLED], r->cfg.reps);
		r->s[s].fresh_per_s = bench_median(e->rate[d + ER_FRESH], r->cfg.reps);
		r->s[s].no_fast_per_s = bench_median(e->rate[d + ER_NO_FAST], r->cfg.reps);
		r->s[s].paths_agree =
			same_finding(&e->first[d + ER_POOLED], &e->first[d + ER_FRESH]) &&
			same_finding(&e->first[d + ER_POOLED], &e->first[d + ER_NO_FAST]);
	}
	if (r->s[1].pooled_per_s > 0)
		r->host_us = bench_median(e->host_share[ER_PATHS * 1 + ER_POOLED], r->cfg.reps) *
			     1e6 / r->s[1].pooled_per_s;
	r->wall_s = (double)(bench_now_ns() - t0) / 1e9;
	r->cpu_s = (double)(bench_cpu_ns() - cpu0) / 1e9;
	free(dummy);
	free(e->res);
	free(e);
	return 0;
}

/* ---- the goal ---- */

static const char *const er_fig_names[BENCH_ER_NFIGS] = {
	[BENCH_ER_F_RANDOM] = "random_per_s",
	[BENCH_ER_F_PCT] = "pct_per_s",
	[BENCH_ER_F_RANDOM_SPEEDUP] = "random_pooled_per_fresh",
	[BENCH_ER_F_PCT_SPEEDUP] = "pct_pooled_per_fresh",
	[BENCH_ER_F_AGREE] = "paths_agree",
	[BENCH_ER_F_HOST_US] = "host_us",
	[BENCH_ER_F_PCT_US] = "pct_run_us",
	[BENCH_ER_F_PCT_NO_HOST] = "pct_per_s_host_free",
};

static const struct bench_verdict_row er_rows[] = {
	{
		.claim = "the explorer runs at least 20000 schedules a second with random and PCT",
		.thread = { { "schedules", 0, BENCH_ER_GOAL, "/s" } },
		.ours = { { "random", BENCH_ER_F_RANDOM, 0, "/s" }, { "PCT", BENCH_ER_F_PCT, 0, "/s" },
			  { "random, pooled / fresh stacks", BENCH_ER_F_RANDOM_SPEEDUP, 0, "x" },
			  { "PCT", BENCH_ER_F_PCT_SPEEDUP, 0, "x" } },
		.holds_when = { { BENCH_ER_F_RANDOM, BENCH_VOP_GE, BENCH_ER_GOAL },
				{ BENCH_ER_F_PCT, BENCH_VOP_GE, BENCH_ER_GOAL } },
		.why = { [BENCH_VERDICT_DOES_NOT_HOLD] = "this machine's figure, per CPU second of "
							"the driver: a sanitized or debug build, "
							"or a larger race, falls short" },
	},
	{
		.claim = "PCT explores at least 200000 schedules a second (5 us a run)",
		.thread = { { "schedules", 0, BENCH_ER_GOAL_PCT, "/s" } },
		.ours = { { "PCT", BENCH_ER_F_PCT, 0, "/s" }, { "a run", BENCH_ER_F_PCT_US, 0, "us" },
			  { "its host's part", BENCH_ER_F_HOST_US, 0, "us" } },
		.holds_when = { { BENCH_ER_F_PCT, BENCH_VOP_GE, BENCH_ER_GOAL_PCT } },
		.note = "the goal was set for rstat-early-exit on this 2-core machine, idle; "
			"\"its host's part\" is the time of a run spent building and tearing "
			"down its host (the next row)",
	},
	{
		.claim = "with its host's build and teardown free (a host reset), PCT would "
			 "reach 200000 schedules a second",
		.thread = { { "schedules", 0, BENCH_ER_GOAL_PCT, "/s" } },
		.ours = { { "PCT, host free", BENCH_ER_F_PCT_NO_HOST, 0, "/s" } },
		.comparable_when = { { BENCH_ER_F_HOST_US, BENCH_VOP_LT, 1, BENCH_ER_F_PCT_US } },
		.holds_when = { { BENCH_ER_F_PCT_NO_HOST, BENCH_VOP_GE, BENCH_ER_GOAL_PCT } },
		.why = { [BENCH_VERDICT_DOES_NOT_HOLD] = "the run's own steps and its check "
							"alone take more than 5 us: a host "
							"reset is not enough",
			 [BENCH_VERDICT_NOT_COMPARABLE] = "no host part measured below a "
							 "whole run" },
		.note = "an estimate: a run less its host's part, timed in the same runs "
			"(create and setup, teardown and destroy, on the monotonic clock; the "
			"rate is per CPU second)",
	},
	{
		.claim = "both paths explore the same schedules (same runs, violations, first "
			 "violation and its trace hash)",
		.thread = { { "same", 0, 1, "" } },
		.ours = { { "agree", BENCH_ER_F_AGREE, 0, "" } },
		.holds_when = { { BENCH_ER_F_AGREE, BENCH_VOP_EQ, 1 } },
		.note = "the pool changes where a task's stack is, never what runs on it; "
			"tests/race/test_explore_paths.c compares every run's trace hash",
	},
};

void bench_er_verdicts(const struct bench_er_result *r, struct bench_er_verdicts *v)
{
	bool agree = true;

	for (unsigned int s = 0; s < BENCH_ER_NSTRATS; s++)
		agree &= r->s[s].paths_agree;
	v->fig[BENCH_ER_F_NONE] = 0;
	v->fig[BENCH_ER_F_RANDOM] = r->s[0].pooled_per_s;
	v->fig[BENCH_ER_F_PCT] = r->s[1].pooled_per_s;
	v->fig[BENCH_ER_F_RANDOM_SPEEDUP] = bench_ratio(r->s[0].pooled_per_s,
							r->s[0].fresh_per_s);
	v->fig[BENCH_ER_F_PCT_SPEEDUP] = bench_ratio(r->s[1].pooled_per_s, r->s[1].fresh_per_s);
	v->fig[BENCH_ER_F_AGREE] = agree ? 1 : 0;
	v->fig[BENCH_ER_F_HOST_US] = r->host_us > 0 ? r->host_us : NAN;
	v->fig[BENCH_ER_F_PCT_US] = r->s[1].pooled_per_s > 0 ? 1e6 / r->s[1].pooled_per_s : NAN;
	/* NaN (not comparable) where the host's part is not below a run */
	v->fig[BENCH_ER_F_PCT_NO_HOST] = v->fig[BENCH_ER_F_HOST_US] < v->fig[BENCH_ER_F_PCT_US]
		? 1e6 / (v->fig[BENCH_ER_F_PCT_US] - v->fig[BENCH_ER_F_HOST_US]) : NAN;
	v->table = (struct bench_verdict_table){
		.reference = "the goal",
		.rows = er_rows,
		.nrows = sizeof(er_rows) / sizeof(er_rows[0]),
		.fig_names = er_fig_names,
		.fig = v->fig,
		.nfig = BENCH_ER_NFIGS,
	};
}

/* ---- output ---- */

static void print_text(const struct bench_er_result *r)
{
	struct bench_er_verdicts v;

	printf("explore-rate: schedules a second on %s, %u runs a measurement, seed %llu, "
	       "medians of %u\n", r->cfg.race, r->cfg.runs, (unsigned long long)r->cfg.seed,
	       r->cfg.reps);
	printf("(driver CPU time; each run: fresh host, setup, run, check, teardown)\n\n");
	printf("%-8s %16s %16s %8s %14s %8s %11s %18s %6s\n", "strategy", "pooled stacks/s",
	       "fresh stacks/s", "ratio", "no fast step/s", "runs", "violations",
	       "first (run, hash)", "same");
	for (unsigned int s = 0; s < BENCH_ER_NSTRATS; s++) {
		const struct bench_er_strategy *x = &r->s[s];

		printf("%-8s %16.0f %16.0f %7.2fx %14.0f %8u %11u %6d %011llx %6s\n",
		       msim_strategy_name(x->strategy), x->pooled_per_s, x->fresh_per_s,
		       bench_ratio(x->pooled_per_s, x->fresh_per_s), x->no_fast_per_s,
		       x->runs, x->violations,
		       x->first_violation_run, (unsigned long long)(x->first_trace_hash >> 20),
		       x->paths_agree ? "yes" : "NO");
	}
	printf("\nthe PCT runs' host part (create and setup, teardown and destroy): %.2f us a "
	       "run, %.0f%% of it\n", r->host_us,
	       r->s[1].pooled_per_s > 0 ? 100.0 * r->host_us * r->s[1].pooled_per_s / 1e6 : 0.0);
	printf("\nsimulator: %.1f s wall, %.1f s CPU\n\n", r->wall_s, r->cpu_s);
	bench_er_verdicts(r, &v);
	bench_verdict_print_text(stdout, &v.table);
}

static void print_json(const struct bench_er_result *r)
{
	struct bench_er_verdicts v;
	struct bench_json j;

	bench_json_init(&j, stdout);
	bench_json_obj_begin(&j, NULL);
	bench_json_kstr(&j, "bench", "explore-rate");
	bench_json_kstr(&j, "race", r->cfg.race);
	bench_json_kuint(&j, "runs", r->cfg.runs);
	bench_json_kuint(&j, "reps", r->cfg.reps);
	bench_json_kuint(&j, "seed", r->cfg.seed);
	bench_json_kdbl(&j, "sim_wall_s", r->wall_s);
	bench_json_kdbl(&j, "sim_cpu_s", r->cpu_s);
	bench_json_kdbl(&j, "host_us", r->host_us);
	bench_json_arr_begin(&j, "strategies");
	for (unsigned int s = 0; s < BENCH_ER_NSTRATS; s++) {
		const struct bench_er_strategy *x = &r->s[s];

		bench_json_obj_begin(&j, NULL);
		bench_json_kstr(&j, "strategy", msim_strategy_name(x->strategy));
		bench_json_kdbl(&j, "pooled_stacks_per_s", x->pooled_per_s);
		bench_json_kdbl(&j, "fresh_stacks_per_s", x->fresh_per_s);
		bench_json_kdbl(&j, "no_fast_step_per_s", x->no_fast_per_s);
		bench_json_kuint(&j, "runs", x->runs);
		bench_json_kuint(&j, "violations", x->violations);
		bench_json_kint(&j, "first_violation_run", x->first_violation_run);
		bench_json_kuint(&j, "trace_hash", x->first_trace_hash);
		bench_json_kbool(&j, "paths_agree", x->paths_agree);
		bench_json_obj_end(&j);
	}
	bench_json_arr_end(&j);
	bench_er_verdicts(r, &v);
	bench_verdict_print_json(&j, "verdicts", &v.table);
	bench_json_obj_end(&j);
	bench_json_finish(&j);
}

static int explore_rate_main(int argc, char **argv)
{
	struct bench_er_config c = { .race = "rstat-early-exit", .progress = true };
	unsigned int runs = 0;
	const char *race = NULL;
	const struct bench_arg opts[] = {
		BENCH_OPT_STRING("--race", "NAME", &race, "the race explored (default rstat-early-exit)"),
		BENCH_OPT_UINT("--runs", "N", &runs, 1, 100000000,
			       "runs a measurement (default 20000; DFS stops when exhausted)"),
		BENCH_OPT_END,
	};
	static const struct bench_spec spec_base = {
		.name = "explore-rate",
		.summary = "schedules explored per second per strategy, pooled vs fresh task stacks",
		.description = "Explores a race (rstat-early-exit) under random, PCT and DFS, each on "
			       "the explorer's path\n(task stacks pooled, the fast step), with no "
			       "fast step, and on its old one (a\nstack mapped per task), "
			       "alternated, and checks all found the same runs. Figures\nare "
			       "schedules per CPU second of the driver.",
		.default_reps = 3,
		.quick_reps = 1,
	};
	struct bench_spec spec = spec_base;
	struct bench_opts a;
	struct bench_er_result r;
	int ret;

	spec.options = opts;
	ret = bench_parse_args(&spec, argc, argv, &a);
	if (ret)
		return bench_args_exit_status(ret);
	c.race = race ? race : c.race;
	c.runs = runs ? runs : a.quick ? 500 : 20000;
	c.reps = a.reps;
	c.seed = a.seed;
	if (bench_er_run(&c, &r))
		return 1;
	if (a.json)
		print_json(&r);
	else
		print_text(&r);
	return 0;
}

static const struct bench_engine explore_rate_bench = {
	.name = "explore-rate",
	.summary = "explorer speed: schedules/s per strategy, pooled vs fresh task stacks",
	.main = explore_rate_main,
};
BENCH_REGISTER(explore_rate_bench);
