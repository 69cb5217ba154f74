/* SPDX-License-Identifier: MIT */
/*
 * lockdep_abba.c - lock-order checking across explored runs (<memcgsim/lockdep.h>),
 * written only against the installed libmemcgsim.
 *
 * A planted ABBA that no run deadlocks on, because no run contains both orders:
 * task "either" takes A then B when it runs before the setter, and B then A after
 * it; the setter takes no lock.
 *
 *   run where either goes first          run where the setter goes first
 *   CPU 0 (either)   | CPU 1 (setter)    CPU 0 (either)   | CPU 1 (setter)
 *   flag == 0        |                                    | flag = 1
 *   lock(A)          |                   flag == 1        |
 *   lock(B)          |                   lock(B)          |
 *                    | flag = 1          lock(A)          |
 *
 * Bounded DFS explores both; no run deadlocks (no violation), yet the graph the
 * runs share holds A -> B and B -> A: one "possible circular locking dependency"
 * report, its two dependencies first recorded in two different runs.
 *
 * The last line is "result: PASS" when that held (exit status 0), else
 * "result: FAIL" (status 1). Every line is deterministic.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/atomic.h>
#include <memcgsim/explore.h>
#include <memcgsim/lock.h>
#include <memcgsim/lockdep.h>
#include <memcgsim/sim.h>

struct abba {
	struct msim_lock a, b;
	long flag;
};

static void take(struct msim_lock *first, struct msim_lock *second)
{
	msim_lock(first);
	msim_lock(second);
	msim_unlock(second);
	msim_unlock(first);
}

static void either(void *arg)
{
	struct abba *s = arg;

	if (msim_read_once_at(&s->flag, "example.flag.read"))
		take(&s->b, &s->a);
	else
		take(&s->a, &s->b);
}

static void setter(void *arg)
{
	struct abba *s = arg;

	msim_write_once_at(&s->flag, 1, "example.flag.write");
}

static int setup(struct msim *m, void **state, void *arg)
{
	struct abba *s = calloc(1, sizeof(*s));

	(void)arg;
	if (!s)
		return -ENOMEM;
	msim_lock_init(&s->a, "A");
	msim_lock_init(&s->b, "B");
	*state = s;
	if (!msim_task_create(m, "either", 0, either, s) ||
	    !msim_task_create(m, "setter", 1, setter, s))
		return -ENOMEM;
	return 0;
}

static void teardown(struct msim *m, void *state)
{
	struct abba *s = state;

	(void)m;
	msim_lock_destroy(&s->a);
	msim_lock_destroy(&s->b);
	free(s);
}

int main(void)
{
	struct msim_explore_target target = { .name = "abba", .setup = setup,
					      .teardown = teardown };
	struct msim_explore_opts opts = { .strategy = MSIM_STRAT_DFS, .runs = 100,
					  .preemptions = 1 };
	struct msim_explore_result res;
	struct msim_lockdep *ld = msim_lockdep_create();
	struct msim_config cfg;
	const char *classes[4];
	bool pass;

	if (!ld)
		return 1;
	msim_config_init(&cfg);
	cfg.nr_cpus = 2;
	cfg.lockdep = ld;
	if (msim_explore(&target, &cfg, &opts, &res)) {
		printf("result: FAIL (exploration failed)\n");
		return 1;
	}
	printf("%u runs, %u violations, space %s\n", res.runs, res.violations,
	       res.exhausted ? "exhausted" : "not exhausted");
	printf("lockdep: %u classes, %u dependencies, %u report(s)\n",
	       msim_lockdep_nr_classes(ld), msim_lockdep_nr_dependencies(ld),
	       msim_lockdep_nr_reports(ld));
	msim_lockdep_print_text(stdout, ld);
	pass = res.exhausted && res.violations == 0 && msim_lockdep_nr_reports(ld) == 1 &&
	       msim_lockdep_report_kind(ld, 0) == MSIM_LOCKDEP_CIRCULAR &&
	       msim_lockdep_report_classes(ld, 0, classes, 4) == 2 &&
	       msim_lockdep_depends(ld, "A", "B") && msim_lockdep_depends(ld, "B", "A");
	msim_lockdep_destroy(ld);
	printf("result: %s\n", pass ? "PASS" : "FAIL");
	return pass ? 0 : 1;
}
