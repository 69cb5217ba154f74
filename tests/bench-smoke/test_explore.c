/* SPDX-License-Identifier: MIT */
/*
 * test_explore.c - the explore bench small (--quick: rstat-early-exit's bug and
 * fix sides under random, PCT, DFS and DPOR). Asserts what is deterministic:
 * every strategy finds the bug side's violation; DFS and DPOR exhaust the fixed
 * side under the race's bound without one, DPOR in no more schedules than DFS;
 * docs/races.md's measured rows for it are current;
 * DFS and DPOR reach the bug at the run DFS's own side figures state; and the
 * verdicts follow planted figures (a DFS run again with twice DPOR's count
 * among them). Never a time.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/race.h>

#include "bench_explore.h"
#include "verdict_util.h"

static void quick_run(void **state)
{
	struct bench_ex_config c = { .quick = true, .seed = 1 };
	struct bench_ex_result *r = calloc(1, sizeof(*r));
	const struct msim_race_side *bug;

	(void)state;
	assert_non_null(r);
	assert_int_equal(bench_ex_run(&c, r), 0);
	assert_int_equal(r->ncases, 2);
	assert_true(r->cases[0].bug);
	assert_false(r->cases[1].bug);
	for (unsigned int s = 0; s < 4; s++)   /* the strategies under the race's budget */
		assert_true(r->cases[0].c[s].found);
	for (unsigned int s = 0; s < BENCH_EX_NSTRATS; s++)  /* unbounded DPOR too */
		assert_false(r->cases[1].c[s].found);
	assert_true(r->cases[1].c[2].exhausted);
	assert_true(r->cases[1].c[3].exhausted);
	assert_true(r->cases[1].c[3].runs <= r->cases[1].c[2].runs);
	/* DFS's first violation is the run its side states (0-based: runs - 1) */
	bug = msim_race_side_find(msim_race_find("rstat-early-exit"), "bug");
	assert_non_null(bug);
	if (bug->dfs_schedule)
		assert_int_equal(r->cases[0].c[2].runs, bug->dfs_first_violation + 1);
	free(r);
}

/*
 * docs/races.md's measured section holds this run's rows for rstat-early-exit
 * (the counts are deterministic): regenerate the section when they change.
 */
static void races_md_rows_are_current(void **state)
{
	struct bench_ex_config c = { .quick = true, .seed = 1 };
	struct bench_ex_result *r = calloc(1, sizeof(*r));
	static char doc[1 << 18];
	FILE *f = fopen(MSIM_SOURCE_DIR "/docs/races.md", "r");
	char row[512];
	size_t n;

	(void)state;
	assert_non_null(r);
	assert_non_null(f);
	n = fread(doc, 1, sizeof(doc) - 1, f);
	doc[n] = '\0';
	fclose(f);
	assert_non_null(strstr(doc, BENCH_EX_MD_HEADING "\n"));
	assert_int_equal(bench_ex_run(&c, r), 0);
	for (unsigned int i = 0; i < r->ncases; i++) {
		bench_ex_md_row(&r->cases[i], row, sizeof(row));
		strcat(row, "\n");
		if (!strstr(strstr(doc, BENCH_EX_MD_HEADING), row))
			fail_msg("docs/races.md's measured row is out of date: %s(regenerate: "
				 "memcgsim bench explore --markdown)", row);
	}
	free(r);
}

static void unknown_race_refused(void **state)
{
	struct bench_ex_config c = { .race = "no-such-race" };
	struct bench_ex_result *r = calloc(1, sizeof(*r));

	(void)state;
	assert_non_null(r);
	assert_int_equal(bench_ex_run(&c, r), -22);
	free(r);
}

/* One bug side and one fixed side, with the figures given. */
static void plant(struct bench_ex_result *r, bool dpor_found, unsigned int dpor_fix_runs,
		  bool dpor_exhausted, unsigned int dfs_fix_runs)
{
	memset(r, 0, sizeof(*r));
	r->ncases = 2;
	r->cases[0].bug = true;
	r->cases[0].c[3].found = dpor_found;
	r->cases[0].c[2].found = true;
	r->cases[1].c[3].runs = dpor_fix_runs;
	r->cases[1].c[3].exhausted = dpor_exhausted;
	r->cases[1].c[2].runs = dfs_fix_runs;
	r->cases[1].c[2].exhausted = true;
}

static void verdicts_follow_figures(void **state)
{
	struct bench_ex_result *r = calloc(1, sizeof(*r));
	struct bench_ex_verdicts v;

	(void)state;
	assert_non_null(r);
	plant(r, true, 100, true, 600);
	bench_ex_verdicts(r, &v);
	assert_string_equal(verdict_of(&v.table, "DPOR finds every"), "holds");
	assert_string_equal(verdict_of(&v.table, "DPOR exhausts every"), "holds");
	assert_string_equal(verdict_of(&v.table, "DPOR with no preemption"), "does not hold");
	r->cases[1].c[4].exhausted = true;
	bench_ex_verdicts(r, &v);
	assert_string_equal(verdict_of(&v.table, "DPOR with no preemption"), "holds");
	plant(r, true, 301, true, 600); /* more than half */
	bench_ex_verdicts(r, &v);
	assert_string_equal(verdict_of(&v.table, "DPOR exhausts every"), "does not hold");
	r->cases[0].c[3].refused = true; /* a refused bug side is not a miss */
	r->cases[0].c[3].found = false;
	bench_ex_verdicts(r, &v);
	assert_int_equal(v.fig[BENCH_EX_F_DPOR_REFUSED], 1);
	assert_int_equal(v.fig[BENCH_EX_F_BUG_SIDES], 0);
	assert_string_equal(verdict_of(&v.table, "DPOR finds every"), "not comparable");
	plant(r, false, 400, true, 600);
	bench_ex_verdicts(r, &v);
	assert_string_equal(verdict_of(&v.table, "DPOR finds every"), "does not hold");
	assert_string_equal(verdict_of(&v.table, "DPOR exhausts every"), "does not hold");
	plant(r, true, 100, false, 600);
	bench_ex_verdicts(r, &v);
	assert_string_equal(verdict_of(&v.table, "DPOR exhausts every"), "does not hold");
	r->ncases = 1; /* no fixed side measured */
	bench_ex_verdicts(r, &v);
	assert_string_equal(verdict_of(&v.table, "DPOR exhausts every"), "not comparable");
	assert_string_equal(verdict_of(&v.table, "every fixed side short"), "not comparable");
	plant(r, true, 100, true, 600); /* unbounded: 1000 runs, 100 pruned, not exhausted */
	r->cases[1].c[4].runs = 1000;
	r->cases[1].c[4].pruned = 100;
	bench_ex_verdicts(r, &v);
	assert_string_equal(verdict_of(&v.table, "every fixed side short"), "does not hold");
	verdict_assert_every_row_failed(&v.table);
	free(r);
}

/* DFS run again (twice DPOR's count): the half rule compares with that run, not the budget. */
static void half_rule_uses_dfs_run_again(void **state)
{
	struct bench_ex_result *r = calloc(1, sizeof(*r));
	struct bench_ex_verdicts v;

	(void)state;
	assert_non_null(r);
	plant(r, true, 100, true, 50);  /* DFS stopped at a budget of 50 */
	r->cases[1].c[2].exhausted = false;
	bench_ex_verdicts(r, &v);
	assert_string_equal(verdict_of(&v.table, "DPOR exhausts every"), "does not hold");
	r->cases[1].dfs_checked = true; /* not exhausted in 200: DFS needs more than twice */
	r->cases[1].dfs_check.runs = 200;
	bench_ex_verdicts(r, &v);
	assert_string_equal(verdict_of(&v.table, "DPOR exhausts every"), "holds");
	assert_int_equal(v.fig[BENCH_EX_F_DFS_FIX_RUNS], 200);
	r->cases[1].dfs_check.runs = 150; /* exhausted in 150: less than twice */
	r->cases[1].dfs_check.exhausted = true;
	bench_ex_verdicts(r, &v);
	assert_string_equal(verdict_of(&v.table, "DPOR exhausts every"), "does not hold");
	free(r);
}

/*
 * A fixed side DPOR exhausts in more than half of DFS's schedules
 * (rstat-enqueue-claim/fix: DPOR runs all 14 of DFS's schedules): the bench runs
 * the DFS again with fingerprints and counts the distinct ones, 7 (the runs are
 * deterministic; 14, every run counted, would class the side by its traces),
 * so the side is short of half for a reason other than what its tasks see; a
 * side within half is not counted.
 */
static void fingerprints_counted_where_half_is_missed(void **state)
{
	struct bench_ex_config c = { .race = "rstat-enqueue-claim", .side = "fix", .seed = 1,
				     .verdicts_only = true };
	struct bench_ex_result *r = calloc(1, sizeof(*r));
	struct bench_ex_case *k;

	(void)state;
	assert_non_null(r);
	assert_int_equal(bench_ex_run(&c, r), 0);
	assert_int_equal(r->ncases, 1);
	k = &r->cases[0];
	assert_true(k->c[2].exhausted && k->c[3].exhausted);
	assert_true(2 * k->c[3].runs > k->c[2].runs);
	assert_int_equal(k->c[2].runs, 14);
	assert_int_equal(k->dfs_fingerprints, 7);
	assert_int_equal(bench_ex_half_limit(k), BENCH_EX_LIMIT_REDUNDANT);
	c.race = "rstat-early-exit";
	assert_int_equal(bench_ex_run(&c, r), 0);
	assert_int_equal(r->cases[0].dfs_fingerprints, 0);
	assert_int_equal(bench_ex_half_limit(&r->cases[0]), BENCH_EX_LIMIT_NONE);
	free(r);
}

/*
 * Why a fixed side misses a goal: its distinct traces (runs that ended) against
 * half of a measured DFS, and the share of pruned runs of an unbounded budget.
 */
static void limits_follow_figures(void **state)
{
	struct bench_ex_result *r = calloc(1, sizeof(*r));
	struct bench_ex_verdicts v;
	struct bench_ex_case *k;

	(void)state;
	assert_non_null(r);
	k = &r->cases[1];
	plant(r, true, 66, true, 111);   /* 66 of DFS's 111: its fingerprints not counted */
	k->c[4].exhausted = true;
	assert_int_equal(bench_ex_half_limit(k), BENCH_EX_LIMIT_UNCOUNTED);
	k->dfs_fingerprints = 56;        /* more than half of 111: the traces */
	assert_int_equal(bench_ex_half_limit(k), BENCH_EX_LIMIT_TRACES);
	k->dfs_fingerprints = 55;        /* half of 111 is in reach as far as the tasks see */
	assert_int_equal(bench_ex_half_limit(k), BENCH_EX_LIMIT_REDUNDANT);
	k->c[2].exhausted = false;       /* DFS stopped at its budget */
	assert_int_equal(bench_ex_half_limit(k), BENCH_EX_LIMIT_DFS_BUDGET);
	k->c[2].deferred = true;         /* DFS left to the merge: not judged yet */
	assert_int_equal(bench_ex_half_limit(k), BENCH_EX_LIMIT_UNCOUNTED);
	k->c[2].deferred = false;
	k->c[3].exhausted = false;
	assert_int_equal(bench_ex_half_limit(k), BENCH_EX_LIMIT_NOT_EXHAUSTED);
	plant(r, true, 100, true, 600);
	assert_int_equal(bench_ex_half_limit(k), BENCH_EX_LIMIT_NONE);
	k->c[4].runs = 5000;             /* unbounded: 250 of 5000 pruned, 1 in 20 */
	k->c[4].pruned = 250;
	assert_int_equal(bench_ex_unbounded_limit(k), BENCH_EX_LIMIT_TRACES);
	bench_ex_verdicts(r, &v);
	assert_int_equal(v.fig[BENCH_EX_F_SHORT], 1);
	assert_int_equal(v.fig[BENCH_EX_F_SHORT_TRACES], 1);
	assert_string_equal(verdict_of(&v.table, "every fixed side short"), "holds");
	k->c[4].pruned = 251;
	assert_int_equal(bench_ex_unbounded_limit(k), BENCH_EX_LIMIT_REDUNDANT);
	bench_ex_verdicts(r, &v);
	assert_int_equal(v.fig[BENCH_EX_F_SHORT_TRACES], 0);
	assert_string_equal(verdict_of(&v.table, "every fixed side short"), "does not hold");
	k->c[4].exhausted = true;
	assert_int_equal(bench_ex_unbounded_limit(k), BENCH_EX_LIMIT_NONE);
	bench_ex_verdicts(r, &v);
	assert_int_equal(v.fig[BENCH_EX_F_SHORT], 0);
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(quick_run),
		cmocka_unit_test(races_md_rows_are_current),
		cmocka_unit_test(unknown_race_refused),
		cmocka_unit_test(verdicts_follow_figures),
		cmocka_unit_test(half_rule_uses_dfs_run_again),
		cmocka_unit_test(limits_follow_figures),
		cmocka_unit_test(fingerprints_counted_where_half_is_missed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
