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
 * DFS is stateless model checking with a preemption bound (CHESS-style): a run
 * follows a prefix of recorded choices and then the canonical "no preemption"
 * choice; afterwards the deepest decision with an untried alternative within the
 * bound becomes the next prefix. The bounded space is exhausted when no decision
 * has an alternative left.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

struct dfs_state {
	struct msim_dfs_point *prefix;
	uint64_t len, cap;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static bool alt_allowed(const struct msim_dfs_point *p, unsigned int alt, unsigned int bound)
{
	bool is_r = p->has_r && alt == (unsigned int)p->nr_options - 1;
	unsigned int pre = p->preemptions + (p->current_enabled && alt != 0 && !is_r ? 1 : 0);

	return pre <= bound;
}

/* From the run just finished, pick the next prefix. Returns false when exhausted. */
static bool dfs_next(struct dfs_state *d, const struct msim_sched *s, unsigned int bound)
{
	uint64_t i = s->dfs_len;

	while (i-- > 0) {
		const struct msim_dfs_point *p = &s->dfs[i];
		for (unsigned int alt = p->chosen + 1u; alt < p->nr_options; alt++) {
			if (!alt_allowed(p, alt, bound))
				continue;
			if (i + 1 > d->cap) {
				uint64_t cap = (i + 1) * 2;
				struct msim_dfs_point *np = realloc(d->prefix, cap * sizeof(*np));
				if (!np)
					abort();
				d->prefix = np;
				d->cap = cap;
			}
			memcpy(d->prefix, s->dfs, (i + 1) * sizeof(*p));
			d->prefix[i].chosen = (uint16_t)alt;
			d->len = i + 1;
			return true;
		}
	}
	return false;
}

static int prepare(struct msim *m, const struct msim_explore_opts *o, unsigned int run,
		   const struct dfs_state *d, uint64_t steps_hint, uint64_t *seed_out)
{
	struct msim_sched_opts so = { 0 };
	int ret;

	so.strategy = o->strategy;
	so.seed = o->seed + run;
	so.pct_depth = o->pct_depth;
	so.pct_steps_hint = (unsigned int)(steps_hint ? steps_hint : 1000);
	so.schedule = o->schedule;
	*seed_out = so.seed;
	ret = msim_sched_set(m, &so);
	if (ret)
		return ret;
	if (o->strategy == MSIM_STRAT_DFS && d->len) {
		struct msim_sched *s = &m->sched;
		s->dfs = malloc(d->len * sizeof(*s->dfs));
		if (!s->dfs)
			return -ENOMEM;
		memcpy(s->dfs, d->prefix, d->len * sizeof(*s->dfs));
		s->dfs_cap = d->len;
		s->dfs_prefix_len = d->len;
		/* choose_dfs re-records each decision as it is replayed. */
		s->dfs_len = 0;
	}
	return 0;
}

static void note_violation(struct msim_explore_result *res, struct msim *m, unsigned int run,
			   uint64_t seed, const char *why, bool deadlocked)
{
	res->violations++;
	if (res->first_violation_run >= 0)
		return;
	res->first_violation_run = (int)run;
	res->first_violation_seed = seed;
	res->deadlocked = deadlocked;
	snprintf(res->schedule, sizeof(res->schedule), "%s", msim_schedule_string(m));
	res->trace_hash = msim_sched_trace_hash(m);
	res->diverged = msim_sched_replay_diverged(m);
	res->schedule_truncated = strlen(msim_schedule_string(m)) >= sizeof(res->schedule);
	snprintf(res->why, sizeof(res->why), "%s", why);
}

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

int msim_explore(const struct msim_explore_target *target, const struct msim_config *base,
		 const struct msim_explore_opts *o, struct msim_explore_result *res)
{
	struct dfs_state d = { 0 };
	uint64_t steps_hint = 0;
	unsigned int runs = o->runs ? o->runs : 1, run;
	const char *env = getenv("MSIM_SCHEDULE");
	double t0 = now_s();
	int ret = 0;

	memset(res, 0, sizeof(*res));
	res->first_violation_run = -1;
	if (!target || !target->setup || !base || base->mode != MSIM_DETERMINISTIC)
		return -EINVAL;
	if (o->strategy == MSIM_STRAT_SCRIPT)
		return -EINVAL;
	if (o->strategy == MSIM_STRAT_REPLAY || (env && *env))
		runs = 1;
	if (o->strategy == MSIM_STRAT_PCT && !(env && *env)) {
		ret = calibrate(target, base, &steps_hint);
		if (ret)
			return ret;
	}
	for (run = 0; run < runs; run++) {
		struct msim *m;
		void *state = NULL;
		uint64_t seed;
		char why[512] = "";

		ret = msim_create(base, &m, why, sizeof(why));
		if (ret)
			break;
		msim_set_current_host(m);
		ret = target->setup(m, &state, target->arg);
		if (!ret)
			ret = prepare(m, o, run, &d, steps_hint, &seed);
		if (ret) {
			if (target->teardown)
				target->teardown(m, state);
			msim_destroy(m);
			break;
		}
		int rc = msim_run(m);
		res->runs++;
		if (rc == -EDEADLK) {
			note_violation(res, m, run, seed, msim_deadlock_report(m), true);
		} else if (rc == 0 && target->check && target->check(m, state, why, sizeof(why))) {
			note_violation(res, m, run, seed, why, false);
		} else if (rc && rc != -EDEADLK) {
			snprintf(why, sizeof(why), "run cut after %llu steps",
				 (unsigned long long)msim_sched_steps(m));
			note_violation(res, m, run, seed, why, false);
		}
		if (res->first_violation_run < 0) {
			snprintf(res->schedule, sizeof(res->schedule), "%s", msim_schedule_string(m));
			res->trace_hash = msim_sched_trace_hash(m);
			res->diverged = msim_sched_replay_diverged(m);
			res->schedule_truncated =
				strlen(msim_schedule_string(m)) >= sizeof(res->schedule);
		}
		bool more = true;
		if (o->strategy == MSIM_STRAT_DFS)
			more = dfs_next(&d, &m->sched, o->preemptions);
		if (target->teardown)
			target->teardown(m, state);
		msim_destroy(m);
		if (!more) {
			res->exhausted = true;
			break;
		}
		if (o->stop_at_first && res->violations)
			break;
	}
	free(d.prefix);
	res->seconds = now_s() - t0;
	return ret;
}
