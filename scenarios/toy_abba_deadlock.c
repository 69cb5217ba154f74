/* SPDX-License-Identifier: MIT */
/*
 * toy-abba-deadlock: two tasks take two locks in opposite orders. When each
 * holds its first lock, every task is blocked: the scheduler reports the
 * deadlock, naming both tasks, their CPUs, the locks they wait for and who holds
 * them. The orders where one task finishes first complete without a report.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scn.h"

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

static int abba_script(struct msim *m, void *state, struct msim_race_report *rep)
{
	struct toy_abba *s = state;
	/* Each task takes its first lock and stops before its second. */
	int ret = msim_run_until(m, s->t0, "lock", 2);

	if (!ret)
		ret = msim_run_until(m, s->t1, "lock", 2);
	if (!ret) {
		int rc = msim_run(m);
		rep->violated = rc == -EDEADLK;
		msim_race_note(rep, "%s", rep->violated ? msim_deadlock_report(m) : "no deadlock");
		msim_race_fig_bool(rep, "deadlocked", rep->violated);
	}
	return ret;
}

static int abba_configure(struct msim_config *cfg, char *err, size_t len)
{
	return scn_need_cpus(cfg, 2, "toy-abba-deadlock", err, len);
}

static const struct msim_race toy_abba_deadlock = {
	.name = "toy-abba-deadlock",
	.summary = "two tasks take two locks in opposite orders; the deadlock is reported",
	.thread = "toy",
	.diagram =
		"CPU 0 (ab)                      CPU 1 (ba)\n"
		"----------                      ----------\n"
		"lock(A)\n"
		"                                lock(B)\n"
		"lock(B)   ... waits for CPU 1\n"
		"                                lock(A)   ... waits for CPU 0: deadlock\n",
	.budget = { .runs = 200, .pct_depth = 2, .preemptions = 1, .dfs_runs = 1000 },
	.configure = abba_configure,
	.target = { .name = "toy-abba-deadlock", .setup = abba_setup, .teardown = abba_teardown },
	.script = abba_script,
	.script_replays = true,
	.serial_orders = 2,  /* ab first, or ba first */
	.sides = (const struct msim_race_side[]){
		{ .name = "bug", .settings = "", .violation = true, .deadlock = true, .demo = true,
		  .summary = "every task blocked; the report names both tasks, CPUs and locks",
		  .why = "waits for lock",
		  .notes = (const char *const[]){
			  "task ab (cpu 0) waits for lock B held by ba",
			  "task ba (cpu 1) waits for lock A held by ab", NULL },
		  .figures = (const struct msim_race_expect[]){
			  MSIM_RACE_EXPECT("deadlocked", 1), { NULL } } },
		{ NULL } },
};
MSIM_RACE_REGISTER(toy_abba_deadlock)
