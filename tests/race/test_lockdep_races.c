/* SPDX-License-Identifier: MIT */
/*
 * The lock-order checker (lockdep.h) over every registered race: each side's
 * script and its DFS exploration (the race's own preemption bound, at most
 * DFS_RUNS schedules: the orders in which its tasks take their locks) share one
 * graph per race. Every race's graph is complete long before DFS_RUNS (the
 * largest, lru-reparent-vs-isolate's 10 classes and 7 dependencies, within 200
 * schedules), and the cap keeps the test short under the sanitizers. toy-abba-deadlock must be reported (one circular dependency of
 * its two locks); every other race of the tree must be silent, so a report here
 * is a lock-order bug of the model (or a missing nesting annotation).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/lockdep.h>
#include <memcgsim/race.h>

#define MAX_RACES 64
#define DFS_RUNS 1000

/* Run side of r under strategy s, recording into ld. */
static void run_side(const struct msim_race *r, const struct msim_race_side *side,
		     enum msim_strategy s, struct msim_lockdep *ld)
{
	struct msim_race_result *res = calloc(1, sizeof(*res));
	struct msim_race_opts o;
	struct msim_config cfg;
	char err[512] = "";
	int ret;

	assert_non_null(res);
	msim_config_init(&cfg);
	assert_int_equal(msim_race_settings_apply(&cfg, side->settings, err, sizeof(err)), 0);
	cfg.lockdep = ld;
	msim_race_opts_init(&o, s);
	o.side = side;
	if (s == MSIM_STRAT_DFS && (!r->budget.dfs_runs || r->budget.dfs_runs > DFS_RUNS))
		o.runs = DFS_RUNS;
	ret = msim_race_run(r, &cfg, &o, res, err, sizeof(err));
	if (ret)
		fail_msg("race %s side %s %s: %s", r->name, side->name, msim_strategy_name(s), err);
	/* Recording changes nothing: the same outcome and schedule as without it. */
	cfg.lockdep = NULL;
	struct msim_race_result *plain = calloc(1, sizeof(*plain));

	assert_non_null(plain);
	assert_int_equal(msim_race_run(r, &cfg, &o, plain, err, sizeof(err)), 0);
	if (plain->behaved_as_expected != res->behaved_as_expected ||
	    strcmp(plain->ex.schedule, res->ex.schedule))
		fail_msg("race %s side %s %s: recording changed the run: %s / %s", r->name,
			 side->name, msim_strategy_name(s), res->outcome, plain->outcome);
	free(plain);
	free(res);
}

/* Every side, scripted (when the race has a script) and explored, into one graph. */
static struct msim_lockdep *check_race(const struct msim_race *r)
{
	struct msim_lockdep *ld = msim_lockdep_create();

	assert_non_null(ld);
	for (const struct msim_race_side *side = r->sides; side && side->name; side++) {
		if (r->script || r->script_hosts)
			run_side(r, side, MSIM_STRAT_SCRIPT, ld);
		run_side(r, side, MSIM_STRAT_DFS, ld);
	}
	return ld;
}

static void test_every_race(void **state)
{
	const struct msim_race *races[MAX_RACES];
	size_t n = msim_race_list(races, MAX_RACES);
	unsigned int flagged = 0;

	(void)state;
	assert_true(n > 1 && n <= MAX_RACES);
	for (size_t i = 0; i < n; i++) {
		struct msim_lockdep *ld = check_race(races[i]);
		unsigned int reports = msim_lockdep_nr_reports(ld);

		if (!strcmp(races[i]->name, "toy-abba-deadlock")) {
			const char *cls[4];

			assert_int_equal(reports, 1);
			assert_int_equal(msim_lockdep_report_kind(ld, 0), MSIM_LOCKDEP_CIRCULAR);
			assert_int_equal(msim_lockdep_report_classes(ld, 0, cls, 4), 2);
			assert_true(msim_lockdep_depends(ld, "A", "B"));
			assert_true(msim_lockdep_depends(ld, "B", "A"));
			flagged++;
		} else if (reports) {
			msim_lockdep_print_text(stderr, ld);
			fail_msg("race %s: %u lock-order reports", races[i]->name, reports);
		}
		msim_lockdep_destroy(ld);
	}
	assert_int_equal(flagged, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_race),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
