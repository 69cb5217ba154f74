/* SPDX-License-Identifier: MIT */
/*
 * test_explore_rate.c - the explore-rate bench small: 300 runs of rstat-early-exit
 * per strategy on both paths (pooled and fresh task stacks). Asserts what is
 * deterministic: both paths found the same runs, random and PCT ran all 300 and
 * found the race's violation, the host alone was measured, and the verdicts
 * follow planted figures (the goal holds at 20000 a second and fails below; the
 * later goal at 200000, with and without the host's part; a disagreement fails
 * the paths' row).
 * Never a time.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_explore_rate.h"
#include "verdict_util.h"

static void small_run_agrees(void **state)
{
	struct bench_er_config c = { .race = "rstat-early-exit", .runs = 300, .reps = 1, .seed = 1 };
	struct bench_er_result r;

	(void)state;
	assert_int_equal(bench_er_run(&c, &r), 0);
	for (unsigned int s = 0; s < BENCH_ER_NSTRATS; s++) {
		assert_true(r.s[s].paths_agree);
		assert_true(r.s[s].runs > 0);
		assert_true(r.s[s].pooled_per_s > 0 && r.s[s].fresh_per_s > 0);
	}
	assert_int_equal(r.s[0].strategy, MSIM_STRAT_RANDOM);
	assert_int_equal(r.s[1].strategy, MSIM_STRAT_PCT);
	for (unsigned int s = 0; s < 2; s++) {
		assert_int_equal(r.s[s].runs, 300);
		assert_true(r.s[s].violations > 0);
		assert_true(r.s[s].first_violation_run >= 0);
	}
	assert_true(r.host_us > 0); /* the host alone was measured */
}

static void unknown_race_refused(void **state)
{
	struct bench_er_config c = { .race = "no-such-race", .runs = 10, .reps = 1 };
	struct bench_er_result r;

	(void)state;
	assert_int_equal(bench_er_run(&c, &r), -22);
}

static void plant(struct bench_er_result *r, double random, double pct, bool agree)
{
	memset(r, 0, sizeof(*r));
	for (unsigned int s = 0; s < BENCH_ER_NSTRATS; s++) {
		r->s[s].fresh_per_s = 10000;
		r->s[s].paths_agree = true;
	}
	r->s[0].pooled_per_s = random;
	r->s[1].pooled_per_s = pct;
	r->s[2].paths_agree = agree;
}

static void verdicts_follow_figures(void **state)
{
	struct bench_er_result r;
	struct bench_er_verdicts v;

	(void)state;
	plant(&r, 20000, 45000, true);
	bench_er_verdicts(&r, &v);
	assert_string_equal(verdict_of(&v.table, "the explorer runs"), "holds");
	assert_string_equal(verdict_of(&v.table, "both paths"), "holds");
	assert_true(v.fig[BENCH_ER_F_PCT_SPEEDUP] == 4.5);
	plant(&r, 19999, 45000, false);
	bench_er_verdicts(&r, &v);
	assert_string_equal(verdict_of(&v.table, "the explorer runs"), "does not hold");
	assert_string_equal(verdict_of(&v.table, "both paths"), "does not hold");
	plant(&r, 30000, 12000, true);
	bench_er_verdicts(&r, &v);
	assert_string_equal(verdict_of(&v.table, "the explorer runs"), "does not hold");
	plant(&r, 30000, 50000, true);     /* 20 us a run, 14 of them the host's */
	r.host_us = 14;
	bench_er_verdicts(&r, &v);
	assert_string_equal(verdict_of(&v.table, "PCT explores"), "does not hold");
	assert_string_equal(verdict_of(&v.table, "with its host's build"), "does not hold");
	assert_true(fabs(v.fig[BENCH_ER_F_PCT_NO_HOST] - 1e6 / 6) < 1e-6);
	r.host_us = 16;                    /* 4 us left */
	bench_er_verdicts(&r, &v);
	assert_string_equal(verdict_of(&v.table, "with its host's build"), "holds");
	plant(&r, 30000, 250000, true);
	r.host_us = 1;
	bench_er_verdicts(&r, &v);
	assert_string_equal(verdict_of(&v.table, "PCT explores"), "holds");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(small_run_agrees),
		cmocka_unit_test(unknown_race_refused),
		cmocka_unit_test(verdicts_follow_figures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
