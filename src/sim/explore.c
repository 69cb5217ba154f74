/* SPDX-License-Identifier: MIT */
/*
 * explore.c - run a scenario under many schedules and look for a violation.
 *
 * Each run gets a fresh host: setup() creates the tasks, the strategy picks every
 * step, check() judges the end state. Runs are independent and deterministic, so
 * a violation is reproduced by its seed (random, PCT: run i uses seed + i, and
 * `--runs 1 --seed S` repeats the run that used S) or, for any strategy, by its
 * schedule string. PCT needs the expected length of a run for its change points:
 * one uncounted calibration run under the canonical schedule measures it, so it
 * depends on the scenario alone, never on an earlier run.
 *
 * DFS (explore_dfs.c) is stateless model checking with a preemption bound: each
 * run follows a prefix of choices that the run before it computed. DPOR
 * (explore_dpor.c) is the same with no bound and with partial-order reduction:
 * a run it stops because nothing new can follow is pruned, not judged.
 *
 * The parts: the environment (MSIM_SCHEDULE turns every exploration into one
 * replay), PCT calibration, one run on a fresh host, its verdict, and the loop.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <memcgsim/explore.h>
#include <memcgsim/lockdep.h>

#include "ctx.h"
#include "explore.h"
#include "explore_dfs.h"
#include "explore_dpor.h"
#include "storebuf.h"
#include "fingerprint.h"

/* What every part of one exploration reads. */
struct explore {
	const struct msim_explore_target *target;
	const struct msim_config *base;
	const struct msim_explore_opts *o;
	struct msim_explore_result *res;
	uint64_t steps_hint;          /* PCT: the calibrated length of a run */
	struct msim__dfs_state dfs;   /* DFS: the prefix the next run follows */
	struct msim__dpor dpor;       /* DPOR: the tree, across runs */
	char why[512];                /* the last run's violation reason, "" if none */
	bool options_cut;             /* some decision dropped options (sched.c) */
};

__thread bool msim__explore_time_host;
__thread uint64_t msim__explore_host_ns;

/* The monotonic clock in ns when the host part is timed (explore.h), else 0. */
static uint64_t host_clock(void)
{
	struct timespec ts;

	if (!msim__explore_time_host)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- the environment and the options ---- */

/* MSIM_SCHEDULE set: msim_sched_set() makes every run a replay of it. */
static bool schedule_from_env(void)
{
	const char *env = getenv("MSIM_SCHEDULE");

	return env && *env;
}

/* The environment replaces what o asked for: another strategy, or another string. */
static bool env_replaces(const struct msim_explore_opts *o)
{
	return schedule_from_env() &&
	       (o->strategy != MSIM_STRAT_REPLAY || !o->schedule ||
		strcmp(o->schedule, getenv("MSIM_SCHEDULE")));
}

static int check_args(const struct msim_explore_target *target, const struct msim_config *base,
		      const struct msim_explore_opts *o)
{
	if (!target || !target->setup || !base || base->mode != MSIM_DETERMINISTIC)
		return -EINVAL;
	if (o->strategy == MSIM_STRAT_SCRIPT)
		return -EINVAL;
	return 0;
}

/* A replay is one run, whatever runs says. */
static unsigned int planned_runs(const struct msim_explore_opts *o, bool replay_env)
{
	if (o->strategy == MSIM_STRAT_REPLAY || replay_env)
		return 1;
	return o->runs ? o->runs : 1;
}

/* ---- PCT calibration ---- */

/* One run under the canonical schedule (option 0 at every step): its length. */
static int calibrate(const struct msim_explore_target *target, const struct msim_config *base,
		     uint64_t *steps)
{
	struct msim *m;
	void *state = NULL;
	int ret = msim_create(base, &m, NULL, 0);

	if (ret)
		return ret;
	ret = target->setup(m, &state, target->arg);
	if (!ret) {
		msim_run(m);
		*steps = msim_sched_steps(m);
	}
	if (target->teardown)
		target->teardown(m, state);
	msim_destroy(m);
	return ret;
}

/* ---- one run ---- */

/* The strategy of run number run: random and PCT use seed + run. */
static int prepare(struct msim *m, const struct explore *x, unsigned int run, uint64_t *seed_out)
{
	const struct msim_explore_opts *o = x->o;
	struct msim_sched_opts so = { 0 };
	int ret;

	so.strategy = o->strategy;
	so.seed = o->seed + run;
	so.pct_depth = o->pct_depth;
	so.pct_steps_hint = (unsigned int)(x->steps_hint ? x->steps_hint : 1000);
	so.schedule = o->schedule;
	*seed_out = so.seed;
	ret = msim_sched_set(m, &so);
	if (ret)
		return ret;
	if (o->strategy == MSIM_STRAT_DPOR && !schedule_from_env()) {
		m->sched.dpor = (struct msim__dpor *)&x->dpor;
		m->sched.dpor->bound = o->preemptions;
		return msim__dpor_begin_run(m->sched.dpor);
	}
	return o->strategy == MSIM_STRAT_DFS ? msim__dfs_install(&x->dfs, m) : 0;
}

/* The run a result describes: its schedule (replayable unless truncated) and trace. */
static void record_run(struct msim_explore_result *res, struct msim *m)
{
	const char *schedule = msim_schedule_string(m);

	snprintf(res->schedule, sizeof(res->schedule), "%s", schedule);
	res->trace_hash = msim_sched_trace_hash(m);
	res->diverged = msim_sched_replay_diverged(m);
	res->schedule_truncated = strlen(schedule) >= sizeof(res->schedule);
	res->preemptions = m->sched.nr_preempt;
	memcpy(res->preempt_log, m->sched.preempt_log, sizeof(res->preempt_log));
}

/* ---- verdicts ---- */

static void note_violation(struct msim_explore_result *res, struct msim *m, unsigned int run,
			   uint64_t seed, const char *why, bool deadlocked)
{
	res->violations++;
	if (res->first_violation_run >= 0)
		return;
	res->first_violation_run = (int)run;
	res->first_violation_seed = seed;
	res->deadlocked = deadlocked;
	record_run(res, m);
	snprintf(res->why, sizeof(res->why), "%s", why);
}

/*
 * A deadlock, a run cut at its step cap, or check() finding the invariant broken
 * is a violation. Until the first one, the result describes the latest run.
 */
static void judge(struct explore *x, struct msim *m, void *state, int rc, unsigned int run,
		  uint64_t seed)
{
	const struct msim_explore_target *target = x->target;
	char *why = x->why;

	why[0] = 0;

	if (rc == -EDEADLK) {
		snprintf(why, sizeof(x->why), "%s", msim_deadlock_report(m));
		note_violation(x->res, m, run, seed, why, true);
	} else if (rc == 0 && target->check && target->check(m, state, why, sizeof(x->why))) {
		note_violation(x->res, m, run, seed, why, false);
	} else if (rc) {
		snprintf(why, sizeof(x->why), "run cut after %llu steps",
			 (unsigned long long)msim_sched_steps(m));
		note_violation(x->res, m, run, seed, why, false);
	}
	if (x->res->first_violation_run < 0)
		record_run(x->res, m);
}

/* ---- the loop ---- */

/* Tell the caller's observer about run number run of host m. */
static void report_run(const struct explore *x, struct msim *m, unsigned int run, uint64_t seed,
		       bool violated, bool pruned)
{
	struct msim_explore_run r = {
		.run = run,
		.seed = seed,
		.trace_hash = msim_sched_trace_hash(m),
		.steps = msim_sched_steps(m),
		.violated = violated,
		.fingerprint = x->o->fingerprint ? msim__fp_run(m) : 0,
		.why = x->why,
		.pruned = pruned,
	};

	x->o->on_run(&r, x->o->on_run_arg);
}

/* DPOR: the next prefix, or the reason the run could not be explored. */
static int dpor_after_run(struct explore *x, struct msim *m, bool *more)
{
	struct msim__dpor *d = &x->dpor;

	m->sched.dpor = NULL;
	if (d->error)
		return d->error;
	*more = msim__dpor_next(d);
	x->res->races = d->races;
	x->res->backtracks = d->backtracks;
	return d->diverged ? -EPROTO : 0;
}

/*
 * Run number run on a fresh host: setup, strategy, run, verdict, and for DFS the
 * next prefix (*more is false once the bounded space is exhausted). Returns 0, or
 * the error of msim_create(), setup() or the strategy.
 */
static int run_once(struct explore *x, unsigned int run, bool *more)
{
	struct msim *m;
	void *state = NULL;
	uint64_t seed, t0 = host_clock();
	int ret;

	/* Lock-order reports name the run that first showed each dependency. */
	msim_lockdep_set_run(x->base->lockdep, (int)run);
	ret = msim_create(x->base, &m, NULL, 0);
	if (ret)
		return ret;
	msim_set_current_host(m);
	ret = x->target->setup(m, &state, x->target->arg);
	msim__explore_host_ns += host_clock() - t0;
	if (!ret)
		ret = prepare(m, x, run, &seed);
	if (!ret) {
		int rc;
		unsigned int violations = x->res->violations;
		bool pruned;

		msim__fp_on = x->o->fingerprint;
		rc = msim_run(m);
		msim__fp_on = 0;
		pruned = rc == -ECANCELED && m->sched.dpor;
		x->res->runs++;
		x->why[0] = 0;
		if (pruned)
			x->res->pruned++; /* DPOR: nothing new past here; no end state to judge */
		else
			judge(x, m, state, rc, run, seed);
		if (x->o->on_run)
			report_run(x, m, run, seed, x->res->violations != violations, pruned);
		if (x->o->strategy == MSIM_STRAT_DFS)
			*more = msim__dfs_next(&x->dfs, m, x->o->preemptions);
		if (m->sched.dpor)
			ret = dpor_after_run(x, m, more);
		x->options_cut |= m->sched.options_cut;
		/*
		 * A run that stopped with tasks parked (pruned, deadlocked, cut) is
		 * being torn down: its teardown may take locks those tasks hold, as
		 * msim_destroy's destructors may (lock.c takes them over). Its
		 * buffered stores reach memory first, as they would in time.
		 */
		if (rc) {
			for (unsigned int cpu = 0; cpu < m->cfg.nr_cpus; cpu++)
				msim__wmm_drain_all(m, cpu);
			m->destroying = true;
		}
	}
	t0 = host_clock();
	if (x->target->teardown)
		x->target->teardown(m, state);
	msim_destroy(m);
	msim__explore_host_ns += host_clock() - t0;
	return ret;
}

int msim_explore(const struct msim_explore_target *target, const struct msim_config *base,
		 const struct msim_explore_opts *o, struct msim_explore_result *res)
{
	struct explore x = { .target = target, .base = base, .o = o, .res = res };
	bool replay_env = schedule_from_env(), fresh = msim__ctx_fresh_stacks;
	double t0 = now_s();
	unsigned int runs, run;
	int ret;

	memset(res, 0, sizeof(*res));
	res->first_violation_run = -1;
	ret = check_args(target, base, o);
	if (ret)
		return ret;
	runs = planned_runs(o, replay_env);
	res->env_replay = env_replaces(o);
	/* The driver thread's tasks get their stacks the way the options say. */
	msim__ctx_fresh_stacks = o->fresh_stacks;
	if (o->strategy == MSIM_STRAT_PCT && !replay_env)
		ret = calibrate(target, base, &x.steps_hint);
	for (run = 0; run < runs && !ret; run++) {
		bool more = true;

		ret = run_once(&x, run, &more);
		if (ret)
			break;
		if (!more) {
			/* a decision that dropped options left part of the space unseen */
			res->exhausted = !x.options_cut;
			break;
		}
		if (o->stop_at_first && res->violations)
			break;
	}
	msim__dfs_free(&x.dfs);
	msim__dpor_free(&x.dpor);
	msim__ctx_fresh_stacks = fresh;
	res->seconds = now_s() - t0;
	return ret;
}
