/* SPDX-License-Identifier: MIT */
/* ctest-labels: concurrent */
/*
 * Unit tests of the lock models (lock.h) in both run modes: in concurrent mode
 * the queued spinlock (ck MCS), the mutex and the quiet spinlock (ck
 * fetch-and-store) exclude each other's holders, nested and with trylock, so
 * plain counters updated under them come out exact (and TSan, which cannot see
 * ck's assembly, sees the annotated hand-overs); in deterministic mode a spinlock
 * is the same blocking model as a mutex.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>

#include <memcgsim/explore.h>
#include <memcgsim/lock.h>
#include <memcgsim/script.h>
#include <memcgsim/sim.h>
#include <memcgsim/yield.h>

#define NR_CPUS 4
#define ROUNDS 10000

struct shared {
	struct msim_lock outer, inner;
	struct msim_quiet_spinlock quiet;
	long in_outer, in_inner, in_quiet, tried;   /* plain: only the locks order them */
};

static void hammer(void *arg)
{
	struct shared *s = arg;

	for (int i = 0; i < ROUNDS; i++) {
		msim_lock(&s->outer);
		s->in_outer++;
		msim_lock(&s->inner);   /* nested: a second queue node of this thread */
		s->in_inner++;
		msim_unlock(&s->inner);
		msim_unlock(&s->outer);
		if (msim_trylock(&s->inner)) {
			s->tried++;
			msim_unlock(&s->inner);
		}
		msim_quiet_spin_lock(&s->quiet);
		s->in_quiet++;
		msim_quiet_spin_unlock(&s->quiet);
	}
}

static void run_concurrent(bool spin)
{
	struct msim_config cfg;
	struct shared s;
	struct msim *m;

	memset(&s, 0, sizeof(s));
	msim_config_init(&cfg);
	cfg.nr_cpus = NR_CPUS;
	cfg.mode = MSIM_CONCURRENT;
	assert_int_equal(msim_create(&cfg, &m, NULL, 0), 0);
	if (spin) {
		msim_spin_lock_init(&s.outer, "outer");
		msim_spin_lock_init(&s.inner, "inner");
	} else {
		msim_mutex_init(&s.outer, "outer");
		msim_mutex_init(&s.inner, "inner");
	}
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++)
		assert_non_null(msim_task_create(m, "hammer", cpu, hammer, &s));
	assert_int_equal(msim_run(m), 0);
	assert_int_equal(s.in_outer, (long)NR_CPUS * ROUNDS);
	assert_int_equal(s.in_inner, (long)NR_CPUS * ROUNDS);
	assert_int_equal(s.in_quiet, (long)NR_CPUS * ROUNDS);
	assert_true(s.tried > 0 && s.tried <= (long)NR_CPUS * ROUNDS);
	msim_lock_destroy(&s.outer);
	msim_lock_destroy(&s.inner);
	msim_destroy(m);
}

static void queued_spinlock_excludes_in_concurrent_mode(void **st)
{
	run_concurrent(true);
}

static void mutex_excludes_in_concurrent_mode(void **st)
{
	run_concurrent(false);
}

static void holder(void *arg)
{
	struct shared *s = arg;

	msim_spin_lock(&s->outer);
	msim_yield("holder.inside");
	s->in_outer++;
	msim_spin_unlock(&s->outer);
}

static void waiter(void *arg)
{
	struct shared *s = arg;

	msim_spin_lock(&s->outer);
	s->in_outer += 10;
	msim_spin_unlock(&s->outer);
}

/* Deterministic mode: a held spinlock blocks its taker until the holder is stepped. */
static void spinlock_blocks_in_deterministic_mode(void **st)
{
	struct msim_config cfg;
	struct shared s;
	struct msim *m;
	struct msim_task *h, *w;

	memset(&s, 0, sizeof(s));
	msim_config_init(&cfg);
	cfg.nr_cpus = 2;
	assert_int_equal(msim_create(&cfg, &m, NULL, 0), 0);
	msim_spin_lock_init(&s.outer, "outer");
	h = msim_task_create(m, "holder", 0, holder, &s);
	w = msim_task_create(m, "waiter", 1, waiter, &s);
	assert_int_equal(msim_run_until(m, h, "holder.inside", 1), 0);
	assert_int_equal(msim_run_task(m, w), -EDEADLK);
	assert_int_equal(s.outer.contended, 1);
	assert_int_equal(s.in_outer, 0);
	assert_int_equal(msim_run_task(m, h), 0);
	assert_int_equal(msim_run_task(m, w), 0);
	assert_int_equal(s.in_outer, 11);
	msim_lock_destroy(&s.outer);
	msim_destroy(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(queued_spinlock_excludes_in_concurrent_mode),
		cmocka_unit_test(mutex_excludes_in_concurrent_mode),
		cmocka_unit_test(spinlock_blocks_in_deterministic_mode),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
