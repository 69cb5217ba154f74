/* SPDX-License-Identifier: MIT */
/*
 * test_sched_in_task: the decision in the task (src/sim/sched.c decide_in_task,
 * docs/explore.md). A task at a yield point takes its driver loop's next
 * decision itself and goes on with no stack switch when it is picked again; the
 * runs must be exactly those of a stack switch at every step. Here: a lone task
 * under msim_run_task and msim_run switches once (its start), and two to three
 * tasks on shared and separate CPUs, with locks, blocking and a preemption
 * model, run the same schedule string, trace hash, step and switch counts and
 * end state under random, PCT and DFS either way, over many seeds, while the
 * decision in the task switches fewer times.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/memcgsim.h>

#include "sim/sched.h"

static struct msim *host(unsigned int cpus, enum msim_preempt_model preempt)
{
	struct msim_config cfg;
	struct msim *m;
	char err[256];

	msim_config_init(&cfg);
	cfg.nr_cpus = cpus;
	cfg.mode = MSIM_DETERMINISTIC;
	cfg.preempt = preempt;
	assert_int_equal(msim_create(&cfg, &m, err, sizeof(err)), 0);
	return m;
}

#define YIELDS 100

static void yielder(void *arg)
{
	(void)arg;
	for (int i = 0; i < YIELDS; i++)
		msim_yield("in_task.yield");
}

static void lone_task_switches_once(void **st)
{
	for (int driver = 0; driver < 2; driver++) {
		struct msim *m = host(1, MSIM_PREEMPT_UNMODELLED);
		struct msim_task *t = msim_task_create(m, "lone", 0, yielder, NULL);

		assert_non_null(t);
		assert_int_equal(driver ? msim_run(m) : msim_run_task(m, t), 0);
		assert_true(msim_sched_steps(m) == YIELDS + 1);
		assert_true(msim__sched_resumes(m) == 1);
		msim_destroy(m);
	}
	/* the old path, for comparison: a switch at every step */
	msim__sched_always_switch = true;
	struct msim *m = host(1, MSIM_PREEMPT_UNMODELLED);
	struct msim_task *t = msim_task_create(m, "lone", 0, yielder, NULL);

	assert_int_equal(msim_run_task(m, t), 0);
	msim__sched_always_switch = false;
	assert_true(msim__sched_resumes(m) == YIELDS + 1);
	msim_destroy(m);
}

/* ---- the same runs either way ---- */

static long shared;
static struct msim_lock lk;

static void worker(void *arg)
{
	long add = (long)(intptr_t)arg;

	for (int i = 0; i < 6; i++) {
		long v = msim_read_once(&shared);

		msim_write_once(&shared, v + add);
		if (i % 2) {
			msim_lock(&lk);
			msim_write_once(&shared, msim_read_once(&shared) + 1);
			msim_unlock(&lk);
		}
		msim_cond_resched("in_task.resched");
	}
}

struct run {
	char *schedule;
	uint64_t hash, steps, switches, resumes;
	long shared;
	int ret;
};

static void run_once(enum msim_strategy s, uint64_t seed, enum msim_preempt_model preempt,
		     bool always_switch, struct run *r)
{
	struct msim *m = host(2, preempt);
	struct msim_sched_opts o = { .strategy = s, .seed = seed, .pct_depth = 2 };

	shared = 0;
	msim_lock_init(&lk, "in_task.lock");
	msim_task_create(m, "a", 0, worker, (void *)1);
	msim_task_create(m, "b", 1, worker, (void *)100);
	msim_task_create(m, "c", 0, worker, (void *)10000);
	assert_int_equal(msim_sched_set(m, &o), 0);
	msim__sched_always_switch = always_switch;
	r->ret = msim_run(m);
	msim__sched_always_switch = false;
	r->schedule = strdup(msim_schedule_string(m));
	r->hash = msim_sched_trace_hash(m);
	r->steps = msim_sched_steps(m);
	r->switches = msim_sched_switches(m);
	r->resumes = msim__sched_resumes(m);
	r->shared = shared;
	msim_lock_destroy(&lk);
	msim_destroy(m);
}

static void same_runs_either_way(void **st)
{
	static const enum msim_strategy strat[] = { MSIM_STRAT_RANDOM, MSIM_STRAT_PCT };
	static const enum msim_preempt_model pm[] = { MSIM_PREEMPT_UNMODELLED,
						      MSIM_PREEMPT_FULL };
	uint64_t fewer = 0;

	for (unsigned int s = 0; s < 2; s++)
		for (unsigned int p = 0; p < 2; p++)
			for (uint64_t seed = 1; seed <= 60; seed++) {
				struct run a, b;

				run_once(strat[s], seed, pm[p], true, &a);
				run_once(strat[s], seed, pm[p], false, &b);
				assert_int_equal(a.ret, b.ret);
				assert_string_equal(a.schedule, b.schedule);
				assert_true(a.hash == b.hash);
				assert_true(a.steps == b.steps);
				assert_true(a.switches == b.switches);
				assert_int_equal(a.shared, b.shared);
				assert_true(b.resumes <= a.resumes);
				fewer += a.resumes - b.resumes;
				free(a.schedule);
				free(b.schedule);
			}
	assert_true(fewer > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lone_task_switches_once),
		cmocka_unit_test(same_runs_either_way),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
