/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of atomic.h's three families: the kernel vocabulary parks a task at
 * its generic point, the _at forms at the point they name (before the access),
 * and the quiet atomics are no yield point at all.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>

#include <memcgsim/atomic.h>
#include <memcgsim/explore.h>
#include <memcgsim/script.h>
#include <memcgsim/sim.h>

struct shared {
	msim_atomic_long_t counter;
	int refs;
	void *ptr;
	unsigned long bits[2];
	long quiet_seen;      /* the refs value the task saw before its first yield */
};

static struct msim *host(void)
{
	struct msim_config cfg;
	struct msim *m;

	msim_config_init(&cfg);
	cfg.nr_cpus = 1;
	assert_int_equal(msim_create(&cfg, &m, NULL, 0), 0);
	return m;
}

static void named_task(void *arg)
{
	struct shared *s = arg;
	void *expect = NULL;

	msim_atomic_long_add_at(&s->counter, 5, "t.counter.add");
	msim_xchg_at(&s->refs, 3, MSIM_ACQ_REL, "t.refs.xchg");
	msim_try_cmpxchg_at(&s->ptr, &expect, (void *)s, MSIM_SEQ_CST, MSIM_RELAXED, "t.ptr.cas");
	msim_set_bit_at(70, s->bits, "t.bits.set");
}

/* Each named point stops the task before its access; stepping on performs it. */
static void named_forms_park_before_the_access(void **st)
{
	struct msim *m = host();
	struct shared s = { 0 };
	struct msim_task *t = msim_task_create(m, "named", 0, named_task, &s);

	assert_int_equal(msim_run_until(m, t, "t.counter.add", 1), 0);
	assert_int_equal(s.counter.counter, 0);
	assert_int_equal(msim_run_until(m, t, "t.refs.xchg", 1), 0);
	assert_int_equal(s.counter.counter, 5);
	assert_int_equal(s.refs, 0);
	assert_int_equal(msim_run_until(m, t, "t.ptr.cas", 1), 0);
	assert_int_equal(s.refs, 3);
	assert_null(s.ptr);
	assert_int_equal(msim_run_until(m, t, "t.bits.set", 1), 0);
	assert_ptr_equal(s.ptr, &s);
	assert_int_equal(s.bits[1], 0);
	assert_int_equal(msim_run_task(m, t), 0);
	assert_int_equal(s.bits[1], 1UL << 6);
	assert_int_equal(msim_sched_steps(m), 5);
	msim_destroy(m);
}

static void generic_task(void *arg)
{
	struct shared *s = arg;
	long old = 0;

	msim_atomic_long_add(&s->counter, 1);
	msim_atomic_long_try_cmpxchg(&s->counter, &old, 7); /* fails: old becomes 1 */
	msim_atomic_long_try_cmpxchg(&s->counter, &old, 7);
	msim_clear_bit(0, s->bits);
	msim_smp_mb();
}

/* The kernel vocabulary keeps its generic names (schedules and traces rely on them). */
static void kernel_vocabulary_keeps_generic_points(void **st)
{
	static const char *const points[] = { "atomic_add", "atomic_cmpxchg", "atomic_cmpxchg",
					      "clear_bit", "smp_mb" };
	struct msim *m = host();
	struct shared s = { .bits = { 1, 0 } };
	struct msim_task *t = msim_task_create(m, "generic", 0, generic_task, &s);

	for (size_t i = 0; i < sizeof(points) / sizeof(points[0]); i++) {
		assert_int_equal(msim_step(m, t, 1), 1);
		assert_string_equal(msim_task_parked_at(t), points[i]);
	}
	assert_int_equal(msim_run_task(m, t), 0);
	assert_int_equal(s.counter.counter, 7);
	assert_int_equal(s.bits[0], 0);
	msim_destroy(m);
}

static void quiet_task(void *arg)
{
	struct shared *s = arg;
	int expect = 0;

	msim_quiet_fetch_add(&s->refs, 2, MSIM_RELAXED);
	msim_quiet_try_cmpxchg(&s->refs, &expect, 9, MSIM_SEQ_CST, MSIM_RELAXED); /* fails */
	msim_quiet_store(&s->ptr, (void *)s, MSIM_RELEASE);
	s->quiet_seen = msim_quiet_sub_return(&s->refs, 1, MSIM_ACQ_REL);
	msim_yield("t.after");
}

/* Quiet atomics do their work without giving the scheduler a chance to switch. */
static void quiet_atomics_are_no_yield_point(void **st)
{
	struct msim *m = host();
	struct shared s = { 0 };
	struct msim_task *t = msim_task_create(m, "quiet", 0, quiet_task, &s);

	assert_int_equal(msim_step(m, t, 1), 1);
	assert_string_equal(msim_task_parked_at(t), "t.after");
	assert_int_equal(s.refs, 1);
	assert_int_equal(s.quiet_seen, 1);
	assert_ptr_equal(s.ptr, &s);
	assert_int_equal(msim_run_task(m, t), 0);
	assert_int_equal(msim_sched_steps(m), 2);
	msim_destroy(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(named_forms_park_before_the_access),
		cmocka_unit_test(kernel_vocabulary_keeps_generic_points),
		cmocka_unit_test(quiet_atomics_are_no_yield_point),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
