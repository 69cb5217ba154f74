/* SPDX-License-Identifier: MIT */
/*
 * test_clock_dpor.c - a task's clock advance under DPOR: the work items it runs
 * are any code, so the step that runs them touches anything (sim/clock.c). A
 * work that parks returns in a later step, and that step goes on with the next
 * works: it touches anything too. The toy: CPU 0's task advances the clock over
 * two due works, the first storing 2 in a cell and parking at a point that
 * announces nothing, the second storing 1; all plain. CPU 1's task loads the
 * cell through a shim. DFS sees the load return 0, 2 and 1, and so must DPOR
 * (without the rule it takes the second work's step to touch nothing and never
 * runs the load between the two works: 2 is missed).
 */
#include <errno.h>

#include "outcome_util.h"

struct clock_toy {
	struct msim *m;
	struct msim_delayed_work parks, stores;
	long cell, seen;
};

static void parking_work(struct msim_delayed_work *dw)
{
	struct clock_toy *s = dw->data;

	s->cell = 2;     /* plain, in the advance's first step ("anything") */
	msim_yield_access("toy.work.parked", NULL, MSIM_ACCESS_NONE);
}

static void storing_work(struct msim_delayed_work *dw)
{
	struct clock_toy *s = dw->data;

	s->cell = 1;     /* plain: the work's step is "anything" */
}

static void advancer(void *arg)
{
	struct clock_toy *s = arg;

	msim_clock_advance(s->m, 10);
}

static void loader(void *arg)
{
	struct clock_toy *s = arg;

	s->seen = msim_load_at(&s->cell, MSIM_RELAXED, "toy.load");
}

static int toy_setup(struct msim *m, void **state, void *arg)
{
	struct clock_toy *s = calloc(1, sizeof(*s));

	(void)arg;
	if (!s)
		return -ENOMEM;
	*state = s;
	s->m = m;
	msim_init_delayed_work(&s->parks, parking_work, s);
	msim_init_delayed_work(&s->stores, storing_work, s);
	msim_queue_delayed_work(m, &s->parks, 1);
	msim_queue_delayed_work(m, &s->stores, 2);
	if (!msim_task_create(m, "advancer", 0, advancer, s) ||
	    !msim_task_create(m, "loader", 1, loader, s))
		return -ENOMEM;
	return 0;
}

/* Every run "violates": the reason is what the loader saw. */
static bool seen(struct msim *m, void *state, char *why, size_t len)
{
	const struct clock_toy *s = state;

	(void)m;
	snprintf(why, len, "loader saw %ld", s->seen);
	return true;
}

static void toy_teardown(struct msim *m, void *state)
{
	struct clock_toy *s = state;

	if (s) {
		msim_cancel_delayed_work(m, &s->parks);
		msim_cancel_delayed_work(m, &s->stores);
	}
	free(s);
}

static void parked_work_keeps_the_rest_anything(void **unused)
{
	struct msim_explore_target t = {
		.name = "clock-toy", .setup = toy_setup, .check = seen, .teardown = toy_teardown,
	};
	struct outcome_set dfs = { 0 }, dpor = { 0 };
	struct msim_explore_result res;

	(void)unused;
	outcome_explore(&t, MSIM_STRAT_DFS, &dfs, &res);
	outcome_explore(&t, MSIM_STRAT_DPOR, &dpor, &res);
	print_message("    DFS %zu outcomes; DPOR %u schedules, %zu outcomes\n", dfs.n, res.runs,
		      dpor.n);
	assert_int_equal(dfs.n, 3); /* the loader saw 0, 2 or 1 */
	assert_int_equal(outcomes_missing(&dfs, &dpor), 0);
	free(dfs.v);
	free(dpor.v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parked_work_keeps_the_rest_anything),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
