/* SPDX-License-Identifier: MIT */
/*
 * update-cost's verdicts follow its figures, both ways, on planted figures (the
 * figures themselves are timings and never gate a test); and the bench runs at
 * its quick size through the command, printing the three costs as JSON.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "bench_update_cost.h"
#include "verdict_util.h"

static void verdicts_follow_planted_figures(void **st)
{
	struct bench_uc_summary s = { .concurrent = 14, .det = 24, .raw = 3 };
	struct bench_uc_verdicts v;

	bench_uc_verdicts(&s, &v);
	assert_string_equal(verdict_of(&v.table, "a depth-2 update costs under 15 ns"), "holds");
	assert_string_equal(verdict_of(&v.table, "a depth-2 update costs under 25 ns"), "holds");
	s.concurrent = 15.5;
	s.det = 400;
	bench_uc_verdicts(&s, &v);
	assert_string_equal(verdict_of(&v.table, "a depth-2 update costs under 15 ns"),
			    "does not hold");
	assert_string_equal(verdict_of(&v.table, "a depth-2 update costs under 25 ns"),
			    "does not hold");
	/* under 25 ns but with stack switches taken: the claim is "no switch" too */
	s.det = 24;
	s.det_resumes = 5;
	bench_uc_verdicts(&s, &v);
	assert_string_equal(verdict_of(&v.table, "a depth-2 update costs under 25 ns"),
			    "does not hold");
	verdict_assert_every_row_failed(&v.table);
}

static void quick_run_prints_json(void **st)
{
	char out[1 << 14];
	FILE *p = popen(MSIM_BINARY_DIR "/memcgsim bench update-cost --quick --json 2>/dev/null",
			"r");
	size_t n;

	assert_non_null(p);
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = '\0';
	assert_int_equal(WEXITSTATUS(pclose(p)), 0);
	assert_non_null(strstr(out, "\"concurrent_ns\""));
	assert_non_null(strstr(out, "\"det_ns\""));
	assert_non_null(strstr(out, "\"raw_ns\""));
	assert_null(strstr(out, "\"det_ns\": -1"));
	/* the decision in the task: no stack switch per update (a step count, exact) */
	assert_non_null(strstr(out, "\"det_switches_per_update\":0,") ?:
			strstr(out, "\"det_switches_per_update\": 0,"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(verdicts_follow_planted_figures),
		cmocka_unit_test(quick_run_prints_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
