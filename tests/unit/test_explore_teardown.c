/* SPDX-License-Identifier: MIT */
/*
 * A run that stops with tasks parked holding locks (here: an ABBA deadlock) is
 * torn down like a host being destroyed: the target's teardown may take those
 * locks (explore.c marks the host destroying; lock.c lets the driver take over a
 * lock a parked task holds then). Before, the driver aborted ("the driver takes
 * lock A held by parked task ab"); unbounded DPOR's pruned runs hit it on
 * lru-reparent-vs-isolate/off.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "unit_util.h"

struct abba {
	struct msim_lock a, b;
	unsigned int teardowns;
};

static void ab_fn(void *arg)
{
	struct abba *s = arg;

	msim_lock(&s->a);
	msim_lock(&s->b);
	msim_unlock(&s->b);
	msim_unlock(&s->a);
}

static void ba_fn(void *arg)
{
	struct abba *s = arg;

	msim_lock(&s->b);
	msim_lock(&s->a);
	msim_unlock(&s->a);
	msim_unlock(&s->b);
}

static int setup(struct msim *m, void **state, void *arg)
{
	struct abba *s = arg;

	msim_lock_init(&s->a, "A");
	msim_lock_init(&s->b, "B");
	*state = s;
	if (!msim_task_create(m, "ab", 0, ab_fn, s) || !msim_task_create(m, "ba", 1, ba_fn, s))
		return -ENOMEM;
	return 0;
}

static bool check(struct msim *m, void *state, char *why, size_t len)
{
	return false;   /* a deadlock is the explorer's violation */
}

/* What a scenario's teardown does: take the locks to free what they guard. */
static void teardown(struct msim *m, void *state)
{
	struct abba *s = state;

	msim_lock(&s->a);
	msim_lock(&s->b);
	msim_unlock(&s->b);
	msim_unlock(&s->a);
	msim_lock_destroy(&s->b);
	msim_lock_destroy(&s->a);
	s->teardowns++;
}

static void teardown_takes_locks_of_parked_tasks(void **st)
{
	static struct abba s;
	const struct msim_explore_target t = {
		.name = "abba-teardown", .setup = setup, .check = check,
		.teardown = teardown, .arg = &s,
	};
	struct msim_config cfg = unit_config(2, 1);
	struct msim_explore_opts o = { .strategy = MSIM_STRAT_DFS, .runs = 1000,
				       .preemptions = MSIM_EXPLORE_UNBOUNDED };
	struct msim_explore_result r;

	cfg.mode = MSIM_DETERMINISTIC;
	assert_int_equal(msim_explore(&t, &cfg, &o, &r), 0);
	assert_true(r.exhausted);
	assert_true(r.violations > 0);          /* some runs deadlocked */
	assert_int_equal(s.teardowns, r.runs);  /* and each was torn down */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(teardown_takes_locks_of_parked_tasks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
