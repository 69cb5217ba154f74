/* SPDX-License-Identifier: MIT */
/*
 * test_verdict_engine.c - the verdict rule engine of bench/bench_verdict.c on
 * planted figures: each operator at its boundary, alternatives, the direction
 * rule (a flat thread figure against a change of ours beyond noise does not
 * hold), the by-construction rule, the two printers, and the paired noise of
 * bench_util.c. No bench is run and nothing is timed.
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

#include "bench_util.h"
#include "bench_verdict.h"

#define HOLDS BENCH_VERDICT_HOLDS
#define FAILS BENCH_VERDICT_DOES_NOT_HOLD
#define NC BENCH_VERDICT_NOT_COMPARABLE

/* What the text printer writes for t. */
static char *print_text(const struct bench_verdict_table *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	bench_verdict_print_text(f, t);
	fclose(f);
	return buf;
}


/* ---- the engine ---- */

enum { G_NONE, G_A, G_B, G_C, G_NAN, G_N };
static const char *const g_names[G_N] = { NULL, "a", "b", "c", "nan" };

static struct bench_verdict_table engine_table(const struct bench_verdict_row *rows, size_t n,
					       const double *fig)
{
	return (struct bench_verdict_table){ .reference = "thread 999", .rows = rows, .nrows = n,
					    .fig_names = g_names, .fig = fig, .nfig = G_N };
}

static enum bench_verdict_outcome one_check(enum bench_verdict_op op, double k, unsigned int b,
					    double a, double bval)
{
	const double fig[G_N] = { 0, a, bval, 0, NAN };
	const struct bench_verdict_row r = { .claim = "c", .holds_when = { { G_A, op, k, b } } };
	const struct bench_verdict_table t = engine_table(&r, 1, fig);

	return bench_verdict_judge(&t, &r, NULL);
}

static void engine_operators(void **state)
{
	(void)state;
	/* a op k (b == 0), at and around the boundary */
	assert_int_equal(one_check(BENCH_VOP_LT, 2, 0, 1.9, 0), HOLDS);
	assert_int_equal(one_check(BENCH_VOP_LT, 2, 0, 2, 0), FAILS);
	assert_int_equal(one_check(BENCH_VOP_LE, 2, 0, 2, 0), HOLDS);
	assert_int_equal(one_check(BENCH_VOP_LE, 2, 0, 2.1, 0), FAILS);
	assert_int_equal(one_check(BENCH_VOP_GT, 2, 0, 2.1, 0), HOLDS);
	assert_int_equal(one_check(BENCH_VOP_GT, 2, 0, 2, 0), FAILS);
	assert_int_equal(one_check(BENCH_VOP_GE, 2, 0, 2, 0), HOLDS);
	assert_int_equal(one_check(BENCH_VOP_GE, 2, 0, 1.9, 0), FAILS);
	assert_int_equal(one_check(BENCH_VOP_EQ, 2, 0, 2, 0), HOLDS);
	assert_int_equal(one_check(BENCH_VOP_EQ, 2, 0, 2.5, 0), FAILS);
	/* a op k x b */
	assert_int_equal(one_check(BENCH_VOP_GT, 3, G_B, 10, 3), HOLDS);
	assert_int_equal(one_check(BENCH_VOP_GT, 3, G_B, 9, 3), FAILS);
	assert_int_equal(one_check(BENCH_VOP_LT, -1, G_B, -3.5, 3), HOLDS);
	assert_int_equal(one_check(BENCH_VOP_LT, -1, G_B, -3, 3), FAILS);
	/* a figure that was not measured */
	assert_int_equal(one_check(BENCH_VOP_GT, 1, G_NAN, 1, 0), NC);
	assert_int_equal(one_check(BENCH_VOP_GT, 1, G_B, 1, NAN), NC);
}

static void engine_clauses(void **state)
{
	/* (a > 1 or b > 1) and c == 0; comparable only when c >= 0 */
	static const struct bench_verdict_row r = {
		.claim = "c",
		.comparable_when = { { G_C, BENCH_VOP_GE, 0 } },
		.holds_when = { { G_A, BENCH_VOP_GT, 1, 0, true }, { G_B, BENCH_VOP_GT, 1 },
				{ G_C, BENCH_VOP_EQ, 0 } },
	};
	double fig[G_N] = { 0, 2, 0, 0, NAN };
	struct bench_verdict_table t = engine_table(&r, 1, fig);
	char text[512];

	(void)state;
	assert_int_equal(bench_verdict_judge(&t, &r, NULL), HOLDS);
	fig[G_A] = 0;
	assert_int_equal(bench_verdict_judge(&t, &r, NULL), FAILS);
	fig[G_B] = 5;
	assert_int_equal(bench_verdict_judge(&t, &r, NULL), HOLDS);
	fig[G_C] = 1;
	assert_int_equal(bench_verdict_judge(&t, &r, NULL), FAILS);
	fig[G_C] = -1;
	assert_int_equal(bench_verdict_judge(&t, &r, NULL), NC);
	bench_verdict_rule_text(&t, &r, text, sizeof(text));
	assert_string_equal(text, "comparable when c >= 0; (a > 1 or b > 1) and c == 0");
}

static void engine_direction(void **state)
{
	static const struct bench_verdict_row r = {
		.claim = "c",
		.rule = BENCH_RULE_DIRECTION,
		.dir = { .ours = G_A, .noise = G_B, .thread = G_C, .flat = 0.5 },
	};
	double fig[G_N] = { 0 };
	struct bench_verdict_table t = engine_table(&r, 1, fig);
	const char *detail;
	struct { double ours, noise, thread; enum bench_verdict_outcome o; const char *detail; }
	cases[] = {
		{ -5, 1, -4.5, HOLDS, "direction and size" },
		{ -5, 1, -2, HOLDS, "in direction; the size differs" },
		{ 5, 1, -2, FAILS, "opposite direction" },
		{ 0.5, 1, -2, FAILS, "not reproduced: ours is within noise" },
		{ -1, 1, 0.3, HOLDS, "both within noise" },
		/* a flat thread figure has no sign: ours beyond noise either way differs */
		{ -5, 1, -0.3, FAILS, "the thread's change is flat; ours moves beyond noise" },
		{ 5, 1, 0.3, FAILS, "the thread's change is flat; ours moves beyond noise" },
		{ NAN, 1, -2, NC, "a figure was not measured" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fig[G_A] = cases[i].ours;
		fig[G_B] = cases[i].noise;
		fig[G_C] = cases[i].thread;
		assert_int_equal(bench_verdict_judge(&t, &r, &detail), cases[i].o);
		assert_string_equal(detail, cases[i].detail);
	}
}

static void engine_printers(void **state)
{
	static const struct bench_verdict_row rows[] = {
		{ .claim = "a is big", .thread = { { "a", 0, 10, "x" } },
		  .ours = { { "a", G_A, 0, "x" } }, .holds_when = { { G_A, BENCH_VOP_GT, 5 } },
		  .why = { [BENCH_VERDICT_DOES_NOT_HOLD] = "a is small here" } },
		{ .claim = "only in group 2", .group = 2, .rule = BENCH_RULE_NONE },
		{ .claim = "set up so", .rule = BENCH_RULE_BY_CONSTRUCTION,
		  .holds_when = { { G_A, BENCH_VOP_GT, 5 } },
		  .why = { [BENCH_VERDICT_BY_CONSTRUCTION] = "the setup says so" } },
	};
	const double fig[G_N] = { 0, 3, 0, 0, NAN };
	struct bench_verdict_table t = engine_table(rows, 3, fig);
	struct bench_json j;
	char *text, *json = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	text = print_text(&t);
	assert_non_null(strstr(text, "  [does not hold] a is big\n"));
	assert_non_null(strstr(text, "thread 999: a 10x\n"));
	assert_non_null(strstr(text, "ours:       a 3x\n"));
	assert_non_null(strstr(text, "rule:       a > 5\n"));
	assert_non_null(strstr(text, "why:        a is small here\n"));
	assert_null(strstr(text, "only in group 2"));
	/* by construction: never judged, whatever its checks would say */
	assert_int_equal(bench_verdict_judge(&t, &rows[2], NULL), BENCH_VERDICT_BY_CONSTRUCTION);
	assert_non_null(strstr(text, "  [by construction] set up so\n"));
	assert_non_null(strstr(text, "rule:       none (the setup decides it: by construction)\n"));
	assert_non_null(strstr(text, "why:        the setup says so\n"));
	free(text);
	t.groups = 2;
	text = print_text(&t);
	assert_non_null(strstr(text, "  [not comparable] only in group 2\n"));
	free(text);
	f = open_memstream(&json, &len);
	assert_non_null(f);
	bench_json_init(&j, f);
	bench_verdict_print_json(&j, NULL, &t);
	fclose(f);
	assert_non_null(strstr(json, "[{\"claim\":\"a is big\",\"verdict\":\"does not hold\","
				     "\"reference\":\"thread 999\",\"thread\":[{\"label\":\"a\","
				     "\"value\":10,\"unit\":\"x\"}],\"ours\":[{\"label\":\"a\","
				     "\"value\":3,\"unit\":\"x\"}],\"rule\":\"a > 5\","
				     "\"why\":\"a is small here\"}"));
	assert_non_null(strstr(json, "\"verdict\":\"not comparable\""));
	free(json);
}

/* The noise of a change is its spread between repetitions, not one design's. */
static void paired_noise(void **state)
{
	const double a[3] = { 100, 200, 100 }, b[3] = { 90, 184, 95 };   /* -10, -8, -5 % */

	(void)state;
	assert_float_equal(bench_paired_noise_pct(a, b, 3), 2, 1e-12);
	assert_float_equal(bench_noise_pct(a, 3), 0, 1e-12);       /* a's own MAD: none */
	assert_true(isnan(bench_paired_noise_pct(a, b, 0)));
}


int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(engine_operators),
		cmocka_unit_test(engine_clauses),
		cmocka_unit_test(engine_direction),
		cmocka_unit_test(engine_printers),
		cmocka_unit_test(paired_noise),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
