/* SPDX-License-Identifier: MIT */
/*
 * test_shrinker_free_wait.c - shrinker_free's wait for in-flight users
 * (src/shrinker/registry.c) on a deterministic host:
 *
 *   driver_free_refused   the driver frees while a parked task holds a
 *                         reference: -EDEADLK, one misuse, nothing changed (the
 *                         shrinker stays registered and usable); once the task
 *                         has put its reference, the free succeeds. Before the
 *                         check the driver spun in shrinker_free.wait_done
 *                         forever (the alarm ends the test then).
 *   task_free_waits       a task frees while another task holds a reference:
 *                         the freeing task yields in the wait until the put, and
 *                         the free returns 0 (a task's wait is not refused).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <memcgsim/memcgsim.h>
#include <memcgsim/introspect.h>

#include "unit_util.h"

/* Seconds a free may take before the test calls it stuck (it takes microseconds). */
#define STUCK_SECONDS 20

static void stuck(int sig)
{
	static const char msg[] = "shrinker_free did not return: the wait spins\n";

	(void)sig;
	(void)!write(2, msg, sizeof(msg) - 1);
	_exit(1);
}

static unsigned long noop_count(struct msim_shrinker *s, struct msim_shrink_control *sc)
{
	(void)s, (void)sc;
	return 0;
}

static unsigned long noop_scan(struct msim_shrinker *s, struct msim_shrink_control *sc)
{
	(void)s, (void)sc;
	return MSIM_SHRINK_STOP;
}

static struct msim_shrinker *registered_shrinker(struct msim *m)
{
	struct msim_shrinker *s;

	assert_int_equal(msim_shrinker_alloc(m, 0, "t", &s), 0);
	s->count_objects = noop_count;
	s->scan_objects = noop_scan;
	assert_int_equal(msim_shrinker_register(s), 0);
	return s;
}

/* Takes a reference, parks at "t.holding", puts it. */
static void holder(void *arg)
{
	struct msim_shrinker *s = arg;

	if (!msim_shrinker_try_get(s))
		return;
	msim_yield("t.holding");
	msim_shrinker_put(s);
}

static uint64_t misuse(struct msim *m)
{
	struct msim_shrinker_stats st;

	msim_shrinker_stats(m, &st);
	return st.misuse;
}

static uint64_t registered(struct msim *m)
{
	struct msim_shrinker_stats st;

	msim_shrinker_stats(m, &st);
	return st.registered;
}

static void driver_free_refused(void **state)
{
	struct msim *m = unit_shrinker_host(MSIM_SHRINKER_INFO_XARRAY, 1);
	struct msim_shrinker *s = registered_shrinker(m);
	struct msim_task *t = msim_task_create(m, "holder", 1, holder, s);
	uint64_t misuse0 = misuse(m);

	(void)state;
	assert_non_null(t);
	assert_int_equal(msim_run_until(m, t, "t.holding", 1), 0);
	signal(SIGALRM, stuck);
	alarm(STUCK_SECONDS);
	assert_int_equal(msim_shrinker_free(s), -EDEADLK);
	alarm(0);
	assert_int_equal(misuse(m), misuse0 + 1);
	assert_int_equal(registered(m), 1);
	assert_true(msim_shrinker_try_get(s));  /* the initial reference is still there */
	msim_shrinker_put(s);
	assert_int_equal(msim_run_task(m, t), 0);
	assert_int_equal(msim_shrinker_free(s), 0);
	assert_int_equal(registered(m), 0);
	assert_int_equal(misuse(m), misuse0 + 1);
	msim_destroy(m);
}

struct freer_arg {
	struct msim_shrinker *s;
	int ret;
	bool ran;
};

static void freer(void *arg)
{
	struct freer_arg *a = arg;

	a->ret = msim_shrinker_free(a->s);
	a->ran = true;
}

static void task_free_waits(void **state)
{
	struct msim *m = unit_shrinker_host(MSIM_SHRINKER_INFO_XARRAY, 1);
	struct freer_arg a = { .s = registered_shrinker(m), .ret = 1 };
	struct msim_task *t = msim_task_create(m, "holder", 1, holder, a.s);
	struct msim_task *f = msim_task_create(m, "freer", 0, freer, &a);
	uint64_t misuse0 = misuse(m);

	(void)state;
	assert_non_null(t);
	assert_non_null(f);
	assert_int_equal(msim_run_until(m, t, "t.holding", 1), 0);
	/* the freer waits at wait_done while the holder is parked */
	assert_int_equal(msim_run_until(m, f, "shrinker_free.wait_done", 3), 0);
	assert_false(a.ran);
	assert_int_equal(msim_run_task(m, t), 0);
	assert_int_equal(msim_run_task(m, f), 0);
	assert_true(a.ran);
	assert_int_equal(a.ret, 0);
	assert_int_equal(registered(m), 0);
	assert_int_equal(misuse(m), misuse0);
	msim_destroy(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(driver_free_refused),
		cmocka_unit_test(task_free_waits),
	};

	setenv("MSIM_QUIET_MISUSE", "1", 1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
