/* SPDX-License-Identifier: MIT */
/*
 * toy-abba-deadlock: two tasks take two locks in opposite orders.
 *
 *   CPU 0                           CPU 1
 *   -----                           -----
 *   lock(A)
 *                                   lock(B)
 *   lock(B)   ... waits for CPU 1
 *                                   lock(A)   ... waits for CPU 0
 *
 * Every task is blocked: the scheduler reports the deadlock, naming both tasks,
 * their CPUs and the locks they wait for and who holds them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario.h"

struct toy_abba {
	struct msim_lock a, b;
	struct msim_task *t0, *t1;
};

static void take_ab(void *arg)
{
	struct toy_abba *s = arg;

	msim_lock(&s->a);
	msim_lock(&s->b);
	msim_unlock(&s->b);
	msim_unlock(&s->a);
}

static void take_ba(void *arg)
{
	struct toy_abba *s = arg;

	msim_lock(&s->b);
	msim_lock(&s->a);
	msim_unlock(&s->a);
	msim_unlock(&s->b);
}

static int abba_setup(struct msim *m, void **state, void *arg)
{
	struct toy_abba *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	msim_lock_init(&s->a, "A");
	msim_lock_init(&s->b, "B");
	s->t0 = msim_task_create(m, "ab", 0, take_ab, s);
	s->t1 = msim_task_create(m, "ba", 1, take_ba, s);
	*state = s;
	return s->t0 && s->t1 ? 0 : -ENOMEM;
}

static void abba_teardown(struct msim *m, void *state)
{
	struct toy_abba *s = state;

	if (!s)
		return;
	msim_lock_destroy(&s->a);
	msim_lock_destroy(&s->b);
	free(s);
}

static int abba_body(struct msim *m, void *state, struct msim_scn_report *rep)
{
	struct toy_abba *s = state;
	/* Each task takes its first lock and stops before its second. */
	int ret = msim_run_until(m, s->t0, "lock", 2);

	if (!ret)
		ret = msim_run_until(m, s->t1, "lock", 2);
	if (!ret) {
		int rc = msim_run(m);
		rep->violated = rc == -EDEADLK;
		msim_scn_trace(rep, "%s", rep->violated ? msim_deadlock_report(m) : "no deadlock");
		msim_scn_fig_bool(rep, "deadlocked", rep->violated);
	}
	return ret;
}

static const struct msim_scenario toy_abba_deadlock;

static int abba_script(const struct msim_config *cfg, struct msim_scn_report *rep)
{
	return msim_scn_script_run(&toy_abba_deadlock, cfg, abba_body, rep);
}

static int abba_configure(struct msim_config *cfg, char *err, size_t len)
{
	return msim_scn_need_cpus(cfg, 2, "toy-abba-deadlock", err, len);
}

static bool abba_expect(const struct msim_config *cfg)
{
	return true;
}

static const struct msim_scenario toy_abba_deadlock = {
	.name = "toy-abba-deadlock",
	.summary = "two tasks take two locks in opposite orders; the deadlock is reported",
	.thread = "toy",
	.default_runs = 200,
	.default_depth = 2,
	.default_preemptions = 1,
	.default_dfs_runs = 1000,
	.configure = abba_configure,
	.expect_violation = abba_expect,
	.target = { .name = "toy-abba-deadlock", .setup = abba_setup, .teardown = abba_teardown },
	.script = abba_script,
	.script_replays = true,
};
MSIM_SCENARIO(toy_abba_deadlock)
