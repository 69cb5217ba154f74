/* SPDX-License-Identifier: MIT */
/*
 * test_charge_speculative.c - page_counter_try_charge adds speculatively at each
 * level and rolls back on failure, with no CAS loop (mm/page_counter.c). A charge
 * that will itself fail higher up can, while its speculative add sits at a shared
 * ancestor, make a concurrent charge fail that would have fitted alone.
 *
 * Counters: G (max 6) <- P (max 10) <- C1, C2 (no limit).
 * A charges 8 pages at C1 (fails at G on its own: 8 > 6).
 * B charges 4 pages at C2 (fits alone: P 4 <= 10, G 4 <= 6).
 *
 *   CPU 0 (A: try_charge C1, 8)         CPU 1 (B: try_charge C2, 4)
 *   ---------------------------         ---------------------------
 *   C1 += 8 -> 8, <= max
 *   P  += 8 -> 8, <= 10
 *                                       C2 += 4 -> 4, <= max
 *                                       P  += 4 -> 12 > 10: P -= 4,
 *                                         P failcnt++, cancel C2; fail
 *   G  += 8 -> 8 > 6: G -= 8,
 *     G failcnt++, cancel P, C1; fail
 *
 * Both fail and every usage is back to 0, although B alone fits. Scripted, the
 * interleaving gives exactly that; run one after the other (A then B), B
 * succeeds. The random explorer finds the double failure from scratch within
 * the stated budget (200 runs), and a run in which B succeeds too.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/charge.h>
#include <memcgsim/memcgsim.h>

#include "unit/unit_util.h"

struct spec {
	struct msim_page_counter g, p, c1, c2;
	struct msim_page_counter *fail_a, *fail_b;
	bool ok_a, ok_b;
	struct msim_task *a, *b;
};

static void counters_init(struct spec *s)
{
	memset(s, 0, sizeof(*s));
	msim_page_counter_init(&s->g, NULL);
	msim_page_counter_init(&s->p, &s->g);
	msim_page_counter_init(&s->c1, &s->p);
	msim_page_counter_init(&s->c2, &s->p);
	s->g.max = 6;
	s->p.max = 10;
}

static void task_a(void *arg)
{
	struct spec *s = arg;

	s->ok_a = msim_page_counter_try_charge(&s->c1, 8, &s->fail_a);
}

static void task_b(void *arg)
{
	struct spec *s = arg;

	s->ok_b = msim_page_counter_try_charge(&s->c2, 4, &s->fail_b);
}

static void setup_tasks(struct msim *m, struct spec *s)
{
	counters_init(s);
	s->a = msim_task_create(m, "A", 0, task_a, s);
	s->b = msim_task_create(m, "B", 1, task_b, s);
	assert_non_null(s->a);
	assert_non_null(s->b);
}

static void scripted_both_fail(void **state)
{
	struct msim *m = unit_host(2, 1);
	struct spec s;

	(void)state;
	setup_tasks(m, &s);
	/* A: C1 and P charged, stopped before its third add (at G). */
	assert_int_equal(msim_run_until(m, s.a, "atomic_add_return", 3), 0);
	assert_int_equal(msim_page_counter_read(&s.p), 8);
	assert_int_equal(msim_run_task(m, s.b), 0);
	assert_false(s.ok_b);
	assert_ptr_equal(s.fail_b, &s.p);
	assert_int_equal(msim_run_task(m, s.a), 0);
	assert_false(s.ok_a);
	assert_ptr_equal(s.fail_a, &s.g);
	/* Everything rolled back; each failing level counted once. */
	assert_int_equal(msim_page_counter_read(&s.c1), 0);
	assert_int_equal(msim_page_counter_read(&s.c2), 0);
	assert_int_equal(msim_page_counter_read(&s.p), 0);
	assert_int_equal(msim_page_counter_read(&s.g), 0);
	assert_int_equal(s.p.failcnt, 1);
	assert_int_equal(s.g.failcnt, 1);
	assert_int_equal(s.c1.underflows + s.c2.underflows + s.p.underflows + s.g.underflows, 0);
	msim_destroy(m);
}

static void sequential_b_fits(void **state)
{
	struct msim *m = unit_host(2, 1);
	struct spec s;

	(void)state;
	setup_tasks(m, &s);
	assert_int_equal(msim_run_task(m, s.a), 0);
	assert_int_equal(msim_run_task(m, s.b), 0);
	assert_false(s.ok_a);
	assert_true(s.ok_b);
	assert_int_equal(msim_page_counter_read(&s.p), 4);
	assert_int_equal(msim_page_counter_read(&s.g), 4);
	assert_int_equal(s.p.failcnt, 0);
	assert_int_equal(s.g.failcnt, 1);
	msim_destroy(m);
}

/* ---- the explorer's view ---- */

static int ex_setup(struct msim *m, void **state, void *arg)
{
	struct spec *s = calloc(1, sizeof(*s));

	(void)arg;
	if (!s)
		return -1;
	setup_tasks(m, s);
	*state = s;
	return 0;
}

/* Violation: B failed although it fits alone. */
static bool ex_check(struct msim *m, void *state, char *why, size_t len)
{
	struct spec *s = state;

	(void)m;
	if (s->ok_b)
		return false;
	snprintf(why, len, "B failed at %s, P usage back to %ld", s->fail_b == &s->p ? "P" : "?",
		 (long)msim_page_counter_read(&s->p));
	return true;
}

static bool b_succeeded;

static bool ex_check_ok(struct msim *m, void *state, char *why, size_t len)
{
	struct spec *s = state;

	(void)m;
	(void)why;
	(void)len;
	if (s->ok_b)
		b_succeeded = true;
	return s->ok_b; /* "violation" here means: a run where B fitted */
}

static void ex_teardown(struct msim *m, void *state)
{
	(void)m;
	free(state);
}

static void explorer_finds_it(void **state)
{
	struct msim_explore_target t = {
		.name = "charge-speculative", .setup = ex_setup, .check = ex_check,
		.teardown = ex_teardown,
	};
	struct msim_explore_opts o = { .strategy = MSIM_STRAT_RANDOM, .seed = 1, .runs = 200 };
	struct msim_explore_result *res = calloc(1, sizeof(*res));
	struct msim_config cfg;

	(void)state;
	assert_non_null(res);
	msim_config_init(&cfg);
	cfg.nr_cpus = 2;
	assert_int_equal(msim_explore(&t, &cfg, &o, res), 0);
	assert_true(res->violations >= 1);
	assert_true(res->violations < res->runs);
	/* And the other side: some schedules let B fit. */
	t.check = ex_check_ok;
	b_succeeded = false;
	memset(res, 0, sizeof(*res));
	assert_int_equal(msim_explore(&t, &cfg, &o, res), 0);
	assert_true(b_succeeded);
	free(res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(scripted_both_fail),
		cmocka_unit_test(sequential_b_fits),
		cmocka_unit_test(explorer_finds_it),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
