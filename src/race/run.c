/* SPDX-License-Identifier: MIT */
/*
 * run.c - running a race: its script, its concurrent flavour, or an exploration
 * (random, PCT, bounded DFS, replay) of its target through msim_explore.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <memcgsim/race.h>

#include "race_internal.h"

void msim_race_opts_init(struct msim_race_opts *o, enum msim_strategy s)
{
	memset(o, 0, sizeof(*o));
	o->strategy = s;
	o->preemptions = MSIM_RACE_OWN_BUDGET;
}

/* The target arg of a run on side: the side's, else the target's own. */
static void *run_arg(const struct msim_race *r, const struct msim_race_side *side)
{
	return side && side->arg ? side->arg : r->target.arg;
}

bool msim__race_expects(const struct msim_race *r, const struct msim_config *cfg,
			const struct msim_race_side *side)
{
	return r->expect ? r->expect(cfg, run_arg(r, side)) : (side ? side->violation : true);
}

/* The target of one run on side. */
static struct msim_explore_target side_target(const struct msim_race *r,
					      const struct msim_race_side *side)
{
	struct msim_explore_target t = r->target;

	if (!t.name)
		t.name = r->name;
	t.arg = run_arg(r, side);
	return t;
}

/*
 * The usual script: a host from cfg made current, the target's setup, the
 * race's narrative on it, then the schedule and trace hash of what ran.
 */
static int script_on_target(const struct msim_race *r, const struct msim_config *cfg,
			    const struct msim_race_side *side, struct msim_race_result *res)
{
	struct msim_explore_target t = side_target(r, side);
	struct msim *m;
	void *state = NULL;
	char err[256];
	int ret = msim_create(cfg, &m, err, sizeof(err));

	if (ret)
		return ret;
	msim_set_current_host(m);
	ret = t.setup(m, &state, t.arg);
	if (!ret)
		ret = r->script(m, state, &res->rep);
	if (!ret) {
		snprintf(res->rep.schedule, sizeof(res->rep.schedule), "%s",
			 msim_schedule_string(m));
		res->ex.trace_hash = msim_sched_trace_hash(m);
	}
	if (t.teardown)
		t.teardown(m, state);
	msim_destroy(m);
	return ret;
}

/* The first line of the narrative says what went wrong. */
static void first_note_as_why(struct msim_race_result *res)
{
	snprintf(res->ex.why, sizeof(res->ex.why), "%.*s",
		 (int)strcspn(res->rep.notes, "\n"), res->rep.notes);
}

static int run_script(const struct msim_race *r, const struct msim_config *cfg,
		      const struct msim_race_side *side, struct msim_race_result *res,
		      char *err, size_t errlen)
{
	int ret;

	if (r->script)
		ret = script_on_target(r, cfg, side, res);
	else if (r->script_hosts)
		ret = r->script_hosts(cfg, run_arg(r, side), &res->rep);
	else {
		snprintf(err, errlen, "race %s has no scripted schedule; use --strategy random, pct "
			 "or dfs", r->name);
		return -EINVAL;
	}
	if (ret) {
		snprintf(err, errlen, "race %s: the script failed (%s)", r->name, strerror(-ret));
		return ret;
	}
	res->ex.runs = 1;
	res->ex.violations = res->rep.violated ? 1 : 0;
	first_note_as_why(res);
	res->ex.first_violation_run = res->rep.violated ? 0 : -1;
	snprintf(res->ex.schedule, sizeof(res->ex.schedule), "%s", res->rep.schedule);
	return 0;
}

/* The race's concurrent-mode flavour: real threads, liburcu, no schedule. */
static int run_concurrent(const struct msim_race *r, const struct msim_config *cfg,
			  struct msim_race_result *res, char *err, size_t errlen)
{
	struct timespec t0, t1;

	if (!r->concurrent) {
		snprintf(err, errlen, "race %s has no concurrent flavour", r->name);
		return -EINVAL;
	}
	res->concurrent = true;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int ret = r->concurrent(cfg, &res->rep);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	res->ex.seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (ret) {
		snprintf(err, errlen, "race %s: the concurrent run failed (%s)", r->name,
			 strerror(-ret));
		return ret;
	}
	res->ex.runs = 1;
	res->ex.violations = res->rep.violated ? 1 : 0;
	res->ex.first_violation_run = res->rep.violated ? 0 : -1;
	first_note_as_why(res);
	return 0;
}

static void explore_opts(const struct msim_race *r, const struct msim_race_opts *o,
			 struct msim_explore_opts *eo)
{
	const struct msim_race_budget *b = &r->budget;

	memset(eo, 0, sizeof(*eo));
	eo->strategy = o->strategy;
	eo->seed = o->seed;
	eo->pct_depth = o->depth ? o->depth : (b->pct_depth ? b->pct_depth : 2);
	eo->preemptions = o->preemptions != MSIM_RACE_OWN_BUDGET ? o->preemptions
								 : b->preemptions;
	eo->schedule = o->schedule;
	eo->stop_at_first = o->stop_at_first;
	eo->fresh_stacks = o->fresh_stacks;
	eo->on_run = o->on_run;
	eo->on_run_arg = o->on_run_arg;
	eo->fingerprint = o->fingerprint;
	if (o->runs)
		eo->runs = o->runs;
	else if (o->strategy == MSIM_STRAT_DPOR && o->preemptions == MSIM_RACE_OWN_BUDGET &&
		 b->dpor_runs)
		eo->runs = b->dpor_runs;
	else if (o->strategy == MSIM_STRAT_DFS || o->strategy == MSIM_STRAT_DPOR)
		eo->runs = b->dfs_runs ? b->dfs_runs : 10000;
	else
		eo->runs = b->runs ? b->runs : 1000;
}

/*
 * A shard runs its block of the runs: seeds and run numbers are those the whole
 * exploration gives them, so merged shards read as one run. Only random and PCT
 * runs are independent of each other; a DFS schedule depends on the ones before.
 */
static int shard_opts(const struct msim_race *r, const struct msim_race_opts *o,
		      struct msim_explore_opts *eo, struct msim_race_shard *sh, char *err,
		      size_t errlen)
{
	if (o->shard_count <= 1)
		return 0;
	if (o->strategy != MSIM_STRAT_RANDOM && o->strategy != MSIM_STRAT_PCT) {
		snprintf(err, errlen, "race %s: only random and pct explorations can be sharded "
			 "(a %s schedule depends on the ones before it)", r->name,
			 msim_strategy_name(o->strategy));
		return -EINVAL;
	}
	if (o->shard_index >= o->shard_count) {
		snprintf(err, errlen, "shard %u/%u: the index must be below the count",
			 o->shard_index, o->shard_count);
		return -EINVAL;
	}
	*sh = (struct msim_race_shard){ .index = o->shard_index, .count = o->shard_count,
					.runs_total = eo->runs };
	msim_race_shard_range(eo->runs, o->shard_index, o->shard_count, &sh->first_run,
			      &eo->runs);
	eo->seed += sh->first_run;
	return 0;
}

/* A shard's run numbers, back in the whole exploration's numbering. */
static void shard_renumber(struct msim_race_result *res)
{
	if (res->shard.count && res->ex.first_violation_run >= 0)
		res->ex.first_violation_run += (int)res->shard.first_run;
}

static int run_explore(const struct msim_race *r, const struct msim_config *cfg,
		       const struct msim_race_opts *o, struct msim_race_result *res,
		       char *err, size_t errlen)
{
	struct msim_explore_target t = side_target(r, o->side);
	const char *env = getenv("MSIM_SCHEDULE");   /* msim_sched_set() replays it */
	struct msim_explore_opts eo;
	int ret;

	explore_opts(r, o, &eo);
	if ((ret = shard_opts(r, o, &eo, &res->shard, err, errlen)))
		return ret;
	if (res->shard.count && !eo.runs)
		return 0;   /* more shards than runs: this one has none */
	ret = msim_explore(&t, cfg, &eo, &res->ex);
	shard_renumber(res);
	if (ret == -EINVAL && (o->strategy == MSIM_STRAT_REPLAY || (env && *env)))
		snprintf(err, errlen, "race %s: %s'%.200s' is not a schedule of this race "
			 "(picks separated by dots, each optionally *count: a task index below "
			 "the race's task count, R for the RCU engine, !N for the arrival of "
			 "interrupt source N, ~C or ~C+K for a drain of CPU C's store buffer, "
			 "its K-th oldest entry, K below 64)", r->name,
			 env && *env ? "MSIM_SCHEDULE=" : "",
			 env && *env ? env : o->schedule ? o->schedule : "");
	else if (ret == -E2BIG && o->strategy == MSIM_STRAT_DPOR)
		snprintf(err, errlen, "race %s: dpor follows at most 63 threads (tasks, "
			 "interrupt sources, and at most 32 store-buffer drain threads: one per "
			 "CPU under tso, per CPU and address under pso); a run needed more: "
			 "use dfs", r->name);
	else if (ret)
		snprintf(err, errlen, "race %s: exploration failed (%s)", r->name,
			 strerror(-ret));
	return ret;
}

/* The configuration of the run: base, forced deterministic, the race's adjustments. */
static int run_config(const struct msim_race *r, const struct msim_config *base,
		      const struct msim_race_opts *o, struct msim_config *cfg, char *err,
		      size_t errlen)
{
	struct msim_config def;
	int ret;

	*cfg = *base;
	cfg->mode = MSIM_DETERMINISTIC;
	msim_config_init(&def);
	if (o->cpus)
		cfg->nr_cpus = o->cpus;
	else if (r->default_cpus && cfg->nr_cpus == def.nr_cpus)
		cfg->nr_cpus = r->default_cpus;
	if (r->configure && (ret = r->configure(cfg, err, errlen)))
		return ret;
	if (cfg->nr_cpus < r->min_cpus) {
		snprintf(err, errlen, "%s needs at least %u CPUs", r->name, r->min_cpus);
		return -EINVAL;
	}
	return msim_config_validate(cfg, err, errlen);
}

int msim_race_run(const struct msim_race *r, const struct msim_config *base,
		  const struct msim_race_opts *o, struct msim_race_result *res, char *err,
		  size_t errlen)
{
	int ret;

	memset(res, 0, sizeof(*res));
	res->race = r->name;
	res->side = o->side;
	res->strategy = o->strategy;
	res->seed = o->seed;
	res->ex.first_violation_run = -1;
	res->own_budget = !o->runs && o->preemptions == MSIM_RACE_OWN_BUDGET;
	if ((ret = run_config(r, base, o, &res->cfg, err, errlen)))
		return ret;
	if (msim_variants_format(&res->cfg.variants, res->variants, sizeof(res->variants)) >=
	    sizeof(res->variants)) {
		/* a cut string would not apply back in `memcgsim merge` */
		snprintf(err, errlen, "the variants string does not fit in %zu bytes",
			 sizeof(res->variants));
		return -ENAMETOOLONG;
	}
	res->expected_violation = msim__race_expects(r, &res->cfg, o->side);
	res->script_replays = r->script_replays;
	if (o->shard_count > 1 && (o->concurrent || o->strategy == MSIM_STRAT_SCRIPT ||
				   o->strategy == MSIM_STRAT_REPLAY)) {
		snprintf(err, errlen, "race %s: only random and pct explorations can be sharded",
			 r->name);
		return -EINVAL;
	}
	if (o->concurrent)
		ret = run_concurrent(r, &res->cfg, res, err, errlen);
	else if (o->strategy == MSIM_STRAT_SCRIPT)
		ret = run_script(r, &res->cfg, o->side, res, err, errlen);
	else
		ret = run_explore(r, &res->cfg, o, res, err, errlen);
	if (!ret)
		msim__race_set_outcome(r, res);
	return ret;
}

int msim_race_run_side(const struct msim_race *r, const char *side,
		       const struct msim_race_opts *o, struct msim_race_result *res,
		       char *err, size_t errlen)
{
	const struct msim_race_side *s = msim_race_side_find(r, side);
	struct msim_race_opts so = *o;
	struct msim_config cfg;
	int ret;

	if (!s) {
		snprintf(err, errlen, "race %s has no side named '%s'", r->name, side ? side : "");
		return -EINVAL;
	}
	msim_config_init(&cfg);
	if ((ret = msim_race_settings_apply(&cfg, s->settings, err, errlen)))
		return ret;
	so.side = s;
	return msim_race_run(r, &cfg, &so, res, err, errlen);
}

int msim_race_minimize(const struct msim_race *r, const struct msim_config *base,
		       const struct msim_race_side *side, const char *schedule,
		       struct msim_minimize_result *res, char *err, size_t errlen)
{
	struct msim_explore_target t = side_target(r, side);
	struct msim_race_opts o;
	struct msim_config cfg;
	int ret;

	msim_race_opts_init(&o, MSIM_STRAT_REPLAY);
	if ((ret = run_config(r, base, &o, &cfg, err, errlen)))
		return ret;
	ret = msim_explore_minimize(&t, &cfg, schedule, res);
	if (ret == -ESRCH)
		snprintf(err, errlen, "race %s: schedule '%s' does not fail: nothing to minimize",
			 r->name, schedule ? schedule : "");
	else if (ret == -EINVAL)
		snprintf(err, errlen, "race %s: '%s' is not a schedule", r->name,
			 schedule ? schedule : "");
	else if (ret == -EPROTO)
		snprintf(err, errlen, "race %s: the replay of '%.200s' diverged (a pick not enabled, "
			 "or picks left over: not a run of this race under these variants and "
			 "CPUs, or MSIM_SCHEDULE replaced it): nothing to minimize", r->name,
			 schedule ? schedule : "");
	else if (ret)
		snprintf(err, errlen, "race %s: minimizing failed (%s)", r->name, strerror(-ret));
	return ret;
}

int msim_race_replay(const struct msim_race *r, const struct msim_config *cfg,
		     const struct msim_race_side *side, const char *schedule,
		     struct msim_race_result *res, char *err, size_t errlen)
{
	struct msim_race_opts o;

	msim_race_opts_init(&o, MSIM_STRAT_REPLAY);
	o.schedule = schedule;
	o.runs = 1;
	o.side = side;
	return msim_race_run(r, cfg, &o, res, err, errlen);
}
